"""Download the real-log corpus entries that are not committed (their licence does not allow it,
or they are large) into tests/realworld/cache/, at the commit the manifest records.

    python scripts/realworld_fetch.py             # fetch what is missing
    python scripts/realworld_fetch.py --list      # say what is missing, fetch nothing

Needs network access to raw.githubusercontent.com; tests never call it (they use the committed
copies and ../shared/evidence, and the cache when it is there). Files stay out of git
(tests/realworld/cache/ is ignored): they are other people's work.
"""

from __future__ import annotations

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


def main(argv: list[str]) -> int:
    todo = missing()
    if "--list" in argv:
        for e in todo:
            print(f"{e['id']}: {e['repo']} {e['path']} @ {e['commit'][:10]}")
        print(f"{len(todo)} missing")
        return 0
    failed = 0
    for e in todo:
        try:
            print(f"fetched {fetch(e).relative_to(ROOT)}")
        except OSError as exc:
            failed += 1
            print(f"could not fetch {e['id']}: {exc}", file=sys.stderr)
    print(f"{len(todo) - failed} fetched, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
