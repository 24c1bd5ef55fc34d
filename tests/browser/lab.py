"""A JupyterLab server and a Playwright page on it, for the browser tests and the widget benchmark.

The server runs on 127.0.0.1 with an ephemeral port read from its runtime file; pages
are driven with Debian's /usr/bin/chromium.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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

    def shutdown_sessions(self, notebook: str) -> None:
        for session in self.api("/api/sessions"):
            if session["path"].endswith(notebook):
                self.api(f"/api/sessions/{session['id']}", method="DELETE")


@contextlib.contextmanager
def running_lab(base: Path, extra_path: list[Path] | None = None, server_extension: bool = True) -> Iterator[Lab]:
    """Start JupyterLab with its config, runtime and settings under `base`; stop it on exit.

    `server_extension`: whether ipu-nb's server extension loads (installed, it does).
    """
    root, config, runtime, settings = (base / d for d in ("root", "config", "runtime", "settings"))
    for d in (root, config, runtime, settings):
        d.mkdir(parents=True, exist_ok=True)
    config_file = config / "jupyter_server_config.py"
    text = SERVER_CONFIG.format(root=str(root))
    if not server_extension:
        text += 'c.ServerApp.jpserver_extensions = {"ipu_nb": False}\n'
    config_file.write_text(text)
    for name, value in USER_SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    paths = [ROOT / "tests", ROOT / "tests" / "helpers", ROOT / "tests" / "browser", *(extra_path or [])]
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_RUNTIME_DIR": str(runtime),
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
        "PYTHONPATH": os.pathsep.join(str(p) for p in paths),
    }
    jupyter = Path(sys.executable).with_name("jupyter")
    with open(base / "server.log", "w") as log:
        process = subprocess.Popen(
            [str(jupyter), "lab", f"--config={config_file}"], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root
        )
        try:
            yield _wait_for_server(process, runtime, root, base / "server.log")
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


def _wait_for_server(process: subprocess.Popen, runtime: Path, root: Path, log: Path, timeout: float = 60) -> Lab:
    deadline = time.monotonic() + timeout
    url = None
    while url is None:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited: {log.read_text()[-2000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"jupyter lab did not write its runtime file within {timeout:.0f} s")
        for info in runtime.glob(f"jpserver-{process.pid}.json"):
            with contextlib.suppress(ValueError, KeyError):
                url = json.loads(info.read_text())["url"]
        time.sleep(0.2)
    lab = Lab(url, root, process)
    while True:
        try:
            lab.api("/api/status")
            return lab
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


class Page:
    """A JupyterLab page with one open notebook and helpers to run code in its kernel."""

    def __init__(self, page: Any, lab: Lab, notebook: str) -> None:
        self.page = page
        self.lab = lab
        self.notebook = notebook

    def wait_ready(self, timeout: float = 60) -> None:
        """Wait until the app has started and the kernel is connected and idle (running earlier does nothing)."""
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
        """Run ``code`` then evaluate ``expression`` (its JSON) through the page's own kernel connection.

        The page's connection shares the widget's websocket, so the kernel has handled
        every widget message sent before this call.
        """
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
        return json.loads(ast.literal_eval(result["data"]["text/plain"]))

    def poll(self, expression: str, predicate: Any, timeout: float = 10) -> Any:
        """Evaluate `expression` in the kernel until `predicate(value)` holds; returns the value.

        Trait updates and anywidget custom messages may reach the kernel after a later
        execute request, so assertions on what a click caused poll briefly.
        """
        deadline = time.monotonic() + timeout
        while True:
            value = self.kernel(expression)
            if predicate(value) or time.monotonic() > deadline:
                return value
            time.sleep(0.1)


def launch_chromium(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


def wait_window(page: Any, after: int, timeout: float = 30) -> int:
    """Wait until the widget has drawn a window reply newer than `after`; returns its id."""
    page.wait_for_function(
        "(after) => { const w = document.querySelector('.ipu-nb-widget');"
        " return w && Number(w.dataset.windowId || 0) > after; }",
        arg=after,
        timeout=timeout * 1000,
    )
    return int(page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.windowId"))


# ---- the widget's page -------------------------------------------------------------------------

#: A hash of the timeline's canvas and how many of its pixels are coloured (not grey or background).
CANVAS_JS = """() => {
    const c = document.querySelector('.ipu-nb-timeline-base');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let h = 0, coloured = 0;
    for (let i = 0; i < d.length; i += 4) {
        h = (h * 31 + d[i] * 7 + d[i + 1] * 3 + d[i + 2]) >>> 0;
        if (Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 40) coloured++;
    }
    return {hash: h, coloured};
}"""


def dataset(page: Any, selector: str = ".ipu-nb-widget") -> dict[str, str]:
    return page.eval_on_selector(selector, "e => ({...e.dataset})")


def settle(page: Any, quiet_ms: int = 600, timeout: float = 60) -> None:
    """Wait until the widget has drawn a complete picture and no request (prefetch included) is out.

    The quiet time counts from this call: one left from an earlier call would let an input just
    given, whose frame is not drawn yet, pass as settled.
    """
    page.evaluate("() => { const w = document.querySelector('.ipu-nb-widget'); if (w) w._quiet = 0; }")
    page.wait_for_function(
        """(quiet) => {
            const w = document.querySelector('.ipu-nb-widget');
            const busy = !w || w.dataset.final !== 'true' || w.dataset.inFlight !== 'false';
            if (busy) { if (w) w._quiet = 0; return false; }
            const now = performance.now();
            w._quiet = w._quiet || now;
            return now - w._quiet >= quiet;
        }""",
        arg=quiet_ms,
        timeout=timeout * 1000,
        polling=100,
    )


def open_widget(lab_page: Any, cells: list[str]) -> Any:
    """A notebook of `cells` run to its widget's first complete, quiet picture (`lab_page`: the fixture)."""
    nb = lab_page(cells)
    nb.run_all()
    nb.page.wait_for_selector(".ipu-nb-timeline-overlay", timeout=120_000)
    wait_window(nb.page, 0, timeout=120)
    settle(nb.page)
    return nb
