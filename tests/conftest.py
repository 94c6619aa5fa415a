"""Shared fixtures: the built book (built once per test session) and the browser switch."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
