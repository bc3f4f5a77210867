"""Configuration: ``[tool.trainlint]`` in pyproject.toml or a ``trainlint.toml``.

The file is found from the working directory upward (the nearest wins).
Keys (in trainlint.toml at top level; in pyproject.toml under [tool.trainlint])::

    select = ["TL0", "nan"]             # codes, code prefixes ("TL0"), categories or rule names
    ignore = ["TL005", "stagnation"]
    extend-select = ["TL100"]           # added to select (which defaults to every rule)
    [thresholds.TL010]                  # by code or rule name
    min_rise = 3.0
    [[overrides]]                       # per-path settings, later ones win
    paths = ["runs/smoke*/**"]          # glob on the path as given, absolute, relative to
    ignore = ["stagnation"]             # the config file's folder, or the file name
    thresholds = { TL020 = { z = 8 } }

Thresholds given on the command line (``--threshold CODE.NAME=VALUE``) are pinned with
:meth:`Settings.pin_thresholds` and win over per-path overrides.
"""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import msgspec

from .registry import CATEGORIES, REGISTRY, Rule


class ConfigError(Exception):
    """A configuration file or option that cannot be used."""


class Settings(msgspec.Struct):
    select: list[str] = msgspec.field(default_factory=list)
    ignore: list[str] = msgspec.field(default_factory=list)
    thresholds: dict[str, dict[str, float]] = msgspec.field(default_factory=dict)
    overrides: list[dict[str, Any]] = msgspec.field(default_factory=list)
    origin: str | None = None
    pinned: dict[str, dict[str, float]] = msgspec.field(default_factory=dict)
    extend: list[str] = msgspec.field(default_factory=list)  # extend-select: added to select

    def for_path(self, path: str) -> Settings:
        """These settings with every override whose ``paths`` match ``path`` applied
        (later overrides win; thresholds given on the command line win over all)."""
        out = Settings(
            list(self.select), list(self.ignore), {k: dict(v) for k, v in self.thresholds.items()}, [], self.origin
        )
        out.pinned = {k: dict(v) for k, v in self.pinned.items()}
        out.extend = list(self.extend)
        names = _path_forms(path, self.origin) if self.overrides else []  # resolving costs syscalls
        for ov in self.overrides:
            pats = _strs(ov.get("paths", []), "overrides.paths")
            if any(
                fnmatch.fnmatch(name, pat.rstrip("/")) or fnmatch.fnmatch(name, pat) for pat in pats for name in names
            ):
                out.merge(ov)
        for code, values in out.pinned.items():
            out.thresholds.setdefault(code, {}).update(values)
        return out

    def pin_thresholds(self, values: Mapping[str, Mapping[str, float]]) -> None:
        """Thresholds from the command line: applied now and again after per-path overrides."""
        for code, vals in values.items():
            self.pinned.setdefault(code, {}).update(vals)
            self.thresholds.setdefault(code, {}).update(vals)

    def merge(self, table: Mapping[str, Any]) -> None:
        if "select" in table:
            self.select = _selectors(table["select"], "select")
        self.ignore += _selectors(table.get("ignore", []), "ignore")
        self.extend += _selectors(table.get("extend-select", []), "extend-select")
        thresholds = table.get("thresholds", {})
        if not isinstance(thresholds, Mapping):
            raise ConfigError("thresholds must be a table of rule code -> {name = value}")
        for key, values in thresholds.items():
            rule = REGISTRY.get(key)
            if rule is None:
                raise ConfigError(f"thresholds: unknown rule {key!r}")
            if not isinstance(values, Mapping):
                raise ConfigError(f"thresholds.{key} must be a table of name = value")
            for tname, tval in values.items():
                _check_threshold(rule, tname, tval)
                self.thresholds.setdefault(rule.code, {})[tname] = float(tval)

    def enabled(self, rule: Rule) -> bool:
        """Selected (every rule when ``select`` is empty, plus ``extend-select``) and not ignored."""
        chosen = not self.select or any(_matches(rule, s) for s in (*self.select, *self.extend))
        return chosen and not any(_matches(rule, s) for s in self.ignore)

    def thresholds_for(self, rule: Rule) -> dict[str, float]:
        values = rule.threshold_defaults()
        values.update(self.thresholds.get(rule.code, {}))
        return values


def _strs(value: Any, key: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key} must be a list of strings")
    return list(value)


def _selectors(value: Any, key: str) -> list[str]:
    """A list of selectors, each a code or code prefix (TL0, TL010), a category or a rule name.

    Comma-separated items are split (``"nan,lr"``); every item must match at least one rule."""
    out = [part.strip() for item in _strs(value, key) for part in item.split(",") if part.strip()]
    for s in out:
        if not any(_matches(r, s) for r in REGISTRY.all()):
            raise ConfigError(
                f"{key}: {s!r} is not a rule code, code prefix, category or rule name"
                + did_you_mean(s, selector_words())
            )
    return out


parse_selectors = _selectors


def require_rules(settings: Settings, targets: Iterable[str] | None = None, command: str | None = None) -> None:
    """A selection that leaves no rule (of ``targets``) to run is an error, never a PASS."""
    if not settings.select and not settings.ignore:
        return  # every rule is enabled
    wanted = set(targets) if targets is not None else None
    rules = [r for r in REGISTRY.all() if wanted is None or r.target in wanted]
    if not any(settings.enabled(r) for r in rules):
        what = f"for `{command}` " if wanted is not None and command else ""
        raise ConfigError(
            f"--select/--ignore leave no rule {what}to run (select: "
            f"{', '.join(settings.select) or 'all'}; ignore: {', '.join(settings.ignore) or 'none'})"
        )


def selector_words() -> list[str]:
    """Everything a selector may name: codes, categories and rule names."""
    rules = REGISTRY.all()
    return [r.code for r in rules] + list(CATEGORIES) + [r.name for r in rules]


_DIGIT_LOOKALIKES = str.maketrans("oOlLiI", "001111")


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'nan'?"`` for the closest choices, or "". A code typed with a letter
    for a digit (``TL01O``, ``TLl00``: O for 0, l or I for 1) suggests that code first."""
    import difflib

    choices = list(choices)
    lower = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(word.lower(), list(lower), n=3, cutoff=0.6)
    w = word.strip()
    if len(w) > 2 and w[:2].lower() == "tl":
        code = ("tl" + w[2:].translate(_DIGIT_LOOKALIKES)).lower()
        if code in lower:
            close = [code] + [c for c in close if c != code][:2]
    return "; did you mean " + " or ".join(repr(lower[c]) for c in close) + "?" if close else ""


TOP_KEYS = ("select", "ignore", "extend-select", "thresholds", "overrides")
OVERRIDE_KEYS = ("paths", "select", "ignore", "extend-select", "thresholds")


def _check_keys(table: Mapping[str, Any], known: tuple[str, ...], where: str) -> None:
    for key in table:
        if key not in known:
            raise ConfigError(
                f"{where}: unknown key {key!r}{did_you_mean(key, known)} (known keys: {', '.join(known)})"
            )


def _path_forms(path: str, origin: str | None) -> list[str]:
    """The spellings of ``path`` a pattern may match: as given, absolute, relative to the
    config file's folder, and the bare file name."""
    p = Path(path)
    forms = [p.as_posix(), p.name]
    try:
        absolute = p.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop
        return forms
    forms.append(absolute.as_posix())
    if origin:
        base = Path(origin).resolve().parent
        try:
            forms.append(absolute.relative_to(base).as_posix())
        except ValueError:
            pass
    return forms


def _check_threshold(rule: Rule, name: str, value: Any) -> None:
    known = rule.threshold_defaults()
    if name not in known:
        raise ConfigError(f"{rule.code} has no threshold {name!r} (has: {', '.join(known) or 'none'})")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{rule.code}.{name} must be a number, got {value!r}")


def _matches(rule: Rule, selector: str) -> bool:
    s = selector.strip()
    return (rule.code.startswith(s.upper()) and s.upper().startswith("TL")) or s.lower() in (rule.category, rule.name)


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
        if py.is_file() and "tool.trainlint" in _text_or_empty(py):
            return py
    return None


def _text_or_empty(path: Path) -> str:
    from .safeio import read_str  # imported here: `import trainlint.cli` stays without it

    try:
        return read_str(path)
    except OSError:  # unreadable (or not a regular file): not the config
        return ""


def _read_bytes(path: str | Path) -> bytes:
    from .safeio import read_bytes

    return read_bytes(path)


def load_settings(path: Path | None = None, *, discover: bool = True) -> Settings:
    if path is None and discover:
        path = find_config()
    settings = Settings()
    if path is None:
        return settings
    if sys.version_info >= (3, 11):  # imported here: only a command with a config file pays for it
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        data = tomllib.loads(_read_bytes(path).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from None
    if Path(path).name == "pyproject.toml":
        data = data.get("tool", {}).get("trainlint", {})
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: [tool.trainlint] must be a table")
    where = f"{path}" + (" [tool.trainlint]" if Path(path).name == "pyproject.toml" else "")
    _check_keys(data, TOP_KEYS, where)
    settings.merge(data)
    overrides = data.get("overrides", [])
    if not isinstance(overrides, list) or not all(isinstance(o, dict) for o in overrides):
        raise ConfigError(f"{path}: overrides must be an array of tables ([[overrides]])")
    settings.overrides = list(overrides)
    for ov in settings.overrides:  # validate eagerly so errors surface at start-up
        if "paths" not in ov:
            raise ConfigError(f"{path}: every [[overrides]] needs paths = [...]")
        _strs(ov["paths"], "overrides.paths")
        _check_keys(ov, OVERRIDE_KEYS, f"{path} [[overrides]]")
        Settings().merge(ov)
    settings.origin = str(path)
    return settings
