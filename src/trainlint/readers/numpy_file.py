"""Loss curves saved as NumPy arrays: ``np.save('train_loss.npy', losses)`` and
``np.savez('history.npz', loss=..., val_loss=...)``.

The NPY header is parsed here (magic, version 1/2/3, the header dict's ``descr``,
``fortran_order`` and ``shape``, read with ``ast.literal_eval``): ``np.load`` is never called,
an object dtype is refused, and only numeric dtypes (little/big endian floats and integers) are
read, from their raw bytes. The data an array declares is bounded (``MAX_BYTES``) before anything
is allocated. An ``.npz`` is a zip of ``.npy`` members, each inflated to at most its bound.

Names: an npz member's name, a lone ``.npy``'s file name (``train_loss.npy`` -> ``train_loss``),
a structured array's field names. A 1-D array is a series at steps 0..n-1 (the array's index, as
``losses[i]`` reads it); a 2-D array of two columns whose first counts up in whole numbers is
(step, value); any other 2-D array names none of its columns and is not read. An array whose
name names no loss (``x.npy``, image arrays, embeddings) is never read as a training log.
"""

from __future__ import annotations

import ast
import re
import struct
from pathlib import Path
from typing import Any

import numpy as np

from ..model import Damage, Run
from ..role_structure import parse
from ..roles import role_of
from ..safeio import open_regular
from .base import ReadError, reader

NAME = "numpy"
MAGIC = b"\x93NUMPY"
MAX_HEADER = 1 << 16  # bytes of one NPY header (numpy writes well under 10 kB)
MAX_BYTES = 256 << 20  # bytes of array data read at most (one array, or an npz's members together)
MAX_MEMBERS = 1000  # members of an npz looked at
_TYPESTR = re.compile(r"[<>|=]?(?:f[248]|[iu][1248])")  # numeric: floats and integers only
COUNTER_NAMES = frozenset({"step", "steps", "epoch", "epochs", "iter", "iteration", "global_step", "batch"})


class NpyHeader:
    """What an NPY header declares: the dtype, the shape, the order and where the data starts."""

    def __init__(self, dtype: np.dtype, shape: tuple[int, ...], fortran: bool, offset: int) -> None:
        self.dtype, self.shape, self.fortran, self.offset = dtype, shape, fortran, offset
        self.count = int(np.prod(shape, dtype=object)) if shape else 1
        self.nbytes = self.count * dtype.itemsize


def says_loss(name: str) -> bool:
    """Whether a metric name names a loss (an alias of the loss or eval loss, or a loss by its structure)."""
    return role_of(name) in ("loss", "eval_loss") or parse(name).kind is not None


def numeric_dtype(descr: Any) -> np.dtype:
    """The dtype of an NPY ``descr``: a numeric type string, or a list of (name, type string)
    fields (a structured array). ValueError with a one-line reason for anything else."""
    if isinstance(descr, str):
        if not _TYPESTR.fullmatch(descr):
            what = "an object array (pickled Python objects)" if "O" in descr else f"dtype {descr!r}"
            raise ValueError(f"{what}: only arrays of numbers are read")
        return np.dtype(descr)
    if isinstance(descr, list) and 0 < len(descr) <= 64:
        fields = []
        for field in descr:
            if not (isinstance(field, tuple) and len(field) == 2 and isinstance(field[0], str) and field[0]):
                raise ValueError("a structured dtype with nested or unnamed fields: not read")
            fields.append((field[0], numeric_dtype(field[1])))
        return np.dtype(fields)
    raise ValueError(f"an NPY descr of type {type(descr).__name__}: not read")


def parse_header(head: bytes) -> NpyHeader:
    """The NPY header at the start of ``head``; ValueError with a one-line reason."""
    if not head.startswith(MAGIC) or len(head) < 10:
        raise ValueError("not a NumPy .npy array (no \\x93NUMPY magic)")
    major = head[6]
    if major == 1:
        (size,), start = struct.unpack_from("<H", head, 8), 10
    elif major in (2, 3):
        (size,), start = struct.unpack_from("<I", head, 8) if len(head) >= 12 else (0,), 12
    else:
        raise ValueError(f"NPY format version {major}.{head[7]}: not read")
    if not 0 < size <= MAX_HEADER:
        raise ValueError(f"an NPY header of {size:,} bytes: not read")
    if len(head) < start + size:
        raise ValueError("the NPY header is cut short")
    text = head[start : start + size].decode("utf-8" if major == 3 else "latin1", errors="replace")
    try:
        meta = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, RecursionError, MemoryError):
        raise ValueError("the NPY header is not a dictionary literal") from None
    if not isinstance(meta, dict) or set(meta) != {"descr", "fortran_order", "shape"}:
        raise ValueError("the NPY header lacks descr, fortran_order and shape")
    shape = meta["shape"]
    if not isinstance(shape, tuple) or len(shape) > 32 or not all(type(n) is int and n >= 0 for n in shape):
        raise ValueError(f"the NPY shape {shape!r} is not a tuple of counts")
    return NpyHeader(numeric_dtype(meta["descr"]), shape, bool(meta["fortran_order"]), start + size)


def _bounded(header: NpyHeader, what: str) -> None:
    if header.nbytes > MAX_BYTES:
        raise ValueError(
            f"{what} declares shape {header.shape} ({header.nbytes:,} bytes of data), past the"
            f" {MAX_BYTES >> 20} MiB trainlint reads: not read"
        )


def decode(header: NpyHeader, data: bytes) -> tuple[np.ndarray, str]:
    """The array from its raw bytes, read as far as whole elements reach (the second value says
    what was missing: "" when the data is complete)."""
    size = header.dtype.itemsize
    whole = min(header.count, len(data) // size) if size else 0
    flat = np.frombuffer(data, dtype=header.dtype, count=whole)
    missing = ""
    if whole < header.count:
        missing = f"the data ends after {whole:,} of {header.count:,} values (cut short?): read up to there"
    if whole == header.count:
        return flat.reshape(header.shape, order="F" if header.fortran else "C"), missing
    if len(header.shape) == 2 and header.shape[1] and not header.fortran:
        cols = header.shape[1]
        return flat[: (whole // cols) * cols].reshape((-1, cols)), missing
    if len(header.shape) <= 1:
        return flat, missing
    return np.zeros((0,) * len(header.shape), dtype=header.dtype), missing


def _growing_counter(column: np.ndarray) -> bool:
    """Whole numbers that rise at every row (as floats: an unsigned column must not wrap round)."""
    col = np.asarray(column, dtype=np.float64)
    return (
        len(col) >= 2
        and bool(np.isfinite(col).all())
        and bool(np.all(np.diff(col) > 0))
        and bool(np.all(col == np.round(col)))
    )


def series_of(name: str, array: np.ndarray) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], str]:
    """The series an array holds under ``name`` ({name: (steps, values)}), or none and why."""
    if array.dtype.names:
        return _structured(name, array)
    if array.ndim == 2 and 1 in array.shape:
        array = array.reshape(-1)
    if array.ndim == 1:
        if not len(array):
            return {}, f"{name!r} is an empty array"
        return {name: (np.arange(len(array), dtype=np.float64), array.astype(np.float64))}, ""
    if array.ndim == 2 and array.shape[1] == 2 and _growing_counter(array[:, 0]):
        return {name: (array[:, 0].astype(np.float64), array[:, 1].astype(np.float64))}, ""
    if array.ndim == 2:
        return {}, (
            f"{name!r} is a 2-D array of shape {array.shape} and nothing names its columns"
            " (only a (step, value) pair of columns is read)"
        )
    return {}, f"{name!r} is an array of shape {array.shape}, not a series"


def _structured(name: str, array: np.ndarray) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], str]:
    """A structured array: one series per field, at its counter field's steps when one grows."""
    if array.ndim != 1 or not len(array):
        return {}, f"{name!r} is a structured array of shape {array.shape}, not a table of rows"
    fields = list(array.dtype.names or ())
    counter = next((f for f in fields if f.lower() in COUNTER_NAMES and _growing_counter(array[f])), None)
    steps = array[counter].astype(np.float64) if counter else np.arange(len(array), dtype=np.float64)
    return {f: (steps, array[f].astype(np.float64)) for f in fields if f != counter}, ""


def build_run(path: Path, arrays: list[tuple[str, np.ndarray]], fmt: str, what: str) -> Run:
    """A Run of every array that is a series; ReadError when none of their names names a loss."""
    run = Run(source=str(path), format=fmt, files=[str(path)])
    skipped = []
    for name, array in arrays:
        found, why = series_of(name, array)
        if why:
            skipped.append(why)
        for key, (steps, values) in found.items():
            run.add(key, steps, values)
    if skipped and not run.series:
        raise ReadError(f"{what}: {skipped[0]}: not read")
    if not any(says_loss(name) for name in run.series):
        names = ", ".join(repr(n) for n in list(run.series)[:8])
        raise ReadError(f"{what} holding {names} names no loss: not read as a training log")
    run.notes.extend(f"not read: {why}" for why in skipped[:10])
    lengths = {len(s) for s in run.series.values()}
    run.notes.append(
        "steps are the arrays' indices (0..n-1) where no step column is given"
        + (
            f"; the arrays' lengths differ ({min(lengths)} to {max(lengths)}), so their steps may not line up"
            if len(lengths) > 1
            else ""
        )
    )
    return run


def _read_npy(path: Path) -> Run:
    name = path.name[:-4] if path.name.lower().endswith(".npy") else path.stem
    with open_regular(path) as fh:
        head = fh.read(MAX_HEADER + 12)
        try:
            header = parse_header(head)
            _bounded(header, "the array")
        except ValueError as exc:
            raise ReadError(str(exc)) from None
        fh.seek(header.offset)
        data = fh.read(header.nbytes)
    array, missing = decode(header, data)
    run = build_run(path, [(name, array)], NAME, "a NumPy array file")
    run.notes.insert(0, f"a NumPy array of shape {header.shape}, dtype {header.dtype.str}, named by its file's name")
    if missing:
        run.damage.append(Damage("truncated", missing, {"values": header.count, "bytes": len(data)}))
    return run


def _read_npz(path: Path) -> Run:
    import zipfile
    import zlib

    arrays: list[tuple[str, bytes]] = []
    total = 0
    try:
        with open_regular(path) as fh, zipfile.ZipFile(fh) as zf:
            members = [i for i in zf.infolist() if i.filename.endswith(".npy")][:MAX_MEMBERS]
            for info in members:
                with zf.open(info) as member:
                    data = member.read(MAX_BYTES - total + MAX_HEADER + 12 + 1)
                total += len(data)
                if total > MAX_BYTES:
                    raise ReadError(f"the arrays inflate past the {MAX_BYTES >> 20} MiB trainlint reads: not read")
                arrays.append((info.filename[:-4], data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, zlib.error) as exc:
        raise ReadError(f"not a readable .npz (zip) archive: {exc}".splitlines()[0]) from None
    return _npz_run(path, arrays)


def _npz_run(path: Path, members: list[tuple[str, bytes]]) -> Run:
    arrays: list[tuple[str, np.ndarray]] = []
    refused: list[str] = []
    damage: list[Damage] = []
    for name, data in members:
        try:
            header = parse_header(data[: MAX_HEADER + 12])
            _bounded(header, f"member {name!r}")
        except ValueError as exc:
            refused.append(f"{name!r}: {exc}")
            continue
        array, missing = decode(header, data[header.offset : header.offset + header.nbytes])
        if missing:
            damage.append(Damage("truncated", f"{name!r}: {missing}", {"member": name}))
        arrays.append((name, array))
    if refused and not arrays:
        raise ReadError(f"an .npz archive whose arrays are not read: {refused[0]}")
    run = build_run(path, arrays, NAME, "an .npz archive")
    run.notes.extend(f"not read: {why}" for why in refused[:10])
    run.damage.extend(damage)
    return run


def read_arrays(folder: Path, paths: list[Path]) -> Run:
    """Several ``.npy`` files of one run (``train_loss.npy``, ``val_loss.npy``): each file's
    series under its file's name; a file that cannot be read is named in a note."""
    run = Run(source=str(folder), format=NAME)
    for path in paths:
        try:
            one = _read_npy(path)
        except (ReadError, OSError) as exc:
            run.notes.append(f"could not read {path.name}: {exc}")
            continue
        run.series.update(one.series)
        run.files.append(str(path))
        run.damage.extend(Damage(d.kind, f"{path.name}: {d.message}", d.evidence) for d in one.damage)
    if not run.series:
        raise ReadError("no array of this run could be read (" + "; ".join(run.notes) + ")")
    lengths = {len(s) for s in run.series.values()}
    run.notes.append(
        f"{len(run.files)} NumPy arrays, each named by its file's name; steps are the arrays' indices (0..n-1)"
        + (
            f"; their lengths differ ({min(lengths)} to {max(lengths)}), so their steps may not line up"
            if len(lengths) > 1
            else ""
        )
    )
    return run


@reader(NAME, priority=6)
class NumpyReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        if head.startswith(MAGIC):
            return True
        return path.suffix.lower() == ".npz" and head.startswith(b"PK\x03\x04")

    def read(self, path: Path) -> Run:
        with open_regular(path) as fh:
            magic = fh.read(len(MAGIC))
        if magic.startswith(b"PK\x03\x04"):
            return _read_npz(path)
        return _read_npy(path)
