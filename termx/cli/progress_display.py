"""A rich progress display on stderr implementing termx.progress.Progress."""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from termx.cli.options import is_quiet, is_verbose


class RateColumn(ProgressColumn):
    """Units done per second (characters, documents, rules: what the stage counts)."""

    def render(self, task: Task) -> Text:
        """The stage's speed, blank until it is known."""
        return Text(f"{task.speed:,.0f}/s" if task.speed else "", style="progress.data.speed")


class RichProgress:
    """One bar per stage on stderr (name, bar, done/total, rate, elapsed, ETA) when stderr is a terminal and
    not --quiet; with -v, also a line per finished stage with its seconds, terminal or not. Stages nest (a
    stage of an experiment runs the stages of a model): advances go to the innermost one."""

    def __init__(self, enabled: bool = True) -> None:
        self._console = Console(stderr=True)
        self._enabled = enabled and not is_quiet() and self._console.is_terminal
        self._timed = enabled and is_verbose()
        self._bar = Progress(SpinnerColumn(), TextColumn("{task.description:<20}"), BarColumn(),
                             MofNCompleteColumn(), RateColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                             console=self._console, transient=False)
        self._stages: list[tuple[str, TaskID | None, float, int]] = []  # name, bar, start, units done

    def __enter__(self) -> RichProgress:
        if self._enabled:
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._enabled:
            self._bar.stop()

    def start(self, stage: str, total: int | None) -> None:
        """Begin a stage (inside the current one, if any)."""
        task = self._bar.add_task(stage, total=total) if self._enabled else None
        self._stages.append((stage, task, time.perf_counter(), 0))

    def advance(self, amount: int) -> None:
        """Move the innermost stage on."""
        if not self._stages:
            return
        stage, task, started, done = self._stages[-1]
        self._stages[-1] = (stage, task, started, done + amount)
        if task is not None:
            self._bar.advance(task, amount)

    def finish(self) -> None:
        """End the innermost stage: its bar full (a stage without a total: at what it did), its time with -v."""
        if not self._stages:
            return
        stage, task, started, done = self._stages.pop()
        if task is not None:
            self._retire(task, done)
        if self._timed:
            self._console.print(f"termx: {stage}: {time.perf_counter() - started:.2f} s"
                                + (f", {done:,} done" if done else ""), markup=False, highlight=False)

    def _retire(self, task: TaskID, done: int) -> None:
        """Fill a finished stage's bar, print it once above the live display and take it out of the display: only
        running stages stay live, so a run of many stages never outgrows the terminal (rich would crop the running
        one to '...')."""
        total = next(t.total for t in self._bar.tasks if t.id == task) or max(done, 1)
        self._bar.update(task, total=total, completed=total)
        self._bar.console.print(self._bar.make_tasks_table([t for t in self._bar.tasks if t.id == task]))
        self._bar.remove_task(task)
