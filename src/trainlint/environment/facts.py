"""Plain facts about the machine and the run, separate from probing and from judging.

Probes (``probe.py``, ``gpu.py``, ``versions.py``, ``entrypoint.py``, ``trainconfig.py``)
fill these in; the rules in ``trainlint.rules.environment`` judge them. Tests feed the
rules hand-made facts, so every field is a plain value and ``None`` means "not known".
"""

from __future__ import annotations

from typing import Any

import msgspec


class Request(msgspec.Struct):
    """What the user asked for on the command line (None = not given)."""

    memory_gb: float | None = None
    workers: int | None = None
    checkpoint_gb: float | None = None
    keep: int | None = None
    require_gpu: bool = False
    output_dir: str | None = None


class EntryResult(msgspec.Struct):
    """Outcome of importing the user's entrypoint in a child process."""

    target: str
    outcome: str  # ok | exception | signal | timeout | exit | error
    seconds: float = 0.0
    exc_type: str | None = None
    message: str | None = None
    file: str | None = None
    line: int | None = None
    user_file: str | None = None  # deepest frame inside the user's own entrypoint file
    user_line: int | None = None
    signal: str | None = None
    exit_code: Any = None
    timeout_s: float | None = None


class Resources(msgspec.Struct):
    mem_available: int | None = None  # bytes usable now (min of /proc/meminfo and cgroup room)
    mem_source: str | None = None
    disk_free: int | None = None  # bytes free at the output folder (or its nearest parent)
    disk_path: str | None = None
    shm_total: int | None = None  # bytes of /dev/shm
    shm_free: int | None = None
    nofile_soft: int | None = None
    nofile_hard: int | None = None
    writable: bool | None = None  # output folder writable (None = not tested)
    writable_how: str | None = None
    writable_error: str | None = None
    checkpoint_bytes: int | None = None  # measured from an existing checkpoint folder
    checkpoint_from: str | None = None
    checkpoints_present: int = 0
    checkpoints_bytes_total: int = 0


class Gpu(msgspec.Struct):
    index: int
    name: str
    uuid: str = ""
    memory_total_mib: float | None = None
    memory_used_mib: float | None = None


class GpuFacts(msgspec.Struct):
    smi_path: str | None = None  # None: nvidia-smi not on PATH
    smi_error: str | None = None  # nvidia-smi ran but failed
    driver_version: str | None = None
    driver_cuda: str | None = None  # highest CUDA version the driver supports ("12.4")
    gpus: list[Gpu] = msgspec.field(default_factory=list)
    cuda_visible_devices: str | None = None  # None = unset
    torch_version: str | None = None  # None = torch not installed
    torch_cuda: str | None = None  # CUDA version torch was built with; None = CPU build
    torch_hip: str | None = None
    torch_cuda_source: str | None = None


class VersionFacts(msgspec.Struct):
    installed: dict[str, str] = msgspec.field(default_factory=dict)  # package -> version
    requires: dict[str, list[str]] = msgspec.field(default_factory=dict)  # package -> Requires-Dist lines


class Subject(msgspec.Struct):
    """Everything the environment rules may judge; each rule needs only its own part."""

    request: Request = msgspec.field(default_factory=Request)
    entry: EntryResult | None = None
    resources: Resources | None = None
    gpu: GpuFacts | None = None
    versions: VersionFacts | None = None
    known_bad: list[dict[str, Any]] | None = None
    config: Any = None  # trainconfig.TrainConfig
    log_files: list[str] | None = None  # log files found beside the config (None = not looked)
