"""The JSON contract (see CONTRACTS.md and schema/report.schema.json), written in one place."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import IO, Any

from ..verdict import Result


def write_json(
    data: Any,
    stream: IO[str],
    *,
    strict: bool = True,
    default: Callable[[Any], Any] | None = None,
    newline: bool = True,
) -> None:
    """Every JSON document trainlint prints goes through here. ``strict``: a non-finite number
    is an error (the contract's envelopes have already turned them into strings or null)."""
    text = json.dumps(data, indent=2, allow_nan=not strict, default=default)  # whole, or nothing written
    stream.write(text)
    if newline:
        stream.write("\n")


def compact_json(data: Any) -> str:
    """Strict, compact, ASCII-only JSON text (for data embedded in a page)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def render_json(result: Result, stream: IO[str]) -> None:
    write_json(result.to_dict(), stream)
