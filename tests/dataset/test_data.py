"""Dataset preflight: every data rule fires with the right rows and numbers, and stands down."""

from __future__ import annotations

import json
import math

import pytest
from _datagen import chat_rows, make_tokenizer, sentences, write_jsonl

from trainlint.inspectors.dataset_judge import judge_dataset


def judge(path, **kw):
    reports = judge_dataset(path, **kw)
    assert len(reports) == 1
    return reports[0]


def fired(report, code):
    found = [f for f in report.findings if f.code == code]
    assert found, f"{code} did not fire: {report.checks.stood_down.get(code) or report.checks.not_checked.get(code)}"
    return found[0]


def stood_down(report, code):
    assert not [f for f in report.findings if f.code == code]
    assert code in report.checks.stood_down, report.checks.not_checked.get(code)


def test_clean_chat_passes(tmp_path):
    r = judge(write_jsonl(tmp_path / "d.jsonl", chat_rows(50)))
    assert r.verdict.value == "PASS", [f.message for f in r.findings]
    assert r.summary["rows"] == 50 and r.summary["row_format"] == "chat"
    for code in (
        "TL200",
        "TL201",
        "TL202",
        "TL203",
        "TL204",
        "TL205",
        "TL206",
        "TL207",
        "TL208",
        "TL209",
        "TL210",
        "TL211",
    ):
        stood_down(r, code)


def test_malformed_lines_capped_at_20_ascending(tmp_path):
    rows = [json.dumps(r) for r in chat_rows(60)]
    for i in range(5, 60, 2):  # 28 broken lines: 6, 8, ..., 60
        rows[i] = rows[i][:-3]
    r = judge(write_jsonl(tmp_path / "d.jsonl", rows))
    f = fired(r, "TL200")
    assert f.evidence["rows"] == 28
    assert f.evidence["lines"] == list(range(6, 46, 2))
    assert "line" in f.message and "6:" in f.evidence["details"][0]
    assert r.verdict.value == "FAIL"


def test_not_an_object_is_malformed(tmp_path):
    rows = [json.dumps(r) for r in chat_rows(5)] + ["[1, 2]", "42"]
    r = judge(write_jsonl(tmp_path / "d.jsonl", rows))
    assert fired(r, "TL200").evidence["lines"] == [6, 7]


def test_non_utf8_line_and_offset(tmp_path):
    p = write_jsonl(tmp_path / "d.jsonl", chat_rows(3))
    good = p.read_bytes()
    p.write_bytes(good + b'{"text": "caf\xe9 au lait"}\n')
    r = judge(p)
    f = fired(r, "TL201")
    assert f.evidence["lines"] == [4]
    assert f"file offset {len(good) + 13}" in f.evidence["details"][0]
    assert "0xe9" in f.message


def test_control_characters(tmp_path):
    rows = chat_rows(10)
    rows[3]["messages"][1]["content"] = "bad\x00byte"
    rows[7]["messages"][0]["content"] = "esc\x1b[0m"
    f = fired(judge(write_jsonl(tmp_path / "d.jsonl", rows)), "TL202")
    assert f.evidence["lines"] == [4, 8] and set(f.evidence["characters"]) == {"U+0000", "U+001B"}


def test_empty_fields_but_not_optional_ones(tmp_path):
    rows = [{"instruction": q, "input": "", "output": a} for q, a in zip(sentences(10), sentences(10, 1))]
    rows[2]["instruction"] = "   "
    rows[5]["output"] = None
    r = judge(write_jsonl(tmp_path / "d.jsonl", rows))
    found = {f.evidence["field"]: f.evidence["lines"] for f in r.findings if f.code == "TL203"}
    assert found == {"instruction": [3], "output": [6]}  # "input" is optional by convention
    assert fired(r, "TL212").evidence["lines"] == [6]


def test_exact_duplicates_groups(tmp_path):
    rows = chat_rows(30)
    for i in (10, 20, 25):
        rows[i] = rows[0]
    rows[29] = rows[5]
    f = fired(judge(write_jsonl(tmp_path / "d.jsonl", rows)), "TL204")
    assert f.evidence["groups"] == 2 and f.evidence["extra_copies"] == 4
    assert f.evidence["first_groups"] == [{"lines": [1, 11, 21, 26], "rows": 4}, {"lines": [6, 30], "rows": 2}]
    assert f.evidence["lines"] == [11, 21, 26, 30]


def test_one_duplicate_in_2400_rows_is_a_note_sixty_a_warn(tmp_path):
    rows = [{"text": f"{s} (example {i})"} for i, s in enumerate(sentences(2400))]
    rows[1733] = rows[412]  # one exact copy in 2,400 rows (0.04%, NOTE below 0.5%)
    f = fired(judge(write_jsonl(tmp_path / "one.jsonl", rows)), "TL204")
    assert f.severity.value == "NOTE" and f.evidence["extra_copies"] == 1 and "under 0.5% of the rows" in f.message
    for i in range(60):  # 60 copies: 2.5% of the rows, a WARN
        rows[2000 + i] = rows[i]
    f = fired(judge(write_jsonl(tmp_path / "sixty.jsonl", rows)), "TL204")
    assert f.severity.value == "WARN" and f.evidence["extra_copies"] == 61 and "NOTE" not in f.message


def test_near_duplicates_not_exact(tmp_path):
    rows = [{"text": s} for s in sentences(20)]
    rows[12] = {"text": "  " + rows[3]["text"].upper() + " "}
    r = judge(write_jsonl(tmp_path / "d.jsonl", rows))
    stood_down(r, "TL204")
    f = fired(r, "TL205")
    assert f.evidence["first_groups"][0]["lines"] == [4, 13]
    assert f.evidence["lines"] == [13] and f.evidence["rows"] == 1 and f.evidence["rows_involved"] == 2


def test_schema_drift_keys_and_types(tmp_path):
    rows = [{"prompt": q, "completion": a} for q, a in zip(sentences(30), sentences(30, 1))]
    rows[4]["source"] = "web"
    rows[9]["completion"] = 7
    rows[19]["completion"] = ["a", "b"]
    r = judge(write_jsonl(tmp_path / "d.jsonl", rows))
    keys = fired(r, "TL206")
    assert keys.evidence["key"] == "source" and keys.evidence["lines"] == [5] and keys.evidence["present"] == 1
    types = fired(r, "TL207")
    assert types.evidence["key"] == "completion" and types.evidence["lines"] == [10, 20]
    assert types.evidence["types"] == {"string": 28, "number": 1, "list": 1}


def test_chat_shape_problems(tmp_path):
    rows = chat_rows(12)
    rows[1]["messages"][0]["role"] = "narrator"
    rows[3]["messages"].insert(1, {"role": "system", "content": "late"})
    rows[5]["messages"].append({"role": "user", "content": "and?"})
    rows[7]["messages"][1]["content"] = " "
    rows[9]["messages"] = [{"role": "assistant", "content": "hi"}]
    r = judge(write_jsonl(tmp_path / "d.jsonl", rows))
    assert fired(r, "TL208").evidence["lines"] == [2]
    assert fired(r, "TL209").evidence["lines"] == [4, 10]
    assert fired(r, "TL210").evidence["lines"] == [6]
    assert fired(r, "TL211").evidence["lines"] == [8]
    assert fired(r, "TL208").evidence["kinds"] == {"'narrator'": 1}


def test_sharegpt_and_tool_calls_pass(tmp_path):
    rows = [
        {
            "conversations": [
                {"from": "system", "value": "be brief"},
                {"from": "human", "value": q},
                {"from": "gpt", "value": a},
            ]
        }
        for q, a in zip(sentences(8), sentences(8, 1))
    ]
    rows.append(
        {
            "conversations": [
                {"from": "human", "value": "x"},
                {"from": "gpt", "value": "", "tool_calls": [{"name": "f"}]},
                {"from": "tool", "value": "3"},
                {"from": "gpt", "value": "three"},
            ]
        }
    )
    r = judge(write_jsonl(tmp_path / "d.jsonl", rows))
    assert r.verdict.value == "PASS", [f.message for f in r.findings]


def test_chat_rules_not_checked_on_text(tmp_path):
    r = judge(write_jsonl(tmp_path / "d.jsonl", [{"text": s} for s in sentences(5)]))
    assert "not chat" in r.checks.not_checked["TL208"]


@pytest.fixture
def tok(tmp_path):
    pytest.importorskip("tokenizers")
    return make_tokenizer(tmp_path / "tok", model_max_length=16)


def test_over_max_length_and_tokens_lost(tmp_path, tok):
    rows = [{"prompt": "the cat", "completion": "sat on a mat"} for _ in range(10)]
    rows[3] = {"prompt": "the cat", "completion": " ".join(["dog"] * 20)}  # 1 + 2 + 20 = 23 tokens
    r = judge(write_jsonl(tmp_path / "d.jsonl", rows), tokenizer=tok)
    f = fired(r, "TL213")
    assert f.evidence["lines"] == [4] and f.evidence["max_length"] == 16 and f.evidence["tokens_lost"] == 7
    assert f.evidence["longest"] == 23
    r2 = judge(tmp_path / "d.jsonl", tokenizer=tok, max_length=64)
    stood_down(r2, "TL213")
    stood_down(r2, "TL212")  # every completion is there
    # 8 of the 10 rows are extra copies: most of the data set is duplicated (issue 15: FAIL)
    assert r2.verdict.value == "FAIL" and {f.code for f in r2.findings} == {"TL204", "TL215"}
    assert fired(r2, "TL204").severity.value == "FAIL" and "most rows" in fired(r2, "TL204").message


def test_target_cut_away_or_empty(tmp_path, tok):
    rows = [{"prompt": "the cat", "completion": "sat"} for _ in range(6)]
    rows[1] = {"prompt": " ".join(["fox"] * 30), "completion": "yes"}  # prompt alone fills 16
    rows[4] = {"prompt": "why", "completion": ""}
    r = judge(write_jsonl(tmp_path / "d.jsonl", rows), tokenizer=tok)
    f = fired(r, "TL214")
    assert f.evidence["lines"] == [2, 5] and f.evidence["cut_away"] == 1 and f.evidence["empty_target"] == 1
    assert f.severity.value == "WARN"
    r_all = judge(write_jsonl(tmp_path / "e.jsonl", [{"prompt": "x", "completion": " "}] * 4), tokenizer=tok)
    assert fired(r_all, "TL214").severity.value == "FAIL"
    stood_down(judge(write_jsonl(tmp_path / "ok.jsonl", rows[:1] * 3), tokenizer=tok), "TL214")


def test_token_statistics_and_entropy(tmp_path, tok):
    # targets: "cat" x3, "dog" x1 -> entropy of (3/4, 1/4)
    rows = [{"prompt": "why", "completion": "cat"}] * 3 + [{"prompt": "how", "completion": "dog"}]
    r = judge(write_jsonl(tmp_path / "d.jsonl", rows), tokenizer=tok)
    f = fired(r, "TL215")
    expect = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    assert f.evidence["entropy_nats"] == pytest.approx(expect)
    assert f.evidence["target_tokens"] == 4 and f.evidence["max"] == 3  # bos + why + cat
    assert r.summary["target_entropy_nats"] == pytest.approx(expect)


def test_token_rules_not_checked_without_tokenizer(tmp_path):
    r = judge(write_jsonl(tmp_path / "d.jsonl", chat_rows(3)))
    assert r.checks.not_checked["TL213"] == "no --tokenizer given"
    assert r.checks.not_checked["TL215"] == "no --tokenizer given"


def test_tokenizer_folder_without_tokenizer_json(tmp_path):
    (tmp_path / "tok").mkdir()
    (tmp_path / "tok" / "tokenizer_config.json").write_text("{}")
    r = judge(write_jsonl(tmp_path / "d.jsonl", chat_rows(3)), tokenizer=tmp_path / "tok")
    assert "no tokenizer.json" in r.checks.not_checked["TL215"]


def test_unknown_row_format_is_not_judged_on_tokens(tmp_path, tok):
    r = judge(write_jsonl(tmp_path / "d.jsonl", [{"a": "x", "b": "y"}] * 3), tokenizer=tok)
    assert "not recognised" in r.checks.not_checked["TL214"] and r.verdict.value != "FAIL"


def test_rows_without_text_are_not_near_duplicates(tmp_path):
    r = judge(write_jsonl(tmp_path / "d.jsonl", [{"label": i, "score": i * 2} for i in range(10)]))
    stood_down(r, "TL205")
    stood_down(r, "TL204")


def test_same_text_different_label_is_listed(tmp_path):
    rows = [{"text": s, "label": 0} for s in sentences(10)]
    rows[8] = {"text": rows[1]["text"], "label": 1}
    f = fired(judge(write_jsonl(tmp_path / "d.jsonl", rows)), "TL205")
    assert f.evidence["first_groups"] == [{"lines": [2, 9], "rows": 2}]


def test_special_tokens_in_text(tmp_path, tok):
    rows = [{"prompt": "the cat", "completion": "sat"} for _ in range(8)]
    rows[2] = {"prompt": "the cat", "completion": "sat </s> and ran"}
    rows[6] = {"prompt": "<s> the <s> dog", "completion": "ran"}
    r = judge(write_jsonl(tmp_path / "d.jsonl", rows), tokenizer=tok)
    f = fired(r, "TL217")
    assert f.evidence["lines"] == [3, 7] and f.evidence["tokens"] == {"<s>": 2, "</s>": 1}
    stood_down(judge(write_jsonl(tmp_path / "ok.jsonl", rows[:2]), tokenizer=tok), "TL217")


def test_byte_level_bpe_tokenizer(tmp_path):
    pytest.importorskip("tokenizers")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    folder = tmp_path / "bpe"
    folder.mkdir()
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(
        sentences(300, seed=3),
        trainers.BpeTrainer(
            vocab_size=300, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
        ),
    )
    bpe.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({"eos_token": "<|endoftext|>", "model_max_length": 64}))
    rows = chat_rows(40) + [
        {"messages": [{"role": "user", "content": "caf\u00e9 \u2603"}, {"role": "assistant", "content": "x" * 200}]}
    ]
    r = judge(write_jsonl(tmp_path / "d.jsonl", rows), tokenizer=folder)
    stats = fired(r, "TL215").evidence
    assert stats["rows"] == 41 and stats["entropy_nats"] > 1.0 and stats["max"] > 64
    assert fired(r, "TL213").evidence["lines"] == [41]
