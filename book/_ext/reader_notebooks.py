"""A reader's notebook of every chapter: ``<site>/notebooks/<page>.ipynb``, for any Jupyter.

Made at the end of the build from three things the build already has: the chapter's MyST
source (its cells), the values its executed notebook glued (``jupyter_execute/<page>.glue.json``)
and the chapter's HTML page (the numbers and titles Sphinx gave to definitions, exercises and
references, and the Czech text of each citation). Plain Jupyter (Colab, classic Notebook,
VS Code, JupyterLab with or without jupyterlab-myst) renders CommonMark, HTML and math, so:

* the first cell installs ``attention_core`` and ``attention_display`` from the book's
  wheels (``book_wheels.py``) when they are missing: from ``BOOK_BASE_URL`` (baked in at build
  time, or set in the reader's environment), else from ``../wheels/`` beside a notebook opened
  inside a locally built book;
* every glued value stands in the prose (``{eval}``, ``{glue:text}``, ``{glue:md}``);
* definitions, theorems and other boxes become headed blocks with the book's Czech titles
  and numbers ("Definice 1.1 (Pozornost)"), exercises are numbered as in the HTML book;
  references, glossary terms and chapters become links to the hosted pages; citations read
  "Vaswani a kol. (2017)" as in the book;
* the term colours' macros (``\\dotaz{q}`` ...) are expanded into ``{\\color{#...}{q}}``,
  which MathJax 2 and 3 and KaTeX all read: a macro defined in one cell is not seen by
  KaTeX in another cell (VS Code, jupyterlab-myst), nor by a renderer that typesets cell by
  cell;
* each solution's text is in a collapsed ``<details>``; its code cells carry the tag
  ``solution`` and a hidden source (``jupyter.source_hidden``; Colab: ``cellView: form``);
* index entries, targets ``(label)=`` and the front matter are left out.

Two editions of every chapter (issue 20): the teacher's, ``<page>.ipynb``, with the solutions
as above, and the student's, ``<page>-bez-reseni.ipynb``, without any: everything between a
``{solution-start}`` and its ``{solution-end}`` (the text and every code cell, with the hidden
asserts that check the solution's numbers) is left out, and a note under the chapter's title
and under "Cvičení" says so (replacing there the paragraph on folded solutions). Neither
edition has outputs. The download menu offers both,
"Notebook s řešeními" and "Notebook bez řešení" (``attention_book.py``).
"""

import ast
import json
import re
from pathlib import Path

import nbformat
from bs4 import BeautifulSoup

from attention_display import style

#: Where the reader's notebooks land in the HTML output.
FOLDER = "notebooks"

#: The tag of a solution's code cells in the teacher's edition.
SOLUTION_TAG = "solution"

#: The student edition's file name after the page's name: ``<page>-bez-reseni.ipynb``.
STUDENT_SUFFIX = "-bez-reseni"

#: What the student edition says under the chapter's title and under "Cvičení".
STUDENT_NOTES = {
    r"^# .+$": "> **Notebook bez řešení.** V tomto vydání kapitoly nejsou řešení cvičení, ani "
               "jejich text, ani jejich kód či výstupy. Najdete je v knize, sbalená pod každým "
               "cvičením, a v notebooku s řešeními; o nich mluví i text kapitoly, když zmiňuje "
               "sbalená řešení.",
    r"^## Cvičení[ \t]*$": "> V tomto vydání řešení chybějí. Buňky, které patří k zadání "
                           "cvičení, zůstaly: v nich své odpovědi ověříte.",
}

#: A paragraph of the "Cvičení" introduction that speaks of the folded solutions ("Každé
#: řešení je sbalené pod svým cvičením; rozbalte ho …"): the student edition has none, so it
#: leaves the paragraph out rather than contradict its own note.
FOLDED_SOLUTIONS = re.compile(r"sbalen|rozbal", re.I)

ROLE = re.compile(r"\{(?P<role>[a-z:]+)\}`(?P<body>[^`]*)`")
EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[a-z:-]+)\}[ \t]*(?P<arg>.*)$")
BOXES = {"prf:definition", "prf:theorem", "prf:lemma", "prf:proof", "admonition",
         "note", "tip", "important", "warning"}


def install_cell(base_url, version, packages):
    """The notebook's first cell: install the book's packages from its site if missing."""
    wheels = ", ".join(repr(p) for p in packages)
    return f'''# Nainstaluje balíčky knihy ({", ".join(packages)}) z jejího webu, pokud tu chybějí.
import importlib.metadata
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

BOOK = os.environ.get("BOOK_BASE_URL") or {base_url!r}
VERSION = {version!r}
PACKAGES = ({wheels},)


def installed(package):
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


# balíčky z pracovní kopie repozitáře knihy (pip install -e .) nepřepisujeme
from_checkout = all(importlib.util.find_spec(p) and not installed(p) for p in PACKAGES)
if not from_checkout and any(installed(p) != VERSION for p in PACKAGES):
    files = [f"{{p}}-{{VERSION}}-py3-none-any.whl" for p in PACKAGES]
    local = Path("..", "wheels")
    if BOOK:
        wheels = [BOOK.rstrip("/") + "/wheels/" + f for f in files]
    elif all((local / f).exists() for f in files):
        wheels = [str(local / f) for f in files]
    else:
        raise RuntimeError("Nevím, odkud balíčky knihy nainstalovat: nastavte proměnnou "
                           "prostředí BOOK_BASE_URL na adresu knihy.")
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", *wheels])
    importlib.invalidate_caches()
'''


class Page:
    """What the HTML page of one chapter says: box titles in order, citations in order,
    and the text of every internal link by its target."""

    def __init__(self, html_path):
        soup = BeautifulSoup(html_path.read_text(encoding="utf-8"), "html.parser")
        main = soup.select_one("main") or soup
        self.titles = {}
        for box in main.select("div.admonition"):
            classes = box.get("class", [])
            title = box.find("p", class_="admonition-title")
            if title is None or "hide" in classes:
                continue
            kind = next((c for c in ("exercise", "solution", "definition", "theorem", "lemma")
                         if c in classes), "admonition")
            self.titles.setdefault(kind, []).append(title.get_text(" ", strip=True))
        self.citations = [span.get_text("", strip=True)
                          for span in main.select("span.bibtex-citation")]
        self.links = {}
        for a in main.select("a.reference.internal"):
            href = a.get("href", "")
            if "#" in href:
                self.links.setdefault(href.split("#", 1)[1], (href, a.get_text("", strip=True)))

    def next_title(self, kind):
        titles = self.titles.get(kind, [])
        return titles.pop(0) if titles else None


class Converter:
    """Turns one chapter's MyST Markdown cells into plain Jupyter Markdown."""

    def __init__(self, env, page, glue, base, docname, solutions=True):
        self.env, self.page, self.glue, self.base, self.docname = env, page, glue, base, docname
        self.solutions = solutions  # False: the student edition, every solution left out
        self.std = env.domaindata["std"]  # "labels", "objects"
        self.macros = {name: body for name, (body, _n) in
                       style.mathjax_macros(inline_colors=True).items()}
        self.in_solution = False
        self.solution_title = None
        self.solution_parts = 0
        self.missing = []

    # -- inline: glue, roles, macros

    def glued(self, name, markdown):
        data = self.glue.get(name, {}).get("data", {})
        if markdown and "text/markdown" in data:
            return data["text/markdown"]
        text = data.get("text/plain")
        if text is None:
            self.missing.append(name)
            return name
        try:
            value = ast.literal_eval(text)
            return value if isinstance(value, str) else text
        except (ValueError, SyntaxError):
            return text

    def url(self, docname, anchor=""):
        return f"{self.base}{docname}.html" + (f"#{anchor}" if anchor else "")

    def role(self, match):
        role, body = match["role"], match["body"]
        explicit = EXPLICIT.match(body)
        text, target = (explicit["text"], explicit["target"]) if explicit else (None, body)
        if role in ("glue:text", "glue"):
            return self.inline(self.glued(body, markdown=False))
        if role in ("glue:md", "eval"):  # eval: Markdown if the value is (computed_values.py)
            return self.inline(self.glued(body, markdown=True))
        if role == "term":
            found = self.std["objects"].get(("term", target.lower()))
            if found is None:
                return text or target
            return f"[{text or target}]({self.url(found[0], found[1])})"
        if role == "doc":
            if target not in self.env.titles:  # a page left out of this build
                return text or target
            return f"[{text or self.env.titles[target].astext()}]({self.url(target)})"
        if role == "ref":
            if target not in self.std["labels"]:
                return text or target
            docname, labelid, section = self.std["labels"][target]
            return f"[{text or section}]({self.url(docname, labelid)})"
        if role in ("prf:ref", "numref", "eq"):
            href, shown = self.page.links.get(target, (None, target))
            if href is None:
                return text or target
            if text and "%s" in text:  # {numref}`cvičení %s <label>`: the page's own words
                text = shown
            href = href if "://" in href else self.base + (href if not href.startswith("#")
                                                            else f"{self.docname}.html{href}")
            return f"[{text or shown}]({href})"
        if role.startswith("cite"):
            return self.page.citations.pop(0) if self.page.citations else target
        return text or target

    def inline(self, text):
        return ROLE.sub(self.role, text)

    def expand_macros(self, text):
        """``\\dotaz{q}`` -> ``{\\color{#B84F00}{q}}`` (balanced braces)."""
        for name, body in self.macros.items():
            start = 0
            pattern = "\\" + name + "{"
            while (i := text.find(pattern, start)) >= 0:
                depth, j = 0, i + len(pattern) - 1
                while j < len(text):
                    depth += {"{": 1, "}": -1}.get(text[j], 0)
                    if depth == 0:
                        break
                    j += 1
                argument = text[i + len(pattern):j]
                replacement = body.replace("#1", argument)
                text = text[:i] + replacement + text[j + 1:]
                start = i + len(replacement)
        import book_math  # a formula's phone-only break: plain Jupyter has one width

        return book_math.resolve(text, narrow=False)

    # -- blocks: directives, targets, solutions

    def title(self, kind, source_title, fallback):
        """``Definice 1.1 (Pozornost)``: the title the HTML page gave the box (its number
        and name), or without the page the source's name after ``fallback``."""
        html = self.page.next_title(kind)
        if html:  # MathJax's delimiters of the page back to the notebook's
            return re.sub(r"\\\((.*?)\\\)", r"$\1$", html)
        source_title = self.inline(source_title.strip())
        return f"{fallback} ({source_title})" if source_title else fallback

    def markdown(self, source):
        """One Markdown cell; returns its new text ('' to drop the cell)."""
        lines = source.split("\n")
        out, parts = [], []
        i = 0
        while i < len(lines):
            line = lines[i]
            if re.match(r"^\([\w-]+\)=\s*$", line):
                i += 1
                continue
            fence = FENCE.match(line)
            if not fence:
                out.append(line)
                i += 1
                continue
            closing = fence["fence"]
            j = i + 1
            options, body = {}, []
            while j < len(lines) and re.match(r"^:[\w-]+:", lines[j]):
                key, _, value = lines[j][1:].partition(":")
                options[key] = value.strip()
                j += 1
            while j < len(lines) and lines[j].strip() != closing:
                body.append(lines[j])
                j += 1
            i = j + 1
            out.extend(self.directive(fence["name"], fence["arg"], options, "\n".join(body),
                                      out, parts))
        parts.append(("\n".join(out), self.in_solution))
        text = "".join(self.wrap_solution(part, inside) for part, inside in parts)
        text = re.sub(r"\n{3,}", "\n\n", self.expand_macros(self.inline(text)))
        return text.strip("\n")

    def directive(self, name, arg, options, body, out, parts):
        """The lines that replace one directive; a solution's start or end splits the cell
        into parts (inside / outside a ``<details>``)."""
        if name == "index":
            return []
        if name == "exercise-start":
            return ["", f"#### {self.title('exercise', arg, 'Cvičení')}", ""]
        if name in ("exercise-end",):
            return []
        if name == "solution-start":
            parts.append(("\n".join(out), self.in_solution))
            out.clear()
            self.in_solution = True
            self.solution_title = self.title("solution", "", "Řešení")
            self.solution_parts = 0
            return []
        if name == "solution-end":
            parts.append(("\n".join(out), True))
            out.clear()
            self.in_solution = False
            return []
        if name == "prf:proof":
            return ["", "*Důkaz.* " + body.lstrip(), "", "∎", ""]
        if name in BOXES:
            kind = name.removeprefix("prf:")
            if "dropdown" in options.get("class", ""):
                return ["", "<details>", f"<summary>{self.inline(arg)}</summary>", "",
                        body, "", "</details>", ""]
            heading = self.title(kind, arg, arg or kind) if name.startswith("prf:") else arg
            return ["", f"**{heading}.**", "", body, ""]
        return [body]

    def wrap_solution(self, text, inside):
        """A part of a cell inside a solution goes into a collapsed ``<details>`` (the
        student edition leaves it out)."""
        if inside and not self.solutions:
            return ""
        if not inside or not text.strip():
            return text
        self.solution_parts += 1
        summary = self.solution_title + ("" if self.solution_parts == 1 else " (pokračování)")
        return f"\n<details>\n<summary>{summary}</summary>\n\n{text.strip()}\n\n</details>\n"


def reader_notebook(source_path, html_path, glue_path, env, docname, base, install,
                    solutions=True):
    """The reader's notebook of one chapter (an ``nbformat`` notebook); ``base`` is the
    address links to the book start with, ``install`` the code of the first cell;
    ``solutions=False`` makes the student edition."""
    import jupytext

    source = jupytext.read(source_path)
    glue = json.loads(glue_path.read_text(encoding="utf-8")) if glue_path.exists() else {}
    converter = Converter(env, Page(html_path), glue, base, docname, solutions)
    # the install cell folded (JupyterLab, VS Code; Colab: a form): its first line says it
    cells = [nbformat.v4.new_code_cell(install, metadata={
        "jupyter": {"source_hidden": True}, "colab": {"cellView": "form"}})]
    for cell in source.cells:
        tags = cell.metadata.get("tags", [])
        if "remove-cell" in tags:
            continue
        if cell.cell_type == "markdown":
            text = converter.markdown(cell.source)
            if text.strip():
                cells.append(nbformat.v4.new_markdown_cell(text))
            continue
        if converter.in_solution and not solutions:
            continue
        code = nbformat.v4.new_code_cell(cell.source)
        metadata = {key: value for key, value in cell.metadata.items() if key != "mystnb"}
        if converter.in_solution:
            metadata["tags"] = [*metadata.get("tags", []), SOLUTION_TAG]
            metadata["jupyter"] = {**metadata.get("jupyter", {}), "source_hidden": True}
            metadata["colab"] = {"cellView": "form"}
        code.metadata = metadata
        cells.append(code)
    if converter.missing:
        raise ValueError(f"reader_notebooks: {docname}: no glued value for "
                         f"{', '.join(sorted(set(converter.missing)))}")
    if not solutions:
        add_student_notes(cells)
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = {"kernelspec": dict(source.metadata.get("kernelspec", {})),
                   "language_info": {"name": "python"}}
    nbformat.validate(nb)
    return nb


def add_student_notes(cells):
    """The student edition's notes, each under the first line it belongs to (the chapter's
    title, the heading "Cvičení"); under "Cvičení" the note replaces the introduction's
    paragraphs about folded solutions (:data:`FOLDED_SOLUTIONS`)."""
    for heading, note in STUDENT_NOTES.items():
        for cell in cells:
            if cell.cell_type == "markdown" and re.search(heading, cell.source, re.M):
                cell.source = re.sub(heading, lambda m, n=note: f"{m[0]}\n\n{n}", cell.source,
                                     count=1, flags=re.M)
                if "Cvičení" in heading:
                    cell.source = without_folded_solutions(cell.source)
                break


def without_folded_solutions(text):
    """``text`` (a cell with the heading "Cvičení") without the paragraphs between that
    heading and the first exercise that speak of folded solutions."""
    start = re.search(r"^## Cvičení[ \t]*$", text, re.M).end()
    first = re.search(r"^#### ", text[start:], re.M)
    end = start + first.start() if first else len(text)
    paragraphs = re.split(r"\n[ \t]*\n", text[start:end].strip("\n"))
    kept = [p for p in paragraphs if not FOLDED_SOLUTIONS.search(p)]
    middle = "\n\n".join(kept)
    return text[:start] + "\n\n" + middle + ("\n\n" if text[end:] else "\n") + text[end:]


def editions(docname):
    """The file names of a page's two reader's notebooks: (teacher's, student's)."""
    return f"{docname}.ipynb", f"{docname}{STUDENT_SUFFIX}.ipynb"


def notebook_pages(app):
    """The pages made from MyST notebooks (chapters and appendix), by docname."""
    from attention_book import is_notebook_source

    return sorted(d for d in app.env.found_docs if is_notebook_source(Path(app.env.doc2path(d))))


def site_base():
    """The hosted book's address for links and the install cell ("" for a local build:
    links then point from ``notebooks/`` to the pages beside it)."""
    from link_previews import base_url

    return base_url()


def publish(app, exception):
    """``build-finished``: write ``<outdir>/notebooks/<page>.ipynb`` for every notebook page
    whose HTML page, source or glued values are newer than its reader's notebook."""
    # only the HTML builder: singlehtml (the PDF) has no page per chapter
    if exception is not None or app.builder.name != "html":
        return
    import book_wheels

    wheels = book_wheels.wheels()
    base = site_base()
    executed = Path(app.outdir).parent / "jupyter_execute"
    for docname in notebook_pages(app):
        source = Path(app.env.doc2path(docname))
        html = Path(app.outdir, docname + ".html")
        glue = executed / f"{docname}.glue.json"
        targets = [Path(app.outdir, FOLDER, name) for name in editions(docname)]
        inputs = [p for p in (source, html, glue) if p.exists()]
        if all(t.exists() and all(p.stat().st_mtime <= t.stat().st_mtime for p in inputs)
               for t in targets):
            continue
        install = install_cell(base, wheels[0].version, [w.name for w in wheels])
        for target, solutions in zip(targets, (True, False)):
            nb = reader_notebook(source, html, glue, app.env, docname, base or "../", install,
                                 solutions)
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, str(target))
    write_binder_files(Path(app.outdir, FOLDER), wheels)


def write_binder_files(folder, wheels):
    """``requirements.txt`` (what Binder installs for the branch ``notebooks``: the
    packages' dependencies; the notebooks install the book's wheels themselves),
    ``runtime.txt`` (Binder's Python: the oldest the wheels accept, which Binder's default
    may be older than) and a ``README.md`` saying what the folder is."""
    from book_wheels import oldest_python

    requires = sorted({r for w in wheels for r in w.requires
                       if not r.startswith(tuple(x.name for x in wheels))})
    folder.mkdir(parents=True, exist_ok=True)  # a build of pages without a chapter has none
    (folder / "requirements.txt").write_text("\n".join(requires) + "\n", encoding="utf-8")
    (folder / "runtime.txt").write_text(f"python-{oldest_python()}\n", encoding="utf-8")
    (folder / "README.md").write_text(
        "# Mechanismus pozornosti: notebooky kapitol\n\n"
        "Notebooky kapitol knihy pro Colab, Binder, JupyterHub a vlastní Jupyter, vyrobené "
        "při sestavení knihy. První buňka každého z nich nainstaluje balíčky knihy "
        "(`attention_core`, `attention_display`) z webu knihy, nebo ze složky `../wheels/` "
        "vedle této složky v sestavené knize. Každá kapitola je tu dvakrát: "
        "`<kapitola>.ipynb` s řešeními cvičení (sbalenými, pro vyučující) a "
        f"`<kapitola>{STUDENT_SUFFIX}.ipynb` bez nich (pro studenty). Zdrojem jsou kapitoly "
        "v repozitáři (`book/*.md`); tyto soubory neupravujte.\n", encoding="utf-8")


def setup(app):
    # after book_wheels (the wheels' names and version come from the same pyproject.toml)
    app.connect("build-finished", publish, priority=600)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
