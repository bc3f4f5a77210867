"""Recover instead of stop (issue 32): real tiny training on CPU with a poisoned window of
steps (targets x1e4 under plain SGD, the weights blow up to NaN). Without recovery the run
ends non-finite; with it the run finishes its steps near the unpoisoned loss, the report names
each recovery, the skipped batches are exactly those recorded, and a fault that never goes
away stops after max_attempts with the last good state saved."""

from __future__ import annotations

import json
import math

import pytest

torch = pytest.importorskip("torch", reason="torch (CPU build) is a test dependency: pip install torch==2.13.0")

from _recovery_runs import BATCH, LR, Net, data, lightning_cpu_trainer, replay_sgd, sgd_cpu_args  # noqa: E402

from trainlint.integrations.recover import NOTE_CODE, Recovery, recovering  # noqa: E402

STEPS, WINDOW = 80, range(50, 54)


@pytest.fixture(autouse=True)
def one_thread():
    """One intra-op thread: these models are tiny, and a shared machine's load then costs
    each step far less."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def skipped_steps(actions) -> set[int]:
    return {int(s) for a in actions if a.outcome == "recovered" for s in a.skipped_steps}


def assert_weights_equal(a: torch.nn.Module, b: torch.nn.Module) -> None:
    for (name, p), q in zip(a.state_dict().items(), b.state_dict().values()):
        assert torch.allclose(p, q, rtol=1e-5, atol=1e-6), name


# -- a plain PyTorch loop ------------------------------------------------------------------
def plain_run(tmp_path, poison=(), recover: Recovery | bool = True, steps=STEPS):
    x, y = data()
    torch.manual_seed(0)
    net = Net(poison)
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    rec = recovering(net, opt, recover=recover, log_path=tmp_path / "trainlint-guard.jsonl")
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(1))
    losses = []
    for step in range(1, steps + 1):
        idx = order[(step - 1) * BATCH % len(y) :][:BATCH]
        opt.zero_grad()
        loss = net.loss(x[idx], y[idx], idx)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        rec.observe(step, loss=loss.item())
        if rec.should_stop:
            break
    return net, rec, losses


def test_plain_loop_recovers_and_skips_exactly_the_recorded_batches(tmp_path):
    net, rec, losses = plain_run(tmp_path, WINDOW)
    report = rec.close()
    assert len(losses) == STEPS and not rec.should_stop
    skipped = skipped_steps(rec.actions)
    assert set(WINDOW) <= skipped, (skipped, [a.message() for a in rec.actions])
    # the weights are those SGD gives on the yielded batches less the recorded ones
    assert_weights_equal(net, replay_sgd(net.seen, skipped, STEPS))
    notes = [f for f in report.findings if f.code == NOTE_CODE]
    assert len(notes) == len(rec.actions) >= 1 and report.verdict.value != "FAIL"
    log = [json.loads(line) for line in (tmp_path / "trainlint-guard.jsonl").read_text().splitlines()]
    recs = [r for r in log if r["type"] == "recovery"]
    assert [r["skipped_steps"] for r in recs] == [a.skipped_steps for a in rec.actions]
    assert any(r["type"] == "snapshot" and r["bytes"] > 0 for r in log)


def test_plain_loop_with_skip_n_drops_the_next_batches_too(tmp_path):
    net, rec, losses = plain_run(tmp_path, WINDOW, recover=Recovery(skip=3))
    first = rec.actions[0]
    assert first.skipped_steps[-1] == first.fault_step + 3
    assert_weights_equal(net, replay_sgd(net.seen, skipped_steps(rec.actions), STEPS))


def test_plain_loop_lr_scale_is_applied_and_recorded(tmp_path):
    net, rec, losses = plain_run(tmp_path, WINDOW, recover=Recovery(lr_scale=0.5))
    first = rec.actions[0]
    assert first.lr_before == [LR] and first.lr_after == [LR * 0.5]
    assert len(losses) == STEPS and math.isfinite(losses[-1])


def test_plain_loop_keeps_its_snapshots_on_disk_when_asked(tmp_path):
    net, rec, losses = plain_run(tmp_path, WINDOW, recover=Recovery(keep="disk"))
    assert len(losses) == STEPS and rec.actions and all(s.path is not None and s.path.is_file() for s in rec.snaps)
    assert_weights_equal(net, replay_sgd(net.seen, skipped_steps(rec.actions), STEPS))
    rec.close()
    assert not list(tmp_path.glob("trainlint-snapshot-*.pt"))  # removed when the run ends


def test_a_setting_without_rollback_stops_at_the_fault(tmp_path):
    """Sharded states (FSDP, DeepSpeed) are not rolled back: a curable fault stops the run."""
    from trainlint.integrations.recover import Recoverer

    net, rec, _ = plain_run(tmp_path, (), steps=1)
    stopper = Recoverer(Recovery(), rec.guard, rec.parts, unsupported="FSDP")
    for step in range(2, 40):
        stopper.observe(step, loss=1.0 / step if step < 30 else math.nan)
        if stopper.should_stop:
            break
    assert step == 30 and [a.outcome for a in stopper.actions] == ["stopped"]
    assert "FSDP" in stopper.actions[0].reason


def test_plain_loop_restores_the_gradient_scaler(tmp_path):
    """A scaler's state (its scale, its growth tracker) goes back with the weights."""
    x, y = data()
    torch.manual_seed(0)
    net = Net(WINDOW)
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=3)
    rec = recovering(net, opt, scaler=scaler)
    scales = {}
    for step in range(1, STEPS + 1):
        idx = torch.arange((step - 1) * BATCH, step * BATCH) % len(y)
        opt.zero_grad()
        loss = net.loss(x[idx], y[idx], idx)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        scales[step] = scaler.get_scale()
        rec.observe(step, loss=loss.item())
        if rec.actions:
            break
    assert rec.actions and rec.actions[0].outcome == "recovered", [a.message() for a in rec.actions]
    assert scaler.get_scale() == scales[int(rec.actions[0].restored_step)] != scales[step]


def test_a_snapshot_survives_the_steps_after_its_restore():
    """Restoring twice from one snapshot gives the same optimizer state both times (the
    optimizer must not take the snapshot's own tensors and update them in place)."""
    from trainlint.integrations import _torchstate as ts

    torch.manual_seed(0)
    net = torch.nn.Linear(4, 1)
    opt = torch.optim.Adam(net.parameters(), lr=0.1)

    def step():
        opt.zero_grad()
        net(torch.randn(8, 4)).pow(2).mean().backward()
        opt.step()

    step()
    parts = ts.Parts(net, opt)
    snap = ts.take(parts, 1)
    first = [v.clone() for v in snap.state["optimizer"]["state"][0].values()]
    for _ in range(2):
        ts.restore(parts, snap, 1.0)
        assert all(torch.equal(a, b) for a, b in zip(opt.state_dict()["state"][0].values(), first))
        step()
        step()
    again = ts.take(parts, 4, reuse=snap)  # into the evicted snapshot's memory
    assert again.state["model"]["weight"].data_ptr() == snap.state["model"]["weight"].data_ptr()
    assert torch.equal(again.state["model"]["weight"], net.weight.detach())


def test_a_fault_right_after_a_rollback_stops_the_run(tmp_path):
    """A non-finite loss at the first record after a rollback: the restored state itself is
    unusable, so the run stops at once rather than trying again."""
    model = torch.nn.Linear(2, 1)
    rec = recovering(model, torch.optim.SGD(model.parameters(), lr=0.1), log_path=tmp_path / "g.jsonl")
    for step in range(1, 60):
        rec.observe(step, loss=1.0 / step if step < 30 else math.nan)
        if rec.should_stop:
            break
    assert [a.outcome for a in rec.actions] == ["recovered", "stopped"] and step == 31
    assert rec.actions[1].reason == "the fault came back right after the recovery"
    assert rec.close().verdict.value == "FAIL"


@pytest.mark.parametrize(
    "bad", [{"skip": "all"}, {"skip": -1}, {"keep": "gpu"}, {"max_attempts": 0}, {"lr_scale": 0.0}, {"snapshots": 0}]
)
def test_a_bad_policy_is_refused_in_one_line(bad):
    with pytest.raises(ValueError, match="^Recovery: "):
        Recovery(**bad)


# -- Hugging Face Trainer ------------------------------------------------------------------
def hf_run(tmp_path, poison=(), recover=False, stop_on="FAIL", steps=STEPS):
    transformers = pytest.importorskip("transformers")
    from trainlint.integrations.hf import GuardCallback

    x, y = data()
    torch.manual_seed(0)
    net = Net(poison)
    rows = [{"x": x[i], "labels": y[i], "idx": i} for i in range(len(y))]
    args = sgd_cpu_args(tmp_path, max_steps=steps, per_device_train_batch_size=BATCH, learning_rate=LR)
    cb = GuardCallback(stop_on=stop_on, recover=recover, save_before_stop=True)
    trainer = transformers.Trainer(model=net, args=args, train_dataset=rows, callbacks=[cb])
    trainer.train()
    losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
    return trainer, cb, losses, net


def test_hf_poisoned_window_without_recovery_ends_non_finite(tmp_path):
    trainer, cb, losses, net = hf_run(tmp_path, WINDOW, stop_on=None)
    assert trainer.state.global_step == STEPS
    last = [e for e in trainer.state.log_history if "loss" in e][-1]
    assert not (math.isfinite(last["loss"]) and math.isfinite(last["grad_norm"])), last


def test_hf_recover_finishes_near_the_unpoisoned_loss(tmp_path):
    _, clean_cb, clean, _ = hf_run(tmp_path / "clean", recover=True)
    assert clean_cb.recoverer.actions == [], "a healthy run recovered"
    trainer, cb, losses, net = hf_run(tmp_path / "poisoned", WINDOW, recover=True)
    assert trainer.state.global_step == STEPS and not cb.recoverer.should_stop
    steps = [e["step"] for e in trainer.state.log_history if "loss" in e]
    assert steps == sorted(steps) and steps[-1] == STEPS  # the step counter stayed monotonic
    tail = lambda xs: sum(xs[-10:]) / 10  # noqa: E731 - the mean of the last ten logged losses
    assert math.isfinite(losses[-1]) and tail(losses) <= 1.5 * tail(clean), (tail(losses), tail(clean))
    skipped = skipped_steps(cb.recoverer.actions)
    assert set(WINDOW) <= skipped
    assert_weights_equal(net, replay_sgd(net.seen, skipped, STEPS))
    notes = [f for f in cb.report.findings if f.code == NOTE_CODE]
    assert len(notes) == len(cb.recoverer.actions) and all("restored the state of step" in f.message for f in notes)
    log = [json.loads(x) for x in (tmp_path / "poisoned" / "trainlint-guard.jsonl").read_text().splitlines()]
    assert len([r for r in log if r["type"] == "recovery"]) == len(notes)
    trainer.save_state()  # the run's own log (trainer_state.json) still holds the poisoned window
    doctor_sees_the_recoveries(tmp_path / "poisoned", len(notes))


def doctor_sees_the_recoveries(out, recoveries):
    """doctor on the output folder: the recoveries as NOTEs on the run, which is judged without
    the rolled-back steps; without the guard log beside it the same log FAILs."""
    from trainlint import api

    run_report = lambda result: next(r for r in result.reports if r.format != "trainlint-guard")  # noqa: E731
    result = api.doctor(out)
    run = run_report(result)
    assert [f.code for f in run.findings].count(NOTE_CODE) == recoveries, run.findings
    assert run.verdict.value != "FAIL", run.findings
    guard = next(r for r in result.reports if r.format == "trainlint-guard")
    assert [f.code for f in guard.findings].count(NOTE_CODE) == recoveries and guard.verdict.value != "FAIL"
    faults = {"TL001", "TL003", "TL010", "TL011", "TL020", "TL021", "TL050"}
    assert not faults & {f.code for f in run.findings}, run.findings
    (out / "trainlint-guard.jsonl").rename(out.parent / "moved.jsonl")
    bare = run_report(api.doctor(out))
    assert faults & {f.code for f in bare.findings if f.severity.value in ("FAIL", "WARN")}, bare.findings


def test_hf_skip_n_drops_the_batches_after_the_fault_too(tmp_path):
    trainer, cb, losses, net = hf_run(tmp_path, WINDOW, recover=Recovery(skip=3))
    first = cb.recoverer.actions[0]
    assert trainer.state.global_step == STEPS and first.skipped_steps[-1] == first.fault_step + 3
    assert_weights_equal(net, replay_sgd(net.seen, skipped_steps(cb.recoverer.actions), STEPS))


def test_hf_permanent_fault_stops_after_max_attempts_with_the_last_good_state_saved(tmp_path):
    trainer, cb, losses, net = hf_run(tmp_path, range(40, 10_000), recover=Recovery(max_attempts=2))
    rec = cb.recoverer
    assert rec.should_stop and trainer.state.global_step < STEPS
    assert [a.outcome for a in rec.actions] == ["recovered", "recovered", "stopped"]
    assert cb.report.verdict.value == "FAIL"
    from safetensors.torch import load_file

    saved = load_file(str(tmp_path / f"checkpoint-{trainer.state.global_step}" / "model.safetensors"))
    good = rec.snaps[-1].state["model"]
    assert rec.snaps[-1].step == rec.actions[-1].restored_step
    assert all(torch.equal(saved[k], good[k]) for k in good)


# -- Lightning -----------------------------------------------------------------------------
def lightning_run(tmp_path, poison=(), recover=False, stop_on="FAIL", steps=STEPS):
    L = pytest.importorskip("lightning")
    from trainlint.integrations.lightning import GuardCallback

    x, y = data()

    class Module(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = Net(poison)

        def training_step(self, batch, idx):
            return self.net.loss(*batch)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=LR)

    torch.manual_seed(0)
    module = Module()
    rows = torch.utils.data.TensorDataset(x, y, torch.arange(len(y)))
    loader = torch.utils.data.DataLoader(
        rows, batch_size=BATCH, shuffle=True, generator=torch.Generator().manual_seed(1)
    )
    cb = GuardCallback(stop_on=stop_on, recover=recover)
    trainer = lightning_cpu_trainer(tmp_path, steps, cb)
    trainer.fit(module, loader)
    return trainer, cb, module.net


def test_lightning_poisoned_window_ends_non_finite_without_recovery(tmp_path):
    trainer, cb, net = lightning_run(tmp_path, WINDOW, stop_on=None)
    assert trainer.global_step == STEPS
    assert not all(bool(torch.isfinite(p).all()) for p in net.parameters()) or not math.isfinite(
        cb.guard.history.view().get("loss").values[-1]
    )


def test_lightning_recover_finishes_and_skips_exactly_the_recorded_batches(tmp_path):
    _, clean_cb, _ = lightning_run(tmp_path / "clean", recover=True)
    assert clean_cb.recoverer.actions == [], "a healthy run recovered"
    trainer, cb, net = lightning_run(tmp_path / "poisoned", WINDOW, recover=True)
    rec = cb.recoverer
    assert trainer.global_step == STEPS and not rec.should_stop and rec.actions
    tail = [float(c.guard.history.view().get("loss").values[-10:].mean()) for c in (cb, clean_cb)]
    assert math.isfinite(tail[0]) and tail[0] <= 1.5 * tail[1], tail
    skipped = skipped_steps(rec.actions)
    assert set(WINDOW) <= skipped
    assert_weights_equal(net.net, replay_sgd(net.seen, skipped, STEPS).net)
    assert [f.code for f in cb.report.findings].count(NOTE_CODE) == len(rec.actions)


def test_lightning_permanent_fault_stops_after_max_attempts(tmp_path):
    trainer, cb, net = lightning_run(tmp_path, range(40, 10_000), recover=Recovery(max_attempts=2))
    rec = cb.recoverer
    assert rec.should_stop and trainer.global_step < STEPS
    assert [a.outcome for a in rec.actions] == ["recovered", "recovered", "stopped"]
    assert cb.report.verdict.value == "FAIL"
    good = rec.snaps[-1].state["model"]
    assert all(torch.equal(v, good[k]) for k, v in net.state_dict().items() if k in good)


# -- healthy runs replayed -----------------------------------------------------------------
HEALTHY_EVIDENCE = ["qwen-qlora-gallery/healthy", "qwen-qlora-gallery/overfit", "qwen-qlora-gallery/bad_labels"]
ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def replay_recovering(path):
    """A finished run's records fed to a recovering guard (a stand-in model to snapshot):
    the actions it took, and how many snapshots it judged good."""
    from trainlint.api import read_run
    from trainlint.readers.stream import records

    run = read_run(path)
    model = torch.nn.Linear(2, 1)
    rec = recovering(model, torch.optim.SGD(model.parameters(), lr=0.1), meta=dict(run.meta), role_map=dict(run.roles))
    for step, wall, metrics in records(run):
        rec.observe(step, wall_time=wall, **metrics)
    return rec


@pytest.mark.parametrize("name", HEALTHY_EVIDENCE)
def test_recovery_never_triggers_on_the_evidence_healthy_runs(evidence, name):
    rec = replay_recovering(evidence / name)
    assert rec.actions == [] and not rec.should_stop and rec.snaps


def test_the_same_replay_recovers_on_the_evidence_runs_that_blew_up(evidence):
    """The control: the replay above does act on a run whose gradients went non-finite."""
    rec = replay_recovering(evidence / "qwen-qlora-gallery" / "fp16_nan")
    assert rec.actions and rec.actions[0].code == "TL003"


def test_recovery_never_triggers_on_the_examples_healthy_run():
    rec = replay_recovering(ROOT / "examples" / "hf-healthy")
    assert rec.actions == [] and not rec.should_stop and rec.snaps


# -- distributed: the same decision on every rank ------------------------------------------
def test_every_rank_recovers_at_the_same_step_when_only_one_rank_sees_the_fault(tmp_path):
    """Two CPU processes (gloo): only rank 1's batches are poisoned, yet both ranks roll back
    at the same step to the same snapshot and skip the same steps (the decision is reduced)."""
    import socket

    import torch.multiprocessing as mp
    from _recovery_runs import rank_worker

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = (2, port, str(tmp_path), STEPS, list(WINDOW))
    mp.start_processes(rank_worker, args=args, nprocs=2, join=True, start_method="fork")  # no re-import
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert ranks[0] == ranks[1], ranks
    assert ranks[0]["steps"] == STEPS and ranks[0]["actions"], ranks


def test_doctor_takes_damaged_recovery_records_in_its_stride(tmp_path):
    """Recovery records of the wrong shapes beside a log: no traceback, no window applied."""
    from trainlint import api

    steps = range(1, 61)
    (tmp_path / "metrics.jsonl").write_text("".join(f'{{"step": {s}, "loss": {2.0 / s}}}\n' for s in steps))
    bad = [
        {"type": "recovery", "outcome": "recovered", "skipped_steps": 5, "restored_step": 3},
        {"type": "recovery", "outcome": "recovered", "skipped_steps": ["a"], "restored_step": None},
        {"type": "recovery", "outcome": "stopped", "skipped_steps": [], "code": "TL001", "fault_step": "x"},
        {"type": "recovery", "outcome": "recovered", "skipped_steps": [11, 12], "restored_step": 10, "code": "TL001"},
    ]
    lines = [json.dumps({"trainlint_guard": 1, "type": "start", "time": 0})] + [
        json.dumps({"trainlint_guard": 1, "time": 0, **r}) for r in bad
    ]
    (tmp_path / "trainlint-guard.jsonl").write_text("\n".join(lines) + "\n")
    result = api.doctor(tmp_path)
    run = next(r for r in result.reports if r.format == "jsonl")
    assert [f.code for f in run.findings].count(NOTE_CODE) == 1 and run.unjudged is None
    guard = next(r for r in result.reports if r.format == "trainlint-guard")
    assert [f.code for f in guard.findings].count(NOTE_CODE) == 4


def test_a_loss_spike_pairs_with_a_grad_norm_spike_at_its_own_step_whatever_its_severity():
    """TL021 counts a loss reaction only in the logs after its spike, so when a bad batch raises
    loss and grad norm at once it says NOTE at that moment: the pairing that makes a loss spike a
    fault a rollback cures takes a grad-norm spike at any severity logged at a step of the loss
    spike (scripts/recover_demo.py's second fault, step 53), and not one elsewhere."""
    from trainlint.integrations.recover import _same_step
    from trainlint.verdict import Finding, Severity

    def spike(code, sev, steps):
        return Finding(code, "spike", "spike", sev, "", {"spike_steps": steps}, steps[0])

    loss = spike("TL020", Severity.WARN, [53.0])
    assert _same_step(loss, [loss, spike("TL021", Severity.NOTE, [53.0])])
    assert not _same_step(loss, [loss, spike("TL021", Severity.NOTE, [5.0])])
    assert not _same_step(loss, [loss])
