"""What `related` ranks in one shard: its related classes (sketched classes that are term candidates) and the
inverted table from a document to the related classes whose sketch holds it.

A related class is a class with a sketch (df_1 >= the sketch threshold) that is also a term candidate of the
terms module (terms.candidates: a left-maximal class's longest member that begins and ends like a word, with no
stop word at either end), shown by that candidate's surface form. In a byte or char corpus this is what keeps
"ollar" and "l price" out: only strings that start and end at word boundaries are ranked (docs/jdf.md).
The inverted table lists, for every document, the related classes whose bottom-k sketch holds its hash; a term's
smallest hashes probe it for candidates (termx.jdf.related; SQL termx.related reads the same table).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from termx.index.loaded_index import LoadedIndex
from termx.jdf.sketches import Sketches, doc_hashes
from termx.terms.candidates import Candidates

UNBOUNDED = np.iinfo(np.int64).max  # tau of a sketch that holds its whole document set


@dataclass
class RelatedClasses:
    """One shard's related classes (arrays aligned by position n) and its inverted table doc -> positions."""

    i: np.ndarray        # int32 interval <i,j>
    j: np.ndarray
    df: np.ndarray       # int64 df_1 in the shard
    tau: np.ndarray      # int64 largest hash of a full sketch (k hashes), UNBOUNDED for a whole set
    terms: list[str]     # surface forms
    doc_offsets: np.ndarray  # CSR over the shard's local documents: positions whose sketch holds document d are
    doc_classes: np.ndarray  # doc_classes[doc_offsets[d]:doc_offsets[d + 1]]

    def __len__(self) -> int:
        return len(self.i)

    def holding(self, local_doc: int) -> np.ndarray:
        """Positions of the related classes whose sketch holds the shard's document `local_doc`."""
        return self.doc_classes[self.doc_offsets[local_doc]: self.doc_offsets[local_doc + 1]]


def related_classes(index: LoadedIndex, sk: Sketches, seed: int, found: Candidates) -> RelatedClasses:
    """The shard's related classes and inverted table, from its sketches and its term candidates `found`
    (terms.candidates.candidate_classes)."""
    where = np.minimum(np.searchsorted(sk.cls, found.cls), max(len(sk.cls) - 1, 0))
    keep = np.flatnonzero(sk.cls[where] == found.cls) if len(sk.cls) else np.empty(0, np.int64)
    pos = where[keep].astype(np.int64)
    cls = found.cls[keep]
    lens = sk.offsets[pos + 1] - sk.offsets[pos]
    last = sk.hashes[np.maximum(sk.offsets[pos + 1] - 1, 0)] if len(pos) else np.empty(0, np.int64)
    tau = np.where(lens >= sk.k, last, UNBOUNDED).astype(np.int64)
    offsets, classes = _inverted(index, sk, pos, seed)
    return RelatedClasses(np.asarray(index.cls_i)[cls].astype(np.int32),
                          np.asarray(index.cls_j)[cls].astype(np.int32),
                          np.asarray(index.cls_df[:, 0])[cls].astype(np.int64), tau,
                          [found.terms[k] for k in keep.tolist()], offsets, classes)


def _inverted(index: LoadedIndex, sk: Sketches, pos: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR local doc -> positions n whose sketch holds the document (its hash is in the sketch)."""
    hashes = doc_hashes(np.arange(index.n_docs, dtype=np.int64) + index.first_doc, seed)
    by_hash = np.argsort(hashes)
    lens = sk.offsets[pos + 1] - sk.offsets[pos]
    held = np.concatenate([sk.of(int(p)) for p in pos.tolist()]) if len(pos) else np.empty(0, np.int64)
    docs = by_hash[np.searchsorted(hashes, held, sorter=by_hash)]
    owners = np.repeat(np.arange(len(pos), dtype=np.int32), lens)
    order = np.lexsort((owners, docs))
    offsets = np.zeros(index.n_docs + 1, dtype=np.int64)
    np.cumsum(np.bincount(docs, minlength=index.n_docs), out=offsets[1:])
    return offsets, owners[order]
