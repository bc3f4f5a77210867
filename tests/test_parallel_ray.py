"""doctor --ray: the per-input work as Ray tasks on a local Ray (CPU), the same output as --jobs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainlint import api
from trainlint.cli import main

pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parents[1]
CORPUS = [ROOT / "examples", ROOT / "evidence"]


def test_local_ray_gives_the_pool_result_and_streams_each_report():
    import ray

    pooled = api.doctor(CORPUS, jobs=2)
    seen = []
    from trainlint.integrations.ray_doctor import RayExecutor

    on_ray = api.doctor(CORPUS, jobs=2, executor=RayExecutor("local", num_cpus=2), on_report=seen.append)
    assert not ray.is_initialized()  # the Ray trainlint started is shut down again
    assert json.dumps(on_ray.to_dict()) == json.dumps(pooled.to_dict())
    assert sorted(r.source for r in seen) == sorted(r.source for r in pooled.reports)
    assert len(seen) > 20


def test_cli_ray_flag_output_identical_to_jobs():
    runner = CliRunner()
    args = ["doctor", *map(str, CORPUS), "--format", "json"]
    jobs = runner.invoke(main, [*args, "--jobs", "2"])
    on_ray = runner.invoke(main, [*args, "--jobs", "2", "--ray"])  # no ADDRESS: a local Ray
    assert jobs.exit_code == on_ray.exit_code == 1
    assert json.loads(on_ray.output) == json.loads(jobs.output)
