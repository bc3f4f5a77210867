"""`trainlint rules`: list every rule or a category's, or explain one."""

from __future__ import annotations

import click


@click.command()
@click.argument("code", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
def command(code: str | None, fmt: str) -> None:
    """List every rule, a category's rules (nan, lr), or explain one (by code or name)."""
    from ...api import rules
    from ...report.rules import render_rules

    try:
        found = rules(code)
    except KeyError:
        from ...config import did_you_mean, selector_words

        raise click.UsageError(
            f"no rule or category {code!r} (`trainlint rules` lists them){did_you_mean(code or '', selector_words())}"
        ) from None
    render_rules(found, fmt, one=bool(code) and len(found) == 1)
