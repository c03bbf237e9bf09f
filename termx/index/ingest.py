"""Read documents from files, directories, JSON lines or stdin, with clear errors for unusable input."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from termx.errors import InputError
from termx.lines import check_nul, iter_lines, parse_json_line, read_bytes


class InputMode(str, Enum):
    """How a PATH is split into documents."""

    auto = "auto"      # .jsonl/.ndjson → jsonl, anything else → files
    files = "files"    # each file is one document
    jsonl = "jsonl"    # one JSON object per line: {"text": ..., "id": ..., "title": ...}
    lines = "lines"    # one document per non-empty line
    paragraphs = "paragraphs"  # one document per paragraph: lines up to a blank (white-space only) line


class OnInvalid(str, Enum):
    """What to do with bytes that are not valid UTF-8."""

    reject = "reject"    # stop with the file and byte offset
    substitute = "replace"  # substitute U+FFFD and count the replacements


@dataclass(frozen=True)
class Document:
    """One document: a name unique within its corpus, its text, and an optional title."""

    name: str
    text: str
    title: str | None = None
    given: bool = False  # the name is an id the input gave (a JSON line's "id"), not derived from a path or line


@dataclass
class ReadReport:
    """What reading skipped or repaired, for the build summary."""

    empty_documents: int = 0
    replaced_bytes: int = 0


JSONL_SUFFIXES = (".jsonl", ".ndjson")


def read_documents(paths: list[str], mode: InputMode = InputMode.auto,
                   on_invalid: OnInvalid = OnInvalid.reject) -> tuple[list[Document], ReadReport]:
    """All documents under `paths`, in order; empty documents are skipped and counted."""
    report = ReadReport()
    docs: list[Document] = []
    for source, name, data in _sources(paths):
        text = _decode(data, source, on_invalid, report)
        del data  # one copy of a large file at a time: its text while it is split, then its documents
        docs.extend(_split(text, name, source, _mode_for(source, mode), report))
        del text
    if not docs:
        raise InputError("no text to index", "the input holds only empty documents")
    seen: set[str] = set()
    for d in docs:
        if d.name in seen:
            raise InputError(f"duplicate document name {d.name!r}", "document ids must be unique")
        seen.add(d.name)
    return docs, report


def _sources(paths: list[str]) -> Iterator[tuple[str, str, bytes]]:
    """(source for messages, document name, raw bytes) for every input file, in sorted path order."""
    if not paths:
        raise InputError("no input given", "pass files, directories or - for stdin")
    for p in paths:
        if p == "-":
            yield "<stdin>", "stdin", read_bytes(p)
            continue
        path = Path(p)
        if path.is_dir():
            files = sorted(f for f in path.rglob("*") if f.is_file())
            if not files:
                raise InputError(f"directory {p} holds no files")
            for f in files:
                yield str(f), str(f.relative_to(path)), read_bytes(f)
        elif path.exists():  # a file, or a device or pipe such as /dev/null or <(...)
            yield str(path), path.name, read_bytes(path)
        else:
            raise InputError(f"no such file or directory: {p}")


def _decode(data: bytes, source: str, on_invalid: OnInvalid, report: ReadReport) -> str:
    """UTF-8 text of a file; NUL bytes (binary files) are always rejected."""
    if not data or data.isspace():  # (strip() would copy the file)
        raise InputError(f"{source} is empty")
    check_nul(data, source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if on_invalid is OnInvalid.reject:
            raise InputError(f"{source} is not valid UTF-8 at byte offset {exc.start}",
                             "fix the file or pass `on_invalid=replace`", ("on_invalid",)) from None
        text = data.decode("utf-8", errors="replace")
        report.replaced_bytes += text.count("\ufffd") - data.decode("utf-8", "ignore").count("\ufffd")
        return text


def _mode_for(source: str, mode: InputMode) -> InputMode:
    if mode is not InputMode.auto:
        return mode
    return InputMode.jsonl if source.lower().endswith(JSONL_SUFFIXES) else InputMode.files


def _split(text: str, name: str, source: str, mode: InputMode, report: ReadReport) -> Iterator[Document]:
    """Documents of one decoded file according to the input mode."""
    if mode is InputMode.files:
        yield Document(name, text)
        return
    if mode is InputMode.paragraphs:
        yield from paragraphs(text, name)
        return
    for lineno, line in enumerate(iter_lines(text), 1):
        if not line.strip():
            continue
        if mode is InputMode.lines:
            yield Document(f"{name}:{lineno}", line)
            continue
        doc = _json_document(line, f"{source}:{lineno}", f"{name}:{lineno}")
        if doc.text.strip():
            yield doc
        else:
            report.empty_documents += 1


def paragraphs(text: str, name: str) -> Iterator[Document]:
    """The paragraphs of a text as documents `name:LINE` (LINE: the paragraph's first line, from 1): runs of
    lines that hold something other than white space, joined by newlines."""
    start, block = 0, []
    for lineno, line in enumerate(itertools.chain(iter_lines(text), [""]), 1):
        if line.strip():
            start = start or lineno
            block.append(line)
        elif block:
            yield Document(f"{name}:{start}", "\n".join(block))
            start, block = 0, []


def _json_document(line: str, where: str, default_name: str) -> Document:
    obj = parse_json_line(line, where, "JSON lines input holds one object per line")
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
        raise InputError(f'{where}: expected an object with a string "text" field')
    if "\0" in obj["text"]:
        raise InputError(f"{where}: text contains a NUL character", "NUL cannot be indexed")
    given = obj.get("id") is not None
    name = str(obj["id"]) if given else default_name
    title = obj.get("title")
    return Document(name, obj["text"], title if isinstance(title, str) else None, given)
