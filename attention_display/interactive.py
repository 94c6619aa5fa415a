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
  shows, without a kernel.

ipywidgets 7 (7.7.1 is what Colab ships) has no ``Stack``: there the cell shows one
``Image`` and one caption, and the kernel puts a frame into them when it sees a move
(:data:`BROWSER_SWITCHING` is False). The frames are drawn, prefetched and kept as above;
only a move made while the kernel is busy waits for it.

How the code knows which one: the HTML book's build sets the environment variable
:data:`HTML_BOOK` (``book/_ext/figure_pictures.py``), which the kernels that myst-nb starts
inherit. Only then does an explore render all its frames and offer the kernel-free
``text/html`` view; otherwise its display is the live widget (plus the start frame as a plain
PNG for viewers without widgets). ``_config.yml`` tells the HTML builder to prefer
``text/html``; JupyterLab prefers the widget.
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

#: Bytes (base64) that the frames of one explore may take in a page. Frames are drawn as
#: sharp as this allows (2, 1,5 or 1 pixel per CSS pixel): a chapter page stays < 3 MB.
FRAME_BUDGET = 1_100_000

#: Densities tried for the HTML book's frames, sharpest first.
FRAME_DENSITIES = (2, 1.5, 1)


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
                       "wide": figures.layout_for(figures.COLUMN_WIDTH),
                       "narrow": figures.layout_for(figures.NARROW_WIDTH, stacked=True)}[layout]
            self._painters[key] = figures.Painter(
                lay_out, dpi=figures.CSS_PX_PER_INCH * density)
        return self._painters[key]

    def _render(self, indices, renderings):
        """Call ``draw`` once for ``indices``; return the pixels of each (layout, density)."""
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
                return [self._painter(layout, density).rgba(fig)
                        for layout, density in renderings]
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
                    "text/html": self.static_html()}
        bundle = _widget_bundle(self.widget, include, exclude)
        bundle["image/png"] = self.frame(self._start())[0]  # for viewers without widgets
        return bundle

    def _combos(self):
        return list(itertools.product(*(range(len(s.values)) for s in self.specs.values())))

    def _html_density(self, frames):
        """The sharpest density whose frames (desktop and phone layout) fit FRAME_BUDGET,
        estimated from the start frame at 2 (PNG bytes grow as density^1,4)."""
        wide, narrow = self._render(self._start(), [("wide", 2), ("narrow", 2)])
        at_two = frames * (len(figures.png(wide)) + len(figures.png(narrow))) * 4 / 3
        for density in FRAME_DENSITIES:
            if at_two * (density / 2) ** 1.4 <= FRAME_BUDGET:
                return density
        return FRAME_DENSITIES[-1]

    def static_html(self):
        """The kernel-free version: range inputs, every frame in two layouts, a little script.

        Each combination of the sliders' values has a desktop frame and a phone frame (panels
        stacked); a ``<picture>`` lets the browser pick. Dark mode reuses the same PNGs with
        a dark palette (:func:`figures.dark_palette`), swapped in by the script.
        """
        combos = self._combos()
        density = self._html_density(len(combos))
        layouts = {"wide": ([], [], []), "narrow": ([], [], [])}  # pngs, index, dark palettes
        sizes = {}
        alts = []
        for combo in combos:
            rendered = self._render(combo, [("wide", density), ("narrow", density)])
            for (layout, (pngs, index, darks)), rgba in zip(layouts.items(), rendered):
                sizes[layout] = figures.css_size(rgba, density)
                png = figures.png(rgba)
                if png not in pngs:
                    pngs.append(png)
                    darks.append(figures.dark_palette(png))
                index.append(pngs.index(png))
            alts.append(self.alt_text(combo))

        def b64(items):
            return [base64.b64encode(item).decode("ascii") for item in items]

        (wide, wide_index, wide_dark), (narrow, narrow_index, narrow_dark) = layouts.values()
        data = {
            "sizes": [len(spec.values) for spec in self.specs.values()],
            "labels": [list(spec.readouts) for spec in self.specs.values()],
            "frames": b64(wide), "index": wide_index, "dark": b64(wide_dark),
            "narrow": b64(narrow), "narrowIndex": narrow_index, "narrowDark": b64(narrow_dark),
            "alts": alts, "density": density,
        }
        start = combos.index(self._start())
        inputs = "".join(_range_input(spec) for spec in self.specs.values())
        payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
        (wide_w, wide_h), (narrow_w, narrow_h) = sizes["wide"], sizes["narrow"]
        alt = html.escape(alts[start])
        return (
            '<div class="ac-explore">'
            f'<div class="ac-sliders">{inputs}</div>'
            '<picture class="ac-picture">'
            f'<source class="ac-narrow" media="{figures.NARROW_MEDIA}" '
            f'srcset="data:image/png;base64,{data["narrow"][narrow_index[start]]} {density}x" '
            f'width="{narrow_w}" height="{narrow_h}">'
            f'<img class="ac-frame" src="data:image/png;base64,{data["frames"][wide_index[start]]}"'
            f' alt="{alt}" width="{wide_w}" height="{wide_h}">'
            "</picture>"
            f'<p class="ac-caption" aria-live="polite">{alt}</p>'
            f'<script type="application/json" class="ac-data">{payload}</script>'
            f"<script>{_SCRIPT}</script>"
            "</div>"
        )


def _widget_bundle(widget, include=None, exclude=None):
    """The display data of a widget: ipywidgets 8's ``_repr_mimebundle_``, or for
    ipywidgets 7 (which displays widgets by ``_ipython_display_``) the same two entries."""
    if hasattr(widget, "_repr_mimebundle_"):
        return widget._repr_mimebundle_(include=include, exclude=exclude)
    view = {"version_major": 2, "version_minor": 0, "model_id": widget.model_id}
    return {"text/plain": repr(widget), "application/vnd.jupyter.widget-view+json": view}


def _range_input(spec):
    """One slider: a native range input over the grid's indices (arrow keys, Home/End,
    PageUp/PageDown move it; dragging by touch or mouse), named by ``aria-label``, its
    value spoken via ``aria-valuetext`` and shown in the readout next to it. The readout
    is as wide as its longest value (an invisible list of all values sizes it), so the
    track does not move while the value changes."""
    label = html.escape(spec.label)
    readout = html.escape(spec.readouts[spec.start])
    sizer = "".join(f"<span>{html.escape(text)}</span>" for text in dict.fromkeys(spec.readouts))
    return (
        '<label class="ac-slider">'
        f'<span class="ac-label">{label}</span>'
        f'<input type="range" class="ac-range" min="0" max="{len(spec.values) - 1}" step="1" '
        f'value="{spec.start}" aria-label="{label}" aria-valuetext="{readout}">'
        '<span class="ac-readout-box">'
        f'<output class="ac-readout" aria-hidden="true">{readout}</output>'
        f'<span class="ac-readout-sizer" aria-hidden="true">{sizer}</span>'
        "</span></label>"
    )


_SCRIPT = """(function (root) {
  var data = JSON.parse(root.querySelector('script.ac-data').textContent);
  var inputs = root.querySelectorAll('input[type=range]');
  var outputs = root.querySelectorAll('output.ac-readout');
  var img = root.querySelector('img.ac-frame');
  var source = root.querySelector('source.ac-narrow');
  var caption = root.querySelector('.ac-caption');
  var table = [];
  for (var n = 0; n < 256; n++) {
    var c = n;
    for (var b = 0; b < 8; b++) c = c & 1 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  function bytes(text) {
    var s = atob(text), a = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) a[i] = s.charCodeAt(i);
    return a;
  }
  function text(a) {
    var s = '';
    for (var i = 0; i < a.length; i += 0x8000) {
      s += String.fromCharCode.apply(null, a.subarray(i, i + 0x8000));
    }
    return btoa(s);
  }
  var dark = {};
  // the same PNG with its dark-mode palette (PLTE chunk, its CRC recomputed)
  function recolour(key, png, palette) {
    if (dark[key]) return dark[key];
    var a = bytes(png), p = 8;
    while (p < a.length) {
      var length = ((a[p] << 24) | (a[p + 1] << 16) | (a[p + 2] << 8) | a[p + 3]) >>> 0;
      if (String.fromCharCode(a[p + 4], a[p + 5], a[p + 6], a[p + 7]) === 'PLTE') {
        a.set(bytes(palette), p + 8);
        var crc = 0xFFFFFFFF;
        for (var i = p + 4; i < p + 8 + length; i++) crc = table[(crc ^ a[i]) & 255] ^ (crc >>> 8);
        crc = (crc ^ 0xFFFFFFFF) >>> 0;
        var q = p + 8 + length;
        a[q] = crc >>> 24; a[q + 1] = (crc >>> 16) & 255; a[q + 2] = (crc >>> 8) & 255;
        a[q + 3] = crc & 255;
        break;
      }
      p += 12 + length;
    }
    return (dark[key] = text(a));
  }
  function url(png) { return 'data:image/png;base64,' + png; }
  function show() {
    var k = 0;
    inputs.forEach(function (input, j) {
      var i = Number(input.value);
      k = k * data.sizes[j] + i;
      outputs[j].textContent = data.labels[j][i];
      input.setAttribute('aria-valuetext', data.labels[j][i]);
    });
    var w = data.index[k], n = data.narrowIndex[k];
    var isDark = document.documentElement.dataset.theme === 'dark';
    var wide = isDark ? recolour('w' + w, data.frames[w], data.dark[w]) : data.frames[w];
    var narrow = isDark ? recolour('n' + n, data.narrow[n], data.narrowDark[n]) : data.narrow[n];
    source.srcset = url(narrow) + ' ' + data.density + 'x';
    img.src = url(wide);
    img.alt = data.alts[k];
    caption.textContent = data.alts[k];
  }
  inputs.forEach(function (input) { input.addEventListener('input', show); });
  new MutationObserver(show).observe(document.documentElement,
    {attributes: true, attributeFilter: ['data-theme']});
  if (document.documentElement.dataset.theme === 'dark') show();
})(document.currentScript.parentElement);"""


#: The CSS of the kernel-free sliders and of the figures' pictures (the book's extension
#: ships it with the pages, ``book/_ext/figure_pictures.py``).
CSS = """
/* attention_core: sliders without a kernel (explore) and figures as <picture> */
.ac-explore { margin: 0.25rem 0 1rem; }
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
"""


def _call_text(values):
    return ", ".join(f"{name}={value!r}" for name, value in values.items())


def figure_png(fig, dpi=figures.CSS_PX_PER_INCH * figures.DENSITY):
    """Render ``fig`` as it is to a compact palette PNG (2 pixels per CSS pixel)."""
    return figures.png(figures.draw_rgba(fig, dpi), shades=figures.keeps_shades(fig))


#: The MIME type of a static figure's renderings for the HTML book (``book/_ext``).
PICTURE_MIME = "application/vnd.attention-core.picture+json"


def _figure_picture(fig):
    """A figure as the HTML book shows it: the desktop and the phone layout, light and dark.

    Returns the JSON of :data:`PICTURE_MIME` and the desktop light PNG with its CSS size.
    """
    renderings = []
    for layout in ("wide", "narrow"):
        width = figures.COLUMN_WIDTH if layout == "wide" else figures.NARROW_WIDTH
        painter = figures.Painter(figures.layout_for(width, stacked=layout == "narrow"),
                                  reuse_axes=False)
        rgba = painter.rgba(fig)
        light = figures.png(rgba, shades=figures.keeps_shades(fig))
        w, h = figures.css_size(rgba)
        for theme, png in (("light", light), ("dark", figures.dark_png(light))):
            renderings.append({"layout": layout, "theme": theme, "width": w, "height": h,
                               "png": base64.b64encode(png).decode("ascii")})
    picture = {"media": figures.NARROW_MEDIA, "density": figures.DENSITY,
               "renderings": renderings}
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
