"""Store the chapters in the exact form JupyterLab (with jupytext) saves them.

    python tests/normalize_chapters.py                # every notebook of the book
    python tests/normalize_chapters.py book/02_*.md   # some of them
    python tests/normalize_chapters.py --check        # only report; exit 1 if one would change

Run it after editing or merging a chapter; ``tests/test_notebook_form.py`` fails until it
has been run. What it does to a chapter, and why:

1. **Formulas in JupyterLab.** jupyterlab-myst typesets with KaTeX and reads math macros
   only from a MyST front matter at the top of the notebook's first Markdown cell. So the
   first cell holds ``math:`` with the book's term macros (``\\dotaz`` ... ``\\vystup``),
   generated from the same source as the HTML book's
   (``attention_display.style.myst_math_frontmatter``). The cell is tagged
   ``remove-cell``: the HTML book does not show it (myst-nb skips such cells).
2. **Folded code in JupyterLab, as in the HTML book.** A code cell tagged ``hide-input``,
   and every code cell of a solution (between ``solution-start`` and ``solution-end``),
   gets JupyterLab's ``jupyter: {source_hidden: true}``; metadata that no longer matches
   a tag or a solution is removed. No cell gets ``outputs_hidden``: a MyST notebook keeps
   no outputs, and JupyterLab shows a cell's outputs again whenever it runs the cell
   (``CodeCell.execute`` sets ``outputHidden = false``), so the flag would hide nothing
   and Ctrl+S after Run All would remove it from the file.
3. **The kernelspec JupyterLab writes**: the display name of the installed ``python3``
   kernel ("Python 3 (ipykernel)").
4. **Written by jupytext's contents manager, as JupyterLab saves** (key order, YAML
   wrapping of long metadata such as alt texts, blank lines), so that opening a chapter in
   JupyterLab and pressing Ctrl+S changes no byte.
"""

import argparse
import asyncio
import copy
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # attention_core

from attention_display.style import myst_math_frontmatter  # noqa: E402
from chapters import chapter_paths  # noqa: E402

#: Tags that hide (or remove) a code cell's source in the HTML book.
SOURCE_TAGS = {"hide-input", "remove-input", "hide-cell", "remove-cell"}

_GATE = re.compile(r"^(?:```+|:::+)\{(solution-start|solution-end)\}", re.M)


def kernel_metadata():
    """The kernelspec and language_info a JupyterLab of this installation gives a notebook
    whose kernel is ``python3`` (what the running kernel reports)."""
    from ipykernel.ipkernel import IPythonKernel
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    kernelspec = {"name": "python3", "display_name": spec.display_name,
                  "language": spec.language}
    return kernelspec, copy.deepcopy(IPythonKernel.language_info)


def math_macros():
    """The term macros for a MyST ``math:`` front matter, escaped for KaTeX.

    In a macro body a single ``#`` is a parameter for KaTeX as for MathJax, so the ``#``
    of a colour is doubled (``\\color{##B84F00}``); with one ``#`` jupyterlab-myst shows
    the formula as an error.
    """
    bodies = dict(myst_math_frontmatter())
    return {name: re.sub(r"(?<!#)#([0-9A-Fa-f]{6})(?![0-9A-Fa-f])", r"##\1", body)
            for name, body in bodies.items()}


def frontmatter_source():
    return "---\n" + yaml.safe_dump({"math": math_macros()}, allow_unicode=True,
                                    sort_keys=False) + "---"


def is_frontmatter_cell(cell):
    return cell.cell_type == "markdown" and cell.source.startswith("---\n")


def solution_cells(nb):
    """Indices of the code cells between a ``solution-start`` and its ``solution-end``."""
    inside, found = False, []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            for gate in _GATE.findall(cell.source):
                inside = gate == "solution-start"
        elif cell.cell_type == "code" and inside:
            found.append(index)
    return found


def folding(nb):
    """For every code cell: the ``jupyter`` metadata it must carry ({} for none)."""
    in_solution = set(solution_cells(nb))
    wanted = {}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tags = set(cell.metadata.get("tags", []))
        flags = {}
        if tags & SOURCE_TAGS or index in in_solution:
            flags["source_hidden"] = True
        wanted[index] = flags
    return wanted


def _apply_folding(nb):
    for index, flags in folding(nb).items():
        metadata = nb.cells[index].metadata
        other = {k: v for k, v in metadata.get("jupyter", {}).items()
                 if k not in ("source_hidden", "outputs_hidden")}
        jupyter = {**other, **flags}
        if jupyter:
            metadata["jupyter"] = jupyter
        else:
            metadata.pop("jupyter", None)


def normalize_notebook(nb):
    """Change ``nb`` (as jupytext reads a chapter) into the form the chapters are kept in."""
    import nbformat

    cell = nbformat.v4.new_markdown_cell(frontmatter_source(), metadata={"tags": ["remove-cell"]})
    if nb.cells and is_frontmatter_cell(nb.cells[0]):
        nb.cells[0].source = cell.source
        nb.cells[0].metadata = cell.metadata
    else:
        nb.cells.insert(0, cell)
    _apply_folding(nb)
    kernelspec, _language_info = kernel_metadata()
    spec = nb.metadata.setdefault("kernelspec", {})
    for key, value in kernelspec.items():
        spec[key] = value  # keeps the order of the keys already there


def _as_jupyterlab(nb):
    """What JupyterLab does to a notebook's model between opening and saving it: the
    kernel's spec and language are set unless equal (deep equality), and a cell whose
    outputs are hidden gets the legacy ``collapsed`` flag."""
    kernelspec, language_info = kernel_metadata()
    for key, value in (("kernelspec", kernelspec), ("language_info", language_info)):
        if json.dumps(nb.metadata.get(key), sort_keys=True) != json.dumps(value, sort_keys=True):
            nb.metadata[key] = value
    for cell in nb.cells:
        hidden = cell.metadata.get("jupyter", {}).get("outputs_hidden")
        if hidden is not None:
            cell.metadata["collapsed"] = hidden


async def _through_contents_manager(path, change):
    """Open ``path`` and save it through jupytext's contents manager (the one JupyterLab's
    server uses), calling ``change(notebook)`` in between; return the text saved."""
    import jupytext
    from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager

    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(path, folder)
        manager = jupytext.build_async_jupytext_contents_manager_class(
            AsyncLargeFileManager)(root_dir=folder)
        model = await manager.get(path.name, content=True, type="notebook")
        change(model["content"])
        await manager.save({"type": "notebook", "format": "json",
                            "content": model["content"]}, path.name)
        return (Path(folder) / path.name).read_text(encoding="utf-8")


def saved_by_jupyterlab(path):
    """The text of ``path`` after a reader opens it in JupyterLab and saves it."""
    return asyncio.run(_through_contents_manager(Path(path), _as_jupyterlab))


def normalized(path):
    """The text ``path`` should have: normalised until a further pass changes nothing (a
    code cell that starts with a blank line loses it on the second pass through jupytext)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder) / path.name
        for _ in range(3):
            work.write_text(text, encoding="utf-8")
            new = asyncio.run(_through_contents_manager(work, normalize_notebook))
            if new == text:
                return text
            text = new
    raise AssertionError(f"{path.name}: no stable form after 3 passes through jupytext")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path,
                        help="chapters (default: every notebook in book/_toc.yml)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a "
                        "chapter is not in its normal form")
    args = parser.parse_args(argv)
    paths = args.paths or chapter_paths()
    changed = []
    for path in paths:
        text = normalized(path)
        if text != path.read_text(encoding="utf-8"):
            changed.append(path)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    verb = "would change" if args.check else "changed"
    for path in changed:
        print(f"{verb}: {path}")
    print(f"{len(changed)} of {len(paths)} {verb}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
