"""docs/realworld.md: how trainlint does on real third-party training logs.

    python scripts/realworld_report.py            # judge the corpus, write docs/realworld.md
    python scripts/realworld_report.py --check    # exit 1 if docs/realworld.md is not current
    python scripts/realworld_report.py --summary  # print the figures only

The corpus is tests/realworld/manifest.toml: committed copies (tests/realworld/files/), files
that scripts/realworld_fetch.py downloads into tests/realworld/cache/, and the logs of
../shared/evidence. Entries whose file is not on this machine are listed as missing.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "realworld"
OUT = ROOT / "docs" / "realworld.md"
MIN_STEPS = 10  # the read rate counts logs with at least this many logged steps


def evidence_root() -> Path | None:
    """../shared/evidence beside the checkout or beside its worktree folder, or $TRAINLINT_EVIDENCE."""
    cands = [Path(os.environ["TRAINLINT_EVIDENCE"])] if os.environ.get("TRAINLINT_EVIDENCE") else []
    cands += [
        ROOT.parent / "shared" / "evidence",
        ROOT.parent.parent / "shared" / "evidence",
    ]
    return next((p for p in cands if p.is_dir()), None)


def entries() -> list[dict]:
    return tomllib.loads((CORPUS / "manifest.toml").read_text())["log"]


def locate(e: dict) -> Path | None:
    """Where the entry's file is on this machine: committed copy, download cache, or evidence."""
    if e.get("file"):
        p = CORPUS / e["file"]
        return p if p.exists() else None
    if e.get("evidence"):
        root = evidence_root()
        p = root / e["evidence"] if root else None
        return p if p is not None and p.exists() else None
    p = CORPUS / "cache" / e["id"] / Path(e["path"]).name
    return p if p.exists() else None


@dataclass
class Judged:
    entry: dict
    path: Path | None
    verdict: str = "missing"
    reason: str | None = None
    points: int | None = None  # logged steps (loss points, else the longest series)
    findings: list[str] = field(default_factory=list)  # "CODE:SEV message" of WARN/FAIL

    @property
    def judged(self) -> bool:
        return self.verdict not in ("missing", "NOT-CHECKED")

    @property
    def long(self) -> bool:
        return self.points is None or self.points >= MIN_STEPS


def judge(e: dict) -> Judged:
    sys.path.insert(0, str(ROOT / "src"))
    from trainlint.api import Options, doctor
    from trainlint.config import Settings

    path = locate(e)
    out = Judged(e, path)
    if path is None:
        return out
    result = doctor([path], Options(settings=Settings()))
    logs = [r for r in result.reports if r.kind == "log"]
    if not logs:
        out.verdict, out.reason = (
            "NOT-CHECKED",
            result.empty_reason or "not read as a log",
        )
        return out
    rep = logs[0]
    out.verdict, out.reason = rep.verdict.value, rep.unjudged
    out.points = rep.summary.get("loss_points") or _longest(path)
    out.findings = [
        f"{f.code}:{f.severity.value} {f.message}" for f in rep.findings if f.severity.value in ("FAIL", "WARN")
    ]
    return out


def _longest(path: Path) -> int | None:
    from trainlint.readers import ReadError, read_run

    try:
        run = read_run(path)
    except (ReadError, OSError, ValueError):
        return None
    return max((len(s) for s in run.series.values()), default=0)


def figures(rows: list[Judged]) -> dict:
    present = [r for r in rows if r.path is not None]
    counted = [r for r in present if r.entry["label"] != "no-loss" and r.long]
    judged = [r for r in counted if r.judged]
    healthy = [r for r in present if r.entry["label"] == "healthy" and r.judged]
    visible = [r for r in present if r.entry["label"] == "broken" and r.entry.get("visible")]
    return {
        "entries": len(rows),
        "present": len(present),
        "counted": len(counted),
        "judged": len(judged),
        "read_rate": len(judged) / len(counted) if counted else 1.0,
        "healthy": len(healthy),
        "healthy_fail": [r for r in healthy if r.verdict == "FAIL"],
        "healthy_warn": [r for r in healthy if r.verdict == "WARN"],
        "broken_visible": len(visible),
        "broken_missed": [r for r in visible if r.verdict not in ("FAIL", "WARN")],
        "unread": [r for r in counted if not r.judged],
    }


def _row(r: Judged) -> str:
    e = r.entry
    where = e["repo"] + ("" if "evidence" in e else f" `{e['path']}`")
    pts = "?" if r.points is None else str(r.points)
    codes = ", ".join(sorted({f.split(" ")[0] for f in r.findings})) or "-"
    return f"| {e['id']} | {where} | {e['licence']} | {e['label']} | {pts} | {r.verdict} | {codes} |"


def render(rows: list[Judged]) -> str:
    f = figures(rows)
    by_label: dict[str, dict[str, int]] = {}
    for r in rows:
        if r.path is None:
            continue
        by_label.setdefault(r.entry["label"], {}).setdefault(r.verdict, 0)
        by_label[r.entry["label"]][r.verdict] += 1
    lines = [
        "# trainlint on real training logs",
        "",
        "Generated by `python scripts/realworld_report.py` from `tests/realworld/manifest.toml`: public",
        "training logs of other people's runs (GitHub repositories, and the trainproof logs of",
        "`../shared/evidence`), each with its repository, path, commit, licence and what is known about",
        "the run. Files whose licence allows it are committed under `tests/realworld/files/` (with the",
        "licence beside them); the rest are re-downloaded by `scripts/realworld_fetch.py`.",
        "`tests/test_realworld.py` pins these figures.",
        "",
        "## Figures",
        "",
        f"- corpus: {f['entries']} logs ({f['present']} present when this was generated)",
        (
            f"- read rate: {f['judged']} of {f['counted']} logs with a loss and {MIN_STEPS}+ steps had "
            f"their loss found and were judged ({f['read_rate'] * 100:.1f} %)"
        ),
        (
            f"- healthy runs: {f['healthy']} judged, {len(f['healthy_fail'])} FAIL, "
            f"{len(f['healthy_warn'])} WARN ({len(f['healthy_warn']) / max(f['healthy'], 1) * 100:.1f} %)"
        ),
        (
            f"- runs broken in a way their curves show: {f['broken_visible']}, flagged (WARN or FAIL) "
            f"{f['broken_visible'] - len(f['broken_missed'])}"
        ),
        "",
        "## Verdict per label",
        "",
        "| label | PASS | WARN | FAIL | NOT-CHECKED |",
        "|---|---|---|---|---|",
    ]
    for label in ("healthy", "broken", "unknown", "no-loss"):
        c = by_label.get(label, {})
        lines.append(
            f"| {label} | " + " | ".join(str(c.get(v, 0)) for v in ("PASS", "WARN", "FAIL", "NOT-CHECKED")) + " |"
        )
    lines += [
        "",
        (
            "`unknown`: runs whose health the repository does not tell (RL objectives, several "
            "launches in one file); `no-loss`: files that log no loss at all (accuracy tables, test "
            "logs). Neither counts in the figures above."
        ),
        "",
        "## Every WARN or FAIL on a healthy run",
        "",
    ]
    flagged = f["healthy_fail"] + f["healthy_warn"]
    lines += [f"- **{r.entry['id']}** ({r.verdict}): " + "; ".join(r.findings) for r in flagged] or ["none"]
    lines += ["", "## Broken runs not flagged", ""]
    lines += [f"- **{r.entry['id']}**: {r.verdict}; {r.entry['known']}" for r in f["broken_missed"]] or ["none"]
    hidden = [r for r in rows if r.path is not None and r.entry["label"] == "broken" and not r.entry.get("visible")]
    lines += [
        "",
        "## Broken runs whose curves alone do not show it",
        "",
        (
            "Known broken from outside the log (a baseline, the task); not counted above. "
            "`compare` / `doctor --baseline` or `--num-classes` are the way to catch them."
        ),
        "",
    ]
    lines += [f"- **{r.entry['id']}**: {r.verdict}; {r.entry['known']}" for r in hidden] or ["none"]
    lines += ["", "## Logs whose loss was not found", ""]
    lines += [f"- **{r.entry['id']}**: {r.reason}" for r in f["unread"]] or ["none"]
    lines += [
        "",
        "## Every log",
        "",
        "| id | source | licence | label | steps | verdict | WARN/FAIL |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [_row(r) for r in rows]
    missing = [r for r in rows if r.path is None]
    if missing:
        lines += [
            "",
            f"Missing on this machine ({len(missing)}): " + ", ".join(r.entry["id"] for r in missing),
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Judge the real-log corpus; write docs/realworld.md.")
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--summary", action="store_true", help="print the figures only (writes nothing)")
    how.add_argument("--check", action="store_true", help="exit 1 if docs/realworld.md is not current")
    args = ap.parse_args(argv[1:])  # --help and unknown options end here, before anything is written
    rows = [judge(e) for e in entries()]
    text = render(rows)
    if args.summary:
        print(text.split("## Verdict per label")[0])
        return 0
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print("docs/realworld.md is not current: run python scripts/realworld_report.py")
            return 1
        return 0
    OUT.write_text(text)
    print(text.split("## Verdict per label")[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
