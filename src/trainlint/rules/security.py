"""Checkpoint security (TL340-TL349): what loading the pickle would import and run.

Every global a checkpoint's pickles name is classified against torch's own
weights_only allow-list (shipped as data). The subject is an Inspection."""

from __future__ import annotations

from typing import Any

from ..registry import Context, NotChecked, StandDown, rule
from ..verdict import Finding

MAX_LISTED = 50


def _classified(ctx: Context, wanted: str) -> list[dict[str, Any]]:
    from ..checkpoint.security import classify

    s = ctx.subject
    if s.drift is not None or not s.pickles:
        raise NotChecked(_why_none(s))
    out = []
    for p in s.pickles:
        for g in p.globals:
            if classify(g.module, g.name, p.allow_extra) == wanted:
                out.append(
                    {
                        "global": g.dotted,
                        "offset": g.offset + p.base_offset if p.in_file else None,
                        "pickle_offset": g.offset,
                        "opcode": g.opcode,
                        "where": p.where,
                    }
                )
    return out


def _why_none(s: Any) -> str:
    if s.drift is not None or s.format in ("hf-folder", "deepspeed") or s.kind_problem:
        return "not applicable to this input"  # folders: each pickle file is judged on its own
    return "no pickle in this input"


def _count(ctx: Context) -> int:
    return sum(len(p.globals) for p in ctx.subject.pickles)


@rule(
    code="TL340",
    name="code-execution-global",
    category="security",
    severity="FAIL",
    target="checkpoint",
    summary="Loading this checkpoint would import something that runs code (os.system, subprocess, eval, ...).",
    explanation="""
torch.load (without weights_only=True) and pickle.load import every global the pickle names and
call it. A checkpoint naming posix.system, subprocess.Popen, builtins.eval/exec, runpy,
importlib or a nested loader runs that code on the machine that loads it. Each finding names
the global and the byte offset of the opcode that imports it. Do not load the file; if you must
recover its weights, read them with a tool that does not execute (this one, or safetensors
after a conversion done in a sandbox).""",
)
def code_execution_global(ctx: Context) -> list[Finding]:
    bad = _classified(ctx, "dangerous")
    if not bad:
        raise StandDown(f"{_count(ctx)} globals, none that runs code")
    return [
        ctx.fire(f"loading would import {b['global']} ({_where(b)}): a global that can run code", **b)
        for b in bad[:MAX_LISTED]
    ]


def _where(b: dict[str, Any]) -> str:
    if b["offset"] is None:
        return f"byte {b['pickle_offset']} of the uncompressed pickle {b['where']}"
    inner = f", pickle offset {b['pickle_offset']}" if b["offset"] != b["pickle_offset"] else ""
    return f"byte {b['offset']} of {b['where'].split(':')[0]}{inner}"


@rule(
    code="TL341",
    name="unknown-global",
    category="security",
    severity="FAIL",
    target="checkpoint",
    summary="The pickle imports a global outside torch's weights_only allow-list (and no known framework class).",
    explanation="""
torch.load(weights_only=True) refuses any global that is not on its allow-list; loading with
weights_only=False imports and calls it. A global from an unknown module (a user's __main__ class,
a package you do not recognise) is code from whoever wrote the checkpoint. Check where it comes from
before loading; prefer re-saving the state_dict (tensors only) or safetensors.""",
)
def unknown_global(ctx: Context) -> Finding:
    bad = _classified(ctx, "unknown")
    if not bad:
        raise StandDown(f"{_count(ctx)} globals, all allow-listed or known framework classes")
    names = sorted({b["global"] for b in bad})
    first = bad[0]
    return ctx.fire(
        f"{len(names)} globals outside the weights_only allow-list: "
        f"{', '.join(names[:5])}{' ...' if len(names) > 5 else ''} (first {first['global']} at "
        f"{_where(first)})",
        globals=bad[:MAX_LISTED],
        distinct=names[:MAX_LISTED],
    )


@rule(
    code="TL342",
    name="framework-global",
    category="security",
    severity="NOTE",
    target="checkpoint",
    summary="The pickle builds framework classes torch's weights_only loader refuses (numpy, transformers, ...).",
    explanation="""
Training checkpoints routinely pickle numpy RNG state (rng_state.pth), transformers TrainingArguments
(training_args.bin), Lightning AttributeDicts or argparse namespaces. torch.load(weights_only=True)
refuses them, so loading needs weights_only=False (which trusts the whole file) or
torch.serialization.add_safe_globals for these names. They are recorded here as a NOTE (every
healthy HF checkpoint has some); classes from well-known frameworks only: anything else outside
the allow-list is TL341 (FAIL), anything that runs code is TL340 (FAIL).""",
)
def framework_global(ctx: Context) -> Finding:
    hits = _classified(ctx, "framework")
    if not hits:
        raise StandDown(f"{_count(ctx)} globals, none outside the allow-list from frameworks")
    names = sorted({b["global"] for b in hits})
    return ctx.fire(
        f"{len(names)} framework globals torch's weights_only loader refuses: "
        f"{', '.join(names[:6])}{' ...' if len(names) > 6 else ''}",
        globals=hits[:MAX_LISTED],
        distinct=names[:MAX_LISTED],
    )


@rule(
    code="TL343",
    name="pickle-not-fully-read",
    category="security",
    severity="WARN",
    target="checkpoint",
    summary="A pickle could not be walked to its end, so its imports are only partly known.",
    explanation="""
When a pickle is damaged or cut short, the globals after the damage are unknown; the security
verdict covers only the part that was read.""",
)
def pickle_not_fully_read(ctx: Context) -> Finding:
    s = ctx.subject
    if s.drift is not None or not s.pickles:
        raise NotChecked(_why_none(s))
    bad = [p for p in s.pickles if p.error]
    if not bad:
        raise StandDown(f"{len(s.pickles)} pickles read to their end")
    return ctx.fire(
        f"{len(bad)} pickles read only in part: {bad[0].where}: {bad[0].error}",
        pickles=[{"where": p.where, "error": p.error} for p in bad[:MAX_LISTED]],
    )
