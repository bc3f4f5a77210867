"""Rule documentation generated from the registry (``trainlint rules``, RULES.md)."""

from __future__ import annotations

import sys
from typing import IO, Any

from ..registry import CATEGORIES, LIVE, REGISTRY, Rule


def rule_dict(r: Rule) -> dict[str, Any]:
    return {
        "code": r.code,
        "name": r.name,
        "category": r.category,
        "severity": r.severity.value,
        "target": r.target,
        "summary": r.summary,
        "explanation": r.explanation,
        "thresholds": [{"name": t.name, "default": t.default, "doc": t.doc} for t in r.thresholds],
        **({"live": r.live} if r.target == "log" else {}),
    }


def rule_markdown(r: Rule, level: str = "##") -> str:
    lines = [
        f"{level} {r.code} {r.name}",
        "",
        f"Category `{r.category}` · default severity {r.severity.value} · judges: {r.target}"
        + (f" · live guard (`{r.live}`): {LIVE[r.live]}" if r.target == "log" else ""),
        "",
        r.summary,
        "",
        " ".join(r.explanation.split()),
        "",
    ]
    if r.thresholds:
        lines += ["| threshold | default | meaning |", "|---|---|---|"]
        lines += [f"| `{t.name}` | {t.default:g} | {t.doc} |" for t in r.thresholds]
        lines.append("")
    return "\n".join(lines) + "\n"


def rules_markdown(rules: list[Rule] | None = None) -> str:
    rules = REGISTRY.all() if rules is None else rules
    head = [
        "# Rules",
        "",
        "Generated from the rule registry by `python scripts/gen_rules_md.py`; do not edit by hand.",
        "Override a threshold with `--threshold CODE.NAME=VALUE` or in `[tool.trainlint.thresholds.CODE]`.",
        "",
        "| code | name | category | severity | summary |",
        "|---|---|---|---|---|",
    ]
    head += [
        f"| [{r.code}](#{r.code.lower()}-{r.name}) | {r.name} | {r.category} | {r.severity.value} | {r.summary} |"
        for r in rules
    ]
    body = []
    for cat in CATEGORIES:
        for r in (r for r in rules if r.category == cat):
            body.append(rule_markdown(r))
    return "\n".join(head) + "\n\n" + "\n".join(body)


def render_rules(rules: list[Rule], fmt: str = "text", one: bool = False, stream: IO[str] | None = None) -> None:
    """``trainlint rules``: one line per rule (text), the rules' JSON envelope, or Markdown;
    ``one``: a single rule explained in full."""
    from ..verdict import Result
    from .json_out import write_json

    out = stream or sys.stdout
    if fmt == "json":
        write_json(Result(command="rules", extra={"rules": [rule_dict(r) for r in rules]}).to_dict(), out, strict=False)
    elif fmt == "markdown":
        out.write(rules_markdown(rules))
    elif one:
        out.write(rule_markdown(rules[0]))
    else:
        for r in rules:
            out.write(f"{r.code}  {r.name:<32} {r.category:<14} {r.severity.value:<5} {r.summary}\n")
