"""Walk a pickle symbolically, without executing it.

``pickle.load`` imports and calls whatever the stream names. This module never
does: it reads the opcodes (``pickletools.genops``) and rebuilds the object
tree with placeholder nodes instead of imported objects, so that what a pickle
*would* import, call and build can be inspected safely.

Stable API (other trainlint modules depend on it)::

    res = walk(data)                 # bytes, bytearray, memoryview or a binary file object
    res.root                         # the reconstructed tree (None when the pickle is cut short)
    res.globals                      # [GlobalRef(module, name, offset, opcode)], in stream order
    res.persistent_ids               # [PersistentId(pid, offset)]
    res.error                        # None, or one line: why the walk stopped early
    res.complete                     # True when STOP was reached
    res.end                          # byte offset just past STOP (or where the walk stopped)
    res.protocol                     # pickle protocol from PROTO (None before protocol 2)

Tree nodes: primitives (None, bool, int, float, str, bytes) stay as they are;
lists, tuples, dicts, sets and frozensets are real Python containers holding
nodes; everything that would need an import is one of

- :class:`Global`  - a ``module.name`` reference (GLOBAL / STACK_GLOBAL / INST / OBJ),
- :class:`Call`    - ``func(*args)`` from REDUCE, NEWOBJ, NEWOBJ_EX, INST or OBJ; any
  later BUILD state, SETITEM(S) and APPEND(S) on the result are recorded on the node
  (``.state``, ``.items`` (a dict), ``.listitems``),
- :class:`PersistentId` - a PERSID / BINPERSID reference (torch uses these for storages).

Helpers: :func:`mapping` turns a dict or a dict-like Call (``OrderedDict()``,
a dict subclass, an object whose BUILD state is a dict) into a plain dict;
:func:`iter_nodes` walks the tree without recursion, safely on shared or
cyclic structures, yielding ``(path, node)`` with a dotted key path
(``prune=`` stops the descent below chosen nodes).

Protocol 0-2 pickles get the Python 2 -> 3 name mapping ``pickle.load`` applies
(``__builtin__.exec`` is reported as ``builtins.exec``, what would be imported).
To read the pickle inside a torch.save file, see ``trainlint.checkpoint.torch_pickle``.
"""

from __future__ import annotations

import io
import pickletools
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, NamedTuple

import msgspec

__all__ = ["Call", "Global", "GlobalRef", "PersistentId", "PickleResult", "iter_nodes", "mapping", "walk", "walk_file"]


class GlobalRef(NamedTuple):
    """One import the pickle would perform: ``module.name`` at byte ``offset``."""

    module: str
    name: str
    offset: int
    opcode: str = "GLOBAL"

    @property
    def dotted(self) -> str:
        return f"{self.module}.{self.name}"


class Global(msgspec.Struct, eq=False):
    """A placeholder for the object ``module.name`` (never imported)."""

    module: str
    name: str
    offset: int

    @property
    def dotted(self) -> str:
        return f"{self.module}.{self.name}"

    def __repr__(self) -> str:
        return f"<global {self.dotted} @{self.offset}>"


class Call(msgspec.Struct, eq=False):
    """``func(*args)`` as the pickle would call it, plus what was done to the result."""

    func: Any
    args: tuple[Any, ...]
    offset: int
    kwargs: dict[Any, Any] | None = None
    state: Any = None
    items: dict[Any, Any] = msgspec.field(default_factory=dict)
    listitems: list[Any] = msgspec.field(default_factory=list)

    @property
    def name(self) -> str:
        """Dotted name of the callable when it is a global, else ``"?"``."""
        return self.func.dotted if isinstance(self.func, Global) else "?"

    def __repr__(self) -> str:
        return f"<call {self.name}({len(self.args)} args) @{self.offset}>"


class PersistentId(msgspec.Struct, eq=False):
    """A persistent reference (torch storages: ``('storage', cls, key, location, numel)``)."""

    pid: Any
    offset: int

    def __repr__(self) -> str:
        return f"<persid {self.pid!r} @{self.offset}>"


class _Unhashable:
    """Stands in for a dict key that cannot be hashed (a list used as a key)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"<key {self.value!r}>"


class PickleResult(msgspec.Struct):
    root: Any = None
    globals: list[GlobalRef] = msgspec.field(default_factory=list)
    persistent_ids: list[PersistentId] = msgspec.field(default_factory=list)
    error: str | None = None
    complete: bool = False
    start: int = 0
    end: int = 0
    protocol: int | None = None
    opcodes: int = 0

    @property
    def global_names(self) -> list[str]:
        return [g.dotted for g in self.globals]


_MARK = object()


class _Machine:
    """A symbolic pickle virtual machine: the stack, the memo and the mark stack."""

    def __init__(self, result: PickleResult) -> None:
        self.res = result
        self.stack: list[Any] = []
        self.marks: list[int] = []
        self.memo: dict[int, Any] = {}

    # -- stack helpers -------------------------------------------------------------
    def pop(self) -> Any:
        if not self.stack:
            raise ValueError("stack underflow")
        return self.stack.pop()

    def pop_mark(self) -> list[Any]:
        if not self.marks:
            raise ValueError("MARK expected")
        at = self.marks.pop()
        items = self.stack[at:]
        del self.stack[at:]
        return items

    def top(self) -> Any:
        if not self.stack:
            raise ValueError("stack underflow")
        return self.stack[-1]

    # -- symbolic objects --------------------------------------------------------
    def add_global(self, module: Any, name: Any, pos: int, opcode: str) -> Global:
        module, name = str(module), str(name)
        if (self.res.protocol or 0) < 3:  # what pickle.load's fix_imports would import instead
            module, name = _python2_names(module, name)
        self.res.globals.append(GlobalRef(module, name, pos, opcode))
        return Global(module, name, pos)

    def call(self, func: Any, args: Any, pos: int, kwargs: Any = None) -> Call:
        args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
        return Call(func, args, pos, kwargs if isinstance(kwargs, dict) else None)


def _python2_names(module: str, name: str) -> tuple[str, str]:
    """Python 2 names mapped to Python 3 ones, as the unpickler does for protocols < 3."""
    import _compat_pickle

    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def _key(k: Any) -> Any:
    try:
        hash(k)
        return k
    except TypeError:
        return _Unhashable(k)


def _setitems(target: Any, pairs: list[Any]) -> None:
    if isinstance(target, dict):
        d = target
    elif isinstance(target, Call):
        d = target.items
    else:
        raise ValueError(f"SETITEM on {type(target).__name__}")
    for i in range(0, len(pairs) - 1, 2):
        d[_key(pairs[i])] = pairs[i + 1]


def _appends(target: Any, values: list[Any]) -> None:
    if isinstance(target, list):
        target.extend(values)
    elif isinstance(target, Call):
        target.listitems.extend(values)
    elif isinstance(target, set):
        target.update(_key(v) for v in values)
    else:
        raise ValueError(f"APPEND on {type(target).__name__}")


_CONST = {"NONE": None, "NEWTRUE": True, "NEWFALSE": False}
_PUSH_ARG = {
    "INT",
    "BININT",
    "BININT1",
    "BININT2",
    "LONG",
    "LONG1",
    "LONG4",
    "FLOAT",
    "BINFLOAT",
    "STRING",
    "BINSTRING",
    "SHORT_BINSTRING",
    "UNICODE",
    "BINUNICODE",
    "SHORT_BINUNICODE",
    "BINUNICODE8",
    "BINBYTES",
    "SHORT_BINBYTES",
    "BINBYTES8",
}
_CONTAINER_EMPTY = {"EMPTY_LIST": list, "EMPTY_DICT": dict, "EMPTY_SET": set}
_MEMO_PUT = {"PUT", "BINPUT", "LONG_BINPUT"}
_MEMO_GET = {"GET", "BINGET", "LONG_BINGET"}


def _op_data(m: _Machine, name: str, arg: Any, pos: int) -> bool:
    """Opcodes that push values or build containers. False when not handled here."""
    st = m.stack
    if name in _PUSH_ARG:
        st.append(True if arg is True else arg)
    elif name in _CONST:
        st.append(_CONST[name])
    elif name == "BYTEARRAY8":
        st.append(bytes(arg))
    elif name in _CONTAINER_EMPTY:
        st.append(_CONTAINER_EMPTY[name]())
    elif name == "EMPTY_TUPLE":
        st.append(())
    elif name == "MARK":
        m.marks.append(len(st))
    elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
        n = int(name[-1])
        if len(st) < n:
            raise ValueError("stack underflow")
        items = tuple(st[-n:])
        del st[-n:]
        st.append(items)
    elif name == "TUPLE":
        st.append(tuple(m.pop_mark()))
    elif name == "LIST":
        st.append(list(m.pop_mark()))
    elif name == "DICT":
        d: dict[Any, Any] = {}
        _setitems(d, m.pop_mark())
        st.append(d)
    elif name == "FROZENSET":
        st.append(frozenset(_key(v) for v in m.pop_mark()))
    elif name in ("APPEND", "APPENDS", "ADDITEMS"):
        values = [m.pop()] if name == "APPEND" else m.pop_mark()
        _appends(m.top(), values)
    elif name in ("SETITEM", "SETITEMS"):
        if name == "SETITEM":
            v, k = m.pop(), m.pop()
            pairs = [k, v]
        else:
            pairs = m.pop_mark()
        _setitems(m.top(), pairs)
    else:
        return False
    return True


def _op_control(m: _Machine, name: str, arg: Any, pos: int) -> bool:
    """Memo, stack shuffling, imports, calls and persistent ids."""
    st = m.stack
    if name in _MEMO_PUT:
        m.memo[int(arg)] = m.top()
    elif name == "MEMOIZE":
        m.memo[len(m.memo)] = m.top()
    elif name in _MEMO_GET:
        if int(arg) not in m.memo:
            raise ValueError(f"memo key {arg} missing")
        st.append(m.memo[int(arg)])
    elif name == "POP":
        if m.marks and m.marks[-1] == len(st):
            m.marks.pop()
        else:
            m.pop()
    elif name == "POP_MARK":
        m.pop_mark()
    elif name == "DUP":
        st.append(m.top())
    elif name == "GLOBAL":
        module, _, attr = str(arg).partition(" ")
        st.append(m.add_global(module, attr, pos, name))
    elif name == "STACK_GLOBAL":
        attr, module = m.pop(), m.pop()
        if not isinstance(attr, str) or not isinstance(module, str):
            module, attr = f"<computed {type(module).__name__}>", f"<computed {type(attr).__name__}>"
        st.append(m.add_global(module, attr, pos, name))
    elif name in ("EXT1", "EXT2", "EXT4"):
        st.append(m.add_global("<copyreg extension>", str(arg), pos, name))
    else:
        return _op_call(m, name, arg, pos)
    return True


def _op_call(m: _Machine, name: str, arg: Any, pos: int) -> bool:
    st = m.stack
    if name == "REDUCE" or name == "NEWOBJ":
        args = m.pop()
        st.append(m.call(m.pop(), args, pos))
    elif name == "NEWOBJ_EX":
        kwargs, args = m.pop(), m.pop()
        st.append(m.call(m.pop(), args, pos, kwargs))
    elif name == "INST":
        module, _, attr = str(arg).partition(" ")
        cls = m.add_global(module, attr, pos, name)
        st.append(m.call(cls, m.pop_mark(), pos))
    elif name == "OBJ":
        items = m.pop_mark()
        if not items:
            raise ValueError("OBJ without a class")
        st.append(m.call(items[0], items[1:], pos))
    elif name == "BUILD":
        state = m.pop()
        obj = m.top()
        if isinstance(obj, Call):
            obj.state = state
        elif isinstance(obj, dict) and isinstance(state, dict):
            obj.update(state)
    elif name in ("PERSID", "BINPERSID"):
        pid = arg if name == "PERSID" else m.pop()
        ref = PersistentId(pid, pos)
        m.res.persistent_ids.append(ref)
        st.append(ref)
    elif name in ("NEXT_BUFFER", "READONLY_BUFFER"):
        if name == "NEXT_BUFFER":
            st.append(b"<out-of-band buffer>")
    else:
        return False
    return True


def _step(m: _Machine, name: str, arg: Any, pos: int) -> None:
    if name in _PUSH_ARG:  # the commonest opcodes first
        m.stack.append(arg)
    elif name in _MEMO_PUT:
        m.memo[int(arg)] = m.top()
    elif name == "MEMOIZE":
        m.memo[len(m.memo)] = m.top()
    elif name == "MARK":
        m.marks.append(len(m.stack))
    elif name == "PROTO":
        m.res.protocol = int(arg)
    elif name != "FRAME" and not (_op_data(m, name, arg, pos) or _op_control(m, name, arg, pos)):
        raise ValueError(f"opcode {name} not understood")


def walk(data: bytes | bytearray | memoryview | BinaryIO, start: int = 0) -> PickleResult:
    """Walk one pickle beginning at byte ``start``; never raises on bad input.

    A stream that ends before STOP gives ``complete=False`` and an ``error``
    starting with ``"truncated"``; other damage gives another one-line ``error``.
    Offsets are absolute positions in ``data``.
    """
    if isinstance(data, memoryview):
        data = data.tobytes()
    fh: Any = io.BytesIO(data) if isinstance(data, (bytes, bytearray)) else _Bounded(data)
    fh.seek(start)
    res = PickleResult(start=start, end=start)
    m = _Machine(res)
    pos = start
    try:
        for op, arg, pos in pickletools.genops(fh):
            res.opcodes += 1
            if op.name == "STOP":
                res.root = m.pop()
                res.complete = True
                break
            _step(m, op.name, arg, pos)
    except ValueError as exc:
        _fail(res, exc, pos, fh)
    except (RecursionError, MemoryError, OverflowError, TypeError, KeyError, IndexError) as exc:
        _fail(res, exc, pos, fh)
    res.end = fh.tell() if res.complete else res.end
    return res


class _Bounded:
    """A stream whose reads never ask for more than what is left of it: a length read from the
    pickle (BINBYTES8 says 2^62) is checked against the file's size before anything is allocated."""

    def __init__(self, fh: Any) -> None:
        self.fh = fh
        here = fh.tell()
        fh.seek(0, io.SEEK_END)  # (mmap's seek returns None: ask tell)
        self.size = fh.tell()
        fh.seek(here)

    def read(self, n: int = -1) -> bytes:
        left = max(0, self.size - self.fh.tell())
        return self.fh.read(left if n is None or n < 0 else min(n, left))

    def readline(self) -> bytes:
        return self.fh.readline()

    def seek(self, pos: int, whence: int = 0) -> int:
        self.fh.seek(pos, whence)
        return self.fh.tell()

    def tell(self) -> int:
        return self.fh.tell()


def _fail(res: PickleResult, exc: Exception, pos: int, fh: Any) -> None:
    text = str(exc)
    end = fh.tell()
    truncated = "exhausted" in text or "not enough data" in text or "but only" in text
    if truncated:
        res.error = f"truncated: the pickle ends at byte {end} before its STOP opcode"
    else:
        res.error = f"damaged pickle at byte {pos}: {text}"
    res.end = end


def walk_file(path: Any, start: int = 0) -> PickleResult:
    """:func:`walk` on a file path, reading it as a stream (no full load needed)."""
    from .safeio import open_regular

    with open_regular(path) as fh:
        return walk(fh, start)


def mapping(node: Any) -> dict[Any, Any] | None:
    """A plain dict view of a dict-like node, or None.

    Handles real dicts, ``OrderedDict()``-style calls filled by SETITEMS, and
    objects whose BUILD state is a dict (or a ``(dict, slots)`` pair).
    """
    if isinstance(node, dict):
        return node
    if isinstance(node, Call):
        if node.items:
            return node.items
        state = node.state
        if isinstance(state, tuple) and len(state) == 2 and isinstance(state[0], dict):
            state = state[0]
        if isinstance(state, dict):
            return state
        if not node.args and node.state is None:
            return {}
    return None


def iter_nodes(
    root: Any, max_nodes: int = 5_000_000, prune: Callable[[Any], bool] | None = None
) -> Iterator[tuple[str, Any]]:
    """Every node under ``root`` with a dotted path, depth first, each container once.

    ``prune(node) -> True`` yields the node but does not descend into it."""
    seen: set[int] = set()
    todo: list[tuple[str, Any]] = [("", root)]
    count = 0
    while todo and count < max_nodes:
        path, node = todo.pop()
        count += 1
        yield path, node
        if not isinstance(node, _CONTAINERS) or id(node) in seen or (prune is not None and prune(node)):
            continue
        seen.add(id(node))
        kids = _children(path, node)
        kids.reverse()
        todo.extend(kids)


_CONTAINERS = (list, tuple, dict, set, frozenset, Call)


def _children(path: str, node: Any) -> list[tuple[str, Any]]:
    pre = path + "." if path else ""
    if isinstance(node, dict):
        return [(f"{pre}{k}", v) for k, v in node.items()]
    if isinstance(node, (list, tuple)):
        return [(f"{pre}{i}", v) for i, v in enumerate(node)]
    if not isinstance(node, Call):
        return []
    d = mapping(node)
    out = [(f"{pre}{k}", v) for k, v in d.items()] if d is not None else []
    out += [(f"{pre}<arg{i}>", v) for i, v in enumerate(node.args)]
    if node.state is not None and d is not node.state:
        out.append((f"{pre}<state>", node.state))
    out += [(f"{pre}{i}", v) for i, v in enumerate(node.listitems)]
    return out
