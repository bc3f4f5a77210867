"""Canonical metric roles and the alias table that maps common spellings onto them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from .role_structure import (
    LOSS_WORDS,
    OTHER_BASES,
    TRAIN_WORDS,
    Choice,
    candidates,
    loss_choice,
    other_choice,
    parse,
    words_of,
)

ROLES = ("loss", "eval_loss", "learning_rate", "grad_norm", "step_time", "throughput", "wall_time", "epoch")

# Spellings seen in the wild, compared after lower-casing. Order inside a role
# is preference: the first present name wins.
ALIASES: dict[str, tuple[str, ...]] = {
    "loss": (
        "loss",
        "train_loss",
        "train/loss",
        "loss_step",
        "train_loss_step",
        "train/loss_step",
        "loss/train",
        "training_loss",
        "train/loss_epoch",
        "train_loss_epoch",
        "loss_epoch",
        "total_loss",
        "train/total_loss",
        "trainer/loss",
        "avg_loss",
        "loss/train_step",
        # Keras' TensorBoard callback (train/ subfolder; prefixed when its log folder is read)
        "train/epoch_loss",
        "epoch_loss",
        "train/batch_loss",
        "batch_loss",
        # OpenNMT-py's cross-entropy per target token (onmt/utils/statistics.py)
        "xent",
        "train/xent",
        # the objective's classic name (Theano's deep-learning tutorials, TF1 scripts: ``cost``)
        "cost",
        "train_cost",
        "training_cost",
        "avg_cost",
        "total_cost",
        # verl's PPO/GRPO policy loss (verl/workers/actor/dp_actor.py): the actor's objective, not
        # summed with its entropy and KL terms nor with the critic's vf_loss (another model's loss)
        "actor/pg_loss",
    ),
    "eval_loss": (
        "eval_loss",
        "eval/loss",
        "val_loss",
        "val/loss",
        "validation_loss",
        "validation/loss",
        "loss/val",
        "loss/validation",
        "loss/eval",
        "valid_loss",
        "valid/loss",
        # the thuml forecasting repositories (Informer, Autoformer, Time-Series-Library): "Vali Loss"
        # beside a "Test Loss" that is the held-out test split, not the one early stopping watches
        "vali_loss",
        "val_loss_epoch",
        "val/loss_epoch",
        "eval/avg_loss",
        "avg_loss_eval",
        "test_loss",
        "val_cost",
        "valid_cost",
        "validation_cost",
        "test_cost",
        "validation/epoch_loss",
        "validation/evaluation_loss_vs_iterations",
        "evaluation_loss_vs_iterations",
    ),
    "learning_rate": (
        "learning_rate",
        "lr",
        "train/learning_rate",
        "current_lr",
        "train/lr",
        "lr/group0",
        "lr_0",
        "learning-rate",
        "optimizer/lr",
        "train/epoch_learning_rate",
        "epoch_learning_rate",
    ),
    "grad_norm": (
        "grad_norm",
        "gnorm",
        "train/grad_norm",
        "grad-norm",
        "gradient_norm",
        "grad_norm/total",
        "total_norm",
        "train/gnorm",
        "grad_norm_step",
    ),
    "step_time": (
        "step_time",
        "time/step",
        "train/step_time",
        "iter_time",
        "time_per_step",
        "batch_time",
        "train/iter_time",
        "step_time_s",
    ),
    "throughput": (
        "throughput",
        "samples_per_second",
        "tokens_per_second",
        "train/samples_per_second",
        "train/tokens_per_second",
        "tok/s",
        "samples/s",
        "it/s",
        "tokens_per_sec",
    ),
    "wall_time": ("wall_time", "_timestamp", "timestamp", "time_s", "walltime"),
    "epoch": ("epoch", "train/epoch", "epochs"),
}

# Patterns for families of names (Lightning's LearningRateMonitor writes lr-<Optimizer>).
PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    "learning_rate": (re.compile(r"^lr[-_/][a-z0-9_]+(/pg\d+)?$"),),
}

_LOOKUP = {alias: role for role, names in ALIASES.items() for alias in names}


def role_of(name: str) -> str | None:
    """The role a metric name plays, or None."""
    key = name.strip().lower()
    if key in _LOOKUP:
        return _LOOKUP[key]
    for role, pats in PATTERNS.items():
        if any(p.match(key) for p in pats):
            return role
    return None


def assign_roles(names: Iterable[str], overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """Map roles to metric names: explicit overrides first, then aliases in preference order,
    then the structure of the names (see :mod:`trainlint.role_structure`). A loss that is only
    the sum of components is not a name here: :func:`apply_roles` builds it on a Run."""
    names = list(names)
    return {role: c.name for role, c in choose(names, overrides).items() if len(c.names) == 1}


def choose(
    names: Iterable[str], overrides: Mapping[str, str] | None = None, lengths: Mapping[str, int] | None = None
) -> dict[str, Choice]:
    """Every role's chosen metric(s) with the reason, best source first: --map, exact alias,
    alias pattern, structural total, sum of components."""
    names = list(names)
    out: dict[str, Choice] = {}
    for role, name in (overrides or {}).items():
        parts = _sum_parts(name, names)
        if parts:
            out[role] = Choice(role, parts, "--map", 0)
    tallies = game_tallies(names) | loss_counts(names)
    names = [n for n in names if n not in tallies]  # --map alone may still name one
    mapped = {n for c in out.values() for n in c.names}  # a metric --map gave a role has no other
    by_key = {n.strip().lower(): n for n in names if n not in mapped}
    for role, aliases in ALIASES.items():
        if role in out:
            continue
        hit = next((by_key[a] for a in aliases if a in by_key), None)
        if hit is None:
            hit = next((n for n in names if n not in mapped and role_of(n) == role), None)
        if hit is not None:
            out[role] = Choice(role, (hit,), "alias", 0)
    taken = {n for c in out.values() for n in c.names}
    for role in ("loss", "eval_loss"):
        if role not in out:
            c = loss_choice(role, [n for n in names if n not in taken], lengths)
            if c is not None:
                out[role] = c
                taken.update(c.names)
    for role, name in _BARE_SPLITS.items():  # after every loss-like name: a split's bare name
        if role not in out and name in names:
            out[role] = Choice(role, (name,), f"'{name}': a split's name alone, the only loss-like metric", 2)
            taken.add(name)
    if "loss" not in out and (gan := _bare_gan(names)) is not None:
        out["loss"] = gan
        taken.add(gan.name)
    if "loss" not in out and (measured := _train_split_at_eval(names, taken)) is not None:
        out["loss"] = measured
        taken.add(measured.name)
    if "loss" not in out and "eval_loss" in out:
        # only an eval loss was logged: it is the loss there is to judge (train beats eval, but
        # an eval loss beats nothing); it stops being eval_loss so it is not compared with itself.
        # The same for an eval loss summed from its components (AlphaZero's "Val Pi loss" and
        # "Val V loss": the policy and value heads' validation losses, no training loss printed)
        ev = out.pop("eval_loss")
        why = "the only loss logged is an eval loss" + (f" ({ev.reason})" if len(ev.names) > 1 else "")
        out["loss"] = Choice("loss", ev.names, f"{why}: judged as the loss", 3)
    _choose_others(out, names, taken)
    return out


def _choose_others(out: dict[str, Choice], names: list[str], taken: set[str]) -> None:
    """The learning rate, grad norm and epoch, each by its name, into ``out``: the one in the loss's
    own table first (a document of several tables, each with an ``lr``)."""
    loss = out["loss"].names[0] if "loss" in out and len(out["loss"].names) == 1 else None
    for role in OTHER_BASES:
        if role not in out:
            c = other_choice(role, names, taken, loss)
            if c is not None:
                out[role] = c
                taken.update(c.names)


# A game's outcome tally counts the games lost, not a loss to judge: ``losses`` beside ``wins``, or
# ``loss`` beside both ``win`` and ``draw``, under the same prefix (Alex-code145/Yolah's AlphaZero
# training_log.csv: ``eval_games,eval_win,eval_draw,eval_loss``, the evaluation games won, drawn
# and lost). A bare ``loss`` beside a ``win`` flag alone may be the network's loss: kept.
_TALLIES = {"losses": ("wins",), "loss": ("win", "draw")}


def game_tallies(names: Iterable[str]) -> set[str]:
    """The names in ``names`` that count games lost beside counts of the games' other outcomes."""
    keyed = {n.strip().lower(): n for n in names}
    out: set[str] = set()
    for key, name in keyed.items():
        word = next((w for w in _TALLIES if key.endswith(w)), None)
        if word is None:
            continue
        prefix = key[: len(key) - len(word)]
        if prefix and prefix[-1].isalnum():  # ``val_loss`` splits at a separator, ``xloss`` does not
            continue
        if all(prefix + w in keyed for w in _TALLIES[word]):
            out.add(name)
    return out


# A count of losing outcomes, not a loss to judge: a loss word beside a word that counts
# (Venkatachla/Stock-Market-Analysis' backtest/swing_validation_report.json: ``consecutive_losses``,
# the losing trades in a row, 0 for most stocks, once read as a loss that sat at exactly 0).
_COUNTING_WORDS = frozenset({"consecutive", "streak", "streaks", "count", "num", "number", "days", "trades"})


def loss_counts(names: Iterable[str]) -> set[str]:
    """The names in ``names`` that count losses (``consecutive_losses``, ``loss_count``, ``num_losses``)."""
    out: set[str] = set()
    for name in names:
        words = set(words_of(name.strip().lower().rsplit("/", 1)[-1]))
        if words & LOSS_WORDS and words & _COUNTING_WORDS:
            out.add(name)
    return out


def _train_split_at_eval(names: list[str], taken: set[str]) -> Choice | None:
    """The training split's loss measured at each evaluation (nanoGPT and Karpathy's lecture
    gpt.py print only ``step 500: train loss 2.12, val loss 2.23``, read as ``eval_train_loss``
    beside ``val_loss``), where no training loss is logged otherwise: the training loss there is,
    never the validation one."""
    for n in names:
        words = set(words_of(n.lower().replace("/", "_")))
        if n in taken or not words & {"eval", "evaluation"} or not words & TRAIN_WORDS:
            continue
        if parse(n).kind == "total":
            why = "the training split's loss measured at each evaluation: the only training loss logged"
            return Choice("loss", (n,), why, 1)
    return None


# Logs that name a stream by its split alone (build-nanogpt's "N train X" / "N val Y" lines): the
# loss, taken only when no name says loss at all.
_BARE_SPLITS = {"loss": "train", "eval_loss": "val"}
# A GAN's losses named by their networks alone (``pd.DataFrame({"Generator": g, "discriminator":
# d}).to_csv("losses.csv")``): both names must be there, and the generator's is the model's loss.
_BARE_GENERATOR = frozenset({"g", "gen", "generator"})
_BARE_DISCRIMINATOR = frozenset({"d", "disc", "discriminator", "critic"})


def _bare_gan(names: list[str]) -> Choice | None:
    """The generator's column of a table naming a GAN's two networks alone, else None."""
    gen = [n for n in names if n.strip().lower() in _BARE_GENERATOR]
    disc = [n for n in names if n.strip().lower() in _BARE_DISCRIMINATOR]
    if len(gen) != 1 or len(disc) != 1:
        return None
    why = f"'{gen[0]}': the generator's, beside the discriminator's '{disc[0]}' (the networks' names alone)"
    return Choice("loss", (gen[0],), why, 2)


def _sum_parts(name: str, names: list[str]) -> tuple[str, ...]:
    """``name`` itself when the run has it, else the parts of ``a+b`` when it has them all."""
    if name in names:
        return (name,)
    parts = tuple(p.strip() for p in name.split("+"))
    if len(parts) > 1 and all(p in names for p in parts):
        return parts
    return ()


class RoleMapError(ValueError):
    """--map names a metric the run does not have (a usage error)."""


def check_map(names: Iterable[str], overrides: Mapping[str, str] | None) -> None:
    """Raise RoleMapError when an override names no metric (nor sum of metrics) of the run."""
    names = sorted(names)
    for role, name in (overrides or {}).items():
        if not _sum_parts(name, names):
            raise RoleMapError(f"--map {role}={name}: this run has no metric {name!r}; it has: {_listing(names)}")


def _listing(names: list[str], limit: int = 40, source: str = "PATH") -> str:
    """The names, escaped where a character would break the one-line reason (a JSON key ``"\\n"``)."""
    shown = [n if n.isprintable() else n.encode("unicode_escape").decode("ascii") for n in names[:limit]]
    if len(names) <= limit:
        return ", ".join(shown) or "none"
    return ", ".join(shown) + f" (+{len(names) - limit} more, see trainlint series {source})"


def apply_roles(run: Any, overrides: Mapping[str, str] | None = None) -> None:
    """Give a Run its roles, once, after reading: builds a summed loss when only components
    were logged, and records why each structural choice was made in ``run.meta['role_reasons']``
    (and a note). Raises RoleMapError when --map names a metric the run lacks."""
    check_map(run.series, overrides)
    lengths = {n: len(s) for n, s in run.series.items()}
    chosen = choose(run.series, overrides, lengths)
    objective = _objective(run)
    if objective is not None and "loss" not in (overrides or {}):
        chosen["loss"] = objective
    _declared(run, chosen, overrides or {})
    roles: dict[str, str] = {}
    reasons: dict[str, str] = {}
    for role, c in chosen.items():
        if len(c.names) > 1 and c.rank > 0:
            c = _without_discriminator(run, c)
        if len(c.names) > 1:
            made = _summed(run, c.names)
            if made is None:
                together = _logged_together(run, c)
                if together is None:
                    continue
                c = together
                made = c.names[0] if len(c.names) == 1 else _summed(run, c.names)
            if made is None:
                continue
            roles[role] = made
        else:
            roles[role] = c.names[0]
        if c.rank > 0 or len(c.names) > 1:
            reasons[role] = f"{roles[role]} ({c.reason})"
    _same_optimizer(run, roles, reasons)
    run.roles = roles
    if reasons:
        run.meta["role_reasons"] = reasons
        for role in ("loss", "eval_loss"):
            note = f"{role} = {reasons[role]}" if role in reasons else None
            if note and note not in run.notes:
                run.notes.append(note)


def _objective(run: Any) -> Choice | None:
    """The loss a reader found named in ``run.meta['objective']``: a column a writer's own layout
    says it optimises (CatBoost's learn_error.tsv), or the objective terms the console reader
    took when no printed name says loss (one name or ``a+b``, the terms to sum; its reason in
    ``objective_why``)."""
    name = run.meta.get("objective")
    parts = _sum_parts(name, list(run.series)) if isinstance(name, str) else ()
    if not parts:
        return None
    why = run.meta.get("objective_why")
    return Choice(
        "loss", parts, why if isinstance(why, str) else "the objective, by the layout of the file that wrote it", 1
    )


def _declared(run: Any, chosen: dict[str, Choice], overrides: Mapping[str, str]) -> None:
    """What a reader says of a log whose layout names its losses, where no name says loss (a
    gradient booster's ``train-logloss``): ``meta['eval_objective']`` is the evaluation loss
    (judged as the loss where it is the only one), ``meta['no_loss']`` why no metric is the loss
    (the names that look like one are another network's, or the training set is not told)."""
    meta = run.meta
    name = meta.get("eval_objective")
    if isinstance(name, str) and name in run.series and "eval_loss" not in overrides:
        why = meta.get("eval_objective_why")
        chosen["eval_loss"] = Choice("eval_loss", (name,), why if isinstance(why, str) else "by the log's layout", 1)
        if "loss" not in chosen and "loss" not in overrides:
            ev = chosen.pop("eval_loss")
            chosen["loss"] = Choice("loss", ev.names, f"{ev.reason}; the only loss logged: judged as the loss", 3)
    why = meta.get("no_loss")
    if isinstance(why, str) and "objective" not in meta and "loss" not in overrides:
        chosen.pop("loss", None)
        if "eval_loss" not in overrides and not isinstance(name, str):
            chosen.pop("eval_loss", None)
        note = f"no loss taken: {why}"
        if note not in run.notes:
            run.notes.append(note)


def _without_discriminator(run: Any, c: Choice) -> Choice:
    """Per-optimizer totals (``loss_0``, ``loss_1``) less the one that is a GAN discriminator's:
    its values are those of a discriminator term logged beside it (Coqui's VITS logs ``loss_0``
    equal to ``loss_disc``, then ``loss_1`` the generator's total). Another network's objective
    is never added into the model's loss."""
    import numpy as np

    from .role_structure import discriminator_part, parse

    if not all(parse(n).part.isdigit() for n in c.names):
        return c
    discs = []
    for n, s in run.series.items():
        p = parse(n)
        if n not in c.names and p.kind == "part" and discriminator_part(p.part):
            discs.append(s)

    def is_disc(s: Any) -> bool:
        return any(
            len(d) == len(s)
            and np.array_equal(d.steps, s.steps)
            and np.allclose(d.values, s.values, rtol=1e-9, atol=0.0, equal_nan=True)
            for d in discs
        )

    keep = tuple(n for n in c.names if not is_disc(run.series[n]))
    if not keep or len(keep) == len(c.names):
        return c
    dropped = ", ".join(n for n in c.names if n not in keep)
    why = f"{dropped} left out: the discriminator's (its values are a discriminator term's)"
    return Choice(c.role, keep, why if len(keep) == 1 else f"{c.reason}; {why}", c.rank)


_OPTIMIZER = re.compile(r"_(\d+)$")


def _same_optimizer(run: Any, roles: dict[str, str], reasons: dict[str, str]) -> None:
    """When the loss is one optimizer's total (``loss_1``), its grad norm and LR are that
    optimizer's too (``grad_norm_1``, ``current_lr_1``), not the first optimizer's."""
    m = _OPTIMIZER.search(roles.get("loss", ""))
    if m is None:
        return
    for role in ("grad_norm", "learning_rate"):
        name = roles.get(role, "")
        other = _OPTIMIZER.sub(f"_{m[1]}", name) if _OPTIMIZER.search(name) else name
        if other != name and other in run.series:
            roles[role] = other
            reasons[role] = f"{other} (the optimizer of the loss {roles['loss']})"


def _summed(run: Any, parts: tuple[str, ...]) -> str | None:
    """Add the series ``a+b+...`` to ``run``: the components summed at the steps they share."""
    import numpy as np

    from .arrays import unique

    name = "+".join(parts)
    if name in run.series:
        return name
    series = [run.series[p] for p in parts]
    first = series[0]
    if all(len(s.steps) == len(first.steps) and np.array_equal(s.steps, first.steps) for s in series[1:]):
        # the components logged together, point for point: summed in the order written, so a
        # run relaunched into the same log (its steps starting again) keeps both segments
        run.add(name, first.steps.copy(), np.sum([s.values for s in series], axis=0), first.wall)
        return name
    steps = None
    for s in series:
        u = unique(s.steps)
        steps = u if steps is None else np.intersect1d(steps, u, assume_unique=True)
    if steps is None or len(steps) < 0.5 * max(len(unique(s.steps)) for s in series):
        return None
    total = np.zeros(len(steps))
    wall = None
    for s in series:
        # the last value logged at each shared step
        order = np.argsort(s.steps, kind="stable")
        st, vals = s.steps[order], s.values[order]
        idx = np.searchsorted(st, steps, side="right") - 1
        total += vals[idx]
        if wall is None and s.wall is not None:
            wall = s.wall[order][idx]
    run.add(name, steps, total, wall)
    return name


def _logged_together(run: Any, c: Choice) -> Choice | None:
    """The components printed together at the most steps, where a loss's components were logged at
    steps too far apart to sum (2387734392xs-max/MGS log/training.log: ``MIL Loss`` at every batch
    line, an epoch's ``av_loss | v_loss`` summary, a ``pseudo_loss`` in late epochs only): summed
    when several, else the one; None when two groups hold as many steps (no group is the stream)."""
    import numpy as np

    groups: list[list[str]] = []
    for n in c.names:
        s = run.series[n]
        same = (g for g in groups if np.array_equal(run.series[g[0]].steps, s.steps))
        group = next(same, None)
        if group is None:
            groups.append([n])
        else:
            group.append(n)
    sizes = sorted((len(run.series[g[0]]) for g in groups), reverse=True)
    if len(groups) < 2 or sizes[0] == sizes[1]:
        return None
    best = next(g for g in groups if len(run.series[g[0]]) == sizes[0])
    left = ", ".join(n for n in c.names if n not in best)
    kept = f"'{best[0]}': the loss component" if len(best) == 1 else f"the {len(best)} loss components"
    why = f"{kept} logged at the most steps ({left} at other steps: not summed with it)"
    return Choice(c.role, tuple(best), why, c.rank)


def unmapped_reason(run: Any) -> str:
    """The NOT-CHECKED reason of a run without a loss: the likeliest names and all metric names."""
    names = sorted(run.series)
    counts = loss_counts(names)
    likely = [n for n in candidates(names) if n not in counts]
    hint = f"did you mean --map loss={likely[0]}?" if likely else "use --map loss=NAME"
    more = f" (other candidates: {', '.join(likely[1:])})" if len(likely) > 1 else ""
    source = getattr(run, "source", "PATH") or "PATH"
    why = getattr(run, "meta", {}).get("no_loss")
    found = f"no loss series found ({why})" if isinstance(why, str) else "no loss series found"
    if not names or (isinstance(why, str) and "--map loss=" in why):  # no metric to map, or the reader named it
        return f"{found}{more}; metrics read: {_listing(names, 40, source)}"
    return f"{found}; {hint}{more}; metrics read: {_listing(names, 40, source)}"


def parse_map(items: Iterable[str]) -> dict[str, str]:
    """Parse ``--map ROLE=NAME`` options. Raises ValueError on a malformed item."""
    out: dict[str, str] = {}
    for item in items:
        role, sep, name = item.partition("=")
        role, name = role.strip(), name.strip()
        if not sep or not role or not name:
            raise ValueError(f"--map expects ROLE=NAME, got {item!r}")
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r} in --map (roles: {', '.join(ROLES)})")
        out[role] = name
    return out
