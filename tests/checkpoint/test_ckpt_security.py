"""Security: what loading would import, judged without loading. The canary test
plants checkpoints whose loading creates a file and proves inspecting never does."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from trainlint.inspectors.checkpoint_judge import judge_path

torch = pytest.importorskip("torch")


class Evil:
    def __init__(self, canary: Path) -> None:
        self.canary = canary

    def __reduce__(self):
        return (os.system, (f"touch {self.canary}",))


class ExecEvil:
    def __init__(self, canary: Path) -> None:
        self.canary = canary

    def __reduce__(self):
        return (exec, (f"open({str(self.canary)!r}, 'w').close()",))


class Plain:  # a user class: not on any list
    def __init__(self) -> None:
        self.x = 1


def plant(folder: Path, canary: Path) -> dict[str, Path]:
    folder.mkdir(exist_ok=True)
    files = {
        "zip": folder / "evil.pt",
        "legacy": folder / "evil_legacy.pth",
        "nested": folder / "last.ckpt",
        "pickle": folder / "evil.pkl",
    }
    torch.save({"w": torch.ones(2), "x": Evil(canary)}, files["zip"])
    torch.save({"w": torch.ones(2), "x": Evil(canary)}, files["legacy"], _use_new_zipfile_serialization=False)
    torch.save(
        {
            "state_dict": {"l.weight": torch.ones(2, 2)},
            "hyper_parameters": {"lr": 0.1, "callbacks": [{"cb": ExecEvil(canary)}]},
        },
        files["nested"],
    )
    with open(files["pickle"], "wb") as fh:
        pickle.dump({"x": ExecEvil(canary)}, fh, protocol=4)
    return files


def test_canary_is_never_created(tmp_path, cli):
    canary = tmp_path / "CANARY"
    files = plant(tmp_path / "ckpts", canary)
    for path in files.values():
        rep = judge_path(path)
        assert not canary.exists(), f"inspecting {path.name} executed it"
        f = next(f for f in rep.findings if f.code == "TL340")
        assert f.severity.value == "FAIL" and f.category == "security"
    for args in (("ckpt", *files.values()), ("doctor", tmp_path / "ckpts")):
        r = cli(*args, "--format", "json")
        assert r.code == 1 and not canary.exists()
    # the test can fail: loading for real does create the canary
    code = f"import torch; torch.load({str(files['zip'])!r}, weights_only=False)"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    assert canary.exists()


def test_dangerous_global_names_the_exact_global_and_byte_offset(tmp_path):
    files = plant(tmp_path / "c", tmp_path / "never")
    for kind, expected in (
        ("zip", "posix.system"),
        ("legacy", "posix.system"),
        ("nested", "builtins.exec"),
        ("pickle", "builtins.exec"),
    ):
        rep = judge_path(files[kind])
        f = next(f for f in rep.findings if f.code == "TL340")
        assert f.evidence["global"] == expected, kind
        data = files[kind].read_bytes()
        op = data[f.evidence["offset"] : f.evidence["offset"] + 1]
        assert op in (b"c", b"\x93"), (kind, op)  # GLOBAL or STACK_GLOBAL opcode at that byte of the file
        assert f"byte {f.evidence['offset']}" in f.message
        if op == b"c":
            module, name = data[f.evidence["offset"] + 1 :].split(b"\n")[:2]  # protocol 2 may spell __builtin__
            assert name.decode() == expected.split(".")[1] and module in (b"posix", b"builtins", b"__builtin__")


def test_clean_checkpoint_stands_down(tmp_path):
    p = tmp_path / "ok.pt"
    torch.save({"w": torch.nn.Parameter(torch.ones(2, 2)), "b": torch.zeros(2, dtype=torch.bfloat16)}, p)
    rep = judge_path(p)
    assert {"TL340", "TL341", "TL342"} <= set(rep.checks.stood_down)
    assert not rep.findings


def test_unknown_and_framework_globals(tmp_path):
    p = tmp_path / "mixed.pt"
    torch.save({"w": torch.ones(2), "obj": Plain(), "rng": np.random.get_state()}, p)
    rep = judge_path(p)
    unknown = next(f for f in rep.findings if f.code == "TL341")
    assert unknown.severity.value == "FAIL"
    assert any(g.endswith(".Plain") for g in unknown.evidence["distinct"])
    fw = next(f for f in rep.findings if f.code == "TL342")
    assert fw.severity.value == "NOTE" and any(g.startswith("numpy") for g in fw.evidence["distinct"])
    assert "TL340" in rep.checks.stood_down


def test_allowlist_is_torchs_own():
    import torch._weights_only_unpickler as wou

    from trainlint.checkpoint.security import ALLOWED, allowlist, classify

    names, version = allowlist()
    assert version == torch.__version__.split("+")[0]
    assert names == frozenset(wou._get_allowed_globals())
    assert classify("torch._utils", "_rebuild_tensor_v2") == ALLOWED
    assert classify("subprocess", "Popen") == "dangerous" and classify("runpy", "run_path") == "dangerous"
    assert classify("multiprocessing.util", "spawnv_passfds") == "dangerous"


def test_trainlint_never_imports_torch(tmp_path):
    p = tmp_path / "m.pt"
    torch.save({"w": torch.ones(3)}, p)
    code = (
        "import sys; from trainlint.inspectors.checkpoint_judge import judge_path; judge_path(sys.argv[1]);"
        "from trainlint.api import doctor; doctor([sys.argv[1]]);"
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    subprocess.run([sys.executable, "-c", code, str(p)], check=True, env=env)


@pytest.mark.parametrize("proto", [0, 1])
def test_protocol_0_and_1_pickles_are_caught(tmp_path, cli, proto):
    canary = tmp_path / "CANARY"
    p = tmp_path / "model.bin"
    with open(p, "wb") as fh:
        pickle.dump({"x": Evil(canary)}, fh, protocol=proto)
    r = cli("doctor", tmp_path, "--format", "json")
    rep = r.json()["reports"][0]
    assert rep["format"] == "pickle" and r.code == 1 and not canary.exists()
    f = next(f for f in rep["findings"] if f["code"] == "TL340")
    assert f["evidence"]["global"] == "posix.system"
    text = tmp_path / "notes.bin"
    text.write_text("Invalid text that is not a pickle\n")
    from trainlint.checkpoint import content_kind

    assert content_kind(text.read_bytes()) is None


def test_a_second_or_duplicate_data_pkl_is_also_checked(tmp_path):
    import zipfile

    good, bad = tmp_path / "good.pt", tmp_path / "bad.pt"
    torch.save({"w": torch.ones(2)}, good)
    torch.save({"x": Evil(tmp_path / "never")}, bad)
    with zipfile.ZipFile(bad) as z:
        evil_pkl = z.read("bad/data.pkl")
    mixed = tmp_path / "good2.pt"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(mixed, "w") as dst:
        for item in src.infolist():
            dst.writestr(item.filename.replace("good/", "good2/"), src.read(item))
        with pytest.warns(UserWarning):
            dst.writestr("good2/data.pkl", evil_pkl)  # a duplicate record
        dst.writestr("other/data.pkl", evil_pkl)
    rep = judge_path(mixed)
    hits = [f for f in rep.findings if f.code == "TL340"]
    assert len(hits) == 2 and {f.evidence["global"] for f in hits} == {"posix.system"}
    assert any(
        "more than once" in p["problem"] for f in rep.findings if f.code == "TL304" for p in f.evidence["problems"]
    )
    assert {t.name for t in __import__("trainlint.checkpoint", fromlist=["x"]).inspect_file(mixed).tensors} == {"w"}


def test_deflated_data_pkl_is_still_walked(tmp_path):
    import zipfile

    bad = tmp_path / "bad.pt"
    torch.save({"w": torch.ones(2), "x": Evil(tmp_path / "never")}, bad)
    deflated = tmp_path / "deflated.pt"
    with zipfile.ZipFile(bad) as src, zipfile.ZipFile(deflated, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            dst.writestr(item.filename.replace("bad/", "deflated/"), src.read(item))
    rep = judge_path(deflated)
    f = next(f for f in rep.findings if f.code == "TL340")
    assert f.evidence["global"] == "posix.system" and f.evidence["offset"] is None
    assert "uncompressed pickle" in f.message and "(deflated)" in f.message
    from trainlint.checkpoint import inspect_file

    assert [t.name for t in inspect_file(deflated).tensors] == ["w"]
