"""The slider helper and the plot style."""

import base64
import html
import io
import json
import re

import numpy as np
import pytest
from PIL import Image

from attention_core.interactive import MAX_FRAMES, explore, explorers, figure_png, slider
from attention_core.style import COLORS, cz, cz_formatter, cz_sci, log_scale, new_figure, table
from attention_core.timing import cpu_time


def draw_bars(height, color="weight"):
    fig, ax = new_figure()
    ax.bar([1, 2], [height, 1.0], color=COLORS[color])
    ax.set_ylim(0, 5)
    return fig


def ink(png):
    return float((np.asarray(Image.open(io.BytesIO(png)).convert("L")) < 245).mean())


def test_moving_a_slider_redraws_the_image_and_the_caption():
    ex = explore(draw_bars, alt=lambda height: f"výška {cz(height, 1)}",
                 height=slider([0.5, 2.0, 4.0], label="výška", value=2.0))
    assert ex.caption.value == "výška 2,0"
    before = ex.image.value
    ex.sliders["height"].value = 4.0
    assert ex.image.value != before and ink(ex.image.value) > 0.01
    assert ex.caption.value == "výška 4,0"
    assert ex in explorers()


def test_readouts_are_czech_and_the_labels_are_used():
    ex = explore(draw_bars, alt="sloupce", height=slider([0.25, 1.5, 3.0], label="výška h"))
    control = ex.sliders["height"]
    assert [label for label, _ in control.options] == ["0,25", "1,50", "3,00"]
    assert control.description == "výška h"
    plain = explore(draw_bars, alt="sloupce", height=[1, 2])
    assert plain.sliders["height"].description == "height"


def test_static_html_has_every_combination_and_keyboard_sliders():
    ex = explore(draw_bars, alt=lambda height, color: f"{color} {height}",
                 height=[1.0, 2.0, 3.0], color=slider(["weight", "score"], label="barva"))
    page = ex.static_html()
    assert page.count('type="range"') == 2
    assert 'aria-label="barva"' in page and 'aria-valuetext="weight"' in page
    data = json.loads(re.search(r'<script type="application/json" class="ac-data">(.*?)</script>',
                                page, re.S).group(1).replace("<\\/", "</"))
    assert data["sizes"] == [3, 2] and len(data["index"]) == 6 and len(data["alts"]) == 6
    assert data["alts"][1] == "score 1.0"  # C order: the last slider moves fastest
    for frame in data["frames"]:
        assert ink(base64.b64decode(frame)) > 0.01
    assert 'alt="weight 1.0"' in page
    bundle = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and "text/html" in bundle


def test_identical_frames_are_stored_once():
    ex = explore(lambda height: draw_bars(min(height, 2.0)), alt="x", height=[1.0, 2.0, 3.0, 4.0])
    data = json.loads(re.search(r'class="ac-data">(.*?)</script>', ex.static_html(), re.S)
                      .group(1).replace("<\\/", "</"))
    assert len(data["frames"]) == 2 and data["index"] == [0, 1, 1, 1]


def test_alt_text_is_escaped():
    ex = explore(draw_bars, alt='a <b> & "c"', height=[1.0, 2.0])
    assert html.escape('a <b> & "c"') in ex.static_html()


@pytest.mark.parametrize("make, match", [
    (lambda: explore(draw_bars, alt="x", height=[]), r"slider 'height'.*grid of values is empty"),
    (lambda: explore(draw_bars, alt="x"), r"at least one slider"),
    (lambda: explore(lambda height: "not a figure", alt="x", height=[1]),
     r"draw\(height=1\) returned str, not a matplotlib Figure"),
    (lambda: explore(42, alt="x", height=[1]), r"draw must be a function"),
    (lambda: explore(draw_bars, alt="x", height=range(MAX_FRAMES + 1)),
     rf"{MAX_FRAMES + 1} combinations"),
    (lambda: slider([1, 2], label="h", value=3), r"start value 3 is not in the grid"),
    (lambda: slider([], label="h"), r"grid of values is empty"),
])
def test_explore_rejects(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_figure_png_is_a_compact_png():
    png = figure_png(draw_bars(3.0))
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.mode == "P" and image.size == (640, 360)


@pytest.mark.parametrize("x, digits, text", [
    (13.938, 2, "13,94"), (98304, 0, "98\u202f304"), (-1.4142, 3, "−1,414"),
    (64_000_000, 0, "64\u202f000\u202f000"), (0.5, 1, "0,5"), (float("inf"), 2, "∞"),
])
def test_czech_numbers(x, digits, text):
    assert cz(x, digits) == text


def test_czech_tick_labels_and_table():
    formatter = cz_formatter()
    assert [formatter(x, 0) for x in (2.5, 3.0, -0.25)] == ["2,5", "3", "−0,25"]
    rendered = table(["i", "skóre"], [[1, 1.41421]], colors={1: COLORS["score"]}).data
    assert "1,414" in rendered and COLORS["score"] in rendered and ">1<" in rendered


@pytest.mark.parametrize("x, digits, text", [
    (2.1e-9, 1, "2,1 · 10⁻⁹"), (9.96e4, 1, "1,0 · 10⁵"), (-3e2, 0, "−3 · 10²"), (0.0, 1, "0"),
])
def test_czech_scientific_notation(x, digits, text):
    assert cz_sci(x, digits) == text


def test_cpu_time_is_positive_and_repeats_short_calls():
    calls = []
    seconds = cpu_time(lambda: calls.append(sum(range(1000))), repeats=2, at_least=0.002)
    assert 0 < seconds < 0.002 and len(calls) > 2


def test_log_scale_labels_are_czech_and_minor_ticks_gone():
    fig, ax = new_figure()
    ax.plot([10, 100_000], [1e4, 1e14])
    log_scale(ax, "x")
    log_scale(ax, "y", powers=True)
    x_label = ax.xaxis.get_major_formatter()
    y_label = ax.yaxis.get_major_formatter()
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert x_label(1000, 0) == "1\u202f000" and x_label(0.01, 0) == "0,01"
    assert y_label(1e6, 0) == "10⁶" and y_label(3e6, 0) == ""
    assert list(ax.xaxis.get_minorticklocs()) == []
    fig2, ax2 = new_figure()
    log_scale(ax2, "x", base=2, ticks=[1, 4, 16])
    assert list(ax2.get_xticks()) == [1, 4, 16]
