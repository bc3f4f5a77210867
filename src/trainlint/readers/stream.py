"""Incremental reading: each reader's stream, which ``watch`` follows as a log grows.

A stream keeps what it needs to go on from where it stopped (an offset, a partial line, a
header, a parser state) and each :meth:`Stream.poll` returns a :class:`~trainlint.model.Run`
holding only the points that arrived since the last poll (or None). Readers parse; the
watcher only polls. Three ways to go on, each a class here:

- :class:`LineStream`: text that only grows by lines (JSON lines, CSV). Complete lines past
  the last offset go through the reader's own line parser.
- :class:`Tail` with a record framing: binary records appended (TensorBoard event files, in
  ``readers/tensorboard/events.py``).
- :class:`Reread`: a file rewritten whole at each save (``trainer_state.json``), or a format
  whose meaning needs the whole text (console logs, tracker folders): the reader's ``read``
  runs again when the input changed, and the points past those already delivered come out.
  For inputs that grow, it re-reads when the input has grown by a fixed fraction since its
  last read or has stopped growing, so its cost stays proportional to what arrived.

A reader declares its stream with a ``stream(path, options)`` method; a reader without one is
followed by :class:`Reread`. A poll reads at most ``MAX_POLL`` new bytes: the rest waits for
the next poll.
"""

from __future__ import annotations

import heapq
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..model import Run, Series
from ..options import ReadOptions
from .base import Reader, ReadError

MAX_POLL = 16 << 20  # bytes read by one poll of an appended file
REREAD_GROWTH = 8  # Reread: read again once the input grew by 1/8 of its size at the last read

Record = tuple[float, float, dict[str, float]]  # (step, wall time or NaN, {metric: value})


class Stream:
    """Follows one input as it grows. ``poll`` returns the new points as a Run, or None."""

    path: Path
    fmt: str
    restarted: bool = False  # the input was replaced since the last poll: a new run in its place

    def poll(self) -> Run | None:  # pragma: no cover - every stream defines it
        raise NotImplementedError

    def fragment(self) -> Run:
        return Run(source=str(self.path), format=self.fmt, files=[str(self.path)])


class Tail(Stream):
    """A file that only grows: the bytes past the last complete unit read. A file that shrank or
    was replaced (another inode) is read again from the start, and ``restarted`` says so."""

    def __init__(self, path: Path, fmt: str) -> None:
        self.path, self.fmt = Path(path), fmt
        self.offset, self.restarted = 0, False
        self.ident: tuple[int, int] | None = None

    def new_bytes(self) -> bytes:
        from ..safeio import open_regular

        try:
            st = os.stat(self.path)
        except OSError:
            return b""
        ident = (st.st_dev, st.st_ino)
        if (self.ident is not None and ident != self.ident) or st.st_size < self.offset:
            self.offset, self.restarted = 0, True
            self.restart()
        self.ident = ident
        if st.st_size <= self.offset:
            return b""
        try:
            with open_regular(self.path) as fh:
                fh.seek(self.offset)
                return bytes(fh.read(min(st.st_size - self.offset, MAX_POLL)))
        except OSError:
            return b""

    def restart(self) -> None:
        """Forget the parser state (the file was replaced); subclasses with state override it."""


class LineStream(Tail):
    """Text that grows by lines: complete lines go to :meth:`lines`, a partial last line waits."""

    bare_cr = False  # lines may end in a bare CR (where the whole-file read splits on it too)

    def __init__(self, path: Path, fmt: str) -> None:
        super().__init__(path, fmt)
        self.line_no = 0  # lines consumed so far
        self.eol: bytes | None = None  # the line end, known at the first one: LF (CRLF too), or a bare CR

    def poll(self) -> Run | None:
        data = self.new_bytes()
        eol = self.eol = self.eol or (_line_end(data) if self.bare_cr else b"\n")
        cut = data.rfind(eol) if eol else -1
        if eol is None or cut < 0:
            return None
        self.offset += cut + 1
        text = data[: cut + 1].decode("utf-8", errors="replace")
        if self.line_no == 0:
            text = text.lstrip("\ufeff")
        lines = text.split(eol.decode())[:-1]
        first, self.line_no = self.line_no + 1, self.line_no + len(lines)
        frag = self.fragment()
        self.lines([ln.rstrip("\r") for ln in lines], first, frag)
        return frag if frag.series or frag.meta else None

    def restart(self) -> None:
        self.line_no, self.eol = 0, None

    def lines(self, lines: list[str], first_no: int, frag: Run) -> None:  # pragma: no cover
        """Parse ``lines`` (numbered from ``first_no``) into ``frag``."""
        raise NotImplementedError


def _line_end(data: bytes) -> bytes | None:
    """The line end of a file whose first bytes are ``data``: a CR followed by anything but LF
    before the first LF means lines that end in a bare CR (classic Mac OS, ``csv.writer`` with
    ``lineterminator="\\r"``), which the whole-file read splits on too; None while no line has ended
    (a CR last in ``data`` may be the first half of a CRLF)."""
    lf, bare = data.find(b"\n"), _BARE_CR.search(data)
    if bare is not None and (lf < 0 or bare.start() < lf):
        return b"\r"
    return b"\n" if lf >= 0 else None


_BARE_CR = re.compile(rb"\r(?=[^\r\n])")  # a CR that ends no CRLF (nor the CRCRLF of a Windows text-mode write)


class Reread(Stream):
    """The reader's whole ``read`` again when the input changed; the points not yet delivered out.

    ``every_change``: read at each change (a file rewritten whole, such as ``trainer_state.json``);
    otherwise once the input grew by 1/``REREAD_GROWTH`` since the last read, or stopped growing
    (the size at this poll equals the last poll's), which bounds the cost per byte that arrives."""

    def __init__(self, path: Path, fmt: str, read: Callable[[Path], Run], every_change: bool = False) -> None:
        self.path, self.fmt, self.read, self.every_change = Path(path), fmt, read, every_change
        self.delivered: dict[str, int] = {}
        self.read_stamp: tuple[int, int] | None = None
        self.last_stamp: tuple[int, int] | None = None
        self.read_size = 0

    def poll(self) -> Run | None:
        stamp = _stamp(self.path)
        previous, self.last_stamp = self.last_stamp, stamp
        if stamp is None or stamp == self.read_stamp:
            return None
        grown = stamp[0] - self.read_size
        settled = stamp == previous
        if not (self.every_change or settled or grown * REREAD_GROWTH >= self.read_size):
            return None
        try:
            run = self.read(self.path)
        except (ReadError, OSError, ValueError):
            return None  # caught mid-write, or nothing readable yet: the next change tries again
        self.read_stamp, self.read_size = stamp, stamp[0]
        return self._past_delivered(run)

    def _past_delivered(self, run: Run) -> Run | None:
        if any(len(s) < self.delivered.get(name, 0) for name, s in run.series.items()):
            self.delivered, self.restarted = {}, True  # rewritten shorter: a new run in its place
        # the events, damage and notes of the whole read that earlier fragments did not carry
        events, damage, notes = (self._new(key, items) for key, items in _carried_once(run))
        frag = Run(run.source, run.format, files=run.files, meta=run.meta, events=events, damage=damage, notes=notes)
        for name, s in run.series.items():
            n = self.delivered.get(name, 0)
            if len(s) > n:
                wall = None if s.wall is None else s.wall[n:]
                frag.series[name] = Series(name, s.steps[n:], s.values[n:], wall)
                self.delivered[name] = len(s)
        return frag

    def _new(self, key: str, items: list[Any]) -> list[Any]:
        n = 0 if len(items) < self.delivered.get(key, 0) else self.delivered.get(key, 0)
        self.delivered[key] = len(items)
        return list(items[n:])


def _carried_once(run: Run) -> tuple[tuple[str, list[Any]], ...]:
    """A run's lists that a fragment carries once (keys that no series name can take)."""
    return (("\0events", run.events), ("\0damage", run.damage), ("\0notes", run.notes))


def _stamp(path: Path) -> tuple[int, int] | None:
    """(total size, latest modification) of a file, or of the regular files in a folder."""
    try:
        if not path.is_dir():
            st = os.stat(path)
            return (st.st_size, st.st_mtime_ns)
        size = mtime = 0
        for dirpath, _, names in os.walk(path):
            for name in names:
                st = os.stat(os.path.join(dirpath, name))
                size, mtime = size + st.st_size, max(mtime, st.st_mtime_ns)
        return (size, mtime)
    except OSError:
        return None


def open_stream(path: Path, reader: Reader, options: ReadOptions | None = None) -> Stream:
    """The stream that follows ``path`` with ``reader``: its own, or :class:`Reread`."""
    options = options or ReadOptions()
    if reader.stream is not None:
        return reader.stream(Path(path), options)  # type: ignore[no-any-return]
    from . import read_run

    return Reread(Path(path), reader.name, lambda p: read_run(p, reader.name, options))


def extend(frag: Run, part: Run, prefix: str = "") -> None:
    """Add ``part``'s points (its series names prefixed) after ``frag``'s, with its meta, notes and
    damage: one fragment from the streams of several files of one run."""
    for name, s in part.series.items():
        full = name if name.startswith(prefix) else prefix + name
        old = frag.series.get(full)
        if old is None:
            frag.series[full] = Series(full, s.steps, s.values, s.wall)
            continue
        wall = None if old.wall is None or s.wall is None else np.concatenate([old.wall, s.wall])
        steps, values = np.concatenate([old.steps, s.steps]), np.concatenate([old.values, s.values])
        frag.series[full] = Series(full, steps, values, wall)
    frag.meta.update(part.meta)
    frag.notes.extend(part.notes)
    frag.damage.extend(part.damage)
    frag.events.extend(part.events)


def records(frag: Run) -> Iterator[Record]:
    """A fragment's points as records, in step order across series and in written order within
    each: points of several series at one step make one record."""
    heads: list[tuple[float, int, int]] = []
    cols = [(name, s.steps, s.values, s.wall) for name, s in frag.series.items() if len(s)]
    for k, (_, steps, _, _) in enumerate(cols):
        heapq.heappush(heads, (float(steps[0]), k, 0))
    step, wall, metrics = np.nan, np.nan, dict[str, float]()
    while heads:
        at, k, i = heapq.heappop(heads)
        name, steps, values, walls = cols[k]
        if metrics and (at != step or name in metrics):
            yield step, wall, metrics
            wall, metrics = np.nan, {}
        step = at
        metrics[name] = float(values[i])
        if walls is not None:
            wall = float(walls[i])
        if i + 1 < len(steps):
            heapq.heappush(heads, (float(steps[i + 1]), k, i + 1))
    if metrics:
        yield step, wall, metrics
