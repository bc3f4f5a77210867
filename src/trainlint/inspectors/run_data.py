"""The data a run was trained and evaluated on, found with the run, and how much the eval split
shares with the training split.

Looked for in the run folder, its ``data/`` subfolder, and the paths a config in the run folder
names (``run_config.json``, ``training_args.json``, ``*.yaml``: keys such as ``train_file``,
``validation_file``, ``eval_file``, ``test_file``, ``train_data``, ``val_data``; and the
``path:`` entries of axolotl-style ``datasets:`` / ``test_datasets:`` lists in any ``*.yml`` /
``*.yaml`` of the folder). ``training_args.bin`` names no data files (the Trainer's arguments hold
none), so it is not read here.
Rows are compared as text lines after stripping whitespace (JSON lines, CSV rows, text lines).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from ..options import Options
from ..safeio import open_regular, read_str
from .dataset_handoff import entropy_extra, file_stamp

DATA_SUFFIXES = (".jsonl", ".json", ".csv", ".tsv", ".txt", ".ndjson")
TRAIN = re.compile(r"(?i)(^|[_\-.])(train|training)([_\-.]|$)")
EVAL = re.compile(r"(?i)(^|[_\-.])(val|valid|validation|eval|dev|test)([_\-.]|$)")
CONFIG_KEYS = {
    "train_file": "train",
    "train_data": "train",
    "train_path": "train",
    "train_dataset": "train",
    "validation_file": "eval",
    "eval_file": "eval",
    "valid_file": "eval",
    "val_data": "eval",
    "eval_data": "eval",
    "val_path": "eval",
    "eval_path": "eval",
    "test_file": "eval",
    "eval_dataset": "eval",
    "validation_data": "eval",
}
CONFIG_NAMES = (
    "run_config.json",
    "training_args.json",
    "train_config.json",
    "config.yaml",
    "train.yaml",
    "run_config.yaml",
    "args.json",
)
MAX_ROWS = 500_000
MAX_BYTES = 512 << 20
MAX_LINKED = 8  # files compared per split: a folder of 100 shards each side is not 10,000 full reads
# a name that says the file is a record of the run, not its data: train_log.csv, val_metrics.jsonl,
# training_history.csv, test_results.txt (the metric tables of a logs folder are no splits)
RECORD = re.compile(r"(?i)(^|[_\-.])(log|logs|metrics?|history|loss|losses|progress|results?|stats|curves?)([_\-.]|$)")


def _split_of(path: Path) -> str | None:
    stem = path.name.lower()
    for suffix in DATA_SUFFIXES:
        stem = stem.removesuffix(suffix)
    if RECORD.search(stem):
        return None
    if TRAIN.search(stem):
        return "train"
    if EVAL.search(stem):
        return "eval"
    return None


def _data_files(folder: Path) -> list[Path]:
    try:
        return sorted(
            p
            for p in folder.iterdir()
            if p.is_file()
            and p.name.lower().endswith(DATA_SUFFIXES)
            and not p.name.startswith(("trainer_state", "training_args", "run_config", "trainlint-"))
        )
    except OSError:
        return []


def _from_configs(folder: Path) -> dict[str, list[Path]]:
    """Data files the run's configs name: each config read once, none over MAX_CONFIG_BYTES."""
    out: dict[str, list[Path]] = {"train": [], "eval": []}
    named: list[tuple[str, str]] = []
    for path in _configs(folder, ".json"):
        if path.name in CONFIG_NAMES:
            named += _config_keys(_json(path))
    for path in _configs(folder, ".yml", ".yaml"):
        doc = _yaml(path)
        if path.name in CONFIG_NAMES:
            named += _config_keys(doc)
        named += _dataset_paths(doc)
    for split, value in named:
        if split and value:
            target = (folder / value) if not Path(value).is_absolute() else Path(value)
            if target.is_file() and target not in out[split]:
                out[split].append(target)
    return out


# axolotl-style lists: ``datasets: [- path: x.jsonl]`` (training) and ``test_datasets:`` (eval)
_DATASET_SECTIONS = {"datasets": "train", "train_datasets": "train", "test_datasets": "eval", "eval_datasets": "eval"}
MAX_CONFIG_BYTES = 256 << 10


def _configs(folder: Path, *suffixes: str) -> list[Path]:
    """The regular files of ``folder`` with one of ``suffixes``, up to MAX_CONFIG_BYTES each."""
    try:
        return sorted(
            p for p in folder.iterdir() if p.suffix in suffixes and p.is_file() and p.stat().st_size <= MAX_CONFIG_BYTES
        )
    except OSError:
        return []


def _config_keys(obj: Any) -> list[tuple[str, str]]:
    """(split, value) for every string value in a config, the split from its key ("" if none)."""
    return [(CONFIG_KEYS.get(k.lower(), ""), v) for k, v in _flat(obj) if isinstance(v, str)]


def _dataset_paths(doc: Any) -> list[tuple[str, str]]:
    """(split, path) for each item's ``path:`` in a top-level ``datasets:``-like list."""
    if not isinstance(doc, dict):
        return []
    return [
        (split, item["path"])
        for key, items in doc.items()
        if (split := _DATASET_SECTIONS.get(str(key).lower())) and isinstance(items, list)
        for item in items
        if isinstance(item, dict) and isinstance(item.get("path"), str)
    ]


def _yaml(path: Path) -> Any:
    from ..yamlfile import load_yaml

    try:
        return load_yaml(path)
    except OSError:
        return {}


def _json(path: Path) -> Any:
    try:
        return json.loads(read_str(path))
    except (ValueError, RecursionError):
        return {}


def _flat(obj: Any) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.append((str(k), v))
            out.extend(_flat(v))
    elif isinstance(obj, list):
        for v in obj:
            out.extend(_flat(v))
    return out


def find_splits(folder: Path) -> dict[str, list[Path]]:
    """Train and eval data files that belong to the run in ``folder``."""
    found = _from_configs(folder)
    for where in (folder, folder / "data"):
        for p in _data_files(where):
            split = _split_of(p)
            if split and p not in found[split]:
                found[split].append(p)
    return found


def _digest(path: Path) -> str:
    import hashlib  # OpenSSL's loader: 2 ms, paid only by a run with data beside it

    h = hashlib.sha256()
    with open_regular(path) as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _rows(path: Path) -> dict[str, int]:
    """Row text (stripped) -> first line number; header of a CSV left out; blank lines skipped."""
    from hashlib import blake2b

    out: dict[str, int] = {}
    with open_regular(path) as fh:
        for n, raw in enumerate(fh, 1):
            if n > MAX_ROWS:
                break
            text = raw.strip()
            if text:
                out.setdefault(blake2b(text, digest_size=12).hexdigest(), n)
    if path.suffix.lower() in (".csv", ".tsv") and out:
        out.pop(next(iter(out)))
    return out


@functools.lru_cache(maxsize=MAX_LINKED + 1)  # a train file and every eval file it is paired with
def _cached_rows(path: str, _stamp: tuple[int, int]) -> dict[str, int]:
    return _rows(Path(path))


def overlap(train: Path, evaluation: Path) -> dict[str, Any]:
    """What the eval file shares with the train file: identical bytes, or rows in common."""
    facts: dict[str, Any] = {"train": str(train), "eval": str(evaluation)}
    if train.stat().st_size <= MAX_BYTES and evaluation.stat().st_size <= MAX_BYTES:
        facts["identical"] = train.stat().st_size == evaluation.stat().st_size and _digest(train) == _digest(evaluation)
    else:
        facts["identical"] = False
    ev, tr = _cached_rows(str(evaluation), file_stamp(evaluation)), _cached_rows(str(train), file_stamp(train))
    shared = [line for key, line in ev.items() if key in tr]
    facts.update(
        eval_rows=len(ev),
        shared_rows=len(shared),
        share=len(shared) / len(ev) if ev else 0.0,
        shared_lines=sorted(shared)[:20],
    )
    return facts


def linked_overlaps(folder: Path) -> tuple[list[dict[str, Any]], dict[str, list[Path]]]:
    """Every (train, eval) pair found with the run, with its overlap facts (computed once per
    pair of file versions: a folder of many logs beside one data set reads it once). Up to
    MAX_LINKED files of each split are compared, in name order."""
    splits = find_splits(folder)
    pairs = []
    for tr in splits["train"][:MAX_LINKED]:
        for ev in splits["eval"][:MAX_LINKED]:
            if tr.resolve() != ev.resolve():
                try:
                    pairs.append(dict(_cached_overlap(str(tr), str(ev), file_stamp(tr), file_stamp(ev))))
                except OSError:
                    continue
    return pairs, splits


@functools.lru_cache(maxsize=64)
def _cached_overlap(train: str, evaluation: str, _a: tuple[int, int], _b: tuple[int, int]) -> dict[str, Any]:
    return overlap(Path(train), Path(evaluation))


def _own_files(run: Any, source: Path) -> set[Path]:
    """The files read as the run's log (never linked as its data)."""
    try:
        return {Path(str(f)).resolve() for f in (*run.files, source)}
    except (OSError, RuntimeError):  # a symlink loop
        return set()


def run_links(run: Any, options: Options) -> dict[str, Any]:
    """``extra`` for the log rules from the data found with the run: the split overlaps (TL067)
    and, when no --dataset was given, the label entropy of its training data (TL099). Adds a
    note listing what was linked."""
    source = Path(str(run.source).split("#")[0])
    folder = source if source.is_dir() else source.parent
    try:
        pairs, splits = linked_overlaps(folder)
    except OSError:
        return {}
    own = _own_files(run, source)
    if own & {p.resolve() for found in splits.values() for p in found}:  # a file read as the log is no data
        splits = {k: [p for p in v if p.resolve() not in own] for k, v in splits.items()}
        pairs = [pair for pair in pairs if Path(pair["train"]).resolve() not in own]
        pairs = [pair for pair in pairs if Path(pair["eval"]).resolve() not in own]
    if not splits["train"] and not splits["eval"]:
        return {}
    note = "linked to this run: " + ", ".join(_shown(splits, folder))
    if note not in run.notes:
        run.notes.append(note)
    run.meta["linked_data"] = {k: [str(p) for p in v] for k, v in splits.items()}
    extra: dict[str, Any] = {"split_overlap": pairs}
    if options.dataset is None and splits["train"]:
        tok = run.meta.get("tokenizer_path")
        extra.update(entropy_extra(splits["train"][0], Path(tok).parent if tok else options.tokenizer))
    return extra


def _shown(splits: dict[str, list[Path]], folder: Path) -> list[str]:
    """Each split's first MAX_LINKED files by name, then how many more were found and not compared."""
    shown = []
    for split in ("train", "eval"):
        found = splits[split]
        shown += [f"{split} data {_rel(p, folder)}" for p in found[:MAX_LINKED]]
        if len(found) > MAX_LINKED:
            shown.append(f"{len(found) - MAX_LINKED} more {split} files (not compared)")
    return shown


def _rel(path: Path, folder: Path) -> str:
    try:
        return path.relative_to(folder).as_posix()
    except ValueError:
        return str(path)
