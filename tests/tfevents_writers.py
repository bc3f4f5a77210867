"""Event files written by the real writers (test-only: torch, tensorboardX, lightning, tensorboard),
and tensorboard's EventAccumulator as the reference reader."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest


def only_file(folder: Path) -> Path:
    files = sorted(folder.rglob("events.out.tfevents*"))
    assert len(files) == 1, files
    return files[0]


def _values(n: int) -> list[float]:
    vals = [1.0 / (i + 1) + 0.001 * i for i in range(n)]
    vals[3] = math.nan
    vals[5] = math.inf
    vals[6] = -math.inf
    return vals


def torch_simple(d: Path) -> Path:
    sw = pytest.importorskip("torch.utils.tensorboard").SummaryWriter
    w = sw(str(d))
    for i, v in enumerate(_values(40)):
        w.add_scalar("train/loss", v, i)
        w.add_scalar("lr-AdamW", 1e-3 * (0.99**i), i)
        if i % 10 == 9:
            w.add_scalar("val/loss", v * 2, i)
            w.add_histogram("weights", np.arange(10.0) * i, i)
    w.add_image("img", np.zeros((3, 4, 4)), 40)
    w.add_text("note", "hello", 40)
    w.add_scalar("big_step", 2.5, 2**40)
    w.close()
    return only_file(d)


def torch_new_style(d: Path) -> Path:
    sw = pytest.importorskip("torch.utils.tensorboard").SummaryWriter
    w = sw(str(d))
    for i, v in enumerate(_values(30)):
        w.add_scalar("Loss/train", v, i, new_style=True)
        w.add_scalar("Loss/val", v * 3, i, new_style=True, double_precision=True)
    w.close()
    return only_file(d)


def tensorboardx(d: Path) -> Path:
    tbx = pytest.importorskip("tensorboardX")
    w = tbx.SummaryWriter(str(d))
    for i, v in enumerate(_values(30)):
        w.add_scalar("train_loss_step", v, i)
        w.add_scalar("val_loss", v + 1, i)
        if i % 7 == 0:
            w.add_histogram("h", np.arange(5.0) + i, i)
    w.close()
    return only_file(d)


def lightning(d: Path) -> Path:
    loggers = pytest.importorskip("lightning.pytorch.loggers")
    lg = loggers.TensorBoardLogger(save_dir=str(d), name="", version=0)
    lg.log_hyperparams({"lr": 0.001, "batch_size": 32, "optimizer": "AdamW", "amp": True})
    for i, v in enumerate(_values(25)):
        lg.log_metrics({"train/loss": v, "train/learning_rate": 1e-3, "epoch": i // 10}, step=i)
        if i % 5 == 4:
            lg.log_metrics({"val/loss": v * 1.5}, step=i)
    lg.finalize("success")
    return only_file(d)


def _tb_writer(d: Path):
    efw = pytest.importorskip("tensorboard.summary.writer.event_file_writer")
    return efw.EventFileWriter(str(d))


def keras_tf2(d: Path) -> Path:
    """TF2/Keras layout: tensor scalars of the ``scalars`` plugin, histograms as tensors, text."""
    pytest.importorskip("tensorboard.compat.proto.event_pb2")
    from tensorboard.compat.proto import event_pb2
    from tensorboard.plugins.histogram import summary_v2 as hist
    from tensorboard.plugins.scalar import summary_v2 as scal
    from tensorboard.plugins.text import summary_v2 as text

    w = _tb_writer(d)
    for i, v in enumerate(_values(30)):
        for summ in (
            scal.scalar_pb("epoch_loss", np.float32(v)),
            scal.scalar_pb("epoch_learning_rate", np.float64(1e-3 / (i + 1))),
        ):
            w.add_event(event_pb2.Event(wall_time=1000.0 + i, step=i, summary=summ))
        if i % 10 == 0:
            w.add_event(
                event_pb2.Event(wall_time=1000.5 + i, step=i, summary=hist.histogram_pb("kernel", np.arange(20.0)))
            )
            w.add_event(event_pb2.Event(wall_time=1000.6 + i, step=i, summary=text.text_pb("t", "x")))
    w.close()
    return only_file(d)


def tf1(d: Path) -> Path:
    """TF1 layout: merged summaries, several simple_value scalars per event."""
    pytest.importorskip("tensorboard.compat.proto.event_pb2")
    from tensorboard.compat.proto import event_pb2, summary_pb2

    w = _tb_writer(d)
    for i, v in enumerate(_values(30)):
        vals = [
            summary_pb2.Summary.Value(tag="loss", simple_value=v),
            summary_pb2.Summary.Value(tag="learning_rate", simple_value=0.1),
            summary_pb2.Summary.Value(tag="global_norm/gradient_norm", simple_value=v * 10),
        ]
        w.add_event(event_pb2.Event(wall_time=2000.0 + i, step=i * 100, summary=summary_pb2.Summary(value=vals)))
    w.close()
    return only_file(d)


def tf1_restart(d: Path) -> Path:
    """A TF1 session restarted from an earlier checkpoint: SessionLog.START at step 15."""
    pytest.importorskip("tensorboard.compat.proto.event_pb2")
    from tensorboard.compat.proto import event_pb2, summary_pb2

    w = _tb_writer(d)
    steps = list(range(0, 25)) + list(range(15, 30))
    for i, step in enumerate(steps):
        if i == 25:
            start = event_pb2.SessionLog(status=event_pb2.SessionLog.START)
            w.add_event(event_pb2.Event(wall_time=4000.0 + i, step=step, session_log=start))
        val = summary_pb2.Summary.Value(tag="loss", simple_value=float(i))
        w.add_event(event_pb2.Event(wall_time=4000.0 + i, step=step, summary=summary_pb2.Summary(value=[val])))
    w.close()
    return only_file(d)


def odd_tensors(d: Path) -> Path:
    """Layouts off the fast path: half, bfloat16, ints, tensor_content doubles, shape [1],
    a tag longer than 127 bytes, negative and huge steps."""
    pytest.importorskip("tensorboard.compat.proto.event_pb2")
    from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2

    meta = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars"))
    scalar_shape = tensor_shape_pb2.TensorShapeProto()
    one = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=1)])
    tensors = {
        "half": tensor_pb2.TensorProto(
            dtype=19, tensor_shape=scalar_shape, half_val=[int(np.float16(1.5).view(np.uint16))]
        ),
        "half_content": tensor_pb2.TensorProto(
            dtype=19, tensor_shape=scalar_shape, tensor_content=np.float16(-2.25).tobytes()
        ),
        "int64": tensor_pb2.TensorProto(dtype=9, tensor_shape=scalar_shape, int64_val=[-7]),
        "int32": tensor_pb2.TensorProto(dtype=3, tensor_shape=scalar_shape, int_val=[123456]),
        "double_content": tensor_pb2.TensorProto(
            dtype=2, tensor_shape=scalar_shape, tensor_content=np.float64(1 / 3).tobytes()
        ),
        "shape_one": tensor_pb2.TensorProto(dtype=1, tensor_shape=one, float_val=[0.25]),
        "t" * 150: tensor_pb2.TensorProto(dtype=1, tensor_shape=scalar_shape, float_val=[4.5]),
    }
    w = _tb_writer(d)
    for i, step in enumerate((-5, 0, 3, 2**35)):
        for tag, t in tensors.items():
            val = summary_pb2.Summary.Value(tag=tag, tensor=t, metadata=meta)
            w.add_event(event_pb2.Event(wall_time=3000.0 + i, step=step, summary=summary_pb2.Summary(value=[val])))
    w.close()
    return only_file(d)


MULTI_TAGS = (
    "train/loss",
    "train/learning_rate",
    "train/grad_norm",
    "train/epoch",
    "train/tokens_per_second",
    "train/samples_per_second",
    "train/step_time",
    "train/weight_norm",
    "train/loss_scale",
    "x",
)
MULTI_STEPS = [*range(300), 16_383, 16_384, 2**21, 2**31 + 5]  # step varints of 1 to 5 bytes


def multi_tag(d: Path, writer: str = "tensorboardX") -> Path:
    """The layout of issue 28: 10 tags, each written with ``add_scalar`` at every step (the
    benchmark's ``tbx10`` / ``torch10`` rows), by tensorboardX or torch's SummaryWriter."""
    if writer == "tensorboardX":
        sw = pytest.importorskip("tensorboardX").SummaryWriter
    else:
        sw = pytest.importorskip("torch.utils.tensorboard").SummaryWriter
    w = sw(str(d))
    vals = _values(len(MULTI_STEPS))
    for i, step in enumerate(MULTI_STEPS):
        for k, tag in enumerate(MULTI_TAGS):
            w.add_scalar(tag, vals[i] * (k + 1) if k % 3 else vals[(i + k) % len(vals)], step)
    w.close()
    return only_file(d)


WRITERS = {
    "torch": torch_simple,
    "torch-new-style": torch_new_style,
    "tensorboardX": tensorboardx,
    "lightning": lightning,
    "keras-tf2": keras_tf2,
    "tf1": tf1,
    "tf1-restart": tf1_restart,
    "odd-tensors": odd_tensors,
}


def ea_points(path: Path) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """tag -> (steps, wall times, values) as tensorboard's EventAccumulator reads them (all kept)."""
    ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    from tensorboard.util import tensor_util

    guidance = {k: 0 for k in (ea.SCALARS, ea.TENSORS, ea.HISTOGRAMS, ea.IMAGES, ea.AUDIO, ea.COMPRESSED_HISTOGRAMS)}
    acc = ea.EventAccumulator(str(path), size_guidance=guidance)
    acc.Reload()
    out = {}
    for tag in acc.Tags()["scalars"]:
        evs = acc.Scalars(tag)
        out[tag] = [(e.step, e.wall_time, e.value) for e in evs]
    for tag in acc.Tags()["tensors"]:
        if acc.SummaryMetadata(tag).plugin_data.plugin_name not in ("scalars", ""):
            continue
        pts = []
        for e in acc.Tensors(tag):
            arr = tensor_util.make_ndarray(e.tensor_proto)
            assert arr.size == 1
            pts.append((e.step, e.wall_time, float(arr.reshape(-1)[0])))
        out[tag] = pts
    return {t: tuple(np.array(c, dtype=np.float64) for c in zip(*p)) for t, p in out.items()}
