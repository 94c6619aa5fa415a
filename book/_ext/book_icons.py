"""The theme's icons without the icon font's script (1,5 MB, every page) and its whole font.

pydata-sphinx-theme draws its icons with Font Awesome: ``<i class="fa-solid fa-sun">`` in
the pages, which Font Awesome's script replaces by SVGs, and icons in its CSS (an
admonition's mark, the arrows of the navigation), drawn from Font Awesome's font: 0,7 MB
of every page (gzip) for about thirty icons. Here:

- the template ``templates/icons/static/webpack-macros.html`` is the theme's own, without
  the script's ``<script>`` tag; the theme's CSS, which has a rule for every icon class,
  draws the ``<i>`` icons from the font instead;
- after the build, the font is cut down to the icons the book shows: those the written
  pages name (``fa-…`` classes), those the stylesheets draw, and the ``fa-xmark`` a theme
  script adds, as ``_static/book-icons-*.woff`` (a few kilobytes, fontTools from the
  font's TrueType file), which ``_static/book-icons.css`` declares in place of the whole
  fonts (the last ``@font-face`` of a family, weight and style is the one used, so the
  whole font is never fetched).
"""

import re
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

TEMPLATES = Path(__file__).parent / "templates" / "icons"
CSS_FILE = "book-icons.css"

#: Font Awesome's fonts in the theme's copy (``_static/vendor/fontawesome/webfonts``):
#: file, CSS family and weight, and the classes that choose it.
FONTS = {
    "fa-solid-900": ("Font Awesome 6 Free", 900, ("fa-solid", "fas")),
    "fa-regular-400": ("Font Awesome 6 Free", 400, ("fa-regular", "far")),
    "fa-brands-400": ("Font Awesome 6 Brands", 400, ("fa-brands", "fab")),
}

#: Icons the theme's scripts create (not in any written page).
FROM_SCRIPTS = {"fa-xmark"}

_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_ICON_RULE = re.compile(r"\s*(?:\.fa-[a-z0-9-]+::?before\s*,?\s*)+")
_ESCAPE = re.compile(r"\\([ef][0-9a-fA-F]{3})(?![0-9a-fA-F])")
_PRIVATE = re.compile("[\ue000-\uf8ff]")


def _codepoints(body):
    return ({int(code, 16) for code in _ESCAPE.findall(body)}
            | {ord(char) for char in _PRIVATE.findall(body)})


def read_css(texts):
    """From the stylesheets: ``{icon class: its codepoints}`` (Font Awesome's rules
    ``.fa-sun:before{content:"\\f185"}``) and the codepoints every other rule draws."""
    by_class, drawn = {}, set()
    for text in texts:
        for selector, body in _RULE.findall(text):
            found = _codepoints(body)
            if not found:
                continue
            if _ICON_RULE.fullmatch(selector):
                for name in re.findall(r"\.(fa-[a-z0-9-]+)", selector):
                    by_class.setdefault(name, set()).update(found)
            else:
                drawn |= found
    return by_class, drawn


def classes_used(pages):
    """Every class of the written pages that starts with ``fa-`` (styles, sizes, icons)."""
    found = set(FROM_SCRIPTS)
    for text in pages:
        for match in re.finditer(r'class="([^"]*)"', text):
            found.update(c for c in match.group(1).split() if c.startswith("fa"))
    return found


def subset(ttf, codepoints, target):
    """Font Awesome's TrueType ``ttf`` cut down to ``codepoints``, as WOFF at ``target``."""
    from fontTools import subset as fonttools_subset
    from fontTools.ttLib import TTFont

    font = TTFont(str(ttf))
    options = fonttools_subset.Options()
    options.flavor = "woff"
    options.layout_features = []
    subsetter = fonttools_subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(codepoints))
    subsetter.subset(font)
    font.flavor = "woff"
    font.save(str(target))


def add_templates(app, config):
    config.templates_path.insert(0, str(TEMPLATES))


def write_icons(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir, "_static")
    fonts = static / "vendor" / "fontawesome" / "webfonts"
    if not fonts.is_dir():
        return
    by_class, drawn = read_css(path.read_text(encoding="utf-8", errors="replace")
                               for path in static.rglob("*.css") if path.name != CSS_FILE)
    used = classes_used(page.read_text(encoding="utf-8")
                        for page in Path(app.outdir).glob("*.html"))
    wanted = drawn | {code for name in used & set(by_class) for code in by_class[name]}
    faces = ["/* The icons of Font Awesome Free 6 (https://fontawesome.com; icons CC BY 4.0, "
             "font SIL OFL 1.1) that the book shows: book/_ext/book_icons.py. */"]
    for stem, (family, weight, classes) in FONTS.items():
        ttf = fonts / f"{stem}.ttf"
        if not ttf.is_file() or (stem != "fa-solid-900" and not used & set(classes)):
            continue
        target = static / f"book-icons-{stem}.woff"
        subset(ttf, wanted, target)
        faces.append(f'@font-face {{ font-family: "{family}"; font-style: normal; '
                     f"font-weight: {weight}; font-display: block; "
                     f'src: url("{target.name}") format("woff"); }}')
    (static / CSS_FILE).write_text("\n".join(faces) + "\n", encoding="utf-8")
    logger.info("book_icons: %d icons in %d fonts", len(wanted), len(faces) - 1)


def setup(app):
    app.connect("config-inited", add_templates)
    app.add_css_file(CSS_FILE)
    app.connect("build-finished", write_icons)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
