"""Browser tests: Debian's Chromium driven by Playwright, against gunicorn on SQLite.

Every page runs with the network closed but for the service: a request to any
other host is aborted and fails the test. Screenshots go to
``test-output/browser/<test>/`` (or ``$BASRA_TEST_OUTPUT/browser/<test>/``).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    expect,
    sync_playwright,
)

from tests.servers import ROOT, gunicorn

CHROMIUM = os.environ.get("BASRA_CHROMIUM", "/usr/bin/chromium")
# as root in a container, with no background traffic to hosts this machine cannot reach
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 412, "height": 915}
# a shared two-core machine running the server, Chromium and the tests at once: an
# update that is live arrives well within this, one that is not never does
expect.set_options(timeout=15_000)
DESKTOP = {"width": 1280, "height": 860}


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    if not shutil.which(CHROMIUM):
        pytest.fail(f"no Chromium at {CHROMIUM}: apt-get install chromium (.ci/run does)")
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The service as `make serve` runs it: gunicorn with gevent workers on SQLite."""
    folder = tmp_path_factory.mktemp("play")
    with gunicorn(f"sqlite:///{folder / 'basra.sqlite3'}", workers=2,
                  BASRA_POLL_INTERVAL="0.1") as base:
        yield base


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Callable[[Page, str], Path]:
    """``shots(page, "name")`` saves a full-page screenshot under the test's folder."""
    root = Path(os.environ.get("BASRA_TEST_OUTPUT", ROOT / "test-output"))
    folder = root / "browser" / re.sub(r"[^\w.-]", "_", request.node.name)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    count = 0

    def shoot(page: Page, name: str) -> Path:
        nonlocal count
        count += 1
        path = folder / f"{count:02d}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return shoot


@pytest.fixture
def new_context(browser: Browser, server: str) -> Iterator[Callable[..., BrowserContext]]:
    """Browser contexts (separate players: their own storage) that reach only the service."""
    contexts: list[BrowserContext] = []
    outside: list[str] = []
    errors: list[str] = []
    service_host = urlsplit(server).netloc

    def make(viewport: dict[str, int] | None = None) -> BrowserContext:
        context = browser.new_context(viewport=viewport or PHONE, base_url=server)

        def guard(route: object) -> None:
            url = route.request.url  # type: ignore[attr-defined]
            if urlsplit(url).netloc == service_host:
                route.continue_()  # type: ignore[attr-defined]
            else:
                outside.append(url)
                route.abort()  # type: ignore[attr-defined]

        context.route("**/*", guard)
        context.on("page", lambda page: page.on("pageerror", lambda e: errors.append(str(e))))
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()
    assert outside == [], f"the page fetched from outside the service: {outside}"
    assert errors == [], f"uncaught errors in the page: {errors}"
