"""Link previews of the hosted book: Open Graph tags by sphinxext-opengraph.

A shared link to a chapter shows the chapter's title, its first sentences and a preview
image in chat and social apps. Those tags need the address where the book is published,
which only the publisher knows, so it is a setting, read from the environment:

    BOOK_BASE_URL=https://<owner>.github.io/<repository>/ jupyter-book build book/

The GitHub Pages workflow (.github/workflows/book.yml) sets it to the address GitHub gives
the site. With it, every page gets ``og:url`` and a canonical link under that address
(Sphinx's ``html_baseurl``) and a preview card image (``og:image``, drawn by
sphinxext-opengraph with matplotlib). Without it (a local or offline build) the pages
still get ``og:title``, ``og:description``, ``og:type`` and ``og:site_name``, and no
address or card image is made up. Descriptions are the page's first paragraphs with their
formulas read as text ("sᵢ = q · kᵢ / √d"), never TeX source.
"""

import os
import re
import sys

from docutils import nodes

#: The environment variable holding the published address of the book's root folder.
BASE_URL_VARIABLE = "BOOK_BASE_URL"


def base_url():
    """The published address from the environment, ending with ``/`` (or ``""``)."""
    url = os.environ.get(BASE_URL_VARIABLE, "").strip()
    if url and not url.endswith("/"):
        url += "/"
    return url


def _configure(app, config):
    url = base_url()
    config.ogp_site_url = url
    config.ogp_site_name = config.html_title or config.project
    config.ogp_description_length = 200
    config.ogp_enable_meta_description = True
    if url:
        config.html_baseurl = url
        # DejaVu Sans (shipped with matplotlib) has √, ·, ≈ and subscripts; Roboto has not
        config.ogp_social_cards = {"enable": True, "line_color": "#0072B2",
                                   "font": "DejaVu Sans"}
    else:
        config.ogp_social_cards = {"enable": False}


#: TeX commands that read as a character in plain text.
_TEX_SYMBOLS = {
    r"\cdot": "·", r"\times": "×", r"\to": "→", r"\rightarrow": "→", r"\approx": "≈",
    r"\le": "≤", r"\leq": "≤", r"\ge": "≥", r"\geq": "≥", r"\ne": "≠", r"\neq": "≠",
    r"\infty": "∞", r"\sum": "∑", r"\pm": "±", r"\in": "∈", r"\top": "ᵀ",
    r"\ldots": "…", r"\dots": "…", r"\,": " ", r"\;": " ", r"\quad": " ",
    r"\alpha": "α", r"\beta": "β", r"\lambda": "λ", r"\sigma": "σ", r"\mu": "μ",
    r"\tanh": "tanh", r"\exp": "exp", r"\ln": "ln", r"\log": "log", r"\max": "max",
}
_SUBSCRIPTS = str.maketrans("0123456789aeijknortv+-", "₀₁₂₃₄₅₆₇₈₉ₐₑᵢⱼₖₙₒᵣₜᵥ₊₋")
_SUPERSCRIPTS = str.maketrans("0123456789+-Tn", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻ᵀⁿ")


def tex_to_text(tex):
    """Plain text of a short inline formula, or ``None`` when it has no plain form."""
    text = tex.strip()
    text = re.sub(r"\\color\{#?[0-9A-Za-z]+\}", "", text)
    if "\\begin" in text:
        return None
    for _ in range(3):  # \sqrt{x}, \frac{a}{b}, \mathrm{E}, macros such as \dotaz{q}
        text = re.sub(r"\\sqrt\{([^{}]*)\}", r"√\1", text)
        text = re.sub(r"\\sqrt\s*([A-Za-z0-9])", r"√\1", text)
        text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1/\2", text)
        text = re.sub(r"\\(?!frac\b)[A-Za-z]+\{([^{}]*)\}", r"\1", text)
    for command in sorted(_TEX_SYMBOLS, key=len, reverse=True):
        text = re.sub(re.escape(command) + r"(?![A-Za-z])", _TEX_SYMBOLS[command], text)
    text = re.sub(r"_\{?([0-9aeijknortv+-]+)\}?",
                  lambda m: m.group(1).translate(_SUBSCRIPTS), text)
    text = re.sub(r"\^\{?([0-9+\-Tn]+)\}?",
                  lambda m: m.group(1).translate(_SUPERSCRIPTS), text)
    text = text.replace("{", "").replace("}", "")
    if "\\" in text:
        return None
    return re.sub(r"\s+", " ", text).strip()


def _plain(node):
    """The text of ``node`` with its inline formulas as plain text (``None``: cannot)."""
    if isinstance(node, nodes.math):
        return tex_to_text(node.astext())
    if isinstance(node, nodes.Text):
        return node.astext()
    if isinstance(node, (nodes.footnote_reference, nodes.citation_reference, nodes.raw)):
        return ""
    parts = [_plain(child) for child in node.children]
    return None if None in parts else "".join(parts)


def page_description(doctree, length=200):
    """The page's first paragraphs as plain text (formulas too), at most ``length`` chars."""
    text = ""
    for paragraph in doctree.findall(nodes.paragraph):
        if not isinstance(paragraph.parent, nodes.section):
            continue  # prose of the page, not lists, tables, admonitions or captions
        plain = _plain(paragraph)
        if plain is None:
            break
        text = (text + " " + re.sub(r"\s+", " ", plain)).strip()
        if len(text) >= length:
            break
    if len(text) > length:
        text = text[:length - 1].rsplit(" ", 1)[0] + "…"
    return text


def _description(doctree, description_length, known_titles=None):
    """sphinxext-opengraph's description of a page, as :func:`page_description` makes it."""
    return page_description(doctree, description_length)


def _no_relative_url(app, pagename, templatename, context, doctree):
    """Without a published address, an ``og:url`` would be a bare file name: leave it out."""
    if not base_url() and context.get("metatags"):
        context["metatags"] = "\n".join(line for line in context["metatags"].split("\n")
                                        if 'property="og:url"' not in line)


def setup(app):
    app.setup_extension("sphinxext.opengraph")
    # Its own description is the page's text with each formula's TeX source in it (the
    # preview card image too); ours reads formulas as text. It looks the function up in its
    # module when it renders a page, so replacing it there is enough.
    opengraph = sys.modules["sphinxext.opengraph"]
    opengraph.get_description = _description
    # before sphinxext-opengraph reads its settings (it reads them per page)
    app.connect("config-inited", _configure, priority=400)
    # after sphinxext-opengraph has added its tags (priority 500)
    app.connect("html-page-context", _no_relative_url, priority=600)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
