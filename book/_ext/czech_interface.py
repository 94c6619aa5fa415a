"""A Czech interface for the HTML book: every label, tooltip and button in Czech, and every
accessible name the same as the visible text.

Where the themes have a translation hook, it is used: the Sphinx/theme strings that the Czech
catalogues of Sphinx 7.4 and pydata-sphinx-theme lack or translate badly are in the book's
own catalogue ``_ext/locales/cs/LC_MESSAGES/sphinx.po`` (``locale_dirs`` in ``_config.yml``;
Sphinx compiles it). The rest is done here, once:

- configuration: the search field's text, one search field (pydata-sphinx-theme 0.17 adds
  a second one in a full-width top bar unless ``navbar_persistent`` is set), no English
  "Proof Index" page (``html_domain_indices``);
- templates (``templates/interface``): the sidebar toggles and the book's navigation
  (their English is hard-coded in sphinx-book-theme), the footer ("© 2026 …" in Czech
  typography instead of "Podle …" and "© Copyright 2026."), the search button and the
  colour-mode switch (their accessible names now contain their visible text), the index
  ("Rejstřík") as the last entry of the navigation once it has entries;
- the download menu's tooltips (sphinx-book-theme's Czech catalogue mixes "Stáhněte si"
  and "Stáhnout");
- myst-nb's hidden-code toggle: its ``<summary>`` had ``aria-label="Toggle hidden content"``
  over the visible "Zobrazit kód"; now its name is its visible text, which names what it
  hides ("Zobrazit kód", "Zobrazit výstup");
- the index ("Rejstřík") sorted and grouped by the Czech alphabet (Č after C, Ch after H,
  Ř, Š, Ž as letters of their own; Sphinx groups "čas" under C);
- sphinx-proof's proofs start with "Důkaz." (it writes the English "Proof." into the text);
- sphinx-exercise's solution title "Řešení k Cvičení 1" becomes "Řešení ke cvičení 1";
- the literature's citation list: docutils gives each entry the ARIA role
  ``doc-biblioentry``, deprecated in DPUB-ARIA 1.1 and not a list item for axe-core
  (aria-required-children, critical); each entry is a ``listitem`` of its list;
- ``static/czech_interface.js``: sphinx-togglebutton's and sphinx-copybutton's buttons,
  which their scripts label in English ("Toggle hidden content", "Copy").
"""

from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform

HERE = Path(__file__).parent
STATIC = HERE / "static"
TEMPLATES = HERE / "templates" / "interface"

#: The search field's placeholder and accessible name.
SEARCH_TEXT = "Hledat v knize…"

#: sphinx-book-theme's header buttons (by their ``label``): Czech tooltips.
BUTTON_TOOLTIPS = {
    "download-buttons": "Stáhnout tuto stránku",
    "download-notebook-button": "Stáhnout kapitolu jako notebook s řešeními cvičení (.ipynb), "
                                "pro vyučující",
    "download-student-notebook-button": "Stáhnout kapitolu jako notebook bez řešení cvičení "
                                        "(.ipynb), pro studenty",
    "download-source-button": "Stáhnout zdrojový text (.md)",
    "download-pdf-button": "Vytisknout nebo uložit jako PDF",
    "fullscreen-button": "Celá obrazovka",
}


def configure(app, config):
    """Theme options, templates and scripts of the Czech interface."""
    options = config.html_theme_options
    options["search_bar_text"] = SEARCH_TEXT
    options["navbar_persistent"] = []  # one search field: the one in the sidebar
    # no domain indices: sphinx-proof's "Proof Index" is an English list of labels that
    # nothing links to (the general index, "Rejstřík", stays)
    config.html_domain_indices = False
    config.templates_path.insert(0, str(TEMPLATES))
    if str(STATIC) not in config.html_static_path:
        config.html_static_path.append(str(STATIC))


def typography_filter(app):
    """``{{ text|czech_typography }}`` in templates: the footer's copyright line is text of
    the configuration, not of a page, so the transform never sees it."""
    from czech_typography import typeset

    if hasattr(app.builder, "templates") and hasattr(app.builder.templates, "environment"):
        app.builder.templates.environment.filters["czech_typography"] = typeset


def czech_tooltips(app, pagename, templatename, context, doctree):
    """Czech tooltips in the download menu."""
    for button in context.get("header_buttons", []):
        for item in [button, *button.get("buttons", [])]:
            if item.get("label") in BUTTON_TOOLTIPS:
                item["tooltip"] = BUTTON_TOOLTIPS[item["label"]]


def index_flag(app, pagename, templatename, context, doctree):
    """Whether the index has anything to list (read by ``sbt-sidebar-nav.html``)."""
    entries = app.env.get_domain("index").entries
    context["book_has_index"] = any(entries.values())


# --- the index in Czech alphabetical order -------------------------------------------------------

#: The Czech alphabet: a letter with a háček (and "ch") is a letter of its own; an acute, a ring,
#: ď, ť, ň only break ties.
LETTERS = "a b c č d e f g h ch i j k l m n o p q r ř s š t u v w x y z ž".split()
RANK = {letter: rank for rank, letter in enumerate(LETTERS)}
BASE = dict(zip("áéěíóúůýďťň", "aeeiouuydtn"))


def czech_key(text):
    """Sort key for Czech: "cesta" < "čas" < "hlava" < "chyba" < "index" < "řád" < "šum"."""
    text = text.lower()
    primary, secondary = [], []
    position = 0
    while position < len(text):
        if text.startswith("ch", position):
            letter, accent, position = "ch", 0, position + 2
        else:
            char = text[position]
            letter, accent = BASE.get(char, char), int(char in BASE)
            position += 1
        primary.append((1, RANK[letter]) if letter in RANK else (0, ord(letter)))
        secondary.append(accent)
    return primary, secondary, text


def czech_letter(text):
    """The letter under which the index lists ``text`` ("Č", "Ch", "A" for "á")."""
    lower = text.lower()
    if lower.startswith("ch"):
        return "Ch"
    first = BASE.get(lower[:1], lower[:1])
    return first.upper() if first in RANK else None


def czech_index(entries, symbols):
    """Sphinx's (letter, entries) groups regrouped by the Czech alphabet; the subentries of
    each entry ("definice", "chyba: …") in Czech order too."""
    flat = sorted((entry for _letter, group in entries for entry in group),
                  key=lambda entry: czech_key(entry[0]))
    groups = []
    for entry in flat:
        _links, subitems, *_rest = entry[1]
        subitems.sort(key=lambda subitem: czech_key(subitem[0]))
        letter = czech_letter(entry[0]) or symbols
        if groups and groups[-1][0] == letter:
            groups[-1][1].append(entry)
        else:
            groups.append((letter, [entry]))
    # symbols first, as Sphinx lists them
    return sorted(groups, key=lambda group: group[0] != symbols)


def czech_typeset_index(groups):
    """Czech typography in the index's entries and subentries ("přechod v obyčejný slovník"):
    they are text of the template, not of a page, so the transform never sees them."""
    from czech_typography import typeset

    return [(letter, [(typeset(name),
                       (links, [(typeset(sub), sublinks) for sub, sublinks in subitems], *rest))
                      for name, (links, subitems, *rest) in entries])
            for letter, entries in groups]


def czech_genindex(app, pagename, templatename, context, doctree):
    if pagename != "genindex" or "genindexentries" not in context:
        return
    from sphinx.locale import _

    groups = czech_typeset_index(czech_index(context["genindexentries"], _("Symbols")))
    context["genindexentries"] = groups
    context["genindexcounts"] = [sum(1 + len(subitems) for _, (_, subitems, _) in entries)
                                 for _letter, entries in groups]


# --- myst-nb: the hidden-code toggle, named by its visible text ---------------------------------

#: What a toggle hides: myst-nb puts the English word for it into the prompt's ``{type}``
#: (the whole cell, its source above the outputs, its outputs below the source or alone).
HIDDEN_PART = {"content": "buňku", "source": "kód", "output": "výstup", "outputs": "výstup"}


def czech_prompt(prompt):
    """A toggle's prompt with its last word, myst-nb's ``{type}``, in Czech."""
    head, _, part = prompt.rpartition(" ")
    return f"{head} {HIDDEN_PART[part]}" if part in HIDDEN_PART else prompt


def visit_hide_cell_input(self, node):
    """myst-nb's ``visit_HideCellInput`` without the English ``aria-label``, and with the
    hidden part named in Czech (a toggle below the code shows the output, not code)."""
    from html import escape

    classes = " ".join(node["classes"])
    show, hide = (escape(czech_prompt(node[key])) for key in ("prompt_show", "prompt_hide"))
    self.body.append(f'<details class="admonition hide {classes}">\n')
    self.body.append("<summary>\n")
    self.body.append(f'<p class="collapsed admonition-title">{show}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{hide}</p>\n')
    self.body.append("</summary>\n")


def override_hide_cell_input(app):
    from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput

    app.add_node(HideCodeCellNode, override=True,
                 html=(visit_hide_cell_input, depart_HideCellInput))


# --- the citation list: list items ----------------------------------------------------------------

def visit_citation(self, node):
    """docutils' ``visit_citation`` with the entries as list items of their list."""
    if not isinstance(node.previous_sibling(), type(node)):
        self.body.append('<div role="list" class="citation-list">\n')
    self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))


def depart_citation(self, node):
    self.body.append("</div>\n")
    if not isinstance(node.next_node(descend=False, siblings=True), type(node)):
        self.body.append("</div>\n")


# --- sphinx-proof and sphinx-exercise: Czech words in the text ----------------------------------

class CzechProof(SphinxTransform):
    """sphinx-proof writes "Proof. " at the start of a proof's first paragraph; Czech books
    start it with an italic "Důkaz."."""

    default_priority = 500

    def apply(self, **kwargs):
        if self.config.language != "cs":
            return
        for admonition in self.document.findall(nodes.admonition):
            if "proof" not in admonition["classes"]:
                continue
            paragraph = next(iter(admonition.findall(nodes.paragraph)), None)
            if paragraph is None or not paragraph.children:
                continue
            first = paragraph.children[0]
            if isinstance(first, nodes.Text) and str(first).startswith("Proof. "):
                rest = nodes.Text(str(first)[len("Proof. "):])
                paragraph.replace(first, rest)
                paragraph.insert(0, nodes.Text(" "))
                paragraph.insert(0, nodes.emphasis("Důkaz.", "Důkaz."))


class CzechSolutionTitles(SphinxPostTransform):
    """sphinx-exercise titles a solution "Řešení k" + a link " Cvičení 1"; in Czech the
    preposition before "cvičení" is "ke" and the noun is not capitalised:
    "Řešení ke cvičení 1"."""

    default_priority = 23  # after sphinx-exercise's ResolveTitlesInSolutions (21, 22)

    def run(self, **kwargs):
        if self.config.language != "cs":
            return
        try:
            from sphinx_exercise.nodes import solution_node
        except ImportError:
            return
        for solution in self.document.findall(solution_node):
            title = solution.children[0] if solution.children else None
            if not isinstance(title, nodes.title) or len(title.children) < 2:
                continue
            lead, link = title.children[0], title.children[1]
            if not (isinstance(lead, nodes.Text) and str(lead).strip() == "Řešení k"
                    and isinstance(link, nodes.reference) and link.children
                    and isinstance(link.children[0], nodes.Text)):
                continue
            words = str(link.children[0]).strip()
            if words.startswith("Cvičení"):
                words = "cvičení" + words[len("Cvičení"):]
            title.replace(lead, nodes.Text("Řešení ke "))
            link.replace(link.children[0], nodes.Text(words))
            if "title" in solution:
                solution["title"] = "Řešení ke " + words


def setup(app):
    app.connect("config-inited", configure)
    app.connect("builder-inited", typography_filter)
    # after sphinx-book-theme has built its header buttons (priority 501)
    app.connect("html-page-context", czech_tooltips, priority=600)
    app.connect("html-page-context", index_flag, priority=100)
    app.connect("html-page-context", czech_genindex)
    override_hide_cell_input(app)
    app.add_node(nodes.citation, override=True, html=(visit_citation, depart_citation))
    app.add_transform(CzechProof)
    app.add_post_transform(CzechSolutionTitles)
    # after the scripts it relabels (sphinx-togglebutton adds its own late, at config-inited)
    app.add_js_file("czech_interface.js", priority=800)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
