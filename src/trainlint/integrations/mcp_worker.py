"""The judging half of ``trainlint mcp``: confinement, and one job per child process.

The MCP server (``mcp_server.py``) never judges an input itself. Each tool call becomes one
job, run by ``python -m trainlint.integrations.mcp_worker`` in a child process with a wall-time
limit (and, when asked, an address-space limit): a hostile input that hangs, recurses or
crashes the interpreter costs that child, never the session. A job is a JSON object on stdin,
``{"tool": NAME, "args": {...}, "roots": [...], "memory_gb": float|null}``; the answer is one
JSON object on stdout, ``{"envelope": {...}}`` (the ``--format json`` envelope) or
``{"error": "one line"}`` for a refused request.

This module imports neither the MCP SDK nor anything heavy at module level.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import msgspec

MAX_POINTS_CAP = 20_000  # series(): an agent asks for a shape, not the raw log


class Refused(Exception):
    """A request the server will not carry out (one line, shown to the agent)."""


# ---------------------------------------------------------------- confinement


def resolve_roots(roots: Iterable[str | Path]) -> list[Path]:
    """The allowed folders, symlinks resolved; a missing or non-folder root is refused."""
    out = []
    for raw in roots:
        root = Path(raw).expanduser().resolve()
        if not root.is_dir():
            raise Refused(f"root {raw!s} is not a folder")
        out.append(root)
    if not out:
        raise Refused("no root folder given")
    return out


def confine(raw: str | Path, roots: Sequence[Path]) -> Path:
    """``raw`` resolved (relative paths against the first root), or Refused when it lies
    outside every root or is not a local path (a URI would open the network)."""
    text = str(raw)
    if not text or "\x00" in text:
        raise Refused(f"not a path: {text!r}")
    if "://" in text:
        raise Refused(f"{text}: only local paths are served (no URIs, no network)")
    path = Path(text).expanduser()
    full = (path if path.is_absolute() else roots[0] / path).resolve()
    if not any(full == r or r in full.parents for r in roots):
        shown = ", ".join(str(r) for r in roots)
        raise Refused(f"{text} resolves to {full}, outside the allowed roots ({shown})")
    return full


def check_links(path: Path, roots: Sequence[Path]) -> None:
    """Refuse a folder holding a symlink that leads outside the roots (the walk would read
    it). The whole tree is looked at; the call's time limit bounds a huge one."""
    if not path.is_dir():
        return
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            p = Path(folder) / name
            if p.is_symlink():
                target = p.resolve()
                if not any(target == r or r in target.parents for r in roots):
                    raise Refused(f"{p} is a symlink to {target}, outside the allowed roots")


# ---------------------------------------------------------------- options


def options(
    roots: Sequence[Path],
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    **fields: Any,
) -> Any:
    """api.Options with the settings of the nearest config file (trainlint.toml, or
    pyproject.toml with [tool.trainlint]) above the first root, as the CLI finds it from
    its working folder, but only one that lies under a root; plus select/ignore."""
    from .. import api
    from ..config import ConfigError, find_config, load_settings

    found = find_config(roots[0])
    inside = found is not None and any(r in found.resolve().parents for r in roots)
    try:
        settings = load_settings(found if inside else None, discover=False)
    except ConfigError as exc:
        raise Refused(f"config {found}: {exc}") from None
    changes: dict[str, Any] = {}
    if select:
        changes["select"] = list(select)
    if ignore:
        changes["ignore"] = [*settings.ignore, *ignore]
    if changes:
        settings = msgspec.structs.replace(settings, **changes)
    return api.Options(settings=settings, **fields)


# ---------------------------------------------------------------- jobs


def _local(raw: str | Path, roots: Sequence[Path]) -> str:
    """A confined path as the API will see it: the caller's spelling (the worker's working
    folder is the first root, so relative paths mean the same), symlinked escapes refused."""
    full = confine(raw, roots)
    check_links(full, roots)
    return str(Path(str(raw)).expanduser())


def _locals(raw: Any, roots: Sequence[Path]) -> list[str]:
    items = [raw] if isinstance(raw, (str, Path)) else list(raw or [])
    return [_local(p, roots) for p in items]


def _opt(raw: str | None, roots: Sequence[Path]) -> Path | None:
    return None if raw in (None, "") else Path(_local(raw, roots))


def job_doctor(args: dict[str, Any], roots: Sequence[Path]) -> Any:
    from .. import api

    paths = _locals(args.get("paths") or ["."], roots)
    opts = options(
        roots,
        args.get("select") or (),
        args.get("ignore") or (),
        baseline=tuple(_locals(args.get("baseline"), roots)),
        dataset=_opt(args.get("dataset"), roots),
        tokenizer=_opt(args.get("tokenizer"), roots),
    )
    return api.doctor(paths, opts)


def job_compare(args: dict[str, Any], roots: Sequence[Path]) -> Any:
    from .. import api

    baseline = tuple(_locals(args.get("baseline"), roots))
    runs = _locals(args.get("runs"), roots)
    if not baseline or not runs:
        raise Refused("compare needs a baseline and at least one run")
    return api.compare(baseline, runs, options(roots, baseline=baseline))


def job_inspect_checkpoint(args: dict[str, Any], roots: Sequence[Path]) -> Any:
    paths = [Path(p) for p in _locals(args.get("paths"), roots)]
    if not paths:
        raise Refused("inspect_checkpoint needs at least one path")
    from .. import api

    # diff as `trainlint ckpt A B` (--diff is its default)
    return api.inspect_checkpoint(paths, options(roots), diff=len(paths) == 2)


def job_check_dataset(args: dict[str, Any], roots: Sequence[Path]) -> Any:
    path = Path(_local(args["path"], roots))
    tokenizer = _opt(args.get("tokenizer"), roots)
    from .. import api

    return api.check_dataset(path, options(roots, tokenizer=tokenizer), max_length=args.get("max_length"))


def job_check_tokenizer(args: dict[str, Any], roots: Sequence[Path]) -> Any:
    path = Path(_local(args["path"], roots))
    from .. import api

    return api.check_tokenizer(path, options(roots))


def confine_entrypoint(entrypoint: str, roots: Sequence[Path]) -> str:
    """A script path under the roots, or a dotted module whose file lies under the first root
    (the import runs there); anything else is refused."""
    import re

    if entrypoint.endswith(".py") or "/" in entrypoint or os.sep in entrypoint:
        return _local(entrypoint, roots)
    if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", entrypoint):
        raise Refused(f"not a module name or a .py file: {entrypoint!r}")
    base = roots[0].joinpath(*entrypoint.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            confine(candidate, roots)
            return entrypoint
    raise Refused(f"module {entrypoint} is not a file under {roots[0]}; give a script path under a root")


def job_check_environment(args: dict[str, Any], roots: Sequence[Path]) -> Any:
    entrypoint = args.get("entrypoint") or None
    if entrypoint is not None:
        entrypoint = confine_entrypoint(str(entrypoint), roots)
    timeout = float(args.get("entrypoint_timeout") or 60.0)
    from .. import api

    env = api.EnvOptions(entrypoint=entrypoint, timeout=timeout)
    return api.check_environment(env, options(roots))


def job_series(args: dict[str, Any], roots: Sequence[Path]) -> Any:
    """The run's role series, each min/max-downsampled to at most ``max_points`` points, in
    the shape of ``Report.curves``: ``curves[role] = {name, points, kept, steps, values}``."""
    from .. import api
    from ..downsample import minmax_downsample
    from ..readers import ReadError
    from ..verdict import Report, Result

    path = _local(args["path"], roots)
    max_points = max(2, min(int(args.get("max_points") or 500), MAX_POINTS_CAP))
    try:
        run = api.read_run(Path(path))
    except ReadError as exc:
        return Result(command="series", reports=[Report(path, "log", unjudged=str(exc))])
    wanted = list(args.get("roles") or run.roles)
    curves: dict[str, dict[str, Any]] = {}
    missing = []
    for role in wanted:
        name = run.roles.get(role)
        if name is None or name not in run.series:
            missing.append(role)
            continue
        s = run.series[name]
        steps, values = minmax_downsample(s.steps, s.values, max_points)
        curves[role] = {
            "name": name,
            "points": len(s),
            "kept": len(values),
            "steps": [_num(x) for x in steps],
            "values": [float(v) for v in values],
        }
    extra = {
        "source": run.source,
        "format": run.format,
        "max_points": max_points,
        "curves": curves,
        "roles_missing": missing,
        "roles": dict(run.roles),
    }
    return Result(command="series", extra=extra)


def _num(x: Any) -> float | int:
    f = float(x)
    return int(f) if f.is_integer() else f


JOBS: dict[str, Callable[[dict[str, Any], Sequence[Path]], Any]] = {
    "doctor": job_doctor,
    "compare": job_compare,
    "inspect_checkpoint": job_inspect_checkpoint,
    "check_dataset": job_check_dataset,
    "check_tokenizer": job_check_tokenizer,
    "check_environment": job_check_environment,
    "series": job_series,
}


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    """One job to its answer: ``{"envelope": ...}`` or ``{"error": ...}`` (never raises Refused)."""
    tool = job.get("tool")
    if tool not in JOBS:
        return {"error": f"unknown tool {tool!r}"}
    try:
        roots = resolve_roots(job.get("roots") or ["."])
        result = JOBS[tool](dict(job.get("args") or {}), roots)
    except Refused as exc:
        return {"error": str(exc)}
    return {"envelope": result.to_dict()}


def _limit_memory(gb: float | None) -> None:
    if not gb:
        return
    try:
        import resource

        cap = int(gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    except (
        ImportError,
        ValueError,
        OSError,
    ):  # not on this platform: the time limit still holds
        pass


def main() -> None:
    """Read one job from stdin, write its answer to stdout (strict JSON)."""
    job = json.loads(sys.stdin.read() or "{}")
    _limit_memory(job.get("memory_gb"))
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # whatever a reader might print must not corrupt the answer
    try:
        answer = run_job(job)
    # A reader bug: the input is not judged (NOT-CHECKED), the session goes on.
    except Exception as exc:  # noqa: BLE001
        reason = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        answer = {"crash": reason}
    sys.stdout = real_stdout
    json.dump(answer, sys.stdout, allow_nan=False)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
