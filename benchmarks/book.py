"""Section 5: the strict build of the whole book, cold, then again with nothing changed.

The book is copied to a temporary folder (so no earlier ``_build`` helps and no one else's
build is touched), built with ``jupyter-book build -W -n --keep-going --all`` (every chapter
executed), then built again without ``--all``: Sphinx re-reads only what changed, so
nothing should be executed the second time.
"""

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import ROOT
from .table import Row, seconds_text, verdict

COLD_TARGET = 90.0
REBUILD_TARGET = 10.0


def _build(source, *extra):
    started = time.perf_counter()
    result = subprocess.run(["jupyter-book", "build", "-W", "-n", "--keep-going", *extra,
                             str(source)], capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - started
    log = result.stdout + result.stderr
    # Sphinx's warnings and errors; the kernels' own start-up notice ("[IPKernelApp] WARNING |
    # Kernel is running over TCP without encryption") is a log line of ipykernel, not the book's.
    warnings = [line for line in log.splitlines() if re.search(r"WARNING|ERROR", line)
                and not line.startswith("[IPKernelApp]")]
    return seconds, result.returncode, warnings


def _status(code, warnings):
    if code == 0 and not warnings:
        return "ok, no warnings"
    return f"exit {code}, {len(warnings)} warnings/errors"


def rows():
    chapters = len(re.findall(r"^\s*- file:", (ROOT / "book" / "_toc.yml").read_text(),
                              flags=re.MULTILINE))
    with tempfile.TemporaryDirectory(prefix="bench_book_") as work:
        source = Path(work) / "book"
        shutil.copytree(ROOT / "book", source,
                        ignore=shutil.ignore_patterns("_build", ".ipynb_checkpoints"))
        cold, code, warnings = _build(source, "--all")
        result = [Row("5 book", f"cold strict build, {chapters} chapters + intro "
                      f"({_status(code, warnings)})", seconds_text(cold), None, None,
                      f"<= {COLD_TARGET:.0f} s", verdict(code == 0 and cold <= COLD_TARGET))]
        again, code2, warnings2 = _build(source)
        result.append(Row("5 book", f"rebuild, nothing changed ({_status(code2, warnings2)})",
                          seconds_text(again), None, None, f"<= {REBUILD_TARGET:.0f} s",
                          verdict(code2 == 0 and again <= REBUILD_TARGET)))
        for line in (warnings + warnings2)[:5]:
            print(f"  build: {line[:200]}", file=sys.stderr)
    return result
