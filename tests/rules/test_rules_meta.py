"""The typed run metadata record (model.RunMeta): what the log rules read of run.meta."""

import math

import msgspec
import numpy as np
import pytest
from _rulekit import apply, decay, judge, make_run, not_checked, one

from trainlint.engine import run_rules
from trainlint.model import PLAN_KEYS, RunMeta, read_meta
from trainlint.verdict import Report

FIELDS = tuple(RunMeta.__struct_fields__)
TEXT_FIELDS = ("best_model_checkpoint", "clock")


def test_a_string_max_steps_reaches_no_rule_as_a_string():
    run = make_run(decay(50), meta={"max_steps": "1000"})
    assert RunMeta.of(run).max_steps is None
    assert "planned length unknown" in not_checked("TL080", run)  # a rule called without the engine
    rep = judge(run)  # the engine notes and drops it before any rule runs
    assert "max_steps" not in run.meta
    assert "max_steps = '1000' is not a plan (not a finite number of steps); ignored" in rep.notes
    assert "TL080" in rep.checks.not_checked


def test_every_field_of_the_wrong_type_is_unknown():
    meta = {key: "100" for key in FIELDS if key not in TEXT_FIELDS} | {key: 100 for key in TEXT_FIELDS}
    record, dropped = read_meta(meta)
    assert record == RunMeta() and set(dropped) == set(FIELDS)
    assert dropped["vocab_size"] == "vocab_size = '100' is not a finite number; ignored"
    assert dropped["clock"] == "clock = an integer of 3 digits is not text; ignored"


@pytest.mark.parametrize("bad", [True, math.nan, math.inf, 10**400, "7", [3]])
def test_a_number_that_is_no_number_is_unknown(bad):
    record, dropped = read_meta({"learning_rate": bad, "best_step": bad, "max_steps": bad})
    assert (record.learning_rate, record.best_step, record.max_steps) == (None, None, None)
    assert set(dropped) == {"learning_rate", "best_step", "max_steps"}


def test_values_keep_their_type_and_none_is_unknown():
    meta = {"max_steps": 1000, "learning_rate": 3e-4, "completed": True, "checkpoints": ["checkpoint-500", 700, None]}
    record, dropped = read_meta(meta | {"best_model_checkpoint": None, "logging_steps": None})
    assert dropped == {}
    assert type(record.max_steps) is int and record.learning_rate == 3e-4 and record.completed is True
    assert record.checkpoints == ("checkpoint-500", 700)  # entries of another type left out
    assert msgspec.structs.asdict(record)["best_model_checkpoint"] is None


def test_plan_keys_are_fields():
    assert set(PLAN_KEYS) <= set(FIELDS)


def _all_log_rules(meta):
    run = make_run(decay(50), steps=np.arange(10, 510, 10), lr=np.linspace(1e-4, 1e-3, 50), meta=meta)
    return run_rules("log", run, Report(source=run.source, kind="log"), None, None)  # no engine check


@pytest.mark.parametrize("bad", ["yes", True, math.inf])
def test_wrong_types_act_as_unknown_for_every_log_rule(bad):
    """Metadata that says everything with the wrong type is read by the rules as saying nothing,
    even when they are applied without the engine's check."""
    flags = ("completed", "crash_scanned", "skips_scanned", "stop_requested", "loss_unnamed")
    wrong = {key: 100 if key in TEXT_FIELDS else "yes" if key in flags else bad for key in FIELDS}
    bare, got = _all_log_rules({}), _all_log_rules(wrong)
    assert [f.to_dict() for f in got.findings] == [f.to_dict() for f in bare.findings]
    assert got.checks.to_dict() == bare.checks.to_dict()


def test_the_engine_notes_each_wrong_type():
    wrong = {key: "yes" for key in FIELDS if key not in TEXT_FIELDS}
    bare, bad = judge(make_run(decay(50))), judge(make_run(decay(50), meta=wrong))
    assert len(bad.notes) == len(bare.notes) + len(wrong)


def test_rules_read_the_record():
    run = make_run(decay(50), steps=np.arange(10, 510, 10), meta={"max_steps": 1000, "logging_steps": 10})
    f = one("TL080", run)
    assert f.evidence["planned"] == 1000 and f.evidence["reached"] == 500
    run.meta["completed"] = True
    assert "TL080" in apply("TL080", run).checks.stood_down
    run.meta["completed"] = "true"  # text is not a completion record
    assert "TL080" not in apply("TL080", run).checks.stood_down
