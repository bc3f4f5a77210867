"""Installed versions of the key training packages, read from metadata without importing them,
a small PEP 440 comparison (release, pre/post/dev; local labels ignored) and specifier matching."""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KEY_PACKAGES = (
    "torch",
    "transformers",
    "accelerate",
    "peft",
    "trl",
    "lightning",
    "pytorch-lightning",
    "deepspeed",
    "numpy",
)
_SKIP_EXTRAS = re.compile(r"test|dev|doc|quality|lint|bench|example", re.IGNORECASE)
_VERSION = re.compile(
    r"^\s*v?(?:(\d+)!)?(\d+(?:\.\d+)*)(?:[-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?(\d*))?"
    r"(?:[-_.]?(post|rev|r)[-_.]?(\d*))?(?:[-_.]?(dev)[-_.]?(\d*))?(?:\+.*)?\s*$",
    re.IGNORECASE,
)
_PRE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_version(text: str) -> tuple[Any, ...] | None:
    """A sortable key for a version string; None when it is not PEP 440-like."""
    m = _VERSION.match(text)
    if not m:
        return None
    epoch = int(m.group(1) or 0)
    release = tuple(int(x) for x in m.group(2).split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    pre = (_PRE[m.group(3).lower()], int(m.group(4) or 0)) if m.group(3) else None
    post = int(m.group(6) or 0) if m.group(5) else None
    dev = int(m.group(8) or 0) if m.group(7) else None
    pre_key = pre if pre is not None else ((-1, 0) if dev is not None and post is None else (9, 0))
    return (epoch, release, pre_key, post if post is not None else -1, dev if dev is not None else 1 << 30)


def _release(text: str) -> tuple[int, ...]:
    m = _VERSION.match(text)
    return tuple(int(x) for x in m.group(2).split(".")) if m else ()


def matches(version: str, spec: str) -> bool | None:
    """Does ``version`` satisfy every clause of ``spec`` (">=2,<3", "==0.14.*", "~=1.4")?
    None when either cannot be understood."""
    have = parse_version(version)
    if have is None:
        return None
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        ok = _clause(version, have, clause)
        if ok is None or not ok:
            return ok
    return True


def _clause(version: str, have: tuple[Any, ...], clause: str) -> bool | None:
    m = re.match(r"^(~=|===|==|!=|<=|>=|<|>)\s*(\S+)$", clause)
    if not m:
        return None
    op, target = m.groups()
    if op in ("==", "!=") and target.endswith(".*"):
        prefix = _release(target[:-2])
        hit = _release(version)[: len(prefix)] == prefix
        return hit if op == "==" else not hit
    want = parse_version(target)
    if want is None:
        return None
    if op == "~=":
        prefix = _release(target)[:-1]
        return have >= want and _release(version)[: len(prefix)] == prefix
    return {
        "==": have == want,
        "===": have == want,
        "!=": have != want,
        "<=": have <= want,
        ">=": have >= want,
        "<": have < want,
        ">": have > want,
    }[op]


def installed(names: tuple[str, ...] = KEY_PACKAGES) -> tuple[dict[str, str], dict[str, list[str]]]:
    versions: dict[str, str] = {}
    requires: dict[str, list[str]] = {}
    for name in names:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        versions[normalize(name)] = dist.version
        requires[normalize(name)] = list(dist.requires or [])
    return versions, requires


def requirement(line: str) -> tuple[str, str, str | None] | None:
    """(name, specifier, extra) of a Requires-Dist line whose marker is absent or only an extra."""
    body, _, marker = line.partition(";")
    m = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?([^()]*)\)?\s*$", body)
    if not m:
        return None
    extra = None
    if marker.strip():
        em = re.fullmatch(r"\s*extra\s*==\s*['\"]([^'\"]+)['\"]\s*", marker)
        if not em:
            return None
        extra = em.group(1)
        if _SKIP_EXTRAS.search(extra):
            return None
    return normalize(m.group(1)), m.group(2).strip(), extra


def load_known_bad(path: Path | None = None) -> list[dict[str, Any]]:
    path = path or Path(__file__).resolve().parents[1] / "data" / "known_bad.toml"
    with open(path, "rb") as fh:
        return list(tomllib.load(fh).get("bad", []))
