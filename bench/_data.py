"""Where the bench scripts find the real data: $TERMX_DATA, else ../shared/data next to the repository.

The data is never copied into the repository and no script names a machine's absolute path; a script that takes
`--data` defaults it from here.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from termx.index.ingest import Document

REPOSITORY = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    """The shared data folder (the one holding en/, ja/, zh/ and PROVENANCE.md)."""
    return Path(os.environ.get("TERMX_DATA") or REPOSITORY.parent / "shared" / "data")


def random_patterns(docs: list[Document], count: int, seed: int = 7) -> list[str]:
    """Random substrings of 2-12 characters at random positions of random documents (the look-up benches' queries)."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        text = rng.choice(docs).text
        length = rng.randint(2, 12)
        if len(text) > length:
            at = rng.randrange(len(text) - length)
            out.append(text[at: at + length])
    return out


def word_pair_counts(docs: Iterable[Any]) -> tuple[Counter[str], Counter[tuple[str, str]]]:
    """Word and adjacent-pair counts of spaced documents' lines (each a list of words): the lists instant-segment
    is given by the peers' benches."""
    words: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    for d in docs:
        for line in d.lines:
            words.update(line)
            pairs.update(zip(line, line[1:], strict=False))
    return words, pairs


def reuters_documents() -> list[Document]:
    """Reuters-21578 stories ordered by newid (the order every word-breaking figure uses)."""
    with (data_dir() / "en" / "reuters21578.jsonl").open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    rows.sort(key=lambda r: r["newid"])
    return [Document(str(r["id"]), r["text"]) for r in rows]


def manpage_documents() -> list[Document]:
    """The Linux man pages (sections 2-7, rendered to plain text), one document per page, in file order."""
    with (data_dir() / "en" / "manpages.jsonl").open(encoding="utf-8") as f:
        return [Document(str(r["id"]), r["text"]) for r in map(json.loads, f)]


def pku_gold_lines() -> list[str]:
    """The SIGHAN 2005 PKU test text as segmented by the providers (words separated by spaces), non-empty lines."""
    text = (data_dir() / "zh" / "sighan2005-pku" / "pku_test_gold.utf8").read_text(encoding="utf-8")
    return [line for line in text.split("\n") if line.split()]


def conllu_sentences(paths: list[Path], joiner: str = " ") -> list[str]:
    """Gold tokens of each sentence of CoNLL-U files, joined by `joiner` (multi-word token ranges skipped)."""
    out: list[str] = []
    for path in paths:
        words: list[str] = []
        for line in [*path.read_text(encoding="utf-8").split("\n"), ""]:
            if not line.strip():
                if words:
                    out.append(joiner.join(words))
                words = []
            elif not line.startswith("#"):
                cols = line.split("\t")
                if cols[0].isdigit():
                    words.append(cols[1].replace(" ", ""))
    return out


def ud_japanese_lines() -> list[str]:
    """Gold tokens of each UD Japanese GSD dev sentence, space-joined."""
    return conllu_sentences([data_dir() / "ja" / "ud-japanese-gsd" / "ja_gsd-ud-dev.conllu"])


def reuters_first_lines(n_chars: int, path: Path | None = None) -> list[str]:
    """Non-empty, white-space-normalised lines of the first Reuters documents in file order, ~n_chars
    non-space characters in all (bench/bench_tbl.py's data)."""
    out: list[str] = []
    total = 0
    with (path or data_dir() / "en" / "reuters21578.jsonl").open(encoding="utf-8") as f:
        for raw in f:
            for line in json.loads(raw)["text"].splitlines():
                words = line.split()
                if not words:
                    continue
                out.append(" ".join(words))
                total += sum(len(w) for w in words)
                if total >= n_chars:
                    return out
    return out


NEWTEXT_CORPUS = 15_000
"""New text against a spaced corpus (issue 32): the first 15,000 Reuters stories (alnum condition, by newid) are the
corpus; the next 1,000 the development pool (bench/tune_word_model.py draws its documents there); the rest the
pool the evaluation draws its 500 documents from (bench/bench_peers.py --parts newtext), so no seed's evaluation
documents are ever tuned on or counted."""
NEWTEXT_DEV_POOL = 1_000
NEWTEXT_DOCS = 500


def newtext_split(seed: int, part: str) -> tuple[list[Any], list[Any]]:
    """(corpus, documents) of the new-text setup: the 15,000 corpus stories (SpacedDocument, alnum) and 500 stories
    drawn with `seed` from the development pool (`part` "dev") or the evaluation pool ("test")."""
    import random

    from termx.defaults import Condition
    from termx.experiments.whitespace import spaced_documents

    docs = spaced_documents(reuters_documents(), Condition.alnum)
    corpus, rest = docs[:NEWTEXT_CORPUS], docs[NEWTEXT_CORPUS:]
    pool = rest[:NEWTEXT_DEV_POOL] if part == "dev" else rest[NEWTEXT_DEV_POOL:]
    return corpus, random.Random(seed).sample(pool, NEWTEXT_DOCS)
