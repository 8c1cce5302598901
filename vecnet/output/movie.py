"""The animation :func:`vecnet.output.picture.animate` returns, and its fast GIF.

matplotlib saves an animation by drawing the whole figure twice a frame (on the canvas,
then again in ``savefig``), and Pillow picks a new palette for every frame of a GIF. In a
mechanism's frames only a few artists move, while the axes, ticks and legend, which cost
most of a drawing, stay put. So a GIF is written here from one drawing of what stays
(the background) and, per frame, the moving artists drawn over a copy of it in the order
a full drawing uses (matplotlib's blitting), which gives the same pixels; the frames
share one palette, made from a few of them. Other formats (MP4, ``to_jshtml()``) go
through matplotlib's writers, drawn once a frame. In a notebook the animation shows as
that GIF, inline.
"""

from __future__ import annotations

import html
import math
import os
import sys
from collections.abc import Callable, Hashable, Iterable
from typing import Any, Protocol

import matplotlib as mpl
import numpy as np
from matplotlib.animation import FuncAnimation, PillowWriter, writers
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text
from PIL import Image

from ..core.bounds import progress_bar
from ..core.files import replacing
from ..errors import OutputError

__all__ = ["MechanismAnimation", "PALETTE_SAMPLES", "COLOURS", "PALETTE_PIXELS", "INLINE_DPI"]

#: Dots per inch of the GIF a notebook shows (:meth:`MechanismAnimation._repr_html_`).
INLINE_DPI = 72

#: Frames of a GIF whose colours make its palette (evenly spaced, first and last included).
PALETTE_SAMPLES = 8
#: Colours of a GIF's palette: one of GIF's 256 stays free, for Pillow to mark the pixels
#: a frame leaves unchanged (smaller files).
COLOURS = 255
#: Pixels the median cut of a GIF's palette works on.
PALETTE_PIXELS = 1 << 18


class _Drawing(Protocol):
    """What an animation needs of a mechanism's drawing (that of vecnet.output.picture)."""

    ax: Any
    scene: Any                                   # its .positions: frames x keys x 3
    three_d: bool
    lines: list[tuple[Any, list[Hashable]]]      # (Line2D, the keys of its vertices)
    labels: list[tuple[Any, Hashable]]           # (Text, the key it is placed at)

    def show(self, k: int) -> list[Any]:
        """Move the artists to frame ``k``."""

    def moving(self) -> list[Any]:
        """The artists :meth:`show` changes (the title aside)."""


class MechanismAnimation(FuncAnimation):
    """A matplotlib ``FuncAnimation`` of a mechanism whose :meth:`save` writes a GIF fast
    and tells ``progress`` how far it got (made by :func:`vecnet.animate`)."""

    def __init__(self, artists: _Drawing, interval: float,
                 progress: Callable[[float], Any] | bool | None = None) -> None:
        self._mechanism = artists
        self._progress = progress
        self._frame_ms = float(interval)
        self._saving = False
        super().__init__(artists.ax.figure, artists.show,
                         frames=range(len(artists.scene.positions)), interval=float(interval),
                         blit=False, repeat=True, cache_frame_data=False)

    def save(self, filename: Any, writer: Any = None, fps: Any = None,
             dpi: Any = None, codec: Any = None, bitrate: Any = None, extra_args: Any = None,
             metadata: Any = None, extra_anim: Any = None, savefig_kwargs: Any = None, *,
             progress_callback: Callable[[int, int], Any] | None = None) -> None:
        """Write the animation to ``filename``: matplotlib's ``Animation.save``, with the
        same arguments. A GIF (a name ending in ``.gif``) with no writer named, or
        ``writer="pillow"``, or a plain ``PillowWriter``, and no ``savefig_kwargs`` or
        ``extra_anim``, is drawn once a frame and written here with Pillow: the pictures
        matplotlib's writer makes, faster. Anything else goes to matplotlib, which then
        draws each frame once instead of twice. A transparent figure goes to matplotlib,
        whose writer keeps the transparency.

        Raises
        ------
        OutputError
            For a GIF written here, ``fps`` or ``dpi`` not a number above zero.
        """
        count = len(self._mechanism.scene.positions)
        report = _Report(self._progress, count, progress_callback)
        rate = self._gif_rate(filename, writer, fps, codec, bitrate, extra_args, metadata,
                              extra_anim, savefig_kwargs)
        self._draw_was_started = True     # no "deleted without rendering" warning
        # checked before any frame is drawn, written beside it and renamed into place
        with replacing(filename) as written:
            if rate is None or not _write_gif(self._mechanism, written, rate, dpi, report):
                self._saving = True
                try:
                    super().save(written, writer, fps, dpi, codec, bitrate, extra_args,
                                 metadata, extra_anim, savefig_kwargs,
                                 progress_callback=report.frame)
                finally:
                    self._saving = False
        report.done()

    def _repr_html_(self) -> str:
        """The animation as it plays in a notebook: its GIF (:meth:`save`, at
        :data:`INLINE_DPI`) inline in an ``<img>``, looping, with no script; a fifth of the
        time and a sixth of the size of ``to_jshtml()``'s player. The figure is closed,
        so that the notebook shows no still frame beside it (saving still works)."""
        import base64
        import tempfile

        import matplotlib.pyplot as plt

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "animation.gif")
            self.save(path, dpi=INLINE_DPI)
            with open(path, "rb") as gif:
                data = base64.b64encode(gif.read()).decode("ascii")
        plt.close(self._mechanism.ax.figure)
        title = html.escape(self._mechanism.scene.name)
        return f'<img src="data:image/gif;base64,{data}" alt="{title}, animated">'

    def _post_draw(self, framedata: Any, blit: bool) -> None:
        # while saving, every writer's savefig draws the frame: a canvas draw before it
        # would only double the work
        if not self._saving:
            base: Any = super()   # matplotlib's type stubs leave its private methods out
            base._post_draw(framedata, blit)

    def _gif_rate(self, filename: Any, writer: Any, fps: Any, codec: Any,
                  bitrate: Any, extra_args: Any, metadata: Any, extra_anim: Any,
                  savefig_kwargs: Any) -> float | None:
        """Frames a second of the GIF to write here, or None when matplotlib writes it."""
        try:
            suffix = os.path.splitext(os.fspath(filename))[1].lower()
        except TypeError:
            return None
        if suffix != ".gif" or extra_args is not None or extra_anim or savefig_kwargs:
            return None
        if writer is None:
            # matplotlib's default writer, ffmpeg, would draw every frame twice as well
            name = mpl.rcParams["animation.writer"]
            if name not in ("pillow", "ffmpeg") and writers.is_available(name):
                return None
        elif type(writer) is PillowWriter:
            if any(value is not None for value in (fps, codec, bitrate, metadata)):
                return None   # matplotlib's own error says why
            fps = writer.fps
        elif writer != "pillow":
            return None
        if (mpl.rcParams["savefig.transparent"] or mpl.rcParams["savefig.facecolor"] != "auto"
                or mpl.rcParams["savefig.edgecolor"] != "auto"):
            return None   # savefig would colour the frames otherwise than the canvas
        rate = 1000.0 / self._frame_ms if fps is None else fps
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) \
                or not (math.isfinite(rate) and rate > 0):
            raise OutputError(f"fps is a number of frames a second above zero; got {fps!r}")
        return float(rate)


class _Report:
    """Tells ``progress`` the share of the frames done (at most ``(n - 1) / n`` while they
    are drawn, 1 once the file is written) and matplotlib's ``progress_callback`` each
    frame; ``progress=True`` draws a tqdm bar over the frames."""

    def __init__(self, progress: Callable[[float], Any] | bool | None, count: int,
                 callback: Callable[[int, int], Any] | None) -> None:
        if progress is True:
            advance = progress_bar(0, count, unit="frame", whole=True,
                                   passed="the share of the frames written")

            def share(fraction: float) -> None:
                advance(round(fraction * count))

            progress = share
        self.progress = progress or None
        self.count, self.callback = count, callback

    def frame(self, number: int, total: Any = None) -> None:
        if self.callback is not None:
            self.callback(number, total)
        if self.progress is not None and number + 1 < self.count:
            self.progress((number + 1) / self.count)

    def done(self) -> None:
        if self.progress is not None:
            self.progress(1.0)


# -- the GIF ----------------------------------------------------------------------------------
def _write_gif(artists: _Drawing, filename: Any, fps: float, dpi: Any, report: _Report) -> bool:
    """Write the GIF; False (nothing written) for a figure with transparent pixels, which
    matplotlib's writer keeps."""
    fig = artists.ax.figure
    dpi = mpl.rcParams["savefig.dpi"] if dpi is None else dpi
    dpi = fig.dpi if dpi == "figure" else dpi
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) \
            or not (math.isfinite(dpi) and dpi > 0):
        raise OutputError(f"dpi is a number of dots per inch above zero; got {dpi!r}")
    count = len(artists.scene.positions)
    shown, shown_dpi = fig.canvas, fig.dpi
    # an Agg canvas of its own, as savefig uses: a window showing the figure neither
    # resizes nor flickers, and the pixels are Agg's whatever the backend
    canvas: Any = FigureCanvasAgg(fig)
    canvas._is_saving = True   # as in savefig: a draw now does not start the animation
    layers = None
    try:
        fig.set_dpi(dpi)
        layers = _Layers(artists, canvas)
        if layers.transparent:
            return False
        samples = np.unique(np.linspace(0, count - 1, min(count, PALETTE_SAMPLES)).round())
        palette = _Palette(layers.frame(int(k)).copy() for k in samples)
        images = []
        for k in range(count):
            images.append(palette.image(layers.frame(k)))
            report.frame(k, count)
        images[0].save(filename, format="GIF", save_all=True, append_images=images[1:],
                       duration=int(1000 / fps), loop=0)
        return True
    finally:
        if layers is not None:
            layers.restore()
        fig.set_dpi(shown_dpi)
        fig.set_canvas(shown)


class _Layers:
    """The figure drawn once without the artists that move (a background, with the
    legend and one without it), and each frame those artists drawn over a copy of it in
    the order of a full drawing (by zorder): the same pixels as drawing the whole figure.

    The artists a frame moves (``moving()``), the title, and whatever else of the
    axes lies above the lowest of them (artists a user added; not the axes' frame, ticks
    or labels) are drawn each frame. The legend, drawn above them, is drawn again only in
    the frames where a moving artist may reach it.
    """

    def __init__(self, artists: _Drawing, canvas: Any) -> None:
        ax = artists.ax
        self.artists, self.canvas, self.fig = artists, canvas, ax.figure
        moving = artists.moving() + [ax.title]
        lowest = min(a.get_zorder() for a in moving)
        self.legend = ax.get_legend()
        fixed = {id(ax.patch), id(self.legend), *(id(s) for s in ax.spines.values())}
        ours = {id(a) for a in moving}
        order = sorted(ax.get_children(), key=lambda a: a.get_zorder())   # stable, as Axes.draw
        drawn = [a for a in order if id(a) in ours or (
            id(a) not in fixed and not isinstance(a, (Axis, Axes)) and a.get_zorder() >= lowest
            and a.get_visible() and not (isinstance(a, Text) and not a.get_text()))]
        extra = len(drawn) > len(ours)
        redrawn = {id(a) for a in drawn}
        self.with_legend = [a for a in order if id(a) in redrawn or a is self.legend]
        self.without_legend = drawn
        self.hidden = [a for a in self.with_legend if a.get_visible()]
        # the backgrounds by whether the legend is drawn in them
        self.backgrounds: dict[bool, Any] = {}
        self._background(legend=True)
        self.legend_over = np.zeros(len(artists.scene.positions), dtype=bool)
        if self.legend is not None and self.legend.get_visible():
            # artists a user added keep their order with the legend only when both are redrawn
            self.legend_over |= extra or self._reaching(
                self.legend.get_window_extent(canvas.get_renderer()))
            if self.legend_over.any():
                self._background(legend=False)
        # a full drawing places the title above the axes' decorations, which a drawing
        # without it does otherwise (3-D axes): place it again, as the drawing does
        settle = getattr(ax, "_update_title_position", None)
        if settle is not None:
            settle(canvas.get_renderer())
        rgba = np.asarray(self.canvas.buffer_rgba())
        self.transparent = bool(rgba[..., 3].min() < 255)

    def _background(self, legend: bool) -> None:
        for a in self.hidden:
            a.set_visible(a is self.legend and legend)
        try:
            self.canvas.draw()
            self.backgrounds[legend] = self.canvas.copy_from_bbox(self.fig.bbox)
        finally:
            for a in self.hidden:
                a.set_visible(True)

    def _reaching(self, box: Any) -> np.ndarray:
        """Per frame, whether a moving artist may reach into ``box`` (display pixels): the
        frame's points, widened by the largest marker or line and the labels' size."""
        artists, ax = self.artists, self.artists.ax
        points = artists.scene.positions                         # frames x keys x 3
        flat = points.reshape(-1, 3)
        if artists.three_d:
            from mpl_toolkits.mplot3d import proj3d

            x, y, _ = proj3d.proj_transform(flat[:, 0], flat[:, 1], flat[:, 2], ax.M)
            flat = np.column_stack([x, y])
        pixels = ax.transData.transform(flat[:, :2]).reshape(points.shape[0], -1, 2)
        low, high = pixels.min(axis=1), pixels.max(axis=1)      # frames x 2
        scale = self.fig.dpi / 72.0
        reach = max([max(line.get_linewidth() / 2, line.get_markersize() / 2
                         + line.get_markeredgewidth()) for line, _ in artists.lines] + [0.0])
        pad = reach * scale + 3.0
        renderer = self.canvas.get_renderer()
        sizes = [label.get_window_extent(renderer) for label, _ in artists.labels]
        wide = max([s.width for s in sizes] + [0.0])
        tall = max([s.height for s in sizes] + [0.0])
        return ((low[:, 0] - pad < box.x1) & (high[:, 0] + pad + wide > box.x0)
                & (low[:, 1] - pad - tall < box.y1) & (high[:, 1] + pad + tall > box.y0))

    def frame(self, k: int) -> np.ndarray:
        """The pixels (height x width x RGBA, a view of the canvas) of frame ``k``."""
        self.artists.show(k)
        over = bool(self.legend_over[k])
        self.canvas.restore_region(self.backgrounds[not over])
        for a in (self.with_legend if over else self.without_legend):
            self.fig.draw_artist(a)
        return np.asarray(self.canvas.buffer_rgba())

    def restore(self) -> None:
        for a in self.hidden:
            a.set_visible(True)


class _Palette:
    """One palette for every frame: the colours of the sample frames when they are few,
    else their median cut; each pixel takes the palette's nearest colour (RGB distance;
    a colour found in the palette keeps its exact value)."""

    def __init__(self, samples: Iterable[np.ndarray]) -> None:
        counts: dict[Any, int] = {}
        for rgba in samples:
            picture = Image.fromarray(np.ascontiguousarray(rgba[..., :3]))
            found = picture.getcolors(maxcolors=picture.width * picture.height) or []
            for number, colour in found:
                counts[colour] = counts.get(colour, 0) + number
        colours = np.array(list(counts), dtype=np.uint8).reshape(-1, 3)
        if len(colours) > COLOURS:
            # the median cut of a strip holding each colour about as often as the samples
            # do, shrunk to PALETTE_PIXELS (a rare colour at least once)
            weights = np.fromiter(counts.values(), dtype=float, count=len(counts))
            repeats = np.maximum(1, np.round(weights * PALETTE_PIXELS / weights.sum()))
            strip = np.repeat(colours, repeats.astype(int), axis=0)[None, :, :]
            cut = Image.fromarray(np.ascontiguousarray(strip)).quantize(COLOURS, method=0)
            colours = np.array(cut.getpalette(), dtype=np.uint8).reshape(-1, 3)[:COLOURS]
        self.colours = colours.astype(np.int32)
        self.flat = colours.tobytes()
        # colour (a key of _colour_keys) -> its palette index + 1; 0 for one not met yet
        self.index = np.zeros(1 << 24, dtype=np.uint16)
        self.last: tuple[np.ndarray, np.ndarray] | None = None   # keys and indices

    def image(self, rgba: np.ndarray) -> Image.Image:
        """The frame (height x width x RGBA) as a palette image (mode "P")."""
        keys = _colour_keys(rgba).ravel()
        last = self.last
        if last is not None and last[0].shape == keys.shape:
            # consecutive frames differ in the few pixels of the moving artists
            changed = np.flatnonzero(keys != last[0])
            indices = last[1].copy()
            indices[changed] = self._lookup(keys[changed])
        else:
            indices = self._lookup(keys)
        self.last = keys, indices
        image = Image.fromarray(indices.reshape(rgba.shape[:2]))
        image.putpalette(self.flat)
        return image

    def _lookup(self, keys: np.ndarray) -> np.ndarray:
        """The palette index of each colour key."""
        found = self.index[keys]
        missing = found == 0
        if missing.any():
            new = np.unique(keys[missing])
            for start in range(0, len(new), 4096):   # bounded memory for the distances
                chunk = new[start:start + 4096]
                rgb = _key_colours(chunk).astype(np.int32)
                distance = ((rgb[:, None, :] - self.colours[None, :, :]) ** 2).sum(axis=2)
                self.index[chunk] = distance.argmin(axis=1) + 1
            found[missing] = self.index[keys[missing]]
        return (found - 1).astype(np.uint8)


# the bytes R, G, B of a pixel read as one 32-bit word (A left out): 0xBBGGRR on a
# little-endian machine, 0xRRGGBB00 on a big-endian one
_RGB_BYTES = np.frombuffer(bytes([255, 255, 255, 0]), dtype=np.uint32)[0]
_LITTLE = sys.byteorder == "little"


def _colour_keys(rgba: np.ndarray) -> np.ndarray:
    """A number below 2**24 for the colour of every pixel of an RGBA array, read a word
    a pixel (several times faster than combining the three channels)."""
    words = np.ascontiguousarray(rgba).view(np.uint32)[..., 0] & _RGB_BYTES
    return words if _LITTLE else words >> 8


def _key_colours(keys: np.ndarray) -> np.ndarray:
    """The colours (n x 3: R, G, B) of keys of :func:`_colour_keys`."""
    channels = [keys & 255, (keys >> 8) & 255, (keys >> 16) & 255]
    return np.column_stack(channels if _LITTLE else channels[::-1])
