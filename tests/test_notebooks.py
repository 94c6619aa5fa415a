"""Layer 2: every chapter in _toc.yml runs top to bottom, and every slider works."""

import pytest

from chapters import SLIDER_PROBE, chapter_paths, execute, slider_report

CHAPTERS = chapter_paths()


@pytest.fixture(scope="module", params=CHAPTERS, ids=[p.stem for p in CHAPTERS])
def executed(request):
    return request.param, execute(request.param, extra_code=SLIDER_PROBE)


def test_chapter_runs_without_errors_or_warnings(executed):
    path, nb = executed
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", f"{path.name}: {output.get('ename')}"
            if output.get("name") == "stderr":
                raise AssertionError(f"{path.name} wrote to stderr: {output['text'][:500]}")


def test_every_slider_changes_a_non_blank_image(executed):
    path, nb = executed
    report = slider_report(nb)
    for move in report:
        where = f"{path.name}: slider {move['slider']} of explorer {move['explorer']}"
        assert move["image_changed"], (
            f"{where}: moving {move['from']} -> {move['to']} kept the image")
        assert move["ink"] > 0.005, f"{where}: the image at {move['to']} is blank"
