"""Numbers from a chapter's computation into its prose, wherever the chapter runs.

A chapter writes a computed value into a sentence as ``{eval}`name``` and stores it with
``glue(name, value)``:

* the HTML book pastes the value that myst-nb's ``glue`` stored in the cell's output
  (``book/_ext/computed_values.py``); myst-nb belongs to the book's build (it brings Sphinx
  along), and a chapter run without it stores nothing there;
* in JupyterLab, jupyterlab-myst evaluates ``{eval}`name``` in the kernel, so ``glue`` also
  binds ``name`` to the value in the notebook's namespace;
* in Colab, VS Code or on a JupyterHub the reader's notebook already has the values in its
  prose (``book/_ext/reader_notebooks.py``).

The value is stored as myst-nb 1.4's ``myst_nb.glue`` stores it (:func:`_record`), without
importing ``myst_nb.ext.glue``: that module imports nbformat for a type, and with it
jsonschema, whose format checkers compile 38 grammars of rfc3987-syntax on import, 3 s of
CPU in every chapter's kernel of the book's build (``python -c "import nbformat"``: 3,3 s
user; ``import myst_nb``: 0,1 s).
"""

#: The MIME prefix of a glued value that is not shown (``myst_nb.ext.glue.GLUE_PREFIX``).
GLUE_PREFIX = "application/papermill.record/"


def _record(name, value, display=True):
    """``myst_nb.ext.glue.glue``: the value's display data as an output whose metadata
    ``scrapbook`` names it, its MIME types prefixed with GLUE_PREFIX unless shown."""
    from IPython.core.formatters import format_display_data
    from IPython.display import display as ipy_display

    mimebundle, metadata = format_display_data(value)
    mime_prefix = "" if display else GLUE_PREFIX
    metadata["scrapbook"] = dict(name=name, mime_prefix=mime_prefix)
    ipy_display({mime_prefix + k: v for k, v in mimebundle.items()}, raw=True,
                metadata=metadata)


try:
    import myst_nb  # noqa: F401 - only whether the book's build tools are here
except ImportError:  # a Jupyter without the book's build tools
    _myst_nb_glue = None
else:
    _myst_nb_glue = _record


def glue(name, value, display=False):
    """Store ``value`` under ``name`` for the prose (myst-nb) and bind it in the notebook."""
    if _myst_nb_glue is not None:
        _myst_nb_glue(name, value, display=display)
    shell = _ipython()
    if shell is not None:
        shell.user_ns[name] = value


def _ipython():
    """The running IPython shell, or None outside IPython (a script, the tests)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()
