"""Several runs appended to one metric file or console log (issue 29, probe round 15a): a sweep, a
restart after a crash, the same script run again in append mode. Each run must be read as its own
segment (the step going back, as the console reader's restarts are), never merged into one series.
Each fixture is made up in the shape of the real log (repository, path and commit recorded with it;
no copied lines) and asserts the series read: names, steps, first and last values, the loss, and
the segments the engine judges."""

from __future__ import annotations

import json

import numpy as np

from trainlint.api import read_run
from trainlint.rules.segments import split_segments


def _jsonl(tmp_path, records):
    path = tmp_path / "metrics.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return read_run(path)


def _loss(k: int, run: int) -> float:
    return round(2.0 - 0.05 * k - 0.01 * run, 4)


def test_jsonl_runs_appended_with_the_epoch_starting_again(tmp_path):
    """Ardbiu/chip-ood metrics.jsonl @770c7b5: ``{"epoch": 1, "train_loss": .., "train_acc": ..,
    "test_acc": .., "rec_loss": .., "lambda_adv": ..}`` a line per epoch, no step field, and three
    runs appended (epochs 1-9, 1-2, 1-20). They had been read as one series of 31 record numbers.
    The steps are the records counted from each run's start, as the live stream can give them too."""
    spans = (9, 2, 20)
    records = [
        {"epoch": k, "train_loss": _loss(k, r), "train_acc": 0.1 + 0.01 * k, "test_acc": 0.2, "lambda_adv": 0.0}
        for r, n in enumerate(spans)
        for k in range(1, n + 1)
    ]
    run = _jsonl(tmp_path, records)
    assert run.roles["loss"] == "train_loss"
    loss = run.get("loss")
    assert len(loss) == 31 and loss.steps[:12].tolist() == [*range(9), 0, 1, 0]
    assert (loss.values[0], loss.values[-1]) == (_loss(1, 0), _loss(20, 2))
    assert np.array_equal(run.series["test_acc"].steps, loss.steps)
    assert any("3 runs appended" in n for n in run.notes)
    segs = split_segments(run)
    assert [len(s.get("loss")) for s in segs] == list(spans)
    assert [(s.get("loss").steps[0], s.get("loss").steps[-1]) for s in segs] == [(0, 8), (0, 1), (0, 19)]


def test_jsonl_runs_appended_with_several_records_an_epoch(tmp_path):
    """The same with a record per logged batch (the epoch repeated): the steps are the records counted
    from each run's start, so that the second run goes back to 0."""
    records = [
        {"epoch": e, "loss": round(1.0 - 0.02 * (4 * e + b), 4)} for _ in range(2) for e in range(3) for b in range(4)
    ]
    run = _jsonl(tmp_path, records)
    loss = run.get("loss")
    assert loss.steps.tolist() == [*range(12), *range(12)]
    assert [len(s.get("loss")) for s in split_segments(run)] == [12, 12]


def test_jsonl_one_run_keeps_its_record_numbers(tmp_path):
    """An epoch that only rises (one run, or a resumed epoch that goes back once in a long file is
    not this): the steps stay the record numbers, as before."""
    run = _jsonl(tmp_path, [{"epoch": k, "train_loss": _loss(k, 0)} for k in range(1, 13)])
    loss = run.get("loss")
    assert loss.steps.tolist() == list(range(12))
    assert len(split_segments(run)) == 1


def test_csv_logger_script_run_twice(tmp_path):
    """AhmedZ41/cnn-sleep-apnea-xai training_log.csv @a6d5ea4: Keras CSVLogger with append=True,
    ``epoch,accuracy,auc,learning_rate,loss,val_accuracy,val_auc,val_loss``, epochs 0-49 and then
    0-49 again: the epoch is the step, so it goes back and each run is its own segment (as it was)."""
    rows = ["epoch,accuracy,loss,val_loss"]
    rows += [f"{e},{0.6 + 0.01 * e:.4f},{_loss(e, r):.4f},{_loss(e, r) + 0.1:.4f}" for r in range(2) for e in range(12)]
    path = tmp_path / "training_log.csv"
    path.write_text("\n".join(rows) + "\n")
    run = read_run(path)
    assert (run.roles["loss"], run.roles["eval_loss"]) == ("loss", "val_loss")
    assert run.get("loss").steps.tolist() == [*range(12), *range(12)]
    assert [len(s.get("loss")) for s in split_segments(run)] == [12, 12]


def test_csv_header_repeated_where_the_script_ran_again(tmp_path):
    """A CSV logger opened again in append mode (a pandas ``to_csv(mode="a")`` with its header, a
    ``csv.writer`` that writes the header at each start): the header line in the middle is a
    restart, noted as such (not as text values), and the row numbers start again after it."""
    rows = ["accuracy,loss,val_loss"]
    for r in range(2):
        rows += ["accuracy,loss,val_loss"] if r else []
        rows += [f"{0.6 + 0.01 * e:.4f},{_loss(e, r):.4f},{_loss(e, r) + 0.1:.4f}" for e in range(12)]
    path = tmp_path / "log.csv"
    path.write_text("\n".join(rows) + "\n")
    run = read_run(path)
    loss = run.get("loss")
    assert run.roles["loss"] == "loss"
    assert loss.steps.tolist() == [*range(12), *range(12)]
    assert (loss.values[0], loss.values[-1]) == (_loss(0, 0), _loss(11, 1))
    assert any("header line is repeated at line(s) 14" in n for n in run.notes)
    assert not any("not a real number" in n for n in run.notes)
    assert [len(s.get("loss")) for s in split_segments(run)] == [12, 12]


def _console(tmp_path, lines):
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n")
    return read_run(path)


def _q(k: int, run: int) -> float:
    return round(1.0 / (k + 1) + 0.01 * run, 4)


def test_dqn_episodes_of_two_runs_appended(tmp_path):
    """A DQN/RL loop's print ``Episode N | Loss: .. | Reward: ..`` (round 14 saw TL010 fire on such a
    file with runs appended): the episode is the loop's counter, as an epoch is, so the second run
    goes back to episode 1 and is judged as its own segment. It had been a metric named Episode,
    the steps the order of the lines, one series over both runs."""
    lines = [f"Episode {k} | Loss: {_q(k, r):.4f} | Reward: {2 * k + r}" for r in range(2) for k in range(1, 31)]
    run = _console(tmp_path, lines)
    loss = run.get("loss")
    assert run.roles["loss"] == "Loss" and "Episode" not in run.series
    assert loss.steps.tolist() == [*range(1, 31), *range(1, 31)]
    assert (loss.values[0], loss.values[-1]) == (_q(1, 0), _q(30, 1))
    assert [len(s.get("loss")) for s in split_segments(run)] == [30, 30]


def test_episodes_counted_out_of_their_total(tmp_path):
    """``Episode 3/30, Loss: .., Reward: ..``: the count had been a count inside an epoch, made to
    go on across the restart; it is the episode, and the appended run starts again."""
    lines = [f"Episode {k}/30, Loss: {_q(k, r):.4f}, Reward: {2 * k + r}" for r in range(2) for k in range(1, 31)]
    run = _console(tmp_path, lines)
    loss = run.get("loss")
    assert loss.steps.tolist() == [*range(1, 31), *range(1, 31)]
    assert [len(s.get("loss")) for s in split_segments(run)] == [30, 30]


def test_episode_beside_a_step_counter(tmp_path):
    """``Episode 2 Step 300 loss ..``: with a global step printed, the step stays the step."""
    lines = [f"Episode {1 + s // 100} Step {s} loss: {_q(s // 10, 0):.4f}" for s in range(10, 610, 10)]
    run = _console(tmp_path, lines)
    loss = run.get("loss")
    assert loss.steps.tolist() == list(range(10, 610, 10))
    assert len(split_segments(run)) == 1


def test_episode_with_its_length_printed(tmp_path):
    """``Episode 5 | Steps: 183 | Loss: ..``: the steps an episode lasted, not a count inside it
    (one line an episode) nor a step (they go up and down): the episode is the step, and an appended
    run goes back with it."""
    lengths = [20 + (37 * k) % 181 for k in range(1, 26)]
    lines = [
        f"Episode {k} | Steps: {lengths[k - 1]} | Loss: {_q(k, r):.4f} | Reward: {k + r}"
        for r in range(2)
        for k in range(1, 26)
    ]
    run = _console(tmp_path, lines)
    loss = run.get("loss")
    assert run.roles["loss"] == "Loss"
    assert loss.steps.tolist() == [*range(1, 26), *range(1, 26)]
    assert (loss.values[0], loss.values[-1]) == (_q(1, 0), _q(25, 1))
    assert [len(s.get("loss")) for s in split_segments(run)] == [25, 25]
