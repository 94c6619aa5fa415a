"""Section 6: JupyterLab, from *Run All* to a new figure under a chapter's first slider.

What a reader waits for (issue 14): open a chapter by double-click, *Run → Run All Cells*,
and move the first slider with the keyboard as soon as it appears. The JupyterLab is the
one ``tests/test_jupyterlab.py`` starts (its own folders, the README's settings), driven by
Debian's Chromium. Reference, in the same JupyterLab and run: a notebook of two cells, the
imports every chapter starts with and one ``explore`` of a one-panel figure, timed the same
way; it is mostly the kernel's start and the imports, the floor under every chapter. A
chapter's ratio to it says what the chapter itself adds before its first slider works.

The moves come from the HTML book (``book/_build/html``, the README's build): the key
presses and the readout that the same explore rendered at build time.
"""

import os
import shutil
import sys
import tempfile
from pathlib import Path

from . import ROOT
from .table import Row, verdict

SECTION = "6 JupyterLab"

#: Issue 14's targets, from the click on Run All to the first slider's new figure (s).
TARGETS = {"01_mekky_slovnik.md": 6.0, "02_uloha_one_hot.md": 6.0, "05_sebepozornost.md": 6.0}
OTHER_TARGET = 10.0

REFERENCE = "reference.md"

#: The reference notebook: a chapter's imports and one slider of a one-panel figure.
REFERENCE_SOURCE = '''---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
    jupytext_version: 1.19.6
kernelspec:
  display_name: Python 3 (ipykernel)
  language: python
  name: python3
---

```{code-cell} ipython3
import numpy as np

from attention_display.interactive import explore, slider
from attention_display.style import new_figure
```

```{code-cell} ipython3
x = np.linspace(0, 1, 50)


def draw(power):
    fig, ax = new_figure()
    ax.plot(x, x ** power)
    ax.set(title=f"mocnina {power}", xlabel="x", ylabel="y")
    return fig


explore(draw, alt=lambda power: f"mocnina {power}", power=slider([1, 2, 3, 4], value=1))
```
'''


def _tests():
    sys.path.insert(0, str(ROOT / "tests"))
    import test_jupyterlab

    return test_jupyterlab


def first_move(lab_test, page, path, move):
    """Seconds from the click on Run All to the new figure under the first slider; the
    notebook is closed and its kernel shut down afterwards."""
    from playwright.sync_api import Error as PlaywrightError

    item = page.locator(".jp-DirListing-item", has_text=path.name)
    item.wait_for(timeout=60_000)
    item.dblclick()
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    panel.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(
        timeout=120_000)
    # a notebook written here (the reference) may be asked for its kernel: the default
    try:
        page.locator(".jp-Dialog .jp-mod-accept").click(timeout=3_000)
    except PlaywrightError:
        pass
    clicked = lab_test.run_all_cells(page, panel, path.name)
    view = panel.locator(".jp-OutputArea-output .ac-live-explore").first
    view.wait_for(timeout=300_000)
    problems = lab_test.move_slider(page, view, move, path.name,
                                    timeout=lab_test.FIRST_MOVE_TIMEOUT)
    if problems:
        raise RuntimeError("; ".join(problems))
    seconds = move["seconds"] - clicked
    # the next chapter runs alone: close this one and shut its kernel down (a dialog asks)
    lab_test.close_and_shut_down(page)
    return seconds


def rows():
    lab_test = _tests()
    html = ROOT / "book" / "_build" / "html"
    chapters = lab_test.slider_chapters()
    if not (html / f"{chapters[0].stem}.html").is_file():
        return [Row(SECTION, "needs the HTML book: run `jupyter-book build book/` first")]
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench_lab_") as work:
        home = Path(work)
        root = home / "book"
        shutil.copytree(ROOT / "book", root,
                        ignore=shutil.ignore_patterns("_build", "_ext", "*.ipynb"))
        (root / REFERENCE).write_text(REFERENCE_SOURCE, encoding="utf-8")
        server = lab_test.Lab(home, root)
        measured = {}
        try:
            server.wait_ready()
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                    args=lab_test.CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1440, "height": 900})
                page.goto(f"{server.url}lab?reset&token={server.token}")
                reference_move = {"slider": 0, "steps": 1, "readout": "2",
                                  "caption": "mocnina 2"}
                measured[REFERENCE] = first_move(lab_test, page, root / REFERENCE,
                                                 reference_move)
                for path in chapters:
                    plan = lab_test.expected_moves(
                        (html / f"{path.stem}.html").read_text(encoding="utf-8"))
                    move = dict(plan[0][0])
                    measured[path.name] = first_move(lab_test, page, root / path.name,
                                                     move)
                browser.close()
        finally:
            server.stop()
    reference = measured.pop(REFERENCE)
    result = [Row(SECTION, "reference: Run All on a two-cell notebook (the imports, one "
                  "explore of a one-panel figure) to a new figure under its slider",
                  f"{reference:.1f} s")]
    for name, seconds in measured.items():
        target = TARGETS.get(name, OTHER_TARGET)
        result.append(Row(SECTION, f"{name.removesuffix('.md')}: Run All to a new figure under "
                          "the first slider, moved as soon as it appears", f"{seconds:.1f} s",
                          f"{reference:.1f} s", f"{seconds / reference:.1f}",
                          f"<= {target:.0f} s", verdict(seconds <= target)))
    return result


