"""Bulk protobuf decoding with numpy: the fields of many messages walked in lock-step.

Each message is a lane (start, end). One step reads every active lane's next
field key (one byte: all field numbers used here are below 16) and, by key,
its varint, fixed-width value or length-delimited span. A lane whose key is
not in the spec, whose varint is malformed or whose span overruns is marked
bad; callers send bad lanes to the exact one-message-at-a-time decoder in
``_tfproto``. Nothing is allocated from a length read from the data.
"""

from __future__ import annotations

import numpy as np

LEN, VARINT, F32, F64 = "len", "varint", "f32", "f64"
_WIDTH = {F32: 4, F64: 8}


def varints(u8: np.ndarray, pos: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Varints at ``pos`` (each must end before ``end``): (value as uint64, next position, ok)."""
    n = pos.shape[0]
    val = np.zeros(n, dtype=np.uint64)
    nxt = pos.copy()
    ok = np.zeros(n, dtype=bool)
    act = np.arange(n)
    p = pos.copy()
    for shift in range(0, 70, 7):
        inb = p < end[act]
        act, p = act[inb], p[inb]
        if act.size == 0:
            break
        b = u8[p]
        val[act] |= (b & 0x7F).astype(np.uint64) << np.uint64(shift)
        stop = b < 0x80
        done = act[stop]
        ok[done] = True
        nxt[done] = p[stop] + 1
        act, p = act[~stop], p[~stop] + 1
    return val, nxt, ok


def concat(parts: list[np.ndarray], dtype: type = np.int64) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


class Mem:
    """The file's bytes, zero-padded, with views that load a number at any byte offset.

    ``u64[p]`` is the little-endian uint64 at byte offset ``p`` (a stride-1 view,
    so one gather loads many unaligned values). Offsets up to ``size + 8`` are
    safe to load; bytes past the end read as zero.
    """

    PAD = 24

    def __init__(self, buf: bytes) -> None:
        self.size = len(buf)
        words = np.zeros((len(buf) + self.PAD) // 8 + 1, dtype="<u8")
        self.u8 = words.view(np.uint8)
        self.u8[: len(buf)] = np.frombuffer(buf, dtype=np.uint8)
        n = self.u8.shape[0] - 8
        self.top = n - 1  # highest offset any view may load
        self.u64, self.f64, self.f32, self.u32, self.u16 = (
            np.ndarray((n,), dtype=dt, buffer=words, strides=(1,)) for dt in ("<u8", "<f8", "<f4", "<u4", "<u2")
        )


class Fields:
    """Where each wanted field of each lane is: ``a[key]``/``z[key]`` (-1 when absent).

    For LEN keys a..z is the payload span; for F32/F64 keys ``a`` is the value's
    position; for VARINT keys ``a`` is the value (int64 view of the uint64).
    """

    def __init__(self, n: int, spec: dict[int, str]) -> None:
        self.a = {k: np.full(n, -1, dtype=np.int64) for k in spec}
        self.z = {k: np.full(n, -1, dtype=np.int64) for k in spec}
        self.bad = np.zeros(n, dtype=bool)

    def has(self, key: int) -> np.ndarray:
        return self.z[key] >= 0


def walk(u8: np.ndarray, start: np.ndarray, end: np.ndarray, spec: dict[int, str], max_fields: int = 12) -> Fields:
    """Walk the fields of every lane; the last occurrence of a field wins (as in protobuf)."""
    n = start.shape[0]
    out = Fields(n, spec)
    act = np.flatnonzero(start < end)
    cur = start.copy()
    for _ in range(max_fields):
        if act.size == 0:
            break
        c, e = cur[act], end[act]
        keys = u8[c]
        newc = np.full(act.size, -1, dtype=np.int64)
        present = np.flatnonzero(np.bincount(keys, minlength=256))
        for key in present.tolist():
            kind = spec.get(key)
            if kind is None:
                continue
            m = np.flatnonzero(keys == key)
            lanes, cc, ee = act[m], c[m] + 1, e[m]
            a, z, ok = _field(u8, cc, ee, kind)
            out.a[key][lanes[ok]] = a[ok]
            out.z[key][lanes[ok]] = z[ok]
            newc[m[ok]] = z[ok]
        out.bad[act[newc < 0]] = True
        cur[act] = newc
        act = act[(newc >= 0) & (newc < e)]
    out.bad[act] = True  # more fields than any layout we decode in bulk
    return out


def _field(u8: np.ndarray, cc: np.ndarray, ee: np.ndarray, kind: str) -> tuple[np.ndarray, ...]:
    if kind == LEN:
        ln, nx, ok = varints(u8, cc, ee)
        room = np.maximum(ee - nx, 0).astype(np.uint64)
        ok &= ln <= room
        ln = np.where(ok, ln, 0).astype(np.int64)
        return nx, nx + ln, ok
    if kind == VARINT:
        v, nx, ok = varints(u8, cc, ee)
        # the position after the varint goes in z; the value (reinterpreted) in a
        return v.view(np.int64), nx, ok
    w = _WIDTH[kind]
    ok = cc + w <= ee
    return cc, cc + w, ok


# ---- the message layouts decoded in bulk -------------------------------------------------
EVENT_SPEC = {0x09: F64, 0x10: VARINT, 0x2A: LEN}  # wall_time, step, summary
SUMMARY_VALUE_KEY = 0x0A
VALUE_SPEC = {
    0x0A: LEN,
    0x15: F32,
    0x42: LEN,
    0x4A: LEN,  # tag, simple_value, tensor, metadata
    0x1A: LEN,
    0x22: LEN,
    0x2A: LEN,
    0x32: LEN,
}  # old histo, image, histo, audio
TENSOR_SPEC = {
    0x08: VARINT,
    0x12: LEN,
    0x18: VARINT,
    0x22: LEN,  # dtype, shape, version, content
    0x2A: LEN,
    0x2D: F32,
    0x32: LEN,
    0x31: F64,
}  # float_val, double_val


def summary_values(u8: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, ...]:
    """Split Summary messages into their Value spans: (owner lane, ordinal, start, end, bad lanes)."""
    owners, ords, vs, ve = [], [], [], []
    bad = np.zeros(start.shape[0], dtype=bool)
    act = np.flatnonzero(start < end)
    cur = start.copy()
    ordinal = 0
    while act.size:
        c, e = cur[act], end[act]
        a, z, ok = _field(u8, c + 1, e, LEN)
        ok &= u8[c] == SUMMARY_VALUE_KEY
        bad[act[~ok]] = True
        owners.append(act[ok])
        ords.append(np.full(int(ok.sum()), ordinal, dtype=np.int64))
        vs.append(a[ok])
        ve.append(z[ok])
        cur[act[ok]] = z[ok]
        act = act[ok][z[ok] < e[ok]]
        ordinal += 1
    return concat(owners), concat(ords), concat(vs), concat(ve), bad


# (byte prefix, its length, value width) of one-element tensors as the writers lay them out:
# dtype, [empty shape], then float_val / double_val packed or tensor_content
_TENSOR_TEMPLATES = [
    (bytes(p), len(p), w)
    for p, w in (
        ([0x08, 0x01, 0x2A, 0x04], 4),
        ([0x08, 0x01, 0x12, 0x00, 0x2A, 0x04], 4),
        ([0x08, 0x01, 0x22, 0x04], 4),
        ([0x08, 0x01, 0x12, 0x00, 0x22, 0x04], 4),
        ([0x08, 0x02, 0x32, 0x08], 8),
        ([0x08, 0x02, 0x12, 0x00, 0x32, 0x08], 8),
        ([0x08, 0x02, 0x22, 0x08], 8),
        ([0x08, 0x02, 0x12, 0x00, 0x22, 0x08], 8),
    )
]


def tensor_scalars(mem: Mem, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values of shape-[] float32/float64 TensorProtos; (values, ok). Lanes not ok need the exact path."""
    n = start.shape[0]
    val = np.zeros(n, dtype=np.float64)
    done = np.zeros(n, dtype=bool)
    w = mem.u64[start]
    size = end - start
    for prefix, k, width in _TENSOR_TEMPLATES:
        mask = np.uint64((1 << (8 * k)) - 1)
        hit = np.flatnonzero((size == k + width) & ((w & mask) == np.uint64(int.from_bytes(prefix, "little"))))
        if hit.size:
            val[hit] = (mem.f32 if width == 4 else mem.f64)[start[hit] + k]
            done[hit] = True
    rest = np.flatnonzero(~done)
    if rest.size:
        v2, ok2 = _tensor_scalars_walk(mem, start[rest], end[rest])
        val[rest], done[rest] = np.where(ok2, v2, 0.0), ok2
    return val, done


def _tensor_scalars_walk(mem: Mem, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    f = walk(mem.u8, start, end, TENSOR_SPEC)
    n = start.shape[0]
    val = np.zeros(n, dtype=np.float64)
    done = np.zeros(n, dtype=bool)
    dtype = f.a[0x08]
    scalar_shape = ~f.has(0x12) | (f.z[0x12] == f.a[0x12])
    base = ~f.bad & f.has(0x08) & scalar_shape
    clen = np.where(f.has(0x22), f.z[0x22] - f.a[0x22], 0)
    for view, code, packed, single, w in ((mem.f32, 1, 0x2A, 0x2D, 4), (mem.f64, 2, 0x32, 0x31, 8)):
        other = 0x32 if code == 1 else 0x2A  # the other dtype's field must be absent
        mine = base & (dtype == code) & ~f.has(other)
        from_content = mine & (clen == w)
        from_packed = mine & (clen == 0) & f.has(packed) & (f.z[packed] - f.a[packed] == w) & ~f.has(single)
        from_single = mine & (clen == 0) & ~f.has(packed) & f.has(single)
        for sel, pos in ((from_content, f.a[0x22]), (from_packed, f.a[packed]), (from_single, f.a[single])):
            idx = np.flatnonzero(sel)
            if idx.size:
                val[idx] = view[pos[idx]]
                done[idx] = True
    return val, done


# ---- the two layouts nearly every writer uses, matched without walking -------------------
_CONT = np.uint64(0x8080808080808080)
_GROUPS = [(np.uint64(k), np.uint64(0x7F << (7 * k))) for k in range(8)]


def varints8(mem: Mem, pos: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Like :func:`varints`, branch-free for varints of up to 8 bytes (longer ones: the loop)."""
    v = mem.u64[np.minimum(pos, mem.top)]
    stops = ~v & _CONT
    lsb = stops & (~stops + np.uint64(1))
    nbytes = (np.log2(np.maximum(lsb, 1).astype(np.float64)).astype(np.int64) + 1) >> 3
    x = v & ((lsb << np.uint64(1)) - np.uint64(1))
    val = x & _GROUPS[0][1]
    for k in range(1, int(nbytes.max(initial=1))):
        sh, mask = _GROUPS[k]
        val |= (x >> sh) & mask
    nxt = pos + nbytes
    ok = (stops != 0) & (nxt <= end)
    long = np.flatnonzero(stops == 0)
    if long.size:
        lv, ln, lok = varints(mem.u8, pos[long], end[long])
        val[long], nxt[long], ok[long] = lv, ln, lok
    return val, nxt, ok


def event_header(mem: Mem, s: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, ...]:
    """Event starting ``wall_time, [step]``: (ok, wall, step, position after the step field)."""
    u8 = mem.u8
    ok = (e - s >= 10) & (u8[s] == 0x09)
    wall = np.where(ok, mem.f64[s + 1], 0.0)
    has = ok & (u8[s + 9] == 0x10)
    v, nx, vok = varints8(mem, s + 10, e)
    step = np.where(has, v.view(np.int64), 0)
    after = np.where(has, nx, s + 9)
    ok &= vok | ~has
    return ok, wall, step, after


_U8 = np.uint64(8)
_LOW5 = np.uint64(0xFFFFFFFFFF)
_SUMMARY_HEAD = np.uint64(0x2A | 0x0A << 16 | 0x0A << 32)


def quick_values(mem: Mem, r: np.ndarray, e: np.ndarray) -> dict[str, np.ndarray]:
    """Summaries holding one Value ``tag, simple_value`` or ``tag, tensor[, metadata]``, with
    one-byte lengths: the layout of torch, tensorboardX, Lightning, Keras/TF2 and TF1 scalars.

    Returns per lane: kind (-1 no match, 0 simple, 1 tensor), tag span, simple value,
    tensor span and metadata span (-1 when absent).
    """
    w = mem.u64[r]  # zero-padded: the 8 bytes at r are always loadable (r <= file size)
    rl = e - r
    lens = ((rl - 2).astype(np.uint64) << _U8) | ((rl - 4).astype(np.uint64) << np.uint64(24))
    ok = (rl >= 8) & (rl - 2 < 128) & ((w & _LOW5) == (_SUMMARY_HEAD | lens))
    tl = ((w >> np.uint64(40)) & np.uint64(0xFF)).astype(np.int64)
    ok &= tl < 0x80
    ts = r + 6
    te = np.minimum(ts + tl, mem.size)
    pair = mem.u64[te]
    key = (pair & np.uint64(0xFF)).astype(np.int64)
    lt = ((pair >> _U8) & np.uint64(0xFF)).astype(np.int64)
    kind = np.full(r.shape[0], -1, dtype=np.int8)
    simple = ok & (key == 0x15) & (te + 5 == e)
    kind[simple] = 0
    tens_s = te + 2
    tens_e = tens_s + lt
    tens = ok & (key == 0x42) & (lt < 0x80) & (tens_e <= e)
    tail = mem.u64[np.minimum(tens_e, mem.size)]
    lm = ((tail >> _U8) & np.uint64(0xFF)).astype(np.int64)
    no_meta = tens & (tens_e == e)
    with_meta = tens & (tens_e < e) & ((tail & np.uint64(0xFF)) == 0x4A) & (lm < 0x80) & (tens_e + 2 + lm == e)
    kind[no_meta | with_meta] = 1
    value = np.where(simple, mem.f32[te + 1], np.float32(0)).astype(np.float64)
    neg = np.int64(-1)
    is_t = kind == 1
    return {
        "kind": kind,
        "tag_a": ts,
        "tag_z": te,
        "value": value,
        "ts": np.where(is_t, tens_s, neg),
        "te": np.where(is_t, tens_e, neg),
        "ms": np.where(with_meta, tens_e + 2, neg),
        "me": np.where(with_meta, e, neg),
    }


_MIX = np.array(
    [
        0x9E3779B97F4A7C15,
        0xC2B2AE3D27D4EB4F,
        0x165667B19E3779F9,
        0xD6E8FEB86659FD93,
        0xFF51AFD7ED558CCD,
        0xC4CEB9FE1A85EC53,
        0x27D4EB2F165667C5,
        0x94D049BB133111EB,
    ],
    dtype=np.uint64,
)
_SLOTS = 1 << 16
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


def group_spans(mem: Mem, a: np.ndarray, z: np.ndarray, max_width: int = 64, rounds: int = 8) -> np.ndarray:
    """Group byte strings [a, z) by exact content without sorting.

    Returns the representative lane of each lane: the first lane holding the same bytes
    (-1 where not grouped here). Each string is covered by 8-byte words loaded from its start
    (word k at ``min(a + 8k, z - 8)``, so a string of 8 bytes or more needs no mask; each word
    of a shorter one is masked to its length). Strings are hashed into a slot table, then every lane is
    compared word for word with its slot's representative, so a hash collision costs a round,
    never a wrong group. Lanes longer than ``max_width`` are left to the caller.
    """
    n = a.shape[0]
    rep = np.full(n, -1, dtype=np.int64)
    length = z - a
    fits = length <= max_width
    todo = None if fits.all() else np.flatnonzero(fits)  # None: every lane
    start, ln = (a, length) if todo is None else (a[todo], length[todo])
    if ln.size == 0:
        return rep
    last = np.maximum(ln - 8, 0)
    low = np.minimum(ln, 8).astype(np.uint64) << np.uint64(3)  # bits of the first word that count
    mask = np.where(ln >= 8, _ONES, (np.uint64(1) << np.minimum(low, np.uint64(63))) - np.uint64(1))
    cols = []
    h = ln.astype(np.uint64) * _MIX[7]
    for k in range(max(1, -(-int(ln.max()) // 8))):
        w = mem.u64[start + np.minimum(8 * k, last)] & mask  # a short string: every word is its first
        cols.append(w)
        h += w * _MIX[k % 7]
    h ^= h >> np.uint64(29)
    h *= _MIX[4]
    slot_of = ((h >> np.uint64(48)) & np.uint64(_SLOTS - 1)).astype(np.int64)  # _SLOTS: a power of 2
    local = np.arange(ln.size)
    for r in range(rounds):
        if local.size == 0:
            break
        slots = slot_of if r == 0 else slot_of[local]
        table = np.empty(_SLOTS, dtype=np.int64)
        table[slots[::-1]] = local[::-1]  # the first lane of each slot wins
        cand = table[slots]
        same = ln[cand] == (ln if r == 0 else ln[local])
        for w in cols:
            same &= w[cand] == (w if r == 0 else w[local])
        hit = local[same]
        if todo is None:
            rep[hit] = cand[same]
        else:
            rep[todo[hit]] = todo[cand[same]]
        local = local[~same]
    return rep
