"""`termx index / corpora / drop` end to end against PostgreSQL, including every kind of bad input."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from termx.cli import app
from termx.index.ingest import Document, paragraphs
from termx.storage import corpora, partitions
from termx.storage.corpora import get_corpus, list_corpora
from termx.storage.db import get_engine
from termx.storage.indexer import index_documents

runner = CliRunner()


def _name() -> str:
    return f"c-{uuid.uuid4().hex[:10]}"


def _docs(tmp_path: Path, texts: list[str] | None = None) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    for n, text in enumerate(texts or ["Hi_Ho_Hi_Ho", "Hi_Ho", "Hi"]):
        (folder / f"doc{n}.txt").write_text(text, encoding="utf-8")
    return folder


def _run(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args))


def _error_line(result) -> str:  # type: ignore[no-untyped-def]
    assert result.exit_code != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def test_index_and_corpora_json(db_env: str, tmp_path: Path) -> None:
    name = _name()
    result = _run("index", str(_docs(tmp_path)), "--corpus", name, "--quiet", "--format", "json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["tokens"] == 18 and summary["documents"] == 3
    rows = {r["name"]: r for r in json.loads(_run("corpora", "--format", "json").stdout)}
    assert {k: rows[name][k] for k in ("unit", "tokens", "documents", "classes", "max_k")} == \
        {"unit": "byte", "tokens": 18, "documents": 3, "classes": summary["classes"], "max_k": 4}
    csv_out = _run("corpora", "--format", "csv").stdout
    assert csv_out.splitlines()[0].startswith("name,unit,tokens")


def test_jsonl_lines_and_stdin_inputs(db_env: str, tmp_path: Path) -> None:
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('{"id": "a", "title": "T", "text": "one two"}\n\n{"text": "three"}\n', encoding="utf-8")
    name = _name()
    assert _run("index", str(jsonl), "--corpus", name, "-q").exit_code == 0
    assert get_corpus_docs(db_env, name) == 2
    lines = tmp_path / "l.txt"
    lines.write_text("first line\nsecond line\n\nthird\n", encoding="utf-8")
    name2 = _name()
    assert _run("index", str(lines), "--corpus", name2, "--input", "lines", "--unit", "word", "-q").exit_code == 0
    assert get_corpus_docs(db_env, name2) == 3
    paras = tmp_path / "p.txt"
    paras.write_text("a b\nc\n \n\n\td e\n\nf", encoding="utf-8")
    assert [(d.name, d.text) for d in paragraphs(paras.read_text(encoding="utf-8"), "p.txt")] == \
        [("p.txt:1", "a b\nc"), ("p.txt:5", "\td e"), ("p.txt:7", "f")]
    name4 = _name()
    assert _run("index", str(paras), "--corpus", name4, "--input", "paragraphs", "-q").exit_code == 0
    assert get_corpus_docs(db_env, name4) == 3
    name3 = _name()
    result = runner.invoke(app, ["index", "-", "--corpus", name3, "-q"], input="from stdin")
    assert result.exit_code == 0, result.stderr
    assert get_corpus_docs(db_env, name3) == 1


@pytest.mark.parametrize("content, expected", [
    (b"", "is empty"),
    (b"abc\x00def", "NUL byte at offset 3"),
    (b"ok \xff\xfe bad", "not valid UTF-8 at byte offset 3"),
])
def test_bad_files_give_one_line_errors(db_env: str, tmp_path: Path, content: bytes, expected: str) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(content)
    name = _name()
    line = _error_line(_run("index", str(bad), "--corpus", name))
    assert expected in line and str(bad) in line
    assert all(c.name != name for c in _corpora(db_env))


def test_invalid_utf8_can_be_replaced(db_env: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok \xff bad")
    result = _run("index", str(bad), "--corpus", _name(), "--invalid", "replace", "-q", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["replaced_bytes"] == 1


def test_empty_directory_and_missing_path(db_env: str, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert "holds no files" in _error_line(_run("index", str(tmp_path / "empty"), "--corpus", _name()))
    assert "no such file" in _error_line(_run("index", str(tmp_path / "nope"), "--corpus", _name()))


def test_bad_jsonl_names_the_line(db_env: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine"}\n{"txt": 1}\n', encoding="utf-8")
    assert f"{bad}:2" in _error_line(_run("index", str(bad), "--corpus", _name()))


def test_existing_corpus_needs_replace(db_env: str, tmp_path: Path) -> None:
    name = _name()
    docs = _docs(tmp_path)
    assert _run("index", str(docs), "--corpus", name, "-q").exit_code == 0
    assert "already exists" in _error_line(_run("index", str(docs), "--corpus", name, "-q"))
    (tmp_path / "x").mkdir()
    other = _docs(tmp_path / "x", ["a new text"])
    assert _run("index", str(other), "--corpus", name, "-q", "--replace").exit_code == 0
    assert {c.name: c.documents for c in _corpora(db_env)}[name] == 1


def test_drop(db_env: str, tmp_path: Path) -> None:
    name = _name()
    assert _run("index", str(_docs(tmp_path)), "--corpus", name, "-q").exit_code == 0
    assert _run("drop", name, "-q").exit_code == 0
    assert all(c.name != name for c in _corpora(db_env))
    assert "no corpus named" in _error_line(_run("drop", name))


def test_database_down_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TERMX_DATABASE_URL", raising=False)
    line = _error_line(_run("index", str(_docs(tmp_path)), "--corpus", "x",
                            "--db", "postgresql://postgres@127.0.0.1:1/nowhere"))
    assert "cannot connect" in line and "127.0.0.1:1" in line


def test_failed_build_leaves_no_trace(engine, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """An exception half-way through the load rolls everything back; the old corpus stays intact."""
    name = _name()
    index_documents(engine, name, [Document("old", "old text old text")])
    before = get_corpus(engine, name)

    def boom(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("injected failure during the class load")

    monkeypatch.setattr(corpora, "_copy_classes", boom)
    with pytest.raises(RuntimeError):
        index_documents(engine, name, [Document("new", "brand new"), Document("n2", "x")], replace=True)
    with pytest.raises(RuntimeError):
        index_documents(engine, name + "-new", [Document("new", "brand new")])
    after = get_corpus(engine, name)
    assert (after.id, after.documents, after.tokens) == (before.id, before.documents, before.tokens)
    assert all(c.name != name + "-new" for c in list_corpora(engine))
    with engine.connect() as conn:
        orphans = conn.execute(sa.text("SELECT count(*) FROM pg_tables WHERE schemaname = 'termx' AND "
                                       "tablename LIKE 'class\\_%' AND tablename NOT IN "
                                       "(SELECT 'class_' || id FROM termx.shard)")).scalar()
    assert orphans == 0


def _corpora(url: str):  # type: ignore[no-untyped-def]
    return list_corpora(get_engine(url))


def get_corpus_docs(url: str, name: str) -> int:
    return get_corpus(get_engine(url), name).documents


def test_drop_and_replace_do_not_wait_for_a_reader(engine, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A reader holding the class partition neither blocks drop/replace nor sees a half corpus: the name goes or
    changes at once, the reader keeps its snapshot, and the old tables are purged once it has finished."""
    name = _name()
    index_documents(engine, name, [Document("a", "some text some text")])
    monkeypatch.setattr(partitions, "DETACH_TIMEOUT", "200ms")
    with engine.connect().execution_options(isolation_level="REPEATABLE READ") as reader:
        shard = reader.execute(sa.text("SELECT s.id FROM termx.shard s JOIN termx.corpus c ON c.id = s.corpus_id "
                                       "WHERE c.name = :n"), {"n": name}).scalar_one()
        before = reader.execute(sa.text(f"SELECT count(*) FROM termx.class_{int(shard)}")).scalar()
        index_documents(engine, name, [Document("b", "other other")], replace=True)
        assert get_corpus(engine, name).documents == 1
        corpora.drop_corpus(engine, name)
        assert all(c.name != name for c in list_corpora(engine))
        assert reader.execute(sa.text(f"SELECT count(*) FROM termx.class_{int(shard)}")).scalar() == before
    index_documents(engine, _name(), [Document("c", "a later build purges what the reader kept")])
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM termx.corpus WHERE name IS NULL")).scalar() == 0
        assert conn.execute(sa.text("SELECT to_regclass(:t)"), {"t": f"termx.class_{int(shard)}"}).scalar() is None


def test_drop_removes_and_names_what_was_built_for_the_corpus(db_env: str, engine,  # type: ignore[no-untyped-def]
                                                              tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from termx.storage.index_loader import load_index
    from termx.tbl.model_store import save_model
    from termx.tbl.segmentation import train_segmentation_corrector

    monkeypatch.setenv("TERMX_HOME", str(tmp_path / "home"))
    name = _name()
    index_documents(engine, name, [Document("a", "some text some text")])
    corpus_id = get_corpus(engine, name).id
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO termx.term_list (name, corpus_id) VALUES (:n, :c)"),
                     {"n": f"list-{name}", "c": corpus_id})
        conn.execute(sa.text("INSERT INTO termx.seg_run (corpus_id) VALUES (:c)"), {"c": corpus_id})
    save_model(engine, f"model-{name}", train_segmentation_corrector(["a b"], ["ab"]), corpus_id=corpus_id)
    load_index(engine, name)
    assert any((tmp_path / "home" / "cache").iterdir())
    replaced = _run("index", str(_docs(tmp_path)), "--corpus", name, "--replace")
    assert replaced.exit_code == 0, replaced.stderr
    assert f"replaced {name}: deleted its 1 term list, 1 white space run, 1 TBL model" in replaced.stderr
    assert not any((tmp_path / "home" / "cache").iterdir())
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO termx.term_list (name, corpus_id) VALUES (:n, :c)"),
                     {"n": f"list-{name}", "c": get_corpus(engine, name).id})
    dropped = _run("drop", name)
    assert dropped.exit_code == 0 and dropped.stderr == f"dropped {name} and its 1 term list\n"
    with engine.connect() as conn:
        left = conn.execute(sa.text("SELECT (SELECT count(*) FROM termx.term_list WHERE name = :l)"
                                    " + (SELECT count(*) FROM termx.tbl_model WHERE name = :m)"),
                            {"l": f"list-{name}", "m": f"model-{name}"}).scalar()
    assert left == 0


def test_summary_formats_go_to_stdout(db_env: str, tmp_path: Path) -> None:
    folder = _docs(tmp_path)
    for fmt, sep in (("csv", ","), ("tsv", "\t")):
        result = _run("index", str(folder), "--corpus", _name(), "-q", "--format", fmt)
        assert result.exit_code == 0, result.stderr
        header, row = result.stdout.splitlines()
        assert header.split(sep)[:4] == ["corpus", "unit", "max_k", "tokens"] and "seconds_total" not in header
        assert any(c.startswith("seconds_") for c in header.split(sep))
        assert row.split(sep)[1:3] == ["byte", "4"] and result.stderr == ""
    result = _run("index", str(folder), "--corpus", _name(), "-q", "--format", "jsonl")
    (line,) = result.stdout.splitlines()
    assert json.loads(line)["documents"] == 3
