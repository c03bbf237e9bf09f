"""termx: substring statistics (freq, df_k, adaptation) for every substring of a corpus, in PostgreSQL.

The library API is re-exported here and imported lazily, so `termx --help` stays fast:

    import termx
    with termx.Database() as db:               # termx.database.Database (docs/python.md)
        db.index("news", [("d1", "one text"), ("d2", "another")])
        db.corpus("news").stats(["text"])      # termx.api.Corpus
    with termx.open("reuters") as corpus:      # = termx.Database().corpus("reuters")
        corpus.stats(["Bundesbank"])

    from termx import get_engine, index_paths, load_index, stats
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: 2 ms of every `termx` call
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "open": "termx.database",
    "Corpus": "termx.api",
    "Database": "termx.database",
    "IndexOptions": "termx.index.options",
    "get_engine": "termx.storage.db",
    "index_paths": "termx.storage.indexer",
    "index_documents": "termx.storage.indexer",
    "read_documents": "termx.index.ingest",
    "Document": "termx.index.ingest",
    "Unit": "termx.index.units",
    "build_shard": "termx.index.build",
    "list_corpora": "termx.storage.corpora",
    "get_corpus": "termx.storage.corpora",
    "drop_corpus": "termx.storage.corpora",
    "load_index": "termx.storage.index_loader",
    "LoadedIndex": "termx.storage.index_loader",
    "stats": "termx.lookup",
    "concordance": "termx.lookup",
    "find_class": "termx.lookup",
    "extract_terms": "termx.terms",
    "Segmenter": "termx.wordbreak",
    "run_whitespace": "termx.experiments.whitespace",
    "TermxError": "termx.errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Import the module that defines `name` on first use."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'termx' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
