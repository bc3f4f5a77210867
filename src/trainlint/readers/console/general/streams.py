"""The general line reader's records grouped into streams: the training stream (its loss, its
steps from the counters or the order) and the evaluation streams, by the records' shapes."""

from __future__ import annotations

from bisect import bisect_right

import msgspec

from ....role_structure import EVAL_WORDS, TEST_WORDS, TRAIN_WORDS, parse, split_named, words_of
from ....roles import role_of
from ..glossary import english
from ..text import Line, distinct_segments, lazy_regex
from .lines import BAR_RENDER, EPOCH_DONE, EVAL_OR_TEST_WORDS, MIN_REPEAT, Record, read_line, strip_frame


class Shape(msgspec.Struct):
    """A line shape the reader learned: its names, records, what they became, three samples."""

    names: list[str]
    records: int = 0
    roles: list[str] = msgspec.field(default_factory=list)
    samples: list[str] = msgspec.field(default_factory=list)


def shapes(recs: list[Record], role: dict[int, str]) -> list[Shape]:
    by: dict[frozenset[str], Shape] = {}
    for rec in recs:
        key = frozenset(rec.values)
        row = by.setdefault(key, Shape(sorted(key)))
        row.records += 1
        r = role.get(id(rec), "not used")
        if r not in row.roles:
            row.roles.append(r)
        if len(row.samples) < 3:
            row.samples.append(f"line {rec.line}: {rec.text.strip()[:100]}")
    return sorted(by.values(), key=lambda r: -r.records)


def records(lines: list[Line]) -> list[Record]:
    """Every line's record; a line of counters only (``Epoch: 01``) is a header whose counters
    the lines after it take, and the lines after one header that name different values
    (``train/loss=...`` then ``train/ppl=...``) are one record, unless the lines after the header
    repeat one shape (a record a line: a stray line among them, a warning with a number, is no
    part of the record before it). Even then, lines of one value each, one right after the other,
    that name different values and not the repeated shape are one record: another thread's
    ``WARNING: .. Actor 24403`` printed twice under a PPO loop's ``Episode 5 完成`` header leaves the
    ``- Reward: ..``, ``- Policy Loss: ..`` lines after it one record."""
    reading = _Reading()
    for line in lines:
        after_bar = False
        for seg in distinct_segments(line.segments):
            after_bar = reading.segment(seg, line, after_bar)
    return _named_first(reading.out)


class _Reading:
    """What :func:`records` carries from one line to the next."""

    __slots__ = ("block", "header", "last", "out", "repeat", "section", "since", "split_of_block", "titled", "under")

    def __init__(self) -> None:
        self.out: list[Record] = []
        self.header: Record | None = None
        self.block: Record | None = None
        self.repeat: frozenset[str] | None = None  # the shape the lines after the header repeat (a record a line)
        self.last = 0  # the line the last record (or the block) ended on
        self.since = 0  # the first record after the header: a record before it is no neighbour to compare with
        self.titled = ""  # "Test Error:" alone on the line before: the split of that line's values
        self.section = _Section()  # "===== validate epoch 1 =====" before: the split of the lines under it
        self.under = False  # a counter-only header came last (tqdm bars after it aside): a bare number is its loss
        self.split_of_block = ""  # the split a title line gave the record that opened the block: its other lines' too

    def segment(self, seg: str, line: Line, after_bar: bool) -> bool:
        """Reads one redraw segment of ``line``; whether it was a tqdm bar."""
        rec = read_line(seg)
        if rec is None and (self.under or after_bar):
            rec = _unnamed(seg, self.under)
        bar = rec is None and BAR_RENDER.match(seg.strip()) is not None
        paired = rec is not None and rec.unnamed and rec.inner is not None  # ``10.19, 100``: more may follow
        self.under = (self.under and (bar or paired)) or (rec is not None and not rec.values)
        title, self.titled = self.titled, _split_title(seg, rec)
        banner = _banner(seg)
        if rec is None:
            self.section = self.section if banner is None else _Section(banner)
            return bar
        rec.line, rec.run = line.no, line.run
        split = title or (_sectioned(self.section, rec) if rec.values and not rec.split else "")
        if split and rec.values and not rec.split:
            _entitle(rec, split)
        if rec.values:
            self.add(rec, title)
        else:
            self.header, self.block, self.repeat, self.since = rec, None, None, len(self.out)
            self.section = _Section(banner or "")
        return bar

    def add(self, rec: Record, title: str) -> None:
        """Takes a record with values: one more line of the open block, or a record of its own
        (the header's counters where it prints none)."""
        own = not rec.unnamed and (rec.step is not None or rec.epoch is not None or rec.inner is not None)
        keys = frozenset(rec.values)
        # where a record a line: one value, on the line right after the block's last
        one_more = self.repeat is None or (len(keys) == 1 and rec.line == self.last + 1)
        if (
            self.block is not None
            and one_more
            and not _KERAS_STYLE_BAR.search(rec.text)
            and _joins(rec, self.block, own, title, self.split_of_block)
        ):
            self.block.values.update(rec.values)
            self.last = rec.line
            self.block.listed = self.block.listed or rec.listed
            return
        header = self.header
        if not own and header is not None:
            rec.step, rec.epoch, rec.inner = header.step, header.epoch, rec.inner or header.inner
        elif header is not None and _epoch_only(header) and _placed_by_epoch_header(rec):
            rec.epoch = header.epoch  # "Start of epoch 3", then "loss at step 200: 0.6": the step in epoch 3
        if own and self.out and _repeated(self.out[-1], rec):
            return
        self.out.append(rec)
        if self.repeat is None and len(self.out) - self.since > 1 and self.out[-2].values.keys() == keys:
            self.repeat = keys  # a record a line
        one = self.repeat is None or (len(keys) == 1 and keys != self.repeat)
        self.block = rec if header is not None and not own and one and not rec.unnamed else None
        self.split_of_block = title if self.block is not None else ""
        self.last = rec.line


def _placed_by_epoch_header(rec: Record) -> bool:
    """Whether a record with counters of its own takes the epoch of the epoch-only header above it:
    one with no epoch, and no count or a count out of a total (``Epoch 2: Freezing backbones...``, then
    ``  Batch 10/215 | Loss: 2.27`` lines, Abhijith-Reddy-ch/MultiModal-Temporal-Deepfake-Detection's
    training.log): the count within that epoch."""
    return rec.epoch is None and (rec.inner is None or rec.inner[1] > 0)


# A Keras-style bar drawn before the values (``[Training] 1/10 [==>.....] - ETA: 2:45  loss: 1.93``, the
# progress bar of lonePatient's BERT text-classification scripts, copied by Yanghello/TCM_UC): a render
# of its own, never one more line of the block of settings printed one a line just before it.
_KERAS_STYLE_BAR = lazy_regex(r"\d/\d+ \[[=>.]{5,}\]")


def _joins(rec: Record, block: Record, own: bool, title: str, split_of_block: str) -> bool:
    """Whether ``rec``, a line with no counter of its own, is one more line of the open block's
    record: it names other values than the block holds. A record a title line named (``test``
    alone on the line before) opens a block of its own, and the lines after it take the split it
    gave: ProtoPNet's ``test``, then ``time: ..``, ``cross ent: ..``, a value a line, each behind a tab."""
    if own or title or rec.unnamed:
        return False
    split = split_of_block if not rec.split else ""
    names = {n if not split or parse(n).split is not None else f"{split}_{n}" for n in rec.values}
    if names & block.values.keys():
        return False
    if split:
        _entitle(rec, split)
    return True


_BARE_VALUE = lazy_regex(r"^\s*([-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|nan)\s*$")


_BARE_PAIR = lazy_regex(r"^\s*([-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|nan),\s*(\d+)\s*$")


def _unnamed(seg: str, under: bool) -> Record | None:
    """A line of one number (a decimal, never a count) printed right under an epoch's header
    (``Epoch 3``, then ``0.0072``; a tqdm bar between them or not) or after a tqdm render on its
    line (``100%|..| 38/38 [00:01<00:00] 88.05``): the loop's ``print(loss)``, read as ``loss``.
    Under the header only, lines of a decimal and a count (``print(f"{loss}, {batch_idx}")``:
    ``Epoch: 3``, then ``10.19, 0``, ``10.18, 100``, ..., ConnrLin/RecModel's train_log.txt):
    the decimal is ``loss``, the count the batch inside the epoch."""
    m = _BARE_VALUE.match(seg)
    if m is not None:
        return Record(0, seg, {"loss": float(m[1])}, unnamed=True)
    m = _BARE_PAIR.match(seg) if under else None
    return Record(0, seg, {"loss": float(m[1])}, inner=(float(m[2]), 0.0), unnamed=True) if m is not None else None


def _named_first(recs: list[Record]) -> list[Record]:
    """The records without the bare numbers (:func:`_unnamed`) where named records hold a
    training loss: a bare number is the loss only where no name says which one is."""
    named = [r for r in recs if not r.unnamed]
    if len(named) == len(recs):
        return recs
    loss = training_loss(named)
    return named if loss is not None and parse(loss).split in (None, "train") else recs


def _repeated(last: Record, rec: Record) -> bool:
    """Whether ``rec`` prints ``last`` again on the next line with a mark after it (the homework
    template's ``[ Valid | 001/100 ] loss = 1.65, acc = 0.38`` then the same line with ``  -> best``).
    A line printed again as it was is not taken for a reprint: bf16 losses repeat exactly."""
    same = (last.step, last.epoch, last.inner, last.split) == (rec.step, rec.epoch, rec.inner, rec.split)
    before, now = last.text.strip(), rec.text.strip()
    marked = now != before and now.startswith(before)
    return same and marked and rec.line - last.line == 1 and last.values == rec.values


def _losses(recs: list[Record]) -> dict[str, int]:
    """Loss-like names and the number of records that hold each."""
    counts: dict[str, int] = {}
    for rec in recs:
        for name in rec.values:
            counts[name] = counts.get(name, 0) + 1
    return {n: c for n, c in counts.items() if c >= MIN_REPEAT and (parse(n).kind is not None or role_of(n) == "loss")}


def training_loss(recs: list[Record]) -> str | None:
    """The loss the training stream is built on: the most repeated loss that is not an
    evaluation or test loss (a whole loss before a component), else the most repeated loss."""
    counts = _losses(recs)
    if not counts:
        return None
    order = list(counts)

    def key(name: str) -> tuple[bool, bool, int, int]:
        p = parse(name)
        return (p.split in (None, "train"), p.kind == "total", counts[name], -order.index(name))

    return max(counts, key=key)


def training_records(recs: list[Record], loss: str) -> tuple[list[Record], int]:
    """The records of the training stream: those holding ``loss`` whose shape shares most of its
    names with the most printed such shape. A less printed shape that also holds ``loss`` (a
    ``Loss: 0.98, MeanIU: 0.49`` summary after an epoch of ``Loss: 1.59, Acc: 0.64`` lines) is an
    evaluation: its names get an ``eval_`` prefix (the number of such records is returned); one
    that says it closes an epoch (PaddleRec's ``epoch: 3 done, AUC: .., loss: ..``) sums up the
    training: its names get a ``summary_`` prefix, but for the evaluation values it carries
    (``Epoch 3 done | train_loss: .. | val_loss: ..``). One whose names beyond the main shape are all
    evaluation names (verl's step line with the ``val-core/...`` metrics of that step merged in,
    maybe cut short by a capture's line limit) is a training record that carries an evaluation."""
    counts: dict[frozenset[str], int] = {}
    for rec in recs:
        if loss in rec.values:
            counts[frozenset(rec.values)] = counts.get(frozenset(rec.values), 0) + 1
    main = max(counts, key=lambda k: counts[k])
    evals, sums = _split_twins([k for k in counts if counts[k] < counts[main]])
    train, moved = [], 0
    for rec in recs:
        if loss not in rec.values:
            continue
        names = rec.values.keys()
        less = counts[frozenset(names)] < counts[main]
        beyond = names - main
        if frozenset(names) in evals:
            rec.values = {n if parse(n).split else f"eval_{n}": v for n, v in rec.values.items()}
            moved += 1
        elif frozenset(names) in sums:
            rec.values = {f"summary_{n}": v for n, v in rec.values.items()}
        elif less and EPOCH_DONE.search(english(rec.text)):  # its evaluation values stay what they are
            rec.values = {n if parse(n).split in ("eval", "test") else f"summary_{n}": v for n, v in rec.values.items()}
        elif not less or len(names & main) * 2 >= max(len(names), len(main)) or _evaluations(beyond):
            train.append(rec)
        else:
            rec.values = {n if parse(n).split else f"eval_{n}": v for n, v in rec.values.items()}
            moved += 1
    return _without_epoch_summaries(train), moved


_SPLIT_NAME_WORDS = TRAIN_WORDS | EVAL_WORDS | TEST_WORDS


def _unsplit(name: str) -> str:
    """A name without its split words (``Test. Acc.`` and ``Train. Acc.``: ``acc``)."""
    return "_".join(w for w in words_of(name.replace(".", " ")) if w not in _SPLIT_NAME_WORDS)


def _split_twins(shapes: list[frozenset[str]]) -> tuple[set[frozenset[str]], set[frozenset[str]]]:
    """Less printed shapes that come in a pair differing only in the split word of their named values
    (``Epoch: 3 | Train. Acc.: 95.1% | Loss: 0.15`` and ``Epoch: 3 | Test. Acc.: 97.4% | Loss: 0.08``,
    PiakoCode/Handwritten-Digit-Recognition's train.out, under the batch lines' ``Loss``): the evaluation
    twin's bare loss is the evaluation's, and the training twin sums up the epoch of the batch lines."""
    evals: set[frozenset[str]] = set()
    sums: set[frozenset[str]] = set()
    for shape in shapes:
        said = {n for n in shape if parse(n).split in ("eval", "test")}
        if not said or any(parse(n).split == "train" for n in shape):
            continue
        for twin in shapes:
            other = twin - shape
            if len(other) != len(said) or twin & said or not all(parse(n).split == "train" for n in other):
                continue
            if sorted(map(_unsplit, other)) == sorted(map(_unsplit, said)):
                evals.add(shape)
                sums.add(twin)
    return evals, sums


def _without_epoch_summaries(train: list[Record]) -> list[Record]:
    """The training records less the lines that sum up an epoch in the batch lines' own shape (the
    TensorFlow tutorials' "Epoch 3 Batch 100 Loss 0.61" lines, then "Epoch 3 Loss 0.58"): one line
    with the epoch alone after that epoch's counted lines. Their names get a ``summary_`` prefix.
    An epoch shorter than the printing interval prints one batch line, ``Epoch 3 Batch 0 ..``, before
    its summary (Gregorgeous/ula-transformer-tensorflow2.0's transformer.log): as many batch lines as
    summaries is that shape too. The last summary printed again right after itself is one too."""
    only = [r for r in train if _epoch_only(r)]
    counted = [r for r in train if r.inner is not None or r.step is not None]
    if not only or len(only) + len(counted) != len(train) or len(_closing_summaries(train)) != len(only):
        return train
    for r in only:
        r.values = {f"summary_{n}": v for n, v in r.values.items()}
    return counted


def _closing_summaries(train: list[Record]) -> set[int]:
    """The ids of the epoch-only records that close their epoch: each right after a counted record of
    the same epoch (the first such for that epoch), or a closing one printed again right after it."""
    closing: set[int] = set()
    seen: set[float | None] = set()
    for a, b in zip(train, train[1:]):
        if not _epoch_only(b) or a.epoch != b.epoch:
            continue
        if not _epoch_only(a) and b.epoch not in seen:
            closing.add(id(b))
            seen.add(b.epoch)
        elif id(a) in closing and _twins(a, b):
            closing.add(id(b))
    return closing


def _evaluations(names: set[str]) -> bool:
    """Whether ``names`` are some, and all evaluation or test names."""
    return bool(names) and all(parse(n).split in ("eval", "test") for n in names)


# The PyTorch quickstart's test(): print(f"Test Error: \\n Accuracy: {..:>0.1f}%, Avg loss: {..:>8f} \\n"):
# a split word alone on its line (with "error", "set" or "results"), the values on the next; also a line
# announcing the evaluation ("testing in eval mode……", "Validating...") before the values it prints.
_SPLIT_TITLE = lazy_regex(
    r"(?i)^(%s|testing|evaluating|validating)(?:\s+(?:error|set|results?|metrics|in\s+eval(?:uation)?\s+mode))?"
    r"\s*(?::|[.…]*)$" % "|".join(sorted(EVAL_OR_TEST_WORDS))
)


# An evaluation announced on its own line, its values on the next in the training lines' shape:
# "testing in eval mode……" (AIHHU/PaddleCIFAR10), "Evaluating...", "Eval begin..." (an ellipsis ends it).
_ANNOUNCED = lazy_regex(
    r"(?i)^(?:(?:start(?:ing)?|running|now)\s+)?(testing|validating|evaluating|eval|validation|evaluation)"
    r"(?:\s+(?:in\s+eval\s+mode|begin|mode|phase|started))?\s*(?:\.{2,}|…+)$"
)


_ANNOUNCED_SPLIT = {"testing": "test", "validating": "val", "validation": "val"}


def _split_title(seg: str, rec: Record | None) -> str:
    if rec is not None or len(seg) > 40:
        return ""
    text = strip_frame(seg)
    if (said := _ANNOUNCED.match(text)) is not None:
        return _ANNOUNCED_SPLIT.get(said[1].lower(), "eval")
    m = _SPLIT_TITLE.match(text)
    return "" if m is None else split_named(m[1])


# A banner line that opens a section and names its split, decorated on both sides ("=====
# validate epoch 1 =====", "---------- Validation ----------", "***** Eval results *****").
_BANNER = lazy_regex(
    r"(?i)^\s*[=\-*#~]{3,}\s*(%s|train|training)(?:\s+(?:epoch|phase|step|stage|set|results?|metrics))?"
    r"(?:\s*[:#]?\s*\d+(?:\s*/\s*\d+)?)?\s*[=\-*#~]{3,}\s*$" % "|".join(sorted(EVAL_OR_TEST_WORDS))
)


class _Section(msgspec.Struct):
    """The split a banner opened, and the counters of the first record under it."""

    split: str = ""
    counters: tuple[float | None, float | None, tuple[float, float] | None] | None = None


def _sectioned(section: _Section, rec: Record) -> str:
    """The split the open section gives ``rec`` ("" for none). A record with other counters than
    the first one under the banner closes it: a training line printed after an evaluation block
    that no banner of its own announces (``step 200 loss 0.4`` after ``---- Validation ----`` and
    ``loss 0.6``) is no evaluation."""
    if not section.split:
        return ""
    counters = (rec.step, rec.epoch, rec.inner)
    if section.counters is None:
        section.counters = counters
    elif counters != section.counters:
        section.split = ""
    return section.split


def _banner(seg: str) -> str | None:
    """The split a section banner names ("" for training), None for any other line."""
    if len(seg) > 200 or (m := _BANNER.match(seg)) is None:
        return None
    word = m[1].lower()
    return "" if word in ("train", "training") else split_named(m[1])


def _entitle(rec: Record, split: str) -> None:
    rec.split = split
    rec.values = {(n if parse(n).split is not None else f"{split}_{n}"): v for n, v in rec.values.items()}


def _epoch_only(rec: Record) -> bool:
    return rec.epoch is not None and rec.step is None and rec.inner is None


def _counted(inner: list[tuple[float, float]]) -> list[float]:
    """A count inside the epoch (``[ 900/1000]``) made a step: where it falls back (a new epoch),
    the previous count's total is added."""
    out, offset, last = [], 0.0, None
    for n, total in inner:
        if last is not None and n < last[0]:
            offset += last[1] or last[0]
        out.append(offset + n)
        last = (n, total)
    return out


def _per_epoch(inner: list[tuple[float, float]]) -> float:
    """The count an epoch holds: the printed total (``[10/250]``), else the largest count seen
    and, for a count from 0, one printing interval more (``batch_id: 1500`` printed every 500
    from 0: 2000; ``[1, 12000]`` printed every 2000 from 2000: 12000)."""
    most = max(max(total, n) for n, total in inner)
    if any(total for _, total in inner) or min(n for n, _ in inner) > 0:
        return most or 1.0
    gaps = [b[0] - a[0] for a, b in zip(inner, inner[1:]) if b[0] > a[0]]
    return most + (min(gaps) if gaps else 1.0)


def _step_is_inner(train: list[Record]) -> bool:
    """Whether the step counter starts again at each new epoch (and only there). The epoch may fall
    back where the step does too (a run appended after a restart), less than half as often as it
    goes on (lines of two processes interleaved fall back as often); a global step that falls
    only at such a restart is no count inside the epoch."""
    if not train or any(r.step is None or r.epoch is None or r.inner is not None for r in train):
        return False
    pairs = list(zip(train, train[1:]))
    falls = [b.epoch != a.epoch for a, b in pairs if (b.step or 0.0) < (a.step or 0.0)]
    back = [(a, b) for a, b in pairs if b.epoch < a.epoch]  # type: ignore[operator]
    on = [(a, b) for a, b in pairs if b.epoch > a.epoch]  # type: ignore[operator]
    restarts = all((b.step or 0.0) < (a.step or 0.0) for a, b in back) and 2 * len(back) <= len(on)
    new_epoch = any((b.step or 0.0) < (a.step or 0.0) for a, b in on)  # not only at a restart
    within = any(b.epoch == a.epoch for a, b in pairs)  # a count inside an epoch: two records in one
    return bool(falls) and all(falls) and restarts and new_epoch and within


def _count_restarts_after_epoch_lines(train: list[Record], recs: list[Record]) -> bool:
    """Whether a step printed with its total and no epoch (``step  320/328  loss 0.5308``) starts again
    only after a line that counts the epochs (``[Unfrozen] Epoch 1/500 -- train: 0.5309  val: 0.6230``,
    Lukas1121/LogSentinel's finetune.log): the count inside the epoch, the total its batches, no
    relaunch. Every fall back must come after such a line, and from a count near the total."""
    if len(train) < MIN_REPEAT or not all(r.step is not None and r.epoch is None and r.inner is None for r in train):
        return False
    totals = {r.step_total for r in train}
    if len(totals) != 1 or not (total := totals.pop()):
        return False
    falls = [(a, b) for a, b in zip(train, train[1:]) if (b.step or 0.0) < (a.step or 0.0)]
    gaps = [(b.step or 0.0) - (a.step or 0.0) for a, b in zip(train, train[1:]) if (b.step or 0.0) > (a.step or 0.0)]
    every = min(gaps, default=total)
    epoch_lines = sorted(r.line for r in recs if r.epoch is not None)

    def epoch_line_between(a: Record, b: Record) -> bool:
        i = bisect_right(epoch_lines, a.line)
        return i < len(epoch_lines) and epoch_lines[i] < b.line

    return bool(falls) and all(total - (a.step or 0.0) <= every and epoch_line_between(a, b) for a, b in falls)


def _count_is_global(train: list[Record]) -> bool:
    """Whether an ``N/M`` count printed with the epoch counts on across epochs (char-rnn-tensorflow's
    "{e * batches + b}/{epochs * batches} (epoch {e})"): it goes up, never back, at every new epoch."""
    news = [(a, b) for a, b in zip(train, train[1:]) if a.epoch != b.epoch]
    return bool(news) and all(
        a.inner is not None and b.inner is not None and (b.epoch or 0.0) > (a.epoch or 0.0) and b.inner[0] > a.inner[0]
        for a, b in news
    )


def _batch_size_beside_count(train: list[Record]) -> bool:
    """Whether every record's bare bracketed count (``[000500/50000]``, taken for the epoch when a
    ``batch N`` follows) is the step and that ``batch N``, the same on every record, the batch size."""
    if len(train) < MIN_REPEAT or not all(r.bare and r.inner is not None and r.epoch is not None for r in train):
        return False
    return len({r.inner for r in train}) == 1 and len({r.epoch for r in train}) == len(train)


def training_steps(train: list[Record], recs: list[Record]) -> tuple[list[float], str]:
    """The training records' steps, and what they were taken from (``recs``: all the log's records,
    the epoch lines among them)."""
    # "Epoch 74, Step 25", or "step 320/328" starting again after each epoch's line: a step counted inside the epoch
    if _step_is_inner(train) or _count_restarts_after_epoch_lines(train, recs):
        for r in train:
            r.inner, r.step = (float(r.step or 0.0), r.step_total), None
    if all(r.step is not None for r in train):
        steps, how = [float(r.step) for r in train if r.step is not None], "step"
    elif _batch_size_beside_count(train):  # "[000500/50000] X4K | loss 0.0488 | .. | batch 16"
        steps, how = [float(r.epoch or 0.0) for r in train], "step"
    elif all(r.inner is not None and r.epoch is not None for r in train) and _count_is_global(train):
        steps, how = [r.inner[0] for r in train if r.inner is not None], "count"
    elif all(r.inner is not None and r.epoch is not None for r in train):
        per = _per_epoch([r.inner for r in train if r.inner is not None])
        first = 1.0 if min(r.epoch for r in train if r.epoch is not None) == 1 else 0.0  # "Epoch: 1/5": from 1
        steps = [(r.epoch - first) * per + r.inner[0] for r in train if r.inner and r.epoch is not None]
        how = "epoch-count"
    elif all(r.epoch is not None for r in train):
        steps, how = [float(r.epoch) for r in train if r.epoch is not None], "epoch"
    elif all(r.inner is not None for r in train):
        steps, how = _counted([r.inner for r in train if r.inner is not None]), "count"
    else:
        return [float(i + 1) for i in range(len(train))], "order"
    epochs = [float(r.epoch) for r in train if r.epoch is not None]
    runs = _relaunches(train) if len(epochs) == len(train) else [r.run for r in train]
    if not _steps_usable(steps, runs if how == "epoch" else [r.run for r in train]):
        if len(epochs) == len(train) and _steps_usable(epochs, runs):  # "Episode 5 | Steps: 183": its length
            return epochs, "epoch"
        return [float(i + 1) for i in range(len(train))], "order"
    return steps, how


def without_reprints(train: list[Record]) -> tuple[list[Record], int]:
    """The training records less each one printed again as it was, right after itself, with its
    counter (``Epoch 1/3 - Loss: 7.3485`` twice: a loop that prints to the console and to a
    logger, both into the file): one record, as its count says (the twin had read as a count
    repeated, so the steps fell back to the order of the records and runs appended to the log
    were no longer told apart). Only where the counter tells every other record from the one
    before it: where it does not (``Epoch 41, Loss: 0.33`` a batch, the epoch alone printed), a
    value printed again is a new batch's (bf16 losses repeat exactly)."""
    twins = [_twins(a, b) for a, b in zip(train, train[1:])]
    if not any(twins) or any(_where(a) == _where(b) for (a, b), t in zip(zip(train, train[1:]), twins) if not t):
        return train, 0
    out = train[:1] + [rec for rec, twin in zip(train[1:], twins) if not twin]
    return out, len(train) - len(out)


def _where(rec: Record) -> tuple[float | None, float | None, tuple[float, float] | None, str, int]:
    return rec.step, rec.epoch, rec.inner, rec.split, rec.run


def _twins(a: Record, b: Record) -> bool:
    """Whether ``b`` prints ``a`` again: the same text, counter and values."""
    counted = b.step is not None or b.epoch is not None or b.inner is not None
    return counted and a.text.strip() == b.text.strip() and _where(a) == _where(b) and a.values == b.values


def lone_starts(steps: list[float]) -> int:
    """How many times the first count follows itself: a launch that stopped after its first record."""
    start = min(steps, default=0.0)
    return sum(1 for a, b in zip(steps, steps[1:]) if a == b == start)


def _relaunches(train: list[Record]) -> list[int]:
    """Each record's run where a launch ran its epochs to the total it printed and the next
    began again at the first (Ab-mahin/Multi-Agent-DQN-Coordinatio's train_log.txt: ten
    ``Training Session Started`` banners, each with ``Episode 1/10`` .. ``Episode 10/10``):
    each finished launch is a run of its own, as a notebook's next cell is. A count that falls
    back before its total stays a fall inside one run."""
    start = min((r.epoch for r in train if r.epoch is not None), default=0.0)
    runs, extra = [], 0
    for prev, rec in zip([None, *train], train):
        done = prev is not None and prev.epoch_total > 0 and prev.epoch == prev.epoch_total
        extra += done and rec.epoch == start
        runs.append(rec.run + extra)
    return runs


def _steps_usable(steps: list[float], runs: list[int]) -> bool:
    """Whether steps tell the records apart: none repeated, a few falls back at most (restarts).
    Where a new run is known to begin (a notebook's next cell) the count may start again freely.
    The first count printed twice in a row is a restart too: a run stopped after its first epoch
    and the next one began at the same count (``Epoch 1 | Final Loss: 15.3``, a new banner, then
    ``Epoch 1 | Final Loss: 19.8``, ``Epoch 2 ...``)."""
    pairs = [(a, b) for a, b, x, y in zip(steps, steps[1:], runs, runs[1:]) if x == y]
    start = min(steps, default=0.0)
    resets = sum(1 for a, b in pairs if b < a or a == b == start)
    return not any(a == b != start for a, b in pairs) and resets <= max(3, len(steps) // 10)
