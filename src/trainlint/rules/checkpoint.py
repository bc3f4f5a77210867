"""Checkpoint rules (TL300-TL339): integrity of the file, the tensors' values,
what a resume needs, and drift between two checkpoints. The subject is a
``trainlint.checkpoint.model.Inspection``; rules never read files themselves."""

from __future__ import annotations

from typing import Any

from ..registry import Context, NotChecked, StandDown, Threshold, rule
from ..verdict import Finding

NA = "not applicable to this input"
MAX_LISTED = 50


def need(ctx: Context, attr: str) -> Any:
    value = getattr(ctx.subject, attr, None)
    if value is None or getattr(ctx.subject, "drift", None) is not None and attr != "drift":
        raise NotChecked(NA)
    return value


def _tensors(ctx: Context) -> list[Any]:
    s = ctx.subject
    if s.drift is not None or s.kind_problem:
        raise NotChecked(NA)
    tensors: list[Any] = s.tensors
    return tensors


FOLDER_FORMATS = ("hf-folder", "dcp", "deepspeed", "sharded-index", "folder", "drift")


def file_only(ctx: Context) -> Any:
    """The subject when it is a single checkpoint file; NotChecked (not applicable) otherwise."""
    s = ctx.subject
    if s.drift is not None or s.format in FOLDER_FORMATS:
        raise NotChecked(NA)
    return s


def _names(items: list[str], n: int = 5) -> str:
    head = ", ".join(items[:n])
    return head + (f" and {len(items) - n} more" if len(items) > n else "")


@rule(
    code="TL300",
    name="empty-checkpoint",
    category="integrity",
    severity="FAIL",
    target="checkpoint",
    summary="The checkpoint file is zero bytes.",
    explanation="""
A zero-byte checkpoint is what a save leaves when the process died (or the disk filled)
before any byte was written, or when a copy/download failed. It cannot be loaded.
Try: re-save from the live run, or fall back to the previous checkpoint; check free disk space.""",
)
def empty_checkpoint(ctx: Context) -> Finding:
    s = file_only(ctx)
    if s.kind_problem != "empty":
        raise StandDown(f"file holds {s.size} bytes")
    return ctx.fire(f"checkpoint is empty: 0 bytes at {s.path}", bytes=0)


@rule(
    code="TL301",
    name="truncated-checkpoint",
    category="integrity",
    severity="FAIL",
    target="checkpoint",
    summary="The checkpoint was cut short (a save killed mid-write); lists which tensors survive.",
    explanation="""
torch.save writes a zip archive whose table of contents (the central directory) comes last;
a save killed mid-write leaves local headers and some data but no directory, and torch.load
refuses it. safetensors and legacy files cut short likewise end before the bytes their header
promises. The finding lists which tensors are complete (salvageable by reading their bytes)
and which are lost. Try: use the previous checkpoint; save to a temporary name and rename
when complete so a crash never leaves a half file under the real name.""",
)
def truncated_checkpoint(ctx: Context) -> Finding:
    s = file_only(ctx)
    if s.kind_problem:
        raise NotChecked(NA)
    if not s.truncated:
        raise StandDown("file is complete")
    complete = [t.name for t in s.tensors if t.complete]
    lost = [t.name for t in s.tensors if not t.complete]
    salvage = (
        (
            f"; salvage: {len(complete)} of {len(s.tensors)} tensors complete, {len(lost)} lost"
            + (f" ({_names(lost)})" if lost else "")
        )
        if s.tensors
        else "; no tensor table could be read"
    )
    return ctx.fire(
        f"truncated: {s.truncated}{salvage}",
        bytes=s.size,
        complete=len(complete),
        lost=len(lost),
        lost_tensors=lost[:MAX_LISTED],
        complete_tensors=complete[:MAX_LISTED],
    )


@rule(
    code="TL302",
    name="crc-mismatch",
    category="integrity",
    severity="FAIL",
    target="checkpoint",
    summary="A zip entry's bytes do not match the CRC-32 recorded for them.",
    explanation="""
Every entry of a torch.save archive records a CRC-32 of its bytes. torch.load does not check it,
so a flipped bit on disk or in transfer loads silently as a wrong weight. A mismatch means
the bytes changed after they were written. Try: re-copy the file from its source and compare
checksums; if the source is also bad, use an earlier checkpoint.""",
)
def crc_mismatch(ctx: Context) -> Finding:
    s = ctx.subject
    if s.zip is None or s.drift is not None:
        raise NotChecked(NA)
    if not s.crc_checked:
        raise NotChecked(f"CRCs not verified ({s.meta.get('crc_skipped', 'use --crc')})")
    if not s.crc_mismatches:
        raise StandDown(f"all {len(s.zip.entries)} entry CRCs match")
    m = s.crc_mismatches
    first = "; ".join(f"{x['entry']} recorded {x['recorded']} computed {x['computed']}" for x in m[:3])
    return ctx.fire(
        f"CRC mismatch in {len(m)} of {len(s.zip.entries)} entries: {first}",
        mismatches=m[:MAX_LISTED],
        entries=len(s.zip.entries),
    )


@rule(
    code="TL303",
    name="crc-not-recorded",
    category="integrity",
    severity="WARN",
    target="checkpoint",
    summary="Zip entries carry no CRC, so their bytes cannot be verified.",
    explanation="""
A non-empty zip entry with a zero CRC-32 was written by a tool that did not record checksums;
corruption in it cannot be detected. Try: re-save with torch.save (which records CRCs).""",
)
def crc_not_recorded(ctx: Context) -> Finding:
    z = need(ctx, "zip")
    missing = [e.name for e in z.entries.values() if not e.crc_recorded and e.complete]
    if not missing:
        raise StandDown("every non-empty entry records a CRC")
    return ctx.fire(f"{len(missing)} entries record no CRC: {_names(missing)}", entries=missing[:MAX_LISTED])


@rule(
    code="TL304",
    name="zip-header-mismatch",
    category="integrity",
    severity="FAIL",
    target="checkpoint",
    summary="A zip entry's local header disagrees with the central directory.",
    explanation="""
The central directory at the end of a zip and the local header before each entry describe the
same entry; when they disagree (name, sizes, CRC, compression, or an offset that points at no
header), the archive was edited or damaged, and different readers will see different data.""",
)
def zip_header_mismatch(ctx: Context) -> Finding:
    z = need(ctx, "zip")
    bad = [(e.name, p) for e in [*z.entries.values(), *z.duplicates] for p in e.problems]
    if z.error:
        bad.insert(0, ("<central directory>", z.error))
    if not bad:
        raise StandDown(f"{len(z.entries)} local headers agree with the central directory")
    text = "; ".join(f"{n}: {p}" for n, p in bad[:3])
    return ctx.fire(
        f"{len(bad)} header disagreements: {text}", problems=[{"entry": n, "problem": p} for n, p in bad[:MAX_LISTED]]
    )


@rule(
    code="TL305",
    name="lfs-pointer-checkpoint",
    category="integrity",
    severity="FAIL",
    target="checkpoint",
    summary="The 'checkpoint' is a Git LFS pointer file, not the weights.",
    explanation="""
A clone without git-lfs (or with GIT_LFS_SKIP_SMUDGE) leaves ~130-byte text pointers in place
of large files. Loading one fails with an unpickling error. Try: `git lfs pull` in the repository.""",
)
def lfs_pointer(ctx: Context) -> Finding:
    s = file_only(ctx)
    if s.kind_problem != "lfs-pointer":
        raise StandDown("not an LFS pointer")
    lfs = s.meta.get("lfs", {})
    return ctx.fire(
        f"Git LFS pointer ({s.size} bytes) instead of the checkpoint: object sha256 "
        f"{lfs.get('oid')}, real size {lfs.get('size')} bytes; run `git lfs pull`",
        bytes=s.size,
        oid=lfs.get("oid"),
        real_size=lfs.get("size"),
    )


@rule(
    code="TL306",
    name="html-page-checkpoint",
    category="integrity",
    severity="FAIL",
    target="checkpoint",
    summary="The 'checkpoint' is an HTML page (a failed download saved under the checkpoint's name).",
    explanation="""
wget/curl save whatever the server returns: a login page, a 404 page or a rate-limit notice
ends up under the checkpoint's file name. Try: download again with authentication, and check
the HTTP status before saving.""",
)
def html_page(ctx: Context) -> Finding:
    s = file_only(ctx)
    if s.kind_problem != "html":
        raise StandDown("not an HTML page")
    title = s.meta.get("html_title")
    return ctx.fire(
        f"HTML/XML page ({s.size} bytes) instead of a checkpoint" + (f": {title!r}" if title else ""),
        bytes=s.size,
        title=title,
    )


@rule(
    code="TL307",
    name="unreadable-structure",
    category="integrity",
    severity="FAIL",
    target="checkpoint",
    summary="The checkpoint's structure (its pickle, zip directory or storage table) is missing or damaged.",
    explanation="""
The pickle (data.pkl) holds the structure (names, shapes, dtypes) of everything in a torch checkpoint,
and the zip directory or storage table says where the bytes are. When either is missing or damaged,
no loader can rebuild the object. Try: re-copy the file; otherwise use an earlier checkpoint.""",
)
def unreadable_structure(ctx: Context) -> Finding:
    if ctx.subject.damaged and ctx.subject.drift is None:
        return ctx.fire(f"structure damaged, reading stopped: {ctx.subject.damaged}", error=ctx.subject.damaged)
    s = file_only(ctx)
    if s.kind_problem or s.format not in ("torch-zip", "torch-legacy", "pickle"):
        raise NotChecked(NA)
    if not s.pickle_error or s.truncated:
        raise StandDown("pickle walked to its end" if not s.pickle_error else "reported as truncation (TL301)")
    return ctx.fire(f"pickle unreadable: {s.pickle_error}", error=s.pickle_error)


@rule(
    code="TL308",
    name="missing-storage",
    category="integrity",
    severity="FAIL",
    target="checkpoint",
    summary="A tensor points at storage bytes the archive does not hold.",
    explanation="""
Each tensor in data.pkl names a storage entry (data/KEY) and an offset in it. A missing entry, or one
too short for the tensor, makes torch.load fail or read past the storage. Try: an earlier checkpoint.""",
)
def missing_storage(ctx: Context) -> Finding:
    s = ctx.subject
    if s.drift is not None or s.format not in ("torch-zip", "torch-legacy"):
        raise NotChecked(NA)
    if not s.missing_storages:
        raise StandDown(f"all {len(s.tensors)} tensors have their storage bytes")
    m = s.missing_storages
    text = "; ".join(f"{x['tensor']} (storage {x['storage']}: {x['why']})" for x in m[:3])
    return ctx.fire(f"{len(m)} tensors lack storage bytes: {text}", tensors=m[:MAX_LISTED])


def _scanned(ctx: Context) -> list[Any]:
    file_only(ctx)
    tensors = _tensors(ctx)
    if not tensors:
        raise NotChecked("no tensors found")
    if not ctx.subject.values_scanned:
        raise NotChecked(f"values not scanned ({ctx.subject.meta.get('values_skipped', 'use --values')})")
    return [t for t in tensors if t.stats is not None]


def _sentinel(t: Any) -> bool:
    """Callback bookkeeping (Lightning's best/kth score starts at +-inf) or a lone +-inf scalar."""
    return bool(t.name.startswith("callbacks.") or (t.numel == 1 and t.stats["nan"] == 0))


@rule(
    code="TL310",
    name="non-finite-tensor",
    category="checkpoint",
    severity="FAIL",
    target="checkpoint",
    summary="Tensors in the checkpoint hold NaN or Inf values.",
    explanation="""
A NaN or Inf in a weight poisons every forward pass through it; in optimizer state it poisons the
next update. Usually the run diverged before the save (look at the loss near this step) or an fp16
overflow went unscaled. Try: resume from an earlier checkpoint with a lower learning rate or bf16.
Not judged: tensors under `callbacks.` and single-value +-inf scalars (a "best score so far" starts
at +-inf by design); a NaN anywhere is judged.""",
    thresholds=[Threshold("min_values", 1, "non-finite values in one tensor needed to fire")],
)
def non_finite_tensor(ctx: Context) -> Finding:
    scanned = _scanned(ctx)
    bad = [t for t in scanned if t.stats["nan"] + t.stats["inf"] >= ctx.t("min_values") and not _sentinel(t)]
    if not bad:
        raise StandDown(
            f"{len(scanned)} tensors scanned, all finite (scalar +-inf sentinels and callback state not judged)"
        )
    desc = [f"{t.name} ({t.stats['nan']} NaN, {t.stats['inf']} Inf of {t.numel})" for t in bad]
    return ctx.fire(
        f"{len(bad)} of {len(scanned)} tensors hold NaN/Inf: {_names(desc, 3)}",
        count=len(bad),
        scanned=len(scanned),
        threshold=ctx.t("min_values"),
        tensors=[
            {"name": t.name, "dtype": t.dtype, "nan": t.stats["nan"], "inf": t.stats["inf"], "numel": t.numel}
            for t in bad[:MAX_LISTED]
        ],
    )


@rule(
    code="TL311",
    name="all-zero-tensor",
    category="checkpoint",
    severity="WARN",
    target="checkpoint",
    summary="Weight matrices that are entirely zero (dead or never-initialised layers).",
    explanation="""
A 2-D (or larger) floating-point weight whose every value is exactly zero carries no signal: the
layer was never initialised, was zeroed by a bad merge or conversion, or its gradients never
arrived. Biases and 1-D buffers are often legitimately zero and are not judged. Try: compare with
an earlier checkpoint (trainlint ckpt A B) and check the conversion or merge step.""",
    thresholds=[Threshold("min_numel", 16, "smallest tensor judged (elements)")],
)
def all_zero_tensor(ctx: Context) -> Finding:
    scanned = _scanned(ctx)
    judged = [
        t
        for t in scanned
        if len(t.shape) >= 2 and t.numel >= ctx.t("min_numel") and (t.dtype.startswith(("float", "bfloat")))
    ]
    if not judged:
        raise StandDown("no floating-point matrices to judge")
    zero = [t for t in judged if t.stats["all_zero"]]
    if not zero:
        raise StandDown(f"{len(judged)} weight matrices, none all-zero")
    return ctx.fire(
        f"{len(zero)} of {len(judged)} weight matrices are all zero: "
        f"{_names([f'{t.name} {list(t.shape)}' for t in zero], 3)}",
        count=len(zero),
        judged=len(judged),
        threshold=ctx.t("min_numel"),
        tensors=[{"name": t.name, "shape": list(t.shape), "dtype": t.dtype} for t in zero[:MAX_LISTED]],
    )


@rule(
    code="TL312",
    name="optimizer-state-invalid",
    category="checkpoint",
    severity="FAIL",
    target="checkpoint",
    summary="Adam's second-moment state (exp_avg_sq) holds negative values, which it cannot.",
    explanation="""
Adam and AdamW keep exp_avg_sq, a running mean of squared gradients: it is never negative. A
negative value means the optimizer state was corrupted (bit flips, a bad conversion, or state
saved from the wrong buffers); resuming from it takes the square root of a negative number and
produces NaN updates. Try: resume with a fresh optimizer state, or from an earlier checkpoint.""",
)
def optimizer_state_invalid(ctx: Context) -> Finding:
    scanned = [t for t in _scanned(ctx) if t.name.rsplit(".", 1)[-1] in ("exp_avg_sq", "max_exp_avg_sq")]
    if not scanned:
        raise StandDown("no Adam exp_avg_sq state in this checkpoint")
    bad = [t for t in scanned if t.stats["min"] is not None and t.stats["min"] < 0]
    if not bad:
        raise StandDown(f"{len(scanned)} exp_avg_sq tensors, all non-negative")
    desc = [f"{t.name} (min {t.stats['min']:.4g})" for t in bad]
    return ctx.fire(
        f"{len(bad)} of {len(scanned)} exp_avg_sq tensors hold negative values: {_names(desc, 3)}",
        count=len(bad),
        judged=len(scanned),
        tensors=[{"name": t.name, "min": t.stats["min"]} for t in bad[:MAX_LISTED]],
    )


@rule(
    code="TL313",
    name="safetensors-header-invalid",
    category="integrity",
    severity="FAIL",
    target="checkpoint",
    summary="A safetensors header is unreadable: bad length, bad JSON, unknown dtype or duplicate keys.",
    explanation="""
A safetensors file starts with an 8-byte header length and a JSON header naming every tensor's dtype,
shape and byte range. A length past the end of the file, invalid JSON, an unknown dtype, a missing
field or a key listed twice means loaders reject the file or, worse, disagree on which tensor wins.""",
)
def safetensors_header(ctx: Context) -> Finding:
    st = need(ctx, "safetensors")
    problems = st["header"] + st["dtype"] + [f"duplicate key {k!r}" for k in st["duplicates"]]
    if not problems:
        raise StandDown(f"header of {st.get('header_bytes')} bytes is valid JSON with known dtypes")
    return ctx.fire(
        f"safetensors header invalid: {'; '.join(problems[:3])}",
        problems=problems[:MAX_LISTED],
        header_bytes=st.get("header_bytes"),
    )


@rule(
    code="TL314",
    name="safetensors-layout-invalid",
    category="integrity",
    severity="FAIL",
    target="checkpoint",
    summary="safetensors byte ranges overlap or disagree with their tensors' shape and dtype.",
    explanation="""
Each tensor's [begin, end) range must hold exactly shape x dtype bytes, and ranges must not overlap.
Overlapping or mis-sized ranges mean two tensors share bytes or a tensor reads its neighbour's.""",
)
def safetensors_layout(ctx: Context) -> Finding:
    st = need(ctx, "safetensors")
    problems = st["size"] + st["overlap"] + ([] if ctx.subject.truncated else st["outside"])
    if not problems:
        raise StandDown(f"{len(ctx.subject.tensors)} byte ranges are consistent")
    return ctx.fire(f"{len(problems)} layout problems: {'; '.join(problems[:3])}", problems=problems[:MAX_LISTED])


@rule(
    code="TL315",
    name="safetensors-unused-bytes",
    category="integrity",
    severity="WARN",
    target="checkpoint",
    summary="A safetensors file has gaps between tensors or bytes after the last one.",
    explanation="""
The safetensors format packs tensors contiguously with nothing after the last one. Gaps or trailing
bytes are not read by any loader: they hint at a file appended to or written by a non-standard tool.""",
)
def safetensors_unused(ctx: Context) -> Finding:
    st = need(ctx, "safetensors")
    if st["header"]:
        raise NotChecked("header unreadable")
    problems = list(st["gaps"]) + ([f"{st['trailing']} bytes after the last tensor"] if st["trailing"] else [])
    if not problems:
        raise StandDown("tensors are contiguous and end at the end of the file")
    return ctx.fire(f"unused bytes: {'; '.join(problems[:3])}", problems=problems[:MAX_LISTED], trailing=st["trailing"])


@rule(
    code="TL316",
    name="shards-missing",
    category="integrity",
    severity="FAIL",
    target="checkpoint",
    summary="A sharded checkpoint's index names shards or keys that are not there, or a key twice.",
    explanation="""
`*.index.json` maps every tensor to the shard file that holds it. A missing shard, a key the shard
does not hold, or a key found in two shards makes from_pretrained fail or load the wrong copy.
Try: re-download the missing shards (check the list against the repository).""",
)
def shards_missing(ctx: Context) -> Finding:
    idx = need(ctx, "index")
    if idx.get("error"):
        return ctx.fire(f"index unreadable: {idx['error']}", error=idx["error"])
    parts = []
    if idx["missing_shards"]:
        parts.append(
            f"{len(idx['missing_shards'])} of {idx['shards']} shards missing "
            f"({_names([m['shard'] for m in idx['missing_shards']], 3)})"
        )
    if idx["unreadable"]:
        parts.append(
            f"{len(idx['unreadable'])} shards unreadable ({_names([u['shard'] for u in idx['unreadable']], 3)})"
        )
    if idx["missing_keys"]:
        parts.append(
            f"{len(idx['missing_keys'])} indexed keys absent from their shard "
            f"({_names([m['key'] for m in idx['missing_keys']], 3)})"
        )
    if idx["duplicate_keys"]:
        parts.append(
            f"{len(idx['duplicate_keys'])} keys in more than one shard "
            f"({_names([d['key'] for d in idx['duplicate_keys']], 3)})"
        )
    if not parts:
        raise StandDown(f"all {idx['shards']} shards present and hold their {idx['keys']} keys")
    return ctx.fire(
        "; ".join(parts),
        missing_shards=idx["missing_shards"],
        unreadable=idx["unreadable"],
        missing_keys=idx["missing_keys"][:MAX_LISTED],
        duplicate_keys=idx["duplicate_keys"][:MAX_LISTED],
        shards=idx["shards"],
        keys=idx["keys"],
    )


@rule(
    code="TL317",
    name="shards-orphaned",
    category="integrity",
    severity="WARN",
    target="checkpoint",
    summary="Shard files or shard keys that the index does not mention.",
    explanation="""
Shards beside the index that it does not name (left over from an earlier save with a different
shard count), or tensors inside a shard the index does not map, are never loaded. Harmless
for loading, but they waste space and hint at two saves mixed in one folder.""",
)
def shards_orphaned(ctx: Context) -> Finding:
    idx = need(ctx, "index")
    if idx.get("error"):
        raise NotChecked("index unreadable")
    orphans, extra = idx["orphan_shards"], idx["unindexed_keys"]
    if not orphans and not extra:
        raise StandDown("no unindexed shards or keys")
    parts = ([f"{len(orphans)} shard files not in the index ({_names(orphans, 3)})"] if orphans else []) + (
        [f"{len(extra)} keys in shards but not in the index ({_names([e['key'] for e in extra], 3)})"] if extra else []
    )
    return ctx.fire("; ".join(parts), orphan_shards=orphans, unindexed_keys=extra[:MAX_LISTED])


RESUME_NEEDS = ("config", "weights", "optimizer", "scheduler", "trainer_state", "rng_state")
SAVE_ONLY_MODEL = ("optimizer", "scheduler", "rng_state")  # what save_only_model=True leaves out


@rule(
    code="TL318",
    name="resume-incomplete",
    category="checkpoint",
    severity="WARN",
    target="checkpoint",
    summary="An HF Trainer checkpoint folder lacks files a resume needs.",
    explanation="""
resume_from_checkpoint restores weights, optimizer.pt, scheduler.pt, trainer_state.json and the RNG
state. Without optimizer/scheduler the run restarts its moments and schedule (a loss spike and a
different learning rate); without trainer_state.json it restarts at step 0; without rng_state the
data order differs. Only resume points are judged: checkpoint-N folders (and a copy that kept an
optimizer, scheduler or RNG state); the Trainer's final save_model output (weights, config and
often trainer_state.json, without optimizer by design) is not one. A checkpoint that lacks
exactly the optimizer, scheduler and RNG state, with weights, config and trainer state present,
is what save_only_model=True writes by choice: a NOTE (a resume from it restarts the optimizer
and the schedule). Try: save with save_only_model=False, or copy the missing files from the run.""",
)
def resume_incomplete(ctx: Context) -> Finding:
    hf = need(ctx, "hf_folder")
    if not hf["resume_checkpoint"]:
        raise StandDown(
            "a model save (not named checkpoint-N, no optimizer, scheduler or RNG state): "
            "not a resume point, e.g. the Trainer's final save_model output"
        )
    missing = [k for k in RESUME_NEEDS if not hf["has"][k]]
    if not missing:
        raise StandDown("config, weights, optimizer, scheduler, trainer state and RNG state all present")
    if missing == list(SAVE_ONLY_MODEL):
        return ctx.fire(
            "saved without optimizer, scheduler and RNG state, the way save_only_model=True saves every "
            "checkpoint: a choice, not damage (a NOTE); a resume from it restarts the optimizer's moments "
            "and the LR schedule",
            missing=missing,
            step=hf.get("folder_step"),
            severity="NOTE",
            save_only_model=True,
        )
    return ctx.fire(
        f"resume would be incomplete: missing {', '.join(missing)}",
        missing=missing,
        step=hf.get("folder_step"),
        save_only_model=False,
    )


@rule(
    code="TL319",
    name="weights-missing",
    category="checkpoint",
    severity="FAIL",
    target="checkpoint",
    summary="A checkpoint folder has a config but no weights file.",
    explanation="""
A folder with config.json but no model.safetensors, pytorch_model.bin or shard index loads an
architecture with nothing in it (or fails). Usually the save was interrupted after the config.""",
)
def weights_missing(ctx: Context) -> Finding:
    hf = need(ctx, "hf_folder")
    if hf["has"]["weights"]:
        raise StandDown("weights file present")
    return ctx.fire(f"no weights in the folder (files: {_names(hf['files'], 8)})", files=hf["files"][:MAX_LISTED])


@rule(
    code="TL322",
    name="resume-step-mismatch",
    category="checkpoint",
    severity="WARN",
    target="checkpoint",
    summary="A checkpoint-N folder whose trainer_state.json records a different global step.",
    explanation="""
The Trainer names each checkpoint folder after the step it saved (checkpoint-500) and records the same
step in trainer_state.json. When they differ, the folder was renamed or its files were copied from
another save, and a resume would restart the schedule and data order from the recorded step, not
the one in the name.""",
)
def resume_step_mismatch(ctx: Context) -> Finding:
    hf = need(ctx, "hf_folder")
    named, recorded = hf.get("folder_step"), hf.get("global_step")
    if named is None or not isinstance(recorded, int):
        raise NotChecked("needs a checkpoint-N folder name and a global_step in trainer_state.json")
    if named == recorded:
        raise StandDown(f"folder step {named} matches trainer_state.json")
    return ctx.fire(
        f"folder is checkpoint-{named} but trainer_state.json records global_step {recorded}",
        step=named,
        folder_step=named,
        global_step=recorded,
    )


@rule(
    code="TL320",
    name="dcp-incomplete",
    category="integrity",
    severity="FAIL",
    target="checkpoint",
    summary="A torch.distributed.checkpoint folder lacks .distcp files (or bytes) its .metadata refers to.",
    explanation="""
A DCP checkpoint is a .metadata file describing, for every tensor shard, the .distcp file, offset and
length holding it. A rank that died before writing leaves its file missing or short, and loading fails
on every rank. Try: an earlier checkpoint; check which rank failed to save.""",
)
def dcp_incomplete(ctx: Context) -> Finding:
    d = need(ctx, "dcp")
    if d.get("error"):
        return ctx.fire(f"DCP metadata unreadable: {d['error']}", error=d["error"])
    if not d["missing_files"] and not d["short_files"]:
        raise StandDown(f"{d['entries']} storage entries in {len(d['files'])} files all present")
    parts = ([f"missing files {_names(d['missing_files'], 4)}"] if d["missing_files"] else []) + [
        f"{s['file']} has {s['bytes']} bytes, metadata needs {s['needs']}" for s in d["short_files"][:3]
    ]
    return ctx.fire(
        f"DCP checkpoint incomplete: {'; '.join(parts)}",
        missing_files=d["missing_files"],
        short_files=d["short_files"],
        entries=d["entries"],
    )


@rule(
    code="TL321",
    name="deepspeed-partitions-missing",
    category="integrity",
    severity="FAIL",
    target="checkpoint",
    summary="A DeepSpeed checkpoint has fewer ZeRO partition files than its recorded world size.",
    explanation="""
DeepSpeed writes one optimizer-state partition per data-parallel rank (times model-parallel ranks)
and records dp_world_size in mp_rank_00_model_states.pt. Missing partitions make the resume fail
(or, with a different world size, refuse). Try: find the rank whose save failed; use an earlier tag.""",
)
def deepspeed_partitions(ctx: Context) -> Finding:
    d = need(ctx, "deepspeed")
    if "expected_optim_files" not in d:
        raise NotChecked("dp_world_size/mp_world_size not recorded or no optimizer partitions")
    if not d["missing_ranks"]:
        raise StandDown(f"{d['optim_files']} partitions for dp={d['dp_world_size']} x mp={d['mp_world_size']}")
    return ctx.fire(
        f"{d['optim_files']} of {d['expected_optim_files']} ZeRO partitions present "
        f"(dp_world_size={d['dp_world_size']}, mp_world_size={d['mp_world_size']}); "
        f"missing {_names(d['missing_ranks'], 6)}",
        present=d["optim_files"],
        expected=d["expected_optim_files"],
        missing_ranks=d["missing_ranks"][:MAX_LISTED],
    )


@rule(
    code="TL330",
    name="checkpoint-keys-drift",
    category="checkpoint",
    severity="WARN",
    target="checkpoint",
    summary="Two checkpoints differ in which tensors they hold (keys added or removed).",
    explanation="""
Comparing two checkpoints of the same model (before/after a resume, a conversion or a merge): keys
that appear or vanish mean the loader will report missing/unexpected keys, or with strict=False
silently leave layers at their initial values. A prefix every key gained or lost (module. from
DistributedDataParallel, _orig_mod. from torch.compile, model. from a wrapper) is recognised first
and named as such; only the keys that still differ after it are called added or removed.""",
)
def keys_drift(ctx: Context) -> Finding:
    d = need(ctx, "drift")
    prefix = d.get("prefix")
    if not d["added"] and not d["removed"] and not prefix:
        raise StandDown(f"same {d['keys_before']} keys in both")
    renamed = ""
    if prefix:
        renamed = (
            f"every key {_prefix_change(prefix)} ({d['keys_before']} -> {d['keys_after']} keys); "
            "strip or add it before load_state_dict"
        )
        if not d["added"] and not d["removed"]:
            return ctx.fire(
                renamed + ", apart from it the same keys",
                prefix=prefix,
                keys_before=d["keys_before"],
                keys_after=d["keys_after"],
                added=[],
                removed=[],
            )
        renamed += "; apart from it, "
    return ctx.fire(
        f"{renamed}{len(d['added'])} keys added ({_names(d['added'], 3)}), {len(d['removed'])} removed "
        f"({_names(d['removed'], 3)}); {d['keys_before']} -> {d['keys_after']} keys",
        added=d["added"][:MAX_LISTED],
        removed=d["removed"][:MAX_LISTED],
        keys_before=d["keys_before"],
        keys_after=d["keys_after"],
        prefix=prefix,
    )


def _prefix_change(p: dict[str, str]) -> str:
    if not p["before"]:
        return f"gained the prefix {p['after']!r}"
    if not p["after"]:
        return f"lost the prefix {p['before']!r}"
    return f"changed prefix {p['before']!r} -> {p['after']!r}"


@rule(
    code="TL332",
    name="weights-unchanged",
    category="checkpoint",
    severity="WARN",
    target="checkpoint",
    summary="Two checkpoints hold byte-identical floating-point weights: training did not change them.",
    explanation="""
Between two checkpoints of one run every trained weight should change. When the bytes of every
floating-point tensor are identical (CRC-32 of each tensor compared), the optimizer never updated
them: a learning rate of 0, all parameters frozen, gradients never reaching them, or the same
state saved twice. A partly unchanged model (a frozen base under LoRA adapters) is reported in
the stand-down reason, not as a warning, below the threshold fraction.""",
    thresholds=[Threshold("min_fraction", 1.0, "fraction of compared float tensors unchanged needed to fire")],
)
def weights_unchanged(ctx: Context) -> Finding:
    d = need(ctx, "drift")
    n, same = d.get("values_compared", 0), d.get("unchanged", [])
    if n == 0:
        why = ctx.subject.meta.get("digest_skipped", "use --values")
        raise NotChecked(f"tensor bytes not compared ({why})")
    frac = len(same) / n
    if frac < ctx.t("min_fraction"):
        raise StandDown(f"{n - len(same)} of {n} float tensors changed ({len(same)} unchanged)")
    return ctx.fire(
        f"{len(same)} of {n} float tensors are byte-identical in both checkpoints "
        f"({frac:.0%} >= {ctx.t('min_fraction'):.0%}): the weights did not change",
        unchanged=len(same),
        compared=n,
        fraction=frac,
        threshold=ctx.t("min_fraction"),
        tensors=same[:MAX_LISTED],
    )


@rule(
    code="TL331",
    name="checkpoint-shape-drift",
    category="checkpoint",
    severity="WARN",
    target="checkpoint",
    summary="Tensors present in both checkpoints changed shape or dtype.",
    explanation="""
A shape change (a resized vocabulary, a different head count) or a dtype change (fp32 -> bf16 in a
conversion) between two checkpoints of one model makes load_state_dict fail, or changes numerics.""",
)
def shape_drift(ctx: Context) -> Finding:
    d = need(ctx, "drift")
    if not d["changed"]:
        raise StandDown("shapes and dtypes of shared keys unchanged")
    desc = [
        f"{c['key']} {c['before']['dtype']}{c['before']['shape']} -> {c['after']['dtype']}{c['after']['shape']}"
        for c in d["changed"]
    ]
    return ctx.fire(f"{len(desc)} tensors changed: {_names(desc, 3)}", changed=d["changed"][:MAX_LISTED])
