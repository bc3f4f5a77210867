"""Read a training configuration into plain values, without running anything.

Sources: HF ``training_args.bin`` (a torch.save pickle, read by walking its opcodes with
:mod:`trainlint.picklewalk`, never unpickled), ``training_args.json``, Lightning
``hparams.yaml`` / Lightning CLI ``config.yaml``, and TRL / axolotl YAML configs.
Keys are found by name anywhere in the (possibly nested) mapping, shallowest first, so
Hydra-style configs (``trainer.max_steps``, ``model.optimizer.lr``) work too.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import msgspec

from .. import picklewalk
from ..safeio import JSONLimit, load_json_file, open_regular
from ..yamlfile import load_yaml

ALIASES: dict[str, tuple[str, ...]] = {
    "learning_rate": ("learning_rate", "lr"),
    "max_steps": ("max_steps", "max_train_steps", "num_training_steps", "total_steps"),
    "warmup_steps": ("warmup_steps", "num_warmup_steps", "lr_warmup_steps"),
    "warmup_ratio": ("warmup_ratio",),
    "fp16": ("fp16",),
    "bf16": ("bf16",),
    "precision": ("precision",),
    "mixed_precision": ("mixed_precision",),
    "deepspeed": ("deepspeed",),
    "logging_nan_inf_filter": ("logging_nan_inf_filter",),
    "save_total_limit": ("save_total_limit", "save_top_k"),
    "save_strategy": ("save_strategy",),
    "save_steps": ("save_steps", "every_n_train_steps"),
    "report_to": ("report_to",),
    "logger": ("logger",),
    "eval_strategy": ("eval_strategy", "evaluation_strategy"),
    "eval_steps": ("eval_steps",),
    "do_eval": ("do_eval",),
    "eval_data": (
        "val_set_size",
        "test_datasets",
        "eval_dataset",
        "val_dataset",
        "validation_file",
        "eval_file",
        "val_data",
        "eval_data",
    ),
    "evals_per_epoch": ("evals_per_epoch",),
    "val_check_interval": ("val_check_interval",),
    "limit_val_batches": ("limit_val_batches",),
    "workers": ("dataloader_num_workers", "num_workers"),
    "output_dir": ("output_dir", "default_root_dir"),
    "logging_dir": ("logging_dir",),
    "logging_strategy": ("logging_strategy",),
    "logging_steps": ("logging_steps", "log_every_n_steps"),
}


class ConfigReadError(Exception):
    """The file is not a training configuration trainlint can read (one line)."""


class TrainConfig(msgspec.Struct):
    source: str
    format: str  # hf-training-args-bin | hf-training-args-json | lightning-yaml | yaml
    raw: dict[str, Any]
    found: dict[str, tuple[Any, str]] = msgspec.field(default_factory=dict)  # canonical -> (value, key path)
    class_name: str | None = None
    notes: list[str] = msgspec.field(default_factory=list)

    def get(self, key: str, default: Any = None) -> Any:
        hit = self.found.get(key)
        return default if hit is None else hit[0]

    def path(self, key: str) -> str:
        hit = self.found.get(key)
        return hit[1] if hit else key

    def has(self, key: str) -> bool:
        return key in self.found

    @property
    def framework(self) -> str:
        return "hf" if self.format.startswith("hf-") else ("lightning" if "lightning" in self.format else "yaml")


def find_keys(raw: dict[str, Any]) -> dict[str, tuple[Any, str]]:
    """canonical name -> (value, dotted path) of the shallowest matching key."""
    found: dict[str, tuple[Any, str]] = {}
    level: list[tuple[str, dict[str, Any]]] = [("", raw)]
    while level:
        nxt: list[tuple[str, dict[str, Any]]] = []
        for prefix, d in level:
            for key, value in d.items():
                path = f"{prefix}{key}"
                for canon, names in ALIASES.items():
                    if canon not in found and str(key) in names:
                        found[canon] = (value, path)
                if isinstance(value, dict):
                    nxt.append((path + ".", value))
        level = nxt
    return found


def plain(node: Any, depth: int = 0) -> Any:
    """A walked pickle node as plain data: enums become their value, objects their state."""
    if depth > 20:
        return "<too deep>"
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if isinstance(node, bytes):
        return f"<{len(node)} bytes>"
    if isinstance(node, dict):
        return {str(k): plain(v, depth + 1) for k, v in node.items()}
    if isinstance(node, (list, tuple, set, frozenset)):
        return [plain(v, depth + 1) for v in node]
    if isinstance(node, picklewalk.Call):
        if (
            len(node.args) == 1
            and node.state is None
            and not node.items
            and isinstance(node.args[0], (str, int, float))
        ):
            return node.args[0]  # an Enum member: IntervalStrategy("steps") -> "steps"
        d = picklewalk.mapping(node)
        if d is not None:
            return {str(k): plain(v, depth + 1) for k, v in d.items()}
        return f"<{node.name}>"
    if isinstance(node, picklewalk.Global):
        return node.dotted
    return f"<{type(node).__name__}>"


def _walk_object(path: Path) -> picklewalk.PickleResult:
    """Walk the object pickle of a torch.save file (zip archive, or the legacy concatenated
    form) without loading the whole file: tensors' storages are never read."""
    with open_regular(path) as fh:
        if fh.read(4) == b"PK\x03\x04":
            try:
                with zipfile.ZipFile(fh) as zf:
                    names = [n for n in zf.namelist() if n.endswith("data.pkl")]
                    if not names:
                        raise ConfigReadError("zip archive without a data.pkl: not a torch.save file")
                    return picklewalk.walk(zf.read(names[0]))
            except (zipfile.BadZipFile, OSError) as exc:
                raise ConfigReadError(f"damaged torch.save archive: {exc}") from None
        start = 0
        for _ in range(3):  # legacy: magic number, protocol version, system info, then the object
            res = picklewalk.walk(fh, start)
            if not res.complete:
                raise ConfigReadError(f"not a torch.save file: {res.error or 'no pickle'}")
            start = res.end
        return picklewalk.walk(fh, start)


def read_bin(path: Path) -> TrainConfig:
    res = _walk_object(path)
    if not res.complete:
        raise ConfigReadError(f"training arguments pickle unreadable: {res.error}")
    root = res.root
    state = picklewalk.mapping(root) if isinstance(root, picklewalk.Call) else None
    if not state or "learning_rate" not in state:
        raise ConfigReadError("pickle holds no TrainingArguments-like object (no learning_rate field)")
    return TrainConfig(str(path), "hf-training-args-bin", plain(state), class_name=root.name)


def read_json(path: Path) -> TrainConfig:
    try:
        raw = load_json_file(path)
    except JSONLimit as exc:
        raise ConfigReadError(str(exc)) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigReadError(f"not readable JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise ConfigReadError("JSON top level is not an object")
    fmt = "hf-training-args-json" if "output_dir" in raw and "learning_rate" in raw else "json"
    return TrainConfig(str(path), fmt, raw)


def read_yaml(path: Path) -> TrainConfig:
    try:
        raw = load_yaml(path)  # PyYAML, or the small parser without it or where PyYAML refuses
    except OSError as exc:
        raise ConfigReadError(f"not readable: {exc.strerror or exc}") from None
    if not isinstance(raw, dict):
        raise ConfigReadError("YAML top level is not a mapping")
    lightning = path.name == "hparams.yaml" or isinstance(raw.get("trainer"), dict)
    return TrainConfig(str(path), "lightning-yaml" if lightning else "yaml", raw)


def read_config(path: str | Path) -> TrainConfig:
    """Read any supported training configuration; ConfigReadError with one line when not."""
    path = Path(path)
    if path.is_dir():
        path = _in_folder(path)
    if not path.is_file():
        raise ConfigReadError(f"no such file: {path}")
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        cfg = read_yaml(path)
    elif suffix == ".json":
        cfg = read_json(path)
    else:
        cfg = read_bin(path)
    cfg.found = find_keys(cfg.raw)
    _attach_deepspeed(cfg, path.parent)
    return cfg


FOLDER_NAMES = ("training_args.bin", "training_args.json", "hparams.yaml", "config.yaml")


def _in_folder(folder: Path) -> Path:
    """The training configuration inside an output folder."""
    for name in FOLDER_NAMES:
        if (folder / name).is_file():
            return folder / name
    raise ConfigReadError(f"no {', '.join(FOLDER_NAMES)} in folder {folder}")


def _attach_deepspeed(cfg: TrainConfig, base: Path) -> None:
    ds = cfg.get("deepspeed")
    if isinstance(ds, str) and ds.endswith(".json"):
        p = Path(ds) if Path(ds).is_absolute() else base / ds
        try:
            if p.is_file() and p.stat().st_size < 1 << 20:
                ds = load_json_file(p)
        except (OSError, ValueError):
            cfg.notes.append(f"DeepSpeed config {p} could not be read")
    if isinstance(ds, dict):
        cfg.found["deepspeed_config"] = (ds, cfg.path("deepspeed"))
