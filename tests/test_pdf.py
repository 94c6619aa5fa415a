"""The whole-book PDF (issue 12, item 5): the README's command, run on the strictly built
book, writes ``_build/pdf/mechanismus-pozornosti.pdf`` with a title page, a table of
contents, every chapter with its figures and typeset formulas (no raw TeX), and the HTML
book then links to it. A few pages are rendered to PNG under
``book/_build/screenshots/pdf/`` for a person to look at (where pdftoppm is installed).
"""

import re
import shutil
import subprocess
import sys
import unicodedata

import pytest
from browser_support import chapter_pages

from chapters import BOOK, ROOT, chapter_paths

sys.path.insert(0, str(BOOK / "_ext"))
from book_pdf import (  # noqa: E402
    LINK_TEXT,
    PDF_NAME,
    PRINTED_SOLUTIONS,
    PRINTED_WITHOUT_PDF,
)

pytestmark = [pytest.mark.browser, pytest.mark.build]

#: TeX that must never reach the page as text (MathJax typesets every formula).
RAW_TEX = [r"\frac", r"\color", r"\sqrt{", r"\cdot", r"\begin{", r"\mathrm", r"\sum_", "$$",
           r"\(", r"\dotaz", r"\klic", r"\vaha", r"\hodnota", r"\skore", r"\vystup"]


@pytest.fixture(scope="module")
def pdf(built_html):
    """Run the README's PDF command on the strictly built book (its chapters are not
    executed again: the single-page build reuses the build's doctrees)."""
    from conftest import require_browser

    require_browser()
    book = built_html.parent.parent
    result = subprocess.run([sys.executable, str(book / "_ext" / "book_pdf.py"), str(book)],
                            capture_output=True, text=True, cwd=ROOT, timeout=1800)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    path = book / "_build" / "pdf" / PDF_NAME
    assert path.is_file(), f"no PDF at {path}"
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    texts = [page.extract_text() or "" for page in reader.pages]
    print(f"PDF: {len(reader.pages)} pages, {path.stat().st_size / 1e6:.2f} MB")
    _render_for_a_person(path)
    return {"path": path, "reader": reader, "texts": texts, "book": book, "html": built_html}


def _render_for_a_person(path):
    if not shutil.which("pdftoppm"):
        return
    out = BOOK / "_build" / "screenshots" / "pdf"
    out.mkdir(parents=True, exist_ok=True)
    for first, last in ((1, 3), (6, 7)):
        subprocess.run(["pdftoppm", "-r", "60", "-png", "-f", str(first), "-l", str(last),
                        str(path), str(out / "page")], check=False)


def _flat(text):
    """Text for comparing: ligatures undone (ﬁ → fi), whitespace collapsed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def _bookmark(text):
    """A bookmark's title for comparing: without the chapter's number and without spaces
    (Chromium joins the lines of a wrapped heading without one)."""
    return re.sub(r"\s+", "", re.sub(r"^\s*\d+\.\s*", "", _flat(text)))


def chapter_titles():
    titles = []
    for path in chapter_paths():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                titles.append(line[2:].strip())
                break
    return titles


def test_pdf_has_a_title_page_and_contents(pdf):
    title = _flat(pdf["texts"][0])
    assert "Mechanismus pozornosti" in title, title
    contents = _flat(" ".join(pdf["texts"][1:4]))
    assert "Obsah" in contents
    for chapter in chapter_titles():
        assert _flat(chapter) in contents, f"{chapter!r} is not in the contents"
    # every entry of the contents has a page number
    assert re.search(r"Úvod\s*\d+", contents), contents[:300]


def test_pdf_has_every_chapter_with_a_bookmark(pdf):
    text = _flat(" ".join(pdf["texts"][3:]))
    outline = [item.title for item in pdf["reader"].outline if not isinstance(item, list)]
    for chapter in chapter_titles():
        assert _flat(chapter) in text, f"chapter {chapter!r} is not in the PDF"
        assert _bookmark(chapter) in map(_bookmark, outline), (
            f"{chapter!r} has no bookmark: {outline}")


def test_pdf_has_the_figures(pdf):
    """At least as many images as the chapters show figures in light mode (cell outputs and
    sliders; a figure's dark-mode picture is not printed)."""
    shown = 0
    for name in chapter_pages(pdf["html"]):
        html = (pdf["html"] / name).read_text(encoding="utf-8")
        shown += len(re.findall(r'<img[^>]+src="(?:data:image|_images/)', html))
        shown -= html.count('class="ac-picture ac-dark"')
    images = sum(len(page.images) for page in pdf["reader"].pages)
    assert shown > 0
    assert images >= shown, f"{images} images in the PDF, {shown} figures in the chapters"


def test_pdf_numbers_the_figures_as_the_html_book(pdf):
    """Every „Obrázek N.M“ under a figure of the HTML book is in the PDF too (the single
    page it is printed from has the same numbers; print hides only the download links)."""
    text = _flat(" ".join(pdf["texts"]))
    numbers = []
    for name in chapter_pages(pdf["html"]):
        html = (pdf["html"] / name).read_text(encoding="utf-8")
        numbers += re.findall(r'class="ac-figure-number">Obrázek&nbsp;([0-9A-Z]+\.\d+)<', html)
    assert numbers
    missing = [number for number in numbers if f"Obrázek {number}" not in text]
    assert not missing, f"figure numbers not in the PDF: {missing}"


def test_pdf_has_typeset_formulas_and_no_raw_tex(pdf):
    text = " ".join(pdf["texts"])
    left = {raw: text.count(raw) for raw in RAW_TEX if raw in text}
    assert not left, f"raw TeX in the PDF: {left}"
    # MathJax's glyphs are embedded as Type 3 fonts (the text is in DejaVu, Type 0); the
    # command itself fails when a formula is not typeset or has a MathJax error
    type3 = 0
    for page in pdf["reader"].pages[3:12]:
        for font in (page.get("/Resources", {}).get("/Font", {}) or {}).values():
            type3 += font.get_object().get("/Subtype") == "/Type3"
    assert type3 > 0, "no typeset formula (MathJax glyphs) on pages 4-12"


def test_pdf_size_and_pages_are_reasonable(pdf):
    size = pdf["path"].stat().st_size
    pages = len(pdf["reader"].pages)
    # ten chapters, the appendix, seven pages and every solution: about 400 pages today
    assert 20 <= pages <= 600, pages
    assert size < 30e6, f"{size / 1e6:.1f} MB"


def test_the_html_book_links_to_the_pdf(pdf):
    html = pdf["html"]
    assert (html / PDF_NAME).is_file(), "the PDF was not copied into the HTML book"
    for name in chapter_pages(html):
        text = (html / name).read_text(encoding="utf-8")
        assert f'href="{PDF_NAME}"' in text and LINK_TEXT in text, f"{name} has no PDF link"


def test_the_printed_exercises_point_to_the_pdf(pdf):
    """Once the PDF exists, a printed chapter says its solutions are in the PDF (built
    without it, the sentence says they are on screen)."""
    html = pdf["html"]
    for name in chapter_pages(html):
        # the build's Czech typography binds a one-letter word to the next ("v\u00a0PDF")
        text = (html / name).read_text(encoding="utf-8").replace("\u00a0", " ")
        if "ac-print-only" in text:
            assert PRINTED_SOLUTIONS in text and PRINTED_WITHOUT_PDF not in text, name
