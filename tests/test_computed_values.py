"""``{eval}`name```, the chapters' computed values in the prose (book/_ext/computed_values.py,
attention_display/glue.py): the HTML book pastes the glued value as text, or as Markdown when
the value is Markdown, and in a notebook ``glue`` binds the name for jupyterlab-myst's
evaluation. (That JupyterLab then shows the values, not their names, is checked in
``test_jupyterlab.py``; that no chapter still uses ``{glue:text}`` in ``test_lint.py``.)"""

import pytest
from bs4 import BeautifulSoup
from fixture_book import build_fixture_book


@pytest.fixture(scope="module")
def fixture_page():
    html = (build_fixture_book() / "cviceni.html").read_text(encoding="utf-8")
    return BeautifulSoup(html, "html.parser")


def test_eval_pastes_text_and_markdown_values(fixture_page):
    paragraph = next(p for p in fixture_page.find_all("p") if "Spočtený součet" in p.text)
    text = " ".join(paragraph.get_text().split())
    assert text == "Spočtený součet je 5 a věta o něm zní: součet je pět."
    assert paragraph.find("strong").get_text() == "pět"  # the Markdown is rendered
    assert "fx_" not in str(paragraph)


def test_glue_binds_the_name_in_the_notebook():
    from IPython.core.interactiveshell import InteractiveShell

    from attention_display.glue import glue

    shell = InteractiveShell.instance()
    try:
        glue("ch00_value", "0,54")
        assert shell.user_ns["ch00_value"] == "0,54"
    finally:
        InteractiveShell.clear_instance()


@pytest.mark.parametrize("display", [False, True])
def test_glue_stores_what_myst_nb_glue_stores(display):
    """attention_display.glue writes myst-nb's record itself (without importing nbformat,
    3 s in every kernel): the same output as ``myst_nb.glue`` for the same value."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    from myst_nb import glue as myst_nb_glue

    from attention_display.glue import _record

    InteractiveShell.instance()
    try:
        outputs = []
        for store in (myst_nb_glue, _record):
            with capture_output() as captured:
                store("ch00_value", "0,54", display=display)
            outputs.append([(o.data, o.metadata) for o in captured.outputs])
        assert outputs[0] == outputs[1]
        assert outputs[0][0][1]["scrapbook"]["name"] == "ch00_value"
    finally:
        InteractiveShell.clear_instance()
