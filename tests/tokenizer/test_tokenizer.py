"""Tokenizer-folder rules on folders built locally with the tokenizers library."""

from __future__ import annotations

import json

import pytest
from _datagen import CHAT_TEMPLATE, CHAT_TEMPLATE_NO_BOS, chat_rows, make_tokenizer, write_jsonl

from trainlint.inspectors.tokenizer_folder import judge_tokenizer

pytest.importorskip("tokenizers")


def fired(report, code):
    found = [f for f in report.findings if f.code == code]
    assert found, f"{code}: {report.checks.stood_down.get(code) or report.checks.not_checked.get(code)}"
    return found[0]


def stood_down(report, code):
    assert code in report.checks.stood_down, report.checks.not_checked.get(code)
    assert not [f for f in report.findings if f.code == code]


def test_healthy_folder_passes(tmp_path):
    r = judge_tokenizer(make_tokenizer(tmp_path / "t", chat_template=CHAT_TEMPLATE_NO_BOS), data_format="chat")
    assert r.verdict.value == "PASS", [f.message for f in r.findings]
    for code in ("TL240", "TL241", "TL242", "TL243", "TL244", "TL245", "TL246", "TL247", "TL248"):
        stood_down(r, code)
    assert r.summary["vocab_size"] == 37


def test_eos_missing(tmp_path):
    r = judge_tokenizer(make_tokenizer(tmp_path / "t", eos=None))
    f = fired(r, "TL240")
    assert f.severity.value == "FAIL" and "tokenizer_config.json" in f.evidence["looked_in"]


def test_eos_not_judged_when_a_file_is_unreadable(tmp_path):
    """A config that does not parse may be where EOS is declared: TL247 FAILs, TL240 cannot say."""
    folder = make_tokenizer(tmp_path / "t", eos=None)
    (folder / "tokenizer_config.json").write_text("{ not json")
    r = judge_tokenizer(folder)
    assert "tokenizer_config.json unreadable" in r.checks.not_checked["TL240"]
    assert not [f for f in r.findings if f.code == "TL240"]
    assert [f for f in r.findings if f.code == "TL247"]


def test_pad_is_eos(tmp_path):
    r = judge_tokenizer(make_tokenizer(tmp_path / "t", pad="</s>"))
    f = fired(r, "TL241")
    assert f.evidence["pad_id"] == 2 and f.evidence["eos_ids"] == [2] and f.severity.value == "WARN"


def test_pad_id_among_generation_eos_ids(tmp_path):
    folder = make_tokenizer(tmp_path / "t", generation={"eos_token_id": [2, 3]})  # 3 is <pad>
    f = fired(judge_tokenizer(folder), "TL241")
    assert f.evidence["pad_id"] == 3 and f.severity.value == "NOTE"  # a second stop id, not the EOS


def test_no_pad_is_not_checked(tmp_path):
    r = judge_tokenizer(make_tokenizer(tmp_path / "t", pad=None))
    assert r.checks.not_checked["TL241"] == "no pad token set"


def test_bos_doubled(tmp_path):
    r = judge_tokenizer(make_tokenizer(tmp_path / "t", chat_template=CHAT_TEMPLATE))
    assert fired(r, "TL242").evidence["bos_token"] == "<s>"
    stood_down(judge_tokenizer(make_tokenizer(tmp_path / "u", chat_template=CHAT_TEMPLATE, add_bos=False)), "TL242")


def test_bos_from_add_bos_token_flag_and_literal(tmp_path):
    folder = make_tokenizer(tmp_path / "t", add_bos=False, chat_template="<s>{{ messages[0]['content'] }}")
    cfg = json.loads((folder / "tokenizer_config.json").read_text())
    cfg["add_bos_token"] = True
    (folder / "tokenizer_config.json").write_text(json.dumps(cfg))
    fired(judge_tokenizer(folder), "TL242")


def test_chat_template_missing_via_data_command(cli, tmp_path):
    folder = make_tokenizer(tmp_path / "t")
    data = write_jsonl(tmp_path / "d.jsonl", chat_rows(5))
    doc = cli("data", data, "--tokenizer", folder, "--format", "json").json()
    tok = next(r for r in doc["reports"] if r["kind"] == "tokenizer")
    assert [f["code"] for f in tok["findings"]] == ["TL243"]
    text = write_jsonl(tmp_path / "x.jsonl", [{"text": "the cat"}] * 3)
    tok2 = next(
        r
        for r in cli("data", text, "--tokenizer", folder, "--format", "json").json()["reports"]
        if r["kind"] == "tokenizer"
    )
    assert "TL243" in tok2["checks"]["stood_down"]
    assert "no dataset" in judge_tokenizer(folder).checks.not_checked["TL243"]


def test_model_max_length_sentinel(tmp_path):
    r = judge_tokenizer(make_tokenizer(tmp_path / "t", model_max_length=1000000000000000019884624838656))
    f = fired(r, "TL244")
    assert f.evidence["model_max_length"] == pytest.approx(1e30) and f.evidence["max_position_embeddings"] == 2048


def test_special_token_not_in_vocab(tmp_path):
    r = judge_tokenizer(make_tokenizer(tmp_path / "t", extra_specials=("<|im_end|>",)))
    f = fired(r, "TL245")
    assert f.evidence["missing"] == {"additional[0]": "<|im_end|>"} and f.severity.value == "FAIL"


def test_vocab_larger_than_model(tmp_path):
    r = judge_tokenizer(make_tokenizer(tmp_path / "t", vocab_size=32))
    f = fired(r, "TL246")
    assert f.evidence == {
        "tokenizer_size": 37,
        "model_vocab_size": 32,
        "out_of_range": 5,
        "limit_from": "config.json vocab_size",
    }
    stood_down(judge_tokenizer(make_tokenizer(tmp_path / "u", vocab_size=64)), "TL246")


def test_malformed_json_file(tmp_path):
    folder = make_tokenizer(tmp_path / "t")
    (folder / "special_tokens_map.json").write_text('{"eos_token": "</s>",')
    r = judge_tokenizer(folder)
    f = fired(r, "TL247")
    assert f.evidence["file"] == "special_tokens_map.json" and "line 1" in f.evidence["error"]


def test_eos_id_mismatch(tmp_path):
    r = judge_tokenizer(make_tokenizer(tmp_path / "t", generation={"eos_token_id": 5}))
    f = fired(r, "TL248")
    assert f.evidence["eos_id"] == 2 and f.evidence["config_ids"] == {"generation_config.json": [5]}


@pytest.mark.parametrize(
    "setup, reason", [("missing", "no such folder"), ("file", "not a folder"), ("empty", "no tokenizer files")]
)
def test_not_a_tokenizer(cli, tmp_path, setup, reason):
    path = tmp_path / "x"
    if setup == "file":
        path.write_text("{}")
    elif setup == "empty":
        path.mkdir()
    r = cli("tokenizer", path)
    assert r.code == 2 and reason in r.out and "Traceback" not in r.err


def test_cli_tokenizer_exit_codes(cli, tmp_path):
    assert cli("tokenizer", make_tokenizer(tmp_path / "ok")).code == 0
    assert cli("tokenizer", make_tokenizer(tmp_path / "bad", eos=None)).code == 1


def test_doctor_finds_tokenizer_folder(cli, tmp_path):
    make_tokenizer(tmp_path / "run" / "tok", pad="</s>")
    doc = cli("doctor", tmp_path, "--format", "json").json()
    assert [(r["kind"], r["verdict"]) for r in doc["reports"]] == [("tokenizer", "WARN")]


def test_wrong_types_in_json_files_are_tolerated(tmp_path):
    folder = make_tokenizer(tmp_path / "t")
    cfg = json.loads((folder / "tokenizer_config.json").read_text())
    cfg.update(additional_special_tokens=7, added_tokens_decoder="x", eos_token={"content": 5}, add_bos_token="yes")
    (folder / "tokenizer_config.json").write_text(json.dumps(cfg))
    (folder / "config.json").write_text(json.dumps({"vocab_size": True, "eos_token_id": [None, "2"]}))
    r = judge_tokenizer(folder)
    assert r.unjudged is None
    assert "TL246" in r.checks.not_checked and "TL248" in r.checks.not_checked


def test_bos_added_by_a_sequence_post_processor(tmp_path):
    """Llama-3-style: tokenizer.json's post-processor is Sequence[ByteLevel, TemplateProcessing(<s> $A)]."""
    from tokenizers import Tokenizer, processors

    folder = make_tokenizer(tmp_path / "t", chat_template=CHAT_TEMPLATE)
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tok.post_processor = processors.Sequence(
        [
            processors.ByteLevel(trim_offsets=False),
            processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", 1)]),
        ]
    )
    tok.save(str(folder / "tokenizer.json"))
    assert json.loads((folder / "tokenizer.json").read_text())["post_processor"]["type"] == "Sequence"
    fired(judge_tokenizer(folder), "TL242")


def test_embedding_rows_from_safetensors_header(tmp_path):
    np = pytest.importorskip("numpy")
    st = pytest.importorskip("safetensors.numpy")
    folder = make_tokenizer(tmp_path / "t", vocab_size=64)  # config says 64 ...
    st.save_file(
        {
            "model.embed_tokens.weight": np.zeros((30, 4), dtype=np.float32),
            "lm_head.weight": np.zeros((30, 4), dtype=np.float32),
        },
        str(folder / "model.safetensors"),
    )
    f = fired(judge_tokenizer(folder), "TL246")  # ... but the embedding has 30 rows
    assert f.evidence["model_vocab_size"] == 30 and "embed_tokens" in f.evidence["limit_from"]
    (folder / "model.safetensors").rename(folder / "model-00001-of-00002.safetensors")
    (folder / "model.safetensors.index.json").write_text(
        json.dumps({"weight_map": {"model.embed_tokens.weight": "model-00001-of-00002.safetensors"}})
    )
    assert fired(judge_tokenizer(folder), "TL246").evidence["out_of_range"] == 7
    (folder / "model-00001-of-00002.safetensors").write_bytes(b"\xff" * 8 + b"junk")
    stood_down(judge_tokenizer(folder), "TL246")  # header unreadable: back to config's 64


def test_tokenizer_command_with_dataset(cli, tmp_path):
    folder = make_tokenizer(tmp_path / "t")
    data = write_jsonl(tmp_path / "d.jsonl", chat_rows(3))
    doc = cli("tokenizer", folder, "--dataset", data, "--format", "json").json()
    assert [f["code"] for f in doc["reports"][0]["findings"]] == ["TL243"]
    assert doc["exit_code"] == 0  # a WARN
