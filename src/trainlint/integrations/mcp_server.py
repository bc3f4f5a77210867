"""``trainlint mcp``: a Model Context Protocol server over stdio (the official ``mcp`` SDK).

Read-only and confined: every path argument must resolve (symlinks followed) under one of
the ``--root`` folders, URIs are refused (no network), and each judgement runs in a child
process (``mcp_worker``) with a wall-time limit, so a hostile input costs that child, not
the session. Tools answer with a short plain-text summary, then the ``--format json``
envelope (also as structured content). Needs ``pip install 'trainlint[mcp]'``; nothing in
the core imports this module.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from .. import __version__
from ..report.brief import brief, series_brief
from ..verdict import Result
from .mcp_worker import Refused, confine, resolve_roots

MAX_PARALLEL = 2  # judging processes at once; further calls wait their turn
READ_ONLY = ToolAnnotations(
    read_only_hint=True,
    destructive_hint=False,
    idempotent_hint=True,
    open_world_hint=False,
)
ENVIRONMENT = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
COMMANDS = {
    "doctor": "doctor",
    "compare": "compare",
    "inspect_checkpoint": "ckpt",
    "check_dataset": "data",
    "check_tokenizer": "tokenizer",
    "check_environment": "env",
    "series": "series",
}
INSTRUCTIONS = """trainlint judges ML training inputs deterministically: logs (doctor), a run against a
known-good baseline (compare), checkpoints, datasets, tokenizers and the machine. Verdicts: FAIL
(broken, exit 1), NOT-CHECKED (could not judge, exit 2), WARN (worth a look, exit 0), PASS.
Every finding has a code (TL...) and the numbers it fired on; explain(code) says what to try.
Paths must lie under the server's root folders; relative paths are taken from the first root."""

Paths = Annotated[list[str], Field(description="Files or folders under the server's roots.")]
OptPath = Annotated[str | None, Field(description="A file or folder under the server's roots.")]


class Session:
    """The server's state: roots, bounds, and the last report of each judged input."""

    def __init__(self, roots: Sequence[Path], timeout: float, memory_gb: float | None) -> None:
        self.roots = list(roots)
        self.timeout = timeout
        self.memory_gb = memory_gb
        self.reports: dict[str, dict[str, Any]] = {}
        self._limiter: anyio.CapacityLimiter | None = None

    def check(self, raw: str | None) -> None:
        """Refuse a path outside the roots before starting a child (the child checks again)."""
        if raw:
            try:
                confine(raw, self.roots)
            except Refused as exc:
                raise ToolError(str(exc)) from None

    async def judge(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        job = {
            "tool": tool,
            "args": args,
            "roots": [str(r) for r in self.roots],
            "memory_gb": self.memory_gb,
        }
        if self._limiter is None:  # created inside the event loop
            self._limiter = anyio.CapacityLimiter(MAX_PARALLEL)
        answer = await anyio.to_thread.run_sync(partial(self._spawn, job), limiter=self._limiter)
        if "error" in answer:
            raise ToolError(answer["error"])
        if "envelope" not in answer:
            answer = {"envelope": _unjudged(tool, answer.get("crash") or "the judging process failed")}
        envelope: dict[str, Any] = answer["envelope"]
        for report in envelope.get("reports", []):
            self.reports[report["source"]] = report
        return envelope

    def _spawn(self, job: dict[str, Any]) -> dict[str, Any]:
        """Run one job in a child process; a timeout or a dead child is a NOT-CHECKED envelope."""
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        src = str(Path(__file__).resolve().parents[2])  # holds the trainlint package
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
        cmd = [sys.executable, "-B", "-m", "trainlint.integrations.mcp_worker"]
        try:
            proc = subprocess.run(
                cmd,
                check=False,
                input=json.dumps(job),
                capture_output=True,
                text=True,
                errors="replace",
                cwd=self.roots[0],
                env=env,
                timeout=self.timeout,
            )
        except subprocess.TimeoutExpired:
            why = f"the judgement took longer than {self.timeout:g} s (the server's --timeout) and was stopped"
            return {"envelope": _unjudged(job["tool"], why)}
        try:
            return dict(json.loads(proc.stdout))
        except ValueError:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1][:300]
            why = f"the judging process ended with code {proc.returncode} ({tail})"
            return {"envelope": _unjudged(job["tool"], why)}


def _unjudged(tool: str, why: str) -> dict[str, Any]:
    return Result(command=COMMANDS.get(tool, tool), empty_reason=why).to_dict()


def _answer(envelope: dict[str, Any], text: str) -> CallToolResult:
    body = json.dumps(envelope, indent=1, allow_nan=False)
    return CallToolResult(
        content=[
            TextContent(type="text", text=text),
            TextContent(type="text", text=body),
        ],
        structured_content=envelope,
    )


def report_uri(source: str) -> str:
    return "trainlint://report/" + quote(source, safe="")


async def _publish(server: MCPServer, session: Session, envelope: dict[str, Any]) -> None:
    """Make each judged input's last report a resource. The SDK's MCPServer advertises no
    resources/listChanged, so none is sent: clients see new ones on their next listing."""
    known = {str(r.uri) for r in await server.list_resources()}
    for report in envelope.get("reports", []):
        source = report["source"]
        uri = report_uri(source)
        if uri in known:
            continue
        server.add_resource(
            FunctionResource(
                uri=uri,
                name=f"report {source}",
                mime_type="application/json",
                description=f"The last trainlint report of {source} in this session",
                fn=partial(_report_json, session, source),
            )
        )
        known.add(uri)


def _report_json(session: Session, source: str) -> str:
    return json.dumps(session.reports[source], indent=1, allow_nan=False)


def build_server(
    roots: Sequence[str | Path] = (".",),
    timeout: float = 120.0,
    memory_gb: float | None = None,
) -> MCPServer:
    """The MCP server for these roots (serve it with ``.run("stdio")``)."""
    try:
        session = Session(resolve_roots(roots), timeout, memory_gb)
    except Refused as exc:
        raise ValueError(str(exc)) from None
    sys.dont_write_bytecode = True  # the server writes no files, not even __pycache__
    server = MCPServer("trainlint", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    tools = Tools(server, session)
    for fn in (
        tools.doctor,
        tools.compare,
        tools.inspect_checkpoint,
        tools.check_dataset,
        tools.check_tokenizer,
        tools.series,
        tools.explain,
        tools.check_environment,
    ):
        # check_environment is not idempotent: free memory and disk change between calls.
        hints = READ_ONLY if fn != tools.check_environment else ENVIRONMENT
        server.add_tool(fn, description=inspect.cleandoc(fn.__doc__ or ""), annotations=hints)
    _rules_resource(server)
    return server


class Tools:
    """The tools; each method's signature and docstring are what the agent sees."""

    def __init__(self, server: MCPServer, session: Session) -> None:
        self.server = server
        self.session = session

    async def _judged(self, tool: str, args: dict[str, Any]) -> CallToolResult:
        for key in ("paths", "baseline", "runs", "path", "dataset", "tokenizer"):
            values = args.get(key)
            for raw in [values] if isinstance(values, str) else (values or []):
                self.session.check(raw)
        envelope = await self.session.judge(tool, args)
        await _publish(self.server, self.session, envelope)
        return _answer(envelope, brief(envelope))

    async def doctor(
        self,
        paths: Paths,
        select: list[str] | None = None,
        ignore: list[str] | None = None,
        baseline: list[str] | None = None,
        dataset: OptPath = None,
        tokenizer: OptPath = None,
    ) -> CallToolResult:
        """Find every training log (and dataset, tokenizer, checkpoint, training config) under the
        paths and judge each, like `trainlint doctor PATHS --format json`. select/ignore: rule codes,
        prefixes or categories. baseline: known-good run(s) every log is also compared with.
        dataset/tokenizer: the run's training data and tokenizer folder."""
        args = {
            "paths": paths,
            "select": select,
            "ignore": ignore,
            "baseline": baseline,
            "dataset": dataset,
            "tokenizer": tokenizer,
        }
        return await self._judged("doctor", args)

    async def compare(self, baseline: Paths, runs: Paths) -> CallToolResult:
        """Compare each run (a log, or every log under a folder) with known-good baseline run(s),
        like `trainlint compare BASELINE RUN... --format json`; the table is in `table`."""
        return await self._judged("compare", {"baseline": baseline, "runs": runs})

    async def inspect_checkpoint(self, paths: Paths) -> CallToolResult:
        """Inspect checkpoints without executing them (integrity, tensor values, what loading
        would import), like `trainlint ckpt PATHS --format json`; two paths also give drift."""
        return await self._judged("inspect_checkpoint", {"paths": paths})

    async def check_dataset(
        self,
        path: Annotated[str, Field(description="Dataset file or folder under the roots.")],
        tokenizer: OptPath = None,
        max_length: Annotated[int | None, Field(ge=1)] = None,
    ) -> CallToolResult:
        """Preflight a training dataset (JSONL, JSON, CSV, Parquet, save_to_disk folder), like
        `trainlint data PATH --format json`; tokenizer: a tokenizer folder for token statistics."""
        args = {"path": path, "tokenizer": tokenizer, "max_length": max_length}
        return await self._judged("check_dataset", args)

    async def check_tokenizer(
        self,
        path: Annotated[str, Field(description="Tokenizer folder under the roots.")],
    ) -> CallToolResult:
        """Preflight a tokenizer folder (tokenizer.json, tokenizer_config.json, ...), like
        `trainlint tokenizer FOLDER --format json`."""
        return await self._judged("check_tokenizer", {"path": path})

    async def check_environment(self, entrypoint: str | None = None) -> CallToolResult:
        """Judge this machine (resources, accelerators, versions) before training, like `trainlint
        env --format json`. entrypoint: a training script under the roots, or a dotted module whose
        file lies under the first root; it is imported in a separate child process (its import-time
        code runs there, as on the CLI)."""
        limit = max(5.0, min(120.0, self.session.timeout - 20.0))
        args = {"entrypoint": entrypoint, "entrypoint_timeout": limit}
        return await self._judged("check_environment", args)

    async def series(
        self,
        path: Annotated[str, Field(description="A log file or run folder under the roots.")],
        roles: list[str] | None = None,
        max_points: Annotated[int, Field(ge=2, le=20_000)] = 500,
    ) -> CallToolResult:
        """The run's metric series by role (loss, eval_loss, learning_rate, grad_norm, ...), each
        downsampled to at most max_points points keeping every bucket's min and max and every
        NaN/Inf (non-finite values are the strings "NaN", "Infinity"). Default: every mapped role."""
        self.session.check(path)
        args = {"path": path, "roles": roles, "max_points": max_points}
        envelope = await self.session.judge("series", args)
        return _answer(envelope, series_brief(envelope))

    def explain(
        self,
        code: Annotated[str, Field(description="A rule code (TL010) or name (loss-diverged).")],
    ) -> CallToolResult:
        """A rule's explanation, thresholds (names and defaults, as in `--threshold CODE.NAME=V`)
        and what to try, like `trainlint rules CODE`."""
        from ..registry import REGISTRY

        docs = _rule_docs()
        rule = REGISTRY.get(code.strip())
        if rule is None:
            raise ToolError(f"no rule {code!r}; the trainlint://rules resource lists them")
        info = docs.rule_dict(rule)
        info["try"] = _what_to_try(rule.explanation)
        envelope = Result(command="rules", extra={"rules": [info]}).to_dict()
        text = docs.rule_markdown(rule) + (f"\nWhat to try: {info['try']}\n" if info["try"] else "")
        return _answer(envelope, text)


def _rule_docs() -> Any:
    """The module with rule_dict/rule_markdown (the rule reference renderer)."""
    from ..report import rules

    return rules


def _what_to_try(explanation: str) -> str | None:
    """The explanation's 'Try: ...' advice, when it has one."""
    text = " ".join(explanation.split())
    at = text.find("Try:")
    return text[at + 4 :].strip() if at >= 0 else None


def _rules_resource(server: MCPServer) -> None:
    @server.resource(
        "trainlint://rules",
        name="rules",
        mime_type="application/json",
        description="Every trainlint rule: code, name, category, severity, summary, "
        "explanation, thresholds (as `trainlint rules --format json`).",
    )
    def rules() -> str:
        from ..registry import REGISTRY

        rule_dict = _rule_docs().rule_dict

        out = Result(command="rules", extra={"rules": [rule_dict(r) for r in REGISTRY.all()]}).to_dict()
        return json.dumps(out, indent=1, allow_nan=False)
