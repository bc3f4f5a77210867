"""Configuration: select/ignore, thresholds, per-path overrides, discovery, and the CLI options."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from trainlint.config import ConfigError, Settings, find_config, load_settings, parse_threshold_options
from trainlint.registry import REGISTRY


def _log(path: Path, lr: float = 0.0, n: int = 60) -> Path:
    """A JSONL log whose loss decays while the learning rate is ``lr`` throughout."""
    path.parent.mkdir(parents=True, exist_ok=True)
    loss = 3.0 * np.exp(-np.arange(n) / 20) + 1.0
    path.write_text(
        "".join(json.dumps({"step": i + 1, "loss": float(v), "learning_rate": lr}) + "\n" for i, v in enumerate(loss))
    )
    return path


def _rule(code):
    return REGISTRY.get(code)


def test_select_ignore_by_code_prefix_category_and_name():
    s = Settings(select=["TL0"], ignore=["stagnation", "TL040", "loss-spike"])
    assert s.enabled(_rule("TL010")) and not s.enabled(_rule("TL100"))
    assert not s.enabled(_rule("TL031")) and not s.enabled(_rule("TL040")) and not s.enabled(_rule("TL020"))
    assert Settings(select=["nan"]).enabled(_rule("TL003"))
    assert not Settings(select=["nan"]).enabled(_rule("TL010"))


def test_thresholds_merge_by_code_or_name_and_validate():
    s = Settings()
    s.merge({"thresholds": {"loss-diverged": {"min_rise": 3}, "TL020": {"z": 8.5}}})
    assert s.thresholds_for(_rule("TL010"))["min_rise"] == 3.0
    assert s.thresholds_for(_rule("TL020"))["z"] == 8.5
    assert s.thresholds_for(_rule("TL020"))["ratio"] == 1.5  # untouched default
    with pytest.raises(ConfigError, match="no threshold 'nope'"):
        Settings().merge({"thresholds": {"TL010": {"nope": 1}}})
    with pytest.raises(ConfigError, match="must be a number"):
        Settings().merge({"thresholds": {"TL010": {"min_rise": "high"}}})
    with pytest.raises(ConfigError, match="unknown rule"):
        Settings().merge({"thresholds": {"TL999": {"x": 1}}})
    with pytest.raises(ConfigError, match="not a rule code"):
        Settings().merge({"ignore": ["stagnatoin"]})


def test_per_path_overrides_and_pinned_cli_thresholds(tmp_path):
    cfg = tmp_path / "trainlint.toml"
    cfg.write_text(
        "[thresholds.TL010]\nmin_rise = 3\n"
        '[[overrides]]\npaths = ["runs/smoke*/**"]\nignore = ["lr"]\n'
        "thresholds = { TL010 = { min_rise = 5 } }\n"
    )
    s = load_settings(cfg)
    smoke = s.for_path(str(tmp_path / "runs" / "smoke1" / "log.jsonl"))
    assert not smoke.enabled(_rule("TL040")) and smoke.thresholds_for(_rule("TL010"))["min_rise"] == 5
    other = s.for_path(str(tmp_path / "runs" / "big" / "log.jsonl"))
    assert other.enabled(_rule("TL040")) and other.thresholds_for(_rule("TL010"))["min_rise"] == 3
    s.pin_thresholds(parse_threshold_options(["TL010.min_rise=7"]))
    assert s.for_path(str(tmp_path / "runs" / "smoke1" / "x")).thresholds_for(_rule("TL010"))["min_rise"] == 7


def test_find_config_upward_pyproject_and_errors(tmp_path):
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.trainlint]\nignore = ["TL031"]\n')
    found = find_config(deep)
    assert found == tmp_path / "pyproject.toml" and load_settings(found).ignore == ["TL031"]
    (tmp_path / "a" / "trainlint.toml").write_text('select = ["nan"]\n')
    assert find_config(deep) == tmp_path / "a" / "trainlint.toml"
    (tmp_path / "a" / "trainlint.toml").write_text('[[overrides]]\nignore = ["nan"]\n')
    with pytest.raises(ConfigError, match="needs paths"):
        load_settings(tmp_path / "a" / "trainlint.toml")
    (tmp_path / "a" / "trainlint.toml").write_text("select = [\n")
    with pytest.raises(ConfigError, match="cannot read config"):
        load_settings(tmp_path / "a" / "trainlint.toml")


def test_parse_threshold_options_errors():
    assert parse_threshold_options(["TL020.z=9"]) == {"TL020": {"z": 9.0}}
    for bad in ("TL020.z", "TL020=9", "TL020.z=high", "TL999.z=1", "TL020.nope=1"):
        with pytest.raises(ConfigError):
            parse_threshold_options([bad])


# ---- through the CLI -------------------------------------------------------------------


def _codes(result):
    rep = result.json()["reports"][0]
    return {f["code"]: f["severity"] for f in rep["findings"]}, rep["checks"]


def test_cli_default_ignore_and_select(cli, tmp_path):
    log = _log(tmp_path / "run.jsonl")
    r = cli("doctor", log, "--format", "json", cwd=tmp_path)
    assert r.code == 1 and _codes(r)[0].get("TL040") == "FAIL"
    r = cli("doctor", log, "--format", "json", "--ignore", "TL040", cwd=tmp_path)
    found, checks = _codes(r)
    assert r.code == 0 and "TL040" not in found
    assert checks["not_checked"]["TL040"] == "not selected by configuration"
    r = cli("doctor", log, "--format", "json", "--select", "nan", cwd=tmp_path)
    assert set(_codes(r)[1]["ran"]) <= {"TL001", "TL002", "TL003", "TL004", "TL005"}


def test_cli_threshold_option_changes_severity(cli, tmp_path):
    log = _log(tmp_path / "run.jsonl")
    r = cli("doctor", log, "--format", "json", "--threshold", "TL040.fail_fraction=1.01", cwd=tmp_path)
    assert r.code == 0 and _codes(r)[0]["TL040"] == "WARN"
    r = cli("doctor", log, "--threshold", "TL040.nope=1", cwd=tmp_path)
    assert r.code == 2 and "no threshold 'nope'" in r.err


def test_cli_config_file_found_upward_with_overrides(cli, tmp_path):
    (tmp_path / "trainlint.toml").write_text(
        '[thresholds.lr-zero]\nfail_fraction = 1.01\n[[overrides]]\npaths = ["smoke/*"]\nignore = ["lr"]\n'
    )
    _log(tmp_path / "smoke" / "run.jsonl")
    _log(tmp_path / "full" / "run.jsonl")
    work = tmp_path / "full"
    r = cli("doctor", tmp_path, "--format", "json", cwd=work)
    by = {Path(rep["source"]).parent.name: rep for rep in r.json()["reports"]}
    assert "TL040" not in {f["code"] for f in by["smoke"]["findings"]}
    assert [f["severity"] for f in by["full"]["findings"] if f["code"] == "TL040"] == ["WARN"]
    assert r.code == 0


def test_cli_bad_config_is_a_usage_error(cli, tmp_path):
    (tmp_path / "trainlint.toml").write_text('ignore = ["stagnatoin"]\n')
    r = cli("doctor", _log(tmp_path / "run.jsonl"), cwd=tmp_path)
    assert r.code == 2 and "stagnatoin" in r.err and "Traceback" not in r.err


def test_extend_select_adds_to_the_default_or_to_select():
    s = Settings()
    s.merge({"extend-select": ["TL100"]})
    assert s.enabled(_rule("TL010")) and s.enabled(_rule("TL100"))  # default is every rule
    s.merge({"select": ["nan"]})
    assert s.enabled(_rule("TL001")) and s.enabled(_rule("TL100")) and not s.enabled(_rule("TL010"))
    s.merge({"ignore": ["TL100"]})
    assert not s.enabled(_rule("TL100"))  # ignore wins


def test_an_empty_select_iterator_keeps_the_config_files_select(tmp_path, monkeypatch):
    from trainlint.api import build_options

    (tmp_path / "pyproject.toml").write_text('[tool.trainlint]\nselect = ["TL001"]\n')
    monkeypatch.chdir(tmp_path)
    assert build_options(select=()).settings.select == ["TL001"]
    assert build_options(select=iter(())).settings.select == ["TL001"]  # was [] (an iterator is truthy)


def test_a_code_typed_with_letters_for_digits_suggests_that_code_first():
    """Issue 33: `--select TL01O` suggested TL401, TL301 and TL201 but not TL010."""
    from trainlint.config import did_you_mean, parse_selectors, selector_words

    words = selector_words()
    assert did_you_mean("TL01O", words).startswith("; did you mean 'TL010' or ")
    assert did_you_mean("tlO1O", words).startswith("; did you mean 'TL010' or ")
    assert did_you_mean("TLl00", words).startswith("; did you mean 'TL100' or ")
    with pytest.raises(ConfigError, match="did you mean 'TL010'"):
        parse_selectors(["TL01O"], "select")
    assert did_you_mean("diverged", ["loss-diverged", "nan"]) == "; did you mean 'loss-diverged'?"
