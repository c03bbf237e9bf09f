"""Analyst queries in sql/*.sql: list them, bind their `:name` parameters (never spliced into the text), run them.

A query file is one SQL statement with named parameters in SQLAlchemy's `:name` style (write casts as
CAST(:x AS integer): `:x::integer` is not a parameter). Its first comment line describes it; a comment line
`-- :name  what it is (default VALUE)` documents a parameter and may give its default. Comments are removed
before the statement runs, so they may mention parameters freely.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine, make_url

from termx.errors import CorpusNotFound, DatabaseUnavailable, InputError, PatternError, TermxError
from termx.line_reader import split_lines
from termx.storage.db import connect_or_explain
from termx.storage.foreign import naming_unreachable
from termx.storage.paths import resource
from termx.storage.statements import BIND_RE, run_internal, strip_comments

PARAM_DOC_RE = re.compile(r"^--\s*:(\w+)\s+(.*?)\s*(?:\(default ([^)]*)\))?\s*$")


@dataclass
class SqlFile:
    """One query file: its statement without comments, description and parameters."""

    name: str
    path: Path
    description: str
    statement: str
    params: list[str]                                          # in order of first use
    docs: dict[str, str] = field(default_factory=dict)         # parameter → description
    defaults: dict[str, str] = field(default_factory=dict)     # parameter → default value

    def as_row(self) -> dict[str, Any]:
        """The `termx sql --list` row."""
        shown = [f"{p}={self.defaults[p]}" if p in self.defaults else p for p in self.params]
        return {"name": self.name, "description": self.description, "params": " ".join(shown)}


def sql_dir() -> Path:
    """The directory of the shipped query files."""
    return resource("sql")


def list_sql() -> list[SqlFile]:
    """Every shipped query file, by name."""
    return [load_sql(p) for p in sorted(sql_dir().glob("*.sql"))]


def load_sql(name_or_path: str | Path) -> SqlFile:
    """A shipped query by name (`stats`) or any .sql file by path; InputError when there is none."""
    path = Path(name_or_path)
    if not (path.suffix == ".sql" and path.is_file()):
        path = sql_dir() / f"{name_or_path}.sql"
        if not re.fullmatch(r"[\w-]+", str(name_or_path)) or not path.is_file():
            names = ", ".join(p.stem for p in sorted(sql_dir().glob("*.sql")))
            raise InputError(f"no query named {str(name_or_path)!r}", f"one of: {names}; or a path to a .sql file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None
    comments = [line.strip() for line in split_lines(text) if line.strip().startswith("--")]
    description = comments[0].lstrip("-").strip() if comments else ""
    description = re.sub(rf"^{re.escape(path.name)}:\s*|^{re.escape(path.stem)}:\s*", "", description)
    docs, defaults = {}, {}
    for line in comments:
        m = PARAM_DOC_RE.match(line)
        if m:
            docs[m.group(1)] = m.group(2)
            if m.group(3) is not None:
                defaults[m.group(1)] = m.group(3).strip()
    statement = strip_comments(text).strip().rstrip(";").strip()
    params = list(dict.fromkeys(BIND_RE.findall(statement)))
    return SqlFile(path.stem, path, description, statement, params, docs, defaults)


def sql_text(statement: str) -> SqlFile:
    """An analyst query given as text (the explorer's SQL box): one statement, its `:name` parameters bound like a
    file's (no defaults), run by run_sql under the same read-only rules."""
    text = strip_comments(statement).strip().rstrip(";").strip()
    return SqlFile("(text)", Path("(text)"), "", text, list(dict.fromkeys(BIND_RE.findall(text))))


def _plain(value: Any) -> Any:
    """JSON-ready values: numeric → int/float, timestamps → ISO text."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


READER_ROLE = "termx_reader"
"""The role analyst queries run as (migrations 0019, 0023): it reads the termx schema and holds no server privilege.
termx logs in as it (the session user), so a query has no more privileged role to switch back to."""
# Each analyst transaction starts with one round trip (database.analyst_session in sql/internal/database.sql) that
# checks the session user's roles and privileges, switches to READER_ROLE where termx's own user stands in for it,
# and has the server check every CHECK_CLIENT_SECONDS that termx is still there (PostgreSQL 14+): a `termx sql`
# killed with kill -9 would otherwise leave its query running for good (`SELECT pg_sleep(1e9)`, a cross join).
CHECK_CLIENT_SECONDS = 2
_readers: dict[str, Engine] = {}  # termx's URL -> an engine logged in as READER_ROLE on the same database


def reader_url(admin_url: str) -> URL:
    """`admin_url` with READER_ROLE as its user and no password (URL.set(password=None) would keep termx's own:
    there None means "unchanged"), so the reader's password comes from the passfile or ~/.pgpass."""
    url = make_url(admin_url)
    return URL.create(url.drivername, READER_ROLE, None, url.host, url.port, url.database, url.query)


def _reader_engine(admin_url: str) -> Engine | DatabaseUnavailable:
    """An engine logged in as READER_ROLE on the server and database of `admin_url` (its password comes from the
    passfile or ~/.pgpass, never from termx's own user); the one-line reason when the server does not let it in
    (not remembered: a long-running `termx serve` tries again)."""
    if admin_url not in _readers:
        try:
            _readers[admin_url] = connect_or_explain(reader_url(admin_url))
        except DatabaseUnavailable as exc:
            return exc
    return _readers[admin_url]


def _analyst_engine(engine: Engine) -> tuple[Engine, DatabaseUnavailable | None]:
    """The engine analyst queries run on: READER_ROLE logged in on its own, or else termx's own engine with the
    reason the reader could not log in (then `_enter_analyst_session` lets only an unprivileged user go on)."""
    reader = _reader_engine(engine.url.render_as_string(hide_password=False))
    return (reader, None) if isinstance(reader, Engine) else (engine, reader)


def _enter_analyst_session(conn: sa.Connection, engine: Engine, login_refused: DatabaseUnavailable | None) -> None:
    """Refuse a session whose user could reach a server privilege: the reader must be no superuser and a member of
    no role; termx's own user, standing in for it, must hold no server privilege (it then switches to the reader
    where it is a member)."""
    member_of, privileged, _, _ = run_internal(conn, "database.analyst_session", reader=READER_ROLE,
                                               interval=f"{CHECK_CLIENT_SECONDS}s").one()
    if login_refused is None and (member_of or privileged):
        raise InputError(f"{READER_ROLE} is a superuser or a member of {member_of}; termx sql will not run as it",
                         f"REVOKE {member_of} FROM {READER_ROLE}; ALTER ROLE {READER_ROLE} NOSUPERUSER")
    if login_refused is not None and privileged:
        reason = login_refused.message.split(": ", 1)[-1]
        raise InputError(f"termx sql will not run a query as the privileged user {engine.url.username} and "
                         f"cannot log in as {READER_ROLE} ({reason})",
                         f"let {READER_ROLE} log in (a pg_hba.conf rule, or its password in ~/.pgpass): "
                         "see docs/lookup.md")


READ_ONLY_STATEMENTS = ("SELECT", "WITH", "VALUES", "TABLE", "SHOW", "EXPLAIN")
_FIRST_WORD_RE = re.compile(r"[\s(]*([A-Za-z]*)")


def _check_read_only(query: SqlFile) -> None:
    """Refuse anything but a read-only query kind: a read-only transaction still runs `COPY ... TO PROGRAM`
    (a server-side shell command) and `DO` blocks, so the statement's first word must name a query."""
    word = _FIRST_WORD_RE.match(query.statement).group(1).upper()  # type: ignore[union-attr]
    if word not in READ_ONLY_STATEMENTS:
        shown = f"a {word} statement" if word else "not a query (it must start with its first keyword)"
        raise InputError(f"query {query.name} is {shown}; termx sql runs one read-only query",
                         f"start it with {', '.join(READ_ONLY_STATEMENTS)}")


def _database_error(name: str, exc: psycopg.Error) -> TermxError:
    """A one-line error from a server error: termx's own look-up errors keep their type."""
    diag = getattr(exc, "diag", None)
    message = (getattr(diag, "message_primary", None) or str(exc) or type(exc).__name__).strip().splitlines()[0]
    hint = getattr(diag, "message_hint", None)
    state = getattr(exc, "sqlstate", None)
    if state == "42704" and message.startswith("no corpus named"):
        return CorpusNotFound(message, hint or "termx corpora lists them")
    if state == "22023":
        return PatternError(message, hint)
    if state == "42704" and message.startswith("user mapping not found"):  # a storage server added without one
        return InputError(f"query {name} reads shards on a storage server where {READER_ROLE} has no read-only "
                          f"user mapping, so termx sql cannot read them ({message})",
                          "`termx servers add` makes one when the storage server's user may create roles: "
                          "docs/scale-out.md")
    if state == "42601" and "multiple commands" in message:
        return InputError(f"query {name} holds more than one statement", "a query file is one SQL statement")
    return InputError(f"query {name} failed: {message}", hint)


def _execute(conn: sa.Connection, statement: str, values: Mapping[str, Any],
             max_rows: int | None = None) -> list[dict[str, Any]]:
    """Run one statement with the extended protocol (a prepared statement, even without parameters), so the
    server refuses a second statement hidden after a `;` instead of running it. Rows are dicts, so two columns
    of one name (`SELECT 1 AS a, 2 AS a`) are refused rather than one of them dropped. InputError when the query
    returns more than `max_rows` rows (only that many and one are fetched)."""
    compiled = sa.text(statement).bindparams(**values).compile(dialect=conn.dialect)
    with conn.connection.driver_connection.cursor() as cur:  # type: ignore[union-attr]
        cur.execute(compiled.string, compiled.params, prepare=True)
        if cur.description is None:
            return []
        names = [c.name for c in cur.description]
        twice = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if twice is not None:
            raise InputError(f"the query returns more than one column named {twice!r}",
                             "give each column its own name with AS")
        rows = cur.fetchall() if max_rows is None else cur.fetchmany(max_rows + 1)
        if max_rows is not None and len(rows) > max_rows:
            raise InputError(f"the query returns more than {max_rows} rows", "add a LIMIT")
        return [dict(zip(names, row, strict=True)) for row in rows]


def run_sql(engine: Engine, name_or_path: str | Path | SqlFile, params: Mapping[str, Any] | None = None,
            timeout_ms: int | None = None, max_rows: int | None = None) -> list[dict[str, Any]]:
    """Run a query file (or a `sql_text` query) with bound parameters (defaults from its header fill the gaps); rows
    as dicts. With `timeout_ms`, the server cancels the statement after that long; with `max_rows`, a query
    returning more rows is an InputError.

    Only a query kind of statement is allowed, run in a READ ONLY transaction that is rolled back; being a single
    prepared statement, it cannot end that transaction, so an analyst query cannot change data. It runs in a
    session of READER_ROLE (or of termx's user when that user holds no server privilege: never a superuser's), so
    it cannot use a superuser's pg_read_file or COPY ... TO PROGRAM, not even after `set_config('role', ...)`.
    """
    query = name_or_path if isinstance(name_or_path, SqlFile) else load_sql(name_or_path)
    given = dict(params or {})
    unknown = sorted(set(given) - set(query.params))
    if unknown:
        raise InputError(f"query {query.name} has no parameter {', '.join(unknown)}",
                         f"it takes: {', '.join(query.params) or 'none'}")
    values = {p: given.get(p, query.defaults.get(p)) for p in query.params}
    missing = [p for p, v in values.items() if v is None]
    if missing:
        raise InputError(f"query {query.name} needs {', '.join(missing)}",
                         " ".join(f"`params={p}=...`" for p in missing), ("params",))
    _check_read_only(query)
    try:
        target, login_refused = _analyst_engine(engine)
        with naming_unreachable(engine, values.get("corpus"), values.get("reference")), \
                target.connect() as conn, conn.begin() as transaction:
            run_internal(conn, "database.read_only")
            _enter_analyst_session(conn, engine, login_refused)
            if timeout_ms is not None:
                run_internal(conn, "analyst.statement_timeout", timeout=f"{int(timeout_ms)}ms")
            rows = _execute(conn, query.statement, values, max_rows)
            transaction.rollback()
    except psycopg.errors.QueryCanceled:
        raise InputError(f"query {query.name} was cancelled after {timeout_ms} ms (the statement timeout)",
                         "narrow it, or run it with `termx sql`, which has no timeout") from None
    except psycopg.OperationalError:
        raise  # the connection is gone: the CLI reports it as such, not as a fault of the query
    except psycopg.Error as exc:
        error = _database_error(query.name, exc)
        raise _suggesting(engine, values, error) if isinstance(error, CorpusNotFound) else error from None
    return [{k: _plain(v) for k, v in row.items()} for row in rows]


def _suggesting(engine: Engine, values: Mapping[str, Any], error: CorpusNotFound) -> CorpusNotFound:
    """The server's unknown-corpus error with the nearest corpus name suggested, for the corpus-naming parameter
    (`corpus`, `reference`) whose value names none."""
    from termx.storage.corpora import corpus_names  # on this error only: store loads numpy

    names = corpus_names(engine)
    missing = [v for k, v in values.items() if k in ("corpus", "reference") and isinstance(v, str) and v not in names]
    if not missing:
        return error
    return CorpusNotFound.named(missing[0], names, error.message, error.hint or "termx corpora lists them")


def function_file(name: str) -> Path:
    """sql/functions/<name>.sql: SQL and plpgsql functions as `CREATE OR REPLACE` statements, applied by migrations."""
    return sql_dir() / "functions" / f"{name}.sql"


def regex_bracket(rx: str) -> str:
    """The characters Python's one-character class `rx` (`\\w`, `\\s`) matches, as PostgreSQL bracket contents."""
    every = "".join(map(chr, range(0x110000)))
    parts = []
    for m in re.finditer(rx + "+", every):
        a, b = m.start(), m.end() - 1
        parts.append(f"\\U{a:08X}" if a == b else f"\\U{a:08X}-\\U{b:08X}")
    return "".join(parts)


# Markers every function file may use: Python's \w and \s, so SQL tokenizes words as termx.index.units does.
STANDARD_MARKERS = {"W": r"\w", "S": r"\s"}


def apply_function_file(connection: Any, name: str, replacements: Mapping[str, str] | None = None) -> None:
    """Run sql/functions/<name>.sql as is on a migration's connection (`op.get_bind()`).

    `@KEY@` markers are replaced by `replacements`, then `@W@`/`@S@` by the bracket contents of Python's \\w/\\s
    (STANDARD_MARKERS), `@U@`/`@L@` by the characters case folding maps and their images (termx.index.fold) and
    the n-gram filter markers (`@NMAX@`, ...) by termx.index.ngramfilter's constants.
    The text goes straight to psycopg, so it reaches the server without bind-parameter or % processing, and may
    hold several statements.
    """
    text = function_file(name).read_text(encoding="utf-8")
    for key, value in (replacements or {}).items():
        text = text.replace(f"@{key}@", value)
    for key, rx in STANDARD_MARKERS.items():
        if f"@{key}@" in text:
            text = text.replace(f"@{key}@", regex_bracket(rx))
    if "@U@" in text or "@L@" in text:
        from termx.index.fold import fold_pairs

        upper, lower = fold_pairs()
        text = text.replace("@U@", upper.replace("'", "''")).replace("@L@", lower.replace("'", "''"))
    if "@NMAX@" in text:  # the shard filters' constants (ngram_filter.sql): SQL hashes as the build does
        from termx.index.ngramfilter import sql_markers

        for key, value in sql_markers().items():
            text = text.replace(f"@{key}@", value)
    connection.connection.driver_connection.execute(text)
