"""The one YAML loader (yamlfile): PyYAML when installed, the small parser without it; and each
reader of YAML (run-folder hparams, MLflow meta.yaml, training configs, a run's data configs)
served by it, with PyYAML missing."""

from __future__ import annotations

import json
import sys

import pytest

from trainlint import yamlfile

# Texts the fallback parser reads as PyYAML does (no tags, anchors or multi-line scalars).
SAME = [
    "lr: 0.0001\nmodel:\n  layers: 4\n  name: 'tiny'  # a comment\nuse_amp: true\nnothing: null\n",
    "betas:\n- 0.9\n- 0.95\nepochs: 3\n",
    "datasets:\n  - path: data/sft.jsonl\n    type: alpaca\n  - path: b.jsonl\ntest_datasets:\n- path: c.jsonl\nout: x\n",
    "a:\n  b:\n    - name: x\n      files:\n        - f1\n        - f2\n    - name: y\n  c: 1\nd: [1, 2]\n",
    "---\nempty:\nurl: http://host:80/x\nquoted: 'a: b'\n",
]


@pytest.mark.parametrize("text", SAME)
def test_the_fallback_reads_what_pyyaml_reads(text):
    yaml = pytest.importorskip("yaml")
    assert yamlfile.parse_simple(text) == yaml.safe_load(text)


def test_the_fallback_drops_tags_and_skips_block_scalars():
    text = (
        "optimizer: !!python/object/apply:torch.optim.AdamW\n"
        "  lr: 0.001\n"
        "betas: !!python/tuple\n- 0.9\n- 0.999\n"
        "note: |\n  free text: not a key\n  more\n"
        "size: !!int 3\n"
    )
    got = yamlfile.parse_simple(text)
    assert got == {"optimizer": {"lr": 0.001}, "betas": [0.9, 0.999], "note": None, "size": 3}
    assert yamlfile.parse_yaml(text) == got  # PyYAML refuses the python tags: the fallback reads it


@pytest.fixture
def no_pyyaml(monkeypatch):
    monkeypatch.setitem(sys.modules, "yaml", None)  # import yaml raises ImportError


def test_a_lightning_folder_reads_hparams_without_pyyaml(tmp_path, no_pyyaml):
    from trainlint.model import Run
    from trainlint.readers.grouping import link_companions

    (tmp_path / "hparams.yaml").write_text("lr: 0.01\nmodel:\n  layers: 2\nbetas:\n- 0.9\n")
    run = Run(source=str(tmp_path), format="csv")
    link_companions(run, tmp_path)
    assert run.meta["hparams"] == {"lr": 0.01, "model.layers": 2}


def test_an_mlflow_meta_yaml_is_read_without_pyyaml(tmp_path, no_pyyaml):
    from trainlint.readers.mlflow_store import _safe_yaml

    (tmp_path / "meta.yaml").write_text("name: exp-1\nstatus: 3\ntags: []\n")
    assert _safe_yaml(tmp_path / "meta.yaml") == {"name": "exp-1", "status": 3, "tags": []}


def test_a_training_config_is_read_without_pyyaml(tmp_path, no_pyyaml):
    """trainconfig had no fallback: 'reading YAML needs pyyaml'."""
    from trainlint.environment.trainconfig import read_config

    p = tmp_path / "hparams.yaml"
    p.write_text("learning_rate: 0.0003\nmax_epochs: 5\ntrainer:\n  precision: 16\n")
    cfg = read_config(p)
    assert cfg.format == "lightning-yaml" and cfg.raw["trainer"] == {"precision": 16}
    assert cfg.raw["learning_rate"] == 0.0003


def test_a_run_data_config_is_read_without_pyyaml(tmp_path, no_pyyaml):
    from trainlint.inspectors.run_data import find_splits

    for name in ("sft.jsonl", "held.jsonl", "a.jsonl"):
        (tmp_path / name).write_text(json.dumps({"text": name}) + "\n")
    (tmp_path / "qlora.yml").write_text(
        "datasets:\n  - path: sft.jsonl\n    type: alpaca\ntest_datasets:\n- path: held.jsonl\n"
    )
    (tmp_path / "config.yaml").write_text("model:\n  train_file: a.jsonl\n")
    assert find_splits(tmp_path) == {
        "train": [tmp_path / "a.jsonl", tmp_path / "sft.jsonl"],
        "eval": [tmp_path / "held.jsonl"],
    }


def test_a_fifo_is_never_opened(tmp_path):
    import os

    from trainlint.safeio import NotRegular

    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    os.mkfifo(tmp_path / "hparams.yaml")
    with pytest.raises(NotRegular):
        yamlfile.load_yaml(tmp_path / "hparams.yaml")
