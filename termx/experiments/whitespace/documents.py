"""The experiment's input: spaced documents reduced to their gold words under a condition (what is deleted)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from termx.defaults import Condition
from termx.errors import InputError
from termx.index.ingest import Document


def gold_words(line: str, condition: Condition) -> list[str]:
    """The gold words of a spaced line under `condition`."""
    tokens = line.split()
    if condition is Condition.alnum:
        tokens = ["".join(ch for ch in t.lower() if ch.isalnum()) for t in tokens]
    return [t for t in tokens if t]


@dataclass
class SpacedDocument:
    """A document's gold words, line by line (one line unless it is a pseudo-document of several lines)."""

    name: str
    lines: list[list[str]]

    @property
    def text(self) -> str:
        """The de-spaced text that gets indexed."""
        return "".join("".join(words) for words in self.lines)


def spaced_documents(docs: Sequence[Document], condition: Condition,
                     lines_per_doc: int | None = None) -> list[SpacedDocument]:
    """Gold words of every document; with `lines_per_doc`, each input document is one line and that many
    consecutive lines form a pseudo-document. Documents (or lines) without words are dropped."""
    if lines_per_doc is not None and lines_per_doc < 1:
        raise InputError("`lines_per_doc` must be at least 1", params=("lines_per_doc",))
    if lines_per_doc is None:
        out = [SpacedDocument(d.name, [gold_words(d.text, condition)]) for d in docs]
        return [d for d in out if d.lines[0]]
    lines = [(d.name, w) for d in docs if (w := gold_words(d.text, condition))]
    return [SpacedDocument(lines[k][0], [w for _, w in lines[k:k + lines_per_doc]])
            for k in range(0, len(lines), lines_per_doc)]

