"""JupyterLab for the book: ``jupyter lab --config=lab/jupyter_lab_config.py book/``.

Only for the JupyterLab started with it; the reader's own Jupyter configuration is neither
read for this file's settings nor changed (README, "Opening the chapters in JupyterLab"):

- ``settings/overrides.json``: defaults for this JupyterLab (a setting the reader changed in
  the Settings Editor wins): ``.md`` files open as jupytext notebooks, and every cell is
  drawn (windowing mode "none"), so that jupyterlab-myst evaluates every ``{eval}``;
- ``custom/custom.css``: the Czech titles of the boxes (jupyterlab-myst 2.7.0 has no
  settings and writes "Exercise", "Definition" ... itself; the CSS hides its words and
  writes the Czech ones, numbered as jupyterlab-myst numbers them).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from book_links import BookContentsManager  # noqa: E402 (lab/ is on the path from here on)

c = get_config()  # noqa: F821 (defined by traitlets when it loads this file)
c.LabApp.app_settings_dir = str(HERE / "settings")
c.LabApp.custom_css = True
# JupyterLab serves /custom/custom.css from the server's static_custom_path, which is not a
# configurable trait; the web application's settings are, and they take precedence.
c.ServerApp.tornado_settings = {"static_custom_path": [str(HERE / "custom")]}
# jupytext's server extension keeps a contents manager that is already jupytext's
c.ServerApp.contents_manager_class = BookContentsManager
