"""A training history saved as YAML: ``yaml.safe_dump(history.history, f)`` of a Keras
``History`` (``loss:\\n- 2.5\\n- 2.4``: a list of values per metric, one per epoch), or a list
of records (``- epoch: 1\\n  loss: 2.5``), or any shape :mod:`.json_records` reads from JSON.

The document is parsed by :func:`trainlint.yamlfile.parse_data` (PyYAML's safe loader: no tags,
no aliases), turned into the plain structure JSON gives (string keys; numbers, strings, null)
and read by json_records' table finder. Only a document whose head lists values under a key
that says loss, or repeats a loss key in records, is claimed; configs (Hydra's ``.hydra/``,
``hparams.yaml``, ``config.yaml``: a ``loss: mse`` names no list) stay unclaimed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..model import Run
from ..safeio import decode, open_regular
from ..yamlfile import parse_data
from .base import ReadError, looks_binary, reader
from .json_records import document_into
from .numpy_file import says_loss

NAME = "yaml-history"
MAX_BYTES = 8 << 20  # PyYAML is slow; a metrics history is small
MAX_NODES = 1_000_000
MAX_DEPTH = 16
_SUFFIXES = (".yaml", ".yml")
_CONFIG_NAMES = frozenset({"config.yaml", "hparams.yaml", "hydra.yaml", "overrides.yaml", "meta.yaml"})
# A key that says loss with a list of numbers under it (block or flow style): "val_loss:\n- 2.5",
# "loss: [2.5, ..]" (PyYAML before 5.1), "{loss: [2.5, ..], ..}" (default_flow_style=True)
_LIST_LOSS = re.compile(
    r"(?:^|[{,])[ \t]*['\"]?([\w./\- ]{0,80}loss[\w./\- ]{0,80})['\"]?:[ \t]*(?:\r?\n[ \t]*-[ \t]+|\[[ \t]*)[-+.\d]",
    re.I | re.M,
)
# A loss key with a number, in a record ("- loss: 2.5" or "  loss: 2.5" under "- epoch: 1")
_RECORD_LOSS = re.compile(
    r"^[ \t]*(?:-[ \t]+)?['\"]?([\w./\-]{0,80}loss[\w./\-]{0,80})['\"]?:[ \t]+[-+.\d]", re.I | re.M
)
_ITEM = re.compile(r"^[ \t]*-[ \t]+['\"]?\w[\w./\-]*['\"]?:[ \t]", re.M)


def _config_path(path: Path) -> bool:
    return path.name.lower() in _CONFIG_NAMES or any(p in (".hydra", "hydra") for p in path.parent.parts)


def _plain(node: Any, budget: list[int], depth: int = 0) -> Any:
    """The parsed YAML as JSON would give it: string keys, numbers, strings, null (a date, bytes
    or a set as its text); ValueError past MAX_DEPTH or MAX_NODES."""
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise ValueError("a document too large or too deeply nested for a metrics history")
    if isinstance(node, dict):
        return {str(k): _plain(v, budget, depth + 1) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v, budget, depth + 1) for v in node]
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    return str(node)


@reader(NAME, priority=42)
class YamlHistoryReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        if path.suffix.lower() not in _SUFFIXES or looks_binary(head) or _config_path(path):
            return False
        text = head.decode("utf-8", errors="replace")
        if any(says_loss(m[1].strip()) for m in _LIST_LOSS.finditer(text)):
            return True  # a loss's list of values (a loss_weights list is none)
        keys = [k for k in _RECORD_LOSS.findall(text) if says_loss(k)]
        return _ITEM.search(text) is not None and any(keys.count(k) >= 2 for k in set(keys))

    def read(self, path: Path) -> Run:
        with open_regular(path) as fh:
            data = fh.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise ReadError(f"a YAML file past {MAX_BYTES >> 20} MiB: not read as a metrics history")
        text, notes = decode(data)
        try:
            doc = _plain(parse_data(text), [MAX_NODES])
        except ValueError as exc:
            raise ReadError(f"not a YAML metrics history: {exc}") from None
        run = Run(source=str(path), format=NAME, files=[str(path)], notes=notes)
        document_into(run, doc, "YAML")
        if not any(says_loss(name) for name in run.series):
            raise ReadError("a YAML document whose lists name no loss: " + ", ".join(list(run.series)[:8]))
        run.notes.append("a YAML document read as its JSON equivalent (lists of values or records)")
        return run
