"""Builders of tracking-store folders shared by tests/readers/test_stores.py and tests/report/test_output.py."""

from __future__ import annotations

import base64
import sqlite3
import zlib
from pathlib import Path


def _write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.write_bytes if isinstance(data, bytes) else path.write_text)(data)
    return path


def _mlruns(root: Path, status: int = 3, losses=(2.0, 1.5, 1.2, float("nan"))) -> Path:
    exp = root / "mlruns" / "1"
    _write(
        exp / "meta.yaml",
        "artifact_location: file:///x/mlruns/1\ncreation_time: 1700000000000\n"
        "experiment_id: '1'\nlast_update_time: 1700000000000\nlifecycle_stage: active\nname: tiny\n",
    )
    run = exp / "0123456789abcdef0123456789abcdef"
    _write(
        run / "meta.yaml",
        "artifact_uri: file:///x/mlruns/1/0123/artifacts\nend_time: 1700000100000\n"
        "entry_point_name: ''\nexperiment_id: '1'\nlifecycle_stage: active\n"
        "run_id: 0123456789abcdef0123456789abcdef\nrun_name: bright-owl-42\n"
        "run_uuid: 0123456789abcdef0123456789abcdef\nsource_name: ''\nsource_type: 4\n"
        f"source_version: ''\nstart_time: 1700000000000\nstatus: {status}\ntags: []\nuser_id: me\n",
    )
    lines = "".join(f"{1700000000000 + 1000 * i} {v} {10 * (i + 1)}\n" for i, v in enumerate(losses))
    _write(run / "metrics" / "train" / "loss", lines)
    _write(
        run / "metrics" / "lr",
        "".join(f"{1700000000000 + 1000 * i} 0.001 {10 * (i + 1)}\n" for i in range(len(losses))),
    )
    _write(run / "params" / "learning_rate", "0.001")
    _write(run / "tags" / "mlflow.runName", "bright-owl-42")
    return run


# An offline run written by wandb 0.31.0 (wandb.init(mode offline); 12 rows of loss/lr with
# eval/loss every 4th, a NaN loss at step 10, then log(step=20); finish()), zlib + base64.
WANDB_031 = (
    "eNrNWH+MHFUd79v70e3b7XE3194d01KO611/3Lmz897MvHmvKErRkEbatE0JiNBzdnaO27vd2e3u7F0vFd0cKRLSJlDkR2z8BUHJ"
    "/VGwiSJK0BAUiBgjobGVRCtYQWNTjUIxavQ7e3dlprJ1Li2nk2w2M/P9vu/n+/l+vt83M5tuWrf5N88uufHx34mtS1AcPZfEOJ4v"
    "2dwwM2wGXY0FTquKRhR1iBgj3M7YBidZYhv2iM0cjYwwntF5Jpslmu3YNJulttSqKqaqqCe+sXnbQVgzNo3a+pJGcZwTg5UqUyQX"
    "CnIPGnvvRG72cu5U3xV4OW4dnrTcbGYaxfbdgZM4li9PoxZYViVjsYnCPSgZ/+vpbx1vba+9duzBpi+hAbmlF9UQ6mvVFEIUc7B1"
    "FvZYMp9zq3tTezkbZvr+/OHXnwFMTa+g7yA8dEP9FlMIV3Q9NWKnJphhzpmmJnPeaOr2fC5jU0VjUtt126e80aLbO7u+PB//yV8+"
    "cgxR+cOl2bu+V69b7C1YObd3JJd3rrkFp71CKV3x0pOZDEAvd9XPJzMTjjuRzuTc9Kzr95L9KrEo5Rk1ZWWckZSpCZISDpzqupMh"
    "akYIy8y+deC1m2RIoZl24RW4vezsqebKTsFxvYri7fV60OG3f/oPBgYtIZpviUbQz5N/e6EIzq2voLEait2NYo8gCaO0tDxe+9qb"
    "fz6ztL32w+O//swMao3XTr7xxd1H0WpZ3uJ6Tn7Dzo29NztF1//fXi7aTqVSLEfMaeYaa+1DCMWXbjrUJCXib9eJfemuv3TIK3DS"
    "dbzJYnlcqUCK06gJJBC8Wnbsibmra3DX/FXPLu10vLLlVgo5rzJ3vxMnsrnKuDKRtZSc+95S5y4Wq/MB+nFbwSkUy1PDJads1wN3"
    "MIVRVaPcEKphGozp8iDuLkGmyqypYk1YubyVyTtbN4PkKTVUoTBBdJVRQ74KdwRty5WKb5UwiEKYCo0BJkO4M2hyLnKnqlBCqaZx"
    "Q4fYOuE6k3twe93YLlUVb7TsWFk/TQ2wb8Sd9YzSSrVi3e5sP5cA1RSucY0KDZbRNELlAdwWNL0eEElUh3YA2NTQGKNEFfqurxeP"
    "D4Em4vJ6vFKa60tpabnqermCM40QwW04Phw4v/za/l158Fgmj2IsNeeLFQCHKE5KgTbGAxIe9j0qnlUoTaMuEKUwhMmF4IRzSonh"
    "DKkC90iBtRMERGsYVBg6xwmpZbjiOeCL1C216VUuhMTS2KVduHEC0pL1g7tO+swkIjPzh/vveLoAHkk5h/vDMFcGYQqD6KIRSqaq"
    "MEuDKAkgm0PZRBQRxhn7lfyTPRBzuVSI7HOx4KRYHB19qudxn522yOxs+5jX5hfxMnksBI4vQDmCEU4bFZhRwTSNBmmgM+74nWUI"
    "2i65ixcU+InZe/9u+/x0RObngbtmdtbAQ5I/G4Jqnge1Q1rmTFj5dKC6F0bPoNnr6LuD6LGP3lQ1VQ+JTfvjrb84sh9gdEo19L/E"
    "ASQ2vXPqqSGfxBWRSTz9/R1PV8FjpbwnuJoeyoQtqPhcqLOwrwzClmZhC64ZTMweeuHVj0xB7C6puhjhQvkBW8373QOdPlvdkdk6"
    "Urs14Q+sHhhYQcTGQuaFqRKtQXOYhGiaEUJqPPZ5Z7M/sC6HgbVYMYGdlm++8OmdPjtyZHYezb++1dfSKtBSEKm+kHoCHNqonoLp"
    "Buj+ferJnv/UM7/3tbT6PC0tRmxgq/WJG1fe6bN1RWS2Xrxtzbv3gcca+QB6n7JA+zMmQnPSxKvmMwNIVIQOfpHTxmTw83N/8yun"
    "hh4AXFdK9/5f4QKWl370+ofP+iz3Rmb54KbEYX8TvQo20QBkHhIJXZBITM2kDXpJMNPUdbIxmznmb6J99U30Uq58gRyAn/gNLz/6"
    "M5+ftZH54ea9J/ye7T+vZ8mCgHNq8oZ9w4XGdbV+hPCLAz9q3uL37MB5PbsYsYGtZSd2nPmCz9a6yGz1vLruy76a1tcfyaJPX0F4"
    "w7oKZhA/43lsMaIG2Nhmbfvn4Kkf+2ra8B9q+gCDAj945OymYZ+fjdH3xz7p2UPgMSgfRBfZ9xyenBs9Q8J2xgnRQ/hJYAipCg8P"
    "IfH86RdzDwKwIek+tAC3Dz4H4Dnx8ZbO7hSA+1DoG8XY6jiC1/936q//D7/03G454YNO2dWKVyx8+0yiey34pMI+UsDn5P0v75YR"
    "3voG2SfAUgl/Adkgx+tfQN5q+i8fQb67z/rq1eCfDvsPyrgdRVthh3Lkt76O1Mg6+sHMQ5/wPUhkj0/e/KejFnhQ+baAkFV4Srpw"
    "hZjKtIYV0uAFmAblQtWz/3rscw7E0SQrfOMSRwVdrBh/d8N1AxBLr38zLI5a2h7PHStlipOhUhxCsXb0bxq9POo="
)


def _real_wandb_folder(root: Path) -> Path:
    folder = root / "wandb" / "offline-run-20261129_190316-lpc857b6"
    _write(folder / "run-lpc857b6.wandb", zlib.decompress(base64.b64decode(WANDB_031)))
    _write(folder / "files" / "output.log", "step-custom\n")
    return folder


SCHEMA = """
CREATE TABLE experiments (experiment_id INTEGER PRIMARY KEY, name VARCHAR(256) NOT NULL,
  artifact_location VARCHAR(256), lifecycle_stage VARCHAR(32), creation_time BIGINT, last_update_time BIGINT);
CREATE TABLE runs (run_uuid VARCHAR(32) PRIMARY KEY, name VARCHAR(250), source_type VARCHAR(20),
  source_name VARCHAR(500), entry_point_name VARCHAR(50), user_id VARCHAR(256), status VARCHAR(9),
  start_time BIGINT, end_time BIGINT, source_version VARCHAR(50), lifecycle_stage VARCHAR(20),
  artifact_uri VARCHAR(200), experiment_id INTEGER, deleted_time BIGINT);
CREATE TABLE metrics (key VARCHAR(250) NOT NULL, value FLOAT NOT NULL, timestamp BIGINT NOT NULL,
  run_uuid VARCHAR(32) NOT NULL, step BIGINT DEFAULT '0' NOT NULL, is_nan BOOLEAN DEFAULT '0' NOT NULL,
  PRIMARY KEY (key, timestamp, step, run_uuid, value, is_nan));
CREATE TABLE params (key VARCHAR(250) NOT NULL, value VARCHAR(8000) NOT NULL, run_uuid VARCHAR(32) NOT NULL,
  PRIMARY KEY (key, run_uuid));
"""


def _db(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.executescript(SCHEMA)
    con.execute("INSERT INTO experiments VALUES (0, 'Default', '', 'active', 0, 0)")
    runs = [
        ("aaa", "first", "FINISHED", 1000, "active", [3.0, 2.0, 1.0]),
        ("bbb", "second", "FAILED", 2000, "active", [3.0, 2.0, None]),
        ("ccc", "gone", "FINISHED", 3000, "deleted", [1.0, 1.0, 1.0]),
    ]
    for uid, name, status, start, stage, losses in runs:
        con.execute(
            "INSERT INTO runs VALUES (?,?,'LOCAL','','','me',?,?,?,'',?,'',0,NULL)",
            (uid, name, status, start, start + 500, stage),
        )
        for i, v in enumerate(losses):
            con.execute(
                "INSERT INTO metrics VALUES ('loss', ?, ?, ?, ?, ?)",
                (0.0 if v is None else v, start + 100 * i, uid, 5 * (i + 1), v is None),
            )
        con.execute("INSERT INTO params VALUES ('lr', '0.1', ?)", (uid,))
    con.commit()
    con.close()
    return path
