"""Segment the experiment's documents with a trained segmenter, reading the text from the corpus."""

from __future__ import annotations

from collections.abc import Sequence

from termx.experiments.whitespace.documents import SpacedDocument
from termx.index.units import Unit
from termx.wordbreak import Segmenter
from termx.wordbreak.segmenter import ChunkInputs


def segment_documents(segmenter: Segmenter, docs: Sequence[SpacedDocument], doc_nos: Sequence[int],
                      memo: dict[tuple[int, int], ChunkInputs] | None = None) -> list[list[list[str]]]:
    """Predicted words of each line of the corpus documents numbered `doc_nos` (the class-tree path: the text
    is in the corpus), all lines in one batch; `memo` as Segmenter.corpus_spans takes it."""
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
