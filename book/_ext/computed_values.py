"""The ``{eval}`` role: a value from the chapter's computation in its prose, in both readers.

The chapters write a computed number into a sentence as ``{eval}`name```, where ``name`` is
a value the chapter stored with ``attention_display.glue.glue(name, value)``.

* In JupyterLab, jupyterlab-myst evaluates ``{eval}`` in the running kernel, where ``glue``
  has bound ``name`` to the value: the sentence shows the number, not its name (issue 19).
* In the HTML book, myst-nb's own ``{eval}`` needs its inline execution mode (a kernel kept
  running through the page's parsing), which this book does not use. Here the role pastes
  the value glued under ``name`` instead, exactly as myst-nb's ``{glue:text}`` does, or as
  its ``{glue:md}`` does when the value is Markdown (``IPython.display.Markdown``): the
  HTML is the same as with those roles.
"""

from myst_nb.core.variables import RetrievalError
from myst_nb.ext.glue.roles import PasteMarkdownRole, PasteTextRole
from myst_nb.ext.glue.utils import retrieve_glue_data


def computed_value(name, rawtext, text, lineno, inliner, options=None, content=()):
    """``{eval}`name```: the glued value ``name``, as text or, if it is Markdown, as Markdown."""
    try:
        markdown = "text/markdown" in retrieve_glue_data(inliner.document, text).data
    except RetrievalError:
        markdown = False  # the text role reports the missing value
    role = PasteMarkdownRole() if markdown else PasteTextRole()
    return role(name, rawtext, text, lineno, inliner, options, content)


def setup(app):
    app.setup_extension("myst_nb")  # registers its own eval role first; this one replaces it
    app.add_role("eval", computed_value, override=True)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
