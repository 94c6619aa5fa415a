"""Small Sphinx additions for the book's HTML (hooked in ``_config.yml``, ``local_extensions``).

1. Every chapter page offers its reader's notebook for download in two editions (made by
   ``reader_notebooks.py``: they install the book's packages from the site's ``wheels/``
   (``book_wheels.py``) and read well in any Jupyter): "Notebook s řešeními", the teacher's
   (``notebooks/<page>.ipynb``), and "Notebook bez řešení", the student's
   (``notebooks/<page>-bez-reseni.ipynb``). The book theme's download menu gets its ".ipynb"
   entry when ``ipynb_source`` is set; that entry is then pointed at the teacher's edition
   and named, and the student's edition is added after it.
   Launch buttons ("Otevřít v Colabu", Binder, a JupyterHub): only where the environment
   names the repository, ``BOOK_REPOSITORY_URL=https://github.com/<owner>/<repository>``
   (the workflow sets it, as it sets ``BOOK_BASE_URL``). They open the reader's notebooks
   from the repository's branch ``notebooks``, which the workflow fills from
   ``notebooks/`` of the built site (Colab opens notebooks from a GitHub path, and the
   chapters themselves are ``.md``). A JupyterHub button needs the hub's address too,
   ``BOOK_JUPYTERHUB_URL``.
2. Inline scripts appear once. Sphinx 7.4 lists an inline script (``add_js_file(None,
   body=...)``) twice when an extension adds it after the builder has started: the builder
   stores it under the file name ``None``, and ``prepare_writing`` re-adds the registry's
   copy under ``''``, which does not compare equal. sphinx-thebe adds ``const THEBE_JS_URL =
   ...`` that way (in ``env-before-read-docs``), so every page declared the constant twice
   and Chromium logged "Identifier 'THEBE_JS_URL' has already been declared"
   (sphinx-togglebutton's ``togglebuttonSelector`` was doubled the same way, silently).
   We drop the exact duplicates from each page's script list.
3. Unique ids: sphinx-exercise and sphinx-proof give every exercise, solution and proof of
   a page the same fixed ids (``exercise-content``, ``solution-content``, ``proof-content``,
   ``proof``); nothing links to them. After the first, each gets a number (``proof-2``).
4. No dead weight: the embedded ipywidgets state (``application/vnd.jupyter.widget-state+json``)
   is left out of the pages. The book loads no widget manager (``nb_ipywidgets_js: {}``), so
   nothing would read it; the sliders' kernel-free ``text/html`` view carries all frames.
"""

import os
from pathlib import Path

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


#: The repository's address (GitHub), from the environment: launch buttons only with it.
REPOSITORY_VARIABLE = "BOOK_REPOSITORY_URL"

#: A JupyterHub's address for its launch button (optional).
JUPYTERHUB_VARIABLE = "BOOK_JUPYTERHUB_URL"

#: The branch where the workflow publishes the reader's notebooks for Colab and Binder.
NOTEBOOK_BRANCH = "notebooks"

#: The launch buttons' Czech names and tooltips, by the theme's English text.
LAUNCH_TEXTS = {
    "Colab": ("Otevřít v Colabu", "Otevřít notebook kapitoly v Google Colab"),
    "Binder": ("Otevřít v Binderu", "Otevřít notebook kapitoly v Binderu (mybinder.org)"),
    "JupyterHub": ("Otevřít v JupyterHubu", "Otevřít notebook kapitoly na JupyterHubu"),
}


#: The download menu's names of the two reader's notebooks (their Czech tooltips are in
#: ``czech_interface.BUTTON_TOOLTIPS``, by label).
TEACHER_TEXT, STUDENT_TEXT = "Notebook s řešeními", "Notebook bez řešení"

#: The label of the student edition's entry in the download menu.
STUDENT_BUTTON = "download-student-notebook-button"


def is_notebook_source(path):
    """A MyST Markdown notebook: a .md file whose front matter has a jupytext header."""
    if path.suffix != ".md":
        return False
    text = path.read_text(encoding="utf-8")
    return text.startswith("---") and "\njupytext:" in text.split("\n---", 1)[0]


def _is_notebook_page(app, pagename, doctree):
    return (doctree is not None and pagename in app.env.found_docs
            and is_notebook_source(Path(app.env.doc2path(pagename))))


def offer_notebook(app, pagename, templatename, context, doctree):
    """Let the theme's download menu have its ".ipynb" entry (pointed later)."""
    if _is_notebook_page(app, pagename, doctree):
        context["ipynb_source"] = pagename + ".ipynb"


def point_buttons(app, pagename, templatename, context, doctree):
    """After the theme built its buttons: its ".ipynb" becomes "Notebook s řešeními" (the
    teacher's edition of the reader's notebook), "Notebook bez řešení" (the student's) follows
    it, and the launch buttons open the teacher's edition (the theme links the page's
    ``.md``) with Czech names."""
    if not _is_notebook_page(app, pagename, doctree):
        return
    from reader_notebooks import FOLDER, editions

    teacher, student = (context["pathto"](f"{FOLDER}/{name}", 1) for name in editions(pagename))
    for group in context.get("header_buttons", []):
        buttons = group.get("buttons", [])
        for button in list(buttons):
            if button.get("label") == "download-notebook-button":
                button.update(url=teacher, text=TEACHER_TEXT)
                buttons.insert(buttons.index(button) + 1, {
                    **button, "url": student, "text": STUDENT_TEXT, "label": STUDENT_BUTTON})
            if group.get("label") == "launch-buttons" and button.get("type") == "link":
                button["url"] = button["url"].replace(f"{pagename}.md", f"{pagename}.ipynb")
                text, tooltip = LAUNCH_TEXTS.get(button["text"], (button["text"], None))
                button["text"], button["tooltip"] = text, tooltip or button["tooltip"]
        if group.get("label") == "launch-buttons":
            group["tooltip"] = "Spustit notebook kapitoly"


def configure_launch_buttons(app, config):
    """Colab and Binder buttons (and a JupyterHub's) where the repository is named."""
    repository = os.environ.get(REPOSITORY_VARIABLE, "").strip().rstrip("/")
    options = config.html_theme_options
    if not repository:
        options.pop("launch_buttons", None)  # no address, no buttons
        return
    options["repository_url"] = repository
    options["repository_branch"] = NOTEBOOK_BRANCH
    options["path_to_docs"] = ""
    options["launch_buttons"] = {
        "notebook_interface": "jupyterlab",
        "colab_url": "https://colab.research.google.com",
        "binderhub_url": "https://mybinder.org",
        "jupyterhub_url": os.environ.get(JUPYTERHUB_VARIABLE, "").strip(),
        "thebe": False,
    }


def _script_key(asset):
    attributes = tuple(sorted(getattr(asset, "attributes", {}).items()))
    return (getattr(asset, "filename", None) or "", getattr(asset, "priority", 500), attributes)


def clean_scripts(app, pagename, templatename, context, doctree):
    """Each script once, and no widget state nobody reads."""
    scripts = context.get("script_files")
    if scripts is None:
        return
    seen, kept = set(), []
    for asset in scripts:
        key = _script_key(asset)
        if key in seen or dict(key[2]).get("type") == WIDGET_STATE:
            continue
        seen.add(key)
        kept.append(asset)
    context["script_files"] = kept


#: The fixed ids that sphinx-exercise and sphinx-proof repeat on a page.
REPEATED_IDS = {"exercise-content", "solution-content", "proof-content", "proof"}


class UniqueIds(SphinxPostTransform):
    """Number the repeats of ``REPEATED_IDS`` within a page (after sphinx-exercise has
    moved its solutions' content, post-transforms 5-22)."""

    default_priority = 950

    def run(self, **kwargs):
        seen = {}
        for node in self.document.findall(nodes.Element):
            ids = node.get("ids")
            if not ids:
                continue
            for k, name in enumerate(ids):
                if name in REPEATED_IDS:
                    seen[name] = seen.get(name, 0) + 1
                    if seen[name] > 1:
                        ids[k] = f"{name}-{seen[name]}"


def setup(app):
    for extension in (
        "computed_values",     # {eval}: a computed value in the prose, HTML and JupyterLab
        "czech_typography",    # no-break spaces of Czech typesetting
        "czech_search",        # Czech stemming in the index and the search page
        "czech_interface",     # the themes' labels in Czech
        "czech_bibliography",  # Czech citations and literature list
        "term_macros",         # the term colours' MathJax macros and CSS
        "figure_pictures",     # figures as <picture> for desktop/phone and light/dark
        "figure_pack",         # „Obrázek 2.3“ under each figure, its SVG and PNG, a zip
        "book_wheels",         # the two packages as wheels in <site>/wheels/
        "reader_notebooks",    # a reader's notebook per chapter in <site>/notebooks/
        "book_icons",          # the theme's icons as CSS masks, no icon font or script
        "book_math",           # MathJax: no tab stops or menu, Czech text, breaks by width
        "english_terms",       # lang="en" on the English terms
        "english_index",       # the glossary English → Czech (anglicke_pojmy.md)
        "teaching_estimates",  # reading and working times („Pro vyučující“)
        "parallel_build",      # the pages read (and executed) on every core
    ):
        app.setup_extension(extension)
    # before the theme builds its header buttons (priority 501)
    app.connect("html-page-context", offer_notebook, priority=400)
    app.connect("html-page-context", point_buttons, priority=510)
    app.connect("config-inited", configure_launch_buttons)
    # after every extension has added its scripts for the page
    app.connect("html-page-context", clean_scripts, priority=900)
    app.add_post_transform(UniqueIds)
    app.setup_extension("book_pdf")  # the whole-book PDF and the link to it
    app.setup_extension("link_previews")  # Open Graph tags for the hosted book
    app.setup_extension("book_citation")  # version, citation, „Našli jste chybu?“
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
