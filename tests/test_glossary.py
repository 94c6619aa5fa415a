"""The glossary (book/glosar.md) and the chapters' links to it (issue 11, item 4).

- The glossary's entries are written in Czech alphabetical order (the same collation as the
  index, "Rejstřík": Č after C, Ch after H, Ř, Š, Ž letters of their own, an acute or a ring
  only breaks ties). Sphinx's ``:sorted:`` would sort by Unicode code points after NFD, which
  puts "ch" under C and "váha" after "vazba", so the glossary must not use it.
- Every entry has the English term (or says it has none), a definition and where the book
  introduces it.
- The chapters link only to entries that exist, and each term at most once per page (its
  first use; a later use stays plain text).
"""

import re
import sys

import pytest

from chapters import BOOK

sys.path.insert(0, str(BOOK / "_ext"))
import english_index  # noqa: E402
from czech_interface import czech_index, czech_key, czech_typeset_index  # noqa: E402

GLOSSARY = BOOK / "glosar.md"
PAGES = sorted(BOOK.glob("[0-9][0-9]_*.md")) + [BOOK / "dodatek.md"]
TERM_ROLE = re.compile(r"\{term\}`([^`]*)`")


def glossary_block():
    text = GLOSSARY.read_text(encoding="utf-8")
    match = re.search(r"^```\{glossary\}\n(.*?)^```", text, re.S | re.M)
    assert match, "book/glosar.md has no glossary directive"
    return match.group(1)


def glossary_entries():
    """(term, definition) pairs in the order of the source (the parser the English index uses)."""
    return english_index.glossary_entries(GLOSSARY.read_text(encoding="utf-8"))


def target(role_text):
    """The glossary entry a {term} role points to: `text <entry>` or `entry`."""
    match = re.fullmatch(r"(.*?)\s*<([^<>]+)>", role_text, re.S)
    return (match.group(2) if match else role_text).strip().lower()


@pytest.mark.parametrize("before, after", [
    ("cesta", "čas"), ("čas", "dávka"), ("hlava", "chyba"), ("chyba", "index"),
    ("rozptyl", "řád"), ("střední hodnota", "škálovaná pozornost"), ("váha", "vazba"),
    ("zpětný průchod", "žák"), ("centrální limitní věta", "činitel gradientu"),
    ("skóre", "skrytá vrstva"), ("průměrování", "přesnost"), ("ReLU", "rozptyl"),
])
def test_czech_collation(before, after):
    assert czech_key(before) < czech_key(after)


def test_glossary_is_not_sorted_by_sphinx():
    assert ":sorted:" not in glossary_block()


def test_glossary_entries_are_in_czech_order():
    terms = [term for term, _definition in glossary_entries()]
    assert len(terms) >= 30
    assert len(set(map(str.lower, terms))) == len(terms), "a term is listed twice"
    out_of_order = [(a, b) for a, b in zip(terms, terms[1:]) if czech_key(a) >= czech_key(b)]
    assert not out_of_order, f"not in Czech alphabetical order: {out_of_order}"


def test_every_entry_has_english_definition_and_chapter():
    for term, definition in glossary_entries():
        assert definition.startswith(("(angl. *", "(pojem této knihy")), term
        assert re.search(r"Kapitol[ay]|Dodatek", definition), f"{term}: no chapter"
        assert len(definition) > 60, f"{term}: definition too short"


def test_chapters_link_existing_terms_once():
    terms = {term.lower() for term, _definition in glossary_entries()}
    for page in PAGES:
        targets = [target(text) for text in TERM_ROLE.findall(page.read_text(encoding="utf-8"))]
        assert targets, f"{page.name} links no glossary term"
        unknown = sorted(set(targets) - terms)
        assert not unknown, f"{page.name}: no glossary entry {unknown}"
        twice = sorted({t for t in targets if targets.count(t) > 1})
        assert not twice, f"{page.name}: linked more than once (link the first use only) {twice}"


def test_index_subentries_in_czech_order():
    """The index regroups Sphinx's entries by Czech letters and sorts subentries too."""
    entries = [("V", [("vícehlavá pozornost",
                       ([], [("chyba: rozříznutí X", []), ("definice", [])], None))]),
               ("C", [("čas", ([], [], None)), ("chyba", ([], [], None))]),
               ("H", [("hlava", ([], [], None))])]
    groups = czech_index(entries, "Symboly")
    assert [letter for letter, _entries in groups] == ["Č", "H", "Ch", "V"]
    (_name, (_links, subitems, _key)), = groups[-1][1]
    assert [name for name, _links in subitems] == ["definice", "chyba: rozříznutí X"]


def test_index_entries_get_czech_typography():
    """No line break after a one-letter word in the index's own text."""
    groups = [("M", [("měkký slovník", ([], [("přechod v obyčejný slovník", [])], None))])]
    (_letter, [(name, (_links, [(sub, _sublinks)], _key))]), = czech_typeset_index(groups)
    assert name == "měkký slovník" and sub == "přechod v\u00a0obyčejný slovník"
