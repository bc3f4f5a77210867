"""JSON-lines metric logs: one JSON object per line.

Banner lines, bare numbers and other non-object lines are counted and
reported, never fatal. A line that starts like an object but does not parse
is a damaged record and reported as such.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..model import Run
from ..options import ReadOptions
from ..roles import role_of
from ..safeio import add_damage, read_text
from .base import Columns, ReadError, first_json_object, note_skipped, read_head, reader
from .numpy_file import says_loss
from .stream import LineStream

STEP_KEYS = (
    "step",
    "global_step",
    "_step",
    "iter",
    "iteration",
    "trainer/global_step",
    "train/global_step",
    "Step",
    "current_steps",
    "num_steps",
)


def _metric_like(obj: dict[str, Any], nested: bool = False) -> bool:
    return any(
        ("loss" in k.lower() or role_of(k) in ("loss", "eval_loss", "learning_rate", "grad_norm"))
        and type(v) in (int, float, str)
        for k, v in (flat(obj) if nested else obj).items()
    )


# Files named as JSON lines: one whose lines nest their losses (``{"train": {"loss": ..}}``) is
# claimed; a console log of such lines (``train.log``) is the console reader's, as it was.
_JSONL_SUFFIXES = frozenset((".jsonl", ".ndjson", ".json"))


def _lines_file(path: Path, head: bytes) -> bool:
    """A file named as JSON data whose head holds two object lines or more (a one-line config is
    none), or a file of any name whose head's lines are all objects (:func:`_only_objects`)."""
    lines = head.splitlines()[:20]
    objects = sum(1 for line in lines if line.lstrip().startswith(b"{"))
    return objects >= 2 and (path.suffix.lower() in _JSONL_SUFFIXES or _only_objects(lines))


def _only_objects(lines: list[bytes]) -> bool:
    """Every non-blank line of the head (its last, perhaps cut, left out) an object: a structured
    logger's file named ``train.log`` (``{"ts": .., "msg": "policy_update", "metrics": {"loss": ..}}``,
    555-zlq/Airsim-Simulation) is JSON lines, not a console log with some JSON among its text."""
    whole = [line.strip() for line in lines[:-1] if line.strip()]
    return len(whole) >= 2 and all(line.startswith(b"{") and line.endswith(b"}") for line in whole)


_SNIFF_OBJECTS = 20  # object lines of the head looked at for a metric


def _head_objects(head: bytes) -> list[dict[str, Any]]:
    """The head's first object lines, parsed: a log that opens with an event record
    (``{"msg": "episode_start"}``) carries its metrics on the lines after it."""
    out: list[dict[str, Any]] = []
    for line in head.splitlines()[:_SNIFF_OBJECTS]:
        line = line.strip()
        if line.startswith(b"{") and line.endswith(b"}"):
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):  # as _parse: a line nested past the parser's depth is none
                continue
            if isinstance(obj, dict):
                out.append(obj)
    return out


NO_STEP = "no step field; steps are record numbers"  # the note of a run read by its records' order


def stepless(run: Run) -> None:
    """Mark ``run`` as read by its records' order (no step field): its note, and ``steps_are`` in
    its meta, the flag :func:`appended_runs` and the CSV reader's tables go by."""
    run.notes.append(NO_STEP)
    run.meta["steps_are"] = "rows"


FLAT_DEPTH = 2  # levels of a line's nested dicts read as names joined by "/" (as a JSON history's)


def flat(obj: dict[str, Any], prefix: str = "", depth: int = 0) -> dict[str, Any]:
    """An object with its nested dicts' fields named ``outer/inner``: a line that nests its
    splits (``{"epoch": 1, "train": {"loss": ..}, "val": {"loss": ..}}``) gives ``train/loss``."""
    if prefix == "" and not any(type(v) is dict for v in obj.values()):
        return obj
    out: dict[str, Any] = {}
    for key, value in obj.items():
        if type(value) is dict and depth < FLAT_DEPTH:
            out.update(flat(value, f"{prefix}{key}/", depth + 1))
        else:
            out[f"{prefix}{key}"] = value
    return out


@reader("jsonl", priority=40)
class JsonlReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        obj = first_json_object(head)
        if obj is None:
            return False
        nested = _lines_file(path, head)
        if _metric_like(obj, nested):
            return True
        return nested and any(_metric_like(o, nested) for o in _head_objects(head)[1:])

    def stream(self, path: Path, options: ReadOptions) -> JsonlStream:
        return JsonlStream(path)

    def read(self, path: Path) -> Run:
        run = _bulk(path)
        if run is not None:
            return appended_runs(run)
        bounded = read_text(path)  # long lines cut out and reported
        text, notes = bounded.text, bounded.notes
        run = Run(source=str(path), format="jsonl", files=[str(path)], notes=notes)
        add_damage(run, bounded)
        fast = _Template.whole_file(text)
        if fast is None:
            cols = _general(text, run)
        else:
            cols, step_key = fast
            if step_key is None:
                stepless(run)
        said = len(run.notes)
        cols.into(run)
        if not run.series:
            del run.notes[said:]  # what it said of the text values: read again as numbers
            if not _quoted_numbers(text, run):
                raise ReadError("no numeric metrics in the JSON object lines")
        elif not any(says_loss(name) for name in run.series):
            _quoted_losses(text, run)
        return appended_runs(run)


class JsonlStream(LineStream):
    """JSON lines as they are appended, parsed as the reader's general path parses them; the step
    field is chosen from the first lines that hold objects, as the reader chooses it, and appended
    runs are found as the reader finds them (:class:`Restarts`)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, "jsonl")
        self.restart()

    def restart(self) -> None:
        super().restart()
        self.step_key: str | None = None
        self.count, self.decided = 0, False
        self.restarts = Restarts()

    def lines(self, lines: list[str], first_no: int, frag: Run) -> None:
        idx, _ = _classify(lines)
        if not idx:
            return
        if not self.decided:
            self.step_key, self.decided = _step_key(lines, idx), True
        cols = Columns()
        for c0 in range(0, len(idx), CHUNK):
            chunk_idx = idx[c0 : c0 + CHUNK]
            numbers = [first_no - 1 + i for i in chunk_idx]
            _slow_chunk([lines[i] for i in chunk_idx], numbers, cols, self.step_key, self.count + c0)
        self.count += len(idx)
        cols.into(frag)
        if self.step_key is None:
            frag.meta["steps_are"] = "rows"  # as the reader's stepless() marks the whole file
            self.restarts.apply(frag)


def _bulk(path: Path) -> Run | None:
    """The fast path (msgspec, in blocks) for a file of flat numeric objects, one per line;
    None for any other file."""
    from ._fastjson import BOM, jsonl_table

    head = read_head(path, 1 << 16)
    lines = head.decode("utf-8", errors="replace").lstrip("\ufeff").split("\n")[:-1][:256]
    try:
        objs = [json.loads(line) for line in lines]
    except ValueError:
        return None
    if not objs or not all(type(o) is dict for o in objs):
        return None
    got = jsonl_table(path, list(dict.fromkeys(k for o in objs for k in o)))
    if got is None:
        return None
    table, count = got
    step_key = commonest_step_key(objs[:100])
    run = Run(
        source=str(path),
        format="jsonl",
        files=[str(path)],
        notes=["stripped a UTF-8 byte-order mark"] if head.startswith(BOM) else [],
    )
    steps = table.get(step_key) if step_key else None
    if steps is None:
        steps = np.arange(count, dtype=np.float64)
    elif np.isnan(steps).any():  # null or absent: the record number
        steps = np.where(np.isnan(steps), np.arange(count, dtype=np.float64), steps)
    if step_key is None:
        stepless(run)
    seen = dict.fromkeys(k for o in objs for k in o)
    cols = Columns()
    for key in [k for k in seen if k in table] + sorted(table.keys() - seen.keys()):
        if key != step_key:
            values = table.pop(key)
            keep = ~np.isnan(values)
            cols.add_array(key, *((steps, values) if keep.all() else (steps[keep], values[keep])))
    cols.into(run)
    if not run.series:
        raise ReadError("no numeric metrics in the JSON object lines")
    return run


def _general(text: str, run: Run) -> Columns:
    """Any JSONL: classify lines, parse objects chunk by chunk, report what was skipped."""
    lines = text.split("\n")
    idx, other = _classify(lines)
    if not idx:
        raise ReadError("no JSON object lines found")
    cols, broken = Columns(), []
    step_key = _step_key(lines, idx)
    if step_key is None:
        stepless(run)
    for c0 in range(0, len(idx), CHUNK):
        chunk_idx = idx[c0 : c0 + CHUNK]
        broken += _slow_chunk([lines[i] for i in chunk_idx], chunk_idx, cols, step_key, c0)
    note_skipped(run, "non-object line(s)", other)
    note_skipped(run, "unparseable JSON line(s)", broken, damage=True)
    return cols


# A number a script wrote as a string (``json.dumps({"loss": f"{loss:.4f}"})``): read only where
# the lines hold no number at all, so an id or a label written as a string stays text elsewhere.
_QUOTED_NUMBER = re.compile(r"^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$")


# Where the lines hold numbers but no loss among them, a loss written as a string is read all the
# same (openai/glow and its copies: ``{"epoch": 1, "n_images": 50048, "loss": "3.8869"}``,
# Donmiao/glow logs/train.txt); ``only`` keeps that to the names that say loss.
def _quoted_numbers(text: str, run: Run, only: Callable[[str], bool] = lambda name: True) -> bool:
    """Object lines whose values are strings: those that are decimal numbers (of the names ``only``
    keeps) read as numbers (a note says so); whether any series came of it."""
    lines = text.split("\n")
    idx, _ = _classify(lines)
    step_key = _step_key(lines, idx)
    cols, before = Columns(), len(run.series)
    for n, i in enumerate(idx):
        try:
            obj = json.loads(lines[i])
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        values = {k: float(v) for k, v in obj.items() if isinstance(v, str) and _QUOTED_NUMBER.match(v) and only(k)}
        given = obj.get(step_key) if step_key else None
        if isinstance(given, (int, float)) and not isinstance(given, bool):
            step: float = given
        else:
            step = values.pop(step_key, n) if step_key else n
        for key, value in values.items():
            cols.add(step, key, value, i + 1, None)
    cols.into(run)
    if len(run.series) > before:
        run.notes.append('the values are written as strings ("loss": "9.5"): read as the numbers they spell')
    return len(run.series) > before


def _quoted_losses(text: str, run: Run) -> None:
    """Losses written as strings among numbers read as numbers; the notes that called them text go."""
    numeric = set(run.series)
    if _quoted_numbers(text, run, only=says_loss):
        read = tuple(f"{name}: " for name in set(run.series) - numeric)
        run.notes[:] = [n for n in run.notes if not (n.startswith(read) and "(text)" in n)]


CHUNK = 65536
TEXT_CHUNK = 8 << 20
_NUM = r"(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)"
_VALUE = re.compile(r":\s*(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)(?=\s*[,}])")
_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_./\- ]{1,100}$")


def _classify(lines: list[str]) -> tuple[list[int], list[int]]:
    """Indexes of object lines; 1-based numbers of other non-blank lines."""
    idx, other = [], []
    for i, line in enumerate(lines):
        if line[:1] == "{":
            idx.append(i)
        elif line.strip():
            (idx.append(i) if line.lstrip()[:1] == "{" else other.append(i + 1))
    return idx, other


def _step_key(lines: list[str], idx: list[int]) -> str | None:
    objs = []
    for i in idx[:100]:
        try:
            obj = json.loads(lines[i])
        except (ValueError, RecursionError):  # a line nested past the parser's depth is no record to count
            continue
        if isinstance(obj, dict):
            objs.append(obj)
    return commonest_step_key(objs)


def commonest_step_key(objs: list[Any]) -> str | None:
    """The step key most of the head's records carry (ties: :data:`STEP_KEYS`' order), not the first
    record's: a run's config record opening the file holds ``num_steps``, the run's length, where
    every record after it holds ``step`` (bmtlima/On-Policy-Distillation's train_log.jsonl:
    ``{"event": "config", ..., "num_steps": 51}``, then ``{"event": "step", "step": 0, ...}``)."""
    counts = {k: sum(1 for o in objs if isinstance(o, dict) and k in o) for k in STEP_KEYS}
    best = max(counts.values(), default=0)
    return next((k for k in STEP_KEYS if counts[k] == best), None) if best else None


class _Template:
    """Bulk path for the common case: flat objects with the same numeric keys in the
    same order on every line. Only lines that match the template exactly take it;
    a chunk with any other line (or a value that overflows) takes the general path."""

    def __init__(self, keys: list[str], pattern: re.Pattern[str]) -> None:
        self.keys, self.pattern = keys, pattern

    @classmethod
    def of(cls, line: str) -> _Template | None:
        try:
            obj = json.loads(line)
        except ValueError:
            return None
        if (
            not isinstance(obj, dict)
            or not obj
            or len(obj) > 64
            or any(type(v) not in (int, float) or not _PLAIN_KEY.match(k) for k, v in obj.items())
        ):
            return None
        # The first line itself, with each value replaced by a number group: separators and
        # spacing are taken literally, so matching needs no backtracking.
        line = line.rstrip("\r")
        body, pos, found = "", 0, 0
        for m in _VALUE.finditer(line):
            body += re.escape(line[pos : m.start(1)]) + _NUM
            pos, found = m.end(1), found + 1
        if found != len(obj):
            return None
        body += re.escape(line[pos:])
        return cls(list(obj), re.compile("^" + body + "\r?$", re.M))

    @classmethod
    def whole_file(cls, text: str) -> tuple[Columns, str | None] | None:
        """(columns, step key) for a file whose every line matches its first line's template."""
        first = text[: text.find("\n")] if "\n" in text else text
        fast = cls.of(first)
        if fast is None:
            return None
        step_key = next((k for k in STEP_KEYS if k in fast.keys), None)
        cols, count, pos = Columns(), 0, 0
        while pos < len(text):
            end = text.find("\n", pos + TEXT_CHUNK)
            end = len(text) if end < 0 else end + 1
            block = text[pos:end]
            rows = fast.pattern.findall(block)
            if len(rows) != block.count("\n") + (not block.endswith("\n")):
                return None  # some line is not of the template: the general path decides
            if rows and not fast._add(rows, cols, step_key, count):
                return None
            count, pos = count + len(rows), end
        return cols, step_key

    def _add(self, rows: list[Any], cols: Columns, step_key: str | None, count: int) -> bool:
        k = len(self.keys)
        flat = rows if k == 1 else itertools.chain.from_iterable(rows)
        arr = np.fromiter(map(float, flat), np.float64, len(rows) * k).reshape(len(rows), k)
        if not np.isfinite(arr).all():
            return False  # an overflowing literal: let the general path report it
        if step_key is not None:
            steps = arr[:, self.keys.index(step_key)]
        else:
            steps = np.arange(count, count + len(rows), dtype=np.float64)
        for j, key in enumerate(self.keys):
            if key != step_key:
                cols.add_array(key, steps, arr[:, j])
        return True


def _slow_chunk(chunk: list[str], chunk_idx: list[int], cols: Columns, step_key: str | None, count: int) -> list[int]:
    """Parse a chunk object by object; returns the 1-based numbers of broken lines."""
    objects, broken = _parse(chunk, chunk_idx)
    records, steps, where = [], [], []
    for n, (line_no, obj) in enumerate(objects):
        step = obj.get(step_key) if step_key else None
        records.append(flat(obj))
        steps.append(step if type(step) in (int, float) else count + n)
        where.append(line_no)
    cols.add_records(records, steps, where, skip={step_key} if step_key else frozenset())
    return broken


def _parse(chunk: list[str], chunk_idx: list[int]) -> tuple[list[tuple[int, dict[str, Any]]], list[int]]:
    try:  # one C-level parse of the whole chunk
        parsed = json.loads("[" + ",".join(chunk) + "]")
        if all(type(o) is dict for o in parsed):
            return [(i + 1, o) for i, o in zip(chunk_idx, parsed)], []
    except (ValueError, RecursionError):
        pass
    objects, broken = [], []
    for i, line in zip(chunk_idx, chunk):
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            broken.append(i + 1)
            continue
        (objects.append((i + 1, obj)) if type(obj) is dict else broken.append(i + 1))
    return objects, broken


class Restarts:
    """Runs appended to one file (the script run again in append mode, a sweep) whose lines have no
    step field but an epoch: a record whose epoch goes back below the one before, to the file's first
    epoch or below, two records or more after the last run's start, starts a new run. The steps become the records counted from each run's start, so
    that the engine judges each run as its own segment, as the console reader's restarts are. Kept
    per file and fed in record order, whole or a fragment at a time: the whole-file read and the
    live stream find the same restarts (the test needs only the first and the previous epoch)."""

    def __init__(self) -> None:
        self.first: float | None = None  # the file's first finite epoch
        self.last: float | None = None  # the previous record's finite epoch
        self.starts: list[float] = [0.0]  # the record numbers where runs start
        self.name = "epoch"

    def apply(self, run: Run) -> bool:
        """Shift ``run``'s record-number steps to count from each run's start; True if any restart
        has been seen so far."""
        epoch = next((s for name, s in run.series.items() if name.lower() in ("epoch", "epochs")), None)
        if epoch is not None:
            self.name = epoch.name
            self._scan(epoch.steps, epoch.values)
        if len(self.starts) == 1:
            return False
        starts = np.asarray(self.starts)
        for s in run.series.values():
            s.steps = s.steps - starts[np.searchsorted(starts, s.steps, side="right") - 1]
        return True

    def _scan(self, records: np.ndarray, values: np.ndarray) -> None:
        keep = np.isfinite(values)
        records, values = records[keep], values[keep]
        if not len(values):
            return
        if self.first is None:
            self.first = float(values[0])
        before = np.concatenate(([values[0] if self.last is None else self.last], values[:-1]))
        for r in records[(values < before) & (values <= self.first)]:
            if r - self.starts[-1] >= 2:  # a run of one record is a stray line, not a run
                self.starts.append(float(r))
        self.last = float(values[-1])

    def note(self) -> str:
        where = ", ".join(f"{r:g}" for r in self.starts[1:6])
        return (
            f"no step field; the {self.name} goes back to its start at record(s) {where}: {len(self.starts)} runs "
            "appended to the file, each judged on its own; steps are the records counted from each run's start"
        )


def appended_runs(run: Run) -> Run:
    """The whole-file read of :class:`Restarts`."""
    if run.meta.get("steps_are") != "rows":
        return run
    restarts = Restarts()
    if restarts.apply(run) and NO_STEP in run.notes:
        run.notes[run.notes.index(NO_STEP)] = restarts.note()
    return run
