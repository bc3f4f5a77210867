#!/usr/bin/env python
"""Regenerate RULES.md from the rule registry: ``python scripts/gen_rules_md.py`` (``--check`` to
only verify it is current; exit 1 when it drifted)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from trainlint.report.rules import rules_markdown  # noqa: E402


def main(argv: list[str]) -> int:
    target = ROOT / "RULES.md"
    text = rules_markdown()
    if "--check" in argv:
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if current != text:
            print("RULES.md is out of date; run python scripts/gen_rules_md.py", file=sys.stderr)
            return 1
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
