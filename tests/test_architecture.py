"""The house rules, checked on every import, including those inside functions.

Floors (docs/ARCHITECTURE.md): each module imports only from its own floor or the floors below
it; no import cycles between modules or between packages; no import of another package's
private ``_`` module; the core never imports a training framework; the CLI is a thin layer over
``trainlint.api`` and ``trainlint.report`` and starts without numpy or rich.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PKG = SRC / "trainlint"
FRAMEWORKS = {
    "torch",
    "transformers",
    "lightning",
    "pytorch_lightning",
    "keras",
    "tensorflow",
    "mlflow",
    "ray",
    "optuna",
    "wandb",
    "tensorboard",
    "tensorboardX",
    "jax",
}

# The floors, lowest first: a module may import from its floor and the floors below.
FLOORS: dict[str, int] = {
    "trainlint": 0,  # the package root: the version only
    # 1: the vocabulary and small utilities every floor may use
    "trainlint.model": 1,
    "trainlint.roles": 1,
    "trainlint.role_structure": 1,
    "trainlint.verdict": 1,
    "trainlint.registry": 1,
    "trainlint.config": 1,
    "trainlint.options": 1,
    "trainlint.plugins": 1,
    "trainlint.arrays": 1,
    "trainlint.running": 1,  # the running quantities of a metric: live per record, doctor in one pass
    "trainlint.delimited": 1,
    "trainlint.downsample": 1,
    "trainlint.picklewalk": 1,
    "trainlint.safeio": 1,
    "trainlint.yamlfile": 1,
    "trainlint.isolate": 1,
    # 2: inputs turned into facts
    "trainlint.readers": 2,
    "trainlint.checkpoint": 2,
    "trainlint.dataset": 2,
    "trainlint.tokenizer": 2,
    "trainlint.environment": 2,
    # 3: judgement over facts
    "trainlint.rules": 3,
    # 4: applying rules, and measuring a run against a baseline
    "trainlint.engine": 4,
    "trainlint.compare": 4,
    # 5: turning an input into a Report (discovery is the plugin mechanism inspectors use)
    "trainlint.discover": 5,
    "trainlint.inspectors": 5,
    "trainlint.live": 5,
    "trainlint.parallel": 5,  # doctor's inputs as tasks: in-process, a process pool, an executor (Ray)
    # 6: the public Python API
    "trainlint.api": 6,
    # 7: rendering
    "trainlint.report": 7,
    # 8: the shells
    "trainlint.cli": 8,
    "trainlint.integrations": 8,
    "trainlint.__main__": 8,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PKG.rglob("*.py")}


def all_imports(path: Path) -> set[str]:
    """Every trainlint module ``path`` imports, at module level or inside a function."""
    mod = module_name(path)
    pkg = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.add(sub if sub in MODULES else target)
    return out


def internal_graph() -> dict[str, set[str]]:
    return {m: {t for t in all_imports(p) if t in MODULES and t != m} for m, p in MODULES.items()}


def floor_of(mod: str) -> int:
    parts = mod.split(".")
    for n in range(len(parts), 1, -1):  # "trainlint" itself is the root module only, no fallback
        key = ".".join(parts[:n])
        if key in FLOORS:
            return FLOORS[key]
    if mod == "trainlint":
        return FLOORS[mod]
    raise AssertionError(f"{mod} is on no floor: add its package to FLOORS (and docs/ARCHITECTURE.md)")


def package_of(mod: str) -> str:
    """The unit the package-cycle check works on: ``trainlint.<first part>``."""
    return ".".join(mod.split(".")[:2])


def find_cycle(g: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(g.get(m, ())):
            if state.get(n) == 1:
                return stack[stack.index(n) :] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(g):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_every_module_is_on_a_floor():
    for m in MODULES:
        floor_of(m)


def test_no_import_cycle_between_modules():
    cycle = find_cycle(internal_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_import_cycle_between_packages():
    g: dict[str, set[str]] = {}
    for m, targets in internal_graph().items():
        if m in ("trainlint",):
            continue
        pm = package_of(m)
        g.setdefault(pm, set()).update(package_of(t) for t in targets if package_of(t) != pm and t != "trainlint")
    cycle = find_cycle(g)
    assert cycle is None, "package cycle: " + " -> ".join(cycle or [])


def test_no_import_from_a_higher_floor():
    bad = [
        f"{m} (floor {floor_of(m)}) imports {t} (floor {floor_of(t)})"
        for m, targets in internal_graph().items()
        for t in sorted(targets)
        if t != "trainlint" and floor_of(t) > floor_of(m)
    ]
    assert not bad, "\n".join(bad)


def test_no_import_of_another_packages_private_module():
    bad = []
    for m, targets in internal_graph().items():
        for t in targets:
            parent, _, leaf = t.rpartition(".")
            if leaf.startswith("_") and not leaf.startswith("__") and not m.startswith(parent + "."):
                bad.append(f"{m} imports {t}")
    assert not bad, "\n".join(bad)


def test_the_graph_sees_imports_inside_functions():
    """A check that cannot fail is a defect: the walker must find deferred imports too."""
    assert "trainlint.inspectors.comparison" in internal_graph()["trainlint.api"]
    deferred = ast.parse("def f():\n    from .verdict import Report\n")
    assert any(isinstance(n, ast.ImportFrom) for n in ast.walk(deferred))
    assert floor_of("trainlint.readers.tensorboard.events") == 2
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]


def test_core_never_imports_a_training_framework():
    """Frameworks are imported only by the integrations (the user's own process has them)."""
    for m, p in MODULES.items():
        if m.startswith("trainlint.integrations"):
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.module and not node.level
                else []
            )
            bad = {n.split(".")[0] for n in names} & FRAMEWORKS
            assert not bad, f"{m} imports {bad}"


def test_cli_commands_call_only_the_api_and_the_reporters():
    allowed = (
        "trainlint.api",
        "trainlint.report",
        "trainlint.cli",
        "trainlint.verdict",
        "trainlint.config",
        "trainlint",
    )
    # `trainlint mcp` starts the MCP server, itself a front end over trainlint.api like the CLI.
    # `doctor --ray` hands api.doctor the Ray executor, which lives with the integrations (the core
    # never imports Ray).
    fronts = {
        "trainlint.cli.commands.mcp": {"trainlint.integrations.mcp_server"},
        "trainlint.cli.commands.doctor": {"trainlint.integrations.ray_doctor"},
    }
    for m, targets in internal_graph().items():
        if not m.startswith("trainlint.cli"):
            continue
        bad = sorted(
            t
            for t in targets
            if not any(t == a or t.startswith(a + ".") for a in allowed[:-1])
            and t != "trainlint"
            and t not in fronts.get(m, ())
        )
        assert not bad, f"{m} imports {bad}: a command goes through trainlint.api and trainlint.report"


def test_rules_do_not_print():
    for p in (PKG / "rules").rglob("*.py"):
        tree = ast.parse(p.read_text())
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "print"]
        assert not calls, f"{p.name} prints"


def test_cli_starts_without_numpy_or_rich():
    code = (
        "import sys, trainlint.cli; bad = {'numpy', 'rich', 'torch'} & set(sys.modules); print(','.join(sorted(bad)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": str(SRC)}
    ).stdout.strip()
    assert out == ""


def _python(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` run by a fresh interpreter on this checkout's sources."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(SRC)}
    )


def test_doctor_on_one_log_imports_only_what_a_log_needs(tmp_path):
    """`trainlint doctor` on a JSONL log (long enough to be downsampled for its curve) imports no
    dataset, tokenizer, checkpoint or comparison machinery nor their rules, no numpy.ma (np.unique
    and np.median would), no CRC library, TOML parser or shutil: each costs start-up time on every
    run. (The modules are read from sys.modules: -X importtime does not list a module imported
    with importlib.import_module, as the plugin loaders do.)"""
    log = tmp_path / "m.jsonl"
    log.write_text("".join(f'{{"step": {i}, "loss": {3 - i / 1000 + (i % 7) / 50:.4f}}}\n' for i in range(3000)))
    code = (
        "import sys\nfrom trainlint.cli import main\n"
        f"try:\n    main(['doctor', {str(log)!r}])\nexcept SystemExit:\n    pass\n"
        "print('MODULES', *sorted(sys.modules))"
    )
    out = _python(code)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "steps 0-2999" in out.stdout
    imported = set(out.stdout.rsplit("MODULES", 1)[1].split())
    assert {"numpy", "trainlint.readers.jsonl", "trainlint.rules.nan"} <= imported
    unwanted = {
        "numpy.ma",
        "trainlint.dataset.scan",
        "trainlint.inspectors.dataset_judge",
        "trainlint.inspectors.tokenizer_folder",
        "trainlint.inspectors.comparison",
        "trainlint.checkpoint.zipread",
        "trainlint.checkpoint.torchfmt",
        "trainlint.live.guard",
        "trainlint.readers.console.reader",  # sniffing stops at the JSON-lines reader, before these
        "trainlint.readers.csv_log",
        "trainlint.rules.data",
        "trainlint.rules.checkpoint",
        "trainlint.rules.environment",
        "trainlint.rules.compare",
        "trainlint.rules.tokenizer",
        "google_crc32c",
        "tomllib",
        "shutil",
    }
    assert not unwanted & imported, unwanted & imported


def test_the_rules_table_names_the_modules_of_each_targets_rules():
    """trainlint.rules.MODULES (what the registry imports to judge one target) lists, for each
    target, every module registering a rule of it, and no module that registers none."""
    import importlib

    from trainlint.registry import REGISTRY

    table = importlib.import_module("trainlint.rules").MODULES
    found: dict[str, set[str]] = {}
    for r in REGISTRY.all():
        module = r.check.__module__.removeprefix("trainlint.rules.").split(".")[0]
        found.setdefault(r.target, set()).add(module)
    assert {t: set(m) for t, m in table.items()} == found


def test_the_readers_sniffing_table_is_the_order_of_the_loaded_readers():
    """trainlint.readers.SNIFF_ORDER (what sniffing imports, module by module) names every
    built-in reader with its module, in the order of READERS once all are loaded."""
    import importlib

    readers = importlib.import_module("trainlint.readers")
    loaded = [(r.name, type(r.read.__self__).__module__) for r in readers.load_readers()]
    assert loaded == [(n, f"trainlint.readers.{m}") for n, m in readers.SNIFF_ORDER]


def test_sniffing_a_trainer_state_imports_only_the_readers_before_it(tmp_path):
    path = tmp_path / "trainer_state.json"
    path.write_text('{"log_history": [{"step": 1, "loss": 2.0}]}')
    code = (
        "import sys\nfrom trainlint.readers import sniff\n"
        f"print(sniff(__import__('pathlib').Path({str(path)!r})).name)\n"
        "print(*sorted(m for m in sys.modules if m.startswith('trainlint.readers.')))"
    )
    name, modules = _python(code).stdout.splitlines()
    assert name == "hf-trainer-state"
    assert not {"trainlint.readers.console.reader", "trainlint.readers.csv_log", "trainlint.readers.jsonl"} & set(
        modules.split()
    )


def test_json_is_written_in_one_place():
    """Reporters and commands print JSON only through report/json_out.write_json."""
    for m, p in MODULES.items():
        if not m.startswith(("trainlint.report", "trainlint.cli")) or m == "trainlint.report.json_out":
            continue
        calls = [
            n
            for n in ast.walk(ast.parse(p.read_text()))
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr in ("dump", "dumps")
            and getattr(n.func.value, "id", "") == "json"
        ]
        assert not calls, f"{m} writes JSON itself: use trainlint.report.json_out.write_json"


def test_architecture_doc_lists_every_module():
    """docs/ARCHITECTURE.md ends with an index of every module (scripts/module_index.py)."""
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run(
        [sys.executable, str(root / "scripts" / "module_index.py"), "--check"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_modules_a_plugin_package_skips_register_nothing():
    """A plugin package's NOT_PLUGINS (not imported at start) must not hold a module that registers
    a reader, inspector or rule: it would silently never be registered."""
    import importlib

    for package in ("trainlint.readers", "trainlint.inspectors", "trainlint.rules"):
        pkg = importlib.import_module(package)
        folder = PKG.joinpath(*package.split(".")[1:])
        for name in getattr(pkg, "NOT_PLUGINS", ()):
            tree = ast.parse((folder / f"{name}.py").read_text())
            decorators = {
                getattr(getattr(d, "func", d), "id", None)
                for n in ast.walk(tree)
                if isinstance(n, (ast.FunctionDef, ast.ClassDef))
                for d in n.decorator_list
            }
            assert not decorators & {"reader", "inspector", "rule"}, f"{package}.{name}"
    assert "logs" not in importlib.import_module("trainlint.inspectors").NOT_PLUGINS  # the list is not everything


# doctor's tasks before they were typed (issue 28): a kind string each, looked up again by name
OLD_TASK_KINDS = {"item", "uri", "missing", "not-regular", "unclaimed", "baseline-log", "group"}


def _tree(name: str) -> ast.Module:
    return ast.parse((PKG / name).read_text())


def string_task_kinds(tree: ast.Module, fields: bool = True) -> list[str]:
    """Where a module builds or tests a task by a kind string (``Task("item", ...)``,
    ``task.kind == "group"``), or (``fields``) declares a ``kind`` field on a class."""
    bad = []
    for node in ast.walk(tree):
        if fields and isinstance(node, ast.ClassDef):
            bad += [
                f"line {s.lineno}: {node.name}.kind"
                for s in node.body
                if isinstance(s, ast.AnnAssign) and getattr(s.target, "id", "") == "kind"
            ]
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            if node.args[0].value in OLD_TASK_KINDS:
                bad.append(f"line {node.lineno}: a task made with kind {node.args[0].value!r}")
        if isinstance(node, ast.Compare) and getattr(node.left, "attr", "") == "kind":
            consts = [c.value for c in node.comparators if isinstance(c, ast.Constant)]
            bad += [f"line {node.lineno}: .kind == {c!r}" for c in consts if c in OLD_TASK_KINDS]
    return bad


def getattr_on_options(tree: ast.Module) -> list[int]:
    """Lines calling ``getattr(options, ...)`` or ``getattr(opts, ...)`` (also ``self.options``)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "getattr" and node.args:
            first = node.args[0]
            name = first.id if isinstance(first, ast.Name) else getattr(first, "attr", "")
            if name in ("options", "opts"):
                lines.append(node.lineno)
    return lines


def uses_partial(tree: ast.Module) -> bool:
    """Whether a module imports functools (or its partial) or calls a partial."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == "functools" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "functools":
            return True
        if isinstance(node, (ast.Name, ast.Attribute)) and getattr(node, "id", getattr(node, "attr", "")) == "partial":
            return True
    return False


def test_doctors_tasks_are_typed():
    """Discovery yields typed tasks carrying their inspector and reader: no task kind as a
    string, no functools.partial in discovery or the planner, and options are typed (no getattr)."""
    for name in ("parallel.py", "discover.py", "api.py", "isolate.py"):
        # an Inspector's kind is the report kind ("log", "checkpoint"): fields checked on tasks only
        found = string_task_kinds(_tree(name), fields=name != "discover.py")
        assert not found, f"{name}: {found}"
    for name in ("parallel.py", "discover.py"):
        assert not uses_partial(_tree(name)), f"{name} uses functools.partial"
    bad = {m: lines for m, p in MODULES.items() if (lines := getattr_on_options(ast.parse(p.read_text())))}
    assert not bad, f"getattr on the typed Options: {bad}"


def test_the_typed_task_checks_can_fail():
    """The three checks above, on the shape the code had before (a check that cannot fail is a defect)."""
    old = ast.parse(
        "import functools\n"
        "class Task:\n    kind: str\n"
        "def f(task, options, ins):\n"
        "    if task.kind == 'baseline-log':\n        pass\n"
        "    x = getattr(options, 'baseline', ())\n    y = getattr(self.opts, 'dataset', None)\n"
        "    return functools.partial(ins.judge, match=1)\n"
    )
    assert len(string_task_kinds(old)) == 2
    assert string_task_kinds(ast.parse("t = Task('uri', 'mlflow://h/e')\n")) == ["line 1: a task made with kind 'uri'"]
    assert getattr_on_options(old) == [7, 8]
    assert uses_partial(old)
    assert uses_partial(ast.parse("from functools import partial\n"))
    fine = ast.parse(
        "def f(options, path):\n    if file_kind(path) == 'missing':\n        return Report(path, 'log')\n"
        "    return getattr(options.read, 'x', 0), options.baseline\n"
    )
    assert not string_task_kinds(fine) and not getattr_on_options(fine) and not uses_partial(fine)


# What live/ may take from the readers: the package's sniffing and reading, the streams, and the
# name-based layouts of run folders. Parsing a format is a reader's job (one reading stack).
LIVE_MAY_IMPORT_FROM_READERS = {
    "trainlint.readers",
    "trainlint.readers.base",  # text_nonfinite: a value handed to the guard in process
    "trainlint.readers.stream",
    "trainlint.readers.grouping",
    "trainlint.readers.tensorboard.folder",
}
PARSING_MODULES = {"csv", "struct", "io", "zlib", "gzip", "google_crc32c", "msgspec.json"}
PARSING_CALLS = {("json", "loads"), ("json", "load"), ("np", "frombuffer"), ("numpy", "frombuffer")}


def test_nothing_in_live_parses_a_format():
    """doctor and watch share one reading stack: live/ only polls the readers' streams."""
    bad = []
    for path in sorted((PKG / "live").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for mod in all_imports(path):
            if mod.startswith("trainlint.readers") and mod not in LIVE_MAY_IMPORT_FROM_READERS:
                bad.append(f"{path.name} imports {mod}")
            if mod in PARSING_MODULES:
                bad.append(f"{path.name} imports {mod}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and (node.value.id, node.attr) in PARSING_CALLS
            ):
                bad.append(f"{path.name}:{node.lineno} calls {node.value.id}.{node.attr}")
    assert not bad, bad


def test_mypy_covers_the_readers_rules_live_and_inspectors():
    """The packages every input passes through are type-checked (strict): CI runs mypy on them."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    conf = tomllib.loads((SRC.parent / "pyproject.toml").read_text())["tool"]["mypy"]
    files = set(conf["files"])
    for pkg in ("readers", "rules", "live", "inspectors"):
        assert f"src/trainlint/{pkg}" in files, pkg
    assert conf["strict"] is True
    assert not any(o.get("ignore_errors") for o in conf.get("overrides", []))
