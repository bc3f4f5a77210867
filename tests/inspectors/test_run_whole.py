"""Judging a run as a whole (issue 15 §5): data found with the run is linked to it, an eval split
that overlaps the training split is a leakage FAIL on the run, dataset severity scales with the
share of bad rows, blank lines are reported with their line numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path

from trainlint.api import doctor


def _trainer_state(folder: Path, n: int = 60) -> None:
    hist = [
        {
            "loss": round(2.5 * math.exp(-s / 20) + 0.5, 4),
            "learning_rate": 2e-5,
            "epoch": s / n,
            "step": s * 5,
        }
        for s in range(1, n + 1)
    ]
    hist += [
        {
            "eval_loss": round(2.6 * math.exp(-s / 20) + 0.55, 4),
            "epoch": s / n,
            "step": s * 5,
        }
        for s in range(10, n + 1, 10)
    ]
    state = {
        "log_history": hist,
        "global_step": n * 5,
        "max_steps": n * 5,
        "epoch": 1.0,
    }
    (folder / "trainer_state.json").write_text(json.dumps(state))


def _rows(k: int, start: int = 0) -> list[str]:
    return [json.dumps({"prompt": f"question {i}", "completion": f"answer {i}"}) for i in range(start, start + k)]


def _run(tmp_path: Path, train: list[str], valid: list[str]) -> Path:
    run = tmp_path / "out"
    (run / "data").mkdir(parents=True)
    _trainer_state(run)
    (run / "data" / "train.jsonl").write_text("\n".join(train) + "\n")
    (run / "data" / "valid.jsonl").write_text("\n".join(valid) + "\n")
    return run


def _log_report(result):
    return next(r for r in result.reports if r.kind == "log")


def test_identical_eval_file_is_a_leakage_fail_on_the_run(tmp_path):
    rows = _rows(100)
    run = _run(tmp_path, rows, rows)
    rep = _log_report(doctor([run]))
    f = next(f for f in rep.findings if f.code == "TL067")
    assert f.severity.value == "FAIL" and f.evidence["identical"] and "same file" in f.message
    assert any("linked to this run: train data data/train.jsonl, eval data data/valid.jsonl" in n for n in rep.notes)


def test_share_of_identical_rows_fails_with_the_numbers(tmp_path):
    run = _run(tmp_path, _rows(200), _rows(30) + _rows(70, start=1000))  # 30 of 100 eval rows leak
    f = next(f for f in _log_report(doctor([run])).findings if f.code == "TL067")
    assert f.severity.value == "FAIL" and f.evidence["shared_rows"] == 30 and f.evidence["eval_rows"] == 100
    assert "30 of 100 eval rows (30%)" in f.message and f.evidence["shared_lines"][:3] == [1, 2, 3]


def test_small_share_warns_and_disjoint_splits_pass(tmp_path):
    run = _run(tmp_path, _rows(200), _rows(2) + _rows(98, start=1000))
    f = next(f for f in _log_report(doctor([run])).findings if f.code == "TL067")
    assert f.severity.value == "WARN" and f.evidence["share"] == 0.02
    clean = _run(tmp_path / "b", _rows(200), _rows(100, start=1000))
    rep = _log_report(doctor([clean]))
    assert "TL067" in rep.checks.ran and not [f for f in rep.findings if f.code == "TL067"]


def test_config_names_the_data_files(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    _trainer_state(run)
    shared = tmp_path / "corpus"
    shared.mkdir()
    (shared / "a.jsonl").write_text("\n".join(_rows(50)) + "\n")
    (shared / "b.jsonl").write_text("\n".join(_rows(50)) + "\n")
    (run / "run_config.json").write_text(
        json.dumps(
            {
                "data": {
                    "train_file": str(shared / "a.jsonl"),
                    "validation_file": str(shared / "b.jsonl"),
                }
            }
        )
    )
    f = next(f for f in _log_report(doctor([run])).findings if f.code == "TL067")
    assert f.severity.value == "FAIL" and f.evidence["identical"]


def test_no_data_with_the_run_is_not_checked(tmp_path):
    run = tmp_path / "out"
    run.mkdir()
    _trainer_state(run)
    rep = _log_report(doctor([run]))
    assert "no training and eval data" in rep.checks.not_checked["TL067"]


def test_label_entropy_floor_uses_the_data_found_with_the_run(tmp_path):
    rows = [json.dumps({"text": f"sample {i}", "label": i % 2}) for i in range(200)]
    run = _run(
        tmp_path,
        rows,
        [json.dumps({"text": f"held out {i}", "label": i % 2}) for i in range(40)],
    )
    rep = _log_report(doctor([run]))
    # TL099 ran on the train split's label entropy (ln 2) without --dataset; the loss ends below it
    assert "TL099" in rep.checks.ran and "TL099" not in rep.checks.not_checked


def _data_report(result, name):
    return next(r for r in result.reports if r.kind == "dataset" and r.source.endswith(name))


def test_dataset_severity_scales_with_the_share_of_bad_rows(tmp_path):
    few = [json.dumps({"prompt": f"q{i}", "completion": "" if i < 3 else f"a{i}"}) for i in range(20)]
    most = [json.dumps({"prompt": f"q{i}", "completion": "" if i < 15 else f"a{i}"}) for i in range(20)]
    dup = [json.dumps({"prompt": "q", "completion": "a"})] * 15 + [
        json.dumps({"prompt": f"q{i}", "completion": "a"}) for i in range(5)
    ]
    for name, rows in (("few.jsonl", few), ("most.jsonl", most), ("dup.jsonl", dup)):
        (tmp_path / name).write_text("\n".join(rows) + "\n")
    res = doctor([tmp_path])
    sev = {
        name: {f.code: f.severity.value for f in _data_report(res, name).findings}
        for name in ("few.jsonl", "most.jsonl", "dup.jsonl")
    }
    assert sev["few.jsonl"]["TL212"] == "WARN" and sev["most.jsonl"]["TL212"] == "FAIL"
    assert sev["dup.jsonl"]["TL204"] == "FAIL"


def test_blank_lines_are_reported_with_their_line_numbers(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(_rows(1)[0] + "\n\n" + _rows(1, 1)[0] + "\n   \n" + _rows(1, 2)[0] + "\n")
    rep = _data_report(doctor([path]), "d.jsonl")
    assert rep.summary["blank_lines"] == [2, 4]
    assert any("2 blank or whitespace-only line(s), not rows: lines 2, 4" in n for n in rep.notes)


def test_axolotl_yaml_dataset_lists_name_the_splits(tmp_path):
    run = tmp_path / "run"
    (run / "data").mkdir(parents=True)
    _trainer_state(run)
    rows = _rows(80)
    (run / "data" / "sft.jsonl").write_text("\n".join(rows) + "\n")  # no split word in the names
    (run / "data" / "heldout.jsonl").write_text("\n".join(rows[:40] + _rows(40, 1000)) + "\n")
    (run / "qlora.yml").write_text(
        "base_model: some/model\n"
        "datasets:\n"
        "  - path: data/sft.jsonl\n"
        "    type: alpaca\n"
        "test_datasets:\n"
        "  - path: data/heldout.jsonl\n"
        "    type: alpaca\n"
        "output_dir: ./out\n"
    )
    f = next(f for f in _log_report(doctor([run])).findings if f.code == "TL067")
    assert f.severity.value == "FAIL" and f.evidence["shared_rows"] == 40 and f.evidence["eval_rows"] == 80
    (run / "qlora.yml").write_text("datasets:\n  - path: data/sft.jsonl\n")  # no eval list: nothing to compare
    assert not [f for f in _log_report(doctor([run])).findings if f.code == "TL067"]


def test_yaml_config_key_lines_name_the_data_and_an_oversized_config_is_not_read(tmp_path):
    from trainlint.inspectors import run_data

    run = tmp_path / "run"
    run.mkdir()
    _trainer_state(run)
    (run / "a.jsonl").write_text("\n".join(_rows(30)) + "\n")
    (run / "b.jsonl").write_text("\n".join(_rows(30)) + "\n")
    (run / "config.yaml").write_text("train_file: a.jsonl\nvalidation_file: 'b.jsonl'\n")
    f = next(f for f in _log_report(doctor([run])).findings if f.code == "TL067")
    assert f.severity.value == "FAIL" and f.evidence["identical"]
    assert run_data.find_splits(run) == {"train": [run / "a.jsonl"], "eval": [run / "b.jsonl"]}
    (run / "config.yaml").write_text(
        "train_file: a.jsonl\nvalidation_file: b.jsonl\n# " + "x" * run_data.MAX_CONFIG_BYTES
    )
    assert run_data.find_splits(run) == {"train": [], "eval": []}  # over the cap: not read at all


def test_metrics_csv_read_as_the_log_is_not_linked_as_its_data(tmp_path):
    """Issue 33: a metrics CSV named like training data is the run's log, never its train data."""
    run = tmp_path / "csvrun"
    run.mkdir()
    rows = [f"{i * 10},{0.8 + 2 * math.exp(-i / 10):.4f},0.0001" for i in range(1, 101)]
    (run / "training_log.csv").write_text("step,loss,lr\n" + "\n".join(rows) + "\n")
    rep = _log_report(doctor(run))
    assert rep.format == "csv" and rep.unjudged is None
    assert not any("linked to this run" in n for n in rep.notes), rep.notes
    assert "TL099" not in {f.code for f in rep.findings}
    # a real data file beside the same log is still linked
    (run / "train.jsonl").write_text("\n".join(_rows(50)) + "\n")
    rep = _log_report(doctor(run))
    assert any(n == "linked to this run: train data train.jsonl" for n in rep.notes), rep.notes


def test_hf_output_folder_without_weights_is_a_run_not_a_broken_checkpoint(tmp_path):
    """Issue 33: trainer_state.json and training_args.bin, the model never saved: one run report,
    no TL319; a checkpoint-N folder or a config.json without weights still claims a model."""
    import pytest

    torch = pytest.importorskip("torch")
    out = tmp_path / "out"
    out.mkdir()
    _trainer_state(out)
    torch.save({"output_dir": str(out)}, out / "training_args.bin")
    result = doctor(out)
    assert [(r.kind, r.source) for r in result.reports] == [("log", str(out))]
    assert "TL319" not in {f.code for r in result.reports for f in r.findings}
    assert result.verdict.value in ("PASS", "WARN")
    (out / "config.json").write_text(json.dumps({"vocab_size": 32}))  # now it claims to hold a model
    codes = {f.code for r in doctor(out).reports for f in r.findings}
    assert "TL319" in codes


def _tokenizer(folder: Path, max_length: int = 128) -> None:
    tok = {"version": "1.0", "model": {"type": "BPE", "vocab": {f"t{i}": i for i in range(32)}, "merges": []}}
    (folder / "tokenizer.json").write_text(json.dumps(tok))
    (folder / "tokenizer_config.json").write_text(json.dumps({"model_max_length": max_length}))


def test_checkpoint_tokenizer_copies_are_not_separate_inputs(tmp_path):
    """Issue 33: an HF output folder reported each checkpoint-N again as a tokenizer input."""
    from _outputs import _hf_output

    root = _hf_output(tmp_path / "out")
    for folder in (root, *root.glob("checkpoint-*")):
        _tokenizer(folder)
    sources = sorted((r.kind, r.source) for r in doctor([root]).reports)
    assert sources == [("log", str(root)), ("tokenizer", str(root))], sources
    _tokenizer(root / "checkpoint-80", max_length=256)  # a tokenizer that differs is still judged
    sources = sorted((r.kind, r.source) for r in doctor([root]).reports)
    assert ("tokenizer", str(root / "checkpoint-80")) in sources and len(sources) == 3, sources


def test_a_checkpoint_folder_is_one_input(tmp_path):
    """Issue 33: a checkpoint folder was listed as '(hf-folder, 0 tensors)', then each file again."""
    import numpy as np
    import pytest

    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.numpy")
    model = tmp_path / "runs" / "model"
    model.mkdir(parents=True)
    (model / "config.json").write_text(json.dumps({"vocab_size": 32}))
    st.save_file(
        {"w": np.ones((2, 2), dtype=np.float32), "b": np.ones(2, dtype=np.float32)}, str(model / "model.safetensors")
    )
    torch.save({"state": {0: {"exp_avg": torch.ones(2)}}}, model / "optimizer.pt")
    reports = doctor([tmp_path / "runs"]).reports
    assert [(r.source, r.format) for r in reports] == [(str(model), "hf-folder")], [r.source for r in reports]
    rep = reports[0]
    assert rep.summary["tensors"] >= 3 and {p["part"] for p in rep.summary["parts"]} == {
        "model.safetensors",
        "optimizer.pt",
    }
    nan = np.full((2, 2), np.nan, dtype=np.float32)
    st.save_file({"w": nan, "b": np.ones(2, dtype=np.float32)}, str(model / "model.safetensors"))
    rep = doctor([model]).reports  # a finding in one file joins the folder's report, tagged with it
    assert len(rep) == 1 and any(f.evidence.get("part") == "model.safetensors" for f in rep[0].findings), rep
    (model / "model.safetensors").write_bytes(b"\x00" * 3)  # a file that cannot be judged stays visible
    assert sorted(r.source for r in doctor([model]).reports) == [str(model), str(model / "model.safetensors")]


def _lr_zero_at_chance(tmp_path: Path) -> Path:
    """A 10-class classifier whose scheduler set the LR to 0: the loss stays at ln 10 = 2.3026
    (a CSV log of 50 steps, as a Lightning metrics.csv has it)."""
    rows = ["step,train_loss,lr-Adam"]
    rows += [f"{s},{math.log(10) + 0.001 * ((s * 7) % 5 - 2):.5f},0.0" for s in range(1, 51)]
    (tmp_path / "metrics.csv").write_text("\n".join(rows) + "\n")
    return tmp_path / "metrics.csv"


def test_the_cause_comes_first_lr_zero_before_the_chance_level_loss(tmp_path):
    from trainlint.api import Options
    from trainlint.report.brief import brief

    path = _lr_zero_at_chance(tmp_path)
    result = doctor([path], Options(num_classes=10))
    (rep,) = result.reports
    codes = [f.code for f in rep.findings if f.severity.value in ("FAIL", "WARN")]
    assert codes[0] == "TL040" and "TL033" in codes, codes  # TL033 sorts first by code alone
    assert codes.index("TL040") < codes.index("TL033") < codes.index("TL031")
    line = brief(result.to_dict()).splitlines()[1]
    assert line.index("TL040") < line.index("TL033"), line


def test_cause_order_moves_only_causes_and_only_warn_or_fail(tmp_path):
    from trainlint.engine import order_findings
    from trainlint.verdict import Finding, Severity

    def f(code: str, sev: str) -> Finding:
        return Finding(code=code, name=code, category="x", severity=Severity(sev), message="")

    found = [f("TL010", "FAIL"), f("TL020", "WARN"), f("TL001", "WARN"), f("TL003", "WARN"), f("TL061", "WARN")]
    order_findings(found)  # non-finite grad norm -> NaN loss -> divergence, lifted to FAIL's rank
    assert [x.code for x in found] == ["TL003", "TL001", "TL010", "TL020", "TL061"]
    noted = [f("TL033", "FAIL"), f("TL040", "NOTE"), f("TL061", "WARN")]
    order_findings(noted)  # a NOTE explains nothing worth leading with
    assert [x.code for x in noted] == ["TL033", "TL040", "TL061"]


def test_metric_tables_named_for_a_split_are_records_not_data(tmp_path):
    """A logs folder's train_log.csv and val_metrics.csv beside the log read are the run's records:
    linking them as train and eval data compared two metric tables for leakage (TL067)."""
    run = tmp_path / "logs"
    run.mkdir()
    rows = [f"{i},{0.8 + 2 * math.exp(-i / 10):.4f}" for i in range(1, 101)]
    (run / "training_log.csv").write_text("epoch,loss\n" + "\n".join(rows) + "\n")
    (run / "val_metrics.csv").write_text("epoch,loss\n" + "\n".join(rows) + "\n")
    (run / "train_history.jsonl").write_text("\n".join(_rows(20)) + "\n")
    from trainlint.inspectors import run_data

    assert run_data.find_splits(run) == {"train": [], "eval": []}
    (run / "train.jsonl").write_text("\n".join(_rows(20)) + "\n")
    assert run_data.find_splits(run) == {"train": [run / "train.jsonl"], "eval": []}


def test_many_shards_each_side_compare_a_bounded_number(tmp_path):
    """A folder of 12 train and 12 eval shards: the first MAX_LINKED of each are paired (64 pairs,
    not 144), and the note says how many more were found and not compared."""
    from trainlint.inspectors import run_data

    run = tmp_path / "out"
    (run / "data").mkdir(parents=True)
    _trainer_state(run)
    for i in range(12):
        (run / "data" / f"train-{i:02d}.jsonl").write_text("\n".join(_rows(5, i * 5)) + "\n")
        (run / "data" / f"test-{i:02d}.jsonl").write_text("\n".join(_rows(5, 1000 + i * 5)) + "\n")
    pairs, splits = run_data.linked_overlaps(run)
    assert run_data.MAX_LINKED == 8 and len(pairs) == 64 and len(splits["train"]) == 12
    assert {p["train"].rsplit("/", 1)[-1] for p in pairs} == {f"train-{i:02d}.jsonl" for i in range(8)}
    note = next(n for n in _log_report(doctor(run)).notes if n.startswith("linked to this run"))
    assert note.endswith("eval data data/test-07.jsonl, 4 more eval files (not compared)"), note
    assert "train data data/train-07.jsonl, 4 more train files (not compared), eval data" in note
