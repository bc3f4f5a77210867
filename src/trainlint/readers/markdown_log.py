"""Console output kept in a Markdown file: a ``training_log.md``, a README's "Training log"
section, an experiment diary with a run under each heading, an issue's pasted log saved as ``.md``.

The log sits in fenced code blocks (```` ``` ```` or ``~~~``, also inside a list or a quote) or
in HTML ``<pre>`` blocks: only those blocks are read, never the prose around them (``the loss was
0.4 at epoch 3`` is no record), their lines kept at their own line numbers. A file with no such
block that is itself a log saved under ``.md`` is read whole, its Markdown tables left to the
``markdown-table`` reader. Either way the console reader reads the text, and the file is claimed
only where it finds a record shape repeated over ``MIN_RECORDS`` lines or more: a README's
three-line example output is no run. Blocks that each start the count again (the script run
once per section) are runs appended to one log: each is judged on its own, as in a console log.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..model import Run
from ..options import ReadOptions
from .base import HEAD_BYTES, ReadError, decode_text, head_as_text, looks_binary, read_head, reader

_MARKDOWN = frozenset({".md", ".markdown", ".mdown"})
_FENCE = re.compile(r"^\s*(?:>\s*)*(`{3,}|~{3,})")
_PRE_OPEN = re.compile(r"<pre\b[^>]*>", re.I)
_PRE_CLOSE = re.compile(r"</pre\s*>", re.I)
_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$")
_SNIFF_MORE = 256 * 1024
# A training word with a number after it: text without one holds no record (a cheap test before
# the recognisers run over up to 256 KB of a docs folder's prose).
_TRAINING = re.compile(r"(?i)(?:loss|epoch|iter|step|acc|lr|ppl|perplexity|error)[^\n\d]{0,20}\d")
MIN_RECORDS = 10


def _blocks(lines: list[str]) -> tuple[list[str], int]:
    """``lines`` with every line outside a fenced or ``<pre>`` block blanked, and the count of blocks."""
    out = [""] * len(lines)
    fence: str | None = None
    pre = False
    count = 0
    for i, line in enumerate(lines):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening[1][0] == fence[0] and len(opening[1]) >= len(fence) and not line.strip(" >`~"):
                fence = None
            else:
                out[i] = line
        elif pre:
            end = _PRE_CLOSE.search(line)
            out[i] = line[: end.start()] if end else line
            pre = end is None
        elif opening:
            fence, count = opening[1], count + 1
        elif (tag := _PRE_OPEN.search(line)) is not None:
            rest = line[tag.end() :]
            end = _PRE_CLOSE.search(rest)
            out[i], pre, count = (rest[: end.start()] if end else rest), end is None, count + 1
    return out, count


def _without_tables(lines: list[str]) -> list[str]:
    """``lines`` with each Markdown table (a header, its ``|---|`` rule and its rows) blanked."""
    out = list(lines)
    for i in range(1, len(lines)):
        if "|" in lines[i - 1] and _RULE.match(lines[i]):
            j = i + 1
            while j < len(lines) and "|" in lines[j]:
                j += 1
            out[i - 1 : j] = [""] * (j - i + 1)
    return out


def _records(text: str, options: ReadOptions | None) -> int:
    """How many lines the best console recogniser reads in ``text``."""
    if _TRAINING.search(text) is None:
        return 0
    from .console.frames import unframe
    from .console.reader import recognise
    from .console.text import split_lines

    caps = recognise(unframe(split_lines(text)), text, options.patterns if options else ())
    return len(caps[0].lines) if caps else 0


def _body(text: str) -> tuple[str, str]:
    """The console text of a Markdown file (its code blocks, or the whole file where it has
    none, tables blanked) and a note saying which."""
    lines = text.replace("\r\n", "\n").split("\n")
    kept, count = _blocks(lines)
    if count:
        return "\n".join(kept), f"read from {count} code block(s) of a Markdown file; the prose around them left out"
    return "\n".join(
        _without_tables(lines)
    ), "read from a Markdown file with no code block, as console text (its tables left out)"


def log_text(text: str, options: ReadOptions | None = None) -> tuple[str, str] | None:
    """:func:`_body`'s text and note; None where it holds no log of MIN_RECORDS records."""
    body, note = _body(text)
    return (body, note) if _records(body, options) >= MIN_RECORDS else None


# After the Markdown table reader (a file holding a table of epochs is read as that table),
# before the console reader, which never claims a .md.
@reader("markdown-log", priority=43)
class MarkdownLogReader:
    def sniff(self, path: Path, head: bytes, options: ReadOptions | None = None) -> bool:
        if path.suffix.lower() not in _MARKDOWN or looks_binary(head):
            return False
        if len(head) >= HEAD_BYTES:  # a README's log often comes after its first 8 KB
            try:
                head = head_as_text(read_head(path, _SNIFF_MORE))
            except OSError:
                return False
        text = head.decode("utf-8", errors="replace")
        if len(head) >= HEAD_BYTES:
            text = text.rsplit("\n", 1)[0]  # the last line may be cut short
        return log_text(text, options) is not None

    def read(self, path: Path, options: ReadOptions | None = None) -> Run:
        from ..safeio import bounded_bytes
        from .console.reader import read_console_text

        if path.suffix.lower() not in _MARKDOWN:  # another file named explicitly: the console reader's
            raise ReadError("not a Markdown file (.md)")
        data, long = bounded_bytes(path)  # long lines cut out (reported by the console reader)
        text, notes = decode_text(data)
        del data
        body, note = _body(text)
        del text
        unread = ReadError(f"no console log of {MIN_RECORDS} records or more in the Markdown file")
        if _TRAINING.search(body) is None:
            raise unread
        try:  # the recognisers run once here: the records they matched decide, as in the sniff
            run = read_console_text(path, body, [*notes, note], long, options)
        except ReadError:
            raise unread from None
        if run.meta.get("lines_matched", 0) < MIN_RECORDS:
            raise unread
        return run
