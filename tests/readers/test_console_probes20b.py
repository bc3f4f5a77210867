"""Kinds a blind sample of outside logs (probe round 20b: the first repositories find_files lists for
``checkpoints/train.log``, labelled before trainlint read them) found read or judged wrong. Each
fixture is made up in the shape of the real file (repository, path and commit recorded with it; no
copied lines) and asserts the series read: names, steps, first and last values, and which is the loss.
(Round 19b's tests are in test_console_probes19b.py.)"""

from __future__ import annotations

from _consolekit import read_lines, series_ends

from trainlint import api

PLANNED = 20000


def _golf(stop: int) -> list[str]:
    """parameter-golf's train_gpt.py: a header of ``name:value`` settings, warmup steps, then
    ``step:N/M train_loss:X ... train_time:Tms step_avg:..`` and every 50 steps a ``val_loss``
    line; at its wall-clock budget it prints ``stopping_early: wallclock_cap``, then its
    post-training evaluation and serialisation."""
    lines = [
        "model_params:26041425 world_size:8 grad_accum_steps:1",
        f"train_batch_tokens:786432 train_seq_len:1024 iterations:{PLANNED} warmup_steps:20 "
        "max_wallclock_seconds:600.000",
        *[f"warmup_step:{i}/20" for i in range(1, 21)],
        f"step:0/{PLANNED} val_loss:8.3096 val_bpb:3.5663 train_time:0ms step_avg:0.02ms",
    ]
    for s in range(50, stop + 1, 50):
        ms = s * 98
        lines.append(
            f"step:{s}/{PLANNED} train_loss:{_loss(s):.6f} lr_scale:1.0000 train_time:{ms}ms "
            f"step_avg:98.00ms mem:19155MiB"
        )
        if s % 500 == 0:
            lines.append(f"step:{s}/{PLANNED} val_loss:{_loss(s) + 0.05:.4f} val_bpb:1.2 train_time:{ms}ms")
    return [
        *lines,
        f"stopping_early: wallclock_cap train_time:{stop * 98}ms step:{stop}/{PLANNED}",
        "peak memory allocated: 19155 MiB reserved: 19868 MiB",
        f"phase:train wall_ms:630990 steps:{stop} step_avg:97.82ms",
        "pre_quant_eval val_loss:2.7051 val_bpb:1.1610 eval_time:27032ms",
        "Serialized model: 99481691 bytes",
    ]


def _loss(s: int) -> float:
    return round(2.7 + 5.5 / (1 + s / 40), 6)


def test_a_wall_clock_cap_stop_is_a_planned_end(tmp_path):
    """lolrazh/parameter-golf checkpoints/train.log @02faeea6: the run planned 20000 steps and a
    600 s budget; at 6130 steps ``stopping_early: wallclock_cap`` is its normal end (the script's
    own words for it), so TL080 (run stopped short, no completion record) WARNed a healthy run."""
    stop = 6100
    path = tmp_path / "train.log"
    path.write_text("\n".join(_golf(stop)) + "\n")
    run = api.read_run(path)
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    assert series_ends(run, "train_loss") == (stop // 50, 50.0, float(stop), _loss(50), _loss(stop))
    assert run.meta.get("completed") is True
    rep = api.judge(run)
    assert "TL080" not in {f.code for f in rep.findings}


def test_the_same_run_cut_off_before_its_cap_is_still_incomplete(tmp_path):
    """Without the wall-clock line (the job was killed at 6100 of 20000 steps) the run is short."""
    lines = [x for x in _golf(6100) if not x.startswith("stopping_early") and not x.startswith("phase:")]
    run = read_lines(tmp_path, lines[: lines.index("peak memory allocated: 19155 MiB reserved: 19868 MiB")])
    assert not run.meta.get("completed")
    assert "TL080" in {f.code for f in api.judge(run).findings}


def _swav(run: int, epochs: int, loss, lr: float = 0.6) -> list[str]:
    """SwAV's main_swav.py through its logger: ``INFO - date time - elapsed - Epoch: [e][i]``, then
    tab-separated ``Time v (avg)``, ``Data v (avg)``, ``Loss v (avg)`` and ``Lr: x``; a count inside
    the epoch with no total after it, every 50 iterations."""
    out = [f"INFO - 09/02/20 1{run}:00:00 - 0:00:00 - ============ Starting epoch 0 ... ============"]
    for e in range(epochs):
        for i in range(0, 200, 50):
            v = loss(e, i)
            out.append(
                f"INFO - 09/02/20 1{run}:{e:02d}:{i // 50:02d} - 0:{e:02d}:{i // 50:02d} - Epoch: [{e}][{i}]\t"
                f"Time 1.927 (1.927)\tData 0.014 (0.014)\tLoss {v:.4f} ({v:.4f})\tLr: {lr:.4f}"
            )
    return out


def _falling(e: int, i: int) -> float:
    return round(4.3 - 0.1 * e - 0.0004 * i, 4)


def test_an_epoch_and_a_count_in_brackets_without_a_total_are_the_step(tmp_path):
    """abhinavagarwalla/swav-cifar10 checkpoints/train.log @381b0662: ``Epoch: [0][50]`` (SwAV's and
    DeepCluster-v2's print) was no counter, for no total follows the count, so the steps were the
    records' order: the runs appended to the log (the epoch back to 0 at each) ran together as one.
    The first bracket is the epoch, the second the count inside it (printed every 50 from 0: 200
    an epoch)."""
    run = read_lines(tmp_path, _swav(1, 12, _falling))
    assert run.roles["loss"] == "Loss" and run.roles["learning_rate"] == "Lr"
    assert series_ends(run, "Loss") == (48, 0.0, 11 * 200 + 150.0, _falling(0, 0), _falling(11, 150))


def test_a_collapsed_swav_run_appended_after_another_is_judged_on_its_own(tmp_path):
    """The same log's later launches sat at 3.9120 (ln 50, SwAV's collapse) for hundreds of points:
    once the epoch counter starts each launch again, that launch is flat and at chance (FAIL); read
    in order it was one run whose loss fell, a PASS."""
    lines = _swav(1, 12, _falling) + _swav(2, 30, lambda e, i: 3.912)
    run = read_lines(tmp_path, lines)
    assert series_ends(run, "Loss") == (168, 0.0, 29 * 200 + 150.0, _falling(0, 0), 3.912)
    rep = api.judge(run)
    assert rep.verdict.value == "FAIL" and {"TL030", "TL033"} & {f.code for f in rep.findings}


def _pierdere(s: int) -> float:
    return round(0.25 + 3.4 / (1 + s / 30), 4)


def test_romanian_pas_before_its_number_is_the_step(tmp_path):
    """MihaelaBogdan/resonance-lm checkpoints/train.log @7b0b1898: a character model's loop printing in
    Romanian, ``pas   120 | pierdere 0.5676 | lr 4.00e-03 | |g|  1.59 |   20.0s`` and every 120 steps
    ``        -> validare 0.5589 nats = 0.8064 biti/caracter``. ``pierdere`` (loss) and ``validare``
    were read, ``pas`` (step) was not: it was a metric, the steps the lines' order. Right before its
    number it is the step now (French's ``pas`` too); elsewhere (``ne converge pas``) it stays."""
    lines = ["corpus  : 372,451 tokeni antrenare / 19,602 validare", "vocabular: 45 caractere", ""]
    for s in range(0, 1220, 20):
        lines.append(f"pas {s:5d} | pierdere {_pierdere(s):.4f} | lr 4.00e-03 | |g|  0.50 | {s / 6:6.1f}s")
        if s and s % 120 == 0:
            lines.append(f"        -> validare {_pierdere(s) + 0.02:.4f} nats = 0.8 biti/caracter")
    lines.append("modelul ne converge pas")
    run = read_lines(tmp_path, lines)
    assert run.roles["loss"] == "loss" and "pas" not in run.series
    assert series_ends(run, "loss") == (61, 0.0, 1200.0, _pierdere(0), _pierdere(1200))
    assert series_ends(run, run.roles["eval_loss"])[:3] == (10, 120.0, 1200.0)
