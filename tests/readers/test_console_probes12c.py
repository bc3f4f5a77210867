"""Training prints in European and other non-CJK languages, seen in real logs outside the corpus
(issue 29, probe round 12c). The loss, the split it is of, the epoch and the accuracy are read in
Portuguese, Spanish, Italian, French, German, Polish, Turkish, Dutch, Swedish, Romanian, Czech,
Indonesian, Vietnamese and Ukrainian (readers/console/glossary.py). Each fixture is made up in the
shape of the real print (repository, path and commit recorded with it; no copied lines) and asserts
the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers.console.glossary import english


def _loss(k: int, start: float = 2.0) -> float:
    return round(start * 0.93**k, 4)


def test_a_split_word_after_the_loss_names_the_training_loss(tmp_path):
    """laendoor/unq-ia-cats-dogs output/dataset.1500_epoch.500_padding.edge.md @c0f4961: a Spanish
    progress line "20% Epoch 100: loss entrenamiento=0.0057, loss validación=0.0099,
    exactitud=60.0000%". "entrenamiento" is the training, "validación" the validation: the loss is
    the training loss, the other the eval loss (both had been summed into one loss)."""
    lines = ["--- Entrenamiento ---"]
    for k in range(1, 13):
        lines.append(
            f"{round(100 * k / 12)}% Epoch {10 * k}: loss entrenamiento={_loss(k):.4f}, "
            f"loss validación={_loss(k, 2.5):.4f}, exactitud={50 + k:.4f}%"
        )
    lines += ["--- Resultados ---", "Accuracy  : 0.6667"]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss_train" and run.roles["eval_loss"] == "loss_val"
    assert _series(run, "loss_train") == (12, 10.0, 120.0, _loss(1), _loss(12))
    assert _series(run, "loss_val")[3:] == (_loss(1, 2.5), _loss(12, 2.5))
    assert _series(run, "acc")[3:] == (51.0, 62.0)


@pytest.mark.parametrize(
    "line",
    [
        # Portuguese, the print of many scripts (find_string, e.g. file 57610680061):
        # f"Época {epoch+1}/{epochs} | Perda Treino: {train_loss:.4f} | Perda Validação: {val_loss:.4f}"
        "Época {e}/30 | Perda Treino: {v:.4f} | Perda Validação: {w:.4f}",
        "Época {e}/30 - Perda de Treino: {v:.4f} - Perda de Validação: {w:.4f}",  # "de": the loss of
        "Época {e:04d} | Loss Treino: {v:.4f} | Loss Val: {w:.4f} | Acurácia: 97.5%",
        "Epoca: {e} | Entrenamiento pérdida: {v} | Test pérdida {w}",  # Spanish, the split first
        "Epoch {e}/30 - Pérdida entrenamiento: {v:.4f} - Pérdida validación: {w:.4f}",
        "Epoca {e}/30 - Perdita addestramento: {v:.4f} - Perdita validazione: {w:.4f}",  # Italian
        "Epoche {e}/30 - Trainingsverlust: {v:.4f} - Validierungsverlust: {w:.4f} - Genauigkeit: 0.9",
        "Epok {e}/30 - Eğitim Kaybı: {v:.4f} - Doğrulama Kaybı: {w:.4f}",  # Turkish
        "Epoka {e}/30 | Strata: {v:.4f}, Dokładność: 71.33% | Val Strata: {w:.4f}, Val Acc: 85.41%",  # Polish
    ],
)
def test_the_training_loss_beside_the_validation_loss(tmp_path, line):
    lines = [line.format(e=e, v=_loss(e), w=_loss(e, 2.5)) for e in range(1, 31)]
    run = _read(tmp_path, lines)
    loss, eval_loss = run.roles["loss"], run.roles["eval_loss"]
    assert "+" not in loss and _series(run, loss) == (30, 1.0, 30.0, _loss(1), _loss(30))
    assert _series(run, eval_loss)[3:] == (_loss(1, 2.5), _loss(30, 2.5))


def test_a_polish_app_log_reads_its_epoch_summaries(tmp_path):
    """A Polish training GUI's app.log (found by find_string, file 35738808671; repository not
    given by the index): "[INFO] Epoka 1/10 | Strata: 1.5150, Dokładność: 71.33% | Val Strata:
    1.1587, Val Acc: 85.41% | Top-3: 95.61%", between "Walidacja - Strata: 1.1587" lines. Strata is
    the loss, Epoka the epoch."""
    lines = []
    for e in range(1, 13):
        lines += [
            f"Walidacja - Strata: {_loss(e, 2.5):.4f}",
            "--- PODSUMOWANIE EPOKI ---",
            f"2025-05-12 10:{20 + e}:44,583 [INFO] Epoka {e}/12 | Strata: {_loss(e):.4f}, Dokładność: "
            f"{70 + e:.2f}% | Val Strata: {_loss(e, 2.5):.4f}, Val Acc: {80 + e:.2f}% | Top-3: 95.61%",
        ]
    run = _read(tmp_path, lines, "app.log")
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (12, 1.0, 12.0, _loss(1), _loss(12))
    assert run.roles["eval_loss"] == "Val_Loss"


def test_cost_and_loss_words_of_more_languages():
    # the cost: "Epoka 1000/5000, Koszt: 0.124532" (a Polish tutorial's printed output), "Custo"
    assert english("Epoka 1000/5000, Koszt: 0.124532") == "Epoch 1000/5000, Cost: 0.124532"
    assert english("Época 3 - Custo: 0.52") == "Epoch 3 - Cost: 0.52"
    assert english("Epoch 3: verlies = 0.5, nauwkeurigheid = 0.9") == "Epoch 3: loss = 0.5, acc = 0.9"
    assert english("Epoch 3/20 - mất mát: 0.5 - độ chính xác: 0.9") == "Epoch 3/20 - loss: 0.5 - acc: 0.9"
    assert english("Епоха 3, втрати: 0.5") == "Epoch 3, loss: 0.5"
    # a word of another case than its entry keeps the printed case; an English line is left alone
    assert english("PERDA DE TREINO: 0.5") == "Train loss: 0.5"
    line = "Epoch 3 | train loss: 0.5 | custom metric: 0.2"
    assert english(line) == line


def test_a_german_epoch_line_stays_read_beside_its_config_line(tmp_path):
    """BuddeMax/Unternehmenssoftware Experiment_5/lstm_sp500_with_bb.md @34a0b8c: "Epoche 10/100,
    Verlust: 0.000017" after a config line "Epochen=100, Batch-Größe=64, Lernrate=0.001". It was
    read before; the German word for the learning rate is read as "lr" now, on a line of no loss."""
    lines = ["Hyperparameter festgelegt: Epochen=100, Batch-Größe=64, Lernrate=0.001"]
    lines += [f"Epoche {e}/120, Verlust: {_loss(e // 10):.6f}" for e in range(10, 130, 10)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (12, 10.0, 120.0, _loss(1), _loss(12))


def test_epo_the_epoch_cut_short_places_the_points(tmp_path):
    """eduardpenas/TecParla-Reconeixement-Final entrenamiento.log @710b362 (a Catalan team's Spanish
    log, 400 epochs): "--- Inicio entrenamiento: 400 épocas ---", then "  Epo 1: Loss=1.5948 |
    Acc=25.65%". Epo is the epoch: the points sit at the epoch printed (they had sat at the order of
    the lines, and "Epo" had been read as a metric of its own)."""
    lines = ["--- Inicio entrenamiento: 400 épocas (17:56:47) ---"]
    lines += [f"  Epo {e}: Loss={_loss(e // 20):.4f} | Acc={60 + e / 20:.2f}%" for e in range(20, 260, 20)]
    lines.append("--- Fin entrenamiento (17:57:05) ---")
    run = _read(tmp_path, lines, "entrenamiento.log")
    assert run.roles["loss"] == "Loss" and "Epo" not in run.series
    assert _series(run, "Loss") == (12, 20.0, 240.0, _loss(1), _loss(12))


@pytest.mark.parametrize(
    ("train", "val"),
    [
        # a Turkish write-up's console of a LUNA training app (find_string, file 68490629650):
        # "Epok 1 train    Kayıp: 0.0241 | Doğruluk: 99.74% | Recall: 0.00%", then "Epok 1 val      Kayıp: ..."
        ("Epok {e} train    Kayıp: {v:.4f} | Doğruluk: 99.74% | Recall: 0.00%", "Epok {e} val      Kayıp: {w:.4f}"),
        ("Epoch {e}/30  Train  loss: {v:.4f}  acc: 0.9", "Epoch {e}/30  Valid  loss: {w:.4f}  acc: 0.8"),
    ],
)
def test_a_split_word_padded_to_a_column_after_the_counter(tmp_path, train, val):
    """The split word after the epoch, padded with spaces to line up the two lines' values, names
    the split of every value on its line: the validation line's loss is the eval loss (both lines'
    losses had been read as one series, 60 points mixing the two)."""
    lines = []
    for e in range(1, 31):
        lines += [train.format(e=e, v=_loss(e)), val.format(e=e, w=_loss(e, 2.5))]
    run = _read(tmp_path, lines)
    loss, eval_loss = run.roles["loss"], run.roles["eval_loss"]
    assert loss.startswith(("train", "Train")) and eval_loss.lower().startswith(("val", "valid"))
    assert _series(run, loss) == (30, 1.0, 30.0, _loss(1), _loss(30))
    assert _series(run, eval_loss)[3:] == (_loss(1, 2.5), _loss(30, 2.5))
