"""The one YAML loader, for the files training tools write (Lightning ``hparams.yaml``, MLflow
``meta.yaml``, W&B ``config.yaml``, TRL/axolotl configs).

PyYAML is used when installed (``safe_load`` only: it never constructs objects). Without it, or
when it refuses a file (the ``!!python/...`` tags of ``yaml.dump`` of Python objects, a broken
file), a small parser reads what it can: block mappings by indentation, block lists (of
scalars or of mappings), quoted and plain scalars, flow lists and mappings written as JSON;
tags are dropped, anchors and multi-line scalars are not followed. Nothing here is a core
dependency. The file is read through :mod:`trainlint.safeio` (a regular file only).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .safeio import decode, read_bytes

BLOCK_SCALAR = ("|", ">", "|-", ">-", "|+", ">+")
_MAPPING_ITEM = re.compile(r"^[^'\"\[{#][^:]*:(\s|$)")  # "- key: value" opens a mapping


def load_yaml(path: str | Path) -> Any:
    """The YAML document of a file: a mapping as a dict (the fallback parser's always is one),
    whatever else PyYAML reads otherwise. OSError (NotRegular included) when it cannot be read."""
    text, _ = decode(read_bytes(path))
    return parse_yaml(text)


def parse_yaml(text: str) -> Any:
    """``yaml.safe_load`` when PyYAML is installed and accepts ``text``; else :func:`parse_simple`."""
    try:
        import yaml  # optional
    except ImportError:
        return parse_simple(text)
    try:
        return yaml.safe_load(text)
    except Exception:  # tags from yaml.dump of Python objects, broken files  # noqa: BLE001
        return parse_simple(text)


def parse_data(text: str) -> Any:
    """A data document (a saved metrics history), stricter than :func:`parse_yaml`: PyYAML's safe
    loader refusing aliases (an anchor bomb's billions of references) besides tags; ValueError
    with a one-line reason for those and for a broken file. Without PyYAML, :func:`parse_simple`
    (it follows no anchors and reads no top-level list)."""
    try:
        import yaml  # optional
    except ImportError:
        return parse_simple(text)
    try:
        return yaml.load(text, Loader=_no_alias_loader(yaml))  # noqa: S506 - a SafeLoader
    except yaml.YAMLError as exc:
        raise ValueError(" ".join(str(exc).split())[:200]) from None
    except RecursionError:
        raise ValueError("nested too deep") from None


def _no_alias_loader(yaml: Any) -> Any:
    """PyYAML's SafeLoader, refusing an alias (``*name``) where it meets one."""

    def compose_node(self: Any, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError("an alias (*name) to an anchor: not read in a metrics history")
        return yaml.SafeLoader.compose_node(self, parent, index)

    return type("NoAliasLoader", (yaml.SafeLoader,), {"compose_node": compose_node})


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
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    if raw[:1] in "[{":
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


class _Block:
    """The simple parser's state: the open containers, each with the indent of its contents,
    and a ``key:`` whose value is on the lines below (a mapping or a list, or nothing)."""

    def __init__(self) -> None:
        self.root: dict[str, Any] = {}
        self.stack: list[tuple[int, Any]] = [(0, self.root)]
        self.open: tuple[int, dict[str, Any], str] | None = None
        self.skip_deeper: int | None = None  # the lines of a block scalar: deeper than its key

    def line(self, indent: int, text: str) -> None:
        if self.skip_deeper is not None and indent > self.skip_deeper:
            return
        self.skip_deeper = None
        item = text == "-" or text.startswith("- ")
        if self.open is not None:
            k_indent, parent, key = self.open
            self.open = None
            if indent > k_indent or (item and indent == k_indent):
                parent[key] = [] if item else {}
                self.stack.append((indent, parent[key]))
        while len(self.stack) > 1 and (
            indent < self.stack[-1][0] or (not item and isinstance(self.stack[-1][1], list))
        ):
            self.stack.pop()
        at, container = self.stack[-1]
        if item and isinstance(container, list) and indent == at:
            self.item(indent, container, text[1:])
        elif not item and isinstance(container, dict):
            self.pair(indent, container, text)

    def item(self, indent: int, items: list[Any], rest: str) -> None:
        body = rest.lstrip()
        if not _MAPPING_ITEM.match(body):
            items.append(_scalar(body.split(" #")[0]))
            return
        mapping: dict[str, Any] = {}
        items.append(mapping)
        col = indent + 1 + len(rest) - len(body)  # where the mapping's keys sit
        self.stack.append((col, mapping))
        self.pair(col, mapping, body)

    def pair(self, indent: int, mapping: dict[str, Any], text: str) -> None:
        if ":" not in text:
            return
        key, _, rest = text.partition(":")
        key, rest = key.strip().strip("'\""), rest.split(" #")[0].strip()
        if rest.startswith("!"):  # a tag (!!python/tuple): dropped, its value follows
            rest = rest.partition(" ")[2].strip()
        if rest == "":  # the value is on the lines below
            mapping[key] = None
            self.open = (indent, mapping, key)
        elif rest in BLOCK_SCALAR:
            mapping[key] = None
            self.skip_deeper = indent
        else:
            mapping[key] = _scalar(rest)


def parse_simple(text: str) -> dict[str, Any]:
    """The fallback parser (see the module docstring): always a dict, ``{}`` when nothing is read."""
    block = _Block()
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "---", "...", "%")):
            continue
        block.line(len(line) - len(line.lstrip(" ")), stripped)
    return block.root


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
