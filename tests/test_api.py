"""The Python API returns exactly the records the CLI prints as JSON, and segments new text like corpus text."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

import termx
from termx.cli import app
from termx.errors import CorpusNotFound
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.indexer import index_documents

runner = CliRunner()
WORDS = ["market", "bank", "oil", "price", "rose", "fell", "share", "the", "of", "dollar"]


@pytest.fixture(scope="module")
def corpus(engine: Engine) -> str:
    rng = np.random.default_rng(11)
    docs = [Document(f"d{k}", " ".join(rng.choice(WORDS, 60))) for k in range(12)]
    index_documents(engine, "api", docs, Unit.byte, 3, replace=True)
    return "api"


def _cli(*args: str, stdin: str | None = None) -> object:
    result = runner.invoke(app, list(args), input=stdin)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_api_records_equal_cli_json(corpus: str, db_env: str) -> None:
    with termx.open(corpus) as c:
        assert c.stats(["bank", "oil price", "zzz"]) == _cli("stats", corpus, "bank", "oil price", "zzz",
                                                            "--format", "json")
        assert c.stats("bank") == c.stats(["bank"])
        assert c.concordance("price", left=5, right=8, limit=7) == _cli(
            "concordance", corpus, "price", "-l", "5", "-r", "8", "-n", "7", "--format", "json")
        assert c.class_of("ban") == _cli("class", corpus, "ban", "--format", "json")[0]  # type: ignore[index]
        assert c.class_of("ban", members=True, limit=3) == _cli("class", corpus, "ban", "-m", "-n", "3",
                                                                "--format", "json")[0]  # type: ignore[index]
        assert c.terms(rank="adaptation", top=5, min_df=2) == _cli("terms", corpus, "--top", "5", "--min-df", "2",
                                                                    "--format", "json")
        lines = ["theoilpricerose", "", "bankshares fell"]
        assert list(c.segment_records(lines)) == _cli("segment", corpus, "-", "--format", "json",
                                                      stdin="\n".join(lines) + "\n")
        assert [r["words"] for r in c.segment_records(lines)] == list(c.segment(lines, batch=2))


def test_api_on_a_corpus_of_several_shards_equals_cli_json(engine: Engine, db_env: str) -> None:
    rng = np.random.default_rng(5)
    docs = [Document(f"d{k}", " ".join(rng.choice(WORDS, 40))) for k in range(9)]
    index_documents(engine, "api-shards", docs, Unit.byte, 3, replace=True, shard_size=700)
    with termx.open("api-shards") as c:
        assert len(c.shards) > 2
        assert c.stats(["bank", "oil price", "zzz"]) == _cli("stats", "api-shards", "bank", "oil price", "zzz",
                                                            "--format", "json")
        assert c.concordance("price", limit=9) == _cli("concordance", "api-shards", "price", "-n", "9",
                                                      "--format", "json")
        listing = c.classes("ban", members=True, limit=3)
        assert listing == _cli("class", "api-shards", "ban", "-m", "-n", "3", "--format", "json")
        assert len(listing) == len(c.shards) and all(len(r["members"]) <= 3 for r in listing)
        with pytest.raises(termx.TermxError, match="shards"):
            c.class_of("ban")


def test_segment_new_text_equals_segmenting_it_inside_the_corpus(engine: Engine, db_env: str) -> None:
    rng = np.random.default_rng(2)
    texts = ["".join(rng.choice(WORDS, 40)) for _ in range(10)]
    index_documents(engine, "api-unspaced", [Document(f"d{k}", t) for k, t in enumerate(texts)], Unit.byte, 3,
                    replace=True)
    from termx.storage.index_loader import load_index
    from termx.wordbreak import Scorer, Segmenter

    index = load_index(engine, "api-unspaced")
    seg = Segmenter(index, Scorer.branching)
    spans = [(int(index.doc_start[d]), int(index.doc_start[d] + index.doc_len[d])) for d in range(index.n_docs)]
    inside = []
    for text, cuts in zip(texts, seg.corpus_spans(spans), strict=True):
        edges = [0, *cuts.tolist(), len(text)]
        inside.append([text[a:b] for a, b in zip(edges, edges[1:], strict=False)])
    with termx.open("api-unspaced") as c:
        assert list(c.segment(texts, batch=3)) == inside


def test_unknown_corpus(engine: Engine, db_env: str) -> None:
    with pytest.raises(CorpusNotFound):
        termx.open("no-such-corpus")
