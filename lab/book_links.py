"""Links between the book's pages and citations, for the book's JupyterLab (README, "Opening
the chapters in JupyterLab").

jupyterlab-myst 2.7.0 resolves a reference only within the notebook it renders: a
``{doc}`` role shows a file name that opens nothing, a ``{ref}``, ``{numref}`` or
``{prf:ref}`` to a label of another file shows "Cross Reference Not Found", and a
``{cite:t}``/``{cite:p}`` its key with "Citation Not Found". JupyterLab itself opens a
Markdown link to a file, ``[text](03_rozptyl.md#label)``, in a new tab.

So the book's contents manager (``BookContentsManager``, set in ``jupyter_lab_config.py``)
rewrites the Markdown cells of a book page it hands to JupyterLab (``rewrite``): each such
role becomes a Markdown link, its text what the HTML book shows (a page's title, a section's
title, a box's kind and number, a citation in the book's Czech author-year form), and the
original role is kept as the link's title::

    {doc}`03_rozptyl`  ->  [Rozptyl skalárního součinu](03_rozptyl.md "{doc}`03_rozptyl`")

The literature page's ``{bibliography}`` directive, which jupyterlab-myst draws as nothing,
becomes the list of entries as the HTML book formats them, between two comments.

On save, ``restore`` puts every role back from the title, so the file on disk stays the
book's source byte for byte. A role whose target is in the same notebook is left alone
(jupyterlab-myst resolves it), and so is one whose target this module does not know.
"""

import re
from functools import cache, lru_cache
from pathlib import Path

import jupytext
from jupytext.async_contentsmanager import AsyncTextFileContentsManager
from pybtex.database import parse_file
from pybtex.richtext import Text

#: A role this module may rewrite: ``{doc}`target``` or ``{ref}`text <target>``` ... (not
#: one with a double quote, which could not be a link's title).
ROLE = re.compile(r'\{(?P<role>doc|ref|numref|prf:ref|cite:t|cite:p)\}`(?P<body>[^`\n"]+)`')

#: A role's explicit text: ``text <target>``.
EXPLICIT = re.compile(r"(?P<text>.*\S)\s*<(?P<target>[^<>]+)>$", re.S)

#: A link written by ``rewrite``: escaped text, a target without spaces, the role as title.
ROLE_TEXT = r'\{(?:doc|ref|numref|prf:ref|cite:t|cite:p)\}`[^`\n"]+`'
LINK = re.compile(r'\[(?:[^\\\]\n]|\\.)*\]\([^\s()"]+ "(?P<role>' + ROLE_TEXT + r')"\)')

#: The literature page's list (``literatura.md``): the directive jupyterlab-myst draws as
#: nothing, and the list written in its place between two comments (``literature_list``).
BIBLIOGRAPHY = "```{bibliography}\n:all:\n```"
LIST_START = "<!-- the entries of references.bib (lab/book_links.py; on save: {bibliography}) -->"
LIST_END = "<!-- end of the entries -->"
LIST = re.compile(re.escape(LIST_START) + r"\n.*?\n" + re.escape(LIST_END), re.S)

#: The book's Sphinx extensions in the repository (the literature list's style).
EXTENSIONS = Path(__file__).resolve().parents[1] / "book" / "_ext"

#: A label before a heading or a box: ``(label)=``, and a box's ``:label: name``.
TARGET = re.compile(r"^\((?P<label>[^()\s]+)\)=\s*$")
OPTION_LABEL = re.compile(r"^:label:\s*(?P<label>\S+)\s*$")
HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<title>.+?)\s*$")
DIRECTIVE = re.compile(r"^(?:`{3,}|:{3,})\{(?P<kind>[\w:-]+)\}\s*(?P<arg>.*?)\s*$")

#: A box's kind in Czech, as the HTML book names it (sphinx-proof, sphinx-exercise).
KINDS = {"prf:definition": "Definice", "prf:theorem": "Věta", "prf:lemma": "Lemma",
         "exercise": "Cvičení", "exercise-start": "Cvičení"}

#: The file names of the book's pages that a chapter number belongs to: ``05_x.md`` is 5.
CHAPTER = re.compile(r"^(?P<number>\d\d)_")


def is_book_page(path):
    """Whether ``path`` (a ``Path``) is a page of the book: a ``.md`` file in a folder with
    the book's ``_toc.yml`` and ``references.bib``."""
    folder = path.parent
    return (path.suffix == ".md" and (folder / "_toc.yml").is_file()
            and (folder / "references.bib").is_file())


def _markdown_cells(path):
    """The sources of the Markdown cells of one page, as jupytext reads it."""
    notebook = jupytext.read(path)
    return [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]


def _page_targets(path):
    """One page's title (its first ``# `` heading) and its labels.

    Returns ``(title, labels)``; ``labels`` maps a label to ``(kind, number, title)``:
    kind ``"section"`` with the heading after ``(label)=`` (``"paragraph"`` and no title
    if a paragraph follows it), or a box's directive
    (``prf:theorem``, ``exercise-start`` ...) with its number among the boxes of its
    kind in the page (Czech names of kinds: ``KINDS``) and the directive's argument.
    """
    title, labels, counts, pending = None, {}, {}, None
    for source in _markdown_cells(path):
        box = None
        for line in source.split("\n"):
            heading = HEADING.match(line)
            if pending and line.strip():  # a label names what follows it: a heading's
                labels[pending] = ("section", None, heading["title"]) if heading else (
                    "paragraph", None, None)  # section, or a paragraph (no title of its own)
                pending = None
            if title is None and heading and heading["level"] == "#":
                title = heading["title"]
            if target := TARGET.match(line):
                pending = target["label"]
            elif directive := DIRECTIVE.match(line):
                kind = directive["kind"]
                counter = "exercise" if kind.startswith("exercise") else kind
                if kind in KINDS:
                    counts[counter] = counts.get(counter, 0) + 1
                box = (kind, counts.get(counter), directive["arg"])
            elif box and (option := OPTION_LABEL.match(line)):
                labels[option["label"]] = box
            elif not line.startswith(":"):
                box = None
    return title, labels


def _snapshot(folder):
    """The book's pages with their modification times: the key of ``_book_targets``."""
    return tuple(sorted((p.name, p.stat().st_mtime_ns) for p in folder.glob("*.md")))


@lru_cache(maxsize=4)
def _book_targets(folder, snapshot):
    """Every page's title and labels (``_page_targets``), by file name."""
    return {name: _page_targets(folder / name) for name, _mtime in snapshot}


def book_targets(folder):
    """The pages' titles and labels of the book in ``folder``, read again when a page
    changed."""
    return _book_targets(folder, _snapshot(folder))


@cache
def _plain(latex):
    """A BibTeX name or field as plain text: ``{PyTorch Contributors}``, ``{\\L}ukasz``."""
    return Text.from_latex(latex).render_as("text")


def _surname(person):
    return _plain(" ".join(person.prelast_names + person.last_names))


def _authors(entry):
    """The authors as the book cites them (``czech_bibliography.py``): one surname, two
    joined by "a", three or more (or BibTeX's "and others") the first and "a kol."
    (only the surnames shown are decoded: pybtex's LaTeX decoding is slow)."""
    persons = entry.persons["author"]
    if len(persons) >= 3 or (len(persons) == 2 and str(persons[1]) == "others"):
        return f"{_surname(persons[0])} a kol."
    return " a ".join(_surname(person) for person in persons)


@lru_cache(maxsize=4)
def _bibliography(path, mtime):
    return parse_file(str(path), "bibtex").entries


def citation(folder, role, keys):
    """The text of ``{cite:t}`keys``` or ``{cite:p}`keys``` as the HTML book shows it:
    "Vaswani a kol. (2017)", "(Kingma a Ba, 2015)", several keys separated by "; "."""
    bib = folder / "references.bib"
    entries = _bibliography(bib, bib.stat().st_mtime_ns)
    cited = [entries[key.strip()] for key in keys.split(",")]
    if role == "cite:t":
        return "; ".join(f"{_authors(e)} ({e.fields['year']})" for e in cited)
    return "(" + "; ".join(f"{_authors(e)}, {e.fields['year']}" for e in cited) + ")"


@lru_cache(maxsize=4)
def _literature_list(path, mtime):
    """The entries of ``references.bib`` as the literature page of the HTML book lists
    them (the book's style, ``book/_ext/czech_bibliography.py``), as Markdown list items."""
    import sys

    if str(EXTENSIONS) not in sys.path:
        sys.path.append(str(EXTENSIONS))
    from czech_bibliography import CzechStyle

    entries = CzechStyle().format_bibliography(parse_file(str(path), "bibtex")).entries
    return "\n".join("- " + e.text.render_as("markdown").replace("\n", " ") for e in entries)


def literature_list(folder):
    """The literature list of the book in ``folder`` (``_literature_list``)."""
    bib = folder / "references.bib"
    return _literature_list(bib, bib.stat().st_mtime_ns)


def _find_label(targets, label):
    """The page holding ``label`` and the label's ``(kind, number, title)``, or None."""
    for name, (_title, labels) in targets.items():
        if label in labels:
            return name, labels[label]
    return None


def _box_name(name, kind, number):
    """"Cvičení 4.3": a box's Czech kind with the chapter's number and its own, as the
    HTML book numbers boxes in the numbered chapters; without a chapter number, the kind
    and the box's number in its page."""
    chapter = CHAPTER.match(name)
    prefix = f"{int(chapter['number'])}." if chapter else ""
    return f"{KINDS[kind]} {prefix}{number}"


def _reference_text(role, text, name, target):
    """The text of a link to ``target`` (``(kind, number, title)``) in page ``name``, as
    the HTML book writes it: a ``{numref}``'s ``%s`` is the box's number, a ``{prf:ref}``
    is the box's name ("Definice 1.1"), a ``{ref}`` to a box its name and title, a
    ``{ref}`` to a section the section's title; an explicit text is kept."""
    kind, number, title = target
    boxed = kind in KINDS
    if role == "numref" and boxed:
        shown = _box_name(name, kind, number)
        return shown if text is None else text.replace("%s", shown.split(" ", 1)[1])
    if text is not None:
        return text
    if role == "prf:ref" and boxed:
        return _box_name(name, kind, number)
    return f"{_box_name(name, kind, number)} {title}" if boxed else title


def _escape(text):
    """A link's text with its brackets and backslashes escaped."""
    return re.sub(r"([\\\[\]])", r"\\\1", text)


def _link(text, url, match):
    return f'[{_escape(text)}]({url} "{match.group()}")'


def _rewrite_role(match, folder, page, targets):
    """One role as a Markdown link, or unchanged (same page, or an unknown target)."""
    role, body = match["role"], match["body"]
    if role.startswith("cite"):
        return _link(citation(folder, role, body), "literatura.md", match)
    explicit = EXPLICIT.match(body)
    text, target = (explicit["text"], explicit["target"]) if explicit else (None, body)
    if role == "doc":
        name = f"{target}.md"
        if name not in targets or name == page:
            return match.group()
        return _link(text or targets[name][0], name, match)
    found = _find_label(targets, target)
    if found is None or found[0] == page:
        return match.group()
    name, where = found
    if text is None and where[2] is None:
        return match.group()
    return _link(_reference_text(role, text, name, where), f"{name}#{target}", match)


def rewrite_source(source, folder, page):
    """One Markdown cell of page ``page`` (a file name) of the book in ``folder``, with
    every role that jupyterlab-myst cannot resolve written as a Markdown link."""
    targets = book_targets(folder)
    source = ROLE.sub(lambda m: _rewrite_role(m, folder, page, targets), source)
    if BIBLIOGRAPHY in source:
        listed = f"{LIST_START}\n{literature_list(folder)}\n{LIST_END}"
        source = source.replace(BIBLIOGRAPHY, listed)
    return source


def restore_source(source):
    """The cell as the book's source has it: every link of ``rewrite_source`` back to
    its role, the literature list back to its directive."""
    return LIST.sub(BIBLIOGRAPHY, LINK.sub(lambda m: m["role"], source))


def _source(cell):
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def rewrite(notebook, path):
    """The notebook model's Markdown cells of the book page ``path`` rewritten in place
    (``rewrite_source``)."""
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            cell["source"] = rewrite_source(_source(cell), path.parent, path.name)


def restore(notebook):
    """The notebook model's Markdown cells restored in place (``restore_source``)."""
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            cell["source"] = restore_source(_source(cell))


class BookContentsManager(AsyncTextFileContentsManager):
    """jupytext's contents manager (the one its server extension would derive from
    jupyter_server's default, ``AsyncLargeFileManager``), which hands the book's pages to
    JupyterLab with ``rewrite`` and saves them with ``restore``."""

    def _book_page(self, path):
        """The page's file if ``path`` (relative to the server's root) is a book page."""
        file = Path(self.root_dir, path.strip("/"))
        return file if is_book_page(file) else None

    async def get(self, path, content=True, type=None, format=None, **kwargs):
        model = await super().get(path, content=content, type=type, format=format, **kwargs)
        page = self._book_page(path)
        if page and model["type"] == "notebook" and model.get("content"):
            rewrite(model["content"], page)
        return model

    async def save(self, model, path=""):
        if model.get("type") == "notebook" and model.get("content") and self._book_page(path):
            restore(model["content"])
        return await super().save(model, path)
