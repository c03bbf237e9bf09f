"""Trained models stored with their corpus: a row of termx.segment_model and its arrays, in PostgreSQL (the only
copy; rows cascade from termx.corpus, so a rebuilt or dropped corpus loses them) and a disk cache under
$TERMX_HOME keyed like the index cache (database, corpus id, build time) plus the model's settings."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy.engine import Engine

from termx.storage.copyrows import copy_binary
from termx.storage.corpora import CorpusInfo, array_chunks, join_chunks
from termx.storage.disk_cache import read_cache, write_cache
from termx.storage.paths import cache_folder
from termx.storage.statements import run_internal
from termx.storage.transactions import transaction


@dataclass
class StoredModel:
    """A model's scalars and arrays, and where they came from ("cache" or "database")."""

    meta: dict[str, Any]
    arrays: dict[str, np.ndarray]
    source: str


def _folder(engine: Engine, info: CorpusInfo, scorer: str, key: str):  # type: ignore[no-untyped-def]
    return cache_folder(engine.url.render_as_string(hide_password=True), info.id, info.created_at,
                        f"model|{scorer}|{key}")


def find_model(engine: Engine, info: CorpusInfo, scorer: str, key: str) -> StoredModel | None:
    """The stored model of a corpus build for `scorer` trained with settings `key`: from the disk cache (with
    whatever else `cache_model` put there), else from PostgreSQL; None when none is stored."""
    folder = _folder(engine, info, scorer, key)
    if (folder / "meta.json").exists():
        meta, _ = read_cache(folder, [])
        return StoredModel(meta, read_cache(folder, meta["arrays"])[1], "cache")
    with engine.connect() as conn:
        row = run_internal(conn, "segment_models.model", c=info.id, s=scorer, k=key).first()
        if row is None:
            return None
        chunks: dict[str, list[Any]] = defaultdict(list)
        for r in run_internal(conn, "segment_models.model_arrays", m=row[0]):
            chunks[r[0]].append(r[1:])
    return StoredModel(dict(row[1]), {name: join_chunks(rows) for name, rows in chunks.items()}, "database")


def model_exists(engine: Engine, info: CorpusInfo, scorer: str, key: str) -> bool:
    """Whether find_model would find the model (in the disk cache or PostgreSQL) without loading it."""
    if (_folder(engine, info, scorer, key) / "meta.json").exists():
        return True
    with engine.connect() as conn:
        return run_internal(conn, "segment_models.model_exists", c=info.id, s=scorer, k=key).first() is not None


def save_model(engine: Engine, info: CorpusInfo, scorer: str, key: str, meta: dict[str, Any],
               arrays: dict[str, np.ndarray], nodes: int, seconds: float) -> bool:
    """Store a trained model in one transaction; False when it was not stored because another process stored
    the same model first or the corpus was rebuilt or dropped meanwhile."""
    with transaction(engine, f"corpus {info.name!r}") as conn:
        found = run_internal(conn, "segment_models.corpus_for_share", c=info.id).fetchone()
        row = None if found is None else run_internal(
            conn, "segment_models.insert_model", c=info.id, s=scorer, k=key, meta=json.dumps(meta), nodes=nodes,
            bytes=sum(a.nbytes for a in arrays.values()), seconds=seconds).fetchone()
        if row is None:
            return False
        copy_binary(conn, "termx.segment_model_array", ("model_id", "name", "dtype", "length", "chunk", "data"),
                    ("int4", "text", "text", "int8", "int4", "bytea"),
                    ((row[0], name, *chunk) for name, arr in arrays.items() for chunk in array_chunks(arr)))
    return True


def cache_model(engine: Engine, info: CorpusInfo, scorer: str, key: str, meta: dict[str, Any],
                arrays: dict[str, np.ndarray]) -> None:
    """Put a model's arrays in the disk cache, with any derived arrays that make loading it faster."""
    write_cache(_folder(engine, info, scorer, key), arrays, {**meta, "arrays": sorted(arrays)},
                engine.url.render_as_string(hide_password=True), info)


def list_models(engine: Engine, info: CorpusInfo) -> list[dict[str, Any]]:
    """The models stored for a corpus (scorer, settings, size, training time)."""
    with engine.connect() as conn:
        rows = run_internal(conn, "segment_models.models", c=info.id).mappings().all()
    return [dict(r) for r in rows]
