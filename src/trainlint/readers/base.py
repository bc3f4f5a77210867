"""Reader registry and the helpers readers share.

A reader turns one file (or one folder) into a :class:`~trainlint.model.Run`.
It declares a ``sniff`` that looks at the first bytes of a file and says
whether it can read it, so that logs are recognised by content. Readers know
nothing of rules.
"""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from ..model import Damage, Run
from ..options import ReadOptions
from ..safeio import load_json_file

HEAD_BYTES = 8192


class ReadError(Exception):
    """The input cannot be read as a run; the message says why, in one line."""


class Reader(msgspec.Struct):
    name: str  # the format name reported for runs it reads
    sniff: Callable[[Path, bytes], bool]
    read: Callable[[Path], Run]
    priority: int = 50  # lower runs first
    folder: bool = False  # sniffs and reads folders, not files
    takes_options: bool = False  # read(path, options) gets the ReadOptions
    sniff_takes_options: bool = False  # sniff(path, head, options) gets them too
    # stream(path, options) -> readers.stream.Stream: how watch follows the format as it grows
    # (None: readers.stream.Reread, the whole read again when the input changes)
    stream: Callable[[Path, ReadOptions], Any] | None = None

    def recognises(self, path: Path, head: bytes, options: ReadOptions | None) -> bool:
        """``sniff``, handing the options on to a sniffer that takes them (user patterns)."""
        if self.sniff_takes_options:
            return bool(self.sniff(path, head, options))  # type: ignore[call-arg]
        return bool(self.sniff(path, head))

    def load(self, path: Path, options: ReadOptions) -> Run:
        """Read ``path``, handing the options on to a reader that takes them."""
        return self.read(path, options) if self.takes_options else self.read(path)  # type: ignore[call-arg]


READERS: list[Reader] = []


def reader(name: str, *, priority: int = 50, folder: bool = False) -> Callable[[Any], Any]:
    """Class or module-level registration: decorate a class with ``sniff`` and ``read``."""

    def wrap(cls: Any) -> Any:
        obj = cls()
        takes = len(inspect.signature(obj.read).parameters) >= 2
        sniff_takes = len(inspect.signature(obj.sniff).parameters) >= 3
        stream = getattr(obj, "stream", None)
        READERS.append(Reader(name, obj.sniff, obj.read, priority, folder, takes, sniff_takes, stream))
        READERS.sort(key=lambda r: r.priority)
        return cls

    return wrap


def read_head(path: Path, size: int = HEAD_BYTES) -> bytes:
    """The first ``size`` bytes of a regular file; OSError (a reader reports it) otherwise."""
    from ..safeio import head_bytes

    return head_bytes(path, size)


def decode_text(data: bytes) -> tuple[str, list[str]]:
    """Decode UTF-8 (BOM stripped) or UTF-16 with a BOM (named in a note); undecodable bytes are replaced and reported."""
    from ..safeio import decode

    return decode(data)


# C0 control bytes that text never holds (whitespace, backspace and ESC left out: tqdm's
# redraws and ANSI colours use them). Random or compressed bytes hold one in ten of them.
_CONTROLS = bytes(c for c in range(32) if c not in b"\t\n\v\f\r\b\x1b")
_MAX_CONTROLS = 32  # in the first KiB: text in any 8-bit or UTF-8 encoding holds none


def looks_binary(head: bytes) -> bool:
    """Whether a file's head is binary: a NUL byte in its first KiB, or more than
    ``_MAX_CONTROLS`` other control bytes there (random bytes can miss a NUL in 1 KiB: 1 in 55)."""
    first = head[:1024]
    return b"\x00" in first or len(first) - len(first.translate(None, _CONTROLS)) > _MAX_CONTROLS


def head_as_utf8(head: bytes) -> bytes:
    """A UTF-16 head (with a byte-order mark, or without one: ``safeio.utf16_codec``) re-encoded
    as UTF-8, so sniffers can read it."""
    from ..safeio import UTF16_BOMS, utf16_codec

    codec = "utf-16" if head.startswith(UTF16_BOMS) else utf16_codec(head)
    if codec is not None:
        cut = len(head) - (len(head) % 2)
        return head[:cut].decode(codec, errors="ignore").encode("utf-8")
    return head


def head_as_text(head: bytes) -> bytes:
    """:func:`head_as_utf8`, and a head in a legacy encoding (not UTF-8: see
    ``safeio.legacy_text``) re-encoded as UTF-8: what the log readers' sniffers are handed (a
    checkpoint's or another binary input's head is left as it is)."""
    from ..safeio import legacy_text

    head = head_as_utf8(head)
    try:
        head.decode("utf-8")
        return head
    except UnicodeDecodeError:
        pass
    whole = head[: head.rfind(b"\n") + 1] if len(head) >= HEAD_BYTES and b"\n" in head else head  # no cut character
    try:
        whole.decode("utf-8")
        return head
    except UnicodeDecodeError:
        legacy = legacy_text(whole)
    return legacy[0].encode("utf-8") if legacy is not None else head


def first_json_object(head: bytes, max_lines: int = 50) -> dict[str, Any] | None:
    """The first complete one-line JSON value in a file's head, if it is an object, else None.
    (A value that is not an object, or no parseable line at all, gives None.)"""
    if looks_binary(head):
        return None
    lines = head.decode("utf-8", errors="replace").lstrip("\ufeff").splitlines()
    if len(head) >= HEAD_BYTES and lines:
        lines = lines[:-1]  # the last line of a cut head may be incomplete
    for line in lines[:max_lines]:
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            return obj if isinstance(obj, dict) else None
    return None


_TEXT_NONFINITE = {
    "nan": math.nan,
    "+nan": math.nan,
    "-nan": math.nan,
    "inf": math.inf,
    "+inf": math.inf,
    "infinity": math.inf,
    "+infinity": math.inf,
    "-inf": -math.inf,
    "-infinity": -math.inf,
}


def text_nonfinite(text: str) -> float | None:
    return _TEXT_NONFINITE.get(text.strip().lower())


def sample_lines(items: Iterable[object], limit: int = 20) -> str:
    items = list(items)
    shown = ", ".join(str(i) for i in items[:limit])
    return shown + (f", ... ({len(items)} in all)" if len(items) > limit else "")


class Columns:
    """Accumulates (step, value) pairs per metric name, checking every value.

    Values that are not real numbers are never silently coerced: booleans and
    text are dropped and counted; text that spells a non-finite number
    ("NaN", "inf") is taken as that number and reported; integers too large
    for a float are reported as overflow. Blocks of records are turned into
    numpy columns in bulk; only columns with odd values take the per-value path.
    """

    def __init__(self, where_format: str = "{}") -> None:
        self.where_format = where_format  # how a value's position is named in notes
        self.parts: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray | None]]] = {}
        self.pending: dict[str, tuple[list[float], list[float], list[float]]] = {}
        self.bad: dict[str, dict[str, list[Any]]] = {}  # name -> problem -> [where]

    def _flag(self, name: str, problem: str, where: Any) -> None:
        self.bad.setdefault(name, {}).setdefault(problem, []).append(where)

    def _flush(self, key: str) -> None:
        steps, values, walls = self.pending.pop(key)
        wall = np.array(walls, np.float64)
        self.parts.setdefault(key, []).append(
            (np.array(steps, np.float64), np.array(values, np.float64), wall if np.isfinite(wall).all() else None)
        )

    def add_array(self, key: str, steps: np.ndarray, values: np.ndarray, wall: np.ndarray | None = None) -> None:
        if key in self.pending:
            self._flush(key)
        if len(values):
            self.parts.setdefault(key, []).append(
                (
                    np.asarray(steps, np.float64),
                    np.asarray(values, np.float64),
                    None if wall is None else np.asarray(wall, np.float64),
                )
            )

    def add_records(
        self,
        records: list[dict[str, Any]],
        steps: list[Any],
        where: Sequence[Any],
        skip: set[str] | frozenset[str] = frozenset(),
    ) -> None:
        """Add a block of flat records (dicts) whose steps are already numbers."""
        keys = dict.fromkeys(k for r in records[:256] for k in r)  # first-seen order
        keys.update(dict.fromkeys(sorted(set().union(*records) - keys.keys())))
        names = [k for k in keys if k not in skip]
        try:
            step_arr = np.asarray(steps, dtype=np.float64)
        except OverflowError:  # a step too large for a float: that record is dropped and reported
            keep = [_fits_float(s) for s in steps]
            for w, k in zip(where, keep):
                if not k:
                    self._flag("step", "integer too large for a float", w)
            records = [r for r, k in zip(records, keep) if k]
            where = [w for w, k in zip(where, keep) if k]
            step_arr = np.asarray([s for s, k in zip(steps, keep) if k], dtype=np.float64)
        for key in names:
            col = [r.get(key) for r in records]
            kinds = set(map(type, col))
            if kinds <= _PLAIN:
                try:
                    values = np.array(col, dtype=np.float64)  # None (absent) becomes NaN, masked below
                except OverflowError:
                    values = None
                if values is not None:
                    if type(None) in kinds:
                        present = np.fromiter((v is not None for v in col), bool, len(col))
                        self.add_array(key, step_arr[present], values[present])
                    else:
                        self.add_array(key, step_arr, values)
                    continue
            self._slow(key, col, step_arr, where)

    def _slow(self, key: str, col: list[Any], steps: np.ndarray, where: Sequence[Any]) -> None:
        out_s, out_v = [], []
        for i, value in enumerate(col):
            v = self._value(key, value, where[i])
            if v is not None:
                out_s.append(steps[i])
                out_v.append(v)
        self.add_array(key, np.array(out_s), np.array(out_v))

    def _value(self, key: str, value: Any, where: Any) -> float | None:
        kind = type(value)
        if kind is float or kind is int:
            try:
                return float(value)
            except OverflowError:
                self._flag(key, "integer too large for a float", where)
                return None
        if kind is str:
            parsed = text_nonfinite(value)
            if parsed is None:
                self._flag(key, "text", where)
                return None
            self._flag(key, f"text {value.strip()!r} read as {parsed}", where)
            return parsed
        if kind is bool:
            self._flag(key, "boolean", where)
        return None  # lists, objects, null: not a scalar metric

    def add(self, step: float, key: str, value: Any, where: Any = None, wall: float | None = None) -> None:
        """Add one value (for readers that see values one at a time), with its wall time if known."""
        v = self._value(key, value, where)
        if v is not None:
            col = self.pending.get(key)
            if col is None:
                col = self.pending[key] = ([], [], [])
            col[0].append(step)
            col[1].append(v)
            col[2].append(np.nan if wall is None else wall)

    def has_wall(self, key: str) -> bool:
        """Whether every point of ``key`` added so far carries a wall time."""
        if key in self.pending:
            self._flush(key)
        parts = self.parts.get(key, [])
        return bool(parts) and all(p[2] is not None for p in parts)

    def into(self, run: Run) -> None:
        for key in list(self.pending):
            self._flush(key)
        for name, parts in self.parts.items():
            steps = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else parts[0][0]
            values = np.concatenate([p[1] for p in parts]) if len(parts) > 1 else parts[0][1]
            wall = None
            if all(p[2] is not None for p in parts):
                wall = np.concatenate([p[2] for p in parts]) if len(parts) > 1 else parts[0][2]
            run.add(name, steps, values, wall)
        for name, problems in self.bad.items():
            if name not in self.parts and set(problems) == {"text"} and not _metric_name(name):
                continue  # a text column (e.g. "mode": "train") is not a metric
            for problem, where in problems.items():
                at = sample_lines([self.where_format.format(w) for w in where if w is not None], 5)
                run.notes.append(
                    f"{name}: {len(where)} value(s) not a real number ({problem})" + (f" at {at}" if at else "")
                )


_PLAIN = {float, int, type(None)}


def _fits_float(value: Any) -> bool:
    try:
        float(value)
    except (OverflowError, TypeError, ValueError):
        return False
    return True


def _metric_name(name: str) -> bool:
    from ..roles import role_of

    return "loss" in name.lower() or role_of(name) is not None


def note_skipped(run: Run, what: str, lines: list[int], *, damage: bool = False) -> None:
    """Record lines a reader skipped as a note (and as damage when they were broken records)."""
    if not lines:
        return
    msg = f"skipped {len(lines)} {what}: line(s) {sample_lines(lines)}"
    run.notes.append(msg)
    if damage:
        run.damage.append(Damage("skipped-lines", msg, {"count": len(lines), "first_line": lines[0]}))


def _json_object(path: Path | None) -> dict[str, Any] | None:
    """The JSON object in the file at ``path``; None without the file, or for one that cannot be
    read or holds no object."""
    if path is None or not path.is_file():
        return None
    try:
        doc = load_json_file(path)
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def config_vocab_size(path: Path | None) -> int | None:
    """The vocab_size of a model's config.json (or of its text model's); None without one."""
    cfg = _json_object(path)
    if cfg is None:
        return None
    for holder in (cfg, cfg.get("text_config"), cfg.get("model_args"), cfg.get("model")):
        if isinstance(holder, dict) and type(holder.get("vocab_size")) is int:
            return int(holder["vocab_size"])
    return None


def link_vocab(run: Run, configs: Iterable[Path | None], tokenizer: Path | None) -> None:
    """The model's vocabulary size into ``run.meta`` (what TL033 and TL035 judge a language
    model's loss against): the vocab_size of the first of ``configs`` that gives one (and
    ``model_config_path``), else the vocabulary of ``tokenizer`` (and ``vocab_source``)."""
    for config in configs:
        vocab = config_vocab_size(config)
        if vocab is not None:
            run.meta["vocab_size"] = vocab
            run.meta["model_config_path"] = str(config)
            return
    vocab = tokenizer_vocab_size(tokenizer)
    if vocab is not None:
        run.meta["vocab_size"] = vocab
        run.meta["vocab_source"] = str(tokenizer)


def tokenizer_vocab_size(path: Path | None) -> int | None:
    """The vocabulary of a tokenizer.json (one past its highest token id, added tokens included);
    None without one or for a file that is no tokenizer."""
    tok = _json_object(path)
    if tok is None:
        return None
    model = tok.get("model")
    vocab = model.get("vocab") if isinstance(model, dict) else None
    if isinstance(vocab, dict):
        ids = [v for v in vocab.values() if type(v) is int]
    elif isinstance(vocab, list):  # Unigram: [token, score] pairs, the id is the position
        ids = [len(vocab) - 1] if vocab else []
    else:
        return None
    added = tok.get("added_tokens")
    ids += (
        [a["id"] for a in added if isinstance(a, dict) and type(a.get("id")) is int] if isinstance(added, list) else []
    )
    return max(ids) + 1 if ids and max(ids) >= 1 else None
