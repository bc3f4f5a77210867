"""A small YAML reader for the flat files training tools write (hparams.yaml,
MLflow meta.yaml, W&B config.yaml).

PyYAML is used when installed (safe_load only: it never constructs objects);
otherwise a minimal parser reads ``key: value`` lines and indented mappings,
which is all these files need. Nothing here is a core dependency.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def load_yaml(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        import yaml  # optional
    except ImportError:
        return parse_simple(text)
    try:
        data = yaml.safe_load(text)
    except Exception:  # tags from yaml.dump of Python objects, broken files  # noqa: BLE001
        return parse_simple(text)
    return data if isinstance(data, dict) else {}


def _scalar(raw: str) -> Any:
    raw = raw.strip()
    if raw in ("", "~", "null", "None"):
        return None
    if raw in ("true", "True"):
        return True
    if raw in ("false", "False"):
        return False
    if raw[:1] in "'\"" and raw[-1:] == raw[:1] and len(raw) >= 2:
        return raw[1:-1]
    try:
        return int(raw)
    except ValueError:
        pass
    try:
        return float(raw)
    except ValueError:
        pass
    if raw[:1] in "[{":
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def parse_simple(text: str) -> dict[str, Any]:
    """Nested ``key: value`` mappings by indentation; list items and tags are skipped."""
    root: dict[str, Any] = {}
    stack: list[tuple[int, dict[str, Any]]] = [(-1, root)]
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "-", "---")) or ":" not in stripped:
            continue
        indent = len(line) - len(line.lstrip(" "))
        key, _, rest = stripped.partition(":")
        while stack and indent <= stack[-1][0]:
            stack.pop()
        parent = stack[-1][1] if stack else root
        key = key.strip().strip("'\"")
        if rest.strip() == "" or rest.strip().startswith("!!"):
            child: dict[str, Any] = {}
            parent[key] = child
            stack.append((indent, child))
        else:
            parent[key] = _scalar(rest.split(" #")[0])
    return root


def flatten(data: Any, prefix: str = "", out: dict[str, Any] | None = None) -> dict[str, Any]:
    """Nested mappings as dotted keys; scalar leaves only (lists are left out)."""
    out = {} if out is None else out
    if not isinstance(data, dict):
        return out
    for k, v in data.items():
        if isinstance(v, dict):
            flatten(v, f"{prefix}{k}.", out)
        elif isinstance(v, (int, float, str, bool)) or v is None:
            out[f"{prefix}{k}"] = v
    return out
