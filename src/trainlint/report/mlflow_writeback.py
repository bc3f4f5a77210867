"""``doctor mlflow://HOST:PORT/EXPERIMENT --write-back``: tell the tracking server what doctor
found, over its REST API (stdlib only, no mlflow import).

Each judged run gets the tags ``trainlint.verdict`` (FAIL, WARN, NOT-CHECKED, PASS),
``trainlint.codes`` (the sorted codes of its FAIL and WARN findings, comma-separated, empty
when none) and ``trainlint.version``, and its JSON report (the envelope of ``--format json``
holding that one report) as the artifact ``trainlint/report.json``. Tags are set and the
artifact is overwritten, so running it again leaves the same state.

The artifact goes through the server's artifact proxy (``PUT
/api/2.0/mlflow-artifacts/artifacts/<path>``), which serves runs whose artifact location is
``mlflow-artifacts:/...`` (``mlflow server`` with artifact serving on, the default since
MLflow 2). A run stored elsewhere (a local folder or a bucket the server does not proxy) is
still tagged, and the line says why its report was not uploaded.
"""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from ..verdict import Report, Result, Severity

ARTIFACT = "trainlint/report.json"
PROXY_SCHEME = "mlflow-artifacts:"


class WriteBackError(Exception):
    """A request the server refused or could not answer (one line)."""


def _request(
    base: str,
    method: str,
    path: str,
    body: bytes | None = None,
    query: dict[str, str] | None = None,
    content_type: str = "application/json",
    timeout: float = 30.0,
) -> Any:
    url = f"{base}{path}" + ("?" + urlencode(query) if query else "")
    req = urllib.request.Request(url, data=body, method=method, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            text = resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode("utf-8", "replace")[:200].replace("\n", " ")
        raise WriteBackError(f"{method} {path} answered {exc.code}: {detail}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise WriteBackError(f"{base} unreachable: {exc}") from None
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return {}


def _api(base: str, endpoint: str, body: dict[str, Any]) -> Any:
    from .json_out import compact_json

    return _request(base, "POST", f"/api/2.0/mlflow/{endpoint}", compact_json(body).encode())


def server_run(source: str) -> tuple[str, str] | None:
    """(base URL, run id) of a report judged from ``mlflow://HOST:PORT/EXPERIMENT/RUN_ID``."""
    from ..readers import ReadError
    from ..readers.mlflow_store import URI_PREFIX, parse_uri

    if not source.startswith(URI_PREFIX):
        return None
    try:
        base, _experiment, run_id = parse_uri(source)
    except ReadError:
        return None
    return (base, run_id) if run_id else None


def codes(report: Report) -> str:
    found = {f.code for f in report.findings if f.severity in (Severity.FAIL, Severity.WARN)}
    return ",".join(sorted(found))


def report_json(report: Report) -> bytes:
    """The ``--format json`` envelope holding this one report."""
    from .json_out import render_json

    out = io.StringIO()
    render_json(Result(command="doctor", reports=[report]), out)
    return out.getvalue().encode("utf-8")


def _proxied_path(artifact_uri: str) -> str | None:
    """The path under the artifact proxy of a run's artifact location, if it is proxied."""
    if not artifact_uri.startswith(PROXY_SCHEME):
        return None
    return urlsplit(artifact_uri).path.strip("/") or None


def _upload(base: str, run_id: str, payload: bytes) -> str | None:
    """PUT the report; None when done, else why not."""
    info = _request(base, "GET", "/api/2.0/mlflow/runs/get", query={"run_id": run_id})
    artifact_uri = str(info.get("run", {}).get("info", {}).get("artifact_uri", ""))
    root = _proxied_path(artifact_uri)
    if root is None:
        return (
            f"report not uploaded: the run's artifacts live at {artifact_uri or '?'}, which the server does not proxy"
        )
    _request(
        base,
        "PUT",
        f"/api/2.0/mlflow-artifacts/artifacts/{quote(root)}/{ARTIFACT}",
        payload,
        content_type="application/json",
    )
    return None


def write_one(base: str, run_id: str, report: Report) -> str:
    from .. import __version__

    tags = {
        "trainlint.verdict": report.verdict.value,
        "trainlint.codes": codes(report),
        "trainlint.version": __version__,
    }
    _api(
        base,
        "runs/log-batch",
        {"run_id": run_id, "tags": [{"key": k, "value": v} for k, v in tags.items()]},
    )
    why = _upload(base, run_id, report_json(report))
    shown = tags["trainlint.codes"] or "no codes"
    done = f"tagged {report.verdict.value} ({shown})"
    return f"{report.source}: {done}" + (f"; {why}" if why else f", report in {ARTIFACT}")


def write_back(result: Result) -> list[str]:
    """Write every judged tracking-server run's verdict back to its server; one line per run."""
    lines = []
    for report in result.reports:
        target = server_run(report.source)
        if target is None:
            continue
        try:
            lines.append(write_one(*target, report))
        except WriteBackError as exc:
            lines.append(f"{report.source}: write-back failed: {exc}")
    return lines
