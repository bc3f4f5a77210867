"""What frames a console line, removed in one place before any recogniser reads the line.

A training script's lines reach its console through layers that each put something in front:
torchrun's rank prefix (``[rank0]: ``, ``[default0]:``) and a logging handler's record prefix
(Python logging's ``2024-05-01 12:00:01,234 - INFO - ``, transformers' explicit format
``[INFO|trainer.py:2046] 2024-05-01 12:00:01,234 >> ``, loguru's ``2024-05-01 12:00:01.234 |
INFO     | __main__:train:88 - ``). :func:`unframe` removes them, so every recogniser sees the
line as the script printed it. Only a prefix that holds a logging level is a record prefix, and
a logger name counts only before logging's separators: a line's own words (``train``,
``Epoch``) are never taken for one.

Rank prefixes also choose the rank: where lines carry them, only rank 0's (and unprefixed)
lines are kept, since every rank prints the same steps. Crash signatures use the raw lines.
"""

from __future__ import annotations

from .text import Line, lazy_regex

_RANK = lazy_regex(r"^\[(?:rank|default|Rank )(\d+)\]:?\s?")
_LEVEL = r"(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL|NOTICE|TRACE|SUCCESS)"
_TS = (
    r"\d{4}[-/.]\d{2}[-/.]\d{2}[ T_]\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,6})?(?:Z|[+-]\d{2}:?\d{2})?"
    r"|\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,6})?"
)
# One token of a record prefix: a timestamp, a level, logging's BASIC_FORMAT "INFO:root:",
# transformers' "[INFO|trainer.py:2046]", LLaMA-Factory's "[INFO|2024-.. ..]", loguru's
# "name:function:line", a "file.py:N", a logger name (``__main__``, ``root``, dotted), each maybe
# bracketed. Names and places count only before one of logging's separators.
_THEN_SEP = r"(?=\s*(?:-|\||>>)\s|\]|:\s)"
_NOT_NAME = r"(?!(?i:train|training|val|valid|validation|test|eval|epoch|step|iter)\b)"
_TOKEN = lazy_regex(
    r"\[(?P<hf>" + _LEVEL + r")\|(?:[\w.\-]+:\d+|" + _TS + r")\]"
    r"|\[(?P<bts>" + _TS + r")(?: [\w.\-]+)?\]|(?P<ts>" + _TS + r")"  # "[2023-03-01 10:00:00 swin_tiny]"
    r"|\([\w.\-]+\.py[:\s]\d+\)"  # "(main.py 222)"
    r"|(?P<basic>" + _LEVEL + r":[\w.<>\-]+:)"
    r"|\[?(?P<level>" + _LEVEL + r")\]?(?=[\s|:\]\-])"
    r"|(?P<where>[\w.<>\-]+:[\w<>]+:\d+|[\w\-]+\.py:\d+|[\w.<>\-]+:\d+)"
    + _THEN_SEP
    + r"|\["
    + _NOT_NAME
    + r"[A-Za-z][\w.\-]*\]"
    + r"|"
    + _NOT_NAME
    + r"[A-Za-z_][\w.\-]*(?=\s+-\s)"
)
_SEP = lazy_regex(r"\s*(?:-|\||>>|:)\s|\s+")


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
        level = level or bool(m["level"] or m["basic"] or m["hf"])
        pos = m.end()
        sep = _SEP.match(text, pos)
        if sep is not None:
            pos = sep.end()
        if level and (sep is not None or m["basic"]):
            end = pos
    return end


def unframe_text(seg: str) -> str:
    """One redraw segment without its rank and record prefixes; a logging record printed right
    after a tqdm render (no newline between them) loses its prefix and stays after the render."""
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
    return seg


def renders(seg: str) -> list[str]:
    """One redraw segment as what was drawn on it: a line printed right after a tqdm render (no
    newline between them) is a render of its own after the bar's, so a recogniser anchored at the
    start of a line reads it as printed. A Trainer's dict stays with the render: the Trainer
    reader places a dict printed onto a bar at that bar's step, one printed after the bar was
    cleared at the step of the bar drawn next."""
    if "%|" not in seg or (bar := _BAR_THEN_TEXT.match(seg)) is None or seg[bar.end() :].lstrip().startswith("{'"):
        return [seg]
    return [seg[: bar.end()], *renders(seg[bar.end() :])]


def unframe(lines: list[Line]) -> list[Line]:
    """The lines as the script printed them: rank 0's (rank prefixes dropped; other ranks' lines
    left out), without logging record prefixes."""
    ranked = any(_RANK.match(line.segments[0]) for line in lines[:2000])
    out = []
    for line in lines:
        if ranked:
            m = _RANK.match(line.segments[0])
            if m is not None and m[1] != "0":
                continue
        segs = []
        for seg in line.segments:
            for part in renders(unframe_text(seg)):
                if part.strip():
                    segs.append(part)
        if segs:
            out.append(Line(line.no, segs))
    return out
