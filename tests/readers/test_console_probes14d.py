"""Real logs outside the corpus that print several loss-like names (issue 29, probe round 14d): the
metric taken as the loss must be the training loss the log's author would name (not a best-so-far
value printed when a checkpoint is saved, not a total summed with its own components), and the loss
must be read where the log prints it. Each fixture is made up in the shape of the real log
(repository, path and commit recorded with it; no copied lines) and asserts the series read: names,
steps, first and last values, and which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers.base import ReadError


def _val(k: int, start: float) -> float:
    return round(start * 0.8**k + 0.02, 4)


def test_a_saved_best_line_is_not_the_training_loss(tmp_path):
    """EasonLi292/Z-GED train_log.txt @23fb68fe (eason/sequence_decoder/train.py): per epoch
    ``Epoch k``, ``  Train - CE: .., KL: .., pole: .., acc: ..%``, the same for ``Val``, and where the
    validation total improved ``  -> Saved best (loss: 0.2407)``: the best validation loss so far.
    It had been taken as the training loss (the only name saying loss); the training loss is made
    of the CE and KL terms, no total printed."""
    lines = []
    for k in range(1, 13):
        ce, kl, ce_v = _val(k, 0.95), round(2.0 + k / 10, 4), _val(k, 0.5)
        lines += [
            f"Epoch {k}",
            f"  Train - CE: {ce:.4f}, KL: {kl:.4f}, pole: {_val(k, 0.11):.4f}, acc: {70 + k}.4%",
            f"  Val   - CE: {ce_v:.4f}, KL: {kl + 0.3:.4f}, pole: {_val(k, 0.05):.4f}, acc: {80 + k}.0%",
        ]
        if k % 3 != 0:
            lines.append(f"  -> Saved best (loss: {ce_v + 0.01 * (kl + 0.3):.4f})")
    lines.append(f"Training complete! Best val loss: {_val(11, 0.5):.4f}")
    run = _read(tmp_path, lines)
    loss = run.roles["loss"]
    assert "best" not in loss.lower() and set(loss.split("+")) == {"CE", "KL"}
    assert _series(run, "CE") == (12, 1.0, 12.0, _val(1, 0.95), _val(12, 0.95))
    assert _series(run, loss)[:3] == (12, 1.0, 12.0)
    assert "loss" not in run.series and "best_loss" not in run.series  # the save lines are no series
    assert any(n.startswith("8 line(s) announcing a saved model (e.g. line 4:") for n in run.notes)


def test_a_saved_best_model_line_beside_the_step_losses(tmp_path):
    """The same kind in a loop that prints its batch loss: ``Saving best model ... loss 0.41`` after
    an epoch stays out of the training loss, which is the step lines' ``loss``."""
    lines = []
    for e in range(4):
        for i in range(5):
            lines.append(f"epoch {e} iter {i * 10} loss {_val(e * 5 + i, 2.0):.4f}")
        lines.append(f"Saving best model, loss {_val(e, 1.5):.4f}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss")[0] == 20 and _series(run, "loss")[3:] == (_val(0, 2.0), _val(19, 2.0))


def _desc(i: int) -> str:
    return f"Epoch [0][{i}/1200] Time/b 0.{20 + i % 7} (0.29) Loss {_val(i, 330.0):.4f} ({_val(i // 2, 300.0):.3f})"


def test_the_loss_in_a_tqdm_description_is_read_once_a_batch(tmp_path):
    """RCVLab-AiimLab/crowd_counting train.out @24115f5b: ``pbar.set_description`` puts ``Epoch
    [0][i/1200] Time/b 0.42 (0.42) Loss 330.97 (330.975) :`` before the bar, each batch rendered
    twice (``i/1200`` then ``i+1/1200`` after the bar) on one ``\\r`` line. Nothing had been read
    (the description's pairs are spaced, no colon). The batch value is the loss, the one in brackets
    its running average."""
    segs = []
    for i in range(15):
        for done in (i, i + 1):
            segs.append(f"{_desc(i)} :   {done * 100 // 1200}%|          | {done}/1200 [00:0{i % 9}<03:25,  4.85it/s]")
    run = _read(tmp_path, ["warning: something", "\r".join(segs)], name="train.out")
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (15, 0.0, 14.0, _val(0, 330.0), _val(14, 330.0))


def test_a_bar_with_nothing_after_it_and_no_loss_before_it_reads_as_before(tmp_path):
    """A description without a loss (``Epoch 3:``) adds no record: the bar's postfix is where
    such a loop prints its loss."""
    lines = [f"Epoch {e}:  100%|##########| 50/50 [00:03<00:00, 14.2it/s, loss={_val(e, 1.2):.3f}]" for e in range(12)]
    lines += [f"Epoch {e}:   40%|####      | 20/50 [00:01<00:02, 14.2it/s]" for e in range(3)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss")[0] == 12


def test_lightning_pads_a_nan_loss_to_nan_0_and_it_is_read_as_nan(tmp_path):
    """hanv14/HP-VADE log_train.txt @7bf7644f and FoxNickel/OmniAvatar train_log.txt @1bda75c9:
    Lightning's bar pads every float to five characters (``format_num``), so a diverged loss prints
    ``train_loss=nan.0`` (``inf.0``). Those points had been dropped, the NaN unseen."""
    bar = "Epoch 0:   {p}%|          | {i}/4282 [00:0{s}<18:18,  3.90it/s, v_num=0, train_loss={v}]"
    values = [f"{_val(i, 2.0):.3f}" for i in range(12)] + ["inf.0"] + ["nan.0"] * 8
    segs = [bar.format(p=i // 43, i=i + 1, s=i % 9, v=v) for i, v in enumerate(values)]
    run = _read(tmp_path, ["\r".join(segs)])
    s = run.series[run.roles["loss"]]
    assert run.roles["loss"] == "train_loss" and len(s.values) == 21
    assert float(s.values[0]) == _val(0, 2.0) and str(s.values[12]) == "inf" and str(s.values[-1]) == "nan"


def test_tot_loss_is_the_total_not_a_third_component(tmp_path):
    """Robbie-Luo/video_action_detection output/train.log @2b687b1a: ``Train step:100/617600,Loc
    Loss: 0.6838,Cls Loss: 0.7057,Tot Loss: 0.6948`` every 100 steps, ``Validation: Loc Loss: ..,Cls
    Loss: ..,Tot Loss: ..`` every 10000. The loss had been the sum of all three (the total added to
    its own components); ``Tot`` is the total abbreviated."""
    lines = []
    for k in range(1, 31):
        loc, cls = _val(k, 0.7), _val(k, 0.71)
        tot = round((loc + cls) / 2, 4)
        lines.append(
            f"2019-12-11 17:02:05,999 INFO     Train step:{k * 100}/617600,Loc Loss: {loc:.4f},Cls Loss: {cls:.4f},Tot Loss: {tot:.4f}"
        )
        if k % 10 == 0:
            lines.append(
                f"2019-12-11 17:02:06,999 INFO     Validation: Loc Loss: {loc:.4f},Cls Loss: {cls:.4f},Tot Loss: {tot:.4f}"
            )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Tot_Loss" and run.roles["eval_loss"] == "Validation_Tot_Loss"
    first = round((_val(1, 0.7) + _val(1, 0.71)) / 2, 4)
    assert _series(run, "Tot_Loss")[:4] == (30, 100.0, 3000.0, first)
    assert _series(run, "Validation_Tot_Loss")[:3] == (3, 1000.0, 3000.0)


def test_a_config_dump_of_loss_settings_is_no_loss(tmp_path):
    """EricWWWW/bottom-up-attention.pytorch output/log.txt @81fe5a66: 52 launches, each dumping
    detectron2's full config (``FOCAL_LOSS_ALPHA: 0.25``, ``FOCAL_LOSS_GAMMA: 2.0``,
    ``SMOOTH_L1_LOSS_BETA: 0.1``) and its model, none training. The three settings had been summed
    into a loss of 52 points; a hyperparameter's word after the loss word names a setting."""
    lines = []
    for k in range(12):
        lines += [
            f"[07/03 17:{k + 10}:37] detectron2 INFO: Running with full config:",
            "  RETINANET:",
            "    BBOX_REG_LOSS_TYPE: smooth_l1",
            "    FOCAL_LOSS_ALPHA: 0.25",
            "    FOCAL_LOSS_GAMMA: 2.0",
            "    NUM_CLASSES: 80",
            "    SMOOTH_L1_LOSS_BETA: 0.1",
            f"[07/03 17:{k + 10}:38] detectron2 INFO: Full config saved to ./output/config.yaml",
        ]
    with pytest.raises(ReadError, match="no known training-progress lines"):
        _read(tmp_path, lines)


def test_alpha_before_the_loss_word_stays_a_loss_component():
    """SAC's ``alpha_loss`` (the temperature's loss) is a component; ``loss_alpha`` a setting."""
    from trainlint.role_structure import parse

    assert parse("alpha_loss").kind == "part" and parse("train/alpha_loss").kind == "part"
    assert parse("FOCAL_LOSS_ALPHA").kind is None and parse("SMOOTH_L1_LOSS_BETA").kind is None
