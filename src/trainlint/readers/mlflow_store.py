"""MLflow tracking stores, read directly (mlflow is never imported here).

- A file store run folder ``mlruns/<experiment>/<run>/``: ``meta.yaml`` plus
  ``metrics/<key>`` files of ``<timestamp ms> <value> <step>`` lines (keys with
  ``/`` are nested folders), ``params/<key>`` and ``tags/<key>`` text files.
- A SQLite store (``mlflow.db``): the ``metrics``, ``runs``, ``experiments`` and
  ``params`` tables, opened read-only. One file holds many runs: ``doctor``
  judges each; ``read`` returns the most recently started one.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..model import Damage, Run
from ..safeio import read_str
from ..yamlfile import load_yaml
from .base import Columns, ReadError, note_skipped, reader
from .parts import multi_run

if TYPE_CHECKING:
    import sqlite3

STATUS = {1: "RUNNING", 2: "SCHEDULED", 3: "FINISHED", 4: "FAILED", 5: "KILLED"}
SQLITE_MAGIC = b"SQLite format 3\x00"


def _finish(run: Run, status: Any, name: Any, experiment: Any) -> None:
    if not isinstance(status, (int, str)) or isinstance(status, bool):
        status = None  # a hand-edited or damaged meta.yaml: no status rather than a crash
    status = STATUS.get(status, status) if status is not None else None
    name = name if isinstance(name, str) else None
    experiment = experiment if isinstance(experiment, str) else None
    run.meta.update(
        {k: v for k, v in (("mlflow_status", status), ("run_name", name), ("experiment", experiment)) if v is not None}
    )
    if status in ("FAILED", "KILLED"):
        run.notes.append(f"MLflow records this run as {status}")
        run.meta["completed"] = False
    elif status == "FINISHED":
        run.meta["completed"] = True


# ---------------------------------------------------------------- file store


@reader("mlflow-run", priority=20, folder=True)
class MlflowRunFolderReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        return (path / "meta.yaml").is_file() and (path / "metrics").is_dir()

    def read(self, path: Path) -> Run:
        meta = _safe_yaml(path / "meta.yaml")
        run = Run(source=str(path), format="mlflow-run", files=[str(path / "meta.yaml")])
        cols, broken = Columns(), []
        for f in sorted(p for p in (path / "metrics").rglob("*") if p.is_file()):
            key = f.relative_to(path / "metrics").as_posix()
            run.files.append(str(f))
            broken += _metric_file(f, key, cols)
        cols.into(run)
        note_skipped(run, "metric line(s) not '<timestamp> <value> <step>'", broken, damage=True)
        if not run.series:
            raise ReadError("an MLflow run folder with no metric values")
        run.meta["params"] = _text_files(path / "params")
        tags = _text_files(path / "tags")
        _finish(
            run, meta.get("status"), meta.get("run_name") or tags.get("mlflow.runName"), _experiment_name(path.parent)
        )
        run.meta["run_id"] = meta.get("run_id") or meta.get("run_uuid") or path.name
        return run


def _metric_file(f: Path, key: str, cols: Columns) -> list[int]:
    broken = []
    for n, line in enumerate(read_str(f).splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        try:  # a line without its step is a torn write, not a step to guess
            ts, value, step = float(parts[0]), float(parts[1]), float(parts[2])
        except (ValueError, IndexError):
            broken.append(n)
            continue
        if not math.isfinite(step):  # a step of 1e999 is damage, not a place on the axis
            broken.append(n)
            continue
        cols.add(step, key, value, f"{key}:{n}", ts / 1000.0 if math.isfinite(ts) else None)
    return broken


def _text_files(folder: Path) -> dict[str, str]:
    if not folder.is_dir():
        return {}
    return {p.relative_to(folder).as_posix(): read_str(p).strip() for p in sorted(folder.rglob("*")) if p.is_file()}


def _safe_yaml(path: Path) -> dict[str, Any]:
    try:
        doc = load_yaml(path)
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}  # a list or a scalar is no meta.yaml


def _experiment_name(folder: Path) -> str | None:
    name = _safe_yaml(folder / "meta.yaml").get("name") if (folder / "meta.yaml").is_file() else None
    return str(name) if name is not None else None


# ---------------------------------------------------------------- SQLite store


def _connect(path: Path) -> sqlite3.Connection:
    import sqlite3  # (only when a file starts like an SQLite database: 1 ms of every start otherwise)

    # immutable=1: never write (no journal, no -shm/-wal files beside the user's database)
    return sqlite3.connect(f"file:{quote(path.resolve().as_posix())}?mode=ro&immutable=1", uri=True)


def _is_store(path: Path) -> bool:
    import sqlite3

    try:
        with _connect(path) as con:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.Error:
        return False
    return {"metrics", "runs", "experiments"} <= tables


@reader("mlflow-sqlite", priority=20)
class MlflowSqliteReader:
    def sniff(self, path: Path, head: bytes) -> bool:
        return head.startswith(SQLITE_MAGIC) and _is_store(path)

    def read(self, path: Path) -> Run:
        ids = _run_ids(path)
        if not ids:
            raise ReadError("an MLflow database with no runs that logged metrics")
        run = _read_sqlite_run(path, ids[-1])
        if len(ids) > 1:
            run.notes.append(f"this database holds {len(ids)} runs; this is the most recently started")
        return run


def _run_ids(path: Path) -> list[str]:
    import sqlite3

    try:
        with _connect(path) as con:
            rows = con.execute(
                "SELECT r.run_uuid FROM runs r WHERE r.lifecycle_stage != 'deleted' AND EXISTS "
                "(SELECT 1 FROM metrics m WHERE m.run_uuid = r.run_uuid) "
                "ORDER BY r.start_time, r.run_uuid"
            ).fetchall()
    except sqlite3.Error as exc:
        raise ReadError(f"unreadable MLflow database: {exc}") from None
    return [r[0] for r in rows]


def _read_sqlite_run(path: Path, run_id: str) -> Run:
    import sqlite3

    try:
        with _connect(path) as con:
            info = con.execute(
                "SELECT r.name, r.status, e.name FROM runs r LEFT JOIN experiments e "
                "ON e.experiment_id = r.experiment_id WHERE r.run_uuid = ?",
                (run_id,),
            ).fetchone()
            rows = con.execute(
                "SELECT key, value, timestamp, step, is_nan FROM metrics WHERE run_uuid = ? "
                "ORDER BY key, step, timestamp",
                (run_id,),
            ).fetchall()
            params = dict(con.execute("SELECT key, value FROM params WHERE run_uuid = ?", (run_id,)))
    except sqlite3.Error as exc:
        raise ReadError(f"unreadable MLflow database: {exc}") from None
    if info is None:
        raise ReadError(f"no run {run_id} in this database")
    run = Run(source=str(path), format="mlflow-sqlite", files=[str(path)])
    cols = Columns()
    bad = 0
    for key, value, ts, step, is_nan in rows:
        if not isinstance(key, str) or not _real(step):
            bad += 1  # a row without a metric name or a numeric step is damage, not a point
            continue
        wall = ts / 1000.0 if _real(ts) else None
        cols.add(float(step), key, float("nan") if is_nan else value, None, wall)
    cols.into(run)
    if bad:
        msg = f"skipped {bad} metric row(s) with no key or no numeric step"
        run.notes.append(msg)
        run.damage.append(Damage("skipped-rows", msg, {"count": bad}))
    run.meta.update({"run_id": run_id, "params": params})
    _finish(run, info[1], info[0], info[2])
    return run


def _real(v: object) -> bool:
    if type(v) not in (int, float):
        return False
    try:
        return math.isfinite(float(v))  # type: ignore[arg-type]
    except OverflowError:
        return False


def _read_part(path: Path, part: str) -> Run:
    return _read_sqlite_run(path, part)


multi_run("mlflow-sqlite", _run_ids, _read_part)


# ---------------------------------------------------------------- tracking server (REST, stdlib only)

URI_PREFIX = "mlflow://"
PAGE = 1000


class _NotFound(ReadError):
    pass


def parse_uri(uri: str) -> tuple[str, str, str | None]:
    """``mlflow://HOST:PORT/EXPERIMENT[/RUN_ID]`` -> (base URL, experiment name or id, run id)."""
    rest = uri[len(URI_PREFIX) :] if uri.startswith(URI_PREFIX) else ""
    host, _, path = rest.partition("/")
    parts = [p for p in path.split("/") if p]
    if not host or not parts or len(parts) > 2:
        raise ReadError(f"expected mlflow://HOST:PORT/EXPERIMENT[/RUN_ID], got {uri!r}")
    from urllib.parse import unquote

    return f"http://{host}", unquote(parts[0]), parts[1] if len(parts) == 2 else None


def _call(base: str, endpoint: str, body: dict[str, Any] | None = None, timeout: float = 30.0) -> Any:
    import json
    import urllib.error
    import urllib.request
    from urllib.parse import urlencode

    url = f"{base}/api/2.0/mlflow/{endpoint}"
    data = None
    if endpoint.endswith("get-history") or endpoint.startswith("experiments/get"):
        url += "?" + urlencode(body or {})  # GET endpoints
    elif body is not None:
        data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.loads(resp.read().decode("utf-8", "replace"))
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode("utf-8", "replace")
        try:
            detail = json.loads(detail).get("message", detail)
        except (ValueError, AttributeError):
            pass
        kind = _NotFound if exc.code == 404 else ReadError
        raise kind(
            f"MLflow server {base} answered {exc.code} for {endpoint}: " + str(detail)[:200].replace("\n", " ")
        ) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise ReadError(f"MLflow server {base} unreachable: {exc}") from None


def _experiment_id(base: str, experiment: str) -> tuple[str, str]:
    if experiment.isdigit():
        try:
            exp = _call(base, "experiments/get", {"experiment_id": experiment})["experiment"]
            return exp["experiment_id"], exp.get("name", experiment)
        except ReadError:
            pass
    try:
        exp = _call(base, "experiments/get-by-name", {"experiment_name": experiment}).get("experiment") or {}
    except _NotFound:
        exp = {}
    if "experiment_id" not in exp:
        raise ReadError(f"no experiment {experiment!r} on the MLflow server {base}")
    return exp["experiment_id"], exp.get("name", experiment)


def server_runs(uri: str) -> list[Run]:
    """Every run of an experiment on a tracking server (or the one run named), oldest first."""
    base, experiment, run_id = parse_uri(uri)
    exp_id, exp_name = _experiment_id(base, experiment)
    infos, token = [], None
    while True:
        body: dict[str, Any] = {
            "experiment_ids": [exp_id],
            "max_results": PAGE,
            "order_by": ["attributes.start_time ASC"],
        }
        if token:
            body["page_token"] = token
        page = _call(base, "runs/search", body)
        infos += page.get("runs", [])
        token = page.get("next_page_token")
        if not token:
            break
    if run_id is not None:
        infos = [r for r in infos if r.get("info", {}).get("run_id") == run_id]
        if not infos:
            raise ReadError(f"no run {run_id} in experiment {exp_name!r} on {base}")
    return [_server_run(base, uri, exp_name, r) for r in infos]


def _server_run(base: str, uri: str, exp_name: str, found: dict[str, Any]) -> Run:
    info, data = found.get("info", {}), found.get("data", {})
    rid = info.get("run_id") or info.get("run_uuid")
    run = Run(source=f"{base.replace('http://', URI_PREFIX)}/{exp_name}/{rid}", format="mlflow-server", files=[uri])
    cols = Columns()
    for key in sorted({m["key"] for m in data.get("metrics", []) if "key" in m}):
        token = None
        while True:
            q = {"run_id": rid, "metric_key": key, "max_results": 25000}
            if token:
                q["page_token"] = token
            page = _call(base, "metrics/get-history", q)
            for m in page.get("metrics", []):
                cols.add(float(m.get("step", 0)), key, m.get("value"), None, m.get("timestamp", 0) / 1000.0)
            token = page.get("next_page_token")
            if not token:
                break
    cols.into(run)
    run.meta.update({"run_id": rid, "params": {p["key"]: p.get("value") for p in data.get("params", [])}})
    _finish(run, info.get("status"), info.get("run_name"), exp_name)
    return run
