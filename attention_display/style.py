"""The book's plot style: one colour per term of the attention formula, Czech numbers.

Each term of the formula has three colours, defined here once: a bright fill colour
(``COLORS``, from the Okabe-Ito palette, which stays distinguishable with the common forms of
colour blindness) for bars, lines and areas; a dark text colour (``TEXT_COLORS``, contrast at
least 4,5:1 on white) for labels, table headers and formula symbols; and a light text colour
for the same in dark mode (``DARK_TEXT_COLORS``, at least 4,5:1 on the theme's dark
background). The book's MathJax macros ``\\dotaz{q}`` ... ``\\vystup{o}`` and their CSS are
generated from these (:func:`mathjax_macros`, :func:`term_css`), so a reader can match a bar
in a figure to a symbol in a formula, in either mode.
"""

import html
import math
import re

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

#: Colour of each term of Attention(q; k, v) = sum_i a_i v_i (chapter 1).
COLORS = {
    "query": "#D55E00",   # vermilion: q
    "key": "#56B4E9",     # sky blue: k_i
    "score": "#E69F00",   # orange: s_i = q . k_i / sqrt(d)
    "weight": "#0072B2",  # blue: a_i
    "value": "#009E73",   # bluish green: v_i
    "output": "#CC79A7",  # reddish purple: sum_i a_i v_i
}

#: The same terms as text (labels, table headers, formula symbols): darker shades of
#: ``COLORS`` with a contrast of at least 4.5:1 on white (WCAG AA). The bright colours
#: stay for bars, lines and areas. Key and weight, both blue as fills, are told apart as
#: text by hue: the key a blue-green, the weight an indigo (CIE76 distance 59).
TEXT_COLORS = {
    "query": "#B84F00",   # 5.05:1 on white
    "key": "#00758F",     # 5.33:1
    "score": "#8A6100",   # 5.54:1
    "weight": "#2F4BB5",  # 7.51:1
    "value": "#00795A",   # 5.41:1
    "output": "#A8437D",  # 5.58:1
}

#: The page background of the book's dark mode (``--pst-color-background``: sphinx-book-theme
#: 1.3 sets #121212 over pydata-sphinx-theme's #14181e; measured in Chromium) and its text
#: colour (``--pst-color-text-base``).
DARK_BACKGROUND = "#121212"
DARK_FOREGROUND = "#ced6dd"

#: The terms as text in dark mode: light shades with a contrast of at least 4.5:1 on
#: ``DARK_BACKGROUND`` (and on the theme's dark table surface #29313d).
DARK_TEXT_COLORS = {
    "query": "#FF8F4D",   # 8.29:1 on the dark background
    "key": "#4CC9F0",     # 9.74:1
    "score": "#F2B33D",   # 10.07:1
    "weight": "#A8A8FF",  # 8.66:1
    "value": "#3FD1A0",   # 9.67:1
    "output": "#F08CC8",  # 8.29:1
}

#: The book's MathJax macro of each term (one argument): ``\\dotaz{q}``, ``\\klic{k_i}`` ...
TERM_MACROS = {
    "dotaz": "query",
    "klic": "key",
    "skore": "score",
    "vaha": "weight",
    "hodnota": "value",
    "vystup": "output",
}

#: Further colours for series that are not terms of the formula (Okabe-Ito, in order).
PALETTE = ["#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00",
           "#CC79A7"]

#: Default size of a figure in inches; frames of sliders use it too.
FIGSIZE = (6.4, 3.6)

_THIN_SPACE = "\u202f"  # narrow no-break space: the Czech thousands separator

#: A one-letter preposition or conjunction and the space after it (ČSN 01 6910: no line
#: ends with one of them).
_ONE_LETTER_WORD = re.compile(r"(?<!\w)([KkSsVvZzOoUuAaIi]) ")


def keep_one_letter_words(text):
    """Czech text with a no-break space after each one-letter preposition or conjunction.

    The book's Sphinx extension does this for the prose; a table a chapter prints and a
    slider's caption are outputs, which it does not touch, so :func:`table` and
    ``interactive.Explorer.alt_text`` do it themselves (a header such as "s chybou"
    otherwise breaks after the "s" in a narrow column or on paper).
    """
    return _ONE_LETTER_WORD.sub("\\1\u00a0", text)


def term_class(term):
    """The CSS class that gives text the colour of ``term`` in light and dark mode."""
    return f"ac-term-{term}"


def mathjax_macros(inline_colors=False):
    """The MathJax 3 ``tex.macros`` of the terms: ``{"dotaz": [body, 1], ...}``.

    By default a term is wrapped in a CSS class (``\\class{ac-term-query}{#1}``, MathJax's
    ``html`` extension), so that :func:`term_css` colours it for light and dark mode. With
    ``inline_colors=True`` the body is ``{\\color{#...}{#1}}`` with the light text colour,
    for places without the book's CSS (JupyterLab).
    """
    macros = {}
    for name, term in TERM_MACROS.items():
        if inline_colors:
            body = "{\\color{" + TEXT_COLORS[term] + "}{#1}}"
        else:
            body = "{\\class{" + term_class(term) + "}{#1}}"
        macros[name] = [body, 1]
    return macros


def myst_math_frontmatter():
    """The term macros for a MyST ``math:`` frontmatter (JupyterLab with jupyterlab-myst).

    jupyterlab-myst typesets with KaTeX, which has no ``\\class``, and reads ``math:`` only
    from a YAML block at the top of the notebook's first Markdown cell, so there the macros
    carry the light text colours inline: ``{"\\dotaz": "{\\color{#B84F00}{#1}}", ...}``.
    ``\\phonebreak{…}``, a formula's line break that the HTML book makes only where the
    width needs it, is its argument there.
    """
    macros = {"\\" + name: body for name, (body, _args) in mathjax_macros(True).items()}
    # a line break for narrow columns only (book/_ext/book_math.py); JupyterLab keeps it
    macros["\\phonebreak"] = "#1"
    return macros


def term_css():
    """CSS that colours every term's class: the text colour, and in dark mode the dark one.

    The dark rule is ``!important`` because tables written by :func:`table` also carry the
    light colour inline (for JupyterLab, which does not load the book's CSS).
    """
    lines = []
    for term, colour in TEXT_COLORS.items():
        lines.append(f".{term_class(term)} {{ color: {colour}; }}")
    for term, colour in DARK_TEXT_COLORS.items():
        lines.append(f'html[data-theme="dark"] .{term_class(term)} '
                     f"{{ color: {colour} !important; }}")
    return "\n".join(lines) + "\n"


def cz(x, digits=2):
    """Format a number the Czech way: decimal comma, spaces between thousands.

    ``cz(13.9448) == "13,94"``, ``cz(98304, 0) == "98 304"`` (with a narrow no-break space),
    ``cz(-1.414, 3) == "−1,414"`` (a true minus sign). A number that rounds to zero is
    written without a sign: ``cz(-0.001) == "0,00"``, never "−0,00".
    """
    if isinstance(x, float) and not math.isfinite(x):
        return {math.inf: "∞", -math.inf: "−∞"}.get(x, "NaN")
    text = f"{x:,.{digits}f}".replace(",", _THIN_SPACE).replace(".", ",")
    if text.startswith("-") and not text.strip("-0,"):
        text = text[1:]
    return text.replace("-", "−")


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def cz_sci(x, digits=1):
    """A number in Czech scientific notation: ``cz_sci(2.1e-9) == "2,1 · 10⁻⁹"``."""
    if x == 0:
        return "0"
    exponent = math.floor(math.log10(abs(x)))
    mantissa = x / 10**exponent
    if round(mantissa, digits) >= 10:
        mantissa, exponent = mantissa / 10, exponent + 1
    return f"{cz(mantissa, digits)} · 10{str(exponent).translate(_SUPERSCRIPT)}"


def cz_formatter(digits=None):
    """A matplotlib tick formatter writing tick labels with ``cz``.

    With ``digits=None`` it uses as few decimals as the tick needs (up to 6).
    """
    def format_tick(x, _position):
        if digits is not None:
            return cz(x, digits)
        for places in range(7):
            if abs(round(x, places) - x) < 1e-9 * max(1.0, abs(x)):
                return cz(x, places)
        return cz(x, 6)
    return FuncFormatter(format_tick)


def log_scale(ax, which="x", base=10, ticks=None, powers=False):
    """Put the x and/or y axis of ``ax`` (``which`` in "x", "y", "xy") on a log scale.

    Major ticks at ``ticks`` if given, else at the powers of ``base``; labels written the
    Czech way (``1 000``, ``0,01``), or as ``10⁴`` with ``powers=True``. No minor ticks:
    over several decades they only clutter, and they make slider frames slower to draw.
    """
    label = cz_power_formatter() if powers else cz_formatter()
    for name in which:
        getattr(ax, f"set_{name}scale")("log", base=base)
        axis = getattr(ax, f"{name}axis")
        if ticks is not None:
            axis.set_major_locator(FixedLocator(ticks))
        axis.set_major_formatter(label)
        axis.set_minor_locator(NullLocator())
    return ax


def cz_power_formatter():
    """Tick labels ``10²``, ``10³``, ... for the powers of ten; other ticks stay unlabelled."""
    def format_tick(x, _position):
        exponent = math.log10(x) if x > 0 else 0.5
        return cz_sci(x, 0).removeprefix("1 · ") if abs(exponent - round(exponent)) < 1e-9 else ""
    return FuncFormatter(format_tick)


def new_figure(nrows=1, ncols=1, figsize=FIGSIZE, **subplot_kw):
    """A new object-oriented figure (no pyplot state) and its axes, in the book's style.

    Every axis gets Czech tick labels (decimal comma). Returns ``(fig, axes)`` like
    ``plt.subplots``.
    """
    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(nrows, ncols, **subplot_kw)
    for ax in getattr(axes, "flat", [axes]):
        czech_axes(ax)
    return fig, axes


def czech_axes(ax):
    """Give ``ax`` Czech tick labels and the book's light grid."""
    ax.xaxis.set_major_formatter(cz_formatter())
    ax.yaxis.set_major_formatter(cz_formatter())
    ax.grid(True, color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def table(header, rows, colors=None, digits=3):
    """A small HTML table for a chapter, numbers written with ``cz``.

    ``header`` is a list of column titles, ``rows`` a list of rows; ``colors`` maps a column
    index to a colour of ``COLORS`` (the column's title is drawn in it), so a worked
    example can be read against the coloured formula. Returns an IPython ``HTML`` object.
    """
    from IPython.display import HTML

    colors = colors or {}

    def cell(tag, j, content):
        if isinstance(content, (int, np.integer)) and not isinstance(content, bool):
            text = cz(content, 0)
        elif isinstance(content, float):
            text = cz(content, digits)
        else:
            text = html.escape(keep_one_letter_words(str(content)))
        style = "text-align:right;padding:0.2em 0.7em"
        term_attribute = ""
        if j in colors and tag == "th":
            term = {v: k for k, v in COLORS.items()}.get(colors[j])
            text_color = TEXT_COLORS[term] if term else colors[j]
            style += f";color:{text_color};border-bottom:3px solid {colors[j]}"
            if term:  # the book's CSS switches the colour in dark mode
                term_attribute = f' class="{term_class(term)}"'
        return f'<{tag}{term_attribute} style="{style}">{text}</{tag}>'

    # cells on lines of their own: whoever reads the HTML's text without its tags (Sphinx's
    # search index does) gets "1 hodnota", not "1hodnota"
    head = "\n".join(cell("th", j, title) for j, title in enumerate(header))
    body = "\n".join("<tr>" + "\n".join(cell("td", j, x) for j, x in enumerate(row)) + "</tr>"
                     for row in rows)
    return HTML(f'<table class="ac-table"><thead><tr>{head}</tr></thead>\n'
                f"<tbody>{body}</tbody></table>")
