"""CSV/TSV metric logs: Lightning CSVLogger ``metrics.csv`` (sparse rows, ``_step``/
``_epoch`` suffixes), Keras CSVLogger ``training.log`` (one row per epoch, ``val_``
columns), ultralytics/YOLO ``results.csv`` (space-padded headers, per-part
losses), TensorBoard's CSV download of one scalar tag (``Wall time,Step,Value``, named after the
file: ``_scalar_export``), and similar tables, with ``;`` or tabs between cells and decimal commas
(``1;2,5000``: pandas' ``to_csv(sep=";", decimal=",")``, Excel in much of Europe)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from .. import delimited
from ..model import Run
from ..options import ReadOptions
from ..roles import role_of
from ..safeio import add_damage, read_text
from ._long_table import LongLayout, names_a_metric
from ._scalar_export import export_name
from ._wandb_export import wandb_export
from .base import Columns, ReadError, looks_binary, note_skipped, reader
from .console.numbers import counter_column
from .console.text import unwrap_values
from .jsonl import STEP_KEYS
from .stream import LineStream

DELIMITERS = ",\t;"
_DENSE_ROWS = 1 << 14  # rows converted at a time by the dense-table fast path
STEP_COLUMNS = tuple(k.lower() for k in STEP_KEYS)  # the same step names as JSON lines
TB_EXPORT = ["wall time", "step", "value"]  # TensorBoard's CSV download of one scalar tag
# a decimal comma in a cell of a table delimited otherwise: 2,5000 between semicolons or tabs
_DECIMAL_COMMA = re.compile(r"^\s*[-+]?\d+,\d+(?:[eE][-+]?\d+)?\s*$")
# Comment lines before a table's header (``# run 3``, ``# lr=0.1``, a ``#``-marked banner) and
# blank lines among them.
_LEAD_COMMENTS = re.compile(r"\A\ufeff?(?:[ \t]*#[^\n]*\n|[ \t]*\r?\n)+")
_COMMA_CELL = re.compile(r"(?:^|[;\t])\s*[-+]?\d+,\d+\s*(?=[;\t\r\n]|$)", re.M)


def _accepted(path: Path, found: tuple[list[str], str], rows: list[str]) -> bool:
    """Whether a table's header (and, for a long table, its first rows) says it holds training metrics."""
    header, delim = found
    if _is_metric_header(header) or _catboost_learn(path, header):
        return True
    long = LongLayout.of(header, STEP_COLUMNS)
    return long is not None and names_a_metric(long, list(csv.reader(rows, delimiter=delim)))


def _is_metric_header(cols: list[str]) -> bool:
    """Whether a header names a training metric. A ``cost`` column alone is no evidence: the
    objective's classic name (Theano, TF1: ``iter,cost``) is as often money or seconds in a table
    (``date,service,cost``); it counts where a step or epoch column says the rows are training's."""
    if any(c.startswith("{") for c in cols):
        return False
    if [c.lower() for c in cols] == TB_EXPORT:
        return True  # named by its file (or read as "Value", no loss)
    named = [c for c in cols if "loss" in c.lower() or role_of(c) is not None]
    if named and all("cost" in c.lower() for c in named):
        return any(c.strip().lower() in (*STEP_COLUMNS, "epoch", "epochs") for c in cols)
    return bool(named)


# CatBoost's own training log (catboost_info/learn_error.tsv, written by every fit): "iter" then the
# objective (loss_function: Logloss, RMSE, MultiClass, ..) and any custom metrics after it, one row
# per iteration on the learning set. Its objective's name need not say "loss".
_CATBOOST_LEARN = "learn_error.tsv"


def _catboost_learn(path: Path, header: list[str]) -> bool:
    return path.name == _CATBOOST_LEARN and len(header) >= 2 and header[0] == "iter"


@reader("csv", priority=45)
class CsvReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        if looks_binary(head):
            return False
        text = _uncommented(head.decode("utf-8", errors="replace").lstrip("\ufeff")).lstrip("\r\n")
        found = delimited.header(text, DELIMITERS)
        if found is None:
            return False
        skip = delimited.header_lines(found[0])
        rows = [r for r in text.splitlines()[skip : skip + 3] if r.strip()]
        return bool(rows) and any(ch.isdigit() for ch in rows[0]) and _accepted(path, found, rows)

    def stream(self, path: Path, options: ReadOptions) -> CsvStream:
        return CsvStream(path)

    def read(self, path: Path) -> Run:
        bounded = read_text(path)  # long lines cut out and reported
        text, notes = _uncommented(_cr_lines(bounded.text)), bounded.notes
        run = Run(source=str(path), format="csv", files=[str(path)], notes=notes)
        add_damage(run, bounded)
        found = delimited.header(text, DELIMITERS)
        if found is None:
            raise ReadError("no delimited header line found")
        header, delim = found
        bare = _numbers_row(next((ln for ln in text.splitlines() if ln.strip()), ""))
        if bare:  # no header line: the first line is a row; a line of names stands in for it
            header, text = _unnamed(run, text, delim, len(header))
        layout = _Layout.of(header, _decimal_comma(text, delim))
        if bare:
            layout.step_col = 0 if _counter_first(text, delim) else None
        if layout.comma:
            run.notes.append("decimal commas (2,5) read as decimal points")
        _note_steps(run, layout)
        dense = not (layout.comma or layout.counter is not None or layout.long is not None)
        table = _dense(text, header, delim) if dense else None
        if table is not None:
            _dense_columns(table, header, layout.step_col, layout.epoch_col).into(run)
            _results_table(run)
            _flavour(run, header, path)
            return run
        refused: list[int] = []
        rows = _tolerant(csv.reader(io.StringIO(text), delimiter=delim), refused)
        next(rows, None)
        _rows_into(run, rows, layout, (1, 0, -1) if bare else (2, 0, 0), refused)
        _counted(run, layout)
        if layout.long is not None:
            _long_notes(run, layout)
        if not run.series:
            why = next((n for n in reversed(run.notes) if "not a real number" in n), "")
            raise ReadError("no numeric columns found" + (f" ({why})" if why else ""))
        _results_table(run)
        _flavour(run, header, path)
        return run


# A model's or an optimizer's setting, as a search's results table names its columns.
_SETTING = re.compile(
    r"^(d_model|n_?heads|num_heads|n_?layers|num_layers|hidden_(dim|size)|embed(ding)?_(dim|size)|seq_len|"
    r"batch_size|learning_rate|lr|dropout|weight_decay|n_?embd|ff_dim|kernel_size|num_filters)$"
)
SETTING_COLUMNS = 2  # settings columns that make a step-less table a search's results


def _results_table(run: Run) -> None:
    """Refuse a table with no step or epoch column whose rows are configurations, not steps: at
    least ``SETTING_COLUMNS`` columns named after a model's or an optimizer's setting (``d_model``,
    ``num_heads``, ``num_layers``, ``learning_rate``..), each taking a few values that its rows
    repeat (a grid: at most half as many values as rows). A search's results table (one row per
    configuration, its final train and val loss, sorted by one of them) is no training run."""
    if run.meta.get("steps_are") != "rows":
        return
    grid = []
    for name, s in run.series.items():
        v = s.finite().values
        if _SETTING.match(name.strip().lower()) and len(v) >= 4 and 2 <= len(np.unique(v)) <= len(v) / 2:
            grid.append(name)
    if len(grid) >= SETTING_COLUMNS:
        raise ReadError(
            f"a search's results table, not a training run: no step column, and its rows are configurations "
            f"({', '.join(sorted(grid)[:4])} each repeat a few values)"
        )


def _note_steps(run: Run, layout: _Layout) -> None:
    """Say where the steps come from in a table with no step column."""
    if layout.step_col is None and layout.counter is None:
        epochs = layout.epoch_col is not None
        counted = "each name's rows counted" if layout.long else "row numbers"
        run.notes.append("no step column; steps are " + ("epochs" if epochs else counted))
        run.meta["steps_are"] = "epochs" if epochs else "rows"


def _cr_lines(text: str) -> str:
    """``text`` with its lines split where a file ends them with a bare carriage return and holds
    no newline (classic Mac OS, or ``csv.writer(lineterminator="\\r")``): one line else."""
    if "\r" not in text or "\n" in text.rstrip("\r\n"):
        return text
    return "\n".join(line for line in text.split("\r") if line.strip())


def _uncommented(text: str) -> str:
    """``text`` with the comment lines before its header blank (line numbers stay): where the last
    of them names delimited columns (``np.savetxt(header="epoch,loss", delimiter=",")`` writes
    ``# epoch,loss``) and no header follows, that line is the header, its ``#`` gone."""
    m = _LEAD_COMMENTS.match(text)
    if m is None or "#" not in m[0]:
        return text
    lines = m[0].split("\n")[:-1]
    last = max(i for i, ln in enumerate(lines) if ln.strip())
    names = lines[last].strip().lstrip("#").strip()
    rest = text[m.end() :].split("\n", 1)[0]
    keep = _is_metric_header([c.strip() for c in re.split(r"[,\t;]", names)]) and _numbers_row(rest)
    blank = ["" for _ in lines]
    if keep and any(d in names for d in DELIMITERS):
        blank[last] = names
    return "\n".join(blank) + "\n" + text[m.end() :]


def _numbers_row(line: str) -> bool:
    """Whether ``line`` is a row of numbers only (``1.0e+00,2.5``)."""
    cells = [c for c in re.split(r"[,\t;]", line.strip()) if c.strip()]
    try:
        return bool(cells) and all(isinstance(float(c), float) for c in cells)
    except ValueError:
        return False


def _unnamed(run: Run, text: str, delim: str, width: int) -> tuple[list[str], str]:
    """A table without a header line (``1,2.5,2.6`` rows): its columns named ``column_1`` ..
    ``column_<width>``, a line of those names put before its rows (so line numbers in notes are
    one more than the file's). Nothing names a loss: the run says to choose one with --map."""
    names = [f"column_{i}" for i in range(1, width + 1)]
    value = "column_2" if width > 1 and _counter_first(text, delim) else "column_1"
    run.notes.append(f"no header line: the {width} column(s) are named column_1..column_{width}")
    run.meta["no_loss"] = f"no header line names the columns; use --map loss={value}"
    return names, delim.join(names) + "\n" + text.lstrip("\r\n")


def _counter_first(text: str, delim: str) -> bool:
    """Whether the first column of a header-less table counts its rows (whole numbers that grow:
    the step), judged on its first rows as the console reader judges a file of bare numbers."""
    rows: list[tuple[int, list[float]]] = []
    for no, line in enumerate(text.splitlines()[:1000], 1):
        try:
            cells = [float(c) for c in line.split(delim)]
        except ValueError:
            continue
        rows.append((no, cells))
    return bool(rows) and counter_column(None, rows) == 1


class _Layout(msgspec.Struct):
    """The table's names and where its step comes from."""

    header: list[str]
    step_col: int | None
    epoch_col: int | None
    comma: bool = False  # its numbers are written with decimal commas
    counter: _EpochCounter | None = None  # a batch count beside the epoch (``Epoch,Batch,..``)
    clock: _EpochClock | None = None  # the epoch as the step, until it repeats
    long: LongLayout | None = None  # one metric per row, named in a column (``step,metric,value``)

    @classmethod
    def of(cls, header: list[str], comma: bool = False) -> _Layout:
        step_col = next((i for i, c in enumerate(header) if c.lower() in STEP_COLUMNS), None)
        epoch_col = next((i for i, c in enumerate(header) if c.lower() == "epoch"), None)
        layout = cls(header, step_col, epoch_col, comma, long=LongLayout.of(header, STEP_COLUMNS))
        if layout.long is None:
            layout.counter = _EpochCounter.of(header, step_col, epoch_col)
        if layout.long is None and layout.counter is None and step_col is None and epoch_col is not None:
            layout.clock = _EpochClock(epoch_col)
        return layout


# An epoch column that repeats from one row to the next is no clock: Keras' CSVLogger(append=True)
# around ``model.fit(epochs=1)`` called in a loop writes ``epoch`` 0 on every row (Areya911/AgriSmart
# training_log.csv). From the first row that repeats the epoch of the row before it, the rows are
# counted on from there; until then (every Keras log whose epochs advance) the epoch is the step.
# Rows that fill different cells at one epoch (a train row, then a val row) are no repeat.


class _EpochClock:
    """Steps from the epoch column, row by row (a table read whole and one streamed agree)."""

    def __init__(self, col: int) -> None:
        self.col = col
        self.epoch: float | None = None  # the epoch of the row before
        self.filled: tuple[bool, ...] = ()  # which cells the row before filled
        self.last: float | None = None  # the step of the row before
        self.base: float | None = None  # an epoch repeated: the step rows are counted on from
        self.counted = 0  # the rows counted since

    def step(self, row: list[str], n: int) -> float:
        epoch = _cell(row, self.col)
        if epoch is None:
            return float(n)
        # sparse rows that fill other cells at one epoch (a train row, then a val row) are one epoch's
        filled = tuple(bool(c.strip()) for c in row)
        if self.base is None and self.last is not None and epoch == self.epoch and filled == self.filled:
            self.base = self.last
        if self.base is not None:  # the base plus the count, as :func:`_clock_steps` adds them (not +1 a row)
            self.counted += 1
            step = self.base + self.counted
        else:
            step = epoch
        self.epoch, self.filled, self.last = epoch, filled, step
        return step


def _clock_steps(epochs: np.ndarray) -> np.ndarray:
    """:class:`_EpochClock`'s steps for a whole column of epochs."""
    repeats = np.flatnonzero(epochs[1:] == epochs[:-1])
    if not len(repeats):
        return epochs
    at = int(repeats[0]) + 1  # the first row that repeats the epoch before it
    steps: np.ndarray = epochs.copy()
    steps[at:] = epochs[at - 1] + np.arange(1, len(epochs) - at + 1)
    return steps


# A count of the epoch's batches beside its epoch (``Epoch,Batch,Gen Loss``: a GAN's per-batch
# rows; ``epoch,iter,loss``), which may start again every epoch.
_BATCH_NAMES = frozenset(
    ("batch", "batch_idx", "batch_id", "batch_index", "batch_num", "batch_no", "batch_nr", "batch_number")
)
_PER_EPOCH = frozenset(("iter", "iteration", "step", "it"))


class _EpochCounter:
    """Steps from an epoch column and a batch column: the batch itself until the epoch first
    changes; from then on, where the batch count started again (a per-epoch count), the batch
    plus the epochs since the first times the first epoch's length. A count that goes on across
    epochs stays the step. Decided row by row, so a table read whole and one streamed agree."""

    def __init__(self, col: int, epoch_col: int) -> None:
        self.col, self.epoch_col = col, epoch_col
        self.first: float | None = None  # the first epoch
        self.low, self.high = float("inf"), float("-inf")  # its batches' range
        self.last: float | None = None  # the batch of the row before
        self.span: float | None = None  # the first epoch's length where the count restarts
        self.restarted = False

    @classmethod
    def of(cls, header: list[str], step_col: int | None, epoch_col: int | None) -> _EpochCounter | None:
        if epoch_col is None:
            return None
        names = [c.strip().lower().replace(" ", "_") for c in header]
        if step_col is not None:
            return cls(step_col, epoch_col) if names[step_col] in _PER_EPOCH else None
        col = next((i for i, c in enumerate(names) if c in _BATCH_NAMES), None)
        return cls(col, epoch_col) if col is not None else None

    def step(self, row: list[str], n: int) -> float:
        epoch, batch = _cell(row, self.epoch_col), _cell(row, self.col)
        if epoch is None or batch is None:
            return batch if batch is not None else float(n)
        if self.first is None:
            self.first = epoch
        if epoch == self.first and self.span is None:
            self.low, self.high = min(self.low, batch), max(self.high, batch)
        elif self.span is None and not self.restarted:
            self.restarted = self.last is not None and batch <= self.last
            self.span = self.high - self.low + 1 if self.restarted else 0.0
        self.last = batch
        return batch + (epoch - self.first) * self.span if self.span else batch


def _counted(run: Run, layout: _Layout) -> None:
    counter = layout.counter
    if counter is not None and counter.span:
        name, epoch = layout.header[counter.col], layout.header[counter.epoch_col]
        run.notes.append(
            f"{name} counts again from {counter.low:g} each {epoch}: the step is {name} + "
            f"{counter.span:g} × the {epoch}s since the first"
        )


def _row_step(layout: _Layout, row: list[str], at: int | None, n: int) -> float:
    if layout.counter is not None:
        return layout.counter.step(row, n)
    return layout.clock.step(row, n) if layout.clock is not None else _step(row, at, n)


def _cell(row: list[str], col: int) -> float | None:
    try:
        return float(row[col])
    except (ValueError, IndexError):
        return None


def _decimal_comma(text: str, delim: str) -> bool:
    """Whether a table delimited by ``;`` or tabs writes its numbers with decimal commas."""
    return delim != "," and _COMMA_CELL.search(text[: delimited.SNIFF]) is not None


def _rows_into(
    run: Run, rows: Iterable[list[str]], layout: _Layout, first: tuple[int, int, int], refused: list[int]
) -> int:
    """Parse data rows into ``run``; returns the row number of the row after them (blank rows are
    counted; a repeated header starts the count again). ``first``: the first row's line number, its
    row number, and what to add to the line numbers that the row iterator puts in ``refused`` (the
    rows the csv module refused)."""
    header, step_col = layout.header, layout.step_col
    first_line, start, shift = first
    at = step_col if step_col is not None else layout.epoch_col
    records, steps, where, ragged, repeats = [], [], [], [], []
    count = base = 0
    for count, row in enumerate(rows, 1):
        n, line_no = start + count - 1 - base, first_line + count - 1
        if not row or not any(cell.strip() for cell in row):
            continue
        if _is_header(row, header):  # the script run again, appending: its row numbers start again
            repeats.append(line_no)
            start, base = 0, count
            continue
        if len(row) != len(header):
            ragged.append(line_no)
            if len(row) > len(header):
                continue
        if layout.long is not None:
            if len(row) == len(header) and (name := layout.long.name_of(row)) is not None:
                records.append({name: _number(row[layout.long.value_col], layout.comma)})
                steps.append(_step(row, at, layout.long.count(name)))
                where.append(line_no)
            continue
        # Lightning's sparse rows leave most cells empty: an empty cell is an absent value
        skip = layout.counter.col if layout.counter is not None else step_col
        records.append({header[i]: _number(c, layout.comma) for i, c in enumerate(row) if i != skip and c.strip()})
        steps.append(_row_step(layout, row, at, n))
        where.append(line_no)
    cols = Columns()
    if records:
        cols.add_records(records, steps, where)
    if repeats:
        run.notes.append(
            f"the header line is repeated at line(s) {', '.join(map(str, repeats[:5]))}: "
            f"{len(repeats) + 1} runs appended to the file, each judged on its own"
        )
    note_skipped(run, "row(s) with the wrong number of fields", ragged, damage=True)
    note_skipped(run, "row(s) the CSV parser refused", [shift + n for n in refused], damage=True)
    cols.into(run)
    return start + count - base


def _long_notes(run: Run, layout: _Layout) -> None:
    long = layout.long
    assert long is not None
    named = layout.header[long.name_col].strip()
    run.notes.append(f"a long table (one metric per row, named in its {named!r} column): {len(long.counts)} name(s)")
    if long.others:
        run.notes.append(
            f"{len(long.others) + 1} runs in the table: the first, {long.first_run!r}, is read "
            f"({', '.join(sorted(long.others)[:5])} not)"
        )


def _is_header(row: list[str], header: list[str]) -> bool:
    """Whether a row repeats the header line (a CSV logger opened again in append mode)."""
    return len(row) == len(header) and all(c.strip() == h.strip() for c, h in zip(row, header))


class CsvStream(LineStream):
    """A metric table as rows are appended: the header once (lines wait until it is complete),
    then each row parsed as the reader's general path parses it."""

    bare_cr = True  # a table written with lineterminator="\r" is read whole as well

    def __init__(self, path: Path) -> None:
        super().__init__(path, "csv")
        self.restart()

    def restart(self) -> None:
        super().restart()
        self.layout: _Layout | None = None
        self.waiting: list[str] = []
        self.delim, self.rows, self.next_line = ",", 0, 1

    def lines(self, lines: list[str], first_no: int, frag: Run) -> None:
        if self.layout is None:
            lines = self._header(lines, frag)
            if self.layout is None:
                return
        first = self.next_line
        self.next_line += len(lines)
        refused: list[int] = []
        rows = _tolerant(csv.reader(lines, delimiter=self.delim), refused)
        self.rows = _rows_into(frag, rows, self.layout, (first, self.rows, first - 1), refused)
        _flavour(frag, self.layout.header, self.path)  # each fragment's rows, as the reader's whole table

    def _header(self, lines: list[str], frag: Run) -> list[str]:
        """Lines after the header once it is known (the lines before it wait, 1,000 at most)."""
        self.waiting = (self.waiting + lines)[-1000:]
        found = delimited.header("\n".join(self.waiting) + "\n", DELIMITERS)
        if found is None:
            return []
        header, self.delim = found
        lead = next((i for i, ln in enumerate(self.waiting) if ln.strip()), 0)
        skip = lead + delimited.header_lines(header)
        if not _accepted(self.path, found, [ln for ln in self.waiting[skip : skip + 3] if ln.strip()]):
            return []  # the header the reader's sniff accepts
        self.layout = _Layout.of(header, _decimal_comma("\n".join(self.waiting), self.delim))
        if self.layout.step_col is None and self.layout.counter is None:
            frag.meta["steps_are"] = "epochs" if self.layout.epoch_col is not None else "rows"
        rest, self.waiting = self.waiting[skip:], []
        self.next_line = skip + 1
        return rest


def _dense(text: str, header: list[str], delim: str) -> np.ndarray | None:
    """The rows of a table whose every cell is a number Python's float() reads, as a
    (rows, columns) array; None for anything else (quotes, empty or text cells, ragged or
    blank rows, odd line ends, repeated or empty names), which the csv-module path reads and
    reports. The fast path changes how fast, never what is read."""
    if not text or text[0].isspace() or '"' in text or "\r" in text or "\x00" in text:
        return None
    if len(set(header)) != len(header) or not all(header):
        return None
    lines = text.split("\n")
    body = lines[1:-1] if lines[-1] == "" else lines[1:]
    want = len(header) - 1
    if not body or any(line.count(delim) != want for line in body):
        return None
    table = np.empty((len(body), len(header)))
    for at in range(0, len(body), _DENSE_ROWS):  # in blocks: the text cells of one block at a time
        rows = body[at : at + _DENSE_ROWS]
        try:
            cells = list(map(float, delim.join(rows).split(delim)))
        except ValueError:
            return None
        table[at : at + len(rows)] = np.array(cells, np.float64).reshape(len(rows), len(header))
    return table


def _dense_columns(table: np.ndarray, header: list[str], step_col: int | None, epoch_col: int | None) -> Columns:
    """The columns of a dense table, as the general path builds them."""
    at = step_col if step_col is not None else epoch_col
    steps = table[:, at] if at is not None else np.arange(len(table), dtype=np.float64)
    if step_col is None and epoch_col is not None:
        steps = _clock_steps(steps)
    cols = Columns()
    for i, name in enumerate(header):
        if i != step_col:
            cols.add_array(name, steps, table[:, i].copy())
    return cols


def _tolerant(rows: Any, refused: list[int]) -> Iterator[list[str]]:
    """Rows of a csv.reader; a row it refuses (a bare newline in a field, a field over the size
    limit) is recorded by line number and skipped, and reading goes on."""
    while True:
        try:
            yield next(rows)
        except StopIteration:
            return
        except csv.Error:
            refused.append(rows.line_num)
            if len(refused) > 10000:
                return


def _number(cell: str, comma: bool = False) -> float | str | bool:
    """A CSV cell as a float ("nan" and "inf" are how CSV writers spell those floats; 2,5 is 2.5
    in a table of decimal ``comma``s; a value written with its holder's repr, ``str(loss)`` of a
    torch tensor or a NumPy 2 scalar, ``tensor(3.13, device='cuda:0', grad_fn=<DivBackward0>)``,
    ``np.float64(0.25)``, is its number)."""
    try:
        return float(cell)
    except ValueError:
        if comma and _DECIMAL_COMMA.match(cell):
            return float(cell.replace(",", "."))
        lowered = cell.strip().lower()
        if lowered.endswith(")") and "(" in lowered:
            return _wrapped(cell.strip())
        return True if lowered == "true" else False if lowered == "false" else cell


def _wrapped(cell: str) -> float | str:
    """The number in a cell that is one tensor's or NumPy scalar's repr; the cell else."""
    bare = unwrap_values(cell)
    try:
        return float(bare) if bare != cell else cell
    except ValueError:
        return cell


def _step(row: list[str], col: int | None, n: int) -> float:
    if col is None or col >= len(row):
        return float(n)
    try:
        return float(row[col])
    except ValueError:
        return float(n)


_YOLO_LOSS = re.compile(r"^(train|val)/(\w+)_loss$")
_YOLO_LR = re.compile(r"^x/lr(\d+)$")


def _flavour(run: Run, header: list[str], path: Path) -> None:
    """Name the tool that wrote the table (meta "written_by") and add what its layout implies."""
    lower = [c.lower() for c in header]
    if wandb_export(run, header):
        return
    if lower == TB_EXPORT:
        _tensorboard_export(run, header, path)
    elif _catboost_learn(path, header) and header[1] in run.series:
        run.meta["written_by"] = "catboost"
        run.meta["objective"] = header[1]  # the column CatBoost optimises: the loss (roles.apply_roles)
    elif "epoch" in lower and any(_YOLO_LOSS.match(c) for c in header):
        _yolo(run, header)
    elif "step" in lower and "epoch" in lower and any(c.endswith(("_step", "_epoch")) for c in lower):
        run.meta["written_by"] = "lightning"
        run.meta["epoch_aggregates"] = [c for c in header if c.endswith("_epoch")]
        run.meta["step_values"] = [c for c in header if c.endswith("_step")]
    elif path.name == "metrics.csv" and "step" in lower and "epoch" in lower:
        run.meta["written_by"] = "lightning"
    elif run.meta.get("steps_are") == "epochs" and (
        path.name == "training.log" or any(c.startswith("val_") for c in lower)
    ):
        run.meta["written_by"] = "keras"


def _tensorboard_export(run: Run, header: list[str], path: Path) -> None:
    """One scalar tag's values named after the file; its wall times are the points' clock, no metric."""
    values, wall = run.series.pop(header[2], None), run.series.pop(header[0], None)
    if values is None:
        return
    name, note = export_name(path)
    clock = wall.values if wall is not None and np.array_equal(wall.steps, values.steps) else None
    run.add(name, values.steps, values.values, clock)
    run.notes.append(note)
    run.meta["written_by"] = "tensorboard"


def _yolo(run: Run, header: list[str]) -> None:
    """YOLO logs box/cls/dfl losses separately: their sum is the loss the rules judge."""
    run.meta["written_by"] = "ultralytics"
    run.meta["steps_are"] = "epochs"
    for name in list(run.series):
        m = _YOLO_LR.match(name)
        if m and f"lr/pg{m.group(1)}" not in run.series:
            run.series[f"lr/pg{m.group(1)}"] = run.series.pop(name)
            run.series[f"lr/pg{m.group(1)}"].name = f"lr/pg{m.group(1)}"
    for split in ("train", "val"):
        parts = [c for c in header if (m := _YOLO_LOSS.match(c)) and m.group(1) == split and c in run.series]
        total = f"{split}/loss"
        if not parts or total in run.series:
            continue
        steps = run.series[parts[0]].steps
        if any(not np.array_equal(run.series[c].steps, steps) for c in parts):
            run.notes.append(f"{split} losses are not logged at the same epochs; no {total} derived")
            continue
        run.add(total, steps, np.sum([run.series[c].values for c in parts], axis=0))
        run.notes.append(f"{total} is the sum of {', '.join(parts)}")
    _yolo_clock(run)


def _yolo_clock(run: Run) -> None:
    """ultralytics 8.3 writes "time": seconds since training started, one per epoch row."""
    clock = run.series.get("time")
    if clock is None or len(clock) < 2 or not (np.diff(clock.values) >= 0).all():
        return
    for s in run.series.values():
        if s is not clock and len(s) and np.isin(s.steps, clock.steps).all():
            s.wall = np.interp(s.steps, clock.steps, clock.values)
