"""TikZ pictures of the diagrams of :mod:`vecnet.output.draw`, for lecture notes in LaTeX.

The idea: Graphviz lays the diagram out once and says what it draws. ``dot -Tjson`` gives,
for the graph, each cluster (the legend), node and edge, its drawing operations (xdot):
ellipses, polygons, Bézier splines and text lines at points of the picture, in points
(1/72 in) with y up, the coordinates the SVG uses (with y down). Each operation becomes one
TikZ path in the same coordinates (``x=1bp, y=1bp``), so the node positions, the edge
splines (``.. controls ..``), the arrowheads (every Graphviz arrow shape, as the polygons
and ellipses dot computed), the labels and the legend are where the SVG has them.

What the marks mean is kept in the TikZ: tree branches, chords and transducer links are
drawn with the styles ``vn tree``, ``vn chord`` and ``vn link``, made from the DOT
attributes that :mod:`vecnet.output.draw` gives them (:data:`~vecnet.output.palette.TREE_STYLE`
...), and colours have names (``vn-electrical``, ``vn-revolute``, ...) from
:data:`~vecnet.output.palette.DOMAIN_COLOURS` and :data:`~vecnet.output.palette.JOINT_STYLES`.
Both are defined inside the ``tikzpicture``, so the picture can be copied into a document
that loads only ``tikz``; the document around it (``article`` with the ``preview`` package
cropping the page to the picture) compiles with ``pdflatex`` from Debian's
``texlive-latex-base``, ``texlive-pictures`` and ``preview-latex-style``.

Names are data: every text is written with LaTeX's special characters escaped and non-ASCII
characters as LaTeX commands (accents, Greek letters) or ``[U+XXXX]``, so that the file is
ASCII and nothing in a name is read as a command. Text is set in Computer Modern Sans at the
sizes of the SVG's Helvetica; its width differs a little from Helvetica's.

>>> import vecnet as vn
>>> tex = vn.to_tikz(vn.LinearGraph([("R", "a", "b"), ("C", "b", "a")]), tree=["R"])
>>> r"\\begin{tikzpicture}" in tex and "vn chord" in tex
True
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import graphviz

from ..core.names import visible
from ..errors import GraphvizError, OutputError
from .palette import (
    BODY_FILL,
    CHORD_STYLE,
    DATUM_FILL,
    DOMAIN_COLOURS,
    LEGEND_FRAME,
    LINK_COLOUR,
    LINK_STYLE,
    TREE_STYLE,
    joint_styles,
)
from .teaching import text_tex

__all__ = ["tikz_document", "pdflatex_text", "MAX_SIZE"]

#: Largest width or height (points) of a picture; larger layouts are scaled down to it.
#: TeX's dimensions end at 16383 pt, and PDF viewers' pages at 200 in = 14400 pt.
MAX_SIZE = 14400.0

# the edge roles that have a TikZ style of their own: (style name, DOT attributes)
_ROLES = (("vn tree", TREE_STYLE), ("vn chord", CHORD_STYLE), ("vn link", LINK_STYLE))
# Graphviz's dash patterns of the SVG (stroke-dasharray), in points
_DASHES = {"dashed": (5.0, 2.0), "dotted": (1.0, 5.0)}



def tikz_document(dot: graphviz.Digraph, layout: bytes) -> str:
    """A standalone LaTeX document drawing ``dot`` as Graphviz laid it out: ``layout`` is
    the output of ``dot -Tjson`` for it (:func:`vecnet.output.draw.run_dot`).

    Raises :class:`~vecnet.errors.GraphvizError` when ``layout`` is something other than
    the JSON of a laid-out graph.
    """
    raw = layout
    try:
        layout = json.loads(raw.decode("utf-8", "replace"))
    except ValueError as exc:
        raise GraphvizError(f"Graphviz 'dot -Tjson' wrote no JSON ({exc})") from None
    if not isinstance(layout, dict) or "bb" not in layout:
        raise GraphvizError("Graphviz 'dot -Tjson' wrote a graph without a layout (no 'bb'); "
                            "the TikZ export needs a Graphviz whose JSON output holds the "
                            "layout and the xdot drawing")
    return _Writer(layout).document(str(dot.name or ""))


# -- text ------------------------------------------------------------------------------------
# what pdflatex's default fonts (OT1 Computer Modern) lack or misprint, on top of the text
# escapes of vecnet.output.teaching: OT1 has no '<', '>', '|' or straight '"' (they come out
# as ¡, ¿, — and ”), its '\$' is taken from a bitmap font; '-', '`', "'", '!' and '?' start
# ligatures ('--' an en dash); a space is kept as typed
_OT1 = {"$": r"{\char36}", "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
        '"': r"{\ttfamily\char34}", "-": "-{}", "`": "`{}", "'": "'{}", "!": "!{}", "?": "?{}",
        " ": r"\ "}
# non-ASCII characters with a command of their own
_SPECIAL = {"ß": r"\ss{}", "æ": r"\ae{}", "Æ": r"\AE{}", "œ": r"\oe{}", "Œ": r"\OE{}",
            "ø": r"\o{}", "Ø": r"\O{}", "ł": r"\l{}", "Ł": r"\L{}", "ı": r"\i{}",
            "\u00a0": "~", "–": "--", "—": "---", "‘": "`", "’": "'", "“": "``", "”": "''",
            "…": r"\ldots{}", "−": r"\ensuremath{-}", "×": r"\ensuremath{\times}",
            "·": r"\ensuremath{\cdot}", "°": r"\ensuremath{^\circ}", "±": r"\ensuremath{\pm}",
            "µ": r"\ensuremath{\mu}", "→": r"\ensuremath{\rightarrow}",
            "←": r"\ensuremath{\leftarrow}", "≤": r"\ensuremath{\le}", "≥": r"\ensuremath{\ge}"}
# combining accents -> the OT1 text accent commands
_ACCENTS = {"\u0300": "\\`", "\u0301": "\\'", "\u0302": "\\^", "\u0303": "\\~", "\u0304": "\\=",
            "\u0306": "\\u", "\u0307": "\\.", "\u0308": '\\"', "\u030a": "\\r", "\u030b": "\\H",
            "\u030c": "\\v", "\u0323": "\\d", "\u0327": "\\c"}
_GREEK_ACCENTS = {"\u0301": r"\acute", "\u0308": r"\ddot"}
# the Greek letters of LaTeX's math fonts, by their Unicode names (capitals that look like
# Latin ones have no command of their own); archaic letters (heta, digamma ...) have none
_GREEK_SMALL = {name: "\\" + name.lower() for name in (
    "ALPHA", "BETA", "GAMMA", "DELTA", "EPSILON", "ZETA", "ETA", "THETA", "IOTA", "KAPPA",
    "MU", "NU", "XI", "PI", "RHO", "SIGMA", "TAU", "UPSILON", "PHI", "CHI", "PSI", "OMEGA")}
_GREEK_SMALL.update(LAMDA=r"\lambda", OMICRON="o", **{"FINAL SIGMA": r"\varsigma"})
_GREEK_CAPITAL = {name: "\\" + name.capitalize() for name in (
    "GAMMA", "DELTA", "THETA", "XI", "PI", "SIGMA", "UPSILON", "PHI", "PSI", "OMEGA")}
_GREEK_CAPITAL.update(LAMDA=r"\Lambda", **{name: rf"\mathrm{{{latin}}}" for name, latin in (
    ("ALPHA", "A"), ("BETA", "B"), ("EPSILON", "E"), ("ZETA", "Z"), ("ETA", "H"),
    ("IOTA", "I"), ("KAPPA", "K"), ("MU", "M"), ("NU", "N"), ("OMICRON", "O"), ("RHO", "P"),
    ("TAU", "T"), ("CHI", "X"))})


def _greek(c: str) -> str | None:
    """A Greek letter as a math command (``\\theta``, ``\\Omega``), or None."""
    name = unicodedata.name(c, "")
    for prefix, table in (("GREEK SMALL LETTER ", _GREEK_SMALL),
                          ("GREEK CAPITAL LETTER ", _GREEK_CAPITAL)):
        if name.startswith(prefix):
            return table.get(name[len(prefix):])
    return None


def _unicode_tex(c: str) -> str:
    """One non-ASCII character as LaTeX that pdflatex's default fonts can set."""
    if c in _SPECIAL:
        return _SPECIAL[c]
    letter = _greek(c)
    if letter is not None:
        return rf"\ensuremath{{{letter}}}"
    decomposed = unicodedata.normalize("NFD", c)
    base, marks = decomposed[0], decomposed[1:]
    if marks and base.isascii() and base.isalpha() and all(m in _ACCENTS for m in marks):
        text = base
        for mark in marks:
            text = f"{_ACCENTS[mark]}{{{text}}}"
        return text
    letter = _greek(base)
    if marks and letter is not None and all(m in _GREEK_ACCENTS for m in marks):
        for mark in marks:
            letter = f"{_GREEK_ACCENTS[mark]}{{{letter}}}"
        return rf"\ensuremath{{{letter}}}"
    return f"[U+{ord(c):04X}]"   # shown as its code point rather than dropped


def pdflatex_text(text: Any) -> str:
    """``text`` as ASCII LaTeX text that shows it as typed with pdflatex's default fonts:
    special characters escaped, accented letters and Greek letters as commands, other
    characters as ``[U+XXXX]``.

    >>> print(pdflatex_text("\\\\input{x} 50% é θ"))
    \\textbackslash{}input\\{x\\}\\ 50\\%\\ \\'{e}\\ \\ensuremath{\\theta}
    """
    out = []
    for c in visible(text):
        if c in _OT1:
            out.append(_OT1[c])
        elif c.isascii():
            out.append(text_tex(c))
        else:
            out.append(_unicode_tex(c))
    return "".join(out)


# -- colours ---------------------------------------------------------------------------------
def _colour_names() -> dict[str, str]:
    """``#rrggbb`` -> the TikZ colour name it gets: the domain's or joint type's name, or
    what vecnet uses it for."""
    names = {"#000000": "black", "#ffffff": "white", LINK_COLOUR: "vn-link",
             DATUM_FILL: "vn-datum", BODY_FILL: "vn-body", LEGEND_FRAME: "vn-legend"}
    for domain, colour in DOMAIN_COLOURS.items():
        names.setdefault(colour.lower(), f"vn-{domain}")
    for joint, style in joint_styles().items():
        names.setdefault(style.colour.lower(), "vn-" + joint.replace(" ", "-"))
    return names


_NAMED = {"black": "#000000", "white": "#ffffff", "transparent": "#fffffe00", "none": "#fffffe00"}
_HEX = re.compile(r"#([0-9a-fA-F]{6})([0-9a-fA-F]{2})?")


def _rgba(colour: Any) -> tuple[str, float]:
    """An xdot colour -> (``#rrggbb``, opacity). A gradient is drawn in its first colour."""
    if isinstance(colour, dict):
        if colour.get("grad", "none") != "none":
            stops = colour.get("stops") or [{}]
            colour = stops[0].get("color", "#000000")
        else:
            colour = colour.get("color", "#000000")
    text = _NAMED.get(str(colour).lower(), str(colour))
    match = _HEX.fullmatch(text)
    if match is None:
        raise GraphvizError(f"Graphviz drew with the colour {colour!r}, which the TikZ export "
                            "does not know (it reads #rrggbb colours)")
    alpha = int(match[2], 16) / 255 if match[2] else 1.0
    return "#" + match[1].lower(), alpha


# -- drawing state and numbers ---------------------------------------------------------------
@dataclass
class _Pen:
    """The xdot drawing state: pen and fill colour (``#rrggbb``, opacity), line style and
    width, font size, face and flags. Each operation list starts from the defaults."""

    pen: tuple[str, float] = ("#000000", 1.0)
    fill: tuple[str, float] = ("#000000", 1.0)
    dash: str = "solid"
    width: float = 1.0
    size: float = 14.0
    face: str = "Times-Roman"
    flags: int = 0
    invisible: bool = False


def _num(value: float) -> str:
    """A coordinate to 1/100 point, without trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _font(pen: _Pen, scale: float) -> str:
    face = pen.face.lower()
    family = (r"\ttfamily" if "courier" in face or "mono" in face
              else r"\rmfamily" if "times" in face or ("serif" in face and "sans" not in face)
              else r"\sffamily")
    shape = ""
    if pen.flags & 1 or "bold" in face:
        shape += r"\bfseries"
    if pen.flags & 2 or "italic" in face or "oblique" in face:
        shape += r"\slshape" if family == r"\sffamily" else r"\itshape"
    size = pen.size * scale
    return rf"\fontsize{{{_num(size)}bp}}{{{_num(1.2 * size)}bp}}\selectfont{family}{shape}"


class _Writer:
    """Writes the TikZ of one laid-out graph (the JSON of ``dot -Tjson``)."""

    def __init__(self, layout: dict[str, Any]) -> None:
        self.layout = layout
        self.names = _colour_names()
        self.used: dict[str, str] = {}      # TikZ colour name -> #rrggbb, in order of use
        x0, y0, x1, y1 = (float(v) for v in str(layout["bb"]).split(","))
        size = max(x1 - x0, y1 - y0, 1.0)
        # a layout larger than a page can be is scaled down to one (text and lines too)
        self.scale = min(1.0, MAX_SIZE / (size + 2 * 72 * self._pad()))

    def _pad(self) -> float:
        try:
            return float(str(self.layout.get("pad", "0.0555")).split(",")[0])
        except ValueError:
            return 0.0555

    # numbers and colours
    def point(self, p: Sequence[float]) -> str:
        return f"({_num(p[0] * self.scale)},{_num(p[1] * self.scale)})"

    def length(self, value: float) -> str:
        return _num(value * self.scale)

    def colour(self, hex_colour: str) -> str:
        name = self.names.get(hex_colour, "vn-" + hex_colour[1:])
        if name not in ("black", "white"):
            self.used.setdefault(name, hex_colour)
        return name

    def dash(self, dash: str, width: float) -> list[str]:
        options = [f"line width={self.length(width)}bp"]
        if dash in _DASHES:
            on, off = _DASHES[dash]
            options.append(f"dash pattern=on {self.length(on)}bp off {self.length(off)}bp")
        return options

    # the document
    def document(self, graph_name: str) -> str:
        layout = self.layout
        count = int(layout.get("_subgraph_cnt", 0))
        objects = layout.get("objects", [])
        clusters = [o for o in objects[:count] if o.get("_draw_") or o.get("_ldraw_")]
        nodes = objects[count:]
        body: list[str] = []
        box = self._bounding_box()
        if box:
            body.append(box)
        for cluster in clusters:
            body += self.comment(cluster.get("id") or cluster.get("name", ""))
            body += self.ops(cluster.get("_draw_", []))
            body += self.ops(cluster.get("_ldraw_", []))
        for node in nodes:
            lines = self.ops(node.get("_draw_", [])) + self.ops(node.get("_ldraw_", []))
            position = node.get("pos")
            graph_node = str(node.get("id", "")).startswith("node-")
            if position and graph_node:
                # a name to draw more with, e.g. \draw (n3) circle (20);
                x, y = (float(v) for v in str(position).split(","))
                lines.insert(0, rf"\coordinate (n{int(node['_gvid'])}) at {self.point((x, y))};")
            if lines:
                body += self.comment(node.get("id") or node.get("name", "")) + lines
        for edge in layout.get("edges", []):
            role = _role(edge)
            lines = self.ops(edge.get("_draw_", []), role)
            for key in ("_tdraw_", "_hdraw_", "_ldraw_", "_tldraw_", "_hldraw_"):
                lines += self.ops(edge.get(key, []))
            if lines:
                body += self.comment(edge.get("id") or "edge") + lines
        title_lines = self.ops(layout.get("_ldraw_", []))
        if title_lines:
            body += self.comment("title") + title_lines
        title = " ".join(op.get("text", "") for op in layout.get("_ldraw_", [])
                         if op.get("op") == "T")
        return self._wrap(title or graph_name, body)

    def _bounding_box(self) -> str:
        """The page: the graph's background polygon (the layout with its pad), not filled."""
        for op in self.layout.get("_draw_", []):
            if op.get("op") in ("P", "p") and len(op.get("points", [])) >= 3:
                xs = [p[0] for p in op["points"]]
                ys = [p[1] for p in op["points"]]
                return (rf"\useasboundingbox {self.point((min(xs), min(ys)))} rectangle "
                        f"{self.point((max(xs), max(ys)))};")
        return ""

    @staticmethod
    def comment(text: Any) -> list[str]:
        """A comment line naming the object (its Graphviz id: ``node-g``, ``edge-R3``,
        ``legend-tree``): ASCII, and one line, as TeX skips it to the line's end."""
        return ["% " + visible(text).encode("ascii", "backslashreplace").decode("ascii")]

    def _wrap(self, title: str, body: list[str]) -> str:
        styles = []
        for name, attrs in _ROLES:
            options = ["solid", *self.dash(attrs["style"], float(attrs["penwidth"]))]
            styles.append(f"  {name}/.style={{{', '.join(options)}}},")
        # the colours the drawing uses, in the order of first use
        colours = [rf"\definecolor{{{name}}}{{HTML}}{{{hex_colour[1:].upper()}}}"
                   for name, hex_colour in self.used.items()]
        return "\n".join([
            *self.comment(f"{title}: a vecnet diagram laid out by Graphviz dot, drawn with TikZ."),
            "% Compile with pdflatex. The tikzpicture needs only \\usepackage{tikz}: copy it",
            "% into notes as it is, or include the PDF.",
            "% fix-cm: Computer Modern at any size (the SVG's 9, 10, 11, 14 bp);",
            "% preview: the page is the picture.",
            r"\RequirePackage{fix-cm}",
            r"\documentclass{article}",
            r"\usepackage{tikz}",
            r"\usepackage[active,tightpage]{preview}",
            r"\PreviewEnvironment{tikzpicture}",
            r"\setlength{\PreviewBorder}{0pt}",
            "% room for a picture of any size (the page is then cut to it)",
            r"\setlength{\textwidth}{\maxdimen}",
            r"\setlength{\textheight}{\maxdimen}",
            r"\begin{document}",
            r"\begin{tikzpicture}[x=1bp, y=1bp, line width=1bp, miter limit=4]",
            *colours,
            r"\tikzset{",
            *styles,
            "  vn text/.style={inner sep=0pt, outer sep=0pt},",
            "}",
            *body,
            r"\end{tikzpicture}",
            r"\end{document}",
            "",
        ])

    # xdot operations -> TikZ paths
    def ops(self, operations: Iterable[dict[str, Any]], role: str | None = None) -> list[str]:
        """TikZ lines for one xdot operation list; ``role`` (a style name) replaces the line
        style and width of the strokes (an edge's body: tree branch, chord or link)."""
        pen = _Pen()
        lines: list[str] = []
        filling = False   # whether a fill colour was set: see the Bézier curves below
        for op in operations:
            kind = op.get("op")
            if kind in ("B", "b"):
                # dot's JSON writer swaps xdot's letters of the filled ('b') and unfilled
                # ('B') curves (edges come out as 'b'); dot sets a fill colour before every
                # filled shape, so that decides
                kind = "b" if filling else "B"
            if kind == "c":
                pen.pen = _rgba(op.get("color", op))
            elif kind == "C":
                pen.fill = _rgba(op.get("color", op))
                filling = True
            elif kind == "S":
                self._style(pen, str(op.get("style", "")))
            elif kind == "F":
                pen.size, pen.face = float(op.get("size", pen.size)), str(op.get("face", pen.face))
            elif kind == "t":
                pen.flags = int(op.get("fontchar", 0))
            elif kind == "T":
                if not pen.invisible:
                    lines.append(self._text(op, pen))
            elif kind in ("E", "e", "P", "p", "L", "B", "b"):
                if not pen.invisible:
                    line = self._shape(kind, op, pen, role)
                    if line:
                        lines.append(line)
            elif kind in ("I", None):   # dot's JSON writes an image as an empty object
                raise OutputError("the TikZ export draws no images (a Graphviz 'image' "
                                  "attribute); vecnet's diagrams have none")
            else:
                raise GraphvizError(f"Graphviz drew an operation {kind!r} that the TikZ "
                                    "export does not know")
        return lines

    @staticmethod
    def _style(pen: _Pen, style: str) -> None:
        if style in ("solid", "dashed", "dotted"):
            pen.dash = style
        elif style == "bold":
            pen.width = 2.0
        elif style == "invis":
            pen.invisible = True
        elif style.startswith("setlinewidth("):
            try:
                pen.width = float(style[len("setlinewidth("):].rstrip(")"))
            except ValueError:
                raise GraphvizError(f"Graphviz drew with the line style {style!r}") from None
        # 'filled', 'rounded' and the like are already in the shapes dot drew

    def _paint(self, pen: _Pen, fill: bool, role: str | None) -> list[str]:
        options = []
        colour, alpha = pen.pen
        if alpha > 0:
            options.append(f"draw={self.colour(colour)}")
            if alpha < 1:
                options.append(f"draw opacity={alpha:.3g}")
            options += [role] if role else self.dash(pen.dash, pen.width)
        if fill:
            colour, alpha = pen.fill
            if alpha > 0:
                options.append(f"fill={self.colour(colour)}")
                if alpha < 1:
                    options.append(f"fill opacity={alpha:.3g}")
        return options

    def _shape(self, kind: str, op: dict[str, Any], pen: _Pen, role: str | None) -> str:
        fill = kind in ("E", "P", "b")
        options = self._paint(pen, fill, role)
        if not options:
            return ""
        if kind in ("E", "e"):
            x, y, rx, ry = (float(v) for v in op["rect"])
            path = f"{self.point((x, y))} ellipse ({self.length(rx)} and {self.length(ry)})"
        else:
            points = [self.point(p) for p in op["points"]]
            if not points:
                return ""
            if kind in ("B", "b"):
                # a piecewise cubic Bézier: the start, then three points a piece
                pieces = [points[0]]
                for i in range(1, len(points) - 2, 3):
                    pieces.append(f".. controls {points[i]} and {points[i + 1]} .. "
                                  f"{points[i + 2]}")
                path = " ".join(pieces)
            else:
                path = " -- ".join(points)
            if kind in ("P", "p", "b"):
                path += " -- cycle"
        return rf"\path[{', '.join(options)}] {path};"

    def _text(self, op: dict[str, Any], pen: _Pen) -> str:
        anchor = {"l": "base west", "r": "base east"}.get(str(op.get("align", "c")), "base")
        colour, alpha = pen.pen
        options = ["vn text", f"anchor={anchor}", f"text={self.colour(colour)}"]
        if alpha < 1:
            options.append(f"text opacity={alpha:.3g}")
        options.append("font=" + _font(pen, self.scale))
        text = pdflatex_text(op.get("text", ""))
        return rf"\node[{', '.join(options)}] at {self.point(op['pt'])} {{{text}}};"


def _role(edge: dict[str, Any]) -> str | None:
    """The style of an edge whose DOT attributes are those of a tree branch, chord or
    transducer link, else None."""
    for name, attrs in _ROLES:
        if all(str(edge.get(k)) == attrs[k] for k in ("style", "penwidth")):
            return name
    return None

