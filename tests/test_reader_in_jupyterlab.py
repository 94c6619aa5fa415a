"""Issue 19: the reader's notebooks as plain Jupyter renders them, in Chromium.

A JupyterLab of its own (``test_jupyterlab.Lab``) with jupyterlab-myst switched off
(``labconfig/page_config.json``: ``disabledExtensions``), so that its Markdown is rendered
as Colab, classic Notebook and VS Code render it (CommonMark, HTML and MathJax), opens every
reader's notebook of the built site. In every Markdown cell: no raw directive or role, no
``{glue`` and no glued value's name, no formula left as TeX source (``$``, ``\\begin``) and
no MathJax error; every ``<details>`` (a solution) closed, and every solution's code cell
folded, before anything is opened.
"""

import json
import re
import shutil
import time

import pytest
from conftest import require_browser
from test_jupyterlab import RAW_MYST, Lab, write_json

from chapters import chapter_paths

pytestmark = pytest.mark.browser

#: A glued value's name, or TeX that MathJax did not typeset.
LEFT_OVER = re.compile(r"\bch\d\d_\w+|\$|\\[(\[]|\\begin\{|\\frac|\\color")

#: Read from the rendered notebook in the page (``window.jupyterapp``, exposed by ``Lab``).
READ_NOTEBOOK = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const cells = panel.content.widgets.map((cell, i) => {
    const rendered = cell.node.querySelector('.jp-RenderedMarkdown');
    let text = '';
    if (rendered) {
      const copy = rendered.cloneNode(true);
      copy.querySelectorAll('mjx-container, .MathJax, script').forEach(e => e.remove());
      text = copy.textContent;
    }
    return {
      index: i, type: cell.model.type,
      tags: cell.model.getMetadata('tags') || [],
      inputHidden: cell.inputHidden,
      rendered: !!rendered, text,
      formulas: cell.node.querySelectorAll('mjx-container').length,
      errors: cell.node.querySelectorAll('mjx-merror, [data-mjx-error]').length,
      details: [...cell.node.querySelectorAll('details')].map(d => ({
        open: d.open,
        hiddenVisible: [...d.children].filter(c => c.tagName !== 'SUMMARY')
          .some(c => c.checkVisibility())})),
    };
  });
  return {cells, typesetting: document.querySelectorAll('.jp-RenderedMarkdown').length};
}"""


OPENED = """(name) => {
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  return !!(panel && panel.context && panel.context.path.endsWith(name)
            && panel.context.isReady && panel.content.widgets.length > 1);
}"""
SHOW_SOLUTION = """() => {
  const details = window.jupyterapp.shell.currentWidget.node.querySelector('details');
  if (details) details.scrollIntoView({block: 'center'});
}"""
#: JupyterLab renders a cell when it is shown: show each for a frame.
SHOW_CELLS = """async () => {
  for (const cell of window.jupyterapp.shell.currentWidget.content.widgets) {
    cell.node.scrollIntoView();
    await new Promise(resolve => requestAnimationFrame(resolve));
  }
}"""


@pytest.fixture(scope="module")
def plain_lab(tmp_path_factory, built_html):
    executable = require_browser()
    home = tmp_path_factory.mktemp("plain-jupyterlab")
    root = home / "notebooks"
    shutil.copytree(built_html / "notebooks", root)
    # read by the server when it starts: JupyterLab without jupyterlab-myst
    write_json(home / "config" / "labconfig" / "page_config.json",
               {"disabledExtensions": {"jupyterlab-myst": True}})
    server = Lab(home, root)
    # every cell rendered at once (no windowing); read by the page when it loads
    write_json(home / "settings" / "@jupyterlab" / "notebook-extension"
               / "tracker.jupyterlab-settings",
               {"autoStartDefaultKernel": False, "windowingMode": "none"})
    try:
        server.wait_ready()
        yield server, executable
    finally:
        server.stop()


def test_reader_notebooks_render_in_plain_jupyterlab(plain_lab, tmp_path):
    from browser_support import CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    server, executable = plain_lab
    problems = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server.url}lab?token={server.token}")
        page.wait_for_function("() => !!window.jupyterapp", timeout=90_000)
        page.evaluate("async () => { await window.jupyterapp.restored; }")
        for path in chapter_paths():
            name = f"{path.stem}.ipynb"
            started = time.monotonic()
            page.evaluate("(path) => { window.jupyterapp.commands.execute('docmanager:open', "
                          "{path, factory: 'Notebook'}); }", name)
            page.wait_for_function(OPENED, arg=name, timeout=60_000)
            opened = time.monotonic()
            page.evaluate(SHOW_CELLS)
            shown = time.monotonic()
            problems += check_notebook(page, name)
            print(f"{name}: opened in {opened - started:.1f} s, every cell shown after "
                  f"{shown - opened:.1f} s, typeset and checked after "
                  f"{time.monotonic() - shown:.1f} s")
            page.evaluate(SHOW_SOLUTION)  # a look at the first solution, still closed
            page.screenshot(path=str(tmp_path / f"{path.stem}.png"))
        browser.close()
    assert not problems, "\n".join(problems)


def check_notebook(page, name, timeout=60):
    """The problems of one open notebook, once MathJax has typeset every formula (or the
    time ran out)."""
    deadline = page.evaluate("Date.now()") + timeout * 1000
    while True:
        state = page.evaluate(READ_NOTEBOOK)
        markdown = [c for c in state["cells"] if c["type"] == "markdown"]
        pending = [c for c in markdown if not c["rendered"] or LEFT_OVER.search(c["text"])]
        if not pending or page.evaluate("Date.now()") > deadline:
            break
        page.wait_for_timeout(250)
    problems = []
    for cell in state["cells"]:
        where = f"{name}, cell {cell['index'] + 1}"
        if cell["type"] == "code":
            if "solution" in cell["tags"] and not cell["inputHidden"]:
                problems.append(f"{where}: a solution's code is shown before it is opened")
            continue
        if not cell["rendered"]:
            problems.append(f"{where}: not rendered")
        for match in [*RAW_MYST.finditer(cell["text"]), *LEFT_OVER.finditer(cell["text"])]:
            at = match.start()
            problems.append(f"{where}: {match.group()!r} shows: "
                            f"…{cell['text'][max(0, at - 40):at + 40]}…")
        if cell["errors"]:
            problems.append(f"{where}: {cell['errors']} MathJax error(s)")
        for details in cell["details"]:
            if details["open"] or details["hiddenVisible"]:
                problems.append(f"{where}: a solution is visible before it is opened "
                                f"{json.dumps(details)}")
    if not any(c["formulas"] for c in state["cells"]):
        problems.append(f"{name}: no formula typeset at all")
    return problems
