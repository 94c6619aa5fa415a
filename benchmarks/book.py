"""Section 5: the book's strict build, cold (where its time goes), then again with nothing
changed; and what each chapter's first load transfers.

The book is copied to a temporary folder (so no earlier ``_build`` helps and no one else's
build is touched), built with ``jupyter-book build -W -n --keep-going --all`` (every chapter
executed, on every core: ``book/_ext/parallel_build.py``), then built again without
``--all``: Sphinx re-reads only what changed, so nothing is executed the second time.

Where the cold build's time goes comes from its log, read as it is written: the time of
each phase (Sphinx's ``reading sources``, which executes the chapters, ``writing output``,
``copying images``, the search index, the extensions' work after the build), and each
chapter's execution as myst-nb reports it ("Executed notebook in … seconds"; with pages read
side by side these add up to more than the reading phase).

Then each chapter of the cold build is opened in Chromium with an empty cache at 390 and
1 280 px and every response of its first load counted as a gzip host sends it
(``tests/browser_support.transfer``, the test's own measurement).
"""

import functools
import http.server
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from . import ROOT
from .table import Row, seconds_text, verdict

COLD_TARGET = 60.0
REBUILD_TARGET = 10.0

#: Log lines that start a phase of a Sphinx build, and the phase's name.
PHASES = [
    ("reading sources", "reading (executing the chapters)"),
    ("pickling environment", "environment, cross-references"),
    ("writing output", "writing the pages"),
    ("copying images", "copying images"),
    ("copying static files", "copying static files"),
    ("dumping search index", "search index, extensions after the build"),
]

_EXECUTED = re.compile(r"/([\w.-]+)\.md: Executed notebook in ([\d.]+) seconds")


def _build(source, *extra):
    """Build; return (seconds, exit code, Sphinx's warnings, [(seconds, line)] of the log)."""
    started = time.perf_counter()
    process = subprocess.Popen(["jupyter-book", "build", "-W", "-n", "--keep-going", *extra,
                                str(source)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, cwd=ROOT)
    lines = [(time.perf_counter() - started, line) for line in process.stdout]
    code = process.wait()
    seconds = time.perf_counter() - started
    sys.path.insert(0, str(ROOT / "tests"))
    from chapters import sphinx_warnings

    warnings = sphinx_warnings("".join(line for _t, line in lines))
    return seconds, code, warnings, lines


def phases(lines, total):
    """[(phase, seconds)] from the log's time stamps; the time before the first phase is
    the start (configuration, extensions)."""
    marks = [(0.0, "start (configuration, extensions)")]
    for key, name in PHASES:
        at = next((t for t, line in lines if key in line), None)
        if at is not None and name not in [m[1] for m in marks]:
            marks.append((at, name))
    marks.sort()
    ends = [t for t, _name in marks[1:]] + [total]
    return [(name, end - at) for (at, name), end in zip(marks, ends)]


def executions(lines):
    return [(name, float(seconds)) for _t, line in lines
            for name, seconds in _EXECUTED.findall(line)]


def _status(code, warnings):
    if code == 0 and not warnings:
        return "ok, no warnings"
    return f"exit {code}, {len(warnings)} warnings/errors"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def page_rows(html):
    """First load of every chapter at 390 and 1 280 px (gzip-counted)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from browser_support import CHROMIUM_ARGS, MAX_TRANSFER, chapter_pages, transfer
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_Quiet, directory=str(html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    site = f"http://127.0.0.1:{server.server_address[1]}/"
    result = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                 args=CHROMIUM_ARGS)
            for name in chapter_pages(html):
                phone, _ = transfer(browser, site + name, 390, 844)
                desktop, _ = transfer(browser, site + name, 1280, 800)
                result.append(Row(
                    "5 book", f"{name.removesuffix('.html')}: first load, empty cache, gzip "
                    "(390 px / 1 280 px)", f"{phone / 1e6:.2f} / {desktop / 1e6:.2f} MB", None,
                    None, f"<= {MAX_TRANSFER['phone'] / 1e6:.1f} / "
                    f"{MAX_TRANSFER['desktop'] / 1e6:.1f} MB",
                    verdict(phone <= MAX_TRANSFER["phone"]
                            and desktop <= MAX_TRANSFER["desktop"])))
            browser.close()
    finally:
        server.shutdown()
    return result


def rows():
    chapters = len(re.findall(r"^\s*- file:", (ROOT / "book" / "_toc.yml").read_text(),
                              flags=re.MULTILINE))
    with tempfile.TemporaryDirectory(prefix="bench_book_") as work:
        source = Path(work) / "book"
        shutil.copytree(ROOT / "book", source,
                        ignore=shutil.ignore_patterns("_build", ".ipynb_checkpoints"))
        cold, code, warnings, lines = _build(source, "--all")
        result = [Row("5 book", f"cold strict build, {chapters} pages + intro "
                      f"({_status(code, warnings)})", seconds_text(cold), None, None,
                      f"<= {COLD_TARGET:.0f} s", verdict(code == 0 and cold <= COLD_TARGET))]
        result += [Row("5 book", f"cold build, phase: {name}", seconds_text(seconds))
                   for name, seconds in phases(lines, cold)]
        ran = executions(lines)
        if ran:
            result.append(Row("5 book", "cold build, chapters executed (myst-nb's times; "
                              "side by side): " + ", ".join(f"{name} {seconds:.1f} s"
                                                            for name, seconds in ran),
                              seconds_text(sum(seconds for _n, seconds in ran))))
        again, code2, warnings2, _ = _build(source)
        result.append(Row("5 book", f"rebuild, nothing changed ({_status(code2, warnings2)})",
                          seconds_text(again), None, None, f"<= {REBUILD_TARGET:.0f} s",
                          verdict(code2 == 0 and again <= REBUILD_TARGET)))
        for line in (warnings + warnings2)[:5]:
            print(f"  build: {line[:200]}", file=sys.stderr)
        if code == 0:
            result += page_rows(source / "_build" / "html")
    return result
