"""The general line reader's Capture of a log: its streams, the objective of a log that names no
loss, and the notes that say what was read and what was not."""

from __future__ import annotations

import msgspec

from ....role_structure import parse
from ....roles import role_of
from ..objectives import Objective, bare_actor, evaluated, founds, objective, training_error
from ..text import Capture, Line, lazy_regex
from .lines import MIN_REPEAT, Record
from .streams import (
    Shape,
    lone_starts,
    records,
    shapes,
    training_loss,
    training_records,
    training_steps,
    without_reprints,
)

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
    train, moved = training_records(recs, loss)
    train, reprints = without_reprints(train)
    steps, how = training_steps(train, recs)
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
    if how != "order" and (lone := lone_starts(steps)):
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
