"""`termx.Database`: the library face of a termx database, with the records `termx index|append|drop|corpora
--format json` print (the CLI commands are thin mappings onto these methods).

    import termx
    with termx.Database() as db:                          # url=None: TERMX_DATABASE_URL, else the embedded server
        db.index("news", [("d1", "text of one"), ("d2", "text of another")], unit="char")
        db.append("news", ["more/"])                      # paths: files, directories, - for stdin
        db.corpora()                                      # [{"name": "news", "unit": "char", ...}]
        db.corpus("news").stats(["text"])                 # a termx.api.Corpus
        db.drop("news")
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from termx.errors import InputError
from termx.face.admin import CacheAdmin, ServerAdmin
from termx.face.closing import Closing
from termx.face.experiments import Experiments
from termx.face.tbl import TblModels
from termx.index.ingest import Document, InputMode, OnInvalid, ReadReport, check_unique
from termx.index.options import IndexOptions

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from termx.api import Corpus
    from termx.progress import Progress
    from termx.storage.executors import Runner

__all__ = ["Database", "IndexOptions", "InputMode", "OnInvalid", "Source", "open"]
"""The face of a build: the database, its options and the choices they take."""

Source = str | os.PathLike[str] | Document | tuple[Any, str]
"""What index() and append() take: paths (files, directories, "-" for stdin), Documents, or (id, text) pairs."""


class Database(Closing, ServerAdmin, CacheAdmin, TblModels, Experiments):
    """A termx database (PostgreSQL): build, list and drop corpora, and open one as a `Corpus`; TBL models, the
    experiments, and (as static methods, with no connection) the embedded server, backups and the look-up cache
    from the capability classes of termx.face."""

    def __init__(self, url: str | None = None) -> None:
        """Connect (and migrate the schema): `url`, else TERMX_DATABASE_URL, else the embedded server under
        $TERMX_HOME, started if needed. DatabaseUnavailable says why when it cannot."""
        from termx.storage.db import get_engine

        self.url = url
        self.engine: Engine = get_engine(url)
        self._opened: weakref.WeakSet[Corpus] = weakref.WeakSet()

    def corpora(self, name: str | None = None) -> list[dict[str, Any]]:
        """Every corpus by name (or only `name`: CorpusNotFound if there is none), as `termx corpora --format
        json` prints them: name, unit, tokens, documents, classes, max_k, rep_cap, created_at, shards, and the
        bytes each takes in the database (db_bytes) and in this machine's look-up cache (cache_bytes)."""
        from termx.storage.corpora import corpus_rows

        return corpus_rows(self.engine, name)

    def names(self) -> list[str]:
        """The names of the corpora, sorted: corpora() without the sizes, which take a query per corpus."""
        from termx.storage.corpora import corpus_names

        return sorted(corpus_names(self.engine))

    def shards(self, name: str | None = None) -> list[dict[str, Any]]:
        """The shards of corpus `name` (of every corpus when None), as `termx corpora --shards --format json`."""
        from termx.storage.corpora import list_shards

        return [s.as_row() for s in list_shards(self.engine, name)]

    def servers(self) -> list[dict[str, Any]]:
        """The storage servers registered here, as `termx servers list --format json`: name, url (no password),
        shards, corpora, bytes, reachable, error, added_at (docs/scale-out.md)."""
        from termx.storage.servers import list_servers

        return list_servers(self.engine)

    def add_server(self, name: str, url: str) -> dict[str, Any]:
        """Register storage server `name` at `url` (`termx servers add`): reachable, its schema upgraded, its
        postgres_fdw server and user mapping created here; its servers() row. ServerError says why not."""
        from termx.storage.servers import add_server

        return add_server(self.engine, name, url)

    def remove_server(self, name: str, force: bool = False) -> dict[str, Any]:
        """Unregister storage server `name` (`termx servers remove`); ServerError while a corpus has shards there,
        unless `force` (a server gone for good: the corpora with shards there are dropped, listed in `dropped`)."""
        from termx.storage.servers import remove_server

        return remove_server(self.engine, name, force)

    def server_corpora(self, name: str) -> list[str]:
        """The corpora with shards on storage server `name` (what `remove_server(name, force=True)` drops)."""
        from termx.storage.servers import corpora_on_server

        return corpora_on_server(self.engine, name)

    def corpus(self, name: str, load: bool = False) -> Corpus:
        """The corpus `name` for look-ups, terms, segmentation and jdf (CorpusNotFound if there is none); with
        `load`, its index is loaded now (what stats, concordance and class read)."""
        from termx.api import Corpus

        corpus = Corpus(name, self.url, load)
        self._opened.add(corpus)
        return corpus

    def index(self, name: str, documents: Iterable[Source] | str | os.PathLike[str], *,
              progress: Progress | None = None, **options: Any) -> dict[str, Any]:
        """Build corpus `name` from `documents` and return the summary `termx index --format json` prints.

        `documents`: paths (a path, or an iterable of them), or an iterable of Documents or (id, text) pairs;
        empty texts are skipped and counted. `options`: the fields of termx.index.options.IndexOptions (unit,
        max_k, input, invalid, replace, append, fold_case, shard_size, sketches, store_min_freq, workers, dask), with
        its defaults; an existing name is CorpusExists unless replace=True."""
        opts = IndexOptions(**options)
        paths, docs = _sources(documents)
        return self._build(name, paths, docs, opts, progress)

    def append(self, name: str, documents: Iterable[Source] | str | os.PathLike[str], *,
               progress: Progress | None = None, **options: Any) -> dict[str, Any]:
        """index(name, documents, append=True): add documents to the existing corpus as new shards."""
        return self.index(name, documents, progress=progress, **{**options, "append": True})

    def sql(self, name_or_path: str, params: Mapping[str, Any] | None = None, *, timeout_ms: int | None = None,
            max_rows: int | None = None) -> list[dict[str, Any]]:
        """The rows of an analyst query (a file in sql/ by name, or a path to a .sql file) with `params` bound, run
        read-only, as `termx sql NAME -p key=value --format json` prints them; with `timeout_ms` the server cancels
        it after that long, and more than `max_rows` rows is an InputError (both: InputError naming the limit)."""
        from termx.storage.sqlfiles import run_sql

        return run_sql(self.engine, name_or_path, params, timeout_ms, max_rows)

    def query(self, statement: str, params: Mapping[str, Any] | None = None, *, timeout_ms: int | None = None,
              max_rows: int | None = None) -> list[dict[str, Any]]:
        """sql() of a statement given as text (the explorer's SQL box): one read-only query, under the same role and
        rules as `termx sql`."""
        from termx.storage.sqlfiles import run_sql, sql_text

        return run_sql(self.engine, sql_text(statement), params, timeout_ms, max_rows)

    @staticmethod
    def queries() -> list[dict[str, Any]]:
        """The shipped analyst queries: name, params and description (`termx sql --list`); needs no database."""
        from termx.storage.sqlfiles import list_sql

        return [q.as_row() for q in list_sql()]

    def drop(self, name: str) -> dict[str, int]:
        """Delete corpus `name` and everything built for it (CorpusNotFound if there is none); how many term lists,
        white space runs and TBL models went with it."""
        from termx.storage.corpora import drop_corpus

        return drop_corpus(self.engine, name)

    def _build(self, name: str, paths: list[str], docs: list[Document], opts: IndexOptions,
               progress: Progress | None) -> dict[str, Any]:
        """Index paths or documents with `opts`, then the sketches if asked."""
        from termx.storage.corpora import require_new_corpus
        from termx.storage.indexer import check_corpus_name, index_documents, index_paths

        runner = _runner(opts)
        common: dict[str, Any] = {"unit": opts.unit, "max_k": opts.max_k, "replace": opts.replace,
                                  "progress": progress, "fold_case": opts.fold_case, "shard_size": opts.shard_bytes,
                                  "append": opts.append, "runner": runner, "store_min_freq": opts.store_min_freq,
                                  "server": opts.server}
        if paths:
            summary = index_paths(self.engine, name, paths, mode=opts.input, on_invalid=opts.invalid, **common)
        else:
            check_corpus_name(name)
            if not opts.append:
                require_new_corpus(self.engine, name, opts.replace)  # before the work of a build
            kept, report = _checked(docs)
            summary = index_documents(self.engine, name, kept, report=report, **common)
        if opts.sketches:
            from termx.jdf.sketch_store import build_sketches

            summary.seconds.update(build_sketches(self.engine, name, progress=progress)["seconds"])
        return summary.as_dict()

    def close(self) -> None:
        """Free the in-memory indexes and models of the corpora opened here, and the pooled connections."""
        for corpus in list(self._opened):
            corpus.close()
        self.engine.dispose()

    def __repr__(self) -> str:
        return f"Database({self.engine.url.render_as_string(hide_password=True)!r})"


def _sources(documents: Iterable[Source] | str | os.PathLike[str]) -> tuple[list[str], list[Document]]:
    """(paths, documents) of what index() was given: one of the two lists is empty (InputError for a mix)."""
    if isinstance(documents, (str, os.PathLike)):
        return [os.fspath(documents)], []
    paths: list[str] = []
    docs: list[Document] = []
    for n, item in enumerate(documents, 1):
        if isinstance(item, Document):
            docs.append(item)
        elif isinstance(item, (str, os.PathLike)):
            paths.append(os.fspath(item))
        elif isinstance(item, tuple) and len(item) == 2:
            docs.append(_pair(item, n))
        else:
            raise InputError(f"document {n} is a {type(item).__name__}",
                             "give paths, termx.Document objects or (id, text) pairs")
    if paths and docs:
        raise InputError("documents mix paths with in-memory documents", "index the paths, then append the rest")
    return paths, docs


def _pair(item: tuple[Any, Any], n: int) -> Document:
    """The Document of an (id, text) pair: the id is the document's name, as a JSON line's "id" is."""
    name, text = item
    if not isinstance(text, str):
        raise InputError(f"document {n} ({name!r}): its text is a {type(text).__name__}, not a str")
    return Document(str(name), text, given=True)


def _checked(docs: Sequence[Document]) -> tuple[list[Document], ReadReport]:
    """The documents with text, checked as read_documents checks files: no NUL, names unique, not all empty."""
    check_unique(docs)
    report = ReadReport()
    kept = []
    for d in docs:
        if "\0" in d.text:
            raise InputError(f"document {d.name!r} contains a NUL character", "NUL cannot be indexed")
        if d.text.strip():
            kept.append(d)
        else:
            report.empty_documents += 1
    if not kept:
        raise InputError("no text to index", "the input holds only empty documents")
    return kept, report


def _runner(opts: IndexOptions) -> Runner | None:
    """Where shards are built: the Dask scheduler, a pool of `workers` processes, or None (the default pool)."""
    from termx.storage.executors import dask_runner, pool_runner

    if opts.dask:
        return dask_runner(opts.dask)
    return pool_runner(opts.workers) if opts.workers is not None else None


def open(name: str, db: str | None = None) -> Corpus:  # noqa: A001 - termx.open, like io.open
    """The corpus `name` in the database `db` (default: TERMX_DATABASE_URL, else the embedded server):
    `termx.Database(db).corpus(name)`."""
    return Database(db).corpus(name)
