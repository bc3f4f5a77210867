"""Discovery groups runs: the files in one folder that record one training run.

Conventions are recognised by file and folder names only (sniffing every file
of every folder would make discovery slow); the files are then read by
whichever reader recognises them, so grouping knows no file format:

- a Hugging Face output dir: ``trainer_state.json`` and its
  ``checkpoint-*/trainer_state.json`` copies, plus the ``runs/*/`` event files
  (and LLaMA-Factory's ``trainer_log.jsonl``);
- a Lightning version folder: ``hparams.yaml`` or ``version_N`` with
  ``metrics.csv`` and/or event files;
- a Coqui run folder: ``trainer_N_log.txt`` with event files beside it;
- NumPy arrays of one run: ``train_loss.npy`` and ``val_loss.npy`` (two or more ``.npy`` files
  named by a metric, one of them a loss);
- a store's run folder that its folder reader recognises (an MLflow run, a W&B run).

The run is read from every member, the best record becomes the primary one
and the others complement it: series it lacks, and a clock (wall times).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import msgspec
import numpy as np

from ..arrays import unique
from ..model import Damage, Run
from ..options import ReadOptions
from ..roles import assign_roles, role_of
from ..yamlfile import flatten, load_yaml
from . import Reader, ReadError, load_readers, read_run, sniff
from .base import link_vocab

EVENTS_PREFIX = "events.out.tfevents."
COQUI_LOG = re.compile(r"^trainer_\d+_log\.txt$")
CHECKPOINT_DIR = re.compile(r"^checkpoint-\d+$")
LIGHTNING_DIR = re.compile(r"^version_\d+$")
HF_TEXT_LOGS = ("trainer_log.jsonl",)  # LLaMA-Factory writes it beside trainer_state.json
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "spm.model", "vocab.txt")
DATASET_SUFFIXES = (".jsonl", ".parquet", ".arrow", ".csv", ".tsv", ".json")
DATASET_HINTS = ("train", "data", "dataset", "valid", "eval", "test")


class RunGroup(msgspec.Struct):
    folder: Path
    convention: str  # "hf-output", "lightning", "coqui", or the name of a folder reader
    logs: list[Path] = msgspec.field(default_factory=list)  # every log file of the run (copies included)
    folder_reader: Reader | None = None

    def claims(self) -> list[Path]:
        """The files judged as part of this run (not again on their own). Of a store's run
        folder, the store's own files: user artifacts (checkpoints, data) stay for their inspectors."""
        if self.folder_reader is not None:
            return sorted(p for p in self.folder.rglob("*") if p.is_file() and _store_file(self.folder, p))
        return list(self.logs)


STORE_OWN = re.compile(
    r"^(meta\.yaml|metrics/.*|params/.*|tags/.*|[^/]+\.wandb|logs/.*|files/(wandb-[^/]+|"
    r"output\.log|config\.yaml|requirements\.txt|conda-environment\.yaml|diff\.patch))$"
)


def _store_file(folder: Path, path: Path) -> bool:
    return bool(STORE_OWN.match(path.relative_to(folder).as_posix()))


def _events(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.name.startswith(EVENTS_PREFIX) and p.is_file())
    except OSError:
        return []


def _subdirs(folder: Path, pattern: re.Pattern[str] | None = None) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.is_dir() and (pattern is None or pattern.match(p.name)))
    except OSError:
        return []


def _hf_group(folder: Path) -> RunGroup | None:
    states = [folder / "trainer_state.json"] if (folder / "trainer_state.json").is_file() else []
    for ck in _subdirs(folder, CHECKPOINT_DIR):
        if (ck / "trainer_state.json").is_file():
            states.append(ck / "trainer_state.json")
    if not states:
        return None
    events = _events(folder)
    runs = folder / "runs"
    if runs.is_dir():
        events += _events(runs)
        for sub in _subdirs(runs):
            events += _events(sub) + [e for s in _subdirs(sub) for e in _events(s)]
    extra = [folder / n for n in HF_TEXT_LOGS if (folder / n).is_file()]
    return RunGroup(folder, "hf-output", states + extra + events)


def _lightning_group(folder: Path) -> RunGroup | None:
    named = bool(LIGHTNING_DIR.match(folder.name)) or (folder / "hparams.yaml").is_file()
    if not named:
        return None
    logs = [folder / "metrics.csv"] if (folder / "metrics.csv").is_file() else []
    logs += _events(folder)
    return RunGroup(folder, "lightning", logs) if logs else None


def _coqui_group(folder: Path) -> RunGroup | None:
    try:
        texts = sorted(p for p in folder.iterdir() if COQUI_LOG.match(p.name) and p.is_file())
    except OSError:
        return None
    if not texts:
        return None
    return RunGroup(folder, "coqui", texts + _events(folder))


def _numpy_group(folder: Path) -> RunGroup | None:
    """``np.save``'d metric arrays side by side, each file's name an alias of a distinct role
    (``train_loss.npy``, ``val_loss.npy``, ``lr.npy``), one of them the loss. Two files of one
    role (two runs' losses) make no group: each is judged on its own."""
    try:
        arrays = sorted(p for p in folder.iterdir() if p.name.lower().endswith(".npy") and p.is_file())
    except OSError:
        return None
    roles = {p: role_of(p.name[:-4]) for p in arrays}
    named = [p for p in arrays if roles[p] is not None]
    taken = [roles[p] for p in named]
    if len(named) < 2 or "loss" not in taken or len(set(taken)) < len(taken):
        return None
    return RunGroup(folder, "numpy-arrays", named)


STORE_READERS = ("mlflow-run", "wandb-run")  # folder readers whose folder is one run of a store


def _folder_reader_group(folder: Path) -> RunGroup | None:
    """A store's run folder. Other folder readers (a folder of event files) are left to their
    own inspectors; their files join a run here only through the conventions above."""
    for r in load_readers():
        if not r.folder or r.name not in STORE_READERS:
            continue
        try:
            if r.sniff(folder, b""):
                return RunGroup(folder, r.name, [], r)
        except Exception:  # a sniffer must never take discovery down  # noqa: BLE001, S112
            continue
    return None


def find_group(folder: Path, options: ReadOptions | None = None) -> RunGroup | None:
    """The run recorded in ``folder`` by a known convention, or None.

    Only files some registered reader recognises count (an event file is no
    member while no reader for event files is installed).
    """
    for finder in (_hf_group, _lightning_group, _coqui_group, _numpy_group, _folder_reader_group):
        group = finder(folder)
        if group is None:
            continue
        if group.folder_reader is None:
            group.logs = [p for p in group.logs if sniff(p, options) is not None]
            if not group.logs:
                continue
        return group
    return None


def worth_grouping(group: RunGroup) -> bool:
    """A lone log with nothing beside it is judged as a file, as before."""
    if group.folder_reader is not None or len(group.logs) > 1:
        return True
    if group.convention == "hf-output" and (group.folder / "training_args.bin").is_file():
        return True  # the Trainer's output folder, saved with or without its model
    return bool(companions(group.folder)) or group.convention == "lightning"


def companions(folder: Path) -> dict[str, Path]:
    """Files beside a run that describe its model, tokenizer, data or settings."""
    found: dict[str, Path] = {}
    for name in ("hparams.yaml", "config.json"):
        if (folder / name).is_file():
            found[name] = folder / name
    for name in TOKENIZER_FILES:
        if (folder / name).is_file():
            found.setdefault("tokenizer", folder / name)
    data = _dataset_file(folder)
    if data is not None:
        found["dataset"] = data
    return found


def _dataset_file(folder: Path) -> Path | None:
    try:
        files = sorted(p for p in folder.iterdir() if p.is_file())
    except OSError:
        return None
    for p in files:
        stem, low = p.stem.lower(), p.name.lower()
        if (
            low.endswith(DATASET_SUFFIXES)
            and stem.startswith(DATASET_HINTS)
            and not stem.endswith(("results", "state", "args", "config", "log", "metrics"))
            and not stem.startswith("trainlint-")  # the guard log, never a dataset
        ):
            return p
    return None


def registered(name: str) -> bool:
    """Whether a reader of this name is registered (e.g. "tfevents")."""
    return any(r.name == name for r in load_readers())


# ---------------------------------------------------------------- reading a group


def read_group(group: RunGroup, options: ReadOptions | None = None) -> Run:
    """One Run from every file of the group: the best record, complemented by the others."""
    if group.folder_reader is not None:
        run = group.folder_reader.read(group.folder)
    elif group.convention == "numpy-arrays":
        from .numpy_file import read_arrays

        run = read_arrays(group.folder, group.logs)
    else:
        run = _read_members(group, options)
    run.source = str(group.folder)
    run.meta["run_group"] = group.convention
    link_companions(run, group.folder)
    return run


def _read_members(group: RunGroup, options: ReadOptions | None) -> Run:
    readable: list[tuple[Path, Run]] = []
    failed: list[str] = []
    for path in group.logs:
        try:
            readable.append((path, read_run(path, options=options)))
        except ReadError as exc:
            failed.append(f"{_rel(path, group.folder)}: {exc}")
    if not readable:
        raise ReadError("no file of this run could be read (" + "; ".join(failed) + ")")
    primary, rest, superseded = _choose(readable, group.folder)
    run = primary[1]
    formats = [run.format]
    for path, other in rest:
        rel = _rel(path, group.folder)
        # damage to any file of the run is the run's damage, merged or not
        run.damage.extend(Damage(d.kind, f"{rel}: {d.message}", d.evidence) for d in other.damage)
        if merge_into(run, other, rel):
            formats.append(other.format)
            run.files.extend(f for f in other.files if f not in run.files)
    run.format = "+".join(dict.fromkeys(formats))
    if superseded:
        run.notes.append(
            "older copies not judged (the newest, longest trainer_state.json wins): " + ", ".join(superseded)
        )
    run.notes.extend(f"could not read {msg}" for msg in failed)
    return run


def _choose(
    readable: list[tuple[Path, Run]], folder: Path
) -> tuple[tuple[Path, Run], list[tuple[Path, Run]], list[str]]:
    """The primary record, the complementary ones, and the superseded copies."""
    states = [m for m in readable if m[1].format == "hf-trainer-state"]
    superseded: list[str] = []
    if len(states) > 1:
        states.sort(key=_state_rank, reverse=True)
        superseded = [f"{_rel(p, folder)} (step {_last_step(r):.0f})" for p, r in states[1:]]
        drop = {id(r) for _, r in states[1:]}
        readable = [m for m in readable if id(m[1]) not in drop]
    texts = [m for m in readable if not _is_events(m[0])] or readable
    primary = max(texts, key=lambda m: _loss_points(m[1]))
    return primary, [m for m in readable if m is not primary], superseded


def _is_events(path: Path) -> bool:
    return path.name.startswith(EVENTS_PREFIX)


def _state_rank(member: tuple[Path, Run]) -> tuple[float, int, float]:
    path, run = member
    try:
        mtime = path.stat().st_mtime
    except OSError:
        mtime = 0.0
    return (_last_step(run), sum(len(s) for s in run.series.values()), mtime)


def _last_step(run: Run) -> float:
    gs = run.meta.get("global_step")
    last = max((float(s.steps[-1]) for s in run.series.values() if len(s)), default=0.0)
    return max(float(gs), last) if isinstance(gs, (int, float)) else last


def _loss_points(run: Run) -> int:
    loss = run.series.get(assign_roles(run.series).get("loss", ""))
    return len(loss) if loss is not None else 0


def _rel(path: Path, folder: Path) -> str:
    try:
        return str(path.relative_to(folder))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------- merging

MIN_OVERLAP = 0.5  # share of the primary's loss steps the other record must also hold
SAME_VALUES = 0.9  # share of the shared steps where both records hold the same loss


def merge_into(run: Run, other: Run, label: str) -> bool:
    """Complement ``run`` with what ``other`` (the same run, another file) adds.

    Series whose role the primary lacks are taken over; a clock is lent to the
    primary's series when the other file records wall times at the same steps.
    Returns whether anything was taken.
    """
    mine, theirs = assign_roles(run.series), assign_roles(other.series)
    if not _same_run(run, mine, other, theirs):
        run.notes.append(f"{label}: its loss steps or values do not match this run's; not merged")
        return False
    clocked = _lend_clock(run, other)
    taken = []
    for role, name in theirs.items():
        if role not in mine and name not in run.series:
            run.series[name] = other.series[name]
            taken.append(name)
    if taken:
        run.notes.append(f"{label}: took {', '.join(sorted(taken))}")
    if clocked:
        run.notes.append(f"{label}: wall clock lent to {clocked} series")
        derive_step_time(run)
    return bool(taken or clocked)


def _same_run(run: Run, mine: dict[str, str], other: Run, theirs: dict[str, str]) -> bool:
    """Both records hold the loss at mostly the same steps, with the same values there."""
    a, b = run.series.get(mine.get("loss", "")), other.series.get(theirs.get("loss", ""))
    if a is None or b is None or not len(a) or not len(b):
        return True  # nothing to compare: trust the folder convention
    shared, ia, ib = np.intersect1d(a.steps, b.steps, return_indices=True)
    if len(shared) < MIN_OVERLAP * min(len(unique(a.steps)), len(unique(b.steps))):
        return False
    va, vb = a.values[ia], b.values[ib]
    same = (
        np.isclose(va, vb, rtol=1e-3, atol=1e-4)  # text logs round to 4-5 decimals
        | (np.isnan(va) & np.isnan(vb))
        | (np.isinf(va) & (va == vb))
    )
    return bool(same.mean() >= SAME_VALUES)


def _clock(other: Run) -> tuple[np.ndarray, np.ndarray] | None:
    """(steps, wall) pairs from every series of ``other`` that has a clock, sorted by step."""
    steps, walls = [], []
    for s in other.series.values():
        if s.wall is not None and len(s):
            steps.append(s.steps)
            walls.append(s.wall)
    if not steps:
        return None
    st, wa = np.concatenate(steps), np.concatenate(walls)
    keep = np.isfinite(st) & np.isfinite(wa)
    st, wa = st[keep], wa[keep]
    uniq, idx = np.unique(st, return_index=True)  # first wall time seen at each step
    return (uniq, wa[idx]) if len(uniq) >= 2 else None


def _lend_clock(run: Run, other: Run) -> int:
    """Give the points of ``run`` that have no wall time the other record's clock at their step
    (interpolated between its records; none outside them). Returns how many series gained."""
    clock = _clock(other)
    if clock is None:
        return 0
    steps, wall = clock
    lent = 0
    for s in run.series.values():
        missing = np.ones(len(s), bool) if s.wall is None else ~np.isfinite(s.wall)
        inside = missing & (s.steps >= steps[0]) & (s.steps <= steps[-1])
        if not len(s) or not inside.any() or (s.wall is None and inside.mean() < MIN_OVERLAP):
            continue
        new = np.full(len(s), np.nan) if s.wall is None else s.wall.copy()
        new[inside] = np.interp(s.steps[inside], steps, wall)
        s.wall = new
        lent += 1
    return lent


def derive_step_time(run: Run) -> None:
    """Seconds per step (and steps per second) from the wall clock of the loss series."""
    roles = assign_roles(run.series)
    loss = run.series.get(roles.get("loss", ""))
    ours = run.meta.get("step_time_derived", False)
    if loss is None or loss.wall is None or (not ours and ("step_time" in roles or "step_time" in run.series)):
        return
    ok = np.isfinite(loss.wall)
    st, wa = loss.steps[ok], loss.wall[ok]
    ds, dw = np.diff(st), np.diff(wa)
    good = (ds > 0) & (dw >= 0)
    if good.sum() < 2:
        return
    per_step = dw[good] / ds[good]
    at = st[1:][good]
    run.add("step_time", at, per_step)
    if ours or ("throughput" not in roles and "it/s" not in run.series):
        with np.errstate(divide="ignore"):
            run.add("it/s", at, np.where(per_step > 0, 1.0 / per_step, np.nan))
    if not ours:
        run.notes.append(
            "step_time and it/s derived from the wall clock between logged steps "
            "(intervals include evaluation and checkpoint saving)"
        )
    run.meta["step_time_derived"] = True


# ---------------------------------------------------------------- companions


def _configs(folder: Path, beside: Path | None) -> Iterator[Path | None]:
    """The model configs that may give the run's vocabulary: the one beside it, then those of
    its checkpoints, newest first (listed only when asked for)."""
    yield beside
    newest_first = sorted(_subdirs(folder, CHECKPOINT_DIR), key=lambda p: -int(p.name.split("-")[1]))
    for ck in newest_first:
        yield ck / "config.json"


def link_companions(run: Run, folder: Path) -> None:
    """Put what the files beside the run say about it into run.meta."""
    found = companions(folder)
    if "hparams.yaml" in found:
        try:
            run.meta["hparams"] = flatten(load_yaml(found["hparams.yaml"]))
        except (OSError, ValueError) as exc:
            run.notes.append(f"hparams.yaml unreadable: {exc}")
    link_vocab(run, _configs(folder, found.get("config.json")), found.get("tokenizer"))
    if "tokenizer" in found:
        run.meta["tokenizer_path"] = str(found["tokenizer"])
    if "dataset" in found:
        run.meta["dataset_path"] = str(found["dataset"])
    linked = [f"{k} {run.meta[k]}" for k in ("vocab_size",) if k in run.meta]
    linked += [
        f"{k.removesuffix('_path')} {_rel(Path(run.meta[k]), folder)}"
        for k in ("model_config_path", "tokenizer_path", "dataset_path")
        if k in run.meta
    ]
    if "hparams" in run.meta:
        linked.append("hparams.yaml")
    if linked:
        run.notes.append("linked to this run: " + ", ".join(linked))
