"""The pre-commit hooks (.pre-commit-hooks.yaml) and the GitHub composite action (action.yml):
their file patterns, and their commands run the way pre-commit and Actions run them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1", **extra}
    env.pop("TRAINLINT_DEBUG", None)
    return env


def _hooks() -> dict[str, dict]:
    return {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def _run_hook(hook: dict, repo: Path) -> tuple[int, str, list[str]]:
    """What pre-commit does: the staged files matching ``files`` and not ``exclude``, appended to
    ``entry`` (the ``trainlint`` console script is ``python -m trainlint`` from this checkout)."""
    staged = _git(repo, "diff", "--cached", "--name-only").split()
    chosen = [f for f in staged if re.search(hook["files"], f) and not re.search(hook.get("exclude", "^$"), f)]
    if not chosen:
        return 0, "", []
    cmd = hook["entry"].split()
    assert cmd[0] == "trainlint"
    proc = subprocess.run(
        [sys.executable, "-m", "trainlint", *cmd[1:], *chosen],
        cwd=repo,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
        check=False,
    )
    return proc.returncode, proc.stdout + proc.stderr, chosen


@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "repo"
    r.mkdir()
    _git(r, "init", "-q")
    return r


def test_hook_definitions():
    hooks = _hooks()
    assert set(hooks) == {"trainlint-data", "trainlint-doctor"}
    for h in hooks.values():
        assert h["language"] == "python" and h["entry"].startswith("trainlint ")
        assert {"name", "description", "files"} <= set(h)
    data, logs = hooks["trainlint-data"], hooks["trainlint-doctor"]
    assert re.search(data["files"], "data/train.jsonl") and re.search(data["files"], "x/y.parquet")
    assert re.search(data["exclude"], "lightning_logs/version_0/metrics.csv")
    assert not re.search(data["files"], "package.json")
    for name in (
        "out/trainer_state.json",
        "logs/metrics.csv",
        "runs/a/events.out.tfevents.1.host.2.0",
    ):
        assert re.search(logs["files"], name), name
    assert not re.search(logs["files"], "src/model.py")


def test_data_hook_on_a_temporary_repo(repo):
    hook = _hooks()["trainlint-data"]
    good = repo / "train.jsonl"
    good.write_text("".join(json.dumps({"text": f"example {i}"}) + "\n" for i in range(20)))
    (repo / "README.md").write_text("hi\n")
    _git(repo, "add", ".")
    code, out, chosen = _run_hook(hook, repo)
    assert chosen == ["train.jsonl"] and code == 0, out
    good.write_text(good.read_text() + "{not json\n")
    _git(repo, "add", ".")
    code, out, _ = _run_hook(hook, repo)
    assert code == 1 and "FAIL" in out and "train.jsonl" in out


def test_doctor_hook_on_a_temporary_repo(repo):
    hook = _hooks()["trainlint-doctor"]
    run = repo / "out"
    run.mkdir()
    entries = [
        {
            "step": 10 * (i + 1),
            "loss": 2.0 - 0.01 * i if i < 20 else float("nan"),
            "learning_rate": 1e-4,
        }
        for i in range(40)
    ]
    (run / "trainer_state.json").write_text(json.dumps({"max_steps": 400, "log_history": entries}))
    _git(repo, "add", ".")
    code, out, chosen = _run_hook(hook, repo)
    assert chosen == ["out/trainer_state.json"]
    assert code == 1 and "TL001" in out and "short summary" not in out.split("FAIL", 1)[0]


def test_action_definition():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    doctor = next(s for s in steps if s.get("id") == "doctor")
    assert "scripts/action.sh" in doctor["run"] and doctor["shell"] == "bash"
    assert any("upload-sarif" in s.get("uses", "") for s in steps)
    assert {"paths", "args", "fail-on", "sarif", "upload-sarif"} <= set(action["inputs"])
    assert (ROOT / "scripts" / "action.sh").is_file()


@pytest.mark.parametrize("fail_on,expect", [("fail", 0), ("warn", 1)])
def test_action_script_runs_locally(tmp_path, fail_on, expect):
    entries = [{"step": 10 * (i + 1), "loss": 2.0 * 0.97**i, "learning_rate": 1e-4} for i in range(20)]
    log = tmp_path / "run" / "trainer_state.json"
    log.parent.mkdir()
    log.write_text(json.dumps({"max_steps": 2000, "log_history": entries}))  # stops early: WARN
    summary, outputs, sarif = (
        tmp_path / "summary.md",
        tmp_path / "out.txt",
        tmp_path / "r.sarif",
    )
    env = _env(
        TRAINLINT=f"{sys.executable} -m trainlint",
        TL_PATHS=str(log.parent),
        TL_FAIL_ON=fail_on,
        TL_SARIF=str(sarif),
        GITHUB_STEP_SUMMARY=str(summary),
        GITHUB_OUTPUT=str(outputs),
        TL_ARGS="",
    )
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "action.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == expect, proc.stdout + proc.stderr
    assert "::warning file=" in proc.stdout and "title=TL080 run-incomplete::" in proc.stdout
    assert summary.read_text().startswith("## trainlint doctor: WARN")
    assert json.loads(sarif.read_text())["runs"][0]["results"]
    assert outputs.read_text().splitlines() == ["verdict=WARN", f"exit-code={expect}"]
