"""Teaching reports: one self-contained HTML page with every step of a formulation.

The page needs no LaTeX and no network: the diagram and the plots are inline
SVG, matrices are labelled HTML tables, equations are aligned text listings
and presentation MathML (which browsers render natively).

Names in a model are data, never markup, whatever characters they hold: every
piece of the page is escaped where it is embedded (text and attributes), the
MathML is rebuilt element by element from sympy's printer with the names as
text nodes, and the SVG of the diagram and the plots is parsed and written
again keeping only drawing elements (no scripts, event handlers, foreign
content or links out of the picture). As a second wall the page carries a
Content-Security-Policy that allows no script at all and loads nothing.
"""

from __future__ import annotations

import html
import io
import os
import tempfile
import xml.dom
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import sympy
from sympy.core.function import AppliedUndef
from sympy.printing.mathml import MathMLPresentationPrinter
from sympy.printing.printer import Printer

from .errors import ModelError
from .matrix import LabeledMatrix
from .network import Network
from .planar.mechanism import Mechanism
from .spatial.mechanism import Mechanism as SpatialMechanism

__all__ = ["report", "write_atomically", "CONTENT_SECURITY_POLICY"]

#: Expressions with more operations than this are listed as text only.
MATHML_LIMIT = 400
#: Graphs with more edges than this are not drawn (Graphviz's layout time grows steeply:
#: about 20 s for 400 edges of a ladder); the matrices and equations are still listed.
DIAGRAM_EDGE_LIMIT = 200

#: The page has no scripts and loads nothing: only inline styles (the style sheet and the
#: SVG's style attributes) and data: images are allowed; no base URL, no form target.
CONTENT_SECURITY_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                           "base-uri 'none'; form-action 'none'")

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem;
       color: #222; line-height: 1.4; }
h1 { border-bottom: 2px solid #345; } h2 { color: #345; margin-top: 2rem; }
table.matrix { border-collapse: collapse; font-family: monospace; margin: 0.5rem 0; }
table.matrix td, table.matrix th { padding: 0.1rem 0.45rem; text-align: right; }
table.matrix th { color: #567; font-weight: normal; }
table.matrix td.split { border-left: 2px solid #888; }
table.matrix td.zero { color: #bbb; }
pre { background: #f6f7f9; padding: 0.6rem; overflow-x: auto; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; }
math { font-size: 1.1em; } .note { color: #666; font-size: 0.9em; }
"""


def write_atomically(path: str | os.PathLike, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, so that a
    failure never leaves a partial file behind. A new file gets the permissions of the
    user's umask (0644 under umask 022); a replaced file keeps its own."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".vecnet-", suffix=".tmp")
    try:
        # mkstemp makes the file private (0600); the result gets the mode of the file it
        # replaces, or of a new file under the user's umask, as open() would give
        try:
            permissions = os.stat(path).st_mode & 0o7777
        except OSError:
            mask = os.umask(0o022)
            os.umask(mask)
            permissions = 0o666 & ~mask
        os.chmod(fd, permissions)
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def report(model: Any, path: str | os.PathLike | None = None, tree: Any = None,
           simulate: bool = True, title: str | None = None) -> str:
    """The HTML report of a model: diagram, incidence and reduced incidence matrices, tree,
    cutset and circuit matrices, the three equation sets, the state or multibody
    equations and simulation plots.

    Parameters
    ----------
    model : vecnet.io.Model, Network or Mechanism
    path : path, optional
        Where to write the page (atomically).
    tree : optional
        Networks: ``"normal"`` (default), ``"auto"`` or branch names; mechanisms:
        ``"joint"`` (default) or ``"absolute"``.
    simulate : bool
        Include simulation plots (model files give the time span; otherwise 1 s).

    Returns
    -------
    str
        The HTML text.

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("Vs", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
    ...             vn.Capacitor("C", "g", "b", C=1.0))
    >>> "<table class=\\"matrix\\"" in report(net, simulate=False)
    True
    """
    from .io.model import Model

    if isinstance(model, (Network, Mechanism, SpatialMechanism)):
        kind = "network" if isinstance(model, Network) else "mechanism"
        model = Model(kind, model)
    if not isinstance(model, Model):
        raise ModelError(f"report needs a model, a Network or a planar or spatial Mechanism; "
                         f"got {type(model).__name__}")
    body = _network(model, tree, simulate) if model.kind == "network" else \
        _mechanism(model, tree, simulate)
    name = html.escape(title or model.name)
    page = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" '
            f'content="{html.escape(CONTENT_SECURITY_POLICY)}">'
            f"<title>{name} — vecnet report</title><style>{_STYLE}</style></head><body>"
            f"<h1>{name}</h1>"
            + (f"<p>{html.escape(model.description)}</p>" if model.description else "")
            + body + '<p class="note">Made by vecnet.</p></body></html>\n')
    # a lone surrogate (from a name) cannot be written as UTF-8: show it as \udxxx text
    page = page.encode("utf-8", "backslashreplace").decode("utf-8")
    if path is not None:
        write_atomically(path, page)
    return page


def _network(model, tree, simulate: bool) -> str:
    from .teaching import text

    net = model.system
    tree = tree or model.tree or "normal"
    eqs = net.equations(tree=tree)
    topo = eqs.topology
    parts = [_section("Linear graph", _diagram(net, topo))]
    parts.append(_topology(topo))
    counts = eqs.counts
    parts.append(_section(
        "The three equation sets",
        f"<p>{counts['unknowns']} unknowns: {counts['cutset']} cutset, {counts['circuit']} "
        f"circuit and {counts['terminal']} terminal equations.</p>"
        + _pre("Cutset equations", text(eqs.cutset)) + _pre("Circuit equations", text(eqs.circuit))
        + _pre("Terminal equations", text(eqs.terminal))))
    ss = model.state_space()
    state = f"<pre>{html.escape(ss.diagnosis())}</pre>" + "".join(
        _math(eq) for eq in ss.state_equations())
    if ss.is_linear:
        for name in ("A", "B", "C", "D"):
            state += f"<p>{name} = {_math(getattr(ss, name), inline=True)}</p>"
    parts.append(_section("State equations", state))
    if simulate:
        res = model.simulate(t_span=model.t_span or (0.0, 1.0))
        names = model.outputs or list(ss.states)[:4]
        parts.append(_section("Simulation", _figure(_plot(res, names), "Simulated response.")))
    return "".join(parts)


def _mechanism(model, tree, simulate: bool) -> str:
    mech = model.system
    coordinates = tree if tree in ("joint", "absolute") else model.coordinates
    eom = mech.formulate(coordinates=coordinates)
    topo = eom.topology
    parts = [_section("Vector network", _diagram(mech, topo))]
    parts.append(_topology(topo))
    dynamics = (f"<p>Coordinates ({len(eom.q)}): {html.escape(', '.join(eom.coordinates))}</p>"
                + "<p>Constraints from the circuits of the cut joints:</p>"
                + "".join(_math(sympy.Eq(c, 0), label=n)
                          for n, c in zip(eom.constraint_names, eom.constraints))
                + _law(eom)
                + f"<p>M = {_math(eom.M, inline=True)}</p><p>Q = {_math(eom.Q, inline=True)}</p>")
    parts.append(_section("Equations of motion", dynamics))
    if simulate:
        t_end = float((model.t_span or (0.0, 1.0))[1])
        res = model.simulate(t_span=(0.0, t_end)) if model.t_span else eom.simulate(t_end)
        spatial = isinstance(mech, SpatialMechanism)
        names = [f"{b}.{'z' if spatial else 'angle'}" for b in mech.bodies][:4]
        caption = "Heights of the mass centres." if spatial else "Body angles."
        parts.append(_section("Simulation", _figure(_plot(res, names), caption)
                              + _figure(_plot(res, ["energy"]), "Total energy.")))
    return "".join(parts)


def _law(eom) -> str:
    """The equations of motion in words: when the speeds are the coordinates' rates, in
    q''; otherwise in speeds u with q' = N(q) u (quaternion rates from ω)."""
    phi = "Φ<sub>{}</sub><sup>T</sup> λ"
    if eom.speeds_are_rates:
        return f"<p>Equations of motion M(q) q'' = Q(q, q', t) + {phi.format('q')} with</p>"
    return (f"<p>Speeds ({len(eom.u)}): {html.escape(', '.join(eom.speed_names))}</p>"
            f"<p>Equations of motion q' = N(q) u, M(q) u' = Q(q, u, t) + {phi.format('u')} "
            "with</p>")


def _diagram(system: Network | Mechanism, topo) -> str:
    """The diagram with the tree of ``topo``, or a note why it is left out (too large, or
    Graphviz stopped after :data:`vecnet.draw.DOT_TIMEOUT`)."""
    from .draw import GraphvizTimeoutError, svg

    edges = topo.graph.number_of_edges()
    if edges > DIAGRAM_EDGE_LIMIT:
        return (f'<p class="note">The diagram is left out: {edges} edges, more than '
                f"{DIAGRAM_EDGE_LIMIT} (vn.draw or the draw command still write it).</p>")
    try:
        picture = svg(system, tree=list(topo.branches))
    except GraphvizTimeoutError as exc:
        return f'<p class="note">The diagram is left out: {html.escape(str(exc))}</p>'
    return _figure(picture, "Tree branches solid, chords dashed.")


def _topology(topo) -> str:
    return _section(
        "Topology",
        _table("Incidence matrix [IN]", topo.incidence)
        + _table("Reduced incidence matrix [A] "
                 f"(datum {html.escape(', '.join(map(str, topo.datum)))})",
                 topo.reduced_incidence)
        + f"<p>Tree: {html.escape(', '.join(topo.branches))}<br>Cotree: "
          f"{html.escape(', '.join(topo.chords))}</p>"
        + _table("Fundamental cutset matrix [CU] = [1 | A<sub>c</sub>]", topo.cutset)
        + _table("Fundamental circuit matrix [CI] = [B<sub>t</sub> | 1]", topo.circuit))


def _section(title: str, content: str) -> str:
    return f"<section><h2>{html.escape(title)}</h2>{content}</section>"


def _table(caption: str, m: LabeledMatrix) -> str:
    """A labelled matrix as an HTML table; ``caption`` is markup (escape names in it)."""
    values = m.toarray()
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in m.columns)
    rows = []
    for label, line in zip(m.rows, values):
        cells = []
        for j, x in enumerate(line):
            classes = (["split"] if m.split is not None and j == m.split else []) + \
                (["zero"] if x == 0 else [])
            attr = f' class="{" ".join(classes)}"' if classes else ""
            cells.append(f"<td{attr}>{int(x) if float(x).is_integer() else x}</td>")
        rows.append(f"<tr><th>{html.escape(str(label))}</th>{''.join(cells)}</tr>")
    return (f'<p>{caption}</p><table class="matrix"><tr><th></th>{head}</tr>'
            + "".join(rows) + "</table>")


def _pre(title: str, listing: str) -> str:
    return f"<p>{html.escape(title)}:</p><pre>{html.escape(listing)}</pre>"


def _math(expr: Any, inline: bool = False, label: str | None = None) -> str:
    """``expr`` as presentation MathML (or as escaped text when too large to typeset)."""
    prefix = f"<span class=\"note\">{html.escape(label)}</span>" if label else ""
    if sympy.count_ops(expr) > MATHML_LIMIT:
        return f"{prefix}<pre>{html.escape(str(expr))}</pre>"
    try:
        math = _mathml(expr)
    except ValueError:  # something the whitelist does not know: show the text instead
        return f"{prefix}<pre>{html.escape(str(expr))}</pre>"
    math.set("display", "inline" if inline else "block")
    return prefix + ET.tostring(math, encoding="unicode")


# -- MathML: sympy's printer, rebuilt with names as text ---------------------------------
class _MathMLPrinter(MathMLPresentationPrinter):
    """sympy's presentation printer, with the text of symbol and function names marked.

    sympy writes every text node raw, so that its own entity references (``&dd;``,
    ``&InvisibleTimes;``) pass through; a name is then markup. This printer marks the
    text nodes that hold names, so that :func:`_mathml` keeps them as they are (text)
    and only turns sympy's own text from markup into characters.
    """

    def __init__(self, settings: dict | None = None) -> None:
        super().__init__(settings)
        self._names = False
        raw_text = self.dom.createTextNode

        def create_text(data: str) -> Any:
            node = raw_text(data)
            node.is_name = self._names
            return node

        self.dom.createTextNode = create_text

    @contextmanager
    def _name_text(self) -> Iterator[None]:
        self._names, before = True, self._names
        try:
            yield
        finally:
            self._names = before

    def _print_Symbol(self, sym: Any, style: str = "plain") -> Any:
        with self._name_text():
            return super()._print_Symbol(sym, style)

    def _print_Function(self, e: Any) -> Any:
        if not isinstance(e, AppliedUndef):
            return super()._print_Function(e)
        # an undefined function (a user's name): the name as text, the arguments as usual
        name = self.dom.createElement("mi")
        with self._name_text():
            name.appendChild(self.dom.createTextNode(e.func.__name__))
        row = self.dom.createElement("mrow")
        row.appendChild(name)
        row.appendChild(self._paren_comma_separated(*e.args))
        return row


#: The presentation MathML elements and attributes sympy writes; anything else is refused.
_MATHML_ELEMENTS = frozenset(
    "math mrow mi mn mo ms mtext mspace msub msup msubsup mfrac msqrt mroot mfenced mtable "
    "mtr mtd mover munder munderover menclose mstyle mpadded mphantom merror".split())
_MATHML_ATTRIBUTES = frozenset(
    "display mathvariant notation columnalign open close separators stretchy fence accent "
    "accentunder linethickness form lspace rspace mathsize columnspacing rowspacing width "
    "height depth align frame displaystyle scriptlevel bevelled".split())


def _mathml(expr: Any) -> ET.Element:
    """``<math>`` for ``expr``, built as an element tree from sympy's DOM: names stay text
    (escaped when written), sympy's own text has its entity references resolved, and an
    element or attribute outside the MathML whitelist raises ValueError."""
    math = ET.Element("math")
    math.append(_from_dom(Printer._print(_MathMLPrinter(), expr)))
    return math


def _from_dom(node: Any) -> ET.Element:
    if node.tagName not in _MATHML_ELEMENTS:
        raise ValueError(f"unexpected MathML element {node.tagName!r}")
    attributes = {}
    for key, value in node.attributes.items():
        if key not in _MATHML_ATTRIBUTES:
            raise ValueError(f"unexpected MathML attribute {key!r}")
        attributes[key] = html.unescape(value)  # sympy's own values, e.g. open="&#x5B;"
    element = ET.Element(node.tagName, attributes)
    last: ET.Element | None = None
    for child in node.childNodes:
        if child.nodeType == xml.dom.Node.TEXT_NODE:
            text = child.data if getattr(child, "is_name", False) else html.unescape(child.data)
            if last is None:
                element.text = (element.text or "") + text
            else:
                last.tail = (last.tail or "") + text
        elif child.nodeType == xml.dom.Node.ELEMENT_NODE:
            last = _from_dom(child)
            element.append(last)
    return element


# -- SVG: parsed and written again with drawing elements only -----------------------------
_SVG = "http://www.w3.org/2000/svg"
_XLINK = "http://www.w3.org/1999/xlink"
#: What Graphviz and matplotlib draw with; other elements (metadata, foreignObject,
#: script, animation, iframe ...) are left out with everything inside them.
_SVG_ELEMENTS = frozenset(
    "svg g defs title desc path polygon polyline ellipse circle rect line text tspan "
    "clipPath use style a".split())


def _safe_svg(svg_text: str) -> str:
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
        if namespace != "{" + _SVG or local not in _SVG_ELEMENTS:
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


def _figure(svg_text: str, caption: str) -> str:
    picture = _safe_svg(svg_text) or '<p class="note">(The picture could not be embedded.)</p>'
    return f"<figure>{picture}<figcaption>{html.escape(caption)}</figcaption></figure>"


def _plot(res, names) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.5))
    try:
        for name in names:
            values = np.asarray(res[name])
            if values.ndim == 1:
                ax.plot(res.t, values, label=_plot_label(name))
        ax.set_xlabel("t [s]")
        ax.legend()
        ax.grid(True, alpha=0.3)
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", bbox_inches="tight")
    finally:
        plt.close(fig)
    return buffer.getvalue()


def _plot_label(name: str) -> str:
    """A legend entry shown as typed: ``$`` escaped (matplotlib would read math text
    between two of them, and fail on a bad one), lone surrogates as ``\\udxxx``, and a
    leading ``_`` (which hides an entry) guarded by a zero-width space."""
    from .draw import _plain

    text = _plain(name).replace("$", r"\$")
    return "\u200b" + text if text.startswith("_") else text
