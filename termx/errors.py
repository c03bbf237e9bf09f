"""Typed exceptions: the library raises these, the CLI turns them into one-line `Error: ...` messages.

Every exception class of termx lives here. Errors speak the library's vocabulary: a parameter appears in the
message or hint in backquotes, as `name` or `name=value` (e.g. `replace=True`), and is listed in `params`, so the
CLI can render it as its flag (`--replace`) and a library user reads the argument to change.
"""

from __future__ import annotations

import difflib
import re
import sys
from collections.abc import Iterable, Sequence


class TermxError(Exception):
    """Base class for every error termx reports to a user (message + optional hint + the parameters named)."""

    def __init__(self, message: str, hint: str | None = None, params: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.params = tuple(params)

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class InputError(TermxError):
    """Input files or stdin cannot be read as documents (empty, binary, invalid UTF-8, NUL bytes)."""


class CorpusNotFound(TermxError):
    """The named corpus does not exist in the database."""

    @classmethod
    def named(cls, name: str, known: Iterable[str], message: str | None = None,
              hint: str = "termx corpora lists them", params: Sequence[str] = ()) -> CorpusNotFound:
        """The one way an unknown corpus name is reported: `no corpus named 'x'` (or `message`), the hint led by
        the nearest of the `known` names when one is close, as after a typo (`reuter` → did you mean 'reuters'?)."""
        close = difflib.get_close_matches(name, list(known), n=1)
        lead = f"did you mean {close[0]!r}? " if close else ""
        return cls(message or f"no corpus named {name!r}", lead + hint, params)


class CorpusExists(TermxError):
    """A corpus of that name exists and replace was not asked for."""


class CorpusInUse(TermxError):
    """Another session holds a lock the operation needs (a long query on the corpus being replaced or dropped)."""


class DatabaseUnavailable(TermxError):
    """The PostgreSQL server cannot be reached or started."""


UNREACHABLE_HINT = "is it running? `termx servers list` shows which servers answer"


class ServerUnreachable(DatabaseUnavailable):
    """A storage server (`termx servers`) that holds shards a command needs cannot be reached (through postgres_fdw,
    or by a build's worker), or went away in the middle of a statement. `what` names the server and those shards;
    the message adds libpq's reason (host and port, never a password)."""

    def __init__(self, what: str, reason: str, hint: str = UNREACHABLE_HINT) -> None:
        super().__init__(f"{what}: {reason}", hint)
        self.what = what
        self.reason = reason

    def __reduce__(self) -> tuple[type[ServerUnreachable], tuple[str, str, str]]:
        """Pickled whole: a build's worker process or Dask task raises it, the coordinator reports it."""
        return type(self), (self.what, self.reason, self.hint or UNREACHABLE_HINT)


class PatternError(TermxError):
    """A look-up pattern is empty or cannot be expressed in the corpus's unit."""


class ForeignInput(UserWarning):
    """A warning, not an error: most characters of a text to segment never occur in its corpus (another script)."""


class EvaluationError(TermxError):
    """Evaluation inputs are inconsistent or a test is undefined for them."""


class ModelExists(TermxError):
    """A TBL model of that name exists and replace was not asked for."""


class ModelNotFound(TermxError):
    """No TBL model of that name is stored."""


class MissingDependency(TermxError):
    """An optional extra (e.g. `serve`) is needed for this command and is not installed."""


class BuildFailed(TermxError):
    """A shard's worker failed or died, so the whole build was abandoned (nothing of it is visible)."""


class MultiShardUnsupported(TermxError):
    """An operation that needs one suffix array was asked of a corpus of several shards."""


class DaemonError(TermxError):
    """The warm command process of `termx daemon start` could not be started."""


class ServerError(TermxError):
    """A storage server (`termx servers`) cannot be added, found or removed as asked."""


def first_line(exc: BaseException) -> str:
    """The first line of an error's message, at most 300 characters."""
    return (str(exc).strip().splitlines() or [""])[0][:300]


_FDW_UNREACHABLE = re.compile(r'could not connect to server "termx_([a-z][a-z0-9_-]{0,39})"')
"""postgres_fdw's report that it cannot connect to a storage server (whose postgres_fdw server is termx_NAME)."""


def _psycopg_error(exc: BaseException) -> BaseException | None:
    """The psycopg error `exc` is or wraps (SQLAlchemy's `orig`), or None. psycopg is looked up, not imported: it
    is loaded whenever one of its errors exists."""
    psycopg = sys.modules.get("psycopg")
    if psycopg is None:
        return None
    orig = getattr(exc, "orig", None) if isinstance(getattr(exc, "orig", None), BaseException) else exc
    return orig if isinstance(orig, psycopg.Error) else None


def unreachable_server(exc: BaseException) -> tuple[str, str] | None:
    """(server name, libpq's one-line reason) when `exc` is postgres_fdw failing to connect to a registered storage
    server (docs/scale-out.md); None for any other error."""
    orig = _psycopg_error(exc)
    diag = getattr(orig, "diag", None)
    found = _FDW_UNREACHABLE.fullmatch(getattr(diag, "message_primary", None) or "")
    if found is None or not (getattr(orig, "sqlstate", None) or "").startswith("08"):
        return None
    reason = (getattr(diag, "message_detail", None) or "").strip().splitlines()
    return found.group(1), (reason[0].strip() if reason else "no reason given")


def lost_storage_server(exc: BaseException) -> str | None:
    """libpq's one-line reason when `exc` is postgres_fdw losing its connection to a storage server in the middle
    of a statement (a remote command failed with a connection error or the server's shutdown: the server died or was
    stopped while it was being read); None for any other error. postgres_fdw's message names neither the server
    nor the shard (its context is the remote command, `FETCH 100 FROM c1`): termx.storage.foreign finds which."""
    orig = _psycopg_error(exc)
    diag = getattr(orig, "diag", None)
    context = getattr(diag, "context", None) or ""
    state = getattr(orig, "sqlstate", None) or ""
    if "remote SQL command:" not in context or not state.startswith(("08", "57P")):
        return None
    return libpq_reason(getattr(diag, "message_primary", None) or str(orig))


def libpq_reason(message: str) -> str:
    """The first line of a libpq message without its severity (`FATAL:  terminating connection due to ...`)."""
    for line in message.strip().splitlines():
        line = re.sub(r"^(FATAL|ERROR|PANIC):\s+", "", line.strip())
        if line:
            return line
    return "the connection was lost"


def database_error_line(exc: Exception) -> str | None:
    """A one-line report of a database error that escaped the library (the server went away mid-command, or
    cannot be reached at all, or a storage server holding some of its shards cannot); None when `exc` is not
    one."""
    orig = _psycopg_error(exc)
    if orig is None:
        return None
    server = unreachable_server(orig)
    if server is not None:
        return str(ServerUnreachable(f"storage server {server[0]!r} is unreachable", server[1]))
    lost = lost_storage_server(orig)
    if lost is not None:  # the coordinator's connection is fine: one of its storage servers went away
        return str(ServerUnreachable("a storage server went away in the middle of the statement", lost))
    psycopg = sys.modules["psycopg"]
    diag = getattr(orig, "diag", None)
    reason = getattr(diag, "message_primary", None) or first_line(orig) or type(orig).__name__
    state = getattr(orig, "sqlstate", None) or ""
    if isinstance(orig, psycopg.OperationalError) and (not state or state.startswith(("08", "57P"))):
        return (f"lost or could not open the database connection: {reason} "
                "(is the server running? check --db / TERMX_DATABASE_URL)")
    return f"database error: {reason} (rerun with --debug for the traceback)"
