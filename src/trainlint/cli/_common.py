"""Options and output shared by the judging commands."""

from __future__ import annotations

import functools
import importlib.util
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..verdict import Result

if TYPE_CHECKING:
    from ..report import View

_META = "trainlint.output"
# The rule targets each command judges: a selection leaving none of them is a usage error.
COMMAND_TARGETS = {
    "data": ("dataset", "tokenizer"),
    "ckpt": ("checkpoint",),
    "tokenizer": ("tokenizer",),
    "env": ("environment",),
    "compare": ("comparison", "log"),
    "watch": ("log", "live"),
}


def _store(key: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        ctx.meta.setdefault(_META, {})[key] = value
        return value

    return callback


def _check_outputs(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    from ..report import format_for, output_format, suffix_map

    for path in value:
        fmt = format_for(path)
        if fmt is None:
            raise click.BadParameter(
                f"{path}: cannot tell the format from the suffix (one of {', '.join(sorted(suffix_map()))})",
                ctx,
                param,
            )
        if importlib.util.find_spec(f"trainlint.report.{output_format(fmt).module}") is None:
            raise click.BadParameter(f"{path}: the {fmt} output is not available in this version", ctx, param)
    ctx.meta.setdefault(_META, {})["outputs"] = value
    return value


def _suffix_help() -> str:
    """The --output suffixes, from the output-format table: ``.json .sarif .xml=junit ...``."""
    from ..report import suffix_map

    return " ".join(s if s[1:] == f else f"{s}={f}" for s, f in suffix_map().items())


def _format_help() -> str:
    """--format's help, from the output-format table."""
    from ..report import OUTPUT_FORMATS

    return "Output format: " + ", ".join(f.help for f in OUTPUT_FORMATS) + "."


class Later:
    """An option-table value made when the option is (``--format``'s choices and help, the
    ``--output`` suffixes): it reads the report package, which ``import trainlint.cli`` does not load."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


# An option table row: click.option's parameter declarations and keywords (a Later made then).
Row = tuple[tuple[str, ...], dict[str, Any]]


def with_options(rows: Iterable[Row]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator adding the click option of each row, listed in the rows' order in --help."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        for decls, kw in reversed(list(rows)):
            made = {k: v.make() if isinstance(v, Later) else v for k, v in kw.items()}
            fn = click.option(*decls, **made)(fn)
        return fn

    return deco


def _in_context(key: str, **kw: Any) -> dict[str, Any]:
    """An output option's keywords: its value kept in the click context (``_store``), not passed."""
    return dict(expose_value=False, callback=_store(key), **kw)


# -v/-q, --fail-on, --exit-zero, --statistics, --output: kept in the click context, read by finish.
OUTPUT_OPTIONS: list[Row] = [
    (
        ("-v", "--verbose"),
        _in_context(
            "verbose", count=True, help="Also show NOTEs, notes and which rules ran, stood down or could not run."
        ),
    ),
    (
        ("-q", "--quiet"),
        _in_context("quiet", is_flag=True, help="Show only FAIL and NOT-CHECKED inputs, each once, and the counts."),
    ),
    (
        ("--fail-on",),
        _in_context(
            "fail_on",
            type=click.Choice(["fail", "warn"]),
            default="fail",
            show_default=True,
            help="Exit 1 on FAIL only, or on WARN too (for CI gates).",
        ),
    ),
    (
        ("--exit-zero",),
        _in_context("exit_zero", is_flag=True, help="Always exit 0 (report-only jobs); usage errors still exit 2."),
    ),
    (
        ("--statistics",),
        _in_context(
            "statistics",
            is_flag=True,
            help="Print how often each rule fired, most frequent first, instead of the --format view.",
        ),
    ),
    (
        ("--output", "-o"),
        dict(
            multiple=True,
            metavar="FILE",
            expose_value=False,
            callback=_check_outputs,
            help=Later(
                lambda: (
                    f"Also write the result to FILE, in the format its suffix names ({_suffix_help()}); "
                    "repeatable. The terminal keeps the --format view."
                )
            ),
        ),
    ),
]


def _format_choice() -> click.Choice[str]:
    from ..report import format_names

    return click.Choice(format_names())


_RULES_HELP = "rule codes, prefixes, categories or names (comma list; repeatable)."
# --format, --config, --select, --ignore, --threshold; then MAP_OPTION (logs only).
JUDGING_OPTIONS: list[Row] = [
    (
        ("--format", "fmt"),
        dict(type=Later(_format_choice), default="text", show_default=True, help=Later(_format_help)),
    ),
    (
        ("--config",),
        dict(
            type=click.Path(dir_okay=False, path_type=Path),
            help="Config file (default: nearest trainlint.toml or pyproject.toml).",
        ),
    ),
    (("--select",), dict(multiple=True, metavar="RULES", help="Only these " + _RULES_HELP)),
    (("--ignore",), dict(multiple=True, metavar="RULES", help="Skip these " + _RULES_HELP)),
    (
        ("--threshold", "thresholds"),
        dict(multiple=True, metavar="CODE.NAME=VALUE", help="Override a rule threshold."),
    ),
]
MAP_OPTION: Row = (
    ("--map", "role_map"),
    dict(multiple=True, metavar="ROLE=NAME", help="Use metric NAME for ROLE (e.g. loss=train/total)."),
)


def output_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """-v/-q, --fail-on, --exit-zero, --output: kept in the click context, read by :func:`finish`."""
    return with_options(OUTPUT_OPTIONS)(fn)


def judging_options(fn: Callable[..., Any] | None = None, *, role_map: bool = True) -> Any:
    """--format, --config, --select, --ignore, --threshold, --map (logs only) and the output options."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        if not role_map:
            inner = fn

            @functools.wraps(inner)
            def fn(*args: Any, **kwargs: Any) -> Any:
                return inner(*args, role_map=(), **kwargs)

        fn = output_options(fn)  # listed after the judging options in --help
        return with_options(JUDGING_OPTIONS + ([MAP_OPTION] if role_map else []))(fn)

    return deco(fn) if fn is not None else deco


def build_options(
    config: Path | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    thresholds: tuple[str, ...],
    role_map: tuple[str, ...],
    **fields: Any,
) -> Any:
    """The api's Options from the command line; a usage error (exit 2) on bad input, on a
    selector that names no rule, and on a selection that leaves this command no rule."""
    from ..api import OptionsError
    from ..api import build_options as _build

    ctx = click.get_current_context(silent=True)
    name = ctx.info_name if ctx is not None else None
    try:
        return _build(
            config,
            select,
            ignore,
            thresholds,
            role_map,
            targets=COMMAND_TARGETS.get(name or ""),
            command=name,
            **fields,
        )
    except OptionsError as exc:
        raise click.UsageError(str(exc)) from None


def exit_code_for(result: Result, fail_on: str = "fail", exit_zero: bool = False) -> int:
    """The process exit code: the contract's, WARN counted as a failure with --fail-on warn,
    0 with --exit-zero."""
    if exit_zero:
        return 0
    code = result.exit_code
    if fail_on == "warn" and code != 1 and any(r.verdict.value == "WARN" for r in result.reports):
        return 1
    return code


def _meta() -> dict[str, Any]:
    ctx = click.get_current_context(silent=True)
    return ctx.meta.setdefault(_META, {}) if ctx is not None else {}


def _verbosity(meta: dict[str, Any]) -> int:
    return -1 if meta.get("quiet") else int(meta.get("verbose") or 0)


def live_hooks(fmt: str, stream_reports: bool = True) -> dict[str, Any]:
    """``on_report`` / ``on_progress`` for :func:`trainlint.api.doctor`: a progress line on
    stderr when it is a terminal, and (text on a terminal) each report printed as it is judged."""
    from ..report import View
    from ..report.progress import Live, Progress

    progress = Progress()
    hooks: dict[str, Any] = {"on_progress": progress.update if progress.enabled else None}
    meta = _meta()
    if stream_reports and fmt == "text" and not meta.get("statistics") and sys.stdout.isatty():
        live = Live(View(verbosity=_verbosity(meta)), sys.stdout, progress)
        meta["live"] = live
        hooks["on_report"] = live.report
    return hooks


def _write_outputs(result: Result, paths: Iterable[str], view: View) -> None:
    """Each --output file in the format its suffix names (JSON otherwise); exit 2 on one that
    cannot be written."""
    from ..report import format_for, render

    for path in paths:
        try:
            with open(path, "w", encoding="utf-8") as stream:
                render(result, format_for(path) or "json", stream, view, vet=False)
        except OSError as exc:
            click.echo(f"trainlint: cannot write {path}: {exc.strerror or exc}", err=True)
            sys.exit(2)


def finish(result: Result, fmt: str, before: Callable[[], None] | None = None) -> None:
    """Write --output files, render ``fmt`` to stdout (``before`` runs first, for text), exit."""
    from ..report import View, format_for, render, vetted

    meta = _meta()
    verbosity = _verbosity(meta)
    if meta.get("statistics") and fmt == "json":  # the envelope, with the counts added
        from ..report.statistics import statistics

        result.extra["statistics"] = statistics(result, verbosity > 0)
    elif meta.get("statistics"):
        fmt = "statistics"
    live = meta.get("live")
    if live is not None:
        result = live.vetted(result)  # the reports already shown as NOT-CHECKED stay so
    formats = {fmt, *(format_for(p) or "json" for p in meta.get("outputs") or ())}
    result = vetted(result, formats)  # a report that cannot be written: its NOT-CHECKED (issue 33)
    blocks = None
    if fmt == "text" and live is None:  # each block rendered once, before the exit code is known
        from ..report.text import text_blocks

        result, blocks = text_blocks(result, sys.stdout, View(verbosity=verbosity))
    code = exit_code_for(result, meta.get("fail_on") or "fail", bool(meta.get("exit_zero")))
    if result.interrupted is not None:  # stopped by a signal: no verdict for the whole is implied
        code = 128 + result.interrupted
    if live is not None:
        live.progress.clear()
    _write_outputs(result, meta.get("outputs") or (), View(verbosity=verbosity, exit_code=code, color=False))
    if before is not None and fmt == "text":
        before()
    if live is not None and fmt == "text":
        live.finish(result, View(verbosity=verbosity, exit_code=code))
    elif blocks is not None:
        from ..report.text import render_text

        render_text(result, sys.stdout, View(verbosity=verbosity, exit_code=code), blocks)
    else:
        render(result, fmt, view=View(verbosity=verbosity, exit_code=code), vet=False)
    sys.exit(code)
