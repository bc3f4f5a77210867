"""Dataset rules (TL200-TL239). The subject is a finished :class:`trainlint.dataset.scan.Scan`:
every check reads state collected in the single streaming pass."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..dataset.rows import Rows, group_evidence
from ..registry import Context, NotChecked, StandDown, Threshold, rule
from ..verdict import Finding
from .stats import fmt

if TYPE_CHECKING:
    from ..dataset.scan import Scan


def _need_rows(scan: Scan) -> None:
    if scan.rows == 0:
        raise NotChecked("no readable rows")


def _chat_only(scan: Scan) -> None:
    _need_rows(scan)
    assert scan.shape is not None  # set by the first row
    if scan.shape.format != "chat":
        raise NotChecked(f"rows are {scan.shape.format}, not chat-formatted")


def _tokens(scan: Scan) -> Any:
    if scan.tokens is None:
        raise NotChecked(scan.tokens_reason or "no tokenizer")
    if scan.shape is None or scan.shape.format == "unknown":
        raise NotChecked("row format not recognised (no messages/prompt/completion/text fields); pass --data-format")
    return scan.tokens


def _pct(count: int, total: int) -> str:
    return f"{count} of {total} rows ({100.0 * count / max(total, 1):.3g}%)"


def _bad(ctx: Context, kinds: tuple[str, ...], what: str) -> Finding:
    scan = ctx.subject
    rows = Rows.merged([scan.bad[k] for k in kinds])
    if not rows:
        raise StandDown(f"no {what}")
    details = sorted((d for k in kinds for d in scan.bad_detail[k]), key=lambda d: int(d.split(":")[0]))
    return ctx.fire(
        f"{rows.count} {what} ({rows.where()}); first: {details[0]}", details=details[:20], **rows.evidence()
    )


@rule(
    code="TL200",
    name="malformed-rows",
    category="data",
    severity="FAIL",
    target="dataset",
    summary="Rows that do not parse (malformed JSON, wrong field count, not an object).",
    explanation="""
A row the parser rejects makes most loaders (datasets.load_dataset, pandas.read_json)
stop with an error, or be skipped silently by hand-written ones. Each row is listed
with the parser's message. Try: fix or drop the listed lines; a truncated last line
usually means the file was cut while being written.""",
)
def malformed_rows(ctx: Context) -> Finding:
    return _bad(ctx, ("json", "row"), "malformed row(s)")


@rule(
    code="TL201",
    name="non-utf8-bytes",
    category="data",
    severity="FAIL",
    target="dataset",
    summary="Bytes that are not valid UTF-8, with line and byte offset.",
    explanation="""
Loaders decode text as UTF-8 and fail on (or silently replace) invalid bytes: usually
a file written in Latin-1/CP1252 or bytes cut mid-character. Try: re-encode the file
(iconv -f cp1252 -t utf-8) or fix the listed lines.""",
)
def non_utf8(ctx: Context) -> Finding:
    return _bad(ctx, ("utf8",), "row(s) with non-UTF-8 bytes")


@rule(
    code="TL202",
    name="control-characters",
    category="data",
    severity="WARN",
    target="dataset",
    summary="Text containing control characters (other than tab and newline).",
    explanation="""
NUL, escape and other C0 control characters in training text are almost always
extraction debris (PDF/HTML scraping, binary blobs). The model learns to emit them.
Try: strip them in preprocessing.""",
)
def control_characters(ctx: Context) -> Finding:
    scan = ctx.subject
    _need_rows(scan)
    if not scan.control:
        raise StandDown("no control characters")
    chars = dict(scan.control_chars.most_common(10))
    return ctx.fire(
        f"{_pct(scan.control.count, scan.rows)} contain control characters "
        f"({', '.join(chars)}) at {scan.control.where()}",
        characters=chars,
        total_rows=scan.rows,
        **scan.control.evidence(),
    )


@rule(
    code="TL203",
    name="empty-fields",
    category="data",
    severity="WARN",
    target="dataset",
    summary="Fields that are empty, whitespace-only or null.",
    explanation="""
An empty prompt, answer or text field trains on nothing (or on the template alone).
Fields that are optional by convention (input, system, context, history, tools, id)
are not counted. Try: drop or fill the listed rows.""",
)
def empty_fields(ctx: Context) -> list[Finding]:
    scan = ctx.subject
    _need_rows(scan)
    if not scan.empty.by:
        raise StandDown("no empty fields")
    return [
        ctx.fire(
            f"field {k!r} is empty in {_pct(r.count, scan.rows)}: {r.where()}",
            field=k,
            total_rows=scan.rows,
            **r.evidence(),
        )
        for k, r in sorted(scan.empty.by.items(), key=lambda kv: -kv[1].count)
    ]


@rule(
    code="TL204",
    name="duplicate-rows",
    category="data",
    severity="WARN",
    target="dataset",
    summary="Exact duplicate rows, each group with its line numbers.",
    explanation="""
Exact copies weight some examples several times over and, when they straddle a
train/eval split, leak evaluation data into training. A few copies in a large set (under
0.5% of the rows, `note_below`: one row in 2,400) weigh nothing worth acting on: a NOTE. When
most rows are copies the data set is unusable: FAIL. Try: deduplicate (keep the first of
each group).""",
    thresholds=[
        Threshold("max_fraction", 0.0, "extra copies / rows above which it fires"),
        Threshold("note_below", 0.005, "extra copies / rows below which it is a NOTE"),
    ],
)
def duplicate_rows(ctx: Context) -> Finding:
    scan = ctx.subject
    _need_rows(scan)
    ev = group_evidence(scan.hashes.groups("exact"))
    frac = ev["extra_copies"] / scan.rows
    if not ev["groups"] or frac <= ctx.t("max_fraction"):
        raise StandDown(
            f"{ev['extra_copies']} duplicate rows (fraction {fmt(frac)}, threshold {fmt(ctx.t('max_fraction'))})"
        )
    first = ev["first_groups"][0]
    share = _pct(ev["extra_copies"], scan.rows)
    sev, most = _scaled(ev["extra_copies"], scan.rows)
    if frac < ctx.t("note_below"):
        sev, most = "NOTE", f"; under {fmt(ctx.t('note_below') * 100)}% of the rows: a NOTE"
    return ctx.fire(
        f"{ev['extra_copies']} extra copies in {ev['groups']} group(s) ({share},"
        f" threshold {fmt(ctx.t('max_fraction'))}){most}; first group: lines "
        f"{', '.join(map(str, first['lines']))}",
        severity=sev,
        fraction=frac,
        threshold=ctx.t("max_fraction"),
        total_rows=scan.rows,
        rows=ev["extra_copies"],
        **ev,
    )


@rule(
    code="TL205",
    name="near-duplicate-rows",
    category="data",
    severity="WARN",
    target="dataset",
    summary="Rows equal after lower-casing and collapsing whitespace, but not exact copies.",
    explanation="""
Copies that differ only in case or spacing (or key order) slip past exact
deduplication and have the same effect: over-weighted examples and split leakage.
The text of all string fields is compared, so rows with the same text but different
non-text fields (a numeric label) are listed too: contradictory labels.
Try: deduplicate on normalised text; resolve contradictory labels.""",
)
def near_duplicates(ctx: Context) -> Finding:
    scan = ctx.subject
    _need_rows(scan)
    groups = scan.hashes.near_groups()
    if not groups:
        raise StandDown("no normalised duplicates beyond exact copies")
    ev = group_evidence(groups)
    first = ev["first_groups"][0]
    return ctx.fire(
        f"{ev['groups']} group(s) of rows equal after normalising case and whitespace "
        f"({ev['rows_involved']} rows); first group: lines {', '.join(map(str, first['lines']))}",
        total_rows=scan.rows,
        **ev,
        rows=ev["extra_copies"],
    )


@rule(
    code="TL206",
    name="schema-drift-keys",
    category="data",
    severity="WARN",
    target="dataset",
    summary="Keys present in some rows only.",
    explanation="""
Rows with different keys usually come from concatenating sources that disagree
(prompt/completion here, instruction/output there). Arrow-based loaders fill the
missing key with null, and the template or collator then sees None. Try: map every
source to one schema before concatenating.""",
)
def schema_keys(ctx: Context) -> list[Finding]:
    scan = ctx.subject
    _need_rows(scan)
    sets = scan.keysets.by
    if len(sets) < 2:
        raise StandDown(f"every row has the same {len(next(iter(sets), ()))} keys")
    keys = sorted({k for ks in sets for k in ks})
    out = []
    for key in keys:
        missing = Rows.merged([r for ks, r in sets.items() if key not in ks])
        present = Rows.merged([r for ks, r in sets.items() if key in ks])
        if not missing:
            continue
        side, rows = ("missing in", missing) if missing.count <= present.count else ("present only in", present)
        out.append(
            ctx.fire(
                f"key {key!r} is {side} {_pct(rows.count, scan.rows)}: {rows.where()}",
                key=key,
                present=present.count,
                missing=missing.count,
                listed=side.split()[0],
                total_rows=scan.rows,
                **rows.evidence(),
            )
        )
    if scan.keysets.overflow:
        out.append(
            ctx.fire(
                f"{scan.keysets.overflow} rows have key/type combinations beyond the first 256 "
                "distinct ones (counts above exclude them)",
                severity="NOTE",
                rows=scan.keysets.overflow,
            )
        )
    return out


@rule(
    code="TL207",
    name="schema-drift-types",
    category="data",
    severity="WARN",
    target="dataset",
    summary="A key whose value type changes across rows (nulls are counted as empty fields).",
    explanation="""
A field that is a string in most rows and a number or a list in others makes
Arrow-based loaders fail to build a column ("Could not convert ... with type ...") or
reach the template as the wrong thing. Try: cast the field to one type.""",
)
def schema_types(ctx: Context) -> list[Finding]:
    scan = ctx.subject
    _need_rows(scan)
    by_key: dict[str, dict[str, Rows]] = {}
    for (key, tname), rows in scan.types.by.items():
        if tname != "null":
            by_key.setdefault(key, {})[tname] = rows
    out = []
    for key, types in sorted(by_key.items()):
        if len(types) < 2:
            continue
        ranked = sorted(types.items(), key=lambda kv: -kv[1].count)
        main = ranked[0][0]
        minority = Rows.merged([r for _, r in ranked[1:]])
        counts = {t: r.count for t, r in ranked}
        out.append(
            ctx.fire(
                f"key {key!r} is {main} in {types[main].count} rows but "
                f"{', '.join(f'{t} in {r.count}' for t, r in ranked[1:])}: {minority.where()}",
                key=key,
                types=counts,
                total_rows=scan.rows,
                **minority.evidence(),
            )
        )
    if not out:
        raise StandDown("every key keeps one type")
    return out


def _problem(ctx: Context, check: str, what: str) -> Finding:
    scan = ctx.subject
    rows, detail = scan.problem(check)
    if not rows:
        raise StandDown(f"none of {scan.rows} rows {what}")
    kinds = {str(k): r.count for k, r in sorted(detail.items(), key=lambda kv: -kv[1].count)[:10]}
    top = next(iter(kinds), "")
    # empty targets in most rows make the data unusable; other shape problems stay WARNs
    sev, most = _scaled(rows.count, scan.rows) if check in SCALED else (None, "")
    return ctx.fire(
        f"{_pct(rows.count, scan.rows)} {what} (most common: {top}){most}: {rows.where()}",
        severity=sev,
        kinds=kinds,
        total_rows=scan.rows,
        **rows.evidence(),
    )


SCALED = ("empty-completion", "empty-content")
MIN_ROWS_TO_FAIL = 10  # a handful of rows is a sample, not a data set
MOST_ROWS = 0.5  # a problem in at least this share of the rows makes the data set unusable: FAIL


def _scaled(count: int, total: int) -> tuple[str | None, str]:
    """Severity by the share of bad rows: most rows bad is a FAIL, a few a WARN."""
    if total >= MIN_ROWS_TO_FAIL and count / total >= MOST_ROWS:
        return "FAIL", f"; most rows ({fmt(count / total * 100)}% >= {fmt(MOST_ROWS * 100)}%): the data set is unusable"
    return None, ""


@rule(
    code="TL208",
    name="chat-unknown-role",
    category="data",
    severity="WARN",
    target="dataset",
    summary="Chat turns with a role the chat templates do not know (or no role).",
    explanation="""
Chat templates branch on system/user/assistant/tool (ShareGPT's human/gpt are mapped).
An unknown role is dropped, rendered wrongly, or makes the template raise. Try: map
the roles to the standard names.""",
)
def chat_unknown_role(ctx: Context) -> Finding:
    _chat_only(ctx.subject)
    return _problem(ctx, "unknown-role", "have turns with an unknown or missing role")


@rule(
    code="TL209",
    name="chat-turn-order",
    category="data",
    severity="WARN",
    target="dataset",
    summary="Chat turns out of order: a system turn after the start, no opening user turn, a role twice in a row.",
    explanation="""
Many chat templates require user and assistant to alternate after an optional leading
system turn and raise otherwise; the others render a conversation the model never sees
at inference. Try: merge consecutive turns of one role and move the system turn first.""",
)
def chat_turn_order(ctx: Context) -> Finding:
    _chat_only(ctx.subject)
    return _problem(ctx, "turn-order", "have turns out of order")


@rule(
    code="TL210",
    name="chat-no-final-assistant",
    category="data",
    severity="WARN",
    target="dataset",
    summary="Conversations that do not end with an assistant turn.",
    explanation="""
With loss on assistant turns only, a trailing user turn is trained on nothing; with
no assistant turn at all the row contributes no loss. Try: drop the trailing turn or
the row.""",
)
def chat_no_final_assistant(ctx: Context) -> Finding:
    _chat_only(ctx.subject)
    return _problem(ctx, "no-final-assistant", "do not end with an assistant turn")


@rule(
    code="TL211",
    name="chat-empty-content",
    category="data",
    severity="WARN",
    target="dataset",
    summary="Chat turns with empty or missing content (tool-call turns excepted).",
    explanation="""
An empty assistant turn teaches the model to answer with nothing; an empty user turn
is a broken prompt. Try: drop or repair the listed rows.""",
)
def chat_empty_content(ctx: Context) -> Finding:
    _chat_only(ctx.subject)
    return _problem(ctx, "empty-content", "have turns with empty content")


@rule(
    code="TL212",
    name="empty-completion",
    category="data",
    severity="WARN",
    target="dataset",
    summary="Prompt/completion rows whose completion is empty.",
    explanation="""
With loss on the completion only, an empty completion trains the model to stop at
once (or contributes nothing). When most rows have one, the data set is unusable: FAIL.
Try: drop the listed rows.""",
)
def empty_completion(ctx: Context) -> Finding:
    scan = ctx.subject
    _need_rows(scan)
    if scan.shape.format != "prompt-completion":
        raise NotChecked(f"rows are {scan.shape.format}, not prompt/completion")
    return _problem(ctx, "empty-completion", "have an empty completion")


@rule(
    code="TL213",
    name="rows-over-max-length",
    category="data",
    severity="WARN",
    target="dataset",
    summary="Rows longer than the max length, and how many tokens truncation loses.",
    explanation="""
Rows over the max length are cut (or dropped, or crash the collator). What is cut is
usually the end: the answer. Lengths count the tokens of the row's texts plus the
tokenizer's special tokens; a chat template adds more, so these are lower bounds.
Try: raise the max length, filter long rows, or split them.""",
    thresholds=[Threshold("max_fraction", 0.0, "fraction of rows over the max length above which it fires")],
)
def over_max_length(ctx: Context) -> Finding:
    scan = ctx.subject
    tok = _tokens(scan)
    if tok.max_length is None:
        raise NotChecked("no max length: pass --max-length (the tokenizer and config give none)")
    frac = tok.over.count / max(scan.rows, 1)
    if frac <= ctx.t("max_fraction"):
        raise StandDown(
            f"{tok.over.count} rows over {tok.max_length} tokens (threshold fraction {fmt(ctx.t('max_fraction'))})"
        )
    return ctx.fire(
        f"{_pct(tok.over.count, scan.rows)} are longer than {tok.max_length} tokens "
        f"({scan.max_length_from}; threshold {fmt(ctx.t('max_fraction') * 100)}% of rows); truncation loses "
        f"{tok.lost} tokens: {tok.over.where()}",
        max_length=tok.max_length,
        tokens_lost=tok.lost,
        fraction=frac,
        threshold=ctx.t("max_fraction"),
        longest=int(tok.distribution().get("max", 0)),
        total_rows=scan.rows,
        **tok.over.evidence(),
    )


@rule(
    code="TL214",
    name="target-lost",
    category="data",
    severity="WARN",
    target="dataset",
    summary="Rows whose target (assistant turns / completion / text) is empty or cut away entirely.",
    explanation="""
With loss on the target only, a row whose target has no tokens, or whose prompt alone
fills the max length so that truncation cuts the whole target, contributes no loss:
compute spent on nothing, and when most rows are like that the loss is an average
over a few. Try: raise the max length, shorten prompts, drop the rows.""",
    thresholds=[Threshold("fail_fraction", 0.5, "fraction of rows losing their target at which it FAILs")],
)
def target_lost(ctx: Context) -> Finding:
    scan = ctx.subject
    tok = _tokens(scan)
    lost = Rows.merged([tok.masked, tok.cut])
    if not lost:
        raise StandDown("every row keeps target tokens")
    frac = lost.count / max(scan.rows, 1)
    sev = "FAIL" if frac >= ctx.t("fail_fraction") else None
    return ctx.fire(
        f"{_pct(lost.count, scan.rows)} train on no target token ({tok.masked.count} with an "
        f"empty target, {tok.cut.count} with the target cut away beyond {tok.max_length} tokens; "
        f"FAIL at fraction {fmt(ctx.t('fail_fraction'))}): {lost.where()}",
        severity=sev,
        empty_target=tok.masked.count,
        cut_away=tok.cut.count,
        fraction=frac,
        threshold=ctx.t("fail_fraction"),
        total_rows=scan.rows,
        **lost.evidence(),
    )


@rule(
    code="TL215",
    name="token-statistics",
    category="data",
    severity="NOTE",
    target="dataset",
    summary="Token-length distribution and the unigram entropy of the target tokens (a record, not a verdict).",
    explanation="""
The unigram entropy of the target tokens (in nats) is the loss a model reaches by
learning only how often each token occurs. A run whose final loss is not clearly below
it learned nothing from the inputs: `trainlint doctor RUN --dataset DATA --tokenizer DIR`
checks exactly that (TL099).""",
)
def token_statistics(ctx: Context) -> Finding:
    scan = ctx.subject
    tok = _tokens(scan)
    dist = tok.distribution()
    if not dist:
        raise StandDown("no rows tokenized")
    ent = tok.entropy()
    return ctx.fire(
        f"tokens per row: median {fmt(dist['p50'])}, p90 {fmt(dist['p90'])}, p99 {fmt(dist['p99'])}, "
        f"max {dist['max']}; {dist['target_tokens']} target tokens, unigram entropy "
        f"{fmt(ent) if ent is not None else 'n/a'} nats",
        entropy_nats=ent,
        **dist,
    )


@rule(
    code="TL216",
    name="rows-in-another-split",
    category="data",
    severity="WARN",
    target="dataset",
    summary="Rows that also appear (after normalising case and whitespace) in an earlier split or shard.",
    explanation="""
A DatasetDict is judged split by split and a folder of shards file by file; each part is
compared with the parts before it. A test or validation row that is also a training row
makes the evaluation measure memorisation (leakage); copies across shards over-weight
those rows. Try: deduplicate across splits before training (drop the listed rows from
the later split).""",
)
def rows_in_another_split(ctx: Context) -> list[Finding]:
    scan = ctx.subject
    _need_rows(scan)
    if not scan.earlier:
        raise NotChecked("nothing to compare with (a single file, or the first split/shard)")
    out = []
    for name, other in scan.earlier:
        lines = scan.hashes.found_in(other)
        if len(lines):
            first = [int(n) for n in lines[:20]]
            out.append(
                ctx.fire(
                    f"{_pct(len(lines), scan.rows)} also appear in {name}: "
                    f"line{'s' if len(lines) > 1 else ''} {', '.join(map(str, first))}"
                    + (f" ... ({len(lines)} in all)" if len(lines) > 20 else ""),
                    other=name,
                    rows=int(len(lines)),
                    lines=first,
                    total_rows=scan.rows,
                )
            )
    if not out:
        raise StandDown(f"no row also appears in {', '.join(n for n, _ in scan.earlier)}")
    return out


@rule(
    code="TL217",
    name="special-token-in-text",
    category="data",
    severity="WARN",
    target="dataset",
    summary="Row text that contains the tokenizer's special tokens literally (e.g. '</s>', '<|im_end|>').",
    explanation="""
The tokenizer turns a special token written in plain text into the special token itself:
an EOS in the middle of an answer teaches the model to stop there, a chat marker inside
a message breaks the turn structure (and is a prompt-injection path). Usually left over
from text that was already rendered with a template. Try: strip or escape them, or
tokenize content with split_special_tokens=True.""",
)
def special_token_in_text(ctx: Context) -> Finding:
    scan = ctx.subject
    tok = _tokens(scan)
    if tok.special_re is None:
        raise NotChecked("the tokenizer declares no special tokens (or the tokenizers library is too old)")
    rows = tok.special_rows
    if not rows:
        raise StandDown("no row contains one of the special tokens")
    seen = dict(sorted(tok.special_seen.items(), key=lambda kv: -kv[1])[:10])
    return ctx.fire(
        f"{_pct(rows.count, scan.rows)} contain special tokens as text "
        f"({', '.join(f'{t!r} x{n}' for t, n in seen.items())}): {rows.where()}",
        tokens=seen,
        total_rows=scan.rows,
        **rows.evidence(),
    )
