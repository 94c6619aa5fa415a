"""Layer 4: JupyterLab end to end, as a reader uses it.

A JupyterLab of its own (config, settings, workspaces, runtime and IPython folders in a
temporary directory, on 127.0.0.1 with a token) serves a copy of the book. Its settings are
the ones the README gives a reader: ``jupytext-config set-default-viewer`` makes jupytext's
notebook the default viewer of ``.md``; besides, the notebook's kernel starts without a
dialog and news and update checks are off. For every chapter with sliders the test opens
the chapter by double-click in the file browser, waits until the notebook is active, runs
all cells, moves every slider with the keyboard and checks the final readout, the caption
under the image (the ones the same ``explore`` rendered into the HTML book at build time)
and that the new image is not blank.
"""

import base64
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import require_browser
from PIL import Image

from chapters import BOOK, chapter_paths

pytestmark = pytest.mark.browser

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

def slider_chapters():
    return [p for p in chapter_paths() if p.exists() and "explore(" in p.read_text("utf-8")]


def expected_moves(page_html):
    """For every explorer of a built chapter page: which key presses move each slider where,
    and the readout and caption the live widget must then show.

    The values come from the kernel-free frames the same ``explore`` rendered at build time
    (``script.ac-data``: readouts, captions of every combination), so the test also checks
    that the HTML book and the live notebook agree.
    """
    plan = []
    for chunk in page_html.split('<div class="ac-explore">')[1:]:
        data = json.loads(re.search(
            r'<script type="application/json" class="ac-data">(.*?)</script>', chunk, re.S)[1])
        index = [int(v) for v in re.findall(
            r'<input type="range"[^>]*? value="(\d+)"', chunk.split("ac-data")[0])]
        moves = []
        for j, size in enumerate(data["sizes"]):
            last, start = size - 1, index[j]
            if last == 0:
                continue
            steps = min(2, last - start) if start < last else -min(2, start)
            index[j] = start + steps
            k = 0
            for i, n in zip(index, data["sizes"]):
                k = k * n + i
            moves.append({"slider": j, "steps": steps, "readout": data["labels"][j][index[j]],
                          "caption": data["alts"][k]})
        plan.append(moves)
    return plan


def ink(png):
    grey = Image.open(io.BytesIO(png)).convert("L")
    return sum(grey.histogram()[:245]) / (grey.width * grey.height)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_json(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def _children(pid):
    """Process ids whose parent is ``pid`` (the server's kernels), read from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


class Lab:
    """A JupyterLab server with its own folders; stopped cleanly (shutdown, term, kill)."""

    def __init__(self, home, root):
        self.home, self.root = home, root
        self.port, self.token = free_port(), base64.b32encode(os.urandom(15)).decode().lower()
        self.url = f"http://127.0.0.1:{self.port}/"
        dirs = {name: home / name for name in
                ("config", "settings", "workspaces", "runtime", "ipython", "data")}
        for folder in dirs.values():
            folder.mkdir(parents=True, exist_ok=True)
        self.env = {
            **os.environ,
            "JUPYTER_CONFIG_DIR": str(dirs["config"]),
            "JUPYTERLAB_SETTINGS_DIR": str(dirs["settings"]),
            "JUPYTERLAB_WORKSPACES_DIR": str(dirs["workspaces"]),
            "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
            "IPYTHONDIR": str(dirs["ipython"]),
            "JUPYTER_PLATFORM_DIRS": "1",
        }
        # The reader's one setup command (README): jupytext's notebook opens .md files.
        command = shutil.which("jupytext-config") or [sys.executable, "-m", "jupytext_config"]
        command = [command] if isinstance(command, str) else command
        subprocess.run([*command, "set-default-viewer"], env=self.env, check=True,
                       capture_output=True, timeout=60)
        write_json(dirs["config"] / "jupyter_server_config.json", {
            "ServerApp": {"ip": "127.0.0.1", "port": self.port, "port_retries": 0,
                          "open_browser": False,
                          "allow_root": os.geteuid() == 0},
            "IdentityProvider": {"token": self.token},
            "LabApp": {"news_url": None, "extension_manager": "readonly",
                       "check_for_updates_class": "jupyterlab.NeverCheckForUpdate"},
        })
        settings = dirs["settings"] / "@jupyterlab"
        write_json(settings / "notebook-extension" / "tracker.jupyterlab-settings",
                   {"autoStartDefaultKernel": True})
        write_json(settings / "apputils-extension" / "notification.jupyterlab-settings",
                   {"fetchNews": "false", "checkForUpdates": False})
        self.log = open(home / "lab.log", "w")  # noqa: SIM115 (closed in stop)
        # as the README: `jupyter lab book/` (the folder given serves as the root)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", str(root)], env=self.env, cwd=home,
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def api(self, path, method="GET"):
        request = urllib.request.Request(
            f"{self.url}api/{path}", method=method, data=b"" if method == "POST" else None,
            headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.read()

    def wait_ready(self, timeout=90):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"JupyterLab exited:\n{self.log_tail()}")
            try:
                self.api("status")
                return
            except OSError:
                time.sleep(0.3)
        raise AssertionError(f"JupyterLab did not start in {timeout} s:\n{self.log_tail()}")

    def log_tail(self):
        self.log.flush()
        return (self.home / "lab.log").read_text(encoding="utf-8", errors="replace")[-3000:]

    def stop(self):
        kernels = _children(self.process.pid)
        try:
            self.api("shutdown", method="POST")  # shuts the kernels down too
            self.process.wait(timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()  # a SIGTERM can hang the shutdown
                self.process.wait(timeout=10)
        for pid in kernels:  # kernels the server could not stop
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.log.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory, built_html):
    chapters = slider_chapters()
    if not chapters:
        pytest.skip("no chapter has sliders yet")
    executable = require_browser()
    home = tmp_path_factory.mktemp("jupyterlab")
    root = home / "book"
    shutil.copytree(BOOK, root, ignore=shutil.ignore_patterns("_build", "_ext", "*.ipynb"))
    plans = {path.name: expected_moves((built_html / f"{path.stem}.html").read_text("utf-8"))
             for path in chapters}
    server = Lab(home, root)
    try:
        server.wait_ready()
        yield server, executable, plans
    finally:
        server.stop()


def test_chapters_run_in_jupyterlab_and_sliders_move_by_keyboard(lab, tmp_path):
    from playwright.sync_api import sync_playwright

    server, executable, plans = lab
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        outside = []
        page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(
            (server.url, "data:", "blob:", f"ws://127.0.0.1:{server.port}/")) else None)
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
            server.url) else route.abort("blockedbyclient"))
        try:
            page.goto(f"{server.url}lab?reset&token={server.token}")
            for name, plan in plans.items():
                check_chapter(page, name, plan)
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"))
            print(f"screenshot: {tmp_path / 'failure.png'}\nserver log:\n{server.log_tail()}")
            raise
        finally:
            browser.close()
    assert not outside, f"JupyterLab requested outside addresses: {outside}"


def check_chapter(page, name, plan):
    from playwright.sync_api import expect

    item = page.locator(".jp-DirListing-item", has_text=name)
    item.wait_for(timeout=60_000)
    item.dblclick()
    # the notebook (not the text editor) is the current tab, its kernel idle, no dialog
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
    expect(tab).to_contain_text(name, timeout=30_000)
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    expect(panel).to_have_count(1, timeout=30_000)
    expect(panel.locator(".jp-Notebook-ExecutionIndicator")).to_have_attribute(
        "data-status", "idle", timeout=60_000)
    expect(panel.locator(".jp-Toolbar-kernelName")).to_contain_text("Python 3")
    expect(page.locator(".jp-Dialog")).to_have_count(0)

    run_all_cells(page, panel, name)
    # every code cell ran: no prompt left at "[*]" (running/queued) or "[ ]" (not run)
    expect(panel.locator(".jp-CodeCell .jp-InputPrompt", has_text="[*]")).to_have_count(
        0, timeout=180_000)
    expect(panel.locator(".jp-CodeCell .jp-InputPrompt", has_text="[ ]")).to_have_count(
        0, timeout=180_000)
    errors = panel.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, f"{name}: {errors.first.text_content()[:500]}"

    views = panel.locator(".jp-OutputArea-output .widget-vbox:has(> img.widget-image)")
    expect(views).to_have_count(len(plan), timeout=60_000)
    for e, moves in enumerate(plan):
        view = views.nth(e)
        view.scroll_into_view_if_needed()
        image = view.locator("img.widget-image")
        caption = view.locator(".widget-html-content")
        for move in moves:
            where = f"{name}, explorer {e + 1}, slider {move['slider'] + 1}"
            before = image_bytes(page, image)
            handle = view.locator(".noUi-handle").nth(move["slider"])
            handle.focus()
            key = "ArrowRight" if move["steps"] > 0 else "ArrowLeft"
            for _ in range(abs(move["steps"])):  # every press runs the callback
                handle.press(key)
            readout = view.locator(".widget-readout").nth(move["slider"])
            expect(readout, where).to_have_text(move["readout"], timeout=30_000)
            expect(caption, where).to_have_text(move["caption"], timeout=30_000)
            after = image_bytes(page, image)
            assert after != before, f"{where}: the image did not change"
            assert ink(after) > 0.005, f"{where}: the image is blank"


def run_all_cells(page, panel, name, attempts=6):
    """Run → Run All Cells, once the menu item is enabled and until the cells start running.

    Clicked before the notebook is ready, the item is disabled or the click does nothing;
    so the test waits for the item to be enabled and for a first prompt to change from
    "[ ]", and tries again if it does not.
    """
    not_run = panel.locator(".jp-CodeCell .jp-InputPrompt", has_text="[ ]")
    cells = panel.locator(".jp-CodeCell")
    for _ in range(attempts):
        page.locator(".lm-MenuBar-itemLabel").filter(has_text=re.compile(r"^Run$")).click()
        item = page.locator(".lm-Menu-item[data-command='runmenu:run-all']")
        item.wait_for(timeout=10_000)
        if item.get_attribute("aria-disabled") == "true":
            page.keyboard.press("Escape")
            page.wait_for_timeout(1000)
            continue
        item.click()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if not_run.count() < cells.count():
                return
            page.wait_for_timeout(250)
    raise AssertionError(f"{name}: Run All Cells did not start the cells")


def image_bytes(page, image):
    data = page.evaluate(
        """async (img) => {
            const blob = await (await fetch(img.src)).blob();
            const buffer = new Uint8Array(await blob.arrayBuffer());
            let text = '';
            for (const b of buffer) text += String.fromCharCode(b);
            return btoa(text);
        }""", image.element_handle())
    return base64.b64decode(data)
