"""Build the hostile-input corpus (tests/bad_inputs/).

Every case is a function that writes its input(s) under a folder and returns the path that
``trainlint doctor`` is pointed at. Small cases are committed under ``tests/bad_inputs/corpus/``
(``--static`` refreshes them); large or special ones (FIFOs, sockets, device files, symlink
loops, files of hundreds of megabytes) are built at test time in a temporary folder.

    python scripts/make_bad_inputs.py --static tests/bad_inputs/corpus
    python scripts/make_bad_inputs.py --dynamic /tmp/bad --big   # full-size files (200 MB)

Nothing here needs torch: torch archives and pickles are written byte by byte.
Malicious pickles create a canary file named ``trainlint-canary-*`` in the working directory
when loaded; the test runs trainlint from an empty folder and requires no canary there.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import pickle
import random
import shutil
import socket
import sqlite3
import stat
import struct
import sys
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

STATIC: dict[str, Callable[[Path], Path]] = {}
DYNAMIC: dict[str, Callable[[Path, bool], Path]] = {}


def static(fn: Callable[[Path], Path]) -> Callable[[Path], Path]:
    STATIC[fn.__name__] = fn
    return fn


def dynamic(fn: Callable[[Path, bool], Path]) -> Callable[[Path, bool], Path]:
    DYNAMIC[fn.__name__] = fn
    return fn


def _w(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _garbage(n: int = 4096, seed: int = 7) -> bytes:
    return random.Random(seed).randbytes(n)


# ----------------------------------------------------------------------------- well-formed pieces
def _trainer_state(n: int = 20, **extra: object) -> dict:
    hist = [
        {
            "step": 10 * (i + 1),
            "epoch": (i + 1) / n,
            "loss": 2.0 - 0.05 * i,
            "learning_rate": 1e-4,
        }
        for i in range(n)
    ]
    return {"global_step": 10 * n, "max_steps": 10 * n, "log_history": hist, **extra}


def _jsonl(n: int = 30) -> str:
    return "".join(json.dumps({"step": i, "loss": 2.0 - 0.03 * i, "lr": 1e-4}) + "\n" for i in range(n))


def _csv(n: int = 30) -> str:
    return "step,loss,lr\n" + "".join(f"{i},{2.0 - 0.03 * i},0.0001\n" for i in range(n))


def _crc32c_table() -> list[int]:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_T = _crc32c_table()


def masked_crc(data: bytes) -> int:
    c = 0xFFFFFFFF
    for b in data:
        c = _T[(c ^ b) & 0xFF] ^ (c >> 8)
    c ^= 0xFFFFFFFF
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _event(step: int, tag: str, value: float, wall: float) -> bytes:
    tagb = tag.encode()
    val = b"\x0a" + _varint(len(tagb)) + tagb + b"\x15" + struct.pack("<f", value)
    summ = b"\x0a" + _varint(len(val)) + val
    return b"\x09" + struct.pack("<d", wall) + b"\x10" + _varint(step) + b"\x2a" + _varint(len(summ)) + summ


def record(data: bytes, length: int | None = None) -> bytes:
    head = struct.pack("<Q", len(data) if length is None else length)
    return head + struct.pack("<I", masked_crc(head)) + data + struct.pack("<I", masked_crc(data))


def events(n: int = 40) -> list[bytes]:
    first = b"\x09" + struct.pack("<d", 1.7e9) + b"\x1a\x0dbrain.Event:2"
    return [record(first)] + [record(_event(i, "train/loss", 2.0 - 0.02 * i, 1.7e9 + i)) for i in range(n)]


# torch archives written by hand (the layout torch.save uses)
def _pickle_call(module: str, name: str, args: tuple, protocol: int = 2) -> bytes:
    """A pickle of {"x": module.name(*args)} written without importing ``module``."""
    body = pickle.dumps(args, protocol)[2:-1]  # the argument tuple, without PROTO and STOP
    return b"\x80" + bytes([protocol]) + b"}X\x01\x00\x00\x00x" + f"c{module}\n{name}\n".encode() + body + b"Rs."


def _torch_zip(entries: dict[str, bytes], deflate: set[str] = frozenset(), prefix: str = "archive") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in entries.items():
            method = zipfile.ZIP_DEFLATED if name in deflate else zipfile.ZIP_STORED
            zf.writestr(zipfile.ZipInfo(f"{prefix}/{name}"), data, compress_type=method)
    return out.getvalue()


def _tensor_pickle() -> bytes:
    """{"w": a 2-float tensor} as torch.save writes it (storage key "0")."""
    return (
        b"\x80\x02}q\x00X\x01\x00\x00\x00wq\x01ctorch._utils\n_rebuild_tensor_v2\nq\x02("
        b"(X\x07\x00\x00\x00storageq\x03ctorch\nFloatStorage\nq\x04X\x01\x00\x00\x000q\x05X\x03\x00\x00\x00cpuq"
        b"\x06K\x02tq\x07QK\x00K\x02\x85q\x08K\x01\x85q\x09\x89ccollections\nOrderedDict\nq\x0a)Rq\x0btq\x0cRq\x0d"
        b"s."
    )


def torch_zip_ok() -> bytes:
    return _torch_zip(
        {
            "data.pkl": _tensor_pickle(),
            "byteorder": b"little",
            "data/0": struct.pack("<2f", 1, 2),
            "version": b"3\n",
        }
    )


def _safetensors(header: dict | bytes, data: bytes = b"", length: int | None = None) -> bytes:
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(raw) if length is None else length) + raw + data


# ----------------------------------------------------------------------------- logs: empty, garbage
@static
def empty_trainer_state(d: Path) -> Path:
    return _w(d / "trainer_state.json", b"")


@static
def empty_metrics_csv(d: Path) -> Path:
    return _w(d / "metrics.csv", b"")


@static
def empty_events(d: Path) -> Path:
    return _w(d / "events.out.tfevents.1700000000.host", b"")


@static
def empty_folder_of_empties(d: Path) -> Path:
    for name in (
        "trainer_state.json",
        "metrics.jsonl",
        "train.log",
        "tokenizer.json",
        "model.safetensors",
    ):
        _w(d / "run" / name, b"")
    return d / "run"


def _garbage_case(name: str) -> Callable[[Path], Path]:
    def build(d: Path) -> Path:
        return _w(d / name, _garbage(4096, seed=len(name)))

    build.__name__ = "garbage_" + name.replace(".", "_").replace("-", "_")
    return build


for _name in (
    "trainer_state.json",
    "metrics.csv",
    "metrics.jsonl",
    "events.out.tfevents.1.host",
    "train.log",
    "trainer_log.jsonl",
    "model.safetensors",
    "pytorch_model.bin",
    "training_args.bin",
    "hparams.yaml",
    "data.parquet",
):
    static(_garbage_case(_name))


@static
def garbage_csv_newlines(d: Path) -> Path:
    """Text-looking bytes with a bare CR inside a field: the csv module's 'new-line character' error."""
    rows = "step,loss\n1,2.0\n" + "".join(f'{i},"{i}\r{i}"x\r{i}\n' for i in range(2, 40))
    return _w(d / "metrics.csv", rows)


@static
def garbage_tokenizer_folder(d: Path) -> Path:
    _w(d / "tok" / "tokenizer.json", _garbage(8192, seed=3))
    _w(d / "tok" / "tokenizer_config.json", _garbage(512, seed=4))
    return d / "tok"


@static
def tokenizer_huge_model_max_length(d: Path) -> Path:
    """Found by fuzzing: model_max_length an integer of 400 digits, beyond float range."""
    model = {"type": "BPE", "vocab": {"<s>": 0, "</s>": 1, "a": 2, "b": 3}, "merges": ["a b"]}
    added = [{"id": 0, "content": "<s>", "special": True}, {"id": 1, "content": "</s>", "special": True}]
    _w(d / "tok" / "tokenizer.json", json.dumps({"model": model, "added_tokens": added}))
    config = '{"bos_token": "<s>", "eos_token": "</s>", "model_max_length": 1' + "7" * 400 + "}"
    _w(d / "tok" / "tokenizer_config.json", config)
    return d / "tok"


# ----------------------------------------------------------------------------- encodings
@static
def utf16_trainer_state(d: Path) -> Path:
    return _w(d / "trainer_state.json", json.dumps(_trainer_state()).encode("utf-16"))


@static
def utf16_metrics_csv(d: Path) -> Path:
    return _w(d / "metrics.csv", _csv().encode("utf-16"))


@static
def bom_jsonl(d: Path) -> Path:
    return _w(d / "metrics.jsonl", b"\xef\xbb\xbf" + _jsonl().encode())


@static
def latin1_console(d: Path) -> Path:
    text = "".join(f"step {i} loss {2.0 - 0.03 * i:.4f} lr 1e-4 \xe9t\xe9\n" for i in range(1, 40))
    return _w(d / "train.log", text.encode("latin-1"))


# ----------------------------------------------------------------------------- numbers and nesting
@static
def huge_int_step_csv(d: Path) -> Path:
    rows = _csv(20) + "9" * 400 + ",1.0,0.0001\n"
    return _w(d / "metrics.csv", rows)


@static
def huge_int_loss_jsonl(d: Path) -> Path:
    return _w(d / "metrics.jsonl", _jsonl(20) + '{"step": 21, "loss": ' + "7" * 400 + "}\n")


@static
def huge_int_step_jsonl(d: Path) -> Path:
    """A step too large for a float (OverflowError in float())."""
    return _w(d / "metrics.jsonl", _jsonl(20) + '{"step": ' + "9" * 400 + ', "loss": 1.0}\n')


@static
def huge_int_step_trainer_state(d: Path) -> Path:
    st = _trainer_state(20)
    text = json.dumps(st).replace('"step": 100,', '"step": ' + "8" * 400 + ",")
    return _w(d / "trainer_state.json", text)


@static
def huge_digits_training_args(d: Path) -> Path:
    doc = {
        "learning_rate": 1e-4,
        "num_train_epochs": 3,
        "per_device_train_batch_size": 8,
        "output_dir": "out",
        "max_steps": -1,
        "report_to": [],
        "save_total_limit": 2,
    }
    text = json.dumps(doc)[:-1] + ', "seed": ' + "1" * 6000 + "}"
    return _w(d / "training_args.json", text)


@static
def max_steps_1e999(d: Path) -> Path:
    text = json.dumps(_trainer_state(20)).replace('"max_steps": 200', '"max_steps": 1e999')
    return _w(d / "trainer_state.json", text)


@static
def nonfinite_loss_jsonl(d: Path) -> Path:
    text = _jsonl(20) + '{"step": 20, "loss": NaN}\n{"step": 21, "loss": Infinity}\n'
    return _w(d / "metrics.jsonl", text)


@static
def deep_tokenizer(d: Path) -> Path:
    _w(d / "tok" / "tokenizer.json", "[" * 20_000 + "]" * 20_000)
    return d / "tok"


@static
def deep_trainer_state(d: Path) -> Path:
    return _w(
        d / "trainer_state.json",
        '{"global_step": 5, "log_history": ' + "[" * 20_000 + "]" * 20_000 + "}",
    )


@static
def deep_jsonl_line(d: Path) -> Path:
    return _w(
        d / "metrics.jsonl",
        _jsonl(20) + '{"step": 21, "loss": ' + "[" * 50_000 + "]" * 50_000 + "}\n",
    )


@static
def deep_training_args(d: Path) -> Path:
    return _w(
        d / "training_args.json",
        '{"learning_rate": 0.001, "output_dir": "x", "report_to": [], "x": ' + "[" * 20_000 + "]" * 20_000 + "}",
    )


@static
def yaml_bomb_hparams(d: Path) -> Path:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i, c in enumerate("bcdefghi"):
        prev = "abcdefghi"[i]
        lines.append(f"{c}: &{c} [" + ",".join([f"*{prev}"] * 9) + "]")
    lines.append("learning_rate: 0.001\nmax_epochs: 3\nbatch_size: 8")
    return _w(d / "hparams.yaml", "\n".join(lines) + "\n")


# ----------------------------------------------------------------------------- wrong shapes, truncation
@static
def trainer_state_is_list(d: Path) -> Path:
    return _w(d / "trainer_state.json", json.dumps([_trainer_state()]))


@static
def trainer_state_history_dict(d: Path) -> Path:
    return _w(
        d / "trainer_state.json",
        json.dumps({"global_step": 5, "log_history": {"loss": 1}}),
    )


@static
def trainer_state_history_strings(d: Path) -> Path:
    return _w(
        d / "trainer_state.json",
        json.dumps({"global_step": 5, "log_history": ["a", 1, None, [2]]}),
    )


@static
def trainer_state_wrong_types(d: Path) -> Path:
    st = _trainer_state(20)
    st["max_steps"] = "lots"
    st["log_history"][3]["step"] = "ten"
    st["log_history"][4]["loss"] = {"v": 1}
    st["log_history"][5]["step"] = None
    return _w(d / "trainer_state.json", json.dumps(st))


@static
def trainer_state_truncated(d: Path) -> Path:
    text = json.dumps(_trainer_state(30), indent=2)
    return _w(d / "trainer_state.json", text[: len(text) // 2])


@static
def jsonl_truncated(d: Path) -> Path:
    text = _jsonl(30)
    return _w(d / "metrics.jsonl", text[:-25])


@static
def csv_ragged(d: Path) -> Path:
    text = _csv(20) + "21,1.0\n22,1.0,0.1,9,9,9\n23\n,,\n"
    return _w(d / "metrics.csv", text)


@static
def jsonl_wrong_shapes(d: Path) -> Path:
    text = _jsonl(20) + '[1,2]\n"text"\n{"step": {"a": 1}, "loss": [1]}\n{"step": 1e999, "loss": 1}\n'
    return _w(d / "metrics.jsonl", text)


# ----------------------------------------------------------------------------- TensorBoard framing
def _events_file(d: Path, recs: list[bytes]) -> Path:
    return _w(d / "events.out.tfevents.1700000000.host", b"".join(recs))


@static
def tfevents_truncated_in_header(d: Path) -> Path:
    recs = events()
    return _events_file(d, [*recs[:20], recs[20][:7]])


@static
def tfevents_truncated_in_data(d: Path) -> Path:
    recs = events()
    return _events_file(d, [*recs[:20], recs[20][:20]])


@static
def tfevents_truncated_before_data_crc(d: Path) -> Path:
    recs = events()
    return _events_file(d, [*recs[:20], recs[20][:-2]])


@static
def tfevents_length_2_40_crc_ok(d: Path) -> Path:
    """A record whose length field says 2^40 and whose length CRC matches: damage to read past."""
    recs = events()
    bad = record(b"\x00" * 12, length=1 << 40)
    return _events_file(d, [*recs[:15], bad, *recs[15:]])


@static
def tfevents_length_2_63(d: Path) -> Path:
    recs = events()
    bad = record(b"\x00" * 12, length=1 << 63)
    return _events_file(d, [*recs[:15], bad, *recs[15:]])


@static
def tfevents_length_crc_flipped(d: Path) -> Path:
    recs = events()
    broken = bytearray(recs[10])
    broken[9] ^= 0xFF
    return _events_file(d, [*recs[:10], bytes(broken), *recs[11:]])


@static
def tfevents_data_crc_flipped(d: Path) -> Path:
    recs = events()
    broken = bytearray(recs[10])
    broken[-1] ^= 0xFF
    return _events_file(d, [*recs[:10], bytes(broken), *recs[11:]])


@static
def tfevents_bad_varints(d: Path) -> Path:
    recs = events(30)
    junk = record(b"\x10" + b"\xff" * 20 + b"\x2a\xff\xff\xff\xff\x0f")
    return _events_file(d, [*recs[:10], junk, *recs[10:]])


# ----------------------------------------------------------------------------- stores
_MLFLOW_SCHEMA = """
CREATE TABLE experiments (experiment_id INTEGER PRIMARY KEY, name VARCHAR(256) NOT NULL,
  artifact_location VARCHAR(256), lifecycle_stage VARCHAR(32), creation_time BIGINT, last_update_time BIGINT);
CREATE TABLE runs (run_uuid VARCHAR(32) PRIMARY KEY, name VARCHAR(250), source_type VARCHAR(20),
  source_name VARCHAR(500), entry_point_name VARCHAR(50), user_id VARCHAR(256), status VARCHAR(9),
  start_time BIGINT, end_time BIGINT, source_version VARCHAR(50), lifecycle_stage VARCHAR(20),
  artifact_uri VARCHAR(200), experiment_id INTEGER, deleted_time BIGINT);
CREATE TABLE metrics (key VARCHAR(250), value FLOAT, timestamp BIGINT, run_uuid VARCHAR(32),
  step BIGINT, is_nan BOOLEAN);
CREATE TABLE params (key VARCHAR(250), value VARCHAR(8000), run_uuid VARCHAR(32));
"""


def _mlflow_db(path: Path, rows: list[tuple]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    con = sqlite3.connect(path)
    con.executescript(_MLFLOW_SCHEMA)
    con.execute("INSERT INTO experiments VALUES (0, 'Default', '', 'active', 0, 0)")
    con.execute("INSERT INTO runs VALUES ('aaa','r','LOCAL','','','me','FINISHED',NULL,NULL,'','active','',0,NULL)")
    con.executemany("INSERT INTO metrics VALUES (?, ?, ?, 'aaa', ?, ?)", rows)
    con.commit()
    con.close()
    return path


@static
def mlflow_sqlite_null_timestamps(d: Path) -> Path:
    rows = [("loss", 2.0 - 0.05 * i, None, i, 0) for i in range(20)]
    return _mlflow_db(d / "mlflow.db", rows)


@static
def mlflow_sqlite_null_everything(d: Path) -> Path:
    rows = [
        ("loss", None, None, None, None),
        (None, 1.0, 5, 1, 0),
        ("loss", "text", "x", "y", "z"),
        ("loss", 1.0, 10**18, 2**62, 1),
        ("loss", 1.0, 1000, 3, 0),
    ]
    return _mlflow_db(d / "mlflow.db", rows)


@static
def mlflow_file_store_garbage(d: Path) -> Path:
    run = d / "mlruns" / "1" / "0123456789abcdef0123456789abcdef"
    _w(d / "mlruns" / "1" / "meta.yaml", "name: x\nexperiment_id: '1'\n")
    _w(run / "meta.yaml", "status: [[[[\n" + "\x00\x01" * 10)
    _w(run / "metrics" / "loss", _garbage(2048, seed=11))
    _w(
        run / "metrics" / "lr",
        "1 2 3 4 5\nnan nan nan\n" + "9" * 500 + " 1 " + "9" * 500 + "\n",
    )
    return d / "mlruns"


@static
def mlflow_meta_yaml_shapes(d: Path) -> Path:
    """Found by fuzzing: a meta.yaml whose status is a mapping, and an experiment meta.yaml that is a list."""
    run = d / "mlruns" / "1" / "0123456789abcdef0123456789abcdef"
    _w(d / "mlruns" / "1" / "meta.yaml", "[1, 2]\n")
    _w(run / "meta.yaml", "\tstatus:\nrun_name: [x]\n")
    _w(
        run / "metrics" / "loss",
        "".join(f"{1700000000000 + i} {2.0 - 0.05 * i} {i}\n" for i in range(20)),
    )
    other = d / "mlruns" / "1" / "fedcba9876543210fedcba9876543210"
    _w(other / "meta.yaml", "- a\n- b\n")
    _w(other / "metrics" / "loss", "1700000000000 1.0 0\n1700000000001 0.9 1\n")
    return d / "mlruns"


@static
def mlflow_file_store_inf_steps(d: Path) -> Path:
    """Found by fuzzing: steps and timestamps of 1e16000 (infinite) in an MLflow metric file."""
    run = d / "mlruns" / "1" / "0123456789abcdef0123456789abcdef"
    _w(d / "mlruns" / "1" / "meta.yaml", "name: x\nexperiment_id: '1'\n")
    _w(run / "meta.yaml", "status: 3\nstart_time: 1700000000000\nrun_name: r\n")
    lines = "".join(f"{1700000000000 + i} {2.0 - 0.05 * i} {i}\n" for i in range(20))
    _w(run / "metrics" / "loss", lines + "1000 0.04 -4.2e16000\n1e16000 0.5 21\n9223372036854775807 nan 22\n")
    return d / "mlruns"


@static
def wandb_binary_garbage(d: Path) -> Path:
    folder = d / "wandb" / "offline-run-20260101_000000-abcdefgh"
    _w(folder / "run-abcdefgh.wandb", b":W&B\x00\x00\x00\x00" + _garbage(8192, seed=21))
    _w(folder / "files" / "output.log", "hello\n")
    return d / "wandb"


@static
def coqui_garbage(d: Path) -> Path:
    text = "".join(
        f" --> STEP: {i}/100 -- GLOBAL_STEP: {i}\n     | > loss: {'x' * (i % 3)}{1.0 / (i + 1)}  ({'9' * 400})\n"
        for i in range(30)
    )
    return _w(d / "trainer_0_log.txt", text + "\x00\x00 --> STEP: 1e999/1e999\n")


# ----------------------------------------------------------------------------- directories named like files
@static
def dir_named_trainer_state(d: Path) -> Path:
    (d / "trainer_state.json").mkdir(parents=True, exist_ok=True)
    _w(d / "trainer_state.json" / "x.txt", "hi\n")
    return d / "trainer_state.json"


@static
def dir_named_safetensors(d: Path) -> Path:
    (d / "ckpt" / "model.safetensors").mkdir(parents=True, exist_ok=True)
    _w(d / "ckpt" / "model.safetensors" / "x.txt", "a folder, not a file\n")  # git keeps no empty folder
    _w(d / "ckpt" / "config.json", "{}")
    return d / "ckpt"


# ----------------------------------------------------------------------------- checkpoints
@static
def zip_traversal_names(d: Path) -> Path:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr(zipfile.ZipInfo("archive/data.pkl"), _tensor_pickle())
        zf.writestr(zipfile.ZipInfo("archive/data/0"), struct.pack("<2f", 1, 2))
        zf.writestr(zipfile.ZipInfo("archive/version"), b"3\n")
        zf.writestr(zipfile.ZipInfo("../../../../tmp/evil.sh"), b"echo pwned\n")
        zf.writestr(zipfile.ZipInfo("/etc/cron.d/evil"), b"* * * * * root true\n")
    return _w(d / "model.pt", out.getvalue())


@static
def zip_nested(d: Path) -> Path:
    inner = torch_zip_ok()
    data = _torch_zip(
        {
            "data.pkl": _tensor_pickle(),
            "data/0": struct.pack("<2f", 1, 2),
            "version": b"3\n",
            "inner.pt": inner,
            "inner2.zip": _torch_zip({"x.pt": inner}),
        }
    )
    return _w(d / "model.pt", data)


@static
def zip_truncated(d: Path) -> Path:
    data = torch_zip_ok()
    return _w(d / "model.pt", data[: len(data) // 2])


@static
def zip_negative_storage_offset(d: Path) -> Path:
    """Found by fuzzing: a tensor whose storage offset is -2**31, in an archive otherwise whole."""
    pkl = _tensor_pickle().replace(b"QK\x00K\x02\x85", b"QJ\x00\x00\x00\x80K\x02\x85")
    assert pkl != _tensor_pickle()
    entries = {"data.pkl": pkl, "byteorder": b"little", "data/0": struct.pack("<2f", 1, 2), "version": b"3\n"}
    return _w(d / "model.pt", _torch_zip(entries))


@static
def zip_entry_size_lies(d: Path) -> Path:
    """data.pkl's central directory size says 4 GB; its real bytes are a few dozen."""
    data = bytearray(torch_zip_ok())
    cd = data.rfind(b"PK\x01\x02", 0, data.find(b"PK\x05\x06"))
    first = data.find(b"PK\x01\x02")
    struct.pack_into("<I", data, first + 24, 0xFFFFFFF0)  # uncompressed size of the first entry
    assert cd >= first
    return _w(d / "model.pt", bytes(data))


@static
def safetensors_overlap(d: Path) -> Path:
    hdr = {
        "a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
        "b": {"dtype": "F32", "shape": [4], "data_offsets": [8, 24]},
    }
    return _w(d / "model.safetensors", _safetensors(hdr, b"\x00" * 24))


@static
def safetensors_out_of_range(d: Path) -> Path:
    hdr = {
        "a": {"dtype": "F32", "shape": [1 << 40], "data_offsets": [0, 1 << 42]},
        "b": {"dtype": "F32", "shape": [2], "data_offsets": [2**63, 2**64 + 8]},
    }
    return _w(d / "model.safetensors", _safetensors(hdr, b"\x00" * 16))


@static
def safetensors_header_2_63(d: Path) -> Path:
    return _w(d / "model.safetensors", _safetensors({"a": {}}, b"\x00" * 16, length=1 << 63))


@static
def safetensors_header_beyond_file(d: Path) -> Path:
    hdr = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
    return _w(d / "model.safetensors", _safetensors(hdr, b"\x00" * 8, length=1_000_000))


@static
def safetensors_deep_header(d: Path) -> Path:
    raw = b'{"a": ' + b"[" * 20_000 + b"]" * 20_000 + b"}"
    return _w(d / "model.safetensors", _safetensors(raw))


@static
def safetensors_huge_shape(d: Path) -> Path:
    hdr = {
        "a": {"dtype": "F32", "shape": [10**30, 10**30], "data_offsets": [0, 8]},
        "b": {"dtype": "F32", "shape": ["x"], "data_offsets": [0, "y"]},
        "c": [1, 2],
        "d": None,
    }
    return _w(d / "model.safetensors", _safetensors(hdr, b"\x00" * 8))


def _index(d: Path, weight_map: dict) -> Path:
    hdr = {"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
    _w(d / "ckpt" / "model-00001-of-00002.safetensors", _safetensors(hdr, b"\x00" * 8))
    _w(
        d / "ckpt" / "model.safetensors.index.json",
        json.dumps({"metadata": {"total_size": 8}, "weight_map": weight_map}),
    )
    return d / "ckpt"


@static
def shard_index_missing(d: Path) -> Path:
    return _index(
        d,
        {
            "w": "model-00001-of-00002.safetensors",
            "v": "model-00002-of-00002.safetensors",
        },
    )


@static
def shard_index_outside(d: Path) -> Path:
    _w(
        d / "secret.safetensors",
        _safetensors({"s": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\x00" * 8),
    )
    return _index(
        d,
        {
            "w": "model-00001-of-00002.safetensors",
            "s": "../secret.safetensors",
            "t": "/etc/passwd",
            "u": "sub/../../secret.safetensors",
        },
    )


@static
def shard_index_garbage(d: Path) -> Path:
    _w(
        d / "ckpt" / "model.safetensors.index.json",
        '{"weight_map": ' + "[" * 50_000 + "]" * 50_000 + "}",
    )
    return d / "ckpt"


@static
def pickle_huge_length(d: Path) -> Path:
    """A protocol-4 pickle whose BINUNICODE8 and BINBYTES8 lengths say 2^62 bytes."""
    data = b"\x80\x04\x8d" + struct.pack("<Q", 1 << 62) + b"abc" + b"\x8e" + struct.pack("<Q", 1 << 62) + b"."
    return _w(d / "evil.pkl", data)


@static
def pickle_deep(d: Path) -> Path:
    return _w(d / "deep.pkl", b"\x80\x02" + b"]" * 10 + b"(" * 20_000 + b"l" * 20_000 + b".")


PAYLOADS = {
    "os_system": ("os", "system", ("touch trainlint-canary-os_system",)),
    "posix_system": ("posix", "system", ("touch trainlint-canary-posix_system",)),
    "subprocess_popen": (
        "subprocess",
        "Popen",
        (["touch", "trainlint-canary-subprocess_popen"],),
    ),
    "builtins_exec": (
        "builtins",
        "exec",
        ("open('trainlint-canary-builtins_exec', 'w').close()",),
    ),
    "os_spawnv_passfds": (
        "os",
        "spawnv_passfds",
        ("/usr/bin/touch", ["touch", "trainlint-canary-spawnv"], ()),
    ),
    "runpy_run_code": (
        "runpy",
        "_run_code",
        ("open('trainlint-canary-runpy', 'w').close()", {}),
    ),
    "importlib_import_module": (
        "importlib",
        "import_module",
        ("trainlint_canary_module",),
    ),
}


# torch's legacy format: magic number, protocol version, sys info, then the main pickle
LEGACY_PREFIX = (
    b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.\x80\x02M\xe9\x03."
    b"\x80\x02}q\x00(X\x10\x00\x00\x00protocol_versionq\x01M\xe9\x03u."
)


def _evil_case(kind: str, key: str) -> Callable[[Path], Path]:
    module, name, args = PAYLOADS[key]

    def build(d: Path) -> Path:
        evil = _pickle_call(module, name, args)
        if kind == "zip":
            return _w(d / "evil.pt", _torch_zip({"data.pkl": evil, "version": b"3\n"}))
        return _w(d / "evil.pth", LEGACY_PREFIX + evil + b"\x80\x02]q\x00.")

    build.__name__ = f"evil_{kind}_{key}"
    return build


for _kind in ("zip", "legacy"):
    for _key in PAYLOADS:
        static(_evil_case(_kind, _key))


@static
def evil_protocol0(d: Path) -> Path:
    return _w(d / "model.pkl", b"cos\nsystem\n(S'touch trainlint-canary-proto0'\ntR.")


# ----------------------------------------------------------------------------- datasets
@static
def dataset_jsonl_garbage_lines(d: Path) -> Path:
    rows = "".join(json.dumps({"text": f"row {i} some words here"}) + "\n" for i in range(50))
    return _w(
        d / "train.jsonl",
        rows + '\x00\x01garbage\n{"text": ' + "[" * 20_000 + "\n" + rows,
    )


@static
def dataset_parquet_truncated(d: Path) -> Path:
    return _w(d / "train.parquet", b"PAR1" + _garbage(2000, seed=31) + b"\x10\x00\x00\x00PAR1")


@static
def dataset_arrow_folder_garbage(d: Path) -> Path:
    _w(
        d / "ds" / "state.json",
        '{"_data_files": [{"filename": "../../../etc/passwd"}], "x": ' + "[" * 30000,
    )
    _w(d / "ds" / "data-00000-of-00001.arrow", _garbage(4096, seed=41))
    _w(d / "ds" / "dataset_info.json", "{}")
    return d / "ds"


# ----------------------------------------------------------------------------- dynamic (test time)
def _huge_line_size(big: bool) -> int:
    return (200 << 20) if big else (48 << 20)


@dynamic
def huge_line_console(d: Path, big: bool) -> Path:
    p = d / "train.log"
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "wb") as fh:
        fh.write(b"step 1 loss 2.0\n")
        chunk = b"x" * (1 << 20)
        fh.writelines(chunk for _ in range(_huge_line_size(big) >> 20))
    return p


@dynamic
def huge_line_jsonl(d: Path, big: bool) -> Path:
    p = d / "metrics.jsonl"
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "wb") as fh:
        fh.write(_jsonl(20).encode())
        fh.write(b'{"step": 20, "note": "' + b"y" * (_huge_line_size(big) // 4) + b'"}\n')
        fh.write("".join(json.dumps({"step": i, "loss": 1.0}) + "\n" for i in range(21, 40)).encode())
    return p


@dynamic
def big_nested_tokenizer(d: Path, big: bool) -> Path:
    n = (100 << 20) if big else (24 << 20)
    p = d / "tok" / "tokenizer.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    unit = b"[[[[1],[2]],[[3]]],[[4,5,6]]],"
    with open(p, "wb") as fh:
        fh.write(b'{"model": {"type": "BPE", "vocab": {}, "merges": [')
        block = unit * ((1 << 20) // len(unit))
        fh.writelines(block for _ in range(n >> 20))
        fh.write(b'[0]]}, "added_tokens": []}')
    return d / "tok"


def _bomb_deflate(total: int) -> bytes:
    """Raw deflate of ``total`` zero bytes, built without compressing them all: full-flushed
    blocks of 1 MiB compress identically, so one is repeated."""
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = co.compress(b"\x00" * (1 << 20)) + co.flush(zlib.Z_FULL_FLUSH)
    tail = zlib.compressobj(9, zlib.DEFLATED, -15)
    end = tail.flush()  # an empty final block
    return block * (total >> 20) + end


def _zip_with_raw(entries: list[tuple[str, bytes, int, int, int]]) -> bytes:
    """A zip from (name, stored bytes, method, crc, uncompressed size) written by hand."""
    out = bytearray()
    central = bytearray()
    for name, raw, method, crc, usize in entries:
        nb = name.encode()
        off = len(out)
        z64 = usize >= 0xFFFFFFFF
        extra = struct.pack("<HHQQ", 1, 16, usize, len(raw)) if z64 else b""
        us, cs = (0xFFFFFFFF, 0xFFFFFFFF) if z64 else (usize, len(raw))
        out += struct.pack(
            "<4sHHHHHIIIHH",
            b"PK\x03\x04",
            45,
            0,
            method,
            0,
            0x21,
            crc,
            cs,
            us,
            len(nb),
            len(extra),
        )
        out += nb + extra + raw
        central += (
            struct.pack(
                "<4sHHHHHHIIIHHHHHII",
                b"PK\x01\x02",
                45,
                45,
                0,
                method,
                0,
                0x21,
                crc,
                cs,
                us,
                len(nb),
                len(extra),
                0,
                0,
                0,
                0,
                off,
            )
            + nb
            + extra
        )
    cd_off = len(out)
    out += central
    out += struct.pack(
        "<4sHHHHIIH",
        b"PK\x05\x06",
        0,
        0,
        len(entries),
        len(entries),
        len(central),
        cd_off,
        0,
    )
    return bytes(out)


@dynamic
def zip_bomb_pickle(d: Path, big: bool) -> Path:
    """archive/data.pkl deflated: a few MB that inflate to 4 GiB (2 GiB when not big)."""
    total = (4 << 30) if big else (2 << 30)
    bomb = _bomb_deflate(total)
    data = _zip_with_raw(
        [
            ("archive/data.pkl", bomb, 8, 0, total),
            ("archive/version", b"3\n", 0, zlib.crc32(b"3\n"), 2),
        ]
    )
    return _w(d / "model.pt", data)


@dynamic
def zip_bomb_storage(d: Path, big: bool) -> Path:
    total = (4 << 30) if big else (2 << 30)
    bomb = _bomb_deflate(total)
    pkl = _tensor_pickle()
    data = _zip_with_raw(
        [
            ("archive/data.pkl", pkl, 0, zlib.crc32(pkl), len(pkl)),
            ("archive/data/0", bomb, 8, 0, 8),
            ("archive/version", b"3\n", 0, zlib.crc32(b"3\n"), 2),
        ]
    )
    return _w(d / "model.pt", data)


def _special_folder(d: Path) -> Path:
    run = d / "run"
    _w(run / "metrics.jsonl", _jsonl())
    return run


@dynamic
def fifo_in_folder(d: Path, big: bool) -> Path:
    run = _special_folder(d)
    os.mkfifo(run / "trainer_state.json")
    os.mkfifo(run / "events.out.tfevents.1.host")
    return run


@dynamic
def fifo_named(d: Path, big: bool) -> Path:
    p = d / "train.log"
    d.mkdir(parents=True, exist_ok=True)
    os.mkfifo(p)
    return p


@dynamic
def socket_in_folder(d: Path, big: bool) -> Path:
    run = _special_folder(d)
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(run / "metrics.csv"))
    s.close()
    return run


@dynamic
def device_in_folder(d: Path, big: bool) -> Path:
    """A character device (1, 5: /dev/zero) under a log name; a symlink to /dev/zero where mknod is refused."""
    run = _special_folder(d)
    try:
        os.mknod(run / "train.log", 0o600 | stat.S_IFCHR, os.makedev(1, 5))
    except (PermissionError, OSError):
        os.symlink("/dev/zero", run / "train.log")
    return run


@dynamic
def device_named(d: Path, big: bool) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    p = d / "events.out.tfevents.1.host"
    os.symlink("/dev/zero", p)
    return p


@dynamic
def symlink_loop(d: Path, big: bool) -> Path:
    run = _special_folder(d)
    os.symlink("b.jsonl", run / "a.jsonl")
    os.symlink("a.jsonl", run / "b.jsonl")
    os.symlink("..", run / "up")  # a directory loop
    os.symlink("self", run / "self")
    (run / "sub").mkdir()
    os.symlink(str(run), run / "sub" / "back")
    return run


@dynamic
def symlink_out_of_folder(d: Path, big: bool) -> Path:
    outside = d / "outside"
    _w(outside / "metrics.jsonl", _jsonl() + '{"step": 30, "loss": NaN}\n')
    _w(outside / "secret" / "trainer_state.json", json.dumps(_trainer_state()))
    run = _special_folder(d)
    os.symlink(str(outside / "metrics.jsonl"), run / "linked.jsonl")
    os.symlink(str(outside / "secret"), run / "linked_dir")
    return run


@dynamic
def unreadable_file(d: Path, big: bool) -> Path:
    run = _special_folder(d)
    p = _w(run / "trainer_state.json", json.dumps(_trainer_state()))
    p.chmod(0)
    return run


def build_static(root: Path, names: list[str] | None = None) -> dict[str, Path]:
    out = {}
    for name, fn in STATIC.items():
        if names is None or name in names:
            folder = root / name
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            out[name] = fn(folder)
    return out


def build_dynamic(root: Path, names: list[str] | None = None, big: bool = False) -> dict[str, Path]:
    out = {}
    for name, fn in DYNAMIC.items():
        if names is None or name in names:
            folder = root / name
            folder.mkdir(parents=True, exist_ok=True)
            out[name] = fn(folder, big)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--static", type=Path, help="write the small committed cases here")
    ap.add_argument("--dynamic", type=Path, help="write the large/special cases here")
    ap.add_argument(
        "--big",
        action="store_true",
        help="full-size large cases (200 MB lines, 4 GiB bombs)",
    )
    ap.add_argument("names", nargs="*", help="only these cases")
    args = ap.parse_args(argv)
    if args.static is None and args.dynamic is None:
        ap.error("give --static and/or --dynamic")
    if args.static is not None:
        for name, p in build_static(args.static, args.names or None).items():
            print(f"static  {name}: {p}")
    if args.dynamic is not None:
        for name, p in build_dynamic(args.dynamic, args.names or None, args.big).items():
            print(f"dynamic {name}: {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
