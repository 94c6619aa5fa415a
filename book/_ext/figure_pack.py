"""The book's figure pack: every figure numbered („Obrázek 2.3“) and downloadable for slides.

A *figure* is what ``figure_pictures.py`` makes of a chapter's output: a static figure (a
cell ending in ``fig``, a ``picture`` node) or a slider (an ``explore`` node). A slider's
figure is its **start frame**, the one a reader sees first and the one printed on paper
(``figure_pictures.visit_first_image``); its other frames are positions of the same figure.

1. While a page is read, each figure gets its number within the page and, right after it,
   a :class:`figure_label` node. The chapter's number comes from the table of contents
   (``toc_secnumbers``, known once every page is read), so the label is written out with it:
   „Obrázek 2.3“ in the HTML book, in the single page the PDF is printed from, and so in
   print. Unnumbered pages with figures have a letter (:data:`PAGE_LETTERS`): the appendix's
   figures are „Obrázek D.1“…; a figure on another unnumbered page is a build warning.
2. Under each figure in the HTML book, links to its pack files: an SVG drawn by matplotlib
   from the same figure object as the picture (``figures.svg``, in the desktop layout; a
   heat map stays a raster image inside it, every line, marker and letter is a path) and a
   PNG (the desktop picture, 2 pixels per CSS pixel). Both carry an attribution line under
   the figure (figure number, book, version ``attention_core.__version__``, the address
   ``BOOK_REPOSITORY_URL`` when it is set, CC BY-SA 4.0) and the same in their metadata.
   The files are named for what they are: ``obrazek-02-02-ztrata-tri-modelu-v-natech.svg``
   (chapter, number, the first words of the alt text in ASCII); a slider's, whose caption
   tells its current values, for what its sliders change: ``obrazek-02-01-posuvnik-rozdil-
   skore.svg``.
3. After the build, ``obrazky/`` of the site holds every pack file, ``README.txt`` (the
   attribution and the list of figures with their descriptions), ``obrazky.json`` (the
   same for programs and the tests) and :data:`ZIP_NAME`, all of them in one zip, which
   every page's download menu offers („Obrázky knihy (ZIP)“). The pack files are downloads
   only: no page loads them.
"""

import io
import json
import os
import posixpath
import re
import unicodedata
import zipfile
from html import escape
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

import matplotlib
from attention_book import REPOSITORY_VARIABLE
from docutils import nodes
from figure_pictures import explore, picture
from PIL import Image, ImageDraw, ImageFont, PngImagePlugin
from sphinx.util import logging

import attention_core

logger = logging.getLogger(__name__)

#: The folder of the pack in the site.
FOLDER = "obrazky"

#: The zip of all figures, in :data:`FOLDER`.
ZIP_NAME = "mechanismus-pozornosti-obrazky.zip"

#: The download menu's entry.
LINK_TEXT = "Obrázky knihy (ZIP)"

#: Unnumbered pages whose figures are numbered with a letter instead of a chapter number.
PAGE_LETTERS = {"dodatek": "D"}

LICENSE = "CC BY-SA 4.0"
LICENSE_URL = "https://creativecommons.org/licenses/by-sa/4.0/"

#: The attribution line's type: matplotlib's DejaVu Sans (the figures' own), 7 pt, grey.
FONT_FILE = Path(matplotlib.get_data_path(), "fonts", "ttf", "DejaVuSans.ttf")
FONT_PT = 7
LINE_PT = 9.5
MARGIN_PT = 5
INK = "#595959"

#: Pixels per point of the pack's PNG (the pictures' 2 pixels per CSS px, 100 CSS px/in).
PNG_PX_PER_PT = 200 / 72

#: At most this many characters of the alt text's first words in a file name.
SLUG_CHARS = 40

CSS_FILE = "figure-pack.css"
CSS = """\
.ac-figure-label { margin: 0.25rem 0 1.25rem; font-size: 0.9em;
                   color: var(--pst-color-text-muted); }
.ac-figure-number { font-weight: 600; color: var(--pst-color-text-base); }
.ac-figure-files a { white-space: nowrap; }
@media print { .ac-figure-files { display: none; } }
"""


class figure_label(nodes.General, nodes.Element):  # noqa: N801 - docutils names nodes in lower case
    """The number of a figure and its pack files, under the figure: ``docname``, ``index``."""


# ---- names and numbers ------------------------------------------------------------------


def slug(text, limit=SLUG_CHARS):
    """The first words of ``text`` in lower-case ASCII joined by hyphens, at most ``limit``
    characters (whole words): „Ztráta tří modelů v natech…“ -> ``ztrata-tri-modelu-v-natech``."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    kept = []
    for word in words:
        if kept and len("-".join([*kept, word])) > limit:
            # cut short, a name does not end in a preposition (v, s, k, z) or "a"
            while len(kept) > 1 and len(kept[-1]) == 1 and kept[-1].isalpha():
                kept.pop()
            break
        kept.append(word[:limit])
    return "-".join(kept) or "obrazek"


def chapter_of(env, docname):
    """The chapter's number ("2") or the page's letter ("D"); None for other pages.

    The single-page builder (the PDF's) merges the section numbers of every page into the
    root page's, under "<page>/<anchor>"."""
    number = (env.toc_secnumbers.get(docname, {}).get("")
              or env.toc_secnumbers.get(env.config.root_doc, {}).get(f"{docname}/"))
    if number:
        return ".".join(map(str, number))
    return PAGE_LETTERS.get(docname)


def figure_number(env, docname, index):
    chapter = chapter_of(env, docname)
    return f"{chapter}.{index}" if chapter else str(index)


def file_stem(env, docname, index, alt):
    chapter = chapter_of(env, docname) or docname
    chapter = chapter.zfill(2) if chapter.isdigit() else chapter
    return f"obrazek-{chapter.lower()}-{index:02d}-{slug(alt)}"


# ---- reading: numbering and labels -----------------------------------------------------


def _figures(env):
    if not hasattr(env, "figure_pack"):
        env.figure_pack = {}
    return env.figure_pack


def collect(app, doctree):
    """Number the page's figures, put a label under each, note their pack sources."""
    docname = app.env.docname
    found = [node for node in doctree.findall(lambda n: isinstance(n, (picture, explore)))
             if "pack" in node]
    entries = []
    for index, node in enumerate(found, start=1):
        node.parent.insert(node.parent.index(node) + 1,
                           figure_label(docname=docname, index=index))
        entries.append({"index": index, **node["pack"]})
        if not node["pack"]["alt"].strip():
            logger.warning(f"figure {index} of {docname} has no alt text (mystnb: image: alt:)",
                           location=node)
    if entries:
        _figures(app.env)[docname] = entries
    else:
        _figures(app.env).pop(docname, None)


def purge(app, env, docname):
    _figures(env).pop(docname, None)


def merge(app, env, docnames, other):
    for docname in docnames:
        if docname in _figures(other):
            _figures(env)[docname] = _figures(other)[docname]


def check_pages(app, env):
    """A figure on an unnumbered page without a letter would get a number like "3": warn."""
    for docname in sorted(_figures(env)):
        if chapter_of(env, docname) is None:
            logger.warning(f"figure_pack: {docname} has figures but no chapter number; "
                           f"give it a letter in PAGE_LETTERS")


# ---- writing: the label -----------------------------------------------------------------


def pack_figures(env):
    """Every figure of the book in order: dicts with number, page, file stem, alt text,
    sources (URIs as myst-nb gave them) and raster count."""
    def order(docname):
        chapter = chapter_of(env, docname) or ""
        return (not chapter.isdigit(), int(chapter) if chapter.isdigit() else 0, chapter,
                docname)
    result = []
    for docname in sorted(_figures(env), key=order):
        for entry in _figures(env)[docname]:
            index = entry["index"]
            result.append({**entry, "docname": docname,
                           "number": figure_number(env, docname, index),
                           "stem": file_stem(env, docname, index, entry["name"])})
    return result


def visit_label(self, node):
    env = self.builder.env
    number = figure_number(env, node["docname"], node["index"])
    entry = next(e for e in _figures(env)[node["docname"]] if e["index"] == node["index"])
    parts = [f'<p class="ac-figure-label"><span class="ac-figure-number">'
             f"Obrázek&nbsp;{number}</span>"]
    if self.builder.name == "html":
        stem = file_stem(env, node["docname"], node["index"], entry["name"])
        here = posixpath.dirname(self.builder.current_docname)
        links = []
        for suffix, what in (("svg", "vektorově (SVG)"), ("png", "jako obrázek PNG")):
            href = posixpath.relpath(f"{FOLDER}/{stem}.{suffix}", here or ".")
            links.append(f'<a href="{escape(href)}" download '
                         f'title="Obrázek {number} ke stažení {what}">{suffix.upper()}</a>')
        parts.append(f' <span class="ac-figure-files">· stáhnout {" · ".join(links)}</span>')
    parts.append("</p>")
    self.body.append("".join(parts))
    raise nodes.SkipNode


def visit_label_latex(self, node):
    """LaTeX: the number under the figure."""
    number = figure_number(self.builder.env, node["docname"], node["index"])
    self.body.append(f"\n\n\\textbf{{Obrázek {number}}}\n\n")
    raise nodes.SkipNode


def visit_label_text(self, node):
    """Plain text: the number under the figure."""
    self.add_text(f"Obrázek {figure_number(self.builder.env, node['docname'], node['index'])}")
    raise nodes.SkipNode


# ---- the pack files ---------------------------------------------------------------------


def attribution(app, number):
    """The attribution line's parts (joined by " · ", wrapped between them)."""
    parts = [f"Obrázek {number} z knihy {book_title(app)}, verze {attention_core.__version__}"]
    address = os.environ.get(REPOSITORY_VARIABLE, "").strip().rstrip("/")
    if address:
        parts.append(address)
    parts.append(f"licence {LICENSE}")
    return parts


def book_title(app):
    """The book's title (Jupyter Book puts ``title`` of ``_config.yml`` into html_title)."""
    return app.config.html_title or book_title(app)


def _font(size):
    return ImageFont.truetype(str(FONT_FILE), size)


def wrap(parts, width_pt, font_pt=FONT_PT):
    """Lines of at most ``width_pt`` (DejaVu Sans at ``font_pt``), broken between parts."""
    font = _font(font_pt * 10)  # measured at 10x for precision, in points

    def fits(line):
        return font.getlength(line) / 10 <= width_pt
    lines = []
    for part in parts:
        candidate = f"{lines[-1]} · {part}" if lines else part
        if lines and fits(candidate):
            lines[-1] = candidate
        else:
            lines.append(part)
    return lines


_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)pt" height="([\d.]+)pt" '
                   r'viewBox="0 0 ([\d.]+) ([\d.]+)"')


def attributed_svg(svg_text, lines, title, description, source=""):
    """The figure's SVG with ``lines`` of attribution under it, a ``<title>``, a ``<desc>``
    and the licence in its metadata."""
    match = _SIZE.search(svg_text)
    if match is None:
        raise ValueError("attributed_svg: no width/height/viewBox in pt on the <svg> element")
    width, height = float(match.group(3)), float(match.group(4))
    extra = MARGIN_PT + LINE_PT * len(lines)
    new_height = f"{height + extra:g}"
    head = (svg_text[:match.start()] + match.group(0)
            .replace(f'height="{match.group(2)}pt"', f'height="{new_height}pt"')
            .replace(f'viewBox="0 0 {match.group(3)} {match.group(4)}"',
                     f'viewBox="0 0 {match.group(3)} {new_height}"'))
    rest = svg_text[match.end():]
    tag_end = rest.index(">") + 1
    texts = "".join(
        f'<text x="{MARGIN_PT}" y="{height + MARGIN_PT + LINE_PT * (k + 1) - 2.5:g}" '
        f'font-family="DejaVu Sans, Verdana, Arial, sans-serif" font-size="{FONT_PT}" '
        f'fill="{INK}">{xml_escape(line)}</text>'
        for k, line in enumerate(lines))
    footer = (f'<g id="attribution"><rect x="0" y="{height:g}" width="{width:g}" '
              f'height="{extra:g}" fill="#ffffff"/>{texts}</g>\n')
    rights = (f"<dc:title>{xml_escape(title)}</dc:title>"
              f"<dc:rights>{xml_escape(' · '.join(lines))}</dc:rights>"
              + (f"<dc:source>{xml_escape(source)}</dc:source>" if source else "")
              + f'<cc:license rdf:resource="{LICENSE_URL}"/>')
    body = (rest[:tag_end] + f"\n <title>{xml_escape(title)}</title>\n"
            f" <desc>{xml_escape(description)}</desc>" + rest[tag_end:])
    body = body.replace("</cc:Work>", rights + "</cc:Work>", 1)
    closing = body.rindex("</svg>")
    return head + body[:closing] + footer + body[closing:]


def attributed_png(png, lines, title, description, source=""):
    """The figure's PNG with ``lines`` of attribution under it and the same in its text
    chunks (Title, Description, Copyright, Source)."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    line_px = round(LINE_PT * PNG_PX_PER_PT)
    extra = round(MARGIN_PT * PNG_PX_PER_PT) + line_px * len(lines)
    framed = Image.new("RGB", (image.width, image.height + extra), "white")
    framed.paste(image, (0, 0))
    draw = ImageDraw.Draw(framed)
    font = _font(round(FONT_PT * PNG_PX_PER_PT))
    for k, line in enumerate(lines):
        baseline = (image.height + round(MARGIN_PT * PNG_PX_PER_PT) + line_px * (k + 1)
                    - round(2.5 * PNG_PX_PER_PT))
        draw.text((round(MARGIN_PT * PNG_PX_PER_PT), baseline), line, font=font, fill=INK,
                  anchor="ls")
    info = PngImagePlugin.PngInfo()
    for key, value in (("Title", title), ("Description", description),
                       ("Copyright", " · ".join(lines)), ("Source", source)):
        if value:
            info.add_itxt(key, value)
    buffer = io.BytesIO()
    framed.save(buffer, "png", pnginfo=info, optimize=True)
    return buffer.getvalue()


def _source_path(app, uri):
    """A file myst-nb wrote, from the URI it returned (relative to the source folder)."""
    return Path(app.srcdir, uri.lstrip("/"))


def readme(app, figures):
    address = os.environ.get(REPOSITORY_VARIABLE, "").strip().rstrip("/")
    lines = [f"Obrázky knihy {book_title(app)}, verze {attention_core.__version__}",
             *([f"Adresa: {address}"] if address else []),
             f"Licence: {LICENSE} ({LICENSE_URL}). Při použití uveďte knihu, číslo obrázku",
             "a licenci; stačí řádek, který je pod každým obrázkem.",
             "",
             "Každý obrázek je tu dvakrát: SVG (vektorový, matplotlib ho nakreslil z téhož",
             "obrázku jako knihu; tepelné mapy jsou v něm rastrové) a PNG (jako v knize, dva",
             "pixely na pixel stránky). Obrázek posuvníku je jeho výchozí poloha.",
             ""]
    for figure in figures:
        lines += [f"Obrázek {figure['number']}: {figure['stem']}.svg, {figure['stem']}.png",
                  f"  {figure['alt']}", ""]
    return "\n".join(lines)


def write_pack(app, exception):
    if exception is not None or app.builder.name != "html":
        return
    env = app.env
    figures = pack_figures(env)
    folder = Path(app.outdir, FOLDER)
    folder.mkdir(parents=True, exist_ok=True)
    address = os.environ.get(REPOSITORY_VARIABLE, "").strip().rstrip("/")
    files = {}
    manifest = []
    for figure in figures:
        svg_text = _source_path(app, figure["svg"]).read_text(encoding="utf-8")
        png = _source_path(app, figure["png"]).read_bytes()
        width_pt = float(_SIZE.search(svg_text).group(3))
        lines = wrap(attribution(app, figure["number"]), width_pt - 2 * MARGIN_PT)
        title = f"Obrázek {figure['number']} – {book_title(app)}"
        files[f"{figure['stem']}.svg"] = attributed_svg(
            svg_text, lines, title, figure["alt"], address).encode("utf-8")
        files[f"{figure['stem']}.png"] = attributed_png(png, lines, title, figure["alt"],
                                                        address)
        manifest.append({"number": figure["number"], "page": figure["docname"],
                         "svg": f"{figure['stem']}.svg", "png": f"{figure['stem']}.png",
                         "alt": figure["alt"], "raster_images": figure["rasters"],
                         "attribution": " · ".join(lines)})
    files["README.txt"] = readme(app, figures).encode("utf-8")
    files["obrazky.json"] = json.dumps(manifest, ensure_ascii=False, indent=1).encode("utf-8")
    for stale in folder.iterdir():
        if stale.name not in files and stale.name != ZIP_NAME:
            stale.unlink()
    for name, content in files.items():
        (folder / name).write_bytes(content)
    with zipfile.ZipFile(folder / ZIP_NAME, "w", zipfile.ZIP_DEFLATED) as pack:
        for name, content in files.items():
            info = zipfile.ZipInfo(f"{FOLDER}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            pack.writestr(info, content)
    logger.info(f"figure_pack: {len(figures)} figures in {FOLDER}/{ZIP_NAME}")


def link_zip(app, pagename, templatename, context, doctree):
    """Every page's download menu offers the zip."""
    if app.builder.name != "html" or not _figures(app.env):
        return
    for button in context.get("header_buttons", []):
        if button.get("label") == "download-buttons":
            button["buttons"].append({
                "type": "link",
                "url": context["pathto"](f"{FOLDER}/{ZIP_NAME}", 1),
                "text": LINK_TEXT,
                "tooltip": "Stáhnout všechny obrázky knihy (SVG a PNG) v jednom souboru ZIP",
                "icon": "fas fa-images",
                "label": "download-figure-pack-button",
            })


def write_css(app, exception):
    if exception is None and app.builder.format == "html":
        static = Path(app.outdir, "_static")
        static.mkdir(parents=True, exist_ok=True)
        (static / CSS_FILE).write_text(CSS, encoding="utf-8")


def setup(app):
    app.add_node(figure_label, html=(visit_label, None), latex=(visit_label_latex, None),
                 text=(visit_label_text, None))
    app.connect("doctree-read", collect)
    app.connect("env-purge-doc", purge)
    app.connect("env-merge-info", merge)
    app.connect("env-check-consistency", check_pages)
    # after the book theme has built its download menu (501) and the PDF's entry (600)
    app.connect("html-page-context", link_zip, priority=610)
    app.add_css_file(CSS_FILE)
    app.connect("build-finished", write_pack)
    app.connect("build-finished", write_css)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": 1}
