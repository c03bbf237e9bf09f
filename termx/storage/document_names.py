"""Names of documents appended to a corpus (--append): unique across the corpus's shards, a collision of a derived
name resolved with the first free `#2`, `#3`, ... suffix, a collision of a given id an error."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import psycopg

from termx.errors import InputError
from termx.index.ingest import Document
from termx.storage.statements import run_internal


def new_names(conn: psycopg.Connection, corpus_id: int,
              groups: Sequence[Sequence[Document]]) -> list[list[Document]]:
    """The appended documents with names unique across the corpus. A given id (a JSON line's "id") that the
    corpus already holds is an error naming it; a name derived from a path or line number that collides gets
    the first free suffix `#2`, `#3`, ... (appending another folder of doc1.txt, doc2.txt, ... works)."""
    names = [d.name for g in groups for d in g]
    taken = {r[0] for r in run_internal(conn, "shards.taken_names", c=corpus_id, names=names,
                                        patterns=[_like(n) + "#%" for n in names])}
    out = []
    for group in groups:
        renamed = []
        for doc in group:
            if doc.name in taken:
                if doc.given:
                    raise InputError(f"duplicate document name {doc.name!r}: the corpus already holds a document "
                                     "of that name", "document names are unique across a corpus's shards")
                n = 2
                while f"{doc.name}#{n}" in taken:
                    n += 1
                doc = dataclasses.replace(doc, name=f"{doc.name}#{n}")
            taken.add(doc.name)
            renamed.append(doc)
        out.append(renamed)
    return out


def _like(text: str) -> str:
    """`text` as a LIKE pattern that matches only itself."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
