"""Damaged input never raises and never passes: every cut of a real checkpoint is
reported (truncated or damaged), and random byte damage gives a report, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainlint.inspectors.checkpoint_judge import judge_path
from trainlint.picklewalk import walk

torch = pytest.importorskip("torch")
HERE = {}


def _files(tmp_root: Path) -> dict[str, bytes]:
    if not HERE:
        from safetensors.torch import save_file

        sd = {"a.weight": torch.randn(6, 6), "b": torch.arange(10), "c": torch.ones(3, dtype=torch.bfloat16)}
        torch.save(sd, tmp_root / "m.pt")
        torch.save(sd, tmp_root / "old.pt", _use_new_zipfile_serialization=False)
        save_file(sd, tmp_root / "m.safetensors")
        HERE.update({p.name: p.read_bytes() for p in tmp_root.iterdir()})
    return HERE


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return _files(tmp_path_factory.mktemp("fuzz"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(["m.pt", "old.pt", "m.safetensors"]), frac=st.floats(0.0, 0.999))
def test_any_cut_is_reported_never_passes(files, tmp_path, name, frac):
    data = files[name]
    cut = max(1, int(len(data) * frac))
    p = tmp_path / name
    p.write_bytes(data[:cut])
    rep = judge_path(p)
    assert rep.verdict.value in ("FAIL", "NOT-CHECKED"), (name, cut, len(data), rep.to_dict())


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(["m.pt", "old.pt", "m.safetensors"]),
    flips=st.lists(st.tuples(st.floats(0, 0.9999), st.integers(1, 255)), min_size=1, max_size=6),
)
def test_random_damage_gives_a_report(files, tmp_path, name, flips):
    data = bytearray(files[name])
    for where, xor in flips:
        data[int(where * len(data))] ^= xor
    p = tmp_path / name
    p.write_bytes(bytes(data))
    rep = judge_path(p)
    rep.to_dict()  # serialisable, no exception


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_walk_never_raises(data):
    res = walk(data)
    assert res.complete or res.error
