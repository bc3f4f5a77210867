"""Benchmark: trainlint's event-file reader against the readers a user would otherwise use.

Generates an event file of N scalar events (default 1,000,000) in the layouts real
writers produce: torch/tensorboardX/Lightning ``simple_value`` scalars, torch
``new_style`` tensor scalars, TF2/Keras tensor scalars with a shape, mixed with
images and histograms. Then reads it, in the same run, with:

- trainlint (data CRC verified: the default; and length CRC only: ``verify_data=False``),
- tensorboard's EventAccumulator (scalars and tensors kept in full),
- tbparse and trainproof, when installed,

and prints events/s, the ratio of trainlint's rate to each, and trainlint's peak
memory as a multiple of the file size (measured in a child process).

    python benchmarks/bench_tfevents.py            # 1M scalars (several minutes: the other readers are slow)
    python benchmarks/bench_tfevents.py --quick    # 50k scalars
    python benchmarks/bench_tfevents.py --file bench-out/tfevents-tensorboardx-10tags-1000000/events.out.tfevents.*
                                                   # a file a real writer wrote (bench_doctor.py's tbx10 row)
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from trainlint.readers.tensorboard.records import masked_crc  # noqa: E402


def varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def ld(field: int, payload: bytes) -> bytes:
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def frame(data: bytes) -> bytes:
    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", masked_crc(head)) + data + struct.pack("<I", masked_crc(data))


SCALARS_META = ld(9, ld(1, ld(1, b"scalars")))


def _value_templates() -> list[tuple[bytes, bytes]]:
    """(bytes before the float32, bytes after it) of one Summary.Value per scalar layout."""
    simple = [(ld(1, t.encode()) + b"\x15", b"") for t in ("train/loss", "train/learning_rate", "train/grad_norm")]
    torch_new = (ld(1, b"Loss/val_step") + b"\x42\x08\x08\x01\x2a\x04", SCALARS_META)  # no shape
    tf2 = (ld(1, b"epoch_loss") + b"\x42\x0a\x08\x01\x12\x00\x2a\x04", SCALARS_META)  # shape []
    return simple + [torch_new, tf2]


def event_bytes(step: int, wall: float, value: bytes) -> bytes:
    return b"\x09" + struct.pack("<d", wall) + (b"\x10" + varint(step) if step else b"") + ld(5, value)


def generate(path: Path, n_scalars: int) -> dict[str, int]:
    """Write the benchmark file; returns how many points each tag has."""
    templates = _value_templates()
    counts: dict[str, int] = {}
    rng = __import__("random").Random(0)
    image = ld(1, b"samples") + ld(4, b"\x08\x20\x10\x20\x18\x03" + ld(4, rng.randbytes(3000)))
    histo = ld(1, b"weights") + ld(
        5,
        b"".join(b"\x09" + struct.pack("<d", float(i)) for i in range(5))
        + ld(6, struct.pack("<100d", *range(100)))
        + ld(7, struct.pack("<100d", *range(100))),
    )
    written, step, wall = 0, 0, 1.7e9
    with open(path, "wb") as fh:
        fh.write(frame(b"\x09" + struct.pack("<d", wall) + ld(3, b"brain.Event:2")))
        while written < n_scalars:
            for pre, post in templates[: min(len(templates), n_scalars - written)]:
                val = pre + struct.pack("<f", 1.0 / (step + 1)) + post
                fh.write(frame(event_bytes(step, wall, ld(1, val))))
                written += 1
            if step % 500 == 0:
                fh.write(frame(event_bytes(step, wall, ld(1, image))))
                fh.write(frame(event_bytes(step, wall, ld(1, histo))))
            step += 1
            wall += 0.25
    for pre, _ in templates:
        tag = pre[2 : 2 + pre[1]].decode()
        counts[tag] = 0
    return counts


def rate(fn, n: int, repeat: int = 1) -> tuple[float, float, object]:
    """(events per wall second, events per CPU second, result), best of ``repeat``.

    CPU time is what the ratios use: on a shared machine the wall clock also
    measures the other jobs, which come and go between one reader and the next.
    """
    best_wall, best_cpu, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        best_cpu = min(best_cpu, time.process_time() - c)
        best_wall = min(best_wall, time.perf_counter() - t)
    return n / best_wall, n / max(best_cpu, 1e-9), out


def read_trainlint(path: Path, verify_data: bool) -> int:
    from trainlint.readers.tensorboard.events import TFEventsReader

    r = TFEventsReader()
    r.verify_data = verify_data
    run = r.read(path)
    return sum(len(s) for s in run.series.values())


def read_ea(path: Path) -> int:
    from tensorboard.backend.event_processing import event_accumulator as ea

    acc = ea.EventAccumulator(
        str(path),
        size_guidance={ea.SCALARS: 0, ea.TENSORS: 0, ea.IMAGES: 0, ea.HISTOGRAMS: 0, ea.COMPRESSED_HISTOGRAMS: 0},
    )
    acc.Reload()
    tags = acc.Tags()
    n = sum(len(acc.Scalars(t)) for t in tags["scalars"])
    return n + sum(len(acc.Tensors(t)) for t in tags["tensors"])


def read_tbparse(path: Path) -> int:
    import tbparse

    reader = tbparse.SummaryReader(str(path), event_types={"scalars", "tensors"})
    return len(reader.scalars) + len(reader.tensors)


def read_trainproof(path: Path) -> int:
    from trainproof.tfevents import read_scalars

    return sum(len(v) for v in read_scalars(path).values())


def peak_memory(path: Path) -> dict[str, float]:
    """Peak memory allocated during one read (tracemalloc, which numpy reports to), in bytes.

    "cold": the first read in a process, which also builds the CRC tables (about 9 MB, once
    per process); "warm": a later read, as for every file after the first in a folder.
    """
    code = (
        "import sys, tracemalloc; sys.path.insert(0, %r);"
        "from trainlint.readers.tensorboard.events import TFEventsReader; from pathlib import Path;"
        "import trainlint.readers.tensorboard.records as tr;"
        "warm = %s; _ = (tr._tables(), tr._wide_tables(), tr._short_tables()) if warm else None;"
        "r = TFEventsReader(); r.verify_data = %s; tracemalloc.start(); run = r.read(Path(%r));"
        "print(tracemalloc.get_traced_memory()[1])"
    )
    out = {}
    for verify in (True, False):
        for warm in (False, True):
            proc = subprocess.run(
                [sys.executable, "-c", code % (str(ROOT / "src"), warm, verify, str(path))],
                capture_output=True,
                text=True,
            )
            name = f"{'data+length' if verify else 'length only'} CRC, {'warm' if warm else 'cold'}"
            out[name] = float(proc.stdout.strip() or "nan")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a 50k-scalar file instead of 1M")
    ap.add_argument("--scalars", type=int, default=None)
    ap.add_argument("--json", action="store_true", help="also print the results as JSON")
    ap.add_argument("--file", type=Path, help="read this event file instead of generating one")
    args = ap.parse_args()
    if args.file:
        n = read_trainlint(args.file, False)
        size = args.file.stat().st_size
        print(f"{args.file}: {n:,} scalars ({size / 1e6:.1f} MB); cpu count {os.cpu_count()}")
        report(run_all(args.file, n), size, peak_memory(args.file), args.json)
        return
    n = args.scalars or (50_000 if args.quick else 1_000_000)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "events.out.tfevents.1700000000.bench.1.0"
        t = time.perf_counter()
        generate(path, n)
        size = path.stat().st_size
        print(
            f"generated {n:,} scalar events ({size / 1e6:.1f} MB, with images and histograms) "
            f"in {time.perf_counter() - t:.1f}s; cpu count {os.cpu_count()}"
        )
        results = run_all(path, n)
        mem = peak_memory(path)
        report(results, size, mem, args.json)


OURS = ("trainlint (data+length CRC)", "trainlint (length CRC only)")
OTHERS = ("EventAccumulator", "tbparse", "trainproof")


def run_all(path: Path, n: int) -> dict[str, tuple[float, float] | None]:
    read_trainlint(path, False)  # warm the page cache and imports
    results: dict[str, tuple[float, float] | None] = {}
    for name, fn, repeat in (
        (OURS[0], lambda: read_trainlint(path, True), 3),
        (OURS[1], lambda: read_trainlint(path, False), 3),
        ("EventAccumulator", lambda: read_ea(path), 1),
        ("tbparse", lambda: read_tbparse(path), 1),
        ("trainproof", lambda: read_trainproof(path), 1),
    ):
        try:
            wall, cpu, count = rate(fn, n, repeat)
        except ImportError:
            results[name] = None
            print(f"{name:30s} not installed")
            continue
        results[name] = (wall, cpu)
        print(f"{name:30s} {cpu:12,.0f} events/CPU-s {wall:12,.0f} events/wall-s   ({count:,} points read)", flush=True)
    return results


def report(results: dict[str, tuple[float, float] | None], size: int, mem: dict[str, float], as_json: bool) -> None:
    print()
    for ours in OURS:
        mine = results[ours]
        for other in OTHERS:
            theirs = results.get(other)
            if theirs:
                print(
                    f"{ours} vs {other}: {mine[1] / theirs[1]:.1f}x (CPU time), {mine[0] / theirs[0]:.1f}x (wall clock)"
                )
    for what, peak in mem.items():
        print(f"peak memory allocated during one read ({what}): {peak / 1e6:.0f} MB = {peak / size:.2f}x the file size")
    if as_json:
        print(json.dumps({"rates_wall_cpu": results, "file_bytes": size, "peak_bytes": mem}))


if __name__ == "__main__":
    main()
