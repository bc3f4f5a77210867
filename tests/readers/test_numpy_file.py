"""Loss curves saved as NumPy arrays: np.save's .npy, np.savez's .npz, and a folder of
train_loss.npy + val_loss.npy. The NPY header is parsed by trainlint, never by np.load."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import numpy.lib.format as npformat
import pytest

from trainlint.api import doctor
from trainlint.readers import ReadError, numpy_file, read_run, sniff


def _curve(n=200):
    return np.exp(-np.arange(n) / 50) + 0.05


def test_np_save_of_a_float32_loss_list_is_a_series_named_by_the_file(tmp_path):
    p = tmp_path / "train_loss.npy"
    np.save(p, _curve().astype(np.float32))
    assert sniff(p).name == "numpy"
    run = read_run(p)
    s = run.series["train_loss"]
    assert len(s) == 200 and s.steps[0] == 0 and s.steps[-1] == 199
    assert s.values[0] == pytest.approx(1.05, rel=1e-6) and s.values[-1] == pytest.approx(_curve()[-1], rel=1e-6)
    assert run.format == "numpy" and not run.damage


def test_big_endian_integers_and_header_versions_2_and_3(tmp_path):
    values = np.arange(100, 0, -1).astype(">i4")
    for version in ((2, 0), (3, 0)):
        p = tmp_path / f"loss_v{version[0]}.npy"
        with open(p, "wb") as fh:
            npformat.write_array(fh, values, version=version)
        s = read_run(p).series[p.name[:-4]]
        assert list(s.values[:3]) == [100, 99, 98] and s.values[-1] == 1 and s.steps[-1] == 99


def test_np_savez_history_reads_each_member_by_its_name(tmp_path):
    p = tmp_path / "history.npz"
    np.savez(p, loss=_curve(50), val_loss=_curve(50) + 0.1, lr=np.full(50, 1e-3))
    assert sniff(p).name == "numpy"
    run = read_run(p)
    assert set(run.series) == {"loss", "val_loss", "lr"}
    assert run.series["val_loss"].values[0] == pytest.approx(1.15) and run.series["loss"].steps[-1] == 49
    report = doctor(p).reports[0]
    assert report.unjudged is None and report.format == "numpy"


def test_np_savez_compressed_skips_an_image_member_and_says_so(tmp_path):
    p = tmp_path / "metrics.npz"
    np.savez_compressed(p, train_loss=np.linspace(3, 1, 300), images=np.zeros((10, 8, 8)))
    run = read_run(p)
    assert list(run.series) == ["train_loss"] and run.series["train_loss"].values[-1] == 1
    assert any("'images' is an array of shape (10, 8, 8)" in n for n in run.notes)


def test_a_step_column_and_a_structured_array_give_their_steps(tmp_path):
    pair = tmp_path / "loss.npy"
    np.save(pair, np.asfortranarray(np.c_[np.arange(0, 1000, 10), _curve(100)]))
    s = read_run(pair).series["loss"]
    assert s.steps[1] == 10 and s.steps[-1] == 990 and s.values[-1] == pytest.approx(_curve(100)[-1])
    rec = np.zeros(50, dtype=[("epoch", "<i4"), ("loss", ">f4"), ("val_loss", "<f8")])
    rec["epoch"], rec["loss"], rec["val_loss"] = np.arange(1, 51), np.linspace(2, 1, 50), np.linspace(2.1, 1.2, 50)
    np.save(tmp_path / "history.npy", rec)
    run = read_run(tmp_path / "history.npy")
    assert set(run.series) == {"loss", "val_loss"} and run.series["loss"].steps[0] == 1
    assert run.series["val_loss"].values[-1] == pytest.approx(1.2)


def test_unnamed_columns_and_names_that_say_no_loss_are_not_read(tmp_path):
    np.save(tmp_path / "loss.npy", np.c_[np.arange(100), _curve(100), _curve(100)])
    with pytest.raises(ReadError, match=r"shape \(100, 3\) and nothing names its columns"):
        read_run(tmp_path / "loss.npy")
    np.save(tmp_path / "loss.npy", np.c_[np.arange(100, 0, -1), _curve(100)].astype(np.uint16))  # falls: no step
    with pytest.raises(ReadError, match=r"shape \(100, 2\) and nothing names its columns"):
        read_run(tmp_path / "loss.npy")
    np.save(tmp_path / "x.npy", _curve())
    with pytest.raises(ReadError, match="'x' names no loss"):
        read_run(tmp_path / "x.npy")
    np.save(tmp_path / "embeddings.npy", np.zeros((5, 16)))
    np.savez(tmp_path / "arrays.npz", a=np.arange(3.0))
    with pytest.raises(ReadError, match="names no loss"):
        read_run(tmp_path / "arrays.npz")
    report = doctor(tmp_path / "x.npy").reports[0]
    assert report.unjudged and "names no loss" in report.unjudged and "\n" not in report.unjudged
    assert not [r for r in doctor(tmp_path).reports if "embeddings" in r.source or "x.npy" in r.source]


def test_an_object_array_is_refused_without_unpickling(tmp_path, monkeypatch):
    p = tmp_path / "train_loss.npy"
    np.save(p, np.array([1.0, "a", None], dtype=object), allow_pickle=True)
    monkeypatch.setattr(np, "load", lambda *a, **k: pytest.fail("np.load called"))
    with pytest.raises(ReadError, match="object array"):
        read_run(p)


def test_a_truncated_npy_is_read_as_far_as_whole_values_with_damage(tmp_path):
    p = tmp_path / "train_loss.npy"
    np.save(p, _curve(100))
    p.write_bytes(p.read_bytes()[:-13])  # the last value and 5 bytes of the one before
    run = read_run(p)
    assert len(run.series["train_loss"]) == 98 and run.series["train_loss"].values[-1] == _curve(100)[97]
    assert run.damage[0].kind == "truncated" and "98 of 100" in run.damage[0].message


def test_a_2gb_shape_header_is_refused_before_anything_is_allocated(tmp_path):
    buf = io.BytesIO()
    npformat.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": (300_000_000,)})
    p = tmp_path / "train_loss.npy"
    p.write_bytes(buf.getvalue() + b"\0" * 64)
    with pytest.raises(ReadError, match=r"\(2,400,000,000 bytes of data\), past the 256 MiB"):
        read_run(p)
    p.write_bytes(b"\x93NUMPY\x01\x00\x10\x00{'descr': 'O'}   \n")
    with pytest.raises(ReadError, match="lacks descr"):
        read_run(p)


def test_an_npz_member_inflating_past_the_bound_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(numpy_file, "MAX_BYTES", 1 << 20)
    p = tmp_path / "history.npz"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as zf:
        member = io.BytesIO()
        np.save(member, np.zeros(1 << 20))  # 8 MiB of zeros, a few kB deflated
        zf.writestr("loss.npy", member.getvalue())
    assert p.stat().st_size < 100_000
    with pytest.raises(ReadError, match="inflate past the 1 MiB"):
        read_run(p)


def test_a_folder_of_train_and_val_loss_arrays_is_one_run(tmp_path):
    np.save(tmp_path / "train_loss.npy", _curve(30))
    np.save(tmp_path / "val_loss.npy", _curve(30) + 0.2)
    run = read_run(tmp_path)
    assert set(run.series) == {"train_loss", "val_loss"} and run.meta["run_group"] == "numpy-arrays"
    assert run.series["val_loss"].values[0] == pytest.approx(1.25)
    reports = doctor(tmp_path).reports
    assert [r.source for r in reports] == [str(tmp_path)]
    assert reports[0].summary["roles"] == {"loss": "train_loss", "eval_loss": "val_loss"}


def test_two_runs_losses_side_by_side_are_not_merged(tmp_path):
    np.save(tmp_path / "loss.npy", _curve(30))
    np.save(tmp_path / "train_loss.npy", _curve(30) + 1)
    assert sorted(r.source for r in doctor(tmp_path).reports) == [
        str(tmp_path / "loss.npy"),
        str(tmp_path / "train_loss.npy"),
    ]
