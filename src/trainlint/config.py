"""Configuration: ``[tool.trainlint]`` in pyproject.toml or a ``trainlint.toml``.

The file is found from the working directory upward (the nearest wins).
Keys::

    select = ["TL001", "nan"]          # codes, code prefixes ("TL0") or categories
    ignore = ["TL005", "stagnation"]
    [thresholds.TL002]                  # or [tool.trainlint.thresholds.TL002]
    min_rise = 2.0
    [[overrides]]                       # per-path settings, later ones win
    paths = ["runs/smoke*/**"]
    ignore = ["stagnation"]
    thresholds = { TL003 = { min_points = 10 } }
"""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .registry import REGISTRY, Rule

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class ConfigError(Exception):
    """A configuration file or option that cannot be used."""


@dataclass
class Settings:
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    thresholds: dict[str, dict[str, float]] = field(default_factory=dict)
    overrides: list[dict[str, Any]] = field(default_factory=list)
    origin: str | None = None

    def for_path(self, path: str) -> Settings:
        """These settings with every override whose ``paths`` match ``path`` applied."""
        out = Settings(list(self.select), list(self.ignore),
                       {k: dict(v) for k, v in self.thresholds.items()}, [], self.origin)
        posix = Path(path).as_posix()
        for ov in self.overrides:
            if any(fnmatch.fnmatch(posix, pat) or fnmatch.fnmatch(Path(path).name, pat)
                   for pat in ov.get("paths", [])):
                out.merge(ov)
        return out

    def merge(self, table: Mapping[str, Any]) -> None:
        if "select" in table:
            self.select = _strs(table["select"], "select")
        self.ignore += _strs(table.get("ignore", []), "ignore")
        self.select += _strs(table.get("extend-select", []), "extend-select")
        for key, values in dict(table.get("thresholds", {})).items():
            rule = REGISTRY.get(key)
            if rule is None:
                raise ConfigError(f"thresholds: unknown rule {key!r}")
            for tname, tval in dict(values).items():
                _check_threshold(rule, tname, tval)
                self.thresholds.setdefault(rule.code, {})[tname] = float(tval)

    def enabled(self, rule: Rule) -> bool:
        if self.select and not any(_matches(rule, s) for s in self.select):
            return False
        return not any(_matches(rule, s) for s in self.ignore)

    def thresholds_for(self, rule: Rule) -> dict[str, float]:
        values = rule.threshold_defaults()
        values.update(self.thresholds.get(rule.code, {}))
        return values


def _strs(value: Any, key: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key} must be a list of rule codes, prefixes or categories")
    return list(value)


def _check_threshold(rule: Rule, name: str, value: Any) -> None:
    known = rule.threshold_defaults()
    if name not in known:
        raise ConfigError(f"{rule.code} has no threshold {name!r} (has: {', '.join(known) or 'none'})")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{rule.code}.{name} must be a number, got {value!r}")


def _matches(rule: Rule, selector: str) -> bool:
    s = selector.strip()
    return (rule.code.startswith(s.upper()) and s.upper().startswith("TL")) or \
        s.lower() in (rule.category, rule.name)


def parse_threshold_options(items: Iterable[str]) -> dict[str, dict[str, float]]:
    """Parse ``--threshold CODE.NAME=VALUE`` command-line options."""
    out: dict[str, dict[str, float]] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        code, dot, name = key.strip().partition(".")
        if not sep or not dot:
            raise ConfigError(f"--threshold expects CODE.NAME=VALUE, got {item!r}")
        rule = REGISTRY.get(code)
        if rule is None:
            raise ConfigError(f"--threshold: unknown rule {code!r}")
        try:
            value = float(raw)
        except ValueError:
            raise ConfigError(f"--threshold {key}: {raw!r} is not a number") from None
        _check_threshold(rule, name, value)
        out.setdefault(rule.code, {})[name] = value
    return out


def find_config(start: Path | None = None) -> Path | None:
    """The nearest trainlint.toml, or pyproject.toml with a [tool.trainlint] table."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        own = folder / "trainlint.toml"
        if own.is_file():
            return own
        py = folder / "pyproject.toml"
        if py.is_file() and "tool.trainlint" in py.read_text(encoding="utf-8", errors="replace"):
            return py
    return None


def load_settings(path: Path | None = None, *, discover: bool = True) -> Settings:
    if path is None and discover:
        path = find_config()
    settings = Settings()
    if path is None:
        return settings
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from None
    if Path(path).name == "pyproject.toml":
        data = data.get("tool", {}).get("trainlint", {})
    settings.merge(data)
    settings.overrides = list(data.get("overrides", []))
    for ov in settings.overrides:  # validate eagerly so errors surface at start-up
        Settings().merge(ov)
    settings.origin = str(path)
    return settings
