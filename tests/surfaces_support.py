"""Shared by the reader-surface tests (phone, desktop, dark mode, print, hidden solutions):
page visits at a given viewport and colour mode, and the checks of ``surfaces_checks.js``
run inside the page. Not a test module itself.

A "column" is the box a block of the text has to fit in: the content box (inside the
padding) of the box it sits in, the narrowest among its ancestors up to the article (a
proof's or an exercise's inner section has padding of its own, a cell is narrower than its
table). Tables and display formulas are measured at their natural width (a table that a
scroll container clips still counts at its full width), so the check says whether the
chapter's design fits, not only whether the CSS safety net hides the overflow.
"""

import collections
import contextlib
import os
import time
from pathlib import Path

from browser_support import Visit, frame_file, shown_frame
from PIL import Image

from attention_display.interactive import PHONE_PANEL_HEIGHT
from chapters import BOOK

#: Viewports (CSS px) the book is checked at: a phone and a small laptop.
VIEWPORTS = {"phone": (390, 844), "desktop": (1280, 800)}

#: Where screenshots for a person to look at are written (not committed: under _build), when
#: ``BOOK_SCREENSHOTS=1`` asks for them: a full-page screenshot of a chapter takes longer than
#: every check of its page together (5-20 s at 1 280 px), and no test reads it.
SHOTS = BOOK / "_build" / "screenshots"

#: The checks, one object of functions evaluated in the page.
CHECKS = (Path(__file__).parent / "surfaces_checks.js").read_text(encoding="utf-8")

#: Sets the theme's colour mode before any of the page's scripts run (pydata-sphinx-theme
#: reads ``localStorage.mode`` in an inline script in <head>).
DARK_INIT = ("try { localStorage.setItem('mode', 'dark'); localStorage.setItem('theme', 'dark'); }"
             " catch (e) {}")

#: Relative luminance above which a background counts as light (the page in dark mode is
#: #121212, luminance 0,006; the theme's light output boxes were #ced6dd, luminance 0,66).
MAX_DARK_LUMINANCE = 0.2


class Stopwatch:
    """Seconds spent in each step over many page visits (printed by the fixtures that visit
    every page: where the time of the browser tests goes)."""

    def __init__(self):
        self.spent = collections.Counter()

    @contextlib.contextmanager
    def __call__(self, step):
        start = time.monotonic()
        try:
            yield
        finally:
            self.spent[step] += time.monotonic() - start

    def __str__(self):
        return ", ".join(f"{step} {seconds:.0f} s" for step, seconds in self.spent.most_common())


def run_check(page, name):
    """Run ``name`` of ``surfaces_checks.js`` in ``page``; return its result."""
    return page.evaluate(f"({CHECKS.strip()}).{name}()")


class BrowserWith:
    """A browser whose new contexts get extra options (viewport, colour scheme)."""

    def __init__(self, browser, **options):
        self._browser = browser
        self._options = options

    def new_context(self, **options):
        return self._browser.new_context(**self._options, **options)


def visit(browser, url, local_prefix, viewport="desktop", dark=False):
    """Open ``url`` at one of :data:`VIEWPORTS` (light or dark), wait for MathJax and fonts."""
    width, height = VIEWPORTS[viewport]
    sized = BrowserWith(browser, viewport={"width": width, "height": height},
                         color_scheme="dark" if dark else "light")
    page_visit = Visit(sized, url, local_prefix)
    if dark:
        page_visit.context.add_init_script(DARK_INIT)
    page_visit.open()
    page_visit.page.evaluate("document.fonts.ready.then(() => true)")
    page_visit.page.wait_for_timeout(300)  # the theme's debounced resize and tab-stop handlers
    return page_visit


def measure_layout(page):
    """Every layout problem of the page: a list of ``(kind, text)``, and the counts measured.

    Kinds: ``page`` (sideways scroll), ``sticks out``, ``table``, ``formula``, ``output``
    (a text output that does not wrap), ``figure`` (shown at less than 1/2,3 of its width).
    """
    result = run_check(page, "measureLayout")
    return [(p["kind"], p["text"]) for p in result["problems"]], result["counts"]


#: The tallest a slider's panel may be on a 390 x 844 phone: its sliders and the picture they
#: change visible together under the page's header (issue 22).
MAX_PHONE_PANEL = PHONE_PANEL_HEIGHT


def measure_explores(page, built_html):
    """Every slider panel of the page, each scrolled to so that its frame loads: ``[{where,
    height, shown (CSS px), pixels (of the frame's file)}]``."""
    panels = page.locator("article .ac-explore")
    for k in range(panels.count()):
        panels.nth(k).scroll_into_view_if_needed()
        shown_frame(panels.nth(k))
    found = run_check(page, "explores")
    for panel in found:
        with Image.open(frame_file(built_html, panel["src"])) as image:
            panel["pixels"] = image.size
    return found


def light_boxes(page):
    """Dark mode: tables, outputs, slider panels and admonitions on a light background."""
    return [f"{b['kind']} {b['where']} on rgb{tuple(b['rgb'])}"
            for b in run_check(page, "backgrounds") if b["luminance"] > MAX_DARK_LUMINANCE]


#: axe-core's options: every rule of its default set, and accessible names that contain the
#: visible text (an experimental rule, off by default); only violations are reported in full
#: (the passes of a chapter are thousands of nodes the tests do not read).
AXE_OPTIONS = {
    "resultTypes": ["violations"],
    "rules": {"label-content-name-mismatch": {"enabled": True}},
}


def axe_run(page, options=AXE_OPTIONS):
    """axe-core's response for the page as it is."""
    from axe_playwright_python.sync_playwright import Axe

    return Axe().run(page, options=options).response


def axe_violations(page, impacts=("serious", "critical")):
    """axe-core's violations of the given impacts: ``[(rule, impact, target, message)]``."""
    from axe_playwright_python.sync_playwright import Axe

    response = Axe().run(page).response
    found = []
    for violation in response["violations"]:
        if violation["impact"] not in impacts:
            continue
        for node in violation["nodes"]:
            checks = node.get("any") or node.get("all") or node.get("none") or [{}]
            found.append((violation["id"], violation["impact"],
                          " ".join(map(str, node["target"])), checks[0].get("message", "")[:200]))
    return found


def move_every_slider_to_its_end(page):
    """Move each slider away from its start value (as a reader would before printing)."""
    page.evaluate("""() => document.querySelectorAll('.ac-explore input[type=range]')
        .forEach(i => {
          i.value = i.max;
          i.dispatchEvent(new Event('input', {bubbles: true}));
        })""")


def print_problems(page):
    """Print the page as the browser's print dialog does (``beforeprint``, then print media)
    and return what is wrong on paper. Leaves the page in print media."""
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    page.emulate_media(media="print")
    return run_check(page, "printProblems")


def check_solutions_hidden(page):
    """Nothing of any solution (``div.solution``) shows until its toggle is opened, all of
    it shows after, and no code cell of a "Cvičení" section sits outside the exercises and
    solutions. Returns ``(problems, number of solutions, number of their code cells)``."""
    problems = [f"a code cell outside the exercises and solutions in {where}"
                for where in run_check(page, "looseCells")]
    before = run_check(page, "solutions")
    for s in before:
        name = f"solution {s['index'] + 1} ({s['title']!r})"
        if not s["collapsible"]:
            problems.append(f"{name} has no toggle (write it with :class: dropdown)")
        if s["visibleCount"]:
            problems.append(f"{name} shows {s['visibleCount']} things before it is opened: "
                            + "; ".join(s["visible"]))
    toggles = page.locator("article div.solution > .admonition-title .toggle-button")
    for k in range(toggles.count()):
        toggles.nth(k).click()
    page.wait_for_timeout(400)  # the toggle's fade-in
    for s, opened in zip(before, run_check(page, "solutions")):
        if s["collapsible"] and not opened["visibleCount"]:
            problems.append(f"solution {s['index'] + 1} ({s['title']!r}) shows nothing "
                            "after its toggle is opened")
    return problems, len(before), sum(s["code"] for s in before)


def screenshot(page, name, full_page=True):
    """With ``BOOK_SCREENSHOTS=1``, save a screenshot under :data:`SHOTS` for a person to
    look at and return its path; else do nothing (``None``)."""
    if os.environ.get("BOOK_SCREENSHOTS") != "1":
        return None
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = Path(SHOTS, name)
    page.screenshot(path=str(path), full_page=full_page)
    return path
