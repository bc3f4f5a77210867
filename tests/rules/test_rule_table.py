"""One table, one row per rule: an input that fires it with the numbers its finding must carry, and
an input that leaves it silent (it ran, or stood down, and printed nothing).

Log rules (and the live rule) are judged here on runs built with ``_rulekit``; the rules of the
other targets (datasets, tokenizers, checkpoints, the environment, a comparison) need real files or
probes and have their firing and silent cases in the test file named in ``COVERED_ELSEWHERE``.
``test_every_rule_has_a_row_or_a_named_exemption`` fails when a rule is added without either.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _rulekit import apply, decay, make_run

from trainlint.engine import run_rules
from trainlint.live.guard import LiveStatus
from trainlint.model import Damage, Run
from trainlint.registry import REGISTRY
from trainlint.verdict import Report

TESTS = Path(__file__).resolve().parents[1]
EV_STEPS = np.arange(20, 201, 20, dtype=float)


@dataclass(frozen=True)
class Case:
    """What to judge: a Run (log rules) or a LiveStatus (live rules), and the rule's extra facts."""

    subject: Any
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Row:
    code: str
    fires: Callable[[], Case]
    severity: str
    evidence: dict[str, Any]  # key -> expected value (approx for floats) or a predicate
    silent: Callable[[], Case]
    step: float | None = None
    says: tuple[str, ...] = ()  # text the message must contain (the numbers as printed)


def _run(loss=None, extra=None, **kw) -> Case:
    return Case(make_run(loss, **kw), dict(extra or {}))


def _with(arr, idx, value):
    arr = np.array(arr, dtype=float)
    arr[idx] = value
    return arr


def _wall(seconds):
    return np.cumsum(seconds)


def _rng_uniform(lo, hi, n, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, n)


def _gn(n=200, sd=0.05, seed=0):
    return np.abs(np.random.default_rng(seed).normal(1.0, sd, n))


def _diverging(n=100):
    return _with(decay(n, start=3, end=1), slice(60, None), np.linspace(1.2, 5.0, n - 60))


def _damaged() -> Case:
    run = make_run(decay(50))
    run.damage.append(Damage("truncated", "event file cut at byte 4096 (120 records read)", {"offset": 4096}))
    return Case(run)


def _overlap(share: float, identical: bool = False) -> dict[str, Any]:
    pair = {
        "train": "data/train.jsonl",
        "eval": "data/valid.jsonl",
        "identical": identical,
        "share": share,
        "eval_rows": 200,
        "shared_rows": round(200 * share),
        "shared_lines": [3, 17, 40][: round(200 * share)],
    }
    return {"split_overlap": [pair]}


def _live(silence: float, records: int = 50) -> Case:
    return Case(
        LiveStatus(records=records, last_step=500.0, last_record_time=1000.0, now=1000.0 + silence, cadence=20.0)
    )


def _eval_run(ev, train=None, meta=None) -> Case:
    train = decay(200, start=2, end=0.1, noise=0.01) if train is None else train
    return _run(train, eval_loss=np.asarray(ev, float), eval_steps=EV_STEPS, meta=meta)


def _between(lo, hi):
    return lambda v: lo <= v <= hi


def _stalls(big: float) -> np.ndarray:
    return _with(_rng_uniform(0.9, 1.1, 500), slice(49, None, 50), big)


ROWS = [
    # ---- nan
    Row(
        "TL001",
        lambda: _run(_with(decay(50), [30, 40], np.nan)),
        "FAIL",
        {"count": 2, "non_finite_to_end": False},
        lambda: _run(decay(50)),
        step=31,
        says=("step 31",),
    ),
    Row(
        "TL002",
        lambda: _run(decay(50), eval_loss=[2.0, 1.5, np.inf, np.inf], eval_steps=[10, 20, 30, 40]),
        "FAIL",
        {"count": 2, "non_finite_to_end": True},
        lambda: _run(decay(50), eval_loss=[2.0, 1.5], eval_steps=[10, 20]),
        step=30,
        says=("infinite",),
    ),
    Row(
        "TL003",
        lambda: _run(decay(60), grad_norm=_with(np.full(60, 0.5), [10, 40], np.inf)),
        "WARN",
        {"count": 2},
        lambda: _run(decay(60), grad_norm=np.full(60, 0.5)),
        step=11,
        says=("2 of 60",),
    ),
    Row(
        "TL004",
        lambda: _run(decay(60), grad_norm=_with(np.full(60, 0.5), 10, np.inf), fmt="hf-trainer-state"),
        "NOTE",
        {"grad_norm_non_finite": 1},
        lambda: _run(decay(60), grad_norm=np.full(60, 0.5)),
        says=("logging_nan_inf_filter",),
    ),
    Row(
        "TL005",
        lambda: _run(_with(decay(60), slice(45, None), 0.0)),
        "FAIL",
        {"tail_points": 15},
        lambda: _run(decay(60)),
        step=46,
    ),
    # ---- divergence
    Row(
        "TL010",
        lambda: _run(_diverging()),
        "FAIL",
        {"ratio": lambda v: v >= 2.0, "best_step": _between(40, 65)},
        lambda: _run(decay(100)),
        says=("diverged", "threshold 2x"),
    ),
    Row(
        "TL011",
        lambda: _run(_with(decay(200), slice(80, 120), 9.0 + np.random.default_rng(1).normal(0, 0.3, 40))),
        "FAIL",
        {
            "start_step": _between(78, 90),
            "end_step": _between(110, 121),
            "peak": lambda v: v > 9,
            "stretch_fraction": lambda v: v >= 0.1,
        },
        lambda: _run(_with(decay(200), slice(80, 85), 9.0)),
        says=("came back",),
    ),
    Row(
        "TL012",
        lambda: _run([2.29, 2.05, 1.8, 63020.0, 2.1, 2.0, 1.99, 1.97, 1.96, 1.95]),
        "FAIL",
        {"peak": 63020.0, "best_before": 1.8, "high_before": 2.29, "recovered": True, "points": 10},
        lambda: _run(decay(10)),
        step=4,
        says=("1 of 10 points", "fell back to 1.95"),
    ),
    Row(
        "TL013",
        lambda: _run(-3.0e4 * (1.0 + np.arange(70)) ** 1.8),
        "FAIL",
        {"ratio": lambda v: v > 100, "end_level": lambda v: v < -5e7, "points": 70},
        lambda: _run(np.linspace(606, -2242, 100)),
        step=70,
        says=("fell without bound", "still falling"),
    ),
    # ---- spikes
    Row(
        "TL020",
        lambda: _run(_with(decay(200, noise=0.01), [50, 120], decay(200, noise=0.01)[[50, 120]] * 3)),
        "NOTE",
        {"spike_steps": [51.0, 121.0], "recovered": 2, "score": lambda v: v > 6},
        lambda: _run(decay(200, noise=0.05)),
        says=("51, 121", "all recovered at once"),
    ),
    Row(
        "TL021",
        lambda: _run(decay(200, noise=0.01), grad_norm=_with(_gn(), [30, 80, 130], 20.0)),
        "WARN",
        {"spikes": 3},
        lambda: _run(decay(200), grad_norm=_gn(sd=0.1)),
    ),
    # ---- stagnation
    Row("TL030", lambda: _run(np.full(50, 2.5)), "FAIL", {"level": 2.5}, lambda: _run(decay(50))),
    Row(
        "TL031",
        lambda: _run(2.0 + np.random.default_rng(0).normal(0, 0.05, 200)),
        "WARN",
        {"start_level": _between(1.95, 2.05), "end_level": _between(1.95, 2.05)},
        lambda: _run(decay(200)),
    ),
    Row(
        "TL032",
        lambda: _run(decay(200, tau=15), lr=np.full(200, 1e-3)),
        "WARN",
        {"lr_fraction": 1.0, "end_level": _between(0.95, 1.05)},
        lambda: _run(decay(200, tau=100), lr=np.full(200, 1e-3)),
        step=101,
    ),
    Row(
        "TL033",
        lambda: _run(math.log(32000) + np.random.default_rng(0).normal(0, 0.05, 100), extra={"vocab_size": 32000}),
        "FAIL",
        {"classes": 32000, "ln_v": math.log(32000)},
        lambda: _run(decay(100, start=math.log(50000) + 1, end=3.0), extra={"vocab_size": 50000}),
        says=("vocab_size from option",),
    ),
    Row(
        "TL034",
        lambda: _run(math.log(9) + 0.014 - np.linspace(0, 0.09, 35), val_accuracy=1 / 9 + np.linspace(0, 0.04, 35)),
        "FAIL",
        {"classes": 9, "chance": 1 / 9, "skill": lambda v: 0 < v < 0.1},
        lambda: _run(math.log(9) - np.linspace(0, 0.09, 35), val_accuracy=np.linspace(0.11, 0.6, 35)),
        step=35,
        says=("1/9 = 0.1111", "ln 9 = 2.197"),
    ),
    Row(
        "TL035",
        lambda: _run(2.1 + 16.8 * np.exp(-np.arange(100) / 8), meta={"vocab_size": 151646}),
        "FAIL",
        {"first_loss": 18.9, "vocab_size": 151646, "ln_v": math.log(151646)},
        lambda: _run(2.1 + 8.0 * np.exp(-np.arange(100) / 8), meta={"vocab_size": 151646}),
        step=1,
        says=("V = 151,646", "ln V = 11.93"),
    ),
    # ---- learning rate
    Row(
        "TL040",
        lambda: _run(decay(50), lr=_with(np.full(50, 1e-4), slice(10, 30), 0.0)),
        "WARN",
        {"zero_points": 20},
        lambda: _run(decay(50), lr=np.full(50, 1e-4)),
        step=11,
    ),
    Row(
        "TL041",
        lambda: _run(decay(50, start=2.3, end=2.2), lr=np.linspace(0, 1e-4, 50)),
        "WARN",
        {"last_lr": 1e-4},
        lambda: _run(decay(50), lr=np.r_[np.linspace(0, 1e-4, 10), np.linspace(1e-4, 0, 40)]),
        says=("still rising",),
    ),
    # ---- gradients
    Row(
        "TL050",
        lambda: _run(decay(200), grad_norm=_with(_gn(sd=0.1), slice(100, 150), 50.0)),
        "WARN",
        {"ratio": lambda v: v > 10, "start_step": _between(95, 115), "stretch_fraction": lambda v: v >= 0.1},
        lambda: _run(decay(200), grad_norm=_with(_gn(sd=0.1), 100, 500.0)),
    ),
    Row(
        "TL051",
        lambda: _run(2.0 + np.random.default_rng(0).normal(0, 0.02, 100), grad_norm=np.zeros(100)),
        "FAIL",
        {"zero_points": 100},
        lambda: _run(decay(100), grad_norm=np.full(100, 0.5)),
    ),
    # ---- overfit, leakage, generalisation
    Row(
        "TL060",
        lambda: _eval_run([1.8, 1.5, 1.4, 1.5, 1.7, 1.9, 2.1, 2.3, 2.5, 2.6]),
        "WARN",
        {"best_eval": 1.4, "ratio": 2.5 / 1.4},
        lambda: _eval_run(np.linspace(2, 1.2, 10), train=decay(200)),
        step=60,
        says=("step 60",),
    ),
    Row(
        "TL061",
        lambda: _eval_run(
            np.r_[np.linspace(2.0, 1.0, 10)[:3], 1.0, np.full(6, 1.3)],
            train=decay(200, start=2, end=0.5),
            meta={"best_model_checkpoint": "out/checkpoint-80"},
        ),
        "WARN",
        {"later_evals": 6, "stale_fraction": 0.6},
        lambda: _eval_run(np.linspace(2, 1, 10), train=decay(200, start=2, end=0.5), meta={"best_global_step": 190}),
        step=80,
        says=("best_model_checkpoint",),
    ),
    Row(
        "TL065",
        lambda: _eval_run(decay(200, noise=0.0)[EV_STEPS.astype(int) - 1] * 1.001, train=decay(200, noise=0.0)),
        "WARN",
        {"evaluations": 10, "median_relative_gap": _between(0.0, 0.01)},
        lambda: _eval_run(decay(200, noise=0.01)[EV_STEPS.astype(int) - 1] * 1.1, train=decay(200, noise=0.01)),
    ),
    Row(
        "TL066",
        lambda: _eval_run(decay(200, noise=0.01)[EV_STEPS.astype(int) - 1] * 0.9, train=decay(200, noise=0.01)),
        "NOTE",
        {"median_relative_gap": _between(0.07, 0.13)},
        lambda: _eval_run(decay(200, noise=0.01)[EV_STEPS.astype(int) - 1] * 1.1, train=decay(200, noise=0.01)),
        says=("dropout",),
    ),
    Row(
        "TL067",
        lambda: _run(decay(50), extra=_overlap(0.015)),
        "WARN",
        {"shared_rows": 3, "eval_rows": 200, "share": 0.015, "threshold": 0.1},
        lambda: _run(decay(50), extra=_overlap(0.005)),
        says=("3 of 200 eval rows (1.5%)", "3, 17, 40"),
    ),
    Row(
        "TL070",
        lambda: _eval_run([3.0, 3.1, 3.05, 3.2, 3.3, 3.25, 3.4, 3.5, 3.45, 3.6], train=decay(200, start=4, end=1)),
        "FAIL",
        {"eval_first": 3.0, "evaluations": 10, "train_drop": lambda v: v > 0.5},
        lambda: _eval_run([3.0, 2.5, 3.05, 3.2, 3.3, 3.25, 3.4, 3.5, 3.45, 3.6], train=decay(200, start=4, end=1)),
    ),
    Row(
        "TL006",
        lambda: _run(
            decay(50),
            fmt="console/general",
            events=[
                {
                    "type": "skip",
                    "signature": "non-finite-skipped",
                    "line": 53,
                    "text": "NaN loss! Skipping",
                    "count": 12,
                }
            ],
        ),
        "WARN",
        {"line": 53, "count": 12, "threshold": 2},
        lambda: _run(decay(50), fmt="console/general", meta={"skips_scanned": True}),
        says=("12 line(s)", "line 53"),
    ),
    # ---- crash, completion
    Row(
        "TL080",
        lambda: _run(decay(50), steps=np.arange(10, 510, 10), meta={"max_steps": 1000}),
        "WARN",
        {"reached": 500, "planned": 1000},
        lambda: _run(decay(50), steps=np.arange(5, 255, 5), meta={"max_steps": 250}),
        says=("50%", "no completion record"),
    ),
    Row(
        "TL081",
        lambda: _run(decay(50), events=[{"type": "crash", "signature": "CUDA out of memory", "line": 812}]),
        "FAIL",
        {"line": 812},
        lambda: _run(decay(50), meta={"crash_scanned": True}),
        step=50,
        says=("line 812", "CUDA out of memory"),
    ),
    # ---- throughput, stalls
    Row(
        "TL085",
        lambda: _run(
            decay(200),
            wall=_wall(_with(_rng_uniform(0.9, 1.1, 200), slice(120, None), _rng_uniform(0.9, 1.1, 200)[120:] * 3)),
        ),
        "WARN",
        {"ratio": _between(2.5, 3.5), "source": lambda v: "wall-clock" in v},
        lambda: _run(decay(200), wall=_wall(_rng_uniform(0.9, 1.1, 200))),
    ),
    Row(
        "TL086",
        lambda: _run(decay(200), step_time=np.linspace(0.5, 1.5, 200)),
        "WARN",
        {"ratio": _between(2.0, 3.0), "source": lambda v: "step_time" in v},
        lambda: _run(decay(200), step_time=_rng_uniform(0.9, 1.1, 200)),
    ),
    Row(
        "TL087",
        lambda: _run(decay(500), step_time=_stalls(30.0)),
        "WARN",
        {"stalls": 10, "period": 50, "lost_fraction": lambda v: v > 0.3},
        lambda: _run(decay(500), step_time=_rng_uniform(0.9, 1.1, 500)),
    ),
    Row(
        "TL088",
        lambda: _run(decay(100), step_time=np.full(100, 1.0), data_time=np.full(100, 0.6)),
        "WARN",
        {"share": 0.6, "metric": "data_time"},
        lambda: _run(decay(100), step_time=np.full(100, 1.0), loader_time=np.full(100, 0.05)),
    ),
    Row(
        "TL090",
        lambda: _run(decay(100), wall=_wall(_with(_rng_uniform(9, 11, 100), 60, 3600.0))),
        "WARN",
        {"gap_seconds": 3600.0, "live": False},
        lambda: _run(decay(100), wall=_wall(_rng_uniform(9, 11, 100))),
        step=60,
        says=("after step 60",),
    ),
    # ---- resume, label floor, integrity
    Row(
        "TL095",
        lambda: _run(
            np.r_[decay(100, seed=1), decay(80, start=1.3, end=0.9, seed=2)],
            steps=np.r_[np.arange(1, 101), np.arange(61, 141)].astype(float),
        ),
        "NOTE",
        {"resumes": 1, "segments": 1, "resume_points": [[100.0, 61.0]], "resets_to_start": 0},
        lambda: _run(decay(50)),
        says=("100 -> 61",),
    ),
    Row(
        "TL089",
        lambda: _run(
            decay(100),
            events=[
                {
                    "type": "recovery",
                    "code": "TL001",
                    "fault_step": 60,
                    "restored_step": 50,
                    "skipped_steps": list(range(51, 61)),
                    "lr_before": [0.1],
                    "lr_after": [0.05],
                    "attempt": 1,
                    "outcome": "recovered",
                }
            ],
        ),
        "NOTE",
        {"fault": "TL001", "restored_step": 50, "skipped": 10, "attempt": 1},
        lambda: _run(decay(100), events=[{"type": "guard-log", "path": "trainlint-guard.jsonl", "recoveries": 0}]),
        step=60,
        says=("rolled back to step 50", "steps 51-60", "LR 0.1 -> 0.05"),
    ),
    Row(
        "TL099",
        lambda: _run(decay(200, start=3, end=math.log(4), noise=0.01), extra={"label_entropy": math.log(4)}),
        "FAIL",
        {"entropy": math.log(4), "threshold": 0.95 * math.log(4)},
        lambda: _run(decay(200, start=3, end=0.2, noise=0.01), extra={"label_entropy": math.log(4)}),
    ),
    Row(
        "TL100",
        _damaged,
        "WARN",
        {"kind": "truncated", "offset": 4096},
        lambda: _run(decay(50)),
        says=("cut at byte 4096",),
    ),
    # ---- live
    Row(
        "TL450",
        lambda: _live(900.0),
        "WARN",
        {"silence_s": 900.0, "cadence_s": 20.0, "threshold_s": 200.0},
        lambda: _live(150.0),
        step=500,
        says=("900 s", "45x", "threshold 200 s"),
    ),
]

# Rules whose firing and silent cases need real files or probes. Each line names the test file
# that covers the rule; the meta-test checks that file exists and names the code.
COVERED_ELSEWHERE = {
    # archive safety (zip bombs, unsafe member names, shard indexes outside their folder): the
    # hostile-input corpus, each case with its expected codes, run by tests/test_bad_inputs.py
    **dict.fromkeys(["TL347", "TL348", "TL349"], "bad_inputs/cases.toml"),
    **dict.fromkeys([f"TL{n}" for n in range(200, 218)], "dataset/test_data.py"),  # datasets
    "TL216": "dataset/test_data_formats.py",  # rows in another split (needs two files)
    **dict.fromkeys([f"TL{n}" for n in range(240, 249)], "tokenizer/test_tokenizer.py"),  # tokenizer folders
    # checkpoints: torch archives, safetensors / sharded / HF / DeepSpeed folders, pickles, real frameworks
    **dict.fromkeys(
        ["TL300", "TL302", "TL303", "TL305", "TL306", "TL308", "TL312", "TL330", "TL331", "TL332", "TL343"],
        "checkpoint/test_ckpt_torch.py",
    ),
    **dict.fromkeys(
        ["TL301", "TL307", "TL311", "TL313", "TL314", "TL315", "TL316", "TL317", "TL319", "TL321", "TL322"],
        "checkpoint/test_ckpt_formats.py",
    ),
    **dict.fromkeys(["TL318", "TL320", "TL342"], "checkpoint/test_ckpt_frameworks.py"),
    **dict.fromkeys(["TL304", "TL340", "TL341"], "checkpoint/test_ckpt_security.py"),
    "TL310": "inspectors/test_options.py",
    # environment: a child process importing the entrypoint, probes, nvidia-smi, metadata, configs
    **dict.fromkeys(["TL400", "TL401", "TL402", "TL403"], "environment/test_env_entrypoint.py"),
    **dict.fromkeys(["TL410", "TL411", "TL412", "TL413", "TL414"], "environment/test_env_resources.py"),
    **dict.fromkeys(["TL420", "TL421", "TL422", "TL423", "TL424", "TL425"], "environment/test_env_gpu.py"),
    **dict.fromkeys(["TL430", "TL431"], "environment/test_env_versions.py"),
    **dict.fromkeys([f"TL{n}" for n in range(435, 442)], "environment/test_env_config.py"),
    # comparison with a baseline: aligned generated runs
    **dict.fromkeys([f"TL{n}" for n in range(150, 161)], "inspectors/test_compare.py"),
}


def _judge(code: str, case: Case) -> Report:
    if isinstance(case.subject, Run):
        return apply(code, case.subject, case.extra)
    return run_rules(
        "live", case.subject, Report(source="live", kind="log"), None, case.extra, only=lambda r: r.code == code
    )


def _matches(want: Any, got: Any) -> bool:
    if callable(want):
        return bool(want(got))
    if isinstance(want, float) and isinstance(got, (int, float)):
        return got == pytest.approx(want, rel=1e-9, abs=1e-12)
    return want == got


@pytest.mark.parametrize("row", ROWS, ids=[r.code for r in ROWS])
def test_fires_with_its_numbers(row: Row):
    rep = _judge(row.code, row.fires())
    assert row.code in rep.checks.ran, rep.checks.to_dict()
    assert len(rep.findings) == 1, [f.message for f in rep.findings]
    f = rep.findings[0]
    assert (f.code, f.severity.value) == (row.code, row.severity), f.message
    wrong = {
        k: f.evidence.get(k, "<missing>")
        for k, v in row.evidence.items()
        if k not in f.evidence or not _matches(v, f.evidence[k])
    }
    assert not wrong, (wrong, f.message)
    if row.step is not None:
        assert f.step == row.step, f.message
    for text in row.says:
        assert text in f.message, f.message


@pytest.mark.parametrize("row", ROWS, ids=[r.code for r in ROWS])
def test_silent_on_its_quiet_input(row: Row):
    rep = _judge(row.code, row.silent())
    assert row.code in rep.checks.ran, rep.checks.to_dict()
    assert rep.findings == [], [f.message for f in rep.findings]


def test_every_rule_has_a_row_or_a_named_exemption():
    rows = [r.code for r in ROWS]
    assert len(rows) == len(set(rows)), "a rule has two rows"
    registry = {
        r.code: r.target
        for target in ("log", "live", "dataset", "tokenizer", "checkpoint", "environment", "comparison")
        for r in REGISTRY.all(target)
    }
    assert set(rows) <= set(registry), set(rows) - set(registry)
    assert not set(rows) & set(COVERED_ELSEWHERE), "a rule with a row needs no exemption"
    assert {c for c, t in registry.items() if t in ("log", "live")} <= set(rows), "log and live rules need a row"
    missing = set(registry) - set(rows) - set(COVERED_ELSEWHERE)
    assert not missing, f"rules with neither a row here nor a test named in COVERED_ELSEWHERE: {sorted(missing)}"
    assert not set(COVERED_ELSEWHERE) - set(registry), "exemptions for codes no longer registered"
    for code, name in COVERED_ELSEWHERE.items():
        text = (TESTS / name).read_text()
        assert re.search(rf"\b{code}\b", text), f"{code}: {name} does not test it"
