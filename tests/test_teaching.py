"""The page for teachers and the English → Czech glossary (issue 20, items 1 and 7).

- „Pro vyučující“ (``book/pro_vyucujici.md``): its table of reading and working times is
  computed at build time (``book/_ext/teaching_estimates.py``) from each chapter's words,
  displayed formulas, exercises and this build's execution time, a row for every chapter and
  the appendix, and totals that are the sums of the rounded rows; the page names every
  chapter; its table of lab and homework exercises (sorted by the kind in each exercise's
  title) lists every exercise of the book exactly once; its plans' lectures and labs fit
  their 90 minutes by the same estimates, no exercise is given twice, and the three-week plan
  gives every exercise of the chapters it teaches.
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

```{exercise-start} Důkaz · ★★★
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
    assert te.exercise_stars(CHAPTER) == [2, 3]


def test_estimate_adds_reading_exercises_and_execution():
    e = te.estimate(CHAPTER, 90.0)
    assert e["reading"] == pytest.approx(10 / te.WORDS_PER_MINUTE + te.MINUTES_PER_FORMULA)
    assert e["working"] == pytest.approx(te.EXERCISE_MINUTES[2] + te.EXERCISE_MINUTES[3] + 1.5)
    assert te.estimate(CHAPTER, None)["working"] == pytest.approx(60)


def test_totals_are_the_sums_of_the_shown_rows():
    estimates = [{"words": 10, "formulas": 1, "exercises": 2, "runtime": 0.4,
                  "reading": 20.4, "working": 40.4},
                 {"words": 5, "formulas": 0, "exercises": 1, "runtime": None,
                  "reading": 10.4, "working": 9.4}]
    rows, total = te.shown_rows(estimates)
    assert [(r["reading"], r["working"], r["quarters"]) for r in rows] == [(20, 40, 4), (10, 9, 2)]
    assert rows[0]["runtime"] == 0 and rows[1]["runtime"] is None
    assert (total["reading"], total["working"], total["quarters"]) == (30, 49, 6)
    assert total["runtime"] == 0 and total["words"] == 15


def test_exercises_with_their_marks_and_kinds():
    assert te.exercises(CHAPTER) == [("cv-x", 2, None), ("cv-y", 3, None)]
    marked = "```{exercise-start} Delší klíč · ★ · předpověď a ověření\n:label: cv-z\n```\n"
    assert te.exercises(marked) == [("cv-z", 1, "předpověď a ověření")]


def test_the_page_states_the_estimates_constants():
    text = " ".join(TEACHERS.read_text(encoding="utf-8").split())
    assert f"v tempu {te.WORDS_PER_MINUTE} slov za minutu" in text
    assert "a minuta na každý vzorec" in text and te.MINUTES_PER_FORMULA == 1
    stars = ", ".join(f"{'★' * s} {te.EXERCISE_MINUTES[s]} minut" for s in (1, 2, 3))
    assert f"({stars})" in text
    with pytest.raises(ValueError, match="1 to 3 ★"):
        te.exercise_minutes(0)


def test_every_chapter_has_words_and_exercises():
    for page in NOTEBOOK_PAGES:
        e = te.estimate(page.read_text(encoding="utf-8"), None)
        assert e["words"] > 1000 and e["exercises"] >= 3, page.name


def test_the_page_names_every_chapter_and_the_appendix():
    text = TEACHERS.read_text(encoding="utf-8")
    for page in NOTEBOOK_PAGES:
        assert f"{{doc}}`{page.stem}`" in text, page.stem
    assert "```{odhad-casu} podklady" in text and "```{odhad-casu} odhad" in text


def book_labels():
    return [label for page in NOTEBOOK_PAGES for label in
            re.findall(r"^```\{exercise(?:-start)?\}.*\n:label: (\S+)",
                       page.read_text(encoding="utf-8"), re.M)]


def test_every_exercise_is_in_the_lab_or_homework_table_once():
    assert "```{cviceni-rozdeleni}" in TEACHERS.read_text(encoding="utf-8")
    table = te.lab_and_homework(te.notebook_sources(BOOK))
    assert list(table) == [page.stem for page in NOTEBOOK_PAGES]
    listed = [label for lab, home in table.values() for label in lab + home]
    assert sorted(listed) == sorted(book_labels())
    assert len(set(listed)) == len(listed)
    kinds = {label: kind for page in NOTEBOOK_PAGES
             for label, _stars, kind in te.exercises(page.read_text(encoding="utf-8"))}
    for lab, home in table.values():
        assert all(kinds[x] in te.LAB_KINDS for x in lab)
        assert all(kinds[x] not in te.LAB_KINDS for x in home)
    text = " ".join(TEACHERS.read_text(encoding="utf-8").split())
    assert all(f"*{kind}*" in text for kind in te.LAB_KINDS + ("odvození",))


def plans():
    """The page's plans: (their lines, whether every exercise must be given)."""
    for body in re.findall(r"^```\{rozvrh\}\n(.*?)^```", TEACHERS.read_text(encoding="utf-8"),
                           re.S | re.M):
        lines = body.splitlines()
        yield [line for line in lines if not line.startswith(":")], ":vsechna:" in lines


def test_the_plans_fit_their_slots_and_give_each_exercise_once():
    found = list(plans())
    assert len(found) == 2 and found[0][1]  # three weeks (every exercise), one week
    sources = te.notebook_sources(BOOK)
    for lines, complete in found:
        parts, problems = te.plan_minutes(te.parse_plan(lines), sources, complete)
        assert not problems
        for _week, part, _items, minutes in parts:
            if part in ("přednáška", "laboratoř"):
                assert 0 < minutes <= te.SLOT_MINUTES
    text = " ".join(TEACHERS.read_text(encoding="utf-8").split())
    assert f"obojí po {te.SLOT_MINUTES} minutách" in text


def test_a_plan_that_breaks_a_rule_is_reported():
    sources = te.notebook_sources(BOOK)
    plan = te.parse_plan(["1 | přednáška | 04_nasyceni_softmaxu 09_blok_transformeru",
                          "1 | laboratoř | cv-01-delsi-klic cv-nic",
                          "1 | úkol | cv-01-delsi-klic"])
    _parts, problems = te.plan_minutes(plan, sources, complete=True)
    assert any("přednáška" in p and "> 90 min" in p for p in problems)
    assert any("'cv-nic'" in p for p in problems)
    assert any("cv-01-delsi-klic is given 2 times" in p for p in problems)
    assert any("cv-04-" in p and "neither" in p for p in problems)


def test_a_section_read_at_home_leaves_the_lecture():
    """A part may give a section by its label: its minutes are the section's, and the plan's
    parts that give its chapter count the chapter without it (so the plan adds up as
    printed: the chapter's rounded minutes less the section's)."""
    sources = te.notebook_sources(BOOK)
    chapter = sources["04_nasyceni_softmaxu"]
    section = te.section_source(chapter, "nasyceni-v-treninku")
    assert section.lstrip().startswith("(nasyceni-v-treninku)=\n## ")
    # up to the next heading of its level, whose own label is left to it
    rest = chapter[chapter.index(section) + len(section):]
    assert rest.lstrip().startswith(("## ", "("))
    assert te.section_source(chapter, "no-such-label") is None
    minutes = lambda text: round(te.estimate(text, None)["reading"])  # noqa: E731
    alone = te.plan_minutes(te.parse_plan(["1 | přednáška | 04_nasyceni_softmaxu"]), sources)
    # the section given apart in week 2 leaves both weeks' lectures of its chapter
    split = te.plan_minutes(te.parse_plan(["1 | přednáška | 04_nasyceni_softmaxu",
                                           "2 | čtení | nasyceni-v-treninku",
                                           "2 | přednáška | 04_nasyceni_softmaxu"]), sources)
    (_w, _p, _i, whole), = alone[0]
    (_, _, _, lecture), (_, _, _, reading), (_, _, _, other_week) = split[0]
    assert not alone[1] and not split[1]
    assert whole == minutes(chapter) and other_week == lecture
    assert reading == minutes(section) > 0
    assert lecture == whole - reading
    assert abs(lecture - te.estimate(chapter.replace(section, ""), None)["reading"]) < 1.5
    _parts, problems = te.plan_minutes(te.parse_plan(["1 | čtení | no-such-label"]), sources)
    assert any("'no-such-label'" in p for p in problems)


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
    # the totals are the sums of the rows as shown
    numbers = [[float(re.sub(r"[^\d,]", "", td.get_text()).replace(",", "."))
                for td in row.select("td")[1:]] for row in estimates]
    for column in range(3):
        assert sum(row[column] for row in numbers[:-1]) == pytest.approx(numbers[-1][column])
    # the exercises are linked by their titles, each once
    lab = page.select_one("table.teaching-exercises")
    links = lab.select("a.reference")
    exercises = [a for a in links if a.get_text().startswith("Cvičení")]
    assert len(exercises) == len(book_labels()) == len(links) - len(NOTEBOOK_PAGES)
    assert all("★" in a.get_text() for a in exercises)
    # the plans: every part with its minutes, the exercises linked by their titles
    plan_items = page.select("ul.teaching-plan > li li")
    assert len(plan_items) == sum(len(lines) for lines, _complete in plans())
    assert all(re.search(r"\d\s*min\): ", li.get_text()) or "zájemce" in li.get_text()
               for li in plan_items)
    plan_text = " ".join(page.select_one("ul.teaching-plan").get_text().split())
    assert re.search(r"dodatek, Cvičení\s1\s", plan_text)
    # a section read at home, by its title, and the lecture that leaves it out
    assert "kapitola 4 bez oddílu „Nasycení při tréninku“" in plan_text
    assert "z kapitoly 4 oddíl „Nasycení při tréninku“" in plan_text
    assert "Před přednáškou (" in plan_text and "z dodatku oddíly „" in plan_text
    assert "kapitoly 3, 5 a dodatek bez oddílů „" in plan_text


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


def test_the_page_quotes_the_hosting_setup_as_it_is():
    """„Jak knihu zpřístupnit studentům“ names what only the hosted build has by the names the build
    uses: the workflow and its variables, the PDF command and the menu entries, the install
    cell's error."""
    import book_pdf
    import figure_pack
    import reader_notebooks

    text = " ".join(TEACHERS.read_text(encoding="utf-8").split())
    workflow = (BOOK.parent / ".github" / "workflows" / "book.yml").read_text(encoding="utf-8")
    for variable in ("BOOK_BASE_URL", "BOOK_REPOSITORY_URL"):
        assert f"`{variable}`" in text and f"{variable}:" in workflow
    assert "run: python book/_ext/book_pdf.py" in workflow
    assert "`python book/_ext/book_pdf.py`" in text and "`jupyter-book build book/`" in text
    assert f"„{book_pdf.LINK_TEXT}“" in text and f"„{figure_pack.LINK_TEXT}“" in text
    error = "Nevím, odkud balíčky knihy nainstalovat"
    assert error in reader_notebooks.install_cell("", "0", ["a"]) and f"„{error}“" in text
    assert "`BOOK_JUPYTERHUB_URL`" in text
    requires = re.search(r'^requires-python = ">=(\d+\.\d+)"$',
                         (BOOK.parent / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    assert f"Python {requires[1]} nebo novější" in text


@pytest.mark.build
def test_the_teachers_page_keeps_its_advice_on_paper(built_html):
    """Only a chapter's „Cvičení“ section trades its folded-solutions paragraph for a printed
    sentence; the teachers' page's advice on solutions and checks is printed as it is."""
    page = BeautifulSoup((built_html / "pro_vyucujici.html").read_text(encoding="utf-8"),
                         "html.parser")
    assert not page.select(".ac-screen-only, .ac-print-only")
    chapter = BeautifulSoup((built_html / "02_uloha_one_hot.html").read_text(encoding="utf-8"),
                            "html.parser")
    assert chapter.select("#cviceni .ac-screen-only") and chapter.select("#cviceni .ac-print-only")
