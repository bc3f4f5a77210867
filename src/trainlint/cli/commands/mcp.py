"""`trainlint mcp`: serve trainlint to an AI agent over the Model Context Protocol (stdio)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.option(
    "--root",
    "roots",
    multiple=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="A folder the agent may read (repeatable; default: the working folder). "
    "Every path argument must resolve under one of them.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=1),
    default=120.0,
    show_default=True,
    help="Seconds one judgement may take; past it the input is NOT-CHECKED.",
)
@click.option(
    "--max-memory",
    "memory_gb",
    type=click.FloatRange(min=0.5),
    metavar="GB",
    help="Address-space limit of each judging process, in GiB (default: none).",
)
def command(roots: tuple[Path, ...], timeout: float, memory_gb: float | None) -> None:
    """Serve trainlint to an AI agent: a Model Context Protocol server over stdio.

    Read-only, confined to the --root folders, no network; each judgement runs in a child
    process under --timeout. Needs the MCP SDK: pip install 'trainlint[mcp]'."""
    try:
        from ...integrations.mcp_server import build_server
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in ("mcp", "pydantic", "anyio"):
            raise
        raise click.UsageError("trainlint mcp needs the MCP SDK: pip install 'trainlint[mcp]'") from None
    try:
        server = build_server(roots or (Path("."),), timeout, memory_gb)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    server.run("stdio")
