"""Console output of training scripts (``nohup.out``, ``slurm-1234.out``, saved notebook
output, CI logs): one reader that runs a set of recognisers over the text as a
terminal would have shown it, keeps the one that read the most, and records
crash signatures for the crash rule.

Recognisers: the declarative one-line table in ``patterns`` (PyTorch
examples, Detectron2, fairseq, nanoGPT, llm.c, generic epoch/step shapes), the
multi-line ones in ``stateful`` (Keras, Lightning, Hugging Face Trainer, YOLO), the
pix2pix family's ``loss_log.txt`` (``pix2pix``), VITS's ``train.log`` loss lists (``vits``), the
evaluation lines of XGBoost, LightGBM and CatBoost (``boosters``), Stable-Baselines3's tables
(``sb3``), scikit-learn's, spaCy's and MATLAB's progress tables (``libtables``), Marian NMT's
``train.log`` (``marian``), first-order-model's ``log.txt`` (``motion``), AllenNLP's epoch tables
and bars (``allennlp``), Kaldi nnet3's objective lines (``kaldi``), cuda-convnet's cost lines
(``convnet``), DARTS's unnamed ``train``/``valid`` rows (``darts``), the
general line reader as the fallback (``general``), and any ``--pattern REGEX`` the user gives
(``ReadOptions.patterns``). Every recogniser reads the lines as the script printed them:
``frames`` removes torchrun's rank prefixes and logging record prefixes first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ...model import Run
from ...options import ReadOptions
from ...roles import choose
from ...safeio import (
    COMPRESSIONS,
    UTF16_BOMS,
    compression,
    gunzip,
    nul_block_notes,
    nul_blocks,
    open_regular,
    utf16_codec,
)
from ..base import ReadError, decode_text, head_as_text, looks_binary, reader
from .allennlp import RECOGNISERS as ALLENNLP_RECOGNISERS
from .boosters import RECOGNISERS as BOOSTER_RECOGNISERS
from .convnet import RECOGNISERS as CONVNET_RECOGNISERS
from .crash import SIGNATURES, find_crashes
from .darts import RECOGNISERS as DARTS_RECOGNISERS
from .frames import unframe
from .general import general, strip_frame
from .handwritten import MORE_PATTERNS
from .handwritten import RECOGNISERS as MORE_RECOGNISERS
from .kaldi import RECOGNISERS as KALDI_RECOGNISERS
from .libtables import RECOGNISERS as TABLE_RECOGNISERS
from .marian import RECOGNISERS as MARIAN_RECOGNISERS
from .motion import RECOGNISERS as MOTION_RECOGNISERS
from .numbers import bare_numbers
from .paddle import RECOGNISERS as PADDLE_RECOGNISERS
from .patterns import PATTERNS, LinePattern, apply_patterns
from .pix2pix import RECOGNISERS as GAN_RECOGNISERS
from .sb3 import RECOGNISERS as SB3_RECOGNISERS
from .skips import skipped_non_finite
from .stateful import RECOGNISERS
from .text import Capture, Line, Needles, lazy_regex, needles, split_lines, strip_ansi
from .vits import RECOGNISERS as VITS_RECOGNISERS

_CONSOLE_SUFFIXES = {".log", ".out", ".err", ".stdout", ".stderr"}
# glog's INFO files (Caffe's solver log, any C++ trainer logging through glog): named
# ``<program>.<host>.<user>.log.INFO.<yyyymmdd>-<hhmmss>.<pid>``, and ``<program>.INFO`` (the link to
# the newest); the run's head is often a long net definition, not progress lines. The WARNING and
# ERROR files beside them repeat only the warnings.
_GLOG_NAME = lazy_regex(r"\.log\.INFO\.\d{8}-\d{6}\.\d+$|^[\w\-]+\.INFO$")
_SNIFF_MORE = 128 * 1024
# What a console banner holds and a text corpus does not: only then is a long .txt read further.
# A printed PyTorch model (``  (conv1): Conv2d(3, 64, ...)``) is such a banner: a run's first lines.
_CONSOLE_NOISE = lazy_regex(
    rb"\r|\x1b\[|\bINFO\b|\bWARN(?:ING)?\b|\bDEBUG\b|\d it/s|\d s/it|UserWarning|FutureWarning"
    rb"|DeprecationWarning|(?m:^[ \t]+\([\w.]+\): [A-Z]\w*\()"
)
# Lines that announce a console log even before a full record has been printed.
_HINTS = lazy_regex(
    r"^\s*Epoch \d+/\d+\s*$|Epoch \d+:\s+\d+%\||^\s*Epoch\s+GPU_mem\s|^\s*\{'(?:loss|eval_loss)': "
    r"|Train Epoch: \d+ \[|\biter: \d+\s+total_loss:|^iter \d+: loss |^step\s+\d+/\d+ \|",
    re.M,
)
# (a rank's prefix, or the command's name Windows PowerShell writes before python's first stderr line)
_TRACEBACK = lazy_regex(r"^(?:\[rank\d+\]:\s?|[\w.\-]+ : )?Traceback \(most recent call last\):", re.M)
# The shell's report of a child it saw killed, SIGKILL from the OOM killer most often (bash:
# ``./run_training.sh: line 35: 14014 Killed      python train.py ...``): a crash signature that
# claims a .txt log as a traceback does, so a run killed before its first step is judged crashed,
# not left unrecognised (0xFFFA/superapp's training_logs.txt, killed while tokenising). A bare
# ``Killed`` line is not enough for a .txt: a word list may hold one.
_SHELL_KILLED = lazy_regex(r"^[^\n:]+: line \d+:[ \t]+\d+ Killed\b", re.M)
# Source, markup and data files are never console logs, whatever text they quote.
_NOT_CONSOLE = {
    ".py",
    ".pyi",
    ".md",
    ".rst",
    ".json",
    ".yaml",
    ".yml",
    ".toml",
    ".cfg",
    ".ini",
    ".csv",
    ".tsv",
    ".html",
    ".htm",
    ".ipynb",
    ".c",
    ".cc",
    ".cu",
    ".h",
    ".hpp",
    ".cpp",
    ".sh",
    ".js",
    ".ts",
    ".tex",
}
# Lines a framework prints when training ends normally (an early stop is a normal end).
_COMPLETED = lazy_regex(
    r"Overall training speed: |Total training time: |done training in [\d.]+ seconds"
    r"|\bTraining completed\. |`Trainer\.fit` stopped: |(?<!\d)\d+ epochs? completed in "
    r"|Signaling Trainer to stop\.|(?:Stopping training|Training stopped) early as no improvement"
    r"|total average iteration time: |\[after training is done\]"
    r"|Training finished after not improving\. Early Stop!"  # OpenNMT-py's early stop
    # parameter-golf's train_gpt.py (and its many forks) at its planned wall-clock budget
    # (max_wallclock_seconds): "stopping_early: wallclock_cap train_time:600051ms step:8635/20000"
    r"|\bstopping_early: wallclock_cap\b"
    # a training loop's own early stop: "Early stopping at epoch 12", "Early stopping triggered after 9
    # epochs" (at the line's start or after a logging prefix; not "EarlyStopping counter: 3 out of 7");
    # the gap before the words is bounded so that a line of ": : : ..." is searched in linear time
    r"|(?:^|[\]:|\-]\s{1,8})\W{0,8}(?i:early[ _]?stopping(?: was)? (?:at|triggered|after|activated)\b)"
    # a loop's own closing line that says only that training is done: "[INFO] Training complete."
    # (Amogha-Mayya/Temporal-Gait-Occlusion-Detection), "train: TRAINING COMPLETE" (Eiqbal25/
    # fyp_call_analysis); the phrase is the whole message ("Training complete: 40%" is progress)
    r"|(?:^|[\]:|\-]\s)\W{0,8}(?i:training (?:is )?complete(?:d)?)[.!]?\s*$"
)


def compile_user_pattern(text: str) -> LinePattern:
    """A ``--pattern`` regex as a recogniser; ValueError with a one-line reason when unusable."""
    try:
        regex = re.compile(text)
    except re.error as exc:
        raise ValueError(f"--pattern {text!r} is not a valid regular expression: {exc}") from None
    names = set(regex.groupindex)
    metrics = names - {"step", "epoch", "seen", "per_epoch", "max_steps", "planned_epochs", "kv"}
    if not metrics and "kv" not in names:
        raise ValueError(
            f"--pattern {text!r} names no metric: use named groups such as (?P<step>\\d+) and (?P<loss>[0-9.eE+-]+)"
        )
    step_from = "step" if "step" in names else "epoch" if "epoch" in names else "index"
    return LinePattern("user", "user-pattern", regex, step_from=step_from)


def recognise(lines: list[Line], text: str | Needles, patterns: Iterable[str | LinePattern] = ()) -> list[Capture]:
    """Every recogniser's capture, best first (``text`` is the whole log, ANSI codes removed;
    ``patterns``: the user's ``--pattern`` recognisers, tried first)."""
    caps: list[Capture] = []
    text = needles(text)
    user = tuple(p if isinstance(p, LinePattern) else compile_user_pattern(p) for p in patterns)
    if user:
        for cap in apply_patterns(lines, user, tier=3):
            cap.framework = "user-pattern"
            caps.append(cap)
    libraries = (
        *BOOSTER_RECOGNISERS,
        *SB3_RECOGNISERS,
        *TABLE_RECOGNISERS,
        *MARIAN_RECOGNISERS,
        *PADDLE_RECOGNISERS,
        *MOTION_RECOGNISERS,
        *ALLENNLP_RECOGNISERS,
        *KALDI_RECOGNISERS,
        *CONVNET_RECOGNISERS,
        *DARTS_RECOGNISERS,
    )
    for fn, needle in (*RECOGNISERS, *MORE_RECOGNISERS, *GAN_RECOGNISERS, *VITS_RECOGNISERS, *libraries):
        held = needle in text if isinstance(needle, str) else any(n in text for n in needle)
        found = fn(lines) if held else None  # a recogniser of several shapes gives a list
        if isinstance(found, list):
            caps.extend(found)
        elif found is not None:
            caps.append(found)
    caps.extend(apply_patterns(lines, PATTERNS + MORE_PATTERNS, text=text))
    # A user pattern first; then whatever read a loss; then the more specific; then the most lines;
    # then the most points of a training loss (an evaluation loss alone counts none); then one that reads
    # an evaluation loss too.
    caps.sort(key=lambda c: (c.tier == 3, c.has_loss(), c.tier, c.records, *_losses_read(c)), reverse=True)
    best = caps[0] if caps else None
    if best is None or not best.has_loss() or best.tier == 1:  # the general line reader: the fallback
        found = general(lines)
        if found is not None and (best is None or not best.has_loss() or _better(found, best)):
            caps.insert(0, found)
        elif found is not None:
            caps.append(found)
    return caps


def _better(general: Capture, generic: Capture) -> bool:
    """Whether the general reader's capture beats a generic shape's: more than twice its loss
    points, or as many with fewer falls of the step (a count inside the epoch taken as the step)
    or with more loss series (a generic shape that merged a training and a validation loss), or
    at the same steps with more series (a generic shape that merged ``Train Acc`` and ``Test Acc``)."""
    mine, theirs = _loss_points(general), _loss_points(generic)
    if mine > 2 * theirs or _overwrote(general, generic) or _refines(general, generic):
        return True
    if mine < theirs:  # (or a point or two fewer, an epoch cut from a pasted log: as many)
        near = theirs - mine <= max(2, theirs // 50) and _loss_names(general) > _loss_names(generic)
        return near or _kept_apart(general, generic)
    # as many points, and more losses kept apart (``train loss: .. - valid loss: ..`` read as one ``loss``)
    # (one fall is a run appended after a restart: a count inside the epoch falls at every epoch; but
    # where the general reader composed its steps of the epoch and the count inside it and they never
    # fall, the one fall was an epoch's end: a log cut in its second epoch, ``epoch: 2/300, step: 1/8250``)
    falls = _falls(general), _falls(generic)
    cut = falls[0] == 0 < falls[1] and general.steps_from == "epoch-count"
    if falls[0] < falls[1] >= 2 or cut or _loss_names(general) > _loss_names(generic):
        return True
    # the same steps, more series kept apart (``Train Acc: .. Test Acc: ..`` read as one ``Acc``)
    return _loss_steps(general) == _loss_steps(generic) and _names(general) > _names(generic)


def _kept_apart(general: Capture, generic: Capture) -> bool:
    """Whether a generic shape merged into one loss the lines the general reader kept apart
    (PaddleVideo's ``epoch:[1/25] train step:0 loss: ..`` and ``epoch:[1/25] val step:0 loss: ..``:
    one ``loss`` whose step falls at every epoch): more loss series, fewer falls of the step, and
    the general reader's loss series hold at least as many points as the generic shape's loss."""
    held = sum(len(steps) for name, (steps, _) in general.cols.items() if "loss" in name.lower() and len(steps) >= 3)
    return (
        _loss_names(general) > _loss_names(generic)
        and _falls(general) < _falls(generic) >= 2
        and held >= _loss_points(generic)
    )


def _overwrote(general: Capture, generic: Capture) -> bool:
    """Whether a generic shape took an outer counter for the step and kept the last loss of each
    (``iteration:1 step100/174,NER loss:..`` twice an iteration: one point where there were two)
    while the general reader kept each of those lines: more lines matched than points kept, and
    the general reader's loss holds them all with few repeated values (a line printed twice, by
    two logging handlers, repeats its value: that is not a lost point; nor is one the general reader
    read once, its twin right after it)."""
    taken, kept = len(set(generic.lines)) - general.reprints, _loss_points(generic)
    values = max((vals for name, (_, vals) in general.cols.items() if "loss" in name.lower()), key=len, default=[])
    if taken <= kept or len(values) < taken:
        return False
    repeats = sum(1 for a, b in zip(values, values[1:]) if a == b)
    return 2 * repeats < taken - kept


def _refines(general: Capture, generic: Capture) -> bool:
    """Whether the general reader's loss holds every point of the generic shape's, in order, and
    more, from no more lines than the generic shape matched (Time-Series-Library's ``iters: 100,
    epoch: 1 | loss: ..`` printed twice an epoch, which a shape keyed by the epoch matches and
    keeps once: the later overwrites the earlier; points from lines it never matched, an epoch's
    summary, are not such points); a line printed twice (two logging handlers) repeats its value:
    such repeats are no points gained, and a twin the general reader read once is no line of its own."""
    theirs = _longest_loss(generic)
    mine = _longest_loss(general)
    if not theirs or not len(theirs) < len(mine) <= len(set(generic.lines)) - general.reprints:
        return False
    it = iter(mine)
    if not all(any(v == w for w in it) for v in theirs):  # a subsequence, value for value
        return False
    repeats = sum(1 for a, b in zip(mine, mine[1:]) if a == b)
    return 2 * repeats < len(mine) - len(theirs)


def _losses_read(cap: Capture) -> tuple[int, bool]:
    """The points of the training loss the roles would take from a capture (none where its only
    loss is an evaluation loss: satyasundar/erav3-s8's Colab log, a tqdm bar redrawn at one step and
    a summary table of 50 epochs' ``Training Loss``, as many lines each), and whether it reads an
    evaluation loss too (that table's ``Test Loss``, beside the bar's training values alone)."""
    lengths = {name: len(steps) for name, (steps, _) in cap.cols.items()}
    chosen = choose(list(cap.cols), lengths=lengths)
    loss = chosen.get("loss")
    if loss is None or loss.rank >= 3:  # rank 3: an eval loss judged as the loss
        return 0, False
    return min(lengths.get(name, 0) for name in loss.names), "eval_loss" in chosen


def _longest_loss(cap: Capture) -> list[float]:
    return max((vals for name, (_, vals) in cap.cols.items() if "loss" in name.lower()), key=len, default=[])


def _loss_names(cap: Capture) -> int:
    """The loss series a capture read (a value printed once or twice, ``best_val_loss=0.11`` at
    the end, is a summary, not a series)."""
    return sum(1 for name, (steps, _) in cap.cols.items() if "loss" in name.lower() and len(steps) >= 3)


def _names(cap: Capture) -> int:
    return sum(1 for name in cap.cols if name.lower() not in ("epoch", "step"))


def _loss_steps(cap: Capture) -> list[float]:
    return next((steps for name, (steps, _) in cap.cols.items() if "loss" in name.lower()), [])


def _falls(cap: Capture) -> int:
    steps = next((steps for name, (steps, _) in cap.cols.items() if "loss" in name.lower()), [])
    return sum(1 for a, b in zip(steps, steps[1:]) if b < a)


def _loss_points(cap: Capture) -> int:
    """The points of the longest loss series a capture read (a generic shape that took an epoch
    counter for the step keeps one point per epoch where the log printed many)."""
    return max((len(steps) for name, (steps, _) in cap.cols.items() if "loss" in name.lower()), default=0)


def _progress_or_crash(data: bytes, patterns: Iterable[str | LinePattern] = ()) -> bool:
    text = strip_ansi(data.decode("utf-8", errors="replace"))
    if _HINTS.search(text) or _TRACEBACK.search(text) or _SHELL_KILLED.search(text):
        return True
    if any(pat.search(text) for sig, pat in SIGNATURES if sig in ("cuda-out-of-memory", "slurm-time-limit")):
        return True
    return bool(recognise(unframe(split_lines(text)), text, patterns))


def _json_lines(head: bytes) -> bool:
    """Whether the file's first lines are JSON objects, one a line: a JSON-lines table, the JSON
    readers' (a Python dict's print, ``{'loss': 0.5}``, is no JSON: a console line)."""
    lines = head.splitlines()[:6] if head.endswith(b"\n") else head.splitlines()[:6][:-1]  # a cut last line
    rows = [ln.strip() for ln in lines if ln.strip()][:5]
    if not rows or not rows[0].startswith(b"{"):
        return False
    try:
        return all(isinstance(json.loads(row), dict) for row in rows)
    except ValueError:
        return False


def _table_like(text: str) -> bool:
    """The first line is a CSV/TSV header or a JSON record: leave the file to those readers."""
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if first.startswith("{") or first == "[" or first.startswith(("[{", "[[", '["')):
        return True  # (a "[2024-01-01 10:00:00 INFO] ..." frame is a console line)
    fields = [f.strip().strip('"') for f in re.split(r"[,\t;]", first)]
    # a header names columns: an argparse ``Namespace(lr=0.1, ...)`` dump is no header
    return len(fields) >= 2 and all(f and _HEADER_FIELD.fullmatch(f) for f in fields)


_HEADER_FIELD = lazy_regex(r"[^\s=()\[\]{}']+")


def _read_more(path: Path) -> bytes:
    """The first _SNIFF_MORE bytes of the log, inflated where it is compressed (a ``.gz``,
    ``.bz2`` or ``.xz`` log is sniffed under its name without the suffix)."""
    real = next((p for p in (path, *(path.with_name(path.name + c[2]) for c in COMPRESSIONS)) if p.is_file()), path)
    with open_regular(real) as fh:
        data = fh.read(_SNIFF_MORE)
    return gunzip(real, head=_SNIFF_MORE)[0] if compression(data) is not None else data


def _read_tail(path: Path) -> bytes:
    """The last _SNIFF_MORE bytes of a plain (uncompressed) file longer than twice that; b"" for a
    shorter or compressed one (its head was looked at already)."""
    with open_regular(path) as fh:
        size = fh.seek(0, 2)
        if size <= 2 * _SNIFF_MORE:
            return b""
        fh.seek(size - _SNIFF_MORE)
        tail: bytes = fh.read(_SNIFF_MORE)
    return tail.split(b"\n", 1)[-1]  # from the first whole line


def _progress_further(path: Path, patterns: Iterable[str | LinePattern]) -> bool:
    """A long .txt whose first 8 KiB is a banner (a config dump, a printed model, data statistics):
    progress lines in its first _SNIFF_MORE bytes, or else in its last ones (a long setup printed
    before the first tqdm bar). Looked at only where the first part holds console noise
    (:data:`_CONSOLE_NOISE`), which a text corpus does not; two bounded reads, never the whole file."""
    try:
        more = head_as_text(_read_more(path))
        if looks_binary(more) or not _CONSOLE_NOISE.search(more):
            return False
        if _progress_or_crash(more, patterns):
            return True
        tail = _read_tail(path)
    except (OSError, ValueError):
        return False
    return bool(tail) and not looks_binary(tail) and _progress_or_crash(tail, patterns)


def _around_nuls(path: Path, head: bytes) -> bytes | None:
    """A head holding blocks of NUL bytes: the text around them (``safeio.nul_blocks``; read
    further when a block runs past the head); None for a binary head."""
    if head.endswith(b"\x00") and len(head) >= 8192:
        try:
            head = _read_more(path)
        except (OSError, ValueError):
            return None
    cleaned = nul_blocks(head)
    return cleaned[0] if cleaned is not None else None


# Before the CSV reader (a console line with a tab must not be read as a table), after JSON lines.
@reader("console", priority=44)
class ConsoleReader:
    def sniff(self, path: Path, head: bytes, options: ReadOptions | None = None) -> bool:
        patterns = options.patterns if options is not None else ()
        if path.suffix.lower() in _NOT_CONSOLE:
            return False
        head = head_as_text(head)
        if looks_binary(head):
            around = _around_nuls(path, head)
            if around is None:
                return False
            head = around
        suffix = path.suffix.lower()
        if bare_numbers(path, split_lines(head.decode("utf-8", errors="replace"))):
            return True  # loss.txt: one value a line; numbers under a header naming a loss
        if _progress_or_crash(head, patterns):
            return not _json_lines(head)
        # a .txt is never claimed by name: train.txt is often a dataset
        if suffix in _CONSOLE_SUFFIXES or _GLOG_NAME.search(path.name):
            return not _table_like(head.decode("utf-8", errors="replace"))
        if suffix in (".txt", "") and len(head) >= 8192:  # a long banner, or a text that is no log
            return _progress_further(path, patterns)
        return False

    def read(self, path: Path, options: ReadOptions | None = None) -> Run:
        from ...safeio import bounded_bytes

        data, long = bounded_bytes(path)  # long lines cut out (reported below)
        blocks: list[tuple[int, int]] = []
        if not data.startswith(UTF16_BOMS) and utf16_codec(data) is None and b"\x00" in data:
            cleaned = nul_blocks(data)  # text padded with NULs by a crash: the text around them
            if cleaned is None and looks_binary(data):  # as the sniffer decides
                raise ReadError("binary content (NUL bytes), not a console log")  # a file named explicitly
            data, blocks = cleaned if cleaned is not None else (data, [])
        text, notes = decode_text(data)  # UTF-16 (PowerShell's ">") named in a note
        del data
        return read_console_text(path, text, notes + nul_block_notes(blocks), long, options)


def read_console_text(
    path: Path,
    text: str,
    notes: list[str],
    long: list[tuple[str, str, dict[str, Any]]],
    options: ReadOptions | None = None,
    run_starts: Sequence[int] = (),
) -> Run:
    """The Run of console text printed by a training script (a console log's, or a notebook's
    outputs): ``notes`` and ``long`` (damage: over-long lines cut out) come from reading it;
    ``run_starts`` are the lines where a new run is known to begin (a notebook's cells)."""
    from ...safeio import TextRead, add_damage

    text = strip_ansi(text)
    lines = split_lines(text, run_starts)
    holds = Needles(text)
    bare = bare_numbers(path, lines)
    caps = [bare] if bare else _recognise_progress(unframe(lines), holds, options.patterns if options else ())
    best = caps[0] if caps else None
    last_progress = max(best.lines) if best else 0
    events = find_crashes(lines, last_progress, holds) + (skipped_non_finite(lines, holds) if best else [])
    del text, holds  # the log's text (holds keeps it too): not needed for the Run
    if best is None and not events:
        raise ReadError("no known training-progress lines found")
    run = Run(
        source=str(path),
        format="console" + (f"/{best.framework}" if best else ""),
        files=[str(path)],
        notes=notes,
        events=events,
        meta={"crash_scanned": True} | ({"skips_scanned": True} if best else {}),
    )
    add_damage(run, TextRead("", [], long))
    if best is not None:
        _fill(run, best, caps[1:], {line.no: line.run for line in lines} if run_starts else {})
    else:
        run.notes.append(
            "no training-progress lines found; the log records "
            + "; ".join(f"{e['signature']} at line {e['line']}: {e['text'][:80]}" for e in events)
        )
    _completion(run, lines, last_progress)
    _keras_fit_returned_early(run, lines, last_progress)
    return run


# A line that announces a checkpoint loaded back, or a checkpoint tag then the save or the load
# (Akash05-kr/skin_lesion_classifier's training.log: ``[Checkpoint] Saved → ..best_model.pth  (epoch=1,
# val_acc=60.9)`` after each improvement, ``[Checkpoint] Loaded ← ..best_model.pth  (epoch=20, val_loss=1.05)``
# at a resume and before the test, the tag stripped with the logging frame; ``Loaded checkpoint (epoch 20,
# loss 0.93)``, ``Saving to ckpt/best.pt (val_loss 0.4)``): the values it prints are the
# checkpoint's, printed again, not an evaluation (its ``val_loss`` was once the run's eval loss, 3 points
# beside the 35 of the epoch lines' ``ValLoss``).
_LOAD_NOTICE = (
    r"\[\s*(?:checkpoint|ckpt)\s*\]\s*(?:sav(?:ed|ing)|load(?:ed|ing)|restor(?:ed|ing))\b"
    r"|(?:load(?:ed|ing)|restor(?:ed|ing))\s+(?:the\s+|a\s+)?(?:best\s+)?(?:model|checkpoint|ckpt|weights?)\b"
    r"|(?:best\s+)?(?:model|checkpoint|ckpt|weights?)\s+(?:(?:is|was|has\s+been)\s+)?(?:loaded|restored)\b"
    # the verb, then the checkpoint's file (the tag gone with the logging frame)
    r"|(?:sav(?:ed|ing)|load(?:ed|ing)|restor(?:ed|ing))\s*(?:→|←|->|<-|to\b|from\b|:)?[^()\n]{0,300}?"
    r"\.(?:pth|pt|ckpt|h5|hdf5|keras|bin|safetensors|pkl)\b"
)


# A line that announces a saved model before any value (``Saved model at epoch 3 with loss 0.41``,
# ``Epoch 3: best model saved with loss: 0.41``, ``[CHECKPOINT] Saved model ...``, ``==> Saving
# checkpoint ... (val_loss 0.4)``, EasonLi292/Z-GED's ``  -> Saved best (loss: 0.2407)``, ``New best
# checkpoint (loss 0.4)``): the loss it names is the one the checkpoint was chosen on (mostly the
# validation loss, or the best so far), printed again; it is no progress record. A progress line that
# ends by saying it saved (``Epoch 3 loss 0.5 ... saving model``) is kept. Matched on the line as
# printed and on the line without its logging frame (time and level; a logger's name is let by).
_SAVE_NOTICE = lazy_regex(
    r"(?i)^\W*(?:\[[^\]]{0,30}\]\s*)?(?:[a-z_][\w.]{0,40}:\s+)?(?:epoch\s*\d+\s*[:,|\-]?\s*)?(?:"
    r"(?:a\s+|the\s+)?(?:new\s+)?(?:best\s+)?(?:model|checkpoint|ckpt|weights?)\s+(?:(?:is|was|has\s+been)\s+)?"
    r"sav(?:ed|ing)\b|sav(?:ed|ing)\s+(?:the\s+|a\s+)?(?:new\s+)?(?:best\s+)?(?:model|checkpoint|ckpt|weights?)\b"
    r"|(?:new\s+)?best\b[^\d:=]{0,40}?\b(?:sav(?:e|ed|ing)|checkpoint)\b|sav(?:e|ed|ing)\b[^\d:=]{0,40}?\bbest\b"
    # a new best evaluation value announced (glue-factory's ``New best val: loss/total=0.488``, after it saved)
    r"|new\s+best\s+(?:val|valid|validation|eval|evaluation|test|dev)\b"
    # a new best value, then the save (Ba-aH/HGNN's ``✓ New best MRR=0.4823 — checkpoint saved``)
    r"|new\s+best\b.{0,60}?\b(?:(?:checkpoint|ckpt|model|weights?)\s+sav(?:ed|ing)"
    r"|sav(?:ed|ing)\s+(?:the\s+)?(?:checkpoint|ckpt|model|weights?))\b"
    # a checkpoint loaded back (:data:`_LOAD_NOTICE`)
    r"|%s)" % _LOAD_NOTICE
)
# the words a log must hold for :func:`_save_notice` to be tried (the last six: a checkpoint loaded back)
_SAVE_WORDS = (
    *("sav", "Sav", "SAV", "checkpoint", "Checkpoint", "CHECKPOINT", "New best", "new best", "NEW BEST"),
    *("load", "Load", "LOAD", "restor", "Restor", "RESTOR"),
)


def _save_notice(line: Line) -> bool:
    if len(line.segments) != 1:
        return False
    text = line.segments[0]
    if _SAVE_NOTICE.match(text.lstrip()) is not None:
        return True
    low = text.lower()  # the frame stripped only where the line names a save at all
    named = "sav" in low or "checkpoint" in low or "new best" in low or "load" in low or "restor" in low
    return named and _SAVE_NOTICE.match(strip_frame(text).lstrip()) is not None


def _recognise_progress(lines: list[Line], holds: Needles, patterns: Iterable[str | LinePattern]) -> list[Capture]:
    """:func:`recognise` on the lines without those that announce a saved model (:data:`_SAVE_NOTICE`);
    on every line where that leaves nothing read."""
    if any(word in holds for word in _SAVE_WORDS):
        notice = [_save_notice(ln) for ln in lines]
        dropped = [ln for ln, drop in zip(lines, notice) if drop]
        caps = recognise([ln for ln, drop in zip(lines, notice) if not drop], holds, patterns) if dropped else []
        if caps:
            caps[0].notes.append(
                f"{len(dropped)} line(s) announcing a saved model (e.g. line {dropped[0].no}: "
                f"{dropped[0].segments[0].strip()[:80]}) not read as progress: the value they print is "
                "the one the checkpoint was chosen on"
            )
            return caps
    return recognise(lines, holds, patterns)


def _fill(run: Run, best: Capture, others: list[Capture], runs: dict[int, int]) -> None:
    for name, (steps, values) in best.cols.items():
        run.add(name, steps, values)
    run.meta.update({k: v for k, v in best.meta.items() if v is not None})
    run.meta["recogniser"] = best.framework
    run.meta["lines_matched"] = len(best.lines)
    steps = [s for col in best.cols.values() for s in col[0]]
    if steps:
        run.meta.setdefault("last_step", max(steps))
    run.notes.append(
        f"read as {best.framework} console output ({len(best.lines)} line(s) matched, first at line {best.lines[0]})"
    )
    run.notes.extend(best.notes)
    _step_resets(run, best, runs)
    also = [f"{c.framework} ({c.records})" for c in others if c.framework != best.framework]
    if also:
        run.notes.append("lines of other shapes not used: " + ", ".join(also))


def _step_resets(run: Run, best: Capture, runs: dict[int, int]) -> None:
    """Where the step count falls back (a relaunch or resume writing into the same log), read on
    the loss or, where no name says loss, on the first objective term the loss is made of; ``runs``
    gives a line's known run (:attr:`Line.run`: a notebook's cell), where the count may start again."""
    objective = str(best.meta.get("objective") or "").split("+")[0]
    name = next((n for n in best.cols if "loss" in n.lower()), objective if objective in best.cols else None)
    if name is None:
        return
    steps = best.cols[name][0]
    at = [i for i in range(1, len(steps)) if steps[i] < steps[i - 1]]
    resets = [(steps[i - 1], steps[i]) for i in at]
    lines = best.lines if len(best.lines) == len(steps) else []
    cells = sum(1 for i in at if lines and runs.get(lines[i - 1], 0) != runs.get(lines[i], 0))
    if cells:
        run.notes.append(
            f"the step count starts again where {cells} later notebook cell(s) begin: each such cell "
            "trained a run of its own, judged apart"
        )
    if resets and len(resets) - cells >= max(10, 0.1 * len(steps)):
        run.meta["step_resets"] = [{"from": a, "to": b} for a, b in resets[:20]]
        run.notes.append(
            f"the step count falls back {len(resets)} times: several processes appear to write to "
            "this log at once (interleaved lines)"
        )
        return
    if resets:
        run.meta["step_resets"] = [{"from": a, "to": b} for a, b in resets[:20]]
        run.notes.append(
            f"the step count falls back {len(resets)} time(s) (first from {resets[0][0]:.0f} to "
            f"{resets[0][1]:.0f}): a relaunch or resume into the same log; series keep the order written"
        )


# Keras fit() stopped short of its ``Epoch k/N`` plan, and the script went on printing after it (its
# own summary, the model saved): fit() returned, and before its epochs are done it returns only when
# a callback set stop_training (EarlyStopping with verbose=0 says nothing). Dasperin/Crack-Detection-
# outputs/train.log: "Epoch 10/40" last, then "[train] saved training curves ..." and the metrics.
# A log that stops at the last epoch, goes on into an epoch it never ends, or ends in a traceback or
# another crash signature after the last epoch is left as it was: that run may have been stopped.
def _keras_fit_returned_early(run: Run, lines: list[Line], last_progress: int) -> None:
    meta = run.meta
    planned, last = meta.get("planned_epochs"), meta.get("last_epoch")
    if run.format != "console/keras" or meta.get("completed") or not isinstance(planned, int):
        return
    loss = run.series.get("loss")
    end = meta.get("last_epoch_step", last)  # the last epoch's end; a bar read at each redraw: its batches
    if loss is None or not len(loss) or not isinstance(last, int) or float(loss.steps[-1]) != end:
        return  # the last epoch header has no epoch-final line: the log ends inside that epoch
    if last >= planned or any(ev["line"] > last_progress for ev in run.events):
        return
    after = [line for line in lines if line.no > last_progress and line.final.strip()]
    if not after or any("Traceback" in line.final for line in after):
        return
    meta["completed"] = True
    run.notes.append(
        f"fit() stopped at epoch {last} of {planned} and the script went on after it (line {after[0].no}: "
        f"{after[0].final.strip()[:80]}): fit() returned, so a callback (such as EarlyStopping) ended the "
        "training; read as a completed run"
    )


def _completion(run: Run, lines: list[Line], last_progress: int) -> None:
    """Mark a normal end, and crashes printed after it (teardown noise rather than a failed run)."""
    end = last_progress if run.meta.get("completed") else None
    marks = [line.no for line in lines[-200:] if _COMPLETED.search(line.final) or "{'train_runtime'" in line.final]
    if marks:
        run.meta["completed"] = True
        # training lines after the last record (a next stage): the crash is not after the training's end
        end = marks[-1] if marks[-1] >= last_progress else None
    if end is None:
        return
    for ev in run.events:
        if ev["line"] > end:
            ev["after_end"] = True
