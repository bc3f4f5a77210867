"""Role discovery by the structure of metric names, for names the alias table does not know.

A name is cut into path components (``/``, ``.``, ``:``) and words (``_``, ``-``, spaces,
CamelCase). Words saying which split it is (train / val / eval / valid / test) may sit in any
position; words saying how it was aggregated (epoch, step, avg, total, stats, ...) are ignored.
What remains tells a loss (``TrainIterStats/loss``, ``EvalStats/avg_loss``, ``Loss/total_loss``,
``lm loss``) from a component of one (``train/box_loss``, ``loss_mel``, ``loss_0``).

Pure functions over names (and, for tie-breaks, series lengths): no numpy, no readers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import msgspec

TRAIN_WORDS = frozenset({"train", "training", "trn"})
# "vali": the thuml forecasting repositories' spelling (Informer, Autoformer, Time-Series-Library: "Vali Loss");
# "validate": a loop's validate() printed as the split ("Train Loss: .. Validate Loss ..").
# "cv": the cross-validation set, the held-out data of Kaldi's recipes, WeNet and ESPnet (WeNet's cv_loss)
# "heldout": the held-out set (``train=35.0026  heldout=26.8717``)
EVAL_WORDS = frozenset(
    {"val", "vali", "valid", "validate", "validation", "eval", "evaluation", "dev", "evaluate", "cv", "heldout"}
)
TEST_WORDS = frozenset({"test", "testing"})
# A split word that is a verb names its split by the split's short name ("validate epoch 1" is "val").
_VERB_SPLIT = {"validate": "val", "validating": "val", "testing": "test", "evaluating": "eval"}


def split_named(word: str) -> str:
    """The name a split word gives its values' split: a verb's short name, any other word as written."""
    return _VERB_SPLIT.get(word.lower(), word)


# How a value was aggregated or where a logger filed it: not part of what it measures.
NOISE_WORDS = frozenset(
    {
        "epoch",
        "epochs",
        "step",
        "steps",
        "iter",
        "iters",
        "iteration",
        "batch",
        "stats",
        "stat",
        "avg",
        "average",
        "mean",
        "total",
        "tot",
        "running",
        "overall",
        "sum",
        "all",
        "full",
        "reduced",
        "global",
        "value",
        "metrics",
        "metric",
        "scalar",
        "scalars",
        "summary",
        "trainer",
        "model",
        "optimizer",
        "objective",
        "charts",
        "info",
        "log",
        "logs",
        "main",
        "lm",
        "smoothed",
        "ema",
        "per",
        "sample",
        "token",
        "tokens",
        "update",
        "updates",
        "on",
        "of",
        "set",
        "data",
        "split",
    }
)
# A name holding one of these words is about the loss, not the loss (loss scale, best loss, ...).
NOT_A_LOSS = frozenset(
    {
        "scale",
        "scaler",
        "scaling",
        "weight",
        "weights",
        "coef",
        "coeff",
        "lambda",
        "best",
        "min",
        "max",
        "std",
        "var",
        "variance",
        "grad",
        "norm",
        "ratio",
        "count",
        "num",
        "time",
        "delta",
        "diff",
        "improvement",
        "rank",
        "lr",
        "patience",
        "threshold",
        "target",
        "ppl",
        "perplexity",
        # a score computed from the loss: a membership-inference attack's "Loss AUC" (Roushelfy/LLM_HW3's
        # ppl_based.log: the attack's AUC per checkpoint); "acc" stays a loss word's neighbour
        # ("acc_loss": a loss accumulated over the batches)
        "auc",
        "auroc",
        "accuracy",
    }
)
# "tot": the total abbreviated (Robbie-Luo/video_action_detection's "Loc Loss: .., Cls Loss: .., Tot Loss: ..")
TOTAL_WORDS = frozenset({"total", "tot", "lm", "overall", "sum", "all", "full"})
LOSS_WORDS = frozenset({"loss", "losses"})

# Base names of the other roles, matched against a name's last component once split words are gone.
OTHER_BASES: dict[str, tuple[str, ...]] = {
    "learning_rate": (
        "learning_rate",
        "lr",
        "learningrate",
        "learning-rate",
        "current_lr",
    ),
    "grad_norm": (
        "grad_norm",
        "gradient_norm",
        "gnorm",
        "grad-norm",
        "total_norm",
        "norm",
    ),
    "epoch": ("epoch",),
}

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD_SEP = re.compile(r"[_\-\s]+")
_PATH_SEP = re.compile(r"[/.:|]+")


class Parsed(msgspec.Struct, frozen=True):
    name: str
    split: str | None  # "train", "eval", "test" or None
    kind: str | None  # "total" (a whole loss), "part" (a component of one), or None
    part: str  # the component's own words ("box", "mel", "0"); "" for a total
    explicit_total: bool  # says "total" / "lm" itself


# A loss numbered without a separator ("Loss1" ... "Loss6"): the loss word and its number
_NUMBERED_LOSS = re.compile(r"^(loss(?:es)?)(\d+)$")
# A split word glued to the loss word in one lowercase or capitalised word ("trloss", "valloss", "testloss_1": DISGEN's
# ``Epoch: 50, trloss: 1.05, ..., valloss: 0.56, testloss_1: 0.52``): the split, then the loss; "tr"
# abbreviates train only so glued.
_GLUED_SPLIT_LOSS = re.compile(r"^(tr|trn|train|val|valid|vali|eval|dev|test)(loss(?:es)?)$")
# One letter glued to the loss word ("ploss", "vloss": a PPO loop's ``ploss=-0.0165 vloss=   19.1``, the
# policy's and the value head's losses; "gloss", "dloss": a GAN's): that letter's component of the loss.
# Not "t", "v" or "e", which as often abbreviate a split ("tloss  vloss": train and validation).
_GLUED_PART_LOSS = re.compile(r"^([a-df-suw-z])(loss(?:es)?)$")


def _word(w: str) -> list[str]:
    """One word's parts: a numbered loss's word and number, a glued split's split and loss word."""
    m = _NUMBERED_LOSS.match(w.lower())
    if m:
        return list(m.groups())
    if (glued := _GLUED_SPLIT_LOSS.match(w.lower())) is not None:
        return ["train" if glued[1] == "tr" else glued[1], glued[2]]
    if (part := _GLUED_PART_LOSS.match(w.lower())) is not None:
        return [part[1], part[2]]
    return [w.lower()] if w else []


def words_of(component: str) -> list[str]:
    out: list[str] = []
    for chunk in _WORD_SEP.split(component):
        for w in _CAMEL.split(chunk):
            out.extend(_word(w))
    return out


def name_words(name: str) -> set[str]:
    """The words of every component of ``name`` (``actor/pg_loss``: actor, pg, loss)."""
    return {w for c in _PATH_SEP.split(name.strip()) if c for w in words_of(c)}


def parse(name: str) -> Parsed:
    """What a metric name says about itself."""
    comps = [c for c in _PATH_SEP.split(name.strip()) if c]
    split = None
    all_words = [words_of(c) for c in comps]
    flat = {w for ws in all_words for w in ws}
    if flat & EVAL_WORDS:
        split = "eval"
    elif flat & TEST_WORDS:
        split = "test"
    elif flat & TRAIN_WORDS:
        split = "train"
    loss_at = [i for i, ws in enumerate(all_words) if set(ws) & LOSS_WORDS]
    if not loss_at or flat & NOT_A_LOSS or _setting_of_loss(all_words[loss_at[-1]]):
        return Parsed(name, split, None, "", False)
    idx = loss_at[-1]
    skip = TRAIN_WORDS | EVAL_WORDS | TEST_WORDS | NOISE_WORDS | LOSS_WORDS
    if _value_head(all_words[idx]):
        skip = skip - {"value"}
    own_skip = skip - {"data"} if _data_term(all_words[idx], split) else skip
    part_words = [w for w in all_words[idx] if w not in own_skip]
    outside = [w for i, ws in enumerate(all_words) if i != idx for w in ws if w not in skip]
    explicit = bool(set(all_words[idx]) & TOTAL_WORDS)
    if part_words or outside:
        return Parsed(name, split, "part", "_".join(part_words or outside), explicit)
    return Parsed(name, split, "total", "", explicit)


# A loss's hyperparameter named after it (detectron2's config dump: ``FOCAL_LOSS_ALPHA: 0.25``,
# ``SMOOTH_L1_LOSS_BETA: 0.1``): a setting, not a loss. Before the loss word the same word names the
# loss (SAC's ``alpha_loss``, the temperature's loss).
_LOSS_SETTINGS = frozenset({"alpha", "beta", "gamma"})


def _setting_of_loss(words: list[str]) -> bool:
    """Whether a hyperparameter's word follows the loss word (``focal_loss_alpha``)."""
    loss = [i for i, w in enumerate(words) if w in LOSS_WORDS]
    return bool(loss) and bool(set(words[loss[-1] + 1 :]) & _LOSS_SETTINGS)


def _data_term(words: list[str], split: str | None) -> bool:
    """Whether ``data`` names the data-fit term of the loss, not the split it was measured on:
    a physics-informed network's ``data_loss`` beside its ``mean_loss`` or ``physics_loss``
    (BesT1CooKie1/nn_oedometer's Lightning metrics.csv: ``data_loss,epoch,mean_loss,step``). With
    a split word the data is the split's ("train data loss", "loss on val data")."""
    return split is None and "data" in words and bool(set(words) & LOSS_WORDS)


def _value_head(words: list[str]) -> bool:
    """Whether ``value`` names what the loss measures: a reinforcement learner's value-function
    loss (``value_loss``, ``ValueLoss``, "Value Loss" of A2C/PPO scripts, a component beside the
    policy loss), not how the loss was reported (``loss_value``, ``loss/value``)."""
    loss = [i for i, w in enumerate(words) if w in LOSS_WORDS]
    return bool(loss) and "value" in words[: loss[0]]


class Choice(msgspec.Struct):
    role: str
    names: tuple[str, ...]  # one name, or the components to sum
    reason: str
    rank: int  # 0 exact alias, 1 structural total, 2 sum of components

    @property
    def name(self) -> str:
        return self.names[0] if len(self.names) == 1 else "+".join(self.names)


def _split_ok(role: str, p: Parsed) -> bool:
    if role == "loss":
        return p.split in (None, "train")
    return p.split in ("eval", "test")


def _total_key(p: Parsed, lengths: Mapping[str, int]) -> tuple:
    # an explicit total first; then val/eval over test, train over unmarked; then more points
    return (
        not p.explicit_total,
        p.split == "test",
        p.split is None,
        -lengths.get(p.name, 0),
        len(p.name),
        p.name,
    )


def loss_choice(role: str, names: Iterable[str], lengths: Mapping[str, int] | None = None) -> Choice | None:
    """The structural choice for ``loss`` or ``eval_loss`` among ``names`` (none an exact alias)."""
    lengths = lengths or {}
    parsed = [p for p in map(parse, names) if p.kind and _split_ok(role, p)]
    totals = sorted((p for p in parsed if p.kind == "total"), key=lambda p: _total_key(p, lengths))
    parts = [p for p in parsed if p.kind == "part"]
    if totals:
        best = totals[0]
        same = [p for p in parts if p.split == best.split]
        why = f"total of {len(same)} loss components" if same else _structural_why(role, best)
        if len(totals) > 1:
            why += f"; also {len(totals) - 1} other candidate(s): {', '.join(p.name for p in totals[1:4])}"
        return Choice(role, (best.name,), why, 1)
    if not parts:
        return None
    group = _component_group(parts)
    left = any(map(_discriminator, parts)) and not any(map(_discriminator, group))
    critic = left and _actor_critic(parts, group)
    if len(group) == 1:
        kept = "the actor's loss (the critic's left out)" if critic else "the generator's loss"
        return Choice(role, (group[0].name,), kept if left else "the only loss-like metric", 2)
    names_ = tuple(sorted(p.name for p in group))
    what = "per-optimizer losses" if all(p.part.isdigit() for p in group) else "loss components"
    left_out = f"; the {'critic' if critic else 'discriminator'}'s left out" if left else ""
    return Choice(role, names_, f"sum of {len(group)} {what} (no total logged{left_out})", 2)


def _structural_why(role: str, p: Parsed) -> str:
    where = {"train": "train split", "eval": "eval split", "test": "test split"}.get(p.split or "", "")
    base = "a loss by its name" if not where else f"a loss of the {where} by its name"
    return base


def _component_group(parts: list[Parsed]) -> list[Parsed]:
    """The components to add up: per-optimizer totals (loss_0, loss_1) when logged, else the
    components of the best-represented split (train over unmarked, val over test). A GAN's
    discriminator terms (``loss_D_A``, ``Loss_D``, ``d_loss``, ``img_d``) are another network's
    objective: the model's loss is the generator's total where it is logged (``Loss_G``,
    ``Generator Loss``; an auxiliary classifier's loss beside it is a third network's), else the
    sum of the terms that are not the discriminator's."""
    parts = _without_quartiles(parts)
    parts = _without_rescaled_copies(parts)
    numbered = [p for p in parts if p.part.isdigit()]
    if len(numbered) >= 2:
        return sorted(numbered, key=lambda p: p.name)
    model = [p for p in parts if not _discriminator(p)]
    if model and len(model) < len(parts):
        whole = [p for p in model if p.part in _GENERATOR]  # the generator's own total (Loss_G, Generator Loss)
        whole.sort(key=lambda p: not p.explicit_total)  # loss_gen_all over VITS's adversarial term loss_gen
        parts = whole[:1] or model
    by_split: dict[str | None, list[Parsed]] = {}
    for p in parts:
        by_split.setdefault(p.split, []).append(p)
    for key in ("train", "eval", None, "test"):
        if key in by_split:
            return sorted(by_split[key], key=lambda p: p.name)
    return []


# A term's value in one quarter of the diffusion timesteps (openai/improved-diffusion and
# guided-diffusion log ``{term}_q0`` .. ``{term}_q3`` beside each term: ``loss_q2``, ``mse_q0``;
# wdm-3d's ``mse_loss_q1_mean`` beside ``mse_loss_mean``): the term broken down, not another term.
_QUARTILE = re.compile(r"(.*?)_?q[0-3]")


def _without_quartiles(parts: list[Parsed]) -> list[Parsed]:
    """``parts`` less the per-timestep-quartile breakdowns of a term also among them (:data:`_QUARTILE`)."""
    terms = {p.part.lower() for p in parts}
    return [p for p in parts if not ((m := _QUARTILE.fullmatch(p.part.lower())) and m[1] in terms)]


# A loss rescaled before backward (divided by the gradient-accumulation steps, or multiplied by an AMP
# loss scale): a copy of the loss, not a term of it. I-M-Comet/FM's metrics.jsonl logs ``loss_scaled``
# beside the JEPA target loss ``loss_tgt_mean`` and a ``vicreg_loss``.
_RESCALED = frozenset({"scaled", "rescaled"})


def _without_rescaled_copies(parts: list[Parsed]) -> list[Parsed]:
    """``parts`` less a rescaled copy of the loss (:data:`_RESCALED`), where other components remain."""
    kept = [p for p in parts if p.part.lower() not in _RESCALED]
    return kept or parts


def _actor_critic(parts: list[Parsed], group: list[Parsed]) -> bool:
    """Whether the discriminator-like terms left out are an actor-critic learner's critic (SAC,
    DDPG, TD3: ``actor_loss`` beside ``critic_loss``), not a WGAN's critic beside its generator."""
    actor = any({"actor", "policy", "pi", "pg"} & set(p.part.lower().split("_")) for p in group)
    return actor and all("critic" in p.part.lower().split("_") for p in parts if _discriminator(p))


_DISCRIMINATOR = frozenset({"d", "disc", "discriminator", "critic"})
_GENERATOR = frozenset({"g", "gen", "generator"})


def _discriminator(p: Parsed) -> bool:
    return discriminator_part(p.part)


def discriminator_part(part: str) -> bool:
    """Whether a loss component names a GAN's discriminator: ``D`` (or ``disc``, ``critic``) as its
    first or last word (``D_A``, ``d_real+fake``, ``img_d``)."""
    words = part.lower().split("_")
    return words[0] in _DISCRIMINATOR or words[-1] in _DISCRIMINATOR


def other_choice(role: str, names: Iterable[str], taken: set[str], beside: str | None = None) -> Choice | None:
    """learning_rate / grad_norm / epoch by the last component of a name (``optimizer/lr``,
    ``TrainIterStats/learning_rate``, ``train/grad_norm_0``); the one in the same table as the
    loss ``beside`` first (:func:`_table_of`), then the shortest."""
    bases = OTHER_BASES.get(role, ())
    found = []
    for n in names:
        if n in taken:
            continue
        p = parse(n)
        if p.split in ("eval", "test"):
            continue
        last = [c for c in _PATH_SEP.split(n.strip().lower()) if c]
        if not last:
            continue
        kept = [w for w in words_of(last[-1]) if w not in TRAIN_WORDS | {"epoch", "step"} or role == "epoch"]
        while kept and kept[-1].isdigit():  # lr_0, current_lr_0: the first param group
            kept.pop()
        core = "_".join(kept)
        if core in bases or last[-1] in bases:
            if role == "grad_norm" and core == "norm" and not any("grad" in c for c in last):
                continue
            found.append(n)
    if not found:
        return None
    table = _table_of(beside) if beside else None
    best = min(found, key=lambda n: (table is not None and _table_of(n) != table, len(n), n))
    return Choice(role, (best,), f"{role.replace('_', ' ')} by its name", 1)


# One document's tables each log a learning rate (gkrls/straggle-ml-experiments' rank4.json: an
# ``lr`` in its per-epoch records, 0 at the end of the cosine schedule, and one in its per-step
# records): the one logged beside the loss is the one on the loss's steps.
def _table_of(name: str) -> str | None:
    """The table a read document's metric came from (``updates/lr``: ``updates``); None for a bare name."""
    table, sep, _ = name.rpartition("/")
    return table if sep else None


def candidates(names: Iterable[str], limit: int = 3) -> list[str]:
    """The names most likely meant as the loss when nothing was chosen (eval losses, anything
    with 'loss' or 'nll'/'ce'/'objective' in it), best first."""
    scored = []
    for n in names:
        ws = {w for c in _PATH_SEP.split(n) for w in words_of(c)}
        score = 0
        if ws & LOSS_WORDS:
            score = 3 if not ws & NOT_A_LOSS else 1
        elif ws & {
            "nll",
            "ce",
            "xent",
            "entropy",
            "objective",
            "cost",
            "error",
            "mse",
            "mae",
        }:
            score = 2
        if score:
            scored.append((-score, len(n), n))
    return [n for _, _, n in sorted(scored)[:limit]]
