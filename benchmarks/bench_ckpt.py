"""Checkpoint inspection speed, against torch.load + check, measured in the same run.

    python benchmarks/bench_ckpt.py            # ~400 MB checkpoint (fp32 + bf16)
    python benchmarks/bench_ckpt.py --quick    # ~24 MB
    python benchmarks/bench_ckpt.py --mb 800 --keep /tmp/ckpt_bench

Builds a torch.save checkpoint and a safetensors file of the same tensors in a
temporary folder (torch and safetensors are needed for the baseline only),
warms the page cache, then times:
  metadata     trainlint: zip structure + tensor table + security (no value read)
  value scan   trainlint: NaN/Inf/all-zero/min/max/mean of every tensor from the stored bytes
  CRC          trainlint: CRC-32 of every zip entry
  torch        torch.load(weights_only=True) + the same per-tensor checks in torch
Each timing is the best of --repeat runs.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from _timing import best_of  # noqa: E402


def build(folder: Path, megabytes: int) -> tuple[Path, Path]:
    import torch
    from safetensors.torch import save_file

    torch.manual_seed(0)
    per = max(1, megabytes // 16)  # 16 tensors: 12 fp32, 4 bf16 (half the bytes each)
    n = per * 1024 * 1024 // 4
    side = int(n**0.5)
    sd = {}
    for i in range(12):
        sd[f"layers.{i}.weight"] = torch.randn(side, side)
    for i in range(4):
        sd[f"layers.{i}.proj.weight"] = torch.randn(side, 2 * side).to(torch.bfloat16)
    pt, stf = folder / "bench.pt", folder / "bench.safetensors"
    torch.save(sd, pt)
    save_file(sd, stf)
    return pt, stf


def torch_load_and_check(path: Path) -> None:
    import torch

    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        sd = load_file(path)
    else:
        sd = torch.load(path, weights_only=True, mmap=False)
    for t in sd.values():
        f = t.float() if t.dtype == torch.bfloat16 else t
        bool(torch.isfinite(f).all())
        f.min().item(), f.max().item(), f.mean().item()


def run(path: Path, repeat: int) -> dict[str, float]:
    from trainlint.checkpoint import inspect_file
    from trainlint.inspectors.checkpoint_judge import judge

    size = path.stat().st_size
    path.read_bytes()  # warm the cache
    out = {"bytes": size}
    out["metadata_s"] = best_of(lambda: judge(inspect_file(path, values=False, crc=False)), repeat)
    out["scan_s"] = best_of(lambda: inspect_file(path, values=True, crc=False), repeat)
    if path.suffix == ".pt":
        out["crc_s"] = best_of(lambda: inspect_file(path, values=False, crc=True), repeat)
    out["torch_s"] = best_of(lambda: torch_load_and_check(path), repeat)
    if path.suffix == ".pt":  # a save killed at 60%: structure, salvage list and security
        cut = path.with_name("killed.pt")
        with open(path, "rb") as src, open(cut, "wb") as dst:
            dst.write(src.read(int(size * 0.6)))
        out["truncated_s"] = best_of(lambda: judge(inspect_file(cut, values=False, crc=False)), repeat)
        cut.unlink()
    return out


def report(name: str, r: dict[str, float]) -> None:
    gb = r["bytes"] / 1e9
    print(f"{name}: {r['bytes'] / 1e6:.0f} MB")
    print(f"  metadata (structure, tensor table, security): {r['metadata_s'] * 1000:8.1f} ms")
    print(
        f"  full value scan (trainlint, numpy):            {r['scan_s'] * 1000:8.1f} ms  {gb / r['scan_s']:6.2f} GB/s"
    )
    if "crc_s" in r:
        print(
            f"  CRC-32 of every entry (trainlint):             {r['crc_s'] * 1000:8.1f} ms  {gb / r['crc_s']:6.2f} GB/s"
        )
    if "truncated_s" in r:
        print(f"  metadata of the same save killed at 60%:       {r['truncated_s'] * 1000:8.1f} ms")
    print(
        f"  torch load + same checks:                      {r['torch_s'] * 1000:8.1f} ms  {gb / r['torch_s']:6.2f} GB/s"
    )
    print(
        f"  value scan is {r['torch_s'] / r['scan_s']:.1f}x faster than torch load+check; "
        f"metadata {r['torch_s'] / r['metadata_s']:.0f}x"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small (~24 MB) checkpoint")
    ap.add_argument("--mb", type=int, default=400, help="approximate size in MB (default 400)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", type=Path, help="build in this folder and keep the files")
    args = ap.parse_args()
    mb = 24 if args.quick else args.mb
    folder = args.keep or Path(tempfile.mkdtemp(prefix="trainlint-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        pt, stf = build(folder, mb)
        for name, path in (("torch.save zip", pt), ("safetensors", stf)):
            report(name, run(path, args.repeat))
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
