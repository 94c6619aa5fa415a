"""Issue 20, item 2: every exercise carries its difficulty and, where it helps, its kind.

The title of every ``{exercise-start}`` in ``book/*.md`` is ``<name> · <stars>`` or
``<name> · <stars> · <kind>``: one run of one to three stars (★, ★★, ★★★, the same symbol
everywhere) and at most one kind of three (předpověď a ověření, odvození, programování). The
title page explains the marks once, in the section on how to read the book, with a sentence
for teachers.
"""

import re

from chapters import BOOK

STAR = "★"
KINDS = ("předpověď a ověření", "odvození", "programování")
TITLE = re.compile(rf"^(?P<name>[^★·]*[^★·\s]) · (?P<stars>{STAR}{{1,3}})"
                   rf"(?: · (?P<kind>{'|'.join(KINDS)}))?$")
START = re.compile(r"^```\{exercise-start\}(?P<title>.*)$", re.M)


def exercise_titles():
    """(page, title) of every exercise of the book, in order."""
    return [(path.stem, match["title"].strip())
            for path in sorted(BOOK.glob("*.md"))
            for match in START.finditer(path.read_text(encoding="utf-8"))]


def test_every_exercise_has_exactly_one_difficulty_mark():
    titles = exercise_titles()
    assert len(titles) >= 47, f"only {len(titles)} exercises found"
    wrong = [f"{page}: {title!r}" for page, title in titles
             if not TITLE.match(title) or len(re.findall(f"{STAR}+", title)) != 1]
    assert not wrong, "exercise titles without exactly one mark ★ to ★★★:\n" + "\n".join(wrong)


def test_every_difficulty_and_kind_is_used():
    """The scale is used in full (a mark nobody earns says nothing) and the kinds too."""
    marks = [TITLE.match(title) for _page, title in exercise_titles()]
    assert {m["stars"] for m in marks} == {STAR, STAR * 2, STAR * 3}
    assert {m["kind"] for m in marks if m["kind"]} == set(KINDS)


def test_the_marks_are_explained_once_on_the_title_page():
    intro = (BOOK / "intro.md").read_text(encoding="utf-8")
    section = intro.split("## Jak knihu číst", 1)[1].split("\n## ", 1)[0]
    assert "(obtiznost-cviceni)=" in section and "### Obtížnost a druh cvičení" in section
    for stars in (STAR, STAR * 2, STAR * 3):
        assert re.search(rf"^- {stars} – ", section, re.M), f"{stars} not explained"
    for kind in KINDS:
        assert f"- *{kind}* – " in section, f"{kind} not explained"
    assert "Vyučujícím" in section
    others = [p.name for p in BOOK.glob("*.md") if p.name != "intro.md"
              and "### Obtížnost a druh cvičení" in p.read_text(encoding="utf-8")]
    assert not others, f"the marks are explained again in {others}"
