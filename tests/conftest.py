"""Shared fixtures: the built book (built once per test session) and the browser switch."""

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import settings

# No per-example deadline: Hypothesis's default of 200 ms fails a test when a busy machine is
# slow, which says nothing about the code (issue 22: the suite holds on a busy machine).
settings.register_profile("book", deadline=None)
settings.load_profile("book")

sys.path.insert(0, str(Path(__file__).parent))

from chapters import BOOK, ROOT  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="session")
def strict_build(tmp_path_factory):
    """Build a copy of the book with ``-W -n --keep-going --all``; return (result, html dir)."""
    work = tmp_path_factory.mktemp("book")
    source = work / "book"
    shutil.copytree(BOOK, source, ignore=shutil.ignore_patterns("_build"))
    result = subprocess.run(
        ["jupyter-book", "build", "-W", "-n", "--keep-going", "--all", str(source)],
        capture_output=True, text=True, cwd=ROOT, timeout=1800,
    )
    return result, source / "_build" / "html"


@pytest.fixture(scope="session")
def built_html(strict_build):
    """The HTML folder of a strict build that succeeded."""
    result, html = strict_build
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return html


def require_browser():
    """Skip the test if Chromium is missing, or fail when REQUIRE_BROWSER=1 demands it."""
    if CHROMIUM.exists():
        return str(CHROMIUM)
    message = f"headless Chromium not found at {CHROMIUM} (apt-get install chromium)"
    if os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(message + "; REQUIRE_BROWSER=1 makes this a failure")
    pytest.skip(message)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site(built_html):
    """The built HTML folder served on a free port of 127.0.0.1 while the tests run."""
    handler = functools.partial(_QuietHandler, directory=str(built_html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium driven by Playwright (skipped or failed when missing).

    One per test module: Playwright's sync API runs one event loop per thread, so a
    browser kept open for the whole session would stop the JupyterLab test from starting
    its own."""
    executable = require_browser()
    from browser_support import CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


# --- issue 22: every live execution of the chapters the tests need, once, side by side ----

@pytest.fixture(scope="session")
def live_runs():
    """The chapters executed live (not for the HTML book), ``chapters.live_cases``: the
    noisy-clock runs and the slider probes, several at a time (``chapters.execute_all``)."""
    from chapters import LiveRuns, execute_all, live_cases

    return LiveRuns(execute_all(live_cases()))
