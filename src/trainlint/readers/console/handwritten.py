"""Console shapes of hand-written training loops and of llm.c's ``main.log``.

- llm.c writes ``main.log`` beside its console output: ``s:<step> trl:<train loss>
  [lr:<lr> norm:<grad norm>]`` per step and ``s:<step> tel:<eval loss>`` per evaluation.
- Hand-written loops print an epoch header with the plan (``Epoch: 4/50``, ``Epoch 3/29``)
  and then, on the same line or the lines after it, per-split values:
  ``Train Loss: 2.1034 - Train Perplexity: 8.19``, ``Valid Loss: 2.3``,
  ``train Loss: 0.21 Acc: 0.93`` / ``val Loss: ...``. One point per epoch and split.
- Column tables (fastai's console table, hand-written ``print`` tables): a header line of names,
  one of them a loss (``epoch  train_loss  valid_loss  accuracy  time``), then one row of values
  per epoch under it. A second table (``fine_tune``'s two fits) continues the steps. The print
  table of ultralytics/yolov3 (2018-19) and its descendants (JDE: ``Epoch  Batch  box  conf  id
  total  nTargets  time``, rows ``3/29  40/165  ...``) names no loss: its ``total`` is, in rows led
  by ``epoch/last`` and ``batch/last`` counters.
"""

from __future__ import annotations

import re

from .objectives import lone_training_error
from .patterns import LinePattern, _c
from .text import NUM, Capture, Line, lazy_regex, unwrap_values


def _yolo_val_loss(m: re.Match[str]) -> dict[str, float]:
    """results.txt's validation losses summed, as its train total sums the train ones."""
    return {"val_loss": float(m["val_box_loss"]) + float(m["val_obj_loss"]) + float(m["val_cls_loss"])}


MORE_PATTERNS: tuple[LinePattern, ...] = (
    # results.txt of ultralytics/yolov3 (2019-20) and YOLOv5 before v6 (its forks too: YOLOv7,
    # ScaledYOLOv4): a row appended per epoch, no header: the console row (epoch/last, GPU memory,
    # the train losses box or GIoU, obj, cls and their total, targets, image size), then P, R,
    # mAP@.5, mAP@.5:.95 (yolov3: F1) and the validation losses box, obj, cls.
    LinePattern(
        "ultralytics-results-txt",
        "yolo-results-txt",
        _c(
            r"^\s*(?P<epoch>\d+)/\d+\s+[\d.]+[GMK]?\s+(?P<box_loss>NUM)\s+(?P<obj_loss>NUM)\s+(?P<cls_loss>NUM)"
            r"\s+(?P<loss>NUM)\s+\d+\s+\d+\s+(?P<precision>NUM)\s+(?P<recall>NUM)\s+(?P<mAP50>NUM)\s+NUM"
            r"\s+(?P<val_box_loss>NUM)\s+(?P<val_obj_loss>NUM)\s+(?P<val_cls_loss>NUM)\s*$"
        ),
        needle="/",
        step_from="epoch",
        derive=_yolo_val_loss,
    ),
    # (also modded-nanogpt: "s:<step> trl:<loss> train_time:<ms>ms step_avg:<ms>ms")
    LinePattern(
        "llmc-mainlog-train",
        "llm.c-main.log",
        _c(r"^s:(?P<step>\d+) trl:(?P<loss>NUM)(?P<kv>.*)$"),
        needle="trl:",
        kv=":",
        rename={"lr": "learning_rate", "norm": "grad_norm", "step_avg": "step_time"},
    ),
    LinePattern(
        "llmc-mainlog-eval",
        "llm.c-main.log",
        _c(r"^s:(?P<step>\d+) tel:(?P<val_loss>NUM)\s*$"),
        needle="tel:",
    ),
    # A Rich bar rendered to a file (no terminal): one final render per epoch,
    # "Epoch 3 ━━━━━━━━━━ 50/50 loss=1.3243"; only complete bars count.
    LinePattern(
        "rich-bar-final",
        "rich-bar",
        _c(
            # ("Epoch k/N ━━ ..." is Lightning's RichProgressBar, read by its own recogniser)
            r"^\s*[Ee]poch\s*(?P<epoch>\d+)(?!\s*/):?\s+[━╸╺╾╼─\s]+"
            r"(?P<seen>\d+)/(?P=seen)\b(?P<kv>.*)$"
        ),
        needle="━",
        step_from="epoch",
        needs_loss=True,
    ),
)

_HEADER = lazy_regex(r"^[\s|#=\-*>\[]*[Ee]poch\s*[:#]?\s*\[?\s*(\d+)\s*(?:/|of)\s*(\d+)\s*\]?(?![\d.])(.*)$")
_SPLITS = {
    "train": "train",
    "training": "train",
    "trn": "train",
    "val": "val",
    "valid": "val",
    "validation": "val",
    "eval": "val",
    "evaluation": "val",
    "dev": "val",
    "test": "test",
}
_SPLIT_WORD = lazy_regex(r"(?i)\b(train(?:ing)?|trn|val(?:id(?:ation)?)?|eval(?:uation)?|dev|test)\b")
_METRIC = lazy_regex(
    r"(?i)(?:\b(train(?:ing)?|trn|val(?:id(?:ation)?)?|eval(?:uation)?|dev|test)[\s_]+)?"
    r"\b(loss|acc(?:uracy)?|perplexity|ppl|f1|bleu|top1|top5)\s*[:=]?\s*(NUM)(?![\w.])".replace("NUM", NUM)
)
_NAMES = {"accuracy": "acc", "perplexity": "ppl"}
# A position inside the epoch (a step, a batch count, a bar): the line-shape patterns read those.
_INSIDE = lazy_regex(r"(?i)\b(?:step|iter(?:ation)?|batch)\b|\d+\s*/\s*\d+|%\||━|\[[=>.]{3,}")


def epoch_blocks(lines: list[Line]) -> Capture | None:
    """Epoch headers with the plan, and the per-split values printed with them or after them."""
    cap = Capture("epoch-blocks", tier=1)
    epoch = planned = None
    for line in lines:
        text = line.final
        head = _HEADER.match(text)
        if head:
            epoch, planned, text = int(head[1]), int(head[2]), head[3]
            cap.meta.setdefault("first_epoch", epoch)
        if epoch is None or _INSIDE.search(text):
            continue
        vals = _split_values(text)
        if not vals:
            continue
        for name, v in vals.items():
            cap.add(name, float(epoch), v)
        cap.lines.append(line.no)
    if not cap.has_loss() or not cap.lines or epoch is None or planned is None:
        return None
    first = cap.meta.pop("first_epoch")
    cap.meta.update(
        steps_are="epochs",
        planned_epochs=planned + (1 if first == 0 else 0),
        last_epoch=epoch + (1 if first == 0 else 0),
    )
    return cap


def _split_values(text: str) -> dict[str, float]:
    """``Train Loss: 2.1 - Valid Loss: 2.3`` -> train_loss, val_loss; a line led by a split word
    (``val Loss: 0.3 Acc: 0.9``) gives that split to every unprefixed value on it."""
    lead = _SPLIT_WORD.match(text.strip())
    default = _SPLITS[lead[1].lower()] if lead else "train"
    out: dict[str, float] = {}
    for split, name, value in _METRIC.findall(text):
        key = _SPLITS[split.lower()] if split else default
        name = _NAMES.get(name.lower(), name.lower())
        try:
            out.setdefault(f"{key}_{name}", float(value))
        except ValueError:
            continue
    return out


# a name may be a Greek letter (``α``) or end in a percent sign (``Acc%``: its values printed with one)
_NAME_TOKEN = lazy_regex(r"^[^\W\d_][\w/@.()\-]*%?$")
_NUMBER = lazy_regex(rf"^(?:{NUM})$")
_COUNTER = lazy_regex(r"^(\d+)/(\d+)$")
_TABLE_STEP = frozenset({"epoch", "step", "iter", "iteration", "steps", "epochs", "ep"})
# A mark printed after a row's last value (``★``, ``*``, ``<-``: the best epoch so far): no column's.
_ROW_MARK = lazy_regex(r"^[^\w\s.+\-]{1,3}$|^<-+$")
# A name of two words, a split's then a metric's, one space apart where two or more part the names
# (``train loss   va_loss  train_acc``, a hand-aligned header): one name.
_SPLIT_NAME = lazy_regex(r"(?i)(?<!\S)(train|training|val|valid|validation|test|eval) (loss|acc|accuracy)(?=\s{2,}|$)")
_TOTAL_LOSS = "total_loss"  # the name a table's ``total`` is read under where the table names no loss


# A header of names parted by tabs behind a comment mark, a data file's (``#Epoch\tTraining Error\t
# Testing Error`` over tab-separated rows, faxmishok/AI_heart-disease-prediction-pw7 training.out):
# each name between tabs, its words joined (``Training_Error``).
_TAB_HEADER = lazy_regex(r"^#?[^\t\d#]+(?:\t[^\t\d]+)+$")


def _header_names(text: str) -> list[str]:
    """A header line's names: parted by tabs where a tab parts them (a name may hold a space),
    else by spaces (``train loss   val_loss``: two names, not three)."""
    body = text.strip()
    if _TAB_HEADER.match(body):
        return [c.strip().replace(" ", "_") for c in body.lstrip("#").split("\t")]
    return _SPLIT_NAME.sub(r"\1_\2", body).split()


# the same error on an evaluation split, beside the training error in such a header
_EVAL_ERROR = lazy_regex(r"(?i)^(?:test|testing|val|valid|validation|eval)_?error$")


def _named_error(cols: list[str]) -> str | None:
    """The training error a header names as its one objective, its first column a step (an old
    loop's table: ``Epoch  Training_Error  Testing_Error``, the MSE it minimises; the same error
    on an evaluation split may stand beside it), else None."""
    if cols[0].lower() not in _TABLE_STEP:
        return None
    return lone_training_error([c for c in cols[1:] if not _EVAL_ERROR.match(c)])


def _eval_error(cols: list[str]) -> str | None:
    """The evaluation split's error beside a header's training error (:func:`_named_error`)."""
    return next((c for c in cols if _EVAL_ERROR.match(c)), None)


def _table_header(text: str) -> tuple[list[str], bool] | None:
    """A header's names and whether it is a ``total`` table's: one naming a loss (or a training
    error as its one objective); or one naming none as ``Epoch .. total ..`` (its rows must lead
    with counters; its ``total`` is the loss)."""
    cols = _header_names(text)
    if len(cols) < 3 or len(cols) > 30 or not all(_NAME_TOKEN.match(c) for c in cols):
        return None
    if any("loss" in c.lower() for c in cols) or _named_error(cols) is not None:
        return cols, False
    if cols[0].lower() in _TABLE_STEP and "total" in cols:
        return [_TOTAL_LOSS if c == "total" else c for c in cols], True
    return None


def _iteration_after_epoch(cols: list[str]) -> bool:
    """``epoch  iteration ...`` (Chainer's PrintReport): a table counting both, the iteration (the
    run's, not the epoch's: an ``iter`` or ``batch`` column may count within the epoch) the step."""
    return len(cols) > 2 and cols[0].lower() == "epoch" and cols[1].lower() == "iteration"


def _placed(text: str, starts: list[int]) -> list[str] | None:
    """A row that leaves cells blank (Chainer's PrintReport writes spaces where a value was not
    reported: the validation columns between evaluations) as its cells under the header's names,
    ``""`` where blank: each value starts where its column's name starts (the table is
    left-aligned); None where a value starts anywhere else."""
    out = [""] * len(starts)
    for m in re.finditer(r"\S+", text):
        if m.start() not in starts:
            return None
        out[starts.index(m.start())] = m.group()
    return out


def _row_step(cells: list[str], cols: list[str], order: float) -> tuple[float, int, bool]:
    """Where a table row is: its step, how many leading cells said it, and whether they were
    counters. ``3/29  40/165``: epoch 3 of 0-29, batch 40 of 0-165, the step counting batches
    (3 * 166 + 40); a step column's number (``epoch  iteration``, Chainer's PrintReport: the
    iteration, the finer); else the row's ``order``."""
    first = _COUNTER.match(cells[0])
    if first is None and _iteration_after_epoch(cols) and _NUMBER.match(cells[1]):
        return float(cells[1]), 2, False
    if first is None:
        return (float(cells[0]), 1, False) if cols[0].lower() in _TABLE_STEP else (order, 0, False)
    inner = _COUNTER.match(cells[1])
    if inner is None:
        return float(first[1]), 1, True
    return float(first[1]) * (int(inner[2]) + 1) + float(inner[1]), 2, True


# A table drawn with borders (PrettyTable, tabulate's grid and pipe formats, rich, a Markdown
# table): its cells lie between the borders, and a rule line (``+----+``, ``|---|``, ``┡━━╇``)
# holds none. Only a line that starts and ends with a border is a bordered row.
_BORDERS = "|│┃║"
_BORDER = lazy_regex(r"\s*[|│┃║]\s*")
_RULE = lazy_regex(r"^[\s+\-=:|│┃║─━═┏┓┗┛┡┩┣┫┳┻╇╋┌┐└┘├┤┬┴┼╭╮╰╯╞╡╪╒╕╘╛╤╧]*$")


def unboxed(text: str) -> str:
    """A bordered table's line as its cells apart by two spaces (a cell's own spaces as ``_``:
    ``train loss`` is one name); a rule line as empty; a line parted by inner bars only
    (:func:`_parted_by_bars`) as its cells; any other line as it is."""
    body = text.strip()
    if len(body) < 3 or body[0] not in _BORDERS and body[0] != "+" or body[-1] not in _BORDERS and body[-1] != "+":
        return _parted_by_bars(body) or text
    if _RULE.match(body):
        return ""
    if body[0] not in _BORDERS or body[-1] not in _BORDERS:
        return text
    cells = _BORDER.split(body)[1:-1]
    return "  ".join(c.replace(" ", "_") if c else "-" for c in cells) if len(cells) >= 2 else text


def _parted_by_bars(body: str) -> str | None:
    """A line whose columns are parted by bars between them only, each with a space on either side
    (a script's own table, ``Epoch    | Loss    | Acc``, then rows ``1        | 0.4829  | 77.68%``, under
    a logger's frame: ky537465/Cost-Aware-Prediction's lstm.log), as its cells apart by two spaces;
    None for any other line: a tqdm bar's ``100%|####|`` has no spaces, and a cell of two words
    (``Epoch 1 | loss 0.5 | acc 0.9``) is a name and its value, no column's."""
    bars = body.count("|")
    if bars < 2 or body.count(" | ") != bars:
        return None
    cells = [c.strip() for c in body.split("|")]
    return "  ".join(cells) if all(c and " " not in c for c in cells) else None


class _Table:
    """One kind of column table as it is read: the capture, the header in force, where rows are.
    A header indented over a blank first column (pandas' ``print(df)``: the index has no name)
    has rows of one cell more, the index first: the row's place where no column is a step."""

    def __init__(self, total: bool) -> None:
        self.total, self.cap = total, Capture("column-table", tier=1)
        self.cols: list[str] | None = None
        self.batched, self.offset, self.indexed = False, 0.0, False
        self.last: float | None = None
        self.starts: list[int] = []  # where each name starts on the header line (a row's blanks placed by them)
        self.head_run = 0  # the known run the header is in (a notebook's cell: Line.run)
        self.run = 0  # the known run of the last row read

    def row(self, cells: list[str], line: Line, text: str = "") -> None:
        cols = self.cols
        order = float(len(self.cap.lines))
        if cols is not None and len(cells) == len(cols) + 1 and _ROW_MARK.match(cells[-1]):
            cells = cells[:-1]  # "  16  0.6948 0.6940 ... 0.000 ★": the best epoch's mark
        if cols is not None and self.indexed and len(cells) == len(cols) + 1 and cells[0].isdigit():
            order, cells = float(cells[0]), cells[1:]
        if cols is not None and len(cells) < len(cols) and self.starts:
            cells = _placed(text, self.starts) or cells
        cells = [c[:-1] if c.endswith("%") and _NUMBER.match(c[:-1]) else c for c in cells]
        if cols is None or len(cells) != len(cols):
            return
        step, lead, counters = _row_step(cells, cols, order)
        vals = {n: float(c) for n, c in zip(cols[lead:], cells[lead:]) if _NUMBER.match(c)}
        if lead == 2 and not counters:  # the iteration placed the row: the epoch is kept as a value
            vals = {cols[0]: float(cells[0]), **vals}
        if 2 * (len(vals) + lead) < len(cols) or self.total and not counters:
            return
        self.batched = self.batched or lead == 2
        if self.last is not None and step > self.last:  # the numbering goes on past the last table's (a header
            self.offset = 0.0  # printed again each epoch): no new table to place after it
        # counters say where a row is whatever table it is under; a plain number or the order continue the last table
        self.last = last = step if counters else step + self.offset
        self.cap.add_all(last, vals)
        self.cap.lines.append(line.no)
        self.run = line.run

    def result(self) -> Capture | None:
        cap = self.cap
        error = _named_error(self.cols) if self.cols is not None and not self.total else None
        if error is not None and error in cap.cols and not any("loss" in name.lower() for name in cap.cols):
            cap.meta["objective"] = error
            cap.meta["objective_why"] = "a training error named in the table's header (old loops' MSE)"
            evaluated = _eval_error(self.cols or [])
            if evaluated is not None and evaluated in cap.cols:
                cap.meta["eval_objective"] = evaluated
                cap.meta["eval_objective_why"] = "the same error on an evaluation split, beside it in the header"
        if len(cap.lines) < 2 or not cap.has_loss():
            return None
        if self.total:
            cap.notes.append("the table names no loss: its 'total' column is read as the loss (total_loss)")
        if self.cols is not None and self.cols[0].lower().startswith("epoch") and not self.batched:
            cap.meta["steps_are"] = "epochs"
        return cap


def _read_tables(lines: list[Line]) -> tuple[Capture | None, Capture | None]:
    """Rows of values under a header line of names (one of them a loss), one row per line; and,
    in the same pass over the lines, the counter tables whose ``total`` is the loss."""
    kinds = (_Table(False), _Table(True))
    for line in lines:
        text = unboxed(line.final)
        head = _table_header(text)
        if head is not None:
            table = kinds[head[1]]
            if table.cap.lines and line.run != table.run:  # a notebook's next cell: a run of its own
                table.last = None
            table.cols, table.offset = head[0], (table.last + 1.0 if table.last is not None else 0.0)
            table.indexed, table.head_run = text[:1].isspace(), line.run
            table.starts = [m.start() for m in re.finditer(r"\S+", text)]
            continue
        cells = text.split()
        if cells and (_NUMBER.match(cells[0]) or _COUNTER.match(cells[0])):
            for table in kinds:
                if table.cols is not None and line.run != table.head_run:  # a header of an earlier
                    table.cols = None  # notebook cell: this cell's rows are another table's (a DataFrame)
                table.row(cells, line, text)
    return kinds[0].result(), kinds[1].result()


def column_tables(lines: list[Line], total: bool = False) -> Capture | None:
    """The column table read (``total``: the counter table whose ``total`` is the loss)."""
    return _read_tables(lines)[total]


def tables(lines: list[Line]) -> list[Capture]:
    """Both kinds of column table, from one pass over the lines."""
    return [cap for cap in _read_tables(lines) if cap is not None]


# Keras' ``print(history.history)`` (and a hand-kept dict of per-epoch lists printed the same way):
# ``{'loss': [4.85, 2.31, ...], 'val_loss': [...], 'acc': [...]}`` on one line, one value per epoch.
_DICT_LIST = lazy_regex(r"""['"]([A-Za-z][\w@/.\- ]{0,60})['"]\s*:\s*\[([^\[\]]*)\]""")
MIN_DICT_EPOCHS = 3
# a few words and a colon or ``=`` before the dict: ``print("train history:", history.history)``
# (norahik/CDECNN's train_history.txt: ``train history: {'acc': [...], 'loss': [...], ...}``)
_DICT_LABEL = lazy_regex(r"^[A-Za-z][\w .\-]{0,40}?\s*[:=]\s*(?=\{)")
# a logging record's frame before the dict, in any format (liguoliguoli/keras_on_relic's keras.log:
# ``2018-09-16 19:41:41,939 -keras_dpm-INFO-transfer_learning:{'val_loss': [..], 'loss': [..]}``): the
# dict from its first quoted key to the line's end, no brace before it
_FRAMED_DICT = lazy_regex(r"""^[^{}]{1,200}?(?=\{\s*['"][A-Za-z])""")


def printed_lists(text: str) -> dict[str, list[float]]:
    """The per-epoch lists of one printed dict (``str(history.history)``), by their keys."""
    cols = {}
    for m in _DICT_LIST.finditer(text):
        cells = [c for c in _MORE_VALUES.split(m[2].strip()) if c]
        if len(cells) >= MIN_DICT_EPOCHS and all(_VALUE.fullmatch(c) for c in cells):
            cols[m[1]] = [float(c) for c in cells]
    return cols


def history_dicts(lines: list[Line]) -> Capture | None:
    """Per-epoch lists of a printed dict, one of them a loss; a line of the dict's own (a config
    dump of scalars, a list of strings) gives nothing. The longest such line in the log is read."""
    best: dict[str, list[float]] = {}
    at = 0
    for line in lines:
        text = line.final.strip()
        if text.startswith('"{') and text.endswith('}"'):  # json.dump(str(history.history), f)
            text = text[1:-1]
        text = _DICT_LABEL.sub("", text, count=1)
        if text.endswith("}") and not text.startswith("{"):
            text = _FRAMED_DICT.sub("", text, count=1)
        if not text.startswith("{") or len(text) > MAX_LIST_CHARS or "loss" not in text:
            continue
        cols = printed_lists(text)
        if any("loss" in name.lower() for name in cols) and sum(map(len, cols.values())) > sum(map(len, best.values())):
            best, at = cols, line.no
    if not best:
        return None
    cap = Capture("history-dict", tier=1)
    for name, values in best.items():
        cap.cols[name] = ([float(i + 1) for i in range(len(values))], values)
    cap.lines.append(at)
    cap.meta["steps_are"] = "epochs"
    cap.notes.append(f"a printed dict of per-epoch lists (line {at}): {', '.join(best)}")
    return cap


# ``os.system(f"echo Saved model at epoch {epoch+1} with loss: {loss} >> loss_log.txt")`` where the
# loss improved (ashwin-p/vqvae2-mscoco2017's loss_log.txt): one line per checkpoint of the best model
_BEST_SAVE = lazy_regex(r"^\s*Saved (?:best )?model at epoch (\d+) with loss:?\s*(%s)\s*$" % NUM)


def best_saves(lines: list[Line]) -> Capture | None:
    """A log of the best model's saves, ``Saved model at epoch 12 with loss: 0.0412``: ``loss``
    at each saved epoch. Only improvements are written: the curve can only fall. Only a file
    mostly of such lines: a console log that prints them among its training lines is not one."""
    cap = Capture("best-model-saves")
    for line in lines:
        m = _BEST_SAVE.match(line.final)
        if m is not None:
            cap.add("loss", float(m[1]), float(m[2]))
            cap.lines.append(line.no)
    if len(cap.lines) < 3 or 5 * len(cap.lines) < 4 * len(lines):  # a console log that also saves: not this
        return None
    cap.meta["steps_are"] = "epochs"
    cap.notes.append(
        "the log writes a line only where the model improved (a save of the best model so far): "
        "a curve that can only fall; the epochs between saves and any rise of the loss are not in it"
    )
    return cap


# (column tables of both kinds from one pass: a table naming a loss, or a counter table's ``total``)
RECOGNISERS = (
    (epoch_blocks, "poch"),
    (tables, ("loss", "Loss", "LOSS", "total", "Error", "error")),
    (history_dicts, "loss"),
    (best_saves, "model at epoch "),
)


# A loss file a training loop appends to: one value per line (``loss.txt``, ``logs/loss.log``), or
# a step and a value (``100 2.31``, ``100,2.31``). Named by the file: only a file whose name says
# loss is taken (a file of bare numbers named otherwise could be anything). A row may hold more
# values (``1.3178,1.5005``: a training and a test loss, ``np.savetxt`` or ``to_csv(header=False)``
# of two columns): the first is the file's loss, the next ``<name>_2``, ``<name>_3``; only in a file
# with no header line (a table with one is the table readers').
_NUMBER_LINE = lazy_regex(
    r"^\s*(?:(\d+)(?:\s*[,;:]\s*|\s+))?(NUM)((?:(?:\s*[,;]\s*|\s+)NUM){0,7})\s*$".replace("NUM", NUM)
)
_MORE_VALUES = lazy_regex(r"[\s,;]+")
MIN_NUMBER_LINES = 10
# A row as the loop printed the values it held: a torch tensor's repr (``print(epoch, loss)``:
# ``0 tensor(0.4010, device='cuda:0', grad_fn=<MseLossBackward0>)``), a tuple or a list of the
# values (``print((train_loss, val_loss))``: ``(0.0105, 0.0025)``), the counter led by its word
# (``Epoca 3: tensor(1.53, grad_fn=<DivBackward0>)``, ``Epoch 3: 1.53``).
_WRAPPED_ROW = lazy_regex(r"^\s*[(\[]\s*(NUM(?:\s*,\s*NUM){1,7})\s*,?\s*[)\]]\s*$".replace("NUM", NUM))
_COUNTER_WORD = lazy_regex(
    r"^\s*(?:epochs?|epoca|época|epoche|époque|iter(?:ation)?s?|steps?|batch(?:es)?|episodes?)\s*(?=\d+\s*[:,])",
    re.IGNORECASE,
)
# The whole file one printed list of the values (``f.write(str(losses))``, Rust's ``{:?}``, NumPy's
# ``[0.33 0.13 ...]`` wrapped over lines): the values in order. Only a short file is looked at so.
_VALUE = lazy_regex(NUM)
MAX_LIST_CHARS = 1_000_000
MAX_LISTED_ROWS = 8


def unquoted(text: str) -> str:
    """A row of a file whose writer quotes every cell (R's ``write.csv``, ``csv.QUOTE_ALL``:
    ``"1","52.58"``) without its quotes; any other line as it is."""
    if '"' not in text or text.count('"') % 2:
        return text
    return text.replace('"', "")


def loss_name(stem: str) -> str | None:
    """The series a file of bare numbers holds, from its name: ``loss`` for ``loss.txt`` or
    ``losses.log``, ``train_loss`` for ``train_loss.txt``; None when the name says no loss."""
    stem = stem.lower()
    if "loss" not in stem:
        return None
    return "loss" if stem in ("loss", "losses", "loss_log", "log_loss", "loss_history") else stem


def number_lines(lines: list[Line], name: str) -> Capture | None:
    """A file of bare values (or ``step value`` pairs), nine in ten of its lines: the series
    ``name``, at the steps written or, where there are none, at the values' order."""
    listed = _listed(lines, name) or _listed_rows(lines, name)
    if listed is not None:
        return listed
    cap = Capture("loss-file")
    other, headed, wide = 0, False, False
    for line in lines:
        m = _NUMBER_LINE.match(row_text(line.final))
        if m is None:
            other += 1
            headed = headed or (not cap.lines and bool(line.final.strip()))
            continue
        step = float(m[1]) if m[1] is not None else float(len(cap.lines) + 1)
        more = [v for v in _MORE_VALUES.split(m[3].strip()) if v] if m[3] else []
        wide = wide or bool(more)
        for k, value in enumerate([m[2], *more]):
            col = cap.cols.setdefault(name if k == 0 else f"{name}_{k + 1}", ([], []))
            col[0].append(step)
            col[1].append(float(value))
        cap.lines.append(line.no)
    if len(cap.lines) < MIN_NUMBER_LINES or other * 9 > len(cap.lines) or (wide and headed):
        return None
    cap.notes.append(f"a file of bare values: {len(cap.lines)} line(s) read as {name!r}, named by the file's name")
    return cap


def _listed_rows(lines: list[Line], name: str) -> Capture | None:
    """The file's values where each line is one printed list or one delimited row of them, a series
    a line (``f.write(str(train_losses) + "\\n"); f.write(str(val_losses))``, a ``,``-joined row of
    the losses and one of the accuracies): the first line the file's loss, the next ``<name>_2``, ..."""
    texts = [ln.final.strip() for ln in lines if ln.final.strip()]
    if not 1 <= len(texts) <= MAX_LISTED_ROWS or sum(map(len, texts)) > MAX_LIST_CHARS:
        return None
    rows = []
    for k, text in enumerate(texts):
        cut = k == len(texts) - 1 and text[0] == "[" and text[-1] != "]"  # cut short: a sniffed head
        text = text[1:-1] if text[0] == "[" and text[-1] == "]" else text[1:] if cut else text
        cells = [c for c in _MORE_VALUES.split(text) if c]
        if cut and cells and not _VALUE.fullmatch(cells[-1]):
            cells.pop()
        if len(cells) < MIN_NUMBER_LINES or not all(_VALUE.fullmatch(c) for c in cells):
            return None
        rows.append([float(c) for c in cells])
    cap = Capture("loss-file")
    for k, values in enumerate(rows):
        cap.cols[name if k == 0 else f"{name}_{k + 1}"] = ([float(i + 1) for i in range(len(values))], values)
    cap.lines.extend(ln.no for ln in lines if ln.final.strip())
    cap.notes.append(
        f"a file of {len(rows)} printed row(s) of values, a series each: the first ({len(rows[0])} value(s)) "
        f"read as {name!r}, named by the file's name"
    )
    return cap


def row_text(text: str) -> str:
    """A line of a loss file as its bare values: unquoted, values unwrapped from what holds them
    (a tensor, a tuple or list of the row), the counter's word dropped."""
    text = unwrap_values(unquoted(text))
    wrapped = _WRAPPED_ROW.match(text)
    if wrapped is not None:
        return wrapped[1]
    return _COUNTER_WORD.sub("", text, count=1)


def _listed(lines: list[Line], name: str) -> Capture | None:
    """The file's values where the whole file is one printed list of numbers."""
    if not lines or not lines[0].final.lstrip().startswith("[") or sum(len(ln.final) for ln in lines) > MAX_LIST_CHARS:
        return None
    text = " ".join(ln.final for ln in lines).strip()
    if not text.endswith("]"):
        return None
    cells = [c for c in _MORE_VALUES.split(text[1:-1]) if c]
    if len(cells) < MIN_NUMBER_LINES or not all(_VALUE.fullmatch(c) for c in cells):
        return None
    values = [float(c) for c in cells]
    cap = Capture("loss-file")
    cap.cols[name] = ([float(i + 1) for i in range(len(values))], values)
    cap.lines.extend(ln.no for ln in lines)
    cap.notes.append(f"a file of one printed list: {len(values)} value(s) read as {name!r}, named by the file's name")
    return cap
