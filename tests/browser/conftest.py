"""One JupyterLab server and one headless Chromium page per test session (DESIGN.md "Testing").

The server runs on 127.0.0.1 with an ephemeral port read from its runtime file; the page
is driven by Playwright with Debian's /usr/bin/chromium, and a route guard fails the
test on any non-local request, proving the widget works offline.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "test-output"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]

SERVER_CONFIG = """
from jupyterlab.galata import configure_jupyter_server
configure_jupyter_server(c)
c.ServerApp.ip = "127.0.0.1"
c.ServerApp.port = 0
c.ServerApp.allow_root = True
c.ServerApp.root_dir = {root!r}
c.LabApp.news_url = None
c.LabApp.check_for_updates_class = "jupyterlab.NeverCheckForUpdate"
c.LabServerApp.extension_manager = "readonly"
c.LabApp.extension_manager = "readonly"
"""

USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
        "doNotDisturbMode": True,
    },
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


class Lab:
    """A running JupyterLab: base URL, server root and a small REST client."""

    def __init__(self, url: str, root: Path, process: subprocess.Popen) -> None:
        self.url = url.rstrip("/")
        self.root = root
        self.process = process

    def api(self, path: str, method: str = "GET") -> Any:
        request = urllib.request.Request(f"{self.url}{path}", method=method)
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def notebook(self, cells: list[str]) -> str:
        """Write a uniquely named notebook into the server root; returns its name."""
        name = f"widget-{uuid.uuid4().hex[:10]}.ipynb"
        nb = {
            "cells": [
                {"cell_type": "code", "metadata": {}, "source": src, "outputs": [], "execution_count": None}
                for src in cells
            ],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        (self.root / name).write_text(json.dumps(nb))
        return name


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install -y chromium")
    base = tmp_path_factory.mktemp("jupyterlab")
    root, config, runtime, settings = (base / d for d in ("root", "config", "runtime", "settings"))
    for d in (root, config, runtime, settings):
        d.mkdir()
    config_file = config / "jupyter_server_config.py"
    config_file.write_text(SERVER_CONFIG.format(root=str(root)))
    for name, value in USER_SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_RUNTIME_DIR": str(runtime),
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT / "tests" / "browser")]),
    }
    log = open(base / "server.log", "w")  # noqa: SIM115
    jupyter = Path(sys.executable).with_name("jupyter")
    process = subprocess.Popen(
        [str(jupyter), "lab", f"--config={config_file}"], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root
    )
    url = None
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and url is None:
            if process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited: {(base / 'server.log').read_text()[-2000:]}")
            for info in runtime.glob(f"jpserver-{process.pid}.json"):
                with contextlib.suppress(ValueError, KeyError):
                    url = json.loads(info.read_text())["url"]
            time.sleep(0.2)
        if url is None:
            raise RuntimeError("jupyter lab did not write its runtime file within 60 s")
        server = Lab(url, root, process)
        while time.monotonic() < deadline:
            try:
                server.api("/api/status")
                break
            except OSError:
                time.sleep(0.2)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        if os.environ.get("IPU_NB_KEEP_LAB_LOG"):
            shutil.copy(base / "server.log", OUTPUT / "server.log")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Page:
    """A JupyterLab page with one open notebook and helpers to run code in its kernel."""

    def __init__(self, page: Any, lab: Lab, notebook: str) -> None:
        self.page = page
        self.lab = lab
        self.notebook = notebook

    def wait_ready(self, timeout: float = 60) -> None:
        self.page.wait_for_function(
            """() => {
                const app = window.jupyterapp;
                if (!app || !app.started) return false;
                const panel = app.shell.currentWidget;
                const kernel = panel && panel.sessionContext && panel.sessionContext.session
                    && panel.sessionContext.session.kernel;
                return !!(kernel && kernel.connectionStatus === 'connected' && kernel.status === 'idle'
                    && panel.context.isReady);
            }""",
            timeout=timeout * 1000,
        )

    def run_all(self) -> None:
        self.page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")

    def kernel(self, expression: str, code: str = "") -> Any:
        """Run ``code`` then evaluate ``expression`` (its JSON) through the page's own kernel connection."""
        reply = self.page.evaluate(
            """async ([code, expr]) => {
                const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
                const future = kernel.requestExecute({code, silent: false, store_history: false,
                    user_expressions: {r: `__import__('json').dumps(${expr})`}});
                const reply = await future.done;
                return reply.content;
            }""",
            [code, expression],
        )
        if reply["status"] != "ok":
            raise AssertionError(f"kernel error: {reply.get('ename')}: {reply.get('evalue')}")
        result = reply["user_expressions"]["r"]
        if result["status"] != "ok":
            raise AssertionError(f"expression error: {result.get('ename')}: {result.get('evalue')}")
        import ast

        return json.loads(ast.literal_eval(result["data"]["text/plain"]))


@pytest.fixture
def lab_page(lab: Lab, browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh page on a new notebook, with an offline guard; call ``open(cells)`` to start."""
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
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    opened: list[Page] = []

    def open_notebook(cells: list[str]) -> Page:
        name = lab.notebook(cells)
        page.goto(f"{lab.url}/lab/tree/{name}?reset")
        p = Page(page, lab, name)
        p.wait_ready()
        opened.append(p)
        return p

    open_notebook.page = page  # type: ignore[attr-defined]
    open_notebook.dialogs = dialogs  # type: ignore[attr-defined]
    yield open_notebook
    try:
        for p in opened:
            for session in lab.api("/api/sessions"):
                if session["path"].endswith(p.notebook):
                    lab.api(f"/api/sessions/{session['id']}", method="DELETE")
    finally:
        context.close()
    assert not foreign, f"non-local requests: {foreign}"
    assert not dialogs, f"dialogs opened (injected script?): {dialogs}"
