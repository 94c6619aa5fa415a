"""Numbers from a chapter's computation into its prose, wherever the chapter runs.

The HTML book inserts a computed value into a sentence with myst-nb's ``{glue:text}`` role;
the value is stored by myst-nb's ``glue`` in a cell's output. myst-nb belongs to the book's
build (it brings Sphinx along), so a chapter run in Colab, in VS Code or on a JupyterHub may
not have it; there the values already stand in the prose of the reader's notebook, and
storing them is not needed.
"""

try:
    from myst_nb import glue as _myst_nb_glue
except ImportError:  # a Jupyter without the book's build tools
    _myst_nb_glue = None


def glue(name, value, display=False):
    """Store ``value`` under ``name`` for the prose (myst-nb), or do nothing without myst-nb."""
    if _myst_nb_glue is not None:
        _myst_nb_glue(name, value, display=display)
