"""The two packages: attention_core is the mathematics on NumPy alone; attention_display
(sliders, figures, style, glue) is everything the book needs to show it."""

import subprocess
import sys

from chapters import ROOT

#: Imported by nothing in attention_core: a student's kernel may lack every one of them.
PRESENTATION = ("matplotlib", "ipywidgets", "PIL", "IPython", "myst_nb", "threadpoolctl",
                "attention_display")

BLOCKED_IMPORTS = f"""
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {PRESENTATION!r}:
            raise ImportError('blocked for this test: ' + name)
sys.meta_path.insert(0, Block())
"""


def run_without_presentation(code):
    return subprocess.run([sys.executable, "-c", BLOCKED_IMPORTS + code], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_attention_core_needs_numpy_alone():
    code = """
import pkgutil, importlib
import numpy as np
import attention_core
for module in pkgutil.iter_modules(attention_core.__path__):
    importlib.import_module('attention_core.' + module.name)
q, K, V = np.array([2.0, 1.0]), np.array([[1.0, 0], [0, 1], [-1, 0]]), np.array([10.0, 20, 30])
print(round(float(attention_core.attention(q, K, V)), 2))
from attention_core.timing import one_thread
with one_thread() as limited:
    print(limited)
"""
    result = run_without_presentation(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["13.94", "False"]


def test_glue_does_nothing_visible_without_myst_nb():
    code = """
import sys
sys.meta_path[0].find_spec.__func__  # the blocker is in place
import attention_display.glue as g
print(g._myst_nb_glue is None)
g.glue('ch00_x', 1.5)
"""
    # here only myst_nb is blocked: the display package itself must import
    blocker = BLOCKED_IMPORTS.replace(repr(PRESENTATION), repr(("myst_nb",)))
    result = subprocess.run([sys.executable, "-c", blocker + code], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True"]
