import numpy as np
from _rulekit import decay, judge, make_run, not_checked, one, silent, stood_down

from trainlint.api import read_run

CRASH = {"type": "crash", "signature": "CUDA out of memory", "line": 812}


def test_tl080_stopped_early_warns():
    run = make_run(decay(50), steps=np.arange(10, 510, 10), meta={"max_steps": 1000})
    f = one("TL080", run)
    assert f.severity.value == "WARN" and f.evidence["reached"] == 500 and f.evidence["planned"] == 1000
    assert "50%" in f.message and "no completion record" in f.message


def test_tl080_fails_when_crashed():
    run = make_run(decay(50), meta={"max_steps": 1000}, events=[CRASH])
    f = one("TL080", run)
    assert f.severity.value == "FAIL" and "CUDA out of memory" in f.message


def test_tl080_epochs_plan():
    run = make_run(decay(50), epoch=np.linspace(0, 1.5, 50), meta={"num_train_epochs": 3})
    f = one("TL080", run)
    assert f.evidence["unit"] == "epochs" and f.evidence["reached"] == 1.5


def test_tl080_complete_silent_stand_down_not_checked():
    silent("TL080", make_run(decay(50), steps=np.arange(5, 255, 5), meta={"max_steps": 250}))
    silent("TL080", make_run(decay(50), steps=np.arange(5, 255, 5), meta={"max_steps": 253, "logging_steps": 5}))
    assert "completion" in stood_down("TL080", make_run(decay(50), meta={"max_steps": 1000, "completed": True}))
    assert "planned length unknown" in not_checked("TL080", make_run(decay(50)))


def test_tl081_crash_event():
    f = one("TL081", make_run(decay(50), events=[{"type": "progress"}, CRASH]))
    assert f.severity.value == "FAIL" and f.evidence["line"] == 812 and f.step == 50
    assert "line 812" in f.message


def test_tl081_scanned_clean_and_unknown():
    silent("TL081", make_run(decay(50), meta={"crash_scanned": True}))
    assert "no crash records" in not_checked("TL081", make_run(decay(50)))


def test_crashed_run_verdict_fail():
    rep = judge(make_run(decay(50), meta={"max_steps": 1000}, events=[CRASH]))
    assert rep.verdict.value == "FAIL"
    assert {f.code for f in rep.findings} >= {"TL080", "TL081"}


def test_tl081_relaunched_crash_is_warn():
    ev = dict(CRASH, resumed=True)
    f = one("TL081", make_run(decay(50), events=[ev]))
    assert f.severity.value == "WARN" and f.evidence["resumed"] and "relaunched" in f.message


def test_tl080_a_crash_followed_by_a_relaunch_is_not_how_the_log_ends():
    """The real shape (112292454/ChatGLM-Efficient-Tuning-main's
    result_WebQSP_ChatGLMv2_lora_epoch200_1e-4.txt): a launch that failed at start-up with a
    traceback, then a relaunch into the same file whose loss falls 2.58 to 0.002 and whose log stops
    short of its plan with no error: a WARN with no completion record, not a crash. A crash at the
    end after the relaunch still fails."""
    early = dict(CRASH, signature="python-traceback", line=631, resumed=True)
    f = one("TL080", make_run(decay(50), meta={"max_steps": 1000}, events=[early]))
    assert f.severity.value == "WARN" and not f.evidence["crashed"] and "no completion record" in f.message
    assert "ends in a crash" not in f.message
    f = one("TL080", make_run(decay(50), meta={"max_steps": 1000}, events=[early, CRASH]))
    assert f.severity.value == "FAIL" and "ends in a crash: CUDA out of memory" in f.message


def test_tl081_the_reader_says_whether_it_looked_for_crashes_not_the_format_name(tmp_path):
    """The console and Coqui readers record that they scanned the text; a format's name alone
    (a run made up as console output without that record) proves no scan."""
    assert "no crash records" in not_checked("TL081", make_run(decay(50), fmt="console/keras"))
    log = tmp_path / "train.log"
    log.write_text("".join(f"Epoch {e}/30 - loss: {1.0 / e:.4f}\n" for e in range(1, 31)))
    run = read_run(log)
    assert run.meta["crash_scanned"] is True and run.meta["skips_scanned"] is True
    silent("TL081", run)
    silent("TL006", run)


def test_tl080_planned_epochs_from_console_metadata():
    run = make_run(decay(50), meta={"planned_epochs": 1000, "last_epoch": 3})
    f = one("TL080", run)
    assert f.evidence["planned"] == 1000 and f.evidence["reached"] == 3 and f.evidence["unit"] == "epochs"


def _checkpoint_state(folder, *, step=100, max_steps=846, save_steps=100, best=None, completed=False, control=None):
    """A trainer_state.json of the shape the Trainer saves with checkpoint-N: a LoRA fine-tune
    logging every 20 steps, the loss falling 1.14 to 0.83 and an eval at each log, 3 epochs
    planned, saved at global_step (the real shape of a committed checkpoint state)."""
    import json

    history = []
    for i, s in enumerate(range(20, step + 1, 20)):
        history.append({"epoch": s / 282, "loss": 1.14 - 0.08 * i, "learning_rate": 2e-4, "step": s})
        history.append({"epoch": s / 282, "eval_loss": 0.97 - 0.03 * i, "step": s})
    if completed:
        history.append({"epoch": 3.0, "step": step, "train_runtime": 812.5, "total_flos": 1e15, "train_loss": 0.9})
    state = {"global_step": step, "max_steps": max_steps, "logging_steps": 20, "eval_steps": 20}
    state.update({"num_train_epochs": 3, "log_history": history, "best_model_checkpoint": best})
    if save_steps is not None:
        state["save_steps"] = save_steps
    if control is not None:  # transformers 4.39+: the callbacks' state saved with the checkpoint
        state["stateful_callbacks"] = control
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "trainer_state.json").write_text(json.dumps(state))
    return folder / "trainer_state.json"


def test_tl080_checkpoint_state_is_a_note_not_a_stopped_run(tmp_path):
    from trainlint.readers import read_run

    # checkpoint-100/trainer_state.json: step 100 of 846 planned
    f = one("TL080", read_run(_checkpoint_state(tmp_path / "out" / "checkpoint-100", save_steps=None)))
    assert f.severity.value == "NOTE" and f.evidence["snapshot"] is True and f.evidence["reached"] == 100
    assert "checkpoint-100/trainer_state.json" in f.message and "100 of 846" in f.message
    # a copy of it committed on its own: its step is a multiple of save_steps
    f = one("TL080", read_run(_checkpoint_state(tmp_path / "copy")))
    assert f.severity.value == "NOTE" and "multiple of save_steps 100" in f.message
    # an older Trainer writes no save_steps: best_model_checkpoint names its own step
    old = _checkpoint_state(tmp_path / "old", step=1640, max_steps=1689, save_steps=None, best="./r\\checkpoint-1640")
    assert "best_model_checkpoint is checkpoint-1640" in one("TL080", read_run(old)).message


def test_tl080_a_single_state_is_a_save_not_the_runs_end(tmp_path):
    from trainlint.readers import read_run

    # step 100 is no multiple of save_steps 300 and no checkpoint folder names it: still a state
    # the Trainer wrote when it saved (it writes the file at no other time), not where the run ended
    f = one("TL080", read_run(_checkpoint_state(tmp_path / "a", save_steps=300, best="out/checkpoint-60")))
    assert f.severity.value == "NOTE" and f.evidence["snapshot"] is True
    assert "100 of 846" in f.message and "written only when the Trainer saves" in f.message
    # the Trainer output folder: its newest state is where the run stopped
    _checkpoint_state(tmp_path / "out" / "checkpoint-100")
    assert one("TL080", read_run(tmp_path / "out")).severity.value == "WARN"
    # the completion record stands TL080 down, checkpoint or not
    done = _checkpoint_state(tmp_path / "done" / "checkpoint-100", completed=True)
    assert "completion" in stood_down("TL080", read_run(done))


def _control(stop, counter=None, patience=3):
    """stateful_callbacks as transformers writes it: TrainerControl's flags, and with a patience
    counter EarlyStoppingCallback's args and attributes."""
    out = {"TrainerControl": {"args": {"should_training_stop": stop, "should_save": True}, "attributes": {}}}
    if counter is not None:
        out["EarlyStoppingCallback"] = {
            "args": {"early_stopping_patience": patience, "early_stopping_threshold": 0.0},
            "attributes": {"early_stopping_patience_counter": counter},
        }
    return out


def test_tl080_reads_the_trainers_saved_control_state(tmp_path):
    from trainlint.readers import read_run

    # the real shape of a results/trainer_state.json: step 625 of 1875 (epoch 1 of 3), save_steps
    # 500, should_training_stop false: saved while training went on, not where the run ended
    mid = _checkpoint_state(tmp_path / "mid", step=625, max_steps=1875, save_steps=500, control=_control(False))
    run = read_run(mid)
    assert run.meta["stop_requested"] is False
    f = one("TL080", run)
    assert f.severity.value == "NOTE" and f.evidence["snapshot"] is True and f.evidence["reached"] == 620
    assert "should_training_stop false" in f.message and "620 of 1875" in f.message
    # early stopping: the state saved as the run stopped at step 1500 of 10990, counter 5 of patience 5
    es = _checkpoint_state(tmp_path / "es", step=1500, max_steps=10990, save_steps=250, control=_control(True, 5, 5))
    f = one("TL080", read_run(es))
    assert f.severity.value == "NOTE" and f.evidence["on_purpose"] is True and f.evidence["snapshot"] is False
    assert "stopped on purpose at 1500 of 10990" in f.message and "patience counter 5 of 5" in f.message
    # told to stop with the counter short of its patience: another callback stopped it
    cb = _checkpoint_state(tmp_path / "cb", step=1500, max_steps=10990, save_steps=250, control=_control(True, 1, 5))
    assert "a callback ended it" in one("TL080", read_run(cb)).message
    # a state saved at max_steps (should_training_stop true there too): complete, nothing to say
    end = _checkpoint_state(tmp_path / "end", step=840, max_steps=846, control=_control(True))
    assert read_run(end).meta["stop_requested"] is True
    silent("TL080", read_run(end))
    # a state cut off mid-write (no control state left to read) shows the run died while saving it
    text = mid.read_text()
    mid.write_text(text[: text.index('"step": 400')])
    f = one("TL080", read_run(mid))
    assert f.severity.value == "WARN" and "cut off mid-write" in f.message
    # the output folder still WARNs whatever its newest state's flag: that state is where it stopped
    _checkpoint_state(tmp_path / "out" / "checkpoint-625", step=625, max_steps=1875, control=_control(False))
    assert one("TL080", read_run(tmp_path / "out")).severity.value == "WARN"


def test_tl081_a_crash_while_saving_after_the_last_step_marks_the_run_incomplete():
    saving = dict(CRASH, signature="python-traceback", text="OSError: [Errno 28] No space left on device")
    saving["phase"] = "saving"
    f = one("TL081", make_run(decay(50), meta={"completed": True}, events=[saving]))
    assert f.severity.value == "FAIL" and f.evidence["phase"] == "saving" and f.evidence["after_training"]
    assert "run incomplete: crashed while saving after its last training step" in f.message
    g = one("TL081", make_run(decay(50), steps=np.arange(10, 510, 10), meta={"max_steps": 1000}, events=[saving]))
    assert not g.evidence["after_training"] and "mid-run (500 of 1000 planned steps)" in g.message
    assert "run crashed: CUDA out of memory" in one("TL081", make_run(decay(50), events=[CRASH])).message


def test_a_crash_before_the_first_loss_line_fails_with_its_line(tmp_path):
    """An out-of-memory traceback before any loss was logged: FAIL with the line, not NOT-CHECKED."""
    from trainlint import api

    path = tmp_path / "train.log"
    path.write_text(
        'INFO Loading model\nTraceback (most recent call last):\n  File "train.py", line 120, in <module>\n'
        "    trainer.train()\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB.\n"
    )
    rep = next(r for r in api.doctor([path]).reports if r.kind == "log")
    assert rep.verdict.value == "FAIL"
    f = next(f for f in rep.findings if f.code == "TL081")
    assert "cuda-out-of-memory (line 2)" in f.message and "Tried to allocate 1.95 GiB" in f.message
    assert f.message.endswith("; no training step read before it") and f.evidence["last_step"] is None


def test_a_keyboard_interrupt_is_a_stopped_run_not_a_crash(tmp_path):
    """A log ending in a KeyboardInterrupt traceback (Ctrl-C, or a scheduler's SIGINT) was stopped:
    TL080 WARNs that it stopped short and says it was interrupted; TL081 finds no crash. A
    KeyboardInterrupt raised while another exception was handled is still a crash."""
    from trainlint import api

    lines = ["Epoch 1/100", *[f"step {s} | loss {2.5 - 0.01 * s:.3f}" for s in range(1, 31)]]
    tb = 'Traceback (most recent call last):\n  File "train.py", line 88, in <module>\n    loss.backward()\n'
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n" + tb + "KeyboardInterrupt\n")
    run = api.read_run(path)
    assert [e["type"] for e in run.events] == ["interrupt"] and run.events[0]["line"] == 32
    silent("TL081", run)
    rep = next(r for r in api.doctor([path]).reports if r.kind == "log")
    assert rep.verdict.value != "FAIL" and "TL081" not in {f.code for f in rep.findings}
    chained = "ValueError: bad batch\n\nDuring handling of the above exception, another exception occurred:\n\n"
    path.write_text("\n".join(lines) + "\n" + tb + chained + tb + "KeyboardInterrupt\n")
    assert [e["type"] for e in api.read_run(path).events] == ["crash"]


def test_tl080_names_an_interrupt():
    stop = {"type": "interrupt", "signature": "keyboard-interrupt", "line": 31}
    f = one("TL080", make_run(decay(50), meta={"max_steps": 1000}, events=[stop]))
    assert f.severity.value == "WARN" and "interrupted (KeyboardInterrupt, line 31)" in f.message


def test_tl081_a_crash_after_the_normal_end_is_a_warn(tmp_path):
    """The shape of an HF reward-model stage whose next stage died on a config key (calibration log
    tlab-alignment-reward-964): the Trainer's train_runtime summary, then a traceback."""
    from trainlint.api import read_run

    log = tmp_path / "output.log"
    dicts = "".join(
        f"{{'loss': {0.7 - i * 0.02:.3f}, 'learning_rate': 1e-05, 'epoch': {i / 50:.2f}}}\n" for i in range(25)
    )
    tail = (
        "{'train_runtime': 1594.98, 'train_samples_per_second': 243.9, 'train_loss': 0.269, 'epoch': 0.5}\n"
        "Error executing job with overrides: []\nTraceback (most recent call last):\n"
        '  File "train.py", line 40, in main\n'
        "omegaconf.errors.ConfigAttributeError: Key 'I' is not in struct\n"
    )
    log.write_text(dicts + tail)
    f = one("TL081", read_run(log))
    assert f.severity.value == "WARN" and f.evidence["after_end"] and f.evidence["line"] == 28
    assert f.message.startswith("training ran to its normal end, then the process crashed: python-traceback")
    # the same traceback with training lines after the summary (a second stage that died mid-run)
    log.write_text(dicts + tail.splitlines(keepends=True)[0] + dicts + "".join(tail.splitlines(keepends=True)[1:]))
    g = one("TL081", read_run(log))
    assert g.severity.value == "FAIL" and "after_end" not in g.evidence
    # a crash with no completion record before it stays a FAIL
    log.write_text(dicts + "".join(tail.splitlines(keepends=True)[1:]))
    assert one("TL081", read_run(log)).severity.value == "FAIL"
