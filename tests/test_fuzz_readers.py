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
