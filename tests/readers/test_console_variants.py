"""The console readers' content-variation harness (issue 29): a progress line printed the way
another script prints the same information must read as the same loss series. The metamorphic
harness (test_console_metamorphic) varies what FRAMES a line; this one varies its CONTENT:

- how the value is printed (``3.456e-01``, ``3.456E-01``, ``tensor(0.3456)``, a CUDA tensor with
  its graph, ``np.float32(0.3456)``, ``[0.3456]``, ``0.345600``, a right-aligned column; the other
  values of the line with their units, ``time 0.15s``, ``acc 95.1%``);
- how the loss is named (``Loss``, ``LOSS``, ``train_loss``, ``Train Loss``, ``train/loss``,
  ``training loss``, ``loss_total`` / ``total_loss`` where the line prints no other training loss);
- the separators (``loss: x``, ``loss=x``, ``loss x``, ``loss -> x``; ``,`` or ``|`` between pairs);
- the counters (``Epoch 3``, ``Epoch: 3``, ``epoch=3``, ``[3/50]``, ``Epoch 3/50``; ``Step 100``,
  ``step: 100``, ``it 100``, ``global_step=100``, ``Iter [100/5000]``).

Each variant in tests/_variants.py names the print that writes it. What must be read: the same
values at the same steps, under the name the variant prints (``Train Loss`` is read as
``Train_Loss``: words joined by ``_``; a space-separated ``total loss 0.6`` is read as ``loss``,
the reader's rule for a name before a bare space); for a counter printed another way, the steps
may be renumbered but keep their order (one increasing map takes the old steps to the new: a
``[3/50]`` count and an ``Epoch 3`` are the same place in the run).

Sources: the format zoo's inputs that the general line reader or a generic shape reads
(test_console_zoo, test_console_general: always present), and every 3rd calibration console
log (sorted ids; the part decided from the repository name before a file is opened, as the
metamorphic harness does) that reads right today with those readers. A source whose printed loss
values are not exactly the values read, in order, cannot be rewritten and is left out.

Fast by default: each variant takes every EVERY-th source it applies to, from an offset of its
own; TRAINLINT_VARIANTS_FULL=1 tries every variant on every source.
"""

from __future__ import annotations

import os
from pathlib import Path

import _metamorphic as M
import _variants as V
import pytest
import test_console_general
import test_console_zoo

from trainlint.readers.console.general import read_line

FULL = os.environ.get("TRAINLINT_VARIANTS_FULL") == "1"
EVERY = 1 if FULL else 4
CAL_SAMPLE = 3  # every 3rd calibration console log (sorted ids) is a source
CAL_EVERY = 1 if FULL else 3
CAL_MAX_BYTES = 300_000
GENERAL = ("console/general", "console/generic")  # the general line reader and the generic shapes
NAMES = [v.name for v in V.VARIANTS]

# (variant, source) pairs that still read differently, each with the reason. A pair that reads
# the same again fails the test until it is taken out.
# fmt: off
KNOWN: dict[tuple[str, str], str] = {
    ('numpy2', 'calibration.emcad-tom500-train-out-1255'):
        "the generic shapes leave NumPy scalar reprs (np.float32(...)) to the general line reader, which keeps verl's line shapes and merged validation metrics: the log goes to the general reader, which takes other steps or points",
    ('numpy2', 'calibration.s12-gpt2-124m-train-log-1057'):
        "the generic shapes leave NumPy scalar reprs (np.float32(...)) to the general line reader, which keeps verl's line shapes and merged validation metrics: the log goes to the general reader, which takes other steps or points",
    ('numpy2', 'zoo.speechbrain_train_logger'):
        "the generic shapes leave NumPy scalar reprs (np.float32(...)) to the general line reader, which keeps verl's line shapes and merged validation metrics: the log goes to the general reader, which takes other steps or points",
    ('numpy2', 'calibration.safety-binary-classifier-train-log-1013'):
        "the generic shapes leave NumPy scalar reprs (np.float32(...)) to the general line reader, which keeps verl's line shapes and merged validation metrics: the log goes to the general reader, which takes other steps or points",
    ('epoch_bracket', 'calibration.csta-task0-908'):
        "a bare [N/M] is read as a count inside an epoch: in a file of several runs the count's fall at a restart is taken for a new epoch and the steps go on",
    ('epoch_bracket', 'general.an_epoch_done_summary_is_not_an_evaluation'):
        "'[3/4] done, AUC: .., loss: ..' (the epoch printed bare) no longer says an epoch closed: the summary's loss is taken as training points",
    ('epoch_of', 'calibration.java-nn-loss-txt-1242'):
        "an 'Epoch N/M' header on the line hands the log to the epoch-blocks recogniser, which names the loss by its split (train_loss)",
    ('epoch_of', 'calibration.resnet50-mnist-loss-914'):
        "an 'Epoch N/M' header on the line hands the log to the epoch-blocks recogniser, which names the loss by its split (train_loss)",
    ('epoch_of', 'general.epoch_line_printed_after_a_tqdm_bar_without_a_newline'):
        "an 'Epoch N/M' header on the line hands the log to the epoch-blocks recogniser, which names the loss by its split (train_loss)",
    ('sep_space', 'zoo.litgpt_finetune'):
        "litgpt's 'loss train: x, val: y' names the loss once for two splits: printed 'loss train x, val y' the splits' words alone are read as names and the val loss taken",
    ('step_it', 'calibration.emcad-tom500-train-out-1255'):
        "the generic step shape knows step/iter/iteration, not 'it': the general line reader reads the log and keeps another set of points",
    ('step_it', 'calibration.s12-gpt2-124m-train-log-1057'):
        "the generic step shape knows step/iter/iteration, not 'it': the general line reader reads the log and keeps another set of points",
    ('epoch_of', 'calibration.bicausal-wasserstein-log-train-1044'):
        "two lines per epoch printed as 'Epoch 0/99, loss=..' go to the epoch-blocks recogniser, which names an unsplit loss of its training blocks train_loss: the same 200 points and values under another name",
}
# fmt: on


def _sites(sources: list[M.Source], tmp: Path, min_points: int) -> list[V.Site]:
    out = []
    for src, path in M.written(sources, tmp):
        read = V.read_series(path)
        if read is None or not read.fmt.startswith(GENERAL) or len(read.values) < min_points:
            continue
        if src.entry is not None and not M.reads_manifest_loss(src.entry, read.loss):
            continue  # a corpus log: only one that reads the manifest's loss
        site = V.locate(src.name, src.text, src.filename, read)
        if site is not None:
            out.append(site)
    return out


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("zoo")
    return _sites(M.zoo_sources([test_console_zoo, test_console_general], tmp / "harvest"), tmp, 5)


@pytest.fixture(scope="module")
def calibration(tmp_path_factory):
    sources, min_steps = M.calibration_or_skip(CAL_SAMPLE, CAL_MAX_BYTES)
    return _sites(sources, tmp_path_factory.mktemp("calibration"), min_steps)


def _chosen(sites: list[V.Site], variant: str, every: int) -> list[tuple[V.Site, tuple[list[str], str]]]:
    """The sources a variant is tried on: of those it applies to, every ``every``-th from an
    offset of the variant's own, each with its rewritten lines and the loss's name then."""
    fits = [(site, out) for site in sites if (out := V.BY_NAME[variant].rewrite(site)) is not None]
    k = NAMES.index(variant) % every
    return [p for i, p in enumerate(fits) if i % every == k]


def _failures(variant: str, chosen: list, tmp: Path) -> dict[str, str]:
    out = {}
    v = V.BY_NAME[variant]
    for k, (site, (lines, loss)) in enumerate(chosen):
        path = tmp / f"v{k}" / site.filename
        path.parent.mkdir(parents=True)
        path.write_text("\n".join(lines), encoding="utf-8")
        got = V.read_series(path)
        want = V.Series(loss, site.base.steps, site.base.values)
        if not V.agrees(got, want, v.renumbers):
            line = site.hits[len(site.hits) // 2].line
            out[site.name] = (
                f"{site.name}: wanted {want.brief()}, read {got.brief() if got else 'nothing'}\n"
                f"    {site.lines[line][:160]!r}\n -> {lines[line][:160]!r}"
            )
    return out


def _judge(variant: str, failed: dict[str, str], chosen: list) -> None:
    names = {site.name for site, _ in chosen}
    known = {src for (v, src) in KNOWN if v == variant and src in names}
    new = [why for src, why in failed.items() if src not in known]
    assert not new, f"{variant}: {len(new)} source(s) read differently:\n" + "\n".join(new)
    healed = sorted(known - set(failed))
    assert not healed, f"{variant}: now read the same, take them out of KNOWN: {healed}"


@pytest.mark.parametrize("variant", NAMES)
def test_a_varied_zoo_log_reads_the_same(variant, zoo, tmp_path):
    chosen = _chosen(zoo, variant, EVERY)
    assert chosen, f"{variant} applies to no zoo source"
    _judge(variant, _failures(variant, chosen, tmp_path), chosen)


@pytest.mark.parametrize("variant", NAMES)
def test_a_varied_calibration_log_reads_the_same(variant, calibration, tmp_path):
    chosen = _chosen(calibration, variant, CAL_EVERY)
    _judge(variant, _failures(variant, chosen, tmp_path), chosen)


def test_the_sources_are_many_and_every_kind_of_variant_meets_them(zoo):
    assert len(zoo) >= 40
    for prefix in ("sci_", "name_", "sep_", "pairs_", "epoch_", "step_"):
        met = {site.name for v in NAMES if v.startswith(prefix) for site, _ in _chosen(zoo, v, EVERY)}
        assert len(met) >= 5, (prefix, met)


def test_every_known_pair_names_a_variant_and_says_why():
    for (variant, src), why in KNOWN.items():
        assert variant in NAMES and src.startswith(("zoo.", "general.", "calibration.")) and len(why) > 20


@pytest.mark.parametrize(
    ("printed", "sci"),
    [("0.3456", "3.456e-01"), ("12", "1.2e+01"), ("-0.00012", "-1.2e-04"), ("0.000", "0.000e+00"), ("nan", None)],
)
def test_scientific_keeps_the_number(printed, sci):
    assert V.scientific(printed) == sci
    if sci is not None:
        assert float(sci) == float(printed)


def test_steps_renumbered_must_keep_their_order():
    assert V.same_order((1, 2, 3), (100, 200, 300)) and V.same_order((1, 1, 2), (5, 5, 9))
    assert not V.same_order((1, 2, 3), (1, 1, 3))  # two points merged at one step
    assert not V.same_order((1, 2, 1, 2), (1, 2, 3, 4))  # a restart lost
    assert not V.same_order((1, 2), (1, 2, 3))


def test_a_site_is_only_a_loss_printed_exactly_as_read(tmp_path):
    text = "\n".join(f"Epoch {e}: train loss: {1 - e / 10:.2f}, val loss: 0.5" for e in range(1, 6))
    base = V.Series("train_loss", (1, 2, 3, 4, 5), (0.9, 0.8, 0.7, 0.6, 0.5))
    site = V.locate("t", text, "train.log", base)
    assert site is not None and site.printed == "train loss" and len(site.hits) == 5
    assert V.locate("t", text, "train.log", V.Series("train_loss", (1, 2), (0.9, 0.7))) is not None  # some skipped
    assert V.locate("t", text, "train.log", V.Series("train_loss", (1, 2), (0.7, 0.9))) is None  # not in order
    assert V.locate("t", text, "train.log", V.Series("train_loss", (1, 2), (0.9, 0.85))) is None  # not printed


# -- the reader fixes the variants called for, each on the shape a real print makes --------------


def _read(tmp_path: Path, lines: list[str], name: str = "train.log") -> V.Series | None:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return V.read_series(path)


def test_a_value_printed_as_an_array_of_one(tmp_path):
    # print(f"loss: {loss.detach().cpu().numpy()}") of a loss of shape (1,) (or its .tolist()): "[0.3456]"
    lines = [f"Epoch {e}: loss: [{2.0 - 0.05 * e:.4f}], acc: [{0.5 + 0.01 * e:.3f}]" for e in range(1, 21)]
    got = _read(tmp_path, lines)
    assert got is not None and got.loss == "loss"
    assert (len(got.values), got.steps[0], got.steps[-1], got.values[0], got.values[-1]) == (20, 1, 20, 1.95, 1.0)
    # a count in brackets stays a count, and a list of several values is no value
    assert read_line("Epoch [3] loss [0.5]").epoch == 3.0
    assert read_line("Test: [3] lr: [0.1, 0.2] loss: [0.5]").values == {"Test_loss": 0.5}


def test_a_generic_shape_reads_a_value_printed_as_a_tensor_or_a_list_of_one(tmp_path):
    # print(f"Step {step:5d}, Loss: {loss}, LR: {lr:.6f}") of the loss tensor itself (s12-gpt2-124m-train-log-1057's
    # shape, calibration, with the tensor printed whole): read by the shape that reads the plain line, at its steps
    plain = [f"Step {s:5d}, Loss: {3.0 - s / 1000:.6f}, LR: 0.000300" for s in range(50, 1050, 50)]
    wrapped = [
        ln.replace("Loss: ", "Loss: tensor(").replace(", LR", ", device='cuda:0', grad_fn=<NllLossBackward0>), LR")
        for ln in plain
    ]
    listed = [ln.replace("Loss: ", "Loss: [").replace(", LR", "], LR") for ln in plain]
    want = _read(tmp_path, plain, "plain.log")
    assert want is not None and want.fmt == "console/generic-step" and len(want.values) == 20
    for name, lines in (("tensor.log", wrapped), ("list.log", listed)):
        got = _read(tmp_path, lines, name)
        assert got is not None and (got.fmt, got.loss, got.steps, got.values) == (
            want.fmt,
            want.loss,
            want.steps,
            want.values,
        )


def test_an_arrow_between_a_name_and_its_value(tmp_path):
    # print(f"epoch {epoch} | loss -> {loss:.4f} | acc -> {acc:.3f}")
    lines = [f"epoch {e} | loss -> {2.0 - 0.05 * e:.4f} | acc -> {0.5 + 0.01 * e:.3f}" for e in range(1, 21)]
    got = _read(tmp_path, lines)
    assert got is not None and got.loss == "loss"
    assert (len(got.values), got.steps[0], got.steps[-1], got.values[0], got.values[-1]) == (20, 1, 20, 1.95, 1.0)
    assert read_line("Step 8 -- Train loss -> 2.63, Train Acc -> 0.128").values == {
        "Train_loss": 2.63,
        "Train_Acc": 0.128,
    }


def test_a_nan_before_the_next_name_is_a_value(tmp_path):
    # issue 29's "train_Accuracy =  0.1000 train_Loss :  nan val_Accuracy: 0.0995 val_loss: nan", printed
    # with spaces between names and values (print(name, value, ...)): the nan is the loss's, not a word of a name
    lines = [
        f"train_Accuracy {0.1 + 0.01 * i:.4f} train_Loss {'nan' if i > 5 else f'{2.3 - 0.1 * i:.4f}'} "
        f"val_Accuracy 0.0995 val_loss {'nan' if i > 5 else '2.4'}"
        for i in range(15)
    ]
    got = _read(tmp_path, lines)
    assert got is not None and got.loss == "train_Loss" and len(got.values) == 15
    assert got.values[0] == 2.3 and all(v != v for v in got.values[6:])


@pytest.mark.parametrize(
    "line",
    [
        "[{e}/3], Step {i}/500, Loss: {v}",  # print(f"[{epoch}/{epochs}], Step {i}/{n}, Loss: {loss}")
        "[{e}/3] Iter: {i}/500 -- Loss: {v}",  # an ignite/MONAI-style line with the epoch printed bare
        "[{e}/3], batch_id: {i}, loss: {v}",  # a PaddleRec-style line with the epoch printed bare
    ],
)
def test_a_bare_count_before_a_count_inside_the_epoch_is_the_epoch(tmp_path, line):
    # "[1/5] Step [100/600]": an unnamed N/M followed by a step with its total (or a batch index) is the
    # epoch; alone it stays a count (read_line("[10/500] step 1200") keeps 1200 the step)
    lines = [
        line.format(e=e, i=i, v=f"{2.0 - 0.01 * (e * 5 + i // 100):.3f}")
        for e in (1, 2, 3)
        for i in range(100, 600, 100)
    ]
    got = _read(tmp_path, lines)
    assert got is not None and got.loss in ("Loss", "loss") and len(got.values) == 15
    assert got.steps == tuple(float((e - 1) * 500 + i) for e in (1, 2, 3) for i in range(100, 600, 100))
    rec = read_line("[10/500] step 1200 loss 0.5")
    assert rec is not None and (rec.step, rec.epoch, rec.inner) == (1200.0, None, (10.0, 500.0))


def test_an_epoch_done_summary_with_the_plan_is_a_summary(tmp_path):
    # PaddleRec's batch lines and "epoch: N done, ..." summary (paddle-sign-train-904, calibration), the epoch
    # printed with the plan: "Epoch 3/5 done, ..."
    lines = []
    for e in range(1, 6):
        lines += [
            f"Epoch {e}/5, batch_id: {b}, AUC: 0.9, loss: {0.5 - 0.01 * (e * 4 + b // 500):.6f}"
            for b in range(0, 2000, 500)
        ]
        lines.append(f"Epoch {e}/5 done, AUC: 0.9, loss: {0.3 - 0.01 * e:.6f}, epoch time: 1105.58 s")
    got = _read(tmp_path, lines)
    assert got is not None and got.loss == "loss" and len(got.values) == 20 and max(got.steps) == 9500.0


def test_a_step_counted_inside_the_epoch_in_a_file_of_two_runs(tmp_path):
    # print(f"epoch {epoch} Step {i} loss: {loss:.3f}") with the step counted inside the epoch, run twice into
    # one file (nohup ... >> train.log after a restart): the epoch falls back once, where the step does
    one = [f"epoch {e} Step {i} loss: {2.0 - 0.1 * e - 0.01 * i:.3f}" for e in range(1, 4) for i in (50, 100)]
    got = _read(tmp_path, one + ["==> Restarting training"] + one)
    assert got is not None and got.loss == "loss" and len(got.values) == 12
    assert got.steps == (50.0, 100.0, 150.0, 200.0, 250.0, 300.0) * 2
    # a global step (3d-vae-training-log-1054's "Epoch 3, Step 17730: ..." shape, calibration) falls back only
    # at the restart: it keeps its numbers
    steps = [(e, s) for e in (1, 2, 3) for s in range((e - 1) * 60, e * 60, 30)]
    glob = [f"Epoch {e}, Step {s}: Reconstruction Loss=0.5, Total Loss={9.0 - s / 100:.2f}" for e, s in steps]
    got = _read(tmp_path, glob + glob, "global.log")
    assert got is not None and got.steps == tuple(float(s) for _, s in steps) * 2
