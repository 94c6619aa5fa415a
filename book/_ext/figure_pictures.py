"""attention_core's figures in the HTML book: each as a ``<picture>`` for desktop and phone,
light and dark, and the sliders' kernel-free view with all its frames.

1. The build tells the chapters' kernels that they render for the HTML book: it sets
   ``attention_display.interactive.HTML_BOOK`` in the environment, which the kernels myst-nb
   starts inherit. Then a bare ``Figure`` is displayed with all its renderings (MIME type
   ``interactive.PICTURE_MIME``) besides its PNG, and an ``explore`` pre-renders its frames.
   In JupyterLab nothing of this happens: a figure is one PNG, a slider draws on demand.
2. A myst-nb MIME renderer plugin turns ``PICTURE_MIME`` into a ``picture`` node: the four
   PNGs become image files like any notebook image (``_images/``), the alt text is the
   cell's ``mystnb: image: alt:`` exactly as myst-nb gives it to a plain image, and the HTML
   writer emits one ``<picture>`` per colour mode: the desktop rendering, and for windows
   narrower than ``figures.NARROW_MEDIA`` the phone rendering (panels stacked). Other
   builders (LaTeX) keep the plain PNG. myst-nb finds renderer plugins through package
   entry points only; the book registers its one plugin by adding it to myst-nb's list.
3. ``_static/attention-core.css``: the CSS of the sliders and pictures, shipped by
   ``attention_display.interactive.CSS``.
"""

import hashlib
import html
import os
import posixpath
import urllib.parse
from base64 import b64decode
from pathlib import Path

from docutils import nodes
from myst_nb.core import render as myst_nb_render

from attention_display import interactive

CSS_FILE = "attention-core.css"
HTML_BUILDERS = ("html", "dirhtml", "singlehtml")


class picture(nodes.General, nodes.Element):  # noqa: N801 - docutils names nodes in lower case
    """A figure's renderings: ``nodes.image`` children with the classes ``ac-wide`` or
    ``ac-narrow`` and ``ac-light`` or ``ac-dark``."""


class PicturePlugin:
    """myst-nb MIME renderer for ``PICTURE_MIME``: preferred to ``image/png`` in HTML."""

    mime_priority_overrides = [(name, interactive.PICTURE_MIME, 45) for name in HTML_BUILDERS]

    @staticmethod
    def handle_mime(renderer, data, inline):
        if data.mime_type != interactive.PICTURE_MIME:
            return None
        options = renderer.renderer.get_cell_level_config(
            "render_image_options", data.cell_metadata, line=data.line)
        content = data.content
        node = picture(media=content["media"], density=content["density"])
        for rendering in content["renderings"]:
            png = b64decode(rendering["png"])
            uri = renderer.write_file([hashlib.sha256(png).hexdigest() + ".png"], png,
                                      overwrite=False, exists_ok=True)
            node += nodes.image(uri=uri, alt=str(options.get("alt", "")),
                                width=str(rendering["width"]), height=str(rendering["height"]),
                                classes=[f"ac-{rendering['layout']}", f"ac-{rendering['theme']}"])
        return [node]


def _with_picture_plugin(original):
    def load_mime_renders():
        return [*original(), PicturePlugin]
    return load_mime_renders


def visit_picture(self, node):
    def src(image):
        uri = image["uri"]
        if uri in self.builder.images:
            uri = posixpath.join(self.builder.imgpath,
                                 urllib.parse.quote(self.builder.images[uri]))
        return html.escape(uri)

    images = {tuple(image["classes"][:2]): image for image in node.findall(nodes.image)}
    density = node["density"]
    parts = []
    for theme in ("light", "dark"):
        wide, narrow = images[("ac-wide", f"ac-{theme}")], images[("ac-narrow", f"ac-{theme}")]
        # the dark pictures load only when shown (hidden lazy images are not fetched)
        lazy = ' loading="lazy"' if theme == "dark" else ""
        parts.append(
            f'<picture class="ac-picture ac-{theme}">'
            f'<source media="{node["media"]}" srcset="{src(narrow)} {density}x" '
            f'width="{narrow["width"]}" height="{narrow["height"]}">'
            f'<img class="ac-figure" src="{src(wide)}" alt="{html.escape(wide["alt"])}" '
            f'width="{wide["width"]}" height="{wide["height"]}"{lazy} decoding="async">'
            "</picture>")
    self.body.append("".join(parts))
    raise nodes.SkipNode


def visit_first_image(self, node):
    """Builders other than HTML (they do not select this MIME type): the desktop picture."""
    image = next(iter(node.findall(nodes.image)))
    self.visit_image(image)
    self.depart_image(image)
    raise nodes.SkipNode


def render_for_html(app):
    if app.builder.format == "html":
        os.environ[interactive.HTML_BOOK] = "1"


def write_css(app, exception):
    if exception is None and app.builder.format == "html":
        static = Path(app.outdir, "_static")
        static.mkdir(parents=True, exist_ok=True)
        (static / CSS_FILE).write_text(interactive.CSS, encoding="utf-8")


def setup(app):
    if not getattr(myst_nb_render.load_mime_renders, "ac_picture", False):
        patched = _with_picture_plugin(myst_nb_render.load_mime_renders)
        patched.ac_picture = True
        myst_nb_render.load_mime_renders = patched
    app.add_node(picture, html=(visit_picture, None), latex=(visit_first_image, None),
                 text=(visit_first_image, None))
    app.connect("builder-inited", render_for_html)
    app.add_css_file(CSS_FILE)
    app.connect("build-finished", write_css)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
