"""The symbolic pickle walker: structure recovered, nothing imported or called."""

from __future__ import annotations

import collections
import io
import pickle

import pytest

from trainlint.picklewalk import Call, Global, PersistentId, iter_nodes, mapping, walk


class _Boom:
    def __reduce__(self):
        import os

        return (os.system, ("echo never",))


@pytest.mark.parametrize("proto", [0, 1, 2, 3, 4, 5])
def test_plain_structures_all_protocols(proto):
    obj = {"a": [1, 2.5, "x", None, True], "b": (b"raw", -3, 2**70), "c": {"nested": {1, 2}}}
    res = walk(pickle.dumps(obj, protocol=proto))
    assert res.complete and res.error is None
    assert res.root["a"] == [1, 2.5, "x", None, True]
    assert res.root["b"][1:] == (-3, 2**70)
    if proto >= 4:
        assert res.root["b"][0] == b"raw" and res.root["c"]["nested"] == {1, 2}
        assert res.globals == []
    else:  # older protocols spell sets (and bytes, before 3) as calls: recorded, not made
        assert res.root["c"]["nested"].name == "builtins.set"
        assert "builtins.set" in res.global_names


@pytest.mark.parametrize("proto", [0, 2, 4])
def test_reduce_is_recorded_not_called(proto):
    data = pickle.dumps([_Boom()], protocol=proto)
    res = walk(data)
    assert res.complete
    g = res.globals[0]
    assert (g.module, g.name) in {("posix", "system"), ("nt", "system")}
    assert data[g.offset : g.offset + 1] in (b"c", b"\x93")  # GLOBAL or STACK_GLOBAL opcode
    call = res.root[0]
    assert isinstance(call, Call) and call.name.endswith(".system") and call.args == ("echo never",)


def test_ordered_dict_and_shared_memo():
    inner = [1, 2]
    od = collections.OrderedDict([("w", inner), ("v", inner)])
    res = walk(pickle.dumps(od, protocol=2))
    d = mapping(res.root)
    assert isinstance(res.root, Call) and res.root.name == "collections.OrderedDict"
    assert d["w"] is d["v"] and d["w"] == [1, 2]


def test_persistent_ids_are_symbolic():
    class P(pickle.Pickler):
        def persistent_id(self, obj):
            return ("storage", "key0") if obj == "STORE" else None

    buf = io.BytesIO()
    P(buf, protocol=2).dump({"t": "STORE"})
    res = walk(buf.getvalue())
    assert isinstance(res.root["t"], PersistentId) and res.root["t"].pid == ("storage", "key0")
    assert len(res.persistent_ids) == 1


def test_truncated_pickle_reports_truncated():
    data = pickle.dumps({"k": list(range(100))}, protocol=4)
    res = walk(data[: len(data) // 2])
    assert not res.complete and res.root is None
    assert res.error.startswith("truncated")


def test_garbage_is_an_error_not_an_exception():
    res = walk(b"\x80\x02\xff\xfe garbage")
    assert not res.complete and res.error and "damaged" in res.error


def test_start_offset_and_end_for_concatenated_pickles():
    a, b = pickle.dumps(1, protocol=2), pickle.dumps({"x": 2}, protocol=2)
    first = walk(a + b)
    assert first.root == 1 and first.end == len(a)
    second = walk(a + b, start=first.end)
    assert second.root == {"x": 2} and second.end == len(a) + len(b)


def test_iter_nodes_survives_cycles():
    x: list = [1]
    x.append(x)
    res = walk(pickle.dumps({"loop": x}, protocol=2))
    paths = [p for p, _ in iter_nodes(res.root)]
    assert "loop.0" in paths and len(paths) < 10


def test_stack_global_with_computed_operands_is_flagged():
    # protocol 4 STACK_GLOBAL whose module comes from a non-string (a list): never resolved
    data = b"\x80\x04]\x94\x8c\x06system\x94\x93\x94."
    res = walk(data)
    assert res.globals and res.globals[0].module.startswith("<computed")
    assert isinstance(res.root, Global)
