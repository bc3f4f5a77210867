"""Checkpoint folders: sharded ``*.index.json``, HF Trainer checkpoints,
torch.distributed.checkpoint (``.metadata`` + ``*.distcp``) and DeepSpeed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..picklewalk import Call, iter_nodes, mapping, walk
from ..safeio import JSONLimit, head_bytes, inside, load_json_file, open_regular, read_bytes, read_str
from .model import Inspection, PickleScan

WEIGHT_NAMES = (
    "model.safetensors",
    "pytorch_model.bin",
    "adapter_model.safetensors",
    "adapter_model.bin",
    "tf_model.h5",
    "flax_model.msgpack",
)
SHARD = re.compile(r"^(?P<stem>.+)-(?P<i>\d{5})-of-(?P<n>\d{5})\.(?P<ext>safetensors|bin)$")
DS_MODEL = re.compile(r"(?:zero_pp_rank_\d+_)?mp_rank_(\d+)_model_states\.pt$")
DS_OPTIM = re.compile(r"(?:bf16_)?zero_pp_rank_(\d+)_mp_rank_(\d+)_optim_states\.pt$")
CHECKPOINT_DIR = re.compile(r"^checkpoint-(\d+)$")


def folder_kind(path: Path) -> str | None:
    """dcp, deepspeed, hf-folder or None, from the folder's file names."""
    try:
        names = {p.name for p in path.iterdir() if p.is_file()}
    except OSError:
        return None
    if ".metadata" in names and (any(n.endswith(".distcp") for n in names) or _is_pickle(path / ".metadata")):
        return "dcp"
    if any(DS_MODEL.search(n) or DS_OPTIM.search(n) for n in names):
        return "deepspeed"
    weights = any(n in names for n in WEIGHT_NAMES) or any(n.endswith(".index.json") for n in names)
    state = bool({"optimizer.pt", "scheduler.pt", "training_args.bin"} & names) or any(
        re.match(r"rng_state(_\d+)?\.pth$", n) for n in names
    )
    config = "config.json" in names or "adapter_config.json" in names
    named = CHECKPOINT_DIR.match(path.name) is not None
    # trainer_state.json alone is a training log, not a checkpoint; an output folder with the
    # Trainer's state and arguments but no model (never saved) is a run folder, not a checkpoint
    # missing its weights: without weights only a config or a checkpoint-N name claims a model
    if weights and (config or named or "trainer_state.json" in names):
        return "hf-folder"
    if state and (config or named):
        return "hf-folder"
    if named and config:
        return "hf-folder"
    return None


def _is_pickle(path: Path) -> bool:
    try:
        return head_bytes(path, 1) == b"\x80"
    except OSError:
        return False


def inspect_folder(path: Path, values: bool | None = None) -> Inspection:
    from .files import DAMAGE

    kind = folder_kind(path)
    insp = Inspection(path=str(path), format=kind or "folder")
    try:
        _inspect_kind(path, kind, insp)
    except DAMAGE as exc:  # a file in the folder so damaged that a reader step failed: report it
        insp.damaged = f"{type(exc).__name__}: {exc}"
    return insp


def _inspect_kind(path: Path, kind: str | None, insp: Inspection) -> None:
    if kind == "dcp":
        inspect_dcp(path, insp)
    elif kind == "deepspeed":
        inspect_deepspeed(path, insp)
    elif kind == "hf-folder":
        inspect_hf(path, insp)
    else:
        insp.kind_problem = "not-a-checkpoint"
        insp.meta["folder"] = "no checkpoint layout recognised (HF, DCP, DeepSpeed)"


# -- sharded index -------------------------------------------------------------------
def inspect_index(path: Path, digest: bool | None = False) -> Inspection:
    insp = Inspection(path=str(path), format="sharded-index", size=path.stat().st_size)
    idx: dict[str, Any] = {
        "missing_shards": [],
        "orphan_shards": [],
        "missing_keys": [],
        "unindexed_keys": [],
        "duplicate_keys": [],
        "unreadable": [],
        "shards": 0,
    }
    insp.index = idx
    try:
        doc = load_json_file(path)
        wmap = doc["weight_map"]
        assert isinstance(wmap, dict)
    except JSONLimit as exc:
        idx["error"] = f"index not parsed: {exc}"
        return insp
    except (OSError, ValueError, KeyError, AssertionError, UnicodeDecodeError, TypeError) as exc:
        idx["error"] = f"index is not a JSON object with a weight_map: {type(exc).__name__}"
        return insp
    by_shard: dict[str, set[str]] = {}
    for key, shard in wmap.items():
        by_shard.setdefault(str(shard), set()).add(key)
    idx["shards"] = len(by_shard)
    idx["keys"] = len(wmap)
    idx["total_size"] = (doc.get("metadata") or {}).get("total_size")
    seen: dict[str, str] = {}
    stored = sum(_take_shard(path, shard, keys, insp, idx, seen, digest) for shard, keys in sorted(by_shard.items()))
    idx["stored_bytes"] = stored
    idx["orphan_shards"] = _orphans(path.parent, set(by_shard))
    return insp


def _take_shard(
    path: Path,
    shard: str,
    keys: set[str],
    insp: Inspection,
    idx: dict[str, Any],
    seen: dict[str, str],
    digest: bool | None,
) -> int:
    """Reads one shard the index names (never one outside the checkpoint folder), adds its tensors
    to ``insp`` and what is wrong with it to the index record; the bytes its tensors hold."""
    from .files import inspect_file

    f = path.parent / shard
    if Path(shard).is_absolute() or ".." in Path(shard).parts or not inside(f, path.parent):
        idx.setdefault("outside", []).append({"shard": shard, "keys": len(keys)})
        return 0  # never opened: a file outside the checkpoint folder
    if not f.is_file():
        idx["missing_shards"].append({"shard": shard, "keys": len(keys)})
        return 0
    sub = inspect_file(f, values=False, crc=False, digest=digest)
    if sub.kind_problem or sub.pickle_error or sub.truncated:
        idx["unreadable"].append({"shard": shard, "why": sub.kind_problem or sub.pickle_error or sub.truncated})
        return 0
    names = {t.name for t in sub.tensors}  # shards' own pickles are judged as files of their own
    for t in sub.tensors:
        t.file = shard
        if t.name in seen:
            idx["duplicate_keys"].append({"key": t.name, "shards": [seen[t.name], shard]})
        seen[t.name] = shard
    insp.tensors.extend(sub.tensors)
    idx["missing_keys"] += [{"key": k, "shard": shard} for k in sorted(keys - names)]
    idx["unindexed_keys"] += [{"key": k, "shard": shard} for k in sorted(names - keys)]
    return sum(t.nbytes for t in sub.tensors)


def _orphans(folder: Path, named: set[str]) -> list[str]:
    stems = {m.group("stem") for m in map(SHARD.match, named) if m}
    out = []
    for f in sorted(folder.iterdir()):
        m = SHARD.match(f.name)
        if m and m.group("stem") in stems and f.name not in named:
            out.append(f.name)
    return out


# -- HF Trainer checkpoint folder -----------------------------------------------------
def inspect_hf(path: Path, insp: Inspection) -> None:
    names = {p.name for p in path.iterdir() if p.is_file()}
    has = {
        "config": bool({"config.json", "adapter_config.json"} & names),
        "weights": any(n in names for n in WEIGHT_NAMES) or any(n.endswith(".index.json") for n in names),
        "optimizer": bool({"optimizer.pt", "optimizer.bin"} & names) or any(n.startswith("optimizer") for n in names),
        "scheduler": "scheduler.pt" in names,
        "trainer_state": "trainer_state.json" in names,
        "rng_state": any(re.match(r"rng_state(_\d+)?\.pth$", n) for n in names),
    }
    m = CHECKPOINT_DIR.match(path.name)
    # checkpoint-N (and the hub's last-checkpoint) are resume points; so is a renamed copy that
    # kept some resume-only file. The output folder's final save_model (+ save_state) is not.
    resume_only = has["optimizer"] or has["scheduler"] or has["rng_state"]
    resume = bool(m) or path.name == "last-checkpoint" or (has["trainer_state"] and resume_only)
    facts: dict[str, Any] = {
        "has": has,
        "resume_checkpoint": resume,
        "folder_step": int(m.group(1)) if m else None,
        "files": sorted(names),
    }
    if has["trainer_state"]:
        try:
            facts["global_step"] = load_json_file(path / "trainer_state.json").get("global_step")
        except (OSError, ValueError, UnicodeDecodeError, AttributeError):
            facts["trainer_state_unreadable"] = True
    insp.hf_folder = facts


# -- torch.distributed.checkpoint ----------------------------------------------------
DCP_ALLOW = (
    "torch.distributed.checkpoint.",
    "torch.distributed._shard.",
    "torch.Size",
    "torch.float",
    "torch.bfloat16",
    "torch.int",
    "torch.uint",
    "torch.bool",
    "torch.strided",
    "torch.contiguous_format",
    "torch.complex",
    "torch.device",
    "torch.memory_format",
    "torch.layout",
    "builtins.int",
    "collections.",
)


def inspect_dcp(path: Path, insp: Inspection) -> None:
    meta = path / ".metadata"
    res = walk(read_bytes(meta))
    insp.pickles.append(PickleScan(str(meta), res.globals, res.error, 0, allow_extra=DCP_ALLOW))
    files = {p.name: p.stat().st_size for p in path.iterdir() if p.name.endswith(".distcp")}
    facts: dict[str, Any] = {"files": files, "missing_files": [], "short_files": [], "entries": 0, "keys": 0}
    insp.dcp = facts
    if res.error:
        facts["error"] = f".metadata: {res.error}"
        return
    need: dict[str, int] = {}
    for _, node in iter_nodes(res.root):
        if isinstance(node, Call) and node.name.endswith("_StorageInfo"):
            st = _fields(node, ("relative_path", "offset", "length"))
            rel, off, ln = st.get("relative_path"), st.get("offset"), st.get("length")
            if isinstance(rel, str) and isinstance(off, int) and isinstance(ln, int):
                facts["entries"] += 1
                need[rel] = max(need.get(rel, 0), off + ln)
        elif isinstance(node, Call) and node.name.endswith(".Metadata"):
            sdm = mapping(_fields(node, ("state_dict_metadata",)).get("state_dict_metadata"))
            facts["keys"] = len(sdm) if sdm else 0
    for rel, end in sorted(need.items()):
        if rel not in files:
            facts["missing_files"].append(rel)
        elif files[rel] < end:
            facts["short_files"].append({"file": rel, "bytes": files[rel], "needs": end})
    facts["unreferenced"] = sorted(set(files) - set(need))


def _fields(node: Call, names: tuple[str, ...]) -> dict[str, Any]:
    """Dataclass fields of a pickled object: BUILD state dict, (None, slots) pair, or NEWOBJ args."""
    state = node.state
    if isinstance(state, tuple) and len(state) == 2:
        merged: dict[str, Any] = {}
        for part in state:
            if isinstance(part, dict):
                merged.update(part)
        state = merged
    if isinstance(state, dict) and state:
        return state
    return dict(zip(names, node.args))


# -- DeepSpeed -----------------------------------------------------------------------
def inspect_deepspeed(path: Path, insp: Inspection) -> None:
    names = sorted(p.name for p in path.iterdir() if p.is_file())
    model = [n for n in names if DS_MODEL.search(n)]
    optim = [(int(m.group(1)), int(m.group(2)), n) for n in names if (m := DS_OPTIM.search(n))]
    facts: dict[str, Any] = {"model_files": model, "optim_files": len(optim)}
    insp.deepspeed = facts
    dp = mp = None
    for name in model[:1]:
        root = _root_of(path / name)  # the file's pickle is judged (security) as a file of its own
        if root is None:
            insp.damaged = f"{name}: no readable data.pkl (the file's own report says why)"
        d = mapping(root) or {}
        dp, mp = d.get("dp_world_size"), d.get("mp_world_size")
    facts["dp_world_size"], facts["mp_world_size"] = dp, mp
    if isinstance(dp, int) and isinstance(mp, int) and optim:
        have = {(r, m) for r, m, _ in optim}
        facts["expected_optim_files"] = dp * mp
        facts["missing_ranks"] = sorted(f"dp{r}/mp{m}" for r in range(dp) for m in range(mp) if (r, m) not in have)
    latest = path.parent / "latest"
    if latest.is_file():
        facts["latest"] = read_str(latest).strip()


def _root_of(path: Path) -> Any:
    """The walked root object of a torch zip checkpoint (None when unreadable)."""
    import mmap

    from .zipread import read_zip

    with open_regular(path) as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        info = read_zip(buf, len(buf))
        e = info.find("data.pkl")
        if e is None or not e.complete:
            return None
        res = walk(buf[e.data_offset : e.data_offset + e.compressed_size])
        return res.root if res.complete else None
