"""Console formats people really have (issue 15 §2): written by the real library where it is
installed (Keras, tqdm, Rich), else in the exact shape the tool prints (llm.c's logger, Keras 2's
verbose=2 line, hand-written loops), with the source named."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap

import pytest

from trainlint.api import doctor, read_run
from trainlint.readers import ReadError


def _dec(i: float, n: float = 40) -> float:
    return 2.5 * math.exp(-3 * i / n) + 0.4


KERAS_FIT = textwrap.dedent("""
    import os, sys
    os.environ.setdefault("KERAS_BACKEND", "torch")
    import numpy as np, keras
    rng = np.random.default_rng(0)
    x = rng.normal(size=(128, 4)).astype("float32"); y = (x[:, 0] > 0).astype("int32")
    m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, activation="softmax")])
    m.compile(optimizer=keras.optimizers.Adam(0.05), loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])
    m.fit(x, y, epochs=6, batch_size=32, validation_split=0.25, verbose=2)
""")


def test_keras_fit_verbose_2_written_by_keras(tmp_path):
    try:
        import importlib.util

        if importlib.util.find_spec("keras") is None or importlib.util.find_spec("torch") is None:
            pytest.skip("keras with the torch backend is not installed")
    except ImportError:
        pytest.skip("keras not importable")
    log = tmp_path / "fit.log"
    env = {**os.environ, "KERAS_BACKEND": "torch"}
    with open(log, "w") as fh:
        proc = subprocess.run(
            [sys.executable, "-c", KERAS_FIT],
            check=False,
            stdout=fh,
            stderr=subprocess.STDOUT,
            env=env,
            timeout=300,
        )
    if proc.returncode != 0:
        pytest.skip(f"keras could not run here: {log.read_text()[-300:]}")
    run = read_run(log)
    assert run.format == "console/keras"
    assert len(run.get("loss")) == 6 and len(run.get("eval_loss")) == 6
    assert run.meta["planned_epochs"] == 6 and run.meta.get("completed") is True


def test_keras_2_verbose_2_epoch_lines(tmp_path):
    # Keras 2.x ProgbarLogger with verbose=2 prints no bar: "Epoch k/N" then " - 12s - loss: ..."
    # (Keras 2.0 wrote "67s - loss: ..."; e.g. github.com/derekchen14/snippet_rnn results/0508_results.rb)
    lines = ["Train on 8000 samples, validate on 2000 samples"]
    for e in range(1, 21):
        lines += [
            f"Epoch {e}/20",
            (
                f" - 12s - loss: {_dec(e, 20):.4f} - acc: {1 - _dec(e, 20) / 3:.4f}"
                f" - val_loss: {_dec(e, 20) + 0.05:.4f} - val_acc: {1 - _dec(e, 20) / 3:.4f}"
            ),
        ]
    old = [
        "Epoch 1/2",
        "67s - loss: 2.4808 - acc: 0.2275 - val_loss: 2.1192 - val_acc: 0.4365",
        "Epoch 2/2",
        "64s - loss: 1.7988 - acc: 0.4308 - val_loss: 1.9340 - val_acc: 0.4770",
    ]
    (tmp_path / "k2.log").write_text("\n".join(lines) + "\n")
    (tmp_path / "k20.log").write_text("\n".join(old) + "\n")
    run = read_run(tmp_path / "k2.log")
    assert run.format == "console/keras" and len(run.get("loss")) == 20
    assert run.get("eval_loss").values[0] == pytest.approx(round(_dec(1, 20) + 0.05, 4))
    assert run.meta["planned_epochs"] == 20
    run = read_run(tmp_path / "k20.log")
    assert list(run.get("loss").values) == [2.4808, 1.7988]


def test_llmc_main_log(tmp_path):
    # llm.c's Logger writes "s:%d trl:%.4f" per step and "s:%d tel:%.4f" per evaluation
    # (newer versions add " lr:%e norm:%.4f"; modded-nanogpt adds train_time/step_avg)
    lines = []
    for s in range(300):
        lines.append(f"s:{s} trl:{_dec(s, 300) + 3:.4f} lr:6.0000e-04 norm:{0.9 + 0.001 * s:.4f}")
        if s % 50 == 0:
            lines.append(f"s:{s} tel:{_dec(s, 300) + 3.05:.4f}")
    path = tmp_path / "main.log"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.format == "console/llm.c-main.log"
    assert len(run.get("loss")) == 300 and len(run.get("eval_loss")) == 6
    assert run.get("grad_norm").values[-1] == pytest.approx(1.199)
    assert run.get("learning_rate").values[0] == pytest.approx(6e-4)
    rep = doctor([path]).reports[0]
    assert rep.unjudged is None and rep.verdict.value == "PASS"


def _handwritten_epochs(path, n=30):
    # the print statements of a typical hand-written seq2seq loop
    with open(path, "w") as f:
        for e in range(1, n + 1):
            print(f"Epoch: {e:02}/{n} | Time: 0m 12s", file=f)
            print(
                f"\tTrain Loss: {_dec(e, n):.3f} | Train PPL: {math.exp(_dec(e, n)):7.3f}",
                file=f,
            )
            print(
                f"\t Val. Loss: {_dec(e, n) + 0.2:.3f} |  Val. PPL: {math.exp(_dec(e, n) + 0.2):7.3f}",
                file=f,
            )


def test_handwritten_epoch_blocks(tmp_path):
    path = tmp_path / "train.log"
    _handwritten_epochs(path)
    run = read_run(path)
    assert run.format == "console/epoch-blocks"
    assert len(run.get("loss")) == 30 and len(run.get("eval_loss")) == 30
    assert run.meta["planned_epochs"] == 30 and run.meta["last_epoch"] == 30
    assert run.get("loss").values[0] == pytest.approx(round(_dec(1, 30), 3))


def test_handwritten_phase_lines_and_plan_from_n_of_m(tmp_path):
    # the PyTorch transfer-learning tutorial's loop: "Epoch 0/24", then "train Loss: ... Acc: ..."
    path = tmp_path / "out.log"
    with open(path, "w") as f:
        for e in range(25):
            print(f"Epoch {e}/{24}", file=f)
            print("-" * 10, file=f)
            for phase, off in (("train", 0.0), ("val", 0.1)):
                print(
                    f"{phase} Loss: {_dec(e, 25) + off:.4f} Acc: {0.5 + e / 60:.4f}",
                    file=f,
                )
    run = read_run(path)
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    assert len(run.get("loss")) == 25 and "val_acc" in run.series
    assert run.meta["planned_epochs"] == 25  # epochs 0..24


def test_key_equals_value_lines(tmp_path):
    path = tmp_path / "run.out"
    path.write_text(
        "".join(f"epoch={e} step={e * 100} train_loss={_dec(e):.4f} val_loss={_dec(e) + 0.1:.4f}\n" for e in range(30))
    )
    run = read_run(path)
    assert len(run.get("loss")) == 30 and run.get("loss").steps[-1] == 2900


def test_tqdm_bar_written_to_a_file(tmp_path):
    tqdm = pytest.importorskip("tqdm").tqdm
    path = tmp_path / "tqdm.log"
    with open(path, "w") as f:
        for epoch in range(12):
            bar = tqdm(range(50), file=f, desc=f"Epoch {epoch}", mininterval=0)
            for i in bar:
                bar.set_postfix(loss=f"{_dec(epoch * 50 + i, 600):.4f}")
            bar.close()
    run = read_run(path)
    assert len(run.get("loss")) == 12  # one point per epoch: the final redraw


def test_rich_bar_written_to_a_file(tmp_path):
    rich_progress = pytest.importorskip("rich.progress")
    from rich.console import Console

    path = tmp_path / "rich.log"
    with open(path, "w") as f:
        con = Console(file=f, width=120)
        for epoch in range(12):
            with rich_progress.Progress(
                rich_progress.TextColumn("{task.description}"),
                rich_progress.BarColumn(),
                rich_progress.MofNCompleteColumn(),
                rich_progress.TextColumn("loss={task.fields[loss]:.4f}"),
                console=con,
            ) as p:
                t = p.add_task(f"Epoch {epoch}", total=50, loss=0.0)
                for i in range(50):
                    p.update(t, advance=1, loss=_dec(epoch * 50 + i, 600))
    run = read_run(path)
    assert run.format == "console/rich-bar" and len(run.get("loss")) == 12


def test_epoch_headers_without_values_stay_unrecognised(tmp_path):
    path = tmp_path / "empty.log"
    path.write_text("".join(f"Epoch {e}/10\nsaving checkpoint\n" for e in range(10)))
    with pytest.raises(ReadError):
        read_run(path)


def test_coqui_gan_per_optimizer_losses_judge_the_generators(tmp_path):
    # the Coqui trainer's text log of a GAN recipe (VITS / HiFi-GAN): two optimizers, loss_0 the
    # discriminator's and loss_1 the generator's, with their parts (loss_disc, loss_gen, loss_mel);
    # loss_0 is printed equal to loss_disc: another network's objective, not added into the loss
    # (tts-vits-finetuned-coqui-trainer-log-1143 was judged on loss_0+loss_1)
    lines = [" > EPOCH: 0/10"]
    for g in range(1, 41):
        lines += [
            f" --> TIME: 2024-01-01 00:00:{g:02d} -- STEP: {g}/40 -- GLOBAL_STEP: {g}",
            f"     | > loss_disc: {2.6 - 0.001 * g:.5f}  (2.6)",
            f"     | > loss_0: {2.6 - 0.001 * g:.5f}  (2.6)",
            f"     | > loss_gen: {2.2 + 0.002 * g:.5f}  (2.2)",
            f"     | > loss_mel: {_dec(g):.5f}  (2.0)",
            f"     | > loss_1: {2.2 + 0.002 * g + 45 * _dec(g):.5f}  (40)",
        ]
    path = tmp_path / "trainer_0_log.txt"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.roles["loss"] == "loss_1"
    assert run.get("loss").values[0] == pytest.approx(2.2 + 0.002 + 45 * _dec(1), abs=1e-4)
    assert "loss_0 left out: the discriminator's" in run.meta["role_reasons"]["loss"]


def test_keras_2_0_published_log_is_read_per_fit():
    # real Keras 2.0 verbose=2 output (no bar, "3083s - loss: ..."), MIT, committed with its
    # licence: github.com/KyotoSunshine/CNN-for-handwritten-kanji logs/model_training_log.txt
    from pathlib import Path

    log = next(
        (Path(__file__).parent.parent / "realworld" / "files").glob(
            "cnn-for-handwritten-kanji-model-training-log-*/*.txt"
        )
    )
    run = read_run(log)
    assert run.format == "console/keras"
    assert len(run.get("loss")) == 66 and len(run.get("eval_loss")) == 33
    assert run.get("loss").values[0] == 3.5508
    assert run.get("eval_loss").values[0] == 1.4529
