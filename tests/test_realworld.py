"""The real-log calibration corpus (tests/realworld/, docs/realworld.md) pins trainlint's figures
on other people's logs: whatever part of the corpus is on this machine (the committed copies
always; ../shared/evidence and the download cache when present) must meet them."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "realworld"


def _report_module():
    spec = importlib.util.spec_from_file_location("realworld_report", ROOT / "scripts" / "realworld_report.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["realworld_report"] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def judged():
    rep = _report_module()
    return rep, [rep.judge(e) for e in rep.entries()]


def _side(repo: str) -> str:
    """The split rule, written out again here on purpose: a change of seed or rule in the script
    (which would move repositories between the parts) fails the tests below."""
    digest = hashlib.sha256(("trainlint-split-v1:" + repo).encode()).digest()
    return "test" if int.from_bytes(digest[:8], "big") % 100 < 45 else "calibration"


def _split_problems(committed: dict[str, str], repos: set[str]) -> list[str]:
    """What is wrong with a committed split list, given the manifest's repositories."""
    out = [f"{r} changed side: listed {p}, the rule gives {_side(r)}" for r, p in committed.items() if p != _side(r)]
    out += [f"{r} is in the manifest but not in split.toml" for r in sorted(repos - committed.keys())]
    out += [f"{r} is in split.toml but not in the manifest" for r in sorted(committed.keys() - repos)]
    return out


def test_split_list_is_the_rule_applied_to_the_manifest():
    split = tomllib.loads((CORPUS / "split.toml").read_text())
    repos = {e["repo"] for e in tomllib.loads((CORPUS / "manifest.toml").read_text())["log"]}
    assert split["seed"] == "trainlint-split-v1:" and split["test_below"] == 45
    assert _split_problems(split["repos"], repos) == [], "run python scripts/realworld_report.py --write-split"
    held = [r for r, p in split["repos"].items() if p == "test"]
    assert len(held) >= 0.40 * len(split["repos"]), f"test part {len(held)} of {len(split['repos'])} repositories"


def test_split_file_is_current_and_the_script_uses_the_same_rule():
    rep = _report_module()
    entries = rep.entries()
    assert (CORPUS / "split.toml").read_text() == rep.split_text(entries)
    assert all(rep.part_of(e["repo"]) == _side(e["repo"]) for e in entries)


def test_split_check_catches_a_moved_or_unlisted_repository():
    split = tomllib.loads((CORPUS / "split.toml").read_text())["repos"]
    repo = sorted(split)[0]
    moved = dict(split, **{repo: "calibration" if split[repo] == "test" else "test"})
    assert _split_problems(moved, set(split)) == [
        f"{repo} changed side: listed {moved[repo]}, the rule gives {split[repo]}"
    ]
    assert _split_problems(split, set(split) | {"someone/new"}) == [
        "someone/new is in the manifest but not in split.toml"
    ]
    assert _side("someone/new") in ("test", "calibration")


def test_manifest_entries_have_provenance_and_committed_files_a_licence():
    entries = tomllib.loads((CORPUS / "manifest.toml").read_text())["log"]
    assert len(entries) >= 80
    assert len({e["id"] for e in entries}) == len(entries)
    for e in entries:
        assert e["repo"] and e["path"] and e["label"] in ("healthy", "broken", "unknown", "no-loss"), e["id"]
        assert e.get("evidence") or len(e["commit"]) == 40, e["id"]
        if e["file"]:
            assert e["licence"] in ("MIT", "Apache-2.0", "BSD", "CC-BY"), e["id"]
            assert (CORPUS / e["file"]).is_file() and (CORPUS / e["file"]).parent.joinpath("LICENSE").is_file()


def test_committed_part_of_the_corpus_is_present(judged):
    _, rows = judged
    committed = [r for r in rows if r.entry["file"]]
    assert len(committed) >= 8 and all(r.path is not None for r in committed)


def test_figures_hold_on_what_is_here(judged):
    rep, rows = judged
    f = rep.figures(rows)
    assert f["read_rate"] >= 0.95, [(r.entry["id"], r.reason) for r in f["unread"]]
    assert f["healthy_fail"] == [], [(r.entry["id"], r.findings) for r in f["healthy_fail"]]
    assert len(f["healthy_warn"]) <= 0.05 * max(f["healthy"], 1), [
        (r.entry["id"], r.findings) for r in f["healthy_warn"]
    ]
    assert f["broken_missed"] == [], [(r.entry["id"], r.verdict) for r in f["broken_missed"]]


def test_committed_logs_are_judged_as_labelled(judged):
    _, rows = judged
    for r in rows:
        if not r.entry["file"]:
            continue
        if r.entry["label"] == "healthy":
            assert r.verdict == "PASS", (r.entry["id"], r.findings)
        elif r.entry["label"] == "broken" and r.entry["visible"]:
            assert r.verdict in ("WARN", "FAIL"), r.entry["id"]


def test_document_is_current_when_the_whole_corpus_is_here(judged):
    rep, rows = judged
    if any(r.path is None for r in rows):
        pytest.skip("part of the corpus is not on this machine (run scripts/realworld_fetch.py)")
    assert (ROOT / "docs" / "realworld.md").read_text() == rep.render(rows)
