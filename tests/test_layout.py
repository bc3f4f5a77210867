"""The tests are laid out like src/ (tests/LAYOUT.md): each test module in the folder of the package
it tests, basenames unique, builders shared across folders in tests/_*.py helpers rather than
imported from another folder's test module."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SRC = TESTS.parent / "src" / "trainlint"
# Cross-cutting tests, and tests of the floor-1 modules at the top of src/trainlint/.
TOP_LEVEL = {
    "test_architecture.py",
    "test_arrays.py",
    "test_bad_inputs.py",  # the hostile-input corpus: every reader and inspector
    "test_config.py",
    "test_delimited.py",
    "test_yamlfile.py",
    "test_downsample.py",
    "test_fuzz_readers.py",  # fuzzing every reader and inspector
    "test_golden.py",
    "test_hostile_io.py",  # safeio/isolate: bounded reading for every input kind
    "test_layout.py",
    "test_realworld.py",
    "test_roles_structure.py",
}
DATA_FOLDERS = {"bad_inputs", "data", "golden", "realworld", "schemas"}


def _test_modules() -> list[Path]:
    return [p for p in TESTS.rglob("test_*.py") if not DATA_FOLDERS & set(p.relative_to(TESTS).parts)]


def test_top_level_holds_only_the_cross_cutting_tests():
    extra = sorted(p.name for p in TESTS.glob("test_*.py") if p.name not in TOP_LEVEL)
    assert not extra, f"move these into the folder of the package they test (see tests/LAYOUT.md): {extra}"


def test_every_test_folder_mirrors_a_package():
    folders = {p.parent.relative_to(TESTS).parts[0] for p in _test_modules() if p.parent != TESTS}
    packages = {p.name for p in SRC.iterdir() if (p / "__init__.py").is_file()}
    assert folders and folders <= packages, folders - packages
    assert not list(TESTS.rglob("__init__.py")), "tests/ uses unique basenames, not packages"
    layout = (TESTS / "LAYOUT.md").read_text()
    assert all(f"`tests/{f}/`" in layout for f in folders), "every folder is described in tests/LAYOUT.md"


def test_basenames_are_unique():
    twice = [n for n, c in Counter(p.name for p in _test_modules()).items() if c > 1]
    assert not twice, twice


def _imports(path: Path) -> list[str]:
    """The modules a test module imports (``import a.b``: ``a.b``; ``from a.b import c``: ``a.b``)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def test_no_test_module_imports_one_from_another_folder():
    """A test module found only through sys.path order breaks `pytest tests/x/test_y.py` alone."""
    offenders = [
        f"{path.relative_to(TESTS)}: {n}"
        for path in _test_modules()
        for n in _imports(path)
        if n.split(".")[0].startswith("test_") and not (path.parent / f"{n.split('.')[0]}.py").is_file()
    ]
    assert not offenders, f"put builders shared across folders in a tests/_name.py helper: {offenders}"


def test_no_test_module_imports_through_the_tests_package():
    """``from tests._consolekit import ..`` works under ``python -m pytest`` (the working folder is
    on sys.path) and fails under README's ``pytest``: helpers are imported by their own name."""
    offenders = [
        f"{p.relative_to(TESTS)}: {n}" for p in _test_modules() for n in _imports(p) if n.split(".")[0] == "tests"
    ]
    assert not offenders, f"import tests/_name.py helpers as `_name`: {offenders}"
