"""AllenNLP's ``allennlp train`` console output.

Each epoch draws a training bar and a validation bar, the metrics in the bar's description,
``||`` before the bar (``accuracy: 0.50, loss: 0.69 ||: 100%|####| 50/50 [..]``); the trainer logs
``Training`` and ``Validating`` before each, and at the epoch's end ``tensorboard_writer`` (later
``allennlp.training.trainer``) logs a table: ``Training |  Validation`` and a row per metric,
``loss  |  0.693  |  0.701`` (``N/A`` where a side has none). Older releases log ``Training loss :
0.69    Validation loss : 0.70`` instead. One point per epoch: the table's (or that line's) values,
the validation side as ``val_<name>``; a log with neither gives each epoch's finished bars, a bar
after the ``Validating`` line (or, with no such lines, one whose count differs from the epoch's
first bar's) the validation side.
"""

from __future__ import annotations

from .text import NUM, Capture, Line, lazy_regex

_HEAD = lazy_regex(r"^\s*Training\s*\|\s*Validation\s*$")
_ROW = lazy_regex(r"^\s*([A-Za-z_][\w/.\-]*)\s*\|\s*(%s|N/A)\s*\|\s*(%s|N/A)\s*$" % (NUM, NUM))
_OLD = lazy_regex(r"^\s*Training ([\w/.\-]+)\s*:\s*(%s)\s+Validation \1\s*:\s*(%s)\s*$" % (NUM, NUM))
_BAR = lazy_regex(r"^(.*?)\s*\|\|:\s+100%\|[^|]*\|\s*(\d+)/(\d+)")
_PHASE = lazy_regex(r"^\s*(Training|Validating)\s*$")
_PAIR = lazy_regex(r"([A-Za-z_][\w/.\-]*): (%s)(?=,|$)" % NUM)


def _put(cap: Capture, epoch: float, name: str, train: str, val: str) -> None:
    if name.endswith("memory_MB"):  # the process's peak memory: no metric of the model
        return
    if train != "N/A":
        cap.add(name, epoch, float(train))
    if val != "N/A":
        cap.add(f"val_{name}", epoch, float(val))


def _tables(lines: list[Line]) -> Capture:
    cap = Capture("allennlp")
    epoch, in_table = 0.0, False
    for line in lines:
        text = line.final
        if _HEAD.match(text):
            epoch, in_table = epoch + 1, True
            continue
        m = _ROW.match(text) if in_table else None
        if m is None:
            in_table = False
            m = _OLD.match(text)
            if m is None:
                continue
            if not cap.lines or cap.lines[-1] < line.no - 3:  # the old lines of one epoch come together
                epoch += 1
        _put(cap, epoch, m[1], m[2], m[3])
        cap.lines.append(line.no)
    return cap


def _bars(lines: list[Line]) -> Capture:
    cap = Capture("allennlp")
    epoch, phase, first_total = 0.0, "", ""
    for line in lines:
        text = line.final
        p = _PHASE.match(text)
        if p is not None:
            phase = p[1]
            continue
        m = _BAR.match(text)
        if m is None:
            continue
        val = phase == "Validating" if phase else bool(first_total) and m[3] != first_total
        if not val:
            epoch, first_total = epoch + 1, first_total or m[3]
        for name, value in _PAIR.findall(m[1]):
            cap.add(f"val_{name}" if val else name, epoch, float(value))
        cap.lines.append(line.no)
    return cap


def allennlp_log(lines: list[Line]) -> Capture | None:
    """The epoch table (or the old ``Training x : .. Validation x : ..`` lines) where the log has
    them, else the finished ``||:`` bars; one point per epoch."""
    cap = _tables(lines)
    if len(cap.cols.get("loss", ((), ()))[0]) < 2:
        cap = _bars(lines)
    if len(cap.cols.get("loss", ((), ()))[0]) < 2:
        return None
    cap.meta["steps_are"] = "epochs"
    return cap


RECOGNISERS = ((allennlp_log, "||: "),)
