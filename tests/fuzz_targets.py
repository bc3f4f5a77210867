"""Fuzz targets shared by tests/test_fuzz_readers.py (a small budget in CI) and scripts/fuzz.py
(long runs, hypothesis or atheris).

Each target builds a near-valid input of one format from drawn parameters (hypothesis
strategies), then mutates its bytes (cut, flip, insert, delete, repeat), writes it under a
temporary folder and runs ``doctor`` on it. The property: every input gets a verdict, or
NOT-CHECKED with a one-line reason; never an exception (TRAINLINT_DEBUG makes reader bugs
raise instead of becoming "internal error" reports), never a time-out, strict JSON out.
"""

from __future__ import annotations

import importlib.util
import json
import struct
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
FUZZ_TIMEOUT = 20.0  # seconds per input inside doctor: a hang is a failure


def _gen():
    spec = importlib.util.spec_from_file_location("make_bad_inputs", ROOT / "scripts" / "make_bad_inputs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


G = _gen()

floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0.0, 1.0, 2.5, 1e-8, 1e300, -1.0]),
)
steps = st.one_of(
    st.integers(min_value=-5, max_value=10**7),
    st.sampled_from([0, 1, 2**53, 2**63 - 1]),
)
json_scalar = st.one_of(st.none(), st.booleans(), floats, st.text(max_size=8))
keys = st.sampled_from(
    [
        "loss",
        "train/loss",
        "eval_loss",
        "lr",
        "learning_rate",
        "grad_norm",
        "epoch",
        "step",
        "val_loss",
        "accuracy",
        "global_step",
        "loss_mel",
        "x",
    ]
)


# ----------------------------------------------------------------------------- mutation
@st.composite
def mutated(draw: st.DrawFn, base: bytes) -> bytes:
    data = bytearray(base)
    for _ in range(draw(st.integers(0, 4))):
        if not data:
            break
        op = draw(st.sampled_from(["cut", "flip", "insert", "delete", "repeat", "none"]))
        at = draw(st.integers(0, len(data) - 1))
        if op == "cut":
            del data[at:]
        elif op == "flip":
            data[at] ^= draw(st.integers(1, 255))
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 64))]
        elif op == "repeat":
            data[at:at] = data[at : at + draw(st.integers(1, 64))] * draw(st.integers(1, 4))
    return bytes(data)


def _json(obj: object) -> bytes:
    return json.dumps(obj, allow_nan=True).encode()


# ----------------------------------------------------------------------------- near-valid builders
@st.composite
def tfevents(draw: st.DrawFn) -> dict[str, bytes]:
    recs = [G.record(b"\x09" + struct.pack("<d", 1.7e9) + b"\x1a\x0dbrain.Event:2")]
    for i in range(draw(st.integers(0, 30))):
        v = draw(st.floats(width=32, allow_nan=True, allow_infinity=True))
        step = draw(st.one_of(st.just(i), steps.filter(lambda s: s >= 0)))
        recs.append(G.record(G._event(step, draw(keys), v, 1.7e9 + i)))
    if draw(st.booleans()):
        recs.insert(
            draw(st.integers(0, len(recs))),
            G.record(b"\0" * 4, length=draw(st.sampled_from([1 << 40, 2**63, 17]))),
        )
    return {"events.out.tfevents.1.host": draw(mutated(b"".join(recs)))}


@st.composite
def trainer_state(draw: st.DrawFn) -> dict[str, bytes]:
    hist = draw(st.lists(st.dictionaries(keys, json_scalar, max_size=5), max_size=25))
    for i, h in enumerate(hist):
        h.setdefault("step", i * 10)
    state = {
        "global_step": draw(steps),
        "max_steps": draw(st.one_of(steps, floats, st.text(max_size=3))),
        "log_history": hist,
    }
    return {"trainer_state.json": draw(mutated(_json(state)))}


@st.composite
def jsonl(draw: st.DrawFn) -> dict[str, bytes]:
    rows = draw(
        st.lists(
            st.dictionaries(keys, json_scalar, min_size=1, max_size=4),
            min_size=1,
            max_size=30,
        )
    )
    rows[0]["loss"] = 1.0
    text = b"".join(_json(r) + b"\n" for r in rows)
    return {"metrics.jsonl": draw(mutated(text))}


@st.composite
def csv_log(draw: st.DrawFn) -> dict[str, bytes]:
    n = draw(st.integers(1, 30))
    cells = st.one_of(
        floats.map(repr),
        st.sampled_from(["", "nan", "inf", '"1,2"', "x", "\r", "1e999"]),
    )
    rows = ["step,loss,lr"] + [f"{i},{draw(cells)},{draw(cells)}" for i in range(n)]
    return {"metrics.csv": draw(mutated("\n".join(rows).encode()))}


@st.composite
def console(draw: st.DrawFn) -> dict[str, bytes]:
    lines = [f"step {i} loss {draw(floats)!r} lr 1e-4" for i in range(draw(st.integers(3, 30)))]
    lines += draw(
        st.lists(
            st.sampled_from(
                [
                    "Traceback (most recent call last):",
                    "Killed",
                    "\x1b[1m",
                    "Epoch 1/3",
                    "RuntimeError: CUDA out of memory.",
                ]
            ),
            max_size=3,
        )
    )
    return {"train.log": draw(mutated("\n".join(lines).encode()))}


@st.composite
def coqui(draw: st.DrawFn) -> dict[str, bytes]:
    out = []
    for i in range(draw(st.integers(1, 20))):
        out.append(f"   --> TIME: 2026-02-11 01:08:34 -- STEP: {i}/40 -- GLOBAL_STEP: {i}")
        out.append(f"     | > loss: {draw(floats)!r}  ({draw(floats)!r})")
    return {"trainer_0_log.txt": draw(mutated("\n".join(out).encode()))}


@st.composite
def wandb_binary(draw: st.DrawFn) -> dict[str, bytes]:
    sys.path.insert(0, str(ROOT / "tests"))
    import base64
    import zlib

    from _stores import WANDB_031

    data = zlib.decompress(base64.b64decode(WANDB_031))
    folder = "wandb/offline-run-20261129_190316-lpc857b6/"
    return {
        folder + "run-lpc857b6.wandb": draw(mutated(data)),
        folder + "files/output.log": b"x\n",
    }


@st.composite
def mlflow_sqlite(draw: st.DrawFn) -> dict[str, bytes]:
    cell = st.one_of(
        st.none(),
        floats.filter(lambda v: not isinstance(v, int) or abs(v) < 2**63),
        st.text(max_size=3),
    )
    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["loss", "lr", None]),
                cell,
                cell,
                cell,
                st.sampled_from([0, 1]),
            ),
            max_size=20,
        )
    )
    with tempfile.TemporaryDirectory() as d:
        path = G._mlflow_db(Path(d) / "mlflow.db", rows)
        data = path.read_bytes()
    return {"mlflow.db": draw(mutated(data)) if draw(st.booleans()) else data}


@st.composite
def mlflow_files(draw: st.DrawFn) -> dict[str, bytes]:
    run = "mlruns/1/0123456789abcdef0123456789abcdef/"
    lines = "".join(f"{draw(steps)} {draw(floats)!r} {draw(steps)}\n" for _ in range(draw(st.integers(0, 15))))
    return {
        "mlruns/1/meta.yaml": b"name: x\nexperiment_id: '1'\n",
        run + "meta.yaml": draw(mutated(b"status: 3\nstart_time: 1700000000000\nrun_name: r\n")),
        run + "metrics/loss": draw(mutated(lines.encode())),
    }


@st.composite
def torch_zip(draw: st.DrawFn) -> dict[str, bytes]:
    base = (
        G.torch_zip_ok()
        if draw(st.booleans())
        else G._torch_zip(
            {
                "data.pkl": G._pickle_call(
                    draw(st.sampled_from(["os", "builtins", "collections"])),
                    draw(st.sampled_from(["system", "eval", "OrderedDict"])),
                    ("x",),
                ),
                "version": b"3\n",
            },
            deflate={"data.pkl"} if draw(st.booleans()) else set(),
        )
    )
    return {"model.pt": draw(mutated(base))}


@st.composite
def torch_legacy(draw: st.DrawFn) -> dict[str, bytes]:
    legacy = G.LEGACY_PREFIX + G._tensor_pickle() + b"\x80\x02]q\x00X\x01\x00\x00\x000q\x01a." + b"\x02\x00" * 8
    return {"model.pth": draw(mutated(legacy))}


@st.composite
def safetensors(draw: st.DrawFn) -> dict[str, bytes]:
    n = draw(st.integers(0, 4))
    header, off = {}, 0
    for i in range(n):
        size = draw(st.integers(0, 16))
        header[f"t{i}"] = {
            "dtype": draw(st.sampled_from(["F32", "F16", "BF16", "I64", "X"])),
            "shape": [size // 4],
            "data_offsets": [off, off + size],
        }
        off += size
    if draw(st.booleans()):
        header["__metadata__"] = {"format": "pt"}
    data = G._safetensors(header, draw(st.binary(min_size=off, max_size=off + 8)))
    return {"model.safetensors": draw(mutated(data))}


@st.composite
def tokenizer(draw: st.DrawFn) -> dict[str, bytes]:
    vocab = {f"t{i}": i for i in range(draw(st.integers(0, 30)))}
    vocab.update(draw(st.dictionaries(st.text(max_size=4), st.integers(-3, 40), max_size=5)))
    tok = {
        "model": {"type": "BPE", "vocab": vocab, "merges": ["t a", "t b"]},
        "added_tokens": [
            {
                "id": draw(st.integers(-1, 40)),
                "content": draw(st.sampled_from(["<s>", "</s>", ""])),
                "special": True,
            }
        ],
    }
    cfg = {
        "eos_token": draw(st.one_of(st.none(), st.sampled_from(["</s>", "<eos>"]), st.integers())),
        "bos_token": "<s>",
        "model_max_length": draw(st.one_of(floats, st.none())),
    }
    return {
        "tok/tokenizer.json": draw(mutated(_json(tok))),
        "tok/tokenizer_config.json": draw(mutated(_json(cfg))),
    }


@st.composite
def dataset(draw: st.DrawFn) -> dict[str, bytes]:
    rows = draw(
        st.lists(
            st.dictionaries(
                st.sampled_from(["text", "label", "messages", "prompt"]),
                st.one_of(
                    st.text(max_size=20),
                    st.integers(-2, 5),
                    st.none(),
                    st.lists(
                        st.dictionaries(st.sampled_from(["role", "content"]), st.text(max_size=5)),
                        max_size=3,
                    ),
                ),
                min_size=1,
            ),
            min_size=1,
            max_size=30,
        )
    )
    text = b"".join(_json(r) + b"\n" for r in rows)
    if draw(st.booleans()):
        return {"train.jsonl": draw(mutated(text))}
    body = "text,label\n" + "".join(f"{draw(st.text(max_size=8))!r},{draw(st.integers(-1, 3))}\n" for _ in rows)
    return {"train.csv": draw(mutated(body.encode()))}


@st.composite
def training_args(draw: st.DrawFn) -> dict[str, bytes]:
    doc = {
        "output_dir": "out",
        "learning_rate": draw(floats),
        "report_to": [],
        "save_total_limit": 1,
        "num_train_epochs": draw(floats),
        "per_device_train_batch_size": draw(st.one_of(steps, st.text(max_size=2))),
        "warmup_steps": draw(steps),
        "max_steps": draw(st.one_of(steps, floats)),
    }
    return {"training_args.json": draw(mutated(_json(doc)))}


@st.composite
def numpy_arrays(draw: st.DrawFn) -> dict[str, bytes]:
    """np.save's .npy or np.savez's .npz of a loss curve (any numeric dtype, 1-D or a step column)."""
    import io

    import numpy as np

    n = draw(st.integers(0, 40))
    values = np.arange(n, 0, -1).astype(draw(st.sampled_from(["<f4", ">f8", "<i4", ">u2", "<f2", "|u1"])))
    if draw(st.booleans()):
        values = np.c_[np.arange(n), values]
    buf = io.BytesIO()
    if draw(st.booleans()):
        (np.savez_compressed if draw(st.booleans()) else np.savez)(buf, loss=values, val_loss=values[::2])
        return {"history.npz": draw(mutated(buf.getvalue()))}
    np.save(buf, np.asfortranarray(values) if draw(st.booleans()) else values)
    return {draw(st.sampled_from(["train_loss.npy", "x.npy"])): draw(mutated(buf.getvalue()))}


@st.composite
def pickle_history(draw: st.DrawFn) -> dict[str, bytes]:
    """pickle.dump(history.history): lists of floats and NumPy float32 scalars, any protocol."""
    import pickle

    import numpy as np

    n = draw(st.integers(0, 20))
    history = {"loss": [float(x) for x in range(n, 0, -1)], "val_loss": list(np.arange(n, dtype=np.float32))}
    if draw(st.booleans()):
        history["lr"] = np.full(n, 1e-3)  # type: ignore[assignment]
    data = pickle.dumps(history, protocol=draw(st.integers(0, pickle.HIGHEST_PROTOCOL)))
    return {"history.pkl": draw(mutated(data))}


@st.composite
def raw_bytes(draw: st.DrawFn) -> dict[str, bytes]:
    name = draw(
        st.sampled_from(
            [
                "trainer_state.json",
                "metrics.csv",
                "metrics.jsonl",
                "train.log",
                "model.pt",
                "model.safetensors",
                "events.out.tfevents.1.h",
                "training_args.bin",
                "hparams.yaml",
                "train_loss.npy",
                "history.npz",
                "history.pkl",
            ]
        )
    )
    return {name: draw(st.binary(max_size=2048))}


@dataclass(frozen=True)
class Target:
    name: str
    strategy: Callable[[], st.SearchStrategy[dict[str, bytes]]]


TARGETS = {
    t.name: t
    for t in (
        Target("tfevents", tfevents),
        Target("trainer_state", trainer_state),
        Target("jsonl", jsonl),
        Target("csv", csv_log),
        Target("console", console),
        Target("coqui", coqui),
        Target("wandb", wandb_binary),
        Target("mlflow_sqlite", mlflow_sqlite),
        Target("mlflow_files", mlflow_files),
        Target("torch_zip", torch_zip),
        Target("torch_legacy", torch_legacy),
        Target("safetensors", safetensors),
        Target("tokenizer", tokenizer),
        Target("dataset", dataset),
        Target("training_args", training_args),
        Target("numpy_arrays", numpy_arrays),
        Target("pickle_history", pickle_history),
        Target("raw_bytes", raw_bytes),
    )
}


def check_files(files: dict[str, bytes]) -> None:
    """Write ``files`` under a temporary folder and require a clean verdict for every input found."""
    from trainlint import api

    with tempfile.TemporaryDirectory(prefix="trainlint-fuzz-") as d:
        root = Path(d)
        for rel, data in files.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        targets = [root] + [root / rel for rel in files]
        for target in targets:
            res = api.doctor([target], api.Options(timeout_per_input=FUZZ_TIMEOUT))
            check_result(res)


def check_result(res: object) -> None:
    out = res.to_dict()  # type: ignore[attr-defined]
    json.dumps(out, allow_nan=False)  # strict JSON, whatever the input held
    for r in res.reports:  # type: ignore[attr-defined]
        reason = r.unjudged
        if reason is not None:
            assert reason.strip() and "\n" not in reason, reason
            assert not reason.startswith(("internal error", "timed out")), reason
        for f in r.findings:
            assert f.message.strip(), f


def bytes_target(name: str) -> Callable[[bytes], None]:
    """For atheris: raw bytes become the target's main file (a valid seed corpus guides the mutation)."""
    fname = {
        "tfevents": "events.out.tfevents.1.host",
        "trainer_state": "trainer_state.json",
        "jsonl": "metrics.jsonl",
        "csv": "metrics.csv",
        "console": "train.log",
        "coqui": "trainer_0_log.txt",
        "wandb": "wandb/offline-run-20261129_190316-lpc857b6/run-lpc857b6.wandb",
        "mlflow_sqlite": "mlflow.db",
        "mlflow_files": "mlruns/1/0123456789abcdef0123456789abcdef/metrics/loss",
        "torch_zip": "model.pt",
        "torch_legacy": "model.pth",
        "safetensors": "model.safetensors",
        "tokenizer": "tok/tokenizer.json",
        "dataset": "train.jsonl",
        "training_args": "training_args.json",
        "raw_bytes": "trainer_state.json",
    }[name]
    extra = {
        "mlflow_files": {
            "mlruns/1/meta.yaml": b"name: x\n",
            "mlruns/1/0123456789abcdef0123456789abcdef/meta.yaml": b"status: 3\n",
        }
    }.get(name, {})

    def run(data: bytes) -> None:
        check_files({fname: data, **extra})

    return run


def seed(name: str, n: int = 20) -> list[bytes]:
    """A few valid-looking inputs of a target (the atheris seed corpus): its main file's bytes."""
    from hypothesis import HealthCheck, given, settings

    found: list[bytes] = []

    @settings(max_examples=n, database=None, suppress_health_check=list(HealthCheck))
    @given(TARGETS[name].strategy())
    def collect(files: dict[str, bytes]) -> None:
        found.append(max(files.values(), key=len))

    collect()
    return found
