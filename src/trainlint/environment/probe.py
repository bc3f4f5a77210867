"""Read the machine's resources. Reads only, except the one write test the user asks for."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from .facts import Resources

_CHECKPOINT_DIR = re.compile(r"^(checkpoint|global_step|step|epoch)[-_=]?\d+")


def meminfo_available(text: str) -> int | None:
    """MemAvailable from /proc/meminfo text, in bytes."""
    m = re.search(r"^MemAvailable:\s+(\d+)\s*kB", text, re.MULTILINE)
    return int(m.group(1)) * 1024 if m else None


def cgroup_room(root: Path = Path("/sys/fs/cgroup")) -> int | None:
    """Bytes left under a cgroup v2 (or v1) memory limit; None when unlimited or unknown."""
    pairs = [
        (root / "memory.max", root / "memory.current"),
        (root / "memory" / "memory.limit_in_bytes", root / "memory" / "memory.usage_in_bytes"),
    ]
    for limit_p, used_p in pairs:
        try:
            raw = limit_p.read_text().strip()
            used = int(used_p.read_text().strip())
        except (OSError, ValueError):
            continue
        if raw == "max" or not raw.isdigit() or int(raw) >= 1 << 60:
            return None
        return max(int(raw) - used, 0)
    return None


def memory() -> tuple[int | None, str | None]:
    try:
        avail = meminfo_available(Path("/proc/meminfo").read_text())
    except OSError:
        avail = None
    room = cgroup_room()
    if room is not None and (avail is None or room < avail):
        return room, "cgroup memory limit"
    return avail, ("/proc/meminfo MemAvailable" if avail is not None else None)


def nearest_existing(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def write_test(folder: Path) -> tuple[bool | None, str, str | None]:
    """Create and remove one temporary file in ``folder``; never creates the folder itself."""
    if not folder.exists():
        parent = nearest_existing(folder)
        ok = os.access(parent, os.W_OK | os.X_OK)
        return (
            ok,
            f"folder does not exist yet; nearest parent {parent} checked with access()",
            None if ok else f"{parent} is not writable",
        )
    if not folder.is_dir():
        return False, "path exists but is not a folder", f"{folder} is not a folder"
    try:
        fd, name = tempfile.mkstemp(prefix=".trainlint-write-test-", dir=folder)
        os.close(fd)
        os.unlink(name)
    except OSError as exc:
        return False, "created a temporary file", f"{exc.strerror or exc}"
    return True, "created and removed a temporary file", None


def folder_bytes(folder: Path) -> int:
    total = 0
    for base, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += (Path(base) / name).stat().st_size
            except OSError:
                pass
    return total


def checkpoint_sizes(folder: Path) -> list[tuple[Path, int]]:
    """Existing checkpoint sub-folders of an output folder with their sizes, newest name last."""
    if not folder.is_dir():
        return []
    try:
        subs = sorted(p for p in folder.iterdir() if p.is_dir() and _CHECKPOINT_DIR.match(p.name))
    except OSError:
        return []
    return [(p, folder_bytes(p)) for p in subs]


def resources(output_dir: str | None, *, test_write: bool) -> Resources:
    res = Resources()
    res.mem_available, res.mem_source = memory()
    target = nearest_existing(Path(output_dir)) if output_dir else Path.cwd()
    try:
        res.disk_free = shutil.disk_usage(target).free
        res.disk_path = str(target)
    except OSError:
        pass
    try:
        st = os.statvfs("/dev/shm")
        res.shm_total, res.shm_free = st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize
    except OSError:
        pass
    try:
        import resource

        res.nofile_soft, res.nofile_hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        pass
    if output_dir and test_write:
        res.writable, res.writable_how, res.writable_error = write_test(Path(output_dir))
    if output_dir:
        add_checkpoints(res, Path(output_dir))
    return res


def add_checkpoints(res: Resources, folder: Path) -> None:
    sizes = [(p, n) for p, n in checkpoint_sizes(folder) if n > 0]
    if sizes:
        path, size = max(sizes, key=lambda item: item[1])
        res.checkpoint_bytes, res.checkpoint_from = size, str(path)
        res.checkpoints_present = len(sizes)
        res.checkpoints_bytes_total = sum(n for _p, n in sizes)
