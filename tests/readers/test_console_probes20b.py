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
