"""Formulas that stay out of the reader's way (MathJax 3, the book's offline copy).

- **Not in the tab order, no menu.** MathJax makes every formula a tab stop for its
  context menu (in a chapter two thirds of the tab stops were formulas, so a keyboard
  reader pressed Tab hundreds of times to reach a slider), and the menu is English and
  links to MathJax's site. The menu is switched off (``options.enableMenu``), and with it
  the tab stops; screen readers still read every formula (MathJax's assistive MathML).
- **Czech text in the text's font.** ``\\text{správná}`` inside a formula is drawn in the
  page's font (``chtml.mtextInheritFont``), not in MathJax's, which has no Czech letters
  and switched to a fallback font in the middle of a formula.
- **Line breaks only where the width needs them.** MathJax 3 does not break a display
  formula by itself, so the chapters break long ones by hand for a phone. A break written
  ``\\phonebreak{\\\\ &\\quad}`` is one only where the formula does not fit: the build
  writes the formula twice, once without the break (``\\phonebreak{…}`` dropped) and once
  with it (``\\phonebreak{…}`` replaced by its argument), and ``_static/surfaces.js`` shows
  the first wherever it fits its column, else the second (CSS picks by the window's width
  until the script has measured). In JupyterLab (KaTeX, the chapters' ``math:`` macros)
  ``\\phonebreak`` is its argument.
"""

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

MACRO = "\\phonebreak"

#: The classes of the two copies of a formula with ``\phonebreak`` and of their box.
BREAKABLE, WIDE, NARROW = "ac-breakable", "ac-math-wide", "ac-math-narrow"


def _argument(tex, start):
    """The end of the brace group that starts at ``tex[start]`` (``{``), or -1."""
    depth, position = 0, start
    while position < len(tex):
        char = tex[position]
        if char == "\\":  # a command or an escaped brace: not a group
            position += 2
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0:
            return position
        position += 1
    return -1


def resolve(tex, narrow):
    """``tex`` with every ``\\phonebreak{…}`` replaced by its argument (``narrow``) or
    dropped."""
    out, position = [], 0
    while True:
        found = tex.find(MACRO, position)
        if found < 0:
            return "".join(out) + tex[position:]
        brace = found + len(MACRO)
        while brace < len(tex) and tex[brace] == " ":
            brace += 1
        end = _argument(tex, brace) if brace < len(tex) and tex[brace] == "{" else -1
        if end < 0:
            raise ValueError(f"book_math: {MACRO} needs a {{…}} argument: {tex[found:found + 60]}")
        out += [tex[position:found], tex[brace + 1:end] if narrow else " "]
        position = end + 1


class ResponsiveBreaks(SphinxTransform):
    """Each display formula with ``\\phonebreak``: a box with the formula without and with
    its breaks."""

    default_priority = 500

    def apply(self, **kwargs):
        for block in list(self.document.findall(nodes.math_block)):
            tex = block.astext()
            if MACRO not in tex:
                continue
            if block.get("label") or block.get("number"):
                logger.warning(f"book_math: a numbered formula cannot have {MACRO}",
                               location=block)
                continue
            box = nodes.container(classes=[BREAKABLE])
            for narrow, name in ((False, WIDE), (True, NARROW)):
                copy = block.deepcopy()
                copy.children = [nodes.Text(resolve(tex, narrow))]
                copy["classes"] = [*block["classes"], name]
                box += copy
            block.replace_self(box)


def configure(app, config):
    """MathJax's options for the book (merged into ``mathjax3_config``)."""
    mathjax = dict(config.mathjax3_config or {})
    options = dict(mathjax.get("options", {}))
    options["enableMenu"] = False
    menu = dict(options.get("menuOptions", {}))
    menu["settings"] = {**menu.get("settings", {}), "inTabOrder": False}
    options["menuOptions"] = menu
    mathjax["options"] = options
    mathjax["chtml"] = {**mathjax.get("chtml", {}), "mtextInheritFont": True}
    tex = dict(mathjax.get("tex", {}))
    # a \phonebreak the transform did not see (inline math) is its argument
    tex["macros"] = {**tex.get("macros", {}), MACRO[1:]: ["#1", 1]}
    mathjax["tex"] = tex
    config.mathjax3_config = mathjax


def setup(app):
    app.connect("config-inited", configure)
    app.add_transform(ResponsiveBreaks)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
