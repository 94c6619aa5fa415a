"""Czech author-year citations and a Czech literature list (sphinxcontrib-bibtex, pybtex).

Registered from ``attention_book.setup``; ``_config.yml`` selects the two styles by name:

``bibtex_reference_style: czech_author_year``
    the citations in the text: ``{cite:t}`vaswani2017``` gives "Vaswani a kol. (2017)",
    ``{cite:p}`kingma2015``` gives "(Kingma a Ba, 2015)", several keys are separated by
    semicolons. Czech words where the style prints words: "a" between two authors, "a kol."
    (a kolektiv) for three or more, instead of "and" and "et al.".

``bibtex_default_style: czech``
    the entries of the list, in the author-year form that Czech theses use (ČSN ISO 690 as
    adapted in APA style): "Kingma, D. P. a Ba, J. (2015). Adam: A Method for Stochastic
    Optimization. In: *3rd International Conference ...*. arXiv:1412.6980." Every author is
    listed, surname first, the last one after "a" (BibTeX's "and others" as "a kol.");
    titles keep their own capitalisation; "s." for pages, "sv." for a volume, "2. vyd." for
    an edition, "Dostupné z:" before a link. Sorted by author, year and title. The entries
    begin with their authors and year, so ``static/czech_bibliography.css`` hides the
    numeric labels Sphinx puts before them.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

import pybtex.plugin
from pybtex.richtext import Symbol, Text
from pybtex.style.formatting import toplevel
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.template import (
    FieldIsMissing,
    href,
    join,
    node,
    optional,
    optional_field,
    sentence,
    tag,
)
from pybtex.style.template import (
    field as bib_field,
)
from sphinxcontrib.bibtex.plugin import register_plugin
from sphinxcontrib.bibtex.style.referencing import BracketStyle, PersonStyle
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle

REFERENCE_STYLE = "czech_author_year"
LIST_STYLE = "czech"


def _czech_persons():
    """Surnames joined by "a"; three or more authors: the first one and "a kol."."""
    return PersonStyle(sep=", ", sep2=" a ", last_sep=" a ", other=Text(" a kol."))


def _parentheses():
    """Round brackets; several citations in one pair are separated by semicolons."""
    return BracketStyle(left="(", right=")", sep="; ", sep2="; ", last_sep="; ")


@dataclass
class CzechAuthorYearReferenceStyle(AuthorYearReferenceStyle):
    """sphinxcontrib-bibtex's author-year citations with Czech words and round brackets."""

    bracket_textual: BracketStyle = field(default_factory=_parentheses)
    bracket_parenthetical: BracketStyle = field(default_factory=_parentheses)
    bracket_author: BracketStyle = field(default_factory=_parentheses)
    bracket_label: BracketStyle = field(default_factory=_parentheses)
    bracket_year: BracketStyle = field(default_factory=_parentheses)
    person: PersonStyle = field(default_factory=_czech_persons)


def _dashed(text):
    """Page ranges with an en dash: 1412--1421 -> 1412–1421."""
    return Text(Symbol("ndash")).join(text.split(re.compile(r"-+")))


def _czech_edition(text):
    """"2nd" or "2" -> "2. vyd."; an edition written in words is kept as it is."""
    number = re.search(r"\d+", str(text))
    return Text(f"{number.group()}. vyd.") if number else text


@node
def czech_names(children, context, role, **kwargs):
    """pybtex's ``names``, except that BibTeX's "and others" ends the list as "a kol.":
    "Dehghani, M., …, Heek, J. a kol." rather than "… a others"."""
    if children:
        raise ValueError(children)
    try:
        persons = list(context["entry"].persons[role])
    except KeyError:
        raise FieldIsMissing(role, context["entry"]) from None
    style = context["style"]
    others = bool(persons) and str(persons[-1]) == "others"
    formatted = [style.format_name(person, style.abbreviate_names)
                 for person in persons[:len(persons) - others]]
    if others:
        return Text(join(sep=", ")[formatted].format_data(context), " a kol.")
    return join(**kwargs)[formatted].format_data(context)


class CzechStyle(UnsrtStyle):
    """The literature list: pybtex's unsrt style with the entries laid out the Czech way."""

    default_name_style = "lastfirst"
    default_sorting_style = "author_year_title"

    def __init__(self, **options):
        options.setdefault("abbreviate_names", True)
        super().__init__(**options)

    def format_names(self, role, as_sentence=True):
        formatted = czech_names(role, sep=", ", sep2=" a ", last_sep=" a ")
        return sentence[formatted] if as_sentence else formatted

    def _authors_and_year(self):
        return sentence[join(sep=" ")[self.format_names("author", as_sentence=False),
                                      join["(", bib_field("year"), ")"]]]

    def format_title(self, e, which_field, as_sentence=True):
        title = bib_field(which_field)   # the title's own capitalisation, as ISO 690 keeps it
        return sentence[title] if as_sentence else title

    def _volume_and_pages(self):
        return [optional_field("series"),
                optional[join["sv. ", bib_field("volume")]],
                optional[join["s. ", bib_field("pages", apply_func=_dashed)]]]

    def format_url(self, e):
        url = bib_field("url", raw=True)
        return join(sep=" ")["Dostupné z:", href(url)[url]]

    def get_inproceedings_template(self, e):
        return toplevel[
            self._authors_and_year(),
            self.format_title(e, "title"),
            sentence[join(sep=" ")["In:", tag("em")[bib_field("booktitle")]],
                     *self._volume_and_pages()],
            sentence[optional_field("note")],
            self.format_web_refs(e),
        ]

    def get_article_template(self, e):
        return toplevel[
            self._authors_and_year(),
            self.format_title(e, "title"),
            sentence[tag("em")[bib_field("journal")], *self._volume_and_pages()],
            sentence[optional_field("note")],
            self.format_web_refs(e),
        ]

    def get_book_template(self, e):
        return toplevel[
            self._authors_and_year(),
            sentence[tag("em")[bib_field("title")]],
            optional[sentence[bib_field("edition", apply_func=_czech_edition)]],
            sentence[join(sep=": ")[optional_field("address"), bib_field("publisher")]],
            sentence[optional_field("note")],
            self.format_web_refs(e),
        ]


STATIC = Path(__file__).parent / "static"


def _add_static_path(app):
    app.config.html_static_path.append(str(STATIC))


def setup(app):
    app.connect("builder-inited", _add_static_path)
    app.add_css_file("czech_bibliography.css")
    register_plugin("sphinxcontrib.bibtex.style.referencing", REFERENCE_STYLE,
                    CzechAuthorYearReferenceStyle, force=True)
    pybtex.plugin.register_plugin("pybtex.style.formatting", LIST_STYLE, CzechStyle, force=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
