"""JUnit XML: one testsuite for the command, one testcase per input.

An input that FAILs is a <failure> (the first FAIL finding as its message, every FAIL finding
with its numbers as its text), one that could not be judged an <error> with the reason; WARN
findings are testcase <properties> (JUnit has no warning outcome), next to the verdict, kind
and format. Rules that ran or could not run are not test cases of their own: a scan of 4
inputs is 4 test cases, not one per rule."""

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


def _at(f: Finding) -> str:
    at = f" at step {fmt_step(f.step)}" if f.step is not None else ""
    if f.evidence.get("part"):  # a file of a folded run
        at += f" [{f.evidence['part']}]"
    return at


def _finding_text(f: Finding) -> str:
    try:
        evidence = compact_json(_clean(f.evidence))
    except (TypeError, ValueError):
        evidence = str(f.evidence)
    return f"{f.severity.value} {f.code} {f.name}{_at(f)}: {f.message}\nevidence: {evidence}"


def testcase(report: Report) -> tuple[ET.Element, str | None]:
    """One input's testcase and its outcome (``failure``, ``error`` or None for a pass)."""
    case = ET.Element("testcase", {"name": _x(report.source), "classname": _x(report.kind), "time": "0"})
    props = ET.SubElement(case, "properties")
    for key, value in (("verdict", report.verdict.value), ("kind", report.kind), ("format", report.format or "")):
        ET.SubElement(props, "property", {"name": key, "value": _x(value)})
    for f in report.findings:
        if f.severity.value == "WARN":
            name = f"WARN {f.code} {f.name}"
            ET.SubElement(props, "property", {"name": _x(name), "value": _x(f"{f.message}{_at(f)}")})
    fails = [f for f in report.findings if f.severity.value == "FAIL"]
    if fails:
        first = fails[0]
        el = ET.SubElement(
            case, "failure", {"message": _x(f"{first.code} {first.name}: {first.message}"), "type": first.code}
        )
        el.text = _x("\n".join(_finding_text(f) for f in fails))
        return case, "failure"
    if report.unjudged:
        el = ET.SubElement(case, "error", {"message": _x(report.unjudged), "type": "NOT-CHECKED"})
        el.text = _x(f"NOT-CHECKED {report.source}: {report.unjudged}")
        return case, "error"
    return case, None


def to_junit(result: Result) -> ET.Element:
    name = f"trainlint {result.command}"
    root = ET.Element("testsuites", {"name": name})
    suite = ET.SubElement(root, "testsuite", {"name": name})
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for report in sorted_reports(result):
        case, outcome = testcase(report)
        suite.append(case)
        totals["tests"] += 1
        if outcome == "failure":
            totals["failures"] += 1
        elif outcome == "error":
            totals["errors"] += 1
    stopped = interrupted_text(result)
    for name, why, kind in (("trainlint", result.empty_reason, "NOT-CHECKED"), ("interrupted", stopped, "INTERRUPTED")):
        if why:
            case = ET.SubElement(suite, "testcase", {"name": name, "classname": "input", "time": "0"})
            ET.SubElement(case, "error", {"message": _x(why), "type": kind})
            totals["tests"] += 1
            totals["errors"] += 1
    for el in (suite, root):
        el.attrib.update({k: str(v) for k, v in totals.items()})
        el.set("time", "0")
    return root


def render_junit(result: Result, stream: IO[str]) -> None:
    root = to_junit(result)
    ET.indent(root)
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    stream.write(ET.tostring(root, encoding="unicode"))
    stream.write("\n")
