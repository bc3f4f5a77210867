"""Console text as a terminal would have shown it.

A console log saved to a file keeps every redraw of a progress bar: carriage
returns (``\\r``) start a redraw, backspaces (``\\b``) erase, and ANSI escape
sequences colour and move the cursor. This module turns the bytes into
physical lines, each split into its redraw *segments* (what was on the line
after each ``\\r``), with ANSI codes removed and backspaces applied.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any, AnyStr, cast

import msgspec


class _LazyRegex:
    """A compiled expression's stand-in: ``re.compile`` runs on its first attribute read."""

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags

    def __getattr__(self, name: str) -> Any:  # search, match, finditer, groupindex, ...
        value = getattr(re.compile(self.pattern, self.flags), name)
        setattr(self, name, value)  # found on the instance from now on, at full speed
        return value


def lazy_regex(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile(pattern, flags)``, done on first use. The console tables hold about a hundred
    expressions: compiling them all at import took 10 ms of every start, most inputs are not
    console logs, and a console log needs only those whose needles its text holds. It answers
    every attribute a compiled expression has, so it is typed as one."""
    return cast("re.Pattern[AnyStr]", _LazyRegex(pattern, flags))


# CSI sequences (colours, cursor moves), OSC titles, and lone two-byte escapes.
ANSI = lazy_regex(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")

NUM = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|NaN|NAN|inf|Inf|INF|infinity|Infinity)"
# A number that is no count: a decimal point or an exponent, or nan/inf.
_FLOAT = r"[-+]?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|nan|NaN|NAN|inf|Inf|INF)"

# A value printed inside what holds it: a torch tensor's repr (``print(f"loss {loss}")``:
# ``tensor(0.34)``, ``tensor(0.34, device='cuda:0', grad_fn=<AddBackward0>)``), a NumPy 2 scalar's
# (verl's ``actor/pg_loss:np.float64(-0.0001)``), a list of one after a name as Python prints it
# (``loss: [0.34]``: ``loss.tolist()`` of a one-element tensor), and a NumPy array of one as NumPy
# prints it: padded for a sign it does not have (``loss:[ 0.0264]``, ``[-0.0264]``), in two
# dimensions (``[[ 0.0264]]``), in exponent form (``[ 2.3e-01]``). A count in brackets
# (``Epoch [3]``) stays, and so does an array of several values.
_TENSOR = lazy_regex(r"\btensor\((%s)(?:,[^()]{0,80})?\)" % NUM)
# TensorFlow's eager scalar (``print(step, loss)``): ``tf.Tensor(0.19155502, shape=(), dtype=float32)``.
_TF_TENSOR = lazy_regex(r"\btf\.Tensor\((%s),\s*shape=\(\),\s*dtype=\w+\)" % NUM)
_NUMPY_SCALAR = lazy_regex(r"\b(?:np|numpy)\.(?:float|int|uint)(?:16|32|64|128)?\((%s)\)" % NUM)
_ONE_ITEM = lazy_regex(r"(?<=[:=>\s])\[(?:\[\s*(%s)\s*\]|\s*(%s)\s*)\](?!\s*\[)" % (_FLOAT, _FLOAT))
# A NumPy 0-d array's repr (Keras' ``train_on_batch`` under Theano returns them): ``array(0.95,
# dtype=float32)``, ``array(0.95)``.
_ARRAY0 = lazy_regex(r"\barray\((%s)(?:,\s*dtype=[\w.]+)?\)" % NUM)


def unwrap_values(text: str, scalars: bool = True) -> str:
    """``text`` with every value printed inside a tensor's (torch's, TensorFlow's), a 0-d array's,
    a one-item list's or (``scalars``) a NumPy scalar's repr written as the number alone."""
    if "tensor(" in text:
        text = _TENSOR.sub(r"\1", text)
    if "tf.Tensor(" in text:
        text = _TF_TENSOR.sub(r"\1", text)
    if "array(" in text:
        text = _ARRAY0.sub(r"\1", text)
    if scalars and ("np." in text or "numpy." in text):
        text = _NUMPY_SCALAR.sub(r"\1", text)
    if "[" in text and "]" in text:
        text = _ONE_ITEM.sub(lambda m: m[1] or m[2], text)
    return text


# A dict printed as Python or JSON writes it (``print(stats)``, ``logger.info(metrics)``):
# ``{'epoch': 3, 'loss': 0.52}``, ``{"train": {"loss": 0.5}}``. Its quoted keys are the names.
_DICT_TOKEN = lazy_regex(r"""\{|\}|[uUbB]?(?:'([^'\\\n]{1,80})'|"([^"\\\n]{1,80})")\s*:\s*(\{)?""")
MAX_DICT_DEPTH = 4


def dict_pairs(text: str) -> str:
    """``text`` with each printed dict written as ``name: value`` pairs: a key loses its quotes,
    a nested dict's keys are joined to their parent's with ``/`` (``train/loss: 0.5``), braces
    go; a value is left as printed (a quoted number, fairseq's ``"loss": "9.5"``, stays text).
    Text without a quoted key is returned as it is."""
    if "{" not in text or ("':" not in text and '":' not in text and "' :" not in text):
        return text
    out, stack, pos = [], [], 0
    for m in _DICT_TOKEN.finditer(text):
        out.append(text[pos : m.start()])
        pos = m.end()
        tok = m[0]
        if tok == "{":
            stack.append("")
            out.append(" ")
        elif tok == "}":
            if stack:
                stack.pop()
            out.append(" ")
        else:
            key = (m[1] if m[1] is not None else m[2]).strip().replace(" ", "_")
            parents = [k for k in stack if k]
            if m[3] is not None and len(stack) < MAX_DICT_DEPTH:  # a nested dict: its keys carry this one
                stack.append(key)
                out.append(" ")
            else:
                out.append("/".join([*parents, key]) + ": ")
    out.append(text[pos:])
    return "".join(out)


# A zero printed with two or more fixed decimals ("0.000"): a value below the printed precision
# (Python's repr writes a true zero "0.0" or "0"; only a fixed format writes "0.000").
_FIXED_ZERO = lazy_regex(r"^[+-]?0\.00+$")
_LR_LAST = frozenset({"lr", "learning_rate", "learningrate", "learning-rate", "current_lr"})


def unread_lr(name: str, value: str) -> bool:
    """Whether the pair ``name: value`` is a learning rate printed as a fixed-decimal zero, which
    says only that the LR is below the last printed digit: verl writes every value '{v:.3f}', so
    ``actor/lr:0.000`` is an LR of 1e-6, not a zero one. Such a pair is left unread."""
    return _FIXED_ZERO.match(value) is not None and re.split(r"[/.:|]+", name.strip().lower())[-1] in _LR_LAST


# The gradient's norm written as a norm's bars (``loss 8.87  lr 3.00e-05  |g| 4.55``, ``||g||=0.91``):
# ``grad_norm``; the bars would cut the line into segments.
_NORM_BARS = lazy_regex(r"(?<![\w|])(?:\|\|(?:g|grad)\|\||\|(?:g|grad)\|)(?=\s*[:=]?\s*[-+]?\.?\d)")


def norm_bars(text: str) -> str:
    """``text`` with a gradient norm's bars (``|g| 4.55``) as its name, ``grad_norm``."""
    return _NORM_BARS.sub("grad_norm", text) if "|g" in text else text


class Line(msgspec.Struct):
    """One physical line: its 1-based number and its redraw segments (ANSI removed)."""

    no: int
    segments: list[str]
    run: int = 0  # which known run the line is in (a notebook's cells that train anew count up; 0 in a console log)

    @property
    def final(self) -> str:
        """What stayed on screen: the last segment that is not blank."""
        for seg in reversed(self.segments):
            if seg.strip():
                return seg
        return ""


_DIGITS = b"0123456789"


class Needles:
    """``needle in text`` for the many needles the recognisers test on one log, without a scan of
    the whole log for each: a compact copy (digits removed, each distinct line once: a few KB for
    most logs) rules out the needles the log does not hold, and only the others are looked for
    in the log itself, where they are usually found near the start. The same answers as ``in``
    (a needle with a digit or a line break is looked for in the log directly)."""

    def __init__(self, text: str) -> None:
        self.text = text
        raw = text.encode("utf-8", "surrogatepass")
        self._compact = b"\n".join(set(raw.translate(None, _DIGITS).split(b"\n")))

    def __contains__(self, needle: str) -> bool:
        b = needle.encode("utf-8", "surrogatepass")
        if b"\n" in b or b.translate(None, _DIGITS) != b:
            return needle in self.text
        return b in self._compact and needle in self.text


def needles(text: str | Needles) -> Needles:
    return text if isinstance(text, Needles) else Needles(text)


def distinct_segments(segments: list[str]) -> list[str]:
    """A line's terminal renders with consecutive repeats dropped (a progress bar redrawn with
    the same text through ``\r``)."""
    out: list[str] = []
    for s in segments:
        if not out or out[-1] != s:
            out.append(s)
    return out


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text) if "\x1b" in text else text


def _backspace(seg: str) -> str:
    body = seg.rstrip("\b")
    if "\b" not in body:  # the common case: a redraw erased by a run of backspaces at its end
        return body[: max(0, len(body) - (len(seg) - len(body)))]
    out: list[str] = []
    for ch in seg:
        if ch == "\b":
            if out:
                out.pop()
        else:
            out.append(ch)
    return "".join(out)


# A non-finite value padded the way Lightning's progress bar pads every float (``format_num`` fills
# it to five characters: ``train_loss=nan.0``, ``inf.0``): the number is ``nan`` / ``inf``.
_PADDED_NONFINITE = lazy_regex(r"(?<![\w.])([-+]?(?:nan|inf))\.0+(?![\w.])")


def unpad_nonfinite(text: str) -> str:
    """``text`` with Lightning's padded ``nan.0`` / ``inf.0`` written as ``nan`` / ``inf``."""
    return _PADDED_NONFINITE.sub(r"\1", text) if "nan.0" in text or "inf.0" in text else text


# A value or a count printed in braces after its name (``str.format`` with doubled braces, or a
# one-item set): ``epoch: {1/300}, step: {1/8250}, loss : {1.6534357}, lr : {0.0001000}``. Only a
# number or an N/M count inside: a dict (``{'loss': 0.5}``) or an f-string's field stays.
_BRACED = lazy_regex(r"([:=]\s*)\{\s*(%s(?:\s*/\s*%s)?)\s*\}" % (NUM, NUM))


def unbrace_values(text: str) -> str:
    """``text`` with every braced value after a name (``loss : {0.34}``) written as the value."""
    held = ": {" in text or ":{" in text or "={" in text or "= {" in text
    return _BRACED.sub(r"\1\2", text) if held else text


# A tqdm bar left unfinished on its line and the next print glued after it, past the bar's closing
# bracket (hijihyo/pytorch-unet: ``.. 74%|###   , loss=0.303 [01:17<00:24]  [TRAIN DATA] avg. loss: ..``).
# (searched from the bar's ``N%|``: a pattern from the line's start would backtrack over a long run of digits)
# (and each part stops at the next ``%``, so no try runs past the next bar's)
_GLUED_AFTER_BAR = lazy_regex(r"\d%\|[^\[\]%]*\[[^\]<%]*<[^\]%]*\]\s{2,}(?=\S.*\d)")


def _split_after_bar(segs: list[str]) -> list[str]:
    """``segs`` with a print glued after an unfinished tqdm bar as a segment of its own (what the
    terminal showed last), the bar before it."""
    if not any("%|" in s for s in segs):
        return segs
    out: list[str] = []
    for seg in segs:
        m = _GLUED_AFTER_BAR.search(seg) if "%|" in seg else None
        out += [seg[: m.end()].rstrip(), seg[m.end() :]] if m else [seg]
    return out


def split_lines(text: str, run_starts: Sequence[int] = ()) -> list[Line]:
    """Physical lines with their redraw segments; CRLF counts as one line end. ``run_starts``
    (1-based line numbers, rising) are where the text is known to begin a new run, as a
    notebook's cell that trains anew: each line's ``run`` counts the starts at or before it."""
    text = unbrace_values(unpad_nonfinite(strip_ansi(text.replace("\r\n", "\n"))))
    lines = []
    for i, raw in enumerate(text.split("\n")):
        if "\r" in raw or "\b" in raw:
            segs = [_backspace(s) if "\b" in s else s for s in raw.split("\r")]
            segs = [s for s in segs if s.strip()]
        else:
            segs = [raw] if raw.strip() else []
        if segs:
            lines.append(Line(i + 1, _split_after_bar(segs), bisect_right(run_starts, i + 1) if run_starts else 0))
    return lines


class Capture(msgspec.Struct):
    """What one recogniser read from a console log: series, matched lines, metadata."""

    framework: str
    tier: int = 2  # 3 user pattern, 2 framework-specific, 1 generic shape
    cols: dict[str, tuple[list[float], list[float]]] = msgspec.field(default_factory=dict)
    lines: list[int] = msgspec.field(default_factory=list)
    meta: dict[str, Any] = msgspec.field(default_factory=dict)
    notes: list[str] = msgspec.field(default_factory=list)
    steps_from: str = ""  # the general line reader's: what its steps were taken from (``epoch-count``, ..)
    reprints: int = 0  # the general line reader's: records printed again right after themselves, read once

    def add(self, name: str, step: float, value: float) -> None:
        """Append a point; a repeated step at the end (a redraw) replaces the last point."""
        col = self.cols.get(name)
        if col is None:
            col = self.cols[name] = ([], [])
        if col[0] and col[0][-1] == step:
            col[1][-1] = value
            return
        col[0].append(step)
        col[1].append(value)

    def add_all(self, step: float, values: dict[str, float]) -> None:
        """:meth:`add` for each of ``values`` at one step (the hot path of the line patterns)."""
        cols = self.cols
        for name, value in values.items():
            col = cols.get(name)
            if col is None:
                col = cols[name] = ([], [])
            steps = col[0]
            if steps and steps[-1] == step:
                col[1][-1] = value
            else:
                steps.append(step)
                col[1].append(value)

    def has_loss(self) -> bool:
        """A name says loss, or the recogniser declares which series is the loss (a booster's
        ``train-rmse``), or that none is (``meta['no_loss']``): its log's layout tells."""
        if any(key in self.meta for key in ("objective", "eval_objective", "no_loss")):
            return True
        return any("loss" in name.lower() for name in self.cols)

    @property
    def records(self) -> int:
        return len(self.lines)
