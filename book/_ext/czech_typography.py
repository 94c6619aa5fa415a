"""Czech typography at build time (ČSN 01 6910), so the sources stay plain Markdown.

In the prose of every page, and only there, a line may not break

- after a one-letter preposition or conjunction (k, s, v, z, o, u, a, i, in both cases):
  the space after it becomes a no-break space (U+00A0);
- inside a number's thousands groups: ``1 024`` and ``20000`` become ``1 024`` and
  ``20 000`` with a narrow no-break space (U+202F), as ``attention_display.style.cz`` writes them;
- between a number and its unit or the per cent sign (``0,1 nat``, ``30 %``, ``8 MB``);
  the degree of an angle is written without a space (``30°``, but ``30 °C``);
- after an abbreviation that precedes a number (``č. 5``, ``obr. 3``), between a day and its
  month (``1. ledna``), and before a dash (``slovo – slovo``: the dash never starts a line);
- between an inline formula and the punctuation after it (``$x$,``), and between a
  one-letter word and a formula after it (``a $x$``): the formula and the mark or word are
  wrapped in one ``<span class="ac-nowrap">`` (a browser may otherwise start a line with
  the comma, or end one after the "a" in spite of its no-break space, since MathJax's
  formula is a box of its own).

Prose means the text of paragraphs, headings, list items, captions, admonitions and text
glued into them: never code (inline or blocks), math, raw HTML, attributes (alt text, links)
or the outputs of the notebooks' code cells. The transform runs twice, both times over the
whole document: once when a page is read (so the table of contents and the page titles get
it too) and once more after the post-transforms that insert text late (myst-nb's glue,
bibliography citations, exercise titles). It is idempotent.
"""

import re

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform

NBSP = "\u00a0"
NNBSP = "\u202f"

#: Inline or block nodes whose text is not prose: never touched, and nothing inside them.
SKIPPED = (
    nodes.literal, nodes.literal_block, nodes.doctest_block, nodes.math, nodes.math_block,
    nodes.raw, nodes.comment, nodes.substitution_definition, nodes.target, nodes.system_message,
    nodes.image, nodes.option_string,
)

#: Containers of notebook cells whose text is code or output (myst-nb's ``nb_element``).
SKIPPED_CELL_PARTS = {"cell_code_source", "cell_code_output", "mime_bundle"}

ONE_LETTER = "ksvzouaiKSVZOUAI"

#: Units after a number (a no-break space between the number and the unit).
UNITS = (
    "%", "‰", "ms", "µs", "μs", "ns", "s", "min", "nat", "natů", "natu", "naty", "bit", "bitů",
    "bity", "bitu", "B", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "px", "pt", "°C", "Hz",
    "kHz", "MHz", "GHz", "mm", "cm", "km", "kg", "Kč", "€",
)

ABBREVIATIONS = ("č", "s", "str", "obr", "tab", "kap", "odd", "odst", "rov", "vz", "př")

MONTHS = (
    "ledna", "února", "března", "dubna", "května", "června", "července", "srpna", "září",
    "října", "listopadu", "prosince",
)

_SPACE = r"[ \t\n]+"
_UNIT = "|".join(re.escape(unit) for unit in sorted(UNITS, key=len, reverse=True))

#: Each rule: a pattern whose group ``at`` is the stretch to replace, and the replacement.
#: The patterns run over a whole paragraph (or heading) at once, so a one-letter word at the
#: end of one text node and the line break after it in the next node are seen together.
_RULES = [
    # a one-letter preposition or conjunction and the space after it
    (re.compile(r"(?<=[\s(\[{„‚–—])[" + ONE_LETTER + "](?P<at>" + _SPACE + ")"), NBSP),
    # a number and its unit or the per cent sign
    (re.compile(r"\d(?P<at>" + _SPACE + ")(?:" + _UNIT + r")(?!\w)"), NBSP),
    # an angle: 30° (but 30 °C)
    (re.compile(r"\d(?P<at>[ \u00a0]+)°(?!C)"), ""),
    # č. 5, obr. 3
    (re.compile(r"(?<!\w)(?:" + "|".join(ABBREVIATIONS) + r")\.(?P<at>" + _SPACE + r")(?=\d)"),
     NBSP),
    # 1. ledna
    (re.compile(r"(?<![\d.])\d{1,2}\.(?P<at>" + _SPACE + ")(?:" + "|".join(MONTHS) + r")(?!\w)"),
     NBSP),
    # a dash never starts a line
    (re.compile(r"(?<=\S)(?P<at>" + _SPACE + r")[–—](?=\s)"), NBSP),
]

#: Thousands groups already separated by a space: ``1 024``, ``20 000``.
_GROUPED = re.compile(r"(?<![\d,.])\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)")
#: Integers of five digits or more, not part of an identifier: ``20000``.
_LONG = re.compile(r"(?<![\w.,:/\-\u202f])\d{5,}(?![.:/]\w)")

#: Stands for an inline node that is not prose (code, math): like a word, never changed.
OBJECT = "\ufffc"


def _edits(text):
    """(start, end, replacement) for every change Czech typography makes in ``text``,
    sorted and not overlapping."""
    edits = []
    for pattern, replacement in _RULES:
        edits += [(m.start("at"), m.end("at"), replacement) for m in pattern.finditer(text)]
    for m in _GROUPED.finditer(text):
        edits += [(m.start() + i, m.start() + i + 1, NNBSP)
                  for i, c in enumerate(m.group()) if c in " \u00a0"]
    for m in _LONG.finditer(text):
        head = len(m.group()) % 3 or 3
        edits += [(m.start() + i, m.start() + i, NNBSP) for i in range(head, len(m.group()), 3)]
    edits.sort()
    kept, end = [], -1
    for edit in edits:
        if edit[0] >= end or edit[0] == edit[1] == end:
            kept.append(edit)
            end = edit[1]
    return kept


def _typeset_pieces(pieces):
    """The pieces of one paragraph, typeset as one text; a change across two pieces goes to
    the piece where it starts. ``OBJECT`` pieces stay as they are."""
    text = " " + "".join(pieces)  # the start of a paragraph counts as a space
    owner = [None] + [i for i, piece in enumerate(pieces) for _ in piece]
    out = [[] for _ in pieces]
    edits = iter(_edits(text))
    edit = next(edits, None)
    position = 0
    while position < len(text):
        if edit is not None and edit[0] == position:
            start, end, replacement = edit
            target = owner[start] if owner[start] is not None else owner[min(end, len(text) - 1)]
            out[target].append(replacement)
            edit = next(edits, None)
            if end > start:
                position = end
            continue
        if owner[position] is not None:
            out[owner[position]].append(text[position])
        position += 1
    return ["".join(chars) for chars in out]


def typeset(text):
    """``text`` (one paragraph of prose) in Czech typography.

    >>> typeset("v matici a s klíči") == "v\\u00a0matici a\\u00a0s\\u00a0klíči"
    True
    """
    return _typeset_pieces([text])[0]


def _skipped(node):
    if isinstance(node, SKIPPED):
        return True
    return isinstance(node, nodes.Element) and node.get("nb_element") in SKIPPED_CELL_PARTS


def _inside_skipped(node):
    parent = node.parent
    while parent is not None:
        if _skipped(parent):
            return True
        parent = parent.parent
    return False


def _prose_texts(node):
    """(parent, index) of the text nodes under ``node`` in reading order; (None, node) for an
    inline node that is not prose."""
    for index, child in enumerate(node.children):
        if isinstance(child, nodes.Text):
            yield node, index
        elif _skipped(child):
            yield None, child
        else:
            yield from _prose_texts(child)


def typeset_document(document):
    """Typeset the prose of ``document`` in place; return how many text nodes changed."""
    changed = 0
    blocks = [node for node in document.findall(nodes.TextElement)
              if not isinstance(node.parent, nodes.TextElement) and not _skipped(node)
              and not _inside_skipped(node)]
    for block in blocks:
        places = list(_prose_texts(block))
        pieces = [OBJECT if parent is None else str(parent.children[index])
                  for parent, index in places]
        for (parent, index), old, new in zip(places, pieces, _typeset_pieces(pieces)):
            if parent is not None and new != old:
                replacement = nodes.Text(new)
                replacement.parent = parent
                parent.children[index] = replacement
                changed += 1
    return changed


#: Punctuation that must not start a line after an inline formula.
_CLOSING = re.compile(r"^[,.;:!?)\]“‘…]+")

#: A one-letter word and its no-break space right before an inline formula: Chromium breaks
#: a line after a no-break space before a formula (an inline block), so both go into the
#: formula's no-wrap span.
_ONE_LETTER_BEFORE = re.compile(r"(?:(?<=[\s(\[{„‚–—])|^)[" + ONE_LETTER + "]" + NBSP + "$")

NOWRAP = "ac-nowrap"


def keep_punctuation_with_math(document):
    """Wrap each inline formula with what must stay on its line, in one no-wrap span: the
    punctuation right after it and a one-letter word right before it. Return how many
    formulas were wrapped."""
    wrapped = 0
    for math in list(document.findall(nodes.math)):
        parent = math.parent
        if parent is None or NOWRAP in parent.get("classes", []) or _inside_skipped(math):
            continue
        index = parent.index(math)
        before = parent.children[index - 1] if index > 0 else None
        after = parent.children[index + 1] if index + 1 < len(parent.children) else None
        mark = _CLOSING.match(str(after)) if isinstance(after, nodes.Text) else None
        word = _ONE_LETTER_BEFORE.search(str(before)) if isinstance(before, nodes.Text) else None
        if not (mark or word):
            continue
        first, last = index - bool(word), index + 1 + bool(mark)
        group = nodes.inline(classes=[NOWRAP])
        if word:
            group += nodes.Text(word.group())
        group += math
        if mark:
            group += nodes.Text(mark.group())
        replaced = [group]
        if word and str(before)[:word.start()]:
            replaced.insert(0, nodes.Text(str(before)[:word.start()]))
        if mark and str(after)[mark.end():]:
            replaced.append(nodes.Text(str(after)[mark.end():]))
        parent.children[first:last] = replaced
        for child in replaced:
            child.parent = parent
        wrapped += 1
    return wrapped


class CzechTypography(SphinxTransform):
    """At read time: headings (and so the tables of contents) and the prose."""

    # after the parser's and the extensions' own transforms, before Sphinx emits doctree-read
    # (880), where the titles for the tables of contents and the navigation are collected
    default_priority = 870

    def apply(self, **kwargs):
        if self.config.language == "cs":
            typeset_document(self.document)


class CzechTypographyLate(SphinxPostTransform):
    """After glue, citations and exercise titles are in place."""

    default_priority = 900

    def run(self, **kwargs):
        if self.config.language == "cs":
            typeset_document(self.document)
            keep_punctuation_with_math(self.document)


def setup(app):
    app.add_transform(CzechTypography)
    app.add_post_transform(CzechTypographyLate)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
