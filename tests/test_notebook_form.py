"""The chapters as JupyterLab keeps them (issue 14): saving changes nothing, folded code.

A reader opens a chapter in JupyterLab (through jupytext) and presses Ctrl+S: the file must
not change. ``saved_by_jupyterlab`` opens and saves a copy through jupytext's contents
manager, the one JupyterLab's server uses, after doing to the notebook what JupyterLab
does (the kernel's spec and language). The end-to-end test (``test_jupyterlab.py``) does
the same in a real JupyterLab. Every check names the fix: ``python
tests/normalize_chapters.py`` writes a chapter in its normal form.
"""

import nbformat
import pytest
from normalize_chapters import (
    folding,
    frontmatter_source,
    math_macros,
    normalized,
    saved_by_jupyterlab,
    solution_cells,
)

from chapters import chapter_paths

FIX = "run `python tests/normalize_chapters.py` and commit the result"

CHAPTERS = [p for p in chapter_paths() if p.exists()]


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_saving_in_jupyterlab_changes_nothing(path):
    assert saved_by_jupyterlab(path) == path.read_text(encoding="utf-8"), (
        f"{path.name}: opened in JupyterLab and saved, the file would change; {FIX}")


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_chapter_is_in_its_normal_form(path):
    """Math macros for JupyterLab in the first cell, folding metadata, kernelspec, layout."""
    assert normalized(path) == path.read_text(encoding="utf-8"), (
        f"{path.name} is not in its normal form; {FIX}")


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_hidden_code_is_folded_in_jupyterlab_too(path):
    """``hide-input`` and JupyterLab's ``source_hidden`` always go together (both ways);
    a solution's code cells have their source folded too; no cell has ``outputs_hidden``
    (JupyterLab clears it when it runs the cell, so saving would change the file)."""
    import jupytext

    nb = jupytext.read(path)
    problems = []
    for index, wanted in folding(nb).items():
        cell = nb.cells[index]
        jupyter = cell.metadata.get("jupyter", {})
        shown = {k: True for k in ("source_hidden", "outputs_hidden") if jupyter.get(k)}
        if shown != wanted:
            first = cell.source.splitlines()[0] if cell.source else ""
            problems.append(f"cell {index} ({first[:50]!r}), tags "
                            f"{cell.metadata.get('tags', [])}: jupyter {shown}, wanted {wanted}")
    assert not problems, f"{path.name}: {FIX}\n" + "\n".join(problems)


def test_solution_cells_are_the_code_between_the_gates():
    cells = [
        nbformat.v4.new_markdown_cell("```{exercise-start}\n:label: cv-00-a\n```\nText."),
        nbformat.v4.new_code_cell("x = 1"),                                     # 1: exercise
        nbformat.v4.new_markdown_cell("```{exercise-end}\n```"),
        nbformat.v4.new_markdown_cell("```{solution-start} cv-00-a\n:class: dropdown\n```\nWhy."),
        nbformat.v4.new_code_cell("assert x == 1"),                             # 4: solution
        nbformat.v4.new_code_cell("print(x)", metadata={"tags": ["hide-input"]}),  # 5
        nbformat.v4.new_markdown_cell("```{solution-end}\n```\n\n```{exercise-start}\n"
                                      ":label: cv-00-b\n```\nNext.\n```{exercise-end}\n```"),
        nbformat.v4.new_code_cell("y = 2", metadata={"tags": ["hide-input"]}),  # 7
        nbformat.v4.new_code_cell("z = 3", metadata={"tags": ["remove-output"]}),  # 8
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    assert solution_cells(nb) == [4, 5]
    hidden = {"source_hidden": True}
    assert folding(nb) == {1: {}, 4: hidden, 5: hidden, 7: hidden, 8: {}}


def test_math_macros_for_katex_double_the_hash_of_a_colour():
    macros = math_macros()
    assert set(macros) >= {"\\dotaz", "\\klic", "\\skore", "\\vaha", "\\hodnota", "\\vystup"}
    for name, body in macros.items():
        if name != "\\phonebreak":  # its argument, no colour (book/_ext/book_math.py)
            assert "#1" in body and "\\color{##" in body, (name, body)
    assert macros["\\phonebreak"] == "#1"
    assert frontmatter_source().startswith("---\nmath:\n") and frontmatter_source().endswith("---")
