"""The general line reader: the fallback after the specific console recognisers.

A training script's console line is a frame (a timestamp, a level, a logger or file name,
``|`` and ``[...]`` decorations, a tqdm or rich render the line was printed after) around
``name SEP value`` pairs (``loss: 0.5``, ``lr=1e-3``, ``Loss 12.66 (12.39)``, ``acc 95%``)
and counters (``[3/50]``, ``Epoch: [0][10/250]``, ``i=1/530``, ``EPOCH 2 of 30``, or an
``Epoch: 01`` header on a line of its own). This module strips the frame, reads the pairs
and counters, and groups the lines by their *shape* (the set of names they carry):

- the training stream is every record holding the most repeated loss that is not an
  evaluation loss; its step comes from the counters (a step, or an epoch and the count inside
  it), or from the order of the records when the counters do not tell a step apart;
- evaluation streams are repeated shapes whose losses are all evaluation or test losses,
  placed at the training step they were printed after;
- every other shape is listed in the notes, with up to three sample lines: nothing is
  dropped without a word.

A name must repeat (:data:`MIN_REPEAT` records) to count: a config dump of ``name: number``
pairs, each name printed once, never becomes a run.
"""

from __future__ import annotations

import re
from bisect import bisect_right

import msgspec

from ...role_structure import EVAL_WORDS, TEST_WORDS, TRAIN_WORDS, parse, split_named, words_of
from ...roles import role_of
from .glossary import english
from .objectives import Objective, bare_actor, compound_tail, evaluated, founds, objective, training_error
from .text import NUM, Capture, Line, dict_pairs, distinct_segments, lazy_regex, norm_bars, unread_lr, unwrap_values

MIN_REPEAT = 3  # records a loss must appear in before it is taken as a stream
MAX_NAMES = 100  # a line with more pairs than this is a dump, not a progress line (verl prints 50-90 a step)
MAX_LINE = 4000  # characters of a line looked at
_LEVEL = r"(?:INFO|INFORMATION|WARNING|WARN|DEBUG|ERROR|CRITICAL|TRACE|NOTICE|FATAL)"
# What frames a line at its start; stripped again and again until nothing more goes.
_FRAME = lazy_regex(
    r"^\s*(?:"
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[ T_]\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
    r"|\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?"
    r"|(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])(?:/\d{2,4})?(?=\s)"  # a date (not a count: "5/50 (epoch 1)")
    rf"|{_LEVEL}\b(?::[\w.<>\-]+:(?!\s*\d))?"
    r"|[IWEF]\d{4} \d{1,2}:\d{2}:\d{2}(?:\.\d+)? +\d+ [\w.\-]+:\d+\]"  # absl: I0101 10:00:00.1 140 f.py:48]
    r"|[IWEF]\d{4}\b"  # glog / absl: I0101
    r"|[IWEF] [\w./\-]+\.\w+:\d+\]"  # TensorFlow's C++ logging after its time: I tensorflow/core/x.cc:182]
    r"|\[(?!\s*\d+\s*(?:(?:,|\s+:|:\s)\s*\d+\s*)?\])(?!\s*(?:[A-Za-z_]+\s*[=:]?\s*)?\d+\s*/\s*\d+\s*\])"  # not a counter:
    r"(?!\s*(?i:epoch|ep|e|step|iter|iteration|global_step)s?\s*[=:#]?\s*\d+\s*\])[^\]\[]{0,100}\]"  # nor [epoch 001], [E1]
    r"|\((?:[\w.\-]+\.py)[:\s]?\d*\)"  # (main.py 200)
    r"|\([\w.\-]+ pid=\d+(?:, ip=[\d.]+)?\)"  # Ray's worker prefix: (main_task pid=2105103), (RayTrainWorker pid=7, ip=10.0.0.2)
    r"|[\w.\-]+\.py(?::\d+|\[\w*:?\d+\])?(?::\d+)?"  # train.py:120
    # a logger name before " - INFO", with its location in MindFormers' frame: mindformers[trainer/utils.py:171]
    r"|[\w.<>]+(?:\[[\w./\-]+:\d+\])?(?=\s+-\s+" + _LEVEL + r"\b)"
    # loguru's location before " - ": module:function:line, or a dotted module (or __main__) and its line
    r"|(?:[A-Za-z_<][\w.<>\-]*:[A-Za-z_<][\w.<>\-]*|[A-Za-z_<][\w<>\-]*\.[\w.<>\-]+|__main__):\d+(?=\s+-\s)"
    r"|[-|:>#*=~]+(?=\s|$)"
    r")\s*"
)
# tqdm and rich renders: what a line printed after a bar carries in front of it.
_BAR = lazy_regex(
    r"(?:[\w\s]*:\s*)?\d{1,3}%\|[^|]*\|\s*\d+/\d+\s*\[[^\]]*\]"
    r"|[━╸╺╾╼─]{3,}[\s\d/]*(?:\d+:\d+:\d+|\d+:\d+)?(?:\s*[\d.]+\s*\S+/s)?"
)
# Counters: Epoch: [0][10/250], Train: [1/50], i=1/530, EPOCH 2 of 30, [step=1/739328], epoch 3:. Never
# the end of a longer a/b/c (a self-play loop's wins/losses/draws ``w=4/6/0``).
_COUNTER = lazy_regex(
    r"(?:(?<![\w@/.])([A-Za-z][A-Za-z_]*)\s*[:=#]?\s*\"?)?"  # a printed dict's quoted "1/196" too
    # (a memory unit glued to the total, PySlowFast's "RAM": "10/200G", makes it a size, no count)
    r"((?:\[\s*\d+\s*\])*)\[?\s*(?<![\d/])(\d+)\s*(?:/|\bof\b)\s*(\d+)(?![KMGT]i?B?\b)\s*\]?(?![\d.%/])"
    r"|(?<![\w@/.])([A-Za-z][A-Za-z_]*)\s*[:=#]?\s*\[\s*(\d+)\s*\](?!\s*\[)"
    # "epoch 3: ...", "step 100: ...", and with a number sign, "Step #100: ..." (TensorFlow's speech_commands
    # train.py and the scripts built on it, purice93/ML-KWS-for-MCU: "Step #0: rate .., cross entropy ..")
    r"|(?<![\w@/.])([A-Za-z][A-Za-z_]*)(?:\s+#?|\s*#)(\d+)\s*:(?![\d/])"
    r"|(?<![\w@/.])([A-Za-z][A-Za-z_]*)\s*[:=#]?\s*\[\s*(\d+)\s*\]\[\s*(\d+)\s*\](?!\s*[\[/\d])"  # "Epoch: [3][50]"
)
# Names whose ``N/M`` is a score (the correct answers of a test set: pytorch/examples' MNIST prints
# ``Test set: Average loss: 0.0452, Accuracy: 9860/10000 (99%)``), never a counter: read as N / M.
_SCORE_COUNTS = frozenset({"accuracy", "acc", "correct"})
# A value ends where a word, a path or a time's next field (``0:01:23``) would go on; a colon
# closing it (``loss:675.150940: ``, a print's "name: value:" habit) does not, nor a full stop
# that ends the sentence (``Mean training loss: 4.6548.``, the ST-GCN family's print_log). Between
# a name and its value: a colon, an equals sign, an arrow (``loss -> 0.35``) or a space. A name's
# words are never a value before them (``train_Loss nan val_acc 0.1``: the nan is train_Loss's).
_PAIR = lazy_regex(
    # a name starts after a space or a lone dash ("- Parent: 6.4 -Autoencoder Loss: 386"), not inside
    # a hyphenated name (lr-Adam) nor after an option's dashes (--lr), nor inside a path: a Windows
    # path's backslash too (LivingW123/SAS-Analysis-Laser: ``C:\...\export\tf2onnx_lib.py:8:
    # FutureWarning``, python's warning on Windows, is no pair ``tf2onnx_lib.py: 8``)
    r"(?<![\w@/.\\])(?<![\w@/.\-\\]-)"
    r"((?:(?!(?:nan|NaN|NAN|inf|Inf|INF)\s)[A-Za-z][\w@/.\-]*\s){0,2}[A-Za-z][\w@/.\-]*|[A-Za-z][\w@/.\-]*)"
    r"(\s*(?:[:=]|->)\s*|\s+)"
    # (a value may end in an ellipsis: Udacity's "Epoch: 1/20... Step: 10... Loss: 3.2049... Val Loss: 3.19")
    r"(\d{1,3}(?:,\d{3})+(?![\d.,])|%s)(ms|s|%%|MB|GB|it/s|s/it)?(?![\w/]|\.(?!\.+(?:\s|$))[\w./]|:\S)(?:\s*\(\s*(?:%s)\s*\))?"
    % (NUM, NUM)
)
# What every _PAIR match holds (a name's last character, its separator, a value's start): a line
# without it has no pair.
_PAIR_HINT = lazy_regex(r"[\w@/.\-](?:\s*(?:[:=]|->)\s*|\s+)[-+]?(?:\d|\.\d|nan|NaN|NAN|inf|Inf|INF)")
_STEP_NAMES = frozenset({"step", "steps", "iter", "iters", "iteration", "it", "global_step", "update", "num_updates"})
_EPOCH_NAMES = frozenset({"epoch", "ep", "epochs", "episode", "episodes"})
_INNER_NAMES = frozenset({"i", "batch", "idx", "b", "batch_id", "batch_idx", "batch_index"})
_COUNTER_NAMES = _EPOCH_NAMES | _STEP_NAMES
_PLACED_NAMES = _COUNTER_NAMES | _INNER_NAMES
# What every _COUNTER match holds (a digit before "/" or "of", a "[", a digit before ":"): a line
# without it has no counter, and the expression is not tried at each of its positions.
_COUNTER_HINT = lazy_regex(r"\d\s*(?:/|of)|\[|\d\s*:")
_EPOCH_DONE = lazy_regex(
    r"(?i)\bepoch\W{0,3}\d+(?:\s*/\s*\d+)?\W{0,3}(?:done|finished|completed?|ended|summary)\b|\bend of epoch\b"
)
# the evaluation split words the roles know (role_structure.EVAL_WORDS: "cv", "heldout", ..) and "test"
_EVAL_WORDS = EVAL_WORDS | {"test"}
# A bracketed frame that names a split and a count (``[ Train | 001/100 ] loss = 1.79``, the ML2021/2022
# course homework template's epoch lines): the split and the count, not a decoration.
_SPLIT_FRAME = lazy_regex(r"^\[\s*([A-Za-z]+)\s*[|:,]\s*(\d+\s*/\s*\d+)\s*\]$")
_TABLE_ROW = lazy_regex(r"^([A-Za-z][\w/.\-]*)\s*\|\s*(%s)\s*\|?\s*$" % NUM)
_SUMMED = lazy_regex(r"(?<![\w@/.\-])([A-Za-z][\w]*)==\[(%s)=[^\]]{0,200}\]" % NUM)
# "1       train loss=0.308        train acc=0.832  valid loss=2.737" (BehnamB94/Fingerprint-Matching's
# results/log.txt): a whole number leading the line, then a name and "=" or ":" and a value: its counter.
_LEAD_COUNT = lazy_regex(r"^(\d{1,7})\s+(?=[A-Za-z][A-Za-z_ ]{0,30}?\s*[:=]\s*[-+]?\.?\d)")
# "[0 :    100] loss G : .." (pytorch_GAN_zoo's progressive GANs, AIforMS/PGAN-Paddle): a phase (the scale)
# and the count in it, written with a spaced colon (a clock's "[12:30]" has none): read as "[1,  2000]".
_LEAD_STEP = lazy_regex(r"^\[(\d+)(?:(?:,|\s+:|:\s)\s*(\d+))?\]\s+(?=[A-Za-z])")
# "loss: (3, 0.5274)": a printed (step, value) tuple after its name (losses.append((epoch, loss)) written out).
_STEP_TUPLE = lazy_regex(r"^([A-Za-z][\w ]{0,40}?)\s*[:=]\s*\(\s*(\d+)\s*,\s*(%s)\s*\)\s*$" % NUM)
# "[E1] step 10 loss 0.53", "[Ep 3] ...", "[Epoch: 05] Train acc: ..": an epoch in brackets (its name
# maybe cut short to E or Ep).
_LEAD_EPOCH = lazy_regex(r"^\[\s*(?i:ep(?:och)?|e)\s*[:=#]?\s*(\d+)\s*\]\s*(?=[A-Za-z])")
# "Batch   10. loss: 2.302610 [ 1280/60000]": a batch counter leading the line (the PyTorch quickstart's
# print with the batch in front): the count in the epoch, the bracket after it the samples seen.
_LEAD_BATCH = lazy_regex(r"^(?i:batch)(?:[_ ]?(?i:idx|id|index))?\s*[:#=]?\s*(\d+)\s*[.:,|\-]\s*(?=[A-Za-z])")
_SPLIT_WORDS = _EVAL_WORDS | {"train", "training"}
# Words that say where a counter is ("after epoch: 5", "current step: 100"): the counter still.
_AT_WORDS = frozenset({"after", "current", "cur"})
# "Epoch 3 Val, loss: 0.5", "Step 100 Train - loss: 0.7": a split word alone after the leading counter
# names the split of every value on the line (a value right after it, ``Epoch 3 train: 0.7``, is a loss).
_COUNTED_SPLIT = lazy_regex(
    r"^(?:epoch|ep|step|iter(?:ation)?|global_step)\s*[:=#]?\s*\[?\s*\d+(?:\s*/\s*\d+)?\s*\]?\s*[,:|\-]?\s*"
    # the split word, then a separator or the count it is at ("epoch:[ 1/25 ] val step:0 loss: ..", PaddleVideo),
    # or the spaces that pad it to a column ("Epok 1 train    Kayıp: 0.02", "Epok 1 val      Kayıp: 0.03")
    r"([A-Za-z]+)(?:\s*[,;:|\-]\s*(?=[A-Za-z])|\s+(?=(step|iter(?:ation)?|batch)\s*[:=#]?\s*\d)|\s{2,}(?=[A-Za-z]))",
    re.IGNORECASE,
)
_LEAD_SPLIT = lazy_regex(r"^([A-Za-z]+)\b")
# "train: 12 @ epoch:0/160 loss: 28.6 ...": the split, then its step counter, then "@" and where that
# count is (voxelnet's "{split}: {counter} @ epoch:{e}/{E}"): the whole number is the step, no metric.
_SPLIT_STEP_AT = lazy_regex(r"^([A-Za-z]+)\s*[:=]?\s*(\d{1,9})\s*@\s*(?=[A-Za-z])")
# What may come before a bare split's pair: no word, or an epoch or step counter's
# ("Epoch   1 | train=0.000693 | val=0.000453").
_ONLY_COUNTER = lazy_regex(
    r"(?i)^[^A-Za-z]*(?:(?:epoch|ep|step|iter(?:ation)?)\s*[:=#]?\s*\d+(?:\s*/\s*\d+)?)?[^A-Za-z]*$"
)
# A run's tag framed by a bar before the counter ("with_depth | Epoch 1/40 - train: 14.46  val: 9.71",
# two configurations trained in one log): a frame too, where the line's counter was read (a tag
# without a counter is a name: "Accuracy | train: 0.98").
_TAG_THEN_COUNTER = lazy_regex(r"^[^A-Za-z]*[A-Za-z][\w.\-]*\s*\|[^A-Za-z]*$")
_THOUSANDS = lazy_regex(r"\s*\d{1,3}(?:,\d{3})+(?![\d.])")
# a whole number, no decimals ("TRAIN:108000", "VALID:200": the sizes of the splits a script prints once)
_WHOLE = lazy_regex(r"\s*\d+(?![\d.,eE])")
# "Eval: 0.0003 s / iter": a split word's value in seconds is the time that split took (detectron2's evaluator)
_TIMED = lazy_regex(r"\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*(?:s|ms|sec|secs|seconds)\b")
# "avg loss so far is 0.024", "Loss at epoch 0 and iteration 500 is 0.21": a clause that says its value.
_IS_CLAUSE = lazy_regex(r"^\s*([A-Za-z][\w ]{0,80}?)\s+(?:is|was)\s*:?\s+(%s)\s*\.?\s*$" % NUM)
_CONTEXT = lazy_regex(r"\s(?:at|for|in|on|after)\s")
# "loss at epoch 3: 0.41", "Loss after step 100: 2.3": a name placed by the counter after it.
_PLACED_BY = lazy_regex(r"(?<=[A-Za-z])\s+(?:at|after|for|in)\s+$")
_IS_ONE = lazy_regex(r"\s*[A-Za-z][\w ]{0,80}?\s+(?:is|was)\s*:?\s+%s(?=\s|$)" % NUM)
# "Training Loss (avg over last 100): 0.18": what is said of a name between it and its separator, or
# between it and the counter that places it (the Keras guide's "Training loss (for one batch) at step 200: 0.6").
_ASIDE = lazy_regex(r"\s*\([^()]{1,40}\)(?=\s*[:=]|\s+(?:at|after)\s+[A-Za-z]+\s*\d+\s*[:=])")


def _aside(m: re.Match[str]) -> str:
    """What an aside leaves of itself: an evaluation split's word alone (``Loss(val): 6.49`` beside
    ``Loss(train): 6.55``) names that split's value, ``Loss_val``; any other aside goes."""
    word = m[0].strip()[1:-1].strip()
    return f"_{word}" if word.lower() in _EVAL_WORDS else ""


# A unit of time written after a value (``cost 0.884 seconds``): the value is a duration.
# (a range before the unit is one too: "Start fit, it may cost 1-30 minutes...", AD-39/icon_classify's log)
_DURATION = lazy_regex(r"(?:[-~]\d+(?:\.\d+)?)?\s*(?:s|secs?|seconds?|ms|minutes?|hours?)\b")
# Words that are never a metric's name: ``of``, ``in``; ``over`` (icefall's MetricsTracker: ``loss=0.2, over
# 3287.00 frames.``, the frames the values were averaged over), ``is`` / ``was`` (a clause whose value
# has a unit glued to it: icefall's ``Maximum memory allocated so far is 23456MB``) and ``for`` /
# ``after`` before a count (TensorFlow tutorials' ``Time taken for 1 epoch 658.7 sec``, ``stop after 28 epochs``).
_NOT_METRICS = frozenset(
    {
        "eta",
        "rank",
        "pid",
        "seed",
        "v_num",
        "gpu",
        "device",
        "worker",
        "local_rank",
        "of",
        "in",
        "over",
        "is",
        "was",
        "for",
        "after",
    }
)


class Record(msgspec.Struct):
    """One progress record: its first line, the values read, and where it lies."""

    line: int
    text: str
    values: dict[str, float]
    step: float | None = None  # a step or iteration counter
    epoch: float | None = None
    inner: tuple[float, float] | None = None  # (i, n): the count inside the epoch
    step_total: float = 0.0  # the M of a step counter printed as N/M
    epoch_total: float = 0.0  # the M of an epoch counter printed as N/M (``Episode 10/10``)
    split: str = ""  # "Test", "Val", ...: the word that marks an evaluation line (``Test: [10/242]``)
    bare: bool = False  # ``inner`` is a count printed with no name (``[3/50]``): an epoch if a count follows
    listed: bool = False  # a loss was the first of a list of values after its name (``d_loss [0.69, 0.5]``)
    unnamed: bool = False  # a bare number under an epoch's header or after a tqdm bar (:func:`_unnamed`)
    run: int = 0  # the known run its line is in (:attr:`Line.run`: a notebook's cell that trains anew)


def strip_frame(text: str) -> str:
    """The line without its leading timestamps, levels, logger names and decorations, and
    without a tqdm or rich render it was printed after (a ``[Val]`` frame stays: it says what
    the line is)."""
    text = text[:MAX_LINE]
    if "|" in text or "━" in text:
        ends = [bar.end() for bar in _BAR.finditer(text)]
        if ends:
            text = text[ends[-1] :]
    for _ in range(12):
        m = _FRAME.match(text)
        if m is None or not m.group(0):
            break
        if m.group(0).strip().strip("[]").strip().lower() in _EVAL_WORDS:
            return text[m.start() :].strip().replace("[", "", 1).replace("]", ":", 1)
        if (tagged := _tagged_split(m.group(0))) is not None:  # "[Diff-Val(Test-Normal)] Epoch 001: loss = .."
            return f"{tagged}: {text[m.end() :].strip()}"
        split = _SPLIT_FRAME.match(m.group(0).strip())
        if split is not None and split[1].lower() in _SPLIT_WORDS:  # "[ Valid | 001/100 ]": its split and count stay
            said = f"{split[1]}: " if split[1].lower() in _EVAL_WORDS else ""
            return f"{said}{split[2]} {text[m.end() :]}".strip()
        if _COUNTED_FRAME.match(m.group(0)):  # "[ep 0 step 20 t= 43s vram= 5904MB] L=..": its counters stay
            return f"{_SHORT_EPOCH.sub('epoch', m.group(0).strip()[1:-1])} {text[m.end() :]}".strip()
        if _whole_record(m.group(0), text[m.end() :]):  # "[ (0 ) Loss:  0.382, valid_Loss: 0.361]"
            return m.group(0).strip()[1:-1].strip()
        text = text[m.end() :]
        if text[:2] in (", ", "; "):  # "[fold 0], Val Step 0, ..": the frame's separator goes with it
            text = text[2:]
    return text.strip()


def _whole_record(frame: str, rest: str) -> bool:
    """Whether a bracketed frame is the whole line and holds named values: a record printed in
    brackets (0x13enny/MalConv's ``[ (0 ) Loss:  0.382, train_Acc: 0.948, valid_Loss: 0.361]``), not
    a logger's tag before the record; its brackets go, its pairs stay."""
    inner = frame.strip()
    return not rest.strip() and inner[:1] == "[" and inner[-1:] == "]" and _PAIR_HINT.search(inner) is not None


# A bracketed frame that opens with an epoch and a step counter (``[ep 0 step 20 t= 43s ...]``): the counters a
# record is placed by, not a logger's tag.
# (the epoch's name may be cut to one letter: glue-factory's ``[E 0 | it 100]``, read as ``epoch 0 | it 100``)
_COUNTED_FRAME = lazy_regex(
    r"^\s*\[\s*(?i:epoch|ep|e)\s*[=:#]?\s*\d+\s*[,|]?\s*(?i:step|iter|iteration|it|global_step)\s*[=:#]?\s*\d+\b"
)
_SHORT_EPOCH = lazy_regex(r"^\s*[Ee](?=\s*[=:#]?\s*\d)")


# The words of a bracketed tag (``[Diff-Val(Test-Normal)]``): split at hyphens, parentheses, spaces and
# underscores; a tag with a dot, colon or digit is a logger's or a file's name, not a phase.
_TAG_WORDS = lazy_regex(r"[-()\s_/]+")


def _tagged_split(frame: str) -> str | None:
    """The evaluation word of a bracketed phase tag whose words hold a capitalised evaluation word and no
    training word (``[Diff-Val(Test-Normal)]``, ``[Val-Clean]``), else None: a lowercase word is a module's."""
    inner = frame.strip()
    if not (inner.startswith("[") and inner.endswith("]")) or any(c in inner for c in ".:0123456789"):
        return None
    words = [w for w in _TAG_WORDS.split(inner[1:-1]) if w]
    if any(w.lower() in ("train", "training") for w in words):
        return None
    said = [w for w in words if w[:1].isupper() and w.lower() in _EVAL_WORDS]
    return said[0] if said and len(words) > 1 else None


def _name(raw: str, sep: str) -> str:
    words = raw.split()
    if "/" in words[-1]:  # a metric path is a whole name ("Train loss/train/total": a prefix, then the name)
        words = words[-1:]
    if not sep.strip():  # "Loss 12.6": the name is one word, with the split word before it ("valid loss 5.2")
        # (or the words of one term written apart, "cross entropy 2.51": purice93/ML-KWS-for-MCU's tensorflow.log)
        n = compound_tail(words)
        words = words[-n - 1 :] if len(words) > n and words[-n - 1].lower() in _SPLIT_WORDS else words[-n:]
    return "_".join(words).rstrip(".:-")


# A value glued to the split word of the next name, a print that joins its parts without a space
# (``"Val Pi loss:" + str(pi) + "Val V loss:" + str(v)``: ``loss:0.8156Val V loss:0.6376``): a space
# goes between them, or the split word is lost and the second value read as a training one.
_GLUED_SPLIT = lazy_regex(
    r"((?:^|[\s:=])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"(?=(?:Train|Training|Val|Valid|Validation|Test|Eval)(?:[\s_]|(?=[A-Z][a-z])))"
)
_SPLIT_NAMES = ("Train", "Val", "Test", "Eval")  # a word :data:`_GLUED_SPLIT` needs: most lines hold none


# A split word closed by a full stop before the counter (``[RESULT]: VAL. Epoch: 0, summary_loss: 0.73``):
# the stop goes, or ``VAL._Epoch`` is read as a metric and the line's split and epoch are lost.
_STOPPED_SPLIT = lazy_regex(r"(?i)\b(train|training|val|valid|validation|test|eval)\.\s+(?=(?:epoch|step|iter)\b)")


def _split_unglued(text: str) -> str:
    """``text`` with a space between a value and the split word glued to it (:data:`_GLUED_SPLIT`), and
    without the full stop after a split word before its counter (:data:`_STOPPED_SPLIT`)."""
    if ". " in text:
        text = _STOPPED_SPLIT.sub(r"\1 ", text)
    if not any(word in text for word in _SPLIT_NAMES):
        return text
    return _GLUED_SPLIT.sub(r"\1 ", text)


# A Python traceback's frame line (``File "train.py", line 212, in main``): never a metric line.
_FRAME_LINE = re.compile(r'^\s*File "[^"]*", line \d+')
# A counter between rules glued to it (``-----Iteration: 1000-----``, a PINN script's banner over the
# losses printed under it): the counter alone, a header the lines after it take.
_RULED_COUNTER = lazy_regex(
    r"(?i)^\s*[=\-*#~]{3,}\s*((?:epoch|ep|step|iter(?:ation)?)\s*[:#=]?\s*\d+(?:\s*/\s*\d+)?)\s*[=\-*#~]{3,}\s*$"
)


# A configuration's repr printed whole: yacs' ``CfgNode({'SOLVER': CfgNode({'BASE_LR': 0.1, ..})})``
# after "Train with config:" (PySlowFast's train_net.py, detectron2's family), argparse's
# ``Namespace(lr=0.1, ..)``. Its settings, printed again at each launch into the same log, are no
# metric stream (yacs' ``'KILL_LOSS_EXPLOSION_FACTOR': 0.0`` is no loss).
_CONFIG_REPR = lazy_regex(r"(?<![\w.])(?:CfgNode\(\{|Namespace\([A-Za-z_]\w*=)")


def _config_repr(text: str) -> bool:
    """Whether the line prints a configuration's repr (:data:`_CONFIG_REPR`)."""
    return ("CfgNode(" in text or "Namespace(" in text) and _CONFIG_REPR.search(text) is not None


# Words after a counter's name that say it is the count (``iteration index: 100, batch loss: 69.1``,
# WayenVan/sign_language_rgb's train_ddp.log; ``epoch number: 3``, ``step no: 50``): the counter still.
_COUNT_WORDS = frozenset({"index", "idx", "number", "num", "no"})


def _counter_named(key: str) -> str:
    """The counter's name of ``iteration_index``, ``epoch_number`` (:data:`_COUNT_WORDS`), else ``key``."""
    first, _, rest = key.partition("_")
    return first if rest in _COUNT_WORDS and first in _COUNTER_NAMES else key


def read_line(text: str) -> Record | None:
    """The counters and pairs of one framed line (line number 0; None when it holds neither)."""
    if _FRAME_LINE.match(text) or _config_repr(text):
        return None
    if text[:3] in ("---", "===", "***", "###", "~~~") and (ruled := _RULED_COUNTER.match(text)) is not None:
        text = ruled[1]
    rec = Record(0, text, {})
    body = _counters(_lead(strip_frame(_split_unglued(english(_loss_part_joined(_unglued(text))))), rec), rec)
    pairs = _PAIR.finditer(body) if _PAIR_HINT.search(body) is not None else ()
    segments = _split_segments(body) if "|" in body else []
    for start, raw, sep, value, unit, end in ((m.start(), m[1], m[2], m[3], m[4], m.end()) for m in pairs):
        said = next((w for at, w in reversed(segments) if at <= start), "")
        name = _name(raw, sep)
        key = name.lower()
        if not name or key in _NOT_METRICS:
            continue
        split, _, last = key.rpartition("_")
        if (split in _SPLIT_WORDS or split in _AT_WORDS) and last in _COUNTER_NAMES:  # "validate step: 50"
            key = last
        key = _counter_named(key)
        if unread_lr(name, value):
            continue
        v = float(value.replace(",", "")) if "," in value else float(value)
        timed = unit in ("s", "ms") or _DURATION.match(body, end) is not None
        # "steps=112.0" written with a point: an RL loop's mean episode length (``r= 22.2 steps=209.7``), no counter
        if key in _PLACED_NAMES and v == int(v) and not unit and not timed and not (key == "steps" and "." in value):
            _place(rec, key, v, None)
            continue
        if timed and (_loss_like(name) or founds(name) or key in _COUNTER_NAMES):
            # "cost 0.45s", jieba's "Loading model cost 0.884 seconds.": a duration; so is an objective
            # term's ("...Inferen\nce: 0.4493 s / iter", detectron2's evaluator wrapped by the terminal)
            # and a counter's ("Time taken for 1 epoch 658.7 sec": how long the epoch took, no epoch)
            name = f"{name}_time"
        if (said or rec.split) and parse(name).split is None:
            name = f"{said or rec.split}_{name}"
        if name not in rec.values:
            rec.values[name] = v / 1000.0 if unit == "ms" else v
        if len(rec.values) > MAX_NAMES:
            return None
    if not rec.values and rec.step is None and rec.epoch is None and rec.inner is None:
        return None
    _bare_splits(rec, body)
    if rec.epoch is not None and rec.inner is None and rec.step_total:  # "Epoch [3/50] Iter [10/495]"
        rec.inner, rec.step, rec.step_total = (rec.step or 0.0, rec.step_total), None, 0.0
    return rec


# A counter's number glued to the name after it (FCChinen/PPO's ``print("idx: " + str(i) + "loss: " ...)``:
# ``idx: 0loss: ..``), a counter's name glued to its number (``EP12``, ``epoch1``) and a loss's name
# glued to its value (``loss0.5``): printed without the space between them.
_GLUED = lazy_regex(
    r"(?:(?<=[:=] )|(?<=[:=]))(\d+)(?=[A-Za-z]{2,}[\w/]*\s*[:=])"
    r"|(?<![\w.])((?i:epoch|ep|iter|step))(\d+)(?![\w.])"
    r"|(?<![\w.])([A-Za-z_]*(?i:loss))(\d*\.\d+)(?![\w.])"
)

# What a match of :data:`_GLUED` holds, one search with no look-behind: most lines hold none
_GLUED_HINT = lazy_regex(r"[:=] ?\d+[A-Za-z]{2}|(?i:ep(?:och)?|iter)\d|(?i:loss)[\d.]")


def _unglued(text: str) -> str:
    """``text`` with a space between a counter or a loss and what it is glued to (:data:`_GLUED`), and
    a gradient norm's bars (:func:`norm_bars`) as its name."""
    text = norm_bars(text)
    if _GLUED_HINT.search(text) is None:
        return text
    return _GLUED.sub(lambda m: f"{m[1]} " if m[1] else f"{m[2]} {m[3]}" if m[2] else f"{m[4]} {m[5]}", text)


# A joined loss name, a comma, then the part of the loss it holds (DeepfakeBench's logger,
# ToExperienceMore/DeepFakesBench train_output.log: ``Iter: 300    training-loss, overall: 0.49`` and
# ``step: 1789    testing-loss, overall: 0.51``): one name, "training-loss overall", not a pair
# "overall" after a stray word; the comma goes. A loss name of words apart ("val loss, acc: 0.8")
# is left alone: there the comma may list two metrics.
_LOSS_THEN_PART = lazy_regex(r"(?<=[A-Za-z][-_](?i:loss)),\s{1,8}(?=[A-Za-z]\w{0,30}\s*[:=]\s*[-+]?\.?\d)")


def _loss_part_joined(text: str) -> str:
    """``text`` with the comma between a joined loss name and its part's name (:data:`_LOSS_THEN_PART`) a space."""
    if "oss," not in text and "OSS," not in text:
        return text
    return _LOSS_THEN_PART.sub(" ", text)


def _loss_like(name: str) -> bool:
    return role_of(name) in ("loss", "eval_loss") or parse(name).kind is not None


def _bare_splits(rec: Record, body: str) -> None:
    """``train: 1090.2 (2.01 bpd) | val: 1078.7``: a split word alone names that split's loss,
    when the line names no loss and nothing but a frame comes before the first pair (``Accuracy
    - train: 0.98`` names an accuracy)."""
    if not any(n.lower() in _SPLIT_WORDS for n in rec.values) or any(parse(n).kind for n in rec.values):
        return
    first = next(iter(rec.values))
    lead = re.search(r"(?<![\w@/.\-])%s(?:\s*[:=]|\s+(?=[-+]?\.?\d))" % re.escape(first), body)
    if first.lower() not in _SPLIT_WORDS or lead is None or not _framed_by_counter(rec, body[: lead.start()]):
        return
    if lead[0][-1:].isspace() and not body[: lead.start()].rstrip().endswith("|"):  # "Epoch 01 | train 7.16 | val 5.53"
        return
    if _THOUSANDS.match(body, lead.end()):  # "Train: 543,368 | Valid: 544,539": sizes, not losses
        return
    if len(rec.values) == 1 and _WHOLE.match(body, lead.end()):  # "TRAIN:108000" alone on its line: a size
        return
    if _all_whole(rec, body):  # "Train: 72044  Test: 18012": the splits' sizes, each a whole number
        return
    if _TIMED.match(body, lead.end()):
        return
    rec.values = {f"{n}_loss" if n.lower() in _SPLIT_WORDS else n: v for n, v in rec.values.items()}


def _all_whole(rec: Record, body: str) -> bool:
    """Every split word's value on the line is a whole number: the sizes of the splits, not losses."""
    for name in rec.values:
        if name.lower() not in _SPLIT_WORDS:
            continue
        m = re.search(r"(?<![\w@/.\-])%s\s*[:=]" % re.escape(name), body)
        if m is None or not _WHOLE.match(body, m.end()):
            return False
    return True


# A segment of a line led by its split's word and a colon before its pairs (deepsleepnet's ``epoch 1 :
# train (517.15 sec): n=215300, loss=1.609, acc=0.198 | valid (3.22 sec): n=5400, loss=1.610``, the
# times already dropped): the split of the pairs up to the next such segment.
_SPLIT_SEGMENT = lazy_regex(r"(?:^|\|)\s*[-:,]?\s*([A-Za-z]+)\s*:\s*(?=[A-Za-z])")


def _split_segments(body: str) -> list[tuple[int, str]]:
    """Where each split-led segment's pairs start and its split word, where the line holds two
    segments or more led by different split words (the training one and an evaluation one)."""
    found = [(m.end(), m[1].lower()) for m in _SPLIT_SEGMENT.finditer(body) if m[1].lower() in _SPLIT_WORDS]
    return found if len({w for _, w in found}) >= 2 else []


def _framed_by_counter(rec: Record, before: str) -> bool:
    """What comes before a bare split's pair is a frame: no word, a counter, or a run's tag whose
    counter the line held."""
    counted = rec.epoch is not None or rec.step is not None
    return _ONLY_COUNTER.match(before) is not None or (counted and _TAG_THEN_COUNTER.match(before) is not None)


# A printed dict's key that names the record's kind (PySlowFast's json_stats ``"_type": "val_epoch"``,
# ``"mode": "val"``, ``"split": "test"``): an evaluation split word leading its value names the split.
_KIND_TAG = lazy_regex(r"(?<![\w/])(?:_type|type|mode|phase|split)\s*:\s*[\"']([A-Za-z]+)[_\-\"']")


def _lead(body: str, rec: Record) -> str:
    """The body with what leads it read into ``rec`` (a split word, a bracketed step) and printed
    values unwrapped (``tensor(3.41, device='cuda:0')``, ``[3.41]``, a ``| loss | 11.6 |`` table row)."""
    body = dict_pairs(unwrap_values(body))
    if "{" in body:  # glue-factory: "loss {total 1.597E+00, last 9.226E-01, ...}"
        body = _NAMED_GROUP.sub(_group_pairs, body)
    if ":" in body or "=" in body:  # pixelNeRF: "loss rc:0.2196 rf:0.2424 t:0.4620"
        body = _LOSS_GROUP.sub(_loss_group_pairs, body)
    if "'" in body or '"' in body:
        tag = _KIND_TAG.search(body)
        rec.split = split_named(tag[1]) if tag is not None and tag[1].lower() in _EVAL_WORDS else rec.split
    if "[" in body and "," in body:
        body = _NAMED_LIST.sub(_zipped, body)
        body = _LOSS_LIST.sub(lambda m: _first_listed(m, rec), body)
    if "|" in body:  # Stable-Baselines3's logger
        body = _TABLE_ROW.sub(r"\1: \2", body)
    if "==[" in body:  # NGCF, KGAT and their forks: "train==[30.47=16.65 + 13.32 + 0.50]", the total first
        body = _SUMMED.sub(_summed_loss, body)
    if (epoch := _LEAD_EPOCH.match(body)) is not None:
        rec.epoch, body = float(epoch[1]), body[epoch.end() :]
    elif (batch := _LEAD_BATCH.match(body)) is not None:
        rec.inner, body = (float(batch[1]), 0.0), body[batch.end() :]
    if (at := _SPLIT_STEP_AT.match(body)) is not None and at[1].lower() in _SPLIT_WORDS:
        rec.step, body = float(at[2]), body[at.end() :]
        rec.split = split_named(at[1]) if at[1].lower() in _EVAL_WORDS else rec.split
    lead = _LEAD_SPLIT.match(body)  # after a bracketed epoch too: "[Epoch: 5] Valid acc: 0.3 | loss: 2.0"
    if lead and lead[1].lower() in _EVAL_WORDS:
        rec.split = split_named(lead[1])
    elif (counted := _COUNTED_SPLIT.match(body)) and counted[1].lower() in (
        _EVAL_WORDS if counted[2] else _SPLIT_WORDS
    ):
        rec.split = split_named(counted[1])
    if " is " in body or " was " in body:
        body = ", ".join(_said(clause) for clause in re.split(r"[,;|]", body))
    if "(" in body:
        body = _ASIDE.sub(_aside, body)
    if (pair := _STEP_TUPLE.match(body)) is not None:
        rec.step, body = float(pair[2]), f"{pair[1]}: {pair[3]}"
    if (bare := _LEAD_COUNT.match(body)) is not None:  # "1\ttrain loss=0.308\ttrain acc=0.832": print(epoch, ..)
        rec.step, body = float(bare[1]), body[bare.end() :]
    first = _LEAD_STEP.match(body)  # "[100] loss=2.3, ..." (CLU's logging writer), "[1,  2000] loss: 2.218"
    if first and first[2] is None:
        rec.step, body = float(first[1]), body[first.end() :]
    elif first:
        rec.epoch, rec.inner, body = float(first[1]), (float(first[2]), 0.0), body[first.end() :]
    return body


# A name, then a braced group of unquoted ``key value`` pairs (glue-factory's training line ``[E 0 | it 100]
# loss {total 1.597E+00, last 9.226E-01, nll_pos 1.512E+00}``, Ethrora/lg_w-_da's finetune.log): the keys are
# the name's parts, ``loss/total``, as its ``[Validation] {loss/total 4.884E-01, ...}`` line prints them.
_NAMED_GROUP = lazy_regex(
    r"(?<![\w@/.\-])([A-Za-z][\w]*)\s*\{(\s*[A-Za-z][\w/.\-]*\s+(?:%s)(?:\s*,\s*[A-Za-z][\w/.\-]*\s+(?:%s)){0,60})\s*\}"
    % (NUM, NUM)
)


def _group_pairs(m: re.Match[str]) -> str:
    """The braced group's pairs, each key under the group's name (:data:`_NAMED_GROUP`)."""
    return ", ".join(f"{m[1]}/{pair.strip()}" for pair in m[2].split(","))


# A value as a loss group prints it, bounded (a group is matched at each "loss" word: no backtracking
# that grows with a long run of digits).
_GROUP_NUM = r"[-+]?(?:\d{1,12}(?:\.\d{0,20})?|\.\d{1,20})(?:[eE][-+]?\d{1,3})?"
# The word ``loss`` with no value of its own, then three or more ``key:value`` pairs, the keys glued to
# their colon (pixelNeRF's train.py, kept by tahoora/Vit_Nerf: ``E 0 B 2 loss rc:0.2196 rf:0.2424
# t:0.4620  lr 0.0001``, the coarse and fine terms and their total): the keys are the loss's parts.
_LOSS_GROUP = lazy_regex(
    r"(?<![\w@/.\-])((?i:loss))\s+"
    r"([A-Za-z]\w{0,30}[:=]%s(?:[\s,]{1,8}[A-Za-z]\w{0,30}[:=]%s){2,11})(?![\w.])" % (_GROUP_NUM, _GROUP_NUM)
)
_GROUP_PAIR = lazy_regex(r"([A-Za-z]\w{0,30})[:=](%s)" % _GROUP_NUM)


def _decimals(value: str) -> int:
    """The decimal places a value was printed with (``0.4620``: 4; ``3``: 0)."""
    mantissa = value.lower().split("e")[0]
    return len(mantissa.partition(".")[2])


def _summing_key(pairs: list[tuple[str, str]]) -> str | None:
    """The one key whose value is the sum of all the others (to 1%, and to the rounding of their
    print), else None: the loss those parts add up to."""
    values = [float(v) for _, v in pairs]
    rounding = sum(0.5 * 10.0 ** -_decimals(v) for _, v in pairs)
    sums = [
        key
        for (key, _), v in zip(pairs, values)
        if abs(sum(values) - 2 * v) <= 0.01 * abs(v) + rounding and any(x != 0 for x in values)
    ]
    return sums[0] if len(sums) == 1 else None


def _loss_group_pairs(m: re.Match[str]) -> str:
    """The group's total as the loss, each other key a part under the loss's name
    (:data:`_LOSS_GROUP`); a group with no key that sums the others as it is."""
    pairs = _GROUP_PAIR.findall(m[2])
    if any(k.lower() in _PLACED_NAMES for k, _ in pairs) or all(_decimals(v) == 0 for _, v in pairs):
        return m[0]  # counters ("epoch:1 step:2 iter:3") or whole numbers: counts, no loss's parts
    total = _summing_key(pairs)
    if total is None:
        return m[0]
    return ", ".join(f"{m[1]}: {v}" if k == total else f"{m[1]}/{k}: {v}" for k, v in pairs)


# A list of values after a loss's name: Keras' ``train_on_batch``, ``test_on_batch`` and ``evaluate``
# return ``[loss, metric, ...]`` for a model compiled with metrics, and a loop prints that list
# (``print('d_loss', d_loss)``: ``d_loss [0.69, 0.5]``).
_LOSS_LIST = lazy_regex(
    r"(?<![\w@/.\-])([A-Za-z][\w@/.\-]*(?:[ \t][A-Za-z][\w@/.\-]*){0,2})\s*[:=]?\s*"
    r"\[\s*(%s)(?:\s*,\s*(?:%s)){1,7}\s*\]" % (NUM, NUM)
)


# A list of names, then the list of their values (``Epoch 10    [Avg. Loss, Loss]: [10.4449, 7.1693]``):
# each name with its value.
_NAMED_LIST = lazy_regex(
    r"\[\s*([A-Za-z][\w. ]{0,30}(?:,\s*[A-Za-z][\w. ]{0,30}){1,7})\]\s*[:=]\s*"
    r"\[\s*(%s(?:\s*,\s*%s){1,7})\s*\]" % (NUM, NUM)
)


_JOINED = lazy_regex(r"[.\s]+")


def _zipped(m: re.Match[str]) -> str:
    names = [n.strip().rstrip(".") for n in m[1].split(",")]
    values = [v.strip() for v in m[2].split(",")]
    if len(names) != len(values) or not all(names):
        return m[0]
    return ", ".join(f"{_JOINED.sub('_', n)}: {v}" for n, v in zip(names, values))


def _first_listed(m: re.Match[str], rec: Record) -> str:
    """``NAME [loss, metric, ...]`` as ``NAME: loss`` where NAME says loss (Keras' order: the loss
    first); any other list as it is."""
    if not _loss_like(_name(m[1], ":")):
        return m[0]
    rec.listed = True
    return f"{m[1]}: {m[2]}"


def _summed_loss(m: re.Match[str]) -> str:
    """``NAME==[TOTAL=a + b + c]``: a total of loss terms, read as NAME's loss (``train`` is the
    training loss) and its total."""
    name = m[1] if parse(m[1]).kind is not None else f"{m[1]}_loss"
    return f"{name}: {m[2]}"


def _said(clause: str) -> str:
    """A clause ``NAME is VALUE`` as ``NAME: VALUE``; what places it (``at epoch 0 and iteration
    500``) goes before it, where the counters are read."""
    m = _IS_CLAUSE.match(clause)
    if m is None:
        return _said_each(clause)
    name, context = m[1], ""
    at = _CONTEXT.search(name)
    if at is not None:
        name, context = name[: at.start()], name[at.end() :] + ", "
    return f"{context}{name.strip()}: {m[2]}"


def _said_each(clause: str) -> str:
    """Clauses ``NAME is VALUE`` one after another with no separator (HoustonJ2013's ``Loss is
    0.28 Acc is 0.91``), each as ``NAME: VALUE``; any other clause as it is."""
    pos, end = 0, len(clause.rstrip().rstrip("."))
    said: list[str] = []
    while pos < end and len(said) < 8:
        m = _IS_ONE.match(clause, pos)
        if m is None:
            return clause
        said.append(_said(m[0]))
        pos = m.end()
    return ", ".join(said) if len(said) > 1 and pos >= end else clause


def _place(rec: Record, key: str, n: float, total: float | None) -> None:
    if key in _EPOCH_NAMES:
        if rec.epoch is None:
            rec.epoch, rec.epoch_total = n, total or 0.0
    elif key in _STEP_NAMES:
        if rec.bare and total and rec.epoch is None and rec.inner:  # "[1/5] Step [100/600]": the epoch
            rec.epoch, rec.inner = rec.inner[0], None
        if rec.step is None:
            rec.step, rec.step_total = n, total or 0.0
        elif key == "global_step" and rec.epoch is not None and rec.inner is None:
            # "epoch:2,iters:10,global_step:11": the earlier count is inside the epoch, this one global
            rec.inner, rec.step, rec.step_total = (rec.step, rec.step_total or 0.0), n, total or 0.0
    elif total is not None and rec.inner is None:
        rec.inner = (n, total)
    elif total is not None and rec.epoch is None and rec.inner is not None and (rec.bare or rec.inner[1]):
        rec.epoch, rec.inner = rec.inner[0], (n, total)  # "[1/50][10/500]": an epoch, then the count in it
        # (a leading "Batch 10." is no epoch: the bracket after it counts the samples seen)
    elif key in _INNER_NAMES and rec.inner is None:
        rec.inner = (n, 0.0)
    elif key in _INNER_NAMES and rec.bare and rec.epoch is None and rec.inner:  # "[2/4], batch_id: 1000"
        rec.epoch, rec.inner = rec.inner[0], (n, 0.0)


def _counters(text: str, rec: Record) -> str:
    """Read the counters into ``rec`` and return the text without them."""
    if _COUNTER_HINT.search(text) is None:  # no match could start: the text as it is
        return text
    out, last = [], 0
    for m in _COUNTER.finditer(text):
        if m[3] is not None:
            key = (m[1] or "").lower()
            outer = re.findall(r"\d+", m[2] or "")
            if outer:  # "[e][i/n]": the first bracket is the epoch
                rec.epoch = float(outer[0]) if rec.epoch is None else rec.epoch
                _place(rec, "", float(m[3]), float(m[4]))
            elif key in _SCORE_COUNTS and float(m[4]) > 0:  # "Accuracy: 9100/10000 (91%)": a score
                out.append(text[last : m.start()] + f"{m[1]}: {float(m[3]) / float(m[4]):.6g} ")
                last = m.end()
                continue
            else:
                bare = not key and rec.inner is None
                _place(rec, key, float(m[3]), float(m[4]))
                rec.bare = rec.bare or (bare and rec.inner is not None)
        elif (m[5] or "").lower() in _COUNTER_NAMES:
            _place(rec, m[5].lower(), float(m[6]), None)
        elif (m[9] or "").lower() in _EPOCH_NAMES:  # "Epoch: [3][50]": the epoch, then the count in it
            _place(rec, "epoch", float(m[10]), None)
            rec.inner = (float(m[11]), 0.0) if rec.inner is None else rec.inner
        elif (m[7] or "").lower() in _COUNTER_NAMES:
            _place(rec, m[7].lower(), float(m[8]), None)
            before = _PLACED_BY.search(text, last, m.start())
            if before is not None:  # "training loss at epoch 3: 79.03": the name, then its value
                out.append(text[last : before.start()] + ":")
                last = m.end()
                continue
        else:
            continue
        out.append(text[last : m.start()])
        last = m.end()
    out.append(text[last:])
    return " ".join(out)


def records(lines: list[Line]) -> list[Record]:
    """Every line's record; a line of counters only (``Epoch: 01``) is a header whose counters
    the lines after it take, and the lines after one header that name different values
    (``train/loss=...`` then ``train/ppl=...``) are one record, unless the lines after the header
    repeat one shape (a record a line: a stray line among them, a warning with a number, is no
    part of the record before it). Even then, lines of one value each, one right after the other,
    that name different values and not the repeated shape are one record: another thread's
    ``WARNING: .. Actor 24403`` printed twice under a PPO loop's ``Episode 5 完成`` header leaves the
    ``- Reward: ..``, ``- Policy Loss: ..`` lines after it one record."""
    reading = _Reading()
    for line in lines:
        after_bar = False
        for seg in distinct_segments(line.segments):
            after_bar = reading.segment(seg, line, after_bar)
    return _named_first(reading.out)


class _Reading:
    """What :func:`records` carries from one line to the next."""

    __slots__ = ("block", "header", "last", "out", "repeat", "section", "since", "split_of_block", "titled", "under")

    def __init__(self) -> None:
        self.out: list[Record] = []
        self.header: Record | None = None
        self.block: Record | None = None
        self.repeat: frozenset[str] | None = None  # the shape the lines after the header repeat (a record a line)
        self.last = 0  # the line the last record (or the block) ended on
        self.since = 0  # the first record after the header: a record before it is no neighbour to compare with
        self.titled = ""  # "Test Error:" alone on the line before: the split of that line's values
        self.section = _Section()  # "===== validate epoch 1 =====" before: the split of the lines under it
        self.under = False  # a counter-only header came last (tqdm bars after it aside): a bare number is its loss
        self.split_of_block = ""  # the split a title line gave the record that opened the block: its other lines' too

    def segment(self, seg: str, line: Line, after_bar: bool) -> bool:
        """Reads one redraw segment of ``line``; whether it was a tqdm bar."""
        rec = read_line(seg)
        if rec is None and (self.under or after_bar):
            rec = _unnamed(seg, self.under)
        bar = rec is None and _BAR.match(seg.strip()) is not None
        paired = rec is not None and rec.unnamed and rec.inner is not None  # ``10.19, 100``: more may follow
        self.under = (self.under and (bar or paired)) or (rec is not None and not rec.values)
        title, self.titled = self.titled, _split_title(seg, rec)
        banner = _banner(seg)
        if rec is None:
            self.section = self.section if banner is None else _Section(banner)
            return bar
        rec.line, rec.run = line.no, line.run
        split = title or (_sectioned(self.section, rec) if rec.values and not rec.split else "")
        if split and rec.values and not rec.split:
            _entitle(rec, split)
        if rec.values:
            self.add(rec, title)
        else:
            self.header, self.block, self.repeat, self.since = rec, None, None, len(self.out)
            self.section = _Section(banner or "")
        return bar

    def add(self, rec: Record, title: str) -> None:
        """Takes a record with values: one more line of the open block, or a record of its own
        (the header's counters where it prints none)."""
        own = not rec.unnamed and (rec.step is not None or rec.epoch is not None or rec.inner is not None)
        keys = frozenset(rec.values)
        # where a record a line: one value, on the line right after the block's last
        one_more = self.repeat is None or (len(keys) == 1 and rec.line == self.last + 1)
        if (
            self.block is not None
            and one_more
            and not _KERAS_STYLE_BAR.search(rec.text)
            and _joins(rec, self.block, own, title, self.split_of_block)
        ):
            self.block.values.update(rec.values)
            self.last = rec.line
            self.block.listed = self.block.listed or rec.listed
            return
        header = self.header
        if not own and header is not None:
            rec.step, rec.epoch, rec.inner = header.step, header.epoch, rec.inner or header.inner
        elif header is not None and _epoch_only(header) and _placed_by_epoch_header(rec):
            rec.epoch = header.epoch  # "Start of epoch 3", then "loss at step 200: 0.6": the step in epoch 3
        if own and self.out and _repeated(self.out[-1], rec):
            return
        self.out.append(rec)
        if self.repeat is None and len(self.out) - self.since > 1 and self.out[-2].values.keys() == keys:
            self.repeat = keys  # a record a line
        one = self.repeat is None or (len(keys) == 1 and keys != self.repeat)
        self.block = rec if header is not None and not own and one and not rec.unnamed else None
        self.split_of_block = title if self.block is not None else ""
        self.last = rec.line


def _placed_by_epoch_header(rec: Record) -> bool:
    """Whether a record with counters of its own takes the epoch of the epoch-only header above it:
    one with no epoch, and no count or a count out of a total (``Epoch 2: Freezing backbones...``, then
    ``  Batch 10/215 | Loss: 2.27`` lines, Abhijith-Reddy-ch/MultiModal-Temporal-Deepfake-Detection's
    training.log): the count within that epoch."""
    return rec.epoch is None and (rec.inner is None or rec.inner[1] > 0)


# A Keras-style bar drawn before the values (``[Training] 1/10 [==>.....] - ETA: 2:45  loss: 1.93``, the
# progress bar of lonePatient's BERT text-classification scripts, copied by Yanghello/TCM_UC): a render
# of its own, never one more line of the block of settings printed one a line just before it.
_KERAS_STYLE_BAR = lazy_regex(r"\d/\d+ \[[=>.]{5,}\]")


def _joins(rec: Record, block: Record, own: bool, title: str, split_of_block: str) -> bool:
    """Whether ``rec``, a line with no counter of its own, is one more line of the open block's
    record: it names other values than the block holds. A record a title line named (``test``
    alone on the line before) opens a block of its own, and the lines after it take the split it
    gave: ProtoPNet's ``test``, then ``time: ..``, ``cross ent: ..``, a value a line, each behind a tab."""
    if own or title or rec.unnamed:
        return False
    split = split_of_block if not rec.split else ""
    names = {n if not split or parse(n).split is not None else f"{split}_{n}" for n in rec.values}
    if names & block.values.keys():
        return False
    if split:
        _entitle(rec, split)
    return True


_BARE_VALUE = lazy_regex(r"^\s*([-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|nan)\s*$")


_BARE_PAIR = lazy_regex(r"^\s*([-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|nan),\s*(\d+)\s*$")


def _unnamed(seg: str, under: bool) -> Record | None:
    """A line of one number (a decimal, never a count) printed right under an epoch's header
    (``Epoch 3``, then ``0.0072``; a tqdm bar between them or not) or after a tqdm render on its
    line (``100%|..| 38/38 [00:01<00:00] 88.05``): the loop's ``print(loss)``, read as ``loss``.
    Under the header only, lines of a decimal and a count (``print(f"{loss}, {batch_idx}")``:
    ``Epoch: 3``, then ``10.19, 0``, ``10.18, 100``, ..., ConnrLin/RecModel's train_log.txt):
    the decimal is ``loss``, the count the batch inside the epoch."""
    m = _BARE_VALUE.match(seg)
    if m is not None:
        return Record(0, seg, {"loss": float(m[1])}, unnamed=True)
    m = _BARE_PAIR.match(seg) if under else None
    return Record(0, seg, {"loss": float(m[1])}, inner=(float(m[2]), 0.0), unnamed=True) if m is not None else None


def _named_first(recs: list[Record]) -> list[Record]:
    """The records without the bare numbers (:func:`_unnamed`) where named records hold a
    training loss: a bare number is the loss only where no name says which one is."""
    named = [r for r in recs if not r.unnamed]
    if len(named) == len(recs):
        return recs
    loss = training_loss(named)
    return named if loss is not None and parse(loss).split in (None, "train") else recs


def _repeated(last: Record, rec: Record) -> bool:
    """Whether ``rec`` prints ``last`` again on the next line with a mark after it (the homework
    template's ``[ Valid | 001/100 ] loss = 1.65, acc = 0.38`` then the same line with ``  -> best``).
    A line printed again as it was is not taken for a reprint: bf16 losses repeat exactly."""
    same = (last.step, last.epoch, last.inner, last.split) == (rec.step, rec.epoch, rec.inner, rec.split)
    before, now = last.text.strip(), rec.text.strip()
    marked = now != before and now.startswith(before)
    return same and marked and rec.line - last.line == 1 and last.values == rec.values


def _losses(recs: list[Record]) -> dict[str, int]:
    """Loss-like names and the number of records that hold each."""
    counts: dict[str, int] = {}
    for rec in recs:
        for name in rec.values:
            counts[name] = counts.get(name, 0) + 1
    return {n: c for n, c in counts.items() if c >= MIN_REPEAT and (parse(n).kind is not None or role_of(n) == "loss")}


def training_loss(recs: list[Record]) -> str | None:
    """The loss the training stream is built on: the most repeated loss that is not an
    evaluation or test loss (a whole loss before a component), else the most repeated loss."""
    counts = _losses(recs)
    if not counts:
        return None
    order = list(counts)

    def key(name: str) -> tuple[bool, bool, int, int]:
        p = parse(name)
        return (p.split in (None, "train"), p.kind == "total", counts[name], -order.index(name))

    return max(counts, key=key)


def _training(recs: list[Record], loss: str) -> tuple[list[Record], int]:
    """The records of the training stream: those holding ``loss`` whose shape shares most of its
    names with the most printed such shape. A less printed shape that also holds ``loss`` (a
    ``Loss: 0.98, MeanIU: 0.49`` summary after an epoch of ``Loss: 1.59, Acc: 0.64`` lines) is an
    evaluation: its names get an ``eval_`` prefix (the number of such records is returned); one
    that says it closes an epoch (PaddleRec's ``epoch: 3 done, AUC: .., loss: ..``) sums up the
    training: its names get a ``summary_`` prefix, but for the evaluation values it carries
    (``Epoch 3 done | train_loss: .. | val_loss: ..``). One whose names beyond the main shape are all
    evaluation names (verl's step line with the ``val-core/...`` metrics of that step merged in,
    maybe cut short by a capture's line limit) is a training record that carries an evaluation."""
    counts: dict[frozenset[str], int] = {}
    for rec in recs:
        if loss in rec.values:
            counts[frozenset(rec.values)] = counts.get(frozenset(rec.values), 0) + 1
    main = max(counts, key=lambda k: counts[k])
    evals, sums = _split_twins([k for k in counts if counts[k] < counts[main]])
    train, moved = [], 0
    for rec in recs:
        if loss not in rec.values:
            continue
        names = rec.values.keys()
        less = counts[frozenset(names)] < counts[main]
        beyond = names - main
        if frozenset(names) in evals:
            rec.values = {n if parse(n).split else f"eval_{n}": v for n, v in rec.values.items()}
            moved += 1
        elif frozenset(names) in sums:
            rec.values = {f"summary_{n}": v for n, v in rec.values.items()}
        elif less and _EPOCH_DONE.search(english(rec.text)):  # its evaluation values stay what they are
            rec.values = {n if parse(n).split in ("eval", "test") else f"summary_{n}": v for n, v in rec.values.items()}
        elif not less or len(names & main) * 2 >= max(len(names), len(main)) or _evaluations(beyond):
            train.append(rec)
        else:
            rec.values = {n if parse(n).split else f"eval_{n}": v for n, v in rec.values.items()}
            moved += 1
    return _without_epoch_summaries(train), moved


_SPLIT_NAME_WORDS = TRAIN_WORDS | EVAL_WORDS | TEST_WORDS


def _unsplit(name: str) -> str:
    """A name without its split words (``Test. Acc.`` and ``Train. Acc.``: ``acc``)."""
    return "_".join(w for w in words_of(name.replace(".", " ")) if w not in _SPLIT_NAME_WORDS)


def _split_twins(shapes: list[frozenset[str]]) -> tuple[set[frozenset[str]], set[frozenset[str]]]:
    """Less printed shapes that come in a pair differing only in the split word of their named values
    (``Epoch: 3 | Train. Acc.: 95.1% | Loss: 0.15`` and ``Epoch: 3 | Test. Acc.: 97.4% | Loss: 0.08``,
    PiakoCode/Handwritten-Digit-Recognition's train.out, under the batch lines' ``Loss``): the evaluation
    twin's bare loss is the evaluation's, and the training twin sums up the epoch of the batch lines."""
    evals: set[frozenset[str]] = set()
    sums: set[frozenset[str]] = set()
    for shape in shapes:
        said = {n for n in shape if parse(n).split in ("eval", "test")}
        if not said or any(parse(n).split == "train" for n in shape):
            continue
        for twin in shapes:
            other = twin - shape
            if len(other) != len(said) or twin & said or not all(parse(n).split == "train" for n in other):
                continue
            if sorted(map(_unsplit, other)) == sorted(map(_unsplit, said)):
                evals.add(shape)
                sums.add(twin)
    return evals, sums


def _without_epoch_summaries(train: list[Record]) -> list[Record]:
    """The training records less the lines that sum up an epoch in the batch lines' own shape (the
    TensorFlow tutorials' "Epoch 3 Batch 100 Loss 0.61" lines, then "Epoch 3 Loss 0.58"): one line
    with the epoch alone after that epoch's counted lines. Their names get a ``summary_`` prefix.
    An epoch shorter than the printing interval prints one batch line, ``Epoch 3 Batch 0 ..``, before
    its summary (Gregorgeous/ula-transformer-tensorflow2.0's transformer.log): as many batch lines as
    summaries is that shape too. The last summary printed again right after itself is one too."""
    only = [r for r in train if _epoch_only(r)]
    counted = [r for r in train if r.inner is not None or r.step is not None]
    if not only or len(only) + len(counted) != len(train) or len(_closing_summaries(train)) != len(only):
        return train
    for r in only:
        r.values = {f"summary_{n}": v for n, v in r.values.items()}
    return counted


def _closing_summaries(train: list[Record]) -> set[int]:
    """The ids of the epoch-only records that close their epoch: each right after a counted record of
    the same epoch (the first such for that epoch), or a closing one printed again right after it."""
    closing: set[int] = set()
    seen: set[float | None] = set()
    for a, b in zip(train, train[1:]):
        if not _epoch_only(b) or a.epoch != b.epoch:
            continue
        if not _epoch_only(a) and b.epoch not in seen:
            closing.add(id(b))
            seen.add(b.epoch)
        elif id(a) in closing and _twins(a, b):
            closing.add(id(b))
    return closing


def _evaluations(names: set[str]) -> bool:
    """Whether ``names`` are some, and all evaluation or test names."""
    return bool(names) and all(parse(n).split in ("eval", "test") for n in names)


# The PyTorch quickstart's test(): print(f"Test Error: \\n Accuracy: {..:>0.1f}%, Avg loss: {..:>8f} \\n"):
# a split word alone on its line (with "error", "set" or "results"), the values on the next; also a line
# announcing the evaluation ("testing in eval mode……", "Validating...") before the values it prints.
_SPLIT_TITLE = lazy_regex(
    r"(?i)^(%s|testing|evaluating|validating)(?:\s+(?:error|set|results?|metrics|in\s+eval(?:uation)?\s+mode))?"
    r"\s*(?::|[.…]*)$" % "|".join(sorted(_EVAL_WORDS))
)


# An evaluation announced on its own line, its values on the next in the training lines' shape:
# "testing in eval mode……" (AIHHU/PaddleCIFAR10), "Evaluating...", "Eval begin..." (an ellipsis ends it).
_ANNOUNCED = lazy_regex(
    r"(?i)^(?:(?:start(?:ing)?|running|now)\s+)?(testing|validating|evaluating|eval|validation|evaluation)"
    r"(?:\s+(?:in\s+eval\s+mode|begin|mode|phase|started))?\s*(?:\.{2,}|…+)$"
)
_ANNOUNCED_SPLIT = {"testing": "test", "validating": "val", "validation": "val"}


def _split_title(seg: str, rec: Record | None) -> str:
    if rec is not None or len(seg) > 40:
        return ""
    text = strip_frame(seg)
    if (said := _ANNOUNCED.match(text)) is not None:
        return _ANNOUNCED_SPLIT.get(said[1].lower(), "eval")
    m = _SPLIT_TITLE.match(text)
    return "" if m is None else split_named(m[1])


# A banner line that opens a section and names its split, decorated on both sides ("=====
# validate epoch 1 =====", "---------- Validation ----------", "***** Eval results *****").
_BANNER = lazy_regex(
    r"(?i)^\s*[=\-*#~]{3,}\s*(%s|train|training)(?:\s+(?:epoch|phase|step|stage|set|results?|metrics))?"
    r"(?:\s*[:#]?\s*\d+(?:\s*/\s*\d+)?)?\s*[=\-*#~]{3,}\s*$" % "|".join(sorted(_EVAL_WORDS))
)


class _Section(msgspec.Struct):
    """The split a banner opened, and the counters of the first record under it."""

    split: str = ""
    counters: tuple[float | None, float | None, tuple[float, float] | None] | None = None


def _sectioned(section: _Section, rec: Record) -> str:
    """The split the open section gives ``rec`` ("" for none). A record with other counters than
    the first one under the banner closes it: a training line printed after an evaluation block
    that no banner of its own announces (``step 200 loss 0.4`` after ``---- Validation ----`` and
    ``loss 0.6``) is no evaluation."""
    if not section.split:
        return ""
    counters = (rec.step, rec.epoch, rec.inner)
    if section.counters is None:
        section.counters = counters
    elif counters != section.counters:
        section.split = ""
    return section.split


def _banner(seg: str) -> str | None:
    """The split a section banner names ("" for training), None for any other line."""
    if len(seg) > 200 or (m := _BANNER.match(seg)) is None:
        return None
    word = m[1].lower()
    return "" if word in ("train", "training") else split_named(m[1])


def _entitle(rec: Record, split: str) -> None:
    rec.split = split
    rec.values = {(n if parse(n).split is not None else f"{split}_{n}"): v for n, v in rec.values.items()}


def _epoch_only(rec: Record) -> bool:
    return rec.epoch is not None and rec.step is None and rec.inner is None


def _counted(inner: list[tuple[float, float]]) -> list[float]:
    """A count inside the epoch (``[ 900/1000]``) made a step: where it falls back (a new epoch),
    the previous count's total is added."""
    out, offset, last = [], 0.0, None
    for n, total in inner:
        if last is not None and n < last[0]:
            offset += last[1] or last[0]
        out.append(offset + n)
        last = (n, total)
    return out


def _per_epoch(inner: list[tuple[float, float]]) -> float:
    """The count an epoch holds: the printed total (``[10/250]``), else the largest count seen
    and, for a count from 0, one printing interval more (``batch_id: 1500`` printed every 500
    from 0: 2000; ``[1, 12000]`` printed every 2000 from 2000: 12000)."""
    most = max(max(total, n) for n, total in inner)
    if any(total for _, total in inner) or min(n for n, _ in inner) > 0:
        return most or 1.0
    gaps = [b[0] - a[0] for a, b in zip(inner, inner[1:]) if b[0] > a[0]]
    return most + (min(gaps) if gaps else 1.0)


def _step_is_inner(train: list[Record]) -> bool:
    """Whether the step counter starts again at each new epoch (and only there). The epoch may fall
    back where the step does too (a run appended after a restart), less than half as often as it
    goes on (lines of two processes interleaved fall back as often); a global step that falls
    only at such a restart is no count inside the epoch."""
    if not train or any(r.step is None or r.epoch is None or r.inner is not None for r in train):
        return False
    pairs = list(zip(train, train[1:]))
    falls = [b.epoch != a.epoch for a, b in pairs if (b.step or 0.0) < (a.step or 0.0)]
    back = [(a, b) for a, b in pairs if b.epoch < a.epoch]  # type: ignore[operator]
    on = [(a, b) for a, b in pairs if b.epoch > a.epoch]  # type: ignore[operator]
    restarts = all((b.step or 0.0) < (a.step or 0.0) for a, b in back) and 2 * len(back) <= len(on)
    new_epoch = any((b.step or 0.0) < (a.step or 0.0) for a, b in on)  # not only at a restart
    within = any(b.epoch == a.epoch for a, b in pairs)  # a count inside an epoch: two records in one
    return bool(falls) and all(falls) and restarts and new_epoch and within


def _count_restarts_after_epoch_lines(train: list[Record], recs: list[Record]) -> bool:
    """Whether a step printed with its total and no epoch (``step  320/328  loss 0.5308``) starts again
    only after a line that counts the epochs (``[Unfrozen] Epoch 1/500 -- train: 0.5309  val: 0.6230``,
    Lukas1121/LogSentinel's finetune.log): the count inside the epoch, the total its batches, no
    relaunch. Every fall back must come after such a line, and from a count near the total."""
    if len(train) < MIN_REPEAT or not all(r.step is not None and r.epoch is None and r.inner is None for r in train):
        return False
    totals = {r.step_total for r in train}
    if len(totals) != 1 or not (total := totals.pop()):
        return False
    falls = [(a, b) for a, b in zip(train, train[1:]) if (b.step or 0.0) < (a.step or 0.0)]
    gaps = [(b.step or 0.0) - (a.step or 0.0) for a, b in zip(train, train[1:]) if (b.step or 0.0) > (a.step or 0.0)]
    every = min(gaps, default=total)
    epoch_lines = sorted(r.line for r in recs if r.epoch is not None)

    def epoch_line_between(a: Record, b: Record) -> bool:
        i = bisect_right(epoch_lines, a.line)
        return i < len(epoch_lines) and epoch_lines[i] < b.line

    return bool(falls) and all(total - (a.step or 0.0) <= every and epoch_line_between(a, b) for a, b in falls)


def _count_is_global(train: list[Record]) -> bool:
    """Whether an ``N/M`` count printed with the epoch counts on across epochs (char-rnn-tensorflow's
    "{e * batches + b}/{epochs * batches} (epoch {e})"): it goes up, never back, at every new epoch."""
    news = [(a, b) for a, b in zip(train, train[1:]) if a.epoch != b.epoch]
    return bool(news) and all(
        a.inner is not None and b.inner is not None and (b.epoch or 0.0) > (a.epoch or 0.0) and b.inner[0] > a.inner[0]
        for a, b in news
    )


def _batch_size_beside_count(train: list[Record]) -> bool:
    """Whether every record's bare bracketed count (``[000500/50000]``, taken for the epoch when a
    ``batch N`` follows) is the step and that ``batch N``, the same on every record, the batch size."""
    if len(train) < MIN_REPEAT or not all(r.bare and r.inner is not None and r.epoch is not None for r in train):
        return False
    return len({r.inner for r in train}) == 1 and len({r.epoch for r in train}) == len(train)


def _steps(train: list[Record], recs: list[Record]) -> tuple[list[float], str]:
    """The training records' steps, and what they were taken from (``recs``: all the log's records,
    the epoch lines among them)."""
    # "Epoch 74, Step 25", or "step 320/328" starting again after each epoch's line: a step counted inside the epoch
    if _step_is_inner(train) or _count_restarts_after_epoch_lines(train, recs):
        for r in train:
            r.inner, r.step = (float(r.step or 0.0), r.step_total), None
    if all(r.step is not None for r in train):
        steps, how = [float(r.step) for r in train if r.step is not None], "step"
    elif _batch_size_beside_count(train):  # "[000500/50000] X4K | loss 0.0488 | .. | batch 16"
        steps, how = [float(r.epoch or 0.0) for r in train], "step"
    elif all(r.inner is not None and r.epoch is not None for r in train) and _count_is_global(train):
        steps, how = [r.inner[0] for r in train if r.inner is not None], "count"
    elif all(r.inner is not None and r.epoch is not None for r in train):
        per = _per_epoch([r.inner for r in train if r.inner is not None])
        first = 1.0 if min(r.epoch for r in train if r.epoch is not None) == 1 else 0.0  # "Epoch: 1/5": from 1
        steps = [(r.epoch - first) * per + r.inner[0] for r in train if r.inner and r.epoch is not None]
        how = "epoch-count"
    elif all(r.epoch is not None for r in train):
        steps, how = [float(r.epoch) for r in train if r.epoch is not None], "epoch"
    elif all(r.inner is not None for r in train):
        steps, how = _counted([r.inner for r in train if r.inner is not None]), "count"
    else:
        return [float(i + 1) for i in range(len(train))], "order"
    epochs = [float(r.epoch) for r in train if r.epoch is not None]
    runs = _relaunches(train) if len(epochs) == len(train) else [r.run for r in train]
    if not _steps_usable(steps, runs if how == "epoch" else [r.run for r in train]):
        if len(epochs) == len(train) and _steps_usable(epochs, runs):  # "Episode 5 | Steps: 183": its length
            return epochs, "epoch"
        return [float(i + 1) for i in range(len(train))], "order"
    return steps, how


def _without_reprints(train: list[Record]) -> tuple[list[Record], int]:
    """The training records less each one printed again as it was, right after itself, with its
    counter (``Epoch 1/3 - Loss: 7.3485`` twice: a loop that prints to the console and to a
    logger, both into the file): one record, as its count says (the twin had read as a count
    repeated, so the steps fell back to the order of the records and runs appended to the log
    were no longer told apart). Only where the counter tells every other record from the one
    before it: where it does not (``Epoch 41, Loss: 0.33`` a batch, the epoch alone printed), a
    value printed again is a new batch's (bf16 losses repeat exactly)."""
    twins = [_twins(a, b) for a, b in zip(train, train[1:])]
    if not any(twins) or any(_where(a) == _where(b) for (a, b), t in zip(zip(train, train[1:]), twins) if not t):
        return train, 0
    out = train[:1] + [rec for rec, twin in zip(train[1:], twins) if not twin]
    return out, len(train) - len(out)


def _where(rec: Record) -> tuple[float | None, float | None, tuple[float, float] | None, str, int]:
    return rec.step, rec.epoch, rec.inner, rec.split, rec.run


def _twins(a: Record, b: Record) -> bool:
    """Whether ``b`` prints ``a`` again: the same text, counter and values."""
    counted = b.step is not None or b.epoch is not None or b.inner is not None
    return counted and a.text.strip() == b.text.strip() and _where(a) == _where(b) and a.values == b.values


def _lone_starts(steps: list[float]) -> int:
    """How many times the first count follows itself: a launch that stopped after its first record."""
    start = min(steps, default=0.0)
    return sum(1 for a, b in zip(steps, steps[1:]) if a == b == start)


def _relaunches(train: list[Record]) -> list[int]:
    """Each record's run where a launch ran its epochs to the total it printed and the next
    began again at the first (Ab-mahin/Multi-Agent-DQN-Coordinatio's train_log.txt: ten
    ``Training Session Started`` banners, each with ``Episode 1/10`` .. ``Episode 10/10``):
    each finished launch is a run of its own, as a notebook's next cell is. A count that falls
    back before its total stays a fall inside one run."""
    start = min((r.epoch for r in train if r.epoch is not None), default=0.0)
    runs, extra = [], 0
    for prev, rec in zip([None, *train], train):
        done = prev is not None and prev.epoch_total > 0 and prev.epoch == prev.epoch_total
        extra += done and rec.epoch == start
        runs.append(rec.run + extra)
    return runs


def _steps_usable(steps: list[float], runs: list[int]) -> bool:
    """Whether steps tell the records apart: none repeated, a few falls back at most (restarts).
    Where a new run is known to begin (a notebook's next cell) the count may start again freely.
    The first count printed twice in a row is a restart too: a run stopped after its first epoch
    and the next one began at the same count (``Epoch 1 | Final Loss: 15.3``, a new banner, then
    ``Epoch 1 | Final Loss: 19.8``, ``Epoch 2 ...``)."""
    pairs = [(a, b) for a, b, x, y in zip(steps, steps[1:], runs, runs[1:]) if x == y]
    start = min(steps, default=0.0)
    resets = sum(1 for a, b in pairs if b < a or a == b == start)
    return not any(a == b != start for a, b in pairs) and resets <= max(3, len(steps) // 10)


# An error printed as a rate: ``top1 error 40.2%``, ``error rate: 0.12``, ``error: 12.5 %``.
_RATE = lazy_regex(r"(?i)\btop[\s_\-]*\d+[\s_\-]*err|\berr(?:or)?[\s_\-]*rate|\berr(?:or)?\W{0,3}\d[\d.]*\s*%")


def objective_terms(recs: list[Record]) -> tuple[str, Objective] | None:
    """The last tier, for records that hold no loss-like name: the objective term the training
    stream is built on (the most repeated term of the training split whose value changes: a
    setting printed again and again does not) and the objective read from the shape of the
    records that print it, a shape printed :data:`MIN_REPEAT` times (see :mod:`.objectives`). An
    actor-critic's bare ``Pi`` beside its ``Q`` comes first (:func:`_bare_actor_loss`)."""
    if (actor := _bare_actor_loss(recs)) is not None:
        return actor
    seen: dict[str, list[float]] = {}
    for rec in recs:
        for name, v in rec.values.items():
            if founds(name):
                seen.setdefault(name, []).append(v)
    counts = {n: len(vs) for n, vs in seen.items() if len(vs) >= MIN_REPEAT and len(set(vs)) > 1}
    if not counts:
        return None
    order = list(counts)
    term = max(counts, key=lambda n: (counts[n], -order.index(n)))
    shapes: dict[frozenset[str], list[Record]] = {}
    for rec in recs:
        if term in rec.values:
            shapes.setdefault(frozenset(rec.values), []).append(rec)
    main = max(shapes.values(), key=len)
    if len(main) < MIN_REPEAT or (training_error(term) and any(_RATE.search(r.text) for r in main)):
        return None
    found = objective(main[0].values)
    return (term, found) if found is not None else None


def _bare_actor_loss(recs: list[Record]) -> tuple[str, Objective] | None:
    """The actor's loss of a record printing an actor-critic's two losses as bare symbols (``Q ..,
    Pi .., CE ..``: :func:`.objectives.bare_actor`), printed :data:`MIN_REPEAT` times with a value
    that changes; the terms beside it are not the objective."""
    seen: dict[str, list[float]] = {}
    for rec in recs:
        if (name := bare_actor(rec.values)) is not None:
            seen.setdefault(name, []).append(rec.values[name])
    found = [n for n, vs in seen.items() if len(vs) >= MIN_REPEAT and len(set(vs)) > 1]
    if not found:
        return None
    name = max(found, key=lambda n: len(seen[n]))
    return name, Objective((name,), "the actor's loss by its bare symbol beside the critic's Q, the critic's left out")


def general(lines: list[Line]) -> Capture | None:
    """The training stream and evaluation streams of a log no specific recogniser read."""
    recs = records(lines)
    loss = training_loss(recs)
    found = objective_terms(recs) if loss is None else None
    if found is not None:
        loss = found[0]
    if loss is None:
        return None
    cap = Capture("general", tier=0)
    if found is not None:
        _objective_meta(cap, found[1])
    train, moved = _training(recs, loss)
    train, reprints = _without_reprints(train)
    steps, how = _steps(train, recs)
    role = {id(r): "training" for r in train}
    at = dict(zip((r.line for r in train), steps))
    for rec, step in zip(train, steps):
        cap.add_all(step, rec.values)
    cap.lines.extend(at)
    _side_streams(cap, recs, role, at)
    _named_training_loss(cap, loss, {n for r in train for n in r.values})
    if found is not None and (ev := evaluated(found[1].name, cap.cols)) is not None:
        cap.meta["eval_objective"] = ev  # roles.apply_roles takes it as the eval loss
        cap.meta["eval_objective_why"] = f"the objective {found[1].name!r} measured on the evaluation split"
    cap.steps_from, cap.reprints = how, reprints
    if how == "epoch":
        cap.meta["steps_are"] = "epochs"
    if how != "order" and (lone := _lone_starts(steps)):
        cap.notes.append(
            f"{lone} launch(es) stopped after their first record (the count printed again at its start,"
            f" {min(steps):g}): the next launch's record at that step is kept"
        )
    learned = shapes(recs, role)
    cap.meta["line_shapes"] = [msgspec.structs.asdict(s) for s in learned]
    cap.notes.append(
        f"general line reader: {len(train)} training record(s) holding {loss!r}, steps from "
        + {"step": "the step counter", "epoch-count": "the epoch and the count inside it", "epoch": "the epoch"}.get(
            how, "the count on the line" if how == "count" else "the order of the records"
        )
    )
    _training_notes(cap, loss, train, reprints, moved)
    cap.notes.extend(_shape_notes(learned))
    return cap


def _training_notes(cap: Capture, loss: str, train: list[Record], reprints: int, moved: int) -> None:
    """The notes on how the training records were read: reprints read once, a loss that is the
    first of a printed list, a bare number taken as the loss, records taken as evaluations."""
    if reprints:
        cap.notes.append(
            f"{reprints} training record(s) printed again right after themselves, counter and all: read once"
        )
    if any(r.listed for r in train):
        cap.notes.append(
            f"{loss!r} is the first of a list of values printed after its name (Keras' train_on_batch returns"
            " [loss, metrics...]): the list's other values are not read"
        )
    if any(r.unnamed for r in train):
        cap.notes.append(
            "'loss' is a bare number printed under each epoch's header or after a tqdm bar (no name printed):"
            " read as the loss"
        )
    if moved:
        cap.notes.append(
            f"{moved} record(s) of a less printed shape also holding {loss!r} taken as evaluations (names eval_...)"
        )


def _named_training_loss(cap: Capture, loss: str, train_names: set[str]) -> None:
    """A training stream on a loss that says it is the training one (``train loss = 0.31``) beside a
    bare ``loss`` of another line shape (``loss: 0.38, Performance is better... saving the model``,
    printed after it each epoch): the bare one says no split and is no part of the training lines,
    so the loss is the one named training (the alias order would take the bare name first)."""
    if "objective" in cap.meta or parse(loss).kind != "total":
        return
    bare = [n for n in cap.cols if n not in train_names and role_of(n) == "loss" and parse(n).split is None]
    if bare and (parse(loss).split == "train" or _side_stream(cap, loss, bare)):
        cap.meta["objective"] = loss
        cap.meta["objective_why"] = (
            f"the training lines name their loss {loss!r}; {', '.join(bare)} (no split said) is printed on "
            "other lines, not taken as the training loss; use --map loss=NAME to choose another"
        )


def _side_stream(cap: Capture, loss: str, bare: list[str]) -> bool:
    """The bare ``loss`` lines are a side stream of a training loss printed far more (st-gcn's
    ``mean_loss`` after every epoch beside a few ``Iter 0 Done. | loss: 1.48 | lr: 0.01`` lines of
    some runs in the same log): a tenth of its points or fewer."""
    n = len(cap.cols[loss][0])
    return loss not in bare and all(10 * len(cap.cols[b][0]) <= n for b in bare)


def _objective_meta(cap: Capture, found: Objective) -> None:
    """Say that the loss is taken from a name that does not say loss (roles.apply_roles takes
    ``objective`` as the loss and notes ``objective_why``)."""
    copies = (
        f"; {', '.join(found.left_out)} left out (a term printed again for a second model)" if found.left_out else ""
    )
    cap.meta["objective"] = found.name
    cap.meta["objective_why"] = (
        f"{found.reason}: no printed name says loss, so the loss is taken from the names loops give their "
        f"objective{copies}; use --map loss=NAME to choose another"
    )


def _side_streams(cap: Capture, recs: list[Record], role: dict[int, str], at: dict[int, float]) -> None:
    """Evaluation records (and other repeated shapes) at the training step printed before them."""
    counts: dict[frozenset[str], int] = {}
    for rec in recs:
        counts[frozenset(rec.values)] = counts.get(frozenset(rec.values), 0) + 1
    train_names = set(cap.cols)
    step = None
    placed: list[tuple[Record, float]] = []
    for rec in recs:
        if id(rec) in role:
            step = at[rec.line]
            continue
        names = frozenset(rec.values)
        if step is None:
            continue
        evaluation = any(parse(n).split in ("eval", "test") and parse(n).kind for n in names)
        if names & train_names and not evaluation:
            continue
        if any(parse(n).split in ("eval", "test") for n in names) and (
            counts[names] >= 2 or any(parse(n).kind for n in names)
        ):
            role[id(rec)] = "evaluation"  # "Validation Phase Loss: .. Accuracy: ..": an eval_Accuracy
            rec.values = {_evaluated(n): v for n, v in rec.values.items()}
        elif counts[names] >= MIN_REPEAT:
            role[id(rec)] = "other"
        else:
            continue
        placed.append((rec, step))
    progress = _evaluation_progress(placed, role)
    for rec, at_step in placed:
        if id(rec) in progress:
            role[id(rec)] = "evaluation progress"
            continue
        cap.add_all(at_step, rec.values)
        cap.lines.append(rec.line)
    if progress:
        cap.notes.append(
            f"{len(progress)} evaluation record(s) of an evaluation's batches (its progress) "
            "not read: the evaluation's summary line gives its value"
        )
    cap.lines.sort()


def _evaluated(name: str) -> str:
    """A value's name in an evaluation record: an unmarked one is the evaluation's (``eval_acc``);
    a training one sums up the epoch's training (``Epoch 3 | train loss .. | val loss ..`` after
    the epoch's step lines): ``summary_train_loss``, never a second series of the training loss."""
    split = parse(name).split
    return f"eval_{name}" if split is None else f"summary_{name}" if split == "train" else name


def _evaluation_progress(placed: list[tuple[Record, float]], role: dict[int, str]) -> set[int]:
    """The evaluation records that are an evaluation loop's progress (``val --- batch:200/400
    loss: ..``): a shape printed several times at one training step, where another evaluation
    shape holding a loss is printed once at each of those steps (the evaluation's summary, ``Epoch
    [0] Validation Phase Loss: ..``). Only the last of each step would be kept: one batch's value.
    A shape that counts the evaluation's batches (PaddleVideo's ``val step:0 loss: ..``, printed once
    where the evaluation has fewer batches than the printing interval) is progress too, where the
    summary counts none (``END epoch:3 val loss_avg: ..``)."""
    per: dict[frozenset[str], dict[float, int]] = {}
    counted: dict[frozenset[str], bool] = {}
    for rec, step in placed:
        if role[id(rec)] == "evaluation":
            key = frozenset(rec.values)
            at = per.setdefault(key, {})
            at[step] = at.get(step, 0) + 1
            counted[key] = counted.get(key, True) and (rec.step is not None or rec.inner is not None)
    batches = {k: set(at) for k, at in per.items() if max(at.values()) > 1 or counted[k]}
    summaries = [
        set(at) for k, at in per.items() if max(at.values()) == 1 and not counted[k] and any(parse(n).kind for n in k)
    ]
    drop = {k for k, steps in batches.items() if any(steps <= s for s in summaries)}
    return {id(rec) for rec, _ in placed if frozenset(rec.values) in drop}


class Shape(msgspec.Struct):
    """A line shape the reader learned: its names, records, what they became, three samples."""

    names: list[str]
    records: int = 0
    roles: list[str] = msgspec.field(default_factory=list)
    samples: list[str] = msgspec.field(default_factory=list)


def shapes(recs: list[Record], role: dict[int, str]) -> list[Shape]:
    by: dict[frozenset[str], Shape] = {}
    for rec in recs:
        key = frozenset(rec.values)
        row = by.setdefault(key, Shape(sorted(key)))
        row.records += 1
        r = role.get(id(rec), "not used")
        if r not in row.roles:
            row.roles.append(r)
        if len(row.samples) < 3:
            row.samples.append(f"line {rec.line}: {rec.text.strip()[:100]}")
    return sorted(by.values(), key=lambda r: -r.records)


def _shape_notes(rows: list[Shape], most: int = 6) -> list[str]:
    notes = []
    for row in rows[:most]:
        names = ", ".join(row.names)
        notes.append(
            f"line shape {{{names[:120]}}}: {row.records} record(s), {' and '.join(row.roles)}; e.g. "
            + " | ".join(row.samples)
        )
    rest = rows[most:]
    if rest:
        n = sum(r.records for r in rest)
        notes.append(f"{len(rest)} other line shape(s) ({n} record(s)) not used: each printed too few times")
    return notes
