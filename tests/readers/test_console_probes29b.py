"""Kinds a blind sample of outside logs (probe round 29b: repositories find_files lists for
``output/trainer_state.json``, then detectron2's ``output/metrics.json``, labelled before trainlint
read them) found read wrong: a detectron2 launch stopped inside an iteration, whose last write
parts one iteration's scalars from the last finished iteration's losses on two lines (in either
order, one iteration apart), read as a launch of no loss and its losses glued to the next launch
(or, in the other order, the next launch glued to it); a Hugging Face state that logged no step
(only the summary train() writes as it returns) said only "use --map loss=NAME" of a file with
no metric to map. Each fixture is made up in the shape of the real file (repository, path and
commit recorded with it; no copied lines) and asserts the series read: names, steps, first and
last values, and which is the loss."""

from __future__ import annotations

import json
from pathlib import Path

from trainlint import api


def _loss(launch: int, it: int) -> float:
    """A made-up total loss of a launch at an iteration: falling from about 1.5 to about 0.1."""
    return round(0.08 + (1.4 + 0.05 * launch) / (1.0 + it / 60.0), 5)


def _full_line(launch: int, it: int, lr: float) -> str:
    """A periodic write: every scalar of one finished iteration on one line, keys sorted."""
    return json.dumps(
        {
            "data_time": 0.002,
            "eta_seconds": 40.0 * (1000 - it),
            "fast_rcnn/cls_accuracy": 0.9,
            "iteration": it,
            "loss_box_reg": 0.07,
            "loss_cls": 0.4,
            "lr": lr * (it + 1) / 1000,
            "time": 20.0,
            "total_loss": _loss(launch, it),
        },
        sort_keys=True,
    )


def _stopped_write(launch: int, it: int, lr: float, late_first: bool) -> list[str]:
    """The last write of a launch stopped inside iteration ``it``: that iteration's scalars (the
    eta, the model's accuracy; no loss) and the last finished iteration's losses (no eta)."""
    late = json.dumps({"eta_seconds": 41000.0, "fast_rcnn/cls_accuracy": 0.45, "iteration": it}, sort_keys=True)
    early = json.dumps(
        {
            "data_time": 0.001,
            "iteration": it - 1,
            "lr": lr * it / 1000,
            "time": 14.0,
            "total_loss": _loss(launch, it - 1),
        },
        sort_keys=True,
    )
    return [late, early] if late_first else [early, late]


def _launch(launch: int, last: int, lr: float) -> list[str]:
    return [_full_line(launch, it, lr) for it in range(19, last + 1, 20)]


def _detection_fish(path: Path) -> Path:
    """Adityagupta2590/Detection_fish output/metrics.json @b9ec28615e9da3023f7481142b85251016a4781c
    (detectron2 Mask R-CNN, JSONWriter every 20 iterations): launches appended to one file, among
    them two stopped in their first iterations: one whose last write holds iteration 14's losses,
    then iteration 15's eta alone, before a new launch from 19 on (no fall back in the
    iterations); another whose last write holds iteration 18's eta and accuracies first, then
    iteration 17's losses, before a new launch from 19 on."""
    lines = _launch(1, 399, 2.5e-4)
    lines += _stopped_write(2, 15, 1.2e-2, late_first=False)
    lines += _launch(3, 299, 5e-3)
    lines += _stopped_write(4, 18, 2.5e-4, late_first=True)
    lines += _launch(5, 599, 5e-4)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _logs(path: Path) -> list:
    return [r for r in api.doctor([path]).reports if r.kind == "log"]


def test_a_detectron2_launch_stopped_inside_an_iteration_ends_there(tmp_path):
    path = _detection_fish(tmp_path / "metrics.json")
    reports = _logs(path)
    assert [r.source for r in reports] == [f"{path}#run{k}" for k in range(1, 6)]
    assert [r.summary.get("loss_points") for r in reports] == [20, 1, 15, 1, 30]
    assert [r.summary.get("first_step") for r in reports] == [19, 14, 19, 17, 19]
    assert [r.summary.get("last_step") for r in reports] == [399, 14, 299, 17, 599]
    assert all(r.summary["roles"]["loss"] == "total_loss" for r in reports)
    assert all(r.verdict != "NOT-CHECKED" for r in reports)
    notes = " ".join(reports[0].notes)
    assert "run2: lines 21-22, iterations 14-15" in notes and "run4: lines 38-39, iterations 17-18" in notes


def test_a_new_launch_one_iteration_below_the_last_line_still_splits(tmp_path):
    """A launch whose first line is one iteration below the last line of the launch before
    repeats that line's names: no stopped write, the fall back splits the launches as before;
    a stopped write after it still ends its launch."""
    lines = _launch(1, 99, 1e-3) + [_full_line(2, 98, 1e-3)] + _stopped_write(2, 100, 1e-3, late_first=True)
    path = tmp_path / "metrics.json"
    path.write_text("\n".join(lines + _launch(3, 79, 1e-3)) + "\n", encoding="utf-8")
    reports = _logs(path)
    assert [(r.summary.get("first_step"), r.summary.get("last_step")) for r in reports] == [
        (19, 99),
        (98, 99),
        (19, 79),
    ]


def test_the_last_launch_read_after_a_stopped_one_begins_at_its_own_first_line(tmp_path):
    run = api.read_run(_detection_fish(tmp_path / "metrics.json"))
    assert run.meta["launch"] == 5 and run.meta["launches"] == 5
    loss = run.series["total_loss"]
    assert run.roles["loss"] == "total_loss"
    assert (len(loss), loss.steps[0], loss.steps[-1]) == (30, 19, 599)
    assert (loss.values[0], loss.values[-1]) == (_loss(5, 19), _loss(5, 599))
    assert "eta_seconds" in run.series and run.series["eta_seconds"].steps[0] == 19


def _state_with_no_logged_step() -> dict:
    """mellymeter/ES3890AI output/trainer_state.json @fb7a1558ea32c7e08136c0ba7fd627a83fde756f (a
    causal LM fine-tuned with the Trainer, ``logging_steps`` 500 for a run of 69 steps): the
    log_history holds only the summary entry, its ``train_loss`` enormous."""
    summary = {"epoch": 2.98, "step": 69, "total_flos": 1.1e15, "train_loss": 2.5e11, "train_runtime": 36.1}
    return {"epoch": 2.98, "global_step": 69, "log_history": [summary], "logging_steps": 500, "max_steps": 69}


def test_a_trainer_state_that_logged_no_step_says_so(tmp_path):
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps(_state_with_no_logged_step(), indent=2), encoding="utf-8")
    (report,) = _logs(path)
    assert report.format == "hf-trainer-state" and report.verdict == "NOT-CHECKED"
    assert "only the summary train() writes" in report.unjudged
    assert "train_loss, 2.5e+11, is the mean over the run" in report.unjudged
    assert "logging_steps 500 is more than the run's 69 steps" in report.unjudged
    assert "--map" not in report.unjudged
