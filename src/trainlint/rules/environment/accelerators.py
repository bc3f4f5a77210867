"""Environment rules, group accelerators: TL420-TL429: GPUs, drivers, CUDA builds."""

from __future__ import annotations

from typing import Any

from ...registry import Context, NotChecked, StandDown, Threshold, rule
from ...verdict import Finding
from .common import BASE, _part

E = dict(**BASE, group="accelerators")


def _gpu(ctx: Context) -> Any:
    return _part(ctx, "gpu", "accelerators were not probed")


def visible_devices(cvd: str | None, gpus: list[Any]) -> tuple[list[str], list[str], list[str]]:
    """(usable entries, invalid entries, entries dropped after the first invalid one).

    The CUDA runtime reads CUDA_VISIBLE_DEVICES left to right and stops at the first entry it
    cannot resolve; a duplicate also ends the list."""
    if cvd is None:
        return [str(g.index) for g in gpus], [], []
    entries = [e.strip() for e in cvd.split(",")] if cvd.strip() else []
    usable: list[str] = []
    for i, e in enumerate(entries):
        ok = _resolves(e, gpus) and e not in usable
        if not ok:
            return usable, [e], entries[i + 1 :]
        usable.append(e)
    return usable, [], []


def _resolves(entry: str, gpus: list[Any]) -> bool:
    if entry.lstrip("-").isdigit():
        return 0 <= int(entry) < len(gpus)
    if entry.startswith("GPU-"):
        return any(g.uuid.startswith(entry) for g in gpus if g.uuid)
    return entry.startswith("MIG-")  # MIG instances are not listed by the query; trust them


@rule(
    code="TL420",
    name="gpu-driver-missing",
    severity="FAIL",
    **E,
    summary="No working NVIDIA driver (nvidia-smi missing or failing).",
    explanation="""
Read-only: trainlint runs `nvidia-smi` and never initialises CUDA itself. FAIL with
--require-gpu when nvidia-smi is absent or fails; without --require-gpu a failing nvidia-smi
(for example "Driver/library version mismatch" after a driver update without a reboot) is a
WARN, and a machine without one is simply a CPU machine.""",
)
def gpu_driver_missing(ctx: Context) -> Finding | None:
    g = _gpu(ctx)
    need = ctx.subject.request.require_gpu
    if g.smi_path is None:
        if not need:
            raise StandDown("no nvidia-smi on PATH (a CPU machine); --require-gpu not given")
        return ctx.fire("nvidia-smi not found on PATH: no NVIDIA driver, and --require-gpu was given", require_gpu=True)
    if g.smi_error:
        return ctx.fire(
            f"nvidia-smi fails: {g.smi_error}", severity="FAIL" if need else "WARN", error=g.smi_error, require_gpu=need
        )
    return None


@rule(
    code="TL421",
    name="no-gpu-visible",
    severity="FAIL",
    **E,
    summary="The driver works but no GPU is visible to the run.",
    explanation="""
Counts the GPUs nvidia-smi lists and keeps those CUDA_VISIBLE_DEVICES lets through. FAIL with
--require-gpu when none remain; otherwise WARN when GPUs exist but CUDA_VISIBLE_DEVICES hides
all of them (an empty value or -1), since the run would silently train on the CPU.""",
)
def no_gpu_visible(ctx: Context) -> Finding | None:
    g = _gpu(ctx)
    if g.smi_path is None or g.smi_error:
        raise NotChecked("no working nvidia-smi (see TL420)")
    usable, _bad, _dropped = visible_devices(g.cuda_visible_devices, g.gpus)
    if usable:
        return None
    need = ctx.subject.request.require_gpu
    if not g.gpus:
        if need:
            return ctx.fire("nvidia-smi lists 0 GPUs and --require-gpu was given", gpus=0)
        raise StandDown("nvidia-smi lists no GPUs; --require-gpu not given")
    return ctx.fire(
        f"CUDA_VISIBLE_DEVICES={g.cuda_visible_devices!r} hides all {len(g.gpus)} GPUs",
        severity="FAIL" if need else "WARN",
        gpus=len(g.gpus),
        cuda_visible_devices=g.cuda_visible_devices,
    )


@rule(
    code="TL422",
    name="cuda-visible-devices-invalid",
    severity="WARN",
    **E,
    summary="CUDA_VISIBLE_DEVICES names a device that does not exist (or repeats one).",
    explanation="""
The CUDA runtime stops reading CUDA_VISIBLE_DEVICES at the first index or UUID it cannot
resolve, so every device after a bad entry is silently dropped, and fewer GPUs are used than
intended. Indices are checked against nvidia-smi's count, GPU-UUIDs against its list.""",
)
def cuda_visible_devices_invalid(ctx: Context) -> Finding | None:
    g = _gpu(ctx)
    if g.cuda_visible_devices is None:
        raise StandDown("CUDA_VISIBLE_DEVICES is not set")
    if g.smi_path is None or g.smi_error:
        raise NotChecked("no working nvidia-smi to compare CUDA_VISIBLE_DEVICES with")
    usable, bad, dropped = visible_devices(g.cuda_visible_devices, g.gpus)
    if not bad:
        return None
    lost = f"; also dropped after it: {', '.join(dropped)}" if dropped else ""
    return ctx.fire(
        f"CUDA_VISIBLE_DEVICES={g.cuda_visible_devices!r}: entry {bad[0]!r} does not match "
        f"any of the {len(g.gpus)} GPUs (or repeats one); {len(usable)} usable{lost}",
        cuda_visible_devices=g.cuda_visible_devices,
        invalid=bad[0],
        usable=usable,
        dropped=dropped,
        gpus=len(g.gpus),
    )


def _major_minor(text: str) -> tuple[int, int] | None:
    parts = text.split(".")
    try:
        return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        return None


@rule(
    code="TL423",
    name="torch-cuda-newer-than-driver",
    severity="FAIL",
    **E,
    summary="The installed torch was built for a newer CUDA than the driver supports.",
    explanation="""
The CUDA version torch was built with is read from the installed torch/version.py (torch is
not imported) and compared with the highest CUDA version the driver supports (the
"CUDA Version" nvidia-smi prints). A newer major version cannot run at all
(torch.cuda.is_available() is False); a newer minor version usually runs through CUDA's
minor-version compatibility but kernels that need JIT compilation may fail: WARN. Install a
torch build for the driver's CUDA, or update the driver.""",
)
def torch_cuda_newer_than_driver(ctx: Context) -> Finding | None:
    g = _gpu(ctx)
    if g.torch_version is None:
        raise NotChecked("torch is not installed")
    if g.torch_cuda is None:
        raise StandDown(f"torch {g.torch_version} is not a CUDA build (see TL424)")
    if not g.driver_cuda:
        raise NotChecked("the driver's CUDA version is unknown (no working nvidia-smi)")
    built, drv = _major_minor(g.torch_cuda), _major_minor(g.driver_cuda)
    if built is None or drv is None or built <= drv:
        return None
    ev = dict(
        torch=g.torch_version,
        torch_cuda=g.torch_cuda,
        driver_cuda=g.driver_cuda,
        driver=g.driver_version,
        source=g.torch_cuda_source,
    )
    if built[0] > drv[0]:
        return ctx.fire(
            f"torch {g.torch_version} is built for CUDA {g.torch_cuda} but the driver "
            f"{g.driver_version} supports CUDA {g.driver_cuda}: CUDA will not be usable",
            **ev,
        )
    return ctx.fire(
        f"torch {g.torch_version} is built for CUDA {g.torch_cuda}, newer than the driver's "
        f"CUDA {g.driver_cuda} (minor-version compatibility only)",
        severity="WARN",
        **ev,
    )


@rule(
    code="TL424",
    name="torch-cpu-build",
    severity="WARN",
    **E,
    summary="The installed torch is a CPU-only build on a machine with GPUs (or --require-gpu).",
    explanation="""
pip installs a CPU-only torch from some indexes; training then runs on the CPU while the GPUs
sit idle, often unnoticed for hours. Read from the installed torch/version.py, not by
importing torch. FAIL with --require-gpu, WARN when nvidia-smi lists GPUs.""",
)
def torch_cpu_build(ctx: Context) -> Finding | None:
    g = _gpu(ctx)
    if g.torch_version is None:
        raise NotChecked("torch is not installed")
    if g.torch_cuda or g.torch_hip:
        return None
    if g.torch_cuda_source is None:
        raise NotChecked(f"the CUDA build of torch {g.torch_version} could not be read")
    need = ctx.subject.request.require_gpu
    if not need and not g.gpus:
        return None
    return ctx.fire(
        f"torch {g.torch_version} is a CPU-only build"
        + (" and --require-gpu was given" if need else f" but {len(g.gpus)} GPU(s) are present"),
        severity="FAIL" if need else "WARN",
        torch=g.torch_version,
        gpus=len(g.gpus),
        source=g.torch_cuda_source,
    )


@rule(
    code="TL425",
    name="gpu-memory-in-use",
    severity="WARN",
    **E,
    summary="A GPU the run will use already has much of its memory taken.",
    explanation="""
Another process (a forgotten notebook, a previous run that did not exit, another user's job)
holds memory on a GPU this run can see, per nvidia-smi's memory.used. The run then goes out of
memory at a batch size that fits an empty GPU, or competes for compute. Fires when used /
total exceeds `max_used_fraction` on any visible GPU.""",
    thresholds=[Threshold("max_used_fraction", 0.1, "fraction of a GPU's memory already in use")],
)
def gpu_memory_in_use(ctx: Context) -> list[Finding]:
    g = _gpu(ctx)
    if g.smi_path is None or g.smi_error or not g.gpus:
        raise NotChecked("no GPUs listed by nvidia-smi")
    usable, _bad, _dropped = visible_devices(g.cuda_visible_devices, g.gpus)
    out = []
    for gpu in g.gpus:
        if not _is_visible(gpu, usable) or not gpu.memory_total_mib or gpu.memory_used_mib is None:
            continue
        frac = gpu.memory_used_mib / gpu.memory_total_mib
        if frac > ctx.t("max_used_fraction"):
            out.append(
                ctx.fire(
                    f"GPU {gpu.index} ({gpu.name}) already has {gpu.memory_used_mib:.0f} of "
                    f"{gpu.memory_total_mib:.0f} MiB in use ({frac:.0%} > "
                    f"{ctx.t('max_used_fraction'):.0%})",
                    value=frac,
                    threshold=ctx.t("max_used_fraction"),
                    gpu=gpu.index,
                    used_mib=gpu.memory_used_mib,
                    total_mib=gpu.memory_total_mib,
                )
            )
    return out


def _is_visible(gpu: Any, usable: list[str]) -> bool:
    return any(e == str(gpu.index) or (e.startswith("GPU-") and gpu.uuid.startswith(e)) for e in usable)


# --- versions -------------------------------------------------------------------------------
