"""Per-epoch metrics pasted as a Markdown table into a README, a results.md or a .txt file:
``| epoch | train loss | val loss |``, its ``|---|---|---|`` rule, then a row per epoch.

Only such a table is read, never the prose around it: a table with an epoch or step column
(``epoch``, ``step``, ``iter``..) that grows over 10 rows or more, found in the file's head. A
docs page's small results table (three models, no step) is no training run and leaves the file
unrecognised. Outside a Markdown file the table must be most of the head's lines. A column's name
is its header cell (``Train Loss``, as the console reader names the notebook table's); a cell is a
number (``**0.412**``, ``91.2%`` read as 0.412 and 91.2) or left out (``-``, ``n/a``).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..model import Run
from ..safeio import read_text
from .base import HEAD_BYTES, Columns, ReadError, looks_binary, read_head, reader

_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$")
_STEP_NAMES = frozenset({"epoch", "epochs", "step", "steps", "iter", "iters", "iteration", "iterations", "global_step"})
_NUMBER = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")
_MARKDOWN = frozenset({".md", ".markdown", ".mdown"})
_PLAIN = frozenset({".txt", ".log", ""})
_NONFINITE = frozenset({"nan", "inf", "-inf", "+inf"})
_OF = re.compile(r"^(\d+)\s*/\s*\d+$")  # a step cell written "3/50": the third of 50
MIN_ROWS = 10
_SNIFF_MORE = 256 * 1024


class Table:
    """One Markdown table: its column names, the step column's index and its rows' cells."""

    def __init__(self, names: list[str], at: int, line: int) -> None:
        self.names, self.at, self.line = names, at, line
        self.rows: list[tuple[int, list[str]]] = []  # (line number, cells)

    def steps(self) -> list[float]:
        """The step column's numbers from the first row on, while they grow or fall back to start a
        run appended to the table (a trainer's model card keeps every run's rows), a fall back at
        most every fourth row; else while they grow."""
        out: list[float] = []
        for _, cells in self.rows:
            step = _step(cells[self.at]) if self.at < len(cells) else None
            if step is None or (out and step == out[-1]):
                break
            out.append(step)
        backs = [i for i in range(1, len(out)) if out[i] < out[i - 1]]
        if backs and 4 * len(backs) > len(out):
            return out[: backs[0]]
        return out


def _cells(line: str) -> list[str]:
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    return [c.strip() for c in text.split("|")]


def _name(cell: str) -> str:
    return " ".join(cell.strip("*_`~ ").split())


def _number(cell: str) -> float | None:
    text = cell.strip("*_`~ ").removesuffix("%").strip()
    return float(text) if _NUMBER.match(text) else None


def _step(cell: str) -> float | None:
    """A step cell's number: ``12``, or ``12/50`` (the step of its total)."""
    of = _OF.match(cell.strip("*_`~ "))
    return float(of[1]) if of else _number(cell)


def tables(lines: list[str]) -> list[Table]:
    """Every table with a step column, with its body rows (the lines after the rule holding ``|``)."""
    found: list[Table] = []
    for i in range(1, len(lines)):
        if "|" not in lines[i - 1] or not _RULE.match(lines[i]):
            continue
        names = [_name(c) for c in _cells(lines[i - 1])]
        at = next((k for k, n in enumerate(names) if n.lower() in _STEP_NAMES), None)
        if at is None or len(names) < 2:
            continue
        table = Table(names, at, i)
        for j in range(i + 1, len(lines)):
            if "|" not in lines[j] or _RULE.match(lines[j]):
                break
            table.rows.append((j + 1, _cells(lines[j])))
        found.append(table)
    return found


def _runs(found: list[Table]) -> list[Table]:
    """The tables of a training run: a growing step over MIN_ROWS rows, and a number beside it."""
    return [
        t
        for t in found
        if len(t.steps()) >= MIN_ROWS
        and any(_number(c) is not None for _, cells in t.rows[:3] for k, c in enumerate(cells) if k != t.at)
    ]


@reader("markdown-table", priority=43)
class MarkdownTableReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        suffix = path.suffix.lower()
        if (suffix not in _MARKDOWN and suffix not in _PLAIN) or looks_binary(head):
            return False
        if suffix in _MARKDOWN and len(head) >= HEAD_BYTES:  # a model card's "Training Logs" come late
            try:
                head = read_head(path, _SNIFF_MORE)
            except OSError:
                return False
        if b"|" not in head:
            return False
        lines = head.decode("utf-8", errors="replace").splitlines()[:-1]  # the last may be cut short
        found = _runs(tables(lines))
        if not found or suffix in _MARKDOWN:
            return bool(found)
        body = sum(1 for ln in lines if ln.strip())
        return sum(len(t.rows) + 2 for t in found) * 2 >= body  # most of a plain file's lines

    def read(self, path: Path) -> Run:
        bounded = read_text(path)
        found = _runs(tables(bounded.text.splitlines()))
        if not found:
            raise ReadError(f"no Markdown table with a step or epoch column growing over {MIN_ROWS} rows")
        run = Run(source=str(path), format="markdown-table", files=[str(path)], notes=list(bounded.notes))
        _table_into(run, found[0])
        if len(found) > 1:
            run.notes.append(f"{len(found) - 1} other table(s) of a growing step left out; the first is read")
        if not run.series:
            raise ReadError("a Markdown table without a numeric column")
        return run


def _table_into(run: Run, table: Table) -> None:
    steps, step_name = table.steps(), table.names[table.at]
    cols = Columns()
    for (line_no, cells), step in zip(table.rows, steps):
        for k, (name, cell) in enumerate(zip(table.names, cells)):
            value: float | str | None = _number(cell)
            if value is None and cell.strip("*_`~ ").lower() in _NONFINITE:
                value = cell.strip("*_`~ ")  # reported as the non-finite number it spells
            if k != table.at and name and value is not None:
                cols.add(step, name, value, line_no)
    cols.into(run)
    run.notes.append(f"the Markdown table at line {table.line}: {len(steps)} rows, steps from its {step_name!r} column")
    backs = sum(1 for a, b in zip(steps, steps[1:]) if b < a)
    if backs:
        run.notes.append(
            f"its {step_name!r} column falls back {backs} time(s): {backs + 1} runs appended to the table, "
            "each judged on its own"
        )
    _trained(run, table.names)
    if len(steps) < len(table.rows):
        run.notes.append(f"{len(table.rows) - len(steps)} row(s) after its steps stop growing left out")
    if step_name.lower().startswith("epoch"):
        run.meta["steps_are"] = "epochs"


_TRAINING_LOSS = frozenset({"training loss", "train loss", "train_loss", "training_loss", "train/loss"})


def _trained(run: Run, names: list[str]) -> None:
    """A column named the training loss beside one named only ``loss``: the training loss is the
    former, the bare ``loss`` an evaluator's (sentence-transformers' model card names the loss on an
    unnamed evaluation set so, beside its ``Training Loss``)."""
    train = next((n for n in names if n.lower() in _TRAINING_LOSS and n in run.series), None)
    bare = next((n for n in names if n.lower() == "loss" and n in run.series), None)
    if train is None or bare is None:
        return
    run.meta["objective"] = train
    run.meta["objective_why"] = f"the table's {train!r} column; the {bare!r} beside it is an evaluation's"
    run.meta["eval_objective"] = bare
    run.meta["eval_objective_why"] = f"a bare {bare!r} beside the table's {train!r} column"
