"""Tokenizer-folder rules (TL240-TL269). The subject is a
:class:`trainlint.inspectors.tokenizer_folder.TokenizerFolder` read from plain JSON."""

from __future__ import annotations

import re
from typing import Any

from ..registry import Context, NotChecked, StandDown, rule
from ..verdict import Finding

UNLIMITED = 1e18  # transformers writes int(1e30) for "no limit"


def _need(tf: Any, name: str) -> Any:
    if name not in tf.files:
        raise NotChecked(f"no readable {name}")
    return tf.files[name]


@rule(
    code="TL240",
    name="eos-token-missing",
    category="tokenizer",
    severity="FAIL",
    target="tokenizer",
    summary="No end-of-sequence token anywhere (tokenizer config, special tokens map, model config).",
    explanation="""
Without an EOS token the training data carries no end marker and generation has
nothing to stop on: the model runs to max_new_tokens. Try: set eos_token in
tokenizer_config.json (and eos_token_id in config.json / generation_config.json).""",
)
def eos_missing(ctx: Context) -> Finding:
    tf = ctx.subject
    ids = tf.config_ids("eos_token_id")
    if "eos" in tf.specials or ids:
        raise StandDown(f"eos token {tf.specials.get('eos')!r} / ids {ids}")
    if tf.broken:  # an unreadable file may be where the EOS token is declared: no false FAIL
        raise NotChecked(f"{', '.join(sorted(tf.broken))} unreadable (TL247); the EOS token may be declared there")
    looked = [
        n
        for n in ("tokenizer_config.json", "special_tokens_map.json", "config.json", "generation_config.json")
        if n in tf.files
    ]
    return ctx.fire(f"no eos_token or eos_token_id in {', '.join(looked) or 'any readable file'}", looked_in=looked)


@rule(
    code="TL241",
    name="pad-is-eos",
    category="tokenizer",
    severity="WARN",
    target="tokenizer",
    summary="The pad token is the EOS token (or among the EOS ids): masking padding masks every EOS.",
    explanation="""
Collators mask padding out of the loss by token id (labels = -100 where input_ids ==
pad_token_id). When pad and EOS share an id, every EOS is masked too, so the model never
learns to stop. Try: use a dedicated pad token (an unused reserved token) or mask by the
attention mask instead of the id.""",
)
def pad_is_eos(ctx: Context) -> Finding:
    tf = ctx.subject
    pad, eos = tf.specials.get("pad"), tf.specials.get("eos")
    pad_id = tf.token_id("pad")
    if pad_id is None:
        pad_id = next(iter(tf.config_ids("pad_token_id").values()), [None])[0]
    if pad is None and pad_id is None:
        raise NotChecked("no pad token set")
    eos_ids = {i for ids in tf.config_ids("eos_token_id").values() for i in ids}
    if tf.token_id("eos") is not None:
        eos_ids.add(tf.token_id("eos"))
    same = (pad is not None and pad == eos) or (pad_id is not None and pad_id == tf.token_id("eos"))
    if same:
        return ctx.fire(
            f"pad token {pad!r} (id {pad_id}) is the EOS token {eos!r}: masking padding by id masks every EOS",
            pad_token=pad,
            pad_id=pad_id,
            eos_token=eos,
            eos_ids=sorted(eos_ids),
        )
    if pad_id is not None and pad_id in eos_ids:  # e.g. a second stop id in generation_config
        return ctx.fire(
            f"pad token {pad!r} (id {pad_id}) is among the config's EOS ids {sorted(eos_ids)} but is not "
            f"the tokenizer's EOS {eos!r}: harmless while the data ends turns with {eos!r}",
            severity="NOTE",
            pad_token=pad,
            pad_id=pad_id,
            eos_token=eos,
            eos_ids=sorted(eos_ids),
        )
    raise StandDown(f"pad {pad!r} (id {pad_id}) differs from eos {eos!r} (ids {sorted(eos_ids)})")


def _writes_bos(template: str, bos: str | None) -> bool:
    return bool(re.search(r"\bbos_token\b", template)) or (bos is not None and bos in template)


@rule(
    code="TL242",
    name="bos-doubled",
    category="tokenizer",
    severity="WARN",
    target="tokenizer",
    summary="The chat template writes BOS and the tokenizer adds BOS too: every example starts with two.",
    explanation="""
apply_chat_template(tokenize=False) renders a string that already starts with BOS;
tokenizing that string with the default add_special_tokens=True prepends another.
Every training example then starts with two BOS tokens, which inference never shows.
Try: tokenize the rendered text with add_special_tokens=False, or use
apply_chat_template(tokenize=True).""",
)
def bos_doubled(ctx: Context) -> Finding:
    tf = ctx.subject
    if tf.chat_template is None:
        raise NotChecked("no chat template")
    if tf.add_bos is None:
        raise NotChecked("cannot tell whether the tokenizer adds BOS")
    writes = _writes_bos(tf.chat_template, tf.specials.get("bos"))
    if not (writes and tf.add_bos):
        raise StandDown(f"template writes BOS: {writes}; tokenizer adds BOS: {tf.add_bos}")
    return ctx.fire(
        f"the chat template writes the BOS token ({tf.specials.get('bos')!r}) and the tokenizer "
        "adds it too (add_bos_token / post-processor)",
        bos_token=tf.specials.get("bos"),
        template_writes_bos=True,
        tokenizer_adds_bos=True,
    )


@rule(
    code="TL243",
    name="chat-template-missing",
    category="tokenizer",
    severity="WARN",
    target="tokenizer",
    summary="The data is chat-formatted but the tokenizer has no chat template.",
    explanation="""
Chat rows have to be rendered with a template; without one, apply_chat_template fails
(or a trainer falls back to a default the model was never trained with). Try: add the
base model's chat_template to tokenizer_config.json.""",
)
def chat_template_missing(ctx: Context) -> Finding:
    fmt = ctx.extra.get("data_format")
    if fmt is None:
        raise NotChecked("no dataset given to compare against (trainlint data DATA --tokenizer DIR)")
    if fmt != "chat":
        raise StandDown(f"data rows are {fmt}, not chat")
    if ctx.subject.chat_template is not None:
        raise StandDown("chat template present")
    return ctx.fire(
        "the dataset is chat-formatted and the tokenizer has no chat_template "
        "(tokenizer_config.json, chat_template.jinja, chat_template.json)",
        data_format=fmt,
    )


@rule(
    code="TL244",
    name="max-length-unlimited",
    category="tokenizer",
    severity="WARN",
    target="tokenizer",
    summary="model_max_length is the 'unlimited' sentinel: nothing truncates to the model's context.",
    explanation="""
transformers writes model_max_length = 1e30 when no limit was saved. Code that truncates
to tokenizer.model_max_length then never truncates, and a long row overruns the
model's position embeddings (an index error or silent garbage). Try: set
model_max_length to the model's context length.""",
)
def max_length_unlimited(ctx: Context) -> Finding:
    tf = ctx.subject
    _need(tf, "tokenizer_config.json")
    mml = tf.model_max_length
    if not isinstance(mml, (int, float)) or isinstance(mml, bool):
        raise NotChecked("tokenizer_config.json has no model_max_length")
    if mml < UNLIMITED:
        raise StandDown(f"model_max_length {mml}")
    mpe = tf.config.get("max_position_embeddings")
    hint = f"; the model config says max_position_embeddings={mpe}" if mpe else ""
    try:
        value: float | None = float(mml)
        shown = f"{mml:.3g}"
    except OverflowError:  # an integer beyond float range (fuzzing found one): named by its size
        value, shown = None, f"an integer of about {int(int(mml).bit_length() * 0.30103) + 1} digits"
    return ctx.fire(
        f"model_max_length is {shown} (the unlimited sentinel, threshold {UNLIMITED:.0e}){hint}",
        model_max_length=value,
        threshold=UNLIMITED,
        max_position_embeddings=mpe,
    )


@rule(
    code="TL245",
    name="special-token-not-in-vocab",
    category="tokenizer",
    severity="FAIL",
    target="tokenizer",
    summary="A special token (bos/eos/pad/unk/additional) that is not in the vocabulary.",
    explanation="""
A special token missing from the vocabulary is split into pieces (or mapped to unk), so
'EOS' is several ordinary tokens and its id is wrong or None. Usually the result of
editing special_tokens_map.json without adding the token. Try: add the token
(tokenizer.add_special_tokens) and resize the model's embeddings.""",
)
def special_not_in_vocab(ctx: Context) -> Finding:
    tf = ctx.subject
    if tf.vocab is None:
        raise NotChecked("no readable vocabulary (tokenizer.json or vocab.json)")
    wanted = {
        **{f"{r}_token": t for r, t in tf.specials.items()},
        **{f"additional[{i}]": t for i, t in enumerate(tf.additional)},
    }
    missing = {k: t for k, t in wanted.items() if t not in tf.vocab}
    if not missing:
        raise StandDown(f"all {len(wanted)} special tokens are in the vocabulary")
    return ctx.fire(
        f"{len(missing)} special token(s) not in the {len(tf.vocab)}-entry vocabulary: "
        + ", ".join(f"{k}={t!r}" for k, t in list(missing.items())[:10]),
        missing=missing,
        vocab_entries=len(tf.vocab),
    )


@rule(
    code="TL246",
    name="vocab-size-mismatch",
    category="tokenizer",
    severity="FAIL",
    target="tokenizer",
    summary="The tokenizer produces ids beyond the model's vocab_size (embedding rows).",
    explanation="""
An id at or above the embedding size indexes out of range: a CUDA device-side assert
on GPU, an IndexError on CPU. It happens after adding tokens without
model.resize_token_embeddings. A tokenizer smaller than the embedding (padded to a
multiple of 64) is normal. The model's size is config.json's vocab_size and, when the
folder holds safetensors weights, the rows of the input embedding read from the file
header (no tensor is loaded). Try: resize the embeddings to len(tokenizer).""",
)
def vocab_size_mismatch(ctx: Context) -> Finding:
    tf = ctx.subject
    limits = {}
    model = tf.config.get("vocab_size")
    if isinstance(model, int) and not isinstance(model, bool) and model > 0:
        limits["config.json vocab_size"] = model
    if tf.embedding is not None:
        limits[f"{tf.embedding[1]} rows in {tf.embedding[2]}"] = tf.embedding[0]
    if not limits:
        raise NotChecked("no config.json vocab_size or safetensors embedding beside the tokenizer")
    if tf.vocab_size is None:
        raise NotChecked("no readable vocabulary")
    where, limit = min(limits.items(), key=lambda kv: kv[1])
    if tf.vocab_size <= limit:
        raise StandDown(f"tokenizer ids fit: {tf.vocab_size} <= {limits}")
    top = sorted(((i, t) for t, i in tf.vocab.items() if i >= limit))[:10]
    return ctx.fire(
        f"the tokenizer has ids up to {tf.vocab_size - 1} but the model has {limit} ({where}): "
        f"{tf.vocab_size - limit} id(s) out of range, e.g. {', '.join(f'{t!r}={i}' for i, t in top)}",
        tokenizer_size=tf.vocab_size,
        model_vocab_size=limit,
        limit_from=where,
        out_of_range=tf.vocab_size - limit,
    )


@rule(
    code="TL247",
    name="tokenizer-file-malformed",
    category="tokenizer",
    severity="FAIL",
    target="tokenizer",
    summary="A tokenizer or config JSON file that does not parse.",
    explanation="""
transformers fails to load the tokenizer (or silently skips a config) when one of its
JSON files is broken, typically a hand edit or a copy cut short. Try: restore the file
from the base model.""",
)
def file_malformed(ctx: Context) -> list[Finding]:
    tf = ctx.subject
    if not tf.broken:
        raise StandDown(f"{len(tf.files)} JSON file(s) parse")
    return [ctx.fire(f"{name}: {msg}", file=name, error=msg) for name, msg in sorted(tf.broken.items())]


@rule(
    code="TL248",
    name="eos-id-mismatch",
    category="tokenizer",
    severity="WARN",
    target="tokenizer",
    summary="The model/generation config's eos_token_id does not include the tokenizer's EOS id.",
    explanation="""
Generation stops on the config's eos_token_id. If that is not the id of the EOS token the
data was tokenized with, the trained model writes its EOS and keeps going. Common after
switching to a chat format whose turn end (<|im_end|>, <|eot_id|>) differs from the
base EOS. Try: set eos_token_id in generation_config.json to include the tokenizer's EOS id.""",
)
def eos_id_mismatch(ctx: Context) -> Finding:
    tf = ctx.subject
    tok_id = tf.token_id("eos")
    ids = tf.config_ids("eos_token_id")
    if tok_id is None or not ids:
        raise NotChecked("needs the tokenizer's EOS id and an eos_token_id in config.json or generation_config.json")
    wrong = {name: v for name, v in ids.items() if tok_id not in v}
    if not wrong:
        raise StandDown(f"EOS id {tok_id} is in {ids}")
    return ctx.fire(
        f"the tokenizer's EOS {tf.specials['eos']!r} is id {tok_id} but "
        + "; ".join(f"{n} has eos_token_id {v}" for n, v in wrong.items()),
        eos_token=tf.specials["eos"],
        eos_id=tok_id,
        config_ids=wrong,
    )
