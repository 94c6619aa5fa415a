"""Czech typography at build time (book/_ext/czech_typography.py, issue 11).

Unit tests of the transform (prose changed; code, math, raw HTML, attributes and the outputs
of code cells untouched; headings and text glued into the prose changed; a one-letter word
and the line break after it in two different text nodes), and a test of the built book: no
page's prose may break a line after a one-letter word, inside a number or before a unit.
"""

import pytest
from czech_support import BREAKS, breakable_spaces, strip_html_fast
from czech_typography import NBSP, NNBSP, keep_punctuation_with_math, typeset, typeset_document
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document


@pytest.mark.parametrize("text, expected", [
    ("v matici a s klíči", f"v{NBSP}matici a{NBSP}s{NBSP}klíči"),
    ("A přitom i u nás", f"A{NBSP}přitom i{NBSP}u{NBSP}nás"),
    ("K tomu Z toho O tom", f"K{NBSP}tomu Z{NBSP}toho O{NBSP}tom"),
    ("slova a\nčísla", f"slova a{NBSP}čísla"),
    ("(a b) „a b“", f"(a{NBSP}b) „a{NBSP}b“"),
    ("n = 1 024 a 20 000 dvojic", f"n = 1{NNBSP}024 a{NBSP}20{NNBSP}000 dvojic"),
    ("opakujeme 4 000krát", f"opakujeme 4{NNBSP}000krát"),
    ("celkem 20000 kroků a 262144000 násobení",
     f"celkem 20{NNBSP}000 kroků a{NBSP}262{NNBSP}144{NNBSP}000 násobení"),
    ("kolem 0,1 nat, 30 %, 8 MB, 12 ms, 3 s, 200 px",
     f"kolem 0,1{NBSP}nat, 30{NBSP}%, 8{NBSP}MB, 12{NBSP}ms, 3{NBSP}s, 200{NBSP}px"),
    ("úhel 30 ° a 20 °C", f"úhel 30° a{NBSP}20{NBSP}°C"),
    ("viz č. 5 a obr. 3; 1. ledna", f"viz č.{NBSP}5 a{NBSP}obr.{NBSP}3; 1.{NBSP}ledna"),
    ("rychlejší – o řád", f"rychlejší{NBSP}– o{NBSP}řád"),
])
def test_typeset(text, expected):
    assert typeset(text) == expected


@pytest.mark.parametrize("text", [
    "rok 2017 a d = 1024",       # years and four-digit numbers stay as they are
    "arXiv:1706.03762",           # identifiers
    "k_i, W_Q, v_i",              # symbols written in the text
    "1–2 a 3–4",                  # a dash in a range has no spaces
])
def test_typeset_leaves_numbers_and_symbols_alone(text):
    assert typeset(text).replace(NBSP, " ") == text


def test_typeset_is_idempotent():
    once = typeset("v matici a s 20000 klíči – 30 %")
    assert typeset(once) == once


def parse(rst):
    settings = get_default_settings(Parser)
    settings.report_level = 5
    document = new_document("<test>", settings)
    Parser().parse(rst, document)
    return document


RST = """\
Pozornost v praxi
=================

Dotaz a klíč se porovnají ``a s`` :math:`a s b` v matici.

.. code-block:: python

   a = k if v else s  # v kódu se nic nemění

.. math::

   a \\cdot s = v

.. raw:: html

   <p title="a s">a s</p>

.. image:: obr.png
   :alt: graf a osa

Odkaz `a s tím <https://example.org/a%20s>`_ a konec.
"""


def test_punctuation_stays_with_the_formula_before_it():
    document = parse("Skóre :math:`s_i`, váhy :math:`a_i`. A :math:`o` bez čárky\n")
    assert keep_punctuation_with_math(document) == 2
    groups = list(document.findall(nodes.inline))
    assert [g.astext() for g in groups] == ["s_i,", "a_i."]
    assert all(g["classes"] == ["ac-nowrap"] for g in groups)
    assert document.astext().replace(NBSP, " ") == "Skóre s_i, váhy a_i. A o bez čárky"
    assert keep_punctuation_with_math(document) == 0  # idempotent


def test_prose_and_headings_change_code_and_math_do_not():
    document = parse(RST)
    typeset_document(document)
    title = document.next_node(nodes.title)
    assert title.astext() == f"Pozornost v{NBSP}praxi"
    paragraph = document.next_node(nodes.paragraph)
    assert paragraph.astext() == f"Dotaz a{NBSP}klíč se porovnají a s a s b v{NBSP}matici."
    assert document.next_node(nodes.literal).astext() == "a s"
    assert document.next_node(nodes.math).astext() == "a s b"
    assert "a = k if v else s" in document.next_node(nodes.literal_block).astext()
    assert document.next_node(nodes.math_block).astext() == "a \\cdot s = v"
    assert document.next_node(nodes.raw).astext() == '<p title="a s">a s</p>'
    assert document.next_node(nodes.image)["alt"] == "graf a osa"
    link = document.next_node(nodes.reference)
    assert link.astext() == f"a{NBSP}s{NBSP}tím"
    assert link["refuri"] == "https://example.org/a%20s"


def test_text_nodes_are_read_as_one_paragraph():
    """MyST keeps a line break as a text node of its own: "váhy a" | "\\n" | "hodnoty"."""
    paragraph = nodes.paragraph("", "", nodes.Text("skóre, váhy a"), nodes.Text("\n"),
                                nodes.Text("hodnoty "), nodes.math("", "x"), nodes.Text(" a"),
                                nodes.emphasis("", "", nodes.Text(" v")), nodes.Text(" tom"))
    document = parse("")
    document += paragraph
    typeset_document(document)
    assert [str(t) for t in paragraph.findall(nodes.Text)] == [
        "skóre, váhy a", NBSP, "hodnoty ", "x", " a", NBSP + "v", NBSP + "tom"]


def test_glued_text_changes_cell_outputs_do_not():
    """myst-nb pastes a glued str as an inline node of the paragraph; the outputs of code
    cells sit in containers marked ``nb_element`` and stay as the code printed them."""
    glued = nodes.inline("", "", nodes.Text("20000 kroků a 3 s"), classes=["pasted-text"])
    prose = nodes.paragraph("", "", nodes.Text("Trénink trval "), glued)
    output = nodes.container("", nodes.literal_block("", "a s 20000"),
                             nodes.paragraph("", "a s 20000"), nb_element="cell_code_output")
    document = parse("")
    document += [prose, output]
    typeset_document(document)
    assert glued.astext() == f"20{NNBSP}000 kroků a{NBSP}3{NBSP}s"
    assert output.astext() == "a s 20000\n\na s 20000"


def test_no_breakable_space_in_the_built_prose(built_html):
    """Every page of the strict build: 0 places where Czech typography forbids a break."""
    found = {}
    for page in sorted(built_html.glob("*.html")):
        breaks = breakable_spaces(strip_html_fast(page.read_text(encoding="utf-8")))
        for kind, places in breaks.items():
            if places:
                found[f"{page.name}: {kind}"] = places[:5]
    assert not found, "\n".join(f"{k} ({len(v)}): {v}" for k, v in found.items())
    assert set(BREAKS) == {"one-letter word", "thousands group", "number and unit"}
