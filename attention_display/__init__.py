"""attention_display: how the book shows what ``attention_core`` computes.

The presentation half of the book's code, kept apart from the mathematics so that a reader
who opens ``attention_core`` finds the formulas first:

* ``interactive``: ``explore`` and ``slider``, the sliders of every chapter (live in Jupyter,
  kernel-free in the HTML book);
* ``figures``: how a matplotlib figure becomes the book's pictures (sharp PNGs at natural
  size, the phone layout, dark palettes);
* ``style``: the colours of the terms of the attention formula, Czech numbers and axes,
  tables;
* ``glue``: numbers from a chapter's computation into its prose (myst-nb's ``glue`` in the
  book's build, nothing visible elsewhere).
* ``checks``: ``check("2.1", answer)``, the self-check a student runs in an exercise's cell
  (says in Czech whether the answer is right or how far off, never the expected value).

Importing the package makes IPython show a bare ``Figure`` as a sharp PNG.
"""

from .interactive import show_figures_as_png

show_figures_as_png()
