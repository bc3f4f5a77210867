"""One console line read into a :class:`Record`: its frame stripped, its counters and its
``name SEP value`` pairs. The general line reader's first stage."""

from __future__ import annotations

import math
import re

import msgspec

from ....role_structure import EVAL_WORDS, parse, split_named
from ....roles import role_of
from ..glossary import english
from ..objectives import compound_tail, founds
from ..text import NUM, dict_pairs, lazy_regex, norm_bars, unread_lr, unwrap_values

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
    # not a counter ("[1, 2000]", "[1,   100/ 2562]", "[100/2562]"), nor a record: a pair whose value has a point,
    # an exponent, nan or inf (FalsoMoralista/FGDCC: "[Autoencoder Loss: 1.9905]"; "[rank: 0]" may be a frame):
    r"|\[(?!\s*\d+\s*(?:(?:,|\s+:|:\s)\s*\d+\s*(?:/\s*\d+\s*)?)?\])(?!\s*(?:[A-Za-z_]+\s*[=:]?\s*)?\d+\s*/\s*\d+\s*\])"
    r"(?!\s*[A-Za-z][\w .\-/]{0,60}?\s*[:=]\s*[-+]?(?:\d*\.\d|\d+[eE][-+]?\d|(?i:nan|inf))[\d.eE+\-]*\s*\])"
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
BAR_RENDER = lazy_regex(
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


EPOCH_DONE = lazy_regex(
    r"(?i)\bepoch\W{0,3}\d+(?:\s*/\s*\d+)?\W{0,3}(?:done|finished|completed?|ended|summary)\b|\bend of epoch\b"
)


# the evaluation split words the roles know (role_structure.EVAL_WORDS: "cv", "heldout", ..) and "test"
EVAL_OR_TEST_WORDS = EVAL_WORDS | {"test"}


# A bracketed frame that names a split and a count (``[ Train | 001/100 ] loss = 1.79``, the ML2021/2022
# course homework template's epoch lines): the split and the count, not a decoration.
_SPLIT_FRAME = lazy_regex(r"^\[\s*([A-Za-z]+)\s*[|:,]\s*(\d+\s*/\s*\d+)\s*\]$")


# A name and its value parted by a bar (Stable-Baselines3's logger row ``| loss | 11.6 |``), maybe after one
# word of a tag and its bar (rajiv256/NeuralCRNGen julia/neuralode.log, a Julia loop's ``println("ODE | loss | ", l)``:
# ``ODE | loss | 0.2007``, beside ``ODE | error: 0.63``): the tag stays in front (a split word there names the split).
_TABLE_ROW = lazy_regex(r"^([A-Za-z][\w.\-]*\s*\|\s*)?([A-Za-z][\w/.\-]*)\s*\|\s*(%s)\s*\|?\s*$" % NUM)


_SUMMED = lazy_regex(r"(?<![\w@/.\-])([A-Za-z][\w]*)==\[(%s)=[^\]]{0,200}\]" % NUM)


# "1       train loss=0.308        train acc=0.832  valid loss=2.737" (BehnamB94/Fingerprint-Matching's
# results/log.txt): a whole number leading the line, then a name and "=" or ":" and a value: its counter.
_LEAD_COUNT = lazy_regex(r"^(\d{1,7})\s+(?=[A-Za-z][A-Za-z_ ]{0,30}?\s*[:=]\s*[-+]?\.?\d)")


# "[0 :    100] loss G : .." (pytorch_GAN_zoo's progressive GANs, AIforMS/PGAN-Paddle): a phase (the scale)
# and the count in it, written with a spaced colon (a clock's "[12:30]" has none): read as "[1,  2000]".
# The count may carry its total, and a dash may part it from bracketed records (the I-JEPA logger's
# family, FalsoMoralista/FGDCC: "[1,   100/ 2562] - [Autoencoder Training] [Autoencoder Loss: 1.9905]").
_LEAD_STEP = lazy_regex(r"^\[(\d+)(?:(?:,|\s+:|:\s)\s*(\d+)(?:\s*/\s*(\d+))?)?\]\s+(?:-\s+)?(?=[A-Za-z\[])")


# "loss: (3, 0.5274)": a printed (step, value) tuple after its name (losses.append((epoch, loss)) written out).
_STEP_TUPLE = lazy_regex(r"^([A-Za-z][\w ]{0,40}?)\s*[:=]\s*\(\s*(\d+)\s*,\s*(%s)\s*\)\s*$" % NUM)


# "[E1] step 10 loss 0.53", "[Ep 3] ...", "[Epoch: 05] Train acc: ..": an epoch in brackets (its name
# maybe cut short to E or Ep).
_LEAD_EPOCH = lazy_regex(r"^\[\s*(?i:ep(?:och)?|e)\s*[:=#]?\s*(\d+)\s*\]\s*(?=[A-Za-z])")


# "Batch   10. loss: 2.302610 [ 1280/60000]": a batch counter leading the line (the PyTorch quickstart's
# print with the batch in front): the count in the epoch, the bracket after it the samples seen.
_LEAD_BATCH = lazy_regex(r"^(?i:batch)(?:[_ ]?(?i:idx|id|index))?\s*[:#=]?\s*(\d+)\s*[.:,|\-]\s*(?=[A-Za-z])")


_SPLIT_WORDS = EVAL_OR_TEST_WORDS | {"train", "training"}


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
    return f"_{word}" if word.lower() in EVAL_OR_TEST_WORDS else ""


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
        ends = [bar.end() for bar in BAR_RENDER.finditer(text)]
        if ends:
            text = text[ends[-1] :]
    for _ in range(12):
        m = _FRAME.match(text)
        if m is None or not m.group(0):
            break
        if m.group(0).strip().strip("[]").strip().lower() in EVAL_OR_TEST_WORDS:
            return text[m.start() :].strip().replace("[", "", 1).replace("]", ":", 1)
        if (tagged := _tagged_split(m.group(0))) is not None:  # "[Diff-Val(Test-Normal)] Epoch 001: loss = .."
            return f"{tagged}: {text[m.end() :].strip()}"
        split = _SPLIT_FRAME.match(m.group(0).strip())
        if split is not None and split[1].lower() in _SPLIT_WORDS:  # "[ Valid | 001/100 ]": its split and count stay
            said = f"{split[1]}: " if split[1].lower() in EVAL_OR_TEST_WORDS else ""
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
    said = [w for w in words if w[:1].isupper() and w.lower() in EVAL_OR_TEST_WORDS]
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


# A line the wandb client prints about its run (uw-math-ai/PolyArithmeticCircuitsRL
# opentensor12-01/codes/scripts/runs/train_curriculum.log): its ``Run summary:`` block of each logged
# series' last value (``wandb:         total_loss 1.50197``) repeats values the loop printed, and its
# notices (``wandb: Synced 5 W&B file(s)``) hold counts: never a record (they had read as one evaluation).
_WANDB_LINE = re.compile(r"^\s*wandb:(?:\s|$)")


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
    """The counter's name of ``iteration_index``, ``epoch_number`` (:data:`_COUNT_WORDS`) and of
    ``iteration_step`` (:func:`_steps_twice`), else ``key``."""
    first, _, rest = key.partition("_")
    if first in _COUNTER_NAMES and (rest in _COUNT_WORDS or _steps_twice(first, rest)):
        return first
    return key


def _steps_twice(first: str, rest: str) -> bool:
    """Whether a name is two step counters' words (``Iteration step: 1300, loss: 5.21``, the logging
    lines of AnyaForger198517/DeepLearning-Homework's train.log; ``iter step``): the step counter."""
    return first in _STEP_NAMES and rest in _STEP_NAMES


def read_line(text: str) -> Record | None:
    """The counters and pairs of one framed line (line number 0; None when it holds neither)."""
    if _FRAME_LINE.match(text) or _WANDB_LINE.match(text) or _config_repr(text):
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
        if key in _PLACED_NAMES and not math.isfinite(v):  # "step: nan", a count of 4000 digits: no count
            continue
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
    if ("oss" in body or "OSS" in body) and (
        ":" in body or "=" in body
    ):  # pixelNeRF: "loss rc:0.2196 rf:0.2424 t:0.4620"
        body = _LOSS_GROUP.sub(_loss_group_pairs, body)
    if "'" in body or '"' in body:
        tag = _KIND_TAG.search(body)
        rec.split = split_named(tag[1]) if tag is not None and tag[1].lower() in EVAL_OR_TEST_WORDS else rec.split
    if "[" in body and "," in body:
        body = _NAMED_LIST.sub(_zipped, body)
        body = _LOSS_LIST.sub(lambda m: _first_listed(m, rec), body)
    if "|" in body:  # Stable-Baselines3's logger
        body = _TABLE_ROW.sub(r"\1\2: \3", body)
    if "==[" in body:  # NGCF, KGAT and their forks: "train==[30.47=16.65 + 13.32 + 0.50]", the total first
        body = _SUMMED.sub(_summed_loss, body)
    if (epoch := _LEAD_EPOCH.match(body)) is not None:
        rec.epoch, body = float(epoch[1]), body[epoch.end() :]
    elif (batch := _LEAD_BATCH.match(body)) is not None:
        rec.inner, body = (float(batch[1]), 0.0), body[batch.end() :]
    if (at := _SPLIT_STEP_AT.match(body)) is not None and at[1].lower() in _SPLIT_WORDS:
        rec.step, body = float(at[2]), body[at.end() :]
        rec.split = split_named(at[1]) if at[1].lower() in EVAL_OR_TEST_WORDS else rec.split
    lead = _LEAD_SPLIT.match(body)  # after a bracketed epoch too: "[Epoch: 5] Valid acc: 0.3 | loss: 2.0"
    if lead and lead[1].lower() in EVAL_OR_TEST_WORDS:
        rec.split = split_named(lead[1])
    elif (counted := _COUNTED_SPLIT.match(body)) and counted[1].lower() in (
        EVAL_OR_TEST_WORDS if counted[2] else _SPLIT_WORDS
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
        rec.epoch, rec.inner, body = float(first[1]), (float(first[2]), float(first[3] or 0)), body[first.end() :]
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
