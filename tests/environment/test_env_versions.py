"""Package versions from metadata (never imported) against the known-bad table."""

from __future__ import annotations

import os
import subprocess
import sys
from urllib.parse import urlparse

import pytest

from trainlint.environment.facts import Subject, VersionFacts
from trainlint.environment.versions import load_known_bad, matches, parse_version, requirement
from trainlint.inspectors.environment import group_report


@pytest.mark.parametrize(
    "version,spec,want",
    [
        ("2.1.2+cu121", "<2.3", True),
        ("2.3.0", "<2.3", False),
        ("2.3.0rc1", ">=2.2", True),
        ("0.14.0", "==0.14.*", True),
        ("0.15.0", "==0.14.*", False),
        ("1.4.5", "~=1.4", True),
        ("2.0", "~=1.4", False),
        ("2.0.0", "==2", True),
        ("1.0.post1", ">1.0", True),
        ("1.0.dev3", "<1.0", True),
        ("4.41.2", ">=4.38,<4.42", True),
        ("x.y", ">=1", None),
    ],
)
def test_specifiers(version, spec, want):
    assert matches(version, spec) is want


def test_version_order():
    assert parse_version("1.0a1") < parse_version("1.0b2") < parse_version("1.0rc1") < parse_version("1.0")
    assert parse_version("1.0") < parse_version("1.0.post1") < parse_version("1.1.dev0") < parse_version("1.1")


def test_requirement_lines():
    assert requirement('torch>=2.6; extra == "torch"') == ("torch", ">=2.6", "torch")
    assert requirement("numpy (>=1.17)") == ("numpy", ">=1.17", None)
    assert requirement('numpy<2.0; python_version < "3.12" and extra == "pytorch-test"') is None
    assert requirement('ruff==0.1; extra == "quality"') is None


def test_table_entries_are_complete():
    table = load_known_bad()
    assert len(table) >= 3
    for bad in table:
        assert bad["reason"] and bad["when"] and bad["severity"] in ("FAIL", "WARN")
        assert urlparse(bad["source"]).scheme == "https"


def judge(installed, requires=None, table=None):
    s = Subject(
        versions=VersionFacts(installed, requires or {}), known_bad=load_known_bad() if table is None else table
    )
    rep = group_report("versions", "v", s)
    return rep, rep.findings


def test_known_bad_combination_fires_with_source():
    rep, found = judge({"peft": "0.14.0", "transformers": "4.39.3", "torch": "2.1.2"})
    codes = [f.code for f in found]
    assert codes == ["TL430"]  # peft/transformers only: torch<2.3 needs numpy>=2, absent here
    assert rep.verdict.value == "FAIL"
    peft = next(f for f in found if f.evidence["id"] == "peft-0.14-old-transformers")
    assert "peft 0.14.0, transformers 4.39.3" in peft.message and "github.com" in peft.message


def test_known_bad_needs_every_package():
    rep, found = judge({"peft": "0.14.0", "transformers": "4.46.3"})
    assert found == [] and rep.verdict.value == "PASS"
    _r, found = judge({"torch": "2.2.0+cu121", "numpy": "2.0.1"})
    assert [f.evidence["id"] for f in found] == ["torch-numpy2-abi"] and found[0].severity.value == "WARN"


def test_declared_requirement_unmet():
    _r, found = judge(
        {"transformers": "5.0.0", "torch": "2.1.0", "accelerate": "0.20.0"},
        {"transformers": ['torch>=2.6; extra == "torch"', 'accelerate>=1.1.0; extra == "torch"', "numpy>=1.17"]},
        table=[],
    )
    msgs = sorted(f.message for f in found)
    assert msgs == [
        "transformers 5.0.0 requires accelerate>=1.1.0 (extra 'torch'), but accelerate 0.20.0 is installed",
        "transformers 5.0.0 requires torch>=2.6 (extra 'torch'), but torch 2.1.0 is installed",
    ]


def test_real_metadata_read_without_importing():
    code = (
        "import sys; from trainlint.environment.versions import installed; v, r = installed(); "
        "print(sorted(v)); print([m for m in ('torch', 'transformers', 'lightning') if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    lines = out.stdout.strip().splitlines()
    assert lines[-1] == "[]", out.stderr
    assert "numpy" in lines[0]


def test_this_environment_passes_versions(cli):
    r = cli("env", "--format", "json", "--select", "TL430")
    rep = next(x for x in r.json()["reports"] if x["format"] == "versions")
    assert rep["checks"]["ran"] == ["TL430"] and "numpy" in rep["summary"]


def test_declared_requirement_met_passes():
    rep, found = judge(
        {"transformers": "5.24.0", "torch": "2.13.0+cpu"}, {"transformers": ['torch>=2.6; extra == "torch"']}, table=[]
    )
    assert found == [] and "TL431" in rep.checks.ran
