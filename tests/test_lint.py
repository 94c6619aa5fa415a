"""ruff over the package, the tests, the benchmarks and the chapters' code cells."""

import re
import subprocess
import sys

import jupytext

from chapters import BOOK, ROOT

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
