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
