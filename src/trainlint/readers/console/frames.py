"""What frames a console line, removed in one place before any recogniser reads the line.

A training script's lines reach its console through layers that each put something in front:
torchrun's rank prefix (``[rank0]: ``, ``[default0]:``) and a logging handler's record prefix
(Python logging's ``2024-05-01 12:00:01,234 - INFO - ``, transformers' explicit format
``[INFO|trainer.py:2046] 2024-05-01 12:00:01,234 >> ``, loguru's ``2024-05-01 12:00:01.234 |
INFO     | __main__:train:88 - ``). :func:`unframe` removes them, so every recogniser sees the
line as the script printed it. Only a prefix that holds a logging level is a record prefix, and
a logger name counts only before logging's separators: a line's own words (``train``,
``Epoch``) are never taken for one.

Outside the record, a launcher, a container runtime or a time-stamping pipe may put its own
prefix before every line (Ray's ``(RayTrainWorker pid=7) ``, ``docker logs --timestamps``,
moreutils ``ts``, journald's ``Dec 04 10:11:12 host python3[41]: ``). Such a prefix, with no
level in it, is removed only where most lines of the log start with one: a time at the start of
one line may be the line's own.

Rank prefixes also choose the rank: where lines carry them, only rank 0's (and unprefixed)
lines are kept, since every rank prints the same steps; where a multi-node launcher labels each
line with its host or task, one host's lines are kept. Crash signatures use the raw lines.
"""

from __future__ import annotations

import re
from collections import Counter

from .text import Line, lazy_regex, strip_ansi

# torchrun's "[rank0]: ", "[default0]:"; Open MPI's mpirun --tag-output "[1,0]<stdout>:" (job, rank)
# and horovodrun's "[0]<stdout>:"
_RANK = lazy_regex(r"^(?:\[(?:rank|default|Rank )(\d+)\]:?\s?|\[(?:\d+,)?(\d+)\]<std(?:out|err)>:)")
_LEVEL = r"(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL|NOTICE|TRACE|SUCCESS)"
_TS = (
    r"\d{4}[-/.]\d{2}[-/.]\d{2}[ T_]\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,6})?(?:Z|[+-]\d{2}:?\d{2})?"
    r"|\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,6})?"
)
# One token of a record prefix: a timestamp, a level, logging's BASIC_FORMAT "INFO:root:",
# transformers' "[INFO|trainer.py:2046]", LLaMA-Factory's "[INFO|2024-.. ..]", loguru's
# "name:function:line", a "file.py:N", a logger name (``__main__``, ``root``, dotted), each maybe
# bracketed. Names and places count only before one of logging's separators or a level.
_THEN_SEP = r"(?=\s*(?:-|\||>>)\s|\]|:\s|\s*-{2,}>)"
_NOT_NAME = r"(?!(?i:train|training|val|valid|validation|test|eval|epoch|step|iter)\b)"
_TOKEN = lazy_regex(
    r"\[(?P<hf>" + _LEVEL + r")\|(?:[\w.\-]+:\d+|" + _TS + r")\]"
    r"|\[(?P<bts>" + _TS + r")(?: [\w.\-]+)?\]|(?P<ts>" + _TS + r")"  # "[2023-03-01 10:00:00 swin_tiny]"
    r"|\([\w.\-]+\.py[:\s]\d+\)"  # "(main.py 222)"
    r"|(?P<basic>" + _LEVEL + r":[\w.<>\-]+:)"
    r"|\[?(?P<level>" + _LEVEL + r")\]?(?=[\s|:\]\-])"
    r"|\[(?P<lower>debug|info|warning|error|critical)\s*\]"  # structlog's ConsoleRenderer: "[info     ]"
    r"|\[(?:[\w.\-]+\.py|[\w.<>\-]+):\d+(?::[\w.<>]+)?\]"  # DeepSpeed's "[engine.py:2084:_take_model_step]"
    r"|" + _NOT_NAME + r"[A-Za-z_][\w.\-]*(?= +" + _LEVEL + r"\b)"  # detectron2's "d2.engine.hooks INFO:"
    # a logger name between pipes before the level: "%(asctime)s | %(name)s | %(levelname)s |
    # %(filename)s:%(funcName)s:%(lineno)d | %(message)s" (AdityaAS/gt_ice_demo's cifar10.log)
    r"|" + _NOT_NAME + r"[A-Za-z_][\w.\-]*(?= *\| *" + _LEVEL + r"\b)"
    # a logger name, whatever its word, before its place in brackets and a level: "%(name)s
    # [line:%(lineno)d] %(levelname)s" ("train [line:140] INFO  Valid Epoch: 0 | LOSS: 0.344")
    r"|[A-Za-z_][\w.\-]*(?= +\[[\w.\-/]*:\d+\] +" + _LEVEL + r"\b)"
    r"|(?P<where>[\w.<>\-]+:[\w<>]+:\d+|[\w\-]+\.py:\d+|[\w.<>\-]+:\d+)"
    + _THEN_SEP
    + r"|\["
    + _NOT_NAME
    + r"[A-Za-z_][\w.\-]*\]"
    + r"|"
    + _NOT_NAME
    + r"[A-Za-z_][\w.\-]*(?=\s+-\s)"
    # a logger named as a log's words are ("train--->2022-03-23 ..."): an arrow to a time or a word frames it
    + r"|[A-Za-z_][\w.]*(?=-{2,}>(?:"
    + _TS
    + r"|[A-Za-z_]))"
)
# logging's separators; an arrow of two or more dashes ("%(levelname)s---->%(name)s--->%(asctime)s--->")
_SEP = lazy_regex(r"\s*(?:-|\||>>|:)\s|\s*-{2,}>\s*|\s+")

# A time stamp as the tools that stamp lines write it: ISO 8601 (a "T", "Z", an offset, up to
# nanoseconds), "%Y%m%d-%H%M%S", a month and day without the year ("12-04", "12/04"; "12/04/2024"),
# syslog's "Dec  4 10:11:12", seconds since the epoch, a time of day alone; a month and day with a
# 12-hour time ("05/31 03:17:12 PM", logging's datefmt '%m/%d %I:%M:%S %p' of the DARTS search
# scripts, AI-Tech-Research-Lab/AsquaredM's W&B output.log).
_STAMP = (
    r"(?:\d{4}[-/.]?\d{2}[-/.]?\d{2}[ T_-]?\d{2}:?\d{2}:?\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?"
    r"|\d{1,2}[-/]\d{1,2}(?:[-/]\d{4})? \d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?: [AP]M(?!\w))?"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?"
    r"|1\d{9}\.\d{1,9}|\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,9})?)"
)
# One token of a prefix that frames every line from outside a logging record: Ray's worker prefix,
# kubectl logs --prefix, absl/glog's "I1204 10:11:12.123 140 f.py:48]",
# a stamp in brackets (ts '[%H:%M:%S]', detectron2's "[12/04 10:11:12 d2.utils.events]:", NeMo's
# "[NeMo I 2024-12-04 10:11:12 train:48]"), or a bare stamp (docker logs -t; a CRI log's "stdout F";
# journald's "host ident[pid]:"); then a logging separator.
_OUTER = lazy_regex(
    r"(?:\([\w.\-]+ pid=\d+(?:, ip=[\d.]+)?\)"
    r"|\[pod/[^\]\s]+\]"
    r"|[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+ +\d+ [\w.\-]+:\d+\]"
    r"|\[[^\]\[\n]{0,40}?" + _STAMP + r"(?: [^\]\[\n]{1,60})?\]:?"
    r"|\(" + _STAMP + r"\)"
    r"|" + _STAMP + r"(?![.,]?\d)(?=[\s,:])(?: (?:stdout|stderr) [FP]| [\w.\-]+ [\w.\-/]+\[\d+\]:)?"
    r")(?:\s*(?:-|\||>>|,|:)(?=\s))? ?(?=\s*\S)"
)
# A label that is the same on each line it frames: SLURM's srun --label (the task's number, "0: "),
# docker compose's container name ("trainer-1  | ").
_LABEL = lazy_regex(r"(\d{1,4}: |[\w.\-]+[-_]\d+ +\| )(?=\s*\S)")


# A tqdm render left on the line without a newline, something printed right after it.
_BAR_THEN_TEXT = lazy_regex(r"^[^|\r\n]{0,80}?\d{1,3}%\|[^|]{0,200}\|\s*\d+/\d+\s*\[[^\]]{0,200}\](?=\s*\S)")


def record_prefix(text: str) -> int:
    """How many leading characters of ``text`` are a logging record's prefix (0: none): tokens
    up to the last separator, where one of them is a level."""
    pos, level, end = 0, False, 0
    for _ in range(8):
        m = _TOKEN.match(text, pos)
        if m is None:
            break
        level = level or bool(m["level"] or m["basic"] or m["hf"] or m["lower"])
        pos = m.end()
        sep = _SEP.match(text, pos)
        if sep is not None:
            pos = sep.end()
        if level and (sep is not None or m["basic"]):
            end = pos
    return end


def unframe_text(seg: str) -> str:
    """One redraw segment without its rank and record prefixes; a logging record printed right
    after a tqdm render (no newline between them) loses its prefix and stays after the render;
    a Python 2 print of several values is the line Python 3 prints of them (:func:`py2_print`)."""
    if "%|" in seg and (bar := _BAR_THEN_TEXT.match(seg)) is not None:
        return seg[: bar.end()] + unframe_text(seg[bar.end() :])
    for _ in range(3):
        before = seg
        rank = _RANK.match(seg)
        if rank is not None:
            seg = seg[rank.end() :]
        n = record_prefix(seg)
        if n:
            seg = seg[n:]
        if seg == before:
            break
    return py2_print(seg) if seg.lstrip().startswith("(") else seg


# Python 2's ``print('Epoch: ', 6)`` prints the tuple: ``('Epoch: ', 6)``. A line that is such a
# tuple, a quoted string first, is a frame around what the author meant: its parts as Python 3's
# print writes them (a string's text, any other value's repr, joined by a space).
_PY2_TUPLE = lazy_regex(r"""^\(\s*[uUbB]?(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")\s*,.*\)\s*$""")
_PY2_STRING = lazy_regex(r"""[uUbB]?(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")""")
_ESCAPE = lazy_regex(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)")
_ESCAPED = {"t": "\t", "n": " ", "r": " ", "\\": "\\", "'": "'", '"': '"'}
MAX_TUPLE = 4000  # characters of a printed tuple looked at


def py2_print(seg: str) -> str:
    """``('Iter', 100, 'loss', 0.25)`` as ``Iter 100 loss 0.25``; ``(u'train loss:', 0.3)`` as
    ``train loss: 0.3``; any other text as it is (a tuple of one, or a line that does not close
    what it opens)."""
    text = seg.strip()
    if len(text) > MAX_TUPLE or _PY2_TUPLE.match(text) is None:
        return seg
    parts = _elements(text[1:-1])
    if parts is None or len(parts) < 2:
        return seg
    return " ".join(parts)


def _elements(body: str) -> list[str] | None:
    """The printed text of each element of a tuple's body (None: quotes or brackets unbalanced)."""
    out, depth, start, quote, i = [], 0, 0, "", 0
    while i < len(body):
        ch = body[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif ch == "," and depth == 0:
            out.append(body[start:i])
            start = i + 1
        i += 1
    if quote or depth:
        return None
    if body[start:].strip():  # (a one-element tuple ends with a comma)
        out.append(body[start:])
    return [_element(part.strip()) for part in out]


def _element(raw: str) -> str:
    m = _PY2_STRING.fullmatch(raw)
    if m is None:
        return raw
    text = m[1] if m[1] is not None else m[2]
    return strip_ansi(_ESCAPE.sub(_unescape, text)) if "\\" in text else text  # ('\x1b[31mloss', ..): a colour


def _unescape(m: re.Match[str]) -> str:
    esc = m[0][1:]
    if esc[0] in "xu" and len(esc) > 1:
        return chr(int(esc[1:], 16))
    return _ESCAPED.get(esc, m[0])


def renders(seg: str) -> list[str]:
    """One redraw segment as what was drawn on it: a line printed right after a tqdm render (no
    newline between them) is a render of its own after the bar's, so a recogniser anchored at the
    start of a line reads it as printed. A Trainer's dict stays with the render: the Trainer
    reader places a dict printed onto a bar at that bar's step, one printed after the bar was
    cleared at the step of the bar drawn next."""
    if "%|" not in seg or (bar := _BAR_THEN_TEXT.match(seg)) is None or seg[bar.end() :].lstrip().startswith("{'"):
        return [seg]
    return [seg[: bar.end()], *renders(seg[bar.end() :])]


def outer_prefix(lines: list[Line]) -> re.Pattern[str] | None:
    """What frames the lines from outside a logging record, where at least half of the first
    400 lines start with it (None: nothing does): one of :data:`_OUTER`'s tokens, or the same
    :data:`_LABEL` on each."""
    firsts = [line.segments[0] for line in lines[:400]]
    if sum(1 for seg in firsts if _OUTER.match(seg)) * 2 >= len(firsts) > 0:
        return _OUTER
    labels = Counter(m[1] for seg in firsts if (m := _LABEL.match(seg)) is not None)
    if labels and labels.most_common(1)[0][1] * 2 >= len(firsts):
        return re.compile(re.escape(labels.most_common(1)[0][0]) + r"(?=\s*\S)")
    return None


# A multi-node launcher's label before each line: pdsh and DeepSpeed's runner put the host
# (``worker-0: ``, ``node012: ``, ``10.0.0.1: ``), ``srun --label`` the task (``3: ``). The label
# must hold a digit, and text (not a value) must follow it: ``loss1: 0.5`` is a pair.
_HOST = lazy_regex(r"^(\d{1,4}|[A-Za-z][\w.\-]{0,62}|\d{1,3}(?:\.\d{1,3}){3}): (?=\s*[^\s\d.+\-])")  # bounded: linear
# a counter glued to a step word is the line's own (``Epoch3: loss``), never a host
_NOT_HOST = lazy_regex(r"(?i)^(?:e|ep|epoch|step|it|iter|iteration|batch|round|fold|stage|phase|trial|run)\d")
MAX_HOSTS = 64


def _host(seg: str) -> tuple[str, int] | None:
    """The host or task label a line starts with, and where the line's text starts (None: none)."""
    m = _HOST.match(seg)
    if m is None or _NOT_HOST.match(m[1]) or not any(c.isdigit() for c in m[1]):
        return None
    return m[1], m.end()


def host_to_keep(lines: list[Line]) -> str | None:
    """The label whose lines are kept where lines alternate between 2 to :data:`MAX_HOSTS` hosts'
    (or tasks') labels, each label on several lines and labelled lines at least half of the first
    400: the label on the most lines (the node that prints the progress; the others print their
    start-up and the same steps again). None where lines are not labelled so."""
    firsts = [line.segments[0] for line in lines[:400]]
    head = Counter(h[0] for seg in firsts if (h := _host(seg)) is not None)
    if not 2 <= len(head) <= MAX_HOSTS or sum(head.values()) * 2 < len(firsts) or min(head.values()) < 3:
        return None
    counts = Counter(h[0] for line in lines if (h := _host(line.segments[0])) is not None)
    return max(counts, key=lambda label: (counts[label], -int(label) if label.isdigit() else 0))


def _one_host(lines: list[Line]) -> list[Line]:
    """The lines of :func:`host_to_keep`'s label, label removed, and the unlabelled lines."""
    keep = host_to_keep(lines)
    if keep is None:
        return lines
    out = []
    for line in lines:
        h = _host(line.segments[0])
        if h is None:
            out.append(line)
        elif h[0] == keep:
            out.append(Line(line.no, [line.segments[0][h[1] :], *line.segments[1:]], line.run))
    return out


def unframe(lines: list[Line]) -> list[Line]:
    """The lines as the script printed them: rank 0's (rank prefixes dropped; other ranks' lines
    left out), one host's where a multi-node launcher labels them (:func:`host_to_keep`),
    without the prefix every line carries (:func:`outer_prefix`) and without logging record
    prefixes."""
    lines = _one_host(_without_diffs(lines))
    ranked = any(_RANK.match(line.segments[0]) for line in lines[:2000])
    outer = outer_prefix(lines)
    out = []
    for line in lines:
        if ranked:
            m = _RANK.match(line.segments[0])
            if m is not None and (m[1] or m[2]) != "0":
                continue
        if outer is not None and (m := outer.match(line.segments[0])) is not None:
            line = Line(line.no, [line.segments[0][m.end() :], *line.segments[1:]], line.run)
        segs = []
        for seg in line.segments:
            for part in renders(unframe_text(seg)):
                if part.strip():
                    segs.append(part)
        if segs:
            out.append(Line(line.no, segs, line.run))
    return out


# A unified diff's hunk header (``@@ -41,7 +41,7 @@ class ResBlock``): the counts of old and new lines after it.
_HUNK = lazy_regex(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def _without_diffs(lines: list[Line]) -> list[Line]:
    """The lines without the hunks of a unified diff printed into the log (silent_speech and other
    scripts log ``git diff`` at their start: ``+    train_loss= 0`` is code, not progress); each
    hunk's lines counted by its header, so the log after it is kept whatever its lines start with."""
    if not any(line.segments[0].startswith("@@ -") for line in lines):
        return lines
    out: list[Line] = []
    old = new = last = 0
    for line in lines:
        text = line.segments[0]
        blank = line.no - last - 1  # blank lines (not in ``lines``): a hunk's empty context lines
        old, new, last = old - blank, new - blank, line.no
        if old > 0 or new > 0:
            old -= text[:1] in (" ", "-")
            new -= text[:1] in (" ", "+")
            continue
        hunk = _HUNK.match(text)
        old, new = (int(hunk[1] or 1), int(hunk[2] or 1)) if hunk is not None else (0, 0)
        if hunk is None:
            out.append(line)
    return out
