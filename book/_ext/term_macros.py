"""The colours of the formula's terms, from ``attention_display.style``, at build time.

The chapters write ``\\dotaz{q}``, ``\\klic{k_i}``, ``\\skore{s_i}``, ``\\vaha{a_i}``,
``\\hodnota{v_i}``, ``\\vystup{o}``. Each macro wraps its argument in a CSS class
(``\\class{ac-term-query}{#1}``, MathJax 3's ``html`` extension, loaded from the book's own
offline MathJax), and ``_static/attention-terms.css`` colours the classes with
``style.TEXT_COLORS`` and, in dark mode, ``style.DARK_TEXT_COLORS``. So the formulas, the
figures and the tables take their colours from one place and follow the colour mode.
"""

from pathlib import Path

from attention_display import style

CSS_FILE = "attention-terms.css"


def add_macros(app, config):
    """Merge the term macros into ``mathjax3_config`` (Jupyter Book sets it too)."""
    mathjax = dict(config.mathjax3_config or {})
    tex = dict(mathjax.get("tex", {}))
    tex["macros"] = {**tex.get("macros", {}), **style.mathjax_macros()}
    packages = dict(tex.get("packages", {}))
    packages["[+]"] = [*packages.get("[+]", []), "html"]
    tex["packages"] = packages
    mathjax["tex"] = tex
    loader = dict(mathjax.get("loader", {}))
    loader["load"] = [*loader.get("load", []), "[tex]/html"]
    mathjax["loader"] = loader
    config.mathjax3_config = mathjax


def write_css(app, exception):
    if exception is None and app.builder.format == "html":
        static = Path(app.outdir, "_static")
        static.mkdir(parents=True, exist_ok=True)
        (static / CSS_FILE).write_text(style.term_css(), encoding="utf-8")


def setup(app):
    app.connect("config-inited", add_macros)
    app.add_css_file(CSS_FILE)
    app.connect("build-finished", write_css)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
