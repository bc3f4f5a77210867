"""JUnit XML: one testsuite per input, one testcase per rule that ran.

A FAIL finding is a <failure> (message and numbers), a rule that could not run is <skipped>
with the reason, an input that could not be judged at all is one <error> testcase. WARN and
NOTE findings are kept in the testcase's <system-out> (JUnit has no warning outcome)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import IO

from ..verdict import Finding, Report, Result, _clean
from .common import fmt_step, interrupted_text, sorted_reports
from .json_out import compact_json

_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _x(text: object) -> str:
    """Text XML 1.0 can carry (control characters dropped)."""
    return _BAD_XML.sub("", str(text))


def _finding_text(f: Finding) -> str:
    at = f" at step {fmt_step(f.step)}" if f.step is not None else ""
    if f.evidence.get("part"):  # a file of a folded run
        at += f" [{f.evidence['part']}]"
    try:
        evidence = compact_json(_clean(f.evidence))
    except (TypeError, ValueError):
        evidence = str(f.evidence)
    return f"{f.severity.value} {f.code} {f.name}{at}: {f.message}\nevidence: {evidence}"


def _testcase(suite: ET.Element, report: Report, code: str, name: str) -> ET.Element:
    return ET.SubElement(
        suite,
        "testcase",
        {
            "name": _x(f"{code} {name}".strip()),
            "classname": _x(report.source),
            "time": "0",
        },
    )


def _rule_name(code: str) -> str:
    from ..registry import REGISTRY

    rule = REGISTRY.get(code)
    return rule.name if rule else ""


def testsuite(report: Report) -> ET.Element:
    suite = ET.Element("testsuite", {"name": _x(report.source)})
    props = ET.SubElement(suite, "properties")
    for key, value in (
        ("verdict", report.verdict.value),
        ("kind", report.kind),
        ("format", report.format or ""),
    ):
        ET.SubElement(props, "property", {"name": key, "value": _x(value)})
    by_code: dict[str, list[Finding]] = {}
    for f in report.findings:
        by_code.setdefault(f.code, []).append(f)
    codes = list(dict.fromkeys([*report.checks.ran, *by_code]))
    failures = errors = skipped = 0
    for code in codes:
        found = by_code.get(code, [])
        case = _testcase(suite, report, code, found[0].name if found else _rule_name(code))
        fails = [f for f in found if f.severity.value == "FAIL"]
        if fails:
            failures += 1
            el = ET.SubElement(case, "failure", {"message": _x(fails[0].message), "type": code})
            el.text = _x("\n".join(_finding_text(f) for f in fails))
        others = [f for f in found if f.severity.value != "FAIL"]
        why = report.checks.stood_down.get(code)
        lines = [_finding_text(f) for f in others] + ([f"stood down: {why}"] if why else [])
        if lines:
            ET.SubElement(case, "system-out").text = _x("\n".join(lines))
    for code, why in report.checks.not_checked.items():
        if code in codes:
            continue
        skipped += 1
        case = _testcase(suite, report, code, _rule_name(code))
        ET.SubElement(case, "skipped", {"message": _x(why)})
    if report.unjudged:
        errors += 1
        case = _testcase(suite, report, "input", "could-not-judge")
        ET.SubElement(case, "error", {"message": _x(report.unjudged), "type": "NOT-CHECKED"}).text = _x(
            f"NOT-CHECKED {report.source}: {report.unjudged}"
        )
    if report.notes:
        ET.SubElement(suite, "system-out").text = _x("\n".join(report.notes))
    tests = len(suite.findall("testcase"))
    suite.attrib.update(
        {
            "tests": str(tests),
            "failures": str(failures),
            "errors": str(errors),
            "skipped": str(skipped),
            "time": "0",
        }
    )
    return suite


def to_junit(result: Result) -> ET.Element:
    root = ET.Element("testsuites", {"name": f"trainlint {result.command}"})
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for report in sorted_reports(result):
        suite = testsuite(report)
        root.append(suite)
        for key in totals:
            totals[key] += int(suite.get(key, "0"))
    stopped = interrupted_text(result)
    for name, why, kind in (
        ("input could-not-judge", result.empty_reason, "NOT-CHECKED"),
        ("interrupted", stopped, "INTERRUPTED"),
    ):
        if why:
            _error_suite(root, name, why, kind)
            totals["tests"] += 1
            totals["errors"] += 1
    root.attrib.update({k: str(v) for k, v in totals.items()})
    root.set("time", "0")
    return root


def render_junit(result: Result, stream: IO[str]) -> None:
    root = to_junit(result)
    ET.indent(root)
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    stream.write(ET.tostring(root, encoding="unicode"))
    stream.write("\n")


def _error_suite(root: ET.Element, name: str, why: str, kind: str) -> None:
    """A one-testcase suite whose error says why the result is incomplete."""
    suite = ET.SubElement(
        root,
        "testsuite",
        {"name": "trainlint", "tests": "1", "failures": "0", "errors": "1", "skipped": "0", "time": "0"},
    )
    case = ET.SubElement(suite, "testcase", {"name": name, "classname": "trainlint", "time": "0"})
    ET.SubElement(case, "error", {"message": _x(why), "type": kind})
