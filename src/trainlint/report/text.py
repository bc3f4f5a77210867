"""The terminal view: the answer first, one block per input, a short summary at the end.

Per input: the verdict, the path, the format and size, and for logs the loss (and eval loss)
at a glance as a sparkline with start → end. Then the FAIL/WARN findings, each with its
numbers and a ``help:`` line. NOTEs, notes and the checked / stood-down / not-checked
bookkeeping only with ``-v``; ``-q`` shows only FAIL and NOT-CHECKED inputs, each once, and the counts.
Colour (ANSI) on a terminal unless NO_COLOR; wrapped at the terminal's width on a terminal,
never wrapped when piped (so grep sees whole lines)."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterable
from typing import IO, Any

from ..verdict import Finding, Report, Result
from .common import (
    View,
    counts_text,
    curve_text,
    exit_code,
    first_problem,
    fmt_num,
    fmt_step,
    interrupted_text,
    origin_text,
    rule_help,
)

ANSI = {
    "FAIL": "1;31",
    "WARN": "33",
    "NOT-CHECKED": "35",
    "PASS": "32",
    "NOTE": "36",
    "dim": "2",
    "bold": "1",
}
CURVES = (("loss", "loss"), ("eval_loss", "eval loss"))
INDENT = "      "


def _use_color(stream: IO[str]) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return bool(getattr(stream, "isatty", lambda: False)())


ASCII_FALLBACK = str.maketrans(
    {
        "▁": "_",
        "▂": ".",
        "▃": ":",
        "▄": "-",
        "▅": "=",
        "▆": "+",
        "▇": "*",
        "█": "#",
        "→": ">",
        "↑": "^",
        "−": "-",
        "×": "x",
        "…": "~",
        "·": "-",
    }
)


def _can_encode(stream: IO[str], sample: str) -> bool:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        sample.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _is_tty(stream: IO[str]) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)())


class Out:
    """Writes lines: wrapped with a hanging indent at ``width`` (None: never) and coloured."""

    def __init__(self, stream: IO[str], view: View) -> None:
        self.stream = stream
        self.view = view
        self.color = _use_color(stream) if view.color is None else view.color
        width = view.width
        if width is None and _is_tty(stream):
            import shutil  # 3 ms with its compression modules: only a terminal needs it

            width = shutil.get_terminal_size((80, 24)).columns
        self.width = max(width, 40) if width else None
        self.ascii = not _can_encode(stream, "▁█→↑−×…·")

    def write(self, text: str) -> None:
        """Write, spelling the block characters and arrows in ASCII when the stream's
        encoding cannot carry them (a cp1252 pipe on Windows)."""
        if self.ascii:
            text = text.translate(ASCII_FALLBACK).encode("ascii", "replace").decode("ascii")
        self.stream.write(text)

    def paint(self, text: str, style: str | None) -> str:
        if not self.color or not style or style not in ANSI:
            return text
        return f"\x1b[{ANSI[style]}m{text}\x1b[0m"

    def line(
        self,
        text: str = "",
        style: str | None = None,
        *,
        indent: str = "",
        lead: str | None = None,
        lead_style: str | None = None,
    ) -> None:
        """``lead`` (styled separately) + ``text``, continuation lines indented by ``indent``."""
        full = (lead or "") + text
        rows = self.wrap(full, indent)
        for i, row in enumerate(rows):
            if i == 0 and lead and row.startswith(lead):
                row = self.paint(lead, lead_style or style) + self.paint(
                    row[len(lead) :], style if lead_style else None
                )
            elif i == 0:
                row = self.paint(row, style)
            self.write(row + "\n")

    def wrap(self, text: str, indent: str) -> list[str]:
        if not self.width or len(text) <= self.width:
            return [text]
        return textwrap.wrap(
            text,
            self.width,
            subsequent_indent=indent,
            break_on_hyphens=False,
            break_long_words=True,
        ) or [text]

    def clip(self, text: str) -> str:
        if self.width and len(text) > self.width:
            return text[: self.width - 1] + "…"
        return text


def render_text(result: Result, stream: IO[str], view: View | None = None, blocks: list[str] | None = None) -> None:
    """Every report's block, then the summary. ``blocks``: from :func:`text_blocks` on this
    result (each block rendered once); else they are rendered here the same way."""
    view = view or View()
    out = Out(stream, view)
    if blocks is None:
        result, blocks = text_blocks(result, stream, view)
    for block in blocks:
        stream.write(block)
    render_summary(out, result)


def text_blocks(result: Result, stream: IO[str], view: View) -> tuple[Result, list[str]]:
    """Each report's block as it will be written to ``stream``, in the order shown; a report
    whose block cannot be rendered is replaced, in the Result too, by its NOT-CHECKED report
    (issue 33: one input never breaks the view of the others)."""
    import io

    from msgspec.structs import replace

    from .common import unreportable

    out = Out(stream, view)  # colours, width and encoding for the real stream
    swaps: dict[int, Report] = {}
    blocks = []
    for r in sorted(result.reports, key=lambda r: r.source):
        out.stream = io.StringIO()
        try:
            render_report(out, r)
        except Exception as exc:  # noqa: BLE001  (any renderer bug: this input's NOT-CHECKED)
            swaps[id(r)] = swap = unreportable(r, exc)
            out.stream = io.StringIO()
            try:
                render_report(out, swap)
            except Exception:  # noqa: BLE001  (the bug is in what every block shows: one plain line)
                out.stream = io.StringIO()
                out.line(f"NOT-CHECKED  {swap.source}: {swap.unjudged}", "NOT-CHECKED", indent=INDENT)
        blocks.append(out.stream.getvalue())
    if swaps:
        result = replace(result, reports=[swaps.get(id(r), r) for r in result.reports])
    return result, blocks


def render_report(out: Out, r: Report) -> None:
    """One input's block (nothing in quiet mode unless it FAILs or could not be judged)."""
    verdict = r.verdict.value
    verbose = out.view.verbosity > 0
    if out.view.verbosity < 0 and verdict not in ("FAIL", "NOT-CHECKED"):
        return
    scope = f" {r.scope}" if r.scope else ""  # "PASS on 10 points: trend rules need 20"
    out.line(
        f"{name_of(r)}  ({describe(r)})",
        lead=f"{verdict:<4}{scope}  ",
        lead_style=verdict,
        indent=INDENT,
    )
    for role, label in CURVES:
        curve = r.curves.get(role)
        if curve and curve.get("values"):
            out.line(
                f"{INDENT}{label:<10}{curve_text(curve, span=_span(r, role, curve))}",
                indent=INDENT,
            )
    if _found_lines(r):  # `trainlint env`: what each probe found, also on a PASS
        for note in r.notes:
            out.line(f"{INDENT}{note}", indent=INDENT + "  ")
    ckpts = r.summary.get("checkpoints")
    if isinstance(ckpts, dict) and (ckpts.get("steps") or ckpts.get("named")):
        out.line(f"{INDENT}{checkpoints_line(ckpts)}", indent=INDENT)
    moved = r.summary.get("relative_change")
    if isinstance(moved, dict):
        for row in change_lines(moved, verbose):
            out.line(f"{INDENT}{row}", indent=INDENT + "  ")
    body = False
    if r.unjudged:
        out.line(f"{INDENT}could not judge: {r.unjudged}", indent=INDENT + "  ")
        body = True
    for f, n in _findings(r.findings, verbose):
        _finding(out, f, n, verbose)
        body = True
    if isinstance(r.summary.get("tensor_table"), list):
        body = _tensor_table(out, r.summary["tensor_table"], verbose) or body
    if verbose:
        body = _bookkeeping(out, r) or body
    if body:
        out.line()


def checkpoints_line(c: dict[str, Any]) -> str:
    """``3 checkpoints (40, 80, 120): complete, tensors finite``."""
    steps = [*c["steps"], *(c.get("named") or [])]  # Lightning: last.ckpt and other names
    shown = ", ".join(str(s) for s in steps[:8]) + (f", +{len(steps) - 8} more" if len(steps) > 8 else "")
    noun = "checkpoint" if len(steps) == 1 else "checkpoints"
    bad = c.get("with_findings") or []
    prefix = "checkpoint-" if c.get("named") is None else "checkpoint "
    state = "findings in " + ", ".join(f"{prefix}{s}" for s in bad) if bad else "complete"
    if not bad:
        state += ", tensors finite" if c.get("values_scanned") else ", tensor values not scanned"
    return f"{len(steps)} {noun} ({shown}): {state}"


CHANGE_ROWS = 5


def change_lines(c: dict[str, Any], verbose: bool) -> list[str]:
    """``ckpt A B``: how far the weights moved, relative L2 per tensor, largest first."""
    largest = c.get("largest") or []
    head = (
        f"weights moved: median relative L2 {fmt_num(c.get('median'))} over "
        f"{c.get('tensors')} tensors (|after - before| / |before|)"
    )
    if c.get("unreadable"):
        head += f"; {c['unreadable']} changed tensors not readable"
    shown = largest if verbose else largest[:CHANGE_ROWS]
    width = max((len(str(x["key"])) for x in shown), default=0)
    rows = [f"  {str(x['key']).ljust(width)}  {fmt_num(x['relative_l2'])}" for x in shown]
    if len(largest) > len(shown):
        rows.append(f"  +{len(largest) - len(shown)} more (all with -v or --format json)")
    return [head] + rows


def name_of(r: Report) -> str:
    """How a report is named: a tracker run's ``experiment/run (short id)``, else its path."""
    title = r.summary.get("title")
    return str(title) if title else r.source


TENSOR_ROWS = 20


def _tensor_table(out: Out, rows: list[dict[str, Any]], verbose: bool) -> bool:
    """``ckpt --tensors``: name, dtype, shape, bytes, NaN / Inf counts and all-zero, first rows
    then ``+N more`` (every row with -v)."""
    if not rows:
        out.line(f"{INDENT}no tensor table could be read")
        return True
    shown = rows if verbose else rows[:TENSOR_ROWS]
    table = [("name", "dtype", "shape", "bytes", "NaN", "Inf", "zero")]
    for t in shown:
        shape = "x".join(str(d) for d in t.get("shape") or []) or "scalar"
        zero = "all" if t.get("all_zero") is True else "" if t.get("all_zero") is False else "?"
        table.append(
            (
                str(t.get("name")),
                str(t.get("dtype")),
                shape,
                str(t.get("bytes")),
                _count(t.get("nan")),
                _count(t.get("inf")),
                zero,
            )
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        cells = [c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        out.line(INDENT + "  ".join(cells).rstrip())
    if len(rows) > len(shown):
        out.line(f"{INDENT}+{len(rows) - len(shown)} more (all with -v or --format json)")
    return True


def _count(value: object) -> str:
    return "?" if value is None else str(value)


def _span(r: Report, role: str, curve: dict[str, Any]) -> str:
    """``, steps 2-300`` after a curve (the loss's exact range from the summary)."""
    s = r.summary
    if role == "loss" and s.get("first_step") is not None and s.get("last_step") is not None:
        first, last = s["first_step"], s["last_step"]
    elif curve.get("steps"):
        first, last = curve["steps"][0], curve["steps"][-1]
    else:
        return ""
    return f", steps {fmt_step(first)}-{fmt_step(last)}"


def describe(r: Report) -> str:
    """``hf-trainer-state, 150 points, steps 2-300`` / ``dataset, jsonl, 50 rows``."""
    s = r.summary
    parts = [r.format or r.kind] if r.kind == "log" else [r.kind] + ([r.format] if r.format else [])
    if "loss_points" in s:
        parts.append(f"{s['loss_points']} points")
        shown = bool((r.curves.get("loss") or {}).get("values"))  # the steps go on the loss line
        if not shown and s.get("first_step") is not None and s.get("last_step") is not None:
            parts.append(f"steps {fmt_step(s['first_step'])}-{fmt_step(s['last_step'])}")
    elif isinstance(s.get("rows"), int):
        parts.append(f"{s['rows']} rows")
    elif isinstance(s.get("tensors"), int):
        parts.append(f"{s['tensors']} tensors")
    return ", ".join(parts)


def _findings(findings: list[Finding], verbose: bool) -> list[tuple[Finding, int]]:
    """FAIL/WARN findings (and NOTEs with -v); identical NOTEs collapse into one with a count."""
    out: list[tuple[Finding, int]] = []
    seen: dict[tuple[str, str], int] = {}
    for f in findings:
        if f.severity.value == "NOTE":
            if not verbose:
                continue
            key = (f.code, f.message)
            if key in seen:
                i = seen[key]
                out[i] = (out[i][0], out[i][1] + 1)
                continue
            seen[key] = len(out)
        out.append((f, 1))
    return out


def _finding(out: Out, f: Finding, count: int, verbose: bool) -> None:
    sev = f.severity.value
    at = f" step {fmt_step(f.step)}" if f.step is not None else ""
    times = f" (×{count})" if count > 1 else ""
    part = f.evidence.get("part") if isinstance(f.evidence, dict) else None
    if part and count == 1:
        at += f" [{part}]"
    at += origin_text(f)
    out.line(
        f"{f.code} {f.name}{at}: {f.message}{times}",
        lead=f"  {sev:<4} ",
        lead_style=sev,
        indent=INDENT + "  ",
    )
    if sev == "NOTE" and not verbose:
        return
    tip = rule_help(f.code)
    more = f"trainlint rules {f.code}"
    text = f"{tip} ({more})" if tip else f"see `{more}`"
    if sev != "NOTE":
        out.line(text, lead=f"{INDENT}help: ", lead_style="dim", indent=INDENT + "      ")


FOUND = ("accelerators", "resources", "versions")


def _found_lines(r: Report) -> bool:
    """An environment probe's notes say what it found (CPU build, GPUs, memory, versions): they
    are its body in the default view, not bookkeeping."""
    return r.kind == "environment" and r.format in FOUND


def _bookkeeping(out: Out, r: Report) -> bool:
    """Files, notes and what ran / stood down / was not checked (``-v``)."""
    wrote = False
    for text in _bookkeeping_lines(r):
        out.line(f"  {text}", indent="    ")
        wrote = True
    return wrote


def _bookkeeping_lines(r: Report) -> Iterable[str]:
    if r.summary.get("title"):
        yield f"path: {r.source}"
    if len(r.files) > 1:
        yield "files: " + ", ".join(r.files)
    for p in r.summary.get("parts") or []:
        yield f"part {p['part']}: {p['verdict']} ({p['kind']}, {p['format']})"
    for note, n in [] if _found_lines(r) else _counted(r.notes):
        yield f"note: {note}" + (f" (×{n})" if n > 1 else "")
    ch = r.checks
    if ch.ran:
        yield f"checked ({len(ch.ran)}): " + ", ".join(ch.ran)
    for code, why in ch.stood_down.items():
        yield f"stood down {code}: {why}"
    by_reason: dict[str, list[str]] = {}
    for code, why in ch.not_checked.items():
        by_reason.setdefault(why, []).append(code)
    for why, codes in by_reason.items():
        yield f"not checked: {', '.join(codes)}: {why}"


def _counted(items: list[str]) -> list[tuple[str, int]]:
    seen: dict[str, int] = {}
    for it in items:
        seen[it] = seen.get(it, 0) + 1
    return list(seen.items())


def render_summary(out: Out, result: Result) -> None:
    """Every FAIL and NOT-CHECKED input with its first finding or reason, then the counts; with
    ``-q`` only the counts (the failing inputs' blocks, all that -q shows, each appear once)."""
    bad = [r for r in sorted(result.reports, key=lambda r: r.source) if r.verdict.value in ("FAIL", "NOT-CHECKED")]
    if result.empty_reason:
        out.line(f"NOT-CHECKED  {result.empty_reason}", "NOT-CHECKED", indent=INDENT)
    for why, seen in (result.extra.get("skipped") or {}).items():  # what a scan left alone (issue 20)
        out.line(
            f"skipped {seen['count']} ({why}): "
            + ", ".join(seen["paths"][:3])
            + (", ..." if seen["count"] > 3 else ""),
            indent=INDENT,
        )
    if bad and len(result.reports) > 1 and out.view.verbosity >= 0:  # -q: each block was the summary
        out.line("short summary", "bold")
        for r in bad:
            v = r.verdict.value
            text = out.clip(f"{v:<4} {name_of(r)}: {first_problem(r)}")
            out.write(out.paint(text[: len(v)], v) + text[len(v) :] + "\n")
    _not_recognised(out, result)
    code = exit_code(result, out.view)
    stopped = interrupted_text(result)
    if stopped is not None:
        out.line(f"INTERRUPTED  {stopped}", "NOT-CHECKED", indent=INDENT)
    out.line(
        f"{result.verdict.value}: {counts_text(result)} (exit {code})",
        result.verdict.value,
    )


def _not_recognised(out: Out, result: Result) -> None:
    """Files named like logs with no training content, skipped by a folder scan (listed with -v)."""
    skipped = result.extra.get("not_recognised") or []
    if not skipped:
        return
    verbose = out.view.verbosity > 0
    more = "" if verbose else " (list them with -v)"
    out.line(
        f"{len(skipped)} file(s) not recognised: named like logs, no training content; skipped{more}", indent=INDENT
    )
    if verbose:
        for path in skipped:
            out.line(f"  skipped: {path}", indent=INDENT)


__all__ = [
    "Out",
    "View",
    "describe",
    "fmt_num",
    "render_report",
    "render_summary",
    "render_text",
]
