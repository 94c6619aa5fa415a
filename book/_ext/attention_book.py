"""Small Sphinx additions for the book's HTML (hooked in ``_config.yml``, ``local_extensions``).

1. Every chapter page offers its notebook for download as ``.ipynb``: the chapter's MyST
   Markdown is converted with jupytext at build time (no outputs, so the file is small and
   runs in any Jupyter), written to ``_sources/<page>.ipynb``, and the book theme's download
   menu gets its ".ipynb" entry (the theme shows it whenever ``ipynb_source`` is set).
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

from pathlib import Path

import jupytext
import nbformat
from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def _is_notebook_source(path):
    """A MyST Markdown notebook: a .md file whose front matter has a jupytext header."""
    if path.suffix != ".md":
        return False
    text = path.read_text(encoding="utf-8")
    return text.startswith("---") and "\njupytext:" in text.split("\n---", 1)[0]


def write_notebook(source, target):
    """Convert the MyST Markdown chapter ``source`` to a plain ``.ipynb`` at ``target``."""
    nb = jupytext.read(source)
    nb.metadata.pop("jupytext", None)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.validate(nb)
    nbformat.write(nb, str(target))


def offer_notebook(app, pagename, templatename, context, doctree):
    """Write ``_sources/<page>.ipynb`` and let the theme's download menu link to it."""
    if doctree is None or pagename not in app.env.found_docs:
        return
    source = Path(app.env.doc2path(pagename))
    if not _is_notebook_source(source):
        return
    write_notebook(source, Path(app.outdir, "_sources", pagename).with_suffix(".ipynb"))
    context["ipynb_source"] = pagename + ".ipynb"


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
        "czech_typography",    # no-break spaces of Czech typesetting
        "czech_search",        # Czech stemming in the index and the search page
        "czech_interface",     # the themes' labels in Czech
        "czech_bibliography",  # Czech citations and literature list
        "term_macros",         # the term colours' MathJax macros and CSS
        "figure_pictures",     # figures as <picture> for desktop/phone and light/dark
        "book_icons",          # the theme's icons as CSS masks, no icon font or script
        "book_math",           # MathJax: no tab stops or menu, Czech text, breaks by width
        "english_terms",       # lang="en" on the English terms
        "parallel_build",      # the pages read (and executed) on every core
    ):
        app.setup_extension(extension)
    # before the theme builds its header buttons (priority 501)
    app.connect("html-page-context", offer_notebook, priority=400)
    # after every extension has added its scripts for the page
    app.connect("html-page-context", clean_scripts, priority=900)
    app.add_post_transform(UniqueIds)
    app.setup_extension("book_pdf")  # the whole-book PDF and the link to it
    app.setup_extension("link_previews")  # Open Graph tags for the hosted book
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
