from __future__ import annotations

import json
import sys

import click


@click.command()
@click.argument("code", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text",
              show_default=True)
def command(code: str | None, fmt: str) -> None:
    """List every rule, or explain one (by code or name)."""
    from ...registry import REGISTRY
    from ...rulesdoc import rule_dict, rule_markdown, rules_markdown
    from ...verdict import Result

    if code:
        rule = REGISTRY.get(code)
        if rule is None:
            from ...config import did_you_mean

            words = [w for r in REGISTRY.all() for w in (r.code, r.name)]
            raise click.UsageError(f"no rule {code!r} (`trainlint rules` lists them){did_you_mean(code, words)}")
        rules = [rule]
    else:
        rules = REGISTRY.all()
    if fmt == "json":
        out = Result(command="rules", extra={"rules": [rule_dict(r) for r in rules]}).to_dict()
        json.dump(out, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif fmt == "markdown":
        sys.stdout.write(rules_markdown(rules))
    elif code:
        sys.stdout.write(rule_markdown(rules[0]))
    else:
        for r in rules:
            click.echo(f"{r.code}  {r.name:<32} {r.category:<14} {r.severity.value:<5} {r.summary}")
