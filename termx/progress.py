"""How the library reports progress without printing: stages with optional totals, advanced by callbacks."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol


class Progress(Protocol):
    """Receives stage starts and advances; the CLI draws bars, the library default ignores them."""

    def start(self, stage: str, total: int | None) -> None: ...
    def advance(self, amount: int) -> None: ...
    def finish(self) -> None: ...


class Silent:
    """A Progress that shows nothing."""

    def start(self, stage: str, total: int | None) -> None:
        """Ignore a stage start."""

    def advance(self, amount: int) -> None:
        """Ignore progress."""

    def finish(self) -> None:
        """Ignore a stage end."""


class Timings(dict[str, float]):
    """Seconds per stage, in the order the stages ran."""

    @contextmanager
    def stage(self, name: str, progress: Progress, total: int | None = None) -> Iterator[Callable[[int], None]]:
        """Time a stage and report it to `progress`; yields the advance callback."""
        progress.start(name, total)
        t0 = time.perf_counter()
        try:
            yield progress.advance
        finally:
            self[name] = self.get(name, 0.0) + time.perf_counter() - t0
            progress.finish()
