"""The one line reader: `\\n` only, `\\r\\n` stripped, NUL refused, streaming batches, and its users."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from termx import line_reader
from termx.errors import InputError
from termx.evaluation.inputs import read_records
from termx.index.ingest import InputMode, read_documents
from termx.line_reader import (
    _batches,
    decode_stream,
    iter_lines,
    parse_json_line,
    read_lines,
    split_lines,
    stream_lines,
)

# Characters str.splitlines() breaks at although they are ordinary text inside a line.
NOT_LINE_ENDS = "\u2028\u2029\u0085\x0c\x0b\x1c\x1d\x1e"


def test_split_lines_breaks_only_at_newline() -> None:
    text = "a\u2028b\r\nc\x0cd\n\ne\x1cf\u0085\n"
    assert split_lines(text) == ["a\u2028b", "c\x0cd", "", "e\x1cf\u0085"]
    assert split_lines("no newline at end") == ["no newline at end"]
    assert split_lines("") == []
    assert split_lines("\n") == [""]
    assert split_lines("x\r\r\n") == ["x\r"]  # only the \r of the line end goes


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\n", blacklist_categories=("Cs",))),
                max_size=8),
       st.booleans())
def test_split_lines_round_trip(lines: list[str], crlf: bool) -> None:
    lines = [line.rstrip("\r") for line in lines]
    end = "\r\n" if crlf else "\n"
    assert split_lines("".join(line + end for line in lines)) == lines


@given(st.text(alphabet="ab\r\n\u2028"), st.integers(min_value=1, max_value=9))
def test_iter_lines_in_blocks_is_the_split_at_newline(text: str, block: int) -> None:
    """Lines come a block at a time (a line may be longer than a block, a block may end anywhere): the same lines
    as splitting the whole text at `\\n`, each losing one trailing `\\r`, no empty line after a final newline."""
    want = text.split("\n")
    if want[-1] == "":
        want.pop()
    assert list(iter_lines(text, block)) == [line.removesuffix("\r") for line in want]


def test_read_lines_file_bom_crlf_and_errors(tmp_path: Path) -> None:
    f = tmp_path / "in.txt"
    f.write_bytes(b"\xef\xbb\xbfone\r\ntwo\xe2\x80\xa8half\r\n")
    assert read_lines(f) == ["one", "two\u2028half"]
    f.write_bytes(b"ok\nbad\x00\n")
    with pytest.raises(InputError, match="NUL byte at offset 6"):
        read_lines(f)
    f.write_bytes(b"ok\n\xff\n")
    with pytest.raises(InputError, match="not valid UTF-8 at byte offset 3"):
        read_lines(f)
    with pytest.raises(InputError, match="no such file"):
        read_lines(tmp_path / "missing.txt")
    assert read_lines("/dev/null") == []


@given(st.lists(st.sampled_from([b"a", b"\n", b"\xc3\xa9", b"\xef\xbf\xbd", b"\xe2\x82\xac", b"\xff", b"\xe2",
                                  b"\xf0\x9f", b"\x80"]), max_size=12).map(b"".join),
       st.integers(min_value=1, max_value=5))
def test_decode_stream_in_blocks_is_the_whole_decode(data: bytes, block: int) -> None:
    """Block by block (characters and U+FFFD cut at any point) the text, the substitutions and the offset of the
    first invalid byte are those of decoding the whole input at once."""
    saved, line_reader.BLOCK = line_reader.BLOCK, block
    try:
        text, replaced = decode_stream(io.BytesIO(data), "f", replace=True)
        assert text == data.decode("utf-8", "replace")
        assert replaced == text.count("\ufffd") - data.decode("utf-8", "ignore").count("\ufffd")
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            with pytest.raises(InputError, match=f"f is not valid UTF-8 at byte offset {exc.start} "):
                decode_stream(io.BytesIO(data), "f")
        else:
            assert decode_stream(io.BytesIO(data), "f") == (data.decode("utf-8"), 0)
    finally:
        line_reader.BLOCK = saved


def test_stream_batches_keep_lines_whole_and_offsets_right() -> None:
    class Trickle(io.RawIOBase):
        """A pipe that hands out a few bytes per read, cutting lines and characters in half."""

        def __init__(self, data: bytes) -> None:
            self.data = data

        def readable(self) -> bool:
            return True

        def read1(self, n: int = -1) -> bytes:
            chunk, self.data = self.data[:3], self.data[3:]
            return chunk

    data = "\ufeffäb\r\nc\u2028d\ne".encode()
    batches = list(_batches(Trickle(data), "<pipe>", 1000))  # type: ignore[arg-type]
    assert [line for batch in batches for line in batch] == ["äb", "c\u2028d", "e"]
    assert len(batches) >= 2  # answered as lines arrive, not after the whole input
    with pytest.raises(InputError, match=r"<pipe> contains a NUL byte at offset 7"):
        list(_batches(Trickle(b"abc\ndef\x00\n"), "<pipe>", 1000))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="at byte offset 4"):
        list(_batches(Trickle(b"abc\n\xffx\n"), "<pipe>", 1000))  # type: ignore[arg-type]


@pytest.mark.parametrize(("byte", "error"), [(b"\x00", "contains a NUL byte at offset 0"),
                                             (b"\xff", "is not valid UTF-8 at byte offset 0")])
def test_stream_batches_refuse_endless_binary_at_the_first_read(byte: bytes, error: str) -> None:
    """Binary input without a newline (/dev/zero) is refused at its first read, not gathered while waiting for the
    end of a line that never comes (`termx segment CORPUS /dev/zero` ran for good)."""
    class Endless(io.RawIOBase):
        reads = 0

        def readable(self) -> bool:
            return True

        def read1(self, n: int = -1) -> bytes:
            self.reads += 1
            assert self.reads < 10, "read on past the first block"
            return byte * n

    with pytest.raises(InputError, match=f"<pipe> {error}"):
        list(_batches(Endless(), "<pipe>", 1000))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="/dev/zero contains a NUL byte at offset 0"):
        next(stream_lines("/dev/zero"))


def test_stream_lines_file_in_bounded_batches(tmp_path: Path) -> None:
    f = tmp_path / "many.txt"
    f.write_text("".join(f"line {n}\r\n" for n in range(2500)), encoding="utf-8")
    batches = list(stream_lines(f, max_lines=1000))
    assert all(len(b) <= 1000 for b in batches)
    assert [line for b in batches for line in b] == [f"line {n}" for n in range(2500)]
    with pytest.raises(InputError, match="no such file"):
        stream_lines(tmp_path / "missing.txt")  # reported when opened, before any batch is asked for


def test_stream_lines_refuses_a_line_that_never_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(line_reader, "MAX_LINE_CHARS", 200_000)

    class Endless:  # text with no newline, forever
        def read1(self, n: int = -1) -> bytes:
            return "字".encode() * (n // 3)

        read = read1

    with pytest.raises(InputError, match="<pipe> has a line longer than 200,000 characters"):
        list(_batches(Endless(), "<pipe>", 1000))  # type: ignore[arg-type]
    f = tmp_path / "long.txt"  # a line of exactly the limit, across several reads, is read whole
    f.write_text("x" * 200_000 + "\n" + "y" * 70_000 + "\nend", encoding="utf-8")
    assert [line for b in stream_lines(f) for line in b] == ["x" * 200_000, "y" * 70_000, "end"]


def test_json_line_with_raw_u2028_is_one_document(tmp_path: Path) -> None:
    f = tmp_path / "docs.jsonl"
    records = [{"id": "a", "text": "before\u2028after"}, {"id": "b", "text": "form\x0cfeed\u0085next"}]
    f.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\r\n", encoding="utf-8")
    docs, _ = read_documents([str(f)])
    assert [(d.name, d.text) for d in docs] == [("a", "before\u2028after"), ("b", "form\x0cfeed\u0085next")]


def test_input_lines_numbers_count_newlines_only(tmp_path: Path) -> None:
    f = tmp_path / "lines.txt"
    f.write_bytes("one\u2028still one\r\n\ntwo\x0bstill two\nthree\n".encode())
    docs, _ = read_documents([str(f)], InputMode.lines)
    assert [(d.name, d.text) for d in docs] == [("lines.txt:1", "one\u2028still one"),
                                                 ("lines.txt:3", "two\x0bstill two"), ("lines.txt:4", "three")]


def test_records_with_separators_and_line_numbers(tmp_path: Path) -> None:
    f = tmp_path / "a.jsonl"
    f.write_text('{"id": "x\u2028y", "errors": 1}\r\n\n{"id": "z", "errors": 2}\n{"id": 3}\n', encoding="utf-8")
    with pytest.raises(InputError, match=rf"{f}:4: give exactly one of"):
        read_records(f)


@pytest.mark.parametrize("line, message", [
    ('{"text": "\\ud800"}', r"lone surrogate \(\\ud800\)"),
    ('{"text": "ok", "title": "\\udfff"}', "lone surrogate"),
    ('{"text": ', "not JSON"),
    ("[" * 100_000, "not JSON"),
    ('{"n": ' + "9" * 5000 + "}", "not JSON"),
])
def test_parse_json_line_refusals(line: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_json_line(line, "f.jsonl:1")


def test_no_splitlines_on_user_input() -> None:
    """Every reader goes through termx/line_reader.py: `splitlines` may only split the project's own text."""
    root = Path(__file__).resolve().parent.parent / "termx"
    # server and exception messages, postmaster.pid, pg_ctl and pg_restore output
    allowed = {"errors.py", "storage/sqlfiles.py", "storage/db.py", "storage/cluster.py", "storage/backup.py",
               "storage/embedded.py", "storage/foreign.py"}
    users = sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if ".splitlines(" in p.read_text("utf-8"))
    assert set(users) <= allowed, users
