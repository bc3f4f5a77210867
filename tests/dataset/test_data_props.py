"""Properties of the bounded collectors and the streaming JSON-array reader."""

from __future__ import annotations

import json
from collections import defaultdict

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainlint.dataset import sources
from trainlint.dataset.rows import HashLog, Rows


@given(st.lists(st.integers(0, 6), max_size=200))
def test_duplicate_groups_match_brute_force(keys):
    log = HashLog()
    for line, k in enumerate(keys, 1):
        log.add(line, k, k % 3)
    by = defaultdict(list)
    for line, k in enumerate(keys, 1):
        by[k].append(line)
    expect = sorted((g for g in by.values() if len(g) > 1), key=lambda g: g[0])
    assert [list(map(int, g)) for g in log.groups("exact")] == expect


@given(st.lists(st.lists(st.integers(1, 1000), max_size=40, unique=True), max_size=5))
def test_rows_merged_keeps_first_20_and_counts(parts):
    rows = []
    for part in parts:
        r = Rows()
        for n in sorted(part):
            r.add(n)
        rows.append(r)
    merged = Rows.merged(rows)
    assert merged.count == sum(len(p) for p in parts)
    assert merged.lines == sorted(n for p in parts for n in sorted(p)[:20])[:20]


ROW = st.dictionaries(
    st.sampled_from(["text", "label", "x"]),
    st.one_of(st.text(max_size=30), st.integers(), st.none(), st.lists(st.text(max_size=5), max_size=3)),
    max_size=3,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(rows=st.lists(ROW, max_size=30), chunk=st.integers(5, 200), indent=st.sampled_from([None, 1]))
def test_json_array_stream_equals_json_loads(tmp_path, monkeypatch, rows, chunk, indent):
    monkeypatch.setattr(sources, "CHUNK", chunk)
    p = tmp_path / "a.json"
    p.write_text(json.dumps(rows, indent=indent, ensure_ascii=False), encoding="utf-8")
    got = [row for _, row, _ in sources.iter_json_array(p)]
    assert got == rows


CHUNKS = st.sampled_from(
    [
        b'{"text": "a"}\n',
        b'{"messages": [',
        b'"',
        b"\n",
        b"\xff\xfe",
        b"[",
        b"]",
        b",",
        b'{"prompt": 1, "completion": null}\n',
        b"a,b\n",
        b"\x00",
        b"PAR1",
        b"}",
        b"\\u12",
    ]
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(parts=st.lists(CHUNKS, max_size=25), suffix=st.sampled_from([".jsonl", ".json", ".csv", ".txt", ".dat"]))
def test_any_bytes_give_a_report_never_a_traceback(tmp_path, parts, suffix):
    from trainlint.inspectors.dataset_judge import judge_dataset

    p = tmp_path / f"x{suffix}"
    p.write_bytes(b"".join(parts))
    for report in judge_dataset(p):
        assert report.unjudged is None or "\n" not in report.unjudged
        report.to_dict()
