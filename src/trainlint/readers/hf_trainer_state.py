"""Hugging Face Trainer ``trainer_state.json``: the ``log_history`` train and eval entries."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..model import Damage, Run
from ..options import ReadOptions
from ..safeio import JSONLimit, check_json, json_error, loads_json, read_bytes
from .base import Columns, ReadError, decode_text, link_vocab, reader
from .stream import Reread

META_KEYS = (
    "max_steps",
    "logging_steps",
    "eval_steps",
    "save_steps",
    "global_step",
    "num_train_epochs",
    "train_batch_size",
    "best_model_checkpoint",
    "best_metric",
    "best_global_step",
    "epoch",
)
SUMMARY_KEYS = ("train_runtime", "total_flos")  # the keys of the entry train() writes when it returns
NOT_SERIES = {"step"}
_LOG_HISTORY = re.compile(r'"log_history"\s*:\s*\[')
_CONTROL = (  # in stateful_callbacks: TrainerControl's args, EarlyStoppingCallback's args and attributes
    ("stop_requested", re.compile(rb'"should_training_stop"\s*:\s*(true|false)')),
    ("patience_counter", re.compile(rb'"early_stopping_patience_counter"\s*:\s*(\d{1,9})\b')),
    ("patience", re.compile(rb'"early_stopping_patience"\s*:\s*(\d{1,9})\b')),
)


def is_summary_entry(entry: dict[str, Any]) -> bool:
    """Whether a log_history entry (or the dict the Trainer logs or prints) is the run's final
    summary, which the Trainer writes when train() returns: not a training step."""
    return any(key in entry for key in SUMMARY_KEYS)


@reader("hf-trainer-state", priority=10)
class TrainerStateReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        text = head.lstrip(b"\xef\xbb\xbf").lstrip()
        if not text.startswith(b"{"):
            return False
        return b'"log_history"' in head or (path.name == "trainer_state.json" and b'"global_step"' in head)

    def stream(self, path: Path, options: ReadOptions) -> Reread:
        """The Trainer rewrites the file whole at each save: read again at each change."""
        return Reread(path, "hf-trainer-state", self.read, every_change=True)

    def read(self, path: Path) -> Run:
        run = self._read(path)
        _link_config(run, path)
        _summary_only(run)
        return run

    def _read(self, path: Path) -> Run:
        data = read_bytes(path)
        control = control_facts(data)
        run = _bulk(data, path)  # typed and flat: bounded by its types, deep nesting refused
        if run is not None:
            run.meta.update(control)
            return run
        try:
            check_json(data)  # nesting and size bounds before the general parser sees it (issue 20)
        except JSONLimit as exc:
            raise ReadError(str(exc)) from None
        text, notes = decode_text(data)
        del data
        run = Run(source=str(path), format="hf-trainer-state", files=[str(path)], notes=notes)
        try:
            state = loads_json(text, checked=True)  # checked above
        except JSONLimit as exc:
            raise ReadError(str(exc)) from None
        except json.JSONDecodeError as exc:
            state = _salvage(text, exc, run)
        if not isinstance(state, dict) or not isinstance(state.get("log_history"), list):
            raise ReadError("a JSON object without a 'log_history' list: not a trainer_state.json")
        run.meta.update({k: state[k] for k in META_KEYS if k in state})
        run.meta.update(control)
        _columns(state["log_history"], run).into(run)
        return run


def control_facts(data: bytes) -> dict[str, Any]:
    """What the Trainer's saved callback state says of how training was to go on (transformers
    4.39+ write ``stateful_callbacks``): TrainerControl's ``should_training_stop`` at the save
    (true once max_steps is reached or a callback such as EarlyStoppingCallback stopped the run,
    false for a save made while training went on), and EarlyStoppingCallback's patience counter
    and patience. Read from the last ``stateful_callbacks`` key on (a few hundred bytes); {} when
    the file has none (older versions)."""
    at = data.rfind(b'"stateful_callbacks"')
    if at < 0:
        return {}
    tail = data[at : at + 8192]
    out: dict[str, Any] = {}
    for key, pattern in _CONTROL:
        m = pattern.search(tail)
        if m:
            out[key] = m.group(1) == b"true" if key == "stop_requested" else int(m.group(1))
    return out


def _summary_only(run: Run) -> None:
    """Why no loss is read from a state whose log_history holds no logged step, only the summary
    entry train() writes as it returns: ``logging_steps`` above the run's length (500 for a run of
    69 steps: mellymeter/ES3890AI output/trainer_state.json) logs nothing. The summary's
    ``train_loss``, the mean over the whole run, is no series to judge; the reason names it, so
    the reader sees it (a mean of 1.8e11 there: a broken run)."""
    summary = run.meta.get("summary")
    if run.series or not isinstance(summary, dict):
        return
    why = "log_history holds no logged step, only the summary train() writes as it returns"
    mean = summary.get("train_loss")
    if type(mean) in (int, float):
        why += f", whose train_loss, {mean:.4g}, is the mean over the run"
    every, steps = run.meta.get("logging_steps"), run.meta.get("global_step")
    if type(every) is int and type(steps) is int and every > steps:
        why += f"; logging_steps {every} is more than the run's {steps} steps"
    run.meta["no_loss"] = why


def _link_config(run: Run, path: Path) -> None:
    """The model's vocabulary size from the config.json beside the state (an output folder or a
    checkpoint-N folder holds both), else from the tokenizer.json beside it: what TL033 and TL035
    judge a language model's loss against."""
    if "vocab_size" not in run.meta:
        link_vocab(run, [path.parent / "config.json"], path.parent / "tokenizer.json")


def _bulk(data: bytes, path: Path) -> Run | None:
    """The fast path (msgspec, in blocks) for a state whose log_history entries are flat objects
    of numbers; None for any other file (the general path then reads and reports it)."""
    from ._fastjson import BOM, trainer_state_table

    bom = data.startswith(BOM)
    got = trainer_state_table(data[3:] if bom else data, META_KEYS, SUMMARY_KEYS)
    if got is None:
        return None
    meta, table, n, summary = got
    run = Run(
        source=str(path),
        format="hf-trainer-state",
        files=[str(path)],
        notes=["stripped a UTF-8 byte-order mark"] if bom else [],
    )
    run.meta.update(meta)
    if summary is not None:
        run.meta["completed"] = True  # the Trainer writes this entry when train() returns
        run.meta["summary"] = summary
    is_summary = np.zeros(n, bool)
    for key in SUMMARY_KEYS:  # is_summary_entry, column by column
        if key in table:
            is_summary |= ~np.isnan(table[key])
    step = table.get("step", np.full(n, np.nan))
    idx = np.flatnonzero(~is_summary & ~np.isnan(step))
    skipped = n - len(idx) - int(is_summary.sum())
    if skipped:
        run.notes.append(f"skipped {skipped} log_history entries without a numeric step")
    pick = _as_slice(idx)
    steps, first = step[pick], idx[:256]
    cols = Columns(where_format="log_history[{}]")
    seen = [k for k in table if not np.isnan(table[k][first]).all()]
    for key in seen + sorted(table.keys() - set(seen)):
        if key not in NOT_SERIES:
            values = table.pop(key)[pick]
            keep = ~np.isnan(values)
            cols.add_array(key, *((steps, values) if keep.all() else (steps[keep], values[keep])))
    cols.into(run)
    return run


def _as_slice(idx: np.ndarray) -> np.ndarray | slice:
    """``idx`` as a slice when it is one run of consecutive indices (every entry but a final
    summary, the usual case): the columns are then views, not copies."""
    if len(idx) and int(idx[-1]) - int(idx[0]) + 1 == len(idx):
        return slice(int(idx[0]), int(idx[-1]) + 1)
    return idx


def _columns(history: list[Any], run: Run) -> Columns:
    """Train and eval entries as columns; the final summary entry marks the run completed."""
    idx, summaries = [], 0
    for i, e in enumerate(history):
        if type(e) is not dict:
            continue
        if is_summary_entry(e):
            run.meta["completed"] = True  # the Trainer writes this entry when train() returns
            run.meta["summary"] = {k: v for k, v in e.items() if type(v) in (int, float)}
            summaries += 1
        else:
            idx.append(i)
    steps = [history[i].get("step") for i in idx]
    if set(map(type, steps)) - {int, float}:
        keep = [type(s) in (int, float) for s in steps]
        idx = [i for i, k in zip(idx, keep) if k]
        steps = [s for s, k in zip(steps, keep) if k]
    skipped = len(history) - len(idx) - summaries
    if skipped:
        run.notes.append(f"skipped {skipped} log_history entries without a numeric step")
    cols = Columns(where_format="log_history[{}]")
    cols.add_records([history[i] for i in idx], steps, idx, skip=NOT_SERIES)
    return cols


def _salvage(text: str, exc: json.JSONDecodeError, run: Run) -> dict[str, Any]:
    """Recover the complete log_history entries of a truncated or damaged file."""
    m = _LOG_HISTORY.search(text)
    if m is None:
        raise ReadError(f"invalid JSON: {json_error(exc)}")
    decoder = json.JSONDecoder()
    entries: list[Any] = []
    pos = m.end()
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            break
        entries.append(obj)
    if not entries:
        raise ReadError(f"invalid JSON: {json_error(exc)}")
    msg = f"invalid JSON: {json_error(exc)}; recovered {len(entries)} complete log_history entries before it"
    run.damage.append(
        Damage("truncated", msg, {"entries_recovered": len(entries), "error_line": exc.lineno, "bytes": len(text)})
    )
    head = text[: m.start()]
    meta: dict[str, Any] = {}
    for key in META_KEYS:
        km = re.search(r'"%s"\s*:\s*("(?:[^"\\]|\\.)*"|[-0-9.eE+]+|null)' % key, head)
        if km:
            try:
                meta[key] = json.loads(km.group(1))
            except json.JSONDecodeError:
                pass
    return {**meta, "log_history": entries}
