"""How the book's figures become pictures: sharp, readable at any width, in light and dark mode.

One mechanism for every figure of the book, the chapters' static figures (a cell ending in
``fig``) and the frames of the sliders (:mod:`attention_display.interactive`) alike:

* **Size.** A figure inch is :data:`CSS_PX_PER_INCH` CSS pixels wherever a figure is shown, so
  10 pt text is 13,9 CSS px and no text is shrunk below ~9 px. The pictures are rendered with
  :data:`DENSITY` pixels per CSS pixel (sharp on high-density screens) and shown at their
  natural CSS size, never stretched.
* **Width.** The HTML book's column is :data:`COLUMN_WIDTH` CSS px on a desktop and
  :data:`NARROW_WIDTH` on a phone. A figure wider than the column is laid out again at the
  column's width (its text keeps its size, the panels get narrower) instead of being scaled
  down; for phones the same figure's panels are stacked in one column (:func:`relayout`).
  The browser picks the rendering (``<picture>``, :data:`NARROW_MEDIA`).
* **Dark mode.** The pictures are palette PNGs; the dark rendering is the same pixels with
  another palette (:func:`dark_palette`): white becomes the theme's dark background, black
  text its light text, the terms' text colours their dark-mode variants
  (``style.DARK_TEXT_COLORS``) and every other colour keeps its hue with its lightness
  turned over. Antialiased edges, which are mixtures of two colours, map to the mixtures of
  the mapped colours. It costs a few hundred bytes per picture instead of a second PNG.
* **Vector.** :func:`svg` writes the same figure, laid out as the desktop picture, as SVG
  drawn by matplotlib itself (lines and text as paths, no screenshot), for the book's
  figure pack (``book/_ext/figure_pack.py``).
* **Speed.** :class:`Painter` draws the figures of one slider: the (costly) constrained
  layout runs for the first figure only, and the axes' tick labels, ticks and grid, which
  matplotlib spends most of a draw on, are drawn once per distinct axis and then pasted as
  a ready image into later frames that show the same axis.
"""

import io
import re
import struct
import threading
import zlib

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.image import AxesImage
from PIL import Image

from . import style

#: CSS pixels per figure inch: a 6.4 in wide figure is shown 640 CSS px wide.
CSS_PX_PER_INCH = 100

#: Pixels per CSS pixel of every picture (2: sharp on high-density screens).
DENSITY = 2

#: Width in CSS px of the HTML book's column at a 1 280 px wide window (the desktop layout).
COLUMN_WIDTH = 688

#: Width in CSS px of the column on a phone 390 px wide: the narrow (stacked) layout.
NARROW_WIDTH = 358

#: CSS px that a slider's panel takes from the column on each side (its border and padding,
#: ``interactive.CSS``): its frames are drawn for the panel's inside, so that they are shown
#: at their natural size, never resampled.
PANEL_INSET = 13

#: Width in CSS px of a slider's frames on a desktop and on a phone (inside the panel).
PANEL_WIDTH = COLUMN_WIDTH - 2 * PANEL_INSET
NARROW_PANEL_WIDTH = NARROW_WIDTH - 2 * PANEL_INSET

#: The tallest a slider's phone frame may be (CSS px); less where its sliders and caption
#: need the room (``interactive.PHONE_PANEL_HEIGHT``).
NARROW_FRAME_HEIGHT = 500

#: The smallest text a picture may show (CSS px at its natural size): 6,5 pt.
MIN_TEXT_PX = 9

#: Windows this narrow get the narrow layout; wider ones show the desktop layout at no less
#: than 0,87 of its size (so a 2x picture at no less than 1/2,3 of its pixels).
NARROW_MEDIA = "(max-width: 639.98px)"

#: Colours reduced to at most this many per picture (palette PNG): a fraction of the bytes.
PALETTE_COLORS = 128

#: The attribute by which a figure asks for its shades to be kept (:func:`keep_shades`).
KEEP_SHADES = "ac_keep_shades"

#: Height in inches of one stacked panel in the narrow layout (at most the panel's own).
NARROW_PANEL_HEIGHT = 2.5


# --------------------------------------------------------------------------- layouts


def _panels(fig):
    """The figure's panels in reading order, each a list of axes sharing one grid cell.

    Twin axes share their parent's cell; colorbars and insets have no cell of their own
    (the layout engine places them next to their parent) and are left out.
    """
    cells = {}
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        if spec is None:
            continue
        key = (id(spec.get_gridspec()), spec.rowspan.start, spec.rowspan.stop,
               spec.colspan.start, spec.colspan.stop)
        cells.setdefault(key, []).append(ax)
    return [cells[key] for key in sorted(cells, key=lambda k: (k[1], k[3], k[0]))]


def relayout(fig, width=None, stacked=False, max_height=None):
    """Lay ``fig`` out again ``width`` inches wide, its panels stacked if ``stacked``.

    The text keeps its size in points; the panels get the room that is left. Stacked, a
    figure whose panels stood in one row of three or more (a slider's formula read left to
    right) gets two columns, filled row by row (a last odd panel spans both), so that a
    phone shows it in two rows instead of four tall ones; other panels go one below the
    other. ``max_height`` (inches) caps the stacked figure's height, the rows sharing what
    there is. Returns a function that puts the figure back as it was (size, grid cells,
    tick labels).
    """
    old_size = tuple(fig.get_size_inches())
    old_engine = fig.get_layout_engine()
    panels = _panels(fig)
    old_specs = [(ax, ax.get_subplotspec()) for cell in panels for ax in cell]
    old_labels = [(ax, ax.yaxis.get_tick_params().get("labelleft")) for cell in panels
                  for ax in cell]
    width = old_size[0] if width is None else width
    height = old_size[1]
    if stacked and len(panels) > 1:
        rows = max(spec.get_gridspec().nrows for _ax, spec in old_specs)
        places, columns = _narrow_places(panels, old_specs)
        heights = [0.0] * (places[-1][0] + 1)
        for cell, (row, start, stop) in zip(panels, places):
            share = width * (stop - start) / columns
            heights[row] = max(heights[row], _stacked_height(cell, old_size[1] / rows, share))
        title = 0.25 * _has_suptitle(fig)
        if max_height is not None and sum(heights) + title > max_height:
            heights = [h * (max_height - title) / sum(heights) for h in heights]
        height = sum(heights) + title
        grid = fig.add_gridspec(len(heights), columns, height_ratios=heights)
        for cell, (row, start, stop) in zip(panels, places):
            for ax in cell:
                ax.set_subplotspec(grid[row, start:stop])
                # a panel that shared its y axis with the one on its left had its tick
                # labels hidden; stacked, every panel needs its own
                if (len(ax.get_shared_y_axes().get_siblings(ax)) > 1
                        and ax.yaxis.get_label_position() == "left"):
                    ax.yaxis.set_tick_params(which="both", labelleft=True)
    elif stacked and panels:
        height = _stacked_height(panels[0], old_size[1], width)
        if max_height is not None:
            height = min(height, max_height)
    fig.set_size_inches(width, height)

    def restore():
        fig.set_size_inches(*old_size)
        for ax, spec in old_specs:
            ax.set_subplotspec(spec)
        for ax, labelleft in old_labels:
            if labelleft is not None:
                ax.yaxis.set_tick_params(which="both", labelleft=labelleft)
        fig.set_layout_engine(old_engine)
    return restore


def _narrow_places(panels, specs):
    """Where each panel goes on a phone: ``[(row, first column, column after)]`` and the
    number of columns (two if the panels stood three or more in one row, else one)."""
    in_a_row = max(spec.get_gridspec().ncols for _ax, spec in specs)
    rows_before = max(spec.get_gridspec().nrows for _ax, spec in specs)
    if len(panels) < 3 or in_a_row < 3 or rows_before > 1:
        return [(row, 0, 1) for row in range(len(panels))], 1
    places = [(k // 2, k % 2, k % 2 + 1) for k in range(len(panels))]
    if len(panels) % 2:
        places[-1] = (places[-1][0], 0, 2)
    return places, 2


def _stacked_height(cell, own_height, width):
    """Height in inches of one panel stacked in a column ``width`` inches wide: at most its
    own, at most NARROW_PANEL_HEIGHT; a panel with a fixed aspect (a map, a plane) may be
    nearly as tall as it is wide."""
    if any(ax.get_aspect() != "auto" for ax in cell):
        return min(own_height, max(NARROW_PANEL_HEIGHT, 0.92 * width))
    return min(own_height, NARROW_PANEL_HEIGHT)


def _has_suptitle(fig):
    return fig._suptitle is not None and bool(fig._suptitle.get_text())


def layout_for(width, stacked=False, max_height=None):
    """A function that lays a figure out for a column ``width`` CSS px wide.

    A figure narrower than the column keeps its size (it is shown at its natural size);
    a wider one is laid out again at the column's width; ``stacked`` stacks its panels
    and gives it the whole column, at most ``max_height`` CSS px tall.
    """
    inches = width / CSS_PX_PER_INCH
    tallest = None if max_height is None else max_height / CSS_PX_PER_INCH

    def lay_out(fig):
        current = fig.get_size_inches()[0]
        if stacked:
            return relayout(fig, inches, stacked=True, max_height=tallest)
        if current > inches + 1e-9:
            return relayout(fig, inches)
        return lambda: None
    return lay_out


# --------------------------------------------------------------------------- drawing


#: Held while a figure is drawn: the renderers below are shared, and matplotlib's drawing
#: (text layout, mathtext) is not thread-safe. The sliders draw frames in a background
#: thread (:mod:`attention_display.interactive`); every drawing in this module takes this lock.
DRAWING = threading.RLock()

_RENDERERS = {}


class _Canvas(FigureCanvasAgg):
    """An Agg canvas that reuses one renderer per picture size.

    matplotlib caches the metrics of every text it lays out per renderer; a renderer that
    lives across figures turns most text layout of a new frame into cache hits.
    """

    def get_renderer(self):
        w, h = self.figure.bbox.size
        key = (w, h, self.figure.dpi)
        renderer = _RENDERERS.get(key)
        if renderer is None:
            if len(_RENDERERS) >= 6:
                _RENDERERS.clear()
            renderer = _RENDERERS[key] = RendererAgg(w, h, self.figure.dpi)
        self.renderer = renderer
        return renderer


class Painter:
    """Draws the figures of one slider in one layout, fast.

    ``layout`` is applied to every figure before it is drawn (see :func:`layout_for`).
    The first figure gets the constrained layout; later figures with the same axes reuse
    its positions, which also keeps the axes from jumping as a slider moves. Each axis
    (ticks, tick labels, grid, label) is drawn once per distinct look and pasted into
    later figures as an image: frames of a slider mostly change their data, not their axes.
    """

    def __init__(self, layout=None, dpi=CSS_PX_PER_INCH * DENSITY, reuse_axes=True):
        self.layout = layout
        self.dpi = dpi
        self.reuse_axes = reuse_axes
        self.positions = None
        self.tilted = []  # axes (by index) whose x tick labels are tilted to fit
        self.axes_drawn = {}

    def rgba(self, fig):
        """Draw ``fig``; return its pixels, a ``(height, width, 4)`` uint8 array (a copy)."""
        with DRAWING:
            return self._rgba(fig)

    def _rgba(self, fig):
        restore = self.layout(fig) if self.layout else (lambda: None)
        # set_position takes an axes out of the layout engine's hands, and tilting changes
        # tick labels: both are undone afterwards, so the same figure can be drawn again in
        # another layout (the HTML book draws each frame for desktop, then for phones)
        in_layout = [(ax, ax.get_in_layout()) for ax in fig.axes]
        engine = fig.get_layout_engine()
        tilts = []
        try:
            fig.set_dpi(self.dpi)
            canvas = _Canvas(fig)
            if self.positions is not None and len(fig.axes) == len(self.positions):
                tilts = _tilt_x_labels(fig, self.tilted)
                fig.set_layout_engine("none")
                for ax, position in zip(fig.axes, self.positions):
                    ax.set_position(position)
            else:
                fig.draw_without_rendering()  # the layout engine places the axes
                self.tilted = _crowded_x_labels(fig, canvas.get_renderer())
                if self.tilted:
                    tilts = _tilt_x_labels(fig, self.tilted)
                    fig.draw_without_rendering()
                self.positions = [ax.get_position(original=True) for ax in fig.axes]
                fig.set_layout_engine("none")
            pasted = self._paste_axes(fig) if self.reuse_axes else []
            placed = [ax for ax in fig.axes if self.reuse_axes and _place_titles(ax)]
            try:
                canvas.draw()
            finally:
                for axis in pasted:
                    del axis.draw
                for ax in placed:
                    ax._autotitlepos = None
            return np.array(canvas.buffer_rgba())
        finally:
            for ax, flag in in_layout:
                ax.set_in_layout(flag)
            _untilt(tilts)
            fig.set_layout_engine(engine)
            restore()

    def _paste_axes(self, fig):
        """Replace each axis's drawing by pasting its picture (drawn now if new)."""
        pasted = []
        for ax in fig.axes:
            if not ax.axison:
                continue
            ax.apply_aspect()
            for axis in (ax.xaxis, ax.yaxis):
                if not axis.get_visible():
                    continue
                try:
                    key = _axis_look(ax, axis)
                except Exception:  # noqa: BLE001 - an unusual axis is simply drawn
                    continue
                picture = self.axes_drawn.get(key)
                if picture is None:
                    picture = self.axes_drawn[key] = _draw_alone(fig, axis)
                axis.draw = _paster(picture)
                pasted.append(axis)
        return pasted


def _crowded_x_labels(fig, renderer):
    """Indices of the axes whose x tick labels run into each other (a narrow layout)."""
    crowded = []
    for index, ax in enumerate(fig.axes):
        labels = [tick.label1 for tick in ax.xaxis.get_major_ticks()
                  if tick.label1.get_visible() and tick.label1.get_text()]
        boxes = sorted((label.get_window_extent(renderer) for label in labels),
                       key=lambda box: box.x0)
        gap = 2 * fig.dpi / 72  # two points
        if any(a.x1 + gap > b.x0 for a, b in zip(boxes, boxes[1:])):
            crowded.append(index)
    return crowded


def _tilt_x_labels(fig, indices):
    """Tilt the x tick labels of these axes by 35 degrees, anchored at their right end;
    return what :func:`_untilt` needs to put them back."""
    undo = []
    for index in indices:
        ax = fig.axes[index]
        labels = ax.get_xticklabels()
        undo.append((ax, ax.xaxis.get_tick_params().get("labelrotation", 0),
                     [(label, label.get_horizontalalignment(), label.get_rotation_mode())
                      for label in labels]))
        ax.xaxis.set_tick_params(labelrotation=35)
        for label in labels:
            label.set_horizontalalignment("right")
            label.set_rotation_mode("anchor")
    return undo


def _untilt(undo):
    for ax, rotation, labels in undo:
        ax.xaxis.set_tick_params(labelrotation=rotation)
        for label, alignment, mode in labels:
            label.set_horizontalalignment(alignment)
            label.set_rotation_mode(mode)


def _place_titles(ax):
    """Place the titles of ``ax`` where ``Axes.draw`` would, without its cost; True if done.

    Before drawing an axes, matplotlib lifts its titles above any tick labels or axis
    label at the top and above the y axis's offset text, measuring the whole y axis to find
    that text: a third of a frame's time. In the book's figures there is nothing at the
    top and no offset text, and then the titles simply sit at the top of the axes; in that
    case this sets them there and switches the measuring off for this draw (any other
    case is left to matplotlib).
    """
    if ax._autotitlepos is False or ax.child_axes:
        return False
    figure = ax.get_figure(root=False)
    if len(figure._align_label_groups["title"].get_siblings(ax)) > 1:
        return False
    for other in ax._twinned_axes.get_siblings(ax):
        if (other.xaxis.get_ticks_position() in ("top", "unknown")
                or other.xaxis.get_label_position() == "top"):
            return False
        formatter = other.yaxis.get_major_formatter()
        if not hasattr(formatter, "get_offset"):
            return False
        formatter.format_ticks(list(other.yaxis.get_majorticklocs()))
        if formatter.get_offset():
            return False
    for title in (ax.title, ax._left_title, ax._right_title):
        title.set_position((title.get_position()[0], 1.0))
    ax._autotitlepos = False
    return True


def _axis_look(ax, axis):
    """Everything an axis's picture depends on (where, ticks, labels, styles)."""
    locations = np.asarray(axis.get_majorticklocs(), dtype=float)
    formatter = axis.get_major_formatter()
    labels = formatter.format_ticks(list(locations))
    offset = formatter.get_offset() if hasattr(formatter, "get_offset") else ""
    minor = np.asarray(axis.get_minorticklocs(), dtype=float)
    minor_labels = axis.get_minor_formatter().format_ticks(list(minor))
    label = axis.label
    # the styles of the ticks made so far (a chapter may restyle tick labels one by one)
    ticks = frozenset(
        (t.label1.get_rotation(), str(t.label1.get_color()), t.label1.get_fontsize(),
         t.label1.get_visible(), t.label2.get_visible(), t.tick1line.get_visible(),
         t.tick2line.get_visible(), t.gridline.get_visible())
        for t in axis.majorTicks)
    return (
        type(axis).__name__, tuple(np.round(ax.bbox.bounds, 2)),
        axis.get_scale(), tuple(np.round(axis.get_view_interval(), 12)),
        locations.round(12).tobytes(), tuple(labels), offset,
        minor.round(12).tobytes(), tuple(minor_labels),
        repr(sorted(axis.get_tick_params(which="major").items())),
        repr(sorted(axis.get_tick_params(which="minor").items())),
        axis.get_ticks_position(), axis.get_label_position(),
        label.get_text(), str(label.get_color()), label.get_fontsize(), label.get_fontweight(),
        label.get_rotation(), label.get_visible(), ticks,
    )


_OVERLAYS = {}


def _draw_alone(fig, axis):
    """Draw only ``axis`` on a transparent canvas of the figure's size; crop to its ink."""
    w, h = fig.bbox.size
    key = (w, h, fig.dpi)
    renderer = _OVERLAYS.get(key)
    if renderer is None:
        if len(_OVERLAYS) >= 4:
            _OVERLAYS.clear()
        renderer = _OVERLAYS[key] = RendererAgg(w, h, fig.dpi)
    renderer.clear()
    axis.draw(renderer)
    pixels = np.asarray(renderer.buffer_rgba())
    rows = np.flatnonzero(pixels[:, :, 3].any(axis=1))
    if not rows.size:
        return None
    cols = np.flatnonzero(pixels[:, :, 3].any(axis=0))
    top, bottom, left, right = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    # Agg's draw_image takes the rows bottom first
    return left, pixels.shape[0] - bottom, pixels[top:bottom, left:right][::-1].copy()


def _paster(picture):
    def paste(renderer):
        if picture is None:
            return
        x, y, image = picture
        gc = renderer.new_gc()
        renderer.draw_image(gc, x, y, image)
        gc.restore()
    return paste


def draw_rgba(fig, dpi=CSS_PX_PER_INCH * DENSITY):
    """Draw ``fig`` once as it is (no layout change); return its pixels (a copy)."""
    with DRAWING:
        fig.set_dpi(dpi)
        canvas = _Canvas(fig)
        canvas.draw()
        return np.array(canvas.buffer_rgba())


# --------------------------------------------------------------------------- SVG


#: The salt of the ids matplotlib gives an SVG's clip paths and glyphs: fixed, so that the
#: same figure gives the same bytes in every build.
SVG_SALT = "attention-core"


def svg(fig, layout=None):
    """``fig`` as SVG text, drawn by matplotlib's SVG backend (a vector figure: every line,
    marker and letter a path; only images such as heat maps stay raster).

    ``layout`` (see :func:`layout_for`) lays the figure out first, as for its picture, and
    is undone afterwards. No date in the metadata, fixed ids: the same bytes every build.
    """
    with DRAWING:
        restore = layout(fig) if layout else (lambda: None)
        dpi = fig.get_dpi()
        try:
            buffer = io.BytesIO()
            with matplotlib.rc_context({"svg.hashsalt": SVG_SALT, "svg.fonttype": "path"}):
                FigureCanvasSVG(fig).print_svg(buffer, metadata={"Date": None})
            return buffer.getvalue().decode("utf-8")
        finally:
            fig.set_dpi(dpi)
            restore()


def raster_images(fig):
    """How many raster images ``fig`` shows: ``imshow``'s heat maps and rasterized artists
    (a colorbar's colour ramp of many colours, which matplotlib rasterizes). An SVG of the
    figure embeds each as a PNG; a figure without any is vector through and through."""
    return sum(1 for artist in fig.findobj()
               if artist.get_visible() and (isinstance(artist, AxesImage)
                                            or artist.get_rasterized()))


_SVG_IMAGE = re.compile(r"<image\b")


def svg_raster_count(svg_text):
    """How many ``<image>`` elements (embedded raster pictures) an SVG text holds."""
    return len(_SVG_IMAGE.findall(svg_text))


# --------------------------------------------------------------------------- PNG


def keep_shades(fig):
    """Ask that ``fig``'s pictures keep up to :data:`PALETTE_COLORS` shades; returns ``fig``.

    For a figure whose shades carry values (a heat map in one hue or in greys). The fast
    quantizer keeps only 16 levels of one grey or hue, which posterizes such a map; this
    figure is quantized by median cut instead (measured on a grey heat map: 2.5 times the
    time, a tenth more bytes).
    """
    setattr(fig, KEEP_SHADES, True)
    return fig


def keeps_shades(fig):
    """True if ``fig`` asked for its shades to be kept (:func:`keep_shades`)."""
    return bool(getattr(fig, KEEP_SHADES, False))


def png(rgba, compact=True, shades=False):
    """Encode pixels as PNG: a palette PNG (``compact``: a fifth of the bytes, for the HTML
    book), or a fast plain PNG for a live frame (half the time of PIL's encoder). With
    ``shades`` the palette is made by median cut, which keeps the shades of one hue
    (:func:`keep_shades`)."""
    if compact:
        # PIL drops the alpha channel six times faster than numpy copies the RGB channels
        # out (np.ascontiguousarray(rgba[:, :, :3])), to the same pixels
        rgb = Image.fromarray(rgba, "RGBA").convert("RGB")
        method = Image.Quantize.MEDIANCUT if shades else Image.Quantize.FASTOCTREE
        quantized = rgb.quantize(PALETTE_COLORS, method=method)
        # the quantizer gives white the mean of its bucket, (251, 250, 250) say: the picture's
        # background then shows as a faint box on the white page (and on the dark one, after
        # dark_palette). The palette entry of white (one entry: the quantizer maps equal
        # colours alike), found at a corner of the background, is set back to white.
        height, width, _ = rgba.shape
        corners = [(x, y) for y in (0, height - 1) for x in (0, width - 1)]
        white = [(x, y) for x, y in corners if (rgba[y, x, :3] == 255).all()]
        if white:
            palette = np.array(quantized.getpalette(), dtype=np.uint8).reshape(-1, 3)
            palette[quantized.getpixel(white[0])] = 255
            quantized.putpalette(palette.tobytes())
        buffer = io.BytesIO()
        quantized.save(buffer, "png")
        return buffer.getvalue()
    height, width, _ = rgba.shape
    rows = np.empty((height, 1 + 4 * width), np.uint8)
    rows[:, 0] = 0  # filter type "none": zlib at its fastest level does the work
    rows[:, 1:] = rgba.reshape(height, 4 * width)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 1)) + _chunk(b"IEND", b""))


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def even(rgba, density=DENSITY):
    """Pixels padded with white (right, bottom) to a whole number of CSS px at ``density``,
    so that a picture shown at its CSS size is drawn at exactly ``density``, unresampled."""
    height, width, _ = rgba.shape
    pad_y, pad_x = -height % density, -width % density
    if not (pad_x or pad_y):
        return rgba
    return np.pad(rgba, ((0, pad_y), (0, pad_x), (0, 0)), constant_values=255)


def small_texts(fig, min_px=MIN_TEXT_PX):
    """The texts of ``fig`` smaller than ``min_px`` CSS px (at the figure's natural size):
    ``[(text, CSS px)]``, each text once, smallest first."""
    from matplotlib.text import Text

    found = {}
    for text in fig.findobj(Text):
        px = text.get_fontsize() * CSS_PX_PER_INCH / 72
        if text.get_visible() and text.get_text().strip() and px < min_px - 1e-9:
            found.setdefault(text.get_text(), px)
    return sorted(found.items(), key=lambda item: item[1])


def css_size(rgba, density=DENSITY):
    """``(width, height)`` in CSS px of pixels rendered at ``density``."""
    return round(rgba.shape[1] / density), round(rgba.shape[0] / density)


def _chunks(data):
    position = 8
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        yield kind, position, length
        position += 12 + length


def palette_of(png_bytes):
    """The PLTE chunk (3 bytes per colour) of a palette PNG."""
    for kind, position, length in _chunks(png_bytes):
        if kind == b"PLTE":
            return png_bytes[position + 8:position + 8 + length]
    raise ValueError("palette_of: not a palette PNG (no PLTE chunk)")


def with_palette(png_bytes, palette):
    """The same palette PNG with another PLTE (same number of colours)."""
    for kind, position, length in _chunks(png_bytes):
        if kind == b"PLTE":
            if len(palette) != length:
                raise ValueError(f"with_palette: {len(palette)} palette bytes for a PLTE of "
                                 f"{length}")
            return (png_bytes[:position] + _chunk(b"PLTE", palette)
                    + png_bytes[position + 12 + length:])
    raise ValueError("with_palette: not a palette PNG (no PLTE chunk)")


# --------------------------------------------------------------------------- dark mode


def _rgb(hex_colour):
    return np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)


#: Light colour -> dark-mode colour, exact: white -> background, each term's text colour ->
#: its dark-mode text colour, each term's fill colour -> itself.
def _anchors():
    pairs = [(_rgb(style.TEXT_COLORS[t]), _rgb(style.DARK_TEXT_COLORS[t]))
             for t in style.TEXT_COLORS]
    pairs += [(_rgb(c), _rgb(c)) for c in style.COLORS.values()]
    return pairs


_WHITE = np.array([255.0, 255.0, 255.0])
_LUMA = np.array([0.2126, 0.7152, 0.0722])


def _turn_over(colours):
    """Any colour with its lightness turned over, hue and chroma kept: white -> the dark
    background, black -> the dark mode's text colour, the greys in between linearly."""
    background = _rgb(style.DARK_BACKGROUND)
    foreground = _rgb(style.DARK_FOREGROUND)
    luma = colours @ _LUMA
    target = foreground + np.outer(luma / 255, background - foreground)
    return np.clip(colours - luma[:, None] + target, 0, 255)


def dark_colours(colours, tolerance=12.0):
    """Map RGB colours (an ``(n, 3)`` array, 0-255) to their dark-mode colours.

    A colour that is a mixture of white and a term colour (an antialiased edge, a light
    tint) becomes the same mixture of the dark background and the term's dark-mode colour;
    every other colour is turned over by :func:`_turn_over`.
    """
    colours = np.asarray(colours, dtype=float).reshape(-1, 3)
    result = _turn_over(colours)
    background = _rgb(style.DARK_BACKGROUND)
    best = np.full(len(colours), tolerance)
    for light, dark in _anchors():
        direction = _WHITE - light
        share = np.clip((_WHITE - colours) @ direction / (direction @ direction), 0, 1)
        miss = np.linalg.norm(_WHITE - colours - np.outer(share, direction), axis=1)
        use = (miss < best) & (share > 0.2)
        best = np.where(use, miss, best)
        result[use] = np.outer(share[use], dark) + np.outer(1 - share[use], background)
    return np.rint(result).astype(np.uint8)


def dark_palette(png_bytes):
    """The dark-mode PLTE of a palette PNG (see :func:`dark_colours`)."""
    light = np.frombuffer(palette_of(png_bytes), dtype=np.uint8).reshape(-1, 3)
    return dark_colours(light).tobytes()


def dark_png(png_bytes):
    """The dark-mode rendering of a palette PNG: the same pixels, the dark palette."""
    return with_palette(png_bytes, dark_palette(png_bytes))
