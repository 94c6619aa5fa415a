"""The book where its readers are (issue 12): on a phone (390 × 844), on a desktop
(1 280 × 800), in dark mode and on paper, in headless Chromium with the network blocked.

On every page at both widths: no sideways page scroll; no table and no display formula
wider than its column (measured at their natural width, so a table that scrolls inside its
box still counts: the chapters are designed to fit, the CSS only keeps the page whole); text
outputs wrap; no figure shown at less than 1/2,3 of its pixel width; every slider frame shown
at exactly 2 pixels per CSS pixel, and every slider panel at most 760 px tall on the phone;
no formula a tab stop of MathJax's, Czech text in formulas in the text's font, a formula's
phone line breaks only where its column needs them; at the desktop width, in light mode, no
serious or critical axe-core violation (issue 11; run in the same visit as the layout
checks, so that each page is loaded once per width and mode). In dark mode: no table,
output, slider panel or admonition on a light background, and no serious or critical
axe-core violation. In print: no code toggles, no slider controls (the figure and readout at
the slider's start value stay, on one page), no solutions inside the chapter, no line cut at
the right edge.

With ``BOOK_SCREENSHOTS=1``, screenshots for a person to look at go to
``book/_build/screenshots/`` (not committed): every chapter in full at both widths in light
and dark mode, and as printed. They are off by default: no test reads them, and a chapter's
full-page screenshot took longer than all the checks of its page.
"""

import collections
import re

import pytest
from browser_support import Visit, chapter_pages, pages
from surfaces_support import (
    AXE_OPTIONS,
    MAX_PHONE_PANEL,
    VIEWPORTS,
    BrowserWith,
    Stopwatch,
    axe_run,
    axe_violations,
    light_boxes,
    measure_explores,
    measure_layout,
    move_every_slider_to_its_end,
    print_problems,
    run_check,
    screenshot,
    visit,
)

pytestmark = pytest.mark.browser


def _shot_name(viewport, mode, name):
    return f"{viewport}-{mode}-{name.removesuffix('.html')}.png"


@pytest.fixture(scope="module")
def layout(built_html, site, browser):
    """Every page at both widths: its layout problems by kind, and what was measured; at
    the desktop width, in the same visit, axe-core's serious and critical violations in
    light mode (``found["axe"]``: {page: violations}), after MathJax has typeset the
    formulas and the sliders' first frames have loaded."""
    found = collections.defaultdict(list)
    found["axe"] = {}
    measured = collections.Counter()
    chapters = set(chapter_pages(built_html))
    spent = Stopwatch()
    for viewport in VIEWPORTS:
        for name in pages(built_html):
            with spent("page load, MathJax"):
                page_visit = visit(browser, site + name, site, viewport)
            page = page_visit.page
            with spent("layout checks"):
                problems, counts = measure_layout(page)
                for kind, text in problems:
                    found[kind].append(f"{viewport} {name}: {text}")
                measured.update({f"{viewport} {k}": v for k, v in counts.items()})
                for panel in measure_explores(page, built_html):
                    found["panels"].append((viewport, name, panel))
                found["formulas"].append((viewport, name, run_check(page, "formulas")))
            if viewport == "desktop":
                with spent("axe"):
                    found["axe"][name] = light_axe(page)
            if name in chapters or name == "intro.html":
                with spent("screenshots"):
                    screenshot(page, _shot_name(viewport, "light", name))
            page_visit.close()
    print("measured:", dict(measured))
    print(f"every page light at both widths: {spent}")
    return found


def light_axe(page):
    """axe-core on the page in light mode, scrolled to its top as a reader opens it: the
    violations of impact serious or critical."""
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_function(
        "() => [...document.querySelectorAll('img')]"
        ".every(i => i.complete || i.loading === 'lazy')")  # dark-mode pictures load lazily
    return [v for v in axe_run(page, AXE_OPTIONS)["violations"]
            if v["impact"] in ("serious", "critical")]


def describe(report, keep):
    lines = []
    for name, violations in sorted(report.items()):
        for v in violations:
            if keep(v):
                targets = [" ".join(map(str, n["target"])) for n in v["nodes"][:4]]
                lines.append(f"{name}: {v['id']} ({v['impact']}, {len(v['nodes'])} nodes): "
                             f"{v['help']} — {targets}")
    return lines


def test_axe_no_serious_violations(layout):
    """axe-core in light mode on every page (issue 11): no violation of impact serious or
    critical other than colour contrast (the next test)."""
    lines = describe(layout["axe"], lambda v: v["id"] != "color-contrast")
    assert layout["axe"], "axe-core ran on no page"
    assert not lines, "\n".join(lines)


def test_axe_colour_contrast(layout):
    """Text (formula symbols, table headers, figure labels) at contrast >= 4.5:1."""
    lines = describe(layout["axe"], lambda v: v["id"] == "color-contrast")
    assert not lines, "\n".join(lines)


def test_no_page_scrolls_sideways(layout):
    problems = layout["page"] + layout["sticks out"]
    assert not problems, "\n".join(problems)


def test_tables_fit_their_column(layout):
    """No table wider than its column; no number wrapped inside a cell."""
    assert not layout["table"], f"{len(layout['table'])} tables:\n" + "\n".join(layout["table"])


def test_toggle_titles_leave_room_for_their_hint(layout):
    assert not layout["title"], "\n".join(layout["title"])


def test_display_formulas_fit_their_column(layout):
    assert not layout["formula"], (f"{len(layout['formula'])} formulas:\n"
                                   + "\n".join(layout["formula"]))


def test_text_outputs_wrap_inside_the_column(layout):
    assert not layout["output"], "\n".join(layout["output"])


def test_figures_are_shown_at_a_readable_size(layout):
    """A figure shown at less than 1/2,3 of its pixel width has text below ~9 CSS px.

    The narrow figure layouts come from attention_core's figures and sliders (issue 12,
    item 1); until they land this test reports every figure that is too small.
    """
    assert not layout["figure"], (f"{len(layout['figure'])} figures:\n"
                                  + "\n".join(layout["figure"]))


def test_slider_frames_are_sharp_and_panels_fit_a_phone(layout):
    """2 image pixels per CSS pixel shown (no frame scaled by the browser), at 390 and
    1 280 px; on the phone every panel at most MAX_PHONE_PANEL tall."""
    problems, rows = [], []
    for viewport, name, panel in layout["panels"]:
        (width, height), (shown_w, shown_h) = panel["pixels"], panel["shown"]
        where = f"{viewport} {name} {panel['where']}"
        if abs(width - 2 * shown_w) > 0.5 or abs(height - 2 * shown_h) > 0.5:
            problems.append(f"{where}: a frame of {width} x {height} px shown at "
                            f"{shown_w:.1f} x {shown_h:.1f} CSS px (not 2x)")
        if viewport == "phone" and panel["height"] > MAX_PHONE_PANEL:
            problems.append(f"{where}: the panel is {panel['height']:.0f} px tall "
                            f"(at most {MAX_PHONE_PANEL} on a 390 x 844 phone)")
        rows.append(f"{where}: {width / shown_w:.2f} px per CSS px, panel "
                    f"{panel['height']:.0f} px")
    print("\nslider panels:\n  " + "\n  ".join(rows))
    assert rows, "no slider panel measured"
    assert not problems, "\n".join(problems)


def test_formulas_are_no_tab_stops_and_speak_czech_in_the_texts_font(layout):
    problems, tab_stops = [], 0
    for viewport, name, found in layout["formulas"]:
        tab_stops += found["tabStops"]
        if found["tabStops"]:
            problems.append(f"{viewport} {name}: {found['tabStops']} tab stops in formulas")
        problems += [f"{viewport} {name}: Czech text in a formula in another font: {f}"
                     for f in found["fonts"]]
        if viewport == "desktop":  # the chapters' phone breaks are not needed at 1 280 px
            problems += [f"{viewport} {name}: formula {k + 1} keeps its phone line breaks"
                         for k, b in enumerate(found["breakable"]) if not b["fits"]]
    print(f"MathJax tab stops on all pages at both widths: {tab_stops}")
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def dark(built_html, site, browser):
    """Every page in dark mode: light boxes at both widths, axe-core at the desktop width."""
    found = {"light": [], "axe": []}
    chapters = set(chapter_pages(built_html))
    spent = Stopwatch()
    for viewport in VIEWPORTS:
        for name in pages(built_html):
            with spent("page load, MathJax"):
                page_visit = visit(browser, site + name, site, viewport, dark=True)
            page = page_visit.page
            with spent("backgrounds"):
                if page.evaluate("document.documentElement.dataset.theme") != "dark":
                    found["light"].append(f"{viewport} {name}: the theme did not switch to dark")
                found["light"] += [f"{viewport} {name}: {box}" for box in light_boxes(page)]
            if viewport == "desktop":
                with spent("axe"):
                    found["axe"] += [f"{name}: {rule} ({impact}) at {target}: {message}"
                                     for rule, impact, target, message in axe_violations(page)]
            if name in chapters:
                with spent("screenshots"):
                    screenshot(page, _shot_name(viewport, "dark", name))
            page_visit.close()
    print(f"every page dark at both widths: {spent}")
    return found


def test_dark_mode_puts_no_light_box_on_the_page(dark):
    """Tables, outputs, slider panels and admonitions follow the theme's dark background."""
    assert not dark["light"], "\n".join(dark["light"])


def test_dark_mode_has_no_serious_accessibility_violation(dark):
    """axe-core in dark mode: no violation of impact serious or critical (text contrast
    of at least 4,5:1 on the dark background included)."""
    assert not dark["axe"], f"{len(dark['axe'])} violations:\n" + "\n".join(dark["axe"])


def test_chapters_print_without_controls_toggles_or_solutions(built_html, site, browser):
    """Each chapter as printed from the browser, after its sliders were moved."""
    problems = []
    for name in chapter_pages(built_html):
        page_visit = visit(browser, site + name, site, "desktop")
        move_every_slider_to_its_end(page_visit.page)
        problems += [f"{name}: {p}" for p in print_problems(page_visit.page)]
        screenshot(page_visit.page, _shot_name("print", "light", name))
        page_visit.page.evaluate("window.dispatchEvent(new Event('afterprint'))")
        page_visit.close()
    assert not problems, "\n".join(problems)


def test_a_page_in_dark_mode_prints_dark_text_on_white(built_html, site, browser):
    name = chapter_pages(built_html)[0]
    page_visit = visit(browser, site + name, site, "desktop", dark=True)
    problems = print_problems(page_visit.page)
    colours = page_visit.page.evaluate("""() => {
        const p = document.querySelector('article p');
        return [document.documentElement.dataset.theme, getComputedStyle(p).color,
                getComputedStyle(document.body).backgroundColor];
    }""")
    screenshot(page_visit.page, _shot_name("print", "dark", name), full_page=False)
    page_visit.close()
    assert not problems, "\n".join(problems)
    theme, text, _ = colours
    channels = [int(c) for c in re.findall(r"\d+", text)[:3]]
    assert theme == "light" and max(channels) < 100, colours


def test_the_colour_mode_follows_the_system_and_its_button_says_which(site, browser):
    """With nothing chosen yet, the page takes the system's preference (before it is drawn:
    no light page first); the mode button's name says the mode, and changes with a click."""
    problems = []
    for scheme, word in (("dark", "tmavý"), ("light", "světlý")):
        page_visit = Visit(BrowserWith(browser, color_scheme=scheme), site + "intro.html",
                           site).open()
        page = page_visit.page
        theme = page.evaluate("document.documentElement.dataset.theme")
        button = page.locator(".theme-switch-button").first
        label = button.get_attribute("aria-label")
        if theme != scheme:
            problems.append(f"system {scheme}: the page is {theme}")
        if label != f"Barevný režim: podle systému ({word})":
            problems.append(f"system {scheme}: the button says {label!r}")
        button.click()
        mode = page.evaluate("document.documentElement.dataset.mode")
        after = button.get_attribute("aria-label")
        wanted = {"light": "Barevný režim: světlý", "dark": "Barevný režim: tmavý"}.get(mode)
        if after != wanted or button.get_attribute("data-bs-title") != wanted:
            problems.append(f"after a click (mode {mode}) the button says {after!r}")
        problems += page_visit.problems
        page_visit.close()
    assert not problems, "\n".join(problems)
