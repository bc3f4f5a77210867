"""``doctor --ray [ADDRESS]``: the per-input tasks of :mod:`trainlint.parallel` run on Ray.

``api.doctor(paths, executor=RayExecutor("auto"))`` from Python. Without an address
(``"local"``) Ray is started in this process with ``num_cpus`` CPUs and shut down afterwards;
with one (``auto``, ``HOST:PORT``, ``ray://HOST:10001``) the driver joins that cluster. If Ray
is already initialised (a notebook, a driver script) it is used as it is. When trainlint starts
or joins Ray, the job carries this trainlint package with it (``runtime_env.py_modules``), so
every worker judges with the driver's rules; the workers read the inputs from paths they can
see (a shared file system) or from ``mlflow://`` addresses. Ray is imported only when the
executor runs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from ..options import Options
from ..verdict import Report

LOCAL = "local"


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster could not be joined (one line)."""


def _runtime_env() -> dict[str, Any]:
    """Ship the driver's trainlint (the package folder, without caches) to the workers."""
    import trainlint

    return {"py_modules": [str(Path(trainlint.__file__).parent)], "excludes": ["__pycache__", "*.pyc"]}


def _cluster_cpus(ray: Any, fallback: int) -> int:
    try:
        return max(1, int(ray.cluster_resources().get("CPU", fallback)))
    except Exception:  # noqa: BLE001 - an old cluster API: fall back to num_cpus
        return max(1, fallback)


class RayExecutor(msgspec.Struct, frozen=True):
    """Runs doctor's tasks as Ray tasks (one CPU each, ``per_cpu`` per cluster CPU in flight)."""

    address: str = LOCAL
    num_cpus: int = 2  # for a local Ray started here
    per_cpu: int = 2

    def _init_args(self) -> dict[str, Any]:
        args: dict[str, Any] = {
            "logging_level": logging.WARNING,
            "log_to_driver": False,
            "include_dashboard": False,
            "runtime_env": _runtime_env(),
        }
        if self.address in ("", LOCAL):
            args["num_cpus"] = max(1, self.num_cpus)
        else:
            args["address"] = self.address
        return args

    def _start(self) -> tuple[Any, bool]:
        try:
            import ray
        except ImportError:
            raise RayUnavailable("--ray needs Ray: pip install 'trainlint[ray]'") from None
        if ray.is_initialized():
            return ray, False
        try:
            ray.init(**self._init_args())
        except Exception as exc:  # noqa: BLE001 - any failure to start or join is one line
            first = (str(exc).strip().splitlines() or [""])[0][:200]
            raise RayUnavailable(
                f"could not start or join Ray at {self.address!r}: {type(exc).__name__}: {first}"
            ) from None
        return ray, True

    def __call__(
        self,
        ordered: list[tuple[int, Any]],
        options: Options,
        env: dict[str, str],
        run_task: Callable[..., list[Report]],
    ) -> Iterator[tuple[int, list[Report]]]:
        """(task index, reports) as each Ray task finishes, for the ``(index, task)`` pairs in
        the order to start them (each task as ``parallel.sent`` made it: small, by name)."""
        ray, started = self._start()
        pending: dict[Any, int] = {}
        try:
            remote = ray.remote(run_task).options(num_cpus=1, max_retries=1)
            opts_ref, env_ref = ray.put(options), ray.put(env)
            limit = _cluster_cpus(ray, self.num_cpus) * self.per_cpu
            queue = iter(ordered)
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
        except BaseException:  # an interrupt (or the stream closed): end the tasks still running
            for ref in list(pending):
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # noqa: BLE001  (a task that finished meanwhile)
                    pass
            raise
        finally:
            if started:
                ray.shutdown()
