"""Layer 4: the built HTML book in a real headless Chromium, with the network blocked.

Every page is served from 127.0.0.1 (and, more briefly, opened from file://); any request
that leaves the machine is blocked and counts as a failure. Checked on every page: no
console error, no failed request, rendered math (MathJax output, no raw ``$$``, the
``\\color`` of the formulas applied), Czech alt text on every figure. On every chapter page:
every kernel-free slider, moved with the keyboard, shows a new non-blank image with the
right readout; the ``.ipynb`` download is a valid notebook. Each chapter's first load, with
an empty cache, transfers at most 1,0 MB at 390 px and 1,6 MB at 1 280 px (gzip-counted).
"""

import re

import pytest
from browser_support import (
    MAX_TRANSFER,
    Visit,
    chapter_pages,
    check_alt_texts,
    check_math,
    check_notebook_link,
    move_sliders,
    pages,
    shown_frame,
    transfer,
)
from surfaces_support import VIEWPORTS

from chapters import chapter_paths

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served_report(built_html, site, browser):
    """Every page opened once over http; what went wrong, by kind of check."""
    report = {"load": [], "math": [], "alt": [], "sliders": [], "notebook": [], "moved": 0}
    chapters = chapter_pages(built_html)
    for name in pages(built_html):
        visit = Visit(browser, site + name, site).open()
        text = (built_html / name).read_text(encoding="utf-8")
        report["math"] += [f"{name}: {p}" for p in check_math(visit.page, text)]
        report["alt"] += [f"{name}: {p}" for p in check_alt_texts(visit.page)]
        if name in chapters:
            found, moved = move_sliders(visit.page, built_html)
            report["moved"] += moved
            report["sliders"] += [f"{name}: {p}" for p in found]
            report["notebook"] += [f"{name}: {p}" for p in check_notebook_link(visit, site, name)]
        report["load"] += [f"{name}: {p}" for p in visit.problems]  # last: includes the moves
        visit.close()
    return report


def test_pages_load_with_no_error_and_nothing_from_the_network(served_report):
    assert not served_report["load"], "\n".join(served_report["load"])


def test_math_is_rendered_by_the_books_own_mathjax(served_report):
    assert not served_report["math"], "\n".join(served_report["math"])


def test_figures_have_czech_alt_text(served_report):
    assert not served_report["alt"], "\n".join(served_report["alt"])


def test_every_slider_moves_by_keyboard(served_report):
    assert not served_report["sliders"], "\n".join(served_report["sliders"])
    sources = " ".join(p.read_text(encoding="utf-8") for p in chapter_paths() if p.exists())
    if "explore(" in sources:
        assert served_report["moved"] > 0, "the chapters call explore(...), but no page has one"


def test_each_chapter_offers_its_notebook(served_report):
    assert not served_report["notebook"], "\n".join(served_report["notebook"])


def test_pages_work_from_the_folder_offline(built_html, browser):
    """Opened as files (no server, no network): math renders, the first slider shows a new
    frame, loaded from the folder."""
    problems = []
    prefix = built_html.resolve().as_uri() + "/"
    for name in ["intro.html", *chapter_pages(built_html)]:
        visit = Visit(browser, prefix + name, prefix).open()
        found = check_math(visit.page, (built_html / name).read_text(encoding="utf-8"))
        if visit.page.locator(".ac-explore").count():
            root = visit.page.locator(".ac-explore").first
            root.scroll_into_view_if_needed()
            before = shown_frame(root)["src"]
            slider = root.locator("input[type=range]").first
            slider.focus()
            slider.press("End" if slider.input_value() != slider.get_attribute("max") else "Home")
            if shown_frame(root)["src"] == before:
                found.append("the first slider did not change the image")
        found += visit.problems
        visit.close()
        problems += [f"{name}: {p}" for p in found]
    assert not problems, "\n".join(problems)


def test_chapters_load_at_most_1_mb_on_a_phone_and_1_6_mb_on_a_desktop(built_html, site,
                                                                        browser):
    """Every response of a chapter's first load (empty cache) as a gzip host sends it:
    HTML, scripts, styles, fonts and the pictures the browser fetches (the frame a slider
    shows, the figures near the top; the rest load when scrolled to)."""
    over, rows = [], []
    for name in chapter_pages(built_html):
        sizes = {}
        for viewport, (width, height) in VIEWPORTS.items():
            total, responses = transfer(browser, site + name, width, height)
            sizes[viewport] = total
            if total > MAX_TRANSFER[viewport]:
                top = ", ".join(f"{url.removeprefix(site)} {size / 1e3:.0f} kB"
                                for size, url in responses[:6])
                over.append(f"{name} at {width} px: {total / 1e6:.2f} MB ({top})")
        rows.append(f"{name}: {sizes['phone'] / 1e6:.2f} MB at 390 px, "
                    f"{sizes['desktop'] / 1e6:.2f} MB at 1 280 px")
    print("\nfirst load, gzip-counted:\n  " + "\n  ".join(rows))
    assert not over, "\n".join(over)


def test_offline_mathjax_is_in_the_book(built_html):
    """MathJax comes from the book's own folder; no page points at a CDN."""
    assert (built_html / "_static" / "mathjax" / "tex-chtml.js").is_file()
    for name in pages(built_html):
        text = (built_html / name).read_text(encoding="utf-8")
        scripts = re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?://[^"]+)"', text)
        assert not scripts, f"{name} loads {scripts}"
        assert "THEBE_JS_URL" not in text or text.count("const THEBE_JS_URL") == 1, name
