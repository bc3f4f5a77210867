"""safetensors files, sharded indexes, HF checkpoint folders and DeepSpeed folders."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from trainlint.checkpoint import inspect_file
from trainlint.inspectors.checkpoint_judge import judge_path

torch = pytest.importorskip("torch")
st = pytest.importorskip("safetensors.torch")


def finding(report, code):
    return next(f for f in report.findings if f.code == code)


def raw_safetensors(path: Path, header: dict, data: bytes, pad_to: int | None = None) -> Path:
    head = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(head)) + head + data)
    return path


def test_real_safetensors_values(tmp_path):
    w = torch.randn(8, 8)
    w[3, 3] = float("inf")
    p = tmp_path / "model.safetensors"
    st.save_file({"a.weight": w, "b.weight": torch.randn(4, 4).to(torch.bfloat16), "z.weight": torch.zeros(4, 4)}, p)
    insp = inspect_file(p)
    assert insp.format == "safetensors" and len(insp.tensors) == 3
    t = {x.name: x for x in insp.tensors}
    assert t["b.weight"].dtype == "bfloat16" and t["b.weight"].shape == (4, 4)
    rep = judge_path(p)
    assert finding(rep, "TL310").evidence["tensors"] == [
        {"name": "a.weight", "dtype": "float32", "nan": 0, "inf": 1, "numel": 64}
    ]
    assert finding(rep, "TL311").evidence["tensors"][0]["name"] == "z.weight"
    assert {"TL313", "TL314", "TL315"} <= set(rep.checks.stood_down)
    assert "TL340" in rep.checks.not_checked  # no pickle in a safetensors file


def test_safetensors_header_problems(tmp_path):
    bad_json = tmp_path / "a.safetensors"
    bad_json.write_bytes(struct.pack("<Q", 5) + b"{nope" + b"\0" * 8)
    assert "not valid JSON" in finding(judge_path(bad_json), "TL313").message
    too_long = tmp_path / "b.safetensors"
    too_long.write_bytes(struct.pack("<Q", 4000) + b'{"x": 1}')
    assert "runs past the end" in finding(judge_path(too_long), "TL313").message
    dup = tmp_path / "c.safetensors"
    head = (
        b'{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
    )
    dup.write_bytes(struct.pack("<Q", len(head)) + head + b"\0" * 4)
    assert "duplicate key 'w'" in finding(judge_path(dup), "TL313").message
    odd = raw_safetensors(
        tmp_path / "d.safetensors", {"w": {"dtype": "F33", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4
    )
    assert "unknown dtype 'F33'" in finding(judge_path(odd), "TL313").message


def test_json_text_whose_ninth_byte_opens_an_object_is_no_safetensors_file():
    from trainlint.checkpoint.kinds import content_kind

    # pandas' DataFrame.to_json(): {"loss":{"0":2.5,..}}: its first 8 bytes read as an absurd length
    assert content_kind(b'{"loss":{"0":2.5,"1":2.4,"2":2.3}}') is None
    # a safetensors file with a corrupt (absurd) header length is still one
    assert content_kind(b"\xff" * 8 + b'{"w": {"dtype": "F32"}}') == "safetensors"


def test_safetensors_layout_and_trailing(tmp_path):
    overlap = raw_safetensors(
        tmp_path / "o.safetensors",
        {
            "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
            "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]},
        },
        b"\0" * 12,
    )
    f = finding(judge_path(overlap), "TL314")
    assert "b (4..12) overlaps a (ends at 8)" in f.message
    size = raw_safetensors(
        tmp_path / "s.safetensors", {"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8
    )
    assert "needs 12 bytes, offsets give 8" in finding(judge_path(size), "TL314").message
    trailing = raw_safetensors(
        tmp_path / "t.safetensors", {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 20
    )
    f = finding(judge_path(trailing), "TL315")
    assert f.severity.value == "WARN" and f.evidence["trailing"] == 12


def test_truncated_safetensors_salvage(tmp_path):
    p = tmp_path / "m.safetensors"
    st.save_file({f"l{i}": torch.ones(256) for i in range(4)}, p)
    cut = tmp_path / "cut.safetensors"
    cut.write_bytes(p.read_bytes()[:-1500])
    rep = judge_path(cut)
    f = finding(rep, "TL301")
    assert len(f.evidence["lost_tensors"]) == 2 and len(f.evidence["complete_tensors"]) == 2
    assert "TL314" in rep.checks.stood_down  # reported once, as truncation


def _sharded(folder: Path) -> Path:
    folder.mkdir()
    wmap = {}
    for i, keys in enumerate((["a", "b"], ["c"]), start=1):
        name = f"model-{i:05d}-of-00002.safetensors"
        st.save_file({k: torch.ones(2, 2) for k in keys}, folder / name)
        wmap.update({k: name for k in keys})
    idx = folder / "model.safetensors.index.json"
    idx.write_text(json.dumps({"metadata": {"total_size": 48}, "weight_map": wmap}))
    return idx


def test_sharded_index_clean_then_broken(tmp_path):
    idx = _sharded(tmp_path / "m")
    rep = judge_path(idx)
    assert rep.verdict.value == "PASS" and {"TL316", "TL317"} <= set(rep.checks.stood_down)
    (idx.parent / "model-00002-of-00002.safetensors").unlink()
    wmap = json.loads(idx.read_text())
    wmap["weight_map"]["ghost"] = "model-00001-of-00002.safetensors"
    idx.write_text(json.dumps(wmap))
    st.save_file({"a": torch.ones(1)}, idx.parent / "model-00003-of-00003.safetensors")
    rep = judge_path(idx)
    f = finding(rep, "TL316")
    assert f.evidence["missing_shards"] == [{"shard": "model-00002-of-00002.safetensors", "keys": 1}]
    assert f.evidence["missing_keys"] == [{"key": "ghost", "shard": "model-00001-of-00002.safetensors"}]
    assert finding(rep, "TL317").evidence["orphan_shards"] == ["model-00003-of-00003.safetensors"]


def test_duplicate_keys_across_torch_bin_shards(tmp_path):
    folder = tmp_path / "bins"
    folder.mkdir()
    torch.save({"a": torch.ones(2)}, folder / "pytorch_model-00001-of-00002.bin")
    torch.save({"a": torch.ones(2), "b": torch.ones(2)}, folder / "pytorch_model-00002-of-00002.bin")
    idx = folder / "pytorch_model.bin.index.json"
    idx.write_text(
        json.dumps({"weight_map": {"a": "pytorch_model-00001-of-00002.bin", "b": "pytorch_model-00002-of-00002.bin"}})
    )
    rep = judge_path(idx)
    assert finding(rep, "TL316").evidence["duplicate_keys"][0]["key"] == "a"
    assert finding(rep, "TL317").evidence["unindexed_keys"] == [
        {"key": "a", "shard": "pytorch_model-00002-of-00002.bin"}
    ]


def _hf_checkpoint(folder: Path, drop: tuple[str, ...] = ()) -> Path:
    folder.mkdir(parents=True)
    files = {"config.json": "{}", "trainer_state.json": json.dumps({"global_step": 500})}
    for name, text in files.items():
        if name not in drop:
            (folder / name).write_text(text)
    if "weights" not in drop:
        st.save_file({"w": torch.ones(2, 2)}, folder / "model.safetensors")
    for name in ("optimizer.pt", "scheduler.pt", "rng_state.pth"):
        if name not in drop:
            torch.save({"x": torch.ones(1)}, folder / name)
    return folder


def test_hf_checkpoint_folder_resume_needs(tmp_path, cli):
    ok = _hf_checkpoint(tmp_path / "run" / "checkpoint-500")
    assert judge_path(ok).verdict.value == "PASS"
    bad = _hf_checkpoint(tmp_path / "run" / "checkpoint-600", drop=("optimizer.pt", "rng_state.pth"))
    f = finding(judge_path(bad), "TL318")
    assert f.evidence["missing"] == ["optimizer", "rng_state"] and f.step == 600
    assert finding(judge_path(bad), "TL322").evidence == {"folder_step": 600, "global_step": 500}
    assert "TL322" in judge_path(ok).checks.stood_down
    nowt = _hf_checkpoint(tmp_path / "run" / "checkpoint-700", drop=("weights",))
    assert finding(judge_path(nowt), "TL319").severity.value == "FAIL"
    r = cli("doctor", tmp_path / "run", "--format", "json")
    run = next(x for x in r.json()["reports"] if x["kind"] == "log")  # one run, one report
    folders = {p["part"]: p["verdict"] for p in run["summary"]["parts"] if p["format"] == "hf-folder"}
    assert sorted(folders.values()) == ["FAIL", "PASS", "WARN"]
    assert run["summary"]["checkpoints"]["with_findings"] == [600, 700]


def _deepspeed(folder: Path, dp: int, have: list[int]) -> Path:
    folder.mkdir(parents=True)
    torch.save(
        {"module": {"w": torch.ones(2)}, "dp_world_size": dp, "mp_world_size": 1, "ds_version": "0.14"},
        folder / "mp_rank_00_model_states.pt",
    )
    for r in have:
        torch.save(
            {"optimizer_state_dict": {"x": torch.ones(1)}}, folder / f"zero_pp_rank_{r}_mp_rank_00_optim_states.pt"
        )
    (folder.parent / "latest").write_text(folder.name)
    return folder


def test_deepspeed_partitions(tmp_path):
    good = _deepspeed(tmp_path / "a" / "global_step10", 2, [0, 1])
    rep = judge_path(good)
    assert "TL321" in rep.checks.stood_down and rep.format == "deepspeed"
    bad = _deepspeed(tmp_path / "b" / "global_step10", 4, [0, 2])
    f = finding(judge_path(bad), "TL321")
    assert f.evidence["missing_ranks"] == ["dp1/mp0", "dp3/mp0"] and f.evidence["expected"] == 4
    assert "2 of 4 ZeRO partitions" in f.message


def test_trainer_state_alone_is_a_log_not_a_checkpoint(tmp_path, evidence):
    from trainlint.checkpoint.folders import folder_kind

    folder = tmp_path / "checkpoint-100"
    folder.mkdir()
    (folder / "trainer_state.json").write_text(json.dumps({"global_step": 100, "log_history": []}))
    assert folder_kind(folder) is None
    assert folder_kind(evidence / "qwen-qlora-gallery" / "healthy") is None


def test_damaged_deepspeed_model_states_is_reported(tmp_path):
    folder = _deepspeed(tmp_path / "x" / "global_step1", 2, [0, 1])
    f = folder / "mp_rank_00_model_states.pt"
    f.write_bytes(b"PK\x03\x04" + b"\xff" * 200)
    rep = judge_path(folder)
    assert rep.verdict.value == "FAIL"
    assert "mp_rank_00_model_states.pt" in next(x for x in rep.findings if x.code == "TL307").message


def test_final_save_model_output_is_not_a_resume_checkpoint(tmp_path, cli):
    import shutil

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "out"
    shutil.copytree(root / "evidence" / "hf-healthy-s0", out)
    _hf_checkpoint(out / "checkpoint-40")
    (out / "checkpoint-40" / "trainer_state.json").write_text(json.dumps({"global_step": 40}))
    before = cli("doctor", out, "--format", "json").json()["reports"]
    (out / "config.json").write_text("{}")  # trainer.save_model() + save_state(): no optimizer by design
    st.save_file({"w": torch.ones(2, 2)}, out / "model.safetensors")
    after = cli("doctor", out, "--format", "json").json()["reports"]
    assert [r["verdict"] for r in after] == [r["verdict"] for r in before] == ["PASS"]
    assert not [f for r in after for f in r["findings"] if f["code"] == "TL318"]
    rep = judge_path(out)
    assert "not a resume point" in rep.checks.stood_down["TL318"]
    renamed = _hf_checkpoint(tmp_path / "copy" / "best", drop=("rng_state.pth",))  # a copied checkpoint
    assert finding(judge_path(renamed), "TL318").evidence["missing"] == ["rng_state"]


def test_checkpoint_saved_with_save_only_model_is_a_note(tmp_path):
    # save_only_model=True: checkpoint-N holds weights, config and trainer_state.json, and by
    # choice no optimizer.pt, scheduler.pt or rng_state.pth
    only = _hf_checkpoint(tmp_path / "run" / "checkpoint-500", drop=("optimizer.pt", "scheduler.pt", "rng_state.pth"))
    rep = judge_path(only)
    f = finding(rep, "TL318")
    assert f.severity.value == "NOTE" and f.evidence["save_only_model"] is True and "save_only_model" in f.message
    assert f.evidence["missing"] == ["optimizer", "scheduler", "rng_state"] and rep.verdict.value == "PASS"
    # a checkpoint that lost its optimizer and scheduler but kept its RNG state is damage: WARN
    lost = _hf_checkpoint(tmp_path / "run" / "checkpoint-600", drop=("optimizer.pt", "scheduler.pt"))
    f = finding(judge_path(lost), "TL318")
    assert f.severity.value == "WARN" and f.evidence["save_only_model"] is False
