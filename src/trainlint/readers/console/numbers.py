"""Files of bare numbers a training loop writes (``f.write(f"{epoch} {loss}\\n")``, ``np.savetxt``
of a loss history): rows of one or a few numbers, maybe under a line naming the columns.

A column of numbers says nothing of what it is, so a file is read only where something names its
loss, and the run says what named it:

- a file whose name says loss (``loss.txt``, ``train_loss.log``): its first value column
  (``handwritten.number_lines``);
- a header line naming the columns (``# epoch loss acc`` as ``np.savetxt(header=...)`` writes it,
  or ``epoch loss``), one of them a loss: each column under its name;
- a file whose name says it is a training log (``log_train.txt``, ``train_history.txt``,
  ``train.log``) holding exactly one value column, beside a counter or alone: that column is the
  loss, and a note says it was assumed (the name could be wrong: ``--map`` chooses another).

Never read: a file named for anything else (``train.txt`` is usually a dataset split), a name
that says evaluation or a metric (``log_val.txt``, ``train_acc.txt``: an accuracy rises, and a
rising "loss" would be a false alarm), several unnamed value columns (which is the loss?), and
value columns of whole numbers only (ids, labels, counts). A counter column (whole numbers that
grow) is the step; one that falls at every row says the file was written newest first, and its
rows are read in the order of the counter.
"""

from __future__ import annotations

from pathlib import PurePath

from ...role_structure import parse
from ...roles import role_of
from .handwritten import MIN_NUMBER_LINES, loss_name, number_lines, unquoted
from .text import NUM, Capture, Line, lazy_regex

_CELLS = lazy_regex(r"[\s,;]+")
_NUMBER = lazy_regex(rf"(?:{NUM})")
_NAME = lazy_regex(r"[A-Za-z][\w/@.\-]*")
_HEADER_MARK = lazy_regex(r"^\s*#+\s*")
_WORDS = lazy_regex(r"[a-z]+|[A-Z][a-z]*|[A-Z]+(?![a-z])")
_TRAIN_WORDS = frozenset({"train", "training", "trn"})
_LOG_WORDS = frozenset({"log", "logs", "history", "hist", "progress", "record", "records"})
_LOG_SUFFIXES = frozenset({".log", ".out"})
# Words in a file's name that say its numbers are no training loss.
_NOT_LOSS_WORDS = frozenset(
    {
        "val", "valid", "validation", "test", "eval", "evaluation", "dev", "acc", "accuracy", "score",
        "scores", "metric", "metrics", "iou", "miou", "dice", "f1", "auc", "bleu", "map", "psnr", "ssim",
        "lr", "time", "reward", "rewards", "ids", "id", "labels", "label", "index", "split",
    }
)  # fmt: skip
_COUNTER_NAMES = frozenset({"epoch", "epochs", "step", "steps", "iter", "iters", "iteration", "it", "batch", "n"})
MAX_COLUMNS = 8
SHARE_OTHER = 0.1  # lines that are no row of the table a file may hold besides (a banner, a cut last line)


def bare_numbers(path: PurePath, lines: list[Line]) -> Capture | None:
    """The series a file of bare numbers holds, where its name or a header names the loss."""
    name = loss_name(path.stem)
    cap = (counted_loss_file(name, lines) or number_lines(lines, name)) if name else None
    if cap is None:
        cap = unnamed_columns(path, lines)
    return _in_counter_order(cap) if cap is not None else None


def counted_loss_file(name: str, lines: list[Line]) -> Capture | None:
    """A loss file whose first column counts the rows, written as whole numbers or as floats
    (``np.savetxt("loss.txt", np.c_[epochs, losses])`` writes ``1.000000000000000000e+00 ...``):
    that column is the step, the next the file's loss, any further ``<name>_2``, ``<name>_3``."""
    table = _table(lines)
    if table is None or table[0] is not None or len(table[1][0][1]) < 2 or not counter_column(None, table[1]):
        return None
    rows = table[1]
    names = [name] + [f"{name}_{k}" for k in range(2, len(rows[0][1]))]
    why = f"column 1 counts the rows (the step), column 2 read as {name!r}, named by the file's name"
    return _capture("loss-file", rows, 1, names, why)


def train_log_name(path: PurePath) -> bool:
    """Whether a file's name says it is a training log (and nothing that says it holds no loss)."""
    words = {w.lower() for w in _WORDS.findall(path.stem)}
    if not words & _TRAIN_WORDS or words & _NOT_LOSS_WORDS:
        return False
    return bool(words & _LOG_WORDS) or path.suffix.lower() in _LOG_SUFFIXES


def _table(lines: list[Line]) -> tuple[list[str] | None, list[tuple[int, list[float]]]] | None:
    """A header's names (None: no header) and the rows of the table's width, with their line
    numbers; None where the lines are no table of numbers (or the first is neither a row nor a
    header: a banner, a delimited table's header)."""
    rows: list[tuple[int, list[str]]] = []
    header: list[str] | None = None
    other = 0
    for k, line in enumerate(lines):
        text = unquoted(line.final).strip()
        if k == 0 and (names := _header(text)) is not None:
            header = names
            continue
        cells = [c for c in _CELLS.split(text) if c]
        if 0 < len(cells) <= MAX_COLUMNS and all(_NUMBER.fullmatch(c) for c in cells):
            rows.append((line.no, cells))
        elif k == 0:
            return None
        else:
            other += 1
            if other > MIN_NUMBER_LINES and other > SHARE_OTHER * len(rows):  # no table: stop early
                return None
    widths = [len(cells) for _, cells in rows]
    width = max(set(widths), key=widths.count, default=0)
    kept = [(no, [float(c) for c in cells]) for no, cells in rows if len(cells) == width]
    if len(kept) < MIN_NUMBER_LINES or (other + len(rows) - len(kept)) > SHARE_OTHER * len(kept):
        return None
    if header is not None and (len(header) != width or len(kept) < len(rows) and _blanks_placed(header)):
        return None  # rows that leave cells blank (Chainer's PrintReport): the column-table reader's
    return header, kept


def _blanks_placed(header: list[str]) -> bool:
    """Whether the column-table reader takes this header's table, placing a short row's values
    under the names they start under (a header of three or more names, one a loss)."""
    return len(header) >= 3 and any("loss" in name.lower() for name in header)


def _header(text: str) -> list[str] | None:
    """The names of a header line: ``# epoch loss acc`` or ``epoch loss``, apart by spaces (a line
    of names apart by commas, tabs or semicolons is a delimited table's: the CSV reader's)."""
    if any(d in text for d in ",\t;"):
        return None
    marked = _HEADER_MARK.match(text)
    names = (text[marked.end() :] if marked else text).split()
    if not 1 <= len(names) <= MAX_COLUMNS or not all(_NAME.fullmatch(n) for n in names):
        return None
    return names


def _says_loss(name: str) -> bool:
    return role_of(name) in ("loss", "eval_loss") or parse(name).kind is not None


def unnamed_columns(path: PurePath, lines: list[Line]) -> Capture | None:
    """A table of numbers whose header names a loss, or, in a file named a training log, one
    value column taken as the loss."""
    table = _table(lines)
    if table is None:
        return None
    header, rows = table
    counter = counter_column(header, rows)
    values = len(rows[0][1]) - counter
    if header is not None:
        names = header[counter:]
        if not any(_says_loss(n) for n in names):
            return None
        why = f"the header line names the columns ({' '.join(header)})"
    elif values == 1 and train_log_name(path) and not all(r[1][counter].is_integer() for r in rows):
        names = ["loss"]
        col = counter + 1
        why = (
            f"column {col} of {col} taken as the loss: the file's name ({path.name}) says a training log and the"
            " column is its only one of values (use --map loss=NAME if it is not the loss)"
        )
    else:
        return None
    cap = _capture("numbers", rows, counter, names, why)
    if counter and header is not None and header[0].lower().startswith("epoch"):
        cap.meta["steps_are"] = "epochs"
    return cap


def _capture(framework: str, rows: list[tuple[int, list[float]]], counter: int, names: list[str], why: str) -> Capture:
    """The rows as series ``names``, at the counter column's steps (``counter`` 1) or their order."""
    cap = Capture(framework)
    for k, (no, cells) in enumerate(rows):
        step = cells[0] if counter else float(k + 1)
        cap.add_all(step, dict(zip(names, cells[counter:])))
        cap.lines.append(no)
    cap.notes.append(f"a file of bare numbers: {len(rows)} row(s); {why}")
    return cap


def counter_column(header: list[str] | None, rows: list[tuple[int, list[float]]]) -> int:
    """1 where the first column counts the rows (whole numbers that grow, or that fall at every
    row, written newest first; named a counter where a header names it), else 0."""
    if len(rows[0][1]) < 2:
        return 0
    if header is not None:
        return int(header[0].lower() in _COUNTER_NAMES)
    first = [cells[0] for _, cells in rows]
    if not all(v.is_integer() and v >= 0 for v in first):
        return 0
    pairs = list(zip(first, first[1:]))
    rising = sum(1 for a, b in pairs if b > a)
    return int(rising * 10 >= 9 * len(pairs) or all(b < a for a, b in pairs))


def _in_counter_order(cap: Capture) -> Capture:
    """A file written newest first (the step falls at every row) read oldest first."""
    cols = list(cap.cols.values())
    steps = cols[0][0] if cols else []
    if len(steps) < MIN_NUMBER_LINES or not all(b < a for a, b in zip(steps, steps[1:])):
        return cap
    cap.notes.append(
        f"the rows' steps fall from {steps[0]:g} to {steps[-1]:g}: the file was written newest first;"
        " read in the order of the steps"
    )
    for col in cols:
        col[0].reverse()
        col[1].reverse()
    return cap
