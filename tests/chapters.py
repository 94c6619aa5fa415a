"""Run the book's chapters as notebooks (jupytext + nbclient) and move their sliders.

Shared by the notebook tests and the benchmarks; not a test module itself.
"""

import concurrent.futures
import json
import multiprocessing
import os
import re
from pathlib import Path

import jupytext
import nbformat
import yaml
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"

#: Appended to a chapter: moves every slider of every ``explore`` from Python and reports
#: what each move did, as one JSON line on stdout.
SLIDER_PROBE = r'''
import io as _io, json as _json
import numpy as _np
from PIL import Image as _Image
from attention_display.interactive import explorers as _explorers

def _ink(png):
    """Share of pixels that are not (nearly) white: 0 for a blank image."""
    grey = _np.asarray(_Image.open(_io.BytesIO(png)).convert("L"))
    return float((grey < 245).mean())

_report = []
for _k, _ex in enumerate(_explorers()):
    for _name, _control in _ex.sliders.items():
        _values = [value for _label, value in _control.options]
        _before = (_ex.image.value, _ex.caption.value, _control.value)
        _target = _values[-1] if _control.value != _values[-1] else _values[0]
        _control.value = _target
        _report.append({
            "explorer": _k, "slider": _name, "from": repr(_before[2]), "to": repr(_target),
            "image_changed": _ex.image.value != _before[0],
            "caption_changed": _ex.caption.value != _before[1],
            "ink": _ink(_ex.image.value),
        })
        _control.value = _before[2]
print("SLIDER_REPORT " + _json.dumps(_report))
'''


#: Seeds of the noisy clock (``test_noisy_clock.py``).
NOISY_SEEDS = [1, 2, 3]

NOISY_CLOCK = '''
import numpy as _np
import attention_core.timing as _timing

_real_cpu_time, _real_cpu_times = _timing.cpu_time, _timing.cpu_times
_noise = _np.random.default_rng({seed})
_noisy_calls = []


def _noisy_cpu_time(*args, **kwargs):
    """3 x the real CPU time x log-normal noise (sigma = 0.3): a slow, busy machine."""
    _noisy_calls.append(1)
    return 3 * _real_cpu_time(*args, **kwargs) * _noise.lognormal(0.0, 0.3)


def _noisy_cpu_times(*args, **kwargs):
    """The same for each of the functions, each with its own noise."""
    _noisy_calls.append(1)
    times = _real_cpu_times(*args, **kwargs)
    return [3 * t * _noise.lognormal(0.0, 0.3) for t in times]


_timing.cpu_time = _noisy_cpu_time
_timing.cpu_times = _noisy_cpu_times
'''

NOISY_REPORT = 'print("NOISY_CLOCK_CALLS", len(_noisy_calls))'


def sphinx_warnings(log):
    """The lines of a build log that are Sphinx's or myst-nb's warnings and errors
    ("file:line: WARNING: ...", "WARNING: ...", with a space after the colon).

    Not counted: what a notebook's kernel, whose standard error the build shares, logs
    about itself, e.g. "[IPKernelApp] WARNING | Kernel is running over TCP" or, from
    Python's logging in the kernel when its sockets close, "ERROR:tornado.general:Uncaught
    exception in ZMQStream callback" (seen once in CI, in a build whose pages were right).
    """
    return [line for line in log.splitlines() if re.search(r"\b(WARNING|ERROR|CRITICAL): ", line)]


def chapter_paths():
    """The notebooks listed in ``book/_toc.yml`` (chapters and appendix), in order.

    Plain Markdown pages of the book (literature, glossary) are not notebooks and are left out.
    """
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text(encoding="utf-8"))
    files = [entry["file"] for entry in toc.get("chapters", [])]
    for part in toc.get("parts", []):
        files += [entry["file"] for entry in part["chapters"]]
    paths = [BOOK / f"{name}.md" for name in files]
    return [path for path in paths if is_notebook(path)]


def is_notebook(path):
    """A MyST Markdown notebook: its front matter has a jupytext header."""
    text = path.read_text(encoding="utf-8")
    return text.startswith("---") and "\njupytext:" in text.split("\n---", 1)[0]


def execute(path, extra_code=None, timeout=600, setup_code=None):
    """Execute the chapter at ``path`` top to bottom; return the executed notebook.

    ``setup_code`` runs in a code cell of its own before the chapter's first cell (for example
    to replace a function before the chapter imports it), ``extra_code`` in one after its last.
    """
    nb = jupytext.read(path)
    if setup_code:
        nb.cells.insert(0, nbformat.v4.new_code_cell(setup_code))
    if extra_code:
        nb.cells.append(nbformat.v4.new_code_cell(extra_code))
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    return nb


def slider_report(nb):
    """The report printed by ``SLIDER_PROBE`` in the last cell of ``nb``."""
    for output in nb.cells[-1].outputs:
        for line in output.get("text", "").splitlines():
            if line.startswith("SLIDER_REPORT "):
                return json.loads(line.removeprefix("SLIDER_REPORT "))
    raise AssertionError("the slider probe printed no report")


def execute_all(cases, jobs=None):
    """Execute several chapters at once: ``cases`` maps a key to the keyword arguments of
    :func:`execute` (``path``, ``setup_code``, ``extra_code``); returns {key: the executed
    notebook, or the exception it raised}.

    Each runs in a process of its own (and a kernel of its own), ``jobs`` at a time: the
    cores this process may use, at most 4 (``$BOOK_JOBS`` if set), as the book's build
    reads its pages (``book/_ext/parallel_build.py``). The chapters that measure time
    measure CPU time, which kernels side by side do not change.
    """
    if jobs is None:
        jobs = int(os.environ.get("BOOK_JOBS") or min(len(os.sched_getaffinity(0)), 4))
    results = {}
    context = multiprocessing.get_context("spawn")  # no fork of a process with threads
    with concurrent.futures.ProcessPoolExecutor(max(1, jobs), mp_context=context) as pool:
        futures = {pool.submit(execute, **kwargs): key for key, kwargs in cases.items()}
        for future in concurrent.futures.as_completed(futures):
            try:
                results[futures[future]] = future.result()
            except Exception as error:  # noqa: BLE001 - reported by the test of that case
                results[futures[future]] = error
    return results


def uses_the_clock(path):
    """True if a code cell of the chapter at ``path`` mentions ``cpu_time`` (or ``cpu_times``)."""
    nb = jupytext.read(path)
    return any(cell.cell_type == "code" and "cpu_time" in cell.source for cell in nb.cells)


#: The chapters that measure time (with ``attention_core.timing.cpu_time``).
TIMED = [path for path in chapter_paths() if uses_the_clock(path)]


def live_cases():
    """Every live execution the tests need, once: each chapter that measures time with
    the noisy clock, once per seed (the first also moving its sliders), every other
    chapter once, moving its sliders. {key: keyword arguments of :func:`execute`}."""
    cases = {}
    for path in chapter_paths():
        if path in TIMED:
            for seed in NOISY_SEEDS:
                probe = "\n" + SLIDER_PROBE if seed == NOISY_SEEDS[0] else ""
                cases[path, seed] = {"path": path, "setup_code": NOISY_CLOCK.format(seed=seed),
                                     "extra_code": NOISY_REPORT + probe}
        else:
            cases[path, None] = {"path": path, "extra_code": SLIDER_PROBE}
    return cases


class LiveRuns:
    """The executed notebooks of :func:`live_cases` (``conftest.live_runs``)."""

    def __init__(self, results):
        self.results = results

    def get(self, key):
        result = self.results[key]
        if isinstance(result, BaseException):
            raise result
        return result

    def probed(self, path):
        """The run of ``path`` that moved its sliders."""
        return self.get((path, NOISY_SEEDS[0]) if path in TIMED else (path, None))
