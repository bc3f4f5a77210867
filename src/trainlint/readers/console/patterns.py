"""The declarative table of one-line console shapes, and the engine that applies it.

Each :class:`LinePattern` is one regular expression with named groups:

- ``step``, ``epoch``, ``seen`` (samples or batches into the epoch), ``per_epoch``:
  where the point lies (see ``step_from``);
- ``max_steps``, ``planned_epochs``: how long the run was meant to be (kept in run.meta);
- ``kv``: a stretch of ``name: value`` / ``name=value`` / ``name value`` pairs, split by ``kv``;
- any other group: a metric of that name (a ``_ms`` suffix means milliseconds, stored in seconds).

To support another framework, add a row to :data:`PATTERNS` (most specific first).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from typing import Any

import msgspec

from ...role_structure import EVAL_WORDS, TEST_WORDS, split_named
from .objectives import objective
from .text import NUM, Capture, Line, Needles, distinct_segments, lazy_regex, norm_bars, unread_lr, unwrap_values

_SPECIAL = {"step", "epoch", "seen", "per_epoch", "max_steps", "planned_epochs", "kv", "cells", "which", "json"}
# ("any" also takes an arrow: ``print(f"loss -> {loss}")``)
_KV_SEP = {":": r"\s*:\s*", "=": r"\s*=\s*", " ": r"\s+", "any": r"\s*(?:[:=]|->)\s*|\s+"}
# A value may use thousands separators ("tps: 1,234"), removed before it is read. A split word
# before a name, a space apart, is part of it ("Val loss 1.637" is Val_loss, not the loss; "train
# loss" train_loss, as the general line reader names it; "Vali Loss" is the Informer/Autoformer and
# Time-Series-Library spelling of the validation loss).
_KV = {
    mode: lazy_regex(
        r"(?<![\w/.\-@])(?:((?i:train|training|val|vali|valid|validation|test|eval|evaluation|dev))\s+)?([A-Za-z_][\w/.\-@]*)(?:%s)"
        r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|%s)(ms|s|%%)?(?=$|[\s,|;)\]}])" % (sep, NUM)
    )
    for mode, sep in _KV_SEP.items()
}
_NOT_METRICS = {"eta", "v_num"}  # printed with a number, never a metric ("eta: 1 day, 0:10:00")
_PROGRESS_BAR = lazy_regex(r"(?<!\d)\d{1,3}%\||━|\[[=>.]{5,}\]")


class LinePattern(msgspec.Struct, frozen=True, dict=True):  # dict: for the cached properties
    name: str
    framework: str
    regex: re.Pattern[str]
    needle: str | tuple[str, ...] | None = None  # a matching line holds (one of) these: a cheap pre-test
    kv: str = "any"  # how to split the ``kv`` group: ":", "=", " " or "any"
    prefix: str = ""  # put before every metric name (e.g. "valid_")
    rename: Mapping[str, str] = msgspec.field(default_factory=dict)
    step_from: str = "step"  # step | epoch | epoch1-seen | epoch0-seen | kv:NAME | previous | epoch-end | index
    needs_loss: bool = False  # generic shapes count only when a loss-like value is on the line
    fallback_for: str | None = None  # used only when the named pattern matched nothing
    derive: Callable[[re.Match[str]], dict[str, float]] | None = None
    generic: bool = False  # a generic shape: never on progress-bar redraws, lower tier

    @cached_property
    def plain(self) -> bool:
        """Only name=value pairs, the step from its own group, nothing renamed: the generic shapes."""
        return (
            not self.metric_groups
            and self.derive is None
            and self.step_from == "step"
            and not self.prefix
            and not self.rename
            and {"kv", "step"} <= set(self.regex.groupindex)
            and not {"epoch", "per_epoch", "seen", "planned_epochs"} & set(self.regex.groupindex)
        )

    @cached_property
    def has_plan(self) -> bool:
        """Whether the regex has a ``max_steps`` group (``groupindex`` is a fresh dict per call)."""
        return "max_steps" in self.regex.groupindex

    @cached_property
    def metric_groups(self) -> tuple[str, ...]:
        """The named groups that are metrics (not positions, plans, or the kv stretch)."""
        return tuple(g for g in self.regex.groupindex if g not in _SPECIAL and g not in ("acc_n", "acc_d", "batch"))


def _c(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return lazy_regex(pattern.replace("NUM", NUM), flags)


def _ratio(m: re.Match[str]) -> dict[str, float]:
    return {"test_accuracy": int(m["acc_n"]) / max(int(m["acc_d"]), 1)}


def _segan(m: re.Match[str]) -> dict[str, float]:
    """segan_pytorch's generator objective ``g_loss = g_adv + g_l1`` (``g_l1`` already times ``l1_w``)
    and the discriminator's ``d_real + d_fake`` beside it."""
    d_real, d_fake, g_adv, g_l1 = (float(m[k]) for k in ("d_real", "d_fake", "g_adv", "g_l1"))
    return {"loss_G": g_adv + g_l1, "loss_D": d_real + d_fake}


_SOCKEYE_PPL = lazy_regex(r"(?:^|\s)perplexity=(%s)(?:\s|$)" % NUM)


def _perplexity_loss(m: re.Match[str]) -> dict[str, float]:
    """Sockeye (on MXNet) prints its training metric alone, ``perplexity=P``: the exponential of
    the per-token cross-entropy it minimises. Where no name on the line says loss, that
    cross-entropy, ``ln P``, is the loss (``loss``; the perplexity is kept by its name)."""
    kv = m["kv"] or ""
    ppl = _SOCKEYE_PPL.search(kv)
    if ppl is None or "loss" in kv.lower() or "entropy" in kv.lower() or float(ppl[1]) <= 0:
        return {}
    return {"loss": math.log(float(ppl[1]))}


def _llmc_extras(m: re.Match[str]) -> dict[str, float]:
    out = {}
    t = re.search(r"(%s) ms\b" % NUM, m.string)
    if t:
        out["step_time"] = float(t[1]) / 1000
    tok = re.search(r"(%s) tok/s" % NUM, m.string)
    if tok:
        out["tokens_per_second"] = float(tok[1])
    return out


_MEGATRON_NAMES = {
    "lm_loss": "loss",
    "lm_loss_value": "val_loss",
    "lm_loss_ppl": "val_ppl",
    "elapsed_time_per_iteration_(ms)": "step_time_ms",
    "learning_rate": "learning_rate",
    "grad_norm": "grad_norm",
    "loss_scale": "loss_scale",
    "consumed_samples": "consumed_samples",
    "global_batch_size": "global_batch_size",
    "number_of_nan_iterations": "nan_iterations",
    "number_of_skipped_iterations": "skipped_iterations",
    "throughput_per_gpu_(tflop/s/gpu)": "tflops",
}


def _megatron(m: re.Match[str]) -> dict[str, float]:
    """Megatron-LM's ``| name with spaces: value |`` cells."""
    out = {}
    for cell in m["cells"].split("|"):
        name, sep, value = cell.rpartition(":")
        key = _MEGATRON_NAMES.get("_".join(name.strip().lower().split()))
        if not sep or key is None:
            continue
        try:
            v = float(value.strip())
        except ValueError:
            continue
        if key.endswith("_ms"):
            key, v = key[:-3], v / 1000.0
        out[key] = v
    return out


def _fairseq_json(m: re.Match[str]) -> dict[str, float]:
    """fairseq's ``--log-format json``: a JSON object after the logger prefix, numbers as strings."""
    import json

    try:
        obj = json.loads(m["json"])
    except ValueError:
        return {}
    prefix = "valid_" if m["which"] == "valid" else ""
    out = {}
    for key, value in obj.items() if isinstance(obj, dict) else ():
        try:
            v = float(value)
        except (TypeError, ValueError):
            continue
        if key in ("valid_num_updates", "valid_epoch"):
            key = key[len("valid_") :]
        elif key not in ("num_updates", "epoch") and not key.startswith(prefix):
            key = prefix + key  # fairseq already tags valid stats "valid_..."
        out[key] = v
    return out


def _estimator_eval(m: re.Match[str]) -> dict[str, float]:
    vals = parse_kv(m["cells"], "=")
    vals.pop("global_step", None)
    return {f"eval_{k}": v for k, v in vals.items()}


_EPOCH_KW = r"(?<![\w/])[Ee]poch"
_STEP_KW = r"(?<![\w/])(?:[Gg]lobal[_ ]?)?(?:[Ss]tep|[Ii]ter(?:ation)?)"

PATTERNS: tuple[LinePattern, ...] = (
    # PyTorch examples/mnist
    LinePattern(
        "pytorch-mnist-train",
        "pytorch-example",
        _c(r"Train Epoch: (?P<epoch>\d+) \[(?P<seen>\d+)/(?P<per_epoch>\d+) \(\d+%\)\]\s+Loss: (?P<loss>NUM)"),
        needle="Train Epoch:",
        step_from="epoch1-seen",
    ),
    LinePattern(
        "pytorch-mnist-test",
        "pytorch-example",
        _c(r"Test set: Average loss: (?P<test_loss>NUM), Accuracy: (?P<acc_n>\d+)/(?P<acc_d>\d+)"),
        needle="Test set:",
        step_from="epoch-end",
        derive=_ratio,
    ),
    # PyTorch examples/vae (its train lines are the MNIST example's): '====> Test set loss: {:.4f}'
    LinePattern(
        "pytorch-vae-test",
        "pytorch-example",
        _c(r"^\s*====> Test set loss: (?P<test_loss>NUM)\s*$"),
        needle="====> Test set loss:",
        step_from="epoch-end",
    ),
    # PyTorch examples/fast_neural_style: "{time.ctime()}\tEpoch {e + 1}:\t[{count}/{len(train_dataset)}]\t
    # content: {:.6f}\tstyle: {:.6f}\ttotal: {:.6f}": the total (content + style) is the objective
    LinePattern(
        "pytorch-fast-neural-style",
        "pytorch-example",
        _c(
            r"\bEpoch (?P<epoch>\d+):\t\[(?P<seen>\d+)/(?P<per_epoch>\d+)\]\tcontent: (?P<content_loss>NUM)\t"
            r"style: (?P<style_loss>NUM)\ttotal: (?P<loss>NUM)\s*$"
        ),
        needle="\tcontent: ",
        step_from="epoch1-seen",
    ),
    # PyTorch examples/imagenet
    LinePattern(
        "pytorch-imagenet-train",
        "pytorch-example",
        _c(
            r"Epoch: \[(?P<epoch>\d+)\]\[\s*(?P<seen>\d+)/(?P<per_epoch>\d+)\]\s+Time\s+(?P<step_time>NUM)\s.*?"
            r"Loss\s+(?P<loss>NUM)\s.*?Acc@1\s+(?P<acc1>NUM)\s.*?Acc@5\s+(?P<acc5>NUM)"
        ),
        needle="Epoch: [",
        step_from="epoch0-seen",
    ),
    LinePattern(
        "pytorch-imagenet-val",
        "pytorch-example",
        _c(r"^\s*\* Acc@1 (?P<val_acc1>NUM) Acc@5 (?P<val_acc5>NUM)"),
        needle="* Acc@1",
        step_from="epoch-end",
    ),
    # torchvision's reference scripts' MetricLogger (detection, classification, segmentation; DETR and
    # many others): "Epoch: [0]  [ 10/5005]  eta: 0:10:00  lr: 0.1  loss: 6.9 (6.9)  ...  max mem: 2547"
    LinePattern(
        "torchvision-reference",
        "pytorch-example",
        _c(r"Epoch: \[(?P<epoch>\d+)\]\s+\[\s*(?P<seen>\d+)/(?P<per_epoch>\d+)\]\s+(?P<kv>.*)"),
        needle="Epoch: [",
        kv=":",
        step_from="epoch0-seen",
        rename={"time": "step_time", "data": "data_time"},
    ),
    # OpenMMLab: mmengine "Epoch(train)  [1][ 50/1000]  lr: ...  loss: ..." / "Iter(train) [ 50/90000] ...",
    # "Epoch(val) [1][500/500]  coco/bbox_mAP: ..."; mmcv 1.x "Epoch [1][50/7330]\tlr: ..., loss: ..."
    LinePattern(
        "mmengine-epoch",
        "openmmlab",
        _c(r"Epoch\(train\)\s*\[(?P<epoch>\d+)\]\[\s*(?P<seen>\d+)/(?P<per_epoch>\d+)\]\s+(?P<kv>.*)"),
        needle="Epoch(train)",
        kv=":",
        step_from="epoch1-seen",
        rename={"time": "step_time"},
    ),
    LinePattern(
        "mmengine-iter",
        "openmmlab",
        _c(r"Iter\(train\)\s*\[\s*(?P<step>\d+)/(?P<max_steps>\d+)\]\s+(?P<kv>.*)"),
        needle="Iter(train)",
        kv=":",
        rename={"time": "step_time"},
    ),
    LinePattern(
        "mmengine-val",
        "openmmlab",
        _c(r"(?:Epoch|Iter)\(val\)\s*(?:\[\d+\])?\[\s*(?P<seen>\d+)/(?P=seen)\]\s+(?P<kv>.*)"),
        needle="(val)",
        kv=":",
        prefix="val/",
        step_from="previous",
    ),
    LinePattern(
        "mmcv-epoch",
        "openmmlab",
        _c(r"Epoch \[(?P<epoch>\d+)\]\[\s*(?P<seen>\d+)/(?P<per_epoch>\d+)\]\s+(?P<kv>.*)"),
        needle="Epoch [",
        kv=":",
        step_from="epoch1-seen",
        rename={"time": "step_time"},
    ),
    # MXNet's Speedometer (mx.callback.Speedometer; gluon-cv, insightface and many detectors of 2017-19):
    # "Epoch[5] Batch [20-40]\tSpeed: 25.69 samples/sec\tM0_RPNAcc=0.997\tRPNL1Loss=0.06" ("Batch [0-40]"
    # without auto_reset, "Batch [40]" before 1.0). No batch count per epoch is printed: the step is the
    # line's order. (The per-epoch "Epoch[5] Train-<metric>=" summaries repeat these: not read.) The
    # classifiers' metric CrossEntropy prints as "cross-entropy=": the loss they minimise, read as ``loss``
    # (and "Validation-cross-entropy=" as ``val_loss``)
    LinePattern(
        "mxnet-speedometer",
        "mxnet",
        _c(
            r"Epoch\[(?P<epoch>\d+)\] Batch \[(?:\d+-)?(?P<batch>\d+)\]\s+Speed: (?P<samples_per_sec>NUM) samples/sec(?P<kv>.*)$"
        ),
        needle="samples/sec",
        kv="=",
        rename={"cross-entropy": "loss"},
        step_from="index",
        derive=_perplexity_loss,
    ),
    # OpenNMT-py's report (onmt/utils/statistics.py, output()): "Step 50/ 5000; acc:  20.18; ppl: 908.07;
    # xent: 6.81; lr: 0.00020; 4466/6179 tok/s;     32 sec" (``xent``, the cross-entropy, is the loss), and
    # the trainer's "Validation perplexity: 74.75" / "Validation accuracy: 47.92" after each validation, at
    # the step before it: the validation cross-entropy (ln of the perplexity) is the eval loss
    LinePattern(
        "onmt-step",
        "opennmt",
        _c(r"\bStep (?P<step>\d+)/\s*(?P<max_steps>\d+);(?P<kv>(?:\s*[a-z]+:\s*NUM;)+)"),
        needle="; xent: ",
        kv=":",
    ),
    LinePattern(
        "onmt-validation",
        "opennmt",
        _c(r"\bValidation (?:perplexity: (?P<val_ppl>NUM)|accuracy: (?P<val_acc>NUM))\s*$"),
        needle=("Validation perplexity: ", "Validation accuracy: "),
        step_from="previous",
        derive=lambda m: (
            {"val_loss": math.log(float(m["val_ppl"]))} if m["val_ppl"] and float(m["val_ppl"]) > 0 else {}
        ),
    ),
    # Sockeye's checkpoint evaluation ("Checkpoint [3]\tValidation-perplexity=163.85", after the checkpoint's
    # "Checkpoint [3]\tUpdates=12000 Epoch=0 ..." and "Train-perplexity=" lines): at the last training line's
    # step; its cross-entropy (ln of the perplexity) is the eval loss
    LinePattern(
        "sockeye-checkpoint",
        "mxnet",
        _c(r"\bCheckpoint \[\d+\]\s+Validation-perplexity=(?P<val_perplexity>NUM)\s*$"),
        needle="Validation-perplexity=",
        step_from="previous",
        derive=lambda m: {"val_loss": math.log(float(m["val_perplexity"]))} if float(m["val_perplexity"]) > 0 else {},
    ),
    # Module.fit's evaluation at each epoch's end, one metric a line ("Epoch[3] Validation-accuracy=0.910"):
    # at the step of the epoch's last Speedometer line
    LinePattern(
        "mxnet-validation",
        "mxnet",
        _c(r"Epoch\[(?P<epoch>\d+)\] Validation-(?P<kv>[A-Za-z][\w@/.\-]*=NUM)\s*$"),
        needle="] Validation-",
        kv="=",
        prefix="val_",
        rename={"cross-entropy": "loss"},
        step_from="previous",
    ),
    # Marvin (princeton-vision/marvin, 2015, and forks such as fecnn) prints its solver's progress in two
    # columns under a "Training: ... Testing:" header: at the left every display_iter "Iteration 100
    # learning_rate = 0.0099 loss = 0.78 * 1  eval = 0.79" (fecnn: "Epoch 0  " first), each loss layer's
    # "loss = <value> * <weight>  eval = <value>"; every test_interval the test pass's "Iteration 200 loss =
    # 0.34 * 1  eval = 0.92", indented to the right column (81 or 88 spaces): the test losses
    LinePattern(
        "marvin-train",
        "marvin",
        _c(r"^(?:Epoch \d+\s+)?Iteration (?P<step>\d+)\s+learning_rate = (?P<learning_rate>NUM)\s+(?P<kv>loss = .*)$"),
        needle="learning_rate = ",
        kv="=",
    ),
    LinePattern(
        "marvin-test",
        "marvin",
        _c(r"^ {40,}(?:Epoch \d+\s+)?Iteration (?P<step>\d+)\s+(?P<kv>loss = .*)$"),
        needle=" Iteration ",
        kv="=",
        prefix="test_",
    ),
    # pytorch/tutorials' RNN tutorials, copied into many repositories, print the loss without a name:
    # char_rnn_generation and seq2seq_translation '%s (%d %d%%) %.4f' % (timeSince(start[, p]), iter,
    # percent, loss) ("0m 5s (- 1m 2s) (5000 5%) 2.8534"); char_rnn_classification '%d %d%% (%s) %.4f
    # %s / %s %s' % (iter, percent, timeSince(start), loss, name, guess, correct)
    LinePattern(
        "pytorch-tutorial-rnn",
        "pytorch-tutorial",
        _c(r"^\s*\d+m -?\d+s(?: \(- -?\d+m -?\d+s\))? \((?P<step>\d+) \d+%\) (?P<loss>NUM)\s*$"),
        needle="%) ",
    ),
    LinePattern(
        "pytorch-tutorial-classify",
        "pytorch-tutorial",
        _c(r"^\s*(?P<step>\d+) \d+% \(\d+m -?\d+s(?: \(- -?\d+m -?\d+s\))?\) (?P<loss>NUM) \S.* / "),
        needle="% (",
    ),
    # Andrej Karpathy's makemore lectures (nn-zero-to-hero, copied into many notebooks) print the loss
    # without a name: f'{i:7d}/{max_steps:7d}: {loss.item():.4f}' ("  10000/ 200000: 2.1954"); both
    # counts padded to seven places
    LinePattern(
        "makemore-step",
        "karpathy-makemore",
        _c(r"^(?=[ \d]{7}/|\d{8,}/) *(?P<step>\d+)/(?=[ \d]{7}:|\d{8,}:) *(?P<max_steps>\d+): (?P<loss>NUM)\s*$"),
        needle="/",
    ),
    # Deeplearning4j's ScoreIterationListener (org.deeplearning4j.optimize.listeners): the score is
    # the network's loss on the minibatch, logged as "Score at iteration 10 is 0.523"
    LinePattern(
        "dl4j-score",
        "dl4j",
        _c(r"Score at iteration (?P<step>\d+) is (?P<loss>NUM)"),
        needle="Score at iteration ",
    ),
    # Detectron2 d2.utils.events CommonMetricPrinter
    LinePattern(
        "detectron2",
        "detectron2",
        _c(r"\biter: (?P<step>\d+)\s+(?P<kv>.*)"),
        needle="iter: ",
        kv=":",
        rename={"time": "step_time"},
    ),
    # fairseq (train_inner, valid and epoch summaries; old "| epoch 001 |" and hydra-era logging)
    LinePattern(
        "fairseq-inner",
        "fairseq",
        _c(r"\bepoch (?P<epoch>\d+):\s+(?P<seen>\d+) / (?P<per_epoch>\d+) (?P<kv>.+)"),
        needle="epoch ",
        kv="=",
        step_from="kv:num_updates",
    ),
    LinePattern(
        "fairseq-valid",
        "fairseq",
        _c(r"\| epoch (?P<epoch>\d+) \| valid on '[^']*' subset \| (?P<kv>.+)"),
        needle="valid on",
        kv=" ",
        prefix="valid_",
        step_from="kv:num_updates",
    ),
    LinePattern(
        "fairseq-epoch",
        "fairseq",
        _c(r"\| epoch (?P<epoch>\d+) \| (?P<kv>loss .+)"),
        needle="| epoch ",
        kv=" ",
        step_from="kv:num_updates",
        fallback_for="fairseq-inner",
    ),
    LinePattern(
        "fairseq-json",
        "fairseq",
        _c(r"(?:^|\| )(?P<which>train_inner|valid) \| (?P<json>\{.*\})\s*$"),  # its logger name, framed or not
        needle="| {",
        derive=_fairseq_json,
        step_from="kv:num_updates",
    ),
    # TensorFlow Estimator: LoggingTensorHook's "loss = 0.69, step = 101 (8.1 sec)" and the
    # evaluation's "Saving dict for global step 1000: accuracy = 0.9, global_step = 1000, loss = 0.3"
    LinePattern(
        "estimator-train",
        "tf-estimator",
        _c(r"(?:^|[:\]] ?)loss = (?P<loss>NUM), step = (?P<step>\d+)(?: \((?P<step_time>NUM) sec\))?\s*$"),
        needle="step = ",
    ),
    LinePattern(
        "estimator-eval",
        "tf-estimator",
        _c(r"Saving dict for global step (?P<step>\d+): (?P<cells>.*=.*)$"),
        needle="Saving dict for global step",
        derive=_estimator_eval,
    ),
    # nanoGPT
    LinePattern(
        "nanogpt-iter",
        "nanogpt",
        _c(r"^iter (?P<step>\d+): loss (?P<loss>NUM), time (?P<step_time_ms>NUM)ms(?:, mfu (?P<mfu>NUM)%)?"),
        needle="iter ",
    ),
    LinePattern(
        "nanogpt-eval",
        "nanogpt",
        _c(
            r"^step (?P<step>\d+): train loss (?P<eval_train_loss>NUM), "
            r"val loss (?P<val_loss>NUM)"
        ),
        needle="val loss",
    ),
    # llm.c (train_gpt2.cu and the CPU reference train_gpt2.c)
    LinePattern(
        "llmc-step",
        "llm.c",
        _c(r"^step\s+(?P<step>\d+)/(?P<max_steps>\d+)\s*\|\s*(?P<kv>.*)"),
        needle="|",
        kv=" ",
        rename={"norm": "grad_norm"},
        derive=_llmc_extras,
    ),
    LinePattern(
        "llmc-cpu",
        "llm.c",
        _c(r"^step (?P<step>\d+): train loss (?P<loss>NUM) \(took (?P<step_time_ms>NUM) ms\)"),
        needle="took",
    ),
    LinePattern("llmc-val", "llm.c", _c(r"^val loss (?P<val_loss>NUM)\s*$"), needle="val loss", step_from="previous"),
    # build-nanogpt's log file (train_gpt2.py writes f"{step} train {loss:.6f}", f"{step} val {val:.4f}",
    # f"{step} hella {acc_norm:.4f}"): the stream's name is the metric's, one value a line
    LinePattern(
        "build-nanogpt",
        "build-nanogpt",
        _c(r"^(?P<step>\d+) (?P<kv>(?:train|val|hella) NUM)\s*$"),
        needle=(" train ", " val ", " hella "),
        kv=" ",
    ),
    # Megatron-LM (and Megatron-DeepSpeed): " iteration      100/  500000 | ... | lm loss: 7.1E+00 | ..."
    LinePattern(
        "megatron-train",
        "megatron",
        # (newer releases print the time first: " [2025-01-01 10:00:00.123456] iteration ...")
        _c(r"^\s*(?:\[[\d\-: .]+\]\s*)?iteration\s+(?P<step>\d+)/\s*(?P<max_steps>\d+)\s*\|(?P<cells>.*)"),
        needle="iteration",
        derive=_megatron,
    ),
    LinePattern(
        "megatron-val",
        "megatron",
        _c(
            r"validation loss at iteration (?P<step>\d+)\s*(?:on \w+ set\s*)?\|"
            r"(?P<cells>.*)"
        ),
        needle="validation loss at",
        derive=_megatron,
    ),
    # darknet (AlexeyAB's src/detector.c train_detector: "\n %d: %f, %f avg loss, %f rate, %lf seconds, %d images,
    # %f hours left"; pjreddie's examples/detector.c: "%ld: %f, %f avg, %f rate, %lf seconds, %d images"): the
    # iteration's loss, then avg_loss = 0.9 avg_loss + 0.1 loss
    LinePattern(
        "darknet-train",
        "darknet",
        _c(
            r"^\s*(?P<step>\d+): (?P<loss>NUM), (?P<avg_loss>NUM) avg(?: loss)?, (?P<learning_rate>NUM) rate, "
            r"(?P<step_time>NUM) seconds, \d+ images"
        ),
        needle=" rate, ",
    ),
    # segan_pytorch (santi-pdp, segan/models/model.py): "(Iter {}) Batch {}/{} (Epoch {}) d_real:{:.4f}, d_fake:{:.4f},
    # g_adv:{:.4f}, g_l1:{:.4f} l1_w: {:.2f}, btime: {:.4f} s, mbtime: {:.4f} s", a speech-enhancement GAN whose terms
    # name no loss: the generator's g_adv + g_l1 is the loss (loss_G), the discriminator's sum loss_D
    LinePattern(
        "segan-train",
        "segan",
        _c(
            r"^\s*\(Iter (?P<step>\d+)\) Batch \d+/\d+ \(Epoch \d+\) d_real:(?P<d_real>NUM), d_fake:(?P<d_fake>NUM), "
            r"g_adv:(?P<g_adv>NUM), g_l1:(?P<g_l1>NUM)"
        ),
        needle="(Iter ",
        derive=_segan,
    ),
    # Caffe (BVLC src/caffe/solver.cpp, behind glog's "I0224 11:51:38.92 25595 solver.cpp:219] " frame):
    # Solver::Step's "Iteration " << iter_ << " (" << per_s << " iter/s, " ... << " iters), loss = " <<
    # smoothed_loss_ (before 2016: "Iteration N, loss = X"); Solver::Test's "    Test net output #i: " <<
    # name << " = " << mean_score (" (* w = x loss)" after a loss), printed at the iteration's start,
    # before its training line; SGDSolver's "Iteration N, lr = X". "Train net output #i: ..." repeats the
    # loss blobs the smoothed loss is made of.
    LinePattern(
        "caffe-train",
        "caffe",
        _c(r"\bIteration (?P<step>\d+)(?: \([^()]*\))?, loss = (?P<loss>NUM)\s*$"),
        needle="loss = ",
    ),
    LinePattern(
        "caffe-lr", "caffe", _c(r"\bIteration (?P<step>\d+), lr = (?P<learning_rate>NUM)\s*$"), needle=", lr = "
    ),
    LinePattern(
        "caffe-test",
        "caffe",
        _c(r"\bTest net output #\d+: (?P<kv>[\w/.\-]+ = NUM)"),
        needle="Test net output",
        kv="=",
        prefix="test_",
        step_from="previous",
    ),
    # PaddlePaddle's legacy C++ trainer (``paddle_trainer``, v0.x of 2016-17, behind glog's frame, the
    # dots of its ``--dot_period`` maybe run on before it): TrainerInternal.cpp's "Pass=N Batch=B samples=S
    # AvgCost=X Eval: .." at each pass's end (the pass's mean cost, its loss); its "Batch=B samples=S
    # AvgCost=X CurrentCost=Y Eval: .." every log_period batches is not read (it names no pass, and its
    # batch count starts again each pass); Tester.cpp's "Test samples=S cost=X Eval: .." after the pass.
    LinePattern(
        "paddle-v1-pass",
        "paddle-v1",
        _c(r"\bPass=(?P<step>\d+) Batch=\d+ samples=\d+ AvgCost=(?P<loss>NUM)(?=\s|$)"),
        needle="AvgCost=",
    ),
    LinePattern(
        "paddle-v1-test",
        "paddle-v1",
        _c(r"\bTest samples=\d+ cost=(?P<test_loss>NUM)(?=\s|$)"),
        needle="Test samples=",
        step_from="previous",
    ),
    # Generic shapes: "Epoch [1/5], Step [100/600], Loss: 0.21", "epoch 3 ... loss X ... val_loss Y",
    # "step N ... loss=X"
    # The epoch bracketed alone, then the iteration within it: "Epoch[1] Iteration[50/3385] Loss: 0.456,
    # Acc: 0.887, Base Lr: 3.82e-05" (reid-strong-baseline's trainer, copied by fast-reid, TransReID and
    # most person re-id code), "[session 1][epoch  1][iter  100/226574] loss: 1.4494, lr: 1.00e-03"
    # (jwyang/faster-rcnn.pytorch's trainval_net.py and its forks): the count restarts each epoch, so the
    # step is (epoch - 1) x per-epoch + seen
    LinePattern(
        "generic-epoch-bracket-iter",
        "generic-epoch-step",
        _c(
            r"(?:\[\s*)?" + _EPOCH_KW + r"\s*(?:\[\s*)?(?P<epoch>\d+)\s*\][\s,:|\-]*(?:\[\s*)?"
            r"(?:[Ss]tep|[Bb]atch|[Ii]ter(?:ation)?)\s*(?:\[\s*)?(?P<seen>\d+)\s*/\s*(?P<per_epoch>\d+)\s*\]"
            r"[\s,:|\-]*(?P<kv>.*)"
        ),
        needle="poch",
        step_from="epoch1-seen",
        needs_loss=True,
        generic=True,
    ),
    LinePattern(
        "generic-epoch-step",
        "generic-epoch-step",
        _c(
            _EPOCH_KW
            + r"\s*\[?\s*(?P<epoch>\d+)\s*/\s*(?P<planned_epochs>\d+)\s*\]?[\s,:|\-]*(?:[Ss]tep|[Bb]atch|[Ii]ter)"
            r"\s*\[?\s*(?P<seen>\d+)\s*/\s*(?P<per_epoch>\d+)\s*\]?[\s,:|\-]*(?P<kv>.*)"
        ),
        needle="poch",
        step_from="epoch1-seen",
        needs_loss=True,
        generic=True,
    ),
    LinePattern(
        "generic-step",
        "generic-step",
        _c(_STEP_KW + r"\s*[\[:#=]?\s*(?P<step>\d+)(?:\s*/\s*(?P<max_steps>\d+))?\s*\]?(?![\d.%])[\s,:|\-]*(?P<kv>.*)"),
        needle=("step", "Step", "STEP", "iter", "Iter", "ITER"),
        needs_loss=True,
        generic=True,
    ),
    LinePattern(
        "generic-epoch",
        "generic-epoch",
        _c(
            _EPOCH_KW + r"\s*[\[:#=]?\s*(?P<epoch>\d+)(?:\s*(?:/|of)\s*(?P<planned_epochs>\d+))?\s*\]?(?![\d.%])"
            r"[\s,:|\-]*(?P<kv>.*)"
        ),
        needle=("poch", "POCH"),
        step_from="epoch",
        needs_loss=True,
        generic=True,
    ),
)


class _State(msgspec.Struct):
    capture: Capture
    last_step: float | None = None
    last_epoch: float | None = None
    per_epoch: float | None = None
    epoch_base: int = 1
    first_epoch: float | None = None
    indexed: int = 0  # the lines placed by their order (a line placed at the previous one's step is not counted)
    batch: tuple[Any, Any] | None = None  # the (epoch, batch) an indexed line printed: one more metric of it repeats it


def _needles(pat: LinePattern) -> tuple[str, ...]:
    return () if pat.needle is None else (pat.needle,) if isinstance(pat.needle, str) else pat.needle


def apply_patterns(
    lines: Iterable[Line], patterns: Iterable[LinePattern], tier: int | None = None, text: str | Needles | None = None
) -> list[Capture]:
    """One Capture per framework that any pattern matched, in table order.

    ``text``, the whole log, drops at once the patterns whose needles it never holds.
    """
    kept = [(pat, _needles(pat)) for pat in patterns]
    if text is not None:  # before compiling anything: most patterns' needles are not in the log
        kept = [(pat, nd) for pat, nd in kept if not nd or any(n in text for n in nd)]
    table = [
        (
            pat,
            nd,
            pat.framework + ("#" + pat.name if pat.fallback_for else ""),
            pat.regex.search,
            pat.generic,
            _take_plain if pat.plain else _take,
        )
        for pat, nd in kept
    ]
    patterns = [row[0] for row in table]
    states: dict[str, _State] = {}
    matched: set[str] = set()
    if not table:
        return []
    for line in lines:
        for seg in line.segments if len(line.segments) == 1 else distinct_segments(line.segments):
            bar = None
            for pat, nd, key, search, generic, take in table:  # runs for every line of every log: kept lean
                if nd:
                    for n in nd:
                        if n in seg:
                            break
                    else:
                        continue
                if generic:
                    if bar is None:
                        bar = ("|" in seg or "━" in seg or "[" in seg) and _PROGRESS_BAR.search(seg) is not None
                    if bar:
                        continue
                m = search(seg)
                if m is None:
                    continue
                state = states.get(key)
                if state is None:
                    t = tier if tier is not None else (1 if generic else 2)
                    state = states[key] = _State(Capture(pat.framework, t))
                if take(pat, m, state, line.no):
                    matched.add(pat.name)
                    break
    _drop_fallbacks(states, patterns, matched)
    for s in states.values():
        if s.capture.framework in _OBJECTIVE_BY_TERMS and s.capture.lines and not s.capture.has_loss():
            _terms_objective(s.capture)
    return [s.capture for s in states.values() if s.capture.lines]


# Frameworks whose metrics name the objective's terms, never "loss": MXNet's Speedometer prints the
# metrics an SSD or a classifier was given (``Train-CrossEntropy``, ``Train-SmoothL1``).
_OBJECTIVE_BY_TERMS = frozenset({"mxnet"})


def _terms_objective(cap: Capture) -> None:
    """The loss taken from the names loops give their objective's terms (their sum), said in the
    capture's meta as the general line reader says it."""
    found = objective(cap.cols)
    if found is not None:
        cap.meta["objective"] = found.name
        cap.meta["objective_why"] = (
            f"{found.reason}: no printed name says loss, so the loss is taken from the names loops give "
            "their objective; use --map loss=NAME to choose another"
        )


def parse_kv(text: str, mode: str) -> dict[str, float]:
    """``name: value`` / ``name=value`` / ``name value`` pairs; the first of a repeated name wins (a
    gradient norm written in bars, ``|g| 4.55``, is ``grad_norm``)."""
    text = norm_bars(text)
    plain = _plain_pairs(text, mode) if mode in ("=", "any") else None
    if plain is not None:
        return plain
    # tensor(0.34) and [0.34]: the number. NumPy scalars (verl's step lines) are left to the general
    # line reader, which keeps their line shapes and the validation metrics merged into them.
    text = unwrap_values(text, scalars=False)
    out: dict[str, float] = {}
    for split, name, val, unit in _KV[mode].findall(text):
        if unread_lr(name, val):
            continue
        if split:
            name = f"{split}_{name}"
        try:
            v = float(val.replace(",", "")) if "," in val else float(val)
        except ValueError:
            continue
        name = name.rstrip(".:")
        if name not in out:
            out[name] = v / 1000.0 if unit == "ms" else v
    return out


_PLAIN_NUMBER = frozenset("0123456789.eE+-")


def _plain_pairs(text: str, mode: str) -> dict[str, float] | None:
    """:func:`parse_kv` without the expression, for the common line whose every word is
    ``name=number`` (an ASCII identifier, a decimal number without unit or separators); None
    for any other text, which the expression then reads. Three times faster on such a line;
    a test holds it to the expression's pairs on every text it accepts."""
    out: dict[str, float] = {}
    for word in text.split():
        name, eq, val = word.partition("=")
        if not (eq and val and name.isascii() and name.isidentifier() and _PLAIN_NUMBER.issuperset(val)):
            return None
        if unread_lr(name, val):
            continue
        try:
            v = float(val)
        except ValueError:
            return None
        if name not in out:
            out[name] = v
    return out


def _values(pat: LinePattern, m: re.Match[str], g: dict[str, Any]) -> dict[str, float]:
    if not pat.metric_groups and pat.derive is None:  # the generic shapes: only name=value pairs
        return parse_kv(g["kv"], pat.kv) if g.get("kv") else {}
    vals: dict[str, float] = {}
    for key in pat.metric_groups:
        text = g[key]
        if text is None:
            continue
        try:
            v = float(text)
        except ValueError:
            continue
        if key.endswith("_ms"):
            key, v = key[:-3], v / 1000.0
        vals[key] = v
    if g.get("kv"):
        for k, v in parse_kv(g["kv"], pat.kv).items():
            vals.setdefault(k, v)
    if pat.derive is not None:
        vals.update(pat.derive(m))
    return vals


def _holds_loss(names: dict[str, float]) -> bool:
    """Whether a name holds "loss" (in any case): the generic shapes count only such lines."""
    return "loss" in names or "loss" in "\0".join(names).lower()


def _drop_not_metrics(vals: dict[str, float]) -> None:
    for name in _NOT_METRICS:
        vals.pop(name, None)


# The word a generic shape's counter follows on its line (``[fold 0], Val Step 0, loss: 0.85``), or
# the word of a banner the counter follows (``#####Valid##### Epoch: 50, mae_loss: 0.0110``).
_WORD_BEFORE = lazy_regex(r"([A-Za-z]+)(?:\W{0,3}|\s?([#=*~-])\2{2,}\s?)$")
_SPLIT_SAID = EVAL_WORDS | TEST_WORDS


def _said_split(m: re.Match[str], vals: dict[str, float]) -> dict[str, float]:
    """``vals`` named for the evaluation split whose word leads the generic shape's counter (``Val Step 0,
    summary_loss: 0.73``, the evaluation's batches printed in the training lines' shape), else as read."""
    if m.start() == 0:  # nothing before the counter (most lines): no word to look for
        return vals
    word = _WORD_BEFORE.search(m.string, max(0, m.start() - 24), m.start())
    if word is None or word[1].lower() not in _SPLIT_SAID:
        return vals
    said = split_named(word[1])  # as the general line reader names it
    return {k if k.lower().startswith(said.lower()) else f"{said}_{k}": v for k, v in vals.items()}


def _take_plain(pat: LinePattern, m: re.Match[str], st: _State, line_no: int) -> bool:
    """:func:`_take` for a plain pattern (see LinePattern.plain), without the steps it has no use for."""
    kv, step = m.group("kv", "step")
    vals = _said_split(m, parse_kv(kv, pat.kv)) if kv else {}
    if not vals or (pat.needs_loss and not _holds_loss(vals)):
        return False
    if step is None:
        return False
    at = float(step)
    _drop_not_metrics(vals)
    st.capture.add_all(at, vals)
    plan = m.group("max_steps") if pat.has_plan else None
    if plan:
        st.capture.meta["max_steps"] = int(plan)
    st.capture.lines.append(line_no)
    st.last_step = at
    return True


def _take(pat: LinePattern, m: re.Match[str], st: _State, line_no: int) -> bool:
    g = m.groupdict()
    vals = _values(pat, m, g)
    if pat.generic:
        vals = _said_split(m, vals)
    if not vals or (pat.needs_loss and not _holds_loss(vals)):
        return False
    step = _step(pat, g, vals, st)
    if step is None:
        return False
    cap = st.capture
    if pat.step_from.startswith("kv:"):
        vals.pop(pat.step_from[3:], None)
    if pat.prefix or pat.rename:
        vals = {pat.prefix + pat.rename.get(k, k): v for k, v in vals.items()}
    _drop_not_metrics(vals)
    add = cap.add
    for key, v in vals.items():
        add(key, step, v)
    if g.get("epoch") is not None and "epoch" not in vals:
        cap.add("epoch", step, float(g["epoch"]))
    for key in ("max_steps", "planned_epochs"):
        if g.get(key):
            cap.meta[key] = int(g[key])
    cap.lines.append(line_no)
    st.last_step = step
    return True


def _step(pat: LinePattern, g: dict[str, Any], vals: dict[str, float], st: _State) -> float | None:
    how = pat.step_from
    epoch = float(g["epoch"]) if g.get("epoch") is not None else None
    if epoch is not None:
        st.last_epoch = epoch
    if g.get("per_epoch"):
        st.per_epoch = float(g["per_epoch"])
    if how.startswith("kv:") and how[3:] in vals:
        return vals[how[3:]]
    if how == "step" and g.get("step") is not None:
        return float(g["step"])
    if how in ("epoch1-seen", "epoch0-seen"):
        if st.first_epoch is None:
            st.first_epoch = epoch
        # a shape most scripts count from epoch 1, printed by one that counts from 0: from 0
        st.epoch_base = 1 if how == "epoch1-seen" and st.first_epoch != 0 else 0
        if epoch is not None and g.get("seen") is not None:
            return (epoch - st.epoch_base) * float(g["per_epoch"]) + float(g["seen"])
    if how == "epoch-end" and st.last_epoch is not None and st.per_epoch is not None:
        return (st.last_epoch + 1 - st.epoch_base) * st.per_epoch
    if how in ("previous", "epoch-end"):
        return st.last_step
    if how == "index":  # no position printed: the count of such records
        batch = (g.get("epoch"), g.get("batch"))
        if batch[1] is not None and batch == st.batch and st.indexed:
            return float(st.indexed - 1)  # MXNet before 1.0: one line a metric of the same batch
        st.indexed, st.batch = st.indexed + 1, batch
        return float(st.indexed - 1)
    return epoch


def _drop_fallbacks(states: dict[str, _State], patterns: list[LinePattern], matched: set[str]) -> None:
    """A fallback pattern's points count only when the pattern it stands in for matched nothing."""
    for pat in patterns:
        st = states.pop(pat.framework + "#" + pat.name, None) if pat.fallback_for else None
        if st is None:
            continue
        main = states.get(pat.framework)
        if pat.fallback_for in matched:
            if main is not None:
                main.capture.notes.append(
                    f"{len(st.capture.lines)} {pat.name} line(s) not used: the "
                    f"{pat.fallback_for} lines record the same run in more detail"
                )
            continue
        if main is None:
            states[pat.framework] = st
            continue
        cols = main.capture.cols
        for name, (steps, values) in st.capture.cols.items():
            old = dict(zip(*cols.get(name, ([], []))))
            old.update(zip(steps, values))
            cols[name] = ([k for k in sorted(old)], [old[k] for k in sorted(old)])
        main.capture.lines = sorted(main.capture.lines + st.capture.lines)
        main.capture.meta.update(st.capture.meta)
