"""A pickled metrics history (``pickle.dump(history.history, f)``) read from its opcodes, never
unpickled; a checkpoint pickle stays a checkpoint, a pickle that would run code is never run."""

from __future__ import annotations

import os
import pickle
from collections import OrderedDict

import numpy as np
import pytest

from trainlint.api import doctor
from trainlint.picklewalk import walk
from trainlint.readers import ReadError, read_run, sniff
from trainlint.readers.pickle_history import NotHistory, history_of


def _keras_history(n=30):
    """What Keras's History.history holds: lists per metric, val_* beside them (TF 2.x's lists
    hold float32 NumPy scalars for some metrics, Python floats for others)."""
    return {
        "loss": [float(x) for x in np.linspace(2.0, 1.0, n)],
        "accuracy": [float(x) for x in np.linspace(0.1, 0.9, n)],
        "val_loss": list(np.linspace(2.1, 1.3, n).astype(np.float32)),
        "val_accuracy": list(np.linspace(0.1, 0.8, n).astype(np.float32)),
    }


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_a_keras_history_pickle_reads_every_metric_at_its_epoch(tmp_path, protocol):
    p = tmp_path / "history.pkl"
    with open(p, "wb") as fh:
        pickle.dump(_keras_history(), fh, protocol=protocol)
    assert sniff(p).name == "pickle-history"
    run = read_run(p)
    assert set(run.series) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    loss, val = run.series["loss"], run.series["val_loss"]
    assert loss.steps[0] == 0 and loss.steps[-1] == 29 and loss.values[0] == 2.0 and loss.values[-1] == 1.0
    assert val.values[0] == pytest.approx(2.1, rel=1e-6) and val.values[-1] == pytest.approx(1.3, rel=1e-6)


def test_doctor_judges_it_as_a_log_not_as_a_checkpoint_of_no_tensors(tmp_path):
    p = tmp_path / "history.pickle"
    p.write_bytes(pickle.dumps(_keras_history()))
    reports = doctor(p).reports
    assert [(r.kind, r.format) for r in reports] == [("log", "pickle-history")]
    assert reports[0].summary["roles"]["loss"] == "loss" and reports[0].summary["roles"]["eval_loss"] == "val_loss"


def test_own_history_dicts_arrays_and_one_level_of_nesting(tmp_path):
    own = OrderedDict(train={"loss": np.linspace(3, 1, 20)}, val={"loss": np.linspace(3.2, 1.5, 20).astype(">f4")})
    own["epoch"] = 20  # a lone number: not a series
    p = tmp_path / "losses.pkl"
    p.write_bytes(pickle.dumps(own, protocol=2))
    run = read_run(p)
    assert set(run.series) == {"train/loss", "val/loss"}
    assert run.series["train/loss"].values[-1] == 1 and run.series["val/loss"].values[0] == pytest.approx(3.2)


def test_a_lone_pickled_list_of_losses_is_named_by_its_file(tmp_path):
    p = tmp_path / "train_losses.pkl"
    p.write_bytes(pickle.dumps([3.0, 2.5, np.float32(2.25), 2]))
    s = read_run(p).series["train_losses"]
    assert list(s.steps) == [0, 1, 2, 3] and list(s.values) == [3.0, 2.5, 2.25, 2.0]
    unnamed = tmp_path / "weights.pkl"  # a list whose file names no loss: not a history
    unnamed.write_bytes(pickle.dumps([0.1, 0.2]))
    assert sniff(unnamed) is None and [r.kind for r in doctor(unnamed).reports] == ["checkpoint"]


def test_what_is_not_a_history_stays_a_checkpoint(tmp_path):
    state = tmp_path / "model.pkl"
    state.write_bytes(pickle.dumps({"model": {"w": [0.1, 0.2]}, "epoch": 3}))  # no loss named
    images = tmp_path / "loss_images.pkl"
    images.write_bytes(pickle.dumps({"loss": np.zeros((4, 4))}))  # a 2-D array is no series
    for p in (state, images):
        assert sniff(p) is None
        assert [r.kind for r in doctor(p).reports] == ["checkpoint"]
    with pytest.raises(ReadError, match="names no loss"):
        read_run(state, "pickle-history")


class _Evil:
    def __reduce__(self):
        return (os.system, ("touch PWNED",))


def test_a_reduce_of_os_system_is_not_a_history_and_never_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = tmp_path / "history.pkl"
    p.write_bytes(pickle.dumps({"loss": [1.0, 0.5], "callback": _Evil()}))
    assert sniff(p) is None
    with pytest.raises(ReadError, match=r"would import posix\.system \(never run\)") as err:
        read_run(p, "pickle-history")
    assert "\n" not in str(err.value)
    report = doctor(p).reports[0]
    assert report.kind == "checkpoint" and report.verdict.name == "FAIL"  # TL340 names the import
    assert not (tmp_path / "PWNED").exists()


def test_a_cut_short_history_and_a_numpy_object_array_are_not_histories(tmp_path):
    data = pickle.dumps(_keras_history())
    with pytest.raises(NotHistory, match="truncated"):
        history_of(walk(data[: len(data) // 2]))
    with pytest.raises(NotHistory, match="object array"):
        history_of(walk(pickle.dumps({"loss": np.array([1.0, "x"], dtype=object)})))


def _torch_zip(path, obj, storages=0):
    """The layout torch.save writes (a zip: <archive>/data.pkl, version, byteorder, data/<n> per
    tensor storage), built by hand so the test needs no torch."""
    import zipfile

    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("history/data.pkl", pickle.dumps(obj, protocol=2))
        zf.writestr("history/byteorder", "little")
        zf.writestr("history/version", "3\n")
        for n in range(storages):
            zf.writestr(f"history/data/{n}", b"\x00" * 8)
    return path


def test_a_torch_saved_history_without_tensors_is_a_log_not_a_checkpoint(tmp_path):
    # torch.save({'train_loss': losses, 'val_loss': ...}, 'history.pt') with .item() values
    doc = {"train_loss": [2.0 / e for e in range(1, 31)], "val_loss": [2.2 / e for e in range(1, 31)]}
    rep = doctor([_torch_zip(tmp_path / "history.pt", doc)]).reports[0]
    assert rep.kind == "log" and rep.format == "pickle-history"
    assert rep.summary["roles"]["loss"] == "train_loss" and rep.summary["roles"]["eval_loss"] == "val_loss"
    run = read_run(tmp_path / "history.pt")
    s = run.series["train_loss"]
    assert (len(s.steps), float(s.steps[-1]), float(s.values[0]), float(s.values[-1])) == (30, 29.0, 2.0, 2.0 / 30)
    lone = read_run(_torch_zip(tmp_path / "train_losses.pt", [2.0 / e for e in range(1, 31)]))
    assert list(lone.series) == ["train_losses"]


def test_a_torch_archive_with_tensor_storage_or_no_loss_stays_a_checkpoint(tmp_path):
    with_storage = _torch_zip(tmp_path / "model.pt", {"loss": [1.0, 0.9, 0.8]}, storages=1)
    config = _torch_zip(tmp_path / "config.pt", {"lr": 0.1, "epochs": 10})
    for path in (with_storage, config):
        assert doctor([path]).reports[0].kind == "checkpoint"


def test_a_torch_saved_history_of_0d_tensors_is_read_from_their_storages(tmp_path):
    # train_losses.append(loss) without .item(): torch.save keeps one storage per 0-d tensor
    torch = pytest.importorskip("torch")
    w = torch.ones(3, requires_grad=True)
    losses = [(w * (2.0 / e)).mean() for e in range(1, 31)]  # carry a grad_fn, as a loss does
    doc = {"train_loss": losses, "val_loss": [torch.tensor(2.2 / e, dtype=torch.float64) for e in range(1, 31)]}
    torch.save(doc, tmp_path / "history.pt")
    rep = doctor([tmp_path / "history.pt"]).reports[0]
    assert rep.kind == "log" and rep.format == "pickle-history"
    assert rep.summary["roles"]["loss"] == "train_loss"
    run = read_run(tmp_path / "history.pt")
    s, v = run.series["train_loss"], run.series["val_loss"]
    assert (len(s.steps), float(s.steps[-1])) == (30, 29.0)
    assert float(s.values[0]) == 2.0 and float(s.values[-1]) == pytest.approx(2.0 / 30, rel=1e-6)
    assert float(v.values[-1]) == 2.2 / 30  # float64 storage: exact
    assert any("0-d tensors" in n for n in run.notes)
    torch.save([torch.tensor(1.0 / e, dtype=torch.bfloat16) for e in range(1, 31)], tmp_path / "train_losses.pt")
    lone = read_run(tmp_path / "train_losses.pt").series["train_losses"]
    assert float(lone.values[0]) == 1.0 and float(lone.values[-1]) == pytest.approx(1.0 / 30, rel=1e-2)


def test_a_checkpoint_with_real_tensors_beside_0d_losses_stays_a_checkpoint(tmp_path):
    torch = pytest.importorskip("torch")
    losses = [torch.tensor(1.0 / e) for e in range(1, 31)]
    torch.save({"model": {"w": torch.ones(4, 4)}, "train_loss": losses}, tmp_path / "ckpt.pt")
    torch.save({"train_loss": losses + [torch.ones(2)]}, tmp_path / "mixed.pt")
    torch.save({"epoch": 3, "loss": torch.tensor(0.5)}, tmp_path / "last.pt")  # no list names a loss
    for name in ("ckpt.pt", "mixed.pt", "last.pt"):
        assert doctor([tmp_path / name]).reports[0].kind == "checkpoint", name
