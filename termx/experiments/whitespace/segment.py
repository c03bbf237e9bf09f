"""Segment the experiment's documents with a trained segmenter, reading the text from the corpus."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from termx.experiments.whitespace.documents import SpacedDocument
from termx.index.units import Unit
from termx.wordbreak import Segmenter
from termx.wordbreak.segmenter import ChunkInputs

BATCH_CHARS = 1 << 18
"""Characters of whole documents segmented per call (the progress step; the words do not depend on it)."""


def _batches(docs: Sequence[SpacedDocument], doc_nos: Sequence[int]
             ) -> Iterator[tuple[list[SpacedDocument], list[int]]]:
    """Runs of whole documents of about BATCH_CHARS characters, in order."""
    batch: list[SpacedDocument] = []
    nos: list[int] = []
    size = 0
    for d, doc in zip(doc_nos, docs, strict=True):
        batch.append(doc)
        nos.append(d)
        size += len(doc.text)
        if size >= BATCH_CHARS:
            yield batch, nos
            batch, nos, size = [], [], 0
    if batch:
        yield batch, nos


def segment_documents(segmenter: Segmenter, docs: Sequence[SpacedDocument], doc_nos: Sequence[int],
                      memo: dict[tuple[int, int], ChunkInputs] | None = None,
                      advance: Callable[[int], None] | None = None) -> list[list[list[str]]]:
    """Predicted words of each line of the corpus documents numbered `doc_nos` (the class-tree path: the text
    is in the corpus), in batches of documents; `memo` as Segmenter.corpus_spans takes it; `advance` is told the
    characters of each batch done (a progress bar's total: the documents' characters)."""
    out = []
    for batch, nos in _batches(docs, doc_nos):
        out += _segment_batch(segmenter, batch, nos, memo)
        if advance is not None:
            advance(sum(len(doc.text) for doc in batch))
    return out


def _segment_batch(segmenter: Segmenter, docs: Sequence[SpacedDocument], doc_nos: Sequence[int],
                   memo: dict[tuple[int, int], ChunkInputs] | None) -> list[list[list[str]]]:
    """segment_documents of one batch: all its lines in one call."""
    index = segmenter.index
    spans = []
    for d, doc in zip(doc_nos, docs, strict=True):
        start = int(index.doc_start[d])
        for words in doc.lines:
            text = "".join(words)
            size = len(text.encode("utf-8")) if index.unit is Unit.byte else len(text)
            spans.append((start, start + size))
            start += size
    found = iter(zip(spans, segmenter.corpus_spans(spans, memo), strict=True))
    out = []
    for doc in docs:
        lines = []
        for _ in doc.lines:
            (start, stop), cuts = next(found)
            edges = [0, *cuts.tolist(), stop - start]
            lines.append([index.decode(index.tokens[start + a:start + b]) for a, b in zip(edges, edges[1:],
                                                                                          strict=False)])
        out.append(lines)
    return out


def characters(docs: Sequence[SpacedDocument]) -> int:
    """The characters segment_documents reports for `docs` in all (a progress total)."""
    return sum(len(doc.text) for doc in docs)
