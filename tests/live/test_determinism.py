"""The guard's verdicts depend on the records alone (issue 31): the same stream gives the same
findings at the same records with the same numbers, idle or with every core busy, and the
guard's final findings are doctor's for every run of the examples, the gallery and the
shared evidence."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from trainlint.api import read_run
from trainlint.engine import judge_run
from trainlint.live.replay import replay

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "evidence"  # trainlint's own fault-injection gallery


def _runs(evidence_dir: Path | None):
    from trainlint.discover import walk

    folders = [ROOT / "examples", GALLERY] + ([evidence_dir] if evidence_dir is not None else [])
    out = []
    for folder in folders:
        for item in walk(folder):
            if item.inspector.kind != "log":
                continue
            try:
                run = read_run(item.path)
            except Exception:  # noqa: BLE001 - unreadable files are the readers' tests' business
                continue
            if run.has("loss"):
                out.append((item.path, run))
    return out


def _evidence_or_none():
    from conftest import EVIDENCE

    return EVIDENCE if EVIDENCE.is_dir() else None


def _replay_all(runs):
    """Each run replayed with stop_on=FAIL: (every announcement with the record count it came
    at, the stop, the final findings)."""
    out = {}
    for path, run in runs:
        guard, report = replay(run, stop_on="FAIL")
        out[str(path)] = (
            [(n, step, f.to_dict()) for n, step, f in guard.timeline],
            guard.stop_reason.to_dict() if guard.stop_reason else None,
            [f.to_dict() for f in report.findings],
        )
    return out


class _Burners:
    """One CPU-burning process per core while the block runs."""

    def __enter__(self):
        code = "while True:\n    pass"
        self.procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(os.cpu_count() or 2)]
        time.sleep(0.2)  # let them start spinning
        return self

    def busy(self) -> bool:
        return all(p.poll() is None for p in self.procs)

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


@pytest.fixture(scope="module")
def runs():
    found = _runs(_evidence_or_none())
    assert len(found) >= 30  # the examples and the gallery at least
    return found


def test_same_findings_idle_and_under_load(runs):
    idle = _replay_all(runs)
    with _Burners() as load:
        loaded = _replay_all(runs)
        assert load.busy()
    assert loaded.keys() == idle.keys()
    for path in idle:
        assert loaded[path] == idle[path], path
    assert any(timeline for timeline, _, _ in idle.values())  # something was announced live


def test_final_findings_are_doctors(runs):
    for path, run in runs:
        _, report = replay(run)
        assert [f.to_dict() for f in report.findings] == [f.to_dict() for f in judge_run(run).findings], path


@pytest.mark.parametrize(
    "rel",
    [
        "catgpt-so-vits-svc-32k-train-1140/train.log",
        "tts-vits-finetuned-coqui-trainer-log-1143/trainer_0_log.txt",
    ],
)
def test_a_gan_generators_plateau_is_the_same_note_live(rel):
    """TL032 says NOTE on a GAN generator's objective with a discriminator term beside it (two
    calibration voice models of the real-log corpus): the guard's final finding is doctor's."""
    path = ROOT / "tests" / "realworld" / "cache" / rel
    if not path.is_file():
        pytest.skip("the real-log cache is not on this machine (scripts/realworld_fetch.py)")
    run = read_run(path)
    _, report = replay(run)
    live = [f.to_dict() for f in report.findings]
    assert live == [f.to_dict() for f in judge_run(run).findings]
    assert [(f["severity"], f["evidence"]["discriminator"]) for f in live if f["code"] == "TL032"] == [
        ("NOTE", "loss_disc")
    ]


def test_gallery_healthy_runs_never_fail_live_and_broken_ones_fail_early(runs):
    gallery = [(p, r) for p, r in runs if GALLERY in p.parents]
    assert len(gallery) >= 30
    for path, run in gallery:
        guard, _ = replay(run, stop_on="FAIL")
        fails = [step for _, step, f in guard.timeline if f.severity.value == "FAIL"]
        if judge_run(run).verdict.value != "FAIL":
            assert not fails and not guard.should_stop, path
        else:
            assert guard.should_stop and fails and fails[0] < 300, path


def _clock_uses(path: Path) -> list[str]:
    """Every name of the time, datetime, threading, sched or asyncio modules that ``path``
    reads, as ``module.name`` (``import time`` alone counts as ``time``)."""
    import ast

    clocks = {"time", "datetime", "threading", "sched", "asyncio"}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    uses = []
    imported = {  # the clock modules this file imports, by the name it uses (``sched`` may be a scheduler)
        a.asname or a.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for a in node.names
        if a.name.split(".")[0] in clocks
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in clocks:
            uses += [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in imported:
            uses.append(f"{node.value.id}.{node.attr}")
    return sorted(uses)


def test_no_guard_judges_on_a_timer():
    """watch and the framework callbacks (HF, Lightning, Keras, Ray's stopper, Optuna's pruner)
    feed records to the guard, whose schedule counts records; none reads a clock to decide when
    to judge. The only clock reads are the guard's record stamps (records given no wall time)
    and watch's polling (how often it reads the files, and the stall rule's feed status)."""
    src = ROOT / "src" / "trainlint"
    found = {
        str(p.relative_to(src)): _clock_uses(p)
        for folder in ("live", "integrations")
        for p in sorted((src / folder).glob("*.py"))
        if _clock_uses(p)
    }
    assert found == {"live/guard.py": ["time.time"], "live/watch.py": ["time.sleep", "time.time"]}


def test_final_findings_are_doctors_on_the_calibration_logs():
    """The same over every calibration log of the real-log corpus here (359 runs when the cache is
    fetched; skipped without it): the guard fed a run record by record ends with doctor's
    findings, in doctor's order. It found the replay sorting restarts away, the reader's events
    not handed over, the guard's run not of its file's format, and a --map'd metric given a
    second role."""
    from _calibration import calibration_logs

    replayed, differ = 0, []
    for entry, path in calibration_logs(max_bytes=10_000_000):
        try:
            run = read_run(path)
        except Exception:  # what the reader refuses, doctor reports; nothing to replay
            continue
        if not run.series:
            continue
        _, report = replay(run)
        replayed += 1
        if [f.to_dict() for f in report.findings] != [f.to_dict() for f in judge_run(run).findings]:
            differ.append(entry)
    if replayed < 100:
        pytest.skip(f"{replayed} calibration runs here (the corpus cache is not fetched)")
    assert differ == []
