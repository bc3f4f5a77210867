"""The general line reader's last tier (readers/console/objectives.py): logs whose repeated
records hold no loss-like name, read on the names loops give their objective's terms. The
vocabulary and the choice among names; each real line shape read into its series and loss; and
the logs it must stand down on (a config dump, an evaluation table, a log that names its loss)."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers import ReadError
from trainlint.readers.console.objectives import founds, objective, term_kind


@pytest.mark.parametrize(
    "name, kind",
    [
        ("x_recon", "term"),
        ("recon_x", "term"),
        ("Reconstruction", "term"),
        ("y_recon2", "term"),
        ("reg", "term"),
        ("Train_reg", "term"),
        ("nll", "term"),
        ("ce", "term"),
        ("bce", "term"),
        ("cross_entropy", "term"),
        ("CrossEntropy", "term"),
        ("bpd", "term"),
        ("train bits_per_dim", "term"),
        ("neg_elbo", "whole"),
        ("Negative Log Likelihood", "term"),
        ("log_likelihood", None),  # maximised
        ("recon_mse", "term"),  # an error measure saying how a term is computed
        ("kl_div_z", "kl"),
        ("KLD", "kl"),
        ("kl", "kl"),
        ("objective", "whole"),
        ("nelbo", "whole"),
        ("total", "total"),
        ("train/total", "total"),
        # metrics, settings and anything else
        ("mse", None),
        ("mae", None),
        ("rmse", None),
        ("l1", None),
        ("err", None),
        ("acc", None),
        ("ce_acc", None),
        ("psnr", None),
        ("elbo", None),  # maximised
        ("obj", None),  # YOLO's and Darknet's objectness
        ("kl_weight", None),
        ("recon_weight", None),
        ("reg_lambda", None),
        ("best_nll", None),
        ("total_time", None),
        ("lr", None),
        ("RRC_stage1", None),
    ],
)
def test_term_kind(name, kind):
    assert term_kind(name) == kind


def test_only_a_training_term_founds_a_stream():
    assert founds("nll") and founds("Train_reg") and founds("objective")
    assert not founds("val_nll") and not founds("test_ce")
    assert not founds("kl_div_z") and not founds("total") and not founds("mse")


def test_one_term_beside_error_metrics_is_the_objective():
    # T2ICount utils/regression_trainer.py:136 minimises reg + 0.01 RRC_stage1 + 0.01 RRC_stage2; mae and mse
    # are the counting error (line 148-150 prints them beside the terms)
    found = objective(["Train_reg", "Train_RRC_stage1", "Train_RRC_stage2", "Train_mae", "Train_mse"])
    assert found is not None and found.names == ("Train_reg",) and found.reason == "an objective term by its name"


def test_terms_are_summed_and_a_second_models_copies_left_out():
    # DuoVAE models/duovae.py: backward_x minimises x_recon + y_recon + kl_div_z + kl_div_w (optimizer_x);
    # backward_y minimises y_recon2 + kl_div_w2 with optimizer_y, the auxiliary VAE's
    found = objective(["x_recon", "y_recon", "y_recon2", "kl_div_z", "kl_div_w", "kl_div_w2"])
    assert found is not None
    assert found.name == "kl_div_w+kl_div_z+x_recon+y_recon"
    assert found.left_out == ("y_recon2", "kl_div_w2")


@pytest.mark.parametrize(
    "names, chosen",
    [
        (["recon", "kl", "total"], "total"),  # a total beside its terms
        (["objective", "ce", "reg"], "objective"),
        (["nll", "kl", "acc"], "kl+nll"),
        (["recon1", "recon2"], "recon1+recon2"),  # numbered terms with no base: the terms of one objective
        (["ce", "val_ce", "acc"], "ce"),
        (["kl", "entropy"], None),  # PPO's policy drift: a KL term founds nothing
        (["mse", "mae"], None),
        (["total", "acc"], None),
        (["val_nll", "val_acc"], None),
    ],
)
def test_objective_choice(names, chosen):
    found = objective(names)
    assert (found.name if found else None) == chosen


def test_t2icount_reg_term(tmp_path):
    # T2ICount logs/train.log: utils/regression_trainer.py:102 and :148-150
    lines = []
    for e in range(12):
        lines.append(f"04-06 21:48:37, {'-' * 50}Epoch:{e}/299{'-' * 50}")
        lines.append(
            f"04-06 22:00:33, Epoch {e} Train, reg:{0.3237 - 0.01 * e:.4f}, RRC_stage1:{0.78 - 0.02 * e:.4f}, "
            f"RRC_stage2:{0.78 - 0.03 * e:.4f}, mae:{84.73 - 3 * e:.2f}, mse:{100.34 - 2 * e:.2f}, Cost: 715.7 sec "
        )
        if e >= 6:
            lines.append(f"04-06 22:04:00, Epoch {e} Val, MAE: {16.0 - 0.1 * e:.2f}, MSE: 68.31 Cost 209.4 sec")
    run = _read(tmp_path, lines)
    assert run.format == "console/general"
    assert run.roles["loss"] == "Train_reg"
    assert _series(run, "Train_reg") == (12, 0.0, 11.0, 0.3237, pytest.approx(0.2137))
    assert _series(run, "Val_MAE")[:3] == (6, 6.0, 11.0)
    reason = run.meta["role_reasons"]["loss"]
    assert "no printed name says loss" in reason and "--map loss=NAME" in reason
    assert any(n.startswith("loss = Train_reg (") for n in run.notes)


def _duovae_lines(epochs: int = 31) -> list[str]:
    # DuoVAE nohup.txt: utils/logger.py prints the model, then train.py every 10 epochs the terms
    lines = ["Train DuoVAE and PCVAE on both dSprites and 3dshapes datasets.", "2024-03-11 10:24:27 INFO DuoVAE("]
    lines += [
        f"      ({i}): Conv2d(3, 32, kernel_size=(4, 4), stride=(2, 2), padding=(1, 1), bias=False)" for i in range(160)
    ]
    lines.append(")")
    for e in range(0, epochs * 10, 10):
        lines.append(
            f"2024-03-11 10:{e // 10 % 60:02d}:00 INFO epoch:{e}/1000 x_recon:{5.3193 - 0.003 * e:.4f} "
            f"y_recon:0.2278 y_recon2:1.2087 kl_div_z:{4.7997 + 0.0001 * e:.4f} kl_div_w:1.2806 kl_div_w2:4.2300"
        )
    return lines


def test_duovae_terms_summed_after_a_long_banner(tmp_path):
    run = _read(tmp_path, _duovae_lines(), "nohup.txt")  # a .txt whose first progress line is past 8 KB
    assert run.format == "console/general"
    assert run.roles["loss"] == "kl_div_w+kl_div_z+x_recon+y_recon"
    assert _series(run, "x_recon") == (31, 0.0, 300.0, 5.3193, pytest.approx(4.4193))
    n, first, last, v0, v1 = _series(run, run.roles["loss"])
    assert (n, first, last) == (31, 0.0, 300.0)
    assert v0 == pytest.approx(5.3193 + 0.2278 + 4.7997 + 1.2806)
    assert "y_recon2, kl_div_w2 left out" in run.meta["role_reasons"]["loss"]


def test_duovae_doctor_judges_the_summed_objective(tmp_path):
    from trainlint.api import doctor

    path = tmp_path / "nohup.txt"
    path.write_text("\n".join(_duovae_lines()) + "\n")
    rep = doctor([path]).reports[0]
    assert rep.kind == "log" and rep.verdict.value == "PASS"
    assert rep.summary["roles"]["loss"] == "kl_div_w+kl_div_z+x_recon+y_recon"


def test_map_chooses_another_term(tmp_path):
    path = tmp_path / "nohup.txt"
    path.write_text("\n".join(_duovae_lines()) + "\n")
    run = read_run(path, role_map={"loss": "x_recon"})
    assert run.roles["loss"] == "x_recon" and "loss" not in run.meta.get("role_reasons", {})


def test_loss_wins_over_objective_terms(tmp_path):
    lines = [
        f"2024-03-11 10:00:00 INFO epoch:{e}/1000 x_recon:{5.3 - 0.01 * e:.4f} kl_div_z:{4.8 - 0.01 * e:.4f} "
        f"loss:{10.1 - 0.02 * e:.4f}"
        for e in range(10)
    ]
    run = _read(tmp_path, lines)
    assert run.format == "console/general"
    assert run.roles["loss"] == "loss" and "objective" not in run.meta
    assert _series(run, "loss") == (10, 0.0, 9.0, 10.1, pytest.approx(9.92))


@pytest.mark.parametrize(
    "lines",
    [
        # a config dump printed per run of a sweep: the same names again, each a setting
        ["lr: 0.001", "mse: 0.1", "batch_size: 32", "recon: 1.0", "kl: 0.5"] * 5,
        # an evaluation-only table of error measures
        [f"epoch {e} | mae: {3.2 - 0.1 * e:.2f} | rmse: {4.1 - 0.1 * e:.2f}" for e in range(10)],
        [f"Epoch {e} Val, MAE: {16.3 - 0.1 * e:.2f}, MSE: {68.3 - e:.2f}" for e in range(10)],
        # a policy's drift and entropy (PPO): no objective term
        [f"update {i} kl: {0.01 + 0.001 * i:.4f} entropy: {1.2 - 0.01 * i:.3f}" for i in range(10)],
        # evaluation terms only
        [f"epoch {e} val_nll: {2.3 - 0.1 * e:.3f} val_acc: {0.5 + 0.01 * e:.2f}" for e in range(10)],
    ],
    ids=["config-dump", "mae-table", "val-mae-mse", "ppo-kl", "eval-nll"],
)
def test_stands_down(tmp_path, lines):
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n")
    try:
        run = read_run(path)
    except ReadError:
        return
    assert "loss" not in run.roles and "objective" not in run.meta


def test_tables_do_not_use_the_tier(tmp_path):
    # the tier is the console reader's: a CSV or JSON-lines table of objective terms or error
    # measures is judged as before (NOT-CHECKED, naming a candidate)
    from trainlint.api import doctor

    csv = tmp_path / "metrics.csv"
    csv.write_text("epoch,mse,mae\n" + "".join(f"{e},{1.0 - 0.02 * e:.3f},{0.8 - 0.01 * e:.3f}\n" for e in range(30)))
    jsonl = tmp_path / "log.jsonl"
    jsonl.write_text("".join(f'{{"step": {i}, "nll": {3.0 - 0.05 * i}, "kl": 0.5}}\n' for i in range(30)))
    for path, hint in ((csv, "--map loss=mae"), (jsonl, "--map loss=nll")):
        rep = doctor([path]).reports[0]
        assert rep.verdict.value == "NOT-CHECKED" and hint in rep.unjudged


def test_a_relaunch_into_the_same_log_is_noted_on_the_objective_terms(tmp_path):
    run = _read(tmp_path, _duovae_lines(31) + _duovae_lines(12)[-12:], "nohup.txt")
    assert run.roles["loss"] == "kl_div_w+kl_div_z+x_recon+y_recon"
    assert any("falls back 1 time(s) (first from 300 to 0)" in n for n in run.notes)
