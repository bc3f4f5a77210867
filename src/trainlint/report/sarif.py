"""SARIF 2.1.0 output, for code-scanning dashboards. The rule table comes from the registry.

It holds only the rules that have results (each with a help URI into the docs): the whole table
is some 240 KB, a few results need a few KB."""

from __future__ import annotations

import math
from typing import IO, Any

from ..registry import REGISTRY, Rule
from ..verdict import Finding, Report, Result, _clean
from .common import DOCS_URL, exit_code, finding_location, interrupted_text, rule_help, rule_url
from .json_out import write_json

LEVELS = {"FAIL": "error", "WARN": "warning", "NOTE": "note"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def sarif_rule(r: Rule) -> dict[str, Any]:
    """One rule's entry: the explanation once (``fullDescription``), the help short (its advice
    and where the whole explanation is)."""
    explanation = " ".join(r.explanation.split())
    tip = rule_help(r.code)
    advice = f"Try: {tip}" if tip else r.summary
    return {
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": explanation},
        "help": {
            "text": f"{advice} More: trainlint rules {r.code}",
            "markdown": f"{advice}\n\nMore: `trainlint rules {r.code}`, [{r.code} in RULES.md]({rule_url(r.code)})",
        },
        "helpUri": rule_url(r.code),
        "defaultConfiguration": {"level": LEVELS.get(r.severity.value, "warning")},
        "properties": {
            "category": r.category,
            "target": r.target,
            "thresholds": {t.name: t.default for t in r.thresholds},
        },
    }


def _location(report: Report, finding: Finding | None = None) -> list[dict[str, Any]]:
    """The artifact (the file the finding points at, else the report's source) and, when the
    finding knows its line (dataset row, console/JSONL line, crash line), a region."""
    if finding is None:
        return [{"physicalLocation": {"artifactLocation": {"uri": report.source}}}]
    path, line = finding_location(report, finding)
    loc: dict[str, Any] = {"artifactLocation": {"uri": path}}
    if line is not None:
        loc["region"] = {"startLine": line}
    return [{"physicalLocation": loc}]


def _step(step: Any) -> int | float | None:
    if step is None:
        return None
    x = float(step)
    return round(x) if math.isfinite(x) else None


def _rules(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The registered rules the results name, in code order."""
    codes = sorted({r["ruleId"] for r in results})
    return [sarif_rule(rule) for rule in (REGISTRY.get(c) for c in codes) if rule is not None]


def to_sarif(result: Result) -> dict[str, Any]:
    from .. import __version__

    results, notes = [], []
    for rep in result.reports:
        for f in rep.findings:
            props = {"evidence": _clean(f.evidence), "step": _step(f.step), "verdict": rep.verdict.value}
            if f.origin is not None:  # a comparison's finding: the run alone, or against the baseline
                props["origin"] = f.origin
            results.append(
                {
                    "ruleId": f.code,
                    "level": LEVELS[f.severity.value],
                    "message": {"text": f.message},
                    "locations": _location(rep, f),
                    "properties": props,
                }
            )
        if rep.unjudged:
            notes.append(
                {
                    "level": "error",
                    "message": {"text": f"NOT-CHECKED {rep.source}: {rep.unjudged}"},
                    "locations": _location(rep),
                }
            )
    if result.empty_reason:
        notes.append({"level": "error", "message": {"text": f"NOT-CHECKED: {result.empty_reason}"}})
    run = {
        "tool": {
            "driver": {
                "name": "trainlint",
                "version": __version__,
                "informationUri": DOCS_URL,
                "rules": _rules(results),
            }
        },
        "invocations": [
            {
                "executionSuccessful": result.interrupted is None,
                "exitCode": exit_code(result, None),
                "toolExecutionNotifications": notes + _interrupted(result),
            }
        ],
        "results": results,
        "properties": {"verdict": result.verdict.value},
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _interrupted(result: Result) -> list[dict[str, Any]]:
    text = interrupted_text(result)
    return [] if text is None else [{"level": "error", "message": {"text": text}}]


def render_sarif(result: Result, stream: IO[str]) -> None:
    write_json(to_sarif(result), stream)
