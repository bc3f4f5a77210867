"""Shared by the environment rule groups: the rules' common properties and byte formatting."""

from __future__ import annotations

from typing import Any

from ...environment import GIB, MIB
from ...registry import Context, NotChecked

BASE: dict[str, Any] = dict(category="environment", target="environment")


def _part(ctx: Context, name: str, why: str) -> Any:
    value = getattr(ctx.subject, name, None)
    if value is None:
        raise NotChecked(why)
    return value


def gib(n: float | None) -> str:
    """A byte count for people: GiB with two decimals, smaller amounts in MiB or KiB."""
    if n is None:
        return "?"
    if abs(n) >= GIB:
        return f"{n / GIB:.2f} GiB"
    return f"{n / MIB:.1f} MiB" if abs(n) >= MIB else f"{n / 1024:.1f} KiB"


def mib(n: float | None) -> str:
    return "?" if n is None else f"{n / MIB:.0f} MiB"


def _where(file: str | None, line: int | None) -> str:
    return f"{file}:{line}" if file else "an unknown place"
