"""The progress line on stderr and streamed reports on stdout, for a person at a terminal.

The progress line (``trainlint: 12/85 judged · runs/a/trainer_state.json``) appears only when
stderr is a terminal and the scan has lasted ``delay`` seconds; it is rewritten in place and
cleared before anything else is printed. Nothing is written to stderr when it is piped."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import IO

from ..verdict import Report, Result
from .common import View


class Progress:
    def __init__(
        self,
        stream: IO[str] | None = None,
        delay: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream or sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.delay = float(os.environ.get("TRAINLINT_PROGRESS_DELAY", delay))  # tests set 0
        self.clock = clock
        self.start = clock()
        self.last = float("-inf")
        self.shown = False

    def update(self, found: int, judged: int, current: str) -> None:
        if not self.enabled:
            return
        now = self.clock()
        if now - self.start < self.delay or now - self.last < 0.1:
            return
        self.last = now
        self.show(f"trainlint: {found} found, {judged} judged · {current}")

    def show(self, text: str) -> None:
        """Rewrite the status line with ``text`` (clipped to the terminal's width)."""
        if not self.enabled:
            return
        import shutil  # (it probes zlib, bz2 and lzma: 1.5 ms of every start otherwise)

        width = shutil.get_terminal_size((80, 24)).columns - 1
        if len(text) > width:
            text = text[: max(width - 1, 10)] + "…"
        self.stream.write("\r\x1b[K" + text)
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


class Live:
    """Prints each report's block as soon as it is judged (text view on a terminal), then the
    summary; the progress line is cleared before each block."""

    def __init__(
        self,
        view: View,
        stream: IO[str] | None = None,
        progress: Progress | None = None,
    ) -> None:
        from .text import Out

        self.out = Out(stream or sys.stdout, view)
        self.progress = progress or Progress()
        self.swaps: dict[int, Report] = {}  # a report shown as its NOT-CHECKED (writing it failed)

    def report(self, report: Report) -> None:
        from . import vetted
        from .text import text_blocks

        self.progress.clear()
        shown, blocks = text_blocks(vetted(Result("doctor", [report])), self.out.stream, self.out.view)
        if shown.reports[0] is not report:
            self.swaps[id(report)] = shown.reports[0]
        self.out.stream.write(blocks[0])
        self.out.stream.flush()

    def vetted(self, result: Result) -> Result:
        """``result`` with the reports shown as NOT-CHECKED replaced as they were shown."""
        if not self.swaps:
            return result
        from msgspec.structs import replace

        return replace(result, reports=[self.swaps.get(id(r), r) for r in result.reports])

    def finish(self, result: Result, view: View) -> None:
        from .text import render_summary

        self.progress.clear()
        self.out.view = view
        render_summary(self.out, result)


class Heartbeat:
    """``trainlint watch`` on a terminal: a start line, then one status line on stderr with each
    log's latest step and loss (``a.jsonl step 251 loss 0.61``), rewritten in place."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.progress = Progress(stream, delay=0.0)
        self.latest: dict[str, str] = {}

    @property
    def enabled(self) -> bool:
        return self.progress.enabled

    def start(self, paths: list[str]) -> None:
        if self.enabled:
            noun = "log" if len(paths) == 1 else "logs"
            self.progress.stream.write(f"watching {len(paths)} {noun}; Ctrl-C to stop\n")
            self.progress.stream.flush()

    def beat(self, path: object, step: float, metrics: dict[str, object]) -> None:
        from .common import fmt_num, fmt_step

        loss = next(
            (metrics[k] for k in ("loss", "train_loss", "train/loss") if k in metrics),
            None,
        )
        text = f"step {fmt_step(step)}" + (f" loss {fmt_num(loss)}" if loss is not None else "")
        self.latest[str(path)] = text
        many = len(self.latest) > 1
        self.progress.show(" · ".join(f"{p.rsplit('/', 1)[-1]} {t}" if many else t for p, t in self.latest.items()))

    def clear(self) -> None:
        self.progress.clear()
