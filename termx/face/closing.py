"""The context-manager protocol of the face's objects: `with termx.Database() as db:` and `with termx.open(name) as
corpus:` call their close() on leaving the block."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """`with obj:` returns obj and calls obj.close() at the end (close() is the subclass's)."""

    def close(self) -> None:
        """Free what the object holds (each face class says what)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
