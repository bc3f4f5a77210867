"""Environment rules, group resources: TL410-TL419: memory, disk, shared memory, open files, the output folder."""

from __future__ import annotations

from typing import Any

from ...environment import GIB, MIB
from ...registry import Context, NotChecked, StandDown, Threshold, rule
from ...verdict import Finding
from .common import BASE, _part, gib, mib

E = dict(**BASE, group="resources")


def _res(ctx: Context) -> Any:
    return _part(ctx, "resources", "resources were not probed")


@rule(
    code="TL410",
    name="memory-below-required",
    severity="FAIL",
    **E,
    summary="Available memory is below the amount the run needs (--memory).",
    explanation="""
Compares the memory available now (MemAvailable from /proc/meminfo, or the room left under a
container's cgroup limit when that is smaller) with the amount you said the run needs. A run
that does not fit is killed by the kernel's out-of-memory killer, usually without a Python
traceback. Free memory, lower the batch size or the number of DataLoader workers, or use a
larger machine.""",
)
def memory_below_required(ctx: Context) -> Finding | None:
    need_gb = ctx.subject.request.memory_gb
    if need_gb is None:
        raise NotChecked("no --memory given")
    res = _res(ctx)
    if res.mem_available is None:
        raise NotChecked("available memory could not be read")
    need = need_gb * GIB
    if res.mem_available >= need:
        return None
    return ctx.fire(
        f"{gib(res.mem_available)} available ({res.mem_source}) < {gib(need)} required",
        value=res.mem_available,
        threshold=need,
        source=res.mem_source,
    )


def _checkpoint_size(ctx: Context, res: Any) -> tuple[float | None, str]:
    if ctx.subject.request.checkpoint_gb is not None:
        return ctx.subject.request.checkpoint_gb * GIB, "--checkpoint-size"
    if res.checkpoint_bytes:
        return float(res.checkpoint_bytes), f"measured from {res.checkpoint_from}"
    return None, ""


@rule(
    code="TL411",
    name="disk-below-checkpoints",
    severity="FAIL",
    **E,
    summary="Free disk at the output folder is below checkpoint size x checkpoints kept.",
    explanation="""
Free space on the file system holding the output folder is compared with the checkpoint size
(--checkpoint-size, or measured from an existing checkpoint folder) times the number kept
(--keep). A full disk stops training at a save, often leaving a truncated checkpoint behind.
WARN when there is less than the `headroom` factor of spare room.""",
    thresholds=[Threshold("headroom", 1.2, "WARN when free space < needed x headroom")],
)
def disk_below_checkpoints(ctx: Context) -> Finding | None:
    res = _res(ctx)
    keep = ctx.subject.request.keep
    size, how = _checkpoint_size(ctx, res)
    if keep is None or size is None:
        raise NotChecked("needs --keep N and a checkpoint size (--checkpoint-size GB or an existing checkpoint)")
    if res.disk_free is None:
        raise NotChecked("free disk space could not be read")
    need = size * keep
    ev = dict(value=res.disk_free, threshold=need, checkpoint_bytes=size, keep=keep, size_from=how, path=res.disk_path)
    if res.disk_free < need:
        return ctx.fire(
            f"{gib(res.disk_free)} free at {res.disk_path} < {keep} x {gib(size)} "
            f"= {gib(need)} needed for the kept checkpoints",
            **ev,
        )
    if res.disk_free < need * ctx.t("headroom"):
        return ctx.fire(
            f"{gib(res.disk_free)} free at {res.disk_path} is within {ctx.t('headroom'):g}x of "
            f"the {gib(need)} the kept checkpoints need",
            severity="WARN",
            **ev,
        )
    return None


def _workers(ctx: Context) -> int | None:
    w: int | None = ctx.subject.request.workers
    cfg = ctx.subject.config
    if w is None and cfg is not None and isinstance(cfg.get("workers"), int):
        w = cfg.get("workers")
    return w


@rule(
    code="TL412",
    name="shm-small-for-workers",
    severity="WARN",
    **E,
    summary="/dev/shm is small for the number of DataLoader worker processes.",
    explanation="""
DataLoader workers hand batches to the main process through shared memory (/dev/shm).
Containers often mount only 64 MiB there, and a run with workers then dies with "bus error"
or "DataLoader worker killed". Fires when /dev/shm is smaller than workers x `per_worker_mib`.
Raise it (docker run --shm-size=8g, or a memory-backed emptyDir in Kubernetes), or use fewer
workers.""",
    thresholds=[Threshold("per_worker_mib", 256, "shared memory wanted per DataLoader worker, MiB")],
)
def shm_small_for_workers(ctx: Context) -> Finding | None:
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
    return ctx.fire(
        f"/dev/shm is {mib(res.shm_total)} for {workers} DataLoader workers "
        f"(< {workers} x {ctx.t('per_worker_mib'):g} MiB = {mib(want)})",
        value=res.shm_total,
        threshold=want,
        workers=workers,
        shm_free=res.shm_free,
    )


@rule(
    code="TL413",
    name="open-file-limit-low",
    severity="WARN",
    **E,
    summary="The open-file limit (ulimit -n) is low for a training run.",
    explanation="""
Datasets of many small files, DataLoader workers passing tensors as file descriptors, and
checkpoint writers all hold files open; a low soft limit ends in "Too many open files".
Raise it with `ulimit -n` (up to the hard limit shown) before starting.""",
    thresholds=[Threshold("min_open_files", 1024, "smallest acceptable soft limit")],
)
def open_file_limit_low(ctx: Context) -> Finding | None:
    res = _res(ctx)
    soft = res.nofile_soft
    if soft is None:
        raise NotChecked("open-file limit could not be read")
    if soft < 0 or soft >= ctx.t("min_open_files"):
        return None
    hard = "unlimited" if res.nofile_hard is None or res.nofile_hard < 0 else res.nofile_hard
    return ctx.fire(
        f"open-file soft limit is {soft} (< {ctx.t('min_open_files'):g}); hard limit {hard}",
        value=soft,
        threshold=ctx.t("min_open_files"),
        hard=hard,
    )


@rule(
    code="TL414",
    name="output-dir-not-writable",
    severity="FAIL",
    **E,
    summary="The output folder cannot be written.",
    explanation="""
trainlint created and removed one temporary file in the output folder you named (or, when the
folder does not exist yet, asked the system whether its nearest existing parent is writable).
If that fails, the first checkpoint or log write of the real run fails too, often hours in.""",
)
def output_dir_not_writable(ctx: Context) -> Finding | None:
    res = _res(ctx)
    if res.writable is None:
        raise NotChecked("no --output-dir given")
    if res.writable:
        return None
    return ctx.fire(
        f"output folder {ctx.subject.request.output_dir} is not writable: {res.writable_error}",
        path=ctx.subject.request.output_dir,
        how=res.writable_how,
        error=res.writable_error,
    )


# --- accelerators ---------------------------------------------------------------------------
