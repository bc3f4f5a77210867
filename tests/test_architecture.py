"""The house rules, checked: no import cycles, layers that stay apart, a core free of
training frameworks, and a CLI that starts without loading the heavy parts."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PKG = SRC / "trainlint"
FRAMEWORKS = {"torch", "transformers", "lightning", "pytorch_lightning", "keras", "tensorflow",
              "mlflow", "ray", "optuna", "wandb", "tensorboard", "tensorboardX", "jax"}


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def top_level_imports(path: Path) -> set[str]:
    """Modules imported at module level (imports inside functions are deferred on purpose)."""
    mod = module_name(path)
    pkg = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
    out = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.add(target)
            out.update(f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Try):  # optional imports guarded by try
            for sub in node.body:
                if isinstance(sub, ast.ImportFrom) and sub.module and not sub.level:
                    out.add(sub.module)
    return out


def graph() -> dict[str, set[str]]:
    mods = {module_name(p): p for p in PKG.rglob("*.py")}
    return {m: {t for t in top_level_imports(p) if t in mods and t != m} for m, p in mods.items()}


def test_no_import_cycles():
    g = graph()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in g[m]:
            if state.get(n) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(n):] + [n]))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(g):
        if m not in state:
            visit(m)


def test_core_never_imports_a_training_framework_at_import_time():
    for p in PKG.rglob("*.py"):
        if "integrations" in p.parts:
            continue
        bad = {i.split(".")[0] for i in top_level_imports(p)} & FRAMEWORKS
        assert not bad, f"{p.relative_to(SRC)} imports {bad} at module level"


def test_rules_know_no_file_format_and_readers_know_no_rule():
    for p in PKG.rglob("*.py"):
        mod = module_name(p)
        imports = top_level_imports(p)
        if mod.startswith("trainlint.rules"):
            assert not any(i.startswith("trainlint.readers") for i in imports), mod
        if mod.startswith("trainlint.readers"):
            assert not any(i.startswith(("trainlint.rules", "trainlint.engine")) for i in imports), mod
        if mod.startswith("trainlint.report"):
            assert not any(i.startswith(("trainlint.rules", "trainlint.readers")) for i in imports), mod


def test_rules_do_not_print():
    for p in (PKG / "rules").rglob("*.py"):
        tree = ast.parse(p.read_text())
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "print"]
        assert not calls, f"{p.name} prints"


def test_cli_starts_without_numpy_or_rich():
    code = ("import sys, trainlint.cli; bad = {'numpy', 'rich', 'torch'} & set(sys.modules); "
            "print(','.join(sorted(bad)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": str(SRC)}).stdout.strip()
    assert out == ""
