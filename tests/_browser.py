"""Headless Chromium through Playwright, shared by the browser tests and scripts/screenshot_html.py.

Uses the system Chromium (Debian's ``chromium`` package); never downloads a browser."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str | None:
    """The system Chromium, or None (TRAINLINT_CHROMIUM overrides)."""
    env = os.environ.get("TRAINLINT_CHROMIUM")
    if env and Path(env).exists():
        return env
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)


def browser_session() -> Iterator[Any]:
    """One headless Chromium for a test module: ``browser = pytest.fixture(scope="module")(browser_session)``."""
    from playwright import sync_api

    with sync_api.sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


class PageWatch:
    """A page that records console errors, page errors and every request it makes."""

    def __init__(self, browser: Any, **context: Any) -> None:
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page = browser.new_page(viewport={"width": 1200, "height": 900}, **context)
        self.page.on(
            "console",
            lambda m: self.errors.append(m.text) if m.type == "error" else None,
        )
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))

    def open(self, path: Path) -> Any:
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_function("window.trainlintReport && window.trainlintReport.ready", timeout=20000)
        return self.page
