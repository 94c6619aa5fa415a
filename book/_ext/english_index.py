"""The glossary the other way round: English → Czech (issue 20, item 7).

A reader of papers meets "query", "padding mask" or "KV cache" and looks for the Czech
term. The directive ``{anglicke-pojmy}`` (page ``anglicke_pojmy.md``) writes a table of every
English name the glossary gives, sorted by the English (letter case and accents aside), each
with the Czech term linked to its glossary entry. The names are read from ``glosar.md`` when
the page is read, so the table is never written twice: an entry's English names are the
italics of its "(angl. …)" (as ``english_terms.py`` reads them, "(angl. *transformer block*,
také *layer*)" gives both) and a bare name written there without italics ("LayerNorm",
"RoPE"). An entry without one ("pojem této knihy …") is not in the table. The English cells
are ``lang="en"``.
"""

import re
import unicodedata
from pathlib import Path

from docutils import nodes
from english_terms import _ENTRY_ENGLISH, _ITALIC, CLASS, GLOSSARY
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

#: A name written without italics in "(angl. …)": one word of Latin letters and digits.
_BARE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]*")


def glossary_entries(text):
    """(term, definition) of every entry of the glossary directive in ``glosar.md``."""
    block = re.search(r"^```\{glossary\}\n(.*?)^```", text, re.S | re.M).group(1)
    entries = []
    for line in block.splitlines():
        if not line.strip() or line.startswith(":"):
            continue
        if line[0].isspace():
            entries[-1][1].append(line.strip())
        else:
            entries.append((line.strip(), []))
    return [(term, " ".join(lines)) for term, lines in entries]


def english_names(definition):
    """The English names an entry gives at its start, "(angl. …)", in their order."""
    match = _ENTRY_ENGLISH.match(definition)
    if not match:
        return []
    names = []
    for piece in re.split(r"[,;]", match.group(1)):
        italics = _ITALIC.findall(piece)
        if italics:
            names += [name.strip() for name in italics]
        elif _BARE_NAME.fullmatch(piece.strip()):
            names.append(piece.strip())
    return names


def english_key(name):
    """Sort key of an English name: without accents and letter case, then as written."""
    plain = unicodedata.normalize("NFKD", name)
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    return (plain.casefold(), name)


def english_to_czech(text):
    """(English name, Czech term) pairs of the glossary ``text``, sorted by the English."""
    pairs = [(name, term) for term, definition in glossary_entries(text)
             for name in english_names(definition)]
    return sorted(pairs, key=lambda pair: (english_key(pair[0]), pair[1]))


def _cell(*children):
    entry = nodes.entry()
    entry += nodes.paragraph("", "", *children)
    return entry


class EnglishIndex(SphinxDirective):
    """``{anglicke-pojmy}``: the table English → Czech."""

    def run(self):
        path = Path(self.env.srcdir, GLOSSARY)
        self.env.note_dependency(str(path))
        table = nodes.table(classes=["english-index"])
        group = nodes.tgroup(cols=2)
        table += group
        group += [nodes.colspec(colwidth=50), nodes.colspec(colwidth=50)]
        head = nodes.thead()
        head += nodes.row("", _cell(nodes.Text("Anglicky")), _cell(nodes.Text("Česky")))
        body = nodes.tbody()
        for name, term in english_to_czech(path.read_text(encoding="utf-8")):
            link = addnodes.pending_xref("", nodes.inline(text=term), refdomain="std",
                                         reftype="term", reftarget=term, refexplicit=True,
                                         refwarn=True, refdoc=self.env.docname)
            english = nodes.inline(text=name, classes=[CLASS])
            body += nodes.row("", _cell(english), _cell(link))
        group += [head, body]
        return [table]


def setup(app):
    app.add_directive("anglicke-pojmy", EnglishIndex)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
