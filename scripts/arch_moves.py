"""Rewrite imports of modules that issue 16 moved (for branches made before the move).

    python scripts/arch_moves.py FILE...        # rewrite in place, print what changed
    python scripts/arch_moves.py --check FILE...  # only report; exit 1 if anything would change

Handles absolute dotted names (``trainlint.readers._tffast`` anywhere in the text, e.g. in
monkeypatch strings) and relative ``from ..x import y`` statements in files under src/trainlint.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

MOVES = {
    "trainlint.readers._tffast": "trainlint.readers.tensorboard.fast",
    "trainlint.readers._tfrecord": "trainlint.readers.tensorboard.records",
    "trainlint.readers._tfproto": "trainlint.readers.tensorboard.proto",
    "trainlint.readers.tfevents": "trainlint.readers.tensorboard.events",
    "trainlint.readers.tfevents_folder": "trainlint.readers.tensorboard.folder",
    "trainlint.readers.console": "trainlint.readers.console.reader",
    "trainlint.readers._console_crash": "trainlint.readers.console.crash",
    "trainlint.readers._console_patterns": "trainlint.readers.console.patterns",
    "trainlint.readers._console_stateful": "trainlint.readers.console.stateful",
    "trainlint.readers._console_text": "trainlint.readers.console.text",
    "trainlint.readers._parts": "trainlint.readers.parts",
    "trainlint.grouping": "trainlint.readers.grouping",
    "trainlint.envcheck.gather": "trainlint.inspectors.environment_gather",
    "trainlint.envcheck": "trainlint.inspectors.environment",
    "trainlint.envcheck.entrypoint": "trainlint.environment.entrypoint",
    "trainlint.envcheck.facts": "trainlint.environment.facts",
    "trainlint.envcheck.gpu": "trainlint.environment.gpu",
    "trainlint.envcheck.probe": "trainlint.environment.probe",
    "trainlint.envcheck.trainconfig": "trainlint.environment.trainconfig",
    "trainlint.envcheck.versions": "trainlint.environment.versions",
    "trainlint.tokenizer_check.folder": "trainlint.inspectors.tokenizer_folder",
    "trainlint.tokenizer_check": "trainlint.inspectors.tokenizer_folder",
    "trainlint.tokenizer_check.embedding": "trainlint.tokenizer.embedding",
    "trainlint.checkpoint.judge": "trainlint.inspectors.checkpoint_judge",
    "trainlint.checkpoint.cli_support": "trainlint.inspectors.checkpoint_command",
    "trainlint.dataset.judge": "trainlint.inspectors.dataset_judge",
    "trainlint.dataset.handoff": "trainlint.inspectors.dataset_handoff",
    "trainlint.compare.session": "trainlint.inspectors.comparison",
    "trainlint.compare.render": "trainlint.report.compare",
    "trainlint.compare.band": "trainlint.rules.band",
    "trainlint.rules._stats": "trainlint.rules.stats",
    "trainlint.rules._segments": "trainlint.rules.segments",
    "trainlint.rulesdoc": "trainlint.report.rules",
}
ORDER = sorted(MOVES, key=len, reverse=True)
SRC = Path(__file__).resolve().parents[1] / "src"


def _module_of(path: Path) -> tuple[str, bool] | None:
    try:
        rel = path.resolve().relative_to(SRC)
    except ValueError:
        return None
    parts = list(rel.with_suffix("").parts)
    is_pkg = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_pkg else parts), is_pkg


def _relative(pkg: list[str], target: str) -> str:
    t = target.split(".")
    common = 0
    while common < min(len(pkg), len(t)) and pkg[common] == t[common]:
        common += 1
    return "." * (len(pkg) - common + 1) + ".".join(t[common:])


def _fix_relative(path: Path, text: str) -> str:
    found = _module_of(path)
    if found is None:
        return text
    mod, is_pkg = found
    pkg = mod.split(".") if is_pkg else mod.split(".")[:-1]
    lines = text.split("\n")
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        base = pkg[: len(pkg) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
        if target not in MOVES:
            continue
        line = lines[node.lineno - 1]
        m = re.compile(r"from\s+(\S+)\s+import").match(line, node.col_offset)
        if m:
            lines[node.lineno - 1] = line[: m.start(1)] + _relative(pkg, MOVES[target]) + line[m.end(1) :]
    return "\n".join(lines)


# One pass, longest name first; names already moved (readers.console.<module>) are left alone.
_DOTTED = re.compile(
    r"\b(" + "|".join(re.escape(o) for o in ORDER) + r")(?!\w)"
    r"(?!\.(?:reader|crash|text|patterns|stateful)\b)"
)


def rewrite(path: Path) -> str:
    text = _DOTTED.sub(lambda m: MOVES[m.group(1)], path.read_text())
    return _fix_relative(path, text)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    changed = 0
    for name in (a for a in argv if a != "--check"):
        path = Path(name)
        if path.suffix != ".py":
            continue
        new = rewrite(path)
        if new != path.read_text():
            changed += 1
            print(("would rewrite " if check else "rewrote ") + name)
            if not check:
                path.write_text(new)
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
