"""TensorBoard event files (``events.out.tfevents.*``), read from the wire format.

No tensorflow, tensorboard, protobuf or torch at run time: the TFRecord framing
and its CRCs are checked in ``_tfrecord``, the common scalar layouts of many
records are decoded at once in ``_tffast`` and everything else exactly, one
record at a time, in ``_tfproto``.

Every scalar tag becomes a series named by its tag, with the event wall time of
every point: ``simple_value`` scalars (torch's SummaryWriter, tensorboardX,
Lightning, TF1) and one-element numeric tensors of the ``scalars`` plugin
(TF2/Keras, torch's ``new_style``). Images, histograms, audio and text are
skipped without being decoded. The hparams plugin's data goes to
``run.meta["hparams"]``.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from ...model import Damage, Run
from ...options import ReadOptions
from ...safeio import read_bytes
from ..base import ReadError, reader
from ..stream import Tail
from . import fast, proto
from .records import HEADER, length_crc_ok, scan, scan_records

KIND_SIMPLE, KIND_TENSOR, KIND_OTHER, KIND_NONE = 0, 1, 2, 3  # OTHER: image, histogram, audio
DECODE_CHUNK = 1 << 14  # records decoded together (bounds the temporaries)
SCALAR_PLUGINS = ("scalars", "")  # "" = a tensor whose tag never carried plugin metadata


def data_crc_wanted(default: bool, options: ReadOptions | None) -> bool:
    """Data CRCs are verified unless the options say not to (length CRCs always are)."""
    return default and (options is None or options.tfevents_data_crc)


TEXT_SUFFIXES = {".py", ".md", ".txt", ".json", ".jsonl", ".csv", ".yaml", ".yml", ".log", ".ipynb"}


def is_event_file_name(name: str) -> bool:
    return "events.out.tfevents" in name


def looks_like_events(head: bytes) -> bool:
    """A first record whose length CRC holds and whose data opens with Event.wall_time."""
    if len(head) < HEADER + 1:
        return False
    u8 = np.frombuffer(head, dtype=np.uint8)
    return head[HEADER] == 0x09 and bool(length_crc_ok(u8, np.array([0]))[0])


class Points(msgspec.Struct):
    """The scalar points of one file, in file order; tags as raw bytes."""

    tags: list[bytes] = msgspec.field(default_factory=list)
    tag: list[np.ndarray] = msgspec.field(default_factory=list)  # tag index per point (chunks)
    step: list[np.ndarray] = msgspec.field(default_factory=list)
    wall: list[np.ndarray] = msgspec.field(default_factory=list)
    value: list[np.ndarray] = msgspec.field(default_factory=list)
    plugins: dict[int, str] = msgspec.field(default_factory=dict)
    meta: dict[str, Any] = msgspec.field(default_factory=dict)
    restarts: list[tuple[int, float]] = msgspec.field(default_factory=list)  # (points before, step)
    records: int = 0
    skipped: dict[str, int] = msgspec.field(default_factory=dict)  # kind -> values skipped

    def count(self) -> int:
        return sum(a.shape[0] for a in self.value)


class _Decoder:
    """Decodes the records of one file, chunk by chunk, into :class:`Points`."""

    def __init__(self, buf: bytes, mem: fast.Mem | None = None) -> None:
        self.buf = buf
        self.mem = fast.Mem(buf) if mem is None else mem
        self.u8 = self.mem.u8
        self.pts = Points()
        self.tag_ids: dict[bytes, int] = {}
        self.pending: list[tuple[int, float]] = []  # restart markers of the chunk: (record, step)

    def chunk(self, starts: np.ndarray, ends: np.ndarray) -> None:
        ok, wall, step, after = fast.event_header(self.mem, starts, ends)
        q = fast.quick_values(self.mem, after, ends)
        quick = ok & (q["kind"] >= 0)
        rest = np.flatnonzero(~quick)
        idx = np.flatnonzero(quick) if rest.size else None  # None: every record (no copies)
        parts = [self._quick_columns(q, idx, wall, step)]
        if rest.size:
            generic, slow = self._generic_columns(rest, starts, ends)
            parts += [self._useful(generic), self._useful(self._slow_columns(slow, starts, ends))]
        self._finish(_merge(parts))
        self.pts.records += starts.shape[0]

    def _useful(self, c: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Drop values that carry neither a number nor metadata (counting images, histograms, audio)."""
        other = int(np.count_nonzero(c["kind"] == KIND_OTHER))
        if other:
            self.pts.skipped["image/histogram/audio"] = self.pts.skipped.get("image/histogram/audio", 0) + other
        keep = (c["kind"] <= KIND_TENSOR) | (c["ms"] >= 0)
        return c if keep.all() else {k: v[keep] for k, v in c.items()}

    def _quick_columns(
        self, q: dict[str, np.ndarray], idx: np.ndarray | None, wall: np.ndarray, step: np.ndarray
    ) -> dict[str, np.ndarray]:
        """The columns of the records in the two common layouts (``idx``; None: all of them)."""
        if idx is not None:
            q = {k: v[idx] for k, v in q.items()}
            wall, step = wall[idx], step[idx]
        kind = q["kind"]
        return {
            "rec": np.arange(kind.shape[0]) if idx is None else idx,
            "ord": np.zeros(kind.shape[0], dtype=np.int64),
            "tag": self._tag_index(q["tag_a"], q["tag_z"]),
            "kind": np.where(kind == 0, KIND_SIMPLE, KIND_TENSOR).astype(np.int8),
            "value": q["value"],
            "step": step,
            "wall": wall,
            "ts": q["ts"],
            "te": q["te"],
            "ms": q["ms"],
            "me": q["me"],
        }

    def _generic_columns(
        self, recs: np.ndarray, starts: np.ndarray, ends: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Walk the fields of records in other layouts; returns their columns and those left over."""
        u8 = self.u8
        ev = fast.walk(u8, starts[recs], ends[recs], fast.EVENT_SPEC)
        idx = np.flatnonzero(ev.has(0x2A) & ~ev.bad)
        owner, ords, vs, ve, vbad = fast.summary_values(u8, ev.a[0x2A][idx], ev.z[0x2A][idx])
        slow = ev.bad.copy()
        slow[idx[vbad]] = True
        rec = idx[owner]
        vf = fast.walk(u8, vs, ve, fast.VALUE_SPEC)
        slow[rec[vf.bad]] = True
        keep = np.flatnonzero(~slow[rec])
        rec, a, z = rec[keep], {k: v[keep] for k, v in vf.a.items()}, {k: v[keep] for k, v in vf.z.items()}
        kind = np.full(keep.shape[0], KIND_NONE, dtype=np.int8)
        kind[(z[0x1A] >= 0) | (z[0x22] >= 0) | (z[0x2A] >= 0) | (z[0x32] >= 0)] = KIND_OTHER
        kind[z[0x42] >= 0] = KIND_TENSOR
        simple = np.flatnonzero(z[0x15] >= 0)
        kind[simple] = KIND_SIMPLE
        value = np.zeros(keep.shape[0], dtype=np.float64)
        value[simple] = self.mem.f32[a[0x15][simple]]
        wall = np.zeros(recs.shape[0], dtype=np.float64)
        hw = np.flatnonzero(ev.has(0x09))
        wall[hw] = self.mem.f64[ev.a[0x09][hw]]
        step = np.where(ev.has(0x10), ev.a[0x10], 0)
        cols = {
            "rec": recs[rec],
            "ord": ords[keep],
            "tag": self._tag_index(a[0x0A], z[0x0A]),
            "kind": kind,
            "value": value,
            "step": step[rec],
            "wall": wall[rec],
            "ts": a[0x42],
            "te": z[0x42],
            "ms": a[0x4A],
            "me": z[0x4A],
        }
        return cols, recs[np.flatnonzero(slow)]

    def _tag_index(self, a: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Global tag index of each span (absent tag: the empty tag)."""
        present = z >= 0
        if not present.all():
            a, z = np.where(present, a, 0), np.where(present, z, 0)
        rep = fast.group_spans(self.mem, a, z)
        reps = np.flatnonzero(rep == np.arange(a.shape[0]))
        lookup = np.empty(a.shape[0], dtype=np.int64)
        for r in reps.tolist():
            lookup[r] = self._tag_id(self.buf[int(a[r]) : int(z[r])])
        grouped = rep >= 0
        out: np.ndarray
        if grouped.all():  # the usual case: no boolean selections
            out = lookup[rep]
            return out
        out = np.empty(a.shape[0], dtype=np.int64)
        out[grouped] = lookup[rep[grouped]]
        for i in np.flatnonzero(~grouped).tolist():
            out[i] = self._tag_id(self.buf[int(a[i]) : int(z[i])])
        return out

    def _slow_columns(self, recs: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> dict[str, Any]:
        rows: list[tuple[Any, ...]] = []
        for r in recs.tolist():
            try:
                ev = proto.decode_event(self.buf, int(starts[r]), int(ends[r]))
            except proto.Malformed:
                self.pts.skipped["malformed event"] = self.pts.skipped.get("malformed event", 0) + 1
                continue
            self._event_extras(ev, r)
            for o, v in enumerate(ev.values):
                kind = {"simple": KIND_SIMPLE, "tensor": KIND_TENSOR, "none": KIND_NONE}.get(v.kind, KIND_OTHER)
                ts, te = v.tensor or (-1, -1)
                ms, me = v.meta or (-1, -1)
                rows.append((r, o, v.tag, kind, v.simple or 0.0, ev.step, ev.wall, ts, te, ms, me))
        names = ("rec", "ord", "tag", "kind", "value", "step", "wall", "ts", "te", "ms", "me")
        cols = {n: list(c) for n, c in zip(names, zip(*rows))} if rows else {n: [] for n in names}
        tags = cols.pop("tag")
        out = {n: np.array(c, dtype=np.float64 if n in ("value", "wall") else np.int64) for n, c in cols.items()}
        out["kind"] = out["kind"].astype(np.int8)
        out["tag"] = np.array([self._tag_id(t) for t in tags], dtype=np.int64)
        return out

    def _tag_id(self, tag: bytes) -> int:
        if tag not in self.tag_ids:
            self.tag_ids[tag] = len(self.tag_ids)
            self.pts.tags.append(tag)
        return self.tag_ids[tag]

    def _event_extras(self, ev: proto.Event, rec: int) -> None:
        if ev.file_version is not None:
            self.pts.meta.setdefault("file_version", ev.file_version)
        if ev.session_start:
            self.pending.append((rec, float(ev.step)))

    def _finish(self, c: dict[str, np.ndarray]) -> None:
        """Plugins per tag, hparams, tensor scalars; then append the points."""
        self._learn_plugins(c)
        plugin_of = np.array(
            [self.pts.plugins.get(i, "") in SCALAR_PLUGINS for i in range(len(self.pts.tags))] or [False], dtype=bool
        )
        is_hp = np.array(
            [self.pts.plugins.get(i) == "hparams" for i in range(len(self.pts.tags))] or [False], dtype=bool
        )
        for i in np.flatnonzero(is_hp[c["tag"]] & (c["ms"] >= 0)).tolist():
            self._hparams(int(c["ms"][i]), int(c["me"][i]))
        tensor = np.flatnonzero((c["kind"] == KIND_TENSOR) & plugin_of[c["tag"]])
        good = c["kind"] == KIND_SIMPLE
        if tensor.size:
            vals, ok = fast.tensor_scalars(self.mem, c["ts"][tensor], c["te"][tensor])
            for j in np.flatnonzero(~ok).tolist():
                v = self._exact_tensor(int(c["ts"][tensor[j]]), int(c["te"][tensor[j]]))
                if v is not None:
                    vals[j], ok[j] = v, True
            c["value"][tensor] = vals
            good[tensor[ok]] = True
        self._count_skipped(c, good)
        for rec, s in self.pending:
            self.pts.restarts.append((self.pts.count() + int(np.count_nonzero(good & (c["rec"] < rec))), s))
        self.pending = []
        for name in ("tag", "step", "wall", "value"):
            getattr(self.pts, name).append(c[name][good])

    def _exact_tensor(self, a: int, z: int) -> float | None:
        try:
            return proto.tensor_scalar(self.buf, a, z)
        except proto.Malformed:
            return None

    def _learn_plugins(self, c: dict[str, np.ndarray]) -> None:
        """A tag's plugin is named by the first metadata it carries (as TensorBoard does)."""
        has = np.flatnonzero(c["ms"] >= 0)
        if has.size and self.pts.plugins:  # only tags whose plugin is not known yet
            known = np.zeros(len(self.pts.tags), dtype=bool)
            known[list(self.pts.plugins)] = True
            has = has[~known[c["tag"][has]]]
        if not has.size:
            return
        tags, first = np.unique(c["tag"][has], return_index=True)
        for t, i in zip(tags.tolist(), has[first].tolist()):
            if t in self.pts.plugins:
                continue
            try:
                name, _ = proto.plugin(self.buf, int(c["ms"][i]), int(c["me"][i]))
            except proto.Malformed:
                name = "?"
            self.pts.plugins[t] = name

    def _hparams(self, a: int, z: int) -> None:
        try:
            _, content = proto.plugin(self.buf, a, z)
            if content is not None:
                info = proto.hparams(self.buf, *content)
                hp = info.pop("hparams", None)
                if hp:
                    self.pts.meta.setdefault("hparams", {}).update(hp)
                if info:
                    self.pts.meta.setdefault("hparams_session", {}).update(info)
        except proto.Malformed:
            self.pts.skipped["malformed hparams"] = self.pts.skipped.get("malformed hparams", 0) + 1

    def _count_skipped(self, c: dict[str, np.ndarray], good: np.ndarray) -> None:
        """Count what was not read as a scalar, by plugin (hparams are read into meta, not counted)."""
        skipped = self.pts.skipped
        tens = np.flatnonzero(~good & (c["kind"] == KIND_TENSOR))
        if tens.size:
            tags, counts = np.unique(c["tag"][tens], return_counts=True)
            for t, k in zip(tags.tolist(), counts.tolist()):
                name = self.pts.plugins.get(t) or "no plugin"
                name = "non-scalar" if name == "scalars" else name
                if name != "hparams":
                    skipped[name] = skipped.get(name, 0) + k


def _merge(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Columns of the bulk and exact paths together, in file order (record, then value in it).

    The first part (one value per record, in record order) is large; the others are
    small, so they are sorted on their own and inserted where they belong.
    """
    first, rest = parts[0], [p for p in parts[1:] if p["rec"].shape[0]]
    if not rest:
        return first
    other = rest[0] if len(rest) == 1 else {k: np.concatenate([p[k] for p in rest]) for k in first}
    key = other["rec"] * 4096 + np.minimum(other["ord"], 4095)
    order = np.argsort(key, kind="stable")
    other = {k: v[order] for k, v in other.items()}
    at = np.searchsorted(first["rec"] * 4096, key[order], side="right")
    return {k: np.insert(first[k], at, other[k]) for k in first}


def decode_file(path: Path, verify_data: bool = True) -> tuple[Points, list[Damage]]:
    """The scalar points of one event file and what was damaged. Raises ReadError."""
    try:
        buf = read_bytes(path)  # a regular file only
    except OSError as exc:
        raise ReadError(f"cannot read: {exc.strerror or exc}") from None
    return decode_bytes(buf, verify_data)


def decode_bytes(buf: bytes, verify_data: bool = True) -> tuple[Points, list[Damage]]:
    if not buf:
        raise ReadError("empty file")
    framing = scan(buf, verify_data)
    if framing.starts.shape[0] == 0:
        why = "; ".join(d.message for d in framing.damage[:1])
        raise ReadError(
            f"not a readable TensorBoard event file: no intact record in {len(buf)} bytes"
            + (f" ({why})" if why else "")
        )
    dec = _Decoder(buf, framing.mem)
    step = DECODE_CHUNK
    try:
        for i in range(0, framing.starts.shape[0], step):
            dec.chunk(framing.starts[i : i + step], framing.ends[i : i + step])
    except (IndexError, ValueError, OverflowError, struct.error) as exc:  # a decoder bug, not the user's
        if os.environ.get("TRAINLINT_DEBUG"):
            raise
        raise ReadError(f"could not decode the events: {type(exc).__name__}: {exc}".splitlines()[0]) from None
    dec.pts.meta["records"] = int(framing.starts.shape[0])
    return dec.pts, framing.damage


def _columns(pts: Points) -> dict[str, np.ndarray]:
    return {
        "tag": fast.concat(pts.tag),
        "step": fast.concat(pts.step),
        "wall": fast.concat(pts.wall, np.float64),
        "value": fast.concat(pts.value, np.float64),
    }


def _restart_purge(c: dict[str, np.ndarray], restarts: list[tuple[int, float]]) -> tuple[dict[str, np.ndarray], int]:
    """TensorBoard's rule for a restart marker (SessionLog START at step s): drop earlier points at >= s."""
    keep = np.ones(c["tag"].shape[0], dtype=bool)
    for before, s in restarts:
        keep[:before] &= c["step"][:before] < s
    dropped = int(np.count_nonzero(~keep))
    return ({k: v[keep] for k, v in c.items()} if dropped else c), dropped


def points_to_series(pts: Points, run: Run) -> None:
    c, dropped = _restart_purge(_columns(pts), pts.restarts)
    if pts.restarts:
        run.meta.setdefault("resumes", []).extend(
            {"kind": "session-restart", "at_step": s, "points_superseded": dropped} for _, s in pts.restarts
        )
        run.notes.append(
            f"{len(pts.restarts)} restart marker(s) in the file; {dropped} earlier point(s) "
            "at or after the restart step were superseded"
        )
    tag = c["tag"].astype(np.uint16) if len(pts.tags) < 1 << 16 else c["tag"]
    order = np.argsort(tag, kind="stable")  # a radix sort for 16-bit keys
    tags_sorted = c["tag"][order]
    bounds = np.flatnonzero(np.diff(tags_sorted)) + 1
    for grp in np.split(order, bounds) if order.size else []:
        name = pts.tags[int(c["tag"][grp[0]])].decode("utf-8", "replace")
        run.add(name, c["step"][grp].astype(np.float64), c["value"][grp], c["wall"][grp])


def describe(run: Run, pts: Points) -> None:
    run.meta.update({k: v for k, v in pts.meta.items()})
    run.meta["plugins"] = sorted({p for p in pts.plugins.values() if p})
    kinds = {k: n for k, n in pts.skipped.items() if not k.startswith("malformed")}
    if kinds:
        run.notes.append(
            "not read as scalars (not decoded): " + ", ".join(f"{n} {k} value(s)" for k, n in sorted(kinds.items()))
        )
    for what, n in sorted(pts.skipped.items()):
        if what.startswith("malformed"):
            run.notes.append(f"skipped {n} {what} record(s)")


@reader("tfevents", priority=5)
class TFEventsReader:
    verify_data = True

    def sniff(self, path: Path, head: bytes) -> bool:
        if looks_like_events(head):
            return True
        return is_event_file_name(path.name) and path.suffix.lower() not in TEXT_SUFFIXES and not path.is_dir()

    def stream(self, path: Path, options: ReadOptions) -> EventStream:
        return EventStream(path, data_crc_wanted(self.verify_data, options))

    def read(self, path: Path, options: ReadOptions | None = None) -> Run:
        try:
            pts, damage = decode_file(Path(path), data_crc_wanted(self.verify_data, options))
        except (MemoryError, RecursionError):
            raise ReadError("ran out of memory reading this event file") from None
        run = Run(source=str(path), format="tfevents", files=[str(path)])
        run.damage.extend(damage)
        points_to_series(pts, run)
        describe(run, pts)
        return run


class EventStream(Tail):
    """An event file as records are appended: the complete records past the last offset, decoded
    as the reader decodes a whole file. A length whose CRC fails stops the stream there (the
    reader reports that damage when the file is judged)."""

    def __init__(self, path: Path, verify_data: bool = True) -> None:
        super().__init__(path, "tfevents")
        self.verify_data, self.stuck = verify_data, False

    def restart(self) -> None:
        self.stuck = False

    def poll(self) -> Run | None:
        data = b"" if self.stuck else self.new_bytes()
        _, used, self.stuck = scan_records(data)
        if not used:
            return None
        self.offset += used
        try:
            pts, damage = decode_bytes(data[:used], self.verify_data)
        except ReadError:
            return None
        frag = self.fragment()
        frag.damage.extend(damage)
        points_to_series(pts, frag)
        describe(frag, pts)
        return frag if frag.series else None
