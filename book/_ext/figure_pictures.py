"""attention_display's figures in the HTML book: each as a ``<picture>`` for desktop and
phone, light and dark, and the sliders' kernel-free view with its frames as image files.

1. The build tells the chapters' kernels that they render for the HTML book: it sets
   ``attention_display.interactive.HTML_BOOK`` in the environment, which the kernels myst-nb
   starts inherit. Then a bare ``Figure`` is displayed with all its renderings (MIME type
   ``interactive.PICTURE_MIME``) besides its PNG, and an ``explore`` renders all its frames
   (``interactive.EXPLORE_MIME``). In JupyterLab nothing of this happens: a figure is one
   PNG, a slider draws on demand.
2. A myst-nb MIME renderer plugin turns these into nodes whose PNGs become image files like
   any notebook image (``_images/``, named by their content, so a frame two sliders share
   is one file): a ``picture`` node for a figure, an ``explore`` node for a slider's frames
   (each in both layouts and both colour modes: the dark one is the same pixels with the
   dark palette). The alt text of a figure is the cell's ``mystnb: image: alt:`` exactly as
   myst-nb gives it to a plain image. The HTML writer emits one ``<picture>`` per colour
   mode (the desktop rendering, and for windows narrower than ``figures.NARROW_MEDIA`` the
   phone rendering), loaded lazily, so that a page fetches only the pictures it shows; an
   explore's HTML is ``interactive.explore_html``. Other builders (LaTeX) get the plain
   desktop PNG. Each figure node also keeps, for the figure pack (``figure_pack.py``), its
   SVG (written next to its PNGs), its desktop PNG and its alt text; a slider's are those
   of its start frame. myst-nb finds renderer plugins through package entry points only; the book
   registers its one plugin by adding it to myst-nb's list.
3. ``_static/attention-core.css`` and ``_static/attention-explore.js``: the CSS of the
   sliders and pictures and the sliders' script, from ``attention_display.interactive``.
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

from attention_display import figures, interactive

CSS_FILE = "attention-core.css"
JS_FILE = "attention-explore.js"
HTML_BUILDERS = ("html", "dirhtml", "singlehtml")
MIME_TYPES = (interactive.PICTURE_MIME, interactive.EXPLORE_MIME)


class picture(nodes.General, nodes.Element):  # noqa: N801 - docutils names nodes in lower case
    """A figure's renderings: ``nodes.image`` children with the classes ``ac-wide`` or
    ``ac-narrow`` and ``ac-light`` or ``ac-dark``."""


class explore(nodes.General, nodes.Element):  # noqa: N801
    """A slider's frames: ``data`` (``Explorer.page_data`` without the PNGs) and one
    ``nodes.image`` child per frame, layout and colour mode (attributes ``layout``,
    ``theme``, ``frame``)."""


def _write(renderer, content, suffix):
    """Write ``content`` to myst-nb's output folder, named by its hash; return its URI."""
    return renderer.write_file([hashlib.sha256(content).hexdigest()[:24] + suffix], content,
                               overwrite=False, exists_ok=True)


def _image(renderer, png, **attributes):
    return nodes.image(uri=_write(renderer, png, ".png"), **attributes)


def _pack_source(node, renderer, content, png, alt, name):
    """What the figure pack (``figure_pack.py``) needs of a figure: its SVG and desktop PNG
    (URIs as myst-nb gives them), its alt text, what its file is named for and its number
    of raster images."""
    node["pack"] = {"svg": _write(renderer, content["svg"].encode("utf-8"), ".svg"),
                    "png": _write(renderer, png, ".png"), "alt": alt, "name": name,
                    "rasters": content["rasters"]}


class PicturePlugin:
    """myst-nb MIME renderer for the book's figures and sliders: preferred to ``image/png``
    in HTML."""

    mime_priority_overrides = [(name, mime, 45) for name in HTML_BUILDERS for mime in MIME_TYPES]

    @staticmethod
    def handle_mime(renderer, data, inline):
        if data.mime_type == interactive.PICTURE_MIME:
            return [_picture_node(renderer, data)]
        if data.mime_type == interactive.EXPLORE_MIME:
            return [_explore_node(renderer, data.content)]
        return None


def _picture_node(renderer, data):
    options = renderer.renderer.get_cell_level_config(
        "render_image_options", data.cell_metadata, line=data.line)
    content = data.content
    alt = str(options.get("alt", ""))
    node = picture(media=content["media"], density=content["density"])
    for rendering in content["renderings"]:
        node += _image(renderer, b64decode(rendering["png"]), alt=alt,
                       width=str(rendering["width"]), height=str(rendering["height"]),
                       classes=[f"ac-{rendering['layout']}", f"ac-{rendering['theme']}"])
    _pack_source(node, renderer, content, b64decode(content["renderings"][0]["png"]), alt,
                 name=alt)
    return node


def _explore_node(renderer, content):
    """The frames become image files; the node keeps the rest of the page data."""
    frames = {}
    images = []
    for layout, rendered in content["frames"].items():
        frames[layout] = []
        for number, frame in enumerate(rendered):
            light = b64decode(frame["png"])
            dark = figures.with_palette(light, b64decode(frame["dark"]))
            for theme, png in (("light", light), ("dark", dark)):
                images.append(_image(renderer, png, alt="", layout=layout, theme=theme,
                                     frame=number))
            frames[layout].append({"width": frame["width"], "height": frame["height"]})
    data = {key: value for key, value in content.items() if key not in ("svg", "rasters")}
    node = explore(data={**data, "frames": frames})
    node += images
    start = content["index"]["wide"][content["start"]]
    # a slider's caption tells its current values, not what it shows: its file is named
    # for what its sliders change ("posuvnik-rozdil-skore")
    name = "posuvník " + " ".join(slider["label"] for slider in content["sliders"])
    _pack_source(node, renderer, content, b64decode(content["frames"]["wide"][start]["png"]),
                 content["alts"][content["start"]], name=name)
    return node


def _with_picture_plugin(original):
    def load_mime_renders():
        return [*original(), PicturePlugin]
    return load_mime_renders


def _src(translator, image):
    """The address of an image node in the written page (Sphinx copies it to ``_images``)."""
    uri = image["uri"]
    if uri in translator.builder.images:
        uri = posixpath.join(translator.builder.imgpath,
                             urllib.parse.quote(translator.builder.images[uri]))
    return uri


def visit_picture(self, node):
    images = {tuple(image["classes"][:2]): image for image in node.findall(nodes.image)}
    density = node["density"]
    parts = []
    for theme in ("light", "dark"):
        wide, narrow = images[("ac-wide", f"ac-{theme}")], images[("ac-narrow", f"ac-{theme}")]
        # lazy: a hidden picture (the other colour mode) and one far below load nothing
        parts.append(
            f'<picture class="ac-picture ac-{theme}">'
            f'<source media="{node["media"]}" srcset="{html.escape(_src(self, narrow))} '
            f'{density}x" width="{narrow["width"]}" height="{narrow["height"]}">'
            f'<img class="ac-figure" src="{html.escape(_src(self, wide))}" '
            f'alt="{html.escape(wide["alt"])}" width="{wide["width"]}" '
            f'height="{wide["height"]}" loading="lazy" decoding="async">'
            "</picture>")
    self.body.append("".join(parts))
    raise nodes.SkipNode


def visit_explore(self, node):
    data = node["data"]
    urls = {layout: {"light": [None] * len(frames), "dark": [None] * len(frames)}
            for layout, frames in data["frames"].items()}
    for image in node.findall(nodes.image):
        urls[image["layout"]][image["theme"]][image["frame"]] = _src(self, image)
    self.body.append(interactive.explore_html(data, urls))
    raise nodes.SkipNode


def visit_first_image(self, node):
    """Builders other than HTML (they do not select these MIME types): the desktop picture
    (of a slider: its start frame, light)."""
    images = list(node.findall(nodes.image))
    if isinstance(node, explore):
        start = node["data"]["index"]["wide"][node["data"]["start"]]
        images = [image for image in images if (image["layout"], image["theme"], image["frame"])
                  == ("wide", "light", start)]
        images[0]["alt"] = node["data"]["alts"][node["data"]["start"]]
    self.visit_image(images[0])
    self.depart_image(images[0])
    raise nodes.SkipNode


def render_for_html(app):
    if app.builder.format == "html":
        os.environ[interactive.HTML_BOOK] = "1"


def write_static(app, exception):
    if exception is None and app.builder.format == "html":
        static = Path(app.outdir, "_static")
        static.mkdir(parents=True, exist_ok=True)
        (static / CSS_FILE).write_text(interactive.CSS, encoding="utf-8")
        (static / JS_FILE).write_text(interactive.SCRIPT, encoding="utf-8")


def setup(app):
    if not getattr(myst_nb_render.load_mime_renders, "ac_picture", False):
        patched = _with_picture_plugin(myst_nb_render.load_mime_renders)
        patched.ac_picture = True
        myst_nb_render.load_mime_renders = patched
    for node, visit in ((picture, visit_picture), (explore, visit_explore)):
        app.add_node(node, html=(visit, None), latex=(visit_first_image, None),
                     text=(visit_first_image, None))
    app.connect("builder-inited", render_for_html)
    app.add_css_file(CSS_FILE)
    app.add_js_file(JS_FILE, loading_method="defer")
    app.connect("build-finished", write_static)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
