"""The book in Czech in the browser (issue 11): search, interface, accessibility.

- Search: for Czech queries in inflected forms and without diacritics, the search page lists
  every page whose text uses the word (computed here from the built pages with the Python
  Snowball stemmer), over http and from the folder (file://); Czech count, snippets without
  TeX; Python and the browser reduce every word of the book to the same index term.
- Interface: no English label, tooltip, placeholder or button text on any page; the parts
  that sphinx-proof and sphinx-exercise write (checked on a small book built here).
- Accessibility: axe-core on every page is in ``test_surfaces.py`` (``test_axe_*``), run in
  the visit that checks the page's layout at the desktop width.
"""

import json
import re
import subprocess
import sys

import pytest
import snowballstemmer
from browser_support import Visit, pages
from bs4 import BeautifulSoup
from czech_support import article_prose, fold, strip_html_fast, words

from chapters import ROOT

pytestmark = pytest.mark.browser

STEMMER = snowballstemmer.stemmer("czech")


def term(word):
    """The index term of a word, the way the book's search language makes it."""
    from czech_search import keep_in  # book/_ext, on the path once czech_support is imported

    lower = word.lower()
    return fold(keep_in(lower, STEMMER.stemWord(lower)))


#: (what a reader types, the word as the book writes it)
QUERIES = [
    ("klic", "klíč"), ("klice", "klíče"), ("klíčům", "klíč"), ("dotazy", "dotaz"),
    ("pozornosti", "pozornost"), ("skore", "skóre"), ("nasyceni", "nasycení"),
    ("hodnotami", "hodnota"), ("matici", "matice"), ("vahy", "váhy"), ("softmaxu", "softmax"),
    ("sebepozornost", "sebepozornost"), ("rozptylu", "rozptyl"), ("hlavy", "hlava"),
    ("součinu", "součin"), ("součtu", "součet"),
]

#: Words whose stems one is a part of the other's unless the book keeps them apart.
APART = [("součinu", "součin"), ("součtu", "součet")]

#: English words that must not appear in the interface (whole words, any case).
ENGLISH = re.compile(
    r"\b(search|toggle|color|colour|mode|system|settings|link|heading|contents|proof|solution|"
    r"exercise|download|print|fullscreen|copy|copied|main|page|version|warning|skip|back|top|"
    r"light|dark|previous|next|by|click|hidden|content|sidebar|navigation|primary|secondary|"
    r"launch|repository|edit|open|issue|source|source|results|found|matching|menu|close|"
    r"show|hide|expand|collapse|copyright|theme|index)\b", re.IGNORECASE)

SEARCH_DONE = """() => {
    const title = document.querySelector('#search-results h2');
    return title && title.innerText.startsWith('Výsledky');
}"""


def search(browser, base, query, local_prefix):
    """Run ``query`` on the search page; return (visit, result hrefs, status, snippets)."""
    visit = Visit(browser, f"{base}search.html?q={query}", local_prefix).open()
    visit.page.wait_for_function(SEARCH_DONE, timeout=15_000)
    page = visit.page
    hrefs = page.eval_on_selector_all("#search-results ul.search > li > a",
                                      "links => links.map(a => a.getAttribute('href'))")
    status = page.inner_text("#search-results .search-summary")
    snippets = page.eval_on_selector_all("#search-results ul.search > li > p.context",
                                         "ps => ps.map(p => p.innerText)")
    return visit, hrefs, status, snippets


def found_pages(hrefs):
    return {href.split("#")[0].removesuffix(".html") for href in hrefs}


def search_index(built_html):
    raw = (built_html / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(raw[raw.index("(") + 1:raw.rindex(")")])


@pytest.fixture(scope="module")
def page_terms(built_html):
    """{page: the set of index terms of its prose}, from the built HTML of every page the
    search covers (not the generated index pages)."""
    found = {}
    for docname in search_index(built_html)["docnames"]:
        html = (built_html / f"{docname}.html").read_text(encoding="utf-8")
        found[docname] = {term(w) for w in words(article_prose(strip_html_fast(html)))}
    return found


def expected_pages(page_terms, word):
    return {page for page, terms in page_terms.items() if term(word) in terms}


def czech_count(n):
    if n == 1:
        return "Nalezena 1\u00a0stránka."
    if 2 <= n <= 4:
        return f"Nalezeny {n}\u00a0stránky."
    return f"Nalezeno {n}\u00a0stránek."


@pytest.mark.parametrize("where", ["http", "file"])
def test_search_finds_every_page_that_uses_the_word(built_html, site, browser, page_terms,
                                                     where):
    base = site if where == "http" else built_html.resolve().as_uri() + "/"
    problems, recall = [], []
    queries = QUERIES if where == "http" else QUERIES[:3]
    for query, word in queries:
        expected = expected_pages(page_terms, word)
        assert expected, f"no page uses {word!r}: choose another query"
        visit, hrefs, status, snippets = search(browser, base, query, base)
        found = found_pages(hrefs)
        recall.append(f"{query}: {len(expected & found)}/{len(expected)}")
        if not expected <= found:
            problems.append(f"{query!r} ({word}) missed {sorted(expected - found)}")
        if status != czech_count(len(hrefs)):
            problems.append(f"{query!r}: status {status!r} for {len(hrefs)} results")
        if len(snippets) != len(hrefs):
            problems.append(f"{query!r}: {len(snippets)} snippets for {len(hrefs)} results")
        for snippet in snippets:
            if re.search(r"\\[A-Za-z(\[]|\$", snippet):
                problems.append(f"{query!r}: raw TeX in the snippet {snippet[:120]!r}")
        problems += [f"{query!r}: {p}" for p in visit.problems]
        visit.close()
    print(f"recall over {where}: " + ", ".join(recall))
    assert not problems, "\n".join(problems)


def test_search_keeps_soucin_and_soucet_apart(site, browser, page_terms):
    """The search matches parts of index terms too: "součin" once stemmed to "souc", a part
    of "součet"'s "souct", and found every page about sums. Each finds its own pages."""
    expected = {word: expected_pages(page_terms, word) for _query, word in APART}
    assert len(set(map(frozenset, expected.values()))) == 2, "choose words on different pages"
    for query, word in APART:
        visit, hrefs, _status, _snippets = search(browser, site, query, site)
        visit.close()
        assert found_pages(hrefs) == expected[word], query


def test_search_snippets_are_clean_text(built_html):
    """The pages' texts the snippets come from: no TeX command names, no space before a
    punctuation mark; the index: no two table cells glued into one word."""
    raw = (built_html / "_static" / "czech_search_data.js").read_text(encoding="utf-8")
    texts = json.loads(raw[raw.index("= ") + 2:raw.rindex(";")])["texts"]
    problems = []
    for page, text in texts.items():
        for match in re.finditer(r"(?<![\w-])(?:mathsf|mathrm|mathbf|operatorname|frac|sqrt|"
                                 r"hat|bar|tilde|vec)(?!\w)", text):
            problems.append(f"{page}: TeX …{text[max(0, match.start() - 30):match.end() + 20]}…")
        for match in re.finditer(r"\w \s*[,.;:!?)](?!\w)", text):
            problems.append(f"{page}: space before …{text[match.start():match.end() + 10]}…")
    terms = set(search_index(built_html)["terms"])
    for page in built_html.glob("*.html"):
        soup = BeautifulSoup(strip_html_fast(page.read_text(encoding="utf-8")), "html.parser")
        for row in soup.select("table.ac-table tr"):
            cells = [cell.get_text(" ").split() for cell in row.find_all(["td", "th"])]
            for left, right in zip(cells, cells[1:]):
                glued = left[-1] + right[0] if left and right else ""
                if len(glued) >= 5 and term(glued) in terms:  # "2" + "d" is a word of its own
                    problems.append(f"{page.name}: glued cells {left[-1]!r} + {right[0]!r}")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:30])


def test_search_says_when_it_finds_nothing(site, browser):
    visit, hrefs, status, _ = search(browser, site, "xyzzyq", site)
    visit.close()
    assert hrefs == []
    assert status.startswith("Nic nenalezeno")


def test_search_count_in_czech_plural(site, browser):
    visit = Visit(browser, site + "search.html", site).open()
    messages = visit.page.evaluate("[0, 1, 2, 4, 5, 21, 1000].map(CzechSearch.countMessage)")
    visit.close()
    assert messages[1:] == [czech_count(n) for n in (1, 2, 4, 5, 21)] + [
        "Nalezeno 1\u00a0000\u00a0stránek."]
    assert messages[0].startswith("Nic nenalezeno")


def test_python_and_browser_reduce_every_word_alike(built_html, site, browser):
    """Every word form the index saw (as written and without diacritics) gets the same index
    term from the browser's reduction as from the Python stemmer."""
    forms = json.loads((built_html.parent / ".doctrees" / "czech_search_forms.json")
                       .read_text(encoding="utf-8"))
    assert len(forms) > 1000
    queries = sorted(set(forms) | {fold(form) for form in forms})
    visit = Visit(browser, site + "search.html", site).open()
    visit.page.wait_for_function("() => Search._index !== null")
    stems = visit.page.evaluate("words => words.map(w => CzechSearch.stem(w))", queries)
    visit.close()
    browser_terms = dict(zip(queries, stems))
    wrong = [f"{form}: Python {t!r}, browser {browser_terms[form]!r}"
             for form, t in sorted(forms.items()) if browser_terms[form] != t]
    # without diacritics: the same term, unless two forms fold to one (then one of them)
    by_fold = {}
    for form, t in forms.items():
        by_fold.setdefault(fold(form), set()).add(t)
    wrong += [f"{key}: Python {sorted(terms)}, browser {browser_terms[key]!r}"
              for key, terms in sorted(by_fold.items()) if browser_terms[key] not in terms]
    assert not wrong, f"{len(wrong)} of {len(queries)} differ:\n" + "\n".join(wrong[:30])


def test_search_language_in_python():
    """The index side: stems without diacritics, stop words and TeX commands left out."""
    from czech_search import SearchCzech, endings, reduction_table, tex_to_text

    language = SearchCzech({})
    assert {language.stem(w) for w in ("klíč", "klíče", "klíčům", "Klíčem")} == {"klic"}
    assert language.stem("skóre") == language.stem("skore") == "skor"
    assert language.split(r"\skore{s_i} = \frac{q}{\sqrt{d}} a skóre") == [
        "s_i", "q", "d", "a", "skóre"]
    assert not language.word_filter("se") and not language.word_filter("Že")
    assert not language.word_filter("2017") and language.word_filter("klic")
    forms = {"klíč": "klic", "klíče": "klic", "paměti": "pamet", "pamětí": "pam"}
    table = reduction_table(forms, {"klic", "pamet", "pam"})
    assert table["klice"] == "klic" and "klic" not in table  # the form is its own term
    assert table["paměti"] == "pamet" and table["pamětí"] == "pam" and "pameti" in table
    assert endings(forms, {"klic"}) == ["e"]
    for tex, text in [(r"\(\skore{s_i} = \frac{\dotaz{q}^\top \klic{k_i}}{\sqrt{d}}\)",
                       "sᵢ = (qᵀ kᵢ)/√d"),
                      (r"\(\mathbb{R}^{d}\)", "ℝᵈ"), (r"\(a(1 - a)\)", "a(1 − a)"),
                      (r"\(\overline{(g \odot \hat x)}\)", "(g ⊙ x̂)\u0305")]:
        assert tex_to_text(tex) == text


def test_search_index_is_czech(built_html):
    terms = set(search_index(built_html)["terms"])
    assert {"klic", "dotaz", "pozornost", "skor", "hodnot"} <= terms
    # stop words, and TeX commands of the formulas (\skore{s_i} is not the word "skóre")
    assert not {"a", "se", "že", "ze", "je", "frac", "skore"} & terms


# --- the interface ------------------------------------------------------------------------------

INTERFACE_TEXTS = """() => {
    const found = [];
    const inContent = (e) => e.closest(
        'article pre, article code, mjx-container, .cell_output, .ac-explore');
    for (const e of document.querySelectorAll('body *')) {
        if (inContent(e)) continue;
        for (const a of ['aria-label', 'title', 'placeholder', 'data-bs-title',
                         'data-tooltip', 'alt', 'aria-description', 'value']) {
            const v = e.getAttribute(a);
            // a link's title in the text names what it links to (a paper's English title)
            const content = a === 'title' && e.matches('article a, article abbr');
            if (v && !content && !(a === 'value' && e.tagName !== 'BUTTON')) {
                found.push(`${a}: ${v}`);
            }
        }
    }
    // visible text of the interface: everything but the article, plus the article's
    // interface parts (toggles, admonition titles, buttons)
    const parts = [...document.querySelectorAll('body *')].filter(e =>
        !e.closest('article.bd-article') || e.matches(
            'article summary *, article .admonition-title, article button, article .headerlink'));
    for (const e of parts) {
        for (const node of e.childNodes) {
            if (node.nodeType === 3 && node.textContent.trim() && !inContent(e)
                && e.checkVisibility()) {
                found.push('text: ' + node.textContent.trim());
            }
        }
    }
    document.querySelectorAll('svg title').forEach(t => found.push('svg: ' + t.textContent));
    return [...new Set(found)];
}"""

#: Interface strings that are Czech although they match an English word above.
ALLOWED = {"text: Ctrl", "text: K", "text: +"}

#: Names of licences, the same in every language ("CC BY-SA 4.0").
LICENCES = re.compile(r"\bCC BY(?:-(?:SA|NC|ND))*\b")


def test_interface_has_no_english(built_html, site, browser):
    problems = []
    for name in pages(built_html):
        visit = Visit(browser, site + name, site).open()
        visit.page.wait_for_timeout(200)  # the buttons that scripts add on DOMContentLoaded
        for text in visit.page.evaluate(INTERFACE_TEXTS):
            value = LICENCES.sub("", text.split(": ", 1)[1])
            if text not in ALLOWED and ENGLISH.search(value):
                problems.append(f"{name}: {text[:120]}")
        title = visit.page.title()
        if ENGLISH.search(title):
            problems.append(f"{name}: <title> {title}")
        visit.close()
    assert not problems, "\n".join(sorted(set(problems)))


def test_one_search_field(built_html, site, browser):
    """One search field at 1 280 px (the sidebar's), none in a top bar."""
    visit = Visit(browser, site + "01_mekky_slovnik.html", site)
    visit.page.set_viewport_size({"width": 1280, "height": 900})
    visit.open()
    visible = visit.page.evaluate("""() => [...document.querySelectorAll(
        '.search-button-field, .search-button, form.bd-search')]
        .filter(e => e.checkVisibility()).length""")
    header = visit.page.evaluate("""() => {
        const header = document.querySelector('header.bd-header');
        return header ? header.getBoundingClientRect().height : 0; }""")
    placeholder = visit.page.locator("form.bd-search input").get_attribute("placeholder")
    visit.close()
    assert visible == 1
    assert header == 0, "the top bar is back"
    assert placeholder == "Hledat v knize…"


def test_hidden_code_toggle_is_named_by_its_text(built_html, site, browser):
    visit = Visit(browser, site + "01_mekky_slovnik.html", site).open()
    summaries = visit.page.locator("details.hide > summary")
    count = summaries.count()
    names = {summaries.nth(i).get_attribute("aria-label") for i in range(count)}
    shown = {summaries.nth(i).locator(".collapsed").text_content().strip()
             for i in range(count)}
    visit.close()
    if count:
        assert names == {None}
        assert shown == {"Zobrazit kód"}


@pytest.mark.build
def test_hidden_code_toggles_name_what_they_hide(built_html):
    """A toggle above a cell's code shows the code, one below it the cell's output (chapter
    9's exercises hide their results so; a student took „Zobrazit kód“ there for code)."""
    prompts = {}
    for page in ("01_mekky_slovnik.html", "09_blok_transformeru.html"):
        soup = BeautifulSoup((built_html / page).read_text(encoding="utf-8"), "html.parser")
        for details in soup.select("details.hide"):
            where = next(c for c in details["class"] if c in ("above-input", "below-input"))
            prompts.setdefault(where, set()).add(
                tuple(details.select_one(f"summary .{state}").get_text(strip=True)
                      for state in ("collapsed", "expanded")))
    assert prompts == {"above-input": {("Zobrazit kód", "Skrýt kód")},
                       "below-input": {("Zobrazit výstup", "Skrýt výstup")}}


MINI_CONF = """
import sys
sys.path.insert(0, {ext!r})
extensions = ["myst_parser", "sphinx_exercise", "sphinx_proof", "sphinx_togglebutton",
              "sphinx_copybutton", "sphinx_book_theme", "czech_typography", "czech_search",
              "czech_interface"]
html_theme = "sphinx_book_theme"
language = "cs"
locale_dirs = [{locales!r}]
project = "Malá kniha"
author = "Malá kniha"
copyright = "2026"
myst_enable_extensions = ["colon_fence", "dollarmath"]
"""

MINI_INDEX = """\
# Malá kniha

```{exercise-start}
:label: cv-01-zkouska
```
Spočtěte $a + b$ v tabulce a s klíči.
```{exercise-end}
```

```{solution-start} cv-01-zkouska
:class: dropdown
```
Výsledek je 3.
```{solution-end}
```

```{prf:theorem} Součet
:label: thm-soucet

Součet dvou čísel je číslo.
```

```{prf:proof}
Zřejmé z definice.
```

```{glossary}
klíč
  Vektor, se kterým se porovná dotaz.

čas
  Doba výpočtu.

cesta
  Pořadí kroků.

chyba
  Rozdíl od správné odpovědi.

hlava
  Jedna z pozorností vícehlavé pozornosti.
```

Pojem {term}`klíč` v rejstříku.
"""


@pytest.fixture(scope="module")
def mini_book(tmp_path_factory):
    """A small book with an exercise, its solution, a proof and a glossary, built with the
    book's Czech extension and theme."""
    source = tmp_path_factory.mktemp("mini")
    (source / "conf.py").write_text(MINI_CONF.format(
        ext=str(ROOT / "book" / "_ext"), locales=str(ROOT / "book" / "_ext" / "locales")),
        encoding="utf-8")
    (source / "index.md").write_text(MINI_INDEX, encoding="utf-8")
    out = source / "_build"
    result = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html",
                             str(source), str(out)], capture_output=True, text=True, cwd=source,
                            timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_proof_and_solution_titles_are_czech(mini_book):
    html = (mini_book / "index.html").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", html).replace("&nbsp;", "\u00a0")
    assert "Důkaz." in text and "Proof" not in text
    assert "Řešení ke cvičení\u00a01" in text or "Řešení ke cvičení 1" in text
    assert "Řešení k Cvičení" not in text
    assert "v\u00a0tabulce a\u00a0s\u00a0klíči" in text


def test_index_is_linked_and_czech(mini_book, built_html):
    page = (mini_book / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<a class="reference internal" href="genindex.html">Rejstřík</a>', page)
    index = (mini_book / "genindex.html").read_text(encoding="utf-8")
    assert "<h1 id=\"index\">Rejstřík</h1>" in index and "klíč" in index
    # the Czech alphabet: Č after C, Ch after H
    assert re.findall(r'<h2 id="([^"]+)">', index) == ["C", "Č", "H", "Ch", "K"]
    # the book links its index only once it has entries (the glossary's terms)
    book_index = (built_html / "genindex.html").read_text(encoding="utf-8")
    has_entries = "genindextable" in book_index
    linked = 'href="genindex.html">Rejstřík</a>' in (built_html / "intro.html").read_text(
        encoding="utf-8")
    assert linked == has_entries
