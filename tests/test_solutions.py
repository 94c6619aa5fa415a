"""Hidden solutions (issue 10, section 3): nothing of a solution, neither its text nor its
code nor its output, is visible before the reader opens it, and all of it is after.

The check is generic: every ``div.solution`` (sphinx-exercise's gated solutions written with
``:class: dropdown``) on every chapter page, plus every code cell of a "Cvičení" section
that sits outside the exercises and solutions (a solution's code written after
``solution-end`` would be visible to every reader). It is tried first on a two-page
fixture book built with the book's own configuration, extension and stylesheets: one page
written as the chapters write their exercises (nothing may show), one with the mistakes the
check must catch.
"""

import pytest
from browser_support import Visit, chapter_pages
from fixture_book import build_fixture_book
from surfaces_support import check_solutions_hidden, print_problems, run_check

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def fixture_book():
    return build_fixture_book()


def _open(browser, html, name):
    prefix = html.resolve().as_uri() + "/"
    return Visit(browser, prefix + name, prefix).open()


def test_a_solution_written_as_the_chapters_write_it_is_hidden_until_opened(fixture_book,
                                                                              browser):
    visit = _open(browser, fixture_book, "cviceni.html")
    page = visit.page
    before = page.locator("article").inner_text()
    problems, count, cells = check_solutions_hidden(page)
    after = page.locator("article").inner_text()
    visit.close()
    assert count == 1 and cells == 1, (count, cells)
    assert not problems, "\n".join(problems)
    for text in ("Výsledek je 5", "ŘEŠENÍ-VÝSTUP 5", "assert result == 5"):
        assert text not in before, f"{text!r} is visible before the solution is opened"
        assert text in after, f"{text!r} is not visible after the solution is opened"
    assert "součet: 5" in before, "the exercise's own code and output must stay visible"


def test_the_check_finds_solutions_that_give_themselves_away(fixture_book, browser):
    visit = _open(browser, fixture_book, "prozrazene.html")
    problems, count, _ = check_solutions_hidden(visit.page)
    visit.close()
    text = "\n".join(problems)
    assert count == 2
    assert "has no toggle" in text and "shows" in text, text
    assert "a code cell outside the exercises and solutions" in text, text
    assert not any("solution 2" in p for p in problems), text  # the dropdown one is fine


def test_solutions_are_not_printed_inside_the_page(fixture_book, browser):
    visit = _open(browser, fixture_book, "cviceni.html")
    problems = print_problems(visit.page)
    solutions = run_check(visit.page, "solutions")
    visit.close()
    assert not problems, "\n".join(problems)
    assert solutions and not any(s["visibleCount"] for s in solutions)


def test_every_chapter_hides_its_solutions_until_opened(built_html, site, browser):
    """Every solution on every chapter page; a chapter with exercises has its solutions
    as sphinx-exercise solutions (``div.solution``)."""
    problems, total = [], 0
    for name in chapter_pages(built_html):
        visit = Visit(browser, site + name, site).open()
        found, count, _ = check_solutions_hidden(visit.page)
        has_exercises = visit.page.locator("article section#cviceni").count() > 0
        visit.close()
        total += count
        problems += [f"{name}: {p}" for p in found]
        if has_exercises and not count:
            problems.append(f"{name}: the exercises' solutions are not sphinx-exercise "
                            "solutions (solution-start … :class: dropdown … solution-end)")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)
    assert total > 0
