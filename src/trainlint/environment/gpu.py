"""Accelerator facts, by reading only: nvidia-smi's output and the installed torch's files.

Nothing here imports torch or initialises CUDA in trainlint's process.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from importlib import metadata

from .facts import Gpu, GpuFacts

QUERY = ["--query-gpu=index,name,uuid,memory.total,memory.used,driver_version", "--format=csv,noheader,nounits"]


def parse_query(text: str) -> tuple[list[Gpu], str | None]:
    gpus: list[Gpu] = []
    driver = None
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 6 or not parts[0].isdigit():
            continue
        gpus.append(Gpu(int(parts[0]), parts[1], parts[2], _num(parts[3]), _num(parts[4])))
        driver = parts[5] or driver
    return gpus, driver


def _num(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def parse_header_cuda(text: str) -> str | None:
    """The driver's supported CUDA version from plain ``nvidia-smi`` output ("CUDA Version: 12.4")."""
    m = re.search(r"CUDA Version:\s*([0-9]+\.[0-9]+)", text)
    return m.group(1) if m else None


def _smi(path: str, args: list[str]) -> tuple[int, str]:
    try:
        proc = subprocess.run([path, *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return -1, f"{type(exc).__name__}: {exc}"
    return proc.returncode, (proc.stdout if proc.returncode == 0 else (proc.stderr or proc.stdout))


def torch_build() -> tuple[str | None, str | None, str | None, str | None]:
    """(torch version, CUDA build, HIP build, where it was read); never imports torch.

    The last item is None when the build could not be read (then CUDA None means "unknown",
    not "CPU build")."""
    try:
        dist = metadata.distribution("torch")
    except metadata.PackageNotFoundError:
        return None, None, None, None
    version = dist.version
    path = _version_py(dist)
    if path is not None:
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            return version, _assigned(text, "cuda"), _assigned(text, "hip"), path
        except OSError:
            pass
    m = re.search(r"\+cu(\d+)(\d)$", version)
    if m:
        return version, f"{m.group(1)}.{m.group(2)}", None, "torch version tag"
    if version.endswith("+cpu"):
        return version, None, None, "torch version tag"
    return version, None, None, None


def _version_py(dist: metadata.Distribution) -> str | None:
    """torch/version.py of the installed distribution, found without importing torch."""
    for f in dist.files or []:
        if str(f).replace("\\", "/") == "torch/version.py":
            return str(dist.locate_file(f))
    try:
        import importlib.util

        spec = importlib.util.find_spec("torch")  # a top-level package: located, not executed
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    candidate = os.path.join(os.path.dirname(spec.origin), "version.py")
    return candidate if os.path.isfile(candidate) else None


def _assigned(text: str, name: str) -> str | None:
    m = re.search(rf"^{name}\s*(?::[^=]*)?=\s*['\"]([^'\"]+)['\"]", text, re.MULTILINE)
    return m.group(1) if m else None


def gpu_facts() -> GpuFacts:
    facts = GpuFacts(cuda_visible_devices=os.environ.get("CUDA_VISIBLE_DEVICES"))
    facts.torch_version, facts.torch_cuda, facts.torch_hip, facts.torch_cuda_source = torch_build()
    facts.smi_path = shutil.which("nvidia-smi")
    if facts.smi_path is None:
        return facts
    # nvidia-smi ignores CUDA_VISIBLE_DEVICES and lists every GPU, which is what we compare against
    rc, out = _smi(facts.smi_path, QUERY)
    if rc != 0:
        facts.smi_error = (out.strip().splitlines() or [f"exit status {rc}"])[-1][:300]
        return facts
    facts.gpus, facts.driver_version = parse_query(out)
    rc, out = _smi(facts.smi_path, [])
    if rc == 0:
        facts.driver_cuda = parse_header_cuda(out)
    return facts
