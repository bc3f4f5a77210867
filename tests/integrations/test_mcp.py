"""trainlint mcp: a real MCP session (the SDK's own stdio client) against the spawned server."""

from __future__ import annotations

import json
import math
import os
import struct
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from trainlint.integrations.mcp_worker import Refused, confine, options, resolve_roots, run_job

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
TOOLS = {
    "doctor",
    "compare",
    "inspect_checkpoint",
    "check_dataset",
    "check_tokenizer",
    "check_environment",
    "series",
    "explain",
}

try:
    import anyio
    import mcp  # noqa: F401
    from mcp import ClientSession, StdioServerParameters, stdio_client

    HAVE_MCP = True
except ImportError:
    HAVE_MCP = False
needs_mcp = pytest.mark.skipif(not HAVE_MCP, reason="the MCP SDK is not installed (pip install 'trainlint[mcp]')")


def valid(envelope: dict) -> dict:
    """The envelope, after checking it against the published JSON schema."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((SRC / "trainlint" / "schema" / "report.schema.json").read_text())
    jsonschema.validate(envelope, schema)
    return envelope


def _env() -> dict[str, str]:
    return {
        "PYTHONPATH": os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def cli_json(args: list[str], cwd: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "trainlint", *args, "--format", "json"],
        cwd=cwd,
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ, **_env()},
        timeout=300,
    )
    return json.loads(out.stdout)


def outcome(envelope: dict) -> list[tuple[str, str, list[str]]]:
    """What must agree between the CLI and the server: each report's source, verdict and codes."""
    return sorted((r["source"], r["verdict"], sorted(f["code"] for f in r["findings"])) for r in envelope["reports"])


@asynccontextmanager
async def served(*roots: Path, extra: tuple[str, ...] = ()):
    args = ["-m", "trainlint", "mcp", *extra]
    for r in roots:
        args += ["--root", str(r)]
    params = StdioServerParameters(command=sys.executable, args=args, env=_env(), cwd=str(roots[0]))
    async with (
        stdio_client(params, errlog=sys.stderr) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def run_session(fn, *roots: Path, extra: tuple[str, ...] = ()):
    async def main():
        async with served(*roots, extra=extra) as session:
            return await fn(session)

    return anyio.run(main)


def texts(result) -> list[str]:
    return [c.text for c in result.content]


# ---------------------------------------------------------------- a real session


@needs_mcp
def test_tools_listed_and_doctor_agrees_with_the_cli():
    async def body(s):
        tools = {t.name: t for t in (await s.list_tools()).tools}
        res = await s.call_tool("doctor", {"paths": ["examples"]})
        uris = [str(r.uri) for r in (await s.list_resources()).resources]
        source = "examples/plain-diverged/metrics.jsonl"
        report = await s.read_resource(f"trainlint://report/{source.replace('/', '%2F')}")
        rules = await s.read_resource("trainlint://rules")
        return tools, res, uris, report, rules

    tools, res, uris, report, rules = run_session(body, ROOT)
    assert set(tools) == TOOLS
    assert tools["doctor"].annotations.read_only_hint is True
    cli = cli_json(["doctor", "examples"], ROOT)
    assert not res.is_error
    env = valid(res.structured_content)
    assert outcome(env) == outcome(cli)
    assert (env["verdict"], env["exit_code"]) == (cli["verdict"], cli["exit_code"]) == ("FAIL", 1)
    summary, body = texts(res)
    assert summary.startswith("FAIL (exit 1) trainlint doctor") and "TL010" in summary and "TL040" in summary
    assert json.loads(body) == env
    assert "trainlint://rules" in uris and "trainlint://report/examples%2Fplain-diverged%2Fmetrics.jsonl" in uris
    last = json.loads(report.contents[0].text)
    assert last["source"] == "examples/plain-diverged/metrics.jsonl" and last["verdict"] == "FAIL"
    assert [f["code"] for f in last["findings"]] == ["TL010"]
    codes = {r["code"] for r in json.loads(rules.contents[0].text)["rules"]}
    assert {"TL001", "TL010", "TL240", "TL300"} <= codes


def _spiky_log(folder: Path) -> Path:
    path = folder / "metrics.jsonl"
    with path.open("w") as fh:
        for i in range(5000):
            loss = 3.0 * math.exp(-i / 1500) + 0.5 + 0.01 * math.sin(i)
            if i == 3217:
                loss = 50.0
            if i == 4001:
                loss = float("nan")
            fh.write(json.dumps({"step": i, "loss": loss}) + "\n")
    return path


@needs_mcp
def test_series_downsampled_keeps_the_spike_and_the_nan(tmp_path):
    _spiky_log(tmp_path)

    async def body(s):
        return await s.call_tool(
            "series",
            {
                "path": "metrics.jsonl",
                "roles": ["loss", "grad_norm"],
                "max_points": 200,
            },
        )

    res = run_session(body, tmp_path)
    assert not res.is_error, texts(res)
    env = valid(res.structured_content)
    assert list(env["curves"]) == ["loss"]
    curve = env["curves"]["loss"]
    assert curve["name"] == "loss" and curve["points"] == 5000
    assert 20 <= curve["kept"] <= 200 == env["max_points"]
    assert len(curve["steps"]) == len(curve["values"]) == curve["kept"]
    at = dict(zip(curve["steps"], curve["values"]))
    assert at[3217] == 50.0  # the spike is kept
    assert at[4001] == "NaN"  # and so is the non-finite point, as the contract's string
    assert curve["steps"] == sorted(curve["steps"])
    assert env["roles_missing"] == ["grad_norm"]
    assert "5000 points read" in texts(res)[0] and "1 non-finite kept" in texts(res)[0]


@needs_mcp
def test_explain_gives_the_explanation_thresholds_and_what_to_try():
    async def body(s):
        return await s.call_tool("explain", {"code": "TL010"}), await s.call_tool("explain", {"code": "TL999"})

    res, missing = run_session(body, ROOT)
    assert not res.is_error
    (rule,) = res.structured_content["rules"]
    assert (rule["code"], rule["name"], rule["severity"]) == (
        "TL010",
        "loss-diverged",
        "FAIL",
    )
    assert "min_rise" in {t["name"] for t in rule["thresholds"]}
    assert "lower peak learning rate" in rule["try"]
    assert "TL010 loss-diverged" in texts(res)[0] and "What to try:" in texts(res)[0]
    assert missing.is_error and "no rule 'TL999'" in texts(missing)[0]


@needs_mcp
def test_paths_outside_the_roots_are_refused(tmp_path):
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    secret = _spiky_log(outside)
    (inside / "link.jsonl").symlink_to(secret)
    (inside / "runs").mkdir()
    (inside / "runs" / "escape.jsonl").symlink_to(secret)
    _spiky_log(inside)

    async def body(s):
        calls = [
            ("doctor", {"paths": [str(secret)]}),
            ("doctor", {"paths": ["../outside"]}),
            ("doctor", {"paths": ["link.jsonl"]}),
            ("doctor", {"paths": ["runs"]}),
            ("doctor", {"paths": ["metrics.jsonl"], "baseline": [str(secret)]}),
            ("series", {"path": str(secret)}),
            ("check_dataset", {"path": "/etc/passwd"}),
            ("doctor", {"paths": ["mlflow://localhost:5000/0"]}),
            ("check_environment", {"entrypoint": str(secret)}),
        ]
        refused = [await s.call_tool(name, args) for name, args in calls]
        fine = await s.call_tool("doctor", {"paths": ["metrics.jsonl"]})
        return refused, fine

    refused, fine = run_session(body, inside)
    for res in refused:
        assert res.is_error, texts(res)
        assert "outside the allowed roots" in texts(res)[0] or "no network" in texts(res)[0], texts(res)
    assert "escape.jsonl is a symlink" in texts(refused[3])[0]
    assert not fine.is_error and fine.structured_content["reports"][0]["kind"] == "log"


@needs_mcp
def test_hostile_inputs_are_not_checked_and_the_session_goes_on(tmp_path):
    (tmp_path / "garbage").mkdir()
    (tmp_path / "garbage" / "trainer_state.json").write_bytes(bytes(range(256)) * 64)
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "trainer_state.json").write_text('{"log_history": ' + "[" * 200_000 + "]" * 200_000 + "}")
    (tmp_path / "nested.json").write_text("[" * 500_000)
    _spiky_log(tmp_path)

    async def body(s):
        out = [
            await s.call_tool("doctor", {"paths": [p]})
            for p in (
                "garbage/trainer_state.json",
                "deep",
                "deep/trainer_state.json",
                "nested.json",
            )
        ]
        out.append(await s.call_tool("series", {"path": "deep/trainer_state.json"}))
        out.append(await s.call_tool("check_dataset", {"path": "nested.json"}))
        out.append(await s.call_tool("doctor", {"paths": ["metrics.jsonl"]}))
        return out

    *hostile, last = run_session(body, tmp_path, extra=("--timeout", "60", "--max-memory", "2"))
    for res in hostile:
        assert not res.is_error, texts(res)
        env = valid(res.structured_content)
        assert env["verdict"] == "NOT-CHECKED" and env["exit_code"] == 2, env
        assert all(r["reason"] for r in env["reports"])
    # the nesting is refused before parsing, with the reason (issue 20), not a RecursionError
    assert "nested more than 500 levels" in hostile[1].structured_content["reports"][0]["reason"]
    assert not last.is_error and last.structured_content["reports"][0]["source"] == "metrics.jsonl"


@needs_mcp
def test_a_config_under_the_root_applies_and_one_above_it_does_not(tmp_path):
    inner = tmp_path / "inner"
    (inner / "own").mkdir(parents=True)
    (inner / "plain").mkdir()
    diverged = (ROOT / "examples" / "plain-diverged" / "metrics.jsonl").read_text()
    for sub in ("own", "plain"):
        (inner / sub / "metrics.jsonl").write_text(diverged)
    (inner / "own" / "trainlint.toml").write_text('ignore = ["TL010"]\n')
    (tmp_path / "trainlint.toml").write_text('ignore = ["TL0"]\n')  # above the root

    async def body(s):
        return await s.call_tool("doctor", {"paths": ["metrics.jsonl"]})

    own = run_session(body, inner / "own", inner / "plain")
    assert outcome(own.structured_content) == outcome(cli_json(["doctor", "metrics.jsonl"], inner / "own"))
    assert "TL010" not in json.dumps(own.structured_content["reports"][0]["findings"])

    res = run_session(body, inner / "plain")
    codes = [f["code"] for f in res.structured_content["reports"][0]["findings"]]
    assert codes == ["TL010"]  # the config above the root was not read


def _safetensors(path: Path, key: str = "w") -> None:
    header = json.dumps({key: {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header + struct.pack("<2f", 1.0, float("nan")))


@needs_mcp
def test_checkpoint_dataset_tokenizer_and_environment_agree_with_the_cli(tmp_path):
    _safetensors(tmp_path / "model.safetensors")
    _safetensors(tmp_path / "other.safetensors", key="v")
    rows = [{"text": f"row {i % 40} of the data"} for i in range(120)]
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "tok").mkdir()
    (tmp_path / "tok" / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 1e30}))
    (tmp_path / "train.py").write_text("import json\nVALUE = 1\n")

    async def body(s):
        return [
            await s.call_tool("inspect_checkpoint", {"paths": ["model.safetensors"]}),
            await s.call_tool("check_dataset", {"path": "train.jsonl"}),
            await s.call_tool("check_tokenizer", {"path": "tok"}),
            await s.call_tool("check_environment", {"entrypoint": "train.py"}),
            await s.call_tool("check_dataset", {"path": "train.jsonl", "tokenizer": "tok"}),
            await s.call_tool(
                "inspect_checkpoint",
                {"paths": ["model.safetensors", "other.safetensors"]},
            ),
        ]

    ckpt, data, tok, envc, data_tok, drift = run_session(body, tmp_path)
    pairs = [
        (ckpt, ["ckpt", "model.safetensors"]),
        (data, ["data", "train.jsonl"]),
        (tok, ["tokenizer", "tok"]),
        (data_tok, ["data", "train.jsonl", "--tokenizer", "tok"]),
        (drift, ["ckpt", "model.safetensors", "other.safetensors"]),
    ]
    for res, args in pairs:
        assert not res.is_error, texts(res)
        assert outcome(res.structured_content) == outcome(cli_json(args, tmp_path)), args
    assert any(f["code"] == "TL244" for f in tok.structured_content["reports"][0]["findings"])
    assert ckpt.structured_content["verdict"] == "FAIL"  # the NaN weight
    assert [r["kind"] for r in data_tok.structured_content["reports"]] == [
        "dataset",
        "tokenizer",
    ]
    assert "TL330" in {f["code"] for r in drift.structured_content["reports"] for f in r["findings"]}
    groups = {r["format"]: r for r in envc.structured_content["reports"]}
    assert {"entrypoint", "resources", "accelerators", "versions"} <= set(groups)
    assert groups["entrypoint"]["verdict"] == "PASS"


# ---------------------------------------------------------------- the parts, without a session


def test_confine_resolves_and_refuses(tmp_path):
    (tmp_path / "a").mkdir()
    roots = resolve_roots([tmp_path / "a"])
    assert confine("x/y.json", roots) == (tmp_path / "a" / "x" / "y.json").resolve()
    assert confine(str(tmp_path / "a"), roots) == roots[0]
    for bad in (
        "../b",
        str(tmp_path),
        "/",
        "s3://bucket/run",
        "mlflow://h:1/0",
        "a\x00b",
        "",
    ):
        with pytest.raises(Refused):
            confine(bad, roots)
    with pytest.raises(Refused):
        resolve_roots([tmp_path / "missing"])


def test_select_and_ignore_extend_the_config_found_under_the_root(tmp_path):
    (tmp_path / "trainlint.toml").write_text('ignore = ["TL005"]\n')
    got = options([tmp_path], select=["TL001", "TL002"], ignore=["TL003"]).settings
    assert got.select == ["TL001", "TL002"] and got.ignore == ["TL005", "TL003"]
    assert options([tmp_path]).settings.ignore == ["TL005"]


def test_worker_job_answers_refusals_and_envelopes():
    assert (
        "outside the allowed roots"
        in run_job({"tool": "doctor", "args": {"paths": ["/"]}, "roots": [str(ROOT)]})["error"]
    )
    assert run_job({"tool": "rm", "roots": [str(ROOT)]}) == {"error": "unknown tool 'rm'"}


@needs_mcp
def test_a_judgement_past_the_time_limit_is_not_checked(tmp_path):
    from trainlint.integrations.mcp_server import Session

    session = Session(resolve_roots([tmp_path]), timeout=0.01, memory_gb=None)
    answer = session._spawn({"tool": "doctor", "args": {"paths": ["."]}, "roots": [str(tmp_path)]})
    env = answer["envelope"]
    assert env["verdict"] == "NOT-CHECKED" and env["exit_code"] == 2 and "--timeout" in env["reason"]


@needs_mcp
def test_a_crash_while_judging_is_not_checked(tmp_path):
    from trainlint.integrations.mcp_server import Session

    session = Session(resolve_roots([tmp_path]), timeout=60, memory_gb=None)
    # A job no tool call can produce (the SDK validates arguments): the child raises.
    env = anyio.run(session.judge, "doctor", {"paths": 5})
    assert env["verdict"] == "NOT-CHECKED" and env["exit_code"] == 2
    assert env["reason"].startswith("TypeError")


def test_cli_start_up_loads_neither_numpy_nor_mcp():
    code = (
        "import sys, trainlint.cli, trainlint.cli.commands.mcp; "
        "bad = {'numpy', 'rich', 'mcp'} & set(sys.modules); print(','.join(sorted(bad)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert out.returncode == 0 and out.stdout.strip() == "", out.stderr


def test_the_agent_docs_name_real_rules():
    import re

    from trainlint.registry import REGISTRY

    for doc in (
        ROOT / "docs" / "agent-skill" / "SKILL.md",
        ROOT / "docs" / "agents.md",
    ):
        text = doc.read_text()
        for code in set(re.findall(r"\bTL\d{3}\b", text)):
            assert REGISTRY.get(code) is not None, f"{doc.name}: {code}"
        for code, name in re.findall(r"\b(TL\d{3}) ([a-z0-9]+(?:-[a-z0-9]+)+)\b", text):
            assert REGISTRY.get(code).name == name, f"{doc.name}: {code} is not {name}"
    skill = (ROOT / "docs" / "agent-skill" / "SKILL.md").read_text()
    assert skill.startswith("---\nname: trainlint\ndescription: ")


def test_without_the_sdk_the_command_says_how_to_get_it():
    code = "import sys; sys.modules['mcp'] = None; from trainlint.cli import main; main(['mcp'])"
    out = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert out.returncode == 2
    assert "pip install 'trainlint[mcp]'" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
def test_the_memory_limit_binds_the_judging_process():
    code = (
        "from trainlint.integrations.mcp_worker import _limit_memory\n"
        "_limit_memory(0.5)\n"
        "try:\n    bytearray(2**30)\nexcept MemoryError:\n    print('bounded')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert out.stdout.strip() == "bounded", out.stderr
