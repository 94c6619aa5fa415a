"""Shared by the Czech tests: the prose of a built page, where a line may break in it against
Czech typography, Czech word stems, and a small Sphinx project built with the book's
extension. Not a test module itself."""

import re
import sys
import unicodedata
from pathlib import Path

from bs4 import BeautifulSoup

from chapters import BOOK

sys.path.insert(0, str(BOOK / "_ext"))

#: Separator put between the strings of a page's prose: neither a space nor a word character,
#: so that two strings never glue into one word and no space is invented.
SEPARATOR = "\u2063"

#: Elements of a page's article that are not prose: code, math, outputs of code cells,
#: scripts, the permalink signs.
NOT_PROSE = (
    "pre, code, script, style, .math, mjx-container, .cell_input, .cell_output, .highlight, "
    "img, svg, .headerlink, .toggle-button, .ac-explore"
)

ONE_LETTER = "ksvzouaiKSVZOUAI"
_BOUNDARY = r"(?:(?<=[\s(\[{„‚–—" + SEPARATOR + r"])|^)"

#: Places where a line may break against ČSN 01 6910, by kind.
BREAKS = {
    "one-letter word": re.compile(_BOUNDARY + f"[{ONE_LETTER}][ \\t\\r\\n]"),
    "thousands group": re.compile(r"(?<![\d,.])\d{1,3}(?: \d{3})+(?!\d)"),
    "number and unit": re.compile(r"\d[ \t\r\n]+(?:%|ms|s|nat|natů|MB|kB|GB|px)(?!\w)"),
}


def article_prose(html_text):
    """The prose of a built page: its article without code, math and cell outputs, with
    ``SEPARATOR`` between the strings of different elements."""
    soup = BeautifulSoup(html_text, "html.parser")
    article = soup.select_one("article.bd-article") or soup.select_one("main") or soup.body
    if article is None:  # Jupyter Book's index.html: a redirect
        return ""
    for element in article.select(NOT_PROSE):
        element.decompose()
    return article.get_text(SEPARATOR)


def breakable_spaces(html_text):
    """{kind: [the places, with some context]} of the breaks Czech typography forbids."""
    prose = article_prose(html_text)
    found = {}
    for kind, pattern in BREAKS.items():
        found[kind] = [prose[max(0, m.start() - 25):m.end() + 15].replace(SEPARATOR, "")
                       for m in pattern.finditer(prose)]
    return found


def fold(word):
    """The word without diacritics: ``fold("klíče") == "klice"``."""
    decomposed = unicodedata.normalize("NFD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text):
    return re.findall(r"\w+", text)


def strip_html_fast(html_text):
    """Drop the embedded images (data: URLs) of a page before parsing it: much faster."""
    return re.sub(r'data:[a-z/+]+;base64,[A-Za-z0-9+/=]+', "data:", html_text)


def project_root():
    return Path(__file__).resolve().parents[1]
