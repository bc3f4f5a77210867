"""README is the front page for a new user: at most 12 KB, with the install, example and test
commands that CI runs, the example's real output, and links that lead somewhere."""

from __future__ import annotations

import io
import re
from pathlib import Path

from trainlint import api
from trainlint.report import View, render

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
INSTALL = "pip install -e '.[dev]'"
EXAMPLE = "trainlint doctor examples"
TEST = "pytest"


def _blocks(text: str) -> list[str]:
    return re.findall(r"^```[a-z]*\n(.*?)^```$", text, flags=re.S | re.M)


def _commands(block: str) -> list[str]:
    """The command of each line of a code block, its trailing `# comment` dropped."""
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]


def test_readme_is_at_most_12_kb():
    size = len(README.read_bytes())
    assert size <= 12_288, f"README.md is {size} bytes: move reference material into docs/"


def test_readme_names_the_install_example_and_test_commands():
    first = _commands(_blocks(README.read_text(encoding="utf-8"))[0])
    assert first == [INSTALL, EXAMPLE, TEST], first


def test_ci_installs_and_tests_the_way_readme_says():
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert INSTALL in steps
    assert any(s == TEST or s.startswith(f"{TEST} ") for s in steps), steps


def test_readme_example_output_is_what_the_example_command_prints(monkeypatch):
    """The block after `$ trainlint doctor examples` is the real text view at 80 columns."""
    shown = next(b for b in _blocks(README.read_text(encoding="utf-8")) if b.startswith(f"$ {EXAMPLE}\n"))
    monkeypatch.chdir(ROOT)  # the report names the inputs as given: examples/...
    result = api.doctor(["examples"])
    out = io.StringIO()
    render(result, "text", out, View(width=80, color=False))
    assert shown.removeprefix(f"$ {EXAMPLE}\n") == out.getvalue()
    assert result.exit_code == 1


def test_readme_links_lead_to_files():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    local = [link for link in links if "://" not in link]
    assert len(local) >= 10, local
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, missing


def test_readme_recovered_run_is_what_the_demo_script_prints(capsys):
    """The "Recover instead of stop" block is the real output of scripts/recover_demo.py (a tiny
    HF Trainer run on the CPU, a few seconds)."""
    import importlib.util

    import pytest

    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("recover_demo", ROOT / "scripts" / "recover_demo.py")
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    threads, verbosity = torch.get_num_threads(), transformers.logging.get_verbosity()
    try:
        demo.main()
    finally:  # the demo sets both for the process
        torch.set_num_threads(threads)
        transformers.logging.set_verbosity(verbosity)
    printed = capsys.readouterr().out
    shown = next(b for b in _blocks(README.read_text(encoding="utf-8")) if b.startswith("callback.report:\n"))
    assert shown == printed
