"""The hostile-input corpus (tests/bad_inputs/): every case gives its expected verdict, codes and
exit code, within a time and memory limit, without running any payload, writing anything under
the scanned paths or leaving temporary files behind."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "tests" / "bad_inputs"
CORPUS = HERE / "corpus"
CASES = tomllib.loads((HERE / "cases.toml").read_text("utf-8"))["case"]
CASE_SECONDS = 15.0  # every case costs seconds of CPU (a bound on work: wall time varies with load)
ADDRESS_SPACE = 4 << 30  # RLIMIT_AS of a runner process: a runaway allocation fails instead of swapping
GB = 1 << 30


def _generator():
    spec = importlib.util.spec_from_file_location("make_bad_inputs", ROOT / "scripts" / "make_bad_inputs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _hash_tree(root: Path) -> dict[str, str]:
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for name in sorted(files + dirs):
            p = Path(dirpath) / name
            rel = str(p.relative_to(root))
            if p.is_symlink():
                out[rel] = "link:" + os.readlink(p)
            elif p.is_file() and os.access(p, os.R_OK):
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                out[rel] = "dir" if p.is_dir() else "special"
    return out


def _run(cases: list[dict], workdir: Path) -> tuple[dict[str, dict], int]:
    """Run cases in one runner process (cwd and TMPDIR: empty folders); results by label, peak RSS."""
    cwd, tmp = workdir / "cwd", workdir / "tmp"
    cwd.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "NO_COLOR": "1",
        "TMPDIR": str(tmp),
    }
    env.pop("TRAINLINT_DEBUG", None)
    job = {"cases": cases, "memory_bytes": ADDRESS_SPACE}
    proc = subprocess.run(
        [sys.executable, str(HERE / "runner.py")],
        input=json.dumps(job),
        capture_output=True,
        check=False,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60 + CASE_SECONDS * len(cases),
    )
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert rows and "max_rss_bytes" in rows[-1], proc.stderr[-3000:]
    assert sorted(os.listdir(cwd)) == [], f"files appeared in the working folder (a payload ran?): {os.listdir(cwd)}"
    assert sorted(os.listdir(tmp)) == [], f"temporary files left behind: {os.listdir(tmp)}"
    return {r["name"]: r for r in rows[:-1]}, rows[-1]["max_rss_bytes"]


def _check(case: dict, got: dict) -> list[str]:
    label = case.get("label", case["name"])
    problems = []
    if "error" in got:
        return [f"{label}: no JSON envelope: {got['error']}"]
    for key in ("verdict", "exit", "codes"):
        if got.get(key) != case[key]:
            problems.append(f"{label}: {key} {got.get(key)!r}, expected {case[key]!r}")
    if "reason" in case and not any(case["reason"] in r for r in got.get("reasons", [])):
        problems.append(f"{label}: reason {got.get('reasons')!r} lacks {case['reason']!r}")
    if "skipped" in case and got.get("skipped") != sorted(case["skipped"]):
        problems.append(f"{label}: skipped {got.get('skipped')!r}, expected {sorted(case['skipped'])!r}")
    if got["cpu_seconds"] > CASE_SECONDS:
        problems.append(f"{label}: took {got['cpu_seconds']} s of CPU ({got['seconds']} s wall)")
    return problems


def test_corpus_is_large_and_covers_the_issue():
    names = {c["name"] for c in CASES}
    assert len(CASES) >= 60
    for needed in (
        "garbage_csv_newlines",
        "huge_int_loss_jsonl",
        "huge_int_step_jsonl",
        "huge_digits_training_args",
        "deep_tokenizer",
        "symlink_loop",
        "mlflow_sqlite_null_timestamps",
        "fifo_in_folder",
        "huge_line_console",
        "zip_bomb_pickle",
        "big_nested_tokenizer",
        "tfevents_length_2_40_crc_ok",
        "shard_index_outside",
        "zip_traversal_names",
        "safetensors_header_2_63",
        "utf16_trainer_state",
        "max_steps_1e999",
    ):
        assert needed in names
    evil = [n for n in names if n.startswith("evil_")]
    assert len(evil) == 15  # 7 payloads x (zip, legacy) + a protocol-0 pickle


def test_static_corpus_cases(tmp_path):
    static = [c for c in CASES if not c.get("dynamic")]
    before = _hash_tree(CORPUS)
    cases = [
        {
            "name": c["name"],
            "path": str(CORPUS / c["name"] / c["target"]),
            "args": c.get("args", []),
        }
        for c in static
    ]
    got, rss = _run(cases, tmp_path)
    problems = [p for c in static for p in _check(c, got[c["name"]])]
    assert not problems, "\n".join(problems)
    assert rss < GB, f"peak memory {rss >> 20} MiB over the static corpus"
    assert _hash_tree(CORPUS) == before, "something was written under the scanned corpus"


def test_static_corpus_matches_its_generator(tmp_path):
    """The committed files are what scripts/make_bad_inputs.py writes (SQLite files aside)."""
    _generator().build_static(tmp_path)
    fresh, committed = _hash_tree(tmp_path), _hash_tree(CORPUS)
    assert sorted(fresh) == sorted(committed)
    differ = [k for k in fresh if fresh[k] != committed[k] and not k.endswith(".db")]
    assert not differ, f"run: python scripts/make_bad_inputs.py --static tests/bad_inputs/corpus ({differ[:5]})"


@pytest.mark.parametrize("group", ["big", "special"])
def test_dynamic_cases(tmp_path, group):
    """Large files (a 48 MB line, 2 GiB zip bombs) one process each; FIFOs, sockets, devices, links together."""
    big = {
        "huge_line_console",
        "huge_line_jsonl",
        "big_nested_tokenizer",
        "zip_bomb_pickle",
        "zip_bomb_storage",
    }
    wanted = [
        c
        for c in CASES
        if c.get("dynamic") and (c["name"] in big) == (group == "big") and (not c.get("root_only") or os.geteuid() == 0)
    ]
    built = _generator().build_dynamic(tmp_path / "in", sorted({c["name"] for c in wanted}))
    before = _hash_tree(tmp_path / "in")
    problems = []
    batches = [[c] for c in wanted] if group == "big" else [wanted]
    for i, batch in enumerate(batches):
        cases = [
            {
                "name": c.get("label", c["name"]),
                "path": str(built[c["name"]].parent / c["target"])
                if built[c["name"]].name != c["target"]
                else str(built[c["name"]]),
                "args": c.get("args", []),
            }
            for c in batch
        ]
        got, rss = _run(cases, tmp_path / f"run{i}")
        size = max(_size(Path(x["path"])) for x in cases)
        limit = max(GB, 10 * size)
        problems += [p for c in batch for p in _check(c, got[c.get("label", c["name"])])]
        if rss >= limit:
            problems.append(f"{[c['name'] for c in batch]}: peak memory {rss >> 20} MiB (limit {limit >> 20} MiB)")
    if group == "special":  # all of them in one scan: it finishes, and judges what is judgeable
        got, _ = _run([{"name": "all", "path": str(tmp_path / "in")}], tmp_path / "all")
        if got["all"]["cpu_seconds"] > 60 or "error" in got["all"]:
            problems.append(f"one scan over every special case: {got['all']}")
    assert not problems, "\n".join(problems)
    assert _hash_tree(tmp_path / "in") == before


def _size(path: Path) -> int:
    if path.is_file() and not path.is_symlink():
        return path.stat().st_size
    if path.is_dir() and not path.is_symlink():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    return 0


def test_whole_corpus_in_one_scan(tmp_path):
    """doctor over every static case at once finishes, judges each input, and exits like its worst one."""
    got, rss = _run([{"name": "all", "path": str(CORPUS)}], tmp_path)
    row = got["all"]
    assert row["verdict"] == "FAIL" and row["exit"] == 1, row
    assert row["cpu_seconds"] < 60 and rss < GB


def test_the_runner_reports_its_own_peak_memory_not_its_parents():
    """A child's ru_maxrss keeps the peak of the process image it was forked from: run from a
    1 GB pytest process (one that has loaded torch and Ray), the runner reported 1 GB and the
    memory checks above failed on nothing. It reads its own peak (VmHWM)."""
    parent = (
        "import json, subprocess, sys\n"
        "ballast = bytearray(1200 << 20)\n"
        "ballast[::4096] = b'x' * len(range(0, len(ballast), 4096))\n"
        f"out = subprocess.run([sys.executable, {str(HERE / 'runner.py')!r}], input=json.dumps({{'cases': []}}),\n"
        "                      capture_output=True, text=True).stdout\n"
        "print(json.loads(out.splitlines()[-1])['max_rss_bytes'])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    rss = int(subprocess.run([sys.executable, "-c", parent], capture_output=True, text=True, env=env).stdout)
    assert rss < 200 << 20, f"{rss >> 20} MiB"
