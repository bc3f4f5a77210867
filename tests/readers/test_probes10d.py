"""Metric files training scripts write, probed outside the corpus (issue 29, probe 10d): each test
is a made-up file in the shape of one seen in a public repository (named in a comment)."""

from __future__ import annotations

import json

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers import ReadError, read_any
from trainlint.readers import read_run as read_as
from trainlint.roles import apply_roles


def test_csv_cells_written_as_a_tensors_repr_are_its_numbers(tmp_path):
    # Andrew-Linville/UNet-SNGP losses.csv @9201ca1: writer.writerow([epoch, train_loss, val_loss]) of tensors
    rows = [
        f"{e},\"tensor({3.0 - 0.02 * e:.4f}, device='cuda:0', grad_fn=<DivBackward0>)\","
        f"\"tensor({2.9 - 0.015 * e:.4f}, device='cuda:0')\""
        for e in range(1, 31)
    ]
    run = _read(tmp_path, ["Epoch,Train_loss,Val_loss", *rows], "losses.csv")
    assert run.format == "csv"
    assert run.roles["loss"] == "Train_loss" and run.roles["eval_loss"] == "Val_loss"
    assert _series(run, "Train_loss") == (30, 1.0, 30.0, pytest.approx(2.98), pytest.approx(2.4))
    assert _series(run, "Val_loss")[3:] == (pytest.approx(2.885), pytest.approx(2.45))


def test_csv_cells_of_numpy_scalars_and_bare_tensors_are_their_numbers(tmp_path):
    # Akssi/StyleTransfer log.csv @c592e70: tensor(318428413952.) cells; NumPy 2 prints np.float64(0.5)
    rows = [f"{i},tensor({100 - i}.),np.float64({0.5 + 0.01 * i:.2f})" for i in range(20)]
    run = _read(tmp_path, ["step,loss,acc", *rows], "log.csv")
    assert _series(run, "loss") == (20, 0.0, 19.0, 100.0, 81.0)
    assert _series(run, "acc")[3:] == (0.5, pytest.approx(0.69))


def test_a_cell_that_only_looks_wrapped_stays_text(tmp_path):
    rows = [f"{i},{1.0 / (i + 1):.4f},run(a)" for i in range(20)]
    run = _read(tmp_path, ["step,loss,note", *rows], "log.csv")
    assert "note" not in run.series and len(run.series["loss"].values) == 20


def test_json_per_metric_step_dicts_with_sparse_metrics(tmp_path):
    # MariusLiebig/UNet-segmentation-MRI train_history.json @c8caaf5: {"loss": {"0": ..}, "accuracy": {},
    # "time": {"16": ..}}: a dict per metric keyed by the epoch, some metrics logged at a few epochs only
    doc = {
        "loss": {str(i): 0.45 - 0.003 * i for i in range(100)},
        "accuracy": {},
        "time": {"16": 58.3, "31": 53.1, "84": 82.1},
    }
    path = tmp_path / "train_history.json"
    path.write_text(json.dumps(doc, indent=2))
    run = read_run(path)
    assert run.format == "json-records" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (100, 0.0, 99.0, 0.45, pytest.approx(0.153))
    assert _series(run, "time") == (3, 16.0, 84.0, 58.3, 82.1)


def test_json_rows_of_step_train_and_val_loss_in_a_loss_file(tmp_path):
    # CollinPhipps/llm loss_history.json @2947e6a (indented), mmuaaz-raza/microgpt @05b2069 (one line):
    # json.dump(losses, f) of (step, train_loss, val_loss) tuples
    rows = [[200 * k, 6.0 - 0.12 * k, 6.1 - 0.05 * k] for k in range(1, 26)]
    for indent in (2, None):
        path = tmp_path / "loss_history.json"
        path.write_text(json.dumps(rows, indent=indent))
        run = read_run(path)
        assert run.format == "json-records" and run.roles["loss"] == "loss"
        assert _series(run, "loss") == (25, 200.0, 5000.0, pytest.approx(5.88), pytest.approx(3.0))
        assert _series(run, "loss_2")[3:] == (pytest.approx(6.05), pytest.approx(4.85))


def test_json_rows_are_no_tensorboard_export_and_unnamed_rows_are_not_read(tmp_path):
    # before: [[step, train, val], ..] was taken for TensorBoard's [[wall_time, step, value], ..]
    rows = [[200 * k, 6.0 - 0.12 * k, 6.1 - 0.05 * k] for k in range(1, 26)]
    path = tmp_path / "history.json"
    path.write_text(json.dumps(rows))
    with pytest.raises(ReadError):
        read_as(path, "json-records")


def test_ultralytics_results_txt_rows(tmp_path):
    # 2017ND/torch-yolov3 results.txt @ac40f26 (ultralytics/yolov3; YOLOv5 before v6 writes the same
    # 15 columns): epoch/last, mem, box obj cls total, targets, img size, P R mAP@.5 mAP@.5:.95|F1,
    # val box obj cls
    rows = [
        f"{e:>10}/29{0.333:>9}G{4.6 - 0.1 * e:10.3g}{6.7 - 0.1 * e:10.3g}{3.0 - 0.05 * e:10.3g}"
        f"{14.3 - 0.25 * e:10.3g}{31:10}{416:10}{0.02 + 0.01 * e:10.3g}{0.3:10.3g}{0.08 + 0.01 * e:10.3g}"
        f"{0.04:10.3g}{4.2 - 0.05 * e:10.3g}{11.3 - 0.2 * e:10.3g}{5.0 - 0.1 * e:10.3g}"
        for e in range(30)
    ]
    run = _read(tmp_path, rows, "results.txt")
    assert run.format == "console/yolo-results-txt"
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (30, 0.0, 29.0, pytest.approx(14.3), pytest.approx(7.05))
    assert _series(run, "val_loss")[3:] == (pytest.approx(20.5), pytest.approx(10.35))
    assert _series(run, "mAP50")[3:] == (pytest.approx(0.08), pytest.approx(0.37))


def test_a_loss_file_whose_writer_quotes_every_cell(tmp_path):
    # qiaochloe/polylm losses.csv @240a645: "1","52.58" rows (R's write.csv, csv.QUOTE_ALL), no header;
    # a .csv is no console log by its name: read when named (doctor FILE), as its unquoted twin is
    lines = [f'"{k}","{50.0 / k:.6f}"' for k in range(1, 41)]
    for quoted in (True, False):
        path = tmp_path / "losses.csv"
        path.write_text("\n".join(ln if quoted else ln.replace('"', "") for ln in lines) + "\n")
        run = read_any(path)
        apply_roles(run)
        assert run.format == "console/loss-file" and run.roles["loss"] == "loss"
        assert _series(run, "loss") == (40, 1.0, 40.0, 50.0, 1.25)


def test_quoted_numbers_in_a_file_not_named_loss_name_no_loss(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("\n".join(f'"{k}","{50.0 / k:.6f}"' for k in range(1, 41)) + "\n")
    try:
        run = read_any(path)
    except ReadError:
        return
    apply_roles(run)
    assert "loss" not in run.roles


def test_json_lines_whose_values_are_all_strings_of_numbers(tmp_path):
    # ATMI/Megatoken log.json @f8f230c: {"acc": "0.61", "acc~": "0.20", "loss": "10.1519", "loss~": "10.4113"}
    lines = [json.dumps({"acc": f"{k / 10:.2f}", "loss": f"{10.0 - 0.1 * k:.4f}", "loss~": "10.5"}) for k in range(30)]
    run = _read(tmp_path, lines, "log.json")
    assert run.format == "jsonl" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (30, 0.0, 29.0, 10.0, pytest.approx(7.1))
    assert not any("not a real number" in n for n in run.notes)


def test_json_lines_with_numbers_keep_their_strings_as_text(tmp_path):
    lines = [json.dumps({"step": k, "loss": 1.0 / (k + 1), "run": "12"}) for k in range(30)]
    run = _read(tmp_path, lines, "log.jsonl")
    assert "run" not in run.series and len(run.series["loss"].values) == 30
