"""Benchmark: `watch`'s cost per record as the log grows.

A JSON-lines log grows by a batch of records between two polls; each poll reads the new bytes
through the reader's stream and feeds them to the guard (the whole ``watch`` loop, on a fake
clock so that nothing sleeps). The CPU time of the polls is reported per record at several
history sizes: it stays flat when a poll costs in proportion to what arrived. Idle polls (the log
did not grow) are timed too: they cost a stat, not a judgement.

    python benchmarks/bench_watch.py                 # up to 200,000 records, batches of 100
    python benchmarks/bench_watch.py --records 50000 --batch 20
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from trainlint.live.targets import Scanner  # noqa: E402
from trainlint.live.watch import Loop  # noqa: E402
from trainlint.options import Options  # noqa: E402
from trainlint.readers.stream import records  # noqa: E402


def _lines(start: int, n: int) -> str:
    return "".join(
        json.dumps({"step": i, "loss": 2.0 / (i + 1) + 0.5 + 0.01 * math.sin(i), "lr": 1e-4}) + "\n"
        for i in range(start, start + n)
    )


def measure(total: int, batch: int, marks: list[int]) -> list[tuple[int, float, float, float]]:
    """(history size, µs per record for the whole loop, µs per record for the stream alone,
    µs per idle poll) over the window of records that ends at each mark."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "metrics.jsonl"
        log.write_text("")
        options = Options()
        loop = Loop(Scanner([log], options), options, None, None, None)
        loop_cpu = 0.0
        window_start, n = 0, 0
        assert not loop.watched
        while n < total:
            with open(log, "a") as fh:
                fh.write(_lines(n, batch))
            n += batch
            t0 = time.process_time()
            loop.discover(float(n))  # as watch's loop does at each poll
            loop.poll(float(n))
            loop_cpu += time.process_time() - t0
            if n >= marks[0]:
                stream_us = _stream_only(log, window_start, n)
                t0 = time.process_time()
                for _ in range(100):
                    loop.discover(float(n))
                    loop.poll(float(n))
                idle_us = (time.process_time() - t0) / 100 * 1e6
                out.append((n, loop_cpu / (n - window_start) * 1e6, stream_us, idle_us))
                marks.pop(0)
                loop_cpu, window_start = 0.0, n
                if not marks:
                    break
    assert len(loop.watched) == 1
    return out


def _stream_only(log: Path, start: int, end: int) -> float:
    """µs per record for the stream alone: a poll of the records from ``start`` to ``end``."""
    from trainlint.readers import reader_named
    from trainlint.readers.stream import open_stream

    stream = open_stream(log, reader_named("jsonl"))
    stream.offset = sum(len(line) + 1 for line in _lines(0, start).split("\n")[:-1]) if start else 0
    t0 = time.process_time()
    frag = stream.poll()
    got = sum(1 for _ in records(frag)) if frag is not None else 0
    cpu = time.process_time() - t0
    return cpu / max(got, 1) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--batch", type=int, default=100, help="records appended between two polls")
    args = ap.parse_args()
    marks = sorted({m for m in (10_000, 50_000, 100_000, 200_000, 1_000_000) if m <= args.records} | {args.records})
    rows = measure(args.records, args.batch, [2_000, *marks])[1:]  # the first 2,000: start-up, not shown
    print(f"watch on a growing JSON-lines log, {args.batch} records per poll (CPU time)")
    print(f"{'history':>9}  {'loop µs/record':>15}  {'stream µs/record':>17}  {'idle poll µs':>13}")
    for n, loop_us, stream_us, idle_us in rows:
        print(f"{n:>9,}  {loop_us:>15.1f}  {stream_us:>17.1f}  {idle_us:>13.1f}")
    first, last = rows[0][1], rows[-1][1]
    print(f"growth of the loop's cost per record from {rows[0][0]:,} to {rows[-1][0]:,}: {last / first:.2f}x")


if __name__ == "__main__":
    main()
