"""Why msgspec: JSON parsers on the two big-log workloads, parse only and parse-to-columns.

    python benchmarks/bench_json.py            # 200,000-entry trainer_state.json, 1,000,000-row JSONL
    python benchmarks/bench_json.py --quick    # a tenth of that

Per parser, the best CPU time of ``--repeat`` runs of: the stdlib ``json``, ``orjson`` (when
installed) and ``msgspec`` decoding to Python objects, and msgspec decoding straight into typed
records as trainlint's fast paths do (``readers/_fastjson.py``, columns included).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from bench_doctor import make_jsonl, make_trainer_state

from trainlint.readers import _fastjson
from trainlint.readers.hf_trainer_state import META_KEYS


def cpu(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def parsers(kind: str, path: Path) -> dict[str, Callable[[], object]]:
    data = path.read_bytes()
    out: dict[str, Callable[[], object]] = {}
    try:
        import orjson
    except ImportError:
        orjson = None
    import msgspec

    if kind == "hf":
        out["json.loads"] = lambda: json.loads(data)
        if orjson:
            out["orjson.loads"] = lambda: orjson.loads(data)
        out["msgspec.json.decode"] = lambda: msgspec.json.decode(data)
        out["msgspec typed -> columns"] = lambda: _fastjson.trainer_state_table(data, META_KEYS, ("train_runtime",))
    else:
        lines = data.splitlines()
        out["json.loads per line"] = lambda: [json.loads(x) for x in lines]
        if orjson:
            out["orjson.loads per line"] = lambda: [orjson.loads(x) for x in lines]
        out["msgspec decode_lines"] = lambda: msgspec.json.Decoder().decode_lines(data)
        out["msgspec typed -> columns"] = lambda: _fastjson.jsonl_table(path, ["step", "loss", "lr", "grad_norm"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    scale = 10 if args.quick else 1
    with tempfile.TemporaryDirectory() as tmp:
        hf, jl = Path(tmp) / "trainer_state.json", Path(tmp) / "metrics.jsonl"
        make_trainer_state(hf, 200_000 // scale)
        make_jsonl(jl, 1_000_000 // scale)
        for kind, path in (("hf", hf), ("jsonl", jl)):
            print(f"{path.name} ({path.stat().st_size / 1e6:.0f} MB)")
            for name, fn in parsers(kind, path).items():
                print(f"  {name:<28}{cpu(fn, args.repeat) * 1000:8.0f} ms CPU")


if __name__ == "__main__":
    main()
