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


def render_table_text(table: dict[str, Any], stream: IO[str]) -> None:
    rows = table.get("rows") or []
    if not rows or not any(r["cells"] for r in rows):
        return
    keys = [k for k in table["columns"] if any(r["cells"].get(k, {}).get("run") is not None for r in rows)]
    first = next(r["cells"] for r in rows if r["cells"])
    lines = [
        ["run", "verdict", *[SHORT.get(k, k) for k in keys]],
        ["baseline", "", *[_cell(first.get(k, {}), k, "baseline") for k in keys]],
    ]
    names = short_names([r["source"] for r in rows])
    for r, name in zip(rows, names):
        lines.append([name, r["verdict"], *[_cell(r["cells"].get(k, {}), k, "run") for k in keys]])
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    n = len(table.get("baseline") or [])
    stream.write(f"comparison with {n} baseline run{'s' if n != 1 else ''} (ratio = run / baseline median)\n")
    for line in lines:
        stream.write("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() + "\n")
    stream.write("\n")
