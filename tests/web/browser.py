"""Driving the web client in a real headless Chromium (Playwright for Python).

The browser is Debian's ``chromium`` (``.ci/run`` installs it when it is
missing); nothing here downloads one. Each test gets fresh browser contexts
on one browser launched per session with a fresh profile directory.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("GAMENOOK_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Where the tests keep their screenshots: docs/web/ for the documentation
#: (``make screenshots``), else a temporary folder.
SCREENSHOTS = os.environ.get("GAMENOOK_SCREENSHOTS", "")


def _available() -> bool:
    return shutil.which(CHROMIUM) is not None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not _available():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    # launch() starts Chromium on a fresh, temporary profile directory of its own
    # (and removes it at close), so no state is shared between runs.
    # Playwright's sync API keeps an event loop in the test's thread; the ORM calls a
    # browser test makes between its steps are synchronous and safe there. Django reads
    # the switch at each call: it is on while the browser module runs, and only then.
    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def new_page(browser: Any, live_server: Any) -> Iterator[Callable[..., Any]]:
    """Open a page in a browser context of its own (its own cookies), at ``live_server``."""
    contexts: list[Any] = []

    def open_page(width: int = 1100, height: int = 900) -> Any:
        context = browser.new_context(
            viewport={"width": width, "height": height}, base_url=live_server.url
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.js_errors = errors  # checked by the tests: a script error fails them
        return page

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def screenshot(tmp_path: Path) -> Callable[[Any, str], Path]:
    """Save a screenshot named ``name``.png (docs/web/ when asked for): the whole page."""
    folder = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path

    def take(page: Any, name: str, *, full_page: bool = True) -> Path:
        """``full_page=False``: the screen as the player sees it, scrolled where it is."""
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take
