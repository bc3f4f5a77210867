"""Comparison with a baseline, on generated runs: alignment, band, every TL150-TL159 rule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainlint.compare.align import align, planned_length
from trainlint.config import Settings
from trainlint.inspectors.comparison import Baseline, compare_run
from trainlint.model import Run
from trainlint.roles import assign_roles
from trainlint.rules.band import limits

BAND_T = {"band_warn_sigmas": 3.0, "band_fail_sigmas": 6.0, "band_min_margin": 0.08}


def make_run(
    seed: int,
    *,
    n: int = 150,
    every: int = 10,
    start: float = 3.0,
    floor: float = 1.0,
    tau: float = 0.2,
    noise: float = 0.04,
    lr: float = 3e-4,
    name: str | None = None,
    loss=None,
    lr_values=None,
    grad=None,
    speed: float = 100.0,
    eval_every: int = 0,
    max_steps: float | None = None,
) -> Run:
    """A noisy decaying loss of one recipe: warm-up + cosine LR, grad norm, throughput."""
    rng = np.random.default_rng(seed)
    steps = np.arange(1, n + 1) * every
    frac = steps / steps[-1]
    clean = floor + (start - floor) * np.exp(-frac / tau)
    values = clean * np.exp(rng.normal(0, noise, n)) if loss is None else np.asarray(loss, float)
    run = Run(source=name or f"seed{seed}.jsonl", format="generated")
    run.add("loss", steps, values)
    warm = np.minimum(1.0, frac / 0.05)
    run.add("learning_rate", steps, lr * warm * 0.5 * (1 + np.cos(np.pi * frac)) if lr_values is None else lr_values)
    run.add(
        "grad_norm", steps, (0.5 + 0.5 * np.exp(-frac / tau)) * np.exp(rng.normal(0, 0.1, n)) if grad is None else grad
    )
    run.add("throughput", steps, speed * np.exp(rng.normal(0, 0.02, n)))
    if eval_every:
        es = steps[eval_every - 1 :: eval_every]
        run.add("eval_loss", es, (floor * 1.1 + (start - floor) * np.exp(-es / steps[-1] / tau)))
    if max_steps is not None:
        run.meta["max_steps"] = max_steps
    run.roles = assign_roles(run.series)
    return run


def judge(run: Run, baselines: list[Run], mode: str = "auto", settings: Settings | None = None):
    base = Baseline(sources=[b.source for b in baselines], runs=baselines)
    return compare_run(run, base, settings or Settings(), mode)


def codes(report, severity=None):
    return {f.code for f in report.findings if severity is None or f.severity.value == severity}


def finding(report, code):
    return next(f for f in report.findings if f.code == code)


SEEDS = [make_run(s) for s in (1, 2, 3)]


# ---- healthy seeds pass against each other; faults fail against them --------------------------


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(0, 10_000), st.integers(0, 10_000))
def test_seeds_of_one_recipe_pass_against_each_other(a, b, c):
    run = make_run(a, name="run.jsonl")
    one = judge(run, [make_run(b)])
    band = judge(run, [make_run(b), make_run(c + 10_001)])
    for rep in (one, band):
        assert rep.verdict.value == "PASS", [f.message for f in rep.findings]


@pytest.mark.parametrize("baselines", [SEEDS[:1], SEEDS], ids=["one-baseline", "band-of-three"])
@pytest.mark.parametrize(
    "fault,code",
    [
        (dict(floor=3.0, start=6.0), "TL150"),
        (dict(loss=np.r_[np.linspace(3, 1, 75), np.linspace(1, 6, 75)]), "TL151"),
        (dict(loss=3.0 * np.exp(np.random.default_rng(5).normal(0, 0.04, 150))), "TL152"),
    ],
)
def test_faulty_runs_fail_against_healthy_seeds(baselines, fault, code):
    rep = judge(make_run(99, name="bad.jsonl", **fault), baselines)
    assert rep.verdict.value == "FAIL"
    assert code in codes(rep, "FAIL"), [f.message for f in rep.findings]


def test_identical_run_passes_and_table_has_unit_ratios():
    rep = judge(SEEDS[0], [SEEDS[0]])
    assert rep.verdict.value == "PASS"
    cells = rep.summary["metrics"]
    assert cells["loss_floor"]["ratio"] == pytest.approx(1.0)
    assert cells["loss_gap"]["run"] == pytest.approx(1.0)
    assert rep.kind == "comparison"


# ---- band ------------------------------------------------------------------------------------


def test_single_baseline_uses_documented_ratios():
    lim = limits([2.0], 1.15, 1.5, BAND_T)
    assert (lim.warn, lim.fail) == (pytest.approx(2.3), pytest.approx(3.0))
    assert "1 baseline run" in lim.basis


def test_band_is_tighter_than_ratios_when_seeds_agree():
    lim = limits([1.00, 1.015, 0.985], 1.15, 1.5, BAND_T)
    assert lim.warn == pytest.approx(1.015 + 3 * 0.015 * 4.303 / 1.96)  # worst + 3 widened SDs, not 1.15
    assert lim.fail == pytest.approx(1.015 + 6 * 0.015 * 4.303 / 1.96)  # worst + 6 widened SDs, not 1.5
    assert lim.severity(1.12) == "WARN" and lim.severity(1.25) == "FAIL" and lim.severity(1.05) is None
    close = limits([1.000, 1.001, 0.999, 1.000, 1.001], 1.15, 1.5, BAND_T)
    assert close.warn == pytest.approx(1.08)  # the minimum margin
    assert close.fail == pytest.approx(1.15)  # never below the WARN ratio
    two = limits([1.00, 1.02], 1.15, 1.5, BAND_T)  # the SD of two runs says little: widened 6.5x
    assert two.warn == pytest.approx(1.01 * 1.15)  # capped by the ratio to the median


def test_band_never_looser_than_ratios_and_lower_is_worse_mirrors():
    wide = limits([1.0, 2.0, 1.5], 1.15, 1.5, BAND_T)
    assert wide.warn == pytest.approx(1.5 * 1.15) and wide.fail == pytest.approx(1.5 * 1.5)
    low = limits([0.30, 0.31, 0.29], 0.5, 0.25, BAND_T)
    assert low.severity(0.2) == "WARN" and low.severity(0.1) == "FAIL" and low.severity(0.29) is None
    never = limits([100.0, 101.0], 0.7, 0.0, BAND_T)
    assert never.fail == 0.0 and never.severity(1.0) == "WARN"


def test_band_catches_what_the_ratio_lets_through():
    run = make_run(7, name="slightly.jsonl", floor=1.12, start=3.36)
    assert "TL150" not in codes(judge(run, SEEDS[:1]))
    tight = [make_run(s, noise=0.005) for s in (11, 12, 13)]
    f = finding(judge(run, tight), "TL150")
    assert f.severity.value == "WARN" and "band of 3 baseline runs" in f.message
    assert f.evidence["ratio"] == pytest.approx(1.12, rel=0.05)


# ---- alignment -------------------------------------------------------------------------------


def test_same_length_aligns_by_step_different_lengths_by_fraction():
    al = align(SEEDS[0], SEEDS[1:])
    assert al.mode == "step" and (al.lo, al.hi) == (10.0, 1500.0)
    long = make_run(4, n=500, every=10, name="long.jsonl")
    al = align(long, SEEDS[:1])
    assert al.mode == "fraction" and al.hi == pytest.approx(1.0)
    rep = judge(long, SEEDS[:1])
    assert rep.verdict.value == "PASS"
    assert finding(rep, "TL158").severity.value == "NOTE"
    assert "aligned by fraction" in finding(rep, "TL158").message


def test_planned_length_comes_from_max_steps_so_a_cut_run_stays_cut():
    cut = make_run(
        5, n=60, name="cut.jsonl", max_steps=1500, loss=(1 + 2 * np.exp(-np.arange(1, 61) * 10 / 1500 / 0.2))
    )
    assert planned_length(cut) == 1500
    rep = judge(cut, SEEDS[:1])
    assert rep.summary["alignment"]["mode"] == "step"
    f = finding(rep, "TL158")
    assert "covers only" in f.message and f.evidence["coverage"]["seed1.jsonl"] < 0.5
    assert rep.verdict.value == "PASS"  # the first 40 % match the baseline's first 40 %


@pytest.mark.parametrize("bad", [float("inf"), "1500", True])
def test_planned_length_ignores_a_max_steps_that_is_no_plan(bad):
    run = make_run(5, n=60, name="cut.jsonl")
    run.meta["max_steps"] = bad
    assert planned_length(run) == float(run.get("loss").steps[-1])


def test_no_overlap_in_steps_stands_down_and_is_not_checked():
    late = make_run(6, name="late.jsonl")
    late.series["loss"].steps = late.series["loss"].steps + 100_000
    rep = judge(late, SEEDS[:1], mode="step")
    assert rep.verdict.value == "NOT-CHECKED"
    assert "no overlap in steps" in rep.checks.stood_down["TL150"]
    assert "no overlap" in rep.unjudged


def test_too_few_points_stand_down():
    short = make_run(6, n=3, name="short.jsonl")
    rep = judge(short, [make_run(8, n=3)])
    assert "too few loss points" in rep.checks.stood_down["TL151"]
    assert rep.verdict.value == "NOT-CHECKED"


# ---- each rule: fires with the right numbers, and stands down ---------------------------------


def test_tl150_floor_cites_both_sides():
    rep = judge(make_run(9, name="floor.jsonl", floor=6.0, start=18.0), SEEDS[:1])
    f = finding(rep, "TL150")
    assert f.severity.value == "FAIL"
    assert f.evidence["ratio"] == pytest.approx(6.0, rel=0.1)
    assert f.evidence["baseline"] == pytest.approx(1.0, rel=0.1)
    assert f"{f.evidence['value']:.4g}" in f.message and f"{f.evidence['baseline']:.4g}" in f.message


def test_tl151_end_level_after_divergence():
    loss = np.r_[np.linspace(3, 1, 75), np.linspace(1, 6, 75)]
    f = finding(judge(make_run(9, name="div.jsonl", loss=loss), SEEDS[:1]), "TL151")
    assert f.severity.value == "FAIL" and f.evidence["ratio"] > 4
    assert f.evidence["threshold"] == pytest.approx(f.evidence["baseline"] * 1.5)


def test_tl152_improvement_fires_and_stands_down_on_flat_baseline():
    flat = make_run(9, name="flat.jsonl", loss=np.full(150, 3.0))
    f = finding(judge(flat, SEEDS[:1]), "TL152")
    assert f.severity.value == "FAIL" and f.evidence["value"] == pytest.approx(0.0)
    assert f.evidence["baseline"] > 0.5
    flat_base = make_run(10, loss=np.full(150, 1.0))
    rep = judge(make_run(11, name="r.jsonl"), [flat_base])
    assert "baseline improved only" in rep.checks.stood_down["TL152"]


def test_tl153_curve_area_and_negative_loss_stand_down():
    worse = make_run(12, name="worse.jsonl", floor=1.3, start=3.9)  # 30 % above all along
    f = finding(judge(worse, SEEDS[:1]), "TL153")
    assert f.severity.value == "WARN" and f.evidence["ratio"] == pytest.approx(1.3, rel=0.05)
    neg = make_run(13, loss=-np.linspace(1, 3, 150))
    rep = judge(make_run(14, name="r.jsonl", loss=-np.linspace(1, 3, 150)), [neg])
    assert "not positive" in rep.checks.stood_down["TL153"]


def test_tl154_eval_loss():
    base = make_run(1, eval_every=15)
    worse = make_run(2, name="worse.jsonl", eval_every=15)
    worse.series["eval_loss"].values = worse.series["eval_loss"].values * 2
    f = finding(judge(worse, [base]), "TL154")
    assert f.severity.value == "FAIL" and f.evidence["ratio"] == pytest.approx(2.0)
    assert "TL154" in judge(worse, SEEDS[:1]).checks.not_checked  # baseline has no eval loss
    few = make_run(3, name="few.jsonl", eval_every=100)
    assert "too few eval points" in judge(few, [base]).checks.stood_down["TL154"]


def test_tl155_grad_norm_level_and_non_finite():
    g = np.full(150, 5.0)
    g[40] = np.inf
    rep = judge(make_run(15, name="g.jsonl", grad=g), SEEDS[:1])
    found = [f for f in rep.findings if f.code == "TL155"]
    assert {f.severity.value for f in found} == {"WARN"} and len(found) == 2
    assert found[0].evidence["ratio"] > 3 and "1 non-finite" in found[1].message
    rep = judge(make_run(16, n=3, name="s.jsonl"), [make_run(17, n=3)])
    assert "too few grad-norm points" in rep.checks.stood_down["TL155"]


def test_tl156_throughput_and_unlike_measures():
    f = finding(judge(make_run(18, name="slow.jsonl", speed=40.0), SEEDS[:1]), "TL156")
    assert f.severity.value == "WARN" and f.evidence["ratio"] == pytest.approx(0.4, rel=0.05)
    other = make_run(19, name="o.jsonl")
    del other.series["throughput"]
    other.roles.pop("throughput")
    other.add("step_time", other.get("loss").steps, np.full(150, 0.5))
    other.roles["step_time"] = "step_time"
    assert "measured differently" in judge(other, SEEDS[:1]).checks.not_checked["TL156"]


def test_tl157_lr_schedule_is_a_difference_not_a_failure():
    hot = judge(make_run(20, name="hot.jsonl", lr=3e-2), SEEDS[:1])
    f = finding(hot, "TL157")
    assert f.severity.value == "WARN" and f.evidence["ratio"] == pytest.approx(100, rel=0.01)
    assert hot.verdict.value == "WARN"
    steps = np.arange(1, 151) * 10
    const = judge(make_run(21, name="c.jsonl", lr_values=np.full(150, 3e-4)), SEEDS[:1])
    f = finding(const, "TL157")
    assert f.severity.value == "NOTE" and "shape differs" in f.message and const.verdict.value == "PASS"
    zero = finding(judge(make_run(22, name="z.jsonl", lr_values=np.zeros(150)), SEEDS[:1]), "TL157")
    assert zero.severity.value == "WARN" and "zero throughout" in zero.message
    base0 = make_run(23, lr_values=np.zeros_like(steps, dtype=float))
    assert "zero throughout" in judge(make_run(24, name="r.jsonl"), [base0]).checks.stood_down["TL157"]


def test_tl159_non_finite_loss_and_stand_down():
    loss = make_run(25).get("loss").values.copy()
    loss[100:] = np.nan
    f = finding(judge(make_run(25, name="nan.jsonl", loss=loss), SEEDS[:1]), "TL159")
    assert f.severity.value == "FAIL" and f.evidence["count"] == 50
    rep = judge(make_run(25, name="nan.jsonl", loss=loss), [make_run(26, loss=loss)])
    assert "non-finite loss values too" in rep.checks.stood_down["TL159"]


def test_baseline_problem_and_missing_loss_are_not_checked():
    rep = compare_run(SEEDS[0], Baseline(sources=["b"], runs=[], problem="bad baseline: x FAILs"), Settings())
    assert rep.verdict.value == "NOT-CHECKED" and "bad baseline" in rep.unjudged
    noloss = Run(source="n.jsonl", format="generated")
    noloss.add("acc", [1, 2, 3], [0.1, 0.2, 0.3])
    assert "no loss series" in judge(noloss, SEEDS[:1]).unjudged


def test_tl160_far_below_is_a_note():
    rep = judge(make_run(30, name="low.jsonl", floor=0.03, start=3.0), SEEDS[:1])
    f = finding(rep, "TL160")
    assert f.severity.value == "NOTE" and f.evidence["ratio"] < 0.1
    assert f.evidence["ratio"] == pytest.approx(f.evidence["value"] / f.evidence["baseline"])
    assert rep.verdict.value == "PASS"
    assert "TL160" not in codes(judge(SEEDS[1], SEEDS[:1]))


def test_band_curve_spread_is_leave_one_out():
    rep = judge(SEEDS[0], SEEDS)
    cell = rep.summary["metrics"]["loss_gap"]
    lo, hi = cell["baseline_range"]
    assert lo < 1.0 < hi  # each seed against the others, not against a centre it is part of


def test_resumed_log_with_repeated_steps_and_long_runs():
    base = make_run(31)
    steps = base.get("loss").steps
    resumed = make_run(32, name="resumed.jsonl")
    s = resumed.series["loss"]
    again = (steps >= 500) & (steps <= 700)  # a restart re-logged steps 500-700 with worse values
    s.steps = np.r_[s.steps[steps <= 700], steps[again], s.steps[steps > 700]]
    s.values = np.r_[s.values[steps <= 700], s.values[again] * 1.01, s.values[steps > 700]]
    assert judge(resumed, [base]).verdict.value == "PASS"
    long = make_run(33, n=200_000, every=1, name="long.jsonl")
    rep = judge(long, [make_run(34, n=200_000, every=1)])
    assert rep.verdict.value == "PASS"


def test_all_nan_run_fails_against_a_finite_baseline():
    rep = judge(make_run(40, name="nan.jsonl", loss=np.full(150, np.nan)), SEEDS[:1])
    assert rep.verdict.value == "FAIL" and codes(rep, "FAIL") == {"TL159"}
    assert "too few loss points" in rep.checks.stood_down["TL150"]


def test_floor_and_end_findings_carry_steps():
    rep = judge(make_run(41, name="floor.jsonl", floor=6.0, start=18.0), SEEDS[:1])
    floor, end = finding(rep, "TL150"), finding(rep, "TL151")
    assert 1000 <= floor.step <= 1500 and floor.evidence["floor_at"] == floor.step
    assert end.step == 1500
    long = make_run(42, n=450, name="long.jsonl", floor=6.0, start=18.0)
    f = finding(judge(long, SEEDS[:1]), "TL150")
    assert f.step is None and "fraction" in f.message and 0.6 < f.evidence["floor_at"] <= 1.0


def test_damaged_run_is_compared_with_a_note():
    from trainlint.model import Damage

    run = make_run(43, name="cut.jsonl")
    run.damage.append(Damage("truncated", "last line cut short"))
    rep = judge(run, SEEDS[:1])
    assert rep.verdict.value == "PASS"
    assert any("the run is damaged (last line cut short)" in n for n in rep.notes)


# ---- doctor --baseline: one report per run, a run folder folded into it ---------------------


def test_doctor_baseline_folds_a_run_folder_into_its_one_comparison_report(tmp_path):
    """Issue 30 §5: an HF output folder under doctor --baseline is one report, the comparison,
    with its checkpoints folded in as doctor alone folds them (their findings the run's own)."""
    from _outputs import _hf_output, healthy, write_hf

    from trainlint import api

    root = _hf_output(tmp_path / "out")
    (tmp_path / "base").mkdir()
    base = write_hf(tmp_path / "base" / "trainer_state.json", healthy(12), step=10)
    alone = api.doctor([root])
    res = api.doctor([root], api.Options(baseline=(base,)))
    assert [(r.kind, r.source) for r in res.reports] == [("comparison", str(root))]
    rep, own = res.reports[0], alone.reports[0]
    assert rep.summary["checkpoints"] == own.summary["checkpoints"] and rep.summary["judged_alone"] == own.verdict.value
    assert [(f.code, f.evidence.get("part")) for f in rep.findings if f.origin == "run"] == [
        (f.code, f.evidence.get("part")) for f in own.findings
    ]
    assert res.extra["table"]["rows"][0]["source"] == str(root)
