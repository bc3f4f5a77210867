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
from ..picklewalk import Call, Global, PersistentId, PickleResult, mapping, walk, walk_file
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


def _scalar(node: Any, storages: dict[str, bytes] | None = None) -> float:
    """A number node: int, float, a NumPy scalar of a numeric dtype rebuilt from its bytes, or (in a
    torch archive's pickle, ``storages`` its storage members' bytes) a 0-d float tensor."""
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        return float(node)
    if storages is not None and isinstance(node, Call) and node.name == _REBUILD_TENSOR:
        return _tensor_scalar(node, storages)
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


def _values(node: Any, storages: dict[str, bytes] | None = None) -> np.ndarray | None:
    """A sequence of numbers, or None when the node is not one (a lone number, a string)."""
    if isinstance(node, Call) and node.name.endswith("multiarray._reconstruct"):
        return _array(node)
    if isinstance(node, (list, tuple)) and node:
        return np.array([_scalar(v, storages) for v in node], dtype=np.float64)
    return None


def _series(root: Any, name: str = "", storages: dict[str, bytes] | None = None) -> dict[str, np.ndarray]:
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
            values = _values(value, storages)
            if values is not None and len(found) < MAX_SERIES:
                found[name] = values
    if not any(says_loss(name) for name in found):
        names = ", ".join(repr(n) for n in list(found)[:8]) or "no lists of numbers"
        raise NotHistory(f"a dict holding {names} names no loss")
    return found


def history_of(res: PickleResult, name: str = "", storages: dict[str, bytes] | None = None) -> dict[str, np.ndarray]:
    """The metric series of a walked pickle; NotHistory with the reason when it is not a history.
    ``storages``: a torch archive's storage members, whose 0-d float tensors are then numbers."""
    allowed = ALLOWED if storages is None else ALLOWED | TORCH_ALLOWED
    foreign = next((g for g in res.globals if g.dotted not in allowed), None)
    if foreign is not None:
        raise NotHistory(f"the pickle would import {foreign.dotted} (never run): not a metrics history")
    if not res.complete:
        raise NotHistory(res.error or "the pickle ends before its STOP opcode")
    try:
        return _series(res.root, name, storages)
    except (TypeError, ValueError, OverflowError) as exc:
        raise NotHistory(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None


# torch.save of plain containers (``torch.save({'train_loss': losses}, 'history.pt')``) writes a
# zip whose one pickle (``<archive>/data.pkl``) refers to no tensor storage (``<archive>/data/0``),
# or, where the script appended ``loss`` rather than ``loss.item()``, to one storage of one number
# per 0-d tensor: ``_rebuild_tensor_v2(persistent_id('storage', torch.FloatStorage, '0', 'cpu', 1),
# 0, (), (), ...)``. Those numbers are read from the storage members' raw little-endian bytes.
_ZIP = b"PK\x03\x04"
_TORCH_SUFFIXES = (".pt", ".pth", ".tar", ".ckpt")
_REBUILD_TENSOR = "torch._utils._rebuild_tensor_v2"
_STORAGE_DTYPES = {
    "torch.FloatStorage": "<f4",
    "torch.DoubleStorage": "<f8",
    "torch.HalfStorage": "<f2",
    "torch.BFloat16Storage": "bf16",
}
TORCH_ALLOWED = frozenset([_REBUILD_TENSOR, *_STORAGE_DTYPES])
MAX_STORAGES = 100_000  # 0-d tensors of a history; a storage of more than one number is a checkpoint's
_SCALAR_BYTES = 8


def _tensor_scalar(node: Call, storages: dict[str, bytes]) -> float:
    """The number of a 0-d float tensor rebuilt from its storage's bytes (a tensor of more
    elements, or of another dtype, is no loss value: NotHistory)."""
    args = node.args
    ref = args[0] if args else None
    pid = ref.pid if isinstance(ref, PersistentId) else None
    if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage" and len(args) >= 4):
        raise NotHistory("a tensor without the storage reference torch.save writes")
    kind = pid[1].dotted if isinstance(pid[1], Global) else "?"
    if args[2] != () or kind not in _STORAGE_DTYPES or not isinstance(args[1], int):
        raise NotHistory(f"a tensor of shape {args[2]!r} ({kind}): a checkpoint, not a metrics history")
    code = _STORAGE_DTYPES[kind]
    size = 2 if code == "bf16" else np.dtype(code).itemsize
    raw = storages.get(str(pid[2]), b"")[args[1] * size : (args[1] + 1) * size]
    if len(raw) != size:
        raise NotHistory(f"a tensor whose storage {pid[2]!r} is missing or short")
    if code == "bf16":  # bfloat16: the high half of a float32
        return float(np.frombuffer(b"\x00\x00" + raw, dtype="<f4")[0])
    return float(np.frombuffer(raw, dtype=code)[0])


def torch_zip_pickle(path: Path) -> tuple[bytes, dict[str, bytes]] | None:
    """The pickle of a torch zip archive and its storages' bytes by key, where each storage holds
    one number at most (0-d tensors); None: not such an archive (a checkpoint's tensors), or a
    pickle past MAX_BYTES."""
    import zipfile
    import zlib

    try:
        with open_regular(path) as fh, zipfile.ZipFile(fh) as zf:
            pickles = [n for n in zf.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
            if len(pickles) != 1 or zf.getinfo(pickles[0]).file_size > MAX_BYTES:
                return None
            root = pickles[0][: -len("data.pkl")]
            stored = [i for i in zf.infolist() if "/data/" in i.filename]
            if len(stored) > MAX_STORAGES or any(i.file_size > _SCALAR_BYTES for i in stored):
                return None
            if stored and _member(zf, root + "byteorder", 16) not in (b"", b"little"):
                return None
            storages = {i.filename[len(root) + len("data/") :]: _member(zf, i.filename, _SCALAR_BYTES) for i in stored}
            return _member(zf, pickles[0], MAX_BYTES), storages
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, zlib.error, KeyError):
        return None


def _member(zf: Any, name: str, limit: int) -> bytes:
    """A zip member's first ``limit`` bytes (b"" when there is none)."""
    if name not in zf.NameToInfo:
        return b""
    with zf.open(name) as member:
        return bytes(member.read(limit + 1)[:limit])


def _torch_history(path: Path, head: bytes) -> tuple[PickleResult, dict[str, bytes]] | None:
    """The walked pickle of a torch-saved metrics history and its 0-d tensors' storages, or None."""
    if not head.startswith(_ZIP) or path.suffix.lower() not in _TORCH_SUFFIXES:
        return None
    found = torch_zip_pickle(path)
    if found is None:
        return None
    res, storages = walk(found[0]), found[1]
    keys = {str(r.pid[2]) for r in res.persistent_ids if isinstance(r.pid, tuple) and len(r.pid) == 5}
    return (res, storages) if keys == set(storages) else None  # every storage a tensor's, and there


def is_history(path: Path, head: bytes) -> bool:
    """Whether ``path`` (whose first bytes are ``head``) is a pickled metrics history: a pickle
    whose first bytes import nothing else, small enough, whose walk gives a history; or a torch
    zip archive of such a pickle and no tensors."""
    if (zipped := _torch_history(path, head)) is not None:
        try:
            history_of(zipped[0], path.stem, zipped[1])
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
                history_of(zipped[0], path.stem, zipped[1])
                if zipped is not None
                else history_of(_walk_bounded(path), _stem(path))
            )
        except NotHistory as exc:
            raise ReadError(f"not a pickled metrics history: {exc}") from None
        run = Run(source=str(path), format=NAME, files=[str(path)])
        for name, values in series.items():
            run.add(name, np.arange(len(values), dtype=np.float64), values)
        if zipped is not None and zipped[1]:
            run.notes.append(
                f"the values are {len(zipped[1])} 0-d tensors (appended without .item()), each read from"
                " its storage's raw bytes in the archive"
            )
        run.notes.append(
            "a pickled dict of metric lists (a Keras History.history or the like), read from its"
            " opcodes, never unpickled; steps are the lists' indices (0..n-1, Keras's epochs)"
        )
        return run
