"""One JupyterLab server per session and one headless Chromium per module.

Chromium is module-scoped, not session-scoped: Playwright's sync API keeps an event loop
running while it is open, which would break other test modules' own sync_playwright().

Each test gets a fresh page on its own notebook, with a route guard that fails the test
on any non-local request (proving the widget works offline) and on any dialog (an
injected script would open one).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from lab import CHROMIUM, Lab, Page, launch_chromium, running_lab


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install -y chromium")
    with running_lab(tmp_path_factory.mktemp("jupyterlab")) as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        chromium = launch_chromium(p)
        yield chromium
        chromium.close()


@pytest.fixture
def lab_page(lab: Lab, browser: Any) -> Iterator[Any]:
    """``open(cells)``: a fresh page on a new notebook with those cells, kernel ready."""
    context = browser.new_context(viewport={"width": 1500, "height": 1300})
    page = context.new_page()
    foreign: list[str] = []
    dialogs: list[str] = []

    def guard(route: Any) -> None:
        host = urlparse(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            foreign.append(route.request.url)
            route.abort()

    page.route("**/*", guard)

    def dismiss(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismiss)
    opened: list[Page] = []

    def open_notebook(cells: list[str]) -> Page:
        name = lab.notebook(cells)
        page.goto(f"{lab.url}/lab/tree/{name}?reset")
        p = Page(page, lab, name)
        p.wait_ready()
        opened.append(p)
        return p

    yield open_notebook
    try:
        for p in opened:
            lab.shutdown_sessions(p.notebook)
    finally:
        context.close()
    assert not foreign, f"non-local requests: {foreign}"
    assert not dialogs, f"dialogs opened (injected script?): {dialogs}"
