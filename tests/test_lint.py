"""ruff over the package, the tests, the benchmarks and the chapters' code cells."""

import re
import subprocess
import sys

import jupytext

from chapters import BOOK, ROOT, is_notebook

RUFF = [sys.executable, "-m", "ruff", "check", "--no-cache"]


def test_python_code_passes_ruff():
    result = subprocess.run(RUFF + ["attention_core", "attention_display", "tests", "benchmarks"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_chapter_code_cells_pass_ruff(tmp_path):
    for chapter in sorted(BOOK.glob("[0-9][0-9]_*.md")):
        jupytext.write(jupytext.read(chapter), tmp_path / f"{chapter.stem}.ipynb")
    result = subprocess.run(RUFF + ["--config", str(ROOT / "pyproject.toml"), str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_formula_colours_do_not_spill():
    """MathJax 3's \\color is a switch: bare, it colours the rest of the formula too."""
    for chapter in sorted(BOOK.glob("[0-9][0-9]_*.md")):
        text = chapter.read_text(encoding="utf-8")
        bare = [m.start() for m in re.finditer(r"(?<!\{)\\color\{", text)]
        assert not bare, f"{chapter.name}: write {{\\color{{#...}}{{x}}}} at offsets {bare}"



def test_computed_values_are_written_with_eval():
    """``{eval}`name``` shows the value in the HTML book and in JupyterLab alike
    (book/_ext/computed_values.py); ``{glue:text}`` and ``{glue:md}`` show the name there."""
    pages = sorted(BOOK.glob("[0-9][0-9]_*.md")) + [BOOK / "dodatek.md"]
    left = [f"{page.name}: {match.group()}" for page in pages
            for match in re.finditer(r"\{glue:(?:text|md)\}`[^`]*`", page.read_text("utf-8"))]
    assert not left, "write {eval}`name` instead:\n" + "\n".join(left)


#: Code lines in a chapter fit the text column at 1 280 px without scrolling (issue 21).
MAX_CODE_LINE = 80


def test_chapter_code_lines_fit_the_column():
    """Every line of every code cell of every notebook page, hidden cells included."""
    too_long = []
    for page in sorted(BOOK.glob("*.md")):
        if not is_notebook(page):
            continue
        cells = [cell for cell in jupytext.read(page).cells if cell.cell_type == "code"]
        for number, cell in enumerate(cells, start=1):
            for line_number, line in enumerate(cell.source.splitlines(), start=1):
                if len(line) > MAX_CODE_LINE:
                    too_long.append(f"{page.name}, code cell {number}, line {line_number}: "
                                    f"{len(line)} characters")
    assert not too_long, (f"code lines longer than {MAX_CODE_LINE} characters:\n"
                          + "\n".join(too_long))


#: Code fences whose content is not Markdown (a directive such as {prf:proof} holds Markdown).
CODE_FENCES = ("{code-cell}", "{code-block}", "{code}", "{math}", "{raw}")
#: What Markdown reads at the start of a line as a list item, a heading or a quote.
BLOCK_START = re.compile(r"([-+*]|\d+[.)])(\s|$)|#{1,6}\s|>")


def lines_opening_a_block_inside_inline_math(text):
    """``(line number, line)`` of every line that continues an open ``$...$`` but starts
    with ``+``, ``-``, ``*``, ``1.``, ``#`` or ``>``: Markdown parses it as a new list item
    (or heading, quote) and the formula breaks into raw TeX and text (review of chapter 9)."""
    found, fence, directives, display, inside = [], None, [], False, False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        marker = re.match(r"(`{3,}|~{3,})(.*)", stripped)
        if fence:
            if marker and marker.group(1) == fence and not marker.group(2).strip():
                fence = None
            continue
        if marker:
            info = marker.group(2).strip()
            if info.startswith("{") and not info.startswith(CODE_FENCES):
                directives.append(marker.group(1))
            elif not info and directives and marker.group(1) == directives[-1]:
                directives.pop()
            else:
                fence = marker.group(1)
            inside = False
            continue
        if display:
            display = "$$" not in stripped
            continue
        if not stripped:
            inside = False
            continue
        if inside and BLOCK_START.match(stripped):
            found.append((number, line))
        body = re.sub(r"`[^`]*`", "", line.replace("\\$", ""))
        if stripped.startswith("$$") and body.count("$$") == 1:
            display = True
            continue
        if body.replace("$$", "").count("$") % 2:
            inside = not inside
    return found


def test_no_line_inside_inline_math_starts_a_list():
    """Break a formula's line after its + or -, never before it."""
    broken = [f"{page.name}:{number}: {line.strip()}"
              for page in sorted(BOOK.glob("*.md"))
              for number, line in lines_opening_a_block_inside_inline_math(
                  page.read_text(encoding="utf-8"))]
    assert not broken, ("a line inside $...$ starts like a list item (end the line before "
                        "with the operator instead):\n" + "\n".join(broken))


def test_the_inline_math_check_finds_what_it_should():
    bad = ("Text $a\n+ b$ and more.\n\n- a list item $x$\n- another\n\n"
           "5. A step $\\sum_r \\big(a\n   + b\\big)$ with \\$5 and `$`.\n")
    assert [n for n, _ in lines_opening_a_block_inside_inline_math(bad)] == [2, 8]
    good = ("Text $a +\nb$ and\n- a list after text.\n\n$$\na\n+ b\n$$\n\n"
            "```{code-cell} ipython3\nx = '$'\n- 1\n```\n"
            "```{prf:proof}\nSee $a\n- b$.\n```\n")
    # only the proof's line: a directive such as {prf:proof} holds Markdown
    assert [n for n, _ in lines_opening_a_block_inside_inline_math(good)] == [16]
