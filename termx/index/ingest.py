"""Read documents from files, directories, JSON lines, JSON arrays or stdin, plain or compressed (gzip, bzip2,
xz), with clear errors for unusable input."""

from __future__ import annotations

import bz2
import gzip
import io
import itertools
import lzma
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from enum import Enum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from termx.errors import InputError
from termx.line_reader import decode_stream, iter_lines, open_path, opened, parse_json_line

if TYPE_CHECKING:
    from _typeshed import SupportsRead


class InputMode(str, Enum):
    """How a PATH is split into documents."""

    auto = "auto"      # .jsonl/.ndjson → jsonl, .json → json, anything else → files (after a .gz/.bz2/.xz suffix)
    files = "files"    # each file is one document
    jsonl = "jsonl"    # one JSON object per line: {"text": ..., "id": ..., "title": ...}
    json = "json"      # one JSON array of such objects
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
JSON_SUFFIXES = (".json",)
COMPRESSED: dict[str, tuple[re.Pattern[bytes], Callable[[Any], io.BufferedIOBase]]] = {  # format: magic, reader
    "gzip": (re.compile(b"\x1f\x8b"), lambda raw: gzip.GzipFile(fileobj=raw)),
    # "BZh" alone starts English text: the level digit and the first block's (or the end's) magic must follow
    "bzip2": (re.compile(b"BZh[1-9](?:\x31\x41\x59\x26\x53\x59|\x17\x72\x45\x38\x50\x90)"), bz2.BZ2File),
    "xz": (re.compile(b"\xfd7zXZ\x00"), lzma.LZMAFile),
}
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")
MAGIC_SIZE = 10


def read_documents(paths: list[str], mode: InputMode = InputMode.auto,
                   on_invalid: OnInvalid = OnInvalid.reject) -> tuple[list[Document], ReadReport]:
    """All documents under `paths`, in order; empty documents are skipped and counted."""
    report = ReadReport()
    docs: list[Document] = []
    for source, name, open_source in _sources(paths):
        with open_source() as stream:
            text = _read_text(stream, source, on_invalid, report)
        docs.extend(_split(text, name, source, _mode_for(source, mode), report))
        del text  # one copy of a large file at a time: its text while it is split, then its documents
    if not docs:
        raise InputError("no text to index", "the input holds only empty documents")
    check_unique(docs)
    return docs, report


def check_unique(docs: Iterable[Document]) -> None:
    """InputError naming the first document name given twice (names identify documents within a corpus)."""
    seen: set[str] = set()
    for d in docs:
        if d.name in seen:
            raise InputError(f"duplicate document name {d.name!r}", "document ids must be unique")
        seen.add(d.name)


Opener = Callable[[], AbstractContextManager[BinaryIO]]


def _sources(paths: list[str]) -> Iterator[tuple[str, str, Opener]]:
    """(source for messages, document name, how to open it) for every input file, in sorted path order."""
    if not paths:
        raise InputError("no input given", "pass files, directories or - for stdin")
    for p in paths:
        if p == "-":
            yield "<stdin>", "stdin", partial(opened, "-")
            continue
        path = Path(p)
        if path.is_dir():
            files = sorted(f for f in path.rglob("*") if f.is_file())
            if not files:
                raise InputError(f"directory {p} holds no files")
            for f in files:
                yield str(f), str(f.relative_to(path)), partial(open_path, f)
        elif path.exists():  # a file, or a device or pipe such as /dev/null or <(...)
            yield str(path), path.name, partial(open_path, path)
        else:
            raise InputError(f"no such file or directory: {p}")


def _read_text(stream: BinaryIO, source: str, on_invalid: OnInvalid, report: ReadReport) -> str:
    """UTF-8 text of a file, decompressed if it is compressed, checked a block at a time as it is read: NUL
    bytes (binary files) are always rejected, invalid UTF-8 as `on_invalid` says."""
    compression = None
    try:
        data, compression = _decompressed(stream)
        text, replaced = decode_stream(data, source, on_invalid is OnInvalid.substitute,
                                       "fix the file or pass `on_invalid=replace`", ("on_invalid",))
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
        if compression and not getattr(exc, "errno", None):  # the decompressor's complaint, not the system's
            raise InputError(f"{source} is not valid {compression} data: {exc}",
                             f"the file is damaged or cut short; {compression} -t tells") from None
        raise InputError(f"cannot read {source}: {getattr(exc, 'strerror', None) or exc}") from None
    if not text or (text.isascii() and text.isspace()):  # ASCII white space only: an empty file
        raise InputError(f"{source} is empty")
    report.replaced_bytes += replaced
    return text


def _decompressed(stream: BinaryIO) -> tuple[SupportsRead[bytes], str | None]:
    """The stream and None, or its decompressed bytes and the format when it starts with the magic bytes of gzip,
    bzip2 or xz (so stdin and a file of any name are recognised alike)."""
    head = stream.read(MAGIC_SIZE)
    raw = _Replay(head, stream)
    for compression, (magic, reader) in COMPRESSED.items():
        if magic.match(head):
            return reader(raw), compression
    return raw, None


class _Replay:
    """A stream whose first bytes were read to look at them: it gives them back (a short read), then reads on."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head, self._rest = head, rest

    def read(self, size: int = -1) -> bytes:
        head, self._head = self._head, b""
        if not head:
            return self._rest.read(size)
        if size < 0:
            return head + self._rest.read()
        self._head = head[size:]
        return head[:size]


def _mode_for(source: str, mode: InputMode) -> InputMode:
    """The input mode of a file for `auto`: by its suffix, after a compression suffix (x.jsonl.gz is JSON lines)."""
    if mode is not InputMode.auto:
        return mode
    name = source.lower()
    for suffix in COMPRESSED_SUFFIXES:
        name = name.removesuffix(suffix)
    return (InputMode.jsonl if name.endswith(JSONL_SUFFIXES) else InputMode.json if name.endswith(JSON_SUFFIXES)
            else InputMode.files)


def _split(text: str, name: str, source: str, mode: InputMode, report: ReadReport) -> Iterator[Document]:
    """Documents of one decoded file according to the input mode."""
    if mode is InputMode.files:
        yield Document(name, text)
        return
    if mode is InputMode.paragraphs:
        yield from paragraphs(text, name)
        return
    if mode is InputMode.json:
        yield from _json_array(text, name, source, report)
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


JSON_ARRAY = 'a JSON array of objects with a string "text" field (and optional "id", "title")'


def _json_array(text: str, name: str, source: str, report: ReadReport) -> Iterator[Document]:
    """The documents of a JSON array of objects, as JSON lines would give them (`name:N`, N counting from 1, when
    an object has no id); anything else in the file is an error that says what is expected."""
    items = parse_json_line(text, source, f"expected {JSON_ARRAY}; JSON lines go in a .jsonl file")
    if not isinstance(items, list):
        raise InputError(f"{source} holds a JSON {_json_kind(items)}", f"expected {JSON_ARRAY}")
    for number, item in enumerate(items, 1):
        doc = _document(item, f"{source}: item {number}", f"{name}:{number}")
        if doc.text.strip():
            yield doc
        else:
            report.empty_documents += 1


def _json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's words."""
    return {dict: "object", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


def _json_document(line: str, where: str, default_name: str) -> Document:
    return _document(parse_json_line(line, where, "JSON lines input holds one object per line"), where, default_name)


def _document(obj: Any, where: str, default_name: str) -> Document:
    """A document from a parsed JSON object {"text", "id"?, "title"?}."""
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
        raise InputError(f'{where}: expected an object with a string "text" field')
    if "\0" in obj["text"]:
        raise InputError(f"{where}: text contains a NUL character", "NUL cannot be indexed")
    given = obj.get("id") is not None
    name = str(obj["id"]) if given else default_name
    title = obj.get("title")
    return Document(name, obj["text"], title if isinstance(title, str) else None, given)
