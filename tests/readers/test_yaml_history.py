"""A metrics history saved as YAML (``yaml.safe_dump(history.history, f)``, a list of records)
is read as its JSON equivalent; configs stay unclaimed; hostile YAML (an alias bomb, Python
object tags) is refused in one line, never constructed."""

from __future__ import annotations

import pytest

from trainlint.api import doctor
from trainlint.readers import ReadError, read_run, sniff

yaml = pytest.importorskip("yaml")


def _history(n=30):
    return {
        "loss": [2.5 - 0.05 * i for i in range(n)],
        "val_loss": [2.6 - 0.04 * i for i in range(n)],
        "accuracy": [0.1 + 0.02 * i for i in range(n)],
    }


@pytest.mark.parametrize("flow", [False, True])
def test_a_keras_history_dumped_as_yaml_reads_every_metric_per_epoch(tmp_path, flow):
    path = tmp_path / "history.yaml"
    path.write_text(yaml.safe_dump(_history(), default_flow_style=flow))
    assert "loss:\n- 2.5\n- 2.45" in path.read_text() or flow
    run = read_run(path)
    assert run.format == "yaml-history"
    assert sorted(run.series) == ["accuracy", "loss", "val_loss"]
    loss = run.series["loss"]
    assert (len(loss.steps), float(loss.steps[0]), float(loss.steps[-1])) == (30, 1.0, 30.0)
    assert float(loss.values[0]) == 2.5 and float(loss.values[-1]) == pytest.approx(1.05)
    rep = doctor([path]).reports[0]
    assert rep.summary["roles"]["loss"] == "loss" and rep.summary["roles"]["eval_loss"] == "val_loss"


def test_a_list_of_records_in_yaml(tmp_path):
    rows = [{"epoch": i + 1, "loss": 2.5 - 0.05 * i, "val_loss": 2.6 - 0.04 * i} for i in range(30)]
    path = tmp_path / "train_history.yml"
    path.write_text(yaml.safe_dump(rows, sort_keys=False))
    assert path.read_text().startswith("- epoch: 1\n  loss: 2.5\n")
    run = read_run(path)
    loss = run.series["loss"]
    assert (float(loss.steps[0]), float(loss.steps[-1]), float(loss.values[-1])) == (1.0, 30.0, pytest.approx(1.05))
    assert run.meta.get("steps_are") == "epochs"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".hydra/config.yaml", "model:\n  loss: cross_entropy\n  lr: 0.1\ntrainer:\n  max_epochs: 10\n"),
        ("conf.yaml", "losses:\n- name: ce\n  loss_weight: 0.5\n- name: dice\n  loss_weight: 0.5\n"),
        ("weights.yaml", "loss_weights:\n- 0.5\n- 0.5\n"),
        ("hparams.yaml", "loss:\n- 1.0\n- 2.0\n"),
    ],
)
def test_configs_stay_unclaimed(tmp_path, name, text):
    path = tmp_path / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    assert sniff(path) is None


def test_an_alias_bomb_is_refused_without_expanding(tmp_path):
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for prev, cur in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{cur}: &{cur} [{', '.join([f'*{prev}'] * 9)}]")
    path = tmp_path / "history.yaml"
    path.write_text("loss:\n- 2.5\n- 2.4\n" + "\n".join(lines) + "\nval_loss:\n- *i\n")
    assert sniff(path) is not None
    with pytest.raises(ReadError, match="alias"):
        read_run(path)


def test_python_object_tags_are_refused_never_constructed(tmp_path, monkeypatch):
    path = tmp_path / "history.yaml"
    path.write_text("loss:\n- 2.5\n- !!python/object/apply:os.system ['touch pwned']\n- 2.3\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ReadError, match="not a YAML metrics history"):
        read_run(path)
    assert not (tmp_path / "pwned").exists()
    rep = doctor([path]).reports[0]
    assert rep.unjudged and "\n" not in rep.unjudged
