"""A few plain-text lines an agent reads before the JSON envelope (the MCP tools).

A function of the envelope dict only (``Result.to_dict()``): the overall verdict and exit
code, then one line per report with its verdict, source and finding codes, then the first
findings' messages (they carry the numbers they fired on)."""

from __future__ import annotations

from typing import Any

MAX_REPORTS = 20
MAX_FINDINGS = 12
MAX_MESSAGE = 240


def brief(envelope: dict[str, Any]) -> str:
    reports = envelope.get("reports") or []
    counts: dict[str, int] = {}
    for r in reports:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    tally = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    head = f"{envelope['verdict']} (exit {envelope['exit_code']}) trainlint {envelope['command']}"
    lines = [head + (f": {len(reports)} report(s), {tally}" if reports else "")]
    if envelope.get("reason"):
        lines.append(f"reason: {envelope['reason']}")
    for r in reports[:MAX_REPORTS]:
        lines.append(_report_line(r))
    if len(reports) > MAX_REPORTS:
        lines.append(f"... and {len(reports) - MAX_REPORTS} more report(s) in the JSON")
    findings = [
        (r["source"], f) for r in reports for f in r.get("findings", []) if f.get("severity") in ("FAIL", "WARN")
    ]
    for source, f in findings[:MAX_FINDINGS]:
        lines.append(f"- {f['code']} {f['severity']} {source}: {_short(f.get('message', ''))}")
    if len(findings) > MAX_FINDINGS:
        lines.append(f"... and {len(findings) - MAX_FINDINGS} more finding(s) in the JSON")
    if any(r.get("findings") for r in reports):
        lines.append("explain(code) gives a rule's meaning, thresholds and what to try.")
    return "\n".join(lines)


def _report_line(r: dict[str, Any]) -> str:
    codes = list(dict.fromkeys(f["code"] for f in r.get("findings", []) if f.get("severity") in ("FAIL", "WARN")))
    tail = f": {', '.join(codes)}" if codes else ""
    if r.get("reason"):
        tail += f" (not checked: {_short(r['reason'])})"
    return f"{r['verdict']:<11} {r['kind']:<11} {r['source']}{tail}"


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def series_brief(envelope: dict[str, Any]) -> str:
    """The series tool: one line per curve (points read, points kept, non-finite kept)."""
    if envelope.get("reports"):
        return brief(envelope)
    head = (
        f"series of {envelope.get('source')} ({envelope.get('format')}), at most "
        f"{envelope.get('max_points')} points per curve, min/max of each bucket kept"
    )
    lines = [head]
    for role, c in (envelope.get("curves") or {}).items():
        bad = sum(1 for v in c["values"] if isinstance(v, str))
        lines.append(
            f"- {role} ({c['name']}): {c['points']} points read, {c['kept']} kept"
            + (f", {bad} non-finite kept" if bad else "")
        )
    if envelope.get("roles_missing"):
        lines.append("roles not in this log: " + ", ".join(envelope["roles_missing"]))
    return "\n".join(lines)
