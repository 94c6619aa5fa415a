"""Layer 4: the built HTML book in a real headless Chromium, with the network blocked.

Every page is served from 127.0.0.1 (and, more briefly, opened from file://); any request
that leaves the machine is blocked and counts as a failure. Checked on every page: no
console error, no failed request, rendered math (MathJax output, no raw ``$$``, the
``\\color`` of the formulas applied), Czech alt text on every figure. On every chapter page:
every kernel-free slider, moved with the keyboard, shows a new non-blank image with the
right readout; the ``.ipynb`` download is a valid notebook; the page weighs < 3 MB.
"""

import re
from urllib.parse import urlparse

import pytest
from browser_support import (
    MAX_PAGE_BYTES,
    Visit,
    chapter_pages,
    check_alt_texts,
    check_math,
    check_notebook_link,
    move_sliders,
    pages,
)

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
            found, moved = move_sliders(visit.page)
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
    """Opened as files (no server, no network): math renders, the first slider works."""
    problems = []
    prefix = built_html.resolve().as_uri() + "/"
    for name in ["intro.html", *chapter_pages(built_html)]:
        visit = Visit(browser, prefix + name, prefix).open()
        found = check_math(visit.page, (built_html / name).read_text(encoding="utf-8"))
        if visit.page.locator(".ac-explore").count():
            before = visit.page.locator("img.ac-frame").first.get_attribute("src")
            slider = visit.page.locator("input[type=range]").first
            slider.focus()
            slider.press("End" if slider.input_value() != slider.get_attribute("max") else "Home")
            if visit.page.locator("img.ac-frame").first.get_attribute("src") == before:
                found.append("the first slider did not change the image")
        found += visit.problems
        visit.close()
        problems += [f"{name}: {p}" for p in found]
    assert not problems, "\n".join(problems)


def page_weight(built_html, name):
    """Bytes of a page's HTML plus the local images it links."""
    text = (built_html / name).read_text(encoding="utf-8")
    total = len(text.encode("utf-8"))
    for src in set(re.findall(r'<img[^>]+src="([^"]+)"', text)):
        path = urlparse(src).path
        if not src.startswith("data:") and (built_html / path).is_file():
            total += (built_html / path).stat().st_size
    return total


def test_chapter_pages_stay_under_3_mb(built_html):
    weights = {name: page_weight(built_html, name) for name in chapter_pages(built_html)}
    heavy = {n: w for n, w in weights.items() if w >= MAX_PAGE_BYTES}
    assert not heavy, f"pages over {MAX_PAGE_BYTES} bytes: {heavy}"
    if weights:
        largest = max(weights, key=weights.get)
        print(f"largest chapter page: {largest}, {weights[largest] / 1e6:.2f} MB")


def test_offline_mathjax_is_in_the_book(built_html):
    """MathJax comes from the book's own folder; no page points at a CDN."""
    assert (built_html / "_static" / "mathjax" / "tex-chtml.js").is_file()
    for name in pages(built_html):
        text = (built_html / name).read_text(encoding="utf-8")
        scripts = re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?://[^"]+)"', text)
        assert not scripts, f"{name} loads {scripts}"
        assert "THEBE_JS_URL" not in text or text.count("const THEBE_JS_URL") == 1, name
