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
"""

try:
    from myst_nb import glue as _myst_nb_glue
except ImportError:  # a Jupyter without the book's build tools
    _myst_nb_glue = None


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
