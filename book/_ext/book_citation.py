"""The book's version, how to cite it, and where to report an error (issue 20, item 6).

- The version is ``attention_core.__version__``, the one place it is written (the wheels
  and ``pyproject.toml`` read it there too). The build sets Sphinx's ``version`` and
  ``release`` from it and shows it in the footer of every page (``templates/citation``)
  and, through the substitution ``{{ verze }}``, on the page „O knize“.
- The citation: the directive ``{citace-knihy}`` („O knize“) writes it in words and as
  BibTeX from the ``preferred-citation`` of the repository's ``CITATION.cff`` (authors,
  title, year) and the version, with the book's address where the build knows one:
  ``BOOK_BASE_URL`` (the hosted book, ``link_previews.py``), else ``BOOK_REPOSITORY_URL``
  (the repository, ``attention_book.py``). Without either, no address is made up.
- The revision: the hosted book is built again on every change of ``main`` while the
  version changes only with a release, so the footer also names the commit it was built
  from (``BOOK_REVISION``, which the workflow sets; a link into the repository where
  ``BOOK_REPOSITORY_URL`` is set too). A local build is not told it and shows none.
- „Našli jste chybu?“: a link to the repository's issues (``<BOOK_REPOSITORY_URL>/issues``)
  in the footer of every page and, by the directive ``{hlaseni-chyb}``, on „O knize“; both
  only where ``BOOK_REPOSITORY_URL`` is set (without it „O knize“ says whom to tell).

The addresses come from the environment when the build starts. They are configuration
values that the HTML depends on (``rebuild="html"``), so a build with other addresses
writes every page again; the citation is put in when a page is written (a post-transform),
not when it is read, so no chapter is executed again for it.
"""

import os
from pathlib import Path

import yaml
from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

import attention_core

#: The one version of the book and its packages.
VERSION = attention_core.__version__

#: The repository the build imports the packages from: CITATION.cff is at its root.
ROOT = Path(attention_core.__file__).resolve().parents[1]
CITATION = ROOT / "CITATION.cff"

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates" / "citation"

#: „O knize“ without a repository's address: where an error can be reported then.
NO_REPOSITORY = ("Tato kopie knihy byla sestavena bez adresy svého repozitáře; chybu proto "
                 "nahlaste tomu, od koho knihu máte, například vyučujícímu.")

#: „Pro vyučující“ without a repository's address: where the sources are then.
NO_REPOSITORY_SOURCES = ("Tato kopie knihy byla sestavena bez adresy svého repozitáře; "
                         "zdrojové soubory knihy (kapitoly, README.md, workflow) má ten, od koho "
                         "knihu máte.")

#: The BibTeX key of the book.
BIBTEX_KEY = "mechanismus_pozornosti"


def repository_url():
    """The repository's address from ``BOOK_REPOSITORY_URL``, without a trailing ``/``."""
    from attention_book import REPOSITORY_VARIABLE

    return os.environ.get(REPOSITORY_VARIABLE, "").strip().rstrip("/")


#: The revision (commit) the book is built from, set by the workflow (GitHub's ``github.sha``).
REVISION_VARIABLE = "BOOK_REVISION"


def revision():
    """The built revision's short form (12 hex digits), or "" when the build is not told."""
    value = os.environ.get(REVISION_VARIABLE, "").strip().lower()
    return value[:12] if value and all(c in "0123456789abcdef" for c in value) else ""


def issues_url(repository):
    """Where to report an error: the repository's issues (``""`` without a repository)."""
    return f"{repository}/issues" if repository else ""


def preferred_citation(path=CITATION):
    """``CITATION.cff``'s ``preferred-citation``: authors, title, year, notes."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))["preferred-citation"]


def _authors(reference):
    names = []
    for author in reference["authors"]:
        if "name" in author:  # an entity, such as the book's team
            names.append(author["name"])
        else:
            names.append(f"{author['family-names']}, {author['given-names']}")
    return names


def citation_text(reference, version, address, revision=""):
    """The citation in words (Czech), as a list of (text, kind) parts: kind is ``""``,
    ``"title"``, ``"url"`` or ``"code"`` (the revision, kept from the digit grouping)."""
    authors = "; ".join(_authors(reference))
    parts = [(f"{authors} ({reference['year']}). ", ""), (reference["title"] + ".", "title"),
             (f" Verze {version}", "")]
    if revision:
        parts += [(", revize ", ""), (revision, "code")]
    parts.append((". Interaktivní kniha.", ""))
    if address:
        parts += [(" Dostupné z: ", ""), (address, "url"), (".", "")]
    parts.append((f" {reference['notes']}", ""))
    return parts


def bibtex(reference, version, address):
    """The BibTeX entry of the book."""
    fields = [
        ("author", "{" + " and ".join(
            "{" + name + "}" if ", " not in name else name for name in _authors(reference))
         + "}"),
        ("title", "{" + reference["title"] + "}"),
        ("year", "{" + str(reference["year"]) + "}"),
        ("version", "{" + version + "}"),
    ]
    if address:
        fields.append(("url", "{" + address + "}"))
    notes = reference["notes"].rstrip(".")
    fields.append(("note", "{Interaktivní kniha; " + notes[:1].lower() + notes[1:] + "}"))
    lines = [f"  {name:<9} = {value}," for name, value in fields]
    return "@book{" + BIBTEX_KEY + ",\n" + "\n".join(lines) + "\n}"


class CitationPlaceholder(nodes.General, nodes.Element):
    """Where ``{citace-knihy}``, ``{hlaseni-chyb}`` or ``{repozitar-knihy}`` stands; filled
    when the page is written."""


class BookCitation(SphinxDirective):
    """``{citace-knihy}``: the book's citation in words and as BibTeX."""

    def run(self):
        return [CitationPlaceholder(kind="citation")]


class ErrorReports(SphinxDirective):
    """``{hlaseni-chyb}``: where to report an error (nothing without a repository)."""

    def run(self):
        return [CitationPlaceholder(kind="issues")]


class Repository(SphinxDirective):
    """``{repozitar-knihy}``: the repository's address as a link (what to fork, where the
    README is), or where the sources are without one."""

    def run(self):
        return [CitationPlaceholder(kind="repository")]


def _repository_nodes(config):
    if not config.book_repository:
        return [nodes.paragraph(text=NO_REPOSITORY_SOURCES)]
    paragraph = nodes.paragraph()
    paragraph += nodes.Text("Repozitář knihy: ")
    paragraph += nodes.reference(text=config.book_repository, refuri=config.book_repository)
    paragraph += nodes.Text(".")
    return [paragraph]


def _citation_nodes(config):
    reference = preferred_citation()
    address = config.book_address or config.book_repository
    # the hosted book changes between releases: the revision says which book was read
    revision = config.book_revision
    paragraph = nodes.paragraph()
    for text, kind in citation_text(reference, VERSION, address, revision):
        if kind == "title":
            paragraph += nodes.emphasis(text=text)
        elif kind == "url":
            paragraph += nodes.reference(text=text, refuri=text)
        elif kind == "code":
            paragraph += nodes.literal(text=text)
        else:
            paragraph += nodes.Text(text)
    code = bibtex(reference, f"{VERSION}, revize {revision}" if revision else VERSION, address)
    block = nodes.literal_block(code, code, language="bibtex")
    return [paragraph, nodes.paragraph(text="Totéž pro BibTeX:"), block]


def _issues_nodes(config):
    url = issues_url(config.book_repository)
    if not url:
        return [nodes.paragraph(text=NO_REPOSITORY)]
    paragraph = nodes.paragraph()
    paragraph += nodes.Text("Chyby a nejasná místa hlaste v ")
    paragraph += nodes.reference(text="seznamu hlášení (issues) repozitáře knihy",
                                 refuri=url)
    paragraph += nodes.Text("; uveďte stránku a verzi knihy.")
    return [paragraph]


class FillCitation(SphinxPostTransform):
    """The placeholders become the citation or the link, with this build's addresses."""

    default_priority = 100  # before the late Czech typography (900)

    def run(self, **kwargs):
        make = {"citation": _citation_nodes, "issues": _issues_nodes,
                "repository": _repository_nodes}
        for node in list(self.document.findall(CitationPlaceholder)):
            node.replace_self(make[node["kind"]](self.config))


def configure(app, config):
    """Version and addresses from their one place each (see the module's docstring)."""
    from link_previews import base_url

    config.version = config.release = VERSION
    config.book_repository = repository_url()
    config.book_revision = revision()
    config.book_address = base_url()
    config.myst_substitutions = {**config.myst_substitutions, "verze": VERSION}
    config.templates_path.insert(0, str(TEMPLATES))


def footer_context(app, pagename, templatename, context, doctree):
    """The footer's version and „Našli jste chybu?“ link (``extra-footer.html``)."""
    context["book_version"] = VERSION
    context["issues_url"] = issues_url(app.config.book_repository)
    context["book_revision"] = app.config.book_revision
    context["revision_url"] = (f"{app.config.book_repository}/tree/{app.config.book_revision}"
                               if app.config.book_repository and app.config.book_revision
                               else "")


def setup(app):
    # set from the environment in configure(); the pages depend on them
    app.add_config_value("book_repository", "", "html")
    app.add_config_value("book_address", "", "html")
    app.add_config_value("book_revision", "", "html")
    app.add_node(CitationPlaceholder)
    app.add_directive("citace-knihy", BookCitation)
    app.add_directive("hlaseni-chyb", ErrorReports)
    app.add_directive("repozitar-knihy", Repository)
    app.add_post_transform(FillCitation)
    app.connect("config-inited", configure)
    app.connect("html-page-context", footer_context)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
