"""Hostile archives (TL347-TL349): decompression bombs, member names that escape an extraction
folder, and shard indexes that point outside their checkpoint folder. The subject is an Inspection."""

from __future__ import annotations

from typing import Any

from ..registry import Context, NotChecked, StandDown, rule
from ..verdict import Finding

MAX_LISTED = 20


def _file(ctx: Context) -> Any:
    s = ctx.subject
    if s.drift is not None or s.format != "torch-zip":
        raise NotChecked("not a zip archive")
    return s


@rule(
    code="TL347",
    name="decompression-bomb",
    category="security",
    severity="FAIL",
    target="checkpoint",
    summary="A compressed archive entry inflates far past its declared size (a zip bomb).",
    explanation="""
torch.save writes its archive uncompressed; a deflated entry that inflates past the size the archive
declares for it, or past the cap on what trainlint holds in memory (256 MiB for a pickle), is a
decompression bomb: a loader that inflates it exhausts memory or disk. trainlint inflates entries
through a streaming reader and stops at the limit; the finding gives the compressed bytes read, the
bytes inflated when it stopped, the ratio and the declared size. Do not load the file.""",
)
def decompression_bomb(ctx: Context) -> list[Finding]:
    s = _file(ctx)
    bombs = s.meta.get("bombs") or []
    if not bombs:
        raise StandDown("no entry inflates past its declared size")
    return [
        ctx.fire(
            f"{b['entry']}: {b['compressed_read']} compressed bytes inflated past {b['limit']} bytes "
            f"(ratio {b['ratio']:g}:1; declared size {b['declared_size']}): inflating stopped there",
            **b,
        )
        for b in bombs[:MAX_LISTED]
    ]


@rule(
    code="TL348",
    name="unsafe-member-name",
    category="security",
    severity="WARN",
    target="checkpoint",
    summary="Archive member names with '..' or an absolute path (they escape an extraction folder).",
    explanation="""
torch.load reads members by name and does not extract them, but an unzip tool or a naive
extraction script writes a member named `../../x` or `/etc/x` outside the target folder
(path traversal, "zip slip"). torch.save never writes such names: someone edited the archive.
Do not extract it; inspect who produced it.""",
)
def unsafe_member_name(ctx: Context) -> Finding:
    s = _file(ctx)
    names = s.meta.get("unsafe_names") or []
    if not names:
        raise StandDown(f"{len(s.zip.entries) if s.zip else 0} member names, none escapes the archive folder")
    shown = ", ".join(repr(n) for n in names[:5])
    return ctx.fire(
        f"{len(names)} member name(s) escape an extraction folder: {shown}",
        names=names[:MAX_LISTED],
        count=len(names),
    )


@rule(
    code="TL349",
    name="index-outside-folder",
    category="security",
    severity="FAIL",
    target="checkpoint",
    summary="A shard index names files outside its checkpoint folder ('../', absolute paths).",
    explanation="""
`*.index.json` names each shard by a file name beside it. An entry such as `../../x.safetensors` or
`/etc/passwd` makes a loader open a file the checkpoint does not contain (and a downloaded
checkpoint choose what is read on your machine). trainlint never opens those files; the finding
lists them. Do not load the checkpoint until the index is repaired.""",
)
def index_outside_folder(ctx: Context) -> Finding:
    s = ctx.subject
    idx = getattr(s, "index", None)
    if s.drift is not None or not idx:
        raise NotChecked("not a sharded checkpoint index")
    outside = idx.get("outside") or []
    if not outside:
        raise StandDown(f"all {idx.get('shards', 0)} shards named inside the checkpoint folder")
    shown = ", ".join(repr(o["shard"]) for o in outside[:5])
    return ctx.fire(
        f"the index names {len(outside)} file(s) outside its folder (not opened): {shown}",
        shards=outside[:MAX_LISTED],
        count=len(outside),
    )
