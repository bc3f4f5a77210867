"""TL099 loss-at-label-floor: the dataset's label/token entropy handed to the log rules."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _datagen import make_tokenizer, sentences, write_jsonl

from trainlint.api import Options, doctor
from trainlint.engine import judge_run
from trainlint.inspectors.dataset_judge import entropy_for
from trainlint.model import Run
from trainlint.roles import assign_roles


def loss_curve(final: float, n: int = 200, start: float = 3.0, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    return final + (start - final) * np.exp(-t / 25) + rng.normal(0, 0.01, n)


def write_log(path, values):
    return write_jsonl(path, [{"step": i, "loss": float(v)} for i, v in enumerate(values)])


def labelled(tmp_path, k=4, n=400):
    return write_jsonl(tmp_path / "data.jsonl", [{"text": s, "label": f"c{i % k}"} for i, s in enumerate(sentences(n))])


def tl099(report):
    return next((f for f in report.findings if f.code == "TL099"), None)


def test_rule_fires_at_floor_and_stands_down_below():
    run = Run(source="gen", format="generated")
    run.add("loss", np.arange(200), loss_curve(math.log(4)))
    run.roles = assign_roles(run.series)
    r = judge_run(run, None, {"label_entropy": math.log(4)})
    f = tl099(r)
    assert f is not None and f.severity.value == "FAIL"
    assert f.evidence["entropy"] == pytest.approx(math.log(4))
    assert f.evidence["value"] == pytest.approx(math.log(4), abs=0.02)
    assert f.evidence["threshold"] == pytest.approx(0.95 * math.log(4))
    run.add("loss", np.arange(200), loss_curve(0.2))
    r2 = judge_run(run, None, {"label_entropy": math.log(4)})
    assert tl099(r2) is None and "TL099" in r2.checks.stood_down
    r3 = judge_run(run, None, {})
    assert "--dataset" in r3.checks.not_checked["TL099"]


def test_classification_entropy_from_labels(tmp_path):
    value, why = entropy_for(labelled(tmp_path, k=4))
    assert value == pytest.approx(math.log(4)) and "4 labels" in why


def test_doctor_handoff_with_labels(tmp_path):
    data = labelled(tmp_path, k=4)
    write_log(tmp_path / "shuffled" / "log.jsonl", loss_curve(math.log(4), start=1.6))
    write_log(tmp_path / "learned" / "log.jsonl", loss_curve(0.15, start=1.6))
    res = doctor([tmp_path / "shuffled", tmp_path / "learned"], Options(dataset=data))
    logs = {r.source.split("/")[-2]: r for r in res.reports if r.kind == "log"}
    assert tl099(logs["shuffled"]) is not None and logs["shuffled"].verdict.value == "FAIL"
    assert tl099(logs["learned"]) is None and logs["learned"].verdict.value == "PASS"
    assert [r.kind for r in res.reports if r.kind != "log"] == ["dataset"]  # --dataset judged too


def test_doctor_cli_token_entropy(cli, tmp_path):
    pytest.importorskip("tokenizers")
    tok = make_tokenizer(tmp_path / "tok")
    data = write_jsonl(
        tmp_path / "sft.jsonl", [{"prompt": q, "completion": a} for q, a in zip(sentences(300), sentences(300, 7))]
    )
    entropy, why = entropy_for(data, tok)
    assert 2.5 < entropy < math.log(37) and "target tokens" in why
    run = write_log(tmp_path / "runs" / "a" / "log.jsonl", loss_curve(entropy + 0.05))
    r = cli("doctor", run, "--dataset", data, "--tokenizer", tok, "--format", "json")
    assert r.code == 1, r.err
    reports = r.json()["reports"]
    log = next(x for x in reports if x["kind"] == "log")
    f = next(x for x in log["findings"] if x["code"] == "TL099")
    assert f["evidence"]["entropy"] == pytest.approx(entropy) and "sft.jsonl" in f["evidence"]["source"]
    assert {x["kind"] for x in reports} == {"log", "dataset", "tokenizer"}
    low = write_log(tmp_path / "runs" / "b" / "log.jsonl", loss_curve(entropy / 3))
    r2 = cli("doctor", low, "--dataset", data, "--tokenizer", tok, "--format", "json")
    log2 = next(x for x in r2.json()["reports"] if x["kind"] == "log")
    assert "TL099" in log2["checks"]["stood_down"]


def test_doctor_text_without_tokenizer_is_not_checked(tmp_path):
    data = write_jsonl(tmp_path / "sft.jsonl", [{"text": s} for s in sentences(20)])
    run = write_log(tmp_path / "run" / "log.jsonl", loss_curve(1.0))
    res = doctor([run], Options(dataset=data))
    log = next(r for r in res.reports if r.kind == "log")
    assert "needs a tokenizer" in log.checks.not_checked["TL099"]


def test_entropy_pools_shards(tmp_path):
    write_jsonl(tmp_path / "d" / "a.jsonl", [{"text": "x", "label": "a"}] * 10)
    write_jsonl(tmp_path / "d" / "b.jsonl", [{"text": "y", "label": "b"}] * 10)
    value, why = entropy_for(tmp_path / "d")
    assert value == pytest.approx(math.log(2)) and "2 files" in why
