"""Sliders for the book: live in Jupyter, and working without a kernel in the HTML book.

Every slider of every chapter goes through :func:`explore`, so how sliders render is
decided here, once. A slider runs over a finite grid of values, so every figure a reader
can reach is known in advance:

* in JupyterLab the cell shows live ipywidgets sliders; moving one redraws the figure;
* in the HTML book (built with no kernel behind it) the same cell shows plain HTML range
  inputs and the figures for every combination of values, rendered at build time by the
  same ``draw`` function, so the reader sees exactly what the live notebook shows.

The display object hands Jupyter a MIME bundle with both views; ``_config.yml`` tells the
HTML builder to prefer ``text/html``, and JupyterLab prefers the widget.
"""

import base64
import gc
import html
import io
import itertools
import json
import math
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from .style import cz

#: The most figures one ``explore`` call may pre-render (all combinations of its sliders).
MAX_FRAMES = 120

#: Frames are PNGs reduced to this many colours: a fraction of the size, no visible loss.
FRAME_COLORS = 128

#: Resolution of the frames in dots per inch (with the style's 6.4 x 3.6 in: 640 x 360 px).
FRAME_DPI = 100

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
    return Explorer(draw, alt, specs)


class Explorer:
    """The display object of :func:`explore`: live widgets plus a kernel-free HTML version."""

    def __init__(self, draw, alt, specs):
        self._draw = draw
        self._alt = alt
        self.specs = specs
        self._cache = {}
        self._positions = None
        self.sliders = {
            name: widgets.SelectionSlider(
                options=list(zip(spec.readouts, spec.values)),
                value=spec.values[spec.start],
                description=spec.label,
                continuous_update=True,
                style={"description_width": "initial"},
                layout=widgets.Layout(width="min(100%, 32rem)"),
            )
            for name, spec in specs.items()
        }
        png, text = self.frame(self._start())
        self.image = widgets.Image(value=png, format="png")
        self.caption = widgets.HTML(value=html.escape(text))
        for control in self.sliders.values():
            control.observe(self._on_change, names="value")
        self.widget = widgets.VBox([*self.sliders.values(), self.image, self.caption])
        _explorers.append(self)

    def _start(self):
        return tuple(spec.start for spec in self.specs.values())

    def _indices(self):
        return tuple(spec.values.index(self.sliders[name].value)
                     for name, spec in self.specs.items())

    def values(self, indices):
        """The keyword arguments of ``draw`` for one combination of grid indices."""
        return {name: spec.values[i] for (name, spec), i in zip(self.specs.items(), indices)}

    def frame(self, indices):
        """``(png_bytes, alt_text)`` of the figure at one combination of grid indices."""
        if indices not in self._cache:
            values = self.values(indices)
            # A figure is thousands of small objects in reference cycles: with the cyclic
            # garbage collector running, a third of a frame's time (and the slowest frames)
            # went to full collections. Collect the young generations once per frame instead.
            gc.disable()
            try:
                png = self._render(values)
            finally:
                gc.enable()
            gc.collect(1)
            alt = self._alt(**values) if callable(self._alt) else self._alt
            self._cache[indices] = (png, str(alt))
        return self._cache[indices]

    def _render(self, values):
        fig = self._draw(**values)
        if not isinstance(fig, Figure):
            raise ValueError(f"explore: draw({_call_text(values)}) returned "
                             f"{type(fig).__name__}, not a matplotlib Figure")
        self._reuse_layout(fig)
        png = figure_png(fig)
        if self._positions is None:
            self._positions = [ax.get_position(original=True) for ax in fig.axes]
        return png

    def _reuse_layout(self, fig):
        """Place the axes where the first frame's layout put them.

        The frames of one slider differ only in their data, so the (costly) constrained
        layout runs once, for the first frame; later frames with the same number of axes
        reuse its positions, which also keeps the axes from jumping as the slider moves.
        """
        if self._positions is not None and len(fig.axes) == len(self._positions):
            fig.set_layout_engine("none")
            for ax, position in zip(fig.axes, self._positions):
                ax.set_position(position)

    def _on_change(self, _change):
        png, text = self.frame(self._indices())
        self.image.value = png
        self.caption.value = html.escape(text)

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude)
        bundle["text/html"] = self.static_html()
        return bundle

    def static_html(self):
        """The kernel-free version: range inputs, every frame, and a few lines of script."""
        sizes = [len(spec.values) for spec in self.specs.values()]
        combos = list(itertools.product(*(range(n) for n in sizes)))
        pngs, index, alts = [], [], []
        for combo in combos:
            png, text = self.frame(combo)
            if png not in pngs:
                pngs.append(png)
            index.append(pngs.index(png))
            alts.append(text)
        data = {
            "sizes": sizes,
            "labels": [list(spec.readouts) for spec in self.specs.values()],
            "frames": [base64.b64encode(png).decode("ascii") for png in pngs],
            "index": index,
            "alts": alts,
        }
        start = combos.index(self._start())
        inputs = "".join(_range_input(spec) for spec in self.specs.values())
        payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
        return (
            '<div class="ac-explore">'
            f'<div class="ac-sliders" style="{_GRID}">{inputs}</div>'
            f'<img class="ac-frame" src="data:image/png;base64,{data["frames"][index[start]]}" '
            f'alt="{html.escape(alts[start])}" style="max-width:100%;height:auto">'
            f'<p class="ac-caption" aria-live="polite">{html.escape(alts[start])}</p>'
            f'<script type="application/json" class="ac-data">{payload}</script>'
            f"<script>{_SCRIPT}</script>"
            "</div>"
        )


#: The sliders of one explorer line up in a grid: label | range input | readout.
_GRID = ("display:grid;grid-template-columns:max-content minmax(8rem,24rem) max-content;"
         "gap:0.35em 0.75em;align-items:center;margin-bottom:0.5em")


def _range_input(spec):
    """One slider: a native range input over the grid's indices (arrow keys, Home/End,
    PageUp/PageDown move it), named by ``aria-label``, its value spoken via
    ``aria-valuetext`` and shown in the readout next to it."""
    label = html.escape(spec.label)
    readout = html.escape(spec.readouts[spec.start])
    return (
        '<label class="ac-slider" style="display:contents">'
        f'<span class="ac-label">{label}</span>'
        f'<input type="range" min="0" max="{len(spec.values) - 1}" step="1" '
        f'value="{spec.start}" aria-label="{label}" aria-valuetext="{readout}" '
        'style="width:100%;margin:0">'
        f'<output class="ac-readout" aria-hidden="true" '
        f'style="font-variant-numeric:tabular-nums">{readout}</output></label>'
    )


_SCRIPT = """(function (root) {
  var data = JSON.parse(root.querySelector('script.ac-data').textContent);
  var inputs = root.querySelectorAll('input[type=range]');
  var outputs = root.querySelectorAll('output.ac-readout');
  var img = root.querySelector('img.ac-frame');
  var caption = root.querySelector('.ac-caption');
  function show() {
    var k = 0;
    inputs.forEach(function (input, j) {
      var i = Number(input.value);
      k = k * data.sizes[j] + i;
      outputs[j].textContent = data.labels[j][i];
      input.setAttribute('aria-valuetext', data.labels[j][i]);
    });
    img.src = 'data:image/png;base64,' + data.frames[data.index[k]];
    img.alt = data.alts[k];
    caption.textContent = data.alts[k];
  }
  inputs.forEach(function (input) { input.addEventListener('input', show); });
})(document.currentScript.parentElement);"""


def _call_text(values):
    return ", ".join(f"{name}={value!r}" for name, value in values.items())


def figure_png(fig, dpi=FRAME_DPI):
    """Render ``fig`` to a compact PNG (reduced to ``FRAME_COLORS`` colours); return its bytes."""
    fig.set_dpi(dpi)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    rgb = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba()).convert("RGB")
    buffer = io.BytesIO()
    rgb.quantize(FRAME_COLORS, method=Image.Quantize.FASTOCTREE).save(buffer, "png")
    return buffer.getvalue()


def show_figures_as_png():
    """Make IPython display a bare ``Figure`` (made without pyplot) as a compact PNG.

    Called when the package is imported inside IPython, so a chapter's cell can end with
    ``fig`` and get an image (with the alt text from the cell's ``mystnb`` metadata).
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.display_formatter.formatters["image/png"].for_type(Figure, figure_png)


def explorers():
    """Every :class:`Explorer` made in this Python process, oldest first (for the tests)."""
    return list(_explorers)
