"""The console readers' content-variation harness (issue 29): the same training progress, printed
the way other scripts print the same information, must read as the same loss series.

A *site* is a source log with its loss located: every place the log prints the loss the reader
took (the name, the separator, the value), checked to be exactly the values read, in order. A
*variant* rewrites those places (or the counters and pairs of the lines that hold them) as
another script would print them, and says what the reader must then read: the same values at the
same steps, under a name it states (a renamed loss) or at steps equal up to a renumbering that
keeps their order (a counter printed another way).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import _metamorphic as M

NUM = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|NaN|inf|Inf)"


@dataclass(frozen=True)
class Series:
    """What a variant must keep: the loss series' name, its steps and its values."""

    loss: str
    steps: tuple[float, ...]
    values: tuple[float, ...]
    fmt: str = ""  # the format it was read as (not compared)

    def brief(self) -> str:
        v, s = self.values, self.steps
        if not v:
            return f"{self.loss!r}: no points"
        return f"{self.loss!r}: {len(v)} points, steps {s[0]:g}..{s[-1]:g}, {v[0]!r} .. {v[-1]!r} ({self.fmt})"


def read_series(path: Path) -> Series | None:
    """The loss series a log reads as (None: not read, or no loss)."""
    found = M.loss_series(path)
    if found is None:
        return None
    name, s, fmt = found
    return Series(name, tuple(float(x) for x in s.steps), tuple(float(v) for v in s.values), fmt)


def _same_values(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return len(a) == len(b) and all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b))


def same_order(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether ``b`` renumbers ``a`` keeping its order: one strictly increasing map takes each
    step of ``a`` to the step of ``b`` at the same point (equal steps stay equal, a fall stays a
    fall)."""
    if len(a) != len(b):
        return False
    pairs = sorted(set(zip(a, b)))
    return all(p[0] < q[0] and p[1] < q[1] for p, q in zip(pairs, pairs[1:]))


def agrees(got: Series | None, want: Series, renumbered: bool) -> bool:
    if got is None or got.loss != want.loss or not _same_values(got.values, want.values):
        return False
    return same_order(want.steps, got.steps) if renumbered else got.steps == want.steps


# -- where a log prints its loss ------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    """One printed loss: its line, and the spans of its name, separator and value in the line."""

    line: int
    name: tuple[int, int]
    sep: tuple[int, int]
    value: tuple[int, int]


@dataclass
class Site:
    """A source log, the series it reads as, and every place it prints that loss."""

    name: str
    lines: list[str]
    filename: str
    base: Series
    hits: list[Hit]
    printed: str  # the loss's name as printed ("Train loss", "loss")

    @property
    def hit_lines(self) -> set[int]:
        return {h.line for h in self.hits}


def _name_regex(name: str) -> re.Pattern[str]:
    """The loss as printed: the read name's words with a space or an underscore between them."""
    words = [re.escape(w) for w in re.split(r"[_\s]+", name) if w]
    return re.compile(r"(?<![\w/.\-@])(%s)(?![\w/@])(\s*[:=]\s*|\s+)(%s)(?![\w.])" % (r"[ _]+".join(words), NUM))


def _subsequence(read: tuple[float, ...], printed: tuple[float, ...]) -> bool:
    """Whether the values read are the printed ones in order, some printed ones skipped (an
    evaluation line under the same name, a summary)."""
    it = iter(printed)
    return all(any(_same_values((p,), (r,)) for p in it) for r in read)


def locate(name: str, text: str, filename: str, base: Series) -> Site | None:
    """The site of ``base`` in ``text``: every place the loss's name is printed with a value;
    None where the values read are not those printed, in order (some printed ones may be skipped),
    or a line prints it twice (a redraw): the harness then cannot tell what it rewrites."""
    if "\b" in text or not base.values:
        return None
    rx = _name_regex(base.loss)
    lines = text.split("\n")
    needle = base.loss.split("_")[-1]
    hits = [
        Hit(i, m.span(1), m.span(2), m.span(3)) for i, ln in enumerate(lines) if needle in ln for m in rx.finditer(ln)
    ]
    if len({h.line for h in hits}) < len(hits):
        return None
    values = tuple(float(lines[h.line][h.value[0] : h.value[1]]) for h in hits)
    if not _subsequence(base.values, values):
        return None
    first = hits[0]
    return Site(name, lines, filename, base, hits, lines[first.line][first.name[0] : first.name[1]])


# -- variants -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """A way of printing the same information: what prints it, the rewrite, what must be read."""

    name: str
    printed_by: str
    rewrite: Callable[[Site], tuple[list[str], str] | None]  # the lines and the loss's read name
    renumbers: bool = False  # a counter printed another way: steps compared up to their order


def _edit(line: str, spans: list[tuple[tuple[int, int], str]]) -> str:
    for (a, b), new in sorted(spans, reverse=True):
        line = line[:a] + new + line[b:]
    return line


def _each_hit(site: Site, part: str, fn: Callable[[str], str | None]) -> list[str] | None:
    """The lines with ``fn`` applied to one part (name, sep, value) of every hit."""
    lines = list(site.lines)
    by: dict[int, list[tuple[tuple[int, int], str]]] = {}
    for h in site.hits:
        span = getattr(h, part)
        new = fn(site.lines[h.line][span[0] : span[1]])
        if new is None:
            return None
        by.setdefault(h.line, []).append((span, new))
    for i, spans in by.items():
        lines[i] = _edit(lines[i], spans)
    return lines


def _value_variant(fn: Callable[[str], str | None]) -> Callable[[Site], tuple[list[str], str] | None]:
    def rewrite(site: Site) -> tuple[list[str], str] | None:
        lines = _each_hit(site, "value", fn)
        return None if lines is None else (lines, site.base.loss)

    return rewrite


def _finite(v: str) -> bool:
    return re.fullmatch(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", v) is not None


def _float(v: str, point: str = ".0") -> str:
    """A value as a float's repr prints it: ``2`` (a ``%g`` of 2.0) is ``2.0`` in a list or a NumPy
    scalar, ``2.`` in a tensor."""
    return v + point if re.fullmatch(r"[-+]?\d+", v) else v


def scientific(v: str, e: str = "e") -> str | None:
    """``0.3456`` as ``3.456e-01``: the same number, every printed digit kept."""
    if not _finite(v):
        return None
    if Decimal(v) == 0:
        return f"0.000{e}+00"
    out = re.sub(r"e([+-])(\d)$", r"e\g<1>0\2", format(Decimal(v), "e"))
    return out.replace("e", e)


def fixed6(v: str) -> str | None:
    """``f"{loss:.6f}"`` where it keeps the number: ``0.3456`` as ``0.345600``."""
    if not _finite(v) or "e" in v.lower():
        return None
    whole, _, frac = v.partition(".")
    return None if len(frac) > 6 else f"{whole}.{frac:0<6}"


def padded(v: str) -> str:
    """``f"{loss:>10}"``: the number right-aligned in a field of ten."""
    return f"{v:>10}"


@dataclass(frozen=True)
class _Rename:
    printed: str
    one_loss: bool = False  # only where the progress lines print no other training loss


_LOSS_WORD = re.compile(r"(?i)(?:(?:train|training)[ _])?loss")
_OTHER_LOSS = re.compile(
    r"(?i)(?<![\w/.\-@])([A-Za-z][\w/.\-@]*loss[\w/.\-@]*|[A-Za-z][\w/.\-@]*\s+loss)(?=\s*[:=]|\s+\d)"
)
_EVAL_WORD = re.compile(r"(?i)\b(?:val|valid|validation|test|eval|evaluation|dev)")


def _evaluation(site: Site, hit: Hit) -> bool:
    """Whether a split word before the loss marks the line an evaluation's (``Test: [50/50] Loss
    0.85``): a renamed training loss is not renamed there."""
    return _EVAL_WORD.search(site.lines[hit.line][: hit.name[0]]) is not None


def _rename(to: _Rename) -> Callable[[Site], tuple[list[str], str] | None]:
    def rewrite(site: Site) -> tuple[list[str], str] | None:
        if not _LOSS_WORD.fullmatch(site.printed) or site.printed == to.printed:
            return None
        text = "\n".join(site.lines)
        if re.search(r"(?<![\w/.\-@])%s(?![\w/@])" % re.escape(to.printed), text):
            return None  # the log prints that name already
        if to.one_loss:
            for i in site.hit_lines:
                others = [
                    n for n in _OTHER_LOSS.findall(site.lines[i]) if n != site.printed and not _EVAL_WORD.match(n)
                ]
                if others:
                    return None
        train = Site(
            site.name,
            site.lines,
            site.filename,
            site.base,
            [h for h in site.hits if not _evaluation(site, h)],
            site.printed,
        )
        lines = _each_hit(train, "name", lambda old: to.printed)
        return None if lines is None else (lines, re.sub(r"\s+", "_", to.printed))

    return rewrite


# Every pair on a progress line: ``name SEP number`` (a counter ``Epoch 3`` is one too).
_PAIR = re.compile(r"(?<![\w/.\-@])([A-Za-z][\w/.\-@]*)(\s*[:=]\s*|\s+)(%s)(?![\w.:/%%\]\[])(?!\s*/)" % NUM)


_SPLIT_WORDS = frozenset({"train", "training", "val", "valid", "validation", "test", "eval", "evaluation", "dev"})


def spaced_name(printed: str) -> str:
    """The name the readers give a loss printed before a bare space (``Loss 12.6``): its last
    word, with a split word before it (``train loss 0.5`` is ``train_loss``, ``total loss 0.6``
    is ``loss``)."""
    words = printed.split()
    if len(words) > 1 and words[-2].lower() in _SPLIT_WORDS:
        return "_".join(words[-2:])
    return words[-1]


def _all_separators(new: str) -> Callable[[Site], tuple[list[str], str] | None]:
    """Every pair of a progress line printed with one separator (a script's one f-string style);
    before a bare space a name of several words is read as :func:`spaced_name` says."""

    def rewrite(site: Site) -> tuple[list[str], str] | None:
        lines = list(site.lines)
        changed = False
        for i in site.hit_lines:
            ln = lines[i]
            spans = [(m.span(2), new) for m in _PAIR.finditer(ln) if m[2] != new]
            if spans:
                lines[i], changed = _edit(ln, spans), True
        if not changed:
            return None
        return lines, spaced_name(site.printed) if new == " " and " " in site.printed else site.base.loss

    return rewrite


def _loss_separator(new: str) -> Callable[[Site], tuple[list[str], str] | None]:
    def rewrite(site: Site) -> tuple[list[str], str] | None:
        lines = _each_hit(site, "sep", lambda old: None if old == new else new)
        return None if lines is None else (lines, site.base.loss)

    return rewrite


def _between_pairs(old: str, new: str) -> Callable[[Site], tuple[list[str], str] | None]:
    """``loss: 0.5, acc: 0.9`` <-> ``loss: 0.5 | acc: 0.9``: what goes between two pairs."""
    rx = re.compile(r"(?<=[\d%%)])(%s)(?=[A-Za-z])" % old)

    def rewrite(site: Site) -> tuple[list[str], str] | None:
        lines = list(site.lines)
        changed = False
        for i in site.hit_lines:
            ln = rx.sub(new, lines[i])
            changed |= ln != lines[i]
            lines[i] = ln
        return (lines, site.base.loss) if changed else None

    return rewrite


_TIME_NAME = re.compile(r"(?i)(?:^|[_/])(?:time|data|dt|elapsed|batch_time|data_time|iter_time)$")
_RATE_NAME = re.compile(r"(?i)(?:^|[_/@])(?:acc|accuracy|top1|top5|acc@1|acc@5|prec@1|miou|map)$")


def _units(site: Site) -> tuple[list[str], str] | None:
    """The other values of a progress line with their units: a time in seconds (``time 0.15s``), an
    accuracy in percent (``acc 95.1%``); the loss itself has none."""
    lines = list(site.lines)
    changed = False
    for i in site.hit_lines:
        spans = []
        for m in _PAIR.finditer(lines[i]):
            unit = "s" if _TIME_NAME.search(m[1]) else "%" if _RATE_NAME.search(m[1]) else ""
            if unit and _finite(m[3]):
                spans.append(((m.start(3), m.end(3)), m[3] + unit))
        if spans:
            lines[i], changed = _edit(lines[i], spans), True
    return (lines, site.base.loss) if changed else None


# A counter: ``Epoch 3``, ``Epoch: 3``, ``epoch=3``, ``Epoch [3/50]``, ``Epoch 3/50`` (not ``Epoch: [0][10/250]``).
_EPOCH = re.compile(
    r"(?<![\w/.\-@\[])(?:epoch|Epoch|EPOCH)(?:\s*[:=#]?\s*)\[?\s*(\d+)(?:\s*/\s*(\d+))?\s*\]?(?![\w.\[/])"
)
_STEP = re.compile(
    r"(?<![\w/.\-@\[])(?:step|Step|STEP|iter|Iter|ITER|iteration|Iteration|global_step|it)(?:\s*[:=#]?\s*)"
    r"\[?\s*(\d+)(?:\s*/\s*(\d+))?\s*\]?(?![\w.\[/])"
)


def _counter(rx: re.Pattern[str], form: Callable[[int, int], str]) -> Callable[[Site], tuple[list[str], str] | None]:
    """Every counter of ``rx``'s kind on the progress lines printed in ``form`` (N, total)."""

    def rewrite(site: Site) -> tuple[list[str], str] | None:
        found = {i: list(rx.finditer(site.lines[i])) for i in site.hit_lines}
        if not all(found.values()) or any(len(ms) > 1 for ms in found.values()):
            return None  # a counter of this kind on every progress line, once
        most = max(int(m[2] or m[1]) for ms in found.values() for m in ms)
        lines = list(site.lines)
        for i, ms in found.items():
            m = ms[0]
            new = form(int(m[1]), int(m[2] or most))
            if new == m[0].strip():
                return None  # printed so already
            lines[i] = _edit(lines[i], [((m.start(), m.start() + len(m[0].rstrip())), new)])
        return lines, site.base.loss

    return rewrite


# fmt: off
VARIANTS: list[Variant] = [
    # -- how the value is printed --
    Variant("sci_e", 'print(f"loss {loss:.3e}")', _value_variant(scientific)),
    Variant("sci_E", 'print(f"loss {loss:.3E}") (or "%E")', _value_variant(lambda v: scientific(v, "E"))),
    Variant("tensor", 'print(f"loss {loss}") of a CPU torch tensor: tensor(0.3456)', _value_variant(lambda v: f"tensor({_float(v, '.')})")),
    Variant("tensor_cuda", "print(f\"loss {loss}\") of a CUDA tensor with its graph: tensor(0.3456, device='cuda:0', grad_fn=<AddBackward0>)",
            _value_variant(lambda v: f"tensor({_float(v, '.')}, device='cuda:0', grad_fn=<AddBackward0>)")),
    Variant("numpy2", 'print(f"loss {np.mean(losses)!r}") or a dict of NumPy 2 scalars: np.float32(0.3456)',
            _value_variant(lambda v: f"np.float32({_float(v)})")),
    Variant("list_of_one", 'print(f"loss {loss.tolist()}") of a one-element tensor: [0.3456]', _value_variant(lambda v: f"[{_float(v)}]")),
    Variant("fixed6", 'print(f"loss {loss:.6f}")', _value_variant(fixed6)),
    Variant("padded", 'print(f"loss {loss:>10}"): a right-aligned column', _value_variant(padded)),
    Variant("units", 'print(f"loss {loss:.4f} time {dt:.3f}s acc {100 * acc:.2f}%")', _units),
    # -- how the name is spelled --
    Variant("name_Loss", 'print(f"Loss: {loss}")', _rename(_Rename("Loss"))),
    Variant("name_LOSS", 'print(f"LOSS: {loss}")', _rename(_Rename("LOSS"))),
    Variant("name_train_loss", 'print(f"train_loss={loss}")', _rename(_Rename("train_loss"))),
    Variant("name_Train_Loss", 'print(f"Train Loss: {loss}")', _rename(_Rename("Train Loss"))),
    Variant("name_train_slash", 'print(f"train/loss={loss}") (a W&B/TensorBoard key printed)', _rename(_Rename("train/loss"))),
    Variant("name_training_loss", 'print(f"training loss: {loss}")', _rename(_Rename("training loss"))),
    Variant("name_loss_total", 'print(f"loss_total={loss}") (a total over no parts)', _rename(_Rename("loss_total", one_loss=True))),
    Variant("name_total_loss", 'print(f"total_loss={loss}")', _rename(_Rename("total_loss", one_loss=True))),
    # -- separators --
    Variant("sep_colon", 'print(f"loss: {loss}, acc: {acc}")', _all_separators(": ")),
    Variant("sep_equals", 'print(f"loss={loss} acc={acc}")', _all_separators("=")),
    Variant("sep_space", 'print(f"loss {loss} acc {acc}")', _all_separators(" ")),
    Variant("sep_arrow", 'print(f"loss -> {loss}")', _loss_separator(" -> ")),
    Variant("pairs_pipe", 'print(" | ".join(f"{k}: {v}" for k, v in metrics.items()))', _between_pairs(r",\s*", " | ")),
    Variant("pairs_comma", 'print(", ".join(f"{k}: {v}" for k, v in metrics.items()))', _between_pairs(r"\s+\|\s+", ", ")),
    # -- counters --
    Variant("epoch_space", 'print(f"Epoch {epoch} ...")', _counter(_EPOCH, lambda n, t: f"Epoch {n}"), renumbers=True),
    Variant("epoch_colon", 'print(f"Epoch: {epoch} ...")', _counter(_EPOCH, lambda n, t: f"Epoch: {n}"), renumbers=True),
    Variant("epoch_equals", 'print(f"epoch={epoch} ...")', _counter(_EPOCH, lambda n, t: f"epoch={n}"), renumbers=True),
    Variant("epoch_bracket", 'print(f"[{epoch}/{epochs}] ...")', _counter(_EPOCH, lambda n, t: f"[{n}/{t}]"), renumbers=True),
    Variant("epoch_of", 'print(f"Epoch {epoch}/{epochs} ...") (Keras\'s header spelling)', _counter(_EPOCH, lambda n, t: f"Epoch {n}/{t}"), renumbers=True),
    Variant("step_space", 'print(f"Step {step} ...")', _counter(_STEP, lambda n, t: f"Step {n}"), renumbers=True),
    Variant("step_colon", 'print(f"step: {step} ...")', _counter(_STEP, lambda n, t: f"step: {n}"), renumbers=True),
    Variant("step_it", 'print(f"it {it} ...")', _counter(_STEP, lambda n, t: f"it {n}"), renumbers=True),
    Variant("step_global", 'print(f"global_step={global_step} ...") (the HF/Lightning attribute printed)', _counter(_STEP, lambda n, t: f"global_step={n}"), renumbers=True),
    Variant("step_iter_of", 'print(f"Iter [{it}/{max_iters}] ...") (mmcv-style)', _counter(_STEP, lambda n, t: f"Iter [{n}/{t}]"), renumbers=True),
]
# fmt: on
BY_NAME = {v.name: v for v in VARIANTS}
