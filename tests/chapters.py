"""Run the book's chapters as notebooks (jupytext + nbclient) and move their sliders.

Shared by the notebook tests and the benchmarks; not a test module itself.
"""

import json
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
