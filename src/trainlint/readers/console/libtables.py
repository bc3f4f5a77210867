"""The progress tables of scikit-learn's gradient boosting, spaCy and MATLAB, whose column names
hold spaces or span two lines (the column-table reader splits a header at every space).


- scikit-learn's gradient boosting (``VerboseReporter``): ``      Iter       Train Loss      OOB
  Improve   Remaining Time `` (``%10s `` then ``%16s `` per name), then one row per reported
  iteration: ``{iter:>10d} {train_score:>16.4f} [{oob_impr:>16.4f}] {remaining_time:>16s}``.
- spaCy v3's console logger: ``E    #       LOSS TOK2VEC  LOSS NER  ENTS_F  ENTS_P  ENTS_R  SCORE``
  over a rule of dashes (one group per column), one row per evaluation. Each trainable pipe's
  loss is a column; the shared embedding layer's (``LOSS TOK2VEC``, ``LOSS TRANS...``) is not a
  task's loss: the loss is the task pipe's, or the sum of the task pipes' where there are several.
- spaCy v2's training loop (its documentation's and courses' ``train_ner.py``): ``nlp.update(...,
  losses=losses)`` adds each batch's loss to ``losses[pipe]``, the loop prints the dict (``Losses
  {'ner': 172.94}``) after each batch, and empties it each epoch: a running sum over the epoch. Each
  batch's loss is its rise from the line before; a fall marks a new epoch. Printed once an epoch
  (the values fall as often as they rise), each value is the epoch's and is read as it is.
- MATLAB's ``trainNetwork`` (Deep Learning Toolbox): a table between ``|====|`` rules, each name
  on two lines (``|  Mini-batch  |`` over ``|     Loss     |``), a row per reported iteration
  (validation cells blank between validations); ``trainnet`` (R2023b on): a header of names
  (``Iteration    Epoch    TimeElapsed    LearnRate    TrainingLoss    ValidationLoss``) over a
  rule of underscores, values under their names, blank where not computed.
- DeepXDE's ``TrainingDisplay`` (deepxde/display.py): ``Step      Train loss      Test loss
  Test metric``, then a row per display step, each loss a list of the loss terms (one per PDE
  residual, boundary and initial condition: ``[1.18e-02, 1.29e-02, 5.61e-01]``); the total is
  their sum. A second ``model.train`` (L-BFGS after Adam) prints the header again and goes on
  from the step it reached.
"""

from __future__ import annotations

import re

from .text import NUM, Capture, Line, lazy_regex

_GB_HEAD = lazy_regex(r"^\s*Iter\s+Train Loss(\s+OOB Improve)?\s+(?:Remaining )?Time\s*$")
_GB_ROW = lazy_regex(r"^\s*(\d+)\s+(%s)(?:\s+(%s))?\s+[\d.]+[sm]\s*$" % (NUM, NUM))
_NUMBER = lazy_regex(r"^%s%%?$" % NUM)
_CLOCK = lazy_regex(r"^\d+:\d\d:\d\d$")


def sklearn_boosting(lines: list[Line]) -> Capture | None:
    """The rows under scikit-learn's ``Iter  Train Loss  [OOB Improve]  Remaining Time`` header."""
    cap = Capture("sklearn-boosting")
    oob: bool | None = None
    for line in lines:
        text = line.final
        head = _GB_HEAD.match(text)
        if head is not None:
            oob = head[1] is not None
            continue
        m = _GB_ROW.match(text) if oob is not None else None
        if m is None or (m[3] is not None) != oob:
            continue
        step = float(m[1])
        cap.add("Train_Loss", step, float(m[2]))
        if m[3] is not None:
            cap.add("OOB_Improve", step, float(m[3]))
        cap.lines.append(line.no)
    return cap if len(cap.lines) >= 2 else None


def _spans(rule: str, char: str) -> list[tuple[int, int]]:
    """The column spans a rule line marks with runs of ``char``."""
    return [(m.start(), m.end()) for m in re.finditer(re.escape(char) + "+", rule)]


def _cells(text: str, spans: list[tuple[int, int]]) -> list[str | None] | None:
    """The row's values, each given to the column whose span it overlaps most (a value is
    aligned under its name, right or left); None where a value falls under no column."""
    out: list[str | None] = [None] * len(spans)
    for m in re.finditer(r"\S+", text):
        overlaps = [min(m.end(), b) - max(m.start(), a) for a, b in spans]
        best = max(range(len(spans)), key=lambda i: overlaps[i])
        if overlaps[best] <= 0 or out[best] is not None:
            return None
        out[best] = m[0]
    return out


_SPACY_EMBEDDERS = ("loss_tok2vec", "loss_trans", "loss_transformer")


def spacy_table(lines: list[Line]) -> Capture | None:
    """spaCy's ``E  #  LOSS <PIPE> ... SCORE`` table: the step from ``#``, the epoch from ``E``."""
    cap = Capture("spacy")
    names: list[str] | None = None
    spans: list[tuple[int, int]] = []
    for prev, line in zip(lines, lines[1:]):
        text = line.final
        head = prev.final.split()
        if head[:2] == ["E", "#"] and "LOSS" in head and set(text.strip()) == {"-", " "}:
            spans = _spans(text, "-")
            names = _spacy_names(prev.final, spans)
            continue
        if names is None:
            continue
        cells = text.split()
        if len(cells) != len(names) or not all(_NUMBER.match(c) for c in cells) or not cells[1].isdigit():
            continue
        step = float(cells[1])
        cap.add_all(step, {n: float(c) for n, c in zip(names, cells) if n != "step"})
        cap.lines.append(line.no)
    if len(cap.lines) < 2:
        return None
    _spacy_objective(cap)
    return cap


def _spacy_objective(cap: Capture) -> None:
    """The task pipes' loss (summed where there are several), not the embedding layer's."""
    tasks = [n for n in cap.cols if n.startswith("loss_") and not n.startswith(_SPACY_EMBEDDERS)]
    if tasks:
        cap.meta["objective"] = "+".join(tasks)
        cap.meta["objective_why"] = (
            f"spaCy's loss of the {tasks[0][5:]} pipe"
            if len(tasks) == 1
            else f"spaCy's pipes' losses summed ({', '.join(t[5:] for t in tasks)}), each pipe trained on its own"
        )
    else:
        cap.meta["no_loss"] = "spaCy's table prints only the embedding layer's loss, no task pipe's"


_V2_ITEM = r"'[\w\-]+': (?:%s)" % NUM
_V2_LOSSES = lazy_regex(r"^\s*Losses\b[^{}]{0,40}\{(%s(?:, %s)*)\}\s*$" % (_V2_ITEM, _V2_ITEM))
_V2_PAIR = lazy_regex(r"'([\w\-]+)': (%s)" % NUM)


def spacy_v2_losses(lines: list[Line]) -> Capture | None:
    """spaCy v2's ``Losses {'ner': 172.94}`` lines: each batch's loss (the running sum's rise), or
    each epoch's where the loop prints once an epoch."""
    rows: list[dict[str, float]] = []
    nos: list[int] = []
    for line in lines:
        m = _V2_LOSSES.match(line.final)
        if m is not None:
            rows.append({f"loss_{k}": float(v) for k, v in _V2_PAIR.findall(m[1])})
            nos.append(line.no)
    if len(rows) < 2:
        return None
    cap = Capture("spacy-v2")
    cap.lines = nos
    totals = [sum(r.values()) for r in rows]
    falls = sum(b < a for a, b in zip(totals, totals[1:]))
    if falls * 4 > len(rows) - 1:  # printed once an epoch: each value is the epoch's
        for i, row in enumerate(rows, 1):
            cap.add_all(float(i), row)
    else:
        _add_batch_losses(cap, rows, totals)
    _spacy_objective(cap)
    return cap


def _add_batch_losses(cap: Capture, rows: list[dict[str, float]], totals: list[float]) -> None:
    """Each batch's loss from a running sum per epoch (the sum falls where an epoch starts)."""
    epoch, prev = 0, None
    for i, (row, total) in enumerate(zip(rows, totals), 1):
        if prev is None or total < sum(prev.values()) or row.keys() != prev.keys():
            epoch, prev = epoch + 1, None
        batch = {k: v - (prev[k] if prev else 0.0) for k, v in row.items()}
        cap.add_all(float(i), batch | {"epoch": float(epoch)})
        prev = row
    cap.notes.append(
        "spaCy v2's losses dict is a running sum over an epoch's batches: each batch's loss is read as "
        "its rise from the line before, a fall marks a new epoch"
    )


def _spacy_names(header: str, spans: list[tuple[int, int]]) -> list[str]:
    names = []
    for a, b in spans:
        word = header[a:b].strip().lower()
        names.append("epoch" if word == "e" else "step" if word == "#" else word.replace(" ", "_"))
    return names


_MATLAB_RULE = lazy_regex(r"^\s*\|=+\|\s*$")


def matlab_table(lines: list[Line]) -> Capture | None:
    """``trainNetwork``'s ``|  Epoch  |  Iteration  | ...`` table, its names on two lines."""
    cap = Capture("matlab")
    names: list[str] | None = None
    spans: list[tuple[int, int]] = []
    texts = [line.final for line in lines]
    for i, line in enumerate(lines):
        text = texts[i]
        if _MATLAB_RULE.match(text) and i + 3 < len(lines) and _MATLAB_RULE.match(texts[i + 3]):
            spans = _pipe_spans(texts[i + 1])
            top, bottom = _slice(texts[i + 1], spans), _slice(texts[i + 2], spans)
            if "Iteration" in top:
                names = [" ".join(f"{a} {b}".split()).replace(" ", "_") for a, b in zip(top, bottom)]
            continue
        if names is not None and "|" in text and not _MATLAB_RULE.match(text):
            _matlab_row(cap, dict(zip(names, _slice(text, spans))), line.no, "Iteration")
    return _matlab_roles(cap, "Mini-batch_Loss", "Validation_Loss")


def _pipe_spans(header: str) -> list[tuple[int, int]]:
    """The cells between the header's ``|`` (the first cell's border may have gone with a prefix
    every line carries: the lines keep their places relative to each other)."""
    bars = [i for i, c in enumerate(header) if c == "|"]
    spans = list(zip(bars, bars[1:]))
    if bars and header[: bars[0]].strip():
        spans.insert(0, (-1, bars[0]))
    return spans


def _slice(text: str, spans: list[tuple[int, int]]) -> list[str]:
    return [text[a + 1 : b].strip() for a, b in spans]


def matlab_trainnet(lines: list[Line]) -> Capture | None:
    """``trainnet``'s table: names over a rule of underscores, values under their names."""
    cap = Capture("matlab")
    names: list[str] | None = None
    spans: list[tuple[int, int]] = []
    for prev, line in zip(lines, lines[1:]):
        text = line.final
        if "Iteration" in prev.final.split() and set(text.strip()) == {"_", " "}:
            spans = _spans(text, "_")
            names = [prev.final[a:b].strip() for a, b in spans]
            continue
        cells = _cells(text, spans) if names is not None else None
        if names is not None and cells is not None:
            _matlab_row(cap, {n: c for n, c in zip(names, cells) if c is not None}, line.no, "Iteration")
    return _matlab_roles(cap, "TrainingLoss", "ValidationLoss")


def _matlab_row(cap: Capture, row: dict[str, str], no: int, step_name: str) -> None:
    step = row.get(step_name, "")
    if not step.isdigit() or not all(_NUMBER.match(v) or _CLOCK.match(v) for v in row.values() if v):
        return
    vals = {n: float(v.rstrip("%")) for n, v in row.items() if v and _NUMBER.match(v) and n != step_name}
    cap.add_all(float(step), vals)
    cap.lines.append(no)


def _matlab_roles(cap: Capture, loss: str, val: str) -> Capture | None:
    if len(cap.lines) < 2 or loss not in cap.cols:
        return None
    cap.meta["objective"], cap.meta["objective_why"] = loss, f"MATLAB's {loss.replace('_', ' ')} column"
    if val in cap.cols:
        cap.meta["eval_objective"], cap.meta["eval_objective_why"] = val, f"MATLAB's {val.replace('_', ' ')} column"
    return cap


_XDE_HEAD = lazy_regex(r"^Step\s+Train loss\s+Test loss\s+Test metric\s*$")
_XDE_ROW = lazy_regex(r"^(\d+)\s+\[([^\]]*)\]\s+\[([^\]]*)\]\s+\[([^\]]*)\]\s*$")


def _terms(cell: str) -> list[float] | None:
    """The numbers of a DeepXDE list cell (``1.18e-02, 1.29e-02``), None if one is not a number."""
    parts = [p.strip() for p in cell.split(",") if p.strip()]
    if not all(_NUMBER.match(p) or p in ("nan", "inf", "-inf") for p in parts):
        return None
    return [float(p) for p in parts]


def deepxde_table(lines: list[Line]) -> Capture | None:
    """DeepXDE's ``Step  Train loss  Test loss  Test metric`` rows: each loss the sum of its terms."""
    cap = Capture("deepxde")
    head = False
    for line in lines:
        text = line.final
        if _XDE_HEAD.match(text):
            head = True
            continue
        m = _XDE_ROW.match(text) if head else None
        cells = [_terms(m[i]) for i in (2, 3, 4)] if m is not None else None
        if m is None or cells is None or any(c is None for c in cells) or not cells[0]:
            continue
        train, test, metric = (c or [] for c in cells)
        row = {"train_loss": sum(train)} | ({"test_loss": sum(test)} if test else {})
        if len(train) > 1:
            row |= {f"train_loss_term{i}": v for i, v in enumerate(train)}
        row |= {f"test_metric{i}" if len(metric) > 1 else "test_metric": v for i, v in enumerate(metric)}
        cap.add_all(float(m[1]), row)
        cap.lines.append(line.no)
    return cap if len(cap.lines) >= 2 else None


RECOGNISERS = (
    (deepxde_table, "Train loss"),
    (sklearn_boosting, "Train Loss"),
    (spacy_table, "LOSS "),
    (spacy_v2_losses, "Losses "),
    (matlab_table, "|===="),
    (matlab_trainnet, "____"),
)
