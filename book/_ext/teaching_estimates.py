"""How long each chapter takes, estimated when the book is built (issue 20, item 1).

The directive ``{odhad-casu}`` (page „Pro vyučující“, ``pro_vyucujici.md``) becomes a table
with a row for every chapter and the appendix, in the order of the table of contents, and a
row of totals: ``podklady`` what the estimates are made of, ``odhad`` the estimates. Each
estimate is computed from the chapter itself, so it follows the chapter
when the chapter changes:

- **reading**: the words of the chapter's prose (its Markdown without code cells, formulas,
  solutions and MyST markup; :func:`prose_words`) at :data:`WORDS_PER_MINUTE`, plus
  :data:`MINUTES_PER_FORMULA` for every displayed formula;
- **working**: the exercises (``{exercise-start}`` and ``{exercise}``), each
  :data:`EXERCISE_MINUTES` by its difficulty (the number of ★ in its title; an exercise not
  marked counts as ★★), plus the time this build's kernel took to run the chapter's code
  (myst-nb's record of the execution), which a student's run of the notebook repeats.

The execution times are known only once every chapter has been executed, so the table is
put in when the page is written (a post-transform) and the page is written again whenever a
chapter was executed (as myst-nb's own ``nb-exec-table``).
"""

import math
import re
from pathlib import Path

from docutils import nodes
from myst_nb.sphinx_ import NbMetadataCollector
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

from attention_display.style import cz

#: Careful study of a technical text: a slow reading pace, well below everyday reading.
WORDS_PER_MINUTE = 100

#: Reading one displayed formula (or theorem's statement in symbols) with understanding.
MINUTES_PER_FORMULA = 1

#: Minutes for an exercise by its number of ★ (0: not marked).
EXERCISE_MINUTES = {0: 20, 1: 10, 2: 20, 3: 40}

METADATA_KEY = "has_teaching_estimates"

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
_CODE_CELL = re.compile(r"^```\{code-cell\}.*?^```\s*$", re.S | re.M)
_SOLUTION = re.compile(r"^```\{solution-start\}.*?^```\{solution-end\}\s*\n```\s*$", re.S | re.M)
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$|^```\{math\}.*?^```\s*$", re.S | re.M)
_INLINE_MATH = re.compile(r"\$[^$\n]+\$")
_FENCE = re.compile(r"^(```.*|:[a-z-]+:.*|\+\+\+.*|\([\w-]+\)=)$", re.M)
_ROLE_TARGET = re.compile(r"\{[a-z:-]+\}`([^`<]*?)\s*(?:<[^`]*>)?`")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_WORD = re.compile(r"[^\W\d_](?:[\w'’-]*\w)?")
_EXERCISE = re.compile(r"^```\{exercise(?:-start)?\}(.*)$", re.M)


def _without_solutions_and_code(text):
    text = _FRONT_MATTER.sub("", text)
    text = _SOLUTION.sub("", text)
    return _CODE_CELL.sub("", text)


def displayed_formulas(text):
    """The displayed formulas of a chapter's prose (solutions and code left out)."""
    return len(_DISPLAY_MATH.findall(_without_solutions_and_code(text)))


def prose_words(text):
    """The words a reader reads in a chapter: its Markdown without front matter, code
    cells, solutions, formulas, directive lines and options, and the targets of roles
    (``{term}`klíče <klíč>``` counts as "klíče")."""
    text = _DISPLAY_MATH.sub(" ", _without_solutions_and_code(text))
    text = _INLINE_MATH.sub(" ", text)
    text = _COMMENT.sub(" ", text)
    text = _FENCE.sub(" ", text)
    text = _ROLE_TARGET.sub(r"\1", text)
    return len(_WORD.findall(text))


def exercise_stars(text):
    """The number of ★ in the title of each of a chapter's exercises (0: not marked)."""
    return [title.count("★") for title in _EXERCISE.findall(text)]


def estimate(text, runtime):
    """Reading and working minutes of a chapter's source ``text``, its code having run
    ``runtime`` seconds (``None``: not executed in this build)."""
    words, formulas, stars = prose_words(text), displayed_formulas(text), exercise_stars(text)
    reading = words / WORDS_PER_MINUTE + formulas * MINUTES_PER_FORMULA
    working = sum(EXERCISE_MINUTES[min(s, 3)] for s in stars) + (runtime or 0) / 60
    return {"words": words, "formulas": formulas, "exercises": len(stars),
            "runtime": runtime, "reading": reading, "working": working}


def hours(minutes):
    """Minutes as Czech hours to a quarter of an hour, e.g. "1,25 h"."""
    return cz(math.ceil(minutes / 15) / 4, 2) + " h"


def _cell(*children):
    entry = nodes.entry()
    entry += nodes.paragraph("", "", *children)
    return entry


#: The two tables (each fits a phone's column): what an estimate is made of, and the
#: estimate; the directive's argument chooses one.
HEADERS = {"podklady": ("Kapitola", "Slova", "Vzorce", "Cvičení", "Běh"),
           "odhad": ("Kapitola", "Čtení", "Cvičení a běh", "Celkem")}


def _row(first, values):
    cells = [first] + [nodes.Text(v) for v in values]
    return nodes.row("", *(_cell(c) for c in cells))


def _numbers(e, kind):
    if kind == "podklady":
        runtime = "–" if e["runtime"] is None else cz(e["runtime"], 0) + " s"
        return (cz(e["words"], 0), str(e["formulas"]), str(e["exercises"]), runtime)
    return (cz(round(e["reading"]), 0) + " min", cz(round(e["working"]), 0) + " min",
            hours(e["reading"] + e["working"]))


def chapter_pages(env):
    """The notebook pages (chapters and appendix) in the order of the table of contents."""
    from attention_book import is_notebook_source

    order, stack = [], list(reversed(env.toctree_includes.get(env.config.root_doc, [])))
    while stack:
        docname = stack.pop()
        if docname in order:
            continue
        order.append(docname)
        stack += reversed(env.toctree_includes.get(docname, []))
    return [d for d in order if is_notebook_source(Path(env.doc2path(d)))]


def estimates_table(env, docname, kind):
    """The table ``kind`` (:data:`HEADERS`) of every chapter, and a row of totals; a
    chapter is named by its number (the appendix by its name), linked to it."""
    header = HEADERS[kind]
    table = nodes.table(classes=["teaching-estimates", f"teaching-estimates-{kind}"])
    group = nodes.tgroup(cols=len(header))
    table += group
    group += [nodes.colspec(colwidth=1) for _ in header]
    head = nodes.thead()
    head += nodes.row("", *(_cell(nodes.Text(h)) for h in header))
    body = nodes.tbody()
    total = {"words": 0, "formulas": 0, "exercises": 0, "runtime": 0.0, "reading": 0.0,
             "working": 0.0}
    for page in chapter_pages(env):
        data = NbMetadataCollector.get_exec_data(env, page) or {}
        text = Path(env.doc2path(page)).read_text(encoding="utf-8")
        e = estimate(text, data.get("runtime"))
        for key in total:
            total[key] += e[key] or 0
        number = env.toc_secnumbers.get(page, {}).get("")
        label = ".".join(map(str, number)) if number else env.titles[page].astext()
        label = label.split(":")[0]  # "Dodatek: co kniha předpokládá" → "Dodatek"
        link = addnodes.pending_xref("", nodes.inline(text=label), refdomain="std",
                                     reftype="doc", reftarget="/" + page, refexplicit=True,
                                     refwarn=True, refdoc=docname)
        body += _row(link, _numbers(e, kind))
    body += _row(nodes.strong(text="Celkem"), _numbers(total, kind))
    group += [head, body]
    return table


class EstimatesPlaceholder(nodes.General, nodes.Element):
    """Where ``{odhad-casu}`` stands; the table is put in when the page is written."""


class TeachingEstimates(SphinxDirective):
    """``{odhad-casu} podklady`` (words, formulas, exercises, execution) or ``{odhad-casu}
    odhad`` (reading and working times)."""

    required_arguments = 1

    def run(self):
        kind = self.arguments[0]
        if kind not in HEADERS:
            raise self.error(f"odhad-casu: {kind!r} is not one of {sorted(HEADERS)}")
        NbMetadataCollector.set_doc_data(self.env, self.env.docname, METADATA_KEY, True)
        return [EstimatesPlaceholder(kind=kind)]


class FillEstimates(SphinxPostTransform):
    default_priority = 8  # before references are resolved (10)

    def run(self, **kwargs):
        for node in list(self.document.findall(EstimatesPlaceholder)):
            node.replace_self(estimates_table(self.env, self.env.docname, node["kind"]))


class TitledExerciseReferences(SphinxPostTransform):
    """On the page with the table, ``{ref}`` to an exercise reads "Cvičení 2.1 Title" (with
    the exercise's current title, its difficulty marks included), not only "Cvičení 2.1"."""

    default_priority = 4  # before sphinx-exercise turns such a reference into a numref (5)

    def run(self, **kwargs):
        data = NbMetadataCollector.get_doc_data(self.env).get(self.env.docname, {})
        registry = getattr(self.env, "sphinx_exercise_registry", {})
        if not data.get(METADATA_KEY):
            return
        for ref in self.document.findall(addnodes.pending_xref):
            target = registry.get(ref.get("reftarget"), {})
            if ref.get("reftype") != "ref" or ref.get("refexplicit") or "node" not in target:
                continue
            title = target["node"].children[0]
            name = title.children[1].astext() if len(title.children) > 1 else ""
            label = self.config.numfig_format["exercise"] % "{number}"
            label += " " + name.replace("{", "{{").replace("}", "}}") if name else ""
            ref["reftype"], ref["refexplicit"] = "numref", True
            ref.children[0].replace_self(nodes.inline(label, label, classes=["std-numref"]))


def rewrite_after_execution(app, env):
    """A chapter was executed: write the pages with the table again."""
    if not NbMetadataCollector.new_exec_data(env):
        return []
    return [d for d, data in NbMetadataCollector.get_doc_data(env).items()
            if data.get(METADATA_KEY)]


def setup(app):
    app.add_css_file("teaching_estimates.css")  # in static/, which czech_interface serves
    app.add_node(EstimatesPlaceholder)
    app.add_directive("odhad-casu", TeachingEstimates)
    app.add_post_transform(FillEstimates)
    app.add_post_transform(TitledExerciseReferences)
    app.connect("env-updated", rewrite_after_execution)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
