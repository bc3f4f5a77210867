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
  "values": [..], "timestamps": [..]}}``).

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
from .base import ReadError, decode_text, looks_binary, reader
from .jsonl import STEP_KEYS

# A loss's key and the start of its value: a number (a record's), or a list of numbers (Keras').
_LOSS_KEY = re.compile(rb'"[^"\\\n]{0,80}loss[^"\\\n]{0,80}"\s*:\s*(\[\s*)?[-+.\d]', re.I)
# A series of a metric named by its key, a loss among them: {"train.loss": {"steps": [..], "values": [..]}}
_SERIES = re.compile(rb'"[^"\\\n]{0,80}loss[^"\\\n]{0,80}"\s*:\s*\{\s*"(?:steps|values|timestamps)"\s*:\s*\[', re.I)
_INT = re.compile(r"^\d{1,9}$")
MAX_DEPTH = 3  # keys followed down to a list of records


def _records(value: Any) -> bool:
    """A list of (mostly) dicts that hold a number: a table of records."""
    if not isinstance(value, list) or len(value) < 2:  # one record is a document, not a table
        return False
    dicts = [v for v in value[:50] if isinstance(v, dict)]
    return len(dicts) * 2 > min(len(value), 50) and any(type(x) in (int, float) for d in dicts for x in d.values())


def _numbers(value: Any) -> bool:
    return isinstance(value, list) and len(value) > 0 and all(type(v) in (int, float) for v in value[:50])


def _tables(doc: Any, prefix: str = "", depth: int = 0) -> list[tuple[str, list[dict[str, Any]]]]:
    """Every table of records in ``doc``, with the key path that names it."""
    if _records(doc):
        return [(prefix, [r for r in doc if isinstance(r, dict)])]
    if not isinstance(doc, dict) or depth >= MAX_DEPTH:
        return []
    if len(doc) >= 2 and all(_INT.match(k) and isinstance(v, dict) for k, v in doc.items()):
        return [(prefix, [{"step": int(k), **v} for k, v in doc.items()])]  # {"1": {...}, "2": {...}}
    if prefix and _numbers(doc.get("values")) and isinstance(doc.get("steps"), list):  # Sacred's metrics.json
        name, steps = prefix.rstrip("/"), doc["steps"]
        return [("", [{"step": s, name: v} for s, v in zip(steps, doc["values"])])]
    lists = {k: v for k, v in doc.items() if _numbers(v)}
    out = [(prefix, _per_epoch(lists))] if lists and any("loss" in k.lower() for k in lists) else []
    for key, value in doc.items():
        if isinstance(value, (list, dict)) and key not in lists:
            out += _tables(value, f"{prefix}{key}/", depth + 1)
    return out


def _per_epoch(lists: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Lists of values per metric as records, one per epoch (counted from 1)."""
    n = max(len(v) for v in lists.values())
    return [{"epoch": i + 1, **{k: v[i] for k, v in lists.items() if i < len(v)}} for i in range(n)]


@reader("json-records", priority=41)
class JsonRecordsReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        if looks_binary(head):
            return False
        lines = [ln.strip() for ln in head.lstrip(b"\xef\xbb\xbf").splitlines()[:3] if ln.strip()]
        if not lines or lines[0][:1] not in (b"[", b"{"):
            return False
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
        tables = _tables(doc)
        if not tables:
            raise ReadError("a JSON document without a list of records or of values per metric")
        run = Run(source=str(path), format="json-records", files=[str(path)], notes=notes)
        if damage is not None:
            run.damage.append(damage)
        for prefix, rows in tables:
            _table_into(run, prefix, rows)
        if not run.series:
            raise ReadError("no numeric metrics in the JSON document's records")
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
