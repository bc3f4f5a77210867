"""Datasets: JSONL/JSON/CSV/Parquet files with training-data fields, and Hugging Face
``save_to_disk`` folders. Runs after the log inspector and refuses metric logs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..delimited import header
from ..discover import inspector
from ..options import Options
from ..verdict import Report

METRIC_KEYS = {
    "loss",
    "train_loss",
    "eval_loss",
    "step",
    "global_step",
    "learning_rate",
    "lr",
    "grad_norm",
    "epoch",
    "_step",
    "_timestamp",
    "iteration",
}


def _data_keys() -> set[str]:
    from ..dataset.shape import DATA_KEYS

    return DATA_KEYS


def _is_data_row(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    keys = {str(k).lower() for k in obj}
    if keys & METRIC_KEYS or any("loss" in k for k in keys):
        return False
    return bool(keys & _data_keys())


def _first_objects(text: str) -> list[Any]:
    body = text.lstrip("\ufeff").lstrip()
    if body.startswith("["):
        try:
            obj, _ = json.JSONDecoder().raw_decode(body, 1 + len(body[1:]) - len(body[1:].lstrip()))
            return [obj]
        except ValueError:
            return []
    out = []
    for line in body.splitlines()[:20]:
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


_KEY = re.compile(r'"([^"\\]{1,64})"\s*:')


def _long_row(text: str) -> bool:
    """A first row longer than the sniffed head: judged by its leading keys (the first must be
    a data key or an id, so minified JSON documents such as tokenizer.json do not match)."""
    body = text.lstrip("\ufeff").lstrip().lstrip("[").lstrip()
    if not body.startswith("{"):
        return False
    keys = [k.lower() for k in _KEY.findall(body.split("\n", 1)[0][:4096])][:5]
    if not keys or keys[0] not in _data_keys() | {"id", "idx", "uuid", "source", "task"}:
        return False
    return bool(set(keys) & _data_keys()) and not (set(keys) & METRIC_KEYS or any("loss" in k for k in keys))


def _csv_header(text: str) -> list[str]:
    """The header's names, lower case, as the dataset reader will read them ([] when none)."""
    found = header(text.lstrip("\ufeff"), ",\t;|")
    return [name.lower() for name in found[0]] if found else []


def _parquet_columns(path: Path) -> set[str] | None:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return None
    try:
        return {n.lower() for n in pq.read_schema(str(path)).names}
    except Exception:  # unreadable footer: claim it, so that judging says why  # noqa: BLE001
        return None


@inspector("dataset", priority=60)
class DatasetInspector:
    def sniff(self, path: Path, head: bytes) -> bool:
        if head.startswith(b"PAR1"):
            cols = _parquet_columns(path)
            return (
                cols is None or bool(cols & _data_keys()) and not (cols & METRIC_KEYS or any("loss" in c for c in cols))
            )
        if b"\x00" in head[:1024] or not head.strip():
            return False
        text = head.decode("utf-8", errors="replace")
        if path.suffix.lower() in (".csv", ".tsv"):
            cols = set(_csv_header(text))
            return bool(cols & _data_keys()) and not (cols & METRIC_KEYS or any("loss" in c for c in cols))
        objs = _first_objects(text)
        if objs:
            return all(_is_data_row(o) for o in objs)
        return _long_row(text)

    def judge(self, path: Path, options: Options) -> Report:
        from .dataset_judge import judge_dataset

        reports = judge_dataset(path, options.tokenizer, None, None, options.settings)
        return reports[0]


@inspector("dataset", priority=40, folder=True)
class ArrowFolderInspector:
    def sniff(self, path: Path, head: bytes) -> bool:
        return (path / "state.json").is_file() and any(path.glob("*.arrow"))

    def claims(self, folder: Path) -> list[Path]:
        return [p for p in folder.iterdir() if p.is_file()]

    def judge(self, path: Path, options: Options) -> Report:
        from .dataset_judge import judge_dataset

        return judge_dataset(path, options.tokenizer, None, None, options.settings)[0]
