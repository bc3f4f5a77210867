"""The HF and Lightning callbacks under real 2-process DDP on CPU (gloo): one guard log per run,
written by rank 0; the same verdict on every rank, and the same as the single-process run of the
same global batches; a stop on FAIL taken by every rank at the same step (a rank that goes on
alone hangs the job at the next all-reduce, which the launch timeout turns into a failure);
no traceback with the guard disabled, on a stop, or at a normal end; a rollback (recover=True)
of a NaN on one rank taken by every rank alike.

One launch per framework runs every scenario (tests/_ddp_runs.py); the single-process reference
runs in this process."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="torch (CPU build) is a test dependency: pip install torch==2.13.0")
if not (torch.distributed.is_available() and torch.distributed.is_gloo_available()):
    pytest.skip("this torch build has no gloo backend", allow_module_level=True)

import _ddp_runs  # noqa: E402  (needs torch)

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
SCENARIOS = ("nan", "healthy", "off", "recover")
LAUNCH_TIMEOUT = 150  # s: one launch takes ~20 s on 2 busy cores, over 50 s under load 10; a hung rank fails here
FRAMEWORK_MODULE = {"hf": "transformers", "lightning": "lightning"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(framework: str, out: Path) -> dict:
    """Run every scenario under 2-process DDP; the exit code, output and seconds of the launch."""
    script = [str(TESTS / "_ddp_runs.py"), framework, str(out), ",".join(SCENARIOS)]
    port = free_port()
    if framework == "hf":
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", str(port)]
        cmd += script
    else:
        cmd = [sys.executable, *script, "--devices", "2"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(TESTS)]), MASTER_PORT=str(port))
    env.update(OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    start = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=LAUNCH_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # every rank: the launcher's session
        output, _ = proc.communicate()
        pytest.fail(f"{framework} DDP launch hung for {LAUNCH_TIMEOUT} s:\n{output.decode(errors='replace')[-3000:]}")
    return {"rc": proc.returncode, "output": output.decode(errors="replace"), "seconds": time.monotonic() - start}


def results(out: Path) -> dict[str, dict[int, dict]]:
    return {
        s: {int(p.stem[4:]): json.loads(p.read_text()) for p in sorted((out / s).glob("rank*.json"))} for s in SCENARIOS
    }


def log_records(out: Path, scenario: str) -> list[dict]:
    lines = (out / scenario / "trainlint-guard.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.fixture(scope="module", params=["hf", "lightning"])
def runs(request, tmp_path_factory):
    """The framework's DDP launch and its single-process reference, scenario by scenario."""
    framework = request.param
    pytest.importorskip(FRAMEWORK_MODULE[framework])
    ddp_out, single_out = tmp_path_factory.mktemp(f"{framework}-ddp"), tmp_path_factory.mktemp(f"{framework}-one")
    ddp = launch(framework, ddp_out)
    for scenario in SCENARIOS:
        folder = single_out / scenario
        folder.mkdir()
        if framework == "hf":
            _ddp_runs.hf(folder, scenario)
        else:
            _ddp_runs.lightning(folder, scenario, 1)
    return {"framework": framework, "ddp": ddp, "ddp_out": ddp_out, "single_out": single_out}


def test_ddp_launch_ends_cleanly_in_every_scenario(runs):
    ddp = runs["ddp"]
    assert ddp["rc"] == 0, ddp["output"][-3000:]
    assert "Traceback" not in ddp["output"], ddp["output"][-3000:]
    got = results(runs["ddp_out"])
    assert all(sorted(got[s]) == [0, 1] for s in SCENARIOS), got
    assert all(r["world"] == 2 for s in SCENARIOS for r in got[s].values())


def test_ddp_nan_stops_every_rank_at_the_single_process_step(runs):
    """NaN on rank 1 only (from step NAN_STEP): both ranks stop, at the step the single-process
    run stops at, well before the planned end."""
    ranks = results(runs["ddp_out"])["nan"]
    single = results(runs["single_out"])["nan"][0]
    assert single["stopped"] and _ddp_runs.NAN_STEP <= single["step"] < _ddp_runs.STEPS
    assert [(r["stopped"], r["step"]) for r in ranks.values()] == [(True, single["step"])] * 2


@pytest.mark.parametrize("scenario", ["healthy", "off", "recover"])
def test_ddp_runs_to_the_end_when_nothing_stops_it(runs, scenario):
    """Healthy, NaN with the guard disabled (no stop policy), or one NaN step rolled back
    (recover=True): every rank trains every step."""
    ranks = results(runs["ddp_out"])[scenario]
    assert [(r["stopped"], r["step"]) for r in ranks.values()] == [(False, _ddp_runs.STEPS)] * 2


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_ddp_report_is_the_single_process_report_on_every_rank(runs, scenario):
    ranks = results(runs["ddp_out"])[scenario]
    single = results(runs["single_out"])[scenario][0]
    expected = {"healthy": "PASS", "nan": "FAIL", "off": "FAIL", "recover": "PASS"}[scenario]
    assert single["verdict"] == expected
    assert (["TL089", "NOTE"] in single["findings"]) == (scenario == "recover")  # the rollback
    for r in ranks.values():
        assert (r["verdict"], r["findings"]) == (single["verdict"], single["findings"])


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_ddp_writes_one_guard_log_from_rank_0(runs, scenario):
    """One log per run, one start and one end in it, and the same records as the single-process
    run's log (rank 1 writes nothing)."""
    out = runs["ddp_out"] / scenario
    assert sorted(p.name for p in out.rglob("trainlint-*")) == ["trainlint-guard.jsonl"]

    def shape(records):
        return [(r["type"], r.get("code"), r.get("severity"), r.get("at_step")) for r in records]

    got = log_records(runs["ddp_out"], scenario)
    assert [r["type"] for r in got].count("start") == 1 and got[-1]["type"] == "end"
    assert shape(got) == shape(log_records(runs["single_out"], scenario))


def test_a_guard_off_the_main_rank_writes_nothing_and_stops_nothing(tmp_path):
    """make_guard(main=False): the records are kept, the log and the stop policy are the main
    rank's alone (even a log_path given explicitly)."""
    from trainlint.integrations._common import make_guard

    given = {"stop_on": "FAIL", "log_path": tmp_path / "given.jsonl"}
    side = make_guard(given, tmp_path, {}, main=False)
    main = make_guard({"stop_on": "FAIL"}, tmp_path, {})
    for step in range(1, 31):
        loss = float("nan") if step > 20 else 1.0 / step
        side.observe(step, loss=loss, wall_time=float(step))
        main.observe(step, loss=loss, wall_time=float(step))
    assert main.should_stop and not side.should_stop and side.history.records == 30
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trainlint-guard.jsonl"]
