"""The console readers' metamorphic harness (issue 29): the same training lines, framed the way
real consoles frame them (logging and loguru prefixes, torchrun's rank prefixes and duplicated
ranks, ANSI colour, CRLF, tqdm redraws, unrelated lines, a long preamble, gzip, a run appended
after a restart; the prefixes framework loggers, launchers, container runtimes and time-stamping
pipes put before each line; another separator between the pairs), must read as the same loss
series under the same name.

Sources: the format zoo's inputs (test_console_zoo, test_console_general: always present) and,
where the corpus cache is on this machine, the calibration part's console logs that read right
today (the part decided from the repository name before a file is opened: the test part is
never read). The framings are in tests/_metamorphic.py, each with the tool that prints it.

Fast by default: each framing takes every EVERY-th source from an offset of its own (so every
source meets some framings; a framing of M.REAL_TOOLS, the many prefixes of launchers, loggers and
time stamps, every RARE-th; another separator between the pairs, M.SEPARATORS, only on logs the
general line reader reads); TRAINLINT_METAMORPHIC_FULL=1 runs every source under every framing.
PINNED pairs are run whatever the sample: each once read differently, and a reader was fixed.
"""

from __future__ import annotations

import os
from pathlib import Path

import _metamorphic as M
import pytest
import test_console_general
import test_console_zoo

from trainlint.readers.console.frames import renders, unframe, unframe_text
from trainlint.readers.console.text import split_lines

FULL = os.environ.get("TRAINLINT_METAMORPHIC_FULL") == "1"
EVERY = 1 if FULL else 4  # a console framing takes every 4th zoo source (a file framing every 3rd)
CAL_SAMPLE = 1 if FULL else 3  # every 3rd calibration console log (sorted ids) is a source
RARE = 1 if FULL else 2  # a framing of M.REAL_TOOLS takes half the sources the others take
CAL_MAX_BYTES = 300_000
NAMES = list(M.FRAMINGS)

# (framing, source) pairs that still read differently, each with the reason. A pair that reads
# the same again fails the test until it is taken out.
# fmt: off
KNOWN: dict[tuple[str, str], str] = {
    ("appended", "zoo.notebook_table_of_a_grpo_run_saved_as_text"):
        "the step table reader keeps the first run's rows only: the second run repeats the steps",
    ("appended", "zoo.notebook_table_with_evaluation_as_markdown"):
        "the step table reader keeps the first run's rows only: the second run repeats the steps",
    ("appended", "calibration.torchic-mnist-loss-txt-1243"):
        "a loss file of bare numbers (loss.txt) with a restart banner's words appended is no longer a loss file: nothing is read",
    ("tensorflow_noise", "general.epoch_n_of_m_header_then_epoch_loss"):
        "a TensorFlow line right after an 'EPOCH n of 30' header starts a block under it: the epoch's loss line joins that block's record, a shape of its own (3 epochs lost)",
}

# (framing, zoo source) pairs that read differently before a reader was fixed for them: always run.
PINNED = [
    ("mdhm_comma", "zoo.swin_train_and_test_lines"),  # a month-day stamp with a comma
    ("ts_clock", "zoo.yolov5"),  # the stamp before an indented table row
    ("docker_timestamps", "zoo.fastai_console_table"),
    ("journalctl", "zoo.build_nanogpt_log_file"),
    ("ts_epoch", "zoo.stable_baselines3_table"),
    ("srun_label", "zoo.megatron_lm"),  # the same task label on every line
    ("compose", "zoo.notebook_table_of_a_grpo_run_saved_as_text"),
    ("ray_worker", "zoo.lightning_rich_progress_bar"),
    ("mpirun_tag", "zoo.yolov8"),  # "[1,0]<stdout>:": a rank prefix
    ("accelerate_example", "general.split_words_alone_name_the_splits_losses"),
    ("detectron2_file", "zoo.swin_train_and_test_lines"),  # a logger name before the level
    ("paddle", "general.a_name_placed_by_its_counters_before_is"),
    ("deepspeed", "zoo.yolov8"),  # "[engine.py:2084:_take_model_step]"
    ("hydra", "zoo.megatron_lm"),  # "[__main__][INFO] - "
    ("structlog", "zoo.fastai_console_table"),  # "[info     ] "
    ("tensorflow_noise", "general.a_colon_closing_the_value"),  # a stray line is no part of a record
    ("tensorflow_noise", "zoo.ray_train_result_tables"),
]
# fmt: on


def _baselines(sources: list[M.Source], tmp: Path, min_points: int) -> list[tuple[M.Source, M.Read]]:
    out = []
    for src, path in M.written(sources, tmp):
        read = M.read_loss(path)
        if read is not None and len(read.values) >= min_points:
            out.append((src, read))
    return out


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("zoo")
    return _baselines(M.zoo_sources([test_console_zoo, test_console_general], tmp / "harvest"), tmp, 5)


@pytest.fixture(scope="module")
def calibration(tmp_path_factory):
    sources, min_steps = M.calibration_or_skip(CAL_SAMPLE, CAL_MAX_BYTES)
    out = []
    for src, read in _baselines(sources, tmp_path_factory.mktemp("calibration"), min_steps):
        if read.fmt.startswith("console") and M.reads_manifest_loss(src.entry, read.loss):
            out.append((src, read))  # a console log that reads right today
    return out


def _chosen(pairs: list, framing: str, every: int) -> list:
    """The sources a framing is tried on: of those it fits, every ``every``-th (every 3rd for a
    framing of a file; RARE times as far apart for one of M.REAL_TOOLS) from an offset of the
    framing's own; a framing of M.SEPARATORS only on logs the general line reader reads)."""
    if framing in M.REAL_TOOLS:
        every *= RARE
    if framing in M.FILE_FRAMINGS:
        fits, kind = pairs, sorted(M.FILE_FRAMINGS)
        every = min(every, 3)
    else:
        fits, kind = [p for p in pairs if p[0].console], [n for n in NAMES if n not in M.FILE_FRAMINGS]
    if framing in M.SEPARATORS:  # another separator between the pairs: for the general line reader
        fits = [p for p in fits if p[1].fmt == "console/general"]
    k = kind.index(framing) % every
    return [p for i, p in enumerate(fits) if i % every == k]


def _failures(framing: str, pairs: list, tmp: Path) -> dict[str, str]:
    out = {}
    for k, (src, base) in enumerate(pairs):
        data, name = M.FRAMINGS[framing](src.text, src.filename)
        path = tmp / f"f{k}" / name
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        got = M.read_loss(path)
        want = M.expected(framing, base)
        if not M.same(got, want):
            out[src.name] = f"{src.name}: wanted {want.brief()}, read {got.brief() if got else 'nothing'}"
    return out


def _judge(framing: str, failed: dict[str, str], chosen: list) -> None:
    names = {src.name for src, _ in chosen}
    known = {src for (f, src) in KNOWN if f == framing and src in names}
    new = [why for src, why in failed.items() if src not in known]
    assert not new, f"{framing}: {len(new)} source(s) read differently:\n" + "\n".join(new)
    healed = sorted(known - set(failed))
    assert not healed, f"{framing}: now read the same, take them out of KNOWN: {healed}"


@pytest.mark.parametrize("framing", NAMES)
def test_a_framed_zoo_log_reads_the_same(framing, zoo, tmp_path):
    chosen = _chosen(zoo, framing, EVERY)
    assert chosen
    _judge(framing, _failures(framing, chosen, tmp_path), chosen)


@pytest.mark.parametrize("framing", NAMES)
def test_a_framed_calibration_log_reads_the_same(framing, calibration, tmp_path):
    chosen = _chosen(calibration, framing, 1 if FULL else 2)
    _judge(framing, _failures(framing, chosen, tmp_path), chosen)


@pytest.mark.parametrize(("framing", "source"), PINNED, ids=[f"{f}-{s}" for f, s in PINNED])
def test_a_pinned_framed_zoo_log_reads_the_same(framing, source, zoo, tmp_path):
    pairs = [p for p in zoo if p[0].name == source]
    assert pairs, f"{source} is no zoo source any more"
    _judge(framing, _failures(framing, pairs, tmp_path), pairs)


def test_the_sources_are_many_and_the_sample_meets_each_of_them(zoo):
    assert len(zoo) >= 90
    met = {src.name for f in NAMES for src, _ in _chosen(zoo, f, EVERY)}
    assert met == {src.name for src, _ in zoo}


def test_the_preamble_alone_is_never_a_judged_run(tmp_path):
    # argparse Namespace, a config of name: number pairs, print(model) and a parameter summary
    path = tmp_path / "train.log"
    path.write_text("\n".join(M.preamble_lines()) + "\n", encoding="utf-8")
    assert M.read_loss(path) is None


def test_a_log_that_opens_with_an_argparse_namespace_is_read(tmp_path):
    # print(args) first (pytorch/examples, most scripts), then a long preamble before the first
    # progress line: "Namespace(a=1, b=2)" is no CSV header
    lines = M.preamble_lines()
    assert lines[0].startswith("Namespace(")
    lines += [f"Epoch {e}: train_loss={2.0 - 0.05 * e:.3f}" for e in range(20)]
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    read = M.read_loss(path)
    assert read is not None and read.loss == "train_loss"
    assert (len(read.values), read.values[0], read.values[-1]) == (20, 2.0, 1.05)


@pytest.mark.parametrize(
    ("line", "bare"),
    [
        ("2024-05-01 12:00:01,234 - INFO - Epoch 3: loss 0.5", "Epoch 3: loss 0.5"),
        ("2024-05-01 12:00:01,234 - INFO - __main__ - step 1 loss=2", "step 1 loss=2"),
        ("[INFO|trainer.py:2046] 2024-05-01 12:00:01,234 >> {'loss': 0.5}", "{'loss': 0.5}"),
        ("2024-05-01 12:00:01.234 | INFO     | __main__:train:88 - step 1 loss=2", "step 1 loss=2"),
        ("[rank0]: 2024-05-01 12:00:01,234 - INFO - step 1", "step 1"),
        ("INFO:root:Epoch 1 loss 0.3", "Epoch 1 loss 0.3"),
        ("2024/01/01 10:00:00 - mmengine - INFO - Epoch(train) [1][10/100]", "Epoch(train) [1][10/100]"),
        ("[titan] 2025-01-01 10:00:00,000 - root - INFO - step: 1 loss: 2", "step: 1 loss: 2"),
        ("[2023-03-01 10:00:00 swin_tiny](main.py 222): INFO Train: [0/300][0/500]", "Train: [0/300][0/500]"),
        # a record printed right after a tqdm render, no newline between: the render stays
        (
            " 37%|███▋      | 37/100 [00:37<01:03,  3.21it/s]2024-05-01 12:00:01,234 - INFO - {'loss': 0.5}",
            " 37%|███▋      | 37/100 [00:37<01:03,  3.21it/s]{'loss': 0.5}",
        ),
        # a line's own words are never a logger name; a prefix without a level is left to the readers
        ("INFO - train_loss: 0.5", "train_loss: 0.5"),
        ("INFO - train - loss: 1", "train - loss: 1"),
        ("Epoch 1 - loss 0.3", "Epoch 1 - loss 0.3"),
        ("12:00:01 loss 0.5", "12:00:01 loss 0.5"),
        ("2021-03-01 10:01:40 | INFO | train_inner | {'epoch': 1}", "train_inner | {'epoch': 1}"),
        # the rest of a record after a stamp: DeepSpeed, detectron2's log.txt, Hydra, structlog
        ("[INFO] [engine.py:2084:_take_model_step] step=10, loss=2", "step=10, loss=2"),
        ("d2.engine.hooks INFO: Epoch 1 loss 2", "Epoch 1 loss 2"),
        ("[__main__][INFO] - step 1 loss 2", "step 1 loss 2"),
        ("[info     ] step 1 loss=2", "step 1 loss=2"),
        ("train INFO: loss 2", "train INFO: loss 2"),
    ],
)
def test_record_prefixes_are_removed_in_one_place(line, bare):
    assert unframe_text(line) == bare


_PRINTED = ["Epoch 1 loss 0.5", "      1/4      3.55G       0.09", "step 2: loss=0.4", "[3/50] Loss 2.1 (2.3)"]


@pytest.mark.parametrize("framing", sorted(M.REAL_TOOLS - {"tensorflow_noise"}))
def test_a_prefix_every_line_carries_is_removed(framing):
    # (a logging record's prefix takes the spaces after it: the recognisers allow for them)
    framed = M.FRAMINGS[framing]("\n".join(_PRINTED), "train.log")[0].decode()
    assert [line.final.lstrip() for line in unframe(split_lines(framed))] == [ln.lstrip() for ln in _PRINTED]


@pytest.mark.parametrize(
    "lines",
    [
        # a time or a counter that starts some lines, or a different one on each: the lines' own
        ["12:00:01 loss 0.5", "Epoch 1 loss 0.4", "Epoch 2 loss 0.3", "done"],
        ["0: 0.52", "1: 0.48", "2: 0.41", "3: 0.40"],
        ["Epoch_1 | loss 0.5", "Epoch_2 | loss 0.4", "Epoch_3 | loss 0.3"],
        ["0:01:23  1.234  0.5", "summary", "table", "end"],
    ],
)
def test_what_starts_only_some_lines_or_differs_on_each_stays(lines):
    assert [line.final for line in unframe(split_lines("\n".join(lines)))] == lines


def test_a_line_printed_right_after_a_tqdm_render_is_a_render_of_its_own():
    # no newline after the bar's last render: the script's line starts where the bar ends
    bar = " 37%|███▋      | 37/100 [00:37<01:03,  3.21it/s]"
    assert renders(bar + "iter 370: loss 2.5") == [bar, "iter 370: loss 2.5"]
    assert renders(bar + bar + " step 2") == [bar, bar, " step 2"]
    assert renders(bar) == [bar] and renders("loss 37%|x") == ["loss 37%|x"]


def test_trainer_dicts_after_another_loops_bar_keep_their_order(tmp_path):
    # a bar of another loop (a data loader's, 100/100 each time) drawn before every printed
    # Trainer dict (transformers' PrinterCallback): its count places no dict
    bar = "\r" + "\r".join(f"{k:3d}%|{'█' * (k // 10):<10}| {k}/100 [00:01<00:00, 90.1it/s]" for k in (1, 50, 100))
    lines = []
    for s in range(1, 41):
        lines += [bar, f"{{'loss': {2.0 - 0.02 * s:.4f}, 'learning_rate': 1e-05, 'epoch': {s / 40:.2f}}}"]
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    read = M.read_loss(path)
    assert read is not None and read.loss == "loss"
    assert (len(read.values), read.values[0], read.values[-1]) == (40, 1.98, 1.2)


def _step_run() -> list[str]:
    # python logging whose messages start with a newline (a calibration log's shape): a step line
    # every 200 steps, an epoch_end summary per epoch, a best value at the end
    out = ["2026-03-03 02:10:46,423 | Starting training"]
    for e in range(1, 4):
        for k in range(1, 8):
            s = (e - 1) * 1400 + 200 * k
            out += [
                "2026-03-03 02:13:09,433 | ",
                f"epoch={e} step={s} train_loss={0.4 - s / 20000:.4f} val_loss=0.1500",
            ]
        out += ["2026-03-03 02:30:00,000 | ", f"epoch_end={e} train_loss={0.3 - e / 100:.4f} val_loss=0.1544"]
    return out + ["2026-03-03 03:00:00,000 | ", "done. best_val_loss=0.1131"]


def test_a_run_appended_after_a_restart_keeps_the_reader_that_read_one_run(tmp_path):
    one, two = tmp_path / "one" / "train.log", tmp_path / "two" / "train.log"
    for path, lines in ((one, _step_run()), (two, _step_run() + M.RESTART + _step_run())):
        path.parent.mkdir()
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    first, both = M.read_loss(one), M.read_loss(two)
    assert first is not None and both is not None and first.loss == both.loss == "train_loss"
    assert len(first.values) == 21 and both.values == first.values + first.values


def test_a_warning_between_a_vits_header_and_its_list_parts_nothing(tmp_path):
    # a Python warning (two lines) and a blank logged between 'Train Epoch' and its loss list
    lines = []
    for ln in test_console_zoo.vits_train_log():
        if "Train Epoch" in ln:
            ln += "\n" + "\n".join(M._NOISE[:3])
        lines.append(ln)
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    read = M.read_loss(path)
    assert read is not None and read.loss == "loss_gen_all" and len(read.values) == 12


def test_a_warning_inside_a_step_table_ends_nothing(tmp_path):
    # a warning printed into a notebook's output between two rows of its step table; a row after
    # it that does not continue the table (a step already read) is not taken
    rows = [f"{s}\t{1.0 - 0.02 * s:.4f}\t{0.5 + 0.01 * s:.4f}" for s in range(1, 31)]
    warn = M._NOISE[:2]
    lines = ["Step\tTraining Loss\treward", *rows[:10], *warn, *rows[10:], *warn, "3\t9.0\t9.0"]
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    read = M.read_loss(path)
    assert read is not None and read.loss == "Training Loss"
    assert (len(read.values), read.values[0], read.values[-1]) == (30, 0.98, 0.4)
