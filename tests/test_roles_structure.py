"""Role discovery by name structure (issue 15 §1): real writers, ranked candidates, reasons,
summed components, and what a run without a loss says."""

from __future__ import annotations

import json
import math

import pytest

from trainlint.api import Options, doctor, read_run
from trainlint.model import Run
from trainlint.role_structure import parse
from trainlint.roles import RoleMapError, apply_roles, assign_roles, choose


def _writer(tmp_path):
    return pytest.importorskip("torch.utils.tensorboard").SummaryWriter(str(tmp_path))


def _decay(i: int, n: int = 60) -> float:
    return 2.5 * math.exp(-3 * i / n) + 0.3


def test_event_file_with_stats_namespaces_finds_train_and_eval_loss(tmp_path, cli):
    w = _writer(tmp_path)
    for i in range(60):
        w.add_scalar("TrainIterStats/loss", _decay(i), i)
        w.add_scalar("TrainIterStats/learning_rate", 1e-3, i)
        if i % 10 == 9:
            w.add_scalar("EvalStats/avg_loss", _decay(i) + 0.1, i)
    w.close()
    run = read_run(tmp_path)
    assert run.roles["loss"] == "TrainIterStats/loss"
    assert run.roles["eval_loss"] == "EvalStats/avg_loss"
    assert run.roles["learning_rate"] == "TrainIterStats/learning_rate"
    assert "train split" in run.meta["role_reasons"]["loss"]
    rep = doctor([tmp_path]).reports[0]
    assert rep.unjudged is None and rep.summary["roles"]["loss"] == "TrainIterStats/loss"
    assert rep.summary["role_reasons"]["eval_loss"].startswith("EvalStats/avg_loss (")
    out = cli("series", tmp_path)
    assert out.code == 0
    assert "loss = TrainIterStats/loss (a loss of the train split by its name)" in out.out


def test_total_beats_its_components_and_says_so(tmp_path, cli):
    w = _writer(tmp_path)
    for i in range(60):
        parts = {
            "box_loss": 0.5 * _decay(i),
            "cls_loss": 0.3 * _decay(i),
            "obj_loss": 0.2 * _decay(i),
        }
        for k, v in parts.items():
            w.add_scalar(f"Loss/{k}", v, i)
        w.add_scalar("Loss/total_loss", sum(parts.values()), i)
    w.close()
    out = cli("series", tmp_path)
    assert "loss = Loss/total_loss (total of 3 loss components)" in out.out
    data = cli("doctor", tmp_path, "--format", "json").json()
    assert data["reports"][0]["summary"]["role_reasons"]["loss"] == "Loss/total_loss (total of 3 loss components)"


def test_only_components_are_summed_once_after_reading(tmp_path):
    # a YOLO-style JSONL (not the YOLO CSV path): the sum is built by the roles step, not the reader
    rows = [
        {
            "step": i,
            "train/box_loss": 0.6 * _decay(i),
            "train/cls_loss": 0.4 * _decay(i),
            "val/box_loss": 0.7 * _decay(i),
            "val/cls_loss": 0.5 * _decay(i),
        }
        for i in range(40)
    ]
    path = tmp_path / "metrics.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = read_run(path)
    assert run.roles["loss"] == "train/box_loss+train/cls_loss"
    assert run.get("loss").values[0] == pytest.approx(_decay(0))
    assert run.roles["eval_loss"] == "val/box_loss+val/cls_loss"
    assert "sum of 2 loss components" in run.meta["role_reasons"]["loss"]
    assert any(n.startswith("loss = train/box_loss+train/cls_loss") for n in run.notes)


def test_gan_per_optimizer_losses_are_summed():
    run = Run("mem", "test")
    for name, scale in (("loss_0", 1.0), ("loss_1", 2.0), ("loss_mel", 0.5)):
        run.add(name, range(30), [scale * _decay(i) for i in range(30)])
    apply_roles(run)
    assert run.roles["loss"] == "loss_0+loss_1"
    assert "per-optimizer" in run.meta["role_reasons"]["loss"]


def test_gan_losses_named_by_their_networks_alone():
    # YGGYatsso/Image-Colorization-Using-CGAN losses.csv @ddb050d: ",discriminator,Generator" (pandas'
    # to_csv of a dict of the two networks' losses): the generator's is the loss, only beside a discriminator
    c = choose(["", "discriminator", "Generator"])["loss"]
    assert c.names == ("Generator",) and "generator's" in c.reason
    assert choose(["epoch", "G", "D"])["loss"].names == ("G",)
    assert "loss" not in choose(["epoch", "generator", "accuracy"])
    assert choose(["G", "D", "train_loss"])["loss"].names == ("train_loss",)


def test_gan_discriminator_terms_are_not_added_to_the_generators_loss():
    # a GAN trains two networks against each other: the discriminator's loss is the other
    # network's objective, never a part of the model's loss (their sum measures nothing)
    c = choose(["loss_disc", "loss_gen"])["loss"]
    assert c.names == ("loss_gen",) and c.reason == "the generator's loss"
    # pytorch/examples dcgan/main.py prints Loss_D and Loss_G; CycleGAN's loss_names (D_A, G_A, ...)
    assert choose(["Loss_D", "Loss_G", "D(x)"])["loss"].names == ("Loss_G",)
    assert choose(["d_loss", "g_loss"])["loss"].names == ("g_loss",)
    # the generator's own total beats a third network's loss beside it (stargan-pitch-log-train-1046, StarGAN-VC's
    # train.py: 'Generator Loss : {:.3f}, Discriminator Loss : {:.3f}, domain_classifier_loss: {:.3f}')
    assert choose(["Generator_Loss", "Discriminator_Loss", "domain_classifier_loss"])["loss"].names == (
        "Generator_Loss",
    )
    cyc = choose([f"loss_{n}_{x}" for x in "AB" for n in ("D", "G", "cycle", "idt")])["loss"]
    assert cyc.names == ("loss_G_A", "loss_G_B", "loss_cycle_A", "loss_cycle_B", "loss_idt_A", "loss_idt_B")
    assert "the discriminator's left out" in cyc.reason
    # only a discriminator's loss logged: it is the loss there is (nothing else to judge)
    assert choose(["loss_D"])["loss"].names == ("loss_D",)
    # components that are not a discriminator's are summed as before
    assert choose(["loss_box", "loss_cls"])["loss"].names == ("loss_box", "loss_cls")


def test_exact_alias_beats_structure_and_train_beats_eval():
    assert assign_roles(["TrainIterStats/loss", "loss", "EvalStats/avg_loss"])["loss"] == "loss"
    roles = assign_roles(["EvalStats/loss", "TrainStats/loss"])
    assert roles["loss"] == "TrainStats/loss" and roles["eval_loss"] == "EvalStats/loss"
    # an eval loss alone is the loss there is to judge, and then not also the eval loss
    alone = choose(["EvalStats/avg_loss", "epoch"])
    assert alone["loss"].names == ("EvalStats/avg_loss",) and "eval_loss" not in alone
    assert "only loss logged is an eval loss" in alone["loss"].reason


def test_vali_is_the_validation_split_and_beats_the_test_loss():
    # the thuml forecasting repositories (Informer, Autoformer, Time-Series-Library) spell it "vali"
    roles = assign_roles(["train_loss", "vali_loss", "test_loss"])
    assert roles["loss"] == "train_loss" and roles["eval_loss"] == "vali_loss"
    assert parse("Vali_Loss").split == "eval" and assign_roles(["Vali_Loss", "Test_Loss"])["loss"] == "Vali_Loss"


@pytest.mark.parametrize(
    "name,split,kind",
    [
        ("train/loss_epoch", "train", "total"),
        ("lm loss", None, "total"),
        ("train_loss_step", "train", "total"),
        ("Loss/train", "train", "total"),
        ("loss_scale", None, None),
        ("valid_loss_best", "eval", None),
        ("grad_norm", None, None),
        ("train/box_loss", "train", "part"),
        ("loss_mel", None, "part"),
        ("Loss_AUC", None, None),  # a membership-inference attack's AUC from the loss: a score
        ("val_loss_auroc", "eval", None),
        ("acc_loss", None, "part"),  # a loss accumulated over batches stays a loss
    ],
)
def test_parse_name_structure(name, split, kind):
    p = parse(name)
    assert (p.split, p.kind) == (split, kind)


def test_nothing_maps_lists_candidates_and_all_names(tmp_path):
    rows = [
        {
            "step": i,
            "objective_value": _decay(i),
            **{f"m{k}": float(k) for k in range(50)},
        }
        for i in range(20)
    ]
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    rep = doctor([path]).reports[0]
    assert rep.unjudged.startswith("no loss series found; did you mean --map loss=objective_value?")
    listed = rep.unjudged.split("metrics read: ")[1]
    hidden = int(listed.split("(+")[1].split(" more")[0])
    assert len(listed.split(" (+")[0].split(", ")) + hidden == rep.summary["metrics"]  # 40 listed, the rest counted
    assert f"see trainlint series {path}" in rep.unjudged


def test_map_naming_a_missing_metric_is_a_usage_error(tmp_path, cli):
    path = tmp_path / "m.jsonl"
    path.write_text(
        "".join(json.dumps({"step": i, "loss": 2.0, "a": 1.0 / (i + 1), "b": 0.5}) + "\n" for i in range(20))
    )
    out = cli("series", path, "--map", "loss=nope")
    assert out.code == 2 and "no metric 'nope'" in out.err and "it has: a, b, loss" in out.err
    out = cli("doctor", path, "--map", "loss=nope")
    assert out.code == 2 and "no metric 'nope'" in out.out
    with pytest.raises(RoleMapError):
        read_run(path, {"loss": "nope"})


def test_map_may_name_a_sum(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text(
        "".join(json.dumps({"step": i, "loss": 2.0, "a": 1.0 / (i + 1), "b": 0.5}) + "\n" for i in range(20))
    )
    run = read_run(path, {"loss": "a+b"})
    assert run.roles["loss"] == "a+b" and run.get("loss").values[0] == pytest.approx(1.5)
    rep = doctor([path], Options(role_map={"loss": "a+b"})).reports[0]
    assert rep.unjudged is None


def test_a_per_optimizer_total_equal_to_a_discriminator_term_is_left_out():
    # Coqui TTS's VITS (tts-vits-finetuned-coqui-trainer-log-1143): the trainer names each
    # optimizer's total loss_<idx>; loss_0 is the discriminator's (printed equal to loss_disc),
    # loss_1 the generator's; grad_norm_<idx> and current_lr_<idx> follow the same index
    run = Run("mem", "test")
    disc = [3.0 - 0.01 * i for i in range(30)]
    for name, values in (
        ("loss_disc", disc),
        ("loss_0", disc),
        ("grad_norm_0", [0.5] * 30),
        ("current_lr_0", [2e-4] * 30),
        ("loss_mel", [19 - 0.1 * i for i in range(30)]),
        ("loss_1", [27 - 0.1 * i for i in range(30)]),
        ("grad_norm_1", [50.0] * 30),
        ("current_lr_1", [2e-4] * 30),
    ):
        run.add(name, range(30), values)
    apply_roles(run)
    assert run.roles["loss"] == "loss_1" and "loss_0 left out" in run.meta["role_reasons"]["loss"]
    assert run.roles["grad_norm"] == "grad_norm_1" and run.roles["learning_rate"] == "current_lr_1"
    # whichever index the discriminator has (Coqui's GAN vocoders put the generator first)
    first = Run("mem", "test")
    for name, values in (("loss_disc", disc), ("loss_0", [v + 1 for v in disc]), ("loss_1", disc)):
        first.add(name, range(30), values)
    apply_roles(first)
    assert first.roles["loss"] == "loss_0"
    # per-optimizer totals that no discriminator term equals are summed as before
    both = Run("mem", "test")
    for name, values in (("loss_disc", disc), ("loss_0", [v + 1 for v in disc]), ("loss_1", [v + 2 for v in disc])):
        both.add(name, range(30), values)
    apply_roles(both)
    assert both.roles["loss"] == "loss_0+loss_1"


def test_the_generators_explicit_total_beats_its_adversarial_term():
    # VITS train.py: loss_gen is the generator's adversarial term, loss_gen_all its objective
    names = ["loss_disc", "loss_gen", "loss_fm", "loss_mel", "loss_kl", "loss_gen_all"]
    assert choose(names)["loss"].names == ("loss_gen_all",)
    assert choose(names[:-1])["loss"].names == ("loss_gen",)  # without the total: as before


def test_a_readers_objective_may_be_a_sum_of_terms_with_its_reason():
    # the console reader's last tier (readers/console/objectives.py) names the terms it sums
    run = Run("mem", "test")
    for name, base in (("x_recon", 5.0), ("kl_div_z", 1.0), ("mae", 80.0)):
        run.add(name, list(range(10)), [base - 0.1 * i for i in range(10)])
    run.meta.update(objective="kl_div_z+x_recon", objective_why="the sum of 2 objective terms: why")
    apply_roles(run)
    assert run.roles["loss"] == "kl_div_z+x_recon"
    assert list(run.series["kl_div_z+x_recon"].values[:2]) == pytest.approx([6.0, 5.8])
    assert run.meta["role_reasons"]["loss"] == "kl_div_z+x_recon (the sum of 2 objective terms: why)"
    other = Run("mem", "test")
    other.add("mae", [0, 1, 2], [3.0, 2.0, 1.0])
    other.meta["objective"] = "kl_div_z+x_recon"  # a term the run lacks: no loss from it
    apply_roles(other)
    assert "loss" not in other.roles


def test_components_logged_together_are_summed_in_order_across_a_relaunch():
    # a YOLO table printed without its bars (wandb's output.log), the run relaunched into the same
    # log: epochs 1-30, then 1-10 again (seen in MinhwaCho/hyphae_yolov7
    # wandb/run-20240110_140713-hi11xsj8/files/output.log @ 5fc25ec908a4a7a99620bf482ab37540b1232ac0);
    # the sum keeps both segments
    steps = [*range(1, 31), *range(1, 11)]
    run = Run("mem", "test")
    run.add("box_loss", steps, [2.4 * _decay(i) for i in range(30)] + [1.3] * 10)
    run.add("cls_loss", steps, [3.9 * _decay(i) for i in range(30)] + [1.2] * 10)
    apply_roles(run)
    loss = run.get("loss")
    assert run.roles["loss"] == "box_loss+cls_loss"
    assert len(loss) == 40 and list(loss.steps[:2]) == [1, 2] and list(loss.steps[-2:]) == [9, 10]
    assert loss.values[0] == pytest.approx(6.3 * _decay(0)) and loss.values[-1] == pytest.approx(2.5)


def test_a_number_right_after_the_loss_word_is_a_word_of_its_own():
    # yipei0516/ELSA log/train_log.txt @c655508 prints "Loss1: 0.205 Loss2: 0.163 ... Loss6: 0.0256":
    # Loss1 is the numbered loss loss_1 is; other names with digits keep them
    assert parse("Loss1").part == "1" and parse("loss_1").part == "1"
    assert parse("Losses2").part == "2"
    assert parse("l1_loss").part == "l1" and parse("lossy1").kind is None
    assert choose(["Loss1", "Loss2", "Loss3"])["loss"].names == ("Loss1", "Loss2", "Loss3")


def test_a_metric_mapped_to_a_role_is_given_no_other():
    """``--map loss=val_loss``: val_loss is not also the eval loss (its alias), which would compare
    the loss with itself (TL065 'eval tracks train' on identical series)."""
    assert assign_roles(["loss", "val_loss", "acc"], {"loss": "val_loss"}) == {"loss": "val_loss"}
    assert assign_roles(["loss", "val_loss", "acc"]) == {"loss": "loss", "eval_loss": "val_loss"}


def test_a_score_computed_from_the_loss_is_no_loss(tmp_path):
    """Roushelfy/LLM_HW3's ppl_based.log (commit at the mirrored HEAD): a membership-inference
    attack prints ``ref_path: results/checkpoint-10, Loss AUC: 0.945`` per checkpoint; an AUC is
    no training loss, so no loss is taken (made-up lines in its shape)."""
    from trainlint.api import doctor

    log = tmp_path / "ppl_based.log"
    lines = [f"ref_path: results/checkpoint-{10 * i}, Loss AUC: {0.9 + 0.003 * (i % 5):.4f}" for i in range(1, 28)]
    log.write_text("\n".join(lines) + "\n")
    rep = next(r for r in doctor([log]).reports if r.kind == "log")
    assert rep.summary.get("loss_points") in (None, 0) and rep.verdict.value == "NOT-CHECKED"
    assert assign_roles(["Loss_AUC", "train_loss"])["loss"] == "train_loss"
