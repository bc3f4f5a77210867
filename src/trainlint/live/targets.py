"""What ``watch`` follows under the paths it is given: the inputs ``doctor`` would judge there
(a run folder of several files, a folder of event files, a log file), found again at every poll
so that runs and files created after ``watch`` started are followed too.

Each input is followed by its reader's stream (:mod:`trainlint.readers.stream`); nothing here
parses a format. A scan costs one directory walk; only entries that are new or changed since
the last scan are sniffed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import msgspec

from ..discover import left_alone
from ..model import Run
from ..options import Options
from ..readers import ReadError, read_run, reader_named, sniff
from ..readers.grouping import RunGroup, find_group, read_group, worth_grouping
from ..readers.stream import Reread, Stream, open_stream
from ..readers.tensorboard.folder import part_of_parent_run, run_layout
from ..safeio import file_kind

RESNIFF_UP_TO = 1 << 20  # a file no reader claims is sniffed again while it grows, up to this size


class Target(msgspec.Struct):
    """One input being followed: what it is, how it is read as it grows, how it is judged at the end."""

    path: Path
    kind: str  # "group" (a run folder), "events" (a folder of event files) or "file"
    fmt: str
    stream: Stream

    def final_run(self, options: Options) -> Run:
        """The finished input, read exactly as doctor reads it (ReadError when it cannot be read)."""
        if self.kind == "group":
            group = _group(self.path, options)
            if group is None:
                raise ReadError("no longer a run folder")
            return read_group(group, options.read)
        if self.kind == "events":
            return read_run(self.source(), options=options.read)
        return read_run(self.path, self.fmt, options.read)

    def source(self) -> Path:
        """The name doctor gives this input (a lone event file is judged as a file)."""
        if self.kind == "events":
            found = run_layout(self.path)
            if found is not None and found[0] == "files" and len(found[1][""]) == 1:
                return found[1][""][0]
        return self.path


def _group(folder: Path, options: Options) -> RunGroup | None:
    group = find_group(folder, options.read)
    return group if group is not None and worth_grouping(group) else None


class Scanner:
    """Finds the inputs to follow under ``roots``; :meth:`scan` returns the ones new since the last scan."""

    def __init__(self, roots: Iterable[Path], options: Options) -> None:
        self.roots = [Path(r) for r in roots]
        self.options = options
        self.known: dict[Path, Target] = {}
        self.unclaimed: dict[Path, int] = {}  # file -> size when no reader claimed it

    def scan(self) -> tuple[list[Target], list[Target]]:
        """(inputs new since the last scan, inputs now part of a new one): a run folder that
        became a run group (its trainer_state.json appeared) takes over the event files inside
        it that were followed on their own."""
        new = [t for t in self._found() if t.path not in self.known]
        dropped = [old for t in new for old in self.known.values() if t.path in old.path.parents]
        for old in dropped:
            self.known.pop(old.path, None)
        for t in new:
            self.known[t.path] = t
        return new, dropped

    def _found(self) -> Iterator[Target]:
        for root in self.roots:
            kind = file_kind(root)
            if kind == "dir":
                yield from self._folder(root)
            elif kind == "file":
                t = self._file(root)
                if t is not None:
                    yield t

    def _folder(self, root: Path) -> Iterator[Target]:
        for dirpath, dirnames, filenames in os.walk(root):
            folder = Path(dirpath)
            dirnames[:] = sorted(d for d in dirnames if _followed_dir(folder / d))
            target = self._run_folder(folder)
            if target is not None:
                dirnames[:] = []
                yield target
                continue
            for name in sorted(filenames):
                if "events.out.tfevents" in name:
                    continue  # a folder of event files is followed as a folder (above)
                t = self._file(folder / name)
                if t is not None:
                    yield t

    def _run_folder(self, folder: Path) -> Target | None:
        """A folder doctor judges as one run: a run group, or a folder of event files."""
        known = self.known.get(folder)
        if known is not None:
            return known
        group = _group(folder, self.options)
        if group is not None:
            return Target(folder, "group", group.convention, Reread(folder, group.convention, self._read_group))
        found = run_layout(folder)
        if found is None or part_of_parent_run(folder):
            return None
        folder_reader = reader_named("tfevents-folder")
        assert folder_reader is not None
        return Target(folder, "events", "tfevents", open_stream(folder, folder_reader, self.options.read))

    def _read_group(self, folder: Path) -> Run:
        group = _group(folder, self.options)
        if group is None:
            raise ReadError("no longer a run folder")
        return read_group(group, self.options.read)

    def _file(self, path: Path) -> Target | None:
        known = self.known.get(path)
        if known is not None:
            return known
        if file_kind(path) != "file":
            return None  # pseudo-files, devices, FIFOs and sockets are never read
        try:
            size = path.stat().st_size
        except OSError:
            return None
        if size == 0 or self.unclaimed.get(path) == size or self.unclaimed.get(path, 0) > RESNIFF_UP_TO:
            return None
        reader = sniff(path, self.options.read)
        if reader is None:
            self.unclaimed[path] = size
            return None
        return Target(path, "file", reader.name, open_stream(path, reader, self.options.read))


def _followed_dir(path: Path) -> bool:
    """Copies inside ``checkpoint-*`` folders are snapshots, not growing logs; hidden folders and
    those a folder scan leaves alone (tools, caches, virtual environments, installed packages)
    hold no runs."""
    name = path.name
    return not name.startswith((".", "checkpoint-")) and left_alone(path, is_dir=True) is None
