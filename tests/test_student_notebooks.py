"""Issue 20, item 4: the student and the teacher edition of every reader's notebook.

For every chapter the built site has ``notebooks/<page>.ipynb`` (the teacher's edition, with
the solutions folded) and ``notebooks/<page>-bez-reseni.ipynb`` (the student's). The
student's edition holds nothing of any solution: compared against the solutions of the
chapter's source (everything between ``{solution-start}`` and ``{solution-end}``), none of
their prose, none of their code lines (the hidden asserts with the answers' numbers among
them) and no output is in it, while the teacher's edition holds them all, which shows that
the comparison finds what it looks for. The student's edition still runs top to bottom: no
code cell uses a name that only a solution defined (for every chapter, read from the code),
and two chapters are executed. Both editions are in the download menu of every chapter page
of the built HTML, under their Czech names.
"""

import ast
import builtins
import re
import sys

import jupytext
import nbformat
import pytest
from bs4 import BeautifulSoup
from nbclient import NotebookClient

from chapters import BOOK, chapter_paths

sys.path.insert(0, str(BOOK / "_ext"))
import reader_notebooks  # noqa: E402

#: The chapters whose student editions the test executes (cheap ones, with exercise cells
#: that build on the chapter's variables).
EXECUTED = ("01_mekky_slovnik", "dodatek")

#: What is not plain prose: math, roles, code, markup and punctuation that the reader's
#: notebook rewrites.
NOT_PROSE = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\{[a-z:]+\}`[^`]*`|`[^`]*`|[*_\[\](){}<>|\\#]",
                       re.S)
DIRECTIVE = re.compile(r"^(?:`{3,}|:{3,}|:[\w-]+:)")


def editions(html, path):
    folder = html / "notebooks"
    return (nbformat.read(str(folder / f"{path.stem}.ipynb"), as_version=4),
            nbformat.read(str(folder / f"{path.stem}-bez-reseni.ipynb"), as_version=4))


def source_parts(path):
    """The chapter's solutions and the rest: (solution prose, solution code cells, other
    prose, other code), from its MyST source."""
    inside = False
    parts = {"sol_text": [], "sol_code": [], "text": [], "code": []}
    for cell in jupytext.read(path).cells:
        if cell.cell_type == "code":
            parts["sol_code" if inside else "code"].append(cell.source)
            continue
        text, position = cell.source, 0
        for marker in re.finditer(r"^```\{(solution-start|solution-end)\}.*$", text, re.M):
            parts["sol_text" if inside else "text"].append(text[position:marker.start()])
            inside, position = marker[1] == "solution-start", marker.end()
        parts["sol_text" if inside else "text"].append(text[position:])
    return {key: "\n\n".join(value) if "text" in key else value for key, value in parts.items()}


def phrases(text):
    """Runs of at least six plain words of a text (across the line breaks of a paragraph),
    whitespace collapsed; directives' fences and options left out."""
    found = set()
    for paragraph in re.split(r"\n\s*\n", text):
        lines = [line for line in paragraph.split("\n") if not DIRECTIVE.match(line)]
        for run in NOT_PROSE.sub("\n", " ".join(lines)).split("\n"):
            if len(run.split()) >= 6:
                found.add(" ".join(run.split()).strip(" ,.;:–"))
    return found


def plain(nb, kind):
    return " ".join(" ".join(c.source.split()) for c in nb.cells if c.cell_type == kind)


def code_lines(sources):
    return {line.strip() for source in sources for line in source.split("\n")}


@pytest.mark.parametrize("path", chapter_paths(), ids=lambda p: p.stem)
def test_student_edition_has_no_solution(built_html, path):
    teacher, student = editions(built_html, path)
    parts = source_parts(path)
    assert parts["sol_code"] or parts["sol_text"].strip(), f"{path.name}: no solutions found"
    # prose: the solutions' own phrases (not also in the chapter outside them)
    own = {p for p in phrases(parts["sol_text"]) if p not in " ".join(parts["text"].split())}
    assert len(own) >= 5, f"{path.name}: too few phrases to compare ({len(own)})"
    teacher_text, student_text = plain(teacher, "markdown"), plain(student, "markdown")
    missing = sorted(p for p in own if p not in teacher_text)
    assert not missing, f"{path.name}: the comparison misses the teacher's text: {missing[:3]}"
    leaked = sorted(p for p in own if p in student_text)
    assert not leaked, f"{path.name}: solution text in the student edition: {leaked[:5]}"
    # code: every solution cell in the teacher's edition, none of its own lines in the student's
    teacher_code = [c.source for c in teacher.cells if c.cell_type == "code"]
    assert all(source in teacher_code for source in parts["sol_code"]), path.name
    own_lines = {line for line in code_lines(parts["sol_code"]) - code_lines(parts["code"])
                 if len(line) >= 12}
    student_lines = code_lines(c.source for c in student.cells if c.cell_type == "code")
    leaked = sorted(own_lines & student_lines)
    assert not leaked, f"{path.name}: solution code in the student edition: {leaked[:5]}"
    assert any(line.startswith("assert") for line in own_lines), path.name  # compared too
    # nothing else of a solution: no tag, no folded block, no output
    assert not any("solution" in c.metadata.get("tags", []) for c in student.cells)
    assert "Řešení ke cvičení" not in student_text
    assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code")
    # the exercises are all there, and the notes say what is left out
    headings = re.compile(r"^#### Cvičení \d+(?:\.\d+)?.*$", re.M)
    assert (headings.findall("\n".join(c.source for c in student.cells))
            == headings.findall("\n".join(c.source for c in teacher.cells)))
    assert student_text.count("Notebook bez řešení.") == 1
    assert student.cells[0].source == teacher.cells[0].source  # the install cell
    # the introduction of "Cvičení" does not speak of folded solutions the edition lacks
    intro = exercises_intro(student)
    assert "V tomto vydání řešení chybějí." in intro, path.name
    assert not reader_notebooks.FOLDED_SOLUTIONS.search(intro), f"{path.name}: {intro}"


def exercises_intro(nb):
    """The text between a notebook's heading "Cvičení" and its first exercise."""
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    start = re.search(r"^## Cvičení[ \t]*$", text, re.M).end()
    return text[start:start + re.search(r"^#### ", text[start:], re.M).start()]


def test_student_notes_replace_the_paragraph_on_folded_solutions():
    folded = ("Každé řešení je sbalené pod svým cvičením; rozbalte ho až po vlastním pokusu.\n"
              "Cvičení potřebují běžící notebook.")
    exercises = f"Shrnutí.\n\n## Cvičení\n\n{folded}\n\nDruhý odstavec zůstane.\n\n"
    cells = [nbformat.v4.new_markdown_cell("# Kapitola\n\nÚvod."),
             nbformat.v4.new_markdown_cell(exercises + "#### Cvičení 1.1\n\nZadání."),
             nbformat.v4.new_markdown_cell("#### Cvičení 1.2 (Sbalené bloky)\n\nZadání.")]
    reader_notebooks.add_student_notes(cells)
    assert "Notebook bez řešení." in cells[0].source
    notes = list(reader_notebooks.STUDENT_NOTES.values())
    assert cells[1].source == (f"Shrnutí.\n\n## Cvičení\n\n{notes[1]}\n\n"
                               "Druhý odstavec zůstane.\n\n#### Cvičení 1.1\n\nZadání.")
    assert cells[2].source == "#### Cvičení 1.2 (Sbalené bloky)\n\nZadání."  # exercises kept
    ends = [nbformat.v4.new_markdown_cell(f"## Cvičení\n\n{folded}")]
    reader_notebooks.add_student_notes(ends)
    assert ends[0].source == f"## Cvičení\n\n{notes[1]}\n"


def unbound(cells):
    """Per code cell (by its source), the names it reads that no earlier cell and no part of
    itself binds: a cell that would stop with a NameError, or a false alarm that both
    editions share (IPython's names, a name bound in a branch not taken)."""
    bound = set(dir(builtins)) | {"display", "get_ipython", "In", "Out"}
    found = []
    for cell in cells:
        if cell.cell_type != "code":
            continue
        tree = ast.parse("\n".join(line for line in cell.source.split("\n")
                                   if not line.lstrip().startswith(("%", "!"))))
        binds = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                 and isinstance(n.ctx, ast.Store | ast.Del)}
        binds |= {n.name for n in ast.walk(tree) if isinstance(
            n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
        binds |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
        binds |= {(a.asname or a.name).split(".")[0] for n in ast.walk(tree)
                  if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names}
        reads = {n.id for n in ast.walk(tree)
                 if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        found.append((cell.source, reads - bound - binds))
        bound |= binds
    return found


@pytest.mark.parametrize("path", chapter_paths(), ids=lambda p: p.stem)
def test_student_edition_uses_no_name_only_a_solution_defines(built_html, path):
    teacher, student = editions(built_html, path)
    in_teacher = dict(unbound(teacher.cells))
    extra = {source.split("\n")[0]: sorted(names - in_teacher[source])
             for source, names in unbound(student.cells) if names - in_teacher[source]}
    assert not extra, f"{path.name}: cells of the student edition need a solution: {extra}"


@pytest.mark.parametrize("page", EXECUTED)
def test_student_edition_runs_top_to_bottom(built_html, page, tmp_path):
    """In this environment (the book's packages are installed, so the install cell installs
    nothing), from an empty folder."""
    path = built_html / "notebooks" / f"{page}-bez-reseni.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, errors[:1]
    streams = [o.text for c in nb.cells for o in c.get("outputs", [])
               if o.output_type == "stream" and o.name == "stderr"]
    assert not streams, streams[:3]


def test_both_editions_in_every_download_menu(built_html):
    for path in chapter_paths():
        soup = BeautifulSoup((built_html / f"{path.stem}.html").read_text(encoding="utf-8"),
                             "html.parser")
        menu = soup.select_one(".dropdown-download-buttons .dropdown-menu")
        assert menu is not None, f"{path.stem}: no download menu"
        entries = {a.get_text(" ", strip=True): a["href"] for a in menu.select("a[href]")}
        assert entries.get("Notebook s řešeními") == f"notebooks/{path.stem}.ipynb", entries
        assert (entries.get("Notebook bez řešení")
                == f"notebooks/{path.stem}-bez-reseni.ipynb"), entries
        for href in (entries["Notebook s řešeními"], entries["Notebook bez řešení"]):
            assert (built_html / href).is_file(), href
        tooltips = [a.get("title", "") for a in menu.select("a[href$='.ipynb']")]
        assert any("bez řešení" in t for t in tooltips), tooltips
