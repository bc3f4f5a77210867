"""Recognisers that need more than one line: progress bars that redraw, and
printed records whose step is shown by the bar drawn after them.

- Keras ``fit()``: ``Epoch k/N`` headers; the per-epoch values come from the
  epoch-final redraw (``n/n``), never from the running averages drawn mid-epoch.
- Lightning's TQDM bar: ``Epoch 3: 100%|...| 75/75 [..., train_loss=0.42, val_loss=0.51]``;
  one point per epoch, from the last redraw at 100%.
- Hugging Face Trainer: the printed dicts (``{'loss': ..., 'epoch': ...}``); the
  step is the count on the main bar redrawn right after the dict.
- Ultralytics YOLO: the ``Epoch GPU_mem box_loss ...`` table and the ``all`` validation row.
- Any tqdm bar whose postfix carries a loss (``pbar.set_postfix(loss=...)``): a generic shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..hf_trainer_state import is_summary_entry
from .patterns import parse_kv
from .text import NUM, Capture, Line, lazy_regex

# ---------------------------------------------------------------- Keras

_KERAS_HEADER = lazy_regex(r"^\s*Epoch (\d+)/(\d+)\s*$")
_KERAS_PROGRESS = lazy_regex(r"^\s*(\d+)/(\d+)\b(.*)$")
_KERAS_METRIC = lazy_regex(r"\s-\s([A-Za-z_][\w./]*):\s+(%s)(?=\s|$)" % NUM)
_KERAS_STOP = lazy_regex(r"^\s*Epoch (\d+): early stopping")
# Keras 2 verbose=2 prints no bar, only the epoch's time: " - 12s - loss: ..." (2.0: "67s - loss: ...")
_KERAS_V2 = lazy_regex(r"^\s*(?:-\s+)?\d+(?:\.\d+)?m?s\b(?:\s+\d+(?:\.\d+)?[mu]?s/step)?(\s-\s.*)$")


# A bar's redraw before its epoch ends: (line, epoch, count, total, metrics text). Read where the
# epochs are too few to make a curve (see ``_keras_per_step``).
_Redraw = tuple[int, int, int, int, str]


def keras(lines: list[Line]) -> Capture | None:
    cap = Capture("keras")
    epoch = planned = shown = None
    final: tuple[int, str] | None = None  # (line, text) of the epoch-final redraw seen so far
    done: list[int] = []
    drawn: list[_Redraw] = []
    opened = 0  # where the open epoch's redraws begin in ``drawn``

    def close() -> None:
        if epoch is not None and final is not None:
            for name, value in _KERAS_METRIC.findall(final[1]):
                cap.add(name, float(epoch), float(value))
            cap.lines.append(final[0])
            done.append(epoch)

    start: int | None = None  # the known run (Line.run) of the open epoch's header; None: no epoch open
    for line in lines:
        head = _KERAS_HEADER.match(line.final)
        if head:
            close()
            epoch = _fit_epoch(int(head[1]), int(head[2]), planned, done)
            shown, planned, final, start, opened = int(head[1]), int(head[2]), None, line.run, len(drawn)
            continue
        if start is not None and line.run != start:  # a later notebook cell: its bar is
            close()  # model.evaluate()'s or predict()'s, not the epoch's
            final = start = None
        if epoch is None or start is None:
            continue
        stop = _KERAS_STOP.match(line.final)
        if stop:
            cap.meta.update(completed=True, early_stopped_epoch=int(stop[1]))
        if final is not None and " - val_" in final[1]:
            continue  # the epoch is over: a later bar is model.evaluate(), not this epoch's training
        if final is None and len(done) < _FEW_EPOCHS:  # enough epochs make a curve: no redraw needed
            drawn += _epoch_redraws(line, epoch, drawn[opened : opened + 1], drawn[-1:] if len(drawn) > opened else [])
        for seg in reversed(line.segments):  # the latest redraw on the line is the one that counts
            bar = _KERAS_PROGRESS.match(seg)
            m = bar or _KERAS_V2.match(seg)
            if m:
                if (bar is None or m[1] == m[2]) and _KERAS_METRIC.search(m[m.re.groups]):
                    final = (line.no, seg)
                break
    close()
    if not cap.lines:
        return None
    _keras_plan(cap, epoch, shown, planned, done)
    return _keras_per_step(cap, drawn) or cap


def _keras_plan(cap: Capture, epoch: int | None, shown: int | None, planned: int | None, done: list[int]) -> None:
    """The plan and the end of the fits read: ``epoch`` the last one counted, ``shown`` its header's."""
    counted = epoch != shown  # one-epoch fits in the script's own loop: the plan is the loop's, unknown
    cap.meta.update(steps_are="epochs", planned_epochs=None if counted else planned, last_epoch=epoch)
    if done and done[-1] == planned and not counted:
        cap.meta["completed"] = True
    elif epoch is not None and (not done or done[-1] != epoch):
        cap.notes.append(f"epoch {epoch}/{planned} has no epoch-final line: the log ends inside it")
    if counted:
        cap.notes.append(f"{epoch} fit()s of one epoch each (`Epoch 1/1` before each): read as one loop's epochs")


# A script that calls ``fit(epochs=1)`` in its own loop (to change the learning rate or save between
# epochs) prints ``Epoch 1/1`` before each epoch: its fits are one training's epochs, counted on, not
# relaunches each one epoch long (jain-anshul/segmenting-retina-unet cnn.log: 108 of them, Keras 1's
# ``44s - loss: .. - val_loss: ..`` after each). A fit planned longer that starts again stays as shown.
def _fit_epoch(shown: int, planned: int, planned_before: int | None, done: list[int]) -> int:
    """The epoch a ``Epoch shown/planned`` header opens, after fits planned ``planned_before``."""
    if shown == planned == 1 and planned_before == 1 and done:
        return done[-1] + 1
    return shown


def _epoch_redraws(line: Line, epoch: int, first: list[_Redraw], last: list[_Redraw]) -> list[_Redraw]:
    """The training redraws of the open epoch's bar on ``line`` (``first`` and ``last``: the epoch's
    first and last redraw so far, if any): a bar counting to another total, or drawn after the
    epoch's bar was full, is a later one's (``evaluate()``, ``predict()``)."""
    total = first[0][3] if first else None
    full = bool(last) and last[0][2] == last[0][3]
    out: list[_Redraw] = []
    for seg in line.segments:
        bar = _KERAS_PROGRESS.match(seg)
        if bar is None or not _KERAS_METRIC.search(bar[3]):
            continue
        count, of = int(bar[1]), int(bar[2])
        total = of if total is None else total
        if of != total or full:
            break
        out.append((line.no, epoch, count, of, bar[3]))
        full = count == of
    return out


# A fit() of fewer epochs than a read log holds loss points (ten), its bar redrawn on lines of their
# own, is read at each redraw, as Lightning's bar is (``_per_step``): the running mean Keras draws at
# each batch, at the batches run so far (danielruijs/dd2424-project rnn.log: Keras 3, two epochs of
# 777 batches, every redraw a line). The validation values stay one point an epoch, at its end.
def _keras_per_step(epochs: Capture, drawn: list[_Redraw]) -> Capture | None:
    if _loss_points(epochs) >= _FEW_EPOCHS:
        return None
    cap = Capture(epochs.framework, meta=dict(epochs.meta), notes=list(epochs.notes))
    ends: dict[int, float] = {}  # epoch -> the step its full bar was drawn at
    for line_no, epoch, count, total, text in drawn:
        step = float((epoch - 1) * total + count)
        cap.add_all(step, {k: float(v) for k, v in _KERAS_METRIC.findall(text) if not k.startswith("val_")})
        cap.lines.append(line_no)
        if count == total:
            ends[epoch] = step
    if _loss_points(cap) < _STEP_POINTS or _loss_points(cap) <= _loss_points(epochs):
        return None
    for name, (steps, values) in epochs.cols.items():
        if name.startswith("val_"):
            for at, value in zip(steps, values):
                if int(at) in ends:
                    cap.add(name, ends[int(at)], value)
    cap.lines = sorted(set(cap.lines) | set(epochs.lines))
    cap.meta.update(steps_are="batches", last_epoch_step=ends.get(epochs.meta.get("last_epoch") or 0))
    cap.notes.append(f"{len(epochs.lines)} epoch(s) only: each redraw of the bar read, at the batches run")
    return cap


# ---------------------------------------------------------------- Keras fit() with no epoch header

# Keras 2 and tf.keras 2.0/2.1 print no ``Epoch k/N`` header when fit() runs one epoch: the log holds
# ``Train on N samples`` and then the bar's redraws, each with the running mean of the loss so far,
# the count right-aligned to N's width (NCAR/gecko-ml logs/train.txt: one fit(epochs=1) per model,
# the redraws run together on one line). With no epoch to place a final redraw at, the redraws are
# the curve: one point per redraw at the samples seen, a fit that starts again reading as a restart.
_KERAS_TRAIN_ON = lazy_regex(r"^\s*Train on (\d+) samples\b")


def _keras_frames(seg: str, total: str) -> Iterator[tuple[int, str]]:
    """(count, metrics text) per ``count/total [bar]`` redraw in ``seg``; redraws written one after
    another with nothing between are told apart by the count's fixed width (``total``'s)."""
    mark, width = f"/{total} [", len(total)
    at = [i for i in _find_all(seg, mark) if i >= width and seg[i - width : i].strip().isdecimal()]
    for here, after in zip(at, [*at[1:], len(seg) + width]):
        body = seg[here + len(mark) : after - width]
        close = body.find("]")
        if close >= 0:
            yield int(seg[here - width : here]), body[close + 1 :]


def _find_all(text: str, needle: str) -> Iterator[int]:
    at = text.find(needle)
    while at >= 0:
        yield at
        at = text.find(needle, at + len(needle))


def keras_unheaded(lines: list[Line]) -> Capture | None:
    """The redraws of a Keras bar that follows ``Train on N samples`` in a log with no epoch header."""
    if any(_KERAS_HEADER.match(line.final) for line in lines):
        return None  # fit() ran epochs: keras() reads their final redraws
    cap = Capture("keras")
    total: str | None = None  # N of the fit under way; None once its bar is full (evaluate()'s come later)
    for line in lines:
        for seg in line.segments:
            train_on = _KERAS_TRAIN_ON.match(seg)
            if train_on:
                total = train_on[1]
            elif total is not None and f"/{total} [" in seg:
                for count, text in _keras_frames(seg, total):
                    for name, value in _KERAS_METRIC.findall(text):
                        cap.add(name, float(count), float(value))
                    if count == int(total):
                        total = None  # the bar is full: one drawn later is evaluate()'s
                        break
                if not cap.lines or cap.lines[-1] != line.no:
                    cap.lines.append(line.no)
    if not cap.cols:
        return None
    cap.notes.append(
        "Keras bar with no epoch header (fit of one epoch): each redraw's running mean read, at the samples seen"
    )
    return cap


# ---------------------------------------------------------------- Lightning (TQDM and Rich bars)

_LIT_BAR = lazy_regex(r"^\s*Epoch (\d+):\s+\d+%\|[^|]*\|\s*(\d+)/(\d+|\?)\s*\[([^\]]*)\]?")
_LIT_RICH = lazy_regex(r"^\s*Epoch (\d+)/(\d+)\s+[━╸╺╾╼\s]*(\d+)/(\d+|\?)\s+(.*)$")
_LIT_STOP = lazy_regex(r"`Trainer\.fit` stopped: `(max_epochs|max_steps)=(\d+)` reached")
_VAL_PREFIX = ("val", "valid", "eval", "test")


# A pair a script wrote itself after the bar's rate (``set_postfix_str(f"loss:{x}")``): Lightning's
# TQDM bar writes its metrics as tqdm writes a postfix dict, ``loss=0.52, v_num=0``, never so.
_OWN_POSTFIX = lazy_regex(r"(?<![\w.])[A-Za-z_][\w ]*:\s*[-+]?\.?\d")


def _tqdm_renders(lines: list[Line]) -> Iterator[tuple[int, str, str, str, str]]:
    """(line, epoch, n, total, metrics text) per TQDM redraw; epoch "" for a validation bar. A bar
    described ``Epoch N`` whose postfix the script wrote itself (``name:value`` pairs, no ``=``)
    is a hand-written loop's, not Lightning's: left to the tqdm postfix recogniser."""
    for line in lines:
        for seg in line.segments:
            if seg.lstrip().startswith("Validation"):
                yield line.no, "", "", "", ""
                continue
            m = _LIT_BAR.match(seg)
            if m and ("=" in (m[4] or "") or _OWN_POSTFIX.search(m[4] or "") is None):
                yield line.no, m[1], m[2], m[3], m[4] or ""


def _rich_renders(lines: list[Line]) -> Iterator[tuple[int, str, str, str, str]]:
    """The same for Rich bars, whose metrics wrap onto the following indented lines."""
    cur: list[object] | None = None
    for line in lines:
        for seg in line.segments:
            m = _LIT_RICH.match(seg)
            if m or seg.lstrip().startswith(("Validation", "Epoch")) or not seg.startswith("  "):
                if cur is not None:
                    yield tuple(cur)  # type: ignore[misc]
                    cur = None
                if seg.lstrip().startswith("Validation"):
                    yield line.no, "", "", "", ""
                elif m:
                    cur = [line.no, m[1], m[3], m[4], m[5]]
            elif cur is not None:
                cur[4] = f"{cur[4]} {seg.strip()}"
    if cur is not None:
        yield tuple(cur)  # type: ignore[misc]


def lightning(lines: list[Line]) -> Capture | None:
    cap = None
    for name, renders in (("lightning", _tqdm_renders), ("lightning-rich", _rich_renders)):
        drawn = list(renders(lines))
        cap = _epoch_finals(Capture(name), drawn)
        if cap.lines:
            cap = _per_step(cap, drawn) or cap
            break
    if cap is None or not cap.lines:
        return None
    for line in lines:
        stop = _LIT_STOP.search(line.final)
        if stop:
            cap.meta["completed"] = True
            cap.meta["planned_epochs" if stop[1] == "max_epochs" else "max_steps"] = int(stop[2])
    return cap


def _epoch_finals(cap: Capture, renders: Iterable[tuple[int, str, str, str, str]]) -> Capture:
    """One point per epoch from its last complete redraw, at the global step the epoch ended on.

    Validation values change only when validation runs: one that changed between an epoch's
    last redraw and the next epoch's first (Rich draws the epoch's bar before its validation
    ends) belongs to the epoch that just ended.
    """
    cur, final, val_seen = None, None, False
    last_vals: dict[str, float] = {}

    def close(next_text: str) -> None:
        if final is None:
            return
        line_no, epoch, n, text = final
        step = (int(epoch) + 1) * float(n)  # the global step at the end of the epoch
        vals = parse_kv(text, "any")
        fresh = set()  # validation values that changed between this epoch's bar and the next one's
        for name, value in parse_kv(next_text, "any").items():
            if name.lower().startswith(_VAL_PREFIX) and vals.get(name) != value:
                vals[name] = value
                fresh.add(name)
        for name, value in vals.items():
            if name == "v_num":
                continue
            if (
                name.lower().startswith(_VAL_PREFIX)
                and not (val_seen or name in fresh)
                and last_vals.get(name) == value
            ):
                continue  # a validation value carried over from an earlier epoch
            cap.add(name, step, value)
            last_vals[name] = value
        cap.add("epoch", step, float(epoch))
        cap.lines.append(line_no)

    for line_no, epoch, n, total, text in renders:
        if not epoch:
            val_seen = val_seen or final is not None
            continue
        if epoch != cur:
            close(text)
            cur, final, val_seen = epoch, None, False
        if total != "?" and n == total:
            final = (line_no, epoch, n, text)
    close("")
    if cur is not None:
        cap.meta["last_epoch"] = int(cur)
    return cap


# A run of fewer epochs than a read log holds loss points (issue 29: ten) is read at each step its bar
# was drawn at, where the bar shows a training value of each step and the redraws give at least the
# points the trend rules need (``engine.TREND_POINTS``).
_FEW_EPOCHS = 10
_STEP_POINTS = 20


def _per_step(epochs: Capture, renders: list[tuple[int, str, str, str, str]]) -> Capture | None:
    """The run read at each step its bar was drawn at, where the epoch-final redraws give fewer
    than ten loss points and the redraws at least twenty (hanv14/HP-VADE: one epoch of 4282
    steps, ``train_loss`` at each). A training value that changes inside an epoch is a
    step's (``train_loss``, ``train_loss_step``, ``loss``); the others (validation values,
    ``*_epoch`` aggregates, a value set once an epoch) stay one point an epoch. None where the
    epoch-final reading stands."""
    if _loss_points(epochs) >= _FEW_EPOCHS:
        return None
    rows, lines, moved = _step_rows(renders)
    if not any("loss" in name.lower() for name in moved):
        return None
    cap = Capture(epochs.framework, meta=dict(epochs.meta), notes=list(epochs.notes))
    for step, vals in sorted(rows.items()):
        cap.add_all(step, {k: v for k, v in vals.items() if k in moved})
    if _loss_points(cap) < _STEP_POINTS or _loss_points(cap) <= _loss_points(epochs):
        return None
    for name, (steps, values) in epochs.cols.items():
        if name not in moved:
            cap.cols[name] = (steps, values)
    cap.lines = sorted(set(lines) | set(epochs.lines))
    cap.notes.append(f"{len(epochs.lines)} epoch(s) only: read at each step the bar was drawn at")
    return cap


def _step_rows(
    renders: list[tuple[int, str, str, str, str]],
) -> tuple[dict[float, dict[str, float]], list[int], set[str]]:
    """The training values of each redraw by global step (a step drawn twice: its later values),
    the lines they came from, and the names whose value changed inside an epoch. A redraw at
    0/N is no step's (imjaegyun/Traj-LLM: ``Epoch 0: 0%| 0/43`` with epoch 0's last loss)."""
    rows: dict[float, dict[str, float]] = {}
    lines: list[int] = []
    moved: set[str] = set()
    seen: dict[str, tuple[str, str]] = {}  # name -> (epoch, value as written) of its last redraw
    cur, offset, last_n = None, 0, 0
    for line_no, epoch, n, total, text in renders:
        if not epoch or n == "0":  # a bar at 0 has run no step: its postfix is the last epoch's
            continue  # (Lightning redraws the ended epoch's bar at 0/N before renaming it)
        if epoch != cur:
            offset, cur = (offset + last_n if cur is not None else 0), epoch
        last_n = int(n)
        step = float(int(epoch) * int(total) + last_n if total != "?" else offset + last_n)
        vals = {
            k: v
            for k, v in parse_kv(text, "any").items()
            if k != "v_num" and not k.lower().startswith(_VAL_PREFIX) and not k.endswith("_epoch")
        }
        for k, v in vals.items():
            if k in seen and seen[k][0] == epoch and seen[k][1] != repr(v):
                moved.add(k)
            seen[k] = (epoch, repr(v))
        if vals:
            rows.setdefault(step, {}).update(vals)
            lines.append(line_no)
    return rows, lines, moved


def _loss_points(cap: Capture) -> int:
    return max((len(steps) for name, (steps, _) in cap.cols.items() if "loss" in name.lower()), default=0)


# ---------------------------------------------------------------- Hugging Face Trainer dicts

_HF_DICT = lazy_regex(r"^\s*\{'(?:loss|eval_[\w/]+|train_runtime|learning_rate|grad_norm|train_loss)'.*\}\s*$")
_HF_PAIR = lazy_regex(r"'([^']+)':\s*'?(%s)'?(?=\s*[,}])" % NUM)
# A bar, or tqdm's render without one (ncols=0, as notebooks save it: "  2% 3/200 [01:40<1:50:05, 33.53s/it]")
_HF_BAR = lazy_regex(r"^\s*(\d+)%(?:\|[^|]*\||(?= \d))\s*(\d+)/(\d+) \[")
_HF_PLAN = lazy_regex(r"^\s*(Num Epochs|Total optimization steps) = ([\d,]+)\s*$")  # printed at INFO level


def hf_trainer(lines: list[Line]) -> Capture | None:
    """The Trainer's logged dicts, each at the step of the progress bar printed before it. Where
    the bars tell no step apart (stdout buffered while the bars went to stderr: a block of dicts
    printed after all the bars), the bar's write marks place them (:func:`_at_write_marks`), else
    the dicts' own ``epoch``, as without a bar."""
    cap = _hf_pass(lines, bars=True)
    if cap is None:
        return None
    stacked, repeats = cap.meta.pop("stacked", 0), cap.meta.pop("repeats", 0)
    marks = cap.meta.pop("write_marks", [])
    cap.meta.pop("last_at", None)
    # dicts stacked at one bar step, or most of them at a step no later than the dict before (a bar
    # that counts another loop: a data loader's, an evaluation's): the bars do not place them
    if stacked > 2 or (repeats > 2 and repeats >= len(cap.cols.get("loss", ((), ()))[0])):
        return _hf_pass(lines, bars=False, marks=marks)
    return cap


def _hf_pass(lines: list[Line], bars: bool, marks: list[float] | None = None) -> Capture | None:
    cap = Capture("hf-trainer")
    main_total: str | None = None
    pending: list[tuple[int, dict[str, float]]] = []
    step = None
    drawn: str | None = None  # the main bar's last count drawn
    for line in lines:
        for seg in line.segments:
            bar = _HF_BAR.match(seg)
            if bar:
                main_total = main_total or bar[3]
                if bar[3] == main_total:
                    if bar[2] == drawn:  # the same count drawn again: cleared for a write
                        cap.meta.setdefault("write_marks", []).append(float(bar[2]))
                    drawn = bar[2]
                if bars and bar[3] == main_total:
                    step = float(bar[2])
                    _flush(cap, pending, step)
                after = seg[seg.find("]", bar.end()) + 1 :] if "{'" in seg else ""
                if not _HF_DICT.match(after):
                    continue
                seg = after  # the dict printed right after the bar, without a line break: at its step
                if step is not None and bar[3] == main_total:
                    pending.append((line.no, _hf_record(seg)))
                    _flush(cap, pending, step)
                    continue
            if "{'" in seg and not _HF_DICT.match(seg):  # behind a logging frame: "... - INFO - {'loss': ..}"
                seg = seg[seg.find("{'") :]
            if _HF_DICT.match(seg):
                pending.append((line.no, _hf_record(seg)))
            elif "=" in seg and (plan := _HF_PLAN.match(seg)):
                key = "planned_epochs" if plan[1] == "Num Epochs" else "max_steps"
                cap.meta[key] = int(plan[2].replace(",", ""))
    if marks is not None:
        cap.meta.pop("write_marks", None)
        _at_write_marks(cap, pending, marks)
    _flush(cap, pending, step)
    if not cap.lines:
        return None
    if cap.meta.get("steps_are") == "epochs":  # the bars' and the plan's steps are not the dicts' epochs
        cap.meta.pop("max_steps", None)
    elif main_total is not None:
        cap.meta.setdefault("max_steps", int(main_total))
    return cap


def _at_write_marks(cap: Capture, pending: list[tuple[int, dict[str, float]]], marks: list[float]) -> None:
    """Dicts printed in a block after the bars (``train.py > log 2>&1``: the Trainer writes each
    dict to stdout, buffered, through ``tqdm.write``, which clears the bar on stderr and draws it
    again at the same count): the k-th dict was logged at the k-th count drawn twice (959959-lpd/
    RAG-END, 91 dicts flushed at bar 2300, the bar redrawn at 25, 50, ...). Only where the loss
    dicts then fall at the multiples of one spacing (``logging_steps``; step 1 first as well with
    ``logging_first_step``): a bar redrawn for anything else would shift them. Each dict gets its
    mark as its own ``_step`` (a dict that prints its own step, ms-swift's, keeps it)."""
    if len(marks) < len(pending) or any("_step" in rec for _, rec in pending):
        return
    at = [marks[i] for i, (_, rec) in enumerate(pending) if "loss" in rec and not is_summary_entry(rec)]
    if not _logging_spaced(at[1:] if at[:1] == [1.0] else at):
        return
    for (_, rec), mark in zip(pending, marks):
        rec["_step"] = mark
    cap.notes.append(
        f"{len(pending)} dicts printed in a block after the bars (stdout buffered): each placed at the "
        "bar count drawn again for its write (tqdm.write clears the bar and draws it again)"
    )


def _logging_spaced(steps: list[float]) -> bool:
    """Whether ``steps`` (three at least) are consecutive multiples of one spacing."""
    gaps = {b - a for a, b in zip(steps, steps[1:])}
    return len(steps) >= 3 and len(gaps) == 1 and (gap := gaps.pop()) > 0 and steps[0] % gap == 0


# ms-swift's own step counter in the dict (swift/trainers/callback.py ProgressCallbackNew.on_log): '5/200'.
_SWIFT_STEP = lazy_regex(r"'global_step/max_steps':\s*'(\d+)/\d+'")


def _hf_record(seg: str) -> dict[str, float]:
    """A printed dict's numbers; ms-swift's ``'global_step/max_steps': '5/200'`` as ``_step``."""
    rec = {k: float(v) for k, v in _HF_PAIR.findall(seg)}
    m = _SWIFT_STEP.search(seg) if "global_step/" in seg else None
    if m is not None:
        rec["_step"] = float(m[1])
    return rec


def _epochs_tell_apart(pending: list[tuple[int, dict[str, float]]]) -> bool:
    """Whether the training dicts' epochs rise from one to the next (a long run's ``'epoch': 0.01``,
    printed with two decimals, repeats over many logging steps)."""
    epochs = [rec["epoch"] for _, rec in pending if "loss" in rec and "epoch" in rec and not is_summary_entry(rec)]
    return all(b > a for a, b in zip(epochs, epochs[1:]))


def _flush(cap: Capture, pending: list[tuple[int, dict[str, float]]], step: float | None) -> None:
    if step is not None:  # training dicts placed at one bar step: the most seen
        stacked = sum(1 for _, rec in pending if "loss" in rec)
        cap.meta["stacked"] = max(cap.meta.get("stacked", 0), stacked)
        if stacked and step <= cap.meta.get("last_at", -1.0):  # at a step no later than the last dict's
            cap.meta["repeats"] = cap.meta.get("repeats", 0) + 1
        cap.meta["last_at"] = step if stacked else cap.meta.get("last_at", -1.0)
    by_order = step is None and not _epochs_tell_apart(pending)
    count = 0
    for line_no, rec in pending:
        own = rec.pop("_step", None)
        if is_summary_entry(rec):
            cap.meta["completed"] = True
            cap.meta["summary"] = rec
            cap.lines.append(line_no)
            continue
        count += "loss" in rec
        at = step if step is not None else own
        if at is None and by_order:  # no bar and epochs that repeat: the dicts' order is the logging step
            at = float(max(count, 1))
            cap.meta["steps_are"] = "rows"
        elif at is None:  # no progress bar (disable_tqdm): the epoch is the only position printed
            at = rec.get("epoch")
            cap.meta["steps_are"] = "epochs"
        if at is None:
            continue
        for k, v in rec.items():
            cap.add(k, at, v)
        cap.lines.append(line_no)
    pending.clear()


# ---------------------------------------------------------------- Ultralytics YOLO

_YOLO_HEADER = lazy_regex(r"^\s*Epoch\s+GPU_mem\s+(.+?)\s*$", re.I)  # YOLOv8+ and YOLOv5 ("gpu_mem")
# the row's bar: tqdm's "100%|█████|" or, since ultralytics 8.3 drew its own, "100% ━━━━━━━━━━━━ 1083/1083";
# that bar's UTF-8 read back as code page 437 by a Windows console ("100% ΓöüΓöüΓöü 5/5": each box
# character's lead byte E2 is cp437's "Γ"), a PowerShell ``| Tee-Object`` of the run
# (Muhammad-Umair-Ahmad/Aerial-Guided-Autonomous-Rover train_output.log)
_YOLO_ROW = lazy_regex(r"^\s*(\d+)/(\d+)\s+\S+\s+([^:]*?):\s+(\d{1,3})%\s*(?:\||[━─╸╺╾╼]|Γ[öò])")
_YOLO_SHORT = {"box": "box_loss", "obj": "obj_loss", "cls": "cls_loss", "dfl": "dfl_loss", "seg": "seg_loss"}  # v5
_YOLO_ALL = lazy_regex(r"^\s*all\s+\d+\s+\d+\s+(%s)\s+(%s)\s+(%s)\s+(%s)" % (NUM, NUM, NUM, NUM))
_YOLO_DONE = lazy_regex(r"^\s*\d+ epochs? completed in|Training stopped early as no improvement")
_YOLO_VAL = ("metrics/precision(B)", "metrics/recall(B)", "metrics/mAP50(B)", "metrics/mAP50-95(B)")


def yolo(lines: list[Line]) -> Capture | None:
    cap = Capture("yolo")
    cols: list[str] = []
    epoch = None
    for line in lines:
        text = line.final
        head = _YOLO_HEADER.match(text)
        if head:
            cols = head[1].split()
            continue
        if _YOLO_DONE.match(text):
            cap.meta["completed"] = True
        allrow = _YOLO_ALL.match(text)
        if allrow and epoch is not None:
            for name, value in zip(_YOLO_VAL, allrow.groups()):
                cap.add(name, float(epoch), float(value))
            continue
        if cols:
            epoch = _yolo_row(cap, line, cols, epoch)
    if not cap.lines:
        return None
    _yolo_total(cap)
    cap.meta["steps_are"] = "epochs"
    return cap


def _yolo_row(cap: Capture, line: Line, cols: list[str], epoch: int | None) -> int | None:
    for seg in reversed(line.segments):
        m = _YOLO_ROW.match(seg)
        if m is None or m[4] != "100":
            continue
        epoch = int(m[1])
        if epoch == 0:  # YOLOv5 counts epochs from 0 ("0/299" of 300)
            cap.meta["zero_based"] = True
        cap.meta["planned_epochs"] = int(m[2]) + (1 if cap.meta.get("zero_based") else 0)
        for col, value in zip(cols, m[3].split()):
            name = _yolo_loss_name(col)
            if name is not None:
                cap.add("train/" + name, float(epoch), float(value))
        cap.lines.append(line.no)
        break
    return epoch


# YOLOv10's own trainer (THU-MIG/yolov10, ultralytics/models/yolov10) prints each loss term twice,
# for its one-to-many and its one-to-one head: ``box_om cls_om dfl_om box_oo cls_oo dfl_oo``; the
# loss it optimises is the sum of both heads' terms (chandana-koganti14/NuInseg's W&B output.log).
_YOLO_HEAD_TERM = lazy_regex(r"^(box|obj|cls|dfl|seg)_(om|oo)$")


def _yolo_loss_name(col: str) -> str | None:
    """The loss term a YOLO table column holds (``box`` of YOLOv5 as ``box_loss``, YOLOv10's
    ``box_om`` as ``box_om_loss``), or None for a column that is no loss (GPU_mem, Instances)."""
    name = _YOLO_SHORT.get(col, col)
    if name.endswith("_loss"):
        return name
    return col + "_loss" if _YOLO_HEAD_TERM.match(col) else None


def _yolo_total(cap: Capture) -> None:
    parts = [n for n in cap.cols if n.startswith("train/") and n.endswith("_loss")]
    if not parts:
        return
    steps = cap.cols[parts[0]][0]
    if all(cap.cols[n][0] == steps for n in parts):
        cap.cols["loss"] = (list(steps), [sum(v) for v in zip(*(cap.cols[n][1] for n in parts))])
        cap.notes.append("loss = " + " + ".join(parts) + " (the total YOLO optimises)")


# ---------------------------------------------------------------- any tqdm bar with a loss in its postfix

_TQDM = lazy_regex(r"^(.*?)(?<!\d)(\d{1,3})%\|[^|]*\|\s*(\d+)/(\d+|\?)\s*\[([^\]]*)\]")
# A bar's render cut off at the end of the log before its closing bracket: a terminal's screen
# copied at its width (ZimengXiong/distilled-tiny-diffusion's distill.log ends on
# ``Distilling:  82%|..| 8153/10000 [19:34<04:19,  7.12it/s, loss=1.9267, kl=1.8464, lr=4.52e-05``).
_TQDM_CUT = lazy_regex(r"^(.*?)(?<!\d)(\d{1,3})%\|[^|]*\|\s*(\d+)/(\d+|\?)\s*\[([^\]]*)$")


def _whole(seg: str) -> re.Match[str] | None:
    """:data:`_TQDM` on ``seg`` up to its last closing bracket, where any render it reads ends: the
    same match, without a search from each bar after that bracket to the end of a long line."""
    return _TQDM.match(seg[: seg.rfind("]") + 1])


def _last_segment(lines: list[Line]) -> tuple[int, int] | None:
    """Where the log ends: the line number and index of its last segment that is not blank."""
    for line in reversed(lines):
        for i in range(len(line.segments) - 1, -1, -1):
            if line.segments[i].strip():
                return line.no, i
    return None


def _uncut(seg: str) -> re.Match[str] | None:
    """The bar render cut off before its closing bracket (:data:`_TQDM_CUT`) read as a whole one,
    less the pair it ends in: that one may be cut inside its value (``loss=1.92`` of ``1.9267``)."""
    m = _TQDM_CUT.match(seg)
    if m is None or "," not in m[5]:
        return None
    return _TQDM.match(seg[: m.start(5)] + m[5].rsplit(",", 1)[0] + "]")


def _renders(lines: list[Line]) -> Iterator[tuple[Line, re.Match[str]]]:
    """Each tqdm bar render of the log with its line, the log's last one cut short too."""
    end = _last_segment(lines)
    for line in lines:
        for i, seg in enumerate(line.segments):
            m = _whole(seg)
            if m is None and (line.no, i) == end:
                m = _uncut(seg)
            if m is not None:
                yield line, m


# A bar that evaluates (``validating...``, ``Val``, ``Eval 3``, ``Testing``): its values are evaluations.
# An epoch's number in a bar's description (``Epoch 3/60: 100%|..| 10/10``): a bar of its own.
_DESC_EPOCH = lazy_regex(r"\b(?:epoch|ep)\s*[:#]?\s*(\d+)", re.I)
_EVAL_BAR = lazy_regex(r"^\s*(?:val\w*|eval\w*|test\w*|dev)\b", re.I)
# or a split in brackets after the epoch (Akash05-kr/skin_lesion_classifier's training_console.log:
# ``Epoch 001 [Train]: ..| 5/115 [.., loss=1.80]`` then ``Epoch 001 [Val]  : ..| 5/25 [.., loss=1.35]``)
_EVAL_TAG = lazy_regex(r"[\[(]\s*(?:val\w*|eval\w*|test\w*|dev)\s*[\])]", re.I)


def _evaluates(desc: str) -> bool:
    """Whether a bar's description says it evaluates (:data:`_EVAL_BAR`, :data:`_EVAL_TAG`)."""
    return _EVAL_BAR.match(desc) is not None or ("[" in desc or "(" in desc) and _EVAL_TAG.search(desc) is not None


# a value with a unit after it (``Speed: 0.2 steps/s``, ``ETA: 44.0h``, ``Mem: 6.4 GB``) is no metric's value
_DESC_PAIR = lazy_regex(
    r"(?<![\w/.\-])([A-Za-z_][\w/.\-]*)\s*[:=]\s*(%s)(?![\w/.%%])(?!\s*(?:\w+/\w+|[KMGT]i?B|ms|s|h|min)\b)" % NUM
)
_POSTFIX_PAIR = lazy_regex(r"^\s*([A-Za-z_][\w/.\-]*)[\s:]+(%s)\s*$" % NUM)
# ``name value (average)`` spaced, as an AverageMeter prints (RCVLab-AiimLab/crowd_counting's
# ``set_description``: ``Epoch [0][5/1200] Time/b 0.13 (0.29) Loss 45.08 (259.1) :``): the value
_SPACED_PAIR = lazy_regex(
    r"(?<![\w/.\-])([A-Za-z_][\w/.\-]*)\s+(%s)(?:\s*\(%s\))?(?![\w/.%%])(?!\s*(?:\w+/\w+|[KMGT]i?B|ms|s|h|min)\b)"
    % (NUM, NUM)
)


def _postfix(text: str) -> dict[str, float]:
    """The pairs after a bar's rate: ``loss=0.52`` (``set_postfix``) or ``loss 0.52`` (a
    ``set_postfix_str`` of the script's own wording)."""
    if "=" in text:
        return parse_kv(text, "=")
    pairs = (_POSTFIX_PAIR.match(part) for part in text.split(","))
    return {m[1]: float(m[2]) for m in pairs if m is not None}


def _description(text: str) -> dict[str, float]:
    """The pairs of a bar's description (``pbar.set_description(f"Loss: {x:.4f} | Acc: ..")``,
    printed in front of the bar): ``name: value`` parts between ``|`` or ``,``; parts with a unit
    (``Speed: 0.2 steps/s``, ``GPU: 6.4/8.8GB``) are not values."""
    out: dict[str, float] = {}
    for part in re.split(r"[|,]", text):
        m = _POSTFIX_PAIR.match(part.rstrip().rstrip(":"))
        if m is not None:
            out[m[1]] = float(m[2])
        else:  # "Epoch 3 loss: 0.5321" (set_description(f"Epoch {e} loss: {loss:.4f}")): its named values
            out.update((p[1], float(p[2])) for p in _DESC_PAIR.finditer(part))
    if not _has_loss(out):  # "Time/b 0.13 (0.29) Loss 45.08 (259.1)": spaced pairs, each one's value
        out.update((p[1], float(p[2])) for p in _SPACED_PAIR.finditer(text) if p[1].lower() not in ("epoch", "iter"))
    return out


def _has_loss(vals: dict[str, float]) -> bool:
    return any("loss" in k.lower() for k in vals)


# The loss written as its symbol, 𝓛 (``L``), beside its terms (``L_crf``, ``L_selection``): a
# description that prints ``L: 2011.79, L_crf: 43.19, L_selection: 1968.59`` (WindChimeRan/OpenJERE).
_SYMBOL = ("L", "l")


def _symbol_total(vals: dict[str, float]) -> str | None:
    """``L`` when two or more ``L_*`` terms beside it add up to it (as printed, to 1%), else None."""
    for name in _SYMBOL:
        terms = [v for k, v in vals.items() if k.startswith(name + "_")]
        if name in vals and len(terms) >= 2 and abs(sum(terms) - vals[name]) <= 0.01 * max(abs(vals[name]), 1.0):
            return name
    return None


def _described(desc: str, cap: Capture) -> dict[str, float] | None:
    """The values of a bar's description that holds a loss, or the loss's symbol summing its terms
    (declared the capture's objective), else None."""
    vals = _description(desc)
    if _has_loss(vals):
        return vals
    symbol = _symbol_total(vals)
    if symbol is None:
        return None
    if "objective" not in cap.meta:
        cap.meta["objective"] = symbol
        cap.meta["objective_why"] = f"'{symbol}': the loss's symbol, the sum of the {symbol}_* terms printed beside it"
    return vals


def _bars(lines: list[Line]) -> list[list[float]]:
    """The bars that print a loss in their postfix, in order: each one's ``[total, count reached,
    line]``. A bar ends where its count falls, its total changes, or it starts again on a new line
    after its complete render (a bar of one render: the count of each bar of a loop is its total)."""
    bars: list[list[float]] = []
    for line, m in _renders(lines):
        if m[4] == "?" or _evaluates(m[1]) or not _has_loss(_postfix(m[5])):
            continue
        n, total = float(m[3]), float(m[4])
        last = bars[-1] if bars else None
        if last is None or total != last[0] or n < last[1] or last[1] == total and line.no != last[2]:
            bars.append([total, n, float(line.no)])
        else:
            last[1], last[2] = n, float(line.no)
    return bars


def _eval_total(lines: list[Line]) -> float | None:
    """The total of an evaluation loop's bars that no description names: a loop that runs a
    training bar and then an evaluation bar over a smaller set each epoch, both with a loss in
    their postfix and no words in front (4uiiurz1/pytorch-nested-unet's ``30/30 [.., loss=0.202,
    iou=0.336]`` then ``8/8 [.., loss=0.274, iou=0.00243]``). The bars' totals alternate, two of
    them, the smaller one three times or more, every bar but the last run to its end (an outer
    bar over the epochs, ``3/100``, ends only with the run: it is no evaluation loop); the
    evaluation set is the smaller one. None for any other sequence of bars."""
    bars = _bars(lines)
    totals = [b[0] for b in bars]
    if len(set(totals)) != 2 or any(a == b for a, b in zip(totals, totals[1:])):
        return None
    small = min(totals)
    if totals.count(small) < 3 or any(b[1] != b[0] for b in bars[:-1]):
        return None
    return small


def tqdm_postfix(lines: list[Line]) -> Capture | None:
    """``pbar.set_postfix(loss=...)`` in a hand-written loop: one point per bar position; or a
    loss in the bar's description (``set_description``), one point each time the description
    changes (a bar redrawn ten times under one description holds one value, not ten).

    The step counts on across bars: when the count falls back (a new epoch's bar), the
    previous bar's total is added. A generic shape: any framework recogniser wins over it.
    """
    cap = Capture("tqdm-postfix", tier=1)
    evaluates = _eval_total(lines)
    offset, last_n, last_total, last_desc = 0.0, -1.0, 0.0, ""
    epoch: str | None = None
    done: tuple[int, dict[str, float]] | None = None  # (line, values) of the last bar rendered complete
    for line, m in _renders(lines):
        vals = {k: v for k, v in _postfix(m[5]).items() if k != "v_num"}
        if not _has_loss(vals):
            if m[1] == last_desc:  # the same description redrawn: no new value
                continue
            described = _described(m[1], cap)
            if described is None:
                continue
            vals, last_desc = described, m[1]
        # "validating...: 45%|..", or the smaller loop of two alternating ones: its own count, at the training step
        if _evaluates(m[1]) or evaluates is not None and m[4] != "?" and float(m[4]) == evaluates:
            for k, v in vals.items():
                cap.add(k if k.lower().startswith(_VAL_PREFIX) else f"val_{k}", offset + max(last_n, 0.0), v)
            continue
        n = float(m[3])
        at = _DESC_EPOCH.search(m[1])
        if n < last_n or n == last_n and at is not None and epoch is not None and at[1] != epoch:
            offset += last_total or last_n  # a new epoch's bar (only its last render kept: the same count)
        elif n == last_n == last_total and done is not None and done[0] != line.no and done[1] != vals:
            offset += last_total  # another bar complete on its own line, its values new: the next epoch's
        epoch = at[1] if at is not None else epoch
        last_n, last_total = n, float(m[4]) if m[4] != "?" else 0.0
        done = (line.no, vals) if n == last_total else None
        for k, v in vals.items():
            cap.add(k, offset + n, v)
        if not cap.lines or cap.lines[-1] != line.no:
            cap.lines.append(line.no)
    return cap if cap.lines else None


# ---------------------------------------------------------------- a per-step table under a header row

# transformers' NotebookProgressCallback (the notebooks of TRL and unsloth) draws a table, 'Step | Training
# Loss | Validation Loss | ...' (GRPO: '| reward | reward_std | completion_length | kl |'), a row per logging
# step; saved as text it comes back tab-separated, as a Markdown table, or aligned on spaces.
_TABLE_HEAD = lazy_regex(r"^\s*\|?\s*(Step|Epoch)(?:\t|\s*\||\s{2,})(?=.*loss)", re.I)
_HEAD_SPLIT = lazy_regex(r"\t|\s*\|\s*|\s{2,}")
_ROW_SPLIT = lazy_regex(r"\t|\s*\|\s*|\s+")
_TABLE_RULE = lazy_regex(r"^[\s|:+\-=]+$")
_CELL_NUM = lazy_regex(NUM)


def _cells(text: str, split: re.Pattern[str]) -> list[str]:
    return [c for c in split.split(text.strip().strip("|").strip()) if c != ""]


def _cell_ok(cell: str) -> bool:
    return cell == "No_log" or _CELL_NUM.fullmatch(cell) is not None


def step_table(lines: list[Line]) -> Capture | None:
    """Rows of numbers under a header row whose first column is ``Step`` (or ``Epoch``) and that names
    a loss, its names of several words (``Training Loss``; the one-word tables of a hand-written loop
    are :func:`.handwritten.column_tables`'). A table drawn again as it grows (each update of a
    notebook's output) gives each step once: its last row. ``No log`` (the Trainer's cell before a
    loss is logged) is no value. Lines that do not fit the header (a warning printed into the
    output) do not end the table: a row after them is read where it continues the table (a step
    above the last row's)."""
    cap = Capture("step-table")
    head: list[str] = []
    epochs, gap, last = False, False, -1.0
    rows: dict[float, dict[str, float]] = {}
    for line in lines:
        text = line.final
        if _TABLE_HEAD.match(text):
            cells = _cells(text, _HEAD_SPLIT)
            head = cells if all(any(ch.isalpha() for ch in c) for c in cells) else []
            epochs, gap, last = bool(head) and head[0].lower() == "epoch", False, -1.0
            continue
        if not head or _TABLE_RULE.match(text):
            continue
        cells = _cells(text.replace("No log", "No_log"), _ROW_SPLIT)
        if len(cells) != len(head) or not cells[0].isdigit() or not all(map(_cell_ok, cells)):
            gap = gap or bool(text.strip())
            continue
        if gap and float(cells[0]) <= last:
            continue
        gap, last = False, float(cells[0])
        rows[last] = {n: float(c) for n, c in zip(head[1:], cells[1:]) if c != "No_log"}
        cap.lines.append(line.no)
    for step in sorted(rows):
        cap.add_all(step, rows[step])
    if epochs:
        cap.meta["steps_are"] = "epochs"
    return cap if any(_has_loss(vals) for vals in rows.values()) else None


# Each recogniser with the text a log must hold somewhere for it to be worth running.
RECOGNISERS = (
    (keras, "Epoch "),
    (keras_unheaded, "Train on "),
    (lightning, "Epoch "),
    (hf_trainer, "{'"),
    (yolo, "_mem"),
    (tqdm_postfix, "%|"),
    (step_table, "Loss"),
)
