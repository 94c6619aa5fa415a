"""Search that understands Czech: the book's own search language for Sphinx.

Sphinx 7.4 has no Czech search language and falls back to English stemming, so "klíče" and
"klíč" were different words to it and "klic" found nothing. Here:

- **Index.** Every word of a page is reduced to its stem by the Snowball Czech stemmer (it
  ships in ``snowballstemmer`` 3, installed with Sphinx) and then stripped of diacritics:
  "klíč", "klíče", "klíčům" are all indexed as ``klic``. Czech stop words (a, se, že, ...)
  and plain numbers are left out. TeX commands in formulas (``\\frac``, ``\\skore``) are not
  words of the text and are not indexed.
- **Query.** The browser must reduce a query word the same way. It has no Czech Snowball
  stemmer, so the build writes the reduction table itself: every word form the index saw
  (and the same form without diacritics) with the index term the Python stemmer gave it
  (``_static/czech_search_data.js``). Both sides agree by construction on every word of the
  book; a form the book does not use is stripped of the longest ending the book's forms
  have, if what remains is a term of the index (``klíčům`` -> ``klic``), so diacritics are
  optional either way.
- **Results.** The search page (template ``search.html``) shows each page once, with a
  snippet around the first word that matched and that word highlighted, and says in Czech
  how many pages it found ("Nalezeny 3 stránky"). The snippets come from the same data file
  (the text of every page, formulas written as plain text, code left out; read in one
  pass with the standard library's HTML parser), not from
  fetching the pages: that works from a local folder (``file://``) too, where fetching is
  blocked.
"""

import json
import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import snowballstemmer
from sphinx.search import SearchLanguage
from sphinx.util import logging

logger = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
TEMPLATES = Path(__file__).parent / "templates" / "search"

#: Czech function words that carry no meaning for a search (with and without diacritics).
STOPWORDS = """
a aby aj ale ani aniž ano asi až bez bude budem budeme budete budou budu by byl byla byli
bylo byly bys být co či článek do ho i jak jaká jaké jakmile jako jakož jaký je jeho jej její
jejich jemu jen jenž jestli jestliže ještě ji jí jich jím jimi jinak již jsem jseš jsi jsme
jsou jste k kam kde kdo kdy když ke která které kterou který kteří ku ma má mají mé mě mezi
mi mít mne mně mnou mu můj my na nad nám námi nás náš naše ne nebo nebyl nebyla nebyli
nebylo nechť nejsou než nic nich ním o od on ona oni ono onu pak po pod podle pokud pro proč
proto protože před přes při s se si sice svá své svůj svých svým svými ta tak také takže tam
tato té tedy ten tento teto ti tím tím to tohle toho tohoto tom tomto tomu toto tu tuto ty
tyto u už v vám vás váš vaše ve však všech všechno všichni vy z za zda zde ze že
"""


def fold(word):
    """``word`` without diacritics: ``fold("klíče") == "klice"``."""
    decomposed = unicodedata.normalize("NFD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


#: A TeX command in a formula: its name is not a word of the text.
TEX_COMMAND = re.compile(r"\\(?:u[0-9a-fA-F]{4}|[A-Za-z]+)")


def keep_in(word, stem):
    """The Snowball stem of ``word`` with an "-in" its possessive step took off put back.

    The step is for possessives ("matčin" -> "matč"); in this book it cut roots instead:
    "součin" -> "souč", a prefix of "součet"'s "součt", so that a search for the one found
    the other (the search matches parts of terms too), and "jediný" -> "jed".
    """
    if word.startswith(stem) and word[len(stem):].startswith("in"):
        return stem + "in"
    return stem


class SearchCzech(SearchLanguage):
    """Czech: Snowball stems without diacritics, Czech stop words."""

    lang = "cs"
    language_name = "Czech"
    stopwords = {form for word in STOPWORDS.split() for form in (word, fold(word))}
    # language_data.js: the query's words go through the table in czech_search_data.js
    js_stemmer_code = """
/* Czech: the book's own reduction (book/_ext/czech_search.py, static/czech_search.js). */
var Stemmer = function() {
  this.stemWord = function(word) {
    return (typeof CzechSearch !== "undefined") ? CzechSearch.stem(word) : word;
  };
};
"""

    def init(self, options):
        self.stemmer = snowballstemmer.stemmer("czech")
        #: every lower-case word form seen by the index -> its index term
        self.forms = {}
        self.stop_terms = {self._reduce(word) for word in STOPWORDS.split()}

    def split(self, text):
        return self._word_re.findall(TEX_COMMAND.sub(" ", text))

    def _reduce(self, lower):
        return fold(keep_in(lower, self.stemmer.stemWord(lower)))

    def stem(self, word):
        lower = word.lower()
        term = self.forms.get(lower)
        if term is None:
            term = self.forms[lower] = self._reduce(lower)
        return term

    def word_filter(self, word):
        folded = fold(word.lower())
        return bool(folded) and not folded.isdigit() and folded not in self.stopwords \
            and folded not in self.stop_terms


# --- the data the browser needs: the reduction table and the text of every page ----------------

FORMS_FILE = "czech_search_forms.json"


def reduction_table(forms, terms):
    """{query form: index term} for the browser: for each form the book uses whose term is in
    the index, its form without diacritics; the form itself only where two forms with
    different terms lose their diacritics to the same letters."""
    by_key = {}
    for form, term in forms.items():
        if term in terms:
            by_key.setdefault(fold(form), {})[form] = term
    table = {}
    for key, variants in sorted(by_key.items()):
        if len(set(variants.values())) == 1:
            term = next(iter(variants.values()))
            if term != key:
                table[key] = term
            continue
        for form, term in variants.items():
            table[form] = term
        table[key] = variants.get(key, variants[min(variants)])
    return table


def endings(forms, terms):
    """The endings the stemmer took off the book's forms (without diacritics), shortest
    first: the browser keeps the longest stem of the index that a word it does not know
    begins with ("součinech" -> "soucin", not "souc")."""
    found = set()
    for form, term in forms.items():
        key = fold(form)
        if term in terms and key.startswith(term) and len(key) > len(term):
            found.add(key[len(term):])
    return sorted(found, key=lambda e: (len(e), e))


_GREEK = dict(zip(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu "
    "xi pi rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma "
    "Phi Psi Omega".split(),
    "αβγδεεζηθϑικλμνξπρστυφφχψωΓΔΘΛΞΠΣΦΨΩ"))
_SYMBOLS = {
    "cdot": "·", "times": "×", "top": "ᵀ", "sum": "∑", "prod": "∏", "le": "≤", "leq": "≤",
    "ge": "≥", "geq": "≥", "neq": "≠", "ne": "≠", "approx": "≈", "sim": "∼", "in": "∈",
    "to": "→", "rightarrow": "→", "mapsto": "↦", "infty": "∞", "partial": "∂", "nabla": "∇",
    "ldots": "…", "dots": "…", "cdots": "⋯", "pm": "±", "mp": "∓", "propto": "∝",
    "quad": " ", "qquad": " ", "lvert": "|", "rvert": "|", "lVert": "‖", "rVert": "‖",
    "langle": "⟨", "rangle": "⟩", "cdotp": "·", "odot": "⊙", "otimes": "⊗", "circ": "∘",
    "sqrt": "√", "ell": "ℓ", "forall": "∀", "exists": "∃", "mid": "|", "colon": ":",
    "log": "log", "ln": "ln", "exp": "exp", "max": "max", "min": "min", "arg": "arg",
    "tanh": "tanh", "Var": "Var", "E": "E",
}
_ACCENTS = {"bar": "\u0304", "overline": "\u0305", "hat": "\u0302", "widehat": "\u0302",
            "tilde": "\u0303", "widetilde": "\u0303", "vec": "\u20d7", "dot": "\u0307"}
_ACCENT = re.compile(r"\\(" + "|".join(_ACCENTS) + r")(?![A-Za-z])\s*(?:\{([^{}]*)\}|(\w))")
_SUBSCRIPTS = str.maketrans("0123456789+-=()aehijklmnoprstuvx",
                            "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")
_SUPERSCRIPTS = str.maketrans("0123456789+-=()abdehiklmnoptT",
                              "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᵈᵉʰⁱᵏˡᵐⁿᵒᵖᵗᵀ")


def _script(body, table):
    """``body`` in sub- or superscript letters, or None if Unicode has not all of them."""
    plain = body.replace("−", "-")
    return plain.translate(table) if all(ord(c) in table for c in plain) else None


def tex_to_text(tex):
    """A formula as plain text for a search snippet: ``\\frac{\\dotaz{q}^\\top k}{\\sqrt{d}}``
    -> ``(qᵀ k)/√d``. Not a TeX renderer: good enough to read, and never raw TeX."""
    text = tex.strip()
    for delimiter in ("\\(", "\\)", "\\[", "\\]", "$$"):
        text = text.replace(delimiter, " ")
    text = re.sub(r"\\(?:begin|end)\{[^}]*\}", " ", text)
    text = re.sub(r"\\color\{[^}]*\}", "", text)
    text = re.sub(r"\\(?:left|right|big|Big|bigg|Bigg)(?![A-Za-z])", "", text)
    text = text.replace("\\mathbb{R}", "ℝ").replace("\\mathbb R", "ℝ")
    text = re.sub(r"\^(?:\{\\top\}|\\top(?![A-Za-z]))", "ᵀ", text)
    # accents (\bar s, \hat{y}) as combining marks; a font or \operatorname before a
    # single letter (\mathsf T) only dresses it
    for _ in range(3):  # an accent inside an accent's argument: \overline{(g \odot \hat x)}
        text = _ACCENT.sub(lambda m: (m.group(2) or m.group(3)) + _ACCENTS[m.group(1)], text)
    text = re.sub(r"\\(?:math[a-z]+|text[a-z]*|operatorname|boldsymbol|bm)\s+(?=\w)", "", text)
    # a command with an argument that only dresses it (\text, \mathrm, the book's \dotaz ...)
    text = re.sub(r"\\(?!(?:d|t)?frac\b|sqrt\b)[A-Za-z]+\s*(?=\{)", "", text)
    for _ in range(10):  # groups from the innermost out
        before = text
        text = re.sub(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", text)
        text = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"√(\1)", text)
        text = re.sub(r"_\{([^{}]*)\}", lambda m: _scripted(m.group(1), _SUBSCRIPTS, "_"), text)
        text = re.sub(r"\^\{([^{}]*)\}", lambda m: _scripted(m.group(1), _SUPERSCRIPTS, "^"), text)
        text = re.sub(r"(?<!\\frac)(?<!\\sqrt)(?<![_^}])\{([^{}]*)\}", r"\1", text)
        if text == before:
            break
    text = re.sub(r"\\sqrt\s*(\w)", r"√\1", text)
    text = re.sub(r"\\([A-Za-z]+)", lambda m: _GREEK.get(m.group(1))
                  or _SYMBOLS.get(m.group(1), m.group(1)), text)
    text = re.sub(r"\\[,;:! ]", " ", text).replace("\\\\", "; ").replace("&", "")
    text = re.sub(r"_(\w)", lambda m: _scripted(m.group(1), _SUBSCRIPTS, "_"), text)
    text = re.sub(r"\^(\w)", lambda m: _scripted(m.group(1), _SUPERSCRIPTS, "^"), text)
    text = text.replace("{", "").replace("}", "").replace("\\", "").replace("-", "−")
    for _ in range(2):  # (√(d)) -> √d, but exp(s) stays
        text = re.sub(r"(?<!\w)\(([^()\s+\-−=/·,;]+)\)", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def _scripted(body, table, mark):
    small = _script(body, table)
    if small is not None:
        return small
    return mark + (body if len(body) == 1 else "(" + body + ")")


#: Parts of a built page that are not its text: code of the cells, scripts, permalinks, the
#: list of a slider's readouts that sizes its readout, the phone's copy of a formula, what
#: only paper shows.
NOT_TEXT_TAGS = {"script", "style", "img", "svg"}
NOT_TEXT_CLASSES = {"cell_input", "headerlink", "toggle-button", "ac-readout-sizer",
                    "ac-math-narrow", "ac-print-only"}

#: HTML elements without an end tag.
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
         "source", "track", "wbr"}


class _ArticleText(HTMLParser):
    """The text of a page's ``article.bd-article`` in one pass: pieces of text, formulas
    (``.math``) as plain text, the parts in NOT_TEXT_* left out."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.pieces = []
        self._open = []  # (tag, what it is: "article", "skip", "math" or None)
        self._math = None

    def _inside(self, kind):
        return any(what == kind for _tag, what in self._open)

    def handle_starttag(self, tag, attrs):
        if tag in _VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        what = None
        if tag == "article" and "bd-article" in classes:
            what = "article"
        elif tag in NOT_TEXT_TAGS or classes & NOT_TEXT_CLASSES:
            what = "skip"
        elif "math" in classes and self._math is None:
            what, self._math = "math", []
        self._open.append((tag, what))

    def handle_endtag(self, tag):
        while self._open:
            opened, what = self._open.pop()
            if what == "math":
                self.pieces.append(tex_to_text("".join(self._math)))
                self._math = None
            if opened == tag:
                break

    def handle_data(self, data):
        if not self._inside("article") or self._inside("skip"):
            return
        (self._math if self._math is not None else self.pieces).append(data)


def page_text(html_text):
    """The text of a built page's article for search snippets: formulas as plain text,
    without code and without embedded images."""
    parser = _ArticleText()
    parser.feed(html_text)
    parser.close()
    text = re.sub(r"\s+", " ", " ".join(parser.pieces))
    # the pieces of the page were joined with spaces: none before a closing mark or after
    # an opening one ("slovo ," -> "slovo,")
    text = re.sub(r" (?=[,.;:!?)\]“‘…])", "", text)
    return re.sub(r"(?<=[(\[„‚]) ", "", text).strip()


def write_search_data(app, exception):
    """After the build: the reduction table and the pages' texts, for the search page."""
    if exception is not None or getattr(app.builder, "indexer", None) is None:
        return
    if not isinstance(app.builder.indexer.lang, SearchCzech):
        return
    outdir = Path(app.outdir)
    index_file = outdir / "searchindex.js"
    if not index_file.is_file():
        return
    raw = index_file.read_text(encoding="utf-8")
    index = json.loads(raw[raw.index("(") + 1:raw.rindex(")")])
    terms = set(index["terms"]) | set(index["titleterms"])

    # forms seen in earlier builds (an incremental build indexes only the pages it rewrites)
    saved = Path(app.doctreedir, FORMS_FILE)
    forms = json.loads(saved.read_text(encoding="utf-8")) if saved.is_file() else {}
    forms.update(app.builder.indexer.lang.forms)
    forms = {form: term for form, term in forms.items() if term in terms}
    saved.write_text(json.dumps(forms, ensure_ascii=False, sort_keys=True), encoding="utf-8")

    texts = {}
    for docname in index["docnames"]:
        page = outdir / (docname + app.builder.out_suffix)
        if page.is_file():
            texts[docname] = page_text(page.read_text(encoding="utf-8"))
    data = {
        "forms": reduction_table(forms, terms),
        "endings": endings(forms, terms),
        "texts": texts,
    }
    target = outdir / "_static" / "czech_search_data.js"
    target.write_text("/* Generated by book/_ext/czech_search.py: the Czech search's reduction "
                      "table and the pages' texts. */\nvar CZECH_SEARCH_DATA = "
                      + json.dumps(data, ensure_ascii=False, sort_keys=True) + ";\n",
                      encoding="utf-8")
    logger.info("Czech search: %d word forms, %d endings, %d pages",
                len(data["forms"]), len(data["endings"]), len(texts))


def add_paths(app, config):
    """The search page's template and scripts."""
    if str(STATIC) not in config.html_static_path:
        config.html_static_path.append(str(STATIC))
    config.templates_path.insert(0, str(TEMPLATES))


def setup(app):
    app.add_search_language(SearchCzech)
    app.connect("config-inited", add_paths)
    app.connect("build-finished", write_search_data)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
