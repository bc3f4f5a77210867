"""Training-configuration checks: real training_args.bin from transformers, JSON and YAML configs."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from trainlint.environment import GIB
from trainlint.environment.facts import Request, Resources, Subject
from trainlint.environment.trainconfig import ConfigReadError, read_config
from trainlint.inspectors.environment import group_report
from trainlint.options import Options

DATA = Path(__file__).parent.parent / "data" / "env"

WRITER = r"""
import os, sys
import torch
from transformers import TrainingArguments
out = sys.argv[1]
cases = {
    "lr_zero": dict(learning_rate=0.0, warmup_steps=10, max_steps=5, report_to="none"),
    "healthy": dict(learning_rate=2e-4, warmup_steps=10, max_steps=300, report_to="none",
                    save_total_limit=2, logging_nan_inf_filter=False),
    "eval_off": dict(do_eval=True, eval_strategy="no", report_to="none", save_strategy="no", max_steps=50),
    "disk": dict(max_steps=1000, save_steps=100, report_to="none"),
}
for name, kw in cases.items():
    d = os.path.join(out, name)
    os.makedirs(d)
    torch.save(TrainingArguments(output_dir=d, use_cpu=True, **kw), os.path.join(d, "training_args.bin"))
legacy = os.path.join(out, "legacy")
os.makedirs(legacy)
torch.save(TrainingArguments(output_dir=legacy, use_cpu=True, learning_rate=0.0),
           os.path.join(legacy, "training_args.bin"), _use_new_zipfile_serialization=False)
"""


@pytest.fixture(scope="module")
def hf_args(tmp_path_factory) -> Path:
    """training_args.bin files written by the real transformers TrainingArguments + torch.save."""
    for mod in ("transformers", "torch", "accelerate"):
        if importlib.util.find_spec(mod) is None:
            pytest.skip(
                f"{mod} is not installed: cannot write a real training_args.bin "
                "(pip install transformers accelerate torch)"
            )
    out = tmp_path_factory.mktemp("hfargs")
    proc = subprocess.run(
        [sys.executable, "-c", WRITER, str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},
        timeout=300,
    )
    if proc.returncode != 0:
        pytest.skip(f"transformers could not write training_args.bin here: {proc.stderr.strip().splitlines()[-1:]}")
    return out


def judge(cfg, resources=None, log_files=None, **req):
    s = Subject(request=Request(**req), config=cfg, resources=resources, log_files=log_files)
    rep = group_report("training-config", cfg.source, s)
    return rep, {f.code: f for f in rep.findings}


@pytest.mark.slow  # writes real training_args.bin with transformers (a heavy import)
def test_real_bin_is_walked_not_unpickled(hf_args):
    cfg = read_config(hf_args / "lr_zero" / "training_args.bin")
    assert cfg.format == "hf-training-args-bin" and cfg.class_name.endswith("TrainingArguments")
    assert cfg.get("learning_rate") == 0 and cfg.get("max_steps") == 5 and cfg.get("warmup_steps") == 10
    assert cfg.get("eval_strategy") == "no"  # an IntervalStrategy enum, read as its value


@pytest.mark.slow  # writes real training_args.bin with transformers (a heavy import)
def test_real_bin_lr_zero_and_warmup(hf_args):
    rep, f = judge(read_config(hf_args / "lr_zero" / "training_args.bin"))
    assert "learning_rate = 0" in f["TL435"].message and f["TL435"].severity.value == "FAIL"
    assert "warm-up of 10 steps (warmup_steps) >= max_steps 5" in f["TL436"].message
    assert f["TL438"].severity.value == "NOTE" and "hide" in f["TL438"].message
    assert rep.verdict.value == "FAIL"


@pytest.mark.slow  # writes real training_args.bin with transformers (a heavy import)
def test_real_bin_healthy_passes(hf_args):
    rep, f = judge(read_config(hf_args / "healthy" / "training_args.bin"), log_files=[])
    assert f == {} and rep.verdict.value == "PASS"
    assert "TL440" in rep.checks.stood_down  # checkpoints carry trainer_state.json


@pytest.mark.slow  # writes real training_args.bin with transformers (a heavy import)
def test_real_bin_eval_never_runs_and_nothing_logged(hf_args):
    _rep, f = judge(read_config(hf_args / "eval_off" / "training_args.bin"), log_files=[])
    assert "do_eval asks for evaluation but eval_strategy = 'no'" in f["TL441"].message
    assert "report_to = [] and no log file found" in f["TL440"].message


@pytest.mark.slow  # writes real training_args.bin with transformers (a heavy import)
def test_real_bin_checkpoints_vs_disk(hf_args):
    cfg = read_config(hf_args / "disk" / "training_args.bin")
    res = Resources(disk_free=20 * GIB, disk_path="/out")
    _rep, f = judge(cfg, res, checkpoint_gb=2)
    msg = f["TL439"].message
    assert "max_steps 1000 / save_steps 100 = 10 checkpoints" in msg and "11 x 2.00 GiB" in msg
    _rep, f = judge(cfg, Resources(disk_free=30 * GIB), checkpoint_gb=2)
    assert "TL439" not in f


class FakeArgs:
    pass


class Boom:
    def __reduce__(self):
        return (os.system, (f"touch {Boom.marker}",))


def test_hostile_training_args_never_executes(tmp_path):
    Boom.marker = tmp_path / "pwned"
    obj = FakeArgs()
    obj.__dict__.update(output_dir="x", learning_rate=0.0, evil=Boom())
    path = tmp_path / "training_args.bin"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("training_args/data.pkl", pickle.dumps(obj, protocol=2))
    path.write_bytes(buf.getvalue())
    cfg = read_config(path)
    assert cfg.get("learning_rate") == 0.0 and not Boom.marker.exists()


def test_unreadable_inputs_give_one_line(tmp_path):
    bad = tmp_path / "training_args.bin"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ConfigReadError):
        read_config(bad)
    (tmp_path / "x.yaml").write_text("- a\n- b\n")
    with pytest.raises(ConfigReadError, match="not a mapping"):
        read_config(tmp_path / "x.yaml")


def test_json_args_eval_steps_beyond_run():
    cfg = read_config(DATA / "training_args.json")
    rep, f = judge(cfg)
    assert "eval_steps 500 > max_steps 100: evaluation never runs" in f["TL441"].message
    assert "TL438" not in f and "TL440" not in f and rep.verdict.value == "WARN"


def test_axolotl_yaml_eval_off_and_static_loss_scale():
    cfg = read_config(DATA / "axolotl_eval_off.yaml")
    _rep, f = judge(cfg)
    assert "val_set_size asks for evaluation but eval_strategy = 'no'" in f["TL441"].message
    assert "loss_scale = 1" in f["TL437"].message  # read from the DeepSpeed JSON it names


def test_lightning_config_pure_fp16_no_logger_long_warmup():
    cfg = read_config(DATA / "lightning_config.yaml")
    assert cfg.format == "lightning-yaml" and cfg.get("workers") == 8
    _rep, f = judge(cfg, log_files=[])
    assert "trainer.precision = '16-true'" in f["TL437"].message
    assert "trainer.logger = False" in f["TL440"].message
    assert "warm-up of 600 steps (model.warmup_steps) >= max_steps 500" in f["TL436"].message


def test_real_lightning_hparams_passes(evidence):
    cfg = read_config(evidence / "fish-speech-lightning" / "hparams.yaml")
    assert cfg.get("learning_rate") == 0.0001 and cfg.path("learning_rate") == "model.optimizer.lr"
    rep, f = judge(cfg)
    assert f == {} and rep.verdict.value == "PASS"
    assert "TL435" in rep.checks.ran and "TL436" in rep.checks.ran


@pytest.mark.slow  # writes real training_args.bin with transformers (a heavy import)
def test_doctor_on_hf_output_folder(hf_args, tmp_path, cli):
    run = tmp_path / "run"
    shutil.copytree(hf_args / "lr_zero", run)
    ck = run / "checkpoint-5"
    ck.mkdir()
    shutil.copy(run / "training_args.bin", ck / "training_args.bin")
    (ck / "trainer_state.json").write_text(
        json.dumps(
            {"global_step": 5, "log_history": [{"step": s, "loss": 2.0, "learning_rate": 0.0} for s in range(1, 6)]}
        )
    )
    r = cli("doctor", run, "--format", "json")
    # the Trainer's output folder is one run (issue 33): training_args.bin's findings fold into its report
    (rep,) = r.json()["reports"]
    assert rep["kind"] == "log" and Path(rep["source"]) == run
    codes = {f["code"] for f in rep["findings"] if f["evidence"].get("part") == "training_args.bin"}
    assert {"TL435", "TL436"} <= codes and rep["verdict"] == "FAIL"
    assert "TL440" in rep["checks"]["stood_down"]  # the checkpoint's trainer_state.json
    assert r.code == 1


@pytest.mark.slow  # writes real training_args.bin with transformers (a heavy import)
def test_env_cli_with_training_args(hf_args, cli):
    r = cli("env", "--training-args", hf_args / "healthy" / "training_args.bin", "--format", "json")
    rep = next(x for x in r.json()["reports"] if x["format"] == "hf-training-args-bin")
    assert rep["verdict"] == "PASS" and rep["summary"]["learning_rate"] == 0.0002
    r = cli("env", "--training-args", hf_args / "nope.bin", "--format", "json")
    rep = r.json()["reports"][-1]
    assert rep["verdict"] == "NOT-CHECKED" and "no such file" in rep["reason"] and r.code == 2


@pytest.mark.slow  # writes real training_args.bin with transformers (a heavy import)
def test_training_args_given_as_output_folder(hf_args):
    cfg = read_config(hf_args / "lr_zero")
    assert Path(cfg.source).name == "training_args.bin" and cfg.get("learning_rate") == 0


def test_folder_without_config_is_one_line(tmp_path):
    with pytest.raises(ConfigReadError, match="no training_args.bin"):
        read_config(tmp_path)


@pytest.mark.slow  # writes real training_args.bin with transformers (a heavy import)
def test_legacy_torch_save_format(hf_args):
    path = hf_args / "legacy" / "training_args.bin"
    assert path.read_bytes()[:2] != b"PK"
    cfg = read_config(path)
    assert cfg.get("learning_rate") == 0.0 and cfg.get("output_dir").endswith("legacy")
    from trainlint.discover import match_file

    assert match_file(path).kind == "training-config"
    assert match_file(hf_args / "healthy" / "training_args.bin").kind == "training-config"


def test_doctor_softens_disk_verdict_for_an_existing_folder(tmp_path, monkeypatch):
    from trainlint.inspectors import training_config as tc

    run = tmp_path / "run"
    (run / "checkpoint-10").mkdir(parents=True)
    (run / "checkpoint-10" / "model.safetensors").write_bytes(b"\0" * 4096)
    args = json.loads((DATA / "training_args.json").read_text())
    args.update(save_strategy="steps", save_steps=10, save_total_limit=3)
    (run / "training_args.json").write_text(json.dumps(args, indent=2))
    import trainlint.environment.probe as probe

    monkeypatch.setattr(probe.shutil, "disk_usage", lambda p: type("U", (), {"free": 1000})())
    rep = tc.TrainingConfigInspector().judge(run / "training_args.json", Options())
    f = {x.code: x for x in rep.findings}
    assert f["TL439"].severity.value == "WARN" and "up to 4 x 4.0 KiB = 16.0 KiB" in f["TL439"].message


@pytest.mark.parametrize(
    "fields,fires,key",
    [
        ({"warmup_steps": 0.5}, False, None),
        ({"warmup_steps": 1.0}, False, None),  # 1 and above is a step count: 1 step of 100
        ({"warmup_steps": 100}, True, "warm-up of 100 steps (warmup_steps)"),
        ({"warmup_ratio": 1.2}, True, "warmup_ratio = 1.2"),
        ({"warmup_steps": 0, "warmup_ratio": 0.0}, False, None),
    ],
)
def test_warmup_ratio_forms(tmp_path, fields, fires, key):
    p = tmp_path / "training_args.json"
    p.write_text(json.dumps({"output_dir": "o", "learning_rate": 1e-4, "max_steps": 100, **fields}))
    rep, f = judge(read_config(p))
    assert ("TL436" in f) is fires
    if fires:
        assert key in f["TL436"].message


@pytest.mark.parametrize(
    "fields,why",
    [
        ({"fp16": True}, "Hugging Face Trainer"),
        ({"trainer": {"precision": "16-mixed"}}, "dynamic gradient scaler"),
    ],
)
def test_fp16_with_a_scaler_stands_down(tmp_path, fields, why):
    p = tmp_path / "training_args.json"
    p.write_text(json.dumps({"output_dir": "o", "learning_rate": 1e-4, **fields}))
    rep, f = judge(read_config(p))
    assert "TL437" not in f and why in rep.checks.stood_down["TL437"]


def test_other_pickles_and_binaries_are_not_training_args(tmp_path):
    state = tmp_path / "pytorch_model.bin"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pickle.dumps({"layer.weight": [0.1, 0.2]}, protocol=2))
    state.write_bytes(buf.getvalue())
    with pytest.raises(ConfigReadError, match="no TrainingArguments-like object"):
        read_config(state)
    noise = tmp_path / "model.safetensors"
    noise.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}      " + bytes(range(256)) * 4)
    with pytest.raises(ConfigReadError, match="not a torch.save file"):
        read_config(noise)


def test_doctor_ignores_empty_lightning_hparams(tmp_path, cli):
    from trainlint.discover import match_file

    (tmp_path / "hparams.yaml").write_text("{}\n")
    assert match_file(tmp_path / "hparams.yaml") is None
    (tmp_path / "hparams.yaml").write_text("hidden: 64\nlr: 0.0\n")
    assert match_file(tmp_path / "hparams.yaml").kind == "training-config"
    r = cli("doctor", tmp_path, "--format", "json")
    assert r.json()["reports"][0]["findings"][0]["code"] == "TL435" and r.code == 1


@pytest.mark.parametrize(
    "fields,kept",
    [
        ({"save_total_limit": 2}, 2),
        ({"save_total_limit": 0}, 10),  # HF: 0 means no limit, so max_steps / save_steps
        ({"save_total_limit": None}, 10),
    ],
)
def test_hf_checkpoint_count(tmp_path, fields, kept):
    p = tmp_path / "training_args.json"
    p.write_text(
        json.dumps(
            {
                "output_dir": "o",
                "learning_rate": 1e-4,
                "max_steps": 1000,
                "save_strategy": "steps",
                "save_steps": 100,
                **fields,
            }
        )
    )
    _rep, f = judge(read_config(p), Resources(disk_free=1 * GIB), checkpoint_gb=1)
    assert f["TL439"].evidence["kept"] == kept


def test_lightning_save_top_k_zero_stands_down(tmp_path):
    p = tmp_path / "config.yaml"
    p.write_text("trainer:\n  max_steps: 100\ncallbacks:\n  ckpt:\n    save_top_k: 0\n")
    rep, _f = judge(read_config(p), Resources(disk_free=1), checkpoint_gb=1)
    assert "no checkpoints are kept" in rep.checks.stood_down["TL439"]


MALICIOUS_ARGS = r"""
import os, sys, types, torch
class Evil:
    def __reduce__(self):
        return (os.system, ("touch " + sys.argv[2],))
class TrainingArguments:
    pass
TrainingArguments.__module__ = "transformers.training_args"
mod = types.ModuleType("transformers.training_args")
mod.TrainingArguments = TrainingArguments
sys.modules["transformers.training_args"] = mod
args = TrainingArguments()
args.learning_rate, args.output_dir, args.hook = 5e-5, "out", Evil()
torch.save(args, sys.argv[1])
"""


def test_doctor_checks_a_training_args_pickle_as_config_and_as_pickle(tmp_path, cli):
    """training_args.bin is a configuration and a pickle: doctor judges both, so a global that
    would run code on loading FAILs (TL340) even though the file also reads as TrainingArguments."""
    import subprocess
    import sys

    pytest.importorskip("torch")
    path, canary = tmp_path / "training_args.bin", tmp_path / "canary"
    subprocess.run([sys.executable, "-c", MALICIOUS_ARGS, str(path), str(canary)], check=True)
    reports = cli("doctor", tmp_path, "--format", "json").json()["reports"]
    assert sorted(r["kind"] for r in reports) == ["checkpoint", "environment"]
    sec = next(r for r in reports if r["kind"] == "checkpoint")
    assert sec["verdict"] == "FAIL" and "TL340" in {f["code"] for f in sec["findings"]}
    assert not canary.exists()


def test_config_numbers_beyond_float_range_are_no_plan(tmp_path):
    """Found by fuzzing the same class of input as a 400-digit model_max_length: integers beyond
    float range (and text that spells infinity) are no number, never an OverflowError."""
    big = "1" + "0" * 400
    path = tmp_path / "training_args.json"
    path.write_text(
        '{"output_dir": "o", "learning_rate": ' + big + ', "max_steps": ' + big + ', "warmup_steps": ' + big + ","
        ' "save_steps": 5, "eval_steps": "inf", "logging_steps": 10}'
    )
    rep, f = judge(read_config(path))
    errors = {c: r for c, r in rep.checks.not_checked.items() if "internal error" in r}
    assert not errors
    assert rep.checks.not_checked["TL435"] == "the learning rate is not a finite number"
    assert not f  # nothing fires on values that are no plan
