"""Layer 2: every chapter in _toc.yml runs top to bottom, and every slider works.

Nothing is executed here for the first check: it reads the notebooks the strict build
executed (``_build/jupyter_execute``), which must have no error and no write to stderr.
The sliders are moved live (``SLIDER_PROBE``) in the runs of ``conftest.live_runs``, each
chapter's one (or its first noisy-clock run, ``test_noisy_clock.py``), executed side by
side in one go.
"""

import nbformat
import pytest

from chapters import chapter_paths, slider_report

CHAPTERS = chapter_paths()


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_runs_without_errors_or_warnings(built_html, path):
    executed = built_html.parent / "jupyter_execute" / f"{path.stem}.ipynb"
    assert executed.is_file(), f"the strict build did not execute {path.name}"
    nb = nbformat.read(executed, as_version=4)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", f"{path.name}: {output.get('ename')}"
            if output.get("name") == "stderr":
                raise AssertionError(f"{path.name} wrote to stderr: {output['text'][:500]}")


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_every_slider_changes_a_non_blank_image(live_runs, path):
    nb = live_runs.probed(path)
    report = slider_report(nb)
    for move in report:
        where = f"{path.name}: slider {move['slider']} of explorer {move['explorer']}"
        assert move["image_changed"], (
            f"{where}: moving {move['from']} -> {move['to']} kept the image")
        assert move["ink"] > 0.005, f"{where}: the image at {move['to']} is blank"
