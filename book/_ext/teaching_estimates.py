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
  :data:`EXERCISE_MINUTES` by its difficulty (the number of ★ in its title, which every
  exercise has: ``tests/test_exercise_marks.py``), plus the time this build's kernel took
  to run the chapter's code (myst-nb's record of the execution), which a student's run of
  the notebook repeats.

The execution times are known only once every chapter has been executed, so the table is
put in when the page is written (a post-transform) and the page is written again whenever a
chapter was executed (as myst-nb's own ``nb-exec-table``). A row's numbers are rounded to
whole minutes (its total up to a quarter of an hour), and the row of totals adds the rounded
numbers the rows show (:func:`shown_rows`), so the table adds up as printed.

Two more directives use the same estimates (issue 20, review of session 25):

- ``{cviceni-rozdeleni}``: the table of exercises for the lab and for homework, sorted by
  the kind each exercise's title names (:data:`LAB_KINDS`: those done in the notebook);
- ``{rozvrh}``: a teaching plan, one line per part of a week (``1 | přednáška | 01_mekky_slovnik
  02_uloha_one_hot``; a part may name a section by its label, which the parts giving its
  whole chapter then leave out), shown with each part's estimated minutes; a lecture (its chapters'
  reading time) and a lab (its exercises' time) must fit :data:`SLOT_MINUTES`, an exercise
  may be given once, and with ``:vsechna:`` every exercise of the chapters the plan teaches
  is given. A plan that breaks a rule is a warning, which fails the strict build.
"""

import math
import re
from collections import Counter
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from myst_nb.sphinx_ import NbMetadataCollector
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from attention_display.style import cz

#: Careful study of a technical text: a slow reading pace, well below everyday reading.
WORDS_PER_MINUTE = 100

#: Reading one displayed formula (or theorem's statement in symbols) with understanding.
MINUTES_PER_FORMULA = 1

#: Minutes for an exercise by its number of ★.
EXERCISE_MINUTES = {1: 10, 2: 20, 3: 40}

#: A lecture and a lab of the plans: 90 minutes each.
SLOT_MINUTES = 90

#: The exercises' kinds (named in their titles) that are worked in the chapter's notebook
#: and so suit the lab; the others (odvození, no kind named) suit homework.
LAB_KINDS = ("předpověď a ověření", "programování")

METADATA_KEY = "has_teaching_estimates"

logger = logging.getLogger(__name__)

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
_LABELLED = re.compile(r"^```\{exercise(?:-start)?\}(.*)\n:label: (\S+)", re.M)


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


def exercises(text):
    """(label, ★ count, kind) of each of a chapter's exercises; the kind is the last part
    of the title after "·" when it is one of the book's three kinds, else ``None``."""
    found = []
    for title, label in _LABELLED.findall(text):
        last = title.rsplit("·", 1)[-1].strip()
        kind = last if last in ("předpověď a ověření", "odvození", "programování") else None
        found.append((label, title.count("★"), kind))
    return found


def exercise_minutes(stars):
    """Minutes for an exercise with ``stars`` ★ (one to three)."""
    if stars not in EXERCISE_MINUTES:
        raise ValueError(f"exercise_minutes: an exercise has 1 to 3 ★ in its title, got {stars}")
    return EXERCISE_MINUTES[stars]


def estimate(text, runtime):
    """Reading and working minutes of a chapter's source ``text``, its code having run
    ``runtime`` seconds (``None``: not executed in this build)."""
    words, formulas, stars = prose_words(text), displayed_formulas(text), exercise_stars(text)
    reading = words / WORDS_PER_MINUTE + formulas * MINUTES_PER_FORMULA
    working = sum(exercise_minutes(s) for s in stars) + (runtime or 0) / 60
    return {"words": words, "formulas": formulas, "exercises": len(stars),
            "runtime": runtime, "reading": reading, "working": working}


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


def shown_numbers(e):
    """The numbers a row shows, rounded: words, formulas, exercises, seconds of execution
    (``None``: not executed), minutes of reading and of working, and the quarter hours of
    the shown minutes together."""
    reading, working = round(e["reading"]), round(e["working"])
    runtime = None if e["runtime"] is None else round(e["runtime"])
    return {"words": e["words"], "formulas": e["formulas"], "exercises": e["exercises"],
            "runtime": runtime, "reading": reading, "working": working,
            "quarters": math.ceil((reading + working) / 15)}


def shown_rows(estimates):
    """The shown numbers of every row and, last, their totals: each total is the sum of
    the rounded numbers above it, so the printed table adds up."""
    rows = [shown_numbers(e) for e in estimates]
    total = {key: sum(row[key] or 0 for row in rows) for key in rows[0]} if rows else {}
    return rows, total


def _numbers(row, kind):
    if kind == "podklady":
        runtime = "–" if row["runtime"] is None else cz(row["runtime"], 0) + " s"
        return (cz(row["words"], 0), str(row["formulas"]), str(row["exercises"]), runtime)
    return (cz(row["reading"], 0) + " min", cz(row["working"], 0) + " min",
            cz(row["quarters"] / 4, 2) + " h")


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
    pages = chapter_pages(env)
    estimates = [estimate(Path(env.doc2path(page)).read_text(encoding="utf-8"),
                          (NbMetadataCollector.get_exec_data(env, page) or {}).get("runtime"))
                 for page in pages]
    rows, total = shown_rows(estimates)
    for page, row in zip(pages, rows):
        number = env.toc_secnumbers.get(page, {}).get("")
        label = ".".join(map(str, number)) if number else env.titles[page].astext()
        label = label.split(":")[0]  # "Dodatek: co kniha předpokládá" → "Dodatek"
        link = addnodes.pending_xref("", nodes.inline(text=label), refdomain="std",
                                     reftype="doc", reftarget="/" + page, refexplicit=True,
                                     refwarn=True, refdoc=docname)
        body += _row(link, _numbers(row, kind))
    if rows:  # a partial build (tests/partial_book.py) may have no chapter
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


def notebook_sources(srcdir, env=None):
    """The chapters' and the appendix's sources by docname, in the book's order (chapters by
    number, the appendix last); read from the files, so a directive needs no other page.
    With ``env``, the page being read depends on them (it is read again when one changes)."""
    paths = sorted(Path(srcdir).glob("[0-9][0-9]_*.md")) + [Path(srcdir, "dodatek.md")]
    paths = [p for p in paths if p.is_file()]
    for path in paths if env is not None else ():
        env.note_dependency(str(path))
    return {p.stem: p.read_text(encoding="utf-8") for p in paths}


def chapter_label(docname):
    """A chapter's number from its file name ("02_uloha_one_hot" → "2"); the appendix's name."""
    prefix = docname.split("_", 1)[0]
    return str(int(prefix)) if prefix.isdigit() else docname


_HEADING = re.compile(r"^(#+) ", re.M)


def section_source(text, label):
    """The source of the section of ``text`` that ``(label)=`` opens, up to the next heading
    of its level or higher outside code cells (a code comment starts with ``#`` too);
    ``None`` when no section has the label."""
    start = text.find(f"\n({label})=\n")
    if start < 0:
        return None
    cells = [m.span() for m in _CODE_CELL.finditer(text)]
    headings = [m for m in _HEADING.finditer(text, start)
                if not any(a <= m.start() < b for a, b in cells)]
    if not headings:
        return None
    level = len(headings[0].group(1))
    end = next((m.start() for m in headings[1:] if len(m.group(1)) <= level), len(text))
    # the next section's label belongs to the next section
    return re.sub(r"(?:\n\([\w-]+\)=\n\s*)+\Z", "\n", text[start:end])


def plan_sections(plan, sources):
    """The sections a plan names among its chapters (``čtení | nasyceni-v-treninku``):
    label → (docname, source)."""
    found = {}
    for _week, part, items in plan:
        for x in items if PARTS[part] == "chapters" else ():
            for page, text in sources.items() if x not in sources else ():
                if (source := section_source(text, x)) is not None:
                    found[x] = (page, source)
    return found


def named_apart(plan, sections):
    """docname → the labels of the chapter's sections that a part of the plan names on their
    own (``čtení | nasyceni-v-treninku``, in any week): the parts that give the whole chapter
    leave them out."""
    apart = {}
    for _week, part, items in plan:
        for x in items if PARTS[part] == "chapters" else ():
            if x in sections:
                apart.setdefault(sections[x][0], []).append(x)
    return apart


def lab_and_homework(sources):
    """Per page (docname): (the labels of its exercises for the lab, for homework), by kind."""
    return {page: ([label for label, _s, kind in exercises(text) if kind in LAB_KINDS],
                   [label for label, _s, kind in exercises(text) if kind not in LAB_KINDS])
            for page, text in sources.items()}


#: The parts of a week in ``{rozvrh}``: what their items are, and whether they must fit a
#: slot of :data:`SLOT_MINUTES`.
PARTS = {"před přednáškou": "chapters", "přednáška": "chapters", "laboratoř": "exercises",
         "čtení": "chapters", "úkol": "exercises", "rozšíření": "chapters"}


def parse_plan(lines):
    """``week | part | items`` lines → [(week, part, [items])]."""
    plan = []
    for line in lines:
        if not line.strip():
            continue
        week, part, items = (field.strip() for field in line.split("|"))
        if part not in PARTS:
            raise ValueError(f"rozvrh: {part!r} is not one of {sorted(PARTS)}")
        plan.append((week, part, items.split()))
    return plan


def plan_minutes(plan, sources, complete=False):
    """Each part of a parsed plan with its items resolved and its minutes, and the rules it
    breaks. A chapter's docname among a homework's (``úkol``) items stands for its exercises
    that no lab of the plan gives; a lecture's minutes are its chapters' reading time (the
    lecture shows what a careful reader reads in that time), a lab's and a homework's their
    exercises' (:func:`exercise_minutes`), a reading's its chapters'. A part may give a
    section by its label (:func:`section_source`); the plan's parts that give its chapter
    then leave the section out (:func:`named_apart`)."""
    stars = {label: s for text in sources.values() for label, s, _kind in exercises(text)}
    of_page = {page: [label for label, _s, _k in exercises(text)]
               for page, text in sources.items()}
    in_labs = {x for _w, part, items in plan if part == "laboratoř" for x in items}
    sections = plan_sections(plan, sources)
    apart = named_apart(plan, sections)
    problems, parts = [], []
    for week, part, items in plan:
        unknown = [x for x in items
                   if x not in ((stars if x.startswith("cv-") else sources)
                                if PARTS[part] == "exercises" else sources.keys() | sections)]
        problems += [f"týden {week}, {part}: {x!r} is no exercise or chapter" for x in unknown]
        items = [x for x in items if x not in unknown]
        if PARTS[part] == "exercises":
            items = [y for x in items for y in
                     ([x] if x in stars else [e for e in of_page[x] if e not in in_labs])]
            minutes = sum(exercise_minutes(stars[x]) for x in items)
        else:
            # as the table of estimates shows them: each chapter's rounded minutes, less
            # the rounded minutes of its sections that the plan gives apart (so the plan
            # adds up as printed); a section's own
            reading = lambda text: round(estimate(text, None)["reading"])  # noqa: E731
            minutes = sum(reading(sections[x][1]) if x in sections else
                          reading(sources[x]) - sum(reading(sections[y][1])
                                                    for y in apart.get(x, ()))
                          for x in items)
        if part in ("přednáška", "laboratoř") and minutes > SLOT_MINUTES:
            problems.append(f"týden {week}, {part}: {minutes} min > {SLOT_MINUTES} min")
        parts.append((week, part, items, minutes))
    given = Counter(x for _w, part, items, _m in parts if PARTS[part] == "exercises"
                    for x in items)
    problems += [f"{x} is given {n} times" for x, n in given.items() if n > 1]
    if complete:
        taught = {x for _w, part, items, _m in parts
                  if part in ("před přednáškou", "přednáška", "čtení")
                  for x in items}
        problems += [f"{x} ({page}) is given neither in a lab nor as homework"
                     for page in taught & of_page.keys() for x in of_page[page]
                     if x not in given]
    return parts, problems


def _label_ref(label, docname):
    return addnodes.pending_xref("", nodes.inline(label, label, classes=["xref", "std", "std-ref"]),
                                 refdomain="std", reftype="ref", reftarget=label,
                                 refexplicit=False, refwarn=True, refdoc=docname)


def _chapter_ref(page, docname):
    label = chapter_label(page)
    return addnodes.pending_xref("", nodes.inline(text=label), refdomain="std", reftype="doc",
                                 reftarget="/" + page, refexplicit=True, refwarn=True,
                                 refdoc=docname)


def _joined(refs, separator="; ", last=None):
    """Nodes of references between separators (exercises' titles have commas of their own,
    "Váha 0,99", so they are separated by semicolons; chapters read "1, 2 a 3")."""
    out = []
    for i, ref in enumerate(refs):
        if i:
            out.append(nodes.Text(last if last and i == len(refs) - 1 else separator))
        out.append(ref)
    return out


class ExerciseTable(SphinxDirective):
    """``{cviceni-rozdeleni}``: every exercise of the book, for the lab or for homework by its
    kind (:func:`lab_and_homework`), a row per chapter and the appendix."""

    def run(self):
        header = ("Kapitola", "V laboratoři", "Za domácí úkol")
        table = nodes.table(classes=["teaching-estimates", "teaching-exercises"])
        group = nodes.tgroup(cols=3)
        table += group
        group += [nodes.colspec(colwidth=w) for w in (1, 4, 4)]
        head = nodes.thead()
        head += nodes.row("", *(_cell(nodes.Text(h)) for h in header))
        body = nodes.tbody()
        sources = notebook_sources(self.env.srcdir, self.env)
        for page, (lab, home) in lab_and_homework(sources).items():
            cells = [_chapter_ref(page, self.env.docname)]
            cells += [nodes.inline("", "", *_joined([_label_ref(x, self.env.docname)
                                                     for x in labels]))
                      for labels in (lab, home)]
            body += nodes.row("", *(_cell(c) for c in cells))
        group += [head, body]
        NbMetadataCollector.set_doc_data(self.env, self.env.docname, METADATA_KEY, True)
        return [table]


#: How a part of a week reads in a plan.
PART_TITLES = {"před přednáškou": "Před přednáškou", "přednáška": "Přednáška",
               "laboratoř": "Laboratoř", "čtení": "Čtení doma", "úkol": "Domácí úkol",
               "rozšíření": "Pro zájemce"}


class TeachingPlan(SphinxDirective):
    """``{rozvrh}``: a plan, a line per part of a week (:func:`parse_plan`), shown as a list of
    weeks, each part with its estimated minutes; a broken rule is a warning."""

    has_content = True
    option_spec = {"vsechna": directives.flag}

    def run(self):
        sources = notebook_sources(self.env.srcdir, self.env)
        plan = parse_plan(self.content)
        parts, problems = plan_minutes(plan, sources, complete="vsechna" in self.options)
        sections = plan_sections(plan, sources)
        apart = named_apart(plan, sections)
        for problem in problems:
            logger.warning(f"rozvrh: {problem}", location=(self.env.docname, self.lineno))
        weeks = nodes.bullet_list(classes=["teaching-plan"])
        for week in dict.fromkeys(w for w, *_ in parts):
            item = nodes.list_item()
            weeks += item
            title = f"Týden {week}." if len({w for w, *_ in parts}) > 1 else ""
            if title:
                item += nodes.paragraph("", "", nodes.strong(text=title))
            inner = nodes.bullet_list()
            item += inner
            for w, part, items, minutes in parts:
                if w != week:
                    continue
                kind = PARTS[part]
                # an exercise's reference reads "Cvičení 2.1 Title"
                refs = (_joined([self.exercise(x) for x in items]) if kind == "exercises"
                        else self.chapters(items, sections, apart))
                time = "" if part == "rozšíření" else f" ({cz(minutes, 0)} min)"
                entry = nodes.paragraph("", "", nodes.emphasis(text=PART_TITLES[part]),
                                        nodes.Text(f"{time}: "), *refs)
                inner += nodes.list_item("", entry)
        NbMetadataCollector.set_doc_data(self.env, self.env.docname, METADATA_KEY, True)
        return [weeks]

    def chapters(self, items, sections, apart):
        """"kapitola 4", "kapitoly 3, 5 a dodatek", "z dodatku oddíly „…“ a „…“": numbered
        chapters after the word, the appendix by its name, the sections by their titles
        after the chapter they are from; a chapter whose sections ``apart`` names
        (docname → labels) without them ("kapitola 4 bez oddílu „…“")."""
        pages = [x for x in items if x not in sections]
        numbered = [p for p in pages if chapter_label(p).isdigit()]
        whole = [self.chapter(p, [x for x in apart.get(p, ()) if x not in items])
                 for p in numbered + [p for p in pages if p not in numbered]]
        of_page = {}
        for label in (x for x in items if x in sections):
            of_page.setdefault(sections[label][0], []).append(label)
        for page, labels in of_page.items():
            where = (f"z kapitoly {chapter_label(page)}" if chapter_label(page).isdigit()
                     else "z dodatku")
            whole.append(nodes.inline("", "", nodes.Text(
                f"{where} oddíl{'' if len(labels) == 1 else 'y'} "), *self.titles(labels)))
        out = [nodes.Text("kapitola " if len(numbered) == 1 else "kapitoly ")] if numbered else []
        return out + _joined(whole, ", ", " a ")

    def chapter(self, page, without):
        """A chapter's reference, followed by the sections left out of it."""
        out = nodes.inline("", "", _chapter_ref(page, self.env.docname))
        if without:
            out += nodes.Text(f" bez oddíl{'u' if len(without) == 1 else 'ů'} ")
            out += self.titles(without)
        return out

    def titles(self, labels):
        """Sections' titles in quotation marks: "„A“, „B“ a „C“"."""
        return _joined([nodes.inline("", "", nodes.Text("„"),
                                     _label_ref(x, self.env.docname), nodes.Text("“"))
                        for x in labels], ", ", " a ")

    def exercise(self, label):
        """An exercise's reference; the appendix's, numbered 1, 2, … without a chapter,
        say where they are ("dodatek, Cvičení 1 …")."""
        ref = _label_ref(label, self.env.docname)
        if label.startswith("cv-dodatek-"):
            return nodes.inline("", "", nodes.Text("dodatek, "), ref)
        return ref


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
    app.add_directive("cviceni-rozdeleni", ExerciseTable)
    app.add_directive("rozvrh", TeachingPlan)
    app.add_post_transform(FillEstimates)
    app.add_post_transform(TitledExerciseReferences)
    app.connect("env-updated", rewrite_after_execution)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
