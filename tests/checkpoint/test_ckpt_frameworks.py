"""Checkpoints written by the real frameworks: HF save_pretrained / Trainer files,
Lightning, torch.distributed.checkpoint. Slow (framework imports)."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

from trainlint.inspectors.checkpoint_judge import judge_path

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow


def codes(rep):
    return {f.code for f in rep.findings}


def test_hf_save_pretrained_and_bin(tmp_path):
    transformers = pytest.importorskip("transformers")
    cfg = transformers.GPT2Config(n_layer=1, n_head=2, n_embd=8, vocab_size=32, n_positions=16)
    model = transformers.GPT2LMHeadModel(cfg)
    out = tmp_path / "tiny"
    model.save_pretrained(out)
    rep = judge_path(out)
    assert rep.format == "hf-folder" and rep.verdict.value == "PASS", rep.findings
    weights = judge_path(out / "model.safetensors")
    assert weights.summary["tensors"] >= 5 and weights.verdict.value == "PASS"
    bin_path = tmp_path / "pytorch_model.bin"
    torch.save(model.state_dict(), bin_path)
    rep = judge_path(bin_path)
    assert rep.verdict.value == "PASS" and rep.summary["parameters"] == sum(
        v.numel() for v in model.state_dict().values()
    )


def test_hf_training_args_bin_is_a_framework_pickle(tmp_path):
    transformers = pytest.importorskip("transformers")
    args = transformers.TrainingArguments(output_dir=str(tmp_path / "o"), report_to=[])
    p = tmp_path / "training_args.bin"
    torch.save(args, p)
    rep = judge_path(p)
    assert "TL340" not in codes(rep)
    fw = next(f for f in rep.findings if f.code == "TL342")
    assert "transformers.training_args.TrainingArguments" in fw.evidence["distinct"]


def test_lightning_checkpoint(tmp_path):
    L = pytest.importorskip("lightning")

    class Tiny(L.LightningModule):
        def __init__(self, hidden=4):
            super().__init__()
            self.save_hyperparameters()
            self.l = torch.nn.Linear(hidden, 1)

        def training_step(self, batch, i):
            return self.l(batch[0]).pow(2).mean()

        def configure_optimizers(self):
            return torch.optim.Adam(self.parameters(), lr=1e-3)

    data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(8, 4)), batch_size=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer = L.Trainer(
            max_steps=2,
            logger=False,
            enable_progress_bar=False,
            enable_model_summary=False,
            default_root_dir=tmp_path,
            accelerator="cpu",
        )
        trainer.fit(Tiny(), data)
    ckpt = next(tmp_path.rglob("*.ckpt"))
    rep = judge_path(ckpt)
    names = set()
    from trainlint.checkpoint import inspect_file

    names = {t.name for t in inspect_file(ckpt).tensors}
    assert "state_dict.l.weight" in names and any(n.startswith("optimizer_states.0.state") for n in names)
    assert "TL340" not in codes(rep) and "TL310" not in codes(rep)


def test_dcp_folder_complete_then_missing_shard(tmp_path):
    dcp = pytest.importorskip("torch.distributed.checkpoint")
    folder = tmp_path / "dcp"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcp.save({"model": {"w": torch.randn(4, 4), "b": torch.zeros(4)}, "step": 3}, checkpoint_id=str(folder))
    rep = judge_path(folder)
    assert rep.format == "dcp" and "TL320" in rep.checks.stood_down
    assert "TL340" not in codes(rep) and "TL341" not in codes(rep)  # DCP's own metadata classes are expected
    shard = next(folder.glob("*.distcp"))
    data = shard.read_bytes()
    shard.write_bytes(data[: len(data) // 2])
    f = next(f for f in judge_path(folder).findings if f.code == "TL320")
    assert f.evidence["short_files"][0]["bytes"] == len(data) // 2
    shard.unlink()
    f = next(f for f in judge_path(folder).findings if f.code == "TL320")
    assert f.evidence["missing_files"] == [shard.name]
    shutil.rmtree(folder)


def test_real_hf_trainer_checkpoint_passes(tmp_path, cli):
    transformers = pytest.importorskip("transformers")
    cfg = transformers.GPT2Config(n_layer=1, n_head=2, n_embd=8, vocab_size=32, n_positions=16)
    model = transformers.GPT2LMHeadModel(cfg)
    ids = torch.randint(0, 32, (8, 8))
    data = [{"input_ids": r, "labels": r} for r in ids]
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path / "out"),
        max_steps=2,
        save_steps=2,
        per_device_train_batch_size=4,
        report_to=[],
        use_cpu=True,
        logging_steps=1,
        disable_tqdm=True,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        transformers.Trainer(model=model, args=args, train_dataset=data).train()
    ckpt = tmp_path / "out" / "checkpoint-2"
    r = cli("ckpt", ckpt, "--format", "json")  # the folder and every checkpoint file in it
    reports = r.json()["reports"]
    assert {Path(x["source"]).name for x in reports} == {
        "checkpoint-2",
        "model.safetensors",
        "optimizer.pt",
        "scheduler.pt",
        "rng_state.pth",
        "training_args.bin",
    }
    assert {x["verdict"] for x in reports} == {"PASS"}, [(x["source"], x["findings"]) for x in reports]
    folder = next(x for x in reports if x["format"] == "hf-folder")
    assert "TL318" in folder["checks"]["stood_down"]
    notes = [f for x in reports for f in x["findings"] if f["code"] == "TL342"]
    assert notes and all(f["severity"] == "NOTE" for f in notes)  # rng_state / training_args framework classes
    shutil.move(str(ckpt / "optimizer.pt"), str(tmp_path / "optimizer.pt"))
    rep = judge_path(ckpt)
    assert rep.verdict.value == "WARN" and next(f for f in rep.findings if f.code == "TL318").evidence["missing"] == [
        "optimizer"
    ]


def test_real_trainer_final_save_is_not_a_resume_checkpoint(tmp_path, cli):
    transformers = pytest.importorskip("transformers")
    cfg = transformers.GPT2Config(n_layer=1, n_head=2, n_embd=8, vocab_size=32, n_positions=16)
    ids = torch.randint(0, 32, (16, 8))
    data = [{"input_ids": r, "labels": r} for r in ids]
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path / "out"),
        max_steps=4,
        save_steps=2,
        per_device_train_batch_size=4,
        report_to=[],
        use_cpu=True,
        logging_steps=1,
        disable_tqdm=True,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer = transformers.Trainer(model=transformers.GPT2LMHeadModel(cfg), args=args, train_dataset=data)
        trainer.train()
        trainer.save_model()  # weights + config at the top, no optimizer.pt by design
        trainer.save_state()
    out = tmp_path / "out"
    assert (out / "model.safetensors").is_file() and not (out / "optimizer.pt").exists()
    (rep,) = cli("doctor", out, "--format", "json").json()["reports"]
    assert rep["source"] == str(out) and rep["summary"]["checkpoints"]["steps"] == [2, 4]
    assert not [f for f in rep["findings"] if f["code"] == "TL318"] and rep["verdict"] == "PASS", rep["findings"]
