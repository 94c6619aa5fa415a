"""The book's JupyterLab: links between pages and citations (``lab/book_links.py``).

jupyterlab-myst resolves no reference to another notebook and no citation; the book's
contents manager hands each page to JupyterLab with those roles written as Markdown links
and puts the roles back on save. For every chapter and the appendix:

- the rewrite and then the restore give back every Markdown cell exactly, and no Markdown
  link of the book looks like one the restore would take back;
- after the rewrite no ``{doc}``, no ``{cite...}`` and no ``{ref}``/``{numref}``/``{prf:ref}``
  to a label of another page remains (jupyterlab-myst resolves the ones within the page),
  and every link points to a page of the book and, with ``#label``, to a label in it;
- through the contents manager itself (a copy of the book): the notebook JupyterLab gets
  has the links, and saving it writes the chapter byte for byte as it was;
- the citations read as in the HTML book, and (``build``) every link's text and every
  citation equals what the built HTML page shows at that place.
"""

import asyncio
import copy
import re
import shutil
import sys

import jupytext
import pytest

from chapters import BOOK, ROOT, chapter_paths

sys.path.insert(0, str(ROOT / "lab"))

import book_links  # noqa: E402 (lab/ is not a package)

#: A link ``rewrite_source`` wrote: its text, target and the role it stands for.
WRITTEN = re.compile(r'\[(?P<text>(?:[^\\\]\n]|\\.)*)\]\((?P<url>[^\s()"]+) "(?P<role>'
                     + book_links.ROLE_TEXT + r')"\)')


def pages():
    return [path for path in chapter_paths() if path.exists()]


def markdown_cells(path):
    return [c.source for c in jupytext.read(path).cells if c.cell_type == "markdown"]


def rewritten(path):
    """Each Markdown cell of ``path`` and its rewritten form."""
    return [(source, book_links.rewrite_source(source, BOOK, path.name))
            for source in markdown_cells(path)]


def labels_of(path):
    """The labels a page defines: ``(label)=`` and a box's ``:label:``."""
    text = path.read_text(encoding="utf-8")
    return set(re.findall(r"^\(([^()\s]+)\)=\s*$", text, re.M)) | set(
        re.findall(r"^:label:\s*(\S+)\s*$", text, re.M))


@pytest.mark.parametrize("path", pages(), ids=lambda p: p.stem)
def test_rewrite_goes_back_exactly(path):
    for source, new in rewritten(path):
        assert not book_links.LINK.search(source), "a link of the book looks like ours"
        assert book_links.restore_source(new) == source


@pytest.mark.parametrize("path", pages(), ids=lambda p: p.stem)
def test_no_unresolved_role_and_every_link_has_a_target(path):
    own = labels_of(path)
    problems = []
    for _source, new in rewritten(path):
        outside = WRITTEN.sub("", new)
        for match in book_links.ROLE.finditer(outside):
            role, body = match["role"], match["body"]
            target = body.rsplit("<", 1)[-1].rstrip(">").strip()
            if role in ("doc",) or role.startswith("cite") or target not in own:
                problems.append(f"left: {match.group()}")
        for link in WRITTEN.finditer(new):
            name, _, label = link["url"].partition("#")
            if not (BOOK / name).is_file():
                problems.append(f"{link.group()}: no file {name}")
            elif label and label not in labels_of(BOOK / name):
                problems.append(f"{link.group()}: no label {label} in {name}")
            if not link["text"]:
                problems.append(f"{link.group()}: empty text")
    assert not problems, "\n".join(problems)


def test_literature_page_lists_the_entries_and_goes_back():
    """``literatura.md``: its ``{bibliography}`` (drawn as nothing by jupyterlab-myst)
    becomes the list of every entry of ``references.bib``; the restore gives the page back."""
    path = BOOK / "literatura.md"
    cells = rewritten(path)
    listed = [new for _source, new in cells if book_links.LIST_START in new]
    assert len(listed) == 1 and book_links.BIBLIOGRAPHY not in listed[0]
    items = [line for line in listed[0].split("\n") if line.startswith("- ")]
    keys = re.findall(r"^@\w+\{(\w+),", (BOOK / "references.bib").read_text("utf-8"), re.M)
    assert len(items) == len(keys)
    assert any(item.startswith("- Kingma, D\\. P\\. a Ba, J\\. \\(2015\\)\\.") for item in items)
    for source, new in cells:
        assert book_links.restore_source(new) == source


def test_citations_read_as_in_the_html_book():
    """The forms of ``book/_ext/czech_bibliography.py`` (checked against the built HTML of
    every page by ``test_links_and_citations_match_the_html_book``)."""
    cite = book_links.citation
    assert cite(BOOK, "cite:t", "vaswani2017") == "Vaswani a kol. (2017)"
    assert cite(BOOK, "cite:p", "vaswani2017") == "(Vaswani a kol., 2017)"
    assert cite(BOOK, "cite:p", "kingma2015") == "(Kingma a Ba, 2015)"
    assert cite(BOOK, "cite:p", "michel2019,voita2019") == (
        "(Michel a kol., 2019; Voita a kol., 2019)")
    assert cite(BOOK, "cite:p", "pytorch2026") == "(PyTorch Contributors, 2026)"


def test_contents_manager_gives_links_and_saves_the_source(tmp_path):
    """``BookContentsManager`` on a copy of the book: JupyterLab gets the links, Ctrl+S
    (a save of the model it got) writes the file as it was; a page outside a book folder
    is left alone."""
    root = tmp_path / "book"
    shutil.copytree(BOOK, root, ignore=shutil.ignore_patterns("_build", "_ext", "*.ipynb"))
    (tmp_path / "elsewhere.md").write_text("Text {doc}`03_rozptyl`.\n", encoding="utf-8")
    manager = book_links.BookContentsManager(root_dir=str(tmp_path))

    async def open_and_save(path):
        model = await manager.get(path)
        shown = copy.deepcopy(model["content"])
        await manager.save({"type": "notebook", "content": model["content"]}, path)
        return shown

    before = (root / "05_sebepozornost.md").read_bytes()
    notebook = asyncio.run(open_and_save("book/05_sebepozornost.md"))
    text = "\n".join(c["source"] for c in notebook["cells"] if c["cell_type"] == "markdown")
    assert '[Vaswani a kol. (2017)](literatura.md "{cite:t}`vaswani2017`")' in text
    assert "(08_masky_a_pozice.md " in text
    assert (root / "05_sebepozornost.md").read_bytes() == before
    notebook = asyncio.run(manager.get("elsewhere.md"))["content"]
    assert notebook["cells"][0]["source"] == "Text {doc}`03_rozptyl`."


def html_differences(html):
    """Where a rewritten page's links and citations differ from the built HTML page's:
    each link's text must be a text the page shows for the same address, the citations
    (in order) the page's (no-break spaces of the Czech typography read as spaces)."""
    from bs4 import BeautifulSoup

    problems = []
    for path in pages():
        soup = BeautifulSoup((html / f"{path.stem}.html").read_text("utf-8"), "html.parser")
        main = soup.select_one("main")
        shown = {}
        for a in main.select("a.reference.internal"):
            shown.setdefault(a["href"], set()).add(a.get_text("").replace("\xa0", " "))
        citations = [span.get_text("").replace("\xa0", " ")
                     for span in main.select("span.bibtex-citation")]
        ours = []
        for _source, new in rewritten(path):
            for link in WRITTEN.finditer(new):
                text = re.sub(r"\\(.)", r"\1", link["text"])
                if link["role"].startswith("{cite"):
                    ours.append(text)
                    continue
                href = re.sub(r"\.md\b", ".html", link["url"])
                if text not in shown.get(href, ()):
                    problems.append(f"{path.name}: {link['role']} reads {text!r}, the HTML "
                                    f"{sorted(shown.get(href, ()))}")
        if ours != citations:
            problems.append(f"{path.name}: citations {ours}, the HTML {citations}")
    return problems + literature_differences(html)


def literature_differences(html):
    """The literature list against the built page's, entry by entry, as plain text (the
    HTML's numbers, hidden by the book's CSS, left out)."""
    from bs4 import BeautifulSoup

    def plain(text):
        return re.sub(r"\s+", "", text.replace("\xa0", " "))

    soup = BeautifulSoup((html / "literatura.html").read_text("utf-8"), "html.parser")
    theirs = [plain(re.sub(r"^\s*\[\s*\d+\s*\]", "", div.get_text("")))
              for div in soup.select("main div.citation")]
    listed = book_links.literature_list(BOOK).split("\n")
    ours = [plain(re.sub(r"\\(.)", r"\1", re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", item[2:])))
            .replace("*", "") for item in listed]
    return [f"literatura.md: {a!r} in the HTML {b!r}" for a, b in zip(ours, theirs) if a != b] + (
        [] if len(ours) == len(theirs) else [f"{len(ours)} entries, the HTML {len(theirs)}"])


@pytest.mark.build
def test_links_and_citations_match_the_html_book(built_html):
    problems = html_differences(built_html)
    assert not problems, "\n".join(problems)
