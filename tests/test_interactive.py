"""The slider helper and the plot style."""

import base64
import html
import io
import json
import re
import threading
import time

import numpy as np
import pytest
from ipywidgets import HTML, Image, Stack
from PIL import Image as PILImage

from attention_core.timing import cpu_time
from attention_display import figures
from attention_display.figures import (
    COLUMN_WIDTH,
    CSS_PX_PER_INCH,
    DENSITY,
    NARROW_FRAME_HEIGHT,
    NARROW_PANEL_WIDTH,
    NARROW_WIDTH,
    PANEL_WIDTH,
    Painter,
    dark_colours,
    dark_png,
    keep_shades,
    layout_for,
    relayout,
)
from attention_display.interactive import (
    EXPLORE_MIME,
    HTML_BOOK,
    MAX_FRAMES,
    PENDING,
    explore,
    explore_html,
    explorers,
    figure_png,
    slider,
    wait_for_frames,
)
from attention_display.style import (
    COLORS,
    DARK_BACKGROUND,
    DARK_TEXT_COLORS,
    TEXT_COLORS,
    cz,
    cz_formatter,
    cz_sci,
    log_scale,
    mathjax_macros,
    new_figure,
    table,
    term_css,
)


def draw_bars(height, color="weight"):
    fig, ax = new_figure()
    ax.bar([1, 2], [height, 1.0], color=COLORS[color])
    ax.set_ylim(0, 5)
    return fig


def ink(png):
    return float((np.asarray(PILImage.open(io.BytesIO(png)).convert("L")) < 245).mean())


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


def page_of(ex):
    """The explore's page data and its HTML, its frames as addresses ``wide-light-0.png``."""
    data = ex.page_data()
    urls = {layout: {theme: [f"{layout}-{theme}-{n}.png" for n in range(len(frames))]
                     for theme in ("light", "dark")} for layout, frames in data["frames"].items()}
    page = explore_html(data, urls)
    shown = json.loads(re.search(r'<script type="application/json" class="ac-data">(.*?)</script>',
                                 page, re.S).group(1).replace("<\\/", "</"))
    return data, page, shown


def test_the_book_gets_every_combination_and_keyboard_sliders():
    ex = explore(draw_bars, alt=lambda height, color: f"{color} {height}",
                 height=[1.0, 2.0, 3.0], color=slider(["weight", "score"], label="barva"))
    data, page, shown = page_of(ex)
    assert page.count('type="range"') == 2
    assert 'aria-label="barva"' in page and 'aria-valuetext="weight"' in page
    assert shown["sizes"] == [3, 2] and len(shown["wide"]["index"]) == 6
    assert len(shown["alts"]) == 6 and shown["alts"][1] == "score 1.0"  # the last moves fastest
    for layout in ("wide", "narrow"):
        for frame in data["frames"][layout]:
            png = base64.b64decode(frame["png"])
            assert ink(png) > 0.01
            dark = dark_png(png)
            assert figures.with_palette(png, base64.b64decode(frame["dark"])) == dark
    assert 'alt="weight 1.0"' in page and shown["density"] == DENSITY == 2
    # one picture per colour mode, each the desktop frame with the phone's as a <source>
    assert page.count("<picture") == 2 and 'src="wide-light-0.png"' in page
    assert 'srcset="narrow-dark-0.png 2x"' in page and page.count('loading="lazy"') == 2
    assert "base64" not in page  # the frames are files next to the page


def test_frames_are_drawn_for_the_panel_at_twice_its_pixels():
    """Shown at their natural size inside the slider's panel, never resampled: the desktop
    frame as wide as the panel's inside at most, the phone's exactly that and at most
    ``NARROW_FRAME_HEIGHT`` tall, both with an even number of pixels."""
    def draw(height):
        fig, axes = new_figure(1, 4, figsize=(10, 3.3))
        for ax in axes:
            ax.bar([1, 2], [height, 1.0], color=COLORS["weight"])
        return fig

    data, _page, _shown = page_of(explore(draw, alt="sloupce", height=[1.0, 2.0]))
    for layout, width in (("wide", PANEL_WIDTH), ("narrow", NARROW_PANEL_WIDTH)):
        for frame in data["frames"][layout]:
            image = PILImage.open(io.BytesIO(base64.b64decode(frame["png"])))
            assert image.size == (2 * frame["width"], 2 * frame["height"])
            assert frame["width"] == width
    narrow = data["frames"]["narrow"][0]
    assert narrow["height"] <= NARROW_FRAME_HEIGHT
    assert narrow["height"] < 3 * 250  # four panels in two rows, not four


def test_text_too_small_for_a_phone_is_a_warning(monkeypatch):
    def draw(height):
        fig, ax = new_figure()
        ax.bar([1, 2], [height, 1.0])
        ax.annotate("drobné", (1, height), fontsize=6)
        return fig

    with pytest.warns(UserWarning, match=r"smaller than 9 CSS px: „drobné“ 8,3 px"):
        explore(draw, alt="sloupce", height=[1.0, 2.0]).page_data()


def test_live_display_is_the_widget_and_the_html_book_gets_the_kernel_free_view(monkeypatch):
    ex = explore(draw_bars, alt="sloupce", height=[1.0, 2.0])
    bundle = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and "text/html" not in bundle
    assert PILImage.open(io.BytesIO(bundle["image/png"])).format == "PNG"
    monkeypatch.setenv(HTML_BOOK, "1")
    book = explore(draw_bars, alt="sloupce", height=[1.0, 2.0])
    assert book.drawn == 0  # nothing drawn until the page asks for it
    bundle = book._repr_mimebundle_()
    assert EXPLORE_MIME in bundle and "application/vnd.jupyter.widget-view+json" not in bundle
    assert len(bundle[EXPLORE_MIME]["alts"]) == 2


def browser_view(ex, indices):
    """What the browser shows for these slider positions, found as the front end finds it:
    every Stack switched by the slider it is linked to (``jsdlink``), no kernel involved.
    Returns (the Image widget, the caption's HTML)."""
    links = {id(link.target[0]): link for link in ex._links}
    controls = list(ex.sliders.values())
    shown = []
    for stack in ex.widget.children[len(controls):]:  # the frames, then the captions
        while isinstance(stack, Stack):
            link = links[id(stack)]
            assert link.source[1] == "index" and link.target[1] == "selected_index"
            stack = stack.children[indices[controls.index(link.source[0])]]
        shown.append(stack)
    image, caption = shown
    assert isinstance(image, Image) and isinstance(caption, HTML)
    return image, caption.value


def test_frames_are_drawn_on_demand_and_kept():
    calls = []

    def draw(height):
        calls.append(height)
        return draw_bars(height)

    ex = explore(draw, alt="sloupce", height=slider([1.0, 2.0, 3.0, 4.0, 5.0], value=2.0))
    assert calls == [2.0]  # only the start figure, at once
    control = ex.sliders["height"]  # shown: its neighbours are drawn in the background
    assert wait_for_frames()
    assert sorted(calls) == [1.0, 2.0, 3.0]
    control.value = 5.0  # the kernel sees a move to a frame not drawn: drawn at once
    assert calls[3] == 5.0 and ink(ex.image.value) > 0.01
    assert wait_for_frames()  # then its neighbour
    assert sorted(calls) == [1.0, 2.0, 3.0, 4.0, 5.0]
    first = ex.image.value
    control.value = 2.0
    control.value = 5.0  # both frames come from the cache
    assert len(calls) == ex.drawn == 5 and ex.image.value == first


def test_sliders_switch_drawn_frames_in_the_browser_without_the_kernel():
    ex = explore(draw_bars, alt=lambda height, color: f"{color} {cz(height, 1)}",
                 height=slider([1.0, 2.0, 3.0, 4.0], value=2.0),
                 color=slider(["weight", "score", "value"], label="barva"))
    frames, captions = ex.widget.children[2:]
    assert isinstance(frames, Stack) and frames.selected_index == 1
    assert all(isinstance(inner, Stack) and inner.selected_index == 0 for inner in frames.children)
    assert len(ex._links) == 2 * (1 + 4)  # every stack of frames and of captions is linked
    assert wait_for_frames()
    assert set(ex._images) == {(1, 0), (0, 0), (2, 0), (1, 1)}  # the start and its neighbours
    # a neighbour of the start: its own frame and caption at once, while the kernel is busy
    image, caption = browser_view(ex, (2, 0))
    assert image is ex._images[(2, 0)] and caption == "weight 3,0"
    assert browser_view(ex, (1, 1))[0] is ex._images[(1, 1)]
    # further away: the nearest drawn frame stands in, and the caption says so
    image, caption = browser_view(ex, (3, 0))
    assert image is ex._images[(2, 0)] and caption.startswith("weight 4,0<br>")
    assert PENDING in html.unescape(caption)
    assert browser_view(ex, (1, 2))[0] is ex._images[(1, 1)]
    # the kernel sees the move: the frame is drawn and takes its place, the note goes away
    ex.sliders["height"].value = 4.0
    image, caption = browser_view(ex, (3, 0))
    assert image is ex._images[(3, 0)] is ex.image and caption == ex.caption.value == "weight 4,0"
    assert ex.image.value != ex._images[(2, 0)].value
    # a frame not drawn holds no picture of its own: one Image per frame drawn
    assert wait_for_frames()
    assert set(ex._images) == {(1, 0), (0, 0), (2, 0), (1, 1), (3, 0), (3, 1)}
    stacks = [inner for inner in frames.children]
    assert sum(isinstance(child, Image) for inner in stacks for child in inner.children) == 12
    assert len({id(child) for inner in stacks for child in inner.children}) == len(ex._images)


def test_neighbours_are_drawn_in_a_background_thread_one_drawing_at_a_time():
    threads, inside, most = [], [0], [0]

    def draw(height):
        threads.append(threading.current_thread().name)
        inside[0] += 1
        most[0] = max(most[0], inside[0])
        time.sleep(0.02)  # long enough for the kernel's thread to come in meanwhile
        inside[0] -= 1
        return draw_bars(height)

    ex = explore(draw, alt="sloupce", height=slider(np.arange(1.0, 9.0), value=4.0))
    ex.sliders["height"].value = 8.0  # while the start's neighbours are being drawn
    figure_png(draw_bars(1.0))  # a chapter's static figure, drawn meanwhile
    assert wait_for_frames()
    assert threads[0] == threads[1] == threading.main_thread().name  # start, the move
    assert set(threads[2:]) == {"attention_core-frames"}
    # the move replaced the wish for the start's neighbours not drawn by then: 7 is drawn
    assert (6,) in ex._images and set(ex._images) <= {(2,), (3,), (4,), (6,), (7,)}
    assert most[0] == 1 and ex.drawn == len(threads) == len(ex._images)


def test_a_frame_that_fails_in_the_background_fails_again_in_the_kernels_thread():
    def draw(height):
        if height == 3.0:
            raise RuntimeError("no frame for 3")
        return draw_bars(height)

    ex = explore(draw, alt="sloupce", height=slider([1.0, 2.0, 3.0], value=2.0))
    ex.sliders  # noqa: B018 - shown: 1 and 3 drawn in the background, 3 fails quietly
    assert wait_for_frames() and set(ex._images) == {(0,), (1,)}
    with pytest.raises(RuntimeError, match="no frame for 3"):
        ex.sliders["height"].value = 3.0


def test_live_frames_are_sharp_and_shown_at_their_natural_size():
    ex = explore(draw_bars, alt="sloupce", height=[1.0, 2.0])
    image = PILImage.open(io.BytesIO(ex.image.value))
    css_width = round(6.4 * CSS_PX_PER_INCH)
    assert image.size == (css_width * DENSITY, round(3.6 * CSS_PX_PER_INCH) * DENSITY)
    assert ex.image.layout.width == f"{css_width}px" and ex.image.layout.height == "auto"


def test_fast_frames_equal_a_full_draw():
    """The painter pastes each axis drawn once; the pixels must equal drawing it all."""
    def draw(shift):
        fig, (left, right) = new_figure(1, 2)
        left.bar([1, 2, 3], [1 + shift, 2, 3 - shift], color=COLORS["weight"])
        left.set(title=f"posun {shift}", xlabel="položka i", ylabel="váha", ylim=(0, 4))
        right.plot([0, 1, 2], [shift, 1, 0], color=COLORS["output"])
        right.set(title="křivka", xlabel="x")
        return fig

    fast, full = Painter(), Painter(reuse_axes=False)
    for shift in (0.0, 0.5, 1.0, 0.5):
        assert np.array_equal(fast.rgba(draw(shift)), full.rgba(draw(shift)))
    assert len(fast.axes_drawn) < 4 * 2  # the unchanged axes were pasted, not drawn again


def test_narrow_layout_stacks_the_panels_and_restores_the_figure():
    fig, axes = new_figure(1, 3, figsize=(10, 3.3), sharey=True)
    for ax in axes:
        ax.plot([0, 1], [0, 1])
    restore = relayout(fig, NARROW_WIDTH / CSS_PX_PER_INCH, stacked=True)
    # three in a row: two columns, the odd last panel across both
    places = [(ax.get_subplotspec().rowspan.start, ax.get_subplotspec().colspan.start,
               ax.get_subplotspec().colspan.stop) for ax in axes]
    assert places == [(0, 0, 1), (0, 1, 2), (1, 0, 2)]
    assert fig.get_size_inches()[0] == NARROW_WIDTH / CSS_PX_PER_INCH
    assert all(ax.yaxis.get_tick_params()["labelleft"] for ax in axes)
    restore()
    two, pair = new_figure(1, 2, figsize=(9, 3.4))
    relayout(two, NARROW_WIDTH / CSS_PX_PER_INCH, stacked=True, max_height=4.0)
    assert [ax.get_subplotspec().rowspan.start for ax in pair] == [0, 1]
    assert two.get_size_inches()[1] == pytest.approx(4.0)
    assert tuple(fig.get_size_inches()) == (10, 3.3)
    assert [ax.get_subplotspec().colspan.start for ax in axes] == [0, 1, 2]


def test_dark_palette_maps_white_black_and_the_term_colours():
    light = np.array([[255, 255, 255], [0, 0, 0]]
                     + [[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in TEXT_COLORS.values()])
    dark = dark_colours(light)
    assert tuple(dark[0]) == tuple(int(DARK_BACKGROUND[i:i + 2], 16) for i in (1, 3, 5))
    assert dark[1].min() > 180  # black text becomes light
    for got, term in zip(dark[2:], TEXT_COLORS):
        want = DARK_TEXT_COLORS[term]
        assert tuple(got) == tuple(int(want[i:i + 2], 16) for i in (1, 3, 5))
    png = figure_png(draw_bars(2.0))
    assert PILImage.open(io.BytesIO(dark_png(png))).size == PILImage.open(io.BytesIO(png)).size


def contrast(a, b):
    def luminance(colour):
        rgb = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255
        rgb = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
        return rgb @ [0.2126, 0.7152, 0.0722]
    high, low = sorted([luminance(a), luminance(b)], reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("term", list(TEXT_COLORS))
def test_text_colours_have_contrast_in_light_and_dark_mode(term):
    assert contrast(TEXT_COLORS[term], "#ffffff") >= 4.5
    assert contrast(DARK_TEXT_COLORS[term], DARK_BACKGROUND) >= 4.5
    assert contrast(DARK_TEXT_COLORS[term], "#29313d") >= 4.5  # the dark table headers


def test_term_macros_and_css():
    macros = mathjax_macros()
    assert set(macros) == {"dotaz", "klic", "skore", "vaha", "hodnota", "vystup"}
    assert macros["dotaz"] == ["{\\class{ac-term-query}{#1}}", 1]
    assert mathjax_macros(inline_colors=True)["vaha"] == [
        "{\\color{" + TEXT_COLORS["weight"] + "}{#1}}", 1]
    css = term_css()
    for term in TEXT_COLORS:
        assert f".ac-term-{term} {{ color: {TEXT_COLORS[term]}; }}" in css
        assert DARK_TEXT_COLORS[term] in css


def test_identical_frames_are_stored_once():
    ex = explore(lambda height: draw_bars(min(height, 2.0)), alt="x", height=[1.0, 2.0, 3.0, 4.0])
    data = ex.page_data()
    assert len(data["frames"]["wide"]) == 2 and data["index"]["wide"] == [0, 1, 1, 1]


def test_alt_text_is_escaped():
    ex = explore(draw_bars, alt='x <b> & "c"', height=[1.0, 2.0])
    assert html.escape('x <b> & "c"') in page_of(ex)[1]


def test_captions_keep_one_letter_words_with_the_next():
    """Captions are outputs, which the book's typography transform does not reach."""
    ex = explore(draw_bars, alt=lambda height: f"sloupec s výškou {height} a šířkou 1",
                 height=[1.0, 2.0])
    assert ex.alt_text((0,)) == "sloupec s\u00a0výškou 1.0 a\u00a0šířkou 1"
    assert ex.caption.value == ex.alt_text((0,))
    assert "s\u00a0výškou 2.0" in page_of(ex)[1]  # the page's list of the captions


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
    image = PILImage.open(io.BytesIO(png))
    assert image.format == "PNG" and image.mode == "P"
    assert image.size == (640 * DENSITY, 360 * DENSITY)


def test_compact_png_keeps_the_white_background_exact():
    """The quantizer put white into a bucket with light tints and gave it their mean colour:
    a faint box around the figure on the page, in light and in dark mode."""
    from matplotlib.colors import LinearSegmentedColormap

    fig, ax = new_figure()
    tints = LinearSegmentedColormap.from_list("tints", ["silver", "white", COLORS["score"]])
    ax.imshow(np.linspace(-1, 1, 400).reshape(20, 20), cmap=tints)
    png = figure_png(fig)
    light = np.asarray(PILImage.open(io.BytesIO(png)).convert("RGB"))
    dark = np.asarray(PILImage.open(io.BytesIO(dark_png(png))).convert("RGB"))
    background = tuple(int(DARK_BACKGROUND[i:i + 2], 16) for i in (1, 3, 5))
    for corner in [(0, 0), (0, -1), (-1, 0), (-1, -1)]:
        assert tuple(light[corner]) == (255, 255, 255)
        assert tuple(dark[corner]) == background


def test_a_figure_can_keep_the_shades_of_a_grey_heat_map():
    """The fast quantizer keeps 16 levels of a grey: a grey heat map is posterized unless
    the figure asks for its shades (chapter 8's sinusoidal encoding)."""
    def grey_map():
        fig, ax = new_figure()
        ax.imshow(np.linspace(-1, 1, 400).reshape(20, 20), cmap="Greys")
        return fig

    def levels(png):
        return len(PILImage.open(io.BytesIO(png)).getcolors(256))

    kept = figure_png(keep_shades(grey_map()))
    assert levels(kept) > 64 > levels(figure_png(grey_map()))
    light = np.asarray(PILImage.open(io.BytesIO(kept)).convert("RGB"))
    assert tuple(light[0, 0]) == (255, 255, 255)
    assert len(dark_png(kept)) == len(kept)


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
    # a header and a text cell keep a one-letter word with the next one (ČSN 01 6910)
    rendered = table(["s chybou", "i"], [["změna vah hlavy 1 po změně složek a vah", 2]]).data
    assert "s\u00a0chybou" in rendered and "složek a\u00a0vah" in rendered
    assert ">i<" in rendered and "hlavy 1 po" in rendered


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


def test_one_figure_drawn_for_desktop_then_phone_equals_a_fresh_one():
    """The HTML book draws each frame's figure in both layouts: the first drawing must leave
    nothing behind (layout engine, positions, tilted labels) that changes the second."""
    def draw():
        fig, ax = new_figure(figsize=(6.4, 4.4))
        ax.imshow(np.eye(5), vmin=0, vmax=1)
        ax.set_xticks(range(5), ["Malé", "auto", "srazilo", "staré", "kolo"])
        ax.set(title="mapa", xlabel="klíč")
        return fig

    wide = Painter(layout_for(COLUMN_WIDTH))
    after_wide = Painter(layout_for(NARROW_WIDTH, stacked=True))
    fresh = Painter(layout_for(NARROW_WIDTH, stacked=True))
    fig = draw()
    wide.rgba(fig)
    assert np.array_equal(after_wide.rgba(fig), fresh.rgba(draw()))
