"""The msgspec fast paths of the JSON-lines and trainer_state.json readers read exactly what the
general paths read, and decline (return None) on every input they do not fully understand."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from trainlint.model import Run
from trainlint.readers import _fastjson, hf_trainer_state, jsonl
from trainlint.readers.base import ReadError

NUM = st.one_of(
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
)
KEYS = st.sampled_from(["step", "loss", "lr", "grad_norm", "eval_loss", "train/acc", "epoch"])
ROW = st.dictionaries(KEYS, st.one_of(NUM, st.none()), min_size=1, max_size=5)


def _series(run: Run) -> dict[str, tuple[list[float], list[float]]]:
    return {k: (s.steps.tolist(), s.values.tolist()) for k, s in run.series.items()}


def _general_jsonl(path) -> Run:
    text = path.read_text()
    run = Run(str(path), "jsonl")
    jsonl._general(text, run).into(run)
    return run


@settings(max_examples=80, deadline=None)
@given(st.lists(ROW, min_size=1, max_size=40), st.booleans())
def test_jsonl_fast_path_equals_general_path(tmp_path_factory, rows, compact):
    path = tmp_path_factory.mktemp("j") / "m.jsonl"
    seps = (",", ":") if compact else (", ", ": ")
    path.write_text("".join(json.dumps(r, separators=seps) + "\n" for r in rows))
    slow = _general_jsonl(path)
    if not slow.series:
        with pytest.raises(ReadError):
            jsonl._bulk(path)
        return
    fast = jsonl._bulk(path)
    assert fast is not None
    assert _series(fast) == _series(slow)
    assert list(fast.series) == list(slow.series) and fast.notes == slow.notes


@pytest.mark.parametrize("eol", ["\r\n", "  \n", "\n"])
def test_jsonl_fast_path_line_ends(tmp_path, eol):
    path = tmp_path / "m.jsonl"
    path.write_bytes(eol.join(f'{{"step": {i}, "loss": {i / 3}}}' for i in range(50)).encode())
    fast = jsonl._bulk(path)
    assert fast is not None and _series(fast) == _series(_general_jsonl(path))
    assert len(fast.get("loss")) == 50


def test_jsonl_fast_path_in_many_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(_fastjson, "BLOCK", 64)
    rows = [{"step": i, "loss": 1.0 / (i + 1)} for i in range(200)]
    rows[150]["eval_loss"] = 0.5  # a key first met in a late block
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    fast = jsonl._bulk(path)
    assert fast is not None and _series(fast) == _series(_general_jsonl(path))
    assert fast.get("eval_loss").steps.tolist() == [150]


@pytest.mark.parametrize(
    "odd",
    [
        '{"step": 3, "loss": NaN}',
        '{"step": 3, "loss": 1e999}',
        '{"step": 3, "loss": "inf"}',
        '{"step": 3, "loss": true}',
        '{"step": 3} {"step": 4, "loss": 1}',
        '{"step": 3} {"step": 4, "loss": 1}\n',  # as many objects as lines, with a blank one
        '{"step": 3}{"step": 4, "loss": 1}\r\n\r',
        "banner",
        "",
        '{"step": 3, "loss": [1]}',
        '{"step": 3, "loss": ' + "9" * 400 + "}",
        '{"step": 3, "lo',
        '{"step": 3, "loss": 01}',
    ],
)
def test_jsonl_fast_path_declines_odd_lines(tmp_path, odd):
    path = tmp_path / "m.jsonl"
    path.write_text('{"step": 1, "loss": 2.0}\n{"step": 2, "loss": 1.5}\n' + odd + '\n{"step": 5, "loss": 1.0}\n')
    assert jsonl._bulk(path) is None


def _general_state(path) -> Run:
    text = path.read_text()
    state = json.loads(text)
    run = Run(str(path), "hf-trainer-state")
    run.meta.update({k: state[k] for k in hf_trainer_state.META_KEYS if k in state})
    hf_trainer_state._columns(state["log_history"], run).into(run)
    return run


ENTRY = st.one_of(
    ROW,
    st.fixed_dictionaries(
        {
            "step": st.integers(0, 100),
            "train_runtime": NUM,
            "train_loss": NUM,
            "total_flos": NUM,
        }
    ),
)


@settings(max_examples=80, deadline=None)
@given(st.lists(ENTRY, max_size=40), st.booleans())
def test_trainer_state_fast_path_equals_general_path(tmp_path_factory, entries, pretty):
    path = tmp_path_factory.mktemp("h") / "trainer_state.json"
    path.write_text(
        json.dumps(
            {
                "global_step": 30,
                "best_model_checkpoint": None,
                "log_history": entries,
                "stateful_callbacks": {"x": {"args": {}}},
            },
            indent=2 if pretty else None,
        )
    )
    fast = hf_trainer_state._bulk(path.read_bytes(), path)
    slow = _general_state(path)
    assert fast is not None
    assert _series(fast) == _series(slow)
    assert fast.meta == slow.meta
    assert fast.notes == slow.notes


def test_trainer_state_fast_path_in_many_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(_fastjson, "BLOCK", 100)
    entries = [{"step": i, "loss": 2.0 - i / 100, "learning_rate": 1e-4} for i in range(1, 120)]
    entries.insert(60, {"step": 60, "eval_loss": 1.5, "eval_runtime": 2})
    entries.append({"step": 119, "train_runtime": 10.0, "total_flos": 3, "train_loss": 1.2})
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps({"max_steps": 119, "log_history": entries}, indent=2))
    fast = hf_trainer_state._bulk(path.read_bytes(), path)
    assert fast is not None and _series(fast) == _series(_general_state(path))
    assert fast.meta["summary"] == {
        "step": 119,
        "train_runtime": 10.0,
        "total_flos": 3,
        "train_loss": 1.2,
    }
    assert type(fast.meta["summary"]["total_flos"]) is int


@pytest.mark.parametrize(
    "entry",
    [
        '{"step": 3, "loss": NaN}',
        '{"step": 3, "loss": "NaN"}',
        '{"step": 3, "loss": true}',
        '{"step": 3, "loss": {"a": 1}}',
        '{"step": 3, "train_runtime": null}',
        "3",
    ],
)
def test_trainer_state_fast_path_declines_odd_entries(tmp_path, entry):
    path = tmp_path / "trainer_state.json"
    path.write_text('{"max_steps": 3, "log_history": [{"step": 1, "loss": 2.0}, ' + entry + "]}")
    assert hf_trainer_state._bulk(path.read_bytes(), path) is None


def test_jsonl_fast_path_learns_keys_first_met_late(tmp_path):
    rows = [{"step": i, "loss": 1.0 / (i + 1)} for i in range(400)]
    rows[350]["eval_loss"] = 0.5  # past the first lines the reader looks at
    rows[399]["eval/acc"] = 0.75
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    fast = jsonl._bulk(path)
    assert fast is not None and _series(fast) == _series(_general_jsonl(path))
    assert fast.get("eval_loss").steps.tolist() == [350] and fast.get("eval/acc").values.tolist() == [0.75]


def test_jsonl_fast_path_gives_up_after_too_many_new_keys(tmp_path):
    rows = [{"step": i, "loss": 1.0} for i in range(300)]
    rows += [{"step": 300 + i, f"metric_{i}": 1.0} for i in range(_fastjson.MAX_NEW_FIELDS + 1)]
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert jsonl._bulk(path) is None


def test_trainer_state_fast_path_learns_keys_first_met_late(tmp_path):
    entries = [{"step": i, "loss": 2.0 - i / 1e4, "learning_rate": 1e-4, "grad_norm": 0.5} for i in range(1, 3001)]
    entries[1500]["eval_loss"] = 1.5  # beyond the first and last 64 KB the reader looks at
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps({"max_steps": 3000, "log_history": entries}, indent=2))
    assert path.stat().st_size > 3 * (1 << 16)
    fast = hf_trainer_state._bulk(path.read_bytes(), path)
    assert fast is not None and _series(fast) == _series(_general_state(path))
    assert fast.get("eval_loss").steps.tolist() == [1501]


@pytest.mark.parametrize(
    "doc",
    [
        b'{"stateful_callbacks": ' + b"[" * 5000 + b"]" * 5000 + b', "log_history": [{"step": 1, "loss": 2.0}]}',
        b'{"log_history": [' + b"[" * 5000 + b"]" * 5000 + b"]}",
        b'{"max_steps": ' + b"[" * 5000 + b"]" * 5000 + b', "log_history": [{"step": 1, "loss": 2.0}]}',
    ],
    ids=["deep-unknown-key", "deep-entry", "deep-meta"],
)
def test_trainer_state_fast_path_declines_deep_nesting_and_the_general_path_refuses_it(tmp_path, doc):
    """The fast path runs before any bounds check, so it must decline deep nesting itself (no
    RecursionError); the general path then refuses the document with the bound it broke."""
    assert _fastjson.trainer_state_table(doc, hf_trainer_state.META_KEYS, hf_trainer_state.SUMMARY_KEYS) is None
    path = tmp_path / "trainer_state.json"
    path.write_bytes(doc)
    with pytest.raises(ReadError, match="nested more than 500 levels"):
        hf_trainer_state.TrainerStateReader().read(path)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 30), st.sets(st.sampled_from("abcd"), min_size=1), st.integers(1, 5000)),
        min_size=1,
        max_size=12,
    ),
    st.integers(1, 20_000),
)
def test_parts_equal_the_blocks_joined_whatever_the_size_estimate(blocks, total_bytes):
    """Columns written into arrays sized from the first block (grown when short, trimmed when
    long) equal the blocks' columns joined, NaN where a block lacks a key."""
    import numpy as np

    parts, seen, start = _fastjson._Parts(total_bytes), [], 0
    for n, keys, nbytes in blocks:
        table = {k: np.arange(start, start + n, dtype=float) + ord(k) / 10 for k in sorted(keys)}
        parts.add(table, n, nbytes)
        seen.append((n, table))
        start += n
    got = parts.stack()
    keys = {k for _, t in seen for k in t}
    want = {k: np.concatenate([t.get(k, np.full(n, np.nan)) for n, t in seen]) for k in keys}
    assert got.keys() == want.keys() and parts.count == start
    for k in keys:
        np.testing.assert_array_equal(got[k], want[k])


def test_trainer_state_fast_path_finds_log_history_without_a_pass_over_the_entries(tmp_path, monkeypatch):
    """The array is located by its key and its first ']' and the rest of the document decoded
    with [] in its place: the whole-document pass is not needed for a common file."""
    entries = [{"step": i, "loss": 2.0 - i / 100} for i in range(1, 50)]
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps({"global_step": 49, "log_history": entries, "trial_params": {"lr": [1, 2]}}, indent=2))

    def no_full_pass(*args):
        raise AssertionError("decoded the whole document")

    monkeypatch.setattr(_fastjson, "_decode_state", no_full_pass)
    fast = hf_trainer_state._bulk(path.read_bytes(), path)
    assert fast is not None and _series(fast) == _series(_general_state(path))
    assert fast.meta["global_step"] == 49


@pytest.mark.parametrize(
    "doc",
    [
        {"log_history": [{"step": 1, "lo]ss": 2.0}, {"step": 2, "lo]ss": 1.5}]},
        {"trial_params": {"log_history": [1, 2]}, "log_history": [{"step": 1, "loss": 2.0}]},
        {"best_model_checkpoint": 'x"log_history": [', "log_history": [{"step": 1, "loss": 2.0}]},
    ],
    ids=["bracket-in-a-key", "nested-log-history-first", "key-text-in-a-string"],
)
def test_trainer_state_fast_path_where_the_cheap_split_is_wrong(tmp_path, doc):
    """Where the first '"log_history": [' or its first ']' is not the top-level array, the whole
    document is decoded instead, and the columns are still the general path's."""
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps(doc))
    fast = hf_trainer_state._bulk(path.read_bytes(), path)
    assert fast is not None and _series(fast) == _series(_general_state(path))


def test_trainer_state_fast_path_with_two_log_history_keys_reads_the_last_like_the_general_path(tmp_path):
    path = tmp_path / "trainer_state.json"
    path.write_text('{"log_history": [{"step": 1, "loss": 9.0}], "log_history": [{"step": 1, "loss": 2.0}]}')
    fast = hf_trainer_state._bulk(path.read_bytes(), path)
    assert fast is not None and _series(fast) == _series(_general_state(path))
    assert fast.get("loss").values.tolist() == [2.0]


AWKWARD = st.sampled_from(["step", "loss", "a]b", 'q"x', "log_history", "]", "e[1]", "eval_loss"])
OTHER = st.recursive(
    st.one_of(st.none(), NUM, st.sampled_from(["", "]", '"log_history": [', "x"])),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["log_history", "]", "x"]), inner, max_size=3)
    ),
    max_leaves=6,
)
SIDE = st.dictionaries(st.sampled_from(["trial_params", "max_steps", "z", "log_history"]), OTHER, max_size=3)


@settings(max_examples=150, deadline=None)
@given(SIDE, st.lists(st.dictionaries(AWKWARD, NUM, max_size=4), max_size=6), SIDE, st.booleans())
@example({}, [{"loss": 0}], {"log_history": []}, False)  # a second, empty log_history: the one read
def test_trainer_state_fast_path_equals_general_path_around_awkward_documents(
    tmp_path_factory, head, entries, tail, pretty
):
    """Whatever surrounds log_history (nested arrays and objects, 'log_history' keys and texts,
    brackets in metric names, a second log_history), the fast path reads what the general path
    reads, or declines."""
    entries = [{"step": i, **e} for i, e in enumerate(entries)]
    indent = 2 if pretty else None
    parts = [json.dumps(k) + ": " + json.dumps(v, indent=indent) for k, v in head.items()]
    parts.append('"log_history": ' + json.dumps(entries, indent=indent))
    parts += [json.dumps(k) + ": " + json.dumps(v, indent=indent) for k, v in tail.items()]
    path = tmp_path_factory.mktemp("h") / "trainer_state.json"
    path.write_text("{" + ",\n".join(parts) + "}")
    fast = hf_trainer_state._bulk(path.read_bytes(), path)
    with mock.patch.object(hf_trainer_state, "_bulk", lambda data, path: None):
        try:
            slow = hf_trainer_state.TrainerStateReader().read(path)
        except ReadError:
            slow = None
    if fast is not None:
        assert slow is not None
        assert _series(fast) == _series(slow)
        assert fast.meta == slow.meta


@pytest.mark.parametrize("name", ['lo"ss', "lo\\ss", "lo\tss"])
def test_a_metric_name_msgspec_cannot_map_is_read_by_the_general_path(tmp_path, name):
    """msgspec refuses field names holding a quote, a backslash or a control character: the fast
    paths decline such a file (they raised ValueError, and the file came out NOT-CHECKED)."""
    rows = [{"step": 1, name: 2.0, "loss": 2.0}, {"step": 2, name: 1.0, "loss": 1.5}]
    state = tmp_path / "trainer_state.json"
    state.write_text(json.dumps({"log_history": rows}))
    lines = tmp_path / "metrics.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert hf_trainer_state._bulk(state.read_bytes(), state) is None
    assert jsonl._bulk(lines) is None
    assert hf_trainer_state.TrainerStateReader().read(state).get(name).values.tolist() == [2.0, 1.0]
    assert jsonl.JsonlReader().read(lines).get(name).values.tolist() == [2.0, 1.0]


@pytest.mark.parametrize(
    "doc",
    [
        b'{"max_steps": 3, "log_history": [{"step": 1, "lo\xffss": 2.0}]}',  # in an entry's key
        b'{"trial_name": "r\xffn", "log_history": [{"step": 1, "loss": 2.0}]}',  # in a field not read
        b'{"log_history": [{"step": 1, "loss": 2.0}], "x": ["\xff"]}',  # after the entries
    ],
)
def test_trainer_state_fast_path_declines_invalid_utf8_wherever_it_is(tmp_path, doc):
    """Its bytes are not checked in one pass: the entries' decode refuses a bad key, and the rest
    is checked before its decode. The general path then notes what it replaced."""
    path = tmp_path / "trainer_state.json"
    path.write_bytes(doc)
    assert hf_trainer_state._bulk(doc, path) is None
    run = hf_trainer_state.TrainerStateReader().read(path)
    assert any("UTF-8" in n or "replaced" in n for n in run.notes), run.notes


def test_jsonl_fast_path_declines_invalid_utf8_in_a_key(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_bytes(b'{"step": 1, "loss": 2.0}\n{"step": 2, "lo\xffss": 1.5}\n')
    assert jsonl._bulk(path) is None
