"""A pickled metrics history: ``pickle.dump(history.history, f)`` of a Keras ``History`` (a dict
of metric name -> list of floats, perhaps NumPy float32 scalars), or a script's own dict of loss
lists, saved as ``history.pkl`` / ``.pickle``.

Read through the pickle's opcodes only (:mod:`trainlint.picklewalk`): nothing is unpickled,
imported or called. Only plain containers are rebuilt (dict, list, tuple, str, int, float, an
``OrderedDict``) and NumPy scalars and arrays of a numeric dtype, from their raw bytes; a pickle
that would import anything else is not a history (a checkpoint, or worse: it is left to the
checkpoint inspector, which judges what it imports). A list's index is its step (0..n-1: the
epoch, as Keras counts them). A dict one level deep (``{'train': {'loss': [...]}}``) gives
``train/loss``. A lone pickled list of losses (``pickle.dump(train_losses, f)``) is named by its
file's name (``train_losses.pkl`` -> ``train_losses``), as a NumPy array file is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..model import Run
from ..picklewalk import Call, PickleResult, mapping, walk, walk_file
from ..safeio import open_regular
from .base import ReadError, reader
from .numpy_file import numeric_dtype, says_loss

NAME = "pickle-history"
MAX_BYTES = 64 << 20  # a metrics history is small; a larger pickle is a checkpoint or data
MAX_SERIES = 10_000
_NUMPY = ("numpy.core.multiarray", "numpy._core.multiarray")
ALLOWED = frozenset(
    [f"{m}.scalar" for m in _NUMPY]
    + [f"{m}._reconstruct" for m in _NUMPY]
    + ["numpy.dtype", "numpy.ndarray", "_codecs.encode", "collections.OrderedDict"]
)
_HEADS = (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05", b"(dp", b"}q", b"}(")


class NotHistory(ValueError):
    """The pickle is not a metrics history; the message says why, in one line."""


def _scalar(node: Any) -> float:
    """A number node: int, float, or a NumPy scalar of a numeric dtype rebuilt from its bytes."""
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        return float(node)
    if isinstance(node, Call) and node.name.endswith("multiarray.scalar") and len(node.args) == 2:
        dtype = _dtype(node.args[0])
        raw = _raw(node.args[1])
        if len(raw) == dtype.itemsize:
            return float(np.frombuffer(raw, dtype=dtype)[0])
    raise NotHistory(f"a value that is not a number ({_what(node)})")


def _what(node: Any) -> str:
    return node.name if isinstance(node, Call) else type(node).__name__


def _dtype(node: Any) -> np.dtype:
    """``numpy.dtype('f4', False, True)`` with its BUILD state ``(3, '<', ...)``: numeric only."""
    if not (isinstance(node, Call) and node.name == "numpy.dtype" and node.args and isinstance(node.args[0], str)):
        raise NotHistory("a NumPy value without a plain dtype")
    order = node.state[1] if isinstance(node.state, tuple) and len(node.state) > 1 else "|"
    try:
        return numeric_dtype((order if order in "<>|=" else "|") + node.args[0])
    except ValueError as exc:
        raise NotHistory(str(exc)) from None


def _raw(node: Any) -> bytes:
    """Raw bytes: a bytes node, or ``_codecs.encode(text, 'latin1')`` (protocols 0-2)."""
    if isinstance(node, (bytes, bytearray)):
        return bytes(node)
    if isinstance(node, Call) and node.name == "_codecs.encode" and len(node.args) == 2:
        text, codec = node.args
        if isinstance(text, str) and codec in ("latin1", "latin-1"):
            return text.encode("latin1")
    raise NotHistory("NumPy data that is not raw bytes")


def _array(node: Call) -> np.ndarray:
    """``_reconstruct(ndarray, (0,), b'b')`` with its BUILD state (version, shape, dtype, fortran, raw)."""
    state = node.state
    if not (isinstance(state, tuple) and len(state) == 5 and isinstance(state[1], tuple)):
        raise NotHistory("a NumPy array without the state numpy pickles")
    dtype, raw = _dtype(state[2]), _raw(state[4])
    count = int(np.prod(state[1], dtype=np.int64)) if state[1] else 1
    if len(state[1]) > 1 or count * dtype.itemsize != len(raw):
        raise NotHistory(f"a NumPy array of shape {state[1]}, not a series")
    return np.frombuffer(raw, dtype=dtype).astype(np.float64)


def _values(node: Any) -> np.ndarray | None:
    """A sequence of numbers, or None when the node is not one (a lone number, a string)."""
    if isinstance(node, Call) and node.name.endswith("multiarray._reconstruct"):
        return _array(node)
    if isinstance(node, (list, tuple)) and node:
        return np.array([_scalar(v) for v in node], dtype=np.float64)
    return None


def _series(root: Any, name: str = "") -> dict[str, np.ndarray]:
    """Every metric list of a history dict (one level of nesting joined with '/'); a lone list of
    numbers is named ``name`` (the file's name)."""
    top = mapping(root) if not isinstance(root, (list, tuple)) else {name: root} if name else None
    if top is None:
        raise NotHistory(f"the pickle holds a {_what(root)}, not a dict of metric lists")
    found: dict[str, np.ndarray] = {}
    for key, node in top.items():
        inner = mapping(node) if not isinstance(node, (list, tuple)) else None
        pairs = [(f"{key}/{k}", v) for k, v in inner.items()] if inner is not None else [(key, node)]
        for name, value in pairs:
            if not isinstance(name, str):
                raise NotHistory("a dict whose keys are not metric names")
            values = _values(value)
            if values is not None and len(found) < MAX_SERIES:
                found[name] = values
    if not any(says_loss(name) for name in found):
        names = ", ".join(repr(n) for n in list(found)[:8]) or "no lists of numbers"
        raise NotHistory(f"a dict holding {names} names no loss")
    return found


def history_of(res: PickleResult, name: str = "") -> dict[str, np.ndarray]:
    """The metric series of a walked pickle; NotHistory with the reason when it is not a history."""
    foreign = next((g for g in res.globals if g.dotted not in ALLOWED), None)
    if foreign is not None:
        raise NotHistory(f"the pickle would import {foreign.dotted} (never run): not a metrics history")
    if not res.complete:
        raise NotHistory(res.error or "the pickle ends before its STOP opcode")
    try:
        return _series(res.root, name)
    except (TypeError, ValueError, OverflowError) as exc:
        raise NotHistory(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None


# torch.save of plain containers (``torch.save({'train_loss': losses}, 'history.pt')``) writes a
# zip whose one pickle (``<archive>/data.pkl``) refers to no tensor storage (``<archive>/data/0``).
_ZIP = b"PK\x03\x04"
_TORCH_SUFFIXES = (".pt", ".pth", ".tar", ".ckpt")


def torch_zip_pickle(path: Path) -> bytes | None:
    """The pickle of a torch zip archive that holds no tensor storage (None: not such an archive,
    or a pickle past MAX_BYTES)."""
    import zipfile
    import zlib

    try:
        with open_regular(path) as fh, zipfile.ZipFile(fh) as zf:
            names = zf.namelist()
            pickles = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
            if len(pickles) != 1 or any("/data/" in n for n in names):
                return None
            info = zf.getinfo(pickles[0])
            if info.file_size > MAX_BYTES:
                return None
            with zf.open(info) as member:
                return member.read(MAX_BYTES + 1)[:MAX_BYTES]
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, zlib.error, KeyError):
        return None


def _torch_history(path: Path, head: bytes) -> PickleResult | None:
    """The walked pickle of a torch-saved metrics history, or None."""
    if not head.startswith(_ZIP) or path.suffix.lower() not in _TORCH_SUFFIXES:
        return None
    data = torch_zip_pickle(path)
    return walk(data) if data is not None else None


def is_history(path: Path, head: bytes) -> bool:
    """Whether ``path`` (whose first bytes are ``head``) is a pickled metrics history: a pickle
    whose first bytes import nothing else, small enough, whose walk gives a history; or a torch
    zip archive of such a pickle and no tensors."""
    if (zipped := _torch_history(path, head)) is not None:
        try:
            history_of(zipped, path.stem)
        except NotHistory:
            return False
        return True
    if not head.startswith(_HEADS):
        return False
    first = walk(head)
    if any(g.dotted not in ALLOWED for g in first.globals):
        return False
    try:
        res = first if first.complete else _walk_bounded(path)
        history_of(res, _stem(path))
    except (NotHistory, ReadError, OSError):
        return False
    return True


def _stem(path: Path) -> str:
    """The name a lone pickled list goes by: its file's name (``train_losses.pkl`` -> ``train_losses``)."""
    return path.name[: -len(path.suffix)] if path.suffix.lower() in (".pkl", ".pickle", ".p") else ""


def _walk_bounded(path: Path) -> PickleResult:
    with open_regular(path) as fh:
        size = fh.seek(0, 2)
    if size > MAX_BYTES:
        raise ReadError(f"a pickle of {size:,} bytes, past the {MAX_BYTES >> 20} MiB of a metrics history: not read")
    return walk_file(path)


@reader(NAME, priority=7)
class PickleHistoryReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        return is_history(path, head)

    def read(self, path: Path) -> Run:
        with open_regular(path) as fh:
            head = fh.read(4)
        try:
            zipped = _torch_history(path, head)
            series = (
                history_of(zipped, path.stem) if zipped is not None else history_of(_walk_bounded(path), _stem(path))
            )
        except NotHistory as exc:
            raise ReadError(f"not a pickled metrics history: {exc}") from None
        run = Run(source=str(path), format=NAME, files=[str(path)])
        for name, values in series.items():
            run.add(name, np.arange(len(values), dtype=np.float64), values)
        run.notes.append(
            "a pickled dict of metric lists (a Keras History.history or the like), read from its"
            " opcodes, never unpickled; steps are the lists' indices (0..n-1, Keras's epochs)"
        )
        return run
