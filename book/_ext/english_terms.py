"""English terms in the Czech text marked ``lang="en"``, so that a screen reader reads
them in English (the pages are ``lang="cs"``).

The book writes an English term in italics after "angl." or "anglicky": "(angl. *additive
attention*)", "(angl. *Adam*, z *adaptive moment estimation*)", "anglicky *self-attention*".
Marked, at build time, on every page:

- every italic text after such a word up to the end of its parenthesis (or, outside one,
  of its sentence);
- every italic text anywhere that is one of the glossary's English names (``glosar.md``,
  read from the source, so the order in which pages are read does not matter).

The mark is docutils' own: the class ``language-en``, which the HTML writer turns into
``lang="en"``.
"""

import re
from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform

CLASS = "language-en"
GLOSSARY = "glosar.md"

#: A word that announces an English term.
_ANNOUNCE = re.compile(r"(?<!\w)(?:angl\.|anglicky)(?!\w)")
#: Where an announcement ends: its parenthesis closes, or (outside one) its sentence.
_CLOSE = re.compile(r"[)]|[.;:!?](?:\s|$)")

_ENTRY_ENGLISH = re.compile(r"\(angl\.([^)]*)\)")
_ITALIC = re.compile(r"(?<![*\w])\*([^*\n]+)\*(?!\*)")


def glossary_names(text):
    """The English names of the glossary's entries (lower case): the italics of each
    "(angl. …)"."""
    return {italic.strip().lower() for group in _ENTRY_ENGLISH.findall(text)
            for italic in _ITALIC.findall(group)}


def mark(block, names):
    """Mark the English italics of one paragraph (or title, list item's paragraph ...);
    return how many were marked."""
    marked = 0
    announced = False
    for node in block.findall(lambda n: isinstance(n, (nodes.Text, nodes.emphasis))):
        if isinstance(node, nodes.Text):
            if isinstance(node.parent, nodes.emphasis):
                continue
            text = str(node)
            announcements = list(_ANNOUNCE.finditer(text))
            if announcements:
                announced = not _CLOSE.search(text, announcements[-1].end())
            elif announced and _CLOSE.search(text):
                announced = False
            continue
        if CLASS in node["classes"]:
            continue
        if announced or node.astext().strip().lower() in names:
            node["classes"].append(CLASS)
            marked += 1
    return marked


class EnglishTerms(SphinxTransform):
    default_priority = 880

    def apply(self, **kwargs):
        if self.config.language != "cs":
            return
        names = self.env.english_names if hasattr(self.env, "english_names") else set()
        for block in self.document.findall(nodes.TextElement):
            if not isinstance(block.parent, nodes.TextElement):
                mark(block, names)


def read_glossary(app):
    path = Path(app.srcdir, GLOSSARY)
    app.env.english_names = (glossary_names(path.read_text(encoding="utf-8"))
                             if path.is_file() else set())


def setup(app):
    app.connect("builder-inited", read_glossary)
    app.add_transform(EnglishTerms)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
