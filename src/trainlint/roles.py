"""Canonical metric roles and the alias table that maps common spellings onto them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

ROLES = ("loss", "eval_loss", "learning_rate", "grad_norm", "step_time",
         "throughput", "wall_time", "epoch")

# Spellings seen in the wild, compared after lower-casing. Order inside a role
# is preference: the first present name wins.
ALIASES: dict[str, tuple[str, ...]] = {
    "loss": ("loss", "train_loss", "train/loss", "loss_step", "train_loss_step",
             "train/loss_step", "loss/train", "training_loss", "train/loss_epoch",
             "train_loss_epoch", "loss_epoch", "total_loss", "train/total_loss",
             "trainer/loss", "avg_loss", "loss/train_step",
             # Keras' TensorBoard callback (train/ subfolder; prefixed when its log folder is read)
             "train/epoch_loss", "epoch_loss", "train/batch_loss", "batch_loss"),
    "eval_loss": ("eval_loss", "eval/loss", "val_loss", "val/loss", "validation_loss",
                  "validation/loss", "loss/val", "loss/validation", "loss/eval",
                  "valid_loss", "valid/loss", "val_loss_epoch", "val/loss_epoch",
                  "eval/avg_loss", "avg_loss_eval", "test_loss",
                  "validation/epoch_loss", "validation/evaluation_loss_vs_iterations",
                  "evaluation_loss_vs_iterations"),
    "learning_rate": ("learning_rate", "lr", "train/learning_rate", "current_lr",
                      "train/lr", "lr/group0", "lr_0", "learning-rate", "optimizer/lr",
                      "train/epoch_learning_rate", "epoch_learning_rate"),
    "grad_norm": ("grad_norm", "gnorm", "train/grad_norm", "grad-norm", "gradient_norm",
                  "grad_norm/total", "total_norm", "train/gnorm", "grad_norm_step"),
    "step_time": ("step_time", "time/step", "train/step_time", "iter_time",
                  "time_per_step", "batch_time", "train/iter_time", "step_time_s"),
    "throughput": ("throughput", "samples_per_second", "tokens_per_second",
                   "train/samples_per_second", "train/tokens_per_second", "tok/s",
                   "samples/s", "it/s", "tokens_per_sec"),
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
    """Map roles to metric names: explicit overrides first, then aliases in preference order."""
    names = list(names)
    roles: dict[str, str] = {}
    for role, name in (overrides or {}).items():
        if name in names:
            roles[role] = name
    for role, aliases in ALIASES.items():
        if role in roles:
            continue
        by_key = {n.strip().lower(): n for n in names}
        for alias in aliases:
            if alias in by_key:
                roles[role] = by_key[alias]
                break
        else:
            for n in names:
                if role_of(n) == role:
                    roles[role] = n
                    break
    return roles


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
