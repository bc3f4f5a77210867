"""Every reader and inspector, fed near-valid inputs of its format that are then mutated
(tests/fuzz_targets.py): a verdict or NOT-CHECKED with a one-line reason, never an exception
or a time-out. A small budget here (CI replays a fixed set, see conftest.py); long runs:
``python scripts/fuzz.py --minutes N``."""

from __future__ import annotations

import pytest
from fuzz_targets import TARGETS, check_files
from hypothesis import HealthCheck, given, settings

BUDGET = 12  # examples per target in the test suite


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_fuzz_target(name):
    @settings(
        max_examples=BUDGET,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(TARGETS[name].strategy())
    def run(files):
        check_files(files)

    run()


def test_a_metric_name_with_a_newline_keeps_the_reason_on_one_line():
    # found by the fuzzer: a tokenizer.json whose vocabulary's one key is "\n" is read as JSON
    # lines, and the metric it names (model/vocab/\n) went into the NOT-CHECKED reason as it was
    check_files(
        {
            "tok/tokenizer.json": b'{"model": {"type": "BPE", "vocab": {"\\n": 0}, "merges": ["t a", "t b"]}, '
            b'"added_tokens": [{"id": 0, "content": "<s>", "special": true}]}',
            "tok/tokenizer_config.json": b'{"eos_token": null, "bos_token": "<s>", "model_max_length": 0.0}',
        }
    )
