"""Download the real-log corpus entries that are not committed (their licence does not allow it,
or they are large) into tests/realworld/cache/, at the commit the manifest records.

    python scripts/realworld_fetch.py             # fetch what is missing
    python scripts/realworld_fetch.py --list      # say what is missing, fetch nothing
    python scripts/realworld_fetch.py --mirror DIR  # take them from git snapshots, no network

Needs network access to raw.githubusercontent.com, or --mirror: a folder of git snapshots named
owner+name (DIR/owner+name/repo, a bare git directory or a clone), from which each file is read at
the recorded commit with `git show`. Tests never call it (they use the committed
copies and ../shared/evidence, and the cache when it is there). Files stay out of git
(tests/realworld/cache/ is ignored): they are other people's work.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "realworld"
RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"


def missing() -> list[dict]:
    entries = tomllib.loads((CORPUS / "manifest.toml").read_text())["log"]
    out = []
    for e in entries:
        if e.get("file") or e.get("evidence"):
            continue
        if not (CORPUS / "cache" / e["id"] / Path(e["path"]).name).exists():
            out.append(e)
    return out


def fetch(e: dict) -> Path:
    dest = CORPUS / "cache" / e["id"] / Path(e["path"]).name
    url = RAW.format(repo=e["repo"], commit=e["commit"], path=urllib.parse.quote(e["path"]))
    dest.parent.mkdir(parents=True, exist_ok=True)
    with urllib.request.urlopen(url, timeout=60) as resp:
        dest.write_bytes(resp.read())
    return dest


def _git_dir(mirror: Path, repo: str) -> Path | None:
    base = mirror / repo.replace("/", "+") / "repo"
    for cand in (base / ".git", base):
        if (cand / "HEAD").is_file():
            return cand
    return None


def fetch_mirror(e: dict, mirror: Path) -> Path:
    """The entry's file at its commit, read out of a local git snapshot of its repository."""
    git = _git_dir(mirror, e["repo"])
    if git is None:
        raise OSError(f"no snapshot of {e['repo']} under {mirror}")
    shown = subprocess.run(
        ["git", f"--git-dir={git}", "show", f"{e['commit']}:{e['path']}"],
        capture_output=True,
        check=False,
    )
    if shown.returncode != 0:
        raise OSError(shown.stderr.decode(errors="replace").strip().splitlines()[-1:] or "git show failed")
    dest = CORPUS / "cache" / e["id"] / Path(e["path"]).name
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(shown.stdout)
    return dest


def main(argv: list[str]) -> int:
    todo = missing()
    mirror = Path(argv[argv.index("--mirror") + 1]) if "--mirror" in argv[:-1] else None
    if "--list" in argv:
        for e in todo:
            print(f"{e['id']}: {e['repo']} {e['path']} @ {e['commit'][:10]}")
        print(f"{len(todo)} missing")
        return 0
    failed = 0
    for e in todo:
        try:
            got = fetch_mirror(e, mirror) if mirror else fetch(e)
            print(f"fetched {got.relative_to(ROOT)}")
        except OSError as exc:
            failed += 1
            print(f"could not fetch {e['id']}: {exc}", file=sys.stderr)
    print(f"{len(todo) - failed} fetched, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
