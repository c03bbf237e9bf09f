"""A rich progress display on stderr implementing termx.progress.Progress."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)


class RichProgress:
    """One bar per stage on stderr; nothing at all when stderr is not a terminal or --quiet."""

    def __init__(self, enabled: bool = True) -> None:
        console = Console(stderr=True)
        self._enabled = enabled and console.is_terminal
        self._bar = Progress(SpinnerColumn(), TextColumn("{task.description:<16}"), BarColumn(),
                             MofNCompleteColumn(), TimeElapsedColumn(), console=console, transient=False)
        self._task: TaskID | None = None

    def __enter__(self) -> RichProgress:
        if self._enabled:
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._enabled:
            self._bar.stop()

    def start(self, stage: str, total: int | None) -> None:
        """Begin a bar for a stage."""
        if self._enabled:
            self._task = self._bar.add_task(stage, total=total)

    def advance(self, amount: int) -> None:
        """Move the current bar."""
        if self._enabled and self._task is not None:
            self._bar.advance(self._task, amount)

    def finish(self) -> None:
        """Mark the current stage complete."""
        if self._enabled and self._task is not None:
            task = self._bar.tasks[-1]
            self._bar.update(self._task, total=task.total or 1, completed=task.total or 1)
            self._task = None
