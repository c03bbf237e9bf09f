"""What `termx index` accepts (issue 26.13, issue 27): endless binary input stops at its first block, JSON arrays,
gzip/bzip2/xz input, blank corpus names refused, and an unknown corpus name answered with the nearest one."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from termx.cli import app
from termx.errors import CorpusNotFound, InputError
from termx.index.ingest import Document, InputMode, OnInvalid, read_documents
from termx.storage.corpora import drop_corpus, get_corpus, list_corpora
from termx.storage.indexer import index_documents

runner = CliRunner()

JSONL = '{"id": "a", "title": "T", "text": "Hi_Ho_Hi_Ho"}\n{"text": "Hi_Ho"}\n\n{"text": "Hi"}\n'


def _name(prefix: str = "in") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def _error_line(result: Any) -> str:
    """The one line a failed command printed (exit 1, no traceback)."""
    assert result.exit_code == 1, (result.exit_code, result.output)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in result.output, result.stderr
    assert not lines[0].startswith("Error: unexpected"), lines[0]
    return lines[0]


# An endless or huge binary input: each `termx index` of it runs in a child process whose address space is capped
# at 1.5 GB (the imports take ~0.7 GB of it), so reading the whole input would fail with MemoryError, not with the
# one-line error about the first block. The FIFO is written by a thread that stops when the reader goes away.
_ENDLESS_PROBE = """
import json, os, resource, sys, threading
resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))
from typer.testing import CliRunner
from termx.cli import app

def feed(fifo):
    try:
        with open(fifo, "wb") as out:
            while True:
                out.write(bytes(1 << 20))
    except BrokenPipeError:
        pass

fifo, name, *inputs = sys.argv[1:]
threading.Thread(target=feed, args=(fifo,), daemon=True).start()
for path in [fifo, *inputs]:
    result = CliRunner().invoke(app, ["index", path, "--corpus", name, "-q"])
    print(json.dumps([path, result.exit_code, result.stderr]))
result = CliRunner().invoke(app, ["segscore", "/dev/zero", "/dev/null"])  # termx.line_reader.read_lines
print(json.dumps(["segscore", result.exit_code, result.stderr]))
"""


def test_endless_binary_input_fails_at_its_first_block(db_env: str, tmp_path: Path) -> None:
    """/dev/zero, /dev/urandom, a FIFO that never ends and a gzip bomb of zeros (4 GiB from 4 MB: 4096 members of
    1 MiB) each fail at once with the one-line error, within a memory bound, and write nothing; so does /dev/zero
    given to a command that reads whole files of lines (segscore)."""
    fifo, bomb = tmp_path / "endless", tmp_path / "bomb.txt.gz"
    os.mkfifo(fifo)
    bomb.write_bytes(gzip.compress(bytes(1 << 20)) * 4096)
    name = _name("endless")
    done = subprocess.run([sys.executable, "-c", _ENDLESS_PROBE, str(fifo), name, "/dev/zero", "/dev/urandom",
                           str(bomb)], capture_output=True, text=True, timeout=300, env={**os.environ})
    assert done.returncode == 0, done.stderr
    results = {path: (code, err) for path, code, err in map(json.loads, done.stdout.splitlines())}
    nul = "contains a NUL byte at offset 0 (binary input cannot be read as text)"
    assert results[str(fifo)] == (1, f"Error: {fifo} {nul}\n")
    assert results["/dev/zero"] == results["segscore"] == (1, f"Error: /dev/zero {nul}\n")
    assert results[str(bomb)] == (1, f"Error: {bomb} {nul}\n")
    code, err = results["/dev/urandom"]  # random bytes: invalid UTF-8, or now and then a NUL, within a few bytes
    assert code == 1 and err.startswith(("Error: /dev/urandom is not valid UTF-8 at byte offset ",
                                         "Error: /dev/urandom contains a NUL byte at offset ")) and \
        err.count("\n") == 1, err
    assert name not in {c.name for c in list_corpora_of(db_env)}


def list_corpora_of(url: str) -> list[Any]:
    from termx.storage.db import get_engine

    return list_corpora(get_engine(url))


def test_json_array_of_objects(tmp_path: Path) -> None:
    f = tmp_path / "docs.json"
    f.write_text(json.dumps([{"id": 7, "title": "T", "text": "one"}, {"text": " "}, {"text": "two", "x": 1}]),
                 encoding="utf-8")
    docs, report = read_documents([str(f)])
    assert [(d.name, d.text, d.title, d.given) for d in docs] == [("7", "one", "T", True),
                                                                  ("docs.json:3", "two", None, False)]
    assert report.empty_documents == 1
    plain = tmp_path / "data"  # no suffix: --input json says how to read it
    plain.write_text('[{"text": "a"}]', encoding="utf-8")
    assert [d.text for d in read_documents([str(plain)], InputMode.json)[0]] == ["a"]
    assert [d.text for d in read_documents([str(plain)])[0]] == ['[{"text": "a"}]']  # auto: a text file


@pytest.mark.parametrize(("content", "says"), [
    ('{"text": "one object"}', 'holds a JSON object (expected a JSON array of objects with a string "text" field'),
    ('"text"', "holds a JSON string (expected a JSON array"),
    ("3", "holds a JSON number"),
    ('[{"text": "a"}, "b"]', 'item 2: expected an object with a string "text" field'),
    ('[{"text": "a"}, {"text": 5}]', 'item 2: expected an object with a string "text" field'),
    ('{"text": "a"}\n{"text": "b"}\n', "not JSON (Extra data) (expected a JSON array of objects"),
    ('[{"text": "\\ud800"}]', "a string holds a lone surrogate"),
])
def test_json_file_holding_something_else(tmp_path: Path, content: str, says: str) -> None:
    f = tmp_path / "docs.json"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_documents([str(f)])
    assert str(caught.value).startswith(str(f)) and says in str(caught.value), str(caught.value)


COMPRESS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_compressed_inputs_read_as_the_plain_file(tmp_path: Path, kind: str) -> None:
    plain = tmp_path / "x.jsonl"
    plain.write_text(JSONL, encoding="utf-8")
    packed = tmp_path / f"x.jsonl.{kind}"
    packed.write_bytes(COMPRESS[kind](JSONL.encode()))
    want = [(d.name.replace("x.jsonl:", ""), d.text, d.title) for d in read_documents([str(plain)])[0]]
    docs, _ = read_documents([str(packed)])
    assert [(d.name.replace(f"{packed.name}:", ""), d.text, d.title) for d in docs] == want
    unnamed = tmp_path / f"text-{kind}"  # recognised by its magic bytes, whatever its name
    unnamed.write_bytes(COMPRESS[kind]("caf\u00e9 text\n".encode()))
    assert [d.text for d in read_documents([str(unnamed)])[0]] == ["caf\u00e9 text\n"]


def test_compressed_input_gets_the_checks_of_its_text(tmp_path: Path) -> None:
    """NUL, invalid UTF-8 and damage are reported at their offset in the decompressed text; several gzip members
    are one text, as gzip -d reads them."""
    f = tmp_path / "t.txt.gz"
    f.write_bytes(gzip.compress(b"abc") + gzip.compress(b"d\x00"))
    with pytest.raises(InputError, match=r"t.txt.gz contains a NUL byte at offset 4 \("):
        read_documents([str(f)])
    f.write_bytes(gzip.compress(b"ab\xffc"))
    with pytest.raises(InputError, match="t.txt.gz is not valid UTF-8 at byte offset 2"):
        read_documents([str(f)])
    docs, report = read_documents([str(f)], on_invalid=OnInvalid.substitute)
    assert docs[0].text == "ab\ufffdc" and report.replaced_bytes == 1
    f.write_bytes(gzip.compress(b"abc" * 1000)[:-20])
    with pytest.raises(InputError, match="t.txt.gz is not valid gzip data: Compressed file ended"):
        read_documents([str(f)])
    f.write_bytes(bz2.compress(b"abc" * 1000)[:-20])
    with pytest.raises(InputError, match="t.txt.gz is not valid bzip2 data"):
        read_documents([str(f)])
    f.write_bytes(b"BZh9 starts this text, as B and Z and h could")  # not bzip2 for all that
    assert read_documents([str(f)])[0][0].text == "BZh9 starts this text, as B and Z and h could"
    f.write_bytes(gzip.compress(b"  \n"))
    with pytest.raises(InputError, match="t.txt.gz is empty"):
        read_documents([str(f)])


def test_stats_of_a_gzipped_corpus_equal_the_plain_ones(db_env: str, tmp_path: Path) -> None:
    plain = tmp_path / "x.jsonl"
    plain.write_text(JSONL, encoding="utf-8")
    packed = tmp_path / "x.jsonl.gz"
    packed.write_bytes(gzip.compress(JSONL.encode()))
    names = _name("plain"), _name("gz"), _name("stdin")
    for name, args in zip(names, ([str(plain)], [str(packed)], ["-", "--input", "jsonl"]), strict=True):
        result = runner.invoke(app, ["index", *args, "--corpus", name, "-q"], input=packed.read_bytes())
        assert result.exit_code == 0, result.stderr
    stats = []
    for name in names:
        result = runner.invoke(app, ["stats", name, "Hi", "Ho", "Hi_Ho", "_", "x", "--format", "json"])
        assert result.exit_code == 0, result.stderr
        row = json.loads(runner.invoke(app, ["corpora", name, "--format", "json"]).stdout)[0]
        stats.append(([{k: v for k, v in r.items() if k != "corpus"} for r in json.loads(result.stdout)],
                      {k: row[k] for k in ("tokens", "documents", "classes")}))
    assert stats[0] == stats[1] == stats[2] and stats[0][1]["documents"] == 3


@pytest.mark.parametrize("blank", [" ", "   ", "\u3000", "\t"])
def test_blank_corpus_names_are_refused(engine, db_env: str, tmp_path: Path, blank: str) -> None:  # type: ignore[no-untyped-def]
    """A name of spaces (or other white space) names nothing a user can see: refused by the CLI and the API."""
    f = tmp_path / "t.txt"
    f.write_text("some text", encoding="utf-8")
    line = _error_line(runner.invoke(app, ["index", str(f), "--corpus", blank]))
    assert "a corpus name must" in line
    with pytest.raises(InputError, match="a corpus name must"):
        index_documents(engine, blank, [Document("d", "some text")])
    assert not [c.name for c in list_corpora(engine) if not c.name.strip()]


@pytest.mark.parametrize("padded", ["c1 ", " c1", "c1\u3000"])
def test_corpus_names_with_white_space_at_an_end_are_refused(engine, padded: str) -> None:  # type: ignore[no-untyped-def]
    """`c1 ` would print as a second corpus `c1` in every table: refused, with the trimmed name as the hint."""
    with pytest.raises(InputError, match="must not start or end with white space") as caught:
        index_documents(engine, padded, [Document("d", "some text")])
    assert caught.value.hint == "name it 'c1'"


@pytest.fixture(scope="module")
def reuters(engine) -> Any:  # type: ignore[no-untyped-def]
    """A corpus named like a well-known one, unique to this run (`reuters-<id>`), dropped afterwards."""
    name = f"reuters-{uuid.uuid4().hex[:6]}"
    index_documents(engine, name, [Document("d", "Hi_Ho_Hi_Ho Hi_Ho Hi")])
    yield name
    drop_corpus(engine, name)


def test_unknown_corpus_suggests_the_nearest_name(engine, db_env: str, reuters: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    typo = reuters.replace("reuters", "reuter")
    hint = f"did you mean {reuters!r}?"
    f = tmp_path / "t.txt"
    f.write_text("more text", encoding="utf-8")
    for argv in (["stats", typo, "Hi"], ["corpora", typo], ["drop", typo],
                 ["index", str(f), "--corpus", typo, "--append"],
                 ["sql", "stats", "-p", f"corpus={typo}", "-p", "pattern=Hi"],
                 ["terms", reuters, "--rank", "specificity", "--reference", typo]):
        line = _error_line(runner.invoke(app, argv))
        assert typo in line and hint in line, (argv, line)
    assert _error_line(runner.invoke(app, ["stats", typo, "Hi"])) == \
        f"Error: no corpus named {typo!r} (did you mean {reuters!r}? termx corpora lists them)"
    with pytest.raises(CorpusNotFound, match=f"did you mean {reuters!r}"):
        get_corpus(engine, typo)
    far = "zq" * 12  # nothing close: the hint alone
    assert _error_line(runner.invoke(app, ["stats", far, "Hi"])) == \
        f"Error: no corpus named {far!r} (termx corpora lists them)"
