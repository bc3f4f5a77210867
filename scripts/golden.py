"""Golden verdicts: what `doctor` says about every run we keep evidence of.

    python scripts/golden.py update     # rewrite tests/golden/doctor.json (say why in CHANGELOG.md)
    python scripts/golden.py check      # exit 1 and print the drift if a verdict or code changed

Roots: examples/ (bundled), evidence/ (our own gallery) and ../shared/evidence (other people's
logs, when present). Each report is keyed by ROOT/relative source and pinned as its verdict
and sorted "CODE:SEVERITY" list. tests/test_golden.py runs `check` in CI.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "doctor.json"
# ../shared/evidence beside the checkout, or beside the folder of worktrees, or $TRAINLINT_EVIDENCE
_SHARED = [Path(os.environ["TRAINLINT_EVIDENCE"])] if os.environ.get("TRAINLINT_EVIDENCE") else []
_SHARED += [ROOT.parent / "shared" / "evidence", ROOT.parent.parent / "shared" / "evidence"]
ROOTS = {
    "examples": ROOT / "examples",
    "evidence": ROOT / "evidence",
    "shared": next((p for p in _SHARED if p.is_dir()), _SHARED[0]),
}


def snapshot(roots: dict[str, Path] | None = None) -> dict[str, dict]:
    sys.path.insert(0, str(ROOT / "src"))
    from trainlint.api import Options, doctor
    from trainlint.config import Settings

    out: dict[str, dict] = {}
    for name, root in (roots or ROOTS).items():
        if not root.is_dir():
            continue
        result = doctor([root], Options(settings=Settings()))
        for rep in result.reports:
            src = Path(rep.source.split("#")[0])
            rel = src.relative_to(root).as_posix() if src.is_relative_to(root) else src.as_posix()
            key = f"{name}/{rel}" + (f"#{rep.source.split('#', 1)[1]}" if "#" in rep.source else "")
            if key in out:  # one file judged as two kinds (a training_args.bin: config and pickle)
                key += f" [{rep.kind}]"
            out[key] = {
                "kind": rep.kind,
                "verdict": rep.verdict.value,
                "codes": sorted(f"{f.code}:{f.severity.value}" for f in rep.findings),
            }
    return dict(sorted(out.items()))


def drift(want: dict[str, dict], got: dict[str, dict], roots_present: set[str]) -> list[str]:
    lines = []
    for key in sorted(set(want) | set(got)):
        if key.split("/", 1)[0] not in roots_present:
            continue
        a, b = want.get(key), got.get(key)
        if a != b:
            lines.append(f"{key}: {a} -> {b}")
    return lines


def main(argv: list[str]) -> int:
    cmd = argv[1] if len(argv) > 1 else "check"
    got = snapshot()
    if cmd == "update":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(got, indent=1) + "\n")
        print(f"wrote {len(got)} golden verdicts to {GOLDEN.relative_to(ROOT)}")
        return 0
    want = json.loads(GOLDEN.read_text())
    present = {name for name, root in ROOTS.items() if root.is_dir()}
    lines = drift(want, got, present)
    print("\n".join(lines) if lines else f"{len(got)} golden verdicts unchanged")
    return 1 if lines else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
