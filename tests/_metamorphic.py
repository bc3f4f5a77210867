"""The console readers' metamorphic harness (issue 29): the same training lines, framed the way
real consoles frame them, must read the same. Sources (the zoo's inputs, calibration logs of the
real-log corpus), the framings, and what a read must keep."""

from __future__ import annotations

import gzip
import importlib.util
import math
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


CONSOLE_SUFFIXES = ("", ".log", ".out", ".err", ".stdout", ".stderr")


@dataclass
class Source:
    """A console log as the readers get it: a name for the test id, its text and its file name."""

    name: str
    text: str
    filename: str
    entry: dict | None = None  # the corpus manifest's entry, for a corpus log

    @property
    def console(self) -> bool:
        """Whether the file is a console capture (``train.log``, ``nohup.out``): what a console
        frames. A file a framework writes itself (``train_log.txt``, ``loss_log.txt``) gets only
        the framings of a file (line ends, gzip, an appended run)."""
        return Path(self.filename).suffix.lower() in CONSOLE_SUFFIXES


@dataclass(frozen=True)
class Read:
    """What a framing must keep of a read: the loss series' name and its values."""

    loss: str
    values: tuple[float, ...]
    fmt: str = ""  # the format it was read as (not compared)

    def brief(self) -> str:
        v = self.values
        return f"{self.loss!r}: {len(v)} points, {v[0]!r} .. {v[-1]!r}" if v else f"{self.loss!r}: no points"


def loss_series(path: Path) -> tuple[str, Any, str] | None:
    """The loss a log reads as: its name, its series and the format read (None: not read, or no
    loss). Both console harnesses (framings here, content variants in ``_variants``) read through it."""
    from trainlint.api import read_run
    from trainlint.readers import ReadError

    try:
        run = read_run(path)
    except ReadError:
        return None
    name = run.roles.get("loss")
    if name is None or name not in run.series:
        return None
    return name, run.series[name], run.format


def read_loss(path: Path) -> Read | None:
    """The loss a log reads as (None: not read, or no loss)."""
    found = loss_series(path)
    if found is None:
        return None
    name, series, fmt = found
    return Read(name, tuple(float(v) for v in series.values), fmt)


def reads_manifest_loss(entry: dict | None, loss: str) -> bool:
    """Whether ``loss`` (a name, or parts joined by ``+``) is the corpus manifest's ``loss_metric``."""
    named = entry.get("loss_metric") if entry else None
    names = [named] if isinstance(named, str) else named or []
    return any(set(n.split("+")) == set(loss.split("+")) for n in names)


def same(a: Read | None, b: Read | None) -> bool:
    if a is None or b is None:
        return a is b
    if a.loss != b.loss or len(a.values) != len(b.values):
        return False
    return all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a.values, b.values))


# -- sources -------------------------------------------------------------------------------------


class _Recorded(Exception):
    pass


@contextmanager
def _recording(modules: list[Any], seen: list[tuple[str, bytes]]) -> Iterator[None]:
    """Every file the zoo's tests hand to ``read_run`` is recorded (name, bytes) before it is read."""
    import _consolekit

    import trainlint.api

    real = trainlint.api.read_run

    def record(path: Any, *args: Any, **kw: Any) -> Any:
        p = Path(path)
        if not p.is_file():
            return real(path, *args, **kw)
        seen.append((p.name, p.read_bytes()))
        raise _Recorded  # the test's input is all the harness needs: the rest of it is not run

    holders = [trainlint.api, _consolekit, *modules]
    saved = [(h, h.__dict__.get("read_run")) for h in holders]
    for h in holders:
        if "read_run" in h.__dict__:
            h.read_run = record
    try:
        yield
    finally:
        for h, fn in saved:
            if fn is not None:
                h.read_run = fn


def zoo_sources(modules: list[Any], tmp: Path) -> list[Source]:
    """The console inputs of the zoo's tests: each test is run up to the first file it reads,
    and that file is recorded."""
    out: list[Source] = []
    for mod in modules:
        tests = [(n, f) for n, f in vars(mod).items() if n.startswith("test_") and callable(f)]
        for name, fn in tests:
            seen: list[tuple[str, bytes]] = []
            where = tmp / f"{mod.__name__}.{name}"
            where.mkdir(parents=True)
            with _recording([mod], seen):
                try:
                    fn(where)
                except Exception:  # _Recorded, or a zoo test's own failure (the zoo's to report)
                    pass
            for filename, data in seen:
                if filename.endswith(".gz") or b"\x00" in data:
                    continue
                label = f"{mod.__name__.removeprefix('test_console_')}.{name.removeprefix('test_')}"
                out.append(Source(label, data.decode("utf-8", "replace"), filename))
    return out


def _report_script() -> Any:
    spec = importlib.util.spec_from_file_location("_realworld_report", ROOT / "scripts" / "realworld_report.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("_realworld_report", mod)
    spec.loader.exec_module(mod)
    return mod


_TABLES = (".json", ".jsonl", ".csv", ".tsv", ".gz", ".zip", ".parquet", ".arrow", ".md", ".html", ".ipynb", ".yaml")


def calibration_sources(every: int, max_bytes: int) -> list[Source]:
    """Logs of the corpus's CALIBRATION part that may be console logs (not a table or a JSON
    file by name), sorted by id, every ``every``-th of those present and small enough. The part
    is decided from the repository name before any file is located: a test-part log is never
    opened."""
    rep = _report_script()
    entries = sorted((e for e in rep.entries() if rep.part_of(e["repo"]) == "calibration"), key=lambda e: e["id"])
    found = []
    for e in entries:
        if e.get("evidence") or e.get("label") == "no-loss" or (e.get("loss_points") or 0) < 10:
            continue
        path = rep.locate(e)
        if path is None or not path.is_file() or path.suffix.lower() in _TABLES or path.stat().st_size > max_bytes:
            continue
        found.append((e, path))
    return [
        Source(f"calibration.{e['id']}", path.read_bytes().decode("utf-8", "replace"), path.name, e)
        for e, path in found[::every]
    ]


def written(sources: list[Source], tmp: Path) -> Iterator[tuple[Source, Path]]:
    """Each source written to a folder of its own under ``tmp``, under its own file name (readers
    look at a file's name)."""
    for k, src in enumerate(sources):
        path = tmp / f"base{k}" / src.filename
        path.parent.mkdir(parents=True)
        path.write_text(src.text, encoding="utf-8")
        yield src, path


def calibration_or_skip(every: int, max_bytes: int) -> tuple[list[Source], int]:
    """:func:`calibration_sources` and the corpus report's least number of loss points; the test
    skips where the corpus cache is not on the machine (a fresh clone)."""
    import pytest

    if not (ROOT / "tests" / "realworld" / "cache").is_dir():
        pytest.skip("the corpus cache (tests/realworld/cache) is not on this machine")
    return calibration_sources(every, max_bytes), _report_script().MIN_STEPS


# -- framings ------------------------------------------------------------------------------------

# A framing: the log's text and file name -> the framed file's bytes and name.
Framing = Callable[[str, str], tuple[bytes, str]]


def _per_line(text: str, frame: Callable[[int, str], str]) -> str:
    """``frame`` applied to every written line that holds no redraw (a tqdm bar is drawn on stderr
    by tqdm itself, never through a logging handler)."""
    lines = text.split("\n")
    return "\n".join(
        frame(i, ln) if ln.strip() and "\r" not in ln and "\b" not in ln else ln for i, ln in enumerate(lines)
    )


def _stamp(i: int, sep: str = ",") -> str:
    return f"2024-05-01 12:{i // 3600 % 60:02d}:{i // 60 % 60:02d}{sep}{i % 1000:03d}"


def logging_basic(text: str, name: str) -> tuple[bytes, str]:
    # Python logging, format "%(asctime)s - %(levelname)s - %(message)s" (the logging HOWTO's
    # example, used by most training scripts' logging.basicConfig)
    return _per_line(text, lambda i, ln: f"{_stamp(i)} - INFO - {ln}").encode(), name


def logging_named(text: str, name: str) -> tuple[bytes, str]:
    # "%(asctime)s - %(levelname)s - %(name)s - %(message)s": the Hugging Face example scripts
    # (run_clm.py, run_glue.py) configure logging so
    return _per_line(text, lambda i, ln: f"{_stamp(i)} - INFO - __main__ - {ln}").encode(), name


def logging_hf_explicit(text: str, name: str) -> tuple[bytes, str]:
    # transformers.utils.logging.enable_explicit_format():
    # "[%(levelname)s|%(filename)s:%(lineno)s] %(asctime)s >> %(message)s"
    return _per_line(text, lambda i, ln: f"[INFO|trainer.py:2046] {_stamp(i)} >> {ln}").encode(), name


def loguru(text: str, name: str) -> tuple[bytes, str]:
    # loguru's default sink format: "{time:YYYY-MM-DD HH:mm:ss.SSS} | {level: <8} | {name}:{function}:{line} - {message}"
    return _per_line(text, lambda i, ln: f"{_stamp(i, '.')} | INFO     | __main__:train:88 - {ln}").encode(), name


def rank0(text: str, name: str) -> tuple[bytes, str]:
    # torchrun (PyTorch >= 2.2, --local-ranks-filter / LOGS_SPECS) prefixes each rank's line "[rank0]: "
    return "\n".join(f"[rank0]: {ln}" if ln.strip() else ln for ln in text.split("\n")).encode(), name


def _two_ranks(text: str, tag: str) -> str:
    out = []
    for ln in text.split("\n"):
        if ln.strip():
            out += [f"[{tag}0]:{ln}", f"[{tag}1]:{ln}"]
        else:
            out.append(ln)
    return "\n".join(out)


def ranks_two(text: str, name: str) -> tuple[bytes, str]:
    # torchrun, two ranks writing the same lines into one console: "[rank0]:" / "[rank1]:"
    return _two_ranks(text, "rank").encode(), name


def ranks_default(text: str, name: str) -> tuple[bytes, str]:
    # torchrun --tee 3 (torch.distributed.elastic): each worker's line prefixed "[default0]:"
    return _two_ranks(text, "default").encode(), name


_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
_WORD = re.compile(r"\b([A-Za-z][A-Za-z_]*)(?=\s*[:=])")


def ansi(text: str, name: str) -> tuple[bytes, str]:
    # colour codes around names and values: rich's console and colorlog/termcolor-styled loggers
    # (Swin/timm's logger colours its frame, LLaMA-Factory and loguru their levels and values)
    def paint(i: int, ln: str) -> str:
        ln = _WORD.sub(lambda m: f"\x1b[1m{m[1]}\x1b[0m", ln)
        return _NUMBER.sub(lambda m: f"\x1b[36m{m[0]}\x1b[0m", ln)

    return _per_line(text, paint).encode(), name


def crlf(text: str, name: str) -> tuple[bytes, str]:
    # a console saved on Windows (PowerShell, cmd's ">"): every line ends "\r\n"
    return text.replace("\n", "\r\n").encode(), name


def _bar(k: int, total: int) -> str:
    # tqdm's default render: "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]"
    pct = k * 100 // total
    fill = "█" * (pct // 10) + " " * (10 - pct // 10)
    return f"{pct:3d}%|{fill}| {k}/{total} [00:{k % 60:02d}<01:{(total - k) % 60:02d},  3.21it/s]"


def _progress_lines(text: str) -> set[int]:
    """The lines that carry a number after a letter: where a script prints its progress (a line
    that is itself a bar's render is drawn by the bar, never printed after another)."""
    return {
        i
        for i, ln in enumerate(text.split("\n"))
        if re.search(r"[A-Za-z].*\d", ln) and "\r" not in ln and "%|" not in ln and "━" not in ln
    }


def tqdm_before(text: str, name: str) -> tuple[bytes, str]:
    # tqdm(leave=True) redraws its bar with "\r" and ends it with a newline; the script's print follows
    # (a bar of its own: a data loader's, whose count says nothing of the script's step)
    marks = _progress_lines(text)
    out = []
    for i, ln in enumerate(text.split("\n")):
        if i in marks:
            out.append("\r" + "\r".join(_bar(k, 100) for k in (1, 50, 100)))
        out.append(ln)
    return "\n".join(out).encode(), name


def tqdm_same_line(text: str, name: str) -> tuple[bytes, str]:
    # tqdm's "\r" renders with no newline after the last one: the script's print() lands on the same
    # physical line, right after the bar (issue 29: "Epoch 1, Training loss: 3.96" after a bar)
    # (the bar counts the script's steps: it has advanced at each printed line)
    marks = sorted(_progress_lines(text))
    at = {i: n + 1 for n, i in enumerate(marks)}
    total = 10 * (len(marks) + 1)
    out = []
    for i, ln in enumerate(text.split("\n")):
        out.append("\r" + "\r".join(_bar(10 * at[i] - d, total) for d in (9, 0)) + ln if i in at else ln)
    return "\n".join(out).encode(), name


_NOISE = [
    # a Python warning (warnings.showwarning's two lines)
    "/usr/local/lib/python3.10/site-packages/torch/optim/lr_scheduler.py:139: UserWarning: Detected call of "
    "`lr_scheduler.step()` before `optimizer.step()`.",
    "  warnings.warn(",
    "",
    # a caught exception printed by logging.exception / traceback.print_exc()
    "Traceback (most recent call last):",
    '  File "/work/data.py", line 41, in __getitem__',
    "    img = Image.open(path)",
    "PIL.UnidentifiedImageError: cannot identify image file '/data/broken_0193.jpg'",
    "skipping a broken image",
    # nvidia-smi's table (as a script's os.system("nvidia-smi") prints it)
    "+-----------------------------------------------------------------------------+",
    "| NVIDIA-SMI 525.85.12    Driver Version: 525.85.12    CUDA Version: 12.0     |",
    "|-------------------------------+----------------------+----------------------+",
    "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
    "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
    "|   0  Tesla V100-SXM2...  On   | 00000000:00:04.0 Off |                    0 |",
    "| N/A   41C    P0    56W / 300W |  10423MiB / 16384MiB |     87%      Default |",
    "+-------------------------------+----------------------+----------------------+",
    "",
]


def interleaved(text: str, name: str) -> tuple[bytes, str]:
    # unrelated lines between the progress lines: warnings, a caught traceback, nvidia-smi, blanks
    lines = text.split("\n")
    every = max(1, len(lines) // 6)
    out = []
    for i, ln in enumerate(lines):
        if i and i % every == 0:
            out += _NOISE
        out.append(ln)
    return "\n".join(out).encode(), name


def preamble_lines() -> list[str]:
    """500 lines a script prints before training: its argparse Namespace, its config as ``name:
    number`` pairs, its model (``print(model)``) and a parameter summary."""
    names = [f"{a}_{b}" for a in ("enc", "dec", "head", "opt", "data") for b in ("dim", "layers", "drop", "lr", "size")]
    out = [
        "Namespace(arch='resnet50', batch_size=256, epochs=90, lr=0.1, momentum=0.9, weight_decay=0.0001, "
        "print_freq=10, seed=None, gpu=None, workers=4, resume='', evaluate=False)",
        "config:",
    ]
    out += [f"  {names[i % len(names)]}_{i // len(names)}: {(i * 37) % 101 / 10}" for i in range(200)]
    out.append("ResNet(")
    for i in range(240):  # print(model)
        out.append(
            f"  (layer{i // 20}.{i % 20}): Conv2d({64 * (1 + i % 4)}, {64 * (1 + i % 4)}, kernel_size=(3, 3), stride=(1, 1), bias=False)"
        )
    out.append(")")
    out += [
        "================================================================",
        "Total params: 25,557,032",
        "Trainable params: 25,557,032",
        "Non-trainable params: 0",
        "Input size (MB): 0.57",
        "Forward/backward pass size (MB): 286.56",
        "Params size (MB): 97.49",
        "Estimated Total Size (MB): 384.62",
        "================================================================",
    ]
    while len(out) < 500:
        out.append(f"loading shard {len(out)}")
    return out


def preamble(text: str, name: str) -> tuple[bytes, str]:
    return ("\n".join(preamble_lines()) + "\n" + text).encode(), name


def gzipped(text: str, name: str) -> tuple[bytes, str]:
    # logrotate's compress, or a log shared as train.log.gz
    return gzip.compress(text.encode(), mtime=0), name + ".gz"


RESTART = [
    "*** SIGTERM received: job preempted, saving checkpoint ***",
    "",
    "==> Restarting training from scratch (run 2 of 2)",
]


def appended(text: str, name: str) -> tuple[bytes, str]:
    # a second run appended after a restart banner (nohup python train.py >> train.log, twice)
    return (text.rstrip("\n") + "\n" + "\n".join(RESTART) + "\n" + text).encode(), name


# -- framings real tools print (issue 29): each names the tool and its format string ----------

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _clock(i: int) -> tuple[int, int, int]:
    """A time of day that advances with the line (hour, minute, second)."""
    return 10 + i // 3600 % 12, i // 60 % 60, i % 60


def _prefixed(text: str, prefix: Callable[[int], str]) -> str:
    return _per_line(text, lambda i, ln: prefix(i) + ln)


def mdhm_comma(text: str, name: str) -> tuple[bytes, str]:
    # Python logging, datefmt "%m-%d %H:%M:%S" and format "%(asctime)s, %(message)s": a month-day
    # stamp with no year and a comma after it (the shape of a calibration log no reader took)
    return _prefixed(text, lambda i: "12-04 %02d:%02d:%02d, " % _clock(i)).encode(), name


def detectron2_stdout(text: str, name: str) -> tuple[bytes, str]:
    # detectron2.utils.logger.setup_logger, stdout with color: termcolor green around
    # "[%(asctime)s %(name)s]: " with datefmt "%m/%d %H:%M:%S", then "%(message)s"
    return _prefixed(
        text, lambda i: "\x1b[32m[12/04 %02d:%02d:%02d d2.utils.events]: \x1b[0m" % _clock(i)
    ).encode(), name


def detectron2_file(text: str, name: str) -> tuple[bytes, str]:
    # detectron2.utils.logger.setup_logger, its log.txt (the plain formatter):
    # "[%(asctime)s] %(name)s %(levelname)s: %(message)s" with datefmt "%m/%d %H:%M:%S"
    return _prefixed(text, lambda i: "[12/04 %02d:%02d:%02d] d2.engine.hooks INFO: " % _clock(i)).encode(), name


def paddle(text: str, name: str) -> tuple[bytes, str]:
    # PaddleOCR's ppocr/utils/logging.py: "[%(asctime)s] %(name)s %(levelname)s: %(message)s" with
    # datefmt "%Y/%m/%d %H:%M:%S"
    return _prefixed(text, lambda i: "[2024/12/04 %02d:%02d:%02d] ppocr INFO: " % _clock(i)).encode(), name


def mmengine_terminal(text: str, name: str) -> tuple[bytes, str]:
    # mmengine's MMFormatter on a terminal: "%(asctime)s - %(name)s - %(levelname)s - %(message)s",
    # datefmt "%m/%d %H:%M:%S", the level coloured (termcolor, attrs blink and underline)
    return _prefixed(
        text, lambda i: "12/04 %02d:%02d:%02d - mmengine - \x1b[5m\x1b[4m\x1b[37mINFO\x1b[0m - " % _clock(i)
    ).encode(), name


def accelerate_example(text: str, name: str) -> tuple[bytes, str]:
    # the accelerate / transformers no_trainer example scripts: logging.basicConfig(format=
    # "%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S")
    return _prefixed(text, lambda i: "12/04/2024 %02d:%02d:%02d - INFO - __main__ - " % _clock(i)).encode(), name


def absl(text: str, name: str) -> tuple[bytes, str]:
    # absl.logging's (and glog's) prefix: "Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg"
    return _prefixed(
        text, lambda i: "I1204 %02d:%02d:%02d.%06d 140245 train.py:48] " % (*_clock(i), i * 7919 % 10**6)
    ).encode(), name


def deepspeed(text: str, name: str) -> tuple[bytes, str]:
    # deepspeed.utils.logging: "[%(asctime)s] [%(levelname)s] [%(filename)s:%(lineno)d:%(funcName)s] %(message)s"
    return _prefixed(
        text,
        lambda i: "[2024-12-04 %02d:%02d:%02d,%03d] [INFO] [engine.py:2084:_take_model_step] " % (*_clock(i), i % 1000),
    ).encode(), name


def nemo(text: str, name: str) -> tuple[bytes, str]:
    # NeMo's BaseNeMoFormatter: "[NeMo %(levelname)1.1s %(asctime)s %(module)s:%(lineno)d] %(message)s",
    # datefmt "%Y-%m-%d %H:%M:%S"
    return _prefixed(text, lambda i: "[NeMo I 2024-12-04 %02d:%02d:%02d train:48] " % _clock(i)).encode(), name


def hydra(text: str, name: str) -> tuple[bytes, str]:
    # Hydra's default job logging: "[%(asctime)s][%(name)s][%(levelname)s] - %(message)s"
    return _prefixed(
        text, lambda i: "[2024-12-04 %02d:%02d:%02d,%03d][__main__][INFO] - " % (*_clock(i), i % 1000)
    ).encode(), name


def structlog(text: str, name: str) -> tuple[bytes, str]:
    # structlog's default ConsoleRenderer after TimeStamper(fmt="%Y-%m-%d %H:%M:%S"): the stamp,
    # then the level padded in brackets "[info     ]"
    return _prefixed(text, lambda i: "2024-12-04 %02d:%02d:%02d [info     ] " % _clock(i)).encode(), name


def logging_level_brackets(text: str, name: str) -> tuple[bytes, str]:
    # Python logging, "%(asctime)s [%(levelname)s] %(message)s" (the asctime's milliseconds after ",")
    return _prefixed(text, lambda i: "2024-12-04 %02d:%02d:%02d,%03d [INFO] " % (*_clock(i), i % 1000)).encode(), name


def ray_worker(text: str, name: str) -> tuple[bytes, str]:
    # Ray forwards a worker's stdout to the driver's console as "(RayTrainWorker pid=7, ip=10.0.0.2) "
    return _prefixed(text, lambda i: "(RayTrainWorker pid=83127, ip=10.0.0.2) ").encode(), name


def srun_label(text: str, name: str) -> tuple[bytes, str]:
    # SLURM's srun --label: each line of task 0 prefixed "0: "
    return _prefixed(text, lambda i: "0: ").encode(), name


def mpirun_tag(text: str, name: str) -> tuple[bytes, str]:
    # Open MPI's mpirun --tag-output: "[jobid,rank]<stdout>:" before each line
    return _prefixed(text, lambda i: "[1,0]<stdout>:").encode(), name


def kubectl_prefix(text: str, name: str) -> tuple[bytes, str]:
    # kubectl logs --prefix: "[pod/NAME/CONTAINER] " before each line
    return _prefixed(text, lambda i: "[pod/trainer-0/pytorch] ").encode(), name


def compose(text: str, name: str) -> tuple[bytes, str]:
    # docker compose up (v2): the container's name, padded, then " | "
    return _prefixed(text, lambda i: "trainer-1  | ").encode(), name


def docker_timestamps(text: str, name: str) -> tuple[bytes, str]:
    # docker logs --timestamps: RFC 3339 with nanoseconds and "Z", then a space
    return _prefixed(
        text, lambda i: "2024-12-04T%02d:%02d:%02d.%09dZ " % (*_clock(i), i * 104729 % 10**9)
    ).encode(), name


def cri_log(text: str, name: str) -> tuple[bytes, str]:
    # a Kubernetes container log file (CRI format, /var/log/containers): "TIME STREAM TAG message",
    # the tag "F" for a full line
    return _prefixed(
        text, lambda i: "2024-12-04T%02d:%02d:%02d.%09dZ stdout F " % (*_clock(i), i * 104729 % 10**9)
    ).encode(), name


def journalctl(text: str, name: str) -> tuple[bytes, str]:
    # journalctl's short output (a training run as a systemd service): "%b %d %H:%M:%S host ident[pid]: "
    return _prefixed(text, lambda i: "Dec 04 %02d:%02d:%02d gpu-node-3 python3[41277]: " % _clock(i)).encode(), name


def ts_default(text: str, name: str) -> tuple[bytes, str]:
    # moreutils ts with its default format "%b %d %H:%M:%S" (python train.py | ts > train.log); the
    # day of month space-padded as syslog writes it
    return _prefixed(text, lambda i: "%s %2d %02d:%02d:%02d " % (_MONTHS[i % 12], 1 + i % 9, *_clock(i))).encode(), name


def ts_epoch(text: str, name: str) -> tuple[bytes, str]:
    # moreutils ts '%.s': seconds since the epoch with microseconds
    return _prefixed(text, lambda i: "%d.%06d " % (1733307072 + i, i * 7919 % 10**6)).encode(), name


def ts_clock(text: str, name: str) -> tuple[bytes, str]:
    # moreutils ts '[%H:%M:%S]'
    return _prefixed(text, lambda i: "[%02d:%02d:%02d] " % _clock(i)).encode(), name


def ts_compact(text: str, name: str) -> tuple[bytes, str]:
    # moreutils ts '%Y%m%d-%H%M%S'
    return _prefixed(text, lambda i: "20241204-%02d%02d%02d " % _clock(i)).encode(), name


def ts_iso_offset(text: str, name: str) -> tuple[bytes, str]:
    # moreutils ts '%Y-%m-%dT%H:%M:%S%z'
    return _prefixed(text, lambda i: "2024-12-04T%02d:%02d:%02d+0100 " % _clock(i)).encode(), name


_TF_NOISE = [
    # TensorFlow's C++ logging at start-up and on the first step: "%Y-%m-%d %H:%M:%S.%f: L file:line] msg"
    "2024-12-04 10:11:12.123456: I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary "
    "is optimized to use available CPU instructions in performance-critical operations.",
    "2024-12-04 10:11:14.551203: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] Created device "
    "/job:localhost/replica:0/task:0/device:GPU:0 with 14626 MB memory:  -> device: 0, name: Tesla T4, "
    "pci bus id: 0000:00:04.0, compute capability: 7.5",
    "2024-12-04 10:11:20.009911: I tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:442] Loaded cuDNN version 8900",
    "2024-12-04 10:11:21.771034: W tensorflow/tsl/framework/bfc_allocator.cc:296] Allocator (GPU_0_bfc) ran "
    "out of memory trying to allocate 2.26GiB with freed_by_count=0.",
]


def tensorflow_noise(text: str, name: str) -> tuple[bytes, str]:
    # TensorFlow's C++ log lines between a script's own lines
    lines = text.split("\n")
    every = max(1, len(lines) // 4)
    out = []
    for i, ln in enumerate(lines):
        if i % every == 0:
            out += _TF_NOISE[(i // every) % 2 * 2 : (i // every) % 2 * 2 + 2]
        out.append(ln)
    return "\n".join(out).encode(), name


# Between one pair's value and the next pair ("name: 1.5", "name=2", "Train Acc 0.9"): ", ", or two
# spaces or more.
_BETWEEN = re.compile(r"(?<=\d)(?:,[ \t]+|[ \t]{2,})(?=[A-Za-z][\w/.@\- ]{0,40}?\s*[:=]?\s*[-+]?\.?\d)")


def _separated(text: str, sep: str) -> str:
    return _per_line(text, lambda i, ln: _BETWEEN.sub(sep, ln))


def pipes(text: str, name: str) -> tuple[bytes, str]:
    # fairseq's simple progress bar joins its "name value" pairs with " | " (and many scripts print
    # " | ".join(f"{k}: {v:.4f}" ...)): the same pairs, another separator
    return _separated(text, " | ").encode(), name


def tabs(text: str, name: str) -> tuple[bytes, str]:
    # "\t".join(...) of the pairs (a print meant to be pasted into a spreadsheet)
    return _separated(text, "\t").encode(), name


def semicolons(text: str, name: str) -> tuple[bytes, str]:
    # "; ".join(...) of the pairs (issue 29's "train accuracy = 0.0996; train loss = 3.3223")
    return _separated(text, "; ").encode(), name


# A value standing alone between spaces: what a script passes to print as a value of its own.
_RECORD = re.compile(r"\b(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)\b|^\[(?:rank|default)\d")
_ALONE = re.compile(r"(?<!\S)[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|inf)(?!\S)")


def _tuple_print(line: str) -> str:
    """The line a Python 2 ``print(text, value, text, value, ...)`` prints where Python 3 printed
    ``line``: the tuple of its parts, the text between two values a string (less the space print
    puts between its arguments), each value as written. A line with no value alone is one string
    (printed as it is), as is one that starts with a value or holds non-ASCII text (Python 2 would
    escape its bytes), and a logging record (logging formats its message: no tuple is printed)."""
    found = list(_ALONE.finditer(line))
    if not found or found[0].start() == 0 or not line.isascii() or _RECORD.search(line):
        return line
    parts, last = [], 0
    for m in found:
        between = line[last : m.start()]
        between = between[:-1] if last == 0 else between[1:-1]  # the spaces print adds
        if last == 0 or between or line[last : m.start()] != " ":
            parts.append(repr(between))
        parts.append(m[0])
        last = m.end()
    if line[last:]:
        parts.append(repr(line[last + 1 :]))
    return "(" + ", ".join(parts) + ")"


def py2_tuple(text: str, name: str) -> tuple[bytes, str]:
    # a hand-written loop run under Python 2: print('Epoch: ', e, 'loss', v) prints the tuple
    # "('Epoch: ', 3, 'loss', 0.5)" (dcgan-theano-py2-nohup-out-1364)
    return _per_line(text, lambda i, ln: _tuple_print(ln)).encode(), name


# Framings that change how a script joins its pairs or prints its values: tried only on logs the
# general line reader reads (a framework's own line has one separator and is no print of a tuple,
# and its recogniser reads that one).
SEPARATORS = frozenset({"pipes", "tabs", "semicolons", "py2_tuple"})


# The prefixes real tools put before each line (issue 29): many, so each is tried on fewer sources.
REAL_TOOLS = frozenset(
    {
        "mdhm_comma", "detectron2_stdout", "detectron2_file", "paddle", "mmengine_terminal", "accelerate_example",
        "absl", "deepspeed", "nemo", "hydra", "structlog", "logging_level_brackets", "ray_worker", "srun_label",
        "mpirun_tag", "kubectl_prefix", "compose", "docker_timestamps", "cri_log", "journalctl", "ts_default",
        "ts_epoch", "ts_clock", "ts_compact", "ts_iso_offset", "tensorflow_noise",
    }
)  # fmt: skip

# Framings of a file itself, realistic for any log; the others frame a console's output.
FILE_FRAMINGS = frozenset({"crlf", "gzip", "appended"})

FRAMINGS: dict[str, Framing] = {
    "logging_basic": logging_basic,
    "logging_named": logging_named,
    "logging_hf_explicit": logging_hf_explicit,
    "loguru": loguru,
    "rank0": rank0,
    "ranks_two": ranks_two,
    "ranks_default": ranks_default,
    "ansi": ansi,
    "crlf": crlf,
    "tqdm_before": tqdm_before,
    "tqdm_same_line": tqdm_same_line,
    "interleaved": interleaved,
    "preamble": preamble,
    "gzip": gzipped,
    "appended": appended,
    "mdhm_comma": mdhm_comma,
    "detectron2_stdout": detectron2_stdout,
    "detectron2_file": detectron2_file,
    "paddle": paddle,
    "mmengine_terminal": mmengine_terminal,
    "accelerate_example": accelerate_example,
    "absl": absl,
    "deepspeed": deepspeed,
    "nemo": nemo,
    "hydra": hydra,
    "structlog": structlog,
    "logging_level_brackets": logging_level_brackets,
    "ray_worker": ray_worker,
    "srun_label": srun_label,
    "mpirun_tag": mpirun_tag,
    "kubectl_prefix": kubectl_prefix,
    "compose": compose,
    "docker_timestamps": docker_timestamps,
    "cri_log": cri_log,
    "journalctl": journalctl,
    "ts_default": ts_default,
    "ts_epoch": ts_epoch,
    "ts_clock": ts_clock,
    "ts_compact": ts_compact,
    "ts_iso_offset": ts_iso_offset,
    "tensorflow_noise": tensorflow_noise,
    "pipes": pipes,
    "tabs": tabs,
    "semicolons": semicolons,
    "py2_tuple": py2_tuple,
}


def expected(framing: str, base: Read) -> Read:
    """What the framed log must read as: the same series; for an appended run, both runs' points
    in the order written (the console reader keeps them and notes the fall of the step)."""
    if framing == "appended":
        return Read(base.loss, base.values + base.values)
    return base
