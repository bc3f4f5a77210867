"""Objective terms: metric names that by convention are a training objective, or a term of one,
without the word "loss" (``nll``, ``ce``, ``x_recon``, ``kl_div_z``, ``reg``).

The general line reader founds its training stream on a loss-like name. Many loops print their
objective under the name of what it is instead; this module is its last tier, used only when a
log's repeated records hold no loss-like name at all. It says which names are objective terms
and which of them, or which sum of them, is the objective:

- a *whole* objective (``objective``, ``nelbo``), or ``total`` printed beside terms,
  is taken alone, as the roles layer takes a total before its components;
- otherwise the *terms* printed on the record are summed (``x_recon + y_recon + kl_div_z``), as
  the roles layer sums loss components when no total is logged; a KL term joins a sum but never
  founds one (alone it is as often PPO's policy-drift measure as a VAE's regulariser);
- a term printed again with a number after it, beside the term itself (DuoVAE's ``y_recon2``
  beside ``y_recon``), is the same term of a second model and is left out of the sum;
- error measures (``mse``, ``mae``, ``rmse``, ``l1``, ``err``) and scores (``acc``, ``psnr``, ...)
  are metrics, never the objective: a loop prints them beside its objective (T2ICount's
  ``reg: .. mae: .. mse: ..``, where mae and mse are the counting error), and printed alone they
  are as often an evaluation table's as the objective. A maximised objective (``elbo``) is no
  loss either. ``--map loss=NAME`` takes any of them. One exception: a record whose only name
  of the objective is ``error`` (``training error``), with no score or other error measure
  beside it, is an old loop's objective (:func:`training_error`).

Pure functions over names: no numpy, no records.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

import msgspec

from ...role_structure import EVAL_WORDS, NOT_A_LOSS, TEST_WORDS, words_of

# Words that name a term of the objective. Where each comes from:
TERM_WORDS = frozenset(
    {
        # negative log-likelihood: torch.nn.NLLLoss / F.nll_loss; fairseq's criterions log "nll_loss";
        # also written out ("neg_log_likelihood", "negative_log_likelihood": _COMPOUNDS)
        "nll",
        # cross-entropy: torch.nn.CrossEntropyLoss / BCELoss / BCEWithLogitsLoss ("ce", "bce"),
        # F.cross_entropy and Keras' categorical_crossentropy ("cross_entropy", "crossentropy"),
        # OpenNMT-py's onmt/utils/statistics.py ("xent", also an alias of loss in roles.py)
        "ce",
        "bce",
        "xent",
        "crossentropy",
        # an autoencoder's or VAE's reconstruction term: pytorch/examples vae/main.py (BCE + KLD),
        # the Keras VAE example's reconstruction_loss, DuoVAE's x_recon / y_recon (models/duovae.py)
        "recon",
        "reconstruction",
        # a regression head's term or a regulariser: T2ICount's density-map regression
        # (utils/regression_trainer.py, get_reg_loss), detectors' cls/reg pairs
        "reg",
        # the Smooth L1 (Huber) box-regression term of Fast/Faster R-CNN and SSD: torch.nn.SmoothL1Loss,
        # GluonCV's SSD and Faster R-CNN scripts print "CrossEntropy=.., SmoothL1=.." (RPN_SmoothL1, ...);
        # found in the name as written (:data:`_SMOOTH_L1`), as the digit is cut off a word's end
        "smoothl1",
        # bits per dimension, the negative log-likelihood of density models in bits: openai/pixel-cnn's
        # train.py prints "bits_per_dim", flow and diffusion repositories "bpd"
        "bpd",
    }
)
# Words that name the whole objective: optimisation loops' "objective"; "nelbo" (also "neg_elbo",
# "negative_elbo"), the negative evidence lower bound a VAE minimises. (Not "obj": YOLO and Darknet
# print "obj" for objectness.)
WHOLE_WORDS = frozenset({"objective", "nelbo"})
# The objective's mathematical symbol printed as a name: a capital ``L`` alone (``L=0.3462
# D=0.3404 PSNR= 4.68 R=0.4500 bpp``: a learned codec's rate-distortion objective L = D + lambda*R).
# Case matters: a lower-case ``l`` is as often a length or a layer.
WHOLE_SYMBOLS = frozenset({"L"})
# A KL divergence term (pytorch/examples vae's KLD; torch.nn.KLDivLoss; DuoVAE's kl_div_z): a
# VAE's regulariser beside its reconstruction term. Alone it founds nothing: PPO and RLHF loops
# print a policy's "kl" / "approx_kl" (Stable-Baselines3's train/approx_kl, CleanRL's
# losses/approx_kl) as a measure of drift, not as what they minimise.
KL_WORDS = frozenset({"kl", "kld", "kldiv"})
# An actor-critic learner's two losses printed as bare symbols, the critic's ``Q`` and the actor's
# ``Pi`` (uw-math-ai/PolyArithmeticCircuitsRL's SAC.py prints ``Q <q_loss>, Pi <policy_loss>, CE
# <ce_loss>``, SpinningUp's LossQ and LossPi without the word loss). The actor's is the loss, as
# the roles take ``actor_loss`` beside ``critic_loss`` (role_structure: the critic's left out); a
# term beside them (that CE) is one the actor's loss adds in. Alone, a bare Q is as often a DQN's
# mean Q value and founds nothing.
CRITIC_SYMBOLS = frozenset({"q"})
ACTOR_SYMBOLS = frozenset({"pi"})
# Words naming a sum beside terms ("total: 3.2 recon: 2.0 kl: 1.2"): the objective those terms add up to.
TOTAL_WORDS = frozenset({"total", "sum"})
# Scores and error measures: metrics, never the objective by their name alone (module docstring).
# An error measure qualifying a term ("recon_mse", "reg_l1") says how the term is computed.
ERROR_WORDS = frozenset({"mse", "mae", "rmse", "l1", "l2", "err", "error", "errors"})
SCORE_WORDS = frozenset(
    {"acc", "accuracy", "top1", "top5", "auc", "f1", "iou", "miou", "map", "psnr", "ssim", "bleu", "elbo", "ppl"}
)
# A maximised objective: no loss (rules judge a loss that falls).
MAXIMISED = frozenset({"elbo"})
# Words written apart that name one vocabulary word.
_COMPOUNDS = (
    ("cross_entropy", "crossentropy"),
    ("cross_ent", "crossentropy"),  # ProtoPNet's train.py prints "cross ent:" (cfchen-duke/ProtoPNet train_and_test.py)
    ("neg_log_likelihood", "nll"),
    ("negative_log_likelihood", "nll"),
    ("bits_per_dim", "bpd"),
    ("neg_elbo", "nelbo"),
    ("negative_elbo", "nelbo"),
)
_COMPOUND_NAMES = frozenset(words for words, _ in _COMPOUNDS)
_SPLIT_WORDS = EVAL_WORDS | TEST_WORDS | {"train", "training", "trn"}
_PATH = re.compile(r"[/.:|]+")
_DIGITS = re.compile(r"\d+$")
_SMOOTH_L1 = re.compile(r"smooth[\W_]*l1(?![0-9])", re.IGNORECASE)


def compound_tail(words: list[str]) -> int:
    """How many of the last ``words`` spell one vocabulary word written apart (:data:`_COMPOUNDS`:
    ``cross entropy``, ``neg log likelihood``, ``bits per dim``), else 1: a name printed before its
    value with only a space between (``cross entropy 2.51``) keeps those words, not its last alone."""
    for n in (3, 2):
        if len(words) >= n and "_".join(words[-n:]).lower() in _COMPOUND_NAMES:
            return n
    return 1


def _words(name: str) -> list[str]:
    """A name's words, lower case, numbers at a word's end cut off (``recon2``: ``recon``)."""
    words = [w for c in _PATH.split(name) if c for w in words_of(c)]
    return [_DIGITS.sub("", w) or w for w in words]


@lru_cache(maxsize=4096)  # a pure function of the name, asked of each record's names again and again
def term_kind(name: str) -> str | None:
    """What a name is as a part of the objective: "whole", "term", "kl", "total" (a sum's name,
    the objective only beside terms), or None (a metric, a setting, anything else)."""
    if name.strip() in WHOLE_SYMBOLS:
        return "whole"
    words = _words(name)
    joined = "_".join(words)
    kinds = set(words) | {kind for words_, kind in _COMPOUNDS if words_ in joined}
    if _SMOOTH_L1.search(name):
        kinds.add("smoothl1")
    if "nelbo" in kinds:
        kinds.discard("elbo")
    if kinds & (NOT_A_LOSS | SCORE_WORDS | MAXIMISED):
        return None
    if kinds & WHOLE_WORDS:
        return "whole"
    if kinds & TERM_WORDS:
        return "term"
    if kinds & KL_WORDS:
        return "kl"
    rest = [w for w in words if w not in _SPLIT_WORDS]
    if rest and set(rest) <= TOTAL_WORDS:
        return "total"
    return None


@lru_cache(maxsize=4096)
def founds(name: str) -> bool:
    """Whether a name may found a training stream when no name says loss: a term or a whole
    objective of the training split (an evaluation's ``val_nll`` is no training stream), or a
    training error (:func:`training_error`)."""
    if training_error(name):
        return True
    return term_kind(name) in ("term", "whole") and not set(_words(name)) & (EVAL_WORDS | TEST_WORDS)


_TRAIN_WORDS = frozenset({"train", "training", "trn"})


def training_error(name: str) -> bool:
    """``error``, ``train_error``, ``training error``: the word error alone or after the training
    split's word. Old loops print their objective so (``Epoch 3 error 0.234``, ``training error:
    0.12``: the MSE a regression net minimises). A rate (``error rate``, ``top1 error``, ``err``,
    ``test error``) is never one; :func:`objective` takes it only on a record with no score."""
    words = _words(name)
    return bool(words) and words[-1] == "error" and all(w in _TRAIN_WORDS for w in words[:-1])


def _lone_error(names: list[str]) -> Objective | None:
    """A training error as the objective (:func:`training_error`): only where it is the record's
    one error name and no score or other error measure is printed beside it (an accuracy beside
    an error says the error is a classification error, one minus the accuracy)."""
    errors = [n for n in names if training_error(n)]
    others = {w for n in names if n not in errors for w in _words(n)}
    if len(errors) != 1 or others & (SCORE_WORDS | ERROR_WORDS | {"rate", "top", "correct", "wrong"}):
        return None
    return Objective((errors[0],), "a training error printed as the objective (old loops' MSE)")


def lone_training_error(names: list[str]) -> str | None:
    """The name of the one training error among ``names`` taken as the objective
    (:func:`_lone_error`), else None."""
    found = _lone_error(names)
    return found.names[0] if found is not None else None


def bare_actor(names: Iterable[str]) -> str | None:
    """The actor's loss among the names one record prints where it prints an actor-critic's two
    losses as bare symbols (:data:`ACTOR_SYMBOLS` beside :data:`CRITIC_SYMBOLS`), else None."""
    names = list(names)
    if not any(n.strip().lower() in CRITIC_SYMBOLS for n in names):
        return None
    actors = [n for n in names if n.strip().lower() in ACTOR_SYMBOLS]
    return actors[0] if len(actors) == 1 else None


class Objective(msgspec.Struct, frozen=True):
    """The objective read from a record's names: one name or the terms to sum, and why."""

    names: tuple[str, ...]
    reason: str
    left_out: tuple[str, ...] = ()  # terms printed again for a second model (``y_recon2``)

    @property
    def name(self) -> str:
        return "+".join(self.names)


def objective(names: Iterable[str]) -> Objective | None:
    """The objective among the names one training record prints (none of them loss-like), or
    None when no name founds one."""
    names = [n for n in names if not set(_words(n)) & (EVAL_WORDS | TEST_WORDS)]
    kinds = {n: term_kind(n) for n in names}
    if not any(founds(n) for n in names):
        return None
    whole = [n for n in names if kinds[n] == "whole"] or [n for n in names if kinds[n] == "total"]
    terms = [n for n in names if kinds[n] in ("term", "kl")]
    if not whole and not any(kinds[n] == "term" for n in terms):
        return _lone_error(names)
    if whole:
        why = "the whole objective by its name" if kinds[whole[0]] == "whole" else f"the total of {len(terms)} terms"
        return Objective((whole[0],), why)
    copies = tuple(n for n in terms if _copy_of(n, terms))
    terms = [n for n in terms if n not in copies]
    if len(terms) == 1:
        return Objective((terms[0],), "an objective term by its name", copies)
    return Objective(tuple(sorted(terms)), f"the sum of {len(terms)} objective terms", copies)


def _copy_of(name: str, terms: list[str]) -> bool:
    """``y_recon2`` beside ``y_recon``: the same term with a number after it, a second model's."""
    base = _DIGITS.sub("", name).rstrip("_-")
    return base != name and base in terms


def evaluated(objective_name: str, names: Iterable[str]) -> str | None:
    """The name among ``names`` that is the same objective term measured on the evaluation split
    (``TRAIN CROSS ENTROPY`` then ``VALID CROSS ENTROPY``, ``train_nll`` and ``val_nll``); where no
    validation split measures it, the test split (ProtoPNet's ``cross ent`` under ``test``, as the roles
    take ``test_loss`` for the eval loss where no ``val_loss`` is logged); else None."""
    if "+" in objective_name:
        return None
    core = [w for w in _words(objective_name) if w not in _SPLIT_WORDS]
    names = [n for n in names if [w for w in _words(n) if w not in _SPLIT_WORDS] == core]
    hits = [n for n in names if set(_words(n)) & EVAL_WORDS] or [n for n in names if set(_words(n)) & TEST_WORDS]
    return hits[0] if len(hits) == 1 else None
