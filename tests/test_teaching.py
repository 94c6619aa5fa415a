"""The page for teachers and the English → Czech glossary (issue 20, items 1 and 7).

- „Pro vyučující“ (``book/pro_vyucujici.md``): its table of reading and working times is
  computed at build time (``book/_ext/teaching_estimates.py``) from each chapter's words,
  displayed formulas, exercises and this build's execution time, a row for every chapter and
  the appendix; the page names every chapter, and its table of lab and homework exercises
  lists every exercise of the book exactly once.
- „Anglicko-český slovníček“ (``book/anglicke_pojmy.md``, ``book/_ext/english_index.py``):
  every English name of the glossary, sorted, each with its Czech term linked to the entry.
"""

import re
import sys

import pytest
from bs4 import BeautifulSoup

from chapters import BOOK

sys.path.insert(0, str(BOOK / "_ext"))
import english_index  # noqa: E402
import teaching_estimates as te  # noqa: E402

TEACHERS = BOOK / "pro_vyucujici.md"
NOTEBOOK_PAGES = sorted(BOOK.glob("[0-9][0-9]_*.md")) + [BOOK / "dodatek.md"]

CHAPTER = """---
jupytext:
  text_representation:
    format_name: myst
---

# Kapitola

Dotaz a {term}`klíče <klíč>` dají $s_i = q \\cdot k_i$ skóre.

$$
a = \\mathrm{softmax}(s)
$$

```{code-cell} ipython3
print("tato slova se nečtou")
```

```{exercise-start} ★★ Delší klíč
:label: cv-x
```
Spočtěte váhy.
```{exercise-end}
```

```{solution-start} cv-x
:class: dropdown
```
Řešení se do čtení nepočítá.
```{solution-end}
```

```{exercise-start} Bez označení
:label: cv-y
```
Dokažte to.
```{exercise-end}
```
"""


def test_prose_words_leave_out_code_formulas_solutions_and_markup():
    # "Kapitola", "Dotaz a klíče dají skóre", "Delší klíč" is a title (in the directive
    # line, left out), "Spočtěte váhy", "Dokažte to"
    assert te.prose_words(CHAPTER) == 1 + 5 + 2 + 2
    assert te.displayed_formulas(CHAPTER) == 1
    assert te.exercise_stars(CHAPTER) == [2, 0]


def test_estimate_adds_reading_exercises_and_execution():
    e = te.estimate(CHAPTER, 90.0)
    assert e["reading"] == pytest.approx(10 / te.WORDS_PER_MINUTE + te.MINUTES_PER_FORMULA)
    assert e["working"] == pytest.approx(te.EXERCISE_MINUTES[2] + te.EXERCISE_MINUTES[0] + 1.5)
    assert te.estimate(CHAPTER, None)["working"] == pytest.approx(40)
    assert te.hours(61) == "1,25 h" and te.hours(60) == "1,00 h"


def test_the_page_states_the_estimates_constants():
    text = " ".join(TEACHERS.read_text(encoding="utf-8").split())
    assert f"v tempu {te.WORDS_PER_MINUTE} slov za minutu" in text
    assert "a minuta na každý vzorec" in text and te.MINUTES_PER_FORMULA == 1
    stars = ", ".join(f"{'★' * s} {te.EXERCISE_MINUTES[s]} minut" for s in (1, 2, 3))
    assert f"({stars}; cvičení bez označení jako ★★)" in text
    assert te.EXERCISE_MINUTES[0] == te.EXERCISE_MINUTES[2]


def test_every_chapter_has_words_and_exercises():
    for page in NOTEBOOK_PAGES:
        e = te.estimate(page.read_text(encoding="utf-8"), None)
        assert e["words"] > 1000 and e["exercises"] >= 3, page.name


def test_the_page_names_every_chapter_and_the_appendix():
    text = TEACHERS.read_text(encoding="utf-8")
    for page in NOTEBOOK_PAGES:
        assert f"{{doc}}`{page.stem}`" in text, page.stem
    assert "```{odhad-casu} podklady" in text and "```{odhad-casu} odhad" in text


def test_every_exercise_is_in_the_lab_or_homework_table_once():
    labels = [label for page in NOTEBOOK_PAGES for label in
              re.findall(r"^```\{exercise-start\}.*\n:label: (\S+)",
                         page.read_text(encoding="utf-8"), re.M)]
    rows = [line for line in TEACHERS.read_text(encoding="utf-8").splitlines()
            if line.startswith("| ") and "{ref}" in line]
    listed = [label for row in rows for label in re.findall(r"\{ref\}`([^`]+)`", row)]
    assert sorted(listed) == sorted(labels)
    assert len(set(listed)) == len(listed)


@pytest.mark.build
def test_built_estimates_table(built_html):
    page = BeautifulSoup((built_html / "pro_vyucujici.html").read_text(encoding="utf-8"),
                         "html.parser")
    sources = page.select("table.teaching-estimates-podklady tbody tr")
    estimates = page.select("table.teaching-estimates-odhad tbody tr")
    assert len(sources) == len(estimates) == len(NOTEBOOK_PAGES) + 1
    for source, estimate in zip(sources[:-1], estimates[:-1]):
        cells = [" ".join(td.get_text(" ").split()) for td in source.select("td")]
        assert source.select_one("a[href]") and estimate.select_one("a[href]"), cells
        assert cells[4].endswith(" s"), f"{cells[0]}: not executed in this build"
        assert estimate.select("td")[-1].get_text().endswith(" h")
    assert sources[-1].get_text(" ", strip=True).startswith("Celkem")
    assert estimates[-1].get_text(" ", strip=True).startswith("Celkem")
    # the exercises are linked by their titles
    lab = page.find(id="cviceni-do-laboratore-a-za-domaci-ukol")
    assert len(lab.select("table a.reference")) == len(re.findall(
        r"\{ref\}", TEACHERS.read_text(encoding="utf-8").split("## Rozvrh")[0]))


GLOSSARY = (BOOK / "glosar.md").read_text(encoding="utf-8")


def test_english_index_holds_every_english_name_sorted():
    pairs = english_index.english_to_czech(GLOSSARY)
    assert ("KV cache", "mezipaměť klíčů a hodnot") in pairs
    assert ("transformer block", "blok transformeru") in pairs
    assert ("LayerNorm", "normalizace vrstvy") in pairs
    # no name that means something else in English: "layer" is any layer of a network
    assert "layer" not in {name for name, _term in pairs}
    assert ("mean", "průměr") in pairs and ("mean", "střední hodnota") in pairs
    assert ("restricted self-attention", "omezená sebepozornost") in pairs
    assert ("underflow", "podtečení") in pairs and ("plateau", "plošina") in pairs
    assert ("adaptive moment estimation", "Adam") in pairs
    keys = [english_index.english_key(name) for name, _term in pairs]
    assert keys == sorted(keys)
    czech = {term for _name, term in pairs}
    for term, definition in english_index.glossary_entries(GLOSSARY):
        assert (term in czech) == definition.startswith("(angl."), term
    # the book's own names, which English texts do not use
    assert {"činitel gradientu", "měkký slovník", "průměrování"}.isdisjoint(czech)


@pytest.mark.build
def test_built_english_index(built_html):
    page = BeautifulSoup((built_html / "anglicke_pojmy.html").read_text(encoding="utf-8"),
                         "html.parser")
    rows = page.select("table.english-index tbody tr")
    assert len(rows) == len(english_index.english_to_czech(GLOSSARY))
    for row in rows:
        english, czech = row.select("td")
        assert english.select_one('[lang="en"]'), row
        assert czech.select_one('a[href^="glosar.html#term-"]'), row
    glossary = (built_html / "glosar.html").read_text(encoding="utf-8")
    assert 'href="anglicke_pojmy.html"' in glossary
