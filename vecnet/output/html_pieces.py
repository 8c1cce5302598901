"""The pieces a report page is made of: display formulas, sections, figures, plots as
SVG and the SVG cleaner that keeps only drawing elements. Shared by the network and the
mechanism parts of :mod:`vecnet.output.report`."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from typing import Any

from .response_plots import figure_file, use_agg

__all__ = ["LATEX_LIMIT", "FORMULA_WIDTH", "math_block", "section", "figure", "plot_svg",
           "safe_svg"]

#: LaTeX longer than this (characters) is listed as text only: KaTeX would take seconds.
LATEX_LIMIT = 40_000
#: Width, in em of the formulas' font, that rows of equations are broken to and matrices
#: are cut into blocks of columns at: it fits the page's column on screen and an A4 or
#: letter page in print (the page's script shrinks what is still wider).
FORMULA_WIDTH = 40.0


def math_block(tex: str, listing: str) -> str:
    """A display formula: the LaTeX ``tex`` as the text of a ``pre.tex`` element, which
    the page's script typesets (the source is what shows without scripts), or the plain
    text ``listing`` when ``tex`` is too long to typeset quickly."""
    if len(tex) > LATEX_LIMIT:
        return f"<pre>{html.escape(listing)}</pre>"
    return f'<pre class="tex">{html.escape(tex, quote=False)}</pre>'

def section(title: str, content: str) -> str:
    """A titled section of the page."""
    kind = ' class="explorer"' if title == "Tree explorer" else ""
    return f"<section{kind}><h2>{html.escape(title)}</h2>{content}</section>"

# -- SVG: parsed and written again with drawing elements only -----------------------------
_SVG = "http://www.w3.org/2000/svg"
_XLINK = "http://www.w3.org/1999/xlink"
#: What Graphviz, matplotlib and :func:`vecnet.output.picture.animation_svg` draw with; other
#: elements (metadata, foreignObject, script, set, iframe ...) are left out with everything
#: inside them.
_SVG_ELEMENTS = frozenset(
    "svg g defs title desc path polygon polyline ellipse circle rect line text tspan "
    "clipPath use style a animate".split())
#: The attributes an ``<animate>`` may change: geometry only (animating a link's target
#: or an event attribute would be a way to run code).
_ANIMATED = frozenset("points cx cy r x y x1 y1 x2 y2 width height opacity".split())


def safe_svg(svg_text: str) -> str:
    """The ``<svg>`` element of ``svg_text`` without comments, processing instructions,
    elements outside :data:`_SVG_ELEMENTS`, event handlers (``on...``), or links other
    than to a fragment of the picture itself (``#id``); ``""`` if it does not parse."""
    try:
        root = ET.fromstring(svg_text.encode("utf-8", "backslashreplace"))
    except ET.ParseError:
        return ""
    if root.tag != f"{{{_SVG}}}svg":
        return ""
    _clean_svg(root)
    root.set("xmlns", _SVG)
    root.set("xmlns:xlink", _XLINK)
    out: list[str] = []
    _write_svg(root, out)
    return "".join(out)


def _clean_svg(element: ET.Element) -> None:
    for child in list(element):
        namespace, _, local = child.tag.rpartition("}")
        if namespace != "{" + _SVG or local not in _SVG_ELEMENTS or (
                local == "animate" and child.get("attributeName") not in _ANIMATED):
            element.remove(child)
        else:
            _clean_svg(child)
    for key in list(element.attrib):
        namespace, _, local = key.rpartition("}")
        value = element.attrib[key]
        keep = (namespace in ("", "{" + _XLINK) and not local.lower().startswith("on")
                and (local != "href" or value.startswith("#")))
        if not keep:
            del element.attrib[key]


def _write_svg(element: ET.Element, out: list[str]) -> None:
    """Serialize a cleaned SVG tree as HTML-embeddable markup: unprefixed SVG element names
    (the HTML parser knows no namespaces), ``xlink:`` attributes, everything escaped.
    (ElementTree's own writer would either prefix the elements or refuse the
    unqualified attributes.)"""
    tag = element.tag.rpartition("}")[2]
    attributes = "".join(
        f' {("xlink:" if key.startswith("{" + _XLINK) else "") + key.rpartition("}")[2]}'
        f'="{html.escape(value)}"' for key, value in element.attrib.items())
    out.append(f"<{tag}{attributes}>{html.escape(element.text or '', quote=False)}")
    for child in element:
        _write_svg(child, out)
    out.append(f"</{tag}>{html.escape(element.tail or '', quote=False)}")

def figure(svg_text: str, caption: str) -> str:
    """A picture (cleaned by :func:`safe_svg`) with its caption."""
    picture = safe_svg(svg_text) or '<p class="note">(The picture could not be embedded.)</p>'
    return f"<figure>{picture}<figcaption>{html.escape(caption)}</figcaption></figure>"

def plot_svg(res: Any, names: Any, units: Any = None) -> str:
    """The plot of :meth:`~vecnet.numerics.result.Result.plot` as SVG text."""
    _agg()
    return _svg(res.plot(names, units=units).figure)


def bode_svg(response: Any, title: str = "") -> str:
    """The Bode plot of :meth:`~vecnet.numerics.analysis.FrequencyResponse.plot` as SVG
    text."""
    _agg()
    return _svg(response.plot(title=title)[0].figure)


def _agg() -> None:
    """matplotlib drawing into files, whatever backend a session has chosen."""
    use_agg()


def _svg(fig: Any) -> str:
    """A matplotlib figure as SVG text, the figure closed."""
    return figure_file(fig, "svg").decode("utf-8")
