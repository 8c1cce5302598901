"""Teaching reports: one self-contained HTML page with every step of a formulation.

The page needs no LaTeX and no network: the diagram and the plots are inline
SVG, and the matrices and equations are LaTeX (from :mod:`vecnet.output.teaching`)
typeset in the browser by KaTeX, whose script, style sheet and fonts are part
of the page (``vecnet/output/static/katex``). With scripts off, the LaTeX source is
shown instead. A network's page also has a tree explorer
(``vecnet/output/static/explorer.js``): clicking an edge of the diagram highlights its
fundamental circuit or cutset and shows its row of ``[CI]`` or ``[CU]`` for the
current tree, and a second click swaps a chord and a branch. A mechanism's page
(:mod:`vecnet.output.mechanism_report`) adds the vector network's equation sets, the
equations of motion, the diagnosis, the joint reactions and the motion; the pieces
of HTML both are made of are :mod:`vecnet.output.html_pieces`.

Names in a model are data, never markup, whatever characters they hold: every
piece of the page is escaped where it is embedded (text and attributes); names
in the LaTeX are escaped as LaTeX text by :mod:`vecnet.output.teaching`, and the LaTeX
itself is the text of an element, which KaTeX reads with ``trust: false`` (no
links, classes, styles or URLs from the source) and a bounded macro expansion.
The SVG of the diagram and the plots is parsed and written again keeping only
drawing elements (no scripts, event handlers, foreign content or links out of
the picture). As a second wall the page carries a Content-Security-Policy that
runs only the page's own two inline scripts, named by their SHA-256 hashes, and
loads nothing: fonts and images are data: URLs. The explorer's data (edge names and
ends, two trees) is JSON text with ``<``, ``>`` and ``&`` written as ``\\u003c``
escapes, read with ``JSON.parse``; the script writes names with ``textContent`` only.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from ..builders.network import Network
from ..builders.planar import Mechanism
from ..builders.spatial import Mechanism as SpatialMechanism
from ..core.files import check_output, write_atomically
from ..elements.controlled import ControlledSource
from ..elements.coupled_inductors import CoupledInductors
from ..errors import ModelError, UnsupportedNetwork, VecnetError
from ..formulation.lumped import StateSpace
from ..formulation.numeric import SparseStateSpace
from ..graph.matrix import LabeledMatrix
from .html_pieces import FORMULA_WIDTH, LATEX_LIMIT, figure, math_block, plot_svg, safe_svg, section
from .mechanism_report import (
    VECTOR_NETWORK_WORDS,
    MechanismListing,
    contact_figure,
    energy_figure,
    friction_figure,
    motion_figure,
)
from .pagefit import break_rows, column_blocks, tex_width

__all__ = ["report", "CONTENT_SECURITY_POLICY", "content_security_policy", "katex_assets",
           "with_parameters", "script_json"]

#: Labelled matrices with more cells than this are HTML tables rather than LaTeX.
MATRIX_CELL_LIMIT = 600
#: Labelled matrices with more cells than this are described (size, nonzero entries), not
#: shown: a table of a 1,000-edge network's incidence matrix would take megabytes.
MATRIX_SUMMARY_CELLS = 20_000
#: Graphs with more edges than this are not drawn (Graphviz's layout time grows steeply:
#: about 20 s for 400 edges of a ladder); the matrices and equations are still listed.
DIAGRAM_EDGE_LIMIT = 200
#: Matrices that would take more blocks of columns than this are HTML tables.
MATRIX_BLOCK_LIMIT = 3
#: The same for HTML tables (em of their monospace font).
TABLE_WIDTH = 56.0
#: KaTeX's bound on macro expansions per formula (its default is 1000; the LaTeX of a
#: report defines no macros, so this only stops a runaway).
MAX_EXPAND = 500

#: The policy without scripts: inline styles (the style sheets and the style attributes of
#: the SVG and of KaTeX's output), data: images and fonts; no base URL, no form target.
#: :func:`content_security_policy` adds the hashes of a page's own scripts.
CONTENT_SECURITY_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                           "font-src data:; base-uri 'none'; form-action 'none'")

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem;
       color: #222; line-height: 1.4; }
h1 { border-bottom: 2px solid #345; overflow-wrap: anywhere; } h2 { color: #345; margin-top: 2rem; }
p { overflow-wrap: anywhere; }
table.matrix { border-collapse: collapse; font-family: monospace; margin: 0.5rem 0; }
table.matrix td, table.matrix th { padding: 0.1rem 0.45rem; text-align: right; }
table.matrix th { color: #567; font-weight: normal; }
table.matrix td.split { border-left: 2px solid #888; }
table.matrix td.zero { color: #bbb; }
#explorer-row:empty { display: none; }
table.listing { border-collapse: collapse; margin: 0.5rem 0; }
table.listing th, table.listing td { padding: 0.15rem 0.6rem; border-bottom: 1px solid #e4e7eb;
                                     text-align: left; }
table.listing td { font-variant-numeric: tabular-nums; }
#reaction-table td { text-align: right; font-family: monospace; }
.fit { max-width: 100%; overflow: hidden; }
pre.tex.typeset, .fit { font-size: calc(var(--fit, 1) * 100%); }
pre { background: #f6f7f9; padding: 0.6rem; white-space: pre-wrap; overflow-wrap: anywhere; }
pre.tex.typeset { background: none; padding: 0.2rem 0; font-family: inherit; white-space: normal;
                  overflow: hidden; }
pre.tex .katex-display { margin: 0.4rem 0; text-align: left; }
pre.tex .katex-display > .katex { text-align: left; }
#explorer-details .katex-display { margin: 0.3rem 0; text-align: left; }
#explorer-details .katex-display > .katex { text-align: left; }
table.terminal pre.tex { margin: 0; } table.terminal .katex-display { margin: 0.1rem 0; }
#explorer-details h3 { font-size: 1rem; margin: 0.8rem 0 0.2rem; color: #345; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; }
.note { color: #666; font-size: 0.9em; }
.explorer-edge { cursor: pointer; }
.explorer-branch path { stroke-dasharray: none; stroke-width: 2px; }
.explorer-chord path { stroke-dasharray: 5,2; stroke-width: 1px; }
.explorer-plus path, .explorer-minus path { stroke-width: 3.5px; }
.explorer-plus path, .explorer-plus polygon { stroke: #d62728; }
.explorer-plus polygon, .explorer-plus text { fill: #d62728; }
.explorer-minus path, .explorer-minus polygon { stroke: #7b3fb0; }
.explorer-minus polygon, .explorer-minus text { fill: #7b3fb0; }
.explorer-selected text { font-weight: bold; text-decoration: underline; }
svg path.explorer-hit { stroke: transparent; stroke-width: 12px; stroke-dasharray: none;
                        fill: none; pointer-events: stroke; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 10pt; }
  section.explorer { display: none; }
  h2 { break-after: avoid; }
  figure, pre.tex, table { break-inside: avoid; }
  figure svg { max-height: 60vh; }
  pre.tex.typeset, .fit { font-size: calc(var(--fit-print, 1) * 100%); }
}
"""

#: The width, in CSS pixels, of a printed page's text (A4 or letter, less the browser's
#: margins): formulas and tables wider than this in print are shrunk to fit it.
PRINT_WIDTH = 680
#: The print style's body font size against the screen's (10 pt = 13.33 px against 16 px).
PRINT_SCALE = 0.8333

#: Renders every ``pre.tex`` in place (the source stays when KaTeX fails), then shrinks
#: every typeset formula and ``.fit`` box that is wider than its column (or than a printed
#: page) until it fits, again when the window changes or the page is printed. The
#: explorer uses the same KaTeX options and fitting (``vecnetPage``).
_TYPESET_SCRIPT = """(function () {
  "use strict";
  var options = {displayMode: true, throwOnError: false, trust: false, strict: "ignore",
                 maxExpand: %d, maxSize: 50};
  function render(source, element) {
    try {
      katex.render(source, element, options);
      element.classList.add("typeset");
    } catch (error) {
      element.textContent = source;
    }
  }
  // the width of what a box holds (typeset lines, tables), from its left edge
  function contentWidth(box) {
    var left = box.getBoundingClientRect().left, right = left;
    var parts = box.querySelectorAll(".katex-html > .base, .katex-html > .tag, table");
    for (var i = 0; i < parts.length; i++) {
      right = Math.max(right, parts[i].getBoundingClientRect().right);
    }
    // what overflows past the last part (an aligned column's spacing) counts too
    return Math.max(parts.length ? right - left : 0, box.scrollWidth);
  }
  // the scale of each box on screen (--fit) and in print (--fit-print), read by the style
  // sheet; measured on screen at full size, the print scale follows from the print style's
  // smaller font (measured in print, when the page is printed or print is emulated)
  function fit(root) {
    var printing = window.matchMedia && window.matchMedia("print").matches;
    var boxes = (root || document).querySelectorAll("pre.tex.typeset, .fit"), i, box;
    // all writes, then all reads, then all writes: one layout, however many boxes
    for (i = 0; i < boxes.length; i++) {
      boxes[i].style.removeProperty("--fit-print");
      if (!printing) boxes[i].style.removeProperty("--fit");
    }
    var sizes = [];
    for (i = 0; i < boxes.length; i++) sizes.push([boxes[i].clientWidth, contentWidth(boxes[i])]);
    for (i = 0; i < boxes.length; i++) {
      var have = sizes[i][0], need = sizes[i][1];
      box = boxes[i];
      if (!have || !need) continue;
      if (!printing && need > have + 1) {
        box.style.setProperty("--fit", Math.max(0.3, 0.98 * have / need));
      }
      var printed = printing ? need : need * %s, room = printing ? have : %d;
      if (printed > room) box.style.setProperty("--fit-print", Math.max(0.3, 0.98 * room / printed));
    }
  }
  var blocks = document.querySelectorAll("pre.tex");
  for (var i = 0; i < blocks.length; i++) render(blocks[i].textContent, blocks[i]);
  window.vecnetPage = {render: render, fit: fit};
  // once the fonts are in (they set the widths), and again a moment after the window
  // changes
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(function () { fit(); });
  else fit();
  var pending = 0;
  window.addEventListener("resize", function () {
    clearTimeout(pending);
    pending = setTimeout(function () { fit(); }, 100);
  });
  window.addEventListener("beforeprint", function () { fit(); });
})();""" % (MAX_EXPAND, PRINT_SCALE, PRINT_WIDTH)


def _packaged_script(name: str) -> str:
    """A script of ``vecnet/output/static``, checked to be embeddable in a ``<script>`` element."""
    script = (resources.files("vecnet.output") / "static" / name).read_text(encoding="utf-8")
    if "</script" in script.lower() or "<!--" in script:
        raise RuntimeError(f"the packaged {name} cannot be inlined in a <script> element")
    return script


#: The page's own script after KaTeX: typesets the formulas, then starts the tree
#: explorer when the page has one. One script, so that a page runs exactly two.
_RENDER_SCRIPT = _TYPESET_SCRIPT + "\n" + _packaged_script("explorer.js")

#: The KaTeX fonts in the package (woff2); the style sheet's other fonts are dropped.
_FONT_FACE = re.compile(r"@font-face\{[^}]*\}")
_FONT_FILE = re.compile(r"url\(fonts/(KaTeX_[A-Za-z0-9-]+)\.woff2\)")


def report(model: Any, path: str | os.PathLike | None = None, tree: Any = None,
           simulate: bool = True, title: str | None = None,
           matrix_form: bool | None = None,
           parameters: Mapping[Any, float] | None = None) -> str:
    """The HTML report of a model: diagram, a tree explorer (networks), incidence and reduced
    incidence matrices, tree, cutset and circuit matrices, the three equation sets, the
    state or multibody equations and simulation plots. Large systems get summaries (see
    :mod:`vecnet.output.teaching`): a network's state equations from its sparse numeric model,
    a mechanism's structure without its ``M`` and ``Q``, a huge matrix by its size and
    nonzero entries. The simulation runs first, so that a run refused before its work
    (a source far too fast for the span) is refused before the report's.

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
    title : str, optional
        The page's title (default: the model's name).
    matrix_form : bool, optional
        Mechanisms: ``True`` lists ``M`` and ``Q`` in full however many speeds there are,
        ``False`` the recursive form alone; by default ``M`` and ``Q`` when they fit on a
        page (as :func:`vecnet.latex` of the equations of motion).
    parameters : mapping, optional
        Numbers for parameters, by name or symbol (``{"R": 1e3}``): a symbolic network's
        element values, or a model file's declared parameters (the file read again with
        them). The equations stay in the symbols; the simulation, the transfer functions
        with values and the Bode plot use the numbers.

    Returns
    -------
    str
        The HTML text.

    Raises
    ------
    ModelError
        ``model`` is not a model, network or mechanism; a parameter's value is no finite
        real number.
    UnknownNameError
        ``parameters`` names a parameter the model does not have (the known ones listed).

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("Vs", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
    ...             vn.Capacitor("C", "g", "b", C=1.0))
    >>> '<pre class="tex">' in report(net, simulate=False)
    True
    """
    from ..builders.model import Model

    if isinstance(model, (Network, Mechanism, SpatialMechanism)):
        kind = "network" if isinstance(model, Network) else "mechanism"
        model = Model(kind, model)
    if not isinstance(model, Model):
        raise ModelError(f"report needs a model, a Network or a planar or spatial Mechanism; "
                         f"got {type(model).__name__}")
    if path is not None:
        check_output(path)   # before the work, not after it
    model = with_parameters(model, parameters)
    body = _network(model, tree, simulate) if model.kind == "network" else \
        _mechanism(model, tree, simulate, matrix_form)
    name = html.escape(title or model.name)
    katex_script, katex_style = katex_assets()
    scripts = [katex_script, _RENDER_SCRIPT]
    policy = content_security_policy(scripts)
    page = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy)}">'
            f"<title>{name} — vecnet report</title><style>{katex_style}</style>"
            f"<style>{_STYLE}</style></head><body>"
            f"<h1>{name}</h1>"
            + (f"<p>{html.escape(model.description)}</p>" if model.description else "")
            + body + '<p class="note">Made by vecnet; formulas typeset by KaTeX.</p>'
            + "".join(f"<script>{s}</script>" for s in scripts) + "</body></html>\n")
    # a lone surrogate (from a name) cannot be written as UTF-8: show it as \udxxx text
    page = page.encode("utf-8", "backslashreplace").decode("utf-8")
    if path is not None:
        write_atomically(path, page)
    return page


def with_parameters(model: Any, parameters: Mapping[Any, float] | None) -> Any:
    """``model`` with numbers for some of its parameters (by name or symbol): a model file
    read again with them (:func:`vecnet.load_model` checks them against its declared
    parameters), a network's or mechanism's values put over its declared ones.

    Raises
    ------
    ModelError
        A value that is no finite real number.
    UnknownNameError
        A name that is no parameter of the model.

    >>> import vecnet as vn
    >>> net = vn.Network("r")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0),
    ...             vn.Resistor("R", "a", "g", R=vn.Symbol("R")))
    >>> with_parameters(vn.Model("network", net), {"R": 2.0}).element_values
    {R: 2.0}
    """
    from dataclasses import replace

    from ..errors import UnknownNameError
    from ..io.model import load_model

    if not parameters:
        return model
    given = {}
    for name, value in parameters.items():
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = float("nan")
        if not np.isfinite(number) or isinstance(value, (bool, complex)):
            raise ModelError(f"parameter {str(name)!r} needs a finite real number; got {value!r}")
        given[str(name)] = number
    if model.document is not None:
        return load_model(model.document, parameters=given)
    known = set(model.parameters)
    if model.kind == "network":   # the elements' symbols, less the sources' values
        from ..formulation.lumped import network_inputs

        sources = {str(i.symbol) for i in network_inputs(model.system)}
        known |= {str(x) for x in model.system.parameter_symbols()} - sources
    changed = replace(model, parameters={**model.parameters, **given})
    if model.kind != "network":
        known |= {str(x) for x in changed.element_values}
    unknown = sorted(set(given) - known)
    if unknown:
        raise UnknownNameError(f"no parameter {unknown[0]!r} in {model.name!r}; its parameters "
                               f"are {', '.join(sorted(known)) or 'none'}")
    return changed


def content_security_policy(scripts: list[str]) -> str:
    """:data:`CONTENT_SECURITY_POLICY` with ``script-src`` allowing exactly the inline
    ``scripts`` (by the SHA-256 hash of their UTF-8 text); no scripts, no ``script-src``.

    >>> content_security_policy(["alert(1)"]).split("; ")[-1]
    "script-src 'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='"
    """
    if not scripts:
        return CONTENT_SECURITY_POLICY
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode() + "'"
        for s in scripts)
    return f"{CONTENT_SECURITY_POLICY}; script-src {hashes}"


@lru_cache(maxsize=1)
def katex_assets() -> tuple[str, str]:
    """KaTeX's script and its style sheet with the packaged fonts as data: URLs."""
    folder = resources.files("vecnet.output") / "static" / "katex"
    script = _packaged_script("katex/katex.min.js")

    def embedded(match: re.Match) -> str:
        rule = match.group(0)
        font = _FONT_FILE.search(rule)
        path = folder / "fonts" / f"{font.group(1)}.woff2" if font else None
        if path is None or not path.is_file():
            return ""  # a font the package leaves out: the browser's own is used
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        source = f'url(data:font/woff2;base64,{data}) format("woff2")'
        return re.sub(r"src:[^;}]*", lambda _: "src:" + source, rule)

    style = _FONT_FACE.sub(embedded, (folder / "katex.min.css").read_text(encoding="utf-8"))
    return script, style


def _network(model, tree, simulate: bool) -> str:
    net = model.system
    # first, so that a simulation refused before its work (a source too fast for the span)
    # is refused before the report's
    res = model.simulate(t_span=model.t_span or (0.0, 1.0)) if simulate else None
    tree = tree or model.tree or "normal"
    eqs = net.equations(tree=tree)
    topo = eqs.topology
    diagram, drawn = _diagram(net, topo)
    parts = [section("Linear graph", diagram)]
    if drawn:
        parts.append(section("Tree explorer", _explorer(net, topo)))
    parts.append(_topology(topo))
    counts = eqs.counts
    parts.append(section(
        "The three equation sets",
        f"<p>{counts['unknowns']} unknowns: {counts['cutset']} cutset, {counts['circuit']} "
        f"circuit and {counts['terminal']} terminal equations.</p>"
        + _equations(eqs)))
    ss = shown_state_space(net, model.tree or "normal", eqs.order, model.outputs,
                           model.element_values or None)
    diagnosis = ss.diagnosis() if isinstance(ss, StateSpace) else eqs.diagnosis()
    state = f'<pre class="diagnosis">{html.escape(diagnosis)}</pre>' + _equations(ss)
    parts.append(section("State equations", state))
    parts.append(section("Transfer functions and frequency response",
                         _transfer(model, ss)))
    if res is not None:
        names = model.outputs or list(ss.states)[:SHOWN_STATES]
        parts.append(section("Simulation", figure(plot_svg(res, names), "Simulated response.")
                             if names else "<p>Nothing to plot: the network stores no energy "
                             "(it has no states) and the model names no outputs.</p>"))
    return "".join(parts)


def _transfer(model, ss: StateSpace | SparseStateSpace) -> str:
    """``H(s)`` from every source of the state space ``ss`` to the model's outputs (to its
    first states when it names none), in the symbols and with the values, and the Bode plot
    over the poles' frequencies; or why they are left out (a nonlinear network, no source,
    no state)."""
    from ..numerics.analysis import frequency_response, pole_frequencies
    from .html_pieces import bode_svg
    from .teaching import transfer_functions

    net, tree = model.system, model.tree or "normal"
    outputs = list(model.outputs) or list(ss.states)[:SHOWN_STATES]
    why = ("the network has no source" if not ss.inputs else
           "the network has no output and stores no energy" if not outputs else
           "the network is nonlinear (linearize it: StateSpace.linearize)"
           if isinstance(ss, StateSpace) and (not ss.is_linear or ss.z) else None)
    if why:
        return f'<p class="note">No transfer function: {html.escape(why)}.</p>'
    which = ("the model's outputs" if model.outputs else
             ("every state" if len(ss.states) <= SHOWN_STATES else
              f"the first {SHOWN_STATES} states") + " (the model names no outputs)")
    out = (f"<p>H(s) = Y(s)/U(s) from each source to {which}, zero initial state; numerator "
           "and denominator in descending powers of s.</p>")
    if isinstance(ss, StateSpace):
        out += math_block(break_rows(transfer_functions(ss.with_outputs(outputs), "latex",
                                                        values=model.values), FORMULA_WIDTH), "")
    else:
        out += (f'<p class="note">{len(ss.states):,} states: H(s) is not listed symbolically; '
                "its frequency response follows.</p>")
    try:
        sparse = net.sparse_state_space(tree=tree, outputs=outputs,
                                        parameters=model.element_values or None)
        A = sparse.shifted()[0] if len(sparse.states) <= BODE_DENSE_STATES else None
        response = frequency_response(sparse, pole_frequencies(A), outputs=outputs)
    except VecnetError as exc:   # a nonlinear element, a parameter without a value ...
        return out + f'<p class="note">(No Bode plot: {html.escape(str(exc))})</p>'
    return out + figure(bode_svg(response), "Bode plot over the frequencies of the poles "
                        "(a decade either side).")


#: the most states whose poles the Bode plot's grid is read from (dense eigenvalues); a
#: larger network's plot spans 1 Hz to 1 MHz
BODE_DENSE_STATES = 200
#: the states plotted and given transfer functions when a network names no outputs
SHOWN_STATES = 4


#: the most controlled sources, and coupled windings in one set, of a network whose state
#: space is shown symbolically (:func:`shown_state_space`)
SYMBOLIC_CONTROLLED = 10
SYMBOLIC_WINDINGS = 3


def shown_state_space(net: Network, tree: Any, order: int, outputs: Sequence[str] = (),
                      parameters: dict | None = None) -> StateSpace | SparseStateSpace:
    """The state space that reports and ``vecnet equations`` show for a network of
    ``order`` states: the symbolic one (every parameter a symbol) up to
    :data:`vecnet.output.teaching.SUMMARY_STATES` states; above, whose listing is a summary, the
    sparse numeric one with the ``parameters``' values where it applies (the symbolic
    elimination of a 1,000-element ladder takes seconds, the sparse one milliseconds). So
    also where the symbolic elimination would not end in reasonable time however few the
    states: more than :data:`SYMBOLIC_CONTROLLED` controlled sources (a chain of 30
    amplifiers nests fractions for minutes) or a set of more than
    :data:`SYMBOLIC_WINDINGS` coupled windings (whose rates need the inverse of a symbolic
    inductance matrix)."""
    from .teaching import SUMMARY_STATES

    controlled = sum(isinstance(e, ControlledSource) for e in net.elements)
    windings = max((len(e.ports) for e in net.elements if isinstance(e, CoupledInductors)),
                   default=0)
    if order > SUMMARY_STATES or controlled > SYMBOLIC_CONTROLLED \
            or windings > SYMBOLIC_WINDINGS:
        try:
            return net.sparse_state_space(outputs=outputs, tree=tree, parameters=parameters)
        except UnsupportedNetwork:  # a nonlinear element, a parameter without a value ...
            pass
    return net.state_space(outputs=outputs, tree=tree, symbolic=True)


def _mechanism(model, tree, simulate: bool, matrix_form: bool | None) -> str:
    mech = model.system
    coordinates = tree if tree in ("joint", "absolute") else model.coordinates
    eom = mech.formulate(**model.formulation(coordinates))
    res = None
    if simulate:  # first, as for networks
        t_end = float((model.t_span or (0.0, 1.0))[1])
        res = model.simulate(t_span=(0.0, t_end)) if model.t_span else eom.simulate(t_end)
    topo = eom.topology
    planar = not isinstance(mech, SpatialMechanism)
    shown = MechanismListing(eom, planar, model.values, res, matrix_form)
    diagram, drawn = _diagram(mech, topo)
    parts = [section("Vector network", f"<p>{html.escape(VECTOR_NETWORK_WORDS)}</p>" + diagram)]
    if drawn:
        parts.append(section("Tree explorer", _explorer(mech.network, topo, shown)))
    parts.append(_topology(topo, path=True))
    parts.append(section("Coordinates chosen by the tree", shown.coordinates()))
    parts.append(section("The three equation sets", shown.equation_sets()))
    parts.append(section("Equations of motion", shown.equations_of_motion()))
    parts.append(section("Diagnosis", shown.diagnosis()))
    parts.append(section("Joint reactions", shown.reactions()))
    if res is not None:
        names = [f"{b}.{'angle' if planar else 'z'}" for b in mech.bodies][:4]
        caption = "Body angles." if planar else "Heights of the mass centres."
        parts.append(section("Simulation", figure(plot_svg(res, names), caption)
                              + energy_figure(res) + friction_figure(mech, res)
                              + contact_figure(mech, res)
                              + motion_figure(mech, res)))
    return "".join(parts)


def _diagram(system: Network | Mechanism, topo) -> tuple[str, bool]:
    """The diagram with the tree of ``topo`` and ``True``, or a note why it is left out
    (too large, Graphviz stopped after :data:`vecnet.output.draw.DOT_TIMEOUT`, or an SVG that
    could not be embedded) and ``False``. Edge groups have ids ``edge-<position>``."""
    from .draw import GraphvizTimeoutError, svg

    edges = topo.graph.number_of_edges()
    if edges > DIAGRAM_EDGE_LIMIT:
        return (f'<p class="note">The diagram is left out: {edges} edges, more than '
                f"{DIAGRAM_EDGE_LIMIT} (vn.draw or the draw command still write it).</p>"), False
    try:
        picture = svg(system, tree=list(topo.branches), edge_ids="index", title="")
    except GraphvizTimeoutError as exc:
        return f'<p class="note">The diagram is left out: {html.escape(str(exc))}</p>', False
    return figure(picture, "Tree branches solid, chords dashed."), bool(safe_svg(picture))


def _explorer(net: Network, topo, mechanism: MechanismListing | None = None) -> str:
    """The tree explorer's controls and data; the page's script runs it on the diagram.
    A mechanism's explorer shows what the report derives for each edge of the formulation's
    tree and, for a tree swapped to, the coordinates its branches bring."""
    from ..builders.trees import normal_tree

    graph = topo.graph
    normal: list[int] | None = None
    if mechanism is None:
        try:
            normal = [graph.edge_index(b) for b in normal_tree(net)]
        except VecnetError:  # no normal tree (a loop of across sources ...): no button for it
            normal = None
    tails, heads = graph.index_arrays()
    data: dict[str, Any] = {
        "edges": list(graph.edges), "tails": tails.tolist(), "heads": heads.tolist(),
        "trees": {"user": [graph.edge_index(b) for b in topo.branches], "normal": normal}}
    if mechanism is not None:
        data["details"] = mechanism.details()
        data["cotreeOnly"] = [graph.edge_index(e.name) for e in net.elements
                              if getattr(e, "cotree_only", False)]
        # the coordinates each edge brings when it is a branch, whatever the tree
        data["brings"] = [[f"{edge}.{c}" for c in getattr(net.owner(edge), "coordinates", ())]
                          for edge in graph.edges]
    buttons = '<button type="button" id="explorer-user">User\'s tree</button>' + (
        ' <button type="button" id="explorer-normal">Normal tree</button>' if normal else "")
    help_text = _EXPLORER_HELP if mechanism is None else _MECHANISM_EXPLORER_HELP
    if mechanism is not None:
        buttons = '<button type="button" id="explorer-user">Report\'s tree</button>'
    return (f"<p>{html.escape(help_text)}</p>" + f"<p>{buttons}</p>"
            + '<p id="explorer-status" role="status">(The explorer needs JavaScript.)</p>'
            '<p id="explorer-tree"></p><figure class="fit"><table class="matrix" '
            'id="explorer-row"></table></figure>'
            + ('<section id="explorer-details"></section>' if mechanism is not None else "")
            + f'<pre id="explorer-data" hidden>{html.escape(script_json(data), quote=False)}'
            "</pre>")


#: The explorer's instructions, shown above it.
_EXPLORER_HELP = (
    "Click an edge of the diagram to highlight its fundamental circuit (a chord) or cutset "
    "(a branch), red where its row of [CI] or [CU] for the current tree, shown below, holds "
    "+1 and purple where it holds -1; then click a highlighted edge of the other kind to swap "
    "the two between tree and cotree, or the same edge again to let go.")


#: The instructions of a mechanism's explorer.
_MECHANISM_EXPLORER_HELP = (
    "Click an edge of the diagram. A chord (dashed) shows its loop, red where its row of "
    "[CI] holds +1 and purple where it holds -1, its loop closure and, for a cut joint, the "
    "constraint rows it brings; a branch (solid) shows its cutset, its force and moment "
    "balance and the coordinates it brings, and a joint the reaction it carries. Then click "
    "a highlighted edge of the other kind to swap the two between tree and cotree: the line "
    "above the matrix lists the coordinates the new tree brings (its equations are shown for "
    "the report's tree only). Click the same edge again to let go.")


def script_json(data: Any) -> str:
    """``data`` as ASCII JSON with ``<``, ``>`` and ``&`` escaped (``\\u003c`` ...), so that
    no name can end the element that holds it or start markup."""
    text = json.dumps(data, ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _topology(topo, path: bool = False) -> str:
    """The incidence, reduced incidence, cutset and circuit matrices and the tree; with
    ``path``, also the path matrix."""
    paths = _matrix("Path matrix [P] = A<sub>t</sub><sup>-1</sup> (rows branches, columns "
                    "nodes; +1 where the branch is on the tree path from the datum to the node "
                    "and points away from the datum, -1 where it points toward it)",
                    topo.path) if path else ""
    return section(
        "Topology",
        _matrix("Incidence matrix [IN]", topo.incidence)
        + _matrix("Reduced incidence matrix [A] "
                  f"(datum {html.escape(', '.join(map(str, topo.datum)))})",
                  topo.reduced_incidence)
        + f"<p>Tree: {html.escape(', '.join(topo.branches))}<br>Cotree: "
          f"{html.escape(', '.join(topo.chords))}</p>"
        + _matrix("Fundamental cutset matrix [CU] = [1 | A<sub>c</sub>]", topo.cutset)
        + _matrix("Fundamental circuit matrix [CI] = [B<sub>t</sub> | 1]", topo.circuit)
        + paths)


def _matrix(caption: str, m: LabeledMatrix) -> str:
    """A labelled matrix as LaTeX in brackets, or as an HTML table when large; ``caption``
    is markup (escape names in it)."""
    from .teaching import latex

    cells = m.shape[0] * m.shape[1]
    if cells > MATRIX_SUMMARY_CELLS:
        return (f"<p>{caption}: {m.shape[0]:,} x {m.shape[1]:,}, {m.tosparse().nnz:,} nonzero "
                f"entries; left out, more than {MATRIX_SUMMARY_CELLS:,} cells (the matrices "
                "command writes it).</p>")
    if cells > MATRIX_CELL_LIMIT or 0 in m.shape:
        return _table(caption, m)
    blocks = column_blocks(m, FORMULA_WIDTH)
    if len(blocks) > MATRIX_BLOCK_LIMIT:   # long labels: a table sets faster and reads as well
        return _table(caption, m)
    if len(blocks) == 1:
        return f"<p>{caption}</p>" + math_block(latex(m, brackets=True), str(m))
    return (f"<p>{caption}, in {len(blocks)} blocks of columns:</p>"
            + "".join(math_block(latex(b, brackets=True), str(b)) for b in blocks))


def _table(caption: str, m: LabeledMatrix) -> str:
    """A labelled matrix as HTML tables, one a block of columns that fits the page (rows
    and columns labelled in each); ``caption`` is markup (escape names in it)."""
    from ..core.numbers import format_number

    blocks = column_blocks(m, TABLE_WIDTH, lambda x: 0.6 * len(format_number(x))) \
        if m.shape[1] else [m]
    tables = []
    for block in blocks:
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in block.columns)
        rows = []
        for label, line in zip(block.rows, block.toarray()):
            cells = []
            for j, x in enumerate(line):
                classes = (["split"] if block.split is not None and j == block.split else []) \
                    + (["zero"] if x == 0 else [])
                attr = f' class="{" ".join(classes)}"' if classes else ""
                cells.append(f"<td{attr}>{html.escape(format_number(x))}</td>")
            rows.append(f"<tr><th>{html.escape(str(label))}</th>{''.join(cells)}</tr>")
        tables.append(f'<figure class="fit"><table class="matrix"><tr><th></th>{head}</tr>'
                      + "".join(rows) + "</table></figure>")
    words = f", in {len(blocks)} blocks of columns" if len(blocks) > 1 else ""
    return f"<p>{caption}{words}</p>" + "".join(tables)


def _equations(obj: Any) -> str:
    """Equations typeset (:func:`_math`), long rows broken to :data:`FORMULA_WIDTH`; a
    summary (see :func:`vecnet.output.teaching.summary_reason`) when they are large or their
    LaTeX is longer than :data:`LATEX_LIMIT`. A linear state space's matrices are shown
    with their rows and columns labelled."""
    from .teaching import latex

    linear = isinstance(obj, StateSpace) and not obj.z and obj.is_linear
    # a linear state space's matrices follow, labelled, instead of in the listing
    tex = latex(obj, matrices=False) if linear else latex(obj)
    note = ""
    if len(tex) > LATEX_LIMIT:
        note = (f'<p class="note">The full listing is {len(tex):,} characters of LaTeX, more '
                "than this page typesets (the equations command prints it); its summary:</p>")
        tex = latex(obj, summary=True)
    matrices = _labelled_state_matrices(obj) if linear and not note else ""
    return note + math_block(break_rows(tex, FORMULA_WIDTH), "") + matrices


def _labelled_state_matrices(ss: StateSpace) -> str:
    """A linear state space's ``A, B, C, D`` (and ``E, F`` when not zero) with labelled
    rows and columns, in blocks of columns that fit."""
    import sympy

    from .teaching import latex, matrix_tex

    terms = [("A", ss.A, ss.states, ss.states), ("B", ss.B, ss.states, ss.inputs),
             ("E", ss.E, ss.states, ss.inputs), ("C", ss.C, ss.outputs, ss.states),
             ("D", ss.D, ss.outputs, ss.inputs), ("F", ss.F, ss.outputs, ss.inputs)]
    out = []
    for name, m, rows, columns in terms:
        if not (m.rows and m.cols) or (name in "EF" and not any(m)):
            continue
        cells = np.empty(m.shape, dtype=object)
        for i in range(m.rows):
            for j in range(m.cols):
                cells[i, j] = sympy.sympify(m[i, j])
        labelled = LabeledMatrix(cells, rows, columns)
        blocks = column_blocks(labelled, FORMULA_WIDTH - 3,
                               lambda x: tex_width(latex(x)))
        for k, block in enumerate(blocks):
            bold = matrix_tex(name)     # never the user's symbol of the same letter
            lhs = bold if len(blocks) == 1 else f"{bold}_{{[{k + 1}]}}"
            out.append(math_block(f"{lhs} = " + latex(block, brackets=True), str(block)))
    return ("<p>The matrices, rows and columns labelled (rows of A and B: the state "
            "equations; of C and D: the outputs):</p>" + "".join(out) if out else "")

