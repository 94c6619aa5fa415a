"""Layer 4: JupyterLab end to end, as a reader uses it (issue 14).

A JupyterLab of its own (config, settings, workspaces, runtime and IPython folders in a
temporary directory, on 127.0.0.1 with a token) serves a copy of the book. Its settings are
the ones the README gives a reader, ``jupyter lab --config=lab/jupyter_lab_config.py``:
jupytext's notebook is the default viewer of ``.md``, the windowing mode is "none", the box
titles are Czech (``lab/custom/custom.css``), and jupyterlab-myst (requirements.txt) renders
the Markdown; besides, the notebook's kernel starts without a
dialog, news and update checks are off, and the application object is exposed to the test,
which reads the notebook's cells from it. For every chapter (and the appendix) the test
opens it by double-click in the file browser and checks, as a reader would see it:

- folded before and after Run All: the source of every ``hide-input`` cell, source and
  outputs of every solution's code cell (``normalize_chapters.folding``);
- Run → Run All Cells runs every cell without an error; the first slider, moved with the
  keyboard as soon as it appears, while the rest of the chapter runs, shows a new figure
  (within a bound no load reaches, ``FIRST_MOVE_TIMEOUT``). How soon is measured, not
  asserted: the times are printed, and ``python -m benchmarks --only jupyterlab`` sets them
  against a reference notebook timed in the same run (a busy machine failed the seconds
  this test used to assert: 7,5-13,6 s against 6 s);
- no raw MyST in the rendered Markdown (directive and role syntax, the term macros) and,
  after Run All, no computed value shown by its name instead of its value (``{eval}``,
  ``book/_ext/computed_values.py``): every Markdown cell is scrolled into view, so that
  JupyterLab renders it, and its text read;
- box titles in Czech: no English word of jupyterlab-myst's titles shows, and the CSS
  counters count the boxes that jupyterlab-myst numbers (``check_box_titles``);
- every slider moved with the keyboard shows the readout and the caption that the same
  ``explore`` rendered into the HTML book at build time, and a new, non-blank image, shown
  no larger than its pixels;
- links and citations (``lab/book_links.py``, the book's contents manager): no reference
  or citation jupyterlab-myst could not resolve ("Cross Reference Not Found", "Citation Not
  Found"), the citations read as in the HTML page, in its order; in the first chapter, a
  click on its first link to another chapter opens that chapter in a tab of its own;
- Ctrl+S leaves the chapter's file byte for byte as it was (``book/jupytext.toml`` keeps the
  values jupyterlab-myst stored for ``{eval}`` out of it, and the contents manager puts the
  roles it wrote as links back).
"""

import base64
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

import jupytext
import pytest
from browser_support import CHROMIUM_ARGS, MIN_INK, ink
from conftest import require_browser
from normalize_chapters import folding

from chapters import BOOK, chapter_paths

pytestmark = pytest.mark.browser

#: How long the first slider may take to show a new figure after its key press: a bound for
#: a test that must hold on a loaded machine, not a target (benchmarks/jupyterlab.py).
FIRST_MOVE_TIMEOUT = 240_000

#: How long a wait that only a busy machine stretches may last (opening a notebook, starting
#: its kernel): a bound, not a target.
PATIENCE = 300_000

#: How long a Markdown cell scrolled into view may take to be drawn, and then to show its
#: computed values instead of their names (bounds for a loaded machine).
MARKDOWN_DRAWN_SECONDS = 60
VALUE_SHOWN_SECONDS = 30

#: Text that must not show in rendered Markdown: MyST directive and role syntax left raw,
#: and the book's term macros (KaTeX shows a formula it cannot typeset as its source).
RAW_MYST = re.compile(r":class:|\{solution|\{exercise|:::|\{glue|\{prf|\{eval|\{ref\}|"
                      r"\{doc\}|\{cite|\{term\}|```|\\(?:dotaz|klic|skore|vaha|hodnota|vystup)\b")


#: The book's JupyterLab configuration (README): settings' defaults and the Czech box titles.
LAB_CONFIG = Path(__file__).resolve().parents[1] / "lab" / "jupyter_lab_config.py"

#: English words of jupyterlab-myst's box titles that must not show (lab/custom/custom.css).
ENGLISH_TITLE = re.compile(r"\b(?:Definition|Exercise|Solution|Theorem|Lemma|Proof|Note|"
                           r"Start of|End of)\b")


def slider_chapters():
    """The chapters with sliders (``benchmarks/jupyterlab.py`` times them)."""
    return [p for p in chapter_paths() if p.exists() and "explore(" in p.read_text("utf-8")]


#: A computed value's name (``glue(name, ...)`` in the chapters): shown when ``{eval}`` was not
#: evaluated.
GLUED_NAME = re.compile(r"\b(?:ch\d\d|dod)_\w+")


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
        # the test's own server settings, given on the command line: with --config (README)
        # JupyterLab reads no other configuration file
        server = {
            "ServerApp": {"ip": "127.0.0.1", "port": self.port, "port_retries": 0,
                          "open_browser": False,
                          "allow_root": os.geteuid() == 0},
            "IdentityProvider": {"token": self.token},
            # the test reads the notebook's cells from the application object
            "LabApp": {"news_url": None, "extension_manager": "readonly",
                       "expose_app_in_browser": True,
                       "check_for_updates_class": "jupyterlab.NeverCheckForUpdate"},
        }
        options = [f"--{section}.{name}={value}" for section, values in server.items()
                   for name, value in values.items()]
        settings = dirs["settings"] / "@jupyterlab"
        # the viewer of .md files and the windowing mode come from lab/ (README)
        write_json(settings / "notebook-extension" / "tracker.jupyterlab-settings",
                   {"autoStartDefaultKernel": True})
        write_json(settings / "apputils-extension" / "notification.jupyterlab-settings",
                   {"fetchNews": "false", "checkForUpdates": False})
        self.log = open(home / "lab.log", "w")  # noqa: SIM115 (closed in stop)
        # as the README: `jupyter lab --config=lab/jupyter_lab_config.py book/` (the folder
        # given serves as the root)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", f"--config={LAB_CONFIG}", str(root), *options],
            env=self.env, cwd=home,
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
    chapters = [path for path in chapter_paths() if path.exists()]
    executable = require_browser()
    home = tmp_path_factory.mktemp("jupyterlab")
    root = home / "book"
    shutil.copytree(BOOK, root, ignore=shutil.ignore_patterns("_build", "_ext", "*.ipynb"))
    pages = {path.name: (built_html / f"{path.stem}.html").read_text("utf-8")
             for path in chapters}
    plans = {name: (expected_moves(html), expected_citations(html))
             for name, html in pages.items()}
    server = Lab(home, root)
    try:
        server.wait_ready()
        yield server, executable, plans
    finally:
        server.stop()


def test_chapters_read_run_and_save_in_jupyterlab(lab, tmp_path):
    from playwright.sync_api import sync_playwright

    server, executable, plans = lab
    problems, report = [], []
    started = time.monotonic()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        outside = []
        page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(
            (server.url, "data:", "blob:", f"ws://127.0.0.1:{server.port}/")) else None)
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
            server.url) else route.abort("blockedbyclient"))
        try:
            page.goto(f"{server.url}lab?reset&token={server.token}")
            for number, (name, (plan, citations)) in enumerate(plans.items()):
                found, facts = check_chapter(page, server.root / name, plan, citations,
                                             follow_link=number == 0)
                problems += [f"{name}: {problem}" for problem in found]
                report.append(f"{name}: " + ", ".join(f"{k} {v}" for k, v in facts.items()))
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"))
            print(f"screenshot: {tmp_path / 'failure.png'}\nserver log:\n{server.log_tail()}")
            raise
        finally:
            browser.close()
            print("\nJupyterLab, per chapter:\n  " + "\n  ".join(report))
            print(f"JupyterLab test: {time.monotonic() - started:.0f} s")
    assert not outside, f"JupyterLab requested outside addresses: {outside}"
    assert not problems, "\n".join(problems)


def check_chapter(page, path, plan, citations, follow_link=False):
    """Open ``path`` by double-click, read it (its ``citations`` as the HTML page has them;
    with ``follow_link``, a link to another chapter clicked), run it, move its sliders,
    save it.

    Returns (problems, facts): what is wrong, and what was measured (printed by the test).
    """
    from playwright.sync_api import expect

    name, problems, facts = path.name, [], {}
    phases = Phases()
    original = path.read_bytes()
    item = page.locator(".jp-DirListing-item", has_text=name)
    item.wait_for(timeout=PATIENCE)
    item.dblclick()
    # the notebook (not the text editor) is the current tab, its kernel idle, no dialog
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
    expect(tab).to_contain_text(name, timeout=PATIENCE)
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    expect(panel).to_have_count(1, timeout=PATIENCE)
    expect(panel.locator(".jp-Toolbar-kernelName")).to_contain_text("Python 3", timeout=PATIENCE)
    expect(panel.locator(".jp-Notebook-ExecutionIndicator")).to_have_attribute(
        "data-status", "idle", timeout=PATIENCE)
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    facts["modified dot on open"] = "yes" if "jp-mod-dirty" in (
        tab.get_attribute("class") or "") else "no"
    phases.mark("open")

    nb = jupytext.read(path)
    problems += check_folding(page, nb, "on open")
    phases.mark("folding on open")
    if follow_link:
        problems += check_link_opens(page, name)
        phases.mark("link followed")

    clicked = run_all_cells(page, panel, name)
    phases.mark("Run All started")
    # an explore's widget: its sliders, the stacked frames and captions (the browser shows
    # the frame and the caption of the sliders' values, attention_display.interactive)
    views = panel.locator(".jp-OutputArea-output .ac-live-explore")
    if plan and plan[0]:
        # the first slider, moved as soon as it is there, while the rest of the chapter runs
        views.first.wait_for(timeout=300_000)
        shown = time.monotonic()
        facts["first slider shown after"] = f"{shown - clicked:.1f} s"
        problems += move_slider(page, views.first, plan[0][0], f"explorer 1, slider "
                                f"{plan[0][0]['slider'] + 1}", timeout=FIRST_MOVE_TIMEOUT)
        seconds = plan[0][0].get("seconds")
        if seconds is not None:
            facts["first slider moved after"] = f"{seconds - clicked:.1f} s"
        phases.mark("first slider moved")
    # every code cell ran: no prompt left at "[*]" (running/queued) or "[ ]" (not run)
    expect(panel.locator(".jp-CodeCell .jp-InputPrompt", has_text="[*]")).to_have_count(
        0, timeout=300_000)
    expect(panel.locator(".jp-CodeCell .jp-InputPrompt", has_text="[ ]")).to_have_count(
        0, timeout=300_000)
    facts["Run All took"] = f"{time.monotonic() - clicked:.1f} s"
    phases.mark("cells done")
    errors = panel.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    if errors.count():
        problems.append(f"error output: {errors.first.text_content()[:500]}")
    problems += check_folding(page, nb, "after Run All")
    phases.mark("folding after")
    problems += check_rendered_markdown(page)
    problems += check_links_and_citations(page, citations)
    problems += check_box_titles(page)
    phases.mark("Markdown read")

    expect(views).to_have_count(len(plan), timeout=60_000)
    for e, moves in enumerate(plan):
        view = views.nth(e)
        view.scroll_into_view_if_needed()
        for k, move in enumerate(moves):
            if e == k == 0:
                continue  # moved above
            problems += move_slider(page, view, move, f"explorer {e + 1}, slider "
                                    f"{move['slider'] + 1}")
        size = view.locator("img.widget-image").evaluate("""(img) => ({
            natural: img.naturalWidth, shown: img.getBoundingClientRect().width,
            ratio: window.devicePixelRatio})""")
        facts[f"image {e + 1}"] = f"{size['natural']} px shown at {size['shown']:.0f} px"
        if size["shown"] * size["ratio"] > size["natural"] + 0.5:
            problems.append(f"explorer {e + 1}: its image of {size['natural']} px is stretched "
                            f"to {size['shown']:.0f} CSS px (device pixel ratio "
                            f"{size['ratio']})")

    phases.mark("sliders moved")
    problems += save_unchanged(page, path, original)
    phases.mark("saved")
    close_and_shut_down(page)
    phases.mark("closed")
    facts["phases"] = phases.text()
    return problems, facts


class Phases:
    """Seconds spent in each step of a chapter's check (printed with the facts)."""

    def __init__(self):
        self.last, self.spent = time.monotonic(), []

    def mark(self, step):
        now = time.monotonic()
        self.spent.append(f"{step} {now - self.last:.1f}")
        self.last = now

    def text(self):
        return "; ".join(self.spent)


def close_and_shut_down(page, keep=0):
    """File → Close and Shut Down Notebook, its dialog accepted: the next chapter opens in a
    JupyterLab that holds no other notebook's cells, widgets and kernel (``keep``: the
    number of notebooks still open after it, another tab's)."""
    # not awaited: the command's promise settles only once its dialog is answered
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:close-and-shutdown'); }")
    accept, open_ = page.locator(".jp-Dialog .jp-mod-accept"), page.locator(".jp-NotebookPanel")
    deadline = time.monotonic() + PATIENCE / 1000
    while open_.count() > keep or accept.count():
        if time.monotonic() > deadline:
            raise AssertionError("Close and Shut Down Notebook did not close the notebook")
        if accept.count():
            accept.first.click()
        page.wait_for_timeout(100)


def check_folding(page, nb, when):
    """Every code cell of the notebook ``nb`` (as jupytext reads the chapter) folded as
    ``normalize_chapters.folding`` wants it."""
    wanted = folding(nb)
    page.wait_for_function("""(count) => {
        const notebook = window.jupyterapp.shell.currentWidget.content;
        return notebook.model && notebook.widgets.length === count; }""", arg=len(nb.cells))
    cells = page.evaluate("""() => window.jupyterapp.shell.currentWidget.content.widgets.map(
        c => ({input: c.inputHidden, output: c.model.type === 'code' ? c.outputHidden : false,
               text: c.model.sharedModel.getSource().split('\\n')[0]}))""")
    problems = []
    for index, flags in wanted.items():
        shown = {"source_hidden": cells[index]["input"], "outputs_hidden": cells[index]["output"]}
        expected = {k: flags.get(k, False) for k in shown}
        if shown != expected:
            problems.append(f"{when}, cell {index} ({cells[index]['text'][:50]!r}): "
                            f"folded {shown}, wanted {expected}")
    return problems


#: Read every Markdown cell of the notebook shown, in the page (one call, not several per
#: cell): scroll it into view (JupyterLab renders a cell when it is shown), wait until
#: jupyterlab-myst has drawn it, and while it shows a computed value's name, until the
#: value's renderer is attached (a moment after the cell is drawn). Its text without
#: MathJax's and KaTeX's hidden copies, or null when it was not drawn in time.
READ_MARKDOWN = """async ([selector, glued, drawSeconds, valueSeconds]) => {
    const pause = ms => new Promise(resolve => setTimeout(resolve, ms));
    const name = new RegExp(glued);
    const text = cell => {
        const copy = cell.querySelector('.myst').cloneNode(true);
        copy.querySelectorAll('.katex-mathml, annotation').forEach(e => e.remove());
        return copy.textContent; };
    const found = [];
    for (const cell of document.querySelectorAll(selector)) {
        cell.scrollIntoView({block: 'nearest'});
        let deadline = performance.now() + drawSeconds * 1000;
        while (!cell.querySelector('.myst') && performance.now() < deadline) await pause(50);
        if (!cell.querySelector('.myst')) { found.push(null); continue; }
        deadline = performance.now() + valueSeconds * 1000;
        while (name.test(text(cell)) && performance.now() < deadline) await pause(100);
        found.push(text(cell));
    }
    return found; }"""


def check_rendered_markdown(page):
    """Every Markdown cell of the notebook shown, read as drawn (``READ_MARKDOWN``): no MyST
    that jupyterlab-myst left raw, no computed value shown by its name."""
    problems = []
    texts = page.evaluate(READ_MARKDOWN, [
        ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell", GLUED_NAME.pattern,
        MARKDOWN_DRAWN_SECONDS, VALUE_SHOWN_SECONDS])
    for i, text in enumerate(texts):
        if text is None:
            problems.append(f"Markdown cell {i + 1} not rendered in {MARKDOWN_DRAWN_SECONDS} s")
            continue
        for match in GLUED_NAME.finditer(text):
            problems.append(f"Markdown cell {i + 1} shows the name {match.group()!r} instead "
                            "of its value")
        for match in RAW_MYST.finditer(text):
            at = match.start()
            problems.append(f"Markdown cell {i + 1} shows raw MyST {match.group()!r}: "
                            f"…{text[max(0, at - 40):at + 40]}…")
    return problems


def expected_citations(page_html):
    """The citations of a built chapter page, in order, as they read ("Vaswani a kol.
    (2017)"; the no-break spaces of the Czech typography as spaces)."""
    from bs4 import BeautifulSoup

    main = BeautifulSoup(page_html, "html.parser").select_one("main")
    return [span.get_text("").replace("\xa0", " ")
            for span in main.select("span.bibtex-citation")]


#: The notebook shown: how many references and citations jupyterlab-myst could not resolve
#: (it marks them with a title "... Not Found"), and the texts of its citations, the links
#: to the literature page that ``lab/book_links.py`` wrote (in order; a citation ends with
#: ")", a link to the page by its name does not).
READ_LINKS = """(selector) => {
    const panel = document.querySelector(selector);
    const missing = [...panel.querySelectorAll('.jp-MarkdownCell [title$="Not Found"]')]
        .map(e => `${e.title}: ${e.textContent}`);
    const cited = [...panel.querySelectorAll('.jp-MarkdownCell a[href*="/files/literatura.md"]')]
        .map(a => a.textContent.replace(/\u00a0/g, ' ')).filter(t => t.endsWith(')'));
    return {missing, cited}; }"""


def check_links_and_citations(page, citations):
    """No unresolved reference or citation; the citations those of the HTML page (read again
    while they differ, for up to ``VALUE_SHOWN_SECONDS``: under load jupyterlab-myst may
    still be drawing a cell that was scrolled past)."""
    deadline = time.monotonic() + VALUE_SHOWN_SECONDS
    while True:
        found = page.evaluate(READ_LINKS, ".jp-NotebookPanel:not(.lm-mod-hidden)")
        done = not found["missing"] and found["cited"] == citations
        if done or time.monotonic() > deadline:
            break
        page.wait_for_timeout(500)
    problems = [f"unresolved: {text}" for text in found["missing"]]
    if found["cited"] != citations:
        problems.append(f"citations {found['cited']}, the HTML book {citations}")
    return problems


def check_link_opens(page, name):
    """Click the chapter's first link to another chapter (``lab/book_links.py``): that
    chapter opens in a tab of its own. The tab is closed (its kernel shut down) and the
    chapter's tab shown again."""
    from playwright.sync_api import expect

    selector = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell a"
    # the first link to a chapter's file, once jupyterlab-myst has drawn it
    index, target = page.wait_for_function(r"""([selector, name]) => {
        const links = [...document.querySelectorAll(selector)];
        for (const [i, a] of links.entries()) {
            const m = /\/files\/(\d\d_\w+\.md)(?:[?#]|$)/.exec(a.href);
            if (m && m[1] !== name) return [i, m[1]];
        }
        return false; }""", arg=[selector, name], timeout=PATIENCE).json_value()
    links = page.locator(selector)
    links.nth(index).scroll_into_view_if_needed()
    links.nth(index).click()
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
    try:
        expect(tab).to_contain_text(target, timeout=PATIENCE)
    except AssertionError:
        return [f"a click on the link to {target} did not open it"]
    close_and_shut_down(page, keep=1)
    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text=name).click()
    expect(tab).to_contain_text(name, timeout=PATIENCE)
    return []


#: For every box title of the notebook shown: the text a reader sees (``innerText`` leaves
#: out what ``display: none`` hides; a title made zero-sized shows nothing of its own), the
#: Czech title written by ``lab/custom/custom.css`` (its ``::before``, as CSS states it), the
#: number jupyterlab-myst gave the box (in the hidden English title) and the number the
#: CSS counter gives it: the boxes of its kind counted so far, as the counters count them.
READ_TITLES = """(selector) => {
    const panel = document.querySelector(selector);
    const counts = {};
    const kinds = {'Link to this Exercise': 'Cvičení', 'Link to this Definition': 'Definice',
                   'Link to this Theorem': 'Věta', 'Link to this Lemma': 'Lemma'};
    const found = [];
    for (const box of panel.querySelectorAll('aside.myst-exercise, details.myst-exercise, '
                                             + 'aside.myst-proof')) {
        const title = box.querySelector('.myst-exercise-title, .myst-proof-title');
        if (!title || !box.checkVisibility()) continue;
        const self = title.querySelector(':scope > a[title^="Link to this "]');
        const solution = box.tagName === 'DETAILS';
        const kind = solution ? 'Cvičení' : self ? kinds[self.title] : 'Důkaz';
        if (!solution && self) counts[kind] = (counts[kind] || 0) + 1;
        const english = solution ? title.querySelector('a') : self;
        const number = english && /(\\d+)$/.exec(english.textContent.trim());
        found.push({kind, solution,
                    shown: getComputedStyle(title).fontSize === '0px' ? '' : title.innerText,
                    czech: getComputedStyle(title, '::before').content,
                    mystNumber: number ? Number(number[1]) : null,
                    cssNumber: kind === 'Důkaz' ? null : counts[kind] || 0});
    }
    return found; }"""


def check_box_titles(page):
    """Box titles in Czech (``lab/custom/custom.css``): no English word shows, every title
    has its Czech word, and the CSS counters number the boxes as jupyterlab-myst does."""
    problems = []
    titles = page.evaluate(READ_TITLES, ".jp-NotebookPanel:not(.lm-mod-hidden)")
    for i, box in enumerate(titles):
        where = f"box {i + 1} ({'solution of ' if box['solution'] else ''}{box['kind']})"
        if match := ENGLISH_TITLE.search(box["shown"]):
            problems.append(f"{where}: its title shows {match.group()!r}: {box['shown']!r}")
        word = "Řešení ke cvičení" if box["solution"] else box["kind"]
        if not box["czech"].startswith(f'"{word}'):
            problems.append(f"{where}: no Czech title (::before is {box['czech']!r}; "
                            "lab/custom/custom.css not loaded?)")
        if box["cssNumber"] is not None and box["mystNumber"] != box["cssNumber"]:
            problems.append(f"{where}: jupyterlab-myst numbers it {box['mystNumber']}, the "
                            f"CSS counter {box['cssNumber']}")
    return problems


def move_slider(page, view, move, where, timeout=30_000):
    """Press the arrow keys ``move`` asks for on one slider; check the readout, the caption
    and the new image. The time the image first changed is stored in ``move["seconds"]``."""
    from playwright.sync_api import expect

    image = view.locator("img.widget-image")
    source = image.get_attribute("src")
    before = image_bytes(page, image)
    handle = view.locator(".noUi-handle").nth(move["slider"])
    readout = view.locator(".widget-readout").nth(move["slider"])
    start = readout.text_content()
    handle.focus()
    key = "ArrowRight" if move["steps"] > 0 else "ArrowLeft"
    handle.press(key)
    deadline = time.monotonic() + timeout / 1000
    pressed = time.monotonic()
    while True:
        # a new image has a new blob address: only then are its bytes read and compared
        # (reading them at every poll kept a core busy while the kernel ran the chapter)
        shown = image.get_attribute("src")
        if shown != source:
            source = shown
            if image_bytes(page, image) != before:
                break
        if time.monotonic() > deadline:
            return [f"{where}: the image did not change in {timeout / 1000:.0f} s"]
        # a key pressed while the widget was still being set up is lost (the readout did
        # not move, the front end draws it itself): press it again
        if readout.text_content() == start and time.monotonic() - pressed > 5:
            handle.focus()
            handle.press(key)
            pressed = time.monotonic()
        page.wait_for_timeout(100)
    move["seconds"] = time.monotonic()
    for _ in range(abs(move["steps"]) - 1):  # every press runs the callback
        handle.press(key)
    expect(readout, where).to_have_text(move["readout"], timeout=timeout)
    expect(view.locator(".widget-html-content"), where).to_have_text(move["caption"],
                                                                      timeout=timeout)
    after = image_bytes(page, image)
    if after == before:
        return [f"{where}: the image did not change"]
    if ink(after) <= MIN_INK:
        return [f"{where}: the image is blank"]
    return []


def save_unchanged(page, path, original):
    """Ctrl+S, as a reader saves; the file must be byte for byte what it was."""
    written = path.stat().st_mtime_ns
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook").click(
        position={"x": 5, "y": 5})  # focus the notebook, in command mode
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 30
    while path.stat().st_mtime_ns == written:
        if time.monotonic() > deadline:
            return ["Ctrl+S did not save the file in 30 s"]
        page.wait_for_timeout(100)
    page.wait_for_timeout(500)  # the contents manager writes the file once
    saved = path.read_bytes()
    if saved == original:
        return []
    import difflib
    diff = difflib.unified_diff(original.decode().splitlines(), saved.decode().splitlines(),
                                "as opened", "after Ctrl+S", n=1, lineterm="")
    return ["Ctrl+S changed the file:\n" + "\n".join(list(diff)[:40])]


def run_all_cells(page, panel, name, attempts=6):
    """Run → Run All Cells, once the menu item is enabled and until the cells start running;
    return the time (``time.monotonic()``) of the click that started them.

    Clicked before the notebook is ready, the item is disabled or the click does nothing;
    so the test waits for the item to be enabled and for a first prompt to change from
    "[ ]", and tries again if it does not.
    """
    not_run = panel.locator(".jp-CodeCell .jp-InputPrompt", has_text="[ ]")
    cells = panel.locator(".jp-CodeCell")
    for _ in range(attempts):
        page.locator(".lm-MenuBar-itemLabel").filter(has_text=re.compile(r"^Run$")).click()
        item = page.locator(".lm-Menu-item[data-command='runmenu:run-all']")
        item.wait_for(timeout=PATIENCE)
        if item.get_attribute("aria-disabled") == "true":
            page.keyboard.press("Escape")
            page.wait_for_timeout(500)
            continue
        clicked = time.monotonic()
        item.click()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if not_run.count() < cells.count():
                return clicked
            page.wait_for_timeout(250)
    raise AssertionError(f"{name}: Run All Cells did not start the cells")


def image_bytes(page, image, attempts=20):
    """The bytes of the image shown. The browser swaps the image element when a slider
    moves (its blob URL is revoked with it), so a read that catches the old one is repeated."""
    from playwright.sync_api import Error

    for attempt in range(attempts):
        try:
            data = page.evaluate(
                """async (img) => {
                    const blob = await (await fetch(img.src)).blob();
                    const buffer = new Uint8Array(await blob.arrayBuffer());
                    let text = '';
                    for (const b of buffer) text += String.fromCharCode(b);
                    return btoa(text);
                }""", image.element_handle())
            return base64.b64decode(data)
        except Error:
            if attempt == attempts - 1:
                raise
            page.wait_for_timeout(50)
