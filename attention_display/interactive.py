"""Sliders for the book: live in Jupyter, and working without a kernel in the HTML book.

Every slider of every chapter goes through :func:`explore`, so how sliders render is
decided here, once. A slider runs over a finite grid of values, so every figure a reader
can reach is known in advance:

* in a live kernel (JupyterLab) the cell shows ipywidgets sliders and the figure for the
  start values at once. The figures are switched in the browser, without the kernel: each
  frame is an ``Image`` widget in a ``Stack`` (nested, one level per slider) whose
  ``selected_index`` is linked to its slider in the front end (``jsdlink``), and the
  captions likewise. So a move shows an already drawn frame at once even while the kernel
  is busy, e.g. still running the rest of the chapter after *Run All*, when a slider's
  message would wait in the kernel's queue behind every remaining cell. The neighbours of
  the start position (one step on each slider) are drawn right away in a background thread;
  any other frame is drawn when the kernel sees the move (:class:`attention_display.figures.
  Painter`, tens of milliseconds), then its neighbours in the background; every frame is
  kept, so going back is free. A position whose frame is not drawn yet shows the nearest
  drawn frame, and its caption says that the right one is on its way;
* in the HTML book the same cell shows plain HTML range inputs and the figures for every
  combination of values, rendered at build time by the same ``draw`` function (a desktop
  and a phone layout, light and dark), so the reader sees exactly what the live notebook
  shows, without a kernel. The frames are image files next to the page; the browser
  fetches the one it shows and, once the reader reaches for a slider, its neighbours
  (:func:`explore_html`, :data:`SCRIPT`).

ipywidgets 7 (7.7.1 is what Colab ships) has no ``Stack``: there the cell shows one
``Image`` and one caption, and the kernel puts a frame into them when it sees a move
(:data:`BROWSER_SWITCHING` is False). The frames are drawn, prefetched and kept as above;
only a move made while the kernel is busy waits for it.

How the code knows which one: the HTML book's build sets the environment variable
:data:`HTML_BOOK` (``book/_ext/figure_pictures.py``), which the kernels that myst-nb starts
inherit. Only then does an explore render all its frames, as :data:`EXPLORE_MIME`, which the
book's extension turns into image files and the page's HTML; otherwise its display is the
live widget (plus the start frame as a plain PNG for viewers without widgets).
"""

import base64
import gc
import html
import itertools
import json
import math
import os
import sys
import threading
import traceback
import warnings
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

try:  # ipywidgets >= 8
    from ipywidgets.widgets.widget_string import HTMLStyle
except ImportError:  # ipywidgets 7: no Stack either, see BROWSER_SWITCHING
    HTMLStyle = None

from . import figures
from .style import cz, keep_one_letter_words

#: True where the browser switches the frames (ipywidgets >= 8: ``Stack`` and ``jsdlink``);
#: False with ipywidgets 7, where the kernel puts each frame into one ``Image``.
BROWSER_SWITCHING = hasattr(widgets, "Stack")

#: The most figures one ``explore`` call may pre-render (all combinations of its sliders).
MAX_FRAMES = 120

#: Set to "1" by the HTML book's build: explores then pre-render every frame for the page.
HTML_BOOK = "ATTENTION_CORE_HTML_BOOK"

#: The MIME type of an explore's frames for the HTML book (``book/_ext/figure_pictures.py``
#: writes them as image files next to the page and the page's HTML around them).
EXPLORE_MIME = "application/vnd.attention-core.explore+json"


#: A slider's panel on a 390 x 844 phone (CSS px): at most PHONE_PANEL_HEIGHT tall, so that
#: the sliders and the picture they change are on the screen together under the page's
#: header. The phone frame gets what the sliders (label above the track), the caption
#: (lines of about PHONE_CAPTION_CHARS characters) and the panel's padding leave.
PHONE_PANEL_HEIGHT = 760
PHONE_PANEL_EXTRA = 40
PHONE_SLIDER_HEIGHT = 72
PHONE_CAPTION_LINE = 22
PHONE_CAPTION_CHARS = 42
PHONE_FRAME_LEAST = 300

#: Under the caption of a position whose frame is not drawn yet (the nearest drawn frame is
#: shown meanwhile).
PENDING = "Obrázek pro tuto polohu se ještě kreslí, zatím vidíte nejbližší hotový."


def html_book():
    """True while the HTML book is built (the kernel inherits :data:`HTML_BOOK`)."""
    return os.environ.get(HTML_BOOK) == "1"


_explorers = []


@dataclass(frozen=True)
class Slider:
    """One slider: its grid of values, its Czech label, where it starts, how it is read out."""

    values: tuple
    label: str
    start: int
    readouts: tuple


def slider(values, label=None, value=None, digits=None):
    """Describe a slider over ``values`` (a finite sequence), starting at ``value``.

    ``label`` is shown next to it (default: the argument's name); ``digits`` is the
    number of decimals of the readout (default: as many as the grid needs, at most 3).
    """
    values = tuple(v.item() if isinstance(v, np.generic) else v for v in values)
    if not values:
        raise ValueError(f"slider {label or ''}: the grid of values is empty; give at least one")
    if value is None:
        start = 0
    elif value in values:
        start = values.index(value)
    else:
        raise ValueError(f"slider {label or ''}: the start value {value!r} is not in the grid "
                         f"{values}")
    if digits is None:
        digits = _decimals_needed(values)
    readouts = tuple(cz(v, digits) if isinstance(v, (int, float)) else str(v) for v in values)
    return Slider(values, label, start, readouts)


def _decimals_needed(values):
    numbers = [v for v in values if isinstance(v, (int, float))]
    for places in range(4):
        if all(abs(round(v, places) - v) < 1e-9 for v in numbers):
            return places
    return 3


def explore(draw, *, alt, **sliders):
    """Show ``draw(**values)`` with one slider per keyword argument.

    ``draw`` returns a ``matplotlib.figure.Figure`` (made with ``style.new_figure``, never
    pyplot). ``alt`` is the Czech description of the figure: a string, or a function of
    the same values; it is the image's alt text and the readout shown under it. Each
    slider is a :func:`slider` or a plain sequence of values. Returns an :class:`Explorer`,
    which displays itself.
    """
    if not callable(draw):
        raise ValueError(f"explore: draw must be a function returning a Figure; got {draw!r}")
    if not sliders:
        raise ValueError("explore: give at least one slider, e.g. explore(draw, alt=..., d=[1, 2])")
    specs = {}
    for name, spec in sliders.items():
        if not isinstance(spec, Slider):
            try:
                spec = slider(spec, label=name)
            except (TypeError, ValueError) as error:
                raise ValueError(f"explore: slider {name!r}: {error}") from None
        if spec.label is None:
            spec = Slider(spec.values, name, spec.start, spec.readouts)
        specs[name] = spec
    frames = math.prod(len(s.values) for s in specs.values())
    if frames > MAX_FRAMES:
        sizes = " x ".join(str(len(s.values)) for s in specs.values())
        raise ValueError(f"explore: the sliders' grids give {sizes} = {frames} combinations, more "
                         f"than the {MAX_FRAMES} the HTML book can pre-render; use coarser grids")
    explorer = Explorer(draw, alt, specs)
    if not html_book():
        explorer.frame(explorer._start())  # the start figure, at once (and draw checked)
    return explorer


class Explorer:
    """The display object of :func:`explore`: a live widget, or the kernel-free HTML view."""

    def __init__(self, draw, alt, specs):
        self._draw = draw
        self._alt = alt
        self.specs = specs
        self._cache = {}  # grid indices -> (png, alt) of the live frames
        self._painters = {}  # (layout, density) -> figures.Painter
        self._widget = None
        self._frame_size = None
        self._alts = {}  # grid indices -> alt text, all of them once the widget is built
        self._images = {}  # grid indices -> the Image widget of a drawn frame
        self._failed = set()  # frames whose drawing failed in the background
        #: How many times ``draw`` has been called (the tests check that frames are drawn
        #: on demand, each once).
        self.drawn = 0
        _explorers.append(self)

    # -- the live widget, built when first needed (the HTML book's build never needs it)

    @property
    def widget(self):
        """The ipywidgets view: one slider per argument, the image, the caption."""
        if self._widget is None:
            with figures.DRAWING:
                if self._widget is None:
                    self._build_widget()
        return self._widget

    @property
    def sliders(self):
        """The slider widgets by argument name."""
        self.widget  # noqa: B018 - builds it
        return self._sliders

    @property
    def image(self):
        """The ``Image`` widget shown for the sliders' current values (the nearest drawn
        frame's while that one is not drawn yet)."""
        self.widget  # noqa: B018
        if not BROWSER_SWITCHING:
            return self._single_image
        return self._shown(self._indices())

    @property
    def caption(self):
        """The ``HTML`` widget of the caption for the sliders' current values."""
        self.widget  # noqa: B018
        if not BROWSER_SWITCHING:
            return self._single_caption
        return self._captions[self._indices()]

    def _build_widget(self):
        start = self._start()
        sliders = {
            name: widgets.SelectionSlider(
                options=list(zip(spec.readouts, spec.values)),
                value=spec.values[spec.start],
                description=spec.label,
                continuous_update=True,
                style={"description_width": "initial"},
                layout=widgets.Layout(width="min(100%, 32rem)"),
            )
            for name, spec in self.specs.items()
        }
        self._alts = {combo: self.alt_text(combo) for combo in self._combos()}
        png, _text = self.frame(start)
        width, height = self._frame_size
        # shown at its natural CSS size (the PNG has DENSITY pixels per CSS pixel), never
        # stretched; narrower only if the output area is. One Layout (and one style) for
        # all the frames, stacks and captions: each widget made is a message to the page.
        self._image_layout = widgets.Layout(
            width=f"{width}px", height="auto", max_width="100%", align_self="flex-start")
        self._box_layout = widgets.Layout()
        self._images = {start: self._new_image(png)}
        self._sliders = sliders
        controls = list(sliders.values())
        if BROWSER_SWITCHING:
            frames, captions = self._stacks(controls)
        else:  # ipywidgets 7: one Image and one caption, filled by the kernel
            self._single_image = self._images[start]
            self._single_caption = widgets.HTML(value=self._caption_html(start))
            frames, captions = self._single_image, self._single_caption
        for control in controls:
            control.observe(self._on_change, names="index")
        self._widget = widgets.VBox([*controls, frames, captions])
        self._widget.add_class("ac-live-explore")
        _prefetcher.want(self, self._neighbours(start))

    def _stacks(self, controls):
        """The frames and the captions as nested Stacks switched in the browser."""
        style = HTMLStyle()  # one style for all captions: each widget is a message
        self._captions = {combo: widgets.HTML(value=self._caption_html(combo),
                                              layout=self._box_layout, style=style)
                          for combo in self._combos()}
        self._leaves = {}  # grid indices but the last -> the Stack of their frames
        self._links = []
        frames = self._stack((), self._shown, self._leaves, controls)
        captions = self._stack((), self._captions.__getitem__, {}, controls)
        return frames, captions

    def _stack(self, prefix, leaf, leaves, controls):
        """The nested Stacks below grid indices ``prefix``: one level per slider, each
        switched by its slider in the browser (``jsdlink``: no kernel involved)."""
        level = len(prefix)
        size = len(list(self.specs.values())[level].values)
        last = level == len(self.specs) - 1
        children = [leaf((*prefix, i)) if last
                    else self._stack((*prefix, i), leaf, leaves, controls) for i in range(size)]
        stack = widgets.Stack(children, selected_index=self._start()[level],
                              layout=self._box_layout)
        if last:
            leaves[prefix] = stack
        self._links.append(widgets.jsdlink((controls[level], "index"), (stack, "selected_index")))
        return stack

    def _new_image(self, png):
        return widgets.Image(value=png, format="png", layout=self._image_layout)

    def _caption_html(self, combo):
        text = html.escape(self._alts[combo])
        if combo in self._images:
            return text
        return f"{text}<br><em>{html.escape(PENDING)}</em>"

    def _shown(self, combo):
        """The Image widget shown at ``combo``: its own frame, or the nearest drawn one
        (fewest steps over all sliders; on a tie, the one that keeps the first sliders)."""
        image = self._images.get(combo)
        if image is not None:
            return image
        nearest = min(self._images, key=lambda done: (
            sum(abs(a - b) for a, b in zip(done, combo)),
            [abs(a - b) for a, b in zip(done, combo)], done))
        return self._images[nearest]

    def _show(self, combo):
        """Draw the frame at ``combo`` if it is not drawn yet and put it into its place:
        its own Image in the stack, its caption without the note, and the nearest frame
        updated for the positions not drawn yet. Called by the kernel's thread when a
        slider moves and by the background thread that draws the neighbours."""
        with figures.DRAWING:
            if combo in self._images:
                return
            png, _text = self.frame(combo)
            if not BROWSER_SWITCHING:
                self._images[combo] = None  # drawn; the one Image shows it when asked
                return
            self._images[combo] = self._new_image(png)
            self._captions[combo].value = self._caption_html(combo)
            last = len(self.specs) - 1
            size = len(list(self.specs.values())[last].values)
            for prefix, stack in self._leaves.items():
                children = tuple(self._shown((*prefix, i)) for i in range(size))
                if any(a is not b for a, b in zip(children, stack.children)):
                    stack.children = children

    def _neighbours(self, combo):
        """The positions one step away on each slider, not drawn yet."""
        found = []
        for level, spec in enumerate(self.specs.values()):
            for step in (1, -1):
                i = combo[level] + step
                other = (*combo[:level], i, *combo[level + 1:])
                if 0 <= i < len(spec.values) and other not in self._images:
                    found.append(other)
        return found

    def _prefetch(self, combo):
        """Draw ``combo`` in the background thread (a failure is left for the reader's
        own move to show, in the kernel's thread)."""
        if combo in self._images or combo in self._failed:
            return
        try:
            self._show(combo)
        except Exception:  # noqa: BLE001 - reported when the reader moves there
            self._failed.add(combo)

    def _start(self):
        return tuple(spec.start for spec in self.specs.values())

    def _indices(self):
        return tuple(control.index for control in self.sliders.values())

    def values(self, indices):
        """The keyword arguments of ``draw`` for one combination of grid indices."""
        return {name: spec.values[i] for (name, spec), i in zip(self.specs.items(), indices)}

    def alt_text(self, indices):
        """The caption (and alt text) of one combination of grid indices, with Czech
        no-break spaces after one-letter words (it is an output: the book's typography
        transform does not reach it)."""
        if indices in self._alts:
            return self._alts[indices]
        values = self.values(indices)
        return keep_one_letter_words(
            str(self._alt(**values) if callable(self._alt) else self._alt))

    def frame(self, indices):
        """``(png_bytes, alt_text)`` of the live figure at one combination of grid indices.

        Drawn when first asked for (sharp: ``figures.DENSITY`` pixels per CSS pixel, the
        figure's own layout) and kept.
        """
        with figures.DRAWING:
            if indices not in self._cache:
                (rgba,) = self._render(indices, [("live", figures.DENSITY)])
                self._frame_size = figures.css_size(rgba)
                self._cache[indices] = (figures.png(rgba, compact=False),
                                        self.alt_text(indices))
            return self._cache[indices]

    def _painter(self, layout, density):
        key = (layout, density)
        if key not in self._painters:
            lay_out = {"live": None,
                       "wide": figures.layout_for(figures.PANEL_WIDTH),
                       "narrow": figures.layout_for(figures.NARROW_PANEL_WIDTH, stacked=True,
                                                    max_height=self._phone_frame_height()),
                       }[layout]
            self._painters[key] = figures.Painter(
                lay_out, dpi=figures.CSS_PX_PER_INCH * density)
        return self._painters[key]

    def _phone_frame_height(self):
        """The tallest the phone frame may be (CSS px): at most NARROW_FRAME_HEIGHT, and
        less where the sliders and the longest caption take more of the screen, so that
        the panel stays within PHONE_PANEL_HEIGHT (estimated: the browser tests measure)."""
        longest = max(len(self.alt_text(combo)) for combo in self._combos())
        lines = math.ceil(longest / PHONE_CAPTION_CHARS)
        room = (PHONE_PANEL_HEIGHT - PHONE_PANEL_EXTRA - PHONE_SLIDER_HEIGHT * len(self.specs)
                - PHONE_CAPTION_LINE * lines)
        return max(PHONE_FRAME_LEAST, min(figures.NARROW_FRAME_HEIGHT, room))

    def _render(self, indices, renderings, texts=None, vector=None):
        """Call ``draw`` once for ``indices``; return the pixels of each (layout, density).

        ``texts``, a dict, collects the drawn figure's texts smaller than
        ``figures.MIN_TEXT_PX``; ``vector``, a dict, gets the figure as SVG in the desktop
        panel's layout (``"svg"``) and its number of raster images (``"rasters"``).
        """
        values = self.values(indices)
        # A figure is thousands of small objects in reference cycles: with the cyclic
        # garbage collector running, a third of a frame's time (and the slowest frames)
        # went to full collections. Collect the young generations once per frame instead.
        with figures.DRAWING:
            gc.disable()
            try:
                fig = self._draw(**values)
                self.drawn += 1
                if not isinstance(fig, Figure):
                    raise ValueError(f"explore: draw({_call_text(values)}) returned "
                                     f"{type(fig).__name__}, not a matplotlib Figure")
                rendered = [self._painter(layout, density).rgba(fig)
                            for layout, density in renderings]
                if texts is not None:
                    texts.update(figures.small_texts(fig))
                if vector is not None:
                    vector["svg"] = figures.svg(fig, figures.layout_for(figures.PANEL_WIDTH))
                    vector["rasters"] = figures.raster_images(fig)
                return rendered
            finally:
                gc.enable()
                gc.collect(1)

    def _on_change(self, _change):
        """The kernel saw a move (the browser has already switched to the nearest drawn
        frame): draw the frame if needed, then its neighbours in the background."""
        combo = self._indices()
        self._show(combo)
        if not BROWSER_SWITCHING:
            self._single_image.value = self.frame(combo)[0]
            self._single_caption.value = self._caption_html(combo)
        _prefetcher.want(self, self._neighbours(combo))

    def _repr_mimebundle_(self, include=None, exclude=None):
        if html_book():
            return {"text/plain": f"<explore: {len(self._combos())} frames>",
                    EXPLORE_MIME: self.page_data()}
        bundle = _widget_bundle(self.widget, include, exclude)
        bundle["image/png"] = self.frame(self._start())[0]  # for viewers without widgets
        return bundle

    def _combos(self):
        return list(itertools.product(*(range(len(s.values)) for s in self.specs.values())))

    def page_data(self):
        """Every frame of the kernel-free version, for :data:`EXPLORE_MIME`.

        Each combination of the sliders' values is drawn once and rendered twice, at 2
        pixels per CSS pixel: for the desktop's and for the phone's panel (its panels
        stacked, at most ``figures.NARROW_FRAME_HEIGHT`` tall). Identical frames are kept
        once; each frame has its dark-mode palette (:func:`figures.dark_palette`). Texts of
        the start frame smaller than ``figures.MIN_TEXT_PX`` are reported as a warning (the
        strict build fails on it). The start frame is also drawn as SVG (``"svg"``): it is
        the slider's figure in the book's figure pack, as it is on paper.
        """
        combos = self._combos()
        layouts = {"wide": {}, "narrow": {}}  # png -> (index, CSS size), per layout
        index = {"wide": [], "narrow": []}
        small = {}
        vector = {}
        for combo in combos:
            start = combo == self._start()
            rendered = self._render(combo, [("wide", figures.DENSITY),
                                            ("narrow", figures.DENSITY)],
                                    texts=small if start else None,
                                    vector=vector if start else None)
            for (layout, frames), rgba in zip(layouts.items(), rendered):
                rgba = figures.even(rgba)
                png = figures.png(rgba)
                if png not in frames:
                    frames[png] = (len(frames), figures.css_size(rgba))
                index[layout].append(frames[png][0])
        if small:
            warnings.warn(f"explore: figure text smaller than {figures.MIN_TEXT_PX} CSS px: "
                          + "; ".join(f"„{text}“ {cz(px, 1)} px" for text, px in small.items()),
                          stacklevel=2)

        def frames_of(layout):
            return [{"png": _b64(png), "dark": _b64(figures.dark_palette(png)),
                     "width": size[0], "height": size[1]}
                    for png, (_n, size) in layouts[layout].items()]

        return {
            "sizes": [len(spec.values) for spec in self.specs.values()],
            "labels": [list(spec.readouts) for spec in self.specs.values()],
            "sliders": [{"label": spec.label, "start": spec.start}
                        for spec in self.specs.values()],
            "alts": [self.alt_text(combo) for combo in combos],
            "start": combos.index(self._start()),
            "media": figures.NARROW_MEDIA, "density": figures.DENSITY,
            "frames": {layout: frames_of(layout) for layout in layouts},
            "index": index,
            **vector,
        }


def _widget_bundle(widget, include=None, exclude=None):
    """The display data of a widget: ipywidgets 8's ``_repr_mimebundle_``, or for
    ipywidgets 7 (which displays widgets by ``_ipython_display_``) the same two entries."""
    if hasattr(widget, "_repr_mimebundle_"):
        return widget._repr_mimebundle_(include=include, exclude=exclude)
    view = {"version_major": 2, "version_minor": 0, "model_id": widget.model_id}
    return {"text/plain": repr(widget), "application/vnd.jupyter.widget-view+json": view}


def _b64(data):
    return base64.b64encode(data).decode("ascii")


def explore_html(data, urls):
    """The HTML of an explore in the book: range inputs, the start frame as a ``<picture>``
    for each colour mode (desktop frame; phone frame for windows narrower than
    ``figures.NARROW_MEDIA``), its caption, and the data :data:`SCRIPT` switches frames
    with. ``data`` is :meth:`Explorer.page_data`; ``urls[layout][theme]`` the addresses of
    its frames (``layout`` "wide" or "narrow", ``theme`` "light" or "dark").

    The browser fetches only the frame it shows (a hidden ``<picture>`` and the
    ``<source>`` not chosen load nothing; ``loading="lazy"`` waits until the panel is
    near), and, once the reader reaches for a slider, the frames one step away.
    """
    start = data["start"]
    layouts = {}
    for layout, frames in data["frames"].items():
        layouts[layout] = {theme: urls[layout][theme] for theme in ("light", "dark")}
        layouts[layout]["width"] = [frame["width"] for frame in frames]
        layouts[layout]["height"] = [frame["height"] for frame in frames]
        layouts[layout]["index"] = data["index"][layout]
    page = {"sizes": data["sizes"], "labels": data["labels"], "alts": data["alts"],
            "media": data["media"], "density": data["density"], **layouts}
    inputs = "".join(_range_input(slider, labels)
                     for slider, labels in zip(data["sliders"], data["labels"]))
    alt = html.escape(data["alts"][start])
    pictures = []
    for theme in ("light", "dark"):
        wide, narrow = (layouts[name] for name in ("wide", "narrow"))
        w, n = wide["index"][start], narrow["index"][start]
        pictures.append(
            f'<picture class="ac-picture ac-{theme}">'
            f'<source media="{data["media"]}" srcset="{html.escape(narrow[theme][n])} '
            f'{data["density"]}x" width="{narrow["width"][n]}" height="{narrow["height"][n]}">'
            f'<img class="ac-frame" src="{html.escape(wide[theme][w])}" alt="{alt}" '
            f'width="{wide["width"][w]}" height="{wide["height"][w]}" loading="lazy" '
            'decoding="async"></picture>')
    payload = json.dumps(page, ensure_ascii=False).replace("</", "<\\/")
    return (
        '<div class="ac-explore">'
        f'<div class="ac-sliders">{inputs}</div>'
        + "".join(pictures) +
        f'<p class="ac-caption" aria-live="polite">{alt}</p>'
        f'<script type="application/json" class="ac-data">{payload}</script>'
        "</div>"
    )


def _range_input(slider, readouts):
    """One slider: a native range input over the grid's indices (arrow keys, Home/End,
    PageUp/PageDown move it; dragging by touch or mouse), named by ``aria-label``, its
    value spoken via ``aria-valuetext`` and shown in the readout next to it. The readout
    is as wide as its longest value (an invisible list of all values sizes it), so the
    track does not move while the value changes."""
    label = html.escape(slider["label"])
    readout = html.escape(readouts[slider["start"]])
    sizer = "".join(f"<span>{html.escape(text)}</span>" for text in dict.fromkeys(readouts))
    return (
        '<label class="ac-slider">'
        f'<span class="ac-label">{label}</span>'
        f'<input type="range" class="ac-range" min="0" max="{len(readouts) - 1}" step="1" '
        f'value="{slider["start"]}" aria-label="{label}" aria-valuetext="{readout}">'
        '<span class="ac-readout-box">'
        f'<output class="ac-readout" aria-hidden="true">{readout}</output>'
        f'<span class="ac-readout-sizer" aria-hidden="true">{sizer}</span>'
        "</span></label>"
    )


#: The script of the kernel-free sliders (``_static/attention-explore.js``, loaded once per
#: page): a move shows the frame of the sliders' values for the layout and colour mode
#: shown, and the frames one step away on each slider are fetched ahead, from the reader's
#: first touch, pointer or focus on the panel on (a page nobody moves loads one frame).
SCRIPT = """/* attention_display.interactive: sliders without a kernel (explore). */
(function () {
  "use strict";
  function setUp(root) {
    var data = JSON.parse(root.querySelector("script.ac-data").textContent);
    var inputs = root.querySelectorAll("input.ac-range");
    var outputs = root.querySelectorAll("output.ac-readout");
    var caption = root.querySelector(".ac-caption");
    var phone = window.matchMedia(data.media);
    var ahead = {};  // frames fetched ahead, kept so that the browser keeps them
    var awake = false;
    function theme() {
      return document.documentElement.dataset.theme === "dark" ? "dark" : "light";
    }
    function position() {
      return Array.prototype.map.call(inputs, function (input) { return Number(input.value); });
    }
    function combo(indices) {
      return indices.reduce(function (k, i, j) { return k * data.sizes[j] + i; }, 0);
    }
    function frame(layout, k, mode) {
      var frames = data[layout], n = frames.index[k];
      return {url: frames[mode][n], width: frames.width[n], height: frames.height[n]};
    }
    function fetchAhead(indices) {
      var layout = phone.matches ? "narrow" : "wide", mode = theme();
      indices.forEach(function (i, j) {
        [i - 1, i + 1].forEach(function (near) {
          if (near < 0 || near >= data.sizes[j]) return;
          var other = indices.slice();
          other[j] = near;
          var url = frame(layout, combo(other), mode).url;
          if (!ahead[url]) {
            ahead[url] = new Image();
            ahead[url].src = url;
          }
        });
      });
    }
    function show() {
      var indices = position(), k = combo(indices), mode = theme();
      indices.forEach(function (i, j) {
        outputs[j].textContent = data.labels[j][i];
        inputs[j].setAttribute("aria-valuetext", data.labels[j][i]);
      });
      var picture = root.querySelector(".ac-picture.ac-" + mode);
      var source = picture.querySelector("source"), img = picture.querySelector("img");
      var narrow = frame("narrow", k, mode), wide = frame("wide", k, mode);
      source.srcset = narrow.url + " " + data.density + "x";
      source.width = narrow.width;
      source.height = narrow.height;
      img.width = wide.width;
      img.height = wide.height;
      img.src = wide.url;
      img.alt = data.alts[k];
      caption.textContent = data.alts[k];
      if (awake) fetchAhead(indices);
    }
    function wake() {
      if (awake) return;
      awake = true;
      fetchAhead(position());
    }
    inputs.forEach(function (input) { input.addEventListener("input", show); });
    ["pointerenter", "focusin", "touchstart"].forEach(function (type) {
      root.addEventListener(type, wake, {passive: true});
    });
    new MutationObserver(show).observe(document.documentElement,
      {attributes: true, attributeFilter: ["data-theme"]});
  }
  function start() { document.querySelectorAll(".ac-explore").forEach(setUp); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
"""


#: The CSS of the kernel-free sliders and of the figures' pictures (the book's extension
#: ships it with the pages, ``book/_ext/figure_pictures.py``).
CSS = """
/* attention_display: sliders without a kernel (explore) and figures as <picture> */
/* the panel: its border and padding are figures.PANEL_INSET px a side, which its frames
   are drawn for (so they are shown at their natural size) */
.ac-explore {
  margin: 0.25rem 0 1rem; border: 1px solid var(--pst-color-border); border-radius: 0.25rem;
  padding: 0.5rem PANEL_PADDING; color: var(--pst-color-text-base);
  background-color: transparent;
}
.ac-sliders {
  display: grid; align-items: center; gap: 0.25rem 0.75rem; margin-bottom: 0.5rem;
  grid-template-columns: max-content minmax(8rem, 24rem) max-content;
}
.ac-slider { display: contents; }
.ac-range { width: 100%; min-height: 2.25rem; margin: 0; cursor: pointer; }
.ac-range:focus-visible {
  outline: 2px solid var(--pst-color-accent, #0072B2); outline-offset: 2px;
}
.ac-readout-box { display: grid; justify-items: end; }
.ac-readout, .ac-readout-sizer {
  grid-area: 1 / 1; font-variant-numeric: tabular-nums; white-space: nowrap;
}
.ac-readout-sizer { visibility: hidden; height: 0; overflow: hidden; }
.ac-readout-sizer > span { display: block; }
.ac-picture img, img.ac-figure { display: block; max-width: 100%; height: auto; }
/* a static figure has a light and a dark <picture>; the colour mode shows one */
html[data-theme="dark"] .ac-picture.ac-light { display: none; }
html:not([data-theme="dark"]) .ac-picture.ac-dark { display: none; }
.ac-caption { margin: 0.4rem 0 0; font-size: 0.9em; }
/* a phone: the label above its track, the readout beside it */
@media (max-width: 639.98px) {
  .ac-sliders { grid-template-columns: minmax(0, 1fr) max-content; gap: 0 0.75rem; }
  .ac-label { grid-column: 1 / -1; margin-top: 0.35rem; }
}
/* dark mode: the slider panel and the pictures sit on the page's background (the dark
   pictures are drawn for it), instead of the theme's light boxes for outputs and images */
html[data-theme="dark"] .bd-content div.cell_output .text_html:has(.ac-explore),
html[data-theme="dark"] .bd-content div.cell_output .text_html:has(table.ac-table) {
  background-color: transparent !important; color: inherit !important; padding: 0 !important;
}
html[data-theme="dark"] .bd-content div.cell_output img.ac-frame,
html[data-theme="dark"] .bd-content div.cell_output img.ac-figure {
  background-color: transparent !important; padding: 0 !important; filter: none !important;
}
html[data-theme="dark"] .ac-range { accent-color: #4CC9F0; }
@media print { .ac-sliders { display: none; } }
""".replace("PANEL_PADDING", f"{figures.PANEL_INSET - 1}px")


def _call_text(values):
    return ", ".join(f"{name}={value!r}" for name, value in values.items())


def figure_png(fig, dpi=figures.CSS_PX_PER_INCH * figures.DENSITY):
    """Render ``fig`` as it is to a compact palette PNG (2 pixels per CSS pixel)."""
    return figures.png(figures.draw_rgba(fig, dpi), shades=figures.keeps_shades(fig))


#: The MIME type of a static figure's renderings for the HTML book (``book/_ext``).
PICTURE_MIME = "application/vnd.attention-core.picture+json"


def _figure_picture(fig):
    """A figure as the HTML book shows it: the desktop and the phone layout, light and dark.

    Returns the JSON of :data:`PICTURE_MIME` (with the desktop layout as SVG for the
    figure pack, ``book/_ext/figure_pack.py``) and the desktop light PNG with its CSS size.
    Texts smaller than ``figures.MIN_TEXT_PX`` are reported as a warning (the strict build
    fails on it).
    """
    renderings = []
    for layout in ("wide", "narrow"):
        width = figures.COLUMN_WIDTH if layout == "wide" else figures.NARROW_WIDTH
        painter = figures.Painter(figures.layout_for(width, stacked=layout == "narrow"),
                                  reuse_axes=False)
        rgba = figures.even(painter.rgba(fig))
        light = figures.png(rgba, shades=figures.keeps_shades(fig))
        w, h = figures.css_size(rgba)
        for theme, png in (("light", light), ("dark", figures.dark_png(light))):
            renderings.append({"layout": layout, "theme": theme, "width": w, "height": h,
                               "png": _b64(png)})
    small = figures.small_texts(fig)  # drawn now: its ticks exist
    if small:
        warnings.warn(f"figure text smaller than {figures.MIN_TEXT_PX} CSS px: "
                      + "; ".join(f"„{text}“ {cz(px, 1)} px" for text, px in small),
                      stacklevel=3)
    picture = {"media": figures.NARROW_MEDIA, "density": figures.DENSITY,
               "renderings": renderings,
               # the figure pack's vector version, laid out as the desktop picture
               "svg": figures.svg(fig, figures.layout_for(figures.COLUMN_WIDTH)),
               "rasters": figures.raster_images(fig)}
    return picture, base64.b64decode(renderings[0]["png"]), renderings[0]


def _figure_bundle(fig, include=None, exclude=None):
    """IPython's display of a bare ``Figure``: a sharp PNG shown at its natural size; in the
    HTML book's build also every rendering of :func:`_figure_picture`."""
    if html_book():
        picture, png, wide = _figure_picture(fig)
        size = {"width": wide["width"], "height": wide["height"]}
        return {"image/png": png, PICTURE_MIME: picture}, {"image/png": size}
    rgba = figures.draw_rgba(fig)
    width, height = figures.css_size(rgba)
    png = figures.png(rgba, shades=figures.keeps_shades(fig))
    return {"image/png": png}, {"image/png": {"width": width, "height": height}}


def show_figures_as_png():
    """Make IPython display a bare ``Figure`` (made without pyplot) as a sharp, compact PNG.

    Called when the package is imported inside IPython, so a chapter's cell can end with
    ``fig`` and get an image (with the alt text from the cell's ``mystnb`` metadata), shown
    at its natural size (``width``/``height`` in the output's metadata).
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.display_formatter.mimebundle_formatter.for_type(Figure, _figure_bundle)


class _Prefetcher:
    """One background thread per kernel that draws the frames a reader is likely to want
    next (the neighbours of where each explore's sliders are), one at a time.

    Drawing takes ``figures.DRAWING``, so a frame the kernel's thread needs waits for at
    most the one frame being drawn. Widget messages from this thread are safe: ipykernel
    sends them through its IOPub thread, with the parent of the cell that ran last.
    """

    def __init__(self):
        self._wanted = {}  # id(explorer) -> (explorer, [grid indices, most wanted first])
        self._changed = threading.Condition()
        self._busy = False
        self._thread = None

    def want(self, explorer, combos):
        """Draw ``combos`` of ``explorer`` in the background; replaces its earlier wishes."""
        with self._changed:
            self._wanted[id(explorer)] = (explorer, list(combos))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="attention_core-frames",
                                                daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def wait(self, timeout=60):
        """Wait until every wished frame is drawn; False if ``timeout`` seconds ran out."""
        with self._changed:
            return self._changed.wait_for(
                lambda: not self._busy and not any(c for _e, c in self._wanted.values()),
                timeout)

    def _next(self):
        for key, (explorer, combos) in list(self._wanted.items()):
            if combos:
                return explorer, combos.pop(0)
            del self._wanted[key]
        return None

    def _run(self):
        while True:
            with self._changed:
                self._busy = False
                self._changed.notify_all()
                job = self._next()
                while job is None:
                    self._changed.wait()
                    job = self._next()
                self._busy = True
            explorer, combo = job
            try:
                explorer._prefetch(combo)
            except Exception:  # noqa: BLE001 - the thread must go on
                traceback.print_exc(file=sys.stderr)


_prefetcher = _Prefetcher()


def wait_for_frames(timeout=60):
    """Wait until the background thread has drawn every frame it was asked for (tests,
    benchmarks). Returns False if ``timeout`` seconds ran out first."""
    return _prefetcher.wait(timeout)


def explorers():
    """Every :class:`Explorer` made in this Python process, oldest first (for the tests)."""
    return list(_explorers)
