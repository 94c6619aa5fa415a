"""Layer 3: the strict build of the whole book succeeds with no warnings; its pages are Czech,
with unique ids and the English terms marked English."""

import collections
import html
import re
import sys

from chapters import BOOK, sphinx_warnings


def test_strict_build_has_no_warnings(strict_build):
    result, html = strict_build
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-6000:]
    warnings = sphinx_warnings(log)
    assert not warnings, "\n".join(warnings[:30])
    assert (html / "index.html").exists()


def test_pages_are_czech(built_html):
    for page in built_html.glob("*.html"):
        if page.name == "index.html":  # Jupyter Book's 58-byte redirect to intro.html
            continue
        assert '<html lang="cs"' in page.read_text(encoding="utf-8"), page.name


def test_ids_are_unique_on_every_page(built_html):
    """sphinx-exercise and sphinx-proof repeat fixed ids on a page; the book numbers them."""
    repeated = {}
    for page in built_html.glob("*.html"):
        ids = collections.Counter(re.findall(r'\sid="([^"]+)"', page.read_text(encoding="utf-8")))
        repeated.update({f"{page.name}: {name}": n for name, n in ids.items() if n > 1})
    assert not repeated, repeated


def test_english_terms_are_marked_english(built_html):
    """The glossary's English names, and the italics after "angl."/"anglicky" in the
    chapters, carry lang="en" (screen readers read them in English)."""
    sys.path.insert(0, str(BOOK / "_ext"))
    from english_terms import glossary_names

    names = glossary_names((BOOK / "glosar.md").read_text(encoding="utf-8"))
    glossary = (built_html / "glosar.html").read_text(encoding="utf-8")
    marked = {html.unescape(re.sub(r"<[^>]+>", "", m)).strip().lower()
              for m in re.findall(r'<em lang="en">(.*?)</em>', glossary, flags=re.S)}
    assert len(names) > 40 and names <= marked, sorted(names - marked)[:10]
    unmarked = []
    for page in built_html.glob("0*.html"):
        text = page.read_text(encoding="utf-8")
        unmarked += [f"{page.name}: {m}" for m in re.findall(
            r"(?:angl\.|anglicky)\s*<em>([^<]*)</em>", text)]
    assert not unmarked, unmarked
