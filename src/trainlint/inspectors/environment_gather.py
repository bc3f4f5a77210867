"""Gather every fact `trainlint env` judges and turn them into one report per group."""

from __future__ import annotations

import platform
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from ..environment.facts import GpuFacts, Request, Resources, Subject
from ..options import EnvOptions
from .environment import find_log_files, group_report

if TYPE_CHECKING:
    from ..config import Settings
    from ..verdict import Result


def gather(opts: EnvOptions) -> tuple[Subject, dict[str, str]]:
    """The facts, and the reasons a whole group could not be judged."""
    from ..environment.facts import VersionFacts
    from ..environment.gpu import gpu_facts
    from ..environment.probe import resources
    from ..environment.versions import installed, load_known_bad

    problems: dict[str, str] = {}
    req = Request(
        memory_gb=opts.memory_gb,
        workers=opts.workers,
        checkpoint_gb=opts.checkpoint_gb,
        keep=opts.keep,
        require_gpu=opts.require_gpu,
        output_dir=opts.output_dir,
    )
    subject = Subject(request=req)
    if opts.training_args:
        _config(subject, opts.training_args, opts, problems)
    out_dir = opts.output_dir or _config_output_dir(subject)
    subject.resources = resources(out_dir, test_write=bool(opts.output_dir))
    subject.gpu = gpu_facts()
    versions, requires = installed()
    subject.versions = VersionFacts(versions, requires)
    try:
        subject.known_bad = load_known_bad()
    except (OSError, ValueError) as exc:
        problems["versions"] = f"known-bad table unreadable: {exc}"
    if opts.entrypoint:
        from ..environment.entrypoint import import_entrypoint

        subject.entry = import_entrypoint(opts.entrypoint, timeout=opts.timeout, python=opts.python)
        if subject.entry.outcome == "error":
            problems["entrypoint"] = subject.entry.message or "could not import"
    return subject, problems


def _config(subject: Subject, path: str, opts: EnvOptions, problems: dict[str, str]) -> None:
    from ..environment.trainconfig import ConfigReadError, read_config

    try:
        subject.config = read_config(path)
    except ConfigReadError as exc:
        problems["training-config"] = str(exc)
        return
    folders = [Path(subject.config.source).parent]
    out = opts.output_dir or _config_output_dir(subject)
    if out:
        folders.append(Path(out))
    subject.log_files = find_log_files(folders)


def _config_output_dir(subject: Subject) -> str | None:
    cfg = subject.config
    out = cfg.get("output_dir") if cfg is not None else None
    return out if isinstance(out, str) and out else None


def env_result(opts: EnvOptions, settings: Settings | None = None) -> Result:
    from ..verdict import Result

    subject, problems = gather(opts)
    result = Result(command="env")
    host = platform.node() or "this machine"
    if opts.entrypoint:
        result.reports.append(
            group_report("entrypoint", f"entrypoint {opts.entrypoint}", subject, settings, problems.get("entrypoint"))
        )
    for group in ("resources", "accelerators", "versions"):
        result.reports.append(group_report(group, f"{group} ({host})", subject, settings, problems.get(group)))
    if opts.training_args:
        cfg = subject.config
        source = cfg.source if cfg is not None else str(opts.training_args)
        result.reports.append(
            group_report(
                "training-config",
                source,
                subject,
                settings,
                problems.get("training-config"),
                fmt=cfg.format if cfg is not None else None,
            )
        )
    _summaries(result, subject)
    return result


def _summaries(result: Result, s: Subject) -> None:
    """Record the probed numbers on each report so a PASS still shows what was seen."""
    for rep in result.reports:
        if rep.format == "resources" and s.resources is not None:
            rep.summary = {k: v for k, v in msgspec.structs.asdict(s.resources).items() if v is not None}
            rep.notes.append(_resources_line(s.resources))
        elif rep.format == "accelerators" and s.gpu is not None:
            g = s.gpu
            rep.notes.append(_gpu_line(g))
            rep.summary = {
                "nvidia_smi": g.smi_path,
                "driver": g.driver_version,
                "driver_cuda": g.driver_cuda,
                "gpus": [f"{x.index}: {x.name}" for x in g.gpus],
                "cuda_visible_devices": g.cuda_visible_devices,
                "torch": g.torch_version,
                "torch_cuda": g.torch_cuda,
            }
        elif rep.format == "versions" and s.versions is not None:
            rep.summary = dict(s.versions.installed)
            rep.notes.append(
                ", ".join(f"{k} {v}" for k, v in sorted(s.versions.installed.items()))
                or "none of the key packages is installed"
            )
        elif rep.format == "entrypoint" and s.entry is not None:
            rep.summary = {"outcome": s.entry.outcome, "seconds": s.entry.seconds}
        elif s.config is not None and rep.source == s.config.source:
            rep.summary = {
                k: v[0]
                for k, v in s.config.found.items()
                if isinstance(v[0], (int, float, str, bool, list)) and k != "eval_data"
            }
            rep.notes.extend(s.config.notes)


def _gb(n: int | None) -> str:
    return "?" if n is None else f"{n / 1024**3:.1f} GiB"


def _resources_line(r: Resources) -> str:
    soft = "unlimited" if r.nofile_soft is not None and r.nofile_soft < 0 else r.nofile_soft
    return (
        f"memory {_gb(r.mem_available)} available; disk {_gb(r.disk_free)} free at {r.disk_path}; "
        f"/dev/shm {_gb(r.shm_total)}; open files {soft}"
    )


def _gpu_line(g: GpuFacts) -> str:
    if g.smi_path is None:
        drv = "no nvidia-smi"
    elif g.smi_error:
        drv = f"nvidia-smi fails ({g.smi_error})"
    else:
        drv = f"driver {g.driver_version} (CUDA {g.driver_cuda}), {len(g.gpus)} GPU(s)"
    torch = (
        "torch not installed"
        if g.torch_version is None
        else f"torch {g.torch_version} ({'CUDA ' + g.torch_cuda if g.torch_cuda else 'CPU build'})"
    )
    cvd = "" if g.cuda_visible_devices is None else f"; CUDA_VISIBLE_DEVICES={g.cuda_visible_devices!r}"
    return f"{drv}; {torch}{cvd}"
