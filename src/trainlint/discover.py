"""Find what to judge under a path: logs (by content), and whatever other
inspectors (datasets, checkpoints, tokenizers, ...) register for themselves.

:func:`walk` yields typed :class:`Item` tasks: each carries the inspector that recognised its
input and what the sniffer matched (a log's Reader), and judges itself in this process with
``item.judge(options)``. Nothing is looked up again by name (only a worker process does that,
at the process boundary: ``trainlint.parallel``). Nothing outside the given root is opened,
and no pseudo-file (procfs, sysfs, devfs), device, FIFO or socket is ever read."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from .options import Options
from .plugins import import_plugins
from .verdict import Report

T = TypeVar("T")

# What a folder scan never judges (issue 33): it holds no runs, only what tools installed or
# generated. Skipped and counted (``Result.extra["skipped"]``); a file named explicitly is judged.
SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    "__pycache__",
    "node_modules",
    ".venv",
    "venv",
    "site-packages",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    ".idea",
    ".cache",
    ".ipynb_checkpoints",
}
PACKAGE_METADATA = (".dist-info", ".egg-info")
SOURCE_SUFFIXES = frozenset(
    ".py .pyi .pyx .pxd .pyc .pyo .pyd .so .ipynb .c .h .cc .cpp .cxx .hpp .cu .cuh .js .mjs .ts .java "
    ".go .rs .rb .pl .lua .sh .bash .zsh".split()
)
SKIP_WHY = {
    "metadata": "installed-package metadata (*.dist-info, *.egg-info), not judged",
    "venv": "a virtual environment, not judged",
    "tooling": "version control, dependency or cache folder, not judged",
    "source": "a source file, not judged",
    "installed": "a folder of installed Python packages (site-packages), not judged",
}


def left_alone(path: Path, is_dir: bool) -> str | None:
    """Why a folder scan skips ``path`` without judging it (None: it is looked at)."""
    name = path.name
    if not is_dir:
        return SKIP_WHY["source"] if path.suffix.lower() in SOURCE_SUFFIXES else None
    if name.endswith(PACKAGE_METADATA):
        return SKIP_WHY["metadata"]
    if name in SKIP_DIRS or name.endswith("_cache"):
        return SKIP_WHY["tooling"]
    if (path / "pyvenv.cfg").is_file():
        return SKIP_WHY["venv"]
    return None


class Inspector(msgspec.Struct):
    """Recognises one kind of input and judges it into a Report."""

    kind: str
    sniff: Callable[[Path, bytes], Any]  # truthy when recognised; may return what it matched
    judge: Callable[[Path, Options], Report]
    priority: int = 50
    folder: bool = False
    claims: Callable[[Path], list[Path]] | None = None  # files a folder inspector consumes
    # A file that holds several runs (an MLflow SQLite store, appended Detectron2 logs):
    # parts(path) names them, judge_part(path, part, options) judges one.
    parts: Callable[[Path], list[str]] | None = None
    judge_part: Callable[[Path, str, Options], Report] | None = None
    takes_match: bool = False  # judge(path, options, match=...) gets what sniff returned
    sniff_takes_options: bool = False  # sniff(path, head, options) and claims(folder, options)
    key: str = ""  # "module.Class": how a worker process finds the inspector again

    def sniff_with(self, path: Path, head: bytes, options: Options | None) -> Any:
        """What ``sniff`` recognised (falsy: nothing); a sniffer never takes discovery down."""
        try:
            if self.sniff_takes_options:
                return self.sniff(path, head, options)  # type: ignore[call-arg]
            return self.sniff(path, head)
        except Exception:  # noqa: BLE001
            return None

    def claims_with(self, folder: Path, options: Options | None) -> list[Path]:
        if self.claims is None:
            return []
        if self.sniff_takes_options:
            return self.claims(folder, options)  # type: ignore[call-arg]
        return self.claims(folder)

    def parts_of(self, path: Path, match: Any) -> list[str]:
        """The runs a file holds (see ``parts``); [] for a file of one run."""
        if self.parts is None or self.judge_part is None:
            return []
        if self.takes_match and match is not None:
            return list(self.parts(path, match=match))  # type: ignore[call-arg]
        return list(self.parts(path))


INSPECTORS: list[Inspector] = []
_loaded = False


def inspector(kind: str, *, priority: int = 50, folder: bool = False) -> Callable[[type[T]], type[T]]:
    def wrap(cls: type[T]) -> type[T]:
        obj: Any = cls()  # any class with sniff and judge (claims, parts, judge_part optional)
        INSPECTORS.append(
            Inspector(
                kind,
                obj.sniff,
                obj.judge,
                priority,
                folder,
                getattr(obj, "claims", None),
                getattr(obj, "parts", None),
                getattr(obj, "judge_part", None),
                "match" in inspect.signature(obj.judge).parameters,
                len(inspect.signature(obj.sniff).parameters) >= 3,
                f"{cls.__module__}.{cls.__qualname__}",
            )
        )
        INSPECTORS.sort(key=lambda i: i.priority)
        return cls

    return wrap


def load_inspectors() -> list[Inspector]:
    global _loaded
    if not _loaded:
        _loaded = True
        import_plugins(f"{__package__}.inspectors")  # by name: discovery sits below its plugins
    return INSPECTORS


def inspector_named(key: str) -> Inspector:
    """The inspector registered as ``key`` (``Inspector.key``); LookupError when there is none."""
    for ins in load_inspectors():
        if ins.key == key:
            return ins
    raise LookupError(f"no inspector {key} in this process (is it running the same trainlint?)")


class Item(msgspec.Struct):
    """One input to judge: a file or folder, the inspector that recognised it and what its
    sniffer matched, judged in this process by :meth:`judge`."""

    path: Path
    inspector: Inspector
    match: Any = None  # what sniff returned when more than True (a log: its Reader), handed to judge
    part: str | None = None  # the run inside a file that holds several (see Inspector.parts)
    claimed: list[Path] = msgspec.field(default_factory=list)  # the files a folder inspector consumes
    size: int = 0  # bytes on disk, when the planner measured them (the biggest inputs start first)

    @property
    def target(self) -> str:
        return str(self.path)

    @property
    def inputs(self) -> int:
        return 1

    def judge(self, options: Options) -> list[Report]:
        """The input's report, by its inspector, handed what the sniffer matched."""
        ins = self.inspector
        kw: dict[str, Any] = {"match": self.match} if ins.takes_match and self.match is not None else {}
        if self.part is not None and ins.judge_part is not None:
            return [ins.judge_part(self.path, self.part, options, **kw)]
        return [ins.judge(self.path, options, **kw)]


def _head(path: Path) -> bytes:
    from .readers.base import head_as_utf8
    from .safeio import read_head

    return head_as_utf8(read_head(path))  # b"" for a FIFO, socket or device: never opened


class ScanStats(msgspec.Struct):
    """What a folder scan left alone, by reason (see CONTRACTS.md, non-regular files and symlinks)."""

    skipped: dict[str, list[str]] = msgspec.field(default_factory=dict)

    def add(self, why: str, path: Path) -> None:
        self.skipped.setdefault(why, []).append(str(path))

    def to_dict(self) -> dict[str, Any]:
        return {why: {"count": len(paths), "paths": paths[:20]} for why, paths in sorted(self.skipped.items())}


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))  # never raises on a symlink loop


def match_file(path: Path, kinds: set[str] | None = None, options: Options | None = None) -> Inspector | None:
    """The first inspector that recognises the file (None: nothing does)."""
    found = match_files(path, kinds, options)
    return found[0].inspector if found else None


def match_files(path: Path, kinds: set[str] | None = None, options: Options | None = None) -> list[Item]:
    """An item for the first inspector of each kind that recognises the file: a file can be two
    things at once (a ``training_args.bin`` is a training configuration and a pickle whose
    imports need checking), but never two reports of one kind. A sniffer may return what it
    recognised (the log inspector: the Reader) instead of True: the item carries it to judge,
    so the file is not sniffed again."""
    head = _head(path)
    found: dict[str, Item] = {}
    for ins in load_inspectors():
        if ins.folder or ins.kind in found or (kinds is not None and ins.kind not in kinds):
            continue
        match = ins.sniff_with(path, head, options)
        if match:
            found[ins.kind] = Item(path, ins, None if match is True else match)
    return list(found.values())


def match_folders(path: Path, kinds: set[str] | None = None, options: Options | None = None) -> list[Inspector]:
    """Every folder inspector (of ``kinds``) that recognises ``path`` (a run folder can also be a checkpoint)."""
    return [
        ins
        for ins in load_inspectors()
        if ins.folder and (kinds is None or ins.kind in kinds) and ins.sniff_with(path, b"", options)
    ]


def walk(
    root: Path,
    kinds: set[str] | None = None,
    options: Options | None = None,
    *,
    follow_links: bool | None = None,
    stats: ScanStats | None = None,
) -> Iterator[Item]:
    """Everything under ``root`` that some inspector (of ``kinds``, default all) recognises.

    A folder inspector (a run folder) claims the files it consumes, so they are
    not judged again on their own; a folder whose files were all claimed
    already (a checkpoint copy inside a run folder) is not matched again.
    """
    from .safeio import file_kind

    stats = stats if stats is not None else ScanStats()
    if follow_links is None:
        follow_links = options is not None and options.follow_links
    if file_kind(root) == "file":
        for found in match_files(root, kinds, options):
            yield from _expand(found)
        return
    if file_kind(root) != "dir":
        return
    claimed: set[Path] = set()
    seen: set[tuple[int, int]] = set()
    for folder, dirs, files in os.walk(root, followlinks=follow_links):
        here = Path(folder)
        if follow_links and not _first_visit(here, seen, stats):
            dirs[:] = []
            continue
        if any(d.endswith(".dist-info") for d in dirs):  # site-packages: the packages' own test data too
            stats.add(SKIP_WHY["installed"], here)
            dirs[:] = []
            continue
        dirs[:] = [d for d in sorted(dirs) if _enter(root, here / d, follow_links, stats)]
        for ins in match_folders(here, kinds, options):
            item = _folder_item(here, ins, claimed, options)
            if item is not None:
                yield item
        for name in sorted(files):
            path = here / name
            if name.startswith(".") or not _file_ok(root, path, follow_links, stats) or _real(path) in claimed:
                continue
            why = left_alone(path, is_dir=False)
            if why is not None:
                stats.add(why, path)
                continue
            for found in match_files(path, kinds, options):
                yield from _expand(found)


def _enter(root: Path, path: Path, follow_links: bool, stats: ScanStats) -> bool:
    """Whether the walk descends into ``path``: never into tooling folders (counted), nor hidden ones."""
    why = left_alone(path, is_dir=True)
    if why is not None:
        stats.add(why, path)
        return False
    return not path.name.startswith(".") and _dir_ok(root, path, follow_links, stats)


def _first_visit(here: Path, seen: set[tuple[int, int]], stats: ScanStats) -> bool:
    try:
        st = os.stat(here)
    except OSError:
        return False
    if (st.st_dev, st.st_ino) in seen:
        stats.add("symlink loop", here)
        return False
    seen.add((st.st_dev, st.st_ino))
    return True


def _dir_ok(root: Path, path: Path, follow_links: bool, stats: ScanStats) -> bool:
    """Whether to descend into ``path``: a symlinked folder only with --follow-links (loops are
    caught), never a pseudo-file system's folder (``/proc`` in a walk of ``/``)."""
    from .safeio import KIND_WORDS, file_kind, inside

    if file_kind(path) == "pseudo":
        stats.add(KIND_WORDS["pseudo"] + ", not a regular file", path)
        return False
    if not os.path.islink(path):
        return True
    if not follow_links:
        if not inside(path, root):
            stats.add("symlink out of the scanned folder (use --follow-links)", path)
        return False
    return True


def _file_ok(root: Path, path: Path, follow_links: bool, stats: ScanStats) -> bool:
    """Regular files only; a symlink leaving the scanned folder only with --follow-links."""
    from .safeio import KIND_WORDS, file_kind, inside

    kind = file_kind(path)
    if kind == "loop":
        stats.add("symlink loop", path)
        return False
    if kind == "missing":
        stats.add("dangling symlink", path)
        return False
    if kind != "file":
        stats.add(KIND_WORDS.get(kind, kind) + ", not a regular file", path)
        return False
    if os.path.islink(path) and not follow_links and not inside(path, root):
        stats.add("symlink out of the scanned folder (use --follow-links)", path)
        return False
    return True


def _folder_item(here: Path, ins: Inspector, claimed: set[Path], options: Options | None) -> Item | None:
    try:
        used = [_real(p) for p in ins.claims_with(here, options)]
    except OSError:
        used = []
    if used and all(p in claimed for p in used):
        return None  # already judged as part of an enclosing run
    claimed.update(used)
    return Item(here, ins, claimed=used)


def _expand(item: Item) -> Iterator[Item]:
    """One item per run a file holds (most files hold one)."""
    try:
        parts = item.inspector.parts_of(item.path, item.match)
    except Exception:  # a broken store is judged (and reported) as one input  # noqa: BLE001
        parts = []
    if len(parts) <= 1:
        yield item
        return
    for part in parts:
        yield msgspec.structs.replace(item, part=part)
