"""Kinds a blind sample of outside logs (probe round 25b: the repositories find_files lists for
``training_logs.txt``, then ``logs/log.txt``, labelled before trainlint read them) found read
wrong: a launcher's log of a run the OOM killer stopped before its first step, saved as a ``.txt``,
whose only crash signature is the shell's report of the killed child (bash's ``./run.sh: line 35:
14014 Killed   python train.py ...``). Only a traceback, CUDA's out-of-memory and Slurm's time limit
claimed a ``.txt`` as a console log, so the file had been left unrecognised (NOT-CHECKED, "not an
input trainlint recognises") where the run crashed; and a retrieval model's epochs, each followed by
its ranking metrics and ``✓ New best MRR=.. — checkpoint saved`` (the best value, then the save),
where that announcement had read as a metric of its own, ``New_best_MRR``, and as part of the
ranking metrics' records. Each fixture is made up in the shape of the real file (repository, path
and commit recorded with it; no copied lines) and asserts what is read: the crash event, its line,
that no loss was read and the verdict; the series' names, steps, first and last values, and which
is the loss."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import doctor, read_run


def _setup_lines() -> list[str]:
    """A QLoRA script's own logger lines up to the dataset's tokenisation (timestamps and all)."""
    steps = ["Using device: cuda", "Loading tokenizer", "Loading model", "Preparing model for k-bit training"]
    steps += ["Applying LoRA (r=8, alpha=16)", "Loaded 120 samples", "Tokenizing dataset..."]
    return [f"2025-03-02 09:14:{10 + i:02d},{100 + i:03d} - __main__ - INFO - {s}" for i, s in enumerate(steps)]


def _launcher_log(kill_report: str) -> list[str]:
    """0xFFFA/superapp training_logs.txt @01f1f6737e0b45e0007db88bae15fea943ed4774: a shell script
    that sets thread limits, runs the trainer and echoes a done line whatever happened; the trainer
    is killed while tokenising, so bash reports the child killed, then the script goes on."""
    head = ["Starting training with memory limits...", "   - OMP threads: 4", "   - max processes: 512", ""]
    return [*head, *_setup_lines(), kill_report, "Training finished!"]


KILL_REPORTS = [
    "./train_with_limits.sh: line 27: 20931 Killed                  python train.py --epochs 2 --lr 1e-4",
    "bash: line 1:  8812 Killed      python3 finetune.py --config cfg.yaml",
]


@pytest.mark.parametrize("kill_report", KILL_REPORTS)
def test_the_shell_s_killed_report_claims_a_txt_log_as_a_crash(tmp_path, kill_report):
    path = tmp_path / "training_logs.txt"
    path.write_text("\n".join(_launcher_log(kill_report)) + "\n", encoding="utf-8")
    run = read_run(path)
    assert run.format == "console" and "loss" not in run.roles
    [ev] = [e for e in run.events if e["type"] == "crash"]
    assert ev["signature"] == "killed" and ev["line"] == 12
    rep = doctor(path).reports[0]
    assert rep.verdict.value == "FAIL"
    assert [f.code for f in rep.findings] == ["TL081"]


def test_a_word_list_holding_killed_alone_stays_unclaimed(tmp_path):
    """The shell's report names a line and a process id; a bare ``Killed`` (a word list, a label
    file) claims no .txt, while the report does."""
    words = tmp_path / "labels.txt"
    words.write_text("Injured\nKilled\nMissing\n", encoding="utf-8")
    assert doctor(words).reports[0].verdict.value == "NOT-CHECKED"
    report = tmp_path / "training_logs.txt"
    report.write_text("\n".join(_launcher_log(KILL_REPORTS[0])) + "\n", encoding="utf-8")
    assert doctor(report).reports[0].verdict.value == "FAIL"


EPOCHS = 14


def _mrr(e: int) -> float:
    """The validation MRR after epoch ``e``: rising, with a dip every fourth epoch."""
    return round(0.12 + 0.02 * e - (0.015 if e % 4 == 0 else 0.0), 4)


def _retrieval_log() -> list[str]:
    """Ba-aH/HGNN training_logs.txt @704b1016b1e131a9f133c5083c6550e9c8abdebb: a two-tower retrieval
    model; each epoch prints its training loss (the embedding pass announced on the same line), the
    ranking metrics on the next line, then either the new best with the checkpoint saved or the
    early-stopping patience."""
    lines = ["Query tower params: 2,104,300", "", f"Training for {EPOCHS} epochs", ""]
    best = 0.0
    for e in range(1, EPOCHS + 1):
        mrr = _mrr(e)
        lines.append(f"Epoch {e:>3} | train_loss={2.5 / e:.4f}  Encoding the corpus ...")
        lines.append(f" | R@1={mrr - 0.05:.4f} R@10={mrr + 0.1:.4f} MRR={mrr:.4f} (n=2,048)")
        if mrr > best:
            best = mrr
            lines.append(f"  \u2713 New best MRR={mrr:.4f} \u2014 checkpoint saved")
        else:
            lines.append("  (no improvement, patience 1/4)")
    return [*lines, "", f"Best val MRR={best:.4f}"]


def test_a_new_best_value_then_its_checkpoint_saved_is_no_metric(tmp_path):
    run = _read(tmp_path, _retrieval_log(), "training_logs.txt")
    assert run.roles["loss"] == "train_loss"
    assert _series(run, "train_loss") == (EPOCHS, 1.0, float(EPOCHS), 2.5, round(2.5 / EPOCHS, 4))
    assert _series(run, "MRR") == (EPOCHS, 1.0, float(EPOCHS), _mrr(1), _mrr(EPOCHS))
    assert not [name for name in run.series if "New_best" in name or "new_best" in name]
    assert any("announcing a saved model" in note for note in run.notes)
