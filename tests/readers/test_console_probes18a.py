"""Shapes found unread or read wrong in a blind sample of outside logs (issue 29, probe round 18a:
the files named ``training.log`` the index lists first, labelled before trainlint read them). Each
fixture is made up in the shape of the real file (repository, path and commit recorded with it; no
copied lines) and asserts the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers.console.general import general
from trainlint.readers.console.text import split_lines


def _final_loss(launch: int, epoch: int) -> float:
    return round(20.0 - 0.1 * epoch + 0.01 * launch, 4)


def _launch(k: int, epochs: int) -> list[str]:
    """One launch of the script: its banner, then ``Epoch   N | Final Loss: X`` and a line of spike
    counts an epoch, each announced by ``Memulai Epoch N...``."""
    out = ["=== Memulai Pelatihan SNN Multithreading (Phase 7) ===", "Memulai Epoch 1..."]
    for e in range(1, epochs + 1):
        out += [
            f"Epoch {e:>3} | Final Loss: {_final_loss(k, e):.4f}",
            f"  -> Spikes Fired: {5000 * e} (0.02%) | True ACs: {640000 * e}",
        ]
        if e < epochs:
            out.append(f"Memulai Epoch {e + 1}...")
    return out


def test_a_launch_stopped_after_its_first_epoch_is_a_restart(tmp_path):
    """Akhyar11/SpikingTranslation training.log @47f2cd32: launches appended to one file, some
    stopped after their first epoch, so ``Epoch   1 | Final Loss: ..`` follows itself. The repeated
    count had made the epochs unusable (every record a step of its own, in the order written:
    launches run together); the first count printed twice in a row is a restart, like a count that
    falls back, and the next launch's record at that epoch is kept."""
    lines = _launch(0, 1) + _launch(1, 5) + _launch(2, 1) + _launch(3, 20)
    path = tmp_path / "training.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = read_run(path)
    assert run.format == "console/general" and run.roles["loss"] == "Final_Loss"
    assert _series(run, "Final_Loss") == (25, 1.0, 20.0, _final_loss(1, 1), _final_loss(3, 20))
    assert [float(s) for s in run.series["Final_Loss"].steps[:7]] == [1.0, 2.0, 3.0, 4.0, 5.0, 1.0, 2.0]
    assert _series(run, "Spikes_Fired") == (25, 1.0, 20.0, 5000.0, 100000.0)
    cap = general(split_lines("\n".join(lines) + "\n"))
    assert cap is not None
    assert any("2 launch(es) stopped after their first record" in n for n in cap.notes)


def test_a_count_repeated_past_its_start_still_keeps_the_order_written():
    """Only the first count may follow itself: ``Epoch 3`` printed twice in a row (two records of
    one epoch) leaves the epochs unusable as steps, and the records are read in the order written."""
    lines = [f"Epoch {e:>3} | Final Loss: {_final_loss(0, i):.4f}" for i, e in enumerate([1, 2, 3, 3, *range(4, 13)])]
    cap = general(split_lines("\n".join(lines) + "\n"))
    assert cap is not None
    assert cap.cols["Final_Loss"][0] == [float(i) for i in range(1, 14)]
    assert not any("stopped after their first record" in n for n in cap.notes)


def _powershell_log() -> list[str]:
    """A Keras-style epoch line an epoch, then a traceback as PowerShell's ``tee`` writes it: each
    line cut at the console's width (85 columns), at a blank that stays at the line's end."""
    lines = [f"Epoch {e}/12 - loss: {1.0 / e:.4f} - accuracy: {0.5 + e / 30:.4f}" for e in range(1, 13)]
    return [
        *lines,
        "Traceback (most recent call last):",
        '  File "C:\\Users\\me\\Desktop\\Pill_Detection\\train_robust.py", ',
        "line 251, in <module>",
        "    train_mobilenetv3()",
        '  File "C:\\Users\\me\\Desktop\\Pill_Detection\\train_robust.py", ',
        "line 156, in train_mobilenetv3",
        "    history = model.fit(train_ds, validation_data=val_ds, epochs=EPOCHS, callbacks=cb, ",
        "verbose=1)",
        "              ^^^^^^^^^^",
        "  File ",
        '"C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\site-packages\\torch\\cuda.py", ',
        "line 19, in allocate",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total ",
        "capacity of 8.00 GiB of which 0 bytes is free.",
    ]


def test_a_traceback_wrapped_at_the_console_s_width_is_named_by_its_exception(tmp_path):
    """Aashifa05/smart_pill_identification training.log @78c82e76: ``python train.py 2>&1 | tee
    training.log`` in Windows PowerShell (UTF-16, CRLF) wraps every line at the console's width, so a
    frame's ``line 156, in ..`` begins a line of its own. The traceback had ended at the first such
    line, its exception unseen (``Traceback (exception line missing)``); a line after one that ends in
    a blank (Python prints none) goes on with it, and the exception names the crash."""
    path = tmp_path / "training.log"
    path.write_bytes("\r\n".join(_powershell_log()).encode("utf-16") + "\r\n".encode("utf-16-le"))
    run = read_run(path)
    assert _series(run, "loss") == (12, 1.0, 12.0, 1.0, round(1.0 / 12, 4))
    [ev] = [e for e in run.events if e["type"] == "crash"]
    assert ev["signature"] == "cuda-out-of-memory" and ev["line"] == 13
    assert ev["text"].startswith("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
