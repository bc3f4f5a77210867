"""Coqui TTS trainer text log (``trainer_0_log.txt``).

Training blocks start with ``--> TIME: ... -- STEP: s/n -- GLOBAL_STEP: g`` and list
``| > name: value  (running average)``; evaluation blocks (``> EVALUATION`` /
``--> EVAL PERFORMANCE``) list ``| > avg_name: value (+delta)``. Their average
losses become the eval series (``avg_loss`` -> ``eval_loss``). ``> BEST MODEL :
.../best_model_N.pth`` and ``> CHECKPOINT : .../checkpoint_N.pth`` lines go into
run.meta (best_step, checkpoints, last_checkpoint_step). ANSI colours are stripped.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

from ..model import Run
from ..safeio import add_damage, read_text
from .base import Columns, ReadError, looks_binary, reader
from .console.crash import find_crashes
from .console.text import NUM, split_lines, strip_ansi

_EPOCH = re.compile(r"^\s*> EPOCH: (\d+)/(\d+)")
_STEP = re.compile(r"--> (?:TIME: (\S+ \S+) -- )?STEP: (\d+)/(\d+) -- GLOBAL_STEP: (\d+)")
_VALUE = re.compile(r"^\s*\| > ([\w./-]+):\s*(?:tensor\()?(%s)" % NUM)
_SAVED = re.compile(r"^\s*> (BEST MODEL|CHECKPOINT) : .*?(\d+)\.pth\s*$")
_SNIFF = re.compile(rb"GLOBAL_STEP: \d+|> EPOCH: \d+/\d+|> Training Environment:|> EVALUATION")


@reader("coqui", priority=30)
class CoquiReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        if looks_binary(head):
            return False
        return len(set(m.group(0)[:6] for m in _SNIFF.finditer(head))) >= 2 or (
            path.name.startswith("trainer_") and path.name.endswith("_log.txt") and bool(_SNIFF.search(head))
        )

    def read(self, path: Path) -> Run:
        bounded = read_text(path)  # long lines cut out and reported
        text, notes = bounded.text, bounded.notes
        run = Run(source=str(path), format="coqui", files=[str(path)], notes=notes)
        add_damage(run, bounded)
        text = strip_ansi(text)
        last_line = _parse(text, run)
        if not run.series:
            raise ReadError("no Coqui training or evaluation blocks found")
        run.events = find_crashes(split_lines(text), last_line, text)
        run.meta["crash_scanned"] = True
        return run


class _State:
    def __init__(self) -> None:
        self.cols = Columns()
        self.mode = ""  # "train" or "eval"
        self.step = 0.0  # global step of the current training block
        self.offset = 0.0  # global step at the start of the current epoch
        self.epoch_len = 0.0
        self.trained = False  # a training block was seen in this epoch
        self.wall: float | None = None
        self.last_line = 0


def _parse(text: str, run: Run) -> int:
    st = _State()
    saved: dict[str, list[int]] = {"BEST MODEL": [], "CHECKPOINT": []}
    for no, line in enumerate(text.splitlines(), 1):
        if "| >" in line:
            _value(st, line, no)
        elif "STEP:" in line:
            _train_block(st, line, run)
        elif "> EPOCH:" in line:
            m = _EPOCH.match(line)
            if m:
                run.meta["planned_epochs"], run.meta["last_epoch"] = int(m[2]), int(m[1])
                st.trained, st.mode = False, ""
        elif "> EVALUATION" in line:
            st.mode = "eval"
        elif "> BEST MODEL" in line or "> CHECKPOINT" in line:
            m = _SAVED.match(line)
            if m:
                saved[m[1]].append(int(m[2]))
    st.cols.into(run)
    _meta(run, st, saved)
    return st.last_line


def _train_block(st: _State, line: str, run: Run) -> None:
    m = _STEP.search(line)
    if m is None:
        return
    st.mode, st.trained = "train", True
    st.step, st.epoch_len = float(m[4]), float(m[3])
    st.offset = st.step - float(m[2])
    st.wall = _time(m[1]) if m[1] else None


def _value(st: _State, line: str, no: int) -> None:
    m = _VALUE.match(line)
    if m is None or not st.mode:
        return
    name, value = m[1], float(m[2])
    if st.mode == "train":
        st.cols.add(st.step, name, value, no, st.wall)
        st.last_line = no
        return
    step = st.offset + st.epoch_len if st.trained else st.step
    name = name[4:] if name.startswith("avg_") else name
    st.cols.add(step, "eval_" + name, value, no)


def _time(text: str) -> float | None:
    try:
        return datetime.fromisoformat(text).replace(tzinfo=timezone.utc).timestamp()
    except ValueError:
        return None


def _meta(run: Run, st: _State, saved: dict[str, list[int]]) -> None:
    best, ckpts = saved["BEST MODEL"], sorted(set(saved["CHECKPOINT"]))
    if best:
        run.meta["best_step"] = best[-1]
        run.meta["best_steps"] = best
    if ckpts:
        run.meta["checkpoints"] = ckpts
        run.meta["last_checkpoint_step"] = ckpts[-1]
    if best or ckpts:
        run.notes.append(
            f"trainer bookkeeping: best model at step {best[-1] if best else 'none recorded'}, "
            + (f"last checkpoint at step {ckpts[-1]}" if ckpts else "no checkpoint")
            + f", log ends at step {st.step:.0f}"
        )
    if st.epoch_len:
        run.meta["steps_per_epoch"] = int(st.epoch_len)
    run.meta["last_step"] = st.step
    planned, last = run.meta.get("planned_epochs"), run.meta.get("last_epoch")
    if planned is not None and last == planned - 1 and st.mode == "eval":
        run.meta["completed"] = True
    if st.cols.has_wall("loss"):
        run.notes.append("wall time from the TIME stamp of each training block (local time of the machine)")
