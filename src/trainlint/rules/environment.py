"""Environment and training-configuration rules (TL400-TL449), judging plain facts.

Groups by code: TL400-409 entrypoint import, TL410-419 resources, TL420-429
accelerators, TL430-434 package versions, TL435-449 training configuration. The subject
is :class:`trainlint.envcheck.facts.Subject`; each rule raises NotChecked when the part
it judges was not gathered.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from ..envcheck.facts import GIB, MIB
from ..registry import NotChecked, StandDown, Threshold, rule

E = dict(category="environment", target="environment")


def _part(ctx: Any, name: str, why: str) -> Any:
    value = getattr(ctx.subject, name, None)
    if value is None:
        raise NotChecked(why)
    return value


def gib(n: float | None) -> str:
    """A byte count for people: GiB with two decimals, smaller amounts in MiB or KiB."""
    if n is None:
        return "?"
    if abs(n) >= GIB:
        return f"{n / GIB:.2f} GiB"
    return f"{n / MIB:.1f} MiB" if abs(n) >= MIB else f"{n / 1024:.1f} KiB"


def mib(n: float | None) -> str:
    return "?" if n is None else f"{n / MIB:.0f} MiB"


def _where(file: str | None, line: int | None) -> str:
    return f"{file}:{line}" if file else "an unknown place"


def _entry(ctx: Any, outcome: str) -> Any:
    e = _part(ctx, "entry", "no --entrypoint given")
    return e if e.outcome == outcome else None


# --- entrypoint -----------------------------------------------------------------------------

@rule(code="TL400", name="entrypoint-import-error", severity="FAIL", **E,
      summary="Importing the training entrypoint raises an exception.",
      explanation="""
trainlint imported your training module or script in a separate Python process (code under
`if __name__ == "__main__":` does not run) and the import raised. The same error will stop the
real run before the first step. The message names the raising file and line, and the line in
your own code that led there. Usual causes: a missing or mismatched package, a typo, a path
that only exists on another machine.""")
def entrypoint_import_error(ctx):
    e = _entry(ctx, "exception")
    if e is None:
        return None
    via = ""
    if e.user_file and (e.user_file, e.user_line) != (e.file, e.line):
        via = f" (reached from {_where(e.user_file, e.user_line)})"
    return ctx.fire(f"importing {e.target} raised {e.exc_type}: {e.message} at "
                    f"{_where(e.file, e.line)}{via}", exc_type=e.exc_type, error=e.message,
                    file=e.file, line=e.line, user_file=e.user_file, user_line=e.user_line,
                    seconds=e.seconds)


@rule(code="TL401", name="entrypoint-crashes", severity="FAIL", **E,
      summary="Importing the training entrypoint kills the Python process with a signal.",
      explanation="""
The import crashed the interpreter itself (a segmentation fault, an abort, an illegal
instruction): typically a compiled extension built for another CUDA, CPU or Python version.
The crash happened in a child process, so trainlint survived to report it; the file and line
come from Python's fault handler. Reinstall the named extension for this machine.""")
def entrypoint_crashes(ctx):
    e = _entry(ctx, "signal")
    if e is None:
        return None
    via = f", from your {_where(e.user_file, e.user_line)}" if e.user_file and e.user_file != e.file else ""
    return ctx.fire(f"importing {e.target} killed Python with {e.signal} at {_where(e.file, e.line)}{via}",
                    signal=e.signal, file=e.file, line=e.line, user_file=e.user_file,
                    user_line=e.user_line, seconds=e.seconds)


@rule(code="TL402", name="entrypoint-import-timeout", severity="WARN", **E,
      summary="Importing the training entrypoint did not finish within the timeout.",
      explanation="""
The import was still running when the timeout passed. Either the module starts work at import
time (training, downloads, waiting for other ranks) instead of under
`if __name__ == "__main__":`, or something hangs (a network mount, a lock). The location
shown is where it was when stopped. Raise --timeout if the import is merely slow.""")
def entrypoint_import_timeout(ctx):
    e = _entry(ctx, "timeout")
    if e is None:
        return None
    return ctx.fire(f"importing {e.target} did not finish within {e.timeout_s:g} s; it was at "
                    f"{_where(e.user_file or e.file, e.user_line or e.line)} when stopped",
                    timeout_s=e.timeout_s, threshold=e.timeout_s, file=e.file, line=e.line,
                    user_file=e.user_file, user_line=e.user_line)


@rule(code="TL403", name="entrypoint-exits-at-import", severity="WARN", **E,
      summary="The training entrypoint calls sys.exit (or argparse exits) while being imported.",
      explanation="""
The module ended the process while it was being imported: a `sys.exit()`, or argparse parsing
the command line at module level and exiting on missing arguments. Nothing after that line
was checked. Move start-up work under `if __name__ == "__main__":` or into a main() function.""")
def entrypoint_exits_at_import(ctx):
    e = _entry(ctx, "exit")
    if e is None:
        return None
    return ctx.fire(f"importing {e.target} exited with code {e.exit_code!r} at "
                    f"{_where(e.user_file or e.file, e.user_line or e.line)}; the rest of it was not checked",
                    exit_code=e.exit_code, file=e.file, line=e.line, detail=e.message)


# --- resources ------------------------------------------------------------------------------

def _res(ctx: Any) -> Any:
    return _part(ctx, "resources", "resources were not probed")


@rule(code="TL410", name="memory-below-required", severity="FAIL", **E,
      summary="Available memory is below the amount the run needs (--memory).",
      explanation="""
Compares the memory available now (MemAvailable from /proc/meminfo, or the room left under a
container's cgroup limit when that is smaller) with the amount you said the run needs. A run
that does not fit is killed by the kernel's out-of-memory killer, usually without a Python
traceback. Free memory, lower the batch size or the number of DataLoader workers, or use a
larger machine.""")
def memory_below_required(ctx):
    need_gb = ctx.subject.request.memory_gb
    if need_gb is None:
        raise NotChecked("no --memory given")
    res = _res(ctx)
    if res.mem_available is None:
        raise NotChecked("available memory could not be read")
    need = need_gb * GIB
    if res.mem_available >= need:
        return None
    return ctx.fire(f"{gib(res.mem_available)} available ({res.mem_source}) < {gib(need)} required",
                    value=res.mem_available, threshold=need, source=res.mem_source)


def _checkpoint_size(ctx: Any, res: Any) -> tuple[float | None, str]:
    if ctx.subject.request.checkpoint_gb is not None:
        return ctx.subject.request.checkpoint_gb * GIB, "--checkpoint-size"
    if res.checkpoint_bytes:
        return float(res.checkpoint_bytes), f"measured from {res.checkpoint_from}"
    return None, ""


@rule(code="TL411", name="disk-below-checkpoints", severity="FAIL", **E,
      summary="Free disk at the output folder is below checkpoint size x checkpoints kept.",
      explanation="""
Free space on the file system holding the output folder is compared with the checkpoint size
(--checkpoint-size, or measured from an existing checkpoint folder) times the number kept
(--keep). A full disk stops training at a save, often leaving a truncated checkpoint behind.
WARN when there is less than the `headroom` factor of spare room.""",
      thresholds=[Threshold("headroom", 1.2, "WARN when free space < needed x headroom")])
def disk_below_checkpoints(ctx):
    res = _res(ctx)
    keep = ctx.subject.request.keep
    size, how = _checkpoint_size(ctx, res)
    if keep is None or size is None:
        raise NotChecked("needs --keep N and a checkpoint size (--checkpoint-size GB or an existing checkpoint)")
    if res.disk_free is None:
        raise NotChecked("free disk space could not be read")
    need = size * keep
    ev = dict(value=res.disk_free, threshold=need, checkpoint_bytes=size, keep=keep, size_from=how,
              path=res.disk_path)
    if res.disk_free < need:
        return ctx.fire(f"{gib(res.disk_free)} free at {res.disk_path} < {keep} x {gib(size)} "
                        f"= {gib(need)} needed for the kept checkpoints", **ev)
    if res.disk_free < need * ctx.t("headroom"):
        return ctx.fire(f"{gib(res.disk_free)} free at {res.disk_path} is within {ctx.t('headroom'):g}x of "
                        f"the {gib(need)} the kept checkpoints need", severity="WARN", **ev)
    return None


def _workers(ctx: Any) -> int | None:
    w = ctx.subject.request.workers
    cfg = ctx.subject.config
    if w is None and cfg is not None and isinstance(cfg.get("workers"), int):
        w = cfg.get("workers")
    return w


@rule(code="TL412", name="shm-small-for-workers", severity="WARN", **E,
      summary="/dev/shm is small for the number of DataLoader worker processes.",
      explanation="""
DataLoader workers hand batches to the main process through shared memory (/dev/shm).
Containers often mount only 64 MiB there, and a run with workers then dies with "bus error"
or "DataLoader worker killed". Fires when /dev/shm is smaller than workers x `per_worker_mib`.
Raise it (docker run --shm-size=8g, or a memory-backed emptyDir in Kubernetes), or use fewer
workers.""",
      thresholds=[Threshold("per_worker_mib", 256, "shared memory wanted per DataLoader worker, MiB")])
def shm_small_for_workers(ctx):
    workers = _workers(ctx)
    if workers is None:
        raise NotChecked("number of DataLoader workers unknown (--workers N)")
    if workers <= 0:
        raise StandDown("no DataLoader worker processes (workers = 0): /dev/shm is not used for batches")
    res = _res(ctx)
    if res.shm_total is None:
        raise NotChecked("/dev/shm could not be read")
    want = workers * ctx.t("per_worker_mib") * MIB
    if res.shm_total >= want:
        return None
    return ctx.fire(f"/dev/shm is {mib(res.shm_total)} for {workers} DataLoader workers "
                    f"(< {workers} x {ctx.t('per_worker_mib'):g} MiB = {mib(want)})",
                    value=res.shm_total, threshold=want, workers=workers, shm_free=res.shm_free)


@rule(code="TL413", name="open-file-limit-low", severity="WARN", **E,
      summary="The open-file limit (ulimit -n) is low for a training run.",
      explanation="""
Datasets of many small files, DataLoader workers passing tensors as file descriptors, and
checkpoint writers all hold files open; a low soft limit ends in "Too many open files".
Raise it with `ulimit -n` (up to the hard limit shown) before starting.""",
      thresholds=[Threshold("min_open_files", 1024, "smallest acceptable soft limit")])
def open_file_limit_low(ctx):
    res = _res(ctx)
    soft = res.nofile_soft
    if soft is None:
        raise NotChecked("open-file limit could not be read")
    if soft < 0 or soft >= ctx.t("min_open_files"):
        return None
    hard = "unlimited" if res.nofile_hard is None or res.nofile_hard < 0 else res.nofile_hard
    return ctx.fire(f"open-file soft limit is {soft} (< {ctx.t('min_open_files'):g}); hard limit {hard}",
                    value=soft, threshold=ctx.t("min_open_files"), hard=hard)


@rule(code="TL414", name="output-dir-not-writable", severity="FAIL", **E,
      summary="The output folder cannot be written.",
      explanation="""
trainlint created and removed one temporary file in the output folder you named (or, when the
folder does not exist yet, asked the system whether its nearest existing parent is writable).
If that fails, the first checkpoint or log write of the real run fails too, often hours in.""")
def output_dir_not_writable(ctx):
    res = _res(ctx)
    if res.writable is None:
        raise NotChecked("no --output-dir given")
    if res.writable:
        return None
    return ctx.fire(f"output folder {ctx.subject.request.output_dir} is not writable: {res.writable_error}",
                    path=ctx.subject.request.output_dir, how=res.writable_how, error=res.writable_error)


# --- accelerators ---------------------------------------------------------------------------

def _gpu(ctx: Any) -> Any:
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
            return usable, [e], entries[i + 1:]
        usable.append(e)
    return usable, [], []


def _resolves(entry: str, gpus: list[Any]) -> bool:
    if entry.lstrip("-").isdigit():
        return 0 <= int(entry) < len(gpus)
    if entry.startswith("GPU-"):
        return any(g.uuid.startswith(entry) for g in gpus if g.uuid)
    return entry.startswith("MIG-")  # MIG instances are not listed by the query; trust them


@rule(code="TL420", name="gpu-driver-missing", severity="FAIL", **E,
      summary="No working NVIDIA driver (nvidia-smi missing or failing).",
      explanation="""
Read-only: trainlint runs `nvidia-smi` and never initialises CUDA itself. FAIL with
--require-gpu when nvidia-smi is absent or fails; without --require-gpu a failing nvidia-smi
(for example "Driver/library version mismatch" after a driver update without a reboot) is a
WARN, and a machine without one is simply a CPU machine.""")
def gpu_driver_missing(ctx):
    g = _gpu(ctx)
    need = ctx.subject.request.require_gpu
    if g.smi_path is None:
        if not need:
            raise StandDown("no nvidia-smi on PATH (a CPU machine); --require-gpu not given")
        return ctx.fire("nvidia-smi not found on PATH: no NVIDIA driver, and --require-gpu was given",
                        require_gpu=True)
    if g.smi_error:
        return ctx.fire(f"nvidia-smi fails: {g.smi_error}", severity="FAIL" if need else "WARN",
                        error=g.smi_error, require_gpu=need)
    return None


@rule(code="TL421", name="no-gpu-visible", severity="FAIL", **E,
      summary="The driver works but no GPU is visible to the run.",
      explanation="""
Counts the GPUs nvidia-smi lists and keeps those CUDA_VISIBLE_DEVICES lets through. FAIL with
--require-gpu when none remain; otherwise WARN when GPUs exist but CUDA_VISIBLE_DEVICES hides
all of them (an empty value or -1), since the run would silently train on the CPU.""")
def no_gpu_visible(ctx):
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
    return ctx.fire(f"CUDA_VISIBLE_DEVICES={g.cuda_visible_devices!r} hides all {len(g.gpus)} GPUs",
                    severity="FAIL" if need else "WARN", gpus=len(g.gpus),
                    cuda_visible_devices=g.cuda_visible_devices)


@rule(code="TL422", name="cuda-visible-devices-invalid", severity="WARN", **E,
      summary="CUDA_VISIBLE_DEVICES names a device that does not exist (or repeats one).",
      explanation="""
The CUDA runtime stops reading CUDA_VISIBLE_DEVICES at the first index or UUID it cannot
resolve, so every device after a bad entry is silently dropped, and fewer GPUs are used than
intended. Indices are checked against nvidia-smi's count, GPU-UUIDs against its list.""")
def cuda_visible_devices_invalid(ctx):
    g = _gpu(ctx)
    if g.cuda_visible_devices is None:
        raise StandDown("CUDA_VISIBLE_DEVICES is not set")
    if g.smi_path is None or g.smi_error:
        raise NotChecked("no working nvidia-smi to compare CUDA_VISIBLE_DEVICES with")
    usable, bad, dropped = visible_devices(g.cuda_visible_devices, g.gpus)
    if not bad:
        return None
    lost = f"; also dropped after it: {', '.join(dropped)}" if dropped else ""
    return ctx.fire(f"CUDA_VISIBLE_DEVICES={g.cuda_visible_devices!r}: entry {bad[0]!r} does not match "
                    f"any of the {len(g.gpus)} GPUs (or repeats one); {len(usable)} usable{lost}",
                    cuda_visible_devices=g.cuda_visible_devices, invalid=bad[0], usable=usable,
                    dropped=dropped, gpus=len(g.gpus))


def _major_minor(text: str) -> tuple[int, int] | None:
    parts = text.split(".")
    try:
        return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        return None


@rule(code="TL423", name="torch-cuda-newer-than-driver", severity="FAIL", **E,
      summary="The installed torch was built for a newer CUDA than the driver supports.",
      explanation="""
The CUDA version torch was built with is read from the installed torch/version.py (torch is
not imported) and compared with the highest CUDA version the driver supports (the
"CUDA Version" nvidia-smi prints). A newer major version cannot run at all
(torch.cuda.is_available() is False); a newer minor version usually runs through CUDA's
minor-version compatibility but kernels that need JIT compilation may fail: WARN. Install a
torch build for the driver's CUDA, or update the driver.""")
def torch_cuda_newer_than_driver(ctx):
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
    ev = dict(torch=g.torch_version, torch_cuda=g.torch_cuda, driver_cuda=g.driver_cuda,
              driver=g.driver_version, source=g.torch_cuda_source)
    if built[0] > drv[0]:
        return ctx.fire(f"torch {g.torch_version} is built for CUDA {g.torch_cuda} but the driver "
                        f"{g.driver_version} supports CUDA {g.driver_cuda}: CUDA will not be usable", **ev)
    return ctx.fire(f"torch {g.torch_version} is built for CUDA {g.torch_cuda}, newer than the driver's "
                    f"CUDA {g.driver_cuda} (minor-version compatibility only)", severity="WARN", **ev)


@rule(code="TL424", name="torch-cpu-build", severity="WARN", **E,
      summary="The installed torch is a CPU-only build on a machine with GPUs (or --require-gpu).",
      explanation="""
pip installs a CPU-only torch from some indexes; training then runs on the CPU while the GPUs
sit idle, often unnoticed for hours. Read from the installed torch/version.py, not by
importing torch. FAIL with --require-gpu, WARN when nvidia-smi lists GPUs.""")
def torch_cpu_build(ctx):
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
    return ctx.fire(f"torch {g.torch_version} is a CPU-only build"
                    + (" and --require-gpu was given" if need else f" but {len(g.gpus)} GPU(s) are present"),
                    severity="FAIL" if need else "WARN", torch=g.torch_version, gpus=len(g.gpus),
                    source=g.torch_cuda_source)


@rule(code="TL425", name="gpu-memory-in-use", severity="WARN", **E,
      summary="A GPU the run will use already has much of its memory taken.",
      explanation="""
Another process (a forgotten notebook, a previous run that did not exit, another user's job)
holds memory on a GPU this run can see, per nvidia-smi's memory.used. The run then goes out of
memory at a batch size that fits an empty GPU, or competes for compute. Fires when used /
total exceeds `max_used_fraction` on any visible GPU.""",
      thresholds=[Threshold("max_used_fraction", 0.1, "fraction of a GPU's memory already in use")])
def gpu_memory_in_use(ctx):
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
            out.append(ctx.fire(f"GPU {gpu.index} ({gpu.name}) already has {gpu.memory_used_mib:.0f} of "
                                f"{gpu.memory_total_mib:.0f} MiB in use ({frac:.0%} > "
                                f"{ctx.t('max_used_fraction'):.0%})", value=frac,
                                threshold=ctx.t("max_used_fraction"), gpu=gpu.index,
                                used_mib=gpu.memory_used_mib, total_mib=gpu.memory_total_mib))
    return out


def _is_visible(gpu: Any, usable: list[str]) -> bool:
    return any(e == str(gpu.index) or (e.startswith("GPU-") and gpu.uuid.startswith(e)) for e in usable)


# --- versions -------------------------------------------------------------------------------

@rule(code="TL430", name="known-bad-versions", severity="FAIL", **E,
      summary="An installed combination of package versions is known to break.",
      explanation="""
Installed versions of torch, transformers, accelerate, peft, trl, lightning, deepspeed and
numpy are read from package metadata (none is imported) and matched against the small table in
trainlint/data/known_bad.toml; each entry carries its reason and a source link. The severity
is the entry's.""")
def known_bad_versions(ctx):
    v = _part(ctx, "versions", "package versions were not read")
    from ..envcheck.versions import matches, normalize

    out = []
    for bad in ctx.subject.known_bad or []:
        if bad.get("platform") and not sys.platform.startswith(str(bad["platform"])):
            continue
        when = {normalize(k): str(s) for k, s in dict(bad.get("when", {})).items()}
        if not when or not all(k in v.installed and matches(v.installed[k], s) for k, s in when.items()):
            continue
        have = ", ".join(f"{k} {v.installed[k]}" for k in when)
        out.append(ctx.fire(f"{have}: {bad.get('reason')} ({bad.get('source')})",
                            severity=str(bad.get("severity", "WARN")).upper(), id=bad.get("id"),
                            installed={k: v.installed[k] for k in when}, when=when,
                            source=bad.get("source")))
    return out


@rule(code="TL431", name="unmet-declared-requirement", severity="WARN", **E,
      summary="A key package declares a version requirement on another that the installed one misses.",
      explanation="""
Each installed key package's own Requires-Dist metadata (including the requirements of an
extra such as transformers[torch], when the required package is installed) is checked against
the installed versions of the other key packages. `pip install --no-deps`, conda/pip mixing and
manual upgrades leave such mismatches; the package may then refuse to work or disable features.""")
def unmet_declared_requirement(ctx):
    v = _part(ctx, "versions", "package versions were not read")
    from ..envcheck.versions import matches, requirement

    out = []
    for pkg, lines in sorted(v.requires.items()):
        for line in lines:
            req = requirement(line)
            if req is None or req[0] not in v.installed or not req[1]:
                continue
            name, spec, extra = req
            if matches(v.installed[name], spec) is False:
                via = f" (extra '{extra}')" if extra else ""
                out.append(ctx.fire(f"{pkg} {v.installed[pkg]} requires {name}{spec}{via}, but {name} "
                                    f"{v.installed[name]} is installed", package=pkg,
                                    requires=f"{name}{spec}", extra=extra, installed=v.installed[name]))
    return out


# --- training configuration -----------------------------------------------------------------

def _cfg(ctx: Any) -> Any:
    return _part(ctx, "config", "no training configuration given")


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                return None
        return None
    return float(value)


@rule(code="TL435", name="config-learning-rate-zero", severity="FAIL", **E,
      summary="The configured learning rate is 0 (or negative).",
      explanation="""
With a learning rate of 0 the optimizer changes nothing: the loss stays flat however long the
run lasts. A negative one climbs the loss instead of descending it. Read from the training
configuration (learning_rate, or lr anywhere in a nested config) before the run starts.""")
def config_learning_rate_zero(ctx):
    cfg = _cfg(ctx)
    lr = _num(cfg.get("learning_rate"))
    if lr is None:
        raise NotChecked("no learning rate in the configuration")
    if lr > 0:
        return None
    what = "0: the weights will never change" if lr == 0 else "negative: the optimizer climbs the loss"
    return ctx.fire(f"{cfg.path('learning_rate')} = {lr:g}, the learning rate is {what}",
                    value=lr, threshold=0.0, key=cfg.path("learning_rate"))


@rule(code="TL436", name="config-warmup-covers-training", severity="WARN", **E,
      summary="Warm-up lasts as long as (or longer than) the whole run.",
      explanation="""
When warm-up steps reach max_steps, the learning rate is still ramping up when training ends:
the run never trains at the configured rate and the decay phase never happens. Usually a
warm-up meant for a longer run, or warmup_steps confused with warmup_ratio. A warmup_steps
value below 1 is read as a ratio of the run (as recent transformers do).""")
def config_warmup_covers_training(ctx):
    cfg = _cfg(ctx)
    max_steps = _num(cfg.get("max_steps"))
    if max_steps is None or max_steps <= 0:
        raise NotChecked("max_steps not set (run length given in epochs)")
    ws, wr = _num(cfg.get("warmup_steps")), _num(cfg.get("warmup_ratio"))
    if ws is not None and 0 < ws < 1:  # transformers reads warmup_steps below 1 as a ratio
        warm, key = ws * max_steps, f"{cfg.path('warmup_steps')} = {ws:g} as a ratio"
    elif ws:
        warm, key = ws, cfg.path("warmup_steps")
    elif wr:
        warm, key = wr * max_steps, f"{cfg.path('warmup_ratio')} = {wr:g}"
    elif ws is None and wr is None:
        raise NotChecked("no warm-up configured")
    else:
        raise StandDown("warm-up is 0")
    if warm < max_steps:
        return None
    return ctx.fire(f"warm-up of {warm:g} steps ({key}) >= max_steps {max_steps:.0f} "
                    f"({cfg.path('max_steps')}): the learning rate never reaches its configured value",
                    value=warm, threshold=max_steps, key=key)


_LOSS_SCALED = {"16", "16-mixed", "fp16-mixed", "fp16", "16bit"}


@rule(code="TL437", name="config-fp16-without-loss-scaling", severity="WARN", **E,
      summary="fp16 training without dynamic loss scaling.",
      explanation="""
fp16 gradients underflow to zero (and large ones overflow) unless the loss is scaled. The
Hugging Face Trainer and Lightning's "16-mixed" add a dynamic scaler themselves, so they pass;
Lightning's "16-true" (weights and gradients in fp16, no scaler) and a DeepSpeed fp16 section
with a static loss_scale of 1 (no scaling) fire. Prefer bf16 on hardware that has it, or
mixed precision with a scaler.""")
def config_fp16_without_loss_scaling(ctx):
    cfg = _cfg(ctx)
    ds = cfg.get("deepspeed_config")
    fp16 = ds.get("fp16") if isinstance(ds, dict) else None
    if isinstance(fp16, dict) and fp16.get("enabled") in (True, "true", "auto"):
        scale = _num(fp16.get("loss_scale", 0))
        if scale == 1:
            return ctx.fire("DeepSpeed fp16 with loss_scale = 1: static scaling of 1 means no loss scaling",
                            loss_scale=scale, key=cfg.path("deepspeed"))
        return None
    prec = cfg.get("precision")
    if prec is not None and str(prec).lower() in ("16-true", "fp16-true", "half"):
        return ctx.fire(f"{cfg.path('precision')} = {prec!r}: pure fp16 without a gradient scaler",
                        precision=str(prec), key=cfg.path("precision"))
    if prec is not None and str(prec).lower() in _LOSS_SCALED:
        raise StandDown(f"precision {prec!r} uses Lightning's dynamic gradient scaler")
    if cfg.get("fp16") is True and cfg.framework == "hf":
        raise StandDown("fp16 under the Hugging Face Trainer, which adds a dynamic GradScaler")
    if cfg.get("fp16") is None and prec is None:
        raise NotChecked("no precision settings in the configuration")
    return None


@rule(code="TL438", name="config-nan-loss-filter", severity="NOTE", **E,
      summary="logging_nan_inf_filter is on: NaN/inf losses will not appear in the log.",
      explanation="""
With logging_nan_inf_filter (the Hugging Face default) the Trainer replaces a NaN or infinite
step loss by the mean of the logging window before logging it, so the logged loss looks finite
while the run is already broken, and a log-based check (TL001) cannot see it. Set it to False
to keep NaNs visible, and watch grad_norm, which is not filtered.""")
def config_nan_loss_filter(ctx):
    cfg = _cfg(ctx)
    on = cfg.get("logging_nan_inf_filter")
    if on is None:
        raise NotChecked("no logging_nan_inf_filter setting (not Hugging Face TrainingArguments)")
    if on is not True:
        return None
    return ctx.fire("logging_nan_inf_filter = True: NaN/inf losses are replaced in the log by the "
                    "window mean, so the log will hide them", value=True, key=cfg.path("logging_nan_inf_filter"))


def _saves_kept(cfg: Any) -> tuple[int | None, str]:
    """How many checkpoints the run will keep at most, and how that was worked out."""
    strategy = str(cfg.get("save_strategy", "steps")).lower()
    if strategy == "no":
        raise StandDown("save_strategy is 'no': no checkpoints are written")
    limit = cfg.get("save_total_limit")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        return limit, f"{cfg.path('save_total_limit')} = {limit}"
    if limit == 0 and cfg.framework != "hf":  # Lightning save_top_k=0 keeps none; HF 0 = no limit
        raise StandDown(f"{cfg.path('save_total_limit')} = 0: no checkpoints are kept")
    max_steps, every = _num(cfg.get("max_steps")), _num(cfg.get("save_steps"))
    if strategy == "steps" and max_steps and max_steps > 0 and every and every > 0:
        n = math.ceil(max_steps / every)
        return n, f"no save limit: max_steps {max_steps:.0f} / save_steps {every:.0f} = {n} checkpoints"
    return None, "no save limit and the number of saves is unknown"


@rule(code="TL439", name="config-checkpoints-exceed-disk", severity="FAIL", **E,
      summary="The checkpoints the configuration keeps will not fit on the disk.",
      explanation="""
Worked out from save_total_limit (or Lightning's save_top_k); without a limit, from
max_steps / save_steps. One more than the limit is counted, since a new checkpoint is written
before the oldest is removed. The checkpoint size comes from --checkpoint-size or an existing
checkpoint folder; checkpoints already in the folder are counted as space the run can reuse.
A full disk stops training at a save and can leave a truncated checkpoint.""")
def config_checkpoints_exceed_disk(ctx):
    cfg = _cfg(ctx)
    res = _part(ctx, "resources", "free disk space not probed")
    kept, how = _saves_kept(cfg)
    if kept is None:
        raise NotChecked(how)
    size, size_how = _checkpoint_size(ctx, res)
    if size is None:
        raise NotChecked("checkpoint size unknown (--checkpoint-size GB, or an existing checkpoint folder)")
    if res.disk_free is None:
        raise NotChecked("free disk space could not be read")
    peak = (kept + 1) * size
    need = max(peak - res.checkpoints_bytes_total, size)
    if res.disk_free >= need:
        return None
    return ctx.fire(f"{how}; up to {kept + 1} x {gib(size)} = {gib(peak)} on disk, {gib(need)} more needed "
                    f"but {gib(res.disk_free)} free at {res.disk_path}", value=res.disk_free, threshold=need,
                    kept=kept, checkpoint_bytes=size, size_from=size_how, existing_bytes=res.checkpoints_bytes_total)


def _report_none(value: Any) -> bool:
    if value is None:
        return False
    items = value if isinstance(value, list) else [value]
    return all(str(v).lower() in ("none", "") for v in items)


@rule(code="TL440", name="config-nothing-logged", severity="WARN", **E,
      summary="No logger is configured and no log file exists: nothing will be left to judge.",
      explanation="""
report_to is "none" (Hugging Face) or logger is false (Lightning), and no log file that trainlint
can read was found beside the configuration. The loss curve then lives only on the console, and
a failure cannot be diagnosed afterwards. Hugging Face checkpoints carry trainer_state.json,
so with checkpoints saved this stands down. Log somewhere: report_to "tensorboard", a CSV logger,
or keep the console output.""")
def config_nothing_logged(ctx):
    cfg = _cfg(ctx)
    off = _report_none(cfg.get("report_to")) or cfg.get("logger") is False
    if not cfg.has("report_to") and not cfg.has("logger"):
        raise NotChecked("no report_to / logger setting in the configuration")
    if not off:
        return None
    logs = ctx.subject.log_files
    if logs:
        raise StandDown(f"no logger configured, but log files exist: {', '.join(logs[:3])}")
    if cfg.framework == "hf" and str(cfg.get("save_strategy", "steps")).lower() != "no":
        raise StandDown("report_to none, but checkpoints will carry trainer_state.json with the log history")
    key = cfg.path("report_to") if cfg.has("report_to") else cfg.path("logger")
    return ctx.fire(f"{key} = {cfg.get('report_to', cfg.get('logger'))!r} and no log file found: "
                    "the loss curve will exist only on the console", key=key, looked=logs is not None)


def _eval_data(cfg: Any) -> bool:
    data = cfg.get("eval_data")
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return data > 0
    return bool(data)


@rule(code="TL441", name="config-eval-never-runs", severity="WARN", **E,
      summary="An evaluation is asked for but the configuration never runs it.",
      explanation="""
Fires when do_eval or an evaluation set (val_set_size, test_datasets, eval_dataset, a
val_dataset) is configured but eval_strategy is "no", evals_per_epoch is 0 or Lightning's
limit_val_batches is 0; or when eval_strategy is "steps" with eval_steps beyond max_steps.
Without evaluation there is no eval loss, so overfitting cannot be seen in the log.""")
def config_eval_never_runs(ctx):
    cfg = _cfg(ctx)
    wants = cfg.get("do_eval") is True or _eval_data(cfg)
    strategy = str(cfg.get("eval_strategy", "")).lower()
    max_steps, every = _num(cfg.get("max_steps")), _num(cfg.get("eval_steps"))
    if strategy == "steps" and every is None:
        every = _num(cfg.get("logging_steps"))
    if strategy == "steps" and max_steps and max_steps > 0 and every and every > max_steps:
        return ctx.fire(f"eval_steps {every:.0f} > max_steps {max_steps:.0f}: evaluation never runs",
                        value=every, threshold=max_steps)
    if not wants:
        if not cfg.has("eval_strategy") and not cfg.has("do_eval"):
            raise NotChecked("no evaluation settings in the configuration")
        return None
    off = [(k, cfg.get(k)) for k in ("eval_strategy", "evals_per_epoch", "limit_val_batches")
           if str(cfg.get(k)).lower() in ("no", "0", "0.0")]
    if not off:
        return None
    asked = cfg.path("do_eval") if cfg.get("do_eval") is True else cfg.path("eval_data")
    return ctx.fire(f"{asked} asks for evaluation but {cfg.path(off[0][0])} = {off[0][1]!r}: "
                    "evaluation never runs", asked_by=asked, disabled_by=cfg.path(off[0][0]))
