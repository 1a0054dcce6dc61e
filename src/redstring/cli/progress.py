"""Progress by passage: per file and overall, with the rate and the time left.

The unit is the passage, because that is where the time goes: one extractor run each. The
command wraps its extractor in :class:`CountingExtractor`, whose every finished run moves the
bars; passages that need no run (unchanged, or extracted before and kept in the log) move
them when their file is done. On a terminal the bars redraw in place; elsewhere (a pipe, a
log file) each finished file is one line on stderr, so a log shows the same figures.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

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

from redstring.domain.extraction import Extraction
from redstring.domain.schema import Schema
from redstring.ports.extractor import Extractor

__all__ = ["CountingExtractor", "PassageProgress", "counting_bar", "format_duration"]


@dataclass
class _Hook:
    on_run: Callable[[], None] | None = None


class CountingExtractor:
    """An Extractor that reports every finished run (success or failure) to a hook."""

    def __init__(self, inner: Extractor) -> None:
        self._inner = inner
        self.hook = _Hook()
        self.runs = 0

    @property
    def inner(self) -> Extractor:
        """The extractor doing the work."""
        return self._inner

    @property
    def model(self) -> str:
        """The wrapped extractor's identity: counting changes nothing it extracts."""
        return self._inner.model

    async def extract(self, text: str, schema: Schema) -> Extraction:
        """The inner extractor's result; the hook hears of it either way."""
        try:
            return await self._inner.extract(text, schema)
        finally:
            self.runs += 1
            if self.hook.on_run is not None:
                self.hook.on_run()


def format_duration(seconds: float) -> str:
    """``42 s``, ``3 min 5 s``, ``1 h 02 min``: for a person."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


class _Rate(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:.1f}/s", style="progress.data.speed")


@dataclass
class PassageProgress:
    """Bars for one file and for the whole run; on a non-terminal, a line per file."""

    console: Console
    total_passages: int
    total_files: int
    enabled: bool = True
    _progress: Progress | None = None
    _overall: TaskID | None = None
    _file: TaskID | None = None
    _file_started: float = 0.0
    _file_done: int = 0
    _done: int = 0
    _files_done: int = 0
    _started: float = field(default_factory=time.monotonic)

    def __enter__(self) -> PassageProgress:
        if self.enabled and self.console.is_terminal:
            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}", markup=False),
                BarColumn(bar_width=24),
                MofNCompleteColumn(),
                TextColumn("passages"),
                _Rate(),
                TimeElapsedColumn(),
                TextColumn("left"),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self._progress.__enter__()
            self._overall = self._progress.add_task(
                f"all {self.total_files} files", total=max(1, self.total_passages)
            )
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def start_file(self, name: str, passages: int) -> None:
        """A file begins: ``passages`` is how many it has."""
        self._file_started = time.monotonic()
        self._file_done = 0
        if self._progress is not None:
            if self._file is not None:
                self._progress.remove_task(self._file)
            number = self._files_done + 1
            self._file = self._progress.add_task(
                f"{number}/{self.total_files} {name}", total=max(1, passages)
            )

    def passage_done(self) -> None:
        """One extractor run finished."""
        self._file_done += 1
        self._done += 1
        if self._progress is not None and self._file is not None and self._overall is not None:
            self._progress.advance(self._file)
            self._progress.advance(self._overall)

    def end_file(self, name: str, passages: int, outcome: str) -> None:
        """A file is done (its passages all counted now, runs or not)."""
        catch_up = max(0, passages - self._file_done)
        self._done += catch_up
        self._files_done += 1
        if self._progress is not None and self._overall is not None:
            self._progress.advance(self._overall, catch_up)
            return
        if not self.enabled:
            return
        seconds = time.monotonic() - self._file_started
        elapsed = time.monotonic() - self._started
        rate = self._done / elapsed if elapsed > 0 else 0.0
        left = max(0, self.total_passages - self._done)
        eta = format_duration(left / rate) if rate > 0 and left else "0 s"
        self.console.print(
            f"[{self._files_done}/{self.total_files}] {name}: {outcome}, {passages} passages "
            f"in {seconds:.1f} s; all: {self._done}/{self.total_passages} passages, "
            f"{rate:.1f}/s, about {eta} left",
            markup=False,
            highlight=False,
        )


def counting_bar(console: Console, *, disable: bool) -> Progress:
    """A bar that counts items (lines imported, events replayed), with the time taken."""
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[current]}", style="dim"),
        console=console,
        transient=True,
        disable=disable,
    )
