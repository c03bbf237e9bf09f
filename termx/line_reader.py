"""The one line reader of termx: every command that reads lines from a file or stdin reads them here.

A line ends at `\\n` only (a trailing `\\r` is removed, so CRLF files read like LF files); `str.splitlines` is not
used because it also breaks at U+2028/U+2029/U+0085, form feeds, vertical tabs and \\x1c-\\x1e, which are ordinary
characters inside a line of text or a JSON string. Input is UTF-8 (a leading BOM is skipped); NUL bytes are
refused everywhere, as the indexer refuses them. Whole inputs are read a block at a time and checked as they
arrive, so an endless or huge binary input (/dev/zero, /dev/urandom) fails at its first block.
"""

from __future__ import annotations

import codecs
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from termx.errors import InputError

if TYPE_CHECKING:
    from _typeshed import SupportsRead

STDIN = "-"
READ_SIZE = 1 << 16
BLOCK = 1 << 20  # bytes decode_stream reads and checks at a time
MAX_LINE_CHARS = 1 << 24  # the longest line stream_lines gathers (16,777,216 characters)
REPLACEMENT = "\ufffd".encode()
UTF8_HINT = "convert it to UTF-8"


def source_name(source: str | Path) -> str:
    """How messages name an input: `<stdin>` for `-`, else the path."""
    return "<stdin>" if str(source) == STDIN else str(source)


def open_path(path: Path) -> BinaryIO:
    """A file, or a device or pipe such as /dev/null or <(...), opened for reading; a missing path or a directory
    is an InputError."""
    if path.is_dir():
        raise InputError(f"{path} is a directory", "give a file, or - for stdin")
    try:
        return path.open("rb")
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


@contextmanager
def opened(source: str | Path) -> Iterator[BinaryIO]:
    """The binary stream of a file or of stdin (`-`), closed afterwards unless it is stdin."""
    if str(source) == STDIN:
        yield sys.stdin.buffer
        return
    with open_path(Path(source)) as stream:
        yield stream


def check_nul(data: bytes, where: str, offset: int = 0) -> None:
    """Refuse NUL bytes (binary input): the same rule for the indexer and every line reader."""
    nul = data.find(b"\0")
    if nul >= 0:
        raise InputError(f"{where} contains a NUL byte at offset {offset + nul}",
                         "binary input cannot be read as text")


def decode_stream(stream: SupportsRead[bytes], where: str, replace: bool = False, hint: str = UTF8_HINT,
                  params: Sequence[str] = ()) -> tuple[str, int]:
    """The UTF-8 text of a stream and the number of U+FFFD substitutions, read BLOCK bytes at a time and checked
    as each block arrives (NUL refused; invalid UTF-8 refused, or replaced with `replace`), so an endless binary
    input fails at its first block instead of filling the memory. `hint` and `params` go with the UTF-8 error."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace" if replace else "strict")
    parts: list[str] = []
    offset, given, tail = 0, 0, b""  # given: U+FFFD the input itself holds (not substitutions)
    while block := stream.read(BLOCK):
        check_nul(block, where, offset)
        parts.append(_decode_block(decoder, block, where, offset, hint, params))
        if replace:  # an encoded U+FFFD may straddle two blocks: the last 2 bytes of one are counted with the next
            given += (tail + block).count(REPLACEMENT)
            tail = (tail + block)[-2:]
        offset += len(block)
    parts.append(_decode_block(decoder, b"", where, offset, hint, params, final=True))
    text = "".join(parts)
    return text, text.count("\ufffd") - given if replace else 0


def _decode_block(decoder: codecs.IncrementalDecoder, block: bytes, where: str, offset: int, hint: str,
                  params: Sequence[str], final: bool = False) -> str:
    """One block through the incremental decoder; an error names its offset in the whole input (the decoder
    still holds the unfinished character the previous block ended with)."""
    pending = len(decoder.getstate()[0])
    try:
        return decoder.decode(block, final)
    except UnicodeDecodeError as exc:
        raise InputError(f"{where} is not valid UTF-8 at byte offset {offset - pending + exc.start}", hint,
                         params) from None


def split_lines(text: str) -> list[str]:
    """Lines of `text`: split at `\\n` only, a trailing `\\r` removed, no empty last line after a final newline."""
    return list(iter_lines(text))


LINE_BLOCK = 1 << 20  # characters split at a time by iter_lines


def iter_lines(text: str, block: int = LINE_BLOCK) -> Iterator[str]:
    """split_lines one block of about `block` characters at a time (whole lines; str.split does the work), so a
    reader of a large file never holds a list of all its lines beside the text."""
    start, n = 0, len(text)
    while start < n:
        cut = n
        if start + block < n:  # up to the last newline of the block, or the end of a line longer than it
            cut = text.rfind("\n", start, start + block) + 1 or text.find("\n", start + block) + 1 or n
        lines = text[start:cut].split("\n")
        if lines[-1] == "":
            lines.pop()
        for line in lines:
            yield line.removesuffix("\r")
        start = cut


def read_text(source: str | Path) -> str:
    """The UTF-8 text of a file or stdin (`-`), BOM skipped, NUL refused."""
    with opened(source) as stream:
        text, _ = decode_stream(stream, source_name(source))
    return text.removeprefix("\ufeff")


def read_lines(source: str | Path) -> list[str]:
    """The lines of a UTF-8 file or stdin (`-`), read with the one rule of this module."""
    return split_lines(read_text(source))


def stream_lines(source: str | Path, max_lines: int = 1000) -> Iterator[list[str]]:
    """Lines of a file or stdin in batches, as soon as they arrive: a batch holds the complete lines read so
    far (at most `max_lines`), so a pipe that writes a line and waits for its answer gets it. The file is
    opened now, so a missing one is reported before any work."""
    if str(source) == STDIN:
        return _batches(sys.stdin.buffer, source_name(source), max_lines)
    stream = open_path(Path(source))
    return _closing(stream, _batches(stream, source_name(source), max_lines))


def _closing(stream: BinaryIO, batches: Iterator[list[str]]) -> Iterator[list[str]]:
    with stream:
        yield from batches


def _batches(stream: BinaryIO, where: str, max_lines: int) -> Iterator[list[str]]:
    """Decoded lines in batches; `read1` returns what is available without waiting for a full buffer. Every read
    is checked (NUL, UTF-8) as it arrives, so binary input fails at once even when no newline ever comes, and a
    line longer than MAX_LINE_CHARS is refused rather than gathered until the memory is full."""
    read = getattr(stream, "read1", stream.read)
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    pending: list[str] = []  # the pieces of the line not yet ended, joined once its end arrives
    pending_chars, offset, first = 0, 0, True
    while chunk := read(READ_SIZE):
        check_nul(chunk, where, offset)
        text = _decode_block(decoder, chunk, where, offset, UTF8_HINT, ())
        offset += len(chunk)
        if first and text:  # skip a BOM (the decoder waits for all its bytes, even split over reads)
            text, first = text.removeprefix("\ufeff"), False
        cut = text.rfind("\n") + 1
        if not cut:
            pending.append(text)
            pending_chars += len(text)
            if pending_chars > MAX_LINE_CHARS:
                raise InputError(f"{where} has a line longer than {MAX_LINE_CHARS:,} characters "
                                 f"(it ends after byte {offset:,} or later)",
                                 "break the text into lines: termx reads and segments a line at a time")
            continue
        lines = split_lines("".join(pending) + text[:cut])
        pending, pending_chars = [text[cut:]], len(text) - cut
        for k in range(0, len(lines), max_lines):
            yield lines[k:k + max_lines]
    pending.append(_decode_block(decoder, b"", where, offset, UTF8_HINT, (), final=True))
    if rest := "".join(pending):
        yield split_lines(rest)


def parse_json_line(line: str, where: str, hint: str | None = None) -> Any:
    """One JSON value from a line; text that cannot be written as UTF-8 (a lone surrogate escape such as
    "\\ud800") is refused here rather than failing later in the database or on output."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError) as exc:  # ValueError: also integers over 4300 digits
        reason = (exc.msg if isinstance(exc, json.JSONDecodeError) else
                  "nested too deeply" if isinstance(exc, RecursionError) else str(exc))
        raise InputError(f"{where}: not JSON ({reason})", hint) from None
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start:exc.end].encode("unicode_escape").decode("ascii")
        raise InputError(f"{where}: a string holds a lone surrogate ({bad})",
                         "JSON text must be valid Unicode") from None
    return value
