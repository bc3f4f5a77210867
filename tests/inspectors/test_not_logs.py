"""Files that are not logs (issue 15 §3): skipped and counted in a folder scan, NOT-CHECKED when
named, never claimed when they are sources; a W&B run folder's output.log and summary."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from trainlint.api import doctor

# The W&B client's logs/debug.log (one line shape of wandb 0.16)
WANDB_DEBUG = "".join(
    f"2024-05-01 10:00:0{i},12{i} INFO    MainThread:1234 [wandb_init.py:_log_setup():52{i}] {msg}\n"
    for i, msg in enumerate(
        [
            "Logging user logs to /x/wandb/run-20240501_100000-abc123/logs/debug.log",
            "calling init triggers",
            "wandb.init called with sweep_config: {} config: {'learning_rate': 0.001, 'epochs': 10}",
            "starting backend",
        ]
    )
)


def _good_log(path: Path) -> None:
    path.write_text("".join(f"step {s} loss={2.5 * math.exp(-s / 20) + 0.4:.4f}\n" for s in range(1, 61)))


def _folder(tmp_path: Path, cli) -> Path:
    d = tmp_path / "run"
    d.mkdir()
    _good_log(d / "train.log")
    (d / "debug.log").write_text(WANDB_DEBUG)
    # a pip log written by pip itself
    subprocess.run(
        [sys.executable, "-m", "pip", "--log", str(d / "install.log"), "--version"],
        check=False,
        capture_output=True,
        timeout=120,
    )
    if not (d / "install.log").exists():
        (d / "install.log").write_text("Successfully installed torch-2.1.0\n")
    # a saved trainlint report of the good log
    report = cli("doctor", d / "train.log", "--format", "json")
    (d / "report.json").write_text(report.out)
    (d / "train.py").write_text("for epoch in range(3):\n    print(f'epoch {epoch} loss: {0.5}')\n")
    (d / "run.sh").write_text("#!/bin/sh\necho 'step 1 loss=0.5'\n")
    return d


def test_folder_scan_skips_and_counts_files_named_like_logs(tmp_path, cli):
    d = _folder(tmp_path, cli)
    result = doctor([d])
    assert [Path(r.source).name for r in result.reports] == ["train.log"]
    skipped = sorted(Path(p).name for p in result.extra["not_recognised"])
    assert skipped == ["debug.log", "install.log"]
    assert result.exit_code == 0
    out = cli("doctor", d)
    assert out.code == 0 and "2 file(s) not recognised" in out.out and "skipped:" not in out.out
    out = cli("doctor", d, "-v")
    assert f"skipped: {d / 'debug.log'}" in out.out
    data = cli("doctor", d, "--format", "json").json()
    assert len(data["not_recognised"]) == 2 and data["exit_code"] == 0


def test_named_file_keeps_not_checked(tmp_path, cli):
    d = _folder(tmp_path, cli)
    out = cli("doctor", d / "debug.log")
    assert out.code == 2 and "NOT-CHECKED" in out.out


def test_unknown_training_log_in_a_folder_stays_not_checked(tmp_path):
    # it has training content in a shape trainlint does not read: the user must hear of it
    d = tmp_path / "run"
    d.mkdir()
    (d / "weird.log").write_text("".join(f"@@ {s} ~~ loss {s}\n" for s in range(3)))
    rep = doctor([d])
    assert "not_recognised" not in rep.extra


def _wandb_run(root: Path, output_log: str, summary: dict) -> Path:
    run = root / "wandb" / "run-20240501_100000-abc123"
    (run / "files").mkdir(parents=True)
    (run / "logs").mkdir()
    (run / "logs" / "debug.log").write_text(WANDB_DEBUG)
    (run / "files" / "output.log").write_text(output_log)
    (run / "files" / "wandb-summary.json").write_text(json.dumps(summary))
    return run


OOM = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 10, in <module>\n'
    "    trainer.train()\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
)


def test_wandb_folder_crash_in_output_log_fails_without_history(tmp_path):
    _wandb_run(tmp_path, "wandb: Tracking run\n" + OOM, {"train/loss": 0.52, "_step": 40})
    result = doctor([tmp_path])
    assert len(result.reports) == 1
    rep = result.reports[0]
    assert rep.verdict.value == "FAIL" and any(f.code == "TL081" for f in rep.findings)
    assert any("wandb-summary.json" in n for n in rep.notes)


def test_wandb_folder_progress_from_output_log(tmp_path):
    lines = "".join(
        f"{{'loss': {2.5 * math.exp(-s / 20) + 0.4:.4f}, 'learning_rate': 2e-05, 'epoch': {s / 40:.2f}}}\n"
        for s in range(1, 41)
    )
    _wandb_run(tmp_path, lines, {"train/loss": 0.6, "_step": 40})
    rep = doctor([tmp_path]).reports[0]
    assert rep.unjudged is None and rep.summary["loss_points"] == 40
    assert rep.verdict.value == "PASS"


@pytest.mark.parametrize("name", ["train.py", "run.sh"])
def test_sources_are_never_logs(tmp_path, name):
    (tmp_path / name).write_text("print('step 1 loss=0.5')\n" * 30)
    assert doctor([tmp_path]).reports == []


def test_a_damaged_log_with_a_log_name_is_never_skipped(tmp_path):
    (tmp_path / "trainer_state.json").write_text('{"log_history": [[[[')
    result = doctor([tmp_path])
    assert "not_recognised" not in result.extra
    assert result.reports[0].verdict.value == "NOT-CHECKED"


def test_a_dataset_csv_is_sniffed_by_the_one_header_reader(tmp_path):
    """The dataset inspector reads a CSV header with delimited.header, as the dataset reader
    does: a quoted name holding more semicolons than the line has commas does not make ';' the
    delimiter (splitting on the commonest character did, and missed the 'text' column)."""
    from trainlint.delimited import header
    from trainlint.inspectors.datasets import DatasetInspector

    p = tmp_path / "train.csv"
    p.write_text('"source; raw; v2; final",text,label\n"a;b",hello there,1\n"c",bye now,0\n')
    head = p.read_bytes()
    assert header(head.decode(), ",\t;|") == (["source; raw; v2; final", "text", "label"], ",")
    assert DatasetInspector().sniff(p, head)
    p.write_text("step,loss,text\n1,2.0,a\n")  # a metric column: still not a dataset
    assert not DatasetInspector().sniff(p, p.read_bytes())


def _package_folder(root: Path) -> Path:
    """Installed packages as a scan finds them: *.dist-info / *.egg-info metadata whose README
    shows a traceback, an example script, a __pycache__ and a virtual environment."""
    readme = (
        "Metadata-Version: 2.1\nName: widgets\nVersion: 1.0\n\nUsage\n-----\n\n>>> w.append(1)\n"
        'Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
        "RuntimeError: Cannot modify a frozen widget.\n"
    )
    (root / "gadgets.egg-info").mkdir(parents=True)  # a development install beside the sources
    (root / "gadgets.egg-info" / "PKG-INFO").write_text(readme)
    (root / "installed" / "widgets-1.0.dist-info").mkdir(parents=True)  # a site-packages folder
    (root / "installed" / "widgets-1.0.dist-info" / "METADATA").write_text(readme)
    (root / "installed" / "widgets" / "tests").mkdir(parents=True)
    (root / "installed" / "widgets" / "tests" / "crash.log").write_text(readme)
    (root / "widgets").mkdir()
    rows = "\n".join(json.dumps({"text": f"example {i}", "label": i % 2}) for i in range(30))
    (root / "widgets" / "example.py").write_text(f'DATA = """\n{rows}\n"""\n')
    (root / "widgets" / "__pycache__").mkdir()
    (root / "widgets" / "__pycache__" / "train.log").write_text(readme)
    (root / "env" / "lib").mkdir(parents=True)
    (root / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "env" / "lib" / "METADATA").write_text(readme)
    return root


def test_installed_packages_and_sources_are_skipped_and_counted_never_judged(tmp_path):
    """Issue 33: a folder of installed packages holds no runs: nothing FAILs or WARNs, and what
    was left alone is counted; a file named explicitly is still judged as before."""
    root = _package_folder(tmp_path / "pkgs")
    result = doctor(root)
    assert not [(r.source, r.verdict.value) for r in result.reports if r.verdict.value in ("FAIL", "WARN")]
    skipped = result.extra["skipped"]
    counts = {why.split(" (")[0].split(",")[0]: seen["count"] for why, seen in skipped.items()}
    assert counts == {
        "installed-package metadata": 1,
        "a source file": 1,
        "version control": 1,
        "a virtual environment": 1,
        "a folder of installed Python packages": 1,
    }, skipped
    named = doctor(root / "gadgets.egg-info" / "PKG-INFO")  # named explicitly: judged as before
    assert named.reports and "skipped" not in named.extra


_TOKENIZER = {
    "version": "1.0",
    "added_tokens": [{"id": 3, "content": "<pad>", "special": True}],
    "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "<pad>": 3}, "merges": ["a b"]},
}


def test_a_tokenizer_json_named_on_doctor_points_to_its_folder(tmp_path):
    """A tokenizer.json named explicitly had been read as JSON lines: its vocabulary became
    metrics and the answer was 'no loss series found'. Its folder is what is judged."""
    (tmp_path / "tokenizer.json").write_text(json.dumps(_TOKENIZER))
    [rep] = doctor([tmp_path / "tokenizer.json"]).reports
    assert rep.kind == "tokenizer" and rep.verdict == "NOT-CHECKED"
    assert (
        rep.unjudged
        == f"a tokenizer file, not a training log: judge the folder that holds it (trainlint tokenizer {tmp_path})"
    )
    [folder] = doctor([tmp_path]).reports  # the folder: the tokenizer judged, the file not again
    assert folder.kind == "tokenizer" and folder.unjudged is None


def test_the_same_json_under_another_name_is_not_taken_for_a_tokenizer(tmp_path):
    (tmp_path / "metrics.json").write_text(json.dumps(_TOKENIZER))
    [rep] = doctor([tmp_path / "metrics.json"]).reports
    assert rep.kind == "log"
