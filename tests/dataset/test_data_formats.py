"""Every dataset format reads to the same findings; bad input is NOT-CHECKED with one line;
doctor finds datasets by content without stealing metric logs."""

from __future__ import annotations

import csv
import json

import pytest
from _datagen import chat_rows, sentences, write_jsonl

from trainlint.inspectors.dataset_judge import judge_dataset

ROWS = [{"prompt": q, "completion": a} for q, a in zip(sentences(12), sentences(12, 1))]
ROWS[7] = dict(ROWS[2])  # an exact duplicate of row 3 at row 8
ROWS[9] = {"prompt": ROWS[9]["prompt"], "completion": ""}


def _codes(report):
    return sorted({f.code for f in report.findings})


def _expect_same(report, numbering_offset=0):
    assert _codes(report) == ["TL203", "TL204", "TL212"], [f.message for f in report.findings]
    dup = next(f for f in report.findings if f.code == "TL204")
    assert dup.evidence["first_groups"][0]["lines"] == [3 + numbering_offset, 8 + numbering_offset]


def test_jsonl(tmp_path):
    _expect_same(judge_dataset(write_jsonl(tmp_path / "d.jsonl", ROWS))[0])


def test_json_array_streamed(tmp_path):
    p = tmp_path / "d.json"
    p.write_text(json.dumps(ROWS, indent=2))
    r = judge_dataset(p)[0]
    assert r.format == "json" and r.summary["numbering"] == "row"
    _expect_same(r)


def test_json_object_with_data_list(tmp_path):
    p = tmp_path / "d.json"
    p.write_text(json.dumps({"version": 1, "data": ROWS}, indent=1))
    _expect_same(judge_dataset(p)[0])


def test_json_array_broken_element(tmp_path):
    p = tmp_path / "d.json"
    p.write_text(json.dumps(ROWS[:4])[:-30])
    r = judge_dataset(p)[0]
    assert next(f for f in r.findings if f.code == "TL200").evidence["lines"] == [4]
    assert r.summary["rows"] == 3


def test_csv_line_numbers_and_width(tmp_path):
    p = tmp_path / "d.csv"
    with open(p, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["prompt", "completion"])
        for row in ROWS:
            w.writerow([row["prompt"], row["completion"]])
        w.writerow(["only one field"])
    r = judge_dataset(p)[0]
    assert r.format == "csv"
    assert next(f for f in r.findings if f.code == "TL200").evidence["lines"] == [14]
    dup = next(f for f in r.findings if f.code == "TL204")
    assert dup.evidence["first_groups"][0]["lines"] == [4, 9]  # header is line 1


def test_csv_multiline_field_keeps_line_numbers(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text('text,label\n"two\nlines",a\n"x\x07",b\n')
    r = judge_dataset(p)[0]
    assert next(f for f in r.findings if f.code == "TL202").evidence["lines"] == [4]


def _arrow_table():
    pa = pytest.importorskip("pyarrow")
    return pa, pa.Table.from_pylist(ROWS)


def test_parquet(tmp_path):
    pa, table = _arrow_table()
    import pyarrow.parquet as pq

    pq.write_table(table, tmp_path / "d.parquet", row_group_size=5)
    r = judge_dataset(tmp_path / "d.parquet")[0]
    assert r.format == "parquet"
    _expect_same(r)


def _save_to_disk(pa, table, folder):
    folder.mkdir(parents=True)
    with pa.OSFile(str(folder / "data-00000-of-00001.arrow"), "wb") as sink:
        with pa.ipc.new_stream(sink, table.schema) as writer:
            for batch in table.to_batches(max_chunksize=4):
                writer.write_batch(batch)
    (folder / "state.json").write_text(
        json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}], "_fingerprint": "x", "_split": None})
    )
    (folder / "dataset_info.json").write_text(json.dumps({"features": {}}))


def test_save_to_disk_folder_and_dataset_dict(tmp_path):
    pa, table = _arrow_table()
    _save_to_disk(pa, table, tmp_path / "one")
    _expect_same(judge_dataset(tmp_path / "one")[0])
    _save_to_disk(pa, table, tmp_path / "dd" / "train")
    _save_to_disk(pa, table.slice(0, 3), tmp_path / "dd" / "test")
    (tmp_path / "dd" / "dataset_dict.json").write_text(json.dumps({"splits": ["train", "test"]}))
    reports = judge_dataset(tmp_path / "dd")
    assert [r.source.rsplit("/", 1)[1] for r in reports] == ["train", "test"]
    assert reports[1].summary["rows"] == 3


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"", "empty file"),
        (b"\x00\x01\x02binary" * 10, "binary file"),
        (b"PAR1 this is not really parquet", "Parquet"),
    ],
)
def test_bad_input_not_checked(tmp_path, content, reason):
    if content.startswith(b"PAR1"):
        pytest.importorskip("pyarrow")
    p = tmp_path / "d.bin"
    p.write_bytes(content)
    r = judge_dataset(p)[0]
    assert r.verdict.value == "NOT-CHECKED" and reason in r.unjudged and "\n" not in r.unjudged


def test_a_trainer_state_json_is_not_judged_as_a_dataset(tmp_path):
    """`trainlint data trainer_state.json` (the wrong file named) says what the file is and which
    command judges it, instead of schema-drift warnings about its eval entries."""
    state = {"global_step": 4, "log_history": [{"step": 1, "loss": 2.0}, {"step": 2, "eval_loss": 1.9}]}
    p = tmp_path / "trainer_state.json"
    p.write_text(json.dumps(state))
    r = judge_dataset(p)[0]
    assert r.verdict.value == "NOT-CHECKED"
    assert "trainer_state.json" in r.unjudged and "trainlint doctor" in r.unjudged and not r.findings


def test_truncated_parquet_not_checked(tmp_path):
    pa, table = _arrow_table()
    import pyarrow.parquet as pq

    pq.write_table(table, tmp_path / "d.parquet")
    data = (tmp_path / "d.parquet").read_bytes()
    (tmp_path / "d.parquet").write_bytes(data[: len(data) // 2])
    r = judge_dataset(tmp_path / "d.parquet")[0]
    assert r.verdict.value == "NOT-CHECKED" and "Parquet" in r.unjudged


def test_cli_data_json_envelope_and_exit(cli, tmp_path):
    p = write_jsonl(tmp_path / "d.jsonl", ROWS)
    r = cli("data", p, "--format", "json")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["command"] == "data" and doc["reports"][0]["kind"] == "dataset"
    assert {f["code"] for f in doc["reports"][0]["findings"]} == {"TL203", "TL204", "TL212"}
    bad = cli("data", tmp_path / "missing.jsonl")
    assert bad.code == 2 and "no such file" in bad.out and "Traceback" not in bad.err
    broken = tmp_path / "b.jsonl"
    broken.write_text('{"text": "a"}\n{"text": \n')
    assert cli("data", broken).code == 1


def test_cli_data_format_override(cli, tmp_path):
    p = write_jsonl(tmp_path / "d.jsonl", [{"prompt": "a", "completion": "b"}] * 2)
    r = cli("data", p, "--data-format", "chat", "--format", "json")
    assert r.json()["reports"][0]["summary"]["row_format"] == "chat"


def test_doctor_finds_datasets_not_logs(cli, tmp_path):
    write_jsonl(tmp_path / "train.jsonl", chat_rows(5))
    write_jsonl(tmp_path / "metrics.jsonl", [{"step": i, "loss": 2.0 - i / 50} for i in range(50)])
    write_jsonl(tmp_path / "labelled.jsonl", [{"text": s, "label": i % 2} for i, s in enumerate(sentences(6))])
    with open(tmp_path / "pairs.csv", "w") as fh:
        fh.write("question,answer\nwhat,yes\nwhy,no\n")
    with open(tmp_path / "log.csv", "w") as fh:
        fh.write("step,loss\n" + "".join(f"{i},{2 - i / 50}\n" for i in range(50)))
    doc = cli("doctor", tmp_path, "--format", "json").json()
    kinds = {r["source"].rsplit("/", 1)[1]: r["kind"] for r in doc["reports"]}
    assert kinds == {
        "train.jsonl": "dataset",
        "metrics.jsonl": "log",
        "labelled.jsonl": "dataset",
        "pairs.csv": "dataset",
        "log.csv": "log",
    }


def test_doctor_finds_save_to_disk_folder(cli, tmp_path):
    pa, table = _arrow_table()
    _save_to_disk(pa, table, tmp_path / "ds")
    doc = cli("doctor", tmp_path, "--format", "json").json()
    assert [(r["kind"], r["source"].rsplit("/", 1)[1]) for r in doc["reports"]] == [("dataset", "ds")]


def test_json_array_across_small_chunks(tmp_path, monkeypatch):
    from trainlint.dataset import sources

    monkeypatch.setattr(sources, "CHUNK", 37)
    rows = [{"text": s, "n": i} for i, s in enumerate(sentences(200))]
    rows[150]["text"] = "caf\u00e9 \u2603 " * 5  # multi-byte characters split across chunk edges
    p = tmp_path / "d.json"
    p.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    r = judge_dataset(p)[0]
    assert r.summary["rows"] == 200 and not [f for f in r.findings if f.code in ("TL200", "TL201")]


def test_doctor_finds_rows_longer_than_the_sniffed_head(cli, tmp_path):
    long = " ".join(sentences(3000))
    write_jsonl(
        tmp_path / "long.jsonl",
        [{"messages": [{"role": "user", "content": long}, {"role": "assistant", "content": "ok"}]}] * 2,
    )
    (tmp_path / "doc.json").write_text(json.dumps({"version": "1.0", "added_tokens": [{"id": 0, "content": long}]}))
    doc = cli("doctor", tmp_path, "--format", "json").json()
    assert [(r["kind"], r["source"].rsplit("/", 1)[1]) for r in doc["reports"]] == [("dataset", "long.jsonl")]


def test_text_lines_and_unknown_text(tmp_path):
    p = tmp_path / "corpus.txt"
    p.write_text("\n".join(sentences(5) + [sentences(1)[0]]) + "\n")
    r = judge_dataset(p)[0]
    assert r.format == "text-lines" and r.summary["row_format"] == "text"
    assert next(f for f in r.findings if f.code == "TL204").evidence["first_groups"][0]["lines"] == [1, 6]
    notes = tmp_path / "notes.md"
    notes.write_text("# A heading\nsome prose\n")
    r2 = judge_dataset(notes)[0]
    assert r2.verdict.value == "NOT-CHECKED" and "not a dataset format" in r2.unjudged


def test_jsonl_with_broken_first_line(tmp_path):
    p = write_jsonl(tmp_path / "d.jsonl", ['{"text": "cut sh'] + [json.dumps(r) for r in ROWS[:5]])
    r = judge_dataset(p)[0]
    assert r.format == "jsonl" and next(f for f in r.findings if f.code == "TL200").evidence["lines"] == [1]


def test_single_line_json_document(tmp_path):
    p = tmp_path / "d.json"
    p.write_text(json.dumps({"data": ROWS}))
    _expect_same(judge_dataset(p)[0])


def test_jsonl_rows_longer_than_the_head(tmp_path):
    long = " ".join(sentences(20000))  # > 64 KB a row
    p = write_jsonl(tmp_path / "d.data", [{"text": long}, {"text": long}, {"text": "short"}])
    r = judge_dataset(p)[0]
    assert r.format == "jsonl" and r.summary["rows"] == 3
    assert next(f for f in r.findings if f.code == "TL204").evidence["first_groups"][0]["lines"] == [1, 2]


def test_folder_of_shards(tmp_path):
    write_jsonl(tmp_path / "data" / "train-0.jsonl", ROWS[:6])
    write_jsonl(tmp_path / "data" / "train-1.jsonl", ROWS[6:])
    (tmp_path / "data" / "README.md").write_text("# card")
    reports = judge_dataset(tmp_path / "data")
    assert [r.source.rsplit("/", 1)[1] for r in reports] == ["train-0.jsonl", "train-1.jsonl"]
    assert judge_dataset(tmp_path / "data" / "README.md")[0].verdict.value == "NOT-CHECKED"
    (tmp_path / "empty").mkdir()
    assert "no Arrow data files" in judge_dataset(tmp_path / "empty")[0].unjudged


def test_optional_libraries_missing(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow -> ImportError
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    p = tmp_path / "d.parquet"
    p.write_bytes(b"PAR1" + b"\x00" * 64 + b"PAR1")
    r = judge_dataset(p)[0]
    assert r.verdict.value == "NOT-CHECKED" and "needs pyarrow" in r.unjudged
    (tmp_path / "tok").mkdir()
    (tmp_path / "tok" / "tokenizer.json").write_text("{}")
    r2 = judge_dataset(write_jsonl(tmp_path / "d.jsonl", ROWS), tokenizer=tmp_path / "tok")[0]
    assert "tokenizers library" in r2.checks.not_checked["TL213"]
    assert any("token checks skipped" in n for n in r2.notes)


def test_rows_shared_between_splits_and_shards(tmp_path):
    pa, table = _arrow_table()
    test_rows = [dict(ROWS[0]), {"prompt": "fresh", "completion": "row"}, dict(ROWS[4])]
    test_rows[2]["prompt"] = test_rows[2]["prompt"].upper()  # a normalised copy
    _save_to_disk(pa, table, tmp_path / "dd" / "train")
    _save_to_disk(pa, pa.Table.from_pylist(test_rows), tmp_path / "dd" / "test")
    (tmp_path / "dd" / "dataset_dict.json").write_text(json.dumps({"splits": ["train", "test"]}))
    train, test = judge_dataset(tmp_path / "dd")
    assert "first split" in train.checks.not_checked["TL216"]
    f = next(f for f in test.findings if f.code == "TL216")
    assert f.evidence["other"] == "train" and f.evidence["lines"] == [1, 3] and f.evidence["rows"] == 2
    write_jsonl(tmp_path / "shards" / "a.jsonl", ROWS[:6])
    write_jsonl(tmp_path / "shards" / "b.jsonl", ROWS[6:])
    b = judge_dataset(tmp_path / "shards")[1]
    f = next(f for f in b.findings if f.code == "TL216")  # ROWS[7] (line 2 of b) repeats ROWS[2] (in a)
    assert f.evidence["other"] == "a.jsonl" and f.evidence["lines"] == [2]
    write_jsonl(tmp_path / "clean" / "a.jsonl", ROWS[:5])
    write_jsonl(tmp_path / "clean" / "b.jsonl", ROWS[8:])
    assert "TL216" in judge_dataset(tmp_path / "clean")[1].checks.stood_down


def test_doctor_reports_damaged_parquet(cli, tmp_path):
    pa, table = _arrow_table()
    import pyarrow.parquet as pq

    pq.write_table(table, tmp_path / "d.parquet")
    pq.write_table(pa.Table.from_pylist([{"step": 1, "loss": 2.0}]), tmp_path / "metrics.parquet")
    data = (tmp_path / "d.parquet").read_bytes()
    (tmp_path / "d.parquet").write_bytes(data[:100] + data[-8:])  # header and magic, footer gone
    doc = cli("doctor", tmp_path, "--format", "json").json()
    kinds = {r["source"].rsplit("/", 1)[1]: (r["kind"], r["verdict"]) for r in doc["reports"]}
    assert kinds["d.parquet"] == ("dataset", "NOT-CHECKED")
    assert kinds["metrics.parquet"][0] == "log"  # a metric table: read by the arrow-table log reader
    assert doc["exit_code"] == 2
