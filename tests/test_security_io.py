"""Hostile input: `termx sql` cannot leave its read-only transaction or run a program; corpus text and names
cannot drive the terminal (escaped in tables, exact in JSON and CSV)."""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from termx.cli import app
from termx.cli.output import render
from termx.errors import InputError
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.safe_text import escape_controls
from termx.storage.indexer import index_documents
from termx.storage.sqlfiles import READER_ROLE, run_sql

runner = CliRunner()

ESCAPES = "\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b31m\u202eevil\u2066\x7f"


def _table_exists(engine: sa.Engine, name: str) -> bool:
    with engine.connect() as conn:
        return conn.execute(sa.text("SELECT to_regclass(:n) IS NOT NULL"), {"n": name}).scalar_one()


def _sql_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / f"q{uuid.uuid4().hex[:6]}.sql"
    path.write_text(f"-- a hostile query\n{text}\n", encoding="utf-8")
    return path


class ServerFile:
    """A file that a server-side program would create: a relative path, so in the server's data directory (the
    working directory of COPY ... TO PROGRAM), checked through the server. No directory of this machine needs to be
    open to the server's user ($TMPDIR may be /tmp/pytest-of-root, 0700, and the server another user)."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        self.name = f"termx-ran-{uuid.uuid4().hex}"

    def __str__(self) -> str:
        return self.name

    def exists(self) -> bool:
        with self.engine.connect() as conn:
            found = conn.execute(sa.text("SELECT (pg_stat_file(:f, true)).size"), {"f": self.name}).scalar()
        return found is not None


@pytest.fixture
def marker(engine: sa.Engine) -> Iterator[ServerFile]:
    """A file the database server's own user can create (the server may run as another user than the tests)."""
    path = ServerFile(engine)
    yield path
    with engine.begin() as conn:
        conn.exec_driver_sql(f"COPY (SELECT 1 WHERE false) TO PROGRAM 'rm -f {path}'")


def _one_line(result) -> str:  # type: ignore[no-untyped-def]
    assert result.exit_code == 1, result.output
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("Error: ")
    assert "Traceback" not in result.output
    return result.stderr


def test_sql_cannot_end_its_transaction(engine, db_env: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    table = f"pwned_{uuid.uuid4().hex[:6]}"
    for text in (f"SELECT 1; COMMIT; CREATE TABLE public.{table}(x int)",
                 f"SELECT 1; CREATE TABLE public.{table}(x int);",
                 f"select 1 ; commit ; create table public.{table}(x int) -- :unused"):
        err = _one_line(runner.invoke(app, ["sql", str(_sql_file(tmp_path, text))]))
        assert "more than one statement" in err
    assert not _table_exists(engine, f"public.{table}")


@pytest.mark.parametrize("text, message", [
    ("COPY (SELECT 1) TO PROGRAM 'touch {marker}'", "is a COPY statement"),
    ("copy (select 1) to program 'touch {marker}'", "is a COPY statement"),
    ("  ( COPY (SELECT 1) TO PROGRAM 'touch {marker}')", "is a COPY statement"),
    ("DO $$ BEGIN EXECUTE 'COPY (SELECT 1) TO PROGRAM ''touch {marker}'''; END $$", "is a DO statement"),
    ("/* SELECT */ COPY (SELECT 1) TO PROGRAM 'touch {marker}'", "not a query"),
    ("/* /* */ SELECT */ COPY (SELECT 1) TO PROGRAM 'touch {marker}'", "not a query"),
    ("COMMIT", "is a COMMIT statement"),
    ("SET TRANSACTION READ WRITE", "is a SET statement"),
])
def test_sql_refuses_copy_and_other_statements(db_env: str, tmp_path: Path, marker: ServerFile, text: str,
                                               message: str) -> None:
    err = _one_line(runner.invoke(app, ["sql", str(_sql_file(tmp_path, text.format(marker=marker)))]))
    assert message in err and "read-only" in err
    assert not marker.exists()


def test_copy_to_program_is_not_stopped_by_read_only_alone(engine, marker: ServerFile) -> None:  # type: ignore[no-untyped-def]
    """Why COPY is refused by kind: PostgreSQL runs COPY ... TO PROGRAM inside a READ ONLY transaction."""
    with engine.connect() as conn:
        conn.exec_driver_sql("SET TRANSACTION READ ONLY")
        conn.exec_driver_sql(f"COPY (SELECT 1) TO PROGRAM 'touch {marker}'")
        conn.rollback()
    assert marker.exists()


def test_sql_writes_inside_a_query_are_refused(engine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    table = f"t_{uuid.uuid4().hex[:6]}"
    with engine.begin() as conn:
        conn.exec_driver_sql(f"CREATE TABLE public.{table} (x int)")
        conn.exec_driver_sql(f"INSERT INTO public.{table} VALUES (1)")
    query = _sql_file(tmp_path, f"WITH d AS (DELETE FROM public.{table} RETURNING x) SELECT * FROM d")
    with pytest.raises(InputError, match="read-only transaction"):
        run_sql(engine, query)
    with engine.connect() as conn:
        assert conn.exec_driver_sql(f"SELECT count(*) FROM public.{table}").scalar_one() == 1
    # a plain query without parameters still runs, through the same prepared-statement path
    assert run_sql(engine, _sql_file(tmp_path, "SELECT 1 AS one, '50%' AS pct")) == [{"one": 1, "pct": "50%"}]


def test_escape_controls() -> None:
    assert escape_controls("a\x1b[2Jb\x07c\x9b\u202ed\u2069e\x7f") == "a\\x1b[2Jb\\x07c\\x9b\\u202ed\\u2069e\\x7f"
    assert escape_controls("plain — ünïcode 東京 [red]") == "plain — ünïcode 東京 [red]"
    table = render([{"text": ESCAPES, "n": 1}], "table")
    assert not any(c in table for c in "\x1b\x07\x9b\u202e\u2066\x7f")
    assert "\\x1b]52;c;cHduZWQ=\\x07" in table
    rows = list(csv.reader(io.StringIO(render([{"text": ESCAPES}], "csv"))))
    assert rows == [["text"], [ESCAPES]]
    for fmt in ("json", "jsonl"):
        text = render([{"text": ESCAPES + "\u2028"}], fmt)
        assert json.loads(text.strip("[]\n ") if fmt == "jsonl" else text) in ([{"text": ESCAPES + "\u2028"}],
                                                                              {"text": ESCAPES + "\u2028"})
        assert not any(c in text for c in "\x1b\x07\x9b\u202e\u2066\x7f\u2028")


@pytest.fixture(scope="module")
def hostile(engine) -> str:  # type: ignore[no-untyped-def]
    name = f"hostile-{uuid.uuid4().hex[:8]}"
    docs = [Document("evil\x1b[2J", f"before KEY {ESCAPES} after"), Document("d2", "KEY again KEY")]
    index_documents(engine, name, docs, Unit.char, 2)
    return name


def test_concordance_escapes_in_table_and_keeps_json_exact(db_env: str, hostile: str) -> None:
    table = runner.invoke(app, ["concordance", hostile, "KEY", "-r", "80", "-q"])
    assert table.exit_code == 0, table.output
    assert not any(c in table.stdout for c in "\x1b\x07\x9b\u202e\u2066\x7f")
    assert "\\x1b]0;pwned\\x07" in table.stdout and "\\u202eevil" in table.stdout
    out = runner.invoke(app, ["concordance", hostile, "KEY", "-r", "80", "--format", "json"])
    rows = json.loads(out.stdout)
    assert any(ESCAPES in r["right"] for r in rows)  # exact data, yet nothing raw a terminal would act on
    assert not any(c in out.stdout for c in "\x1b\x07\x9b\u202e\u2066\x7f")
    assert any(r["doc"] == "evil\x1b[2J" for r in rows)
    out = runner.invoke(app, ["concordance", hostile, "KEY", "-r", "80", "--format", "csv", "-q"])
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert any(ESCAPES in r["right"] for r in rows) and any(r["doc"] == "evil\x1b[2J" for r in rows), out.stdout
    stats = runner.invoke(app, ["stats", hostile, "pwned"])
    assert stats.exit_code == 0 and "\x1b" not in stats.stdout and "\\x07" in stats.stdout


def test_corpus_names_must_be_printable(engine, db_env: str) -> None:  # type: ignore[no-untyped-def]
    for name in ("a\x1b]0;x\x07", "right\u202eleft", "two\nlines", "nul\x00", "bell\x07"):
        with pytest.raises(InputError, match="must be printable"):
            index_documents(engine, name, [Document("d", "text")], Unit.byte)
        err = _one_line(runner.invoke(app, ["index", "-", "--corpus", name], input="some text"))
        assert "must be printable" in err and "\x1b" not in err and "\u202e" not in err
    with engine.connect() as conn:
        names = conn.execute(sa.text("SELECT name FROM termx.corpus")).scalars().all()
    assert all(n.isprintable() for n in names)


def test_csv_and_tsv_carry_escape_sequences_exactly(db_env: str, tmp_path: Path) -> None:
    """click deletes ANSI-looking text on a non-terminal stdout unless told not to: data must pass untouched."""
    query = _sql_file(tmp_path, "SELECT chr(27) || '[2Jx' || chr(27) || '[31m' AS v")
    for fmt in ("csv", "tsv"):
        out = runner.invoke(app, ["sql", str(query), "--format", fmt])
        assert out.exit_code == 0 and out.stdout == "v\n\x1b[2Jx\x1b[31m\n"
    table = runner.invoke(app, ["sql", str(query)])
    assert "\\x1b[2Jx\\x1b[31m" in table.stdout and "\x1b" not in table.stdout


def test_sql_runs_as_the_reader_role_without_server_privileges(engine, db_env: str,  # type: ignore[no-untyped-def]
                                                               tmp_path: Path) -> None:
    """A query file cannot use the connecting user's privileges: the session user here is a superuser that may
    read server files, the query runs as termx_reader, which may not."""
    with engine.connect() as conn:
        superuser = conn.exec_driver_sql("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").scalar_one()
        if superuser:
            assert conn.exec_driver_sql("SELECT length(pg_read_file('PG_VERSION')) > 0").scalar_one()
    assert run_sql(engine, _sql_file(tmp_path, "SELECT current_user AS who")) == [{"who": READER_ROLE}]
    for text in ("SELECT pg_read_file('PG_VERSION')", "SELECT * FROM pg_ls_dir('.')",
                 "SELECT current_setting('data_directory')"):
        err = _one_line(runner.invoke(app, ["sql", str(_sql_file(tmp_path, text))]))
        assert "permission denied" in err or "must be superuser" in err or "pg_read_all_settings" in err, err
    # the termx schema stays readable: the analyst queries shipped in sql/ run as the reader (test_sql_lookup)
    assert run_sql(engine, _sql_file(tmp_path, "SELECT count(*) AS n FROM termx.corpus"))[0]["n"] >= 0


def test_sql_refuses_two_columns_of_one_name(engine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Rows are records by column name: `SELECT 1 AS a, 2 AS a` printed one column `a` holding 2 (the 1 lost)."""
    query = tmp_path / "twice.sql"
    query.write_text("SELECT 1 AS a, 2 AS a\n", encoding="utf-8")
    with pytest.raises(InputError, match="more than one column named 'a'"):
        run_sql(engine, query)
