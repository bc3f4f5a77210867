"""Plain-text rendering of the runs x metrics table (the JSON carries the same table)."""

from __future__ import annotations

from pathlib import PurePath
from typing import IO, Any

from ..rules.stats import fmt

SHORT = {
    "loss_floor": "floor",
    "loss_end": "end",
    "improvement": "improved",
    "loss_gap": "curve",
    "eval_best": "eval",
    "grad_norm": "gnorm",
    "throughput": "speed",
    "lr_peak": "peak LR",
}


def _cell(cell: dict[str, Any], key: str, side: str) -> str:
    value = cell.get(side)
    if value is None:
        return "-"
    text = f"{value * 100:.3g}%" if key == "improvement" else fmt(value)
    if side == "run" and cell.get("ratio") is not None:
        text += f" ({cell['ratio']:.3g}x)"
    return text


def short_names(sources: list[str]) -> list[str]:
    """Sources without the folder they all share (the reports below give the full paths)."""
    parts = [PurePath(src).parts for src in sources]
    if len(parts) < 2:
        return [str(PurePath(*p[-2:])) for p in parts]
    common = 0
    while all(len(p) > common + 1 for p in parts) and len({p[common] for p in parts}) == 1:
        common += 1
    return [str(PurePath(*p[common:])) for p in parts]


TABLE_WIDTH = 100  # the table fits this many columns when the width is not the terminal's
SEP = "  "


def render_table_text(table: dict[str, Any], stream: IO[str], width: int | None = None) -> None:
    """The runs x metrics table within ``width`` columns (default: the terminal's on a terminal,
    else 100): run names clipped from the left, and the metric columns that do not fit beside
    the name and verdict continue in another block below, with the names repeated."""
    rows = table.get("rows") or []
    if not rows or not any(r["cells"] for r in rows):
        return
    width = max(width or _terminal_width(stream) or TABLE_WIDTH, 40)
    keys = [k for k in table["columns"] if any(r["cells"].get(k, {}).get("run") is not None for r in rows)]
    first = next(r["cells"] for r in rows if r["cells"])
    names = [_clip_left(n, max(20, width // 3)) for n in short_names([r["source"] for r in rows])]
    fixed = [["run", "baseline", *names], ["verdict", "", *[r["verdict"] for r in rows]]]
    columns = [
        [
            SHORT.get(k, k),
            _cell(first.get(k, {}), k, "baseline"),
            *[_cell(r["cells"].get(k, {}), k, "run") for r in rows],
        ]
        for k in keys
    ]
    n = len(table.get("baseline") or [])
    stream.write(f"comparison with {n} baseline run{'s' if n != 1 else ''} (ratio = run / baseline median)\n")
    for block in _blocks(columns, width - sum(_width(c) + len(SEP) for c in fixed)):
        cols = fixed + block
        widths = [_width(c) for c in cols]
        for i in range(len(cols[0])):
            stream.write(SEP.join(c[i].ljust(w) for c, w in zip(cols, widths)).rstrip() + "\n")
        stream.write("\n")


def _width(column: list[str]) -> int:
    return max(len(c) for c in column)


def _blocks(columns: list[list[str]], room: int) -> list[list[list[str]]]:
    """The metric columns in order, as many per block as fit in ``room`` (at least one)."""
    out: list[list[list[str]]] = [[]]
    used = 0
    for col in columns:
        w = _width(col) + len(SEP)
        if out[-1] and used + w > room:
            out.append([])
            used = 0
        out[-1].append(col)
        used += w
    return out


def _clip_left(name: str, limit: int) -> str:
    """``…`` and the end of a name longer than ``limit`` (the end names the run's file)."""
    return name if len(name) <= limit else "…" + name[len(name) - limit + 1 :]


def _terminal_width(stream: IO[str]) -> int | None:
    if not getattr(stream, "isatty", lambda: False)():
        return None
    import shutil

    return shutil.get_terminal_size((TABLE_WIDTH, 24)).columns
