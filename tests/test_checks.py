"""Issue 20, item 3: the self-checks a student runs, ``check("2.1", answer)``.

For every registered check: the book's own answer (the numbers its solution states, which
the chapter's hidden asserts pin) is accepted; wrong answers (perturbed, the sign flipped,
off by a factor of 1 000, the wrong count of numbers, text) are rejected; and no message ever
contains the expected value, in any Czech or Python formatting. The chapters and the registry
agree: every exercise whose cell calls ``check`` is registered under its own number, with
``answer = None`` as the only answer in the student's cell, and its solution shows the same
check; every registered check is called by its exercise.
"""

import re

import numpy as np
import pytest

from attention_display.checks import _BANDS, CHECKS, NO_ANSWER, check, expected, verdict
from attention_display.style import cz, cz_sci
from chapters import BOOK

#: The book's answers, as each solution states them (rounded as the solution rounds them).
BOOK_ANSWERS = {
    "1.1": 16.95,
    "1.2": 7.88,
    "1.4": 6.50,
    "2.1": (874, 13_834),
    "2.2": (6.20, 6.54),
    "2.3": (0.938, 0.337),
    "2.5": (0, 0.624, 0.963, 1.187, 1.349, 1.472, 1.570, 1.649),
    "3.1": 128,
    "3.2": 2.25,
    "3.3": (200, 20_000, 2_000_000),
    "4.1": np.zeros(6),
    "4.3": (0, 2.303),
    "4.4": 8192,
    "4.5": (0.25, 0.09, 0.0099),
    "5.1": (5e-6, 0.500, 5e-6, 5e-6, 0.500),
    "5.3": (0.050, 0.669, 0.281),
    "6.1": (64, 2_359_296, 4_026_531_840),
    "6.2": (13_824, 20_736),
    "6.3": (1_048_576, 2072.6, 16),
    "7.3": 3.50,
    "7.4": (512, 8),
    "8.1": [[12, 6], [15, 15]],
    "8.3": (6.28, 60_611, 123),
    "8.4": [6, 19],
    "9.1": (2_359_296, 4_722_432, 1536, 4608, 0.182),
    "10.1": 72,
    "10.2": (1600, 1),
    "10.3": 36,
    "10.5": (16, 16, 4),
    "dodatek 1": (0.00000, 0.00005, 0.99995),
    "dodatek 2": (1.609, 2.322, 1),
    "dodatek 3": (25_600_000, 25_599_488, 0),
    "dodatek 4": (0.091, 0.0032),
}

KEYS = sorted(CHECKS)


def test_every_check_has_the_books_answer_here():
    assert set(BOOK_ANSWERS) == set(CHECKS)


@pytest.mark.parametrize("key", KEYS)
def test_the_books_answer_is_accepted(key):
    result = verdict(key, BOOK_ANSWERS[key])
    assert result.correct is True, (key, result.message)
    assert result.message == "Správně."
    # the exact expected value too, also as a list or a NumPy array
    assert verdict(key, expected(key).tolist()).correct is True
    assert verdict(key, expected(key)).correct is True
    # an exact count computed in floating point (2 / 0.1² is 199.99999999999997)
    assert verdict(key, expected(key) * (1 - 1e-15)).correct is True
    if expected(key).ndim == 1:  # the same numbers as a column or a row of a table
        for shape in ((-1, 1), (1, -1)):
            assert verdict(key, expected(key).reshape(shape)).correct is True, (key, shape)


def _wrong_answers(e):
    """Answers that must be rejected: perturbed, sign flipped, scaled, wrong count, text."""
    shifted = np.where(e == 0, 0.37, e * 1.37)
    yield "perturbed by 37 %", shifted
    one_wrong = e.copy().ravel()
    one_wrong[-1] = 0.37 if one_wrong[-1] == 0 else one_wrong[-1] * 0.63
    yield "one element off", one_wrong.reshape(e.shape)
    if np.any(e != 0):
        yield "sign flipped", np.where(e == 0, 0.37, -e)
        yield "1 000 times larger", np.where(e == 0, 0.37, 1000 * e)
    yield "one number too many", np.append(e.ravel(), 1.5)
    if e.size > 1:
        yield "one number missing", e.ravel()[:-1]
    if e.ndim == 2:
        yield "flattened", e.ravel()
    yield "text", "nevím"
    yield "NaN", np.full(e.shape, np.nan)


@pytest.mark.parametrize("key", KEYS)
def test_wrong_answers_are_rejected(key):
    for what, answer in _wrong_answers(expected(key)):
        result = verdict(key, answer)
        assert result.correct is False, (key, what, result.message)
        assert result.message.startswith(("Zatím ne", "Čekám", "Odpověď", "V odpovědi")), \
            (key, what, result.message)


def test_the_message_says_how_far_off_without_the_value():
    assert verdict("3.1", 128 * 1.2).message == (
        "Zatím ne: odpověď je o 10 až 50 % větší, než má být.")
    assert verdict("3.1", 128 * 1.05).message.endswith("o 1 až 10 % větší, než má být.")
    assert verdict("3.1", 128 * 0.3).message.endswith("nejvýš polovina správné hodnoty.")
    # a power of two too small is exactly half: no band may say less than half
    assert verdict("4.4", 4096).message.endswith("je nejvýš polovina správné hodnoty.")
    assert verdict("4.4", 3 * 8192 / 2).message.endswith("aspoň o polovinu větší, než má být.")
    assert "opačné znaménko" in verdict("1.1", -16.95).message
    assert "řádově menší" in verdict("10.1", 0.072).message
    assert verdict("4.3", (0.5, 2.3)).message.startswith("Zatím ne: první číslo je větší")
    assert verdict("2.1", (874,)).message == "Čekám dvě čísla, odpověď jich má jedno."
    two = verdict("2.1", (874, 13_835)).message
    assert two.startswith("Zatím ne: druhé číslo je o ") and "ostatní jsou správně" in two
    assert "tabulku se dvěma řádky a dvěma sloupci" in verdict("8.1", [12, 6, 15, 15]).message
    assert "v jedné řadě" in verdict("4.1", np.zeros((2, 3))).message


def _formats(value):
    """The ways a chapter, Python or a student would write ``value``."""
    out = {repr(value), str(value), f"{value:g}", f"{value:e}"}
    for digits in range(7):
        out |= {f"{value:.{digits}f}", f"{value:,.{digits}f}", cz(value, digits)}
        out.add(cz(value, digits).replace("\u202f", " ").replace("\u00a0", " "))
    for digits in range(4):
        out |= {cz_sci(value, digits), f"{value:.{digits}e}"}
    if float(value).is_integer():
        n = int(value)
        out |= {str(n), f"{n:_}", f"{n:,}", cz(n, 0).replace("\u202f", " ")}
    if 0 < abs(value) < 1:
        out |= {cz(100 * value, digits) for digits in range(4)}  # as a percentage
    return {text.replace("-", "−") for text in out} | out


def _contains_number(message, text):
    """Whether ``text`` stands in ``message`` as a whole number (not inside another)."""
    group = "[\u202f\u00a0 ]"          # thousands are grouped by a (narrow) space
    pattern = (rf"(?<![\d.,])(?<!\d{group}){re.escape(text)}"
               rf"(?![.,]?\d)(?!{group}\d{{3}})")
    return re.search(pattern, message) is not None


def _without_bands(message):
    for _bound, band in _BANDS:
        message = message.replace(band, "")
    return message


@pytest.mark.parametrize("key", KEYS)
def test_no_message_contains_the_expected_value(key):
    e = expected(key)
    answers = [BOOK_ANSWERS[key], None, *(answer for _, answer in _wrong_answers(e))]
    # the bands' bounds (1, 10, 50 %) are the same for every exercise
    messages = {_without_bands(verdict(key, answer).message) for answer in answers}
    for value in {float(v) for v in e.ravel()}:
        for text in _formats(value):
            for message in messages:
                assert not _contains_number(message, text), (key, value, text, message)


@pytest.mark.parametrize("key", KEYS)
def test_one_try_gives_no_number_to_compute_the_answer_from(key):
    """A first guess (every number 1) is told which way it is off, in a band of the
    relative error at most: no factor or difference from which the answer follows."""
    message = _without_bands(verdict(key, np.ones(expected(key).shape)).message)
    assert not re.search(r"\d", message), (key, message)


def test_the_verdict_is_true_only_for_a_right_answer(capsys):
    """A solution writes ``assert check(key, answer)``: the verdict is true only if right."""
    assert check("10.3", 36) and not check("10.3", 37) and not check("10.3", None)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Správně." and out[1].startswith("Zatím ne") and out[2] == NO_ANSWER


def test_the_placeholder_prints_no_answer_yet(capsys):
    assert verdict("1.1", None).correct is None
    check("1.1", None)
    assert capsys.readouterr().out == NO_ANSWER + "\n"
    assert NO_ANSWER.startswith("Zatím žádná odpověď")


def test_an_unknown_exercise_is_a_clear_error():
    with pytest.raises(ValueError, match="expected: no check for exercise '1.9'"):
        verdict("1.9", 1.0)


# --- the chapters and the registry agree -------------------------------------------------

EXERCISE = re.compile(r"^```\{exercise-start\}.*?\n:label: (?P<label>\S+)\n(?P<body>.*?)"
                      r"^```\{exercise-end\}", re.M | re.S)
CELL = re.compile(r"^```\{code-cell\} ipython3\n(?P<source>.*?)^```$", re.M | re.S)
CALL = re.compile(r'check\("(?P<key>[^"]+)",\s')


def _pages():
    """(number prefix, page text) of every page with exercises: "2" or "dodatek"."""
    for path in sorted(BOOK.glob("*.md")):
        prefix = path.stem.split("_")[0]
        if prefix.isdigit():
            yield str(int(prefix)), path.read_text(encoding="utf-8")
        elif path.stem == "dodatek":
            yield "dodatek", path.read_text(encoding="utf-8")


def _solution(text, label):
    start = text.index(f"```{{solution-start}} {label}\n")
    return text[start:text.index("```{solution-end}", start)]


def _exercises():
    """(key as the HTML numbers it, label, exercise body, solution) of every exercise."""
    for prefix, text in _pages():
        for number, match in enumerate(EXERCISE.finditer(text), start=1):
            key = f"{prefix}.{number}" if prefix.isdigit() else f"{prefix} {number}"
            yield key, match["label"], match["body"], _solution(text, match["label"])


def test_every_exercise_with_a_check_is_registered_under_its_number_and_vice_versa():
    exercises = list(_exercises())
    assert len(exercises) >= 47
    called = {}
    for key, label, body, solution in exercises:
        keys = set(CALL.findall(body))
        assert keys <= {key}, f"{label} (cvičení {key}) calls check for {keys}"
        if keys:
            called[key] = label
            assert set(CALL.findall(solution)) == {key}, \
                f"the solution of {label} does not show check({key!r}, …)"
            assert f'assert check("{key}",' in solution, \
                f"the solution of {label} must assert that its own answer passes"
        else:
            assert not CALL.findall(solution), f"{label}: a check only in the solution"
    assert set(called) == set(CHECKS), (set(called) ^ set(CHECKS))


def test_the_students_cell_holds_only_the_placeholder():
    """The exercise's check cell shows no expected value: import, comments, the placeholder."""
    for key, label, body, _ in _exercises():
        cells = [m["source"] for m in CELL.finditer(body) if "check(" in m["source"]]
        if key not in CHECKS:
            continue
        assert len(cells) == 1, label
        code = [line for line in cells[0].splitlines() if line and not line.startswith("#")]
        assert code == ["from attention_display.checks import check", "answer = None",
                        f'check("{key}", answer)'], (label, code)
