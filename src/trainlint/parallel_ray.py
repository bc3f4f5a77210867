"""``doctor --ray [ADDRESS]``: the per-input work of :mod:`trainlint.parallel` as Ray tasks.

Without an address (``"local"``) Ray is started in this process with ``jobs`` CPUs and shut
down afterwards; with one (``auto``, ``HOST:PORT``, ``ray://HOST:10001``) the driver joins that
cluster. If Ray is already initialised (a notebook, a driver script) it is used as it is.
When trainlint starts or joins Ray, the job carries this trainlint package with it
(``runtime_env.py_modules``), so every worker judges with the driver's rules; the workers read the inputs from paths they can see
(a shared file system) or from ``mlflow://`` addresses.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .parallel import IN_FLIGHT_PER_WORKER, Task, _by_size, run_task
from .verdict import Report

LOCAL = "local"


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster could not be joined (one line)."""


def _init_args(address: str, jobs: int) -> dict[str, Any]:
    args: dict[str, Any] = {
        "logging_level": logging.WARNING,
        "log_to_driver": False,
        "include_dashboard": False,
        "runtime_env": _runtime_env(),
    }
    if address in ("", LOCAL):
        args["num_cpus"] = max(1, jobs)
    else:
        args["address"] = address
    return args


def _runtime_env() -> dict[str, Any]:
    """Ship the driver's trainlint (the package folder, without caches) to the workers."""
    import trainlint

    return {
        "py_modules": [str(Path(trainlint.__file__).parent)],
        "excludes": ["__pycache__", "*.pyc"],
    }


def _cluster_cpus(ray: Any, fallback: int) -> int:
    try:
        return max(1, int(ray.cluster_resources().get("CPU", fallback)))
    except Exception:  # noqa: BLE001 - an old cluster API: fall back to --jobs
        return max(1, fallback)


def ray_stream(
    tasks: list[Task], options: Any, address: str, jobs: int, env: dict[str, str]
) -> Iterator[tuple[int, list[Report]]]:
    """(task index, reports) as each Ray task finishes; at most 2 tasks per CPU in flight."""
    try:
        import ray
    except ImportError:
        raise RayUnavailable("--ray needs Ray: pip install 'trainlint[ray]'") from None
    started = not ray.is_initialized()
    if started:
        try:
            ray.init(**_init_args(address, jobs))
        except Exception as exc:  # noqa: BLE001 - any failure to start or join is one line
            first = (str(exc).strip().splitlines() or [""])[0][:200]
            raise RayUnavailable(
                f"could not start or join Ray at {address!r}: {type(exc).__name__}: {first}"
            ) from None
    try:
        remote = ray.remote(run_task).options(num_cpus=1, max_retries=1)
        opts_ref, env_ref = ray.put(options), ray.put(env)
        limit = _cluster_cpus(ray, jobs) * IN_FLIGHT_PER_WORKER
        queue = iter(_by_size(tasks))
        pending: dict[Any, int] = {}
        while True:
            for i, task in queue:
                pending[remote.remote(task, opts_ref, env_ref)] = i
                if len(pending) >= limit:
                    break
            if not pending:
                return
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                yield pending.pop(ref), ray.get(ref)
    finally:
        if started:
            ray.shutdown()
