"""SARIF 2.1.0 output, for code-scanning dashboards. The rule table comes from the registry."""

from __future__ import annotations

from typing import IO, Any

from ..registry import REGISTRY, Rule
from ..verdict import Report, Result, _clean
from .json_out import write_json

LEVELS = {"FAIL": "error", "WARN": "warning", "NOTE": "note"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def sarif_rule(r: Rule) -> dict[str, Any]:
    return {
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": " ".join(r.explanation.split())},
        "help": {"text": " ".join(r.explanation.split())},
        "defaultConfiguration": {"level": LEVELS.get(r.severity.value, "warning")},
        "properties": {"category": r.category, "target": r.target,
                       "thresholds": {t.name: t.default for t in r.thresholds}},
    }


def _location(report: Report) -> list[dict[str, Any]]:
    return [{"physicalLocation": {"artifactLocation": {"uri": report.source}}}]


def to_sarif(result: Result) -> dict[str, Any]:
    from .. import __version__

    results, notes = [], []
    for rep in result.reports:
        for f in rep.findings:
            results.append({"ruleId": f.code, "level": LEVELS[f.severity.value],
                            "message": {"text": f.message}, "locations": _location(rep),
                            "properties": {"evidence": _clean(f.evidence), "step": f.step,
                                           "verdict": rep.verdict.value}})
        if rep.unjudged:
            notes.append({"level": "error", "message": {"text": f"NOT-CHECKED {rep.source}: {rep.unjudged}"},
                          "locations": _location(rep)})
    run = {
        "tool": {"driver": {"name": "trainlint", "version": __version__,
                            "rules": [sarif_rule(r) for r in REGISTRY.all()]}},
        "invocations": [{"executionSuccessful": True, "exitCode": result.exit_code,
                         "toolExecutionNotifications": notes}],
        "results": results,
        "properties": {"verdict": result.verdict.value},
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def render_sarif(result: Result, stream: IO[str]) -> None:
    write_json(to_sarif(result), stream)
