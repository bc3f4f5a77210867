"""Agreement: one run recorded by two readers gets the same verdict and the same rule codes.

Pairs are generated with a real HF Trainer (trainer_state.json and its runs/ event file)
and a real Lightning run (CSVLogger metrics.csv and TensorBoardLogger event file) on a
tiny CPU model. The event files need the project's "tfevents" reader: without it these
tests skip, saying so.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_grouping import stub_events  # noqa: F401  (the dry-run fixture, see USE_STUB)
from test_grouping_runs import hf_run, lightning_run

from trainlint import api
from trainlint.readers import load_readers, sniff
from trainlint.readers.grouping import EVENTS_PREFIX, registered

# TRAINLINT_TEST_EVENTS_STUB=1 runs these against tensorboard's own loader instead (a dry run
# of the agreement before the tfevents reader exists; see test_grouping.stub_events).
USE_STUB = os.environ.get("TRAINLINT_TEST_EVENTS_STUB") == "1"


@pytest.fixture
def events_reader(request):
    load_readers()
    if registered("tfevents"):
        return "tfevents"
    if USE_STUB:
        return request.getfixturevalue("stub_events")
    pytest.skip(
        'no reader named "tfevents" is registered (the TensorBoard event reader lands on '
        "branch tfevents); the agreement tests run once it is merged"
    )


def _events_file(folder: Path) -> Path:
    found = sorted(folder.rglob(EVENTS_PREFIX + "*"))
    assert len(found) == 1, found
    return found[0]


def _verdict(path: Path):
    rep = api.judge(api.read_run(path))
    return rep.verdict.value, sorted({f.code for f in rep.findings}), rep


def _agree(a: Path, b: Path, reader: str) -> tuple[str, list[str]]:
    assert sniff(b).name == reader, f"{b.name} is read by {sniff(b).name}, not {reader}"
    va, ca, ra = _verdict(a)
    vb, cb, rb = _verdict(b)
    detail = (
        f"\n{a.name}: {va} {[f.message for f in ra.findings]} not checked {ra.checks.not_checked}"
        f"\n{b.name}: {vb} {[f.message for f in rb.findings]} not checked {rb.checks.not_checked}"
    )
    assert (va, ca) == (vb, cb), detail
    return va, ca


HF_CASES = {"healthy": (0.05, "PASS", set()), "lr-zero": (0.0, "FAIL", {"TL040"}), "diverged": (3.0, "FAIL", None)}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(HF_CASES))
def test_hf_trainer_state_and_event_file_agree(tmp_path, events_reader, case):
    lr, verdict, codes = HF_CASES[case]
    out = hf_run(tmp_path / "out", lr=lr, steps=60)
    got = _agree(out / "checkpoint-60" / "trainer_state.json", _events_file(out / "runs"), events_reader)
    assert got[0] == verdict
    if codes is not None:
        assert set(got[1]) == codes


PL_CASES = {"healthy": (0.05, "PASS"), "diverged": (1.5, "FAIL")}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(PL_CASES))
def test_lightning_csv_and_event_file_agree(tmp_path, events_reader, case):
    lr, verdict = PL_CASES[case]
    version = lightning_run(tmp_path, lr=lr, epochs=3)
    got = _agree(version / "metrics.csv", _events_file(version), events_reader)
    assert got[0] == verdict


@pytest.mark.slow
def test_evidence_pairs_agree_where_both_exist(evidence, events_reader):
    """Real files: the fish-speech Lightning folder has only the event file, the Qwen gallery
    only trainer_state.json; where a real pair turns up in the evidence folder it is judged here."""
    pairs = []
    for state in evidence.rglob("trainer_state.json"):
        ev = sorted(state.parent.rglob(EVENTS_PREFIX + "*"))
        if len(ev) == 1:
            pairs.append((state, ev[0]))
    for csv in evidence.rglob("metrics.csv"):
        ev = sorted(csv.parent.glob(EVENTS_PREFIX + "*"))
        if len(ev) == 1:
            pairs.append((csv, ev[0]))
    if not pairs:
        pytest.skip("no real run in the evidence folder is recorded by two readers")
    for a, b in pairs:
        _agree(a, b, events_reader)


OWN_EVIDENCE = Path(__file__).resolve().parents[2] / "evidence"


def _own_pairs() -> list[tuple[Path, Path]]:
    """Our gallery: each HF run wrote trainer_state.json and an event file, each Lightning run
    metrics.csv and an event file. Left out by design: the killed runs (their event file was cut
    on purpose) and the slowdown runs (only the event file has a clock, so only it can see time;
    doctor merges the two files into one run for exactly this reason)."""
    pairs = []
    for run in sorted(
        p for p in OWN_EVIDENCE.iterdir() if p.is_dir() and "killed" not in p.name and "slowdown" not in p.name
    ):
        main = run / ("trainer_state.json" if run.name.startswith("hf-") else "metrics.csv")
        ev = sorted(run.rglob(EVENTS_PREFIX + "*"))
        if main.is_file() and len(ev) == 1:
            pairs.append((main, ev[0]))
    return pairs


@pytest.mark.parametrize("pair", _own_pairs(), ids=lambda p: p[0].parent.name)
def test_own_evidence_pairs_agree(pair, events_reader):
    _agree(pair[0], pair[1], events_reader)
