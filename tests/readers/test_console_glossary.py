"""Training prints in the author's language (readers/console/glossary.py): the general line reader
reads the names and counters of a Chinese, Japanese, Korean, Russian or Romance-language print as
it reads an English one; a word it does not know stays as printed."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers import ReadError
from trainlint.readers.console.glossary import _ASCII_HINT, _LOWER, english


def test_an_ascii_line_is_left_alone_and_known_terms_become_english():
    line = "Epoch 3 | loss: 0.5"
    assert english(line) is line
    assert english("训练损失：4.6130，验证损失：6.0073") == "train loss :4.6130, val loss :6.0073"
    assert english("第 3 轮 損失: 0.5") == "epoch 3 loss : 0.5"
    # a Latin-script word only as a whole word: "Verlustfunktion" (loss function) is a name of its own
    assert english("Epoche 2 – Verlust: 0.41 Verlustfunktion: MSE") == "Epoch 2 – Loss: 0.41 Verlustfunktion: MSE"


def test_every_latin_script_word_of_the_glossary_passes_the_ascii_lines_hint():
    # an ASCII line takes the glossary only where the hint finds a stem: a word it misses is never
    # read ("validatie", Dutch, and "validering", Norwegian, were missed until the hint named them)
    missed = [word for word in _LOWER if word.isascii() and _ASCII_HINT.search(word) is None]
    assert missed == []
    assert english("Epoch 3 validatie verlies: 0.52") == "Epoch 3 val loss: 0.52"
    assert english("Epoch 3 VALIDERING tap: 0.52") == "Epoch 3 Val tap: 0.52"


def test_a_chinese_epoch_print_reads_its_losses(tmp_path):
    # the print of many Chinese training scripts:
    # print(f"Epoch {epoch+1}/{epochs} | 训练损失: {avg_loss:.4f} | 验证损失: {val_loss:.4f} | 学习率: {lr:.6f}")
    lines = [
        f"Epoch {e}/30 | 训练损失: {2.0 - 0.05 * e:.4f} | 验证损失: {2.2 - 0.04 * e:.4f} | 学习率: 0.000100"
        for e in range(1, 31)
    ]
    run = _read(tmp_path, lines)
    assert run.format == "console/general"
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "train_loss") == (30, 1.0, 30.0, 1.95, pytest.approx(0.5))
    assert run.roles["learning_rate"] == "lr"


def test_full_width_punctuation_and_an_ordinal_epoch(tmp_path):
    lines = [f"第{e}轮，训练损失：{1.0 / e:.4f}，准确率：{0.5 + e / 100:.3f}" for e in range(1, 21)]
    run = _read(tmp_path, lines)
    assert _series(run, "train_loss") == (20, 1.0, 20.0, 1.0, 0.05)
    assert _series(run, "acc")[3:] == (0.51, 0.7)


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("エポック {e} ステップ {s} 損失: {v:.4f}", "loss"),  # Japanese
        ("에폭 {e} 스텝 {s} 학습 손실: {v:.4f}", "train_loss"),  # Korean
        ("Эпоха {e}, шаг {s}, потери: {v:.4f}", "loss"),  # Russian
        ("Эпоха {e} шаг {s}: потери на обучении {v:.4f}, потери на валидации 1.5", "train_loss"),  # the split after
        ("Итерация {s} эпохи {e}: Потери {v:.4f}, Точность 0.5", "Loss"),
        ("Época {e} passo {s} perda de treino: {v:.4f}", "train_loss"),  # Portuguese
        ("Epoch {e} step {s} perte: {v:.4f}", "loss"),  # French
    ],
)
def test_other_languages(tmp_path, line, name):
    lines = [line.format(e=e, s=s, v=3.0 - 0.01 * (e * 10 + s // 10)) for e in range(3) for s in range(0, 100, 10)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == name and len(run.series[name].steps) == 30
    assert run.series[name].values[-1] == pytest.approx(3.0 - 0.29)


def test_epoch_summaries_sum_up_the_training_beside_the_step_lines(tmp_path):
    # a Chinese summary after an epoch of English step lines (calibration transformer-pytorch-1055's
    # shape, its step lines' loss named "Train Loss"): the summary's 训练损失 (train loss) is the
    # epoch's summary, never a second series of the training loss; its 验证损失 is the eval loss
    lines = []
    for e in range(1, 6):
        lines += [
            f"Epoch: {e:3d} | Batch: {b:5d}/ 1330 | LR: 2.96e-04 |Train Loss: {5.0 - 0.1 * e - b / 10000:.4f}"
            for b in range(10, 1330, 100)
        ]
        lines.append(f"Epoch {e} 完成 | 训练损失: {5.0 - 0.1 * e:.4f} | 验证损失: {6.0 - 0.05 * e:.4f} | 时间: 385.8s")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Train_Loss" and len(run.series["Train_Loss"].steps) == 70
    assert run.roles["eval_loss"] == "val_loss" and len(run.series["val_loss"].steps) == 5
    assert len(run.series["summary_train_loss"].steps) == 5


def test_a_chinese_config_dump_never_becomes_a_run(tmp_path):
    lines = ["学习率: 0.001", "训练轮次: 30", "批大小: 64", "损失权重: 0.5", "验证间隔: 1"]
    with pytest.raises(ReadError):
        _read(tmp_path, lines)
