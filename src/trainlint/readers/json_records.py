"""A training history saved as one JSON document: ``json.dump(history, f, indent=2)``.

Hand-written loops keep their per-epoch or per-step records in a list and dump it once, or
dump a dict of such lists, one per split. The shapes read here:

- a list of records: ``[{"epoch": 1, "loss": 0.52, "val_loss": 0.61}, ...]``;
- records under a key, or one list per split: ``{"history": [...]}``,
  ``{"train": [{"step": 10, "loss": ..}], "val": [...]}`` (names get the split's key:
  ``val/loss``);
- records keyed by their step or epoch: ``{"1": {"loss": ..}, "2": {...}}``;
- lists of values per metric (Keras' ``json.dump(history.history, f)``): ``{"loss": [...],
  "val_loss": [...]}``, one point per epoch;
- a series per metric with its steps (Sacred's ``metrics.json``: ``{"train.loss": {"steps": [..],
  "values": [..], "timestamps": [..]}}``);
- pandas' ``DataFrame.to_json()``: its default orient, one ``{index: value}`` per column
  (``{"loss": {"0": 2.5, "1": 2.4}}``), ``orient="split"`` (``{"columns": [..], "index": [..],
  "data": [[..], ..]}``) and ``orient="table"`` (``{"schema": {..}, "data": [records]}``), the
  index the step when it is a growing integer and no column is one (its "index" orient is records
  keyed by their step);
- a dict of ``{step: value}`` per metric filled by a loop, its metrics on steps of their own
  (``{"loss": {"0": .., "1": ..}, "time": {"16": ..}, "acc": {}}``), one row per step;
- one scalar tag exported from TensorBoard's dashboard, ``[[wall_time, step, value], ..]``, the
  series named after the file (``_scalar_export``);
- a list of rows of numbers (``json.dump(losses, f)`` of ``(step, loss, val_loss)`` tuples), read
  as a file of bare numbers is: only where the file's name says loss (``loss_history.json``).

A record's step is its ``step``-like field (as for JSON lines), else its ``epoch``, else its
place in the list (said in a note). Only a document whose head names a loss is claimed; a
trainer_state.json and JSON lines are read by their own readers, sniffed first.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..model import Damage, Run
from ..safeio import JSONLimit, check_json, json_error, loads_json, read_bytes
from ._rows import rows_into
from ._scalar_export import export_name
from .base import ReadError, decode_text, looks_binary, reader
from .console.handwritten import loss_name, printed_lists
from .console.numbers import bare_numbers
from .console.text import Line
from .jsonl import STEP_KEYS

# A loss's key and the start of its value: a number (a record's), a list of numbers (Keras'), or
# a number under an index label (pandas' to_json: {"loss": {"0": 2.5, ..}}).
_LOSS_KEY = re.compile(rb'"[^"\\\n]{0,80}loss[^"\\\n]{0,80}"\s*:\s*(\[\s*|\{\s*"[^"\\\n]{1,40}"\s*:\s*)?[-+.\d]', re.I)
# pandas' to_json(orient="split"): the column names first, a loss among them, then the index or data
_SPLIT = re.compile(
    rb'^\s*\{\s*"columns"\s*:\s*\[[^\]]{0,4000}loss[^\]]{0,4000}\]\s*,\s*"(?:index|data)"\s*:\s*\[', re.I
)
# TensorBoard's JSON download of one scalar tag: [[wall_time, step, value], ..], a wall time of this century
_TRIPLES = re.compile(rb"^\s*\[\s*\[\s*1\d{9}(?:\.\d*)?\s*,\s*\d+(?:\.0)?\s*,")
# A list of rows of numbers, [[step, loss, val_loss], ..]: claimed where the file's name says loss
_ROWS = re.compile(rb"^\s*\[\s*\[\s*[-+.\d]")
# A series of a metric named by its key, a loss among them: {"train.loss": {"steps": [..], "values": [..]}}
_SERIES = re.compile(rb'"[^"\\\n]{0,80}loss[^"\\\n]{0,80}"\s*:\s*\{\s*"(?:steps|values|timestamps)"\s*:\s*\[', re.I)
_INT = re.compile(r"^\d{1,9}$")
# CatBoost's catboost_info/catboost_training.json: its "meta" (the metrics' names) opens the document
_CATBOOST_HEAD = re.compile(rb'^\s*\{\s*"meta"\s*:\s*\{[^\n]{0,4000}"learn_metrics"\s*:')
_WALL_MIN = 1e9  # a wall time of this century (2001 on): rows [step, loss, val_loss] are no export
# json.dump(str(history.history), f): Keras' history printed as a Python dict, saved as a JSON string
_PRINTED = re.compile(rb"""^\s*"\{'[^'\n]{0,80}'\s*:\s*\[""")
# A console line's bracketed frame, never a JSON document's start: a time or date (``[06/20 18:17:31]``,
# PySlowFast's stdout.log, its ``json_stats: {"loss": ..}`` records after it; ``[2020-12-06 21:54:01,979]``)
# or a word (``[INFO]``) that is no JSON literal.
_BRACKET_FRAME = re.compile(rb"^\s*\[\s*(?:\d+\s*[/:\-]\s*\d|(?!(?:true|false|null|NaN|-?Infinity)\b)[A-Za-z])")
# Records keyed by their place: "1", "epoch_1", "Epoch 1", "step-100", "iter_5".
_PLACE_KEY = re.compile(r"^(?:(epoch|ep|step|iter|iteration)[_ \-]?)?(\d{1,9})$", re.I)
MAX_ROW = 8  # values in a row of a JSON list of rows (a wider one is no loss history)
FLAT_DEPTH = 2  # levels of a record's nested dicts read as names joined by "/"
MAX_DEPTH = 3  # keys followed down to a list of records


def _records(value: Any) -> bool:
    """A list of (mostly) dicts that hold a number: a table of records."""
    if not isinstance(value, list) or len(value) < 2:  # one record is a document, not a table
        return False
    dicts = [v for v in value[:50] if isinstance(v, dict)]
    return len(dicts) * 2 > min(len(value), 50) and any(type(x) in (int, float) for d in dicts for x in d.values())


def _nested_records(value: Any) -> bool:
    """A list of dicts whose numbers sit one level down (``{"epoch": 1, "train": {"loss": ..}}``)."""
    if not isinstance(value, list) or len(value) < 2 or not isinstance(value[0], dict):
        return False
    dicts = [v for v in value[:50] if isinstance(v, dict)]
    inner = [x for d in dicts for x in d.values() if isinstance(x, dict)]
    return len(dicts) * 2 > min(len(value), 50) and any(type(y) in (int, float) for x in inner for y in x.values())


def _flat(record: dict[str, Any], prefix: str = "", depth: int = 0) -> dict[str, Any]:
    """A record with its nested dicts' fields named ``outer/inner`` (``train/loss``)."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, dict) and depth < FLAT_DEPTH:
            out.update(_flat(value, f"{prefix}{key}/", depth + 1))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _keyed_records(doc: dict[str, Any], prefix: str = "") -> list[dict[str, Any]]:
    """Records keyed by their place, the key's number as their epoch (``epoch_3``, or any key
    under an ``epochs`` key) or step. A record that carries its own step (``global_step``) keeps
    it: a bare key is then its place in the list, not its step. Groups of keyed records keyed in
    turn (records nested by epoch) are one table: :func:`_grouped_records`."""
    grouped = _grouped_records(doc)
    if grouped:
        return grouped
    under_epochs = prefix.rstrip("/").rsplit("/", 1)[-1].lower() in ("epoch", "epochs")
    rows = []
    for m, value in ((_PLACE_KEY.match(key), value) for key, value in doc.items()):
        if m is not None:
            word = "epoch" if under_epochs or (m[1] or "").lower() in ("epoch", "ep") else "step"
            own_step = word == "step" and any(k in value for k in STEP_KEYS)
            rows.append(_flat(value) if own_step else {word: int(m[2]), **_flat(value)})
    return rows


# Per-step records nested by epoch, each keyed by its step in the epoch, each holding its global
# step (gkrls/straggle-ml-experiments' data/train/*/rank4.json: ``"updates": {"0": {"0050":
# {"global_step": 50, "train_loss": ..}, ..}, "1": {..}}``): one table of the inner records, the
# outer key their epoch. Read as records keyed by their place instead, each epoch was one record
# and each step one metric of its own (``0050/train_loss``).
def _grouped_records(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The inner records of ``{epoch: {place: record}}``, each with its epoch, where every group
    is keyed by places and every record carries a step of its own; [] else."""
    groups = list(doc.items())
    if not all(
        isinstance(g, dict) and g and all(isinstance(k, str) and _PLACE_KEY.match(k) for k in g) for _, g in groups
    ):
        return []
    records = [(m, r) for key, g in groups for m in [_PLACE_KEY.match(key)] for r in g.values()]
    if not all(isinstance(r, dict) and any(type(r.get(k)) in (int, float) for k in STEP_KEYS) for _, r in records):
        return []
    return [{"epoch": int(m[2]), **_flat(r)} for m, r in records if m is not None]


def _numbers(value: Any) -> bool:
    return isinstance(value, list) and len(value) > 0 and all(type(v) in (int, float) for v in value[:50])


def _tables(doc: Any, prefix: str = "", depth: int = 0) -> list[tuple[str, list[dict[str, Any]]]]:
    """Every table of records in ``doc``, with the key path that names it."""
    if _records(doc) or _nested_records(doc):
        return [(prefix, [_flat(r) for r in doc if isinstance(r, dict)])]
    if not isinstance(doc, dict) or depth >= MAX_DEPTH:
        return []
    frame = _pandas_split(doc) or _pandas_columns(doc) or _pandas_table(doc) or _step_columns(doc)
    if frame:
        return [(prefix, frame)]
    if len(doc) >= 2 and all(_PLACE_KEY.match(k) and isinstance(v, dict) for k, v in doc.items()):
        return [(prefix, _keyed_records(doc, prefix))]  # {"1": {...}, "2": {...}}, {"epoch_1": {...}, ...}
    if prefix and _numbers(doc.get("values")) and isinstance(doc.get("steps"), list):  # Sacred's metrics.json
        name, steps = prefix.rstrip("/"), doc["steps"]
        return [("", [{"step": s, name: v} for s, v in zip(steps, doc["values"])])]
    lists = {k: v for k, v in doc.items() if _numbers(v)}
    out = [(prefix, _per_epoch(lists))] if lists and any("loss" in k.lower() for k in lists) else []
    for key, value in doc.items():
        if isinstance(value, (list, dict)) and key not in lists:
            out += _tables(value, f"{prefix}{key}/", depth + 1)
    return out


def _pandas_split(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of ``DataFrame.to_json(orient="split")``; [] for any other dict."""
    names, data, index = doc.get("columns"), doc.get("data"), doc.get("index", [])
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        return []
    width = len(names)
    if not isinstance(data, list) or not all(isinstance(r, list) and len(r) == width for r in data):
        return []
    rows = [dict(zip(names, r)) for r in data]
    return _indexed(rows, index) if isinstance(index, list) and len(index) == len(rows) else []


def _pandas_columns(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of ``DataFrame.to_json()`` (orient "columns": one ``{index label: value}`` per
    column, every column on the same labels, a loss among them, three rows or more); [] else."""
    first = next(iter(doc.values()), None)
    if not isinstance(first, dict) or len(first) < 3 or not any("loss" in k.lower() for k in doc):
        return []
    labels = list(first)
    for column in doc.values():
        if not isinstance(column, dict) or list(column) != labels:
            return []
        if not all(v is None or type(v) in (int, float) for v in column.values()):
            return []
    rows = [{name: column[label] for name, column in doc.items()} for label in labels]
    return _indexed(rows, labels)


def _step_columns(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One ``{step: value}`` per metric, each metric logged at its own steps (a dict of dicts a
    loop fills, ``history["loss"][epoch] = loss``, some metrics sparse or empty): the rows of
    every step, in the steps' order. Every key a whole number, a loss among the metrics with three
    values or more; [] else."""
    columns = {k: v for k, v in doc.items() if isinstance(v, dict) and v}
    loss = [v for k, v in columns.items() if "loss" in k.lower()]
    if not all(isinstance(v, dict) for v in doc.values()) or not any(len(v) >= 3 for v in loss):
        return []
    for column in columns.values():
        if not all(_INT.match(k) for k in column) or not all(type(v) in (int, float) for v in column.values()):
            return []
    steps = sorted({int(k) for column in columns.values() for k in column})
    return [
        {"step": s, **{name: column[str(s)] for name, column in columns.items() if str(s) in column}} for s in steps
    ]


def _pandas_table(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of ``DataFrame.to_json(orient="table")`` (a JSON Table Schema and its records),
    the index (its ``primaryKey``) as their step as for the other orients; [] for any other dict."""
    schema, data = doc.get("schema"), doc.get("data")
    if not isinstance(schema, dict) or not isinstance(schema.get("fields"), list) or not isinstance(data, list):
        return []
    rows = [r for r in data if isinstance(r, dict)] if _records(data) else []
    keys = schema.get("primaryKey")
    key = keys[0] if isinstance(keys, list) and keys and rows else None
    if not isinstance(key, str) or key in (*STEP_KEYS, "epoch"):
        return rows
    return _indexed([{k: v for k, v in r.items() if k != key} for r in rows], [r.get(key) for r in rows])


def _indexed(rows: list[dict[str, Any]], index: list[Any]) -> list[dict[str, Any]]:
    """A frame's rows with its index as their step, when the index is a growing integer (pandas
    writes it as strings in the "columns" orient) and no column is a step or an epoch."""
    if any(k in rows[0] for k in (*STEP_KEYS, "epoch")) if rows else True:
        return rows
    steps = [int(i) if isinstance(i, str) and _INT.match(i) else i for i in index]
    if not all(type(i) is int for i in steps) or any(b <= a for a, b in zip(steps, steps[1:])):
        return rows  # a label index (dates, names): the rows' order places them, said in a note
    return [{"step": s, **r} for s, r in zip(steps, rows)]


def _triples(doc: Any) -> bool:
    """TensorBoard's JSON download of a scalar: ``[[wall_time, step, value], ..]``."""
    return (
        isinstance(doc, list)
        and len(doc) > 0
        and all(isinstance(t, list) and len(t) == 3 for t in doc)
        and all(type(w) in (int, float) and w >= _WALL_MIN and type(s) in (int, float) for w, s, _ in doc)
    )


def _export_run(path: Path, doc: list[list[Any]], notes: list[str]) -> Run:
    """One scalar tag's export as one series named after the file, its wall times as walls."""
    name, note = export_name(path)
    kept = [(w, s, v) for w, s, v in doc if type(v) in (int, float)]  # NaN is exported as null
    if not kept:
        raise ReadError("a TensorBoard scalar export without a number")
    wall, steps, values = (np.asarray(c, np.float64) for c in zip(*kept))
    run = Run(source=str(path), format="json-records", files=[str(path)], notes=[*notes, note])
    run.add(name, steps, values, wall)
    run.meta["written_by"] = "tensorboard"
    if len(kept) < len(doc):
        run.notes.append(f"{len(doc) - len(kept)} point(s) without a number (null) left out")
    return run


def _number_rows(doc: Any) -> bool:
    """A list of rows of numbers, all as wide (``json.dump(history, f)`` of ``(step, loss,
    val_loss)`` tuples): a table that names none of its columns."""
    return (
        isinstance(doc, list)
        and len(doc) > 0
        and all(isinstance(r, list) and 0 < len(r) == len(doc[0]) <= MAX_ROW for r in doc)
        and all(type(v) in (int, float) for r in doc for v in r)
    )


def _rows_run(path: Path, doc: list[list[Any]], notes: list[str]) -> Run:
    """Rows of numbers read as a file of bare numbers is: only where the file's name says loss
    (``loss_history.json``: a counter column the step, the next column the loss)."""
    lines = [Line(no, [" ".join(repr(float(v)) for v in row)]) for no, row in enumerate(doc, 1)]
    cap = bare_numbers(path, lines)
    if cap is None:
        raise ReadError(
            "a JSON list of rows of numbers that names none of its columns (no name says which is the loss)"
        )
    run = Run(source=str(path), format="json-records", files=[str(path)], notes=[*notes, *cap.notes])
    for name, (steps, values) in cap.cols.items():
        run.add(name, np.asarray(steps, np.float64), np.asarray(values, np.float64))
    return run


def _per_epoch(lists: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Lists of values per metric as records, one per epoch (counted from 1)."""
    n = max(len(v) for v in lists.values())
    return [{"epoch": i + 1, **{k: v[i] for k, v in lists.items() if i < len(v)}} for i in range(n)]


@reader("json-records", priority=41)
class JsonRecordsReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        if looks_binary(head):
            return False
        head = head.lstrip(b"\xef\xbb\xbf")
        lines = [ln.strip() for ln in head.splitlines()[:3] if ln.strip()]
        if _PRINTED.match(head):
            return b"loss" in head
        if not lines or lines[0][:1] not in (b"[", b"{") or _BRACKET_FRAME.match(lines[0]):
            return False
        if (
            _TRIPLES.match(head)
            or _SPLIT.match(head)
            or _CATBOOST_HEAD.match(head)
            or (_ROWS.match(head) and loss_name(path.stem))
        ):
            return True
        # a table repeats its loss's key; a list holds its values: a config's "loss_weight": 0.5 does neither
        keys = _LOSS_KEY.finditer(head)
        if not any(k[1] is not None or n > 0 for n, k in enumerate(keys)) and not _SERIES.search(head):
            return False
        # JSON lines (an object a line, its first one naming no loss) are not one document
        return not (len(lines) > 1 and lines[0].endswith(b"}") and lines[1].startswith(b"{"))

    def read(self, path: Path) -> Run:
        data = read_bytes(path)
        damage: Damage | None = None
        try:
            check_json(data)
            text, notes = decode_text(data)
            doc = loads_json(text, checked=True)
        except JSONLimit as exc:
            raise ReadError(str(exc)) from None
        except json.JSONDecodeError as exc:
            doc, damage = _salvage(text, exc)
        if isinstance(doc, str):  # a printed dict saved as a JSON string: its per-epoch lists
            doc = printed_lists(doc)
            notes.append("a JSON string holding a printed dict (json.dump(str(history.history))): its lists read")
        if _triples(doc):
            return _export_run(path, doc, notes)
        if _number_rows(doc):
            return _rows_run(path, doc, notes)
        run = Run(source=str(path), format="json-records", files=[str(path)], notes=notes)
        if damage is not None:
            run.damage.append(damage)
        if _catboost_document(doc):
            return _catboost_into(run, doc)
        return document_into(run, doc, "JSON")


# CatBoost's own JSON log (catboost_info/catboost_training.json, written by every fit beside
# learn_error.tsv; Anastasia615/hhd_failure_prediction): ``meta`` names the metrics of each set
# (``learn_metrics``, ``test_metrics``, each ``{"name": "Logloss", "best_value": "Min"}``), and
# each of ``iterations`` holds their values in that order (``{"learn": [0.63], "iteration": 0,
# "test": [0.64], "passed_time": ..}``). Read as records it held no loss (lists, not numbers).
def _catboost_document(doc: Any) -> bool:
    meta = doc.get("meta") if isinstance(doc, dict) else None
    return (
        isinstance(meta, dict)
        and isinstance(meta.get("learn_metrics"), list)
        and isinstance(doc.get("iterations"), list)
    )


def _metric_names(meta: dict[str, Any], sets_key: str, metrics_key: str, default: str) -> list[str]:
    """The names of one kind of set's values in an iteration, ``set/metric`` (``test/Logloss``),
    every metric of the first set, then of the next (CatBoost's order for several eval sets)."""
    sets = [x for x in meta.get(sets_key) or [default] if isinstance(x, str)]
    metrics = [m.get("name") if isinstance(m, dict) else None for m in meta.get(metrics_key) or []]
    return [f"{s}/{m}" for s in sets for m in metrics if isinstance(m, str)]


def _catboost_into(run: Run, doc: dict[str, Any]) -> Run:
    """A CatBoost JSON log's iterations as series named ``learn/Logloss``, ``test/Logloss``: the
    first learn metric CatBoost minimises is its objective (its loss function comes first unless an
    eval metric that it maximises, ``AUC``, is put before it), the same metric on the first test
    set the evaluation's, as for its learn_error.tsv, whose column names the function too."""
    meta = doc["meta"]
    learn = _metric_names(meta, "learn_sets", "learn_metrics", "learn")
    test = _metric_names(meta, "test_sets", "test_metrics", "test")
    rows = []
    for it in doc["iterations"]:
        if isinstance(it, dict):
            row = {k: v for k, v in it.items() if type(v) in (int, float)}
            for names, values in ((learn, it.get("learn")), (test, it.get("test"))):
                if isinstance(values, list) and len(values) == len(names):
                    row.update(zip(names, values))
            rows.append(row)
    _table_into(run, "", rows)
    if not run.series:
        raise ReadError("a CatBoost JSON log without a number in its iterations")
    run.meta["written_by"] = "catboost"
    minimised = [m.get("name") for m in meta["learn_metrics"] if isinstance(m, dict) and m.get("best_value") == "Min"]
    objective = next((n for n in learn if n.split("/", 1)[1] in minimised and n in run.series), None)
    if objective is None:  # an AUC alone: no loss named; the roles say so
        return run
    run.meta["objective"] = objective
    run.meta["objective_why"] = f"CatBoost's '{objective}': the first metric it minimises on the learning set"
    name = objective.split("/", 1)[1]
    eval_name = next((n for n in test if n.split("/", 1)[1] == name), None)
    if eval_name in run.series:
        run.meta["eval_objective"] = eval_name
        run.meta["eval_objective_why"] = f"CatBoost's '{eval_name}': its objective on the first eval set"
    return run


def document_into(run: Run, doc: Any, kind: str) -> Run:
    """Every table of a parsed ``kind`` document (JSON, or YAML parsed into the same plain
    structure) read into ``run``; ReadError when it holds none or no numbers."""
    tables = _tables(doc)
    if not tables:
        raise ReadError(f"a {kind} document without a list of records or of values per metric")
    for prefix, rows in tables:
        _table_into(run, prefix, rows)
    if not run.series:
        raise ReadError(f"no numeric metrics in the {kind} document's records")
    return run


def _salvage(text: str, exc: json.JSONDecodeError) -> tuple[list[Any], Damage]:
    """A list of records cut short (a run killed while dumping it): its whole records, and the
    damage. Any other broken document is refused with the decoder's message."""
    start = text.lstrip("\ufeff \t\r\n")
    if not start.startswith("["):
        raise ReadError(f"not a whole JSON document ({json_error(exc)})") from None
    decoder, out, i = json.JSONDecoder(), [], text.index("[") + 1
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        try:
            record, i = decoder.raw_decode(text, i)
        except ValueError:
            break
        out.append(record)
    if not out:
        raise ReadError(f"not a whole JSON document ({json_error(exc)})") from None
    why = f"the JSON list stops short ({json_error(exc)}): its {len(out)} whole record(s) read"
    return out, Damage("truncated", why, {"records": len(out), "line": exc.lineno})


def _table_into(run: Run, prefix: str, rows: list[dict[str, Any]]) -> None:
    """One table's records as series named ``prefix + field``."""
    step_key = next((k for k in (*STEP_KEYS, "epoch") if any(k in r for r in rows[:100])), None)
    part = Run(source=run.source, format=run.format, files=[])
    rows_into(list(enumerate(rows)), part, step_key=step_key)
    for name, s in part.series.items():
        run.add(f"{prefix}{name}", s.steps, np.asarray(s.values), s.wall)
    run.notes.extend(f"{prefix or 'records'}: {n}" for n in part.notes)
    if step_key == "epoch":
        run.meta["steps_are"] = "epochs"
