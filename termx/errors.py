"""Typed exceptions: the library raises these, the CLI turns them into one-line `Error: ...` messages."""


class TermxError(Exception):
    """Base class for every error termx reports to a user (message + optional hint)."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class InputError(TermxError):
    """Input files or stdin cannot be read as documents (empty, binary, invalid UTF-8, NUL bytes)."""


class CorpusNotFound(TermxError):
    """The named corpus does not exist in the database."""


class CorpusExists(TermxError):
    """A corpus of that name exists and --replace was not given."""


class CorpusInUse(TermxError):
    """Another session holds a lock the operation needs (a long query on the corpus being replaced or dropped)."""


class DatabaseUnavailable(TermxError):
    """The PostgreSQL server cannot be reached or started."""


class PatternError(TermxError):
    """A look-up pattern is empty or cannot be expressed in the corpus's unit."""


class EvaluationError(TermxError):
    """Evaluation inputs are inconsistent or a test is undefined for them."""


class BuildFailed(TermxError):
    """A shard's worker failed or died, so the whole build was abandoned (nothing of it is visible)."""


class MultiShardUnsupported(TermxError):
    """An operation that needs one suffix array was asked of a corpus of several shards."""
