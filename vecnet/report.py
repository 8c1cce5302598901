"""Teaching reports: one self-contained HTML page with every step of a formulation.

The page needs no LaTeX and no network: the diagram and the plots are inline
SVG, and the matrices and equations are LaTeX (from :mod:`vecnet.teaching`)
typeset in the browser by KaTeX, whose script, style sheet and fonts are part
of the page (``vecnet/static/katex``). With scripts off, the LaTeX source is
shown instead. A network's page also has a tree explorer
(``vecnet/static/explorer.js``): clicking an edge of the diagram highlights its
fundamental circuit or cutset and shows its row of ``[CI]`` or ``[CU]`` for the
current tree, and a second click swaps a chord and a branch.

Names in a model are data, never markup, whatever characters they hold: every
piece of the page is escaped where it is embedded (text and attributes); names
in the LaTeX are escaped as LaTeX text by :mod:`vecnet.teaching`, and the LaTeX
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
import io
import json
import os
import re
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from .errors import ModelError, UnsupportedNetwork, VecnetError
from .formulation.lumped import StateSpace
from .formulation.numeric import SparseStateSpace
from .matrix import LabeledMatrix
from .network import Network
from .pagefit import break_rows, column_blocks, tex_width
from .planar.mechanism import Mechanism
from .spatial.mechanism import Mechanism as SpatialMechanism

__all__ = ["report", "write_atomically", "CONTENT_SECURITY_POLICY", "content_security_policy"]

#: LaTeX longer than this (characters) is listed as text only: KaTeX would take seconds.
LATEX_LIMIT = 40_000
#: Labelled matrices with more cells than this are HTML tables rather than LaTeX.
MATRIX_CELL_LIMIT = 600
#: Labelled matrices with more cells than this are described (size, nonzero entries), not
#: shown: a table of a 1,000-edge network's incidence matrix would take megabytes.
MATRIX_SUMMARY_CELLS = 20_000
#: Graphs with more edges than this are not drawn (Graphviz's layout time grows steeply:
#: about 20 s for 400 edges of a ladder); the matrices and equations are still listed.
DIAGRAM_EDGE_LIMIT = 200
#: Width, in em of the formulas' font, that rows of equations are broken to and matrices
#: are cut into blocks of columns at: it fits the page's column on screen and an A4 or
#: letter page in print (the page's script shrinks what is still wider).
FORMULA_WIDTH = 40.0
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
    return parts.length ? right - left : box.scrollWidth;
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
    """A script of ``vecnet/static``, checked to be embeddable in a ``<script>`` element."""
    script = (resources.files("vecnet") / "static" / name).read_text(encoding="utf-8")
    if "</script" in script.lower() or "<!--" in script:
        raise RuntimeError(f"the packaged {name} cannot be inlined in a <script> element")
    return script


#: The page's own script after KaTeX: typesets the formulas, then starts the tree
#: explorer when the page has one. One script, so that a page runs exactly two.
_RENDER_SCRIPT = _TYPESET_SCRIPT + "\n" + _packaged_script("explorer.js")

#: The KaTeX fonts in the package (woff2); the style sheet's other fonts are dropped.
_FONT_FACE = re.compile(r"@font-face\{[^}]*\}")
_FONT_FILE = re.compile(r"url\(fonts/(KaTeX_[A-Za-z0-9-]+)\.woff2\)")


def write_atomically(path: str | os.PathLike, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, so that a
    failure never leaves a partial file behind. A new file gets the permissions of the
    user's umask (0644 under umask 022); a replaced file keeps its own. The folder must
    exist: a mistyped path is refused, never created."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{path}: the folder {folder} does not exist (vecnet does not "
                                "create folders)")
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
    """The HTML report of a model: diagram, a tree explorer (networks), incidence and reduced
    incidence matrices, tree, cutset and circuit matrices, the three equation sets, the
    state or multibody equations and simulation plots. Large systems get summaries (see
    :mod:`vecnet.teaching`): a network's state equations from its sparse numeric model,
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

    Returns
    -------
    str
        The HTML text.

    Raises
    ------
    ModelError
        ``model`` is not a model, network or mechanism.

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("Vs", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
    ...             vn.Capacitor("C", "g", "b", C=1.0))
    >>> '<pre class="tex">' in report(net, simulate=False)
    True
    """
    from .model import Model

    if isinstance(model, (Network, Mechanism, SpatialMechanism)):
        kind = "network" if isinstance(model, Network) else "mechanism"
        model = Model(kind, model)
    if not isinstance(model, Model):
        raise ModelError(f"report needs a model, a Network or a planar or spatial Mechanism; "
                         f"got {type(model).__name__}")
    body = _network(model, tree, simulate) if model.kind == "network" else \
        _mechanism(model, tree, simulate)
    name = html.escape(title or model.name)
    katex_script, katex_style = _katex()
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
def _katex() -> tuple[str, str]:
    """KaTeX's script and its style sheet with the packaged fonts as data: URLs."""
    folder = resources.files("vecnet") / "static" / "katex"
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
    parts = [_section("Linear graph", diagram)]
    if drawn:
        parts.append(_section("Tree explorer", _explorer(net, topo)))
    parts.append(_topology(topo))
    counts = eqs.counts
    parts.append(_section(
        "The three equation sets",
        f"<p>{counts['unknowns']} unknowns: {counts['cutset']} cutset, {counts['circuit']} "
        f"circuit and {counts['terminal']} terminal equations.</p>"
        + _equations(eqs)))
    ss = shown_state_space(net, model.tree or "normal", eqs.order, model.outputs,
                           model.element_values or None)
    diagnosis = ss.diagnosis() if isinstance(ss, StateSpace) else eqs.diagnosis()
    state = f'<pre class="diagnosis">{html.escape(diagnosis)}</pre>' + _equations(ss)
    parts.append(_section("State equations", state))
    if res is not None:
        names = model.outputs or list(ss.states)[:4]
        parts.append(_section("Simulation", _figure(_plot(res, names), "Simulated response.")))
    return "".join(parts)


def shown_state_space(net: Network, tree: Any, order: int, outputs: Sequence[str] = (),
                      parameters: dict | None = None) -> StateSpace | SparseStateSpace:
    """The state space that reports and ``vecnet equations`` show for a network of
    ``order`` states: the symbolic one (every parameter a symbol) up to
    :data:`vecnet.teaching.SUMMARY_STATES` states; above, whose listing is a summary, the
    sparse numeric one with the ``parameters``' values where it applies (the symbolic
    elimination of a 1,000-element ladder takes seconds, the sparse one milliseconds)."""
    from .teaching import SUMMARY_STATES

    if order > SUMMARY_STATES:
        try:
            return net.sparse_state_space(outputs=outputs, tree=tree, parameters=parameters)
        except UnsupportedNetwork:  # a nonlinear element, a parameter without a value ...
            pass
    return net.state_space(outputs=outputs, tree=tree, symbolic=True)


def _mechanism(model, tree, simulate: bool) -> str:
    mech = model.system
    coordinates = tree if tree in ("joint", "absolute") else model.coordinates
    eom = mech.formulate(coordinates=coordinates)
    res = None
    if simulate:  # first, as for networks
        t_end = float((model.t_span or (0.0, 1.0))[1])
        res = model.simulate(t_span=(0.0, t_end)) if model.t_span else eom.simulate(t_end)
    topo = eom.topology
    planar = not isinstance(mech, SpatialMechanism)
    shown = _MechanismListing(eom, planar, model.values, res)
    diagram, drawn = _diagram(mech, topo)
    parts = [_section("Vector network", f"<p>{html.escape(_VECTOR_NETWORK_WORDS)}</p>" + diagram)]
    if drawn:
        parts.append(_section("Tree explorer", _explorer(mech.network, topo, shown)))
    parts.append(_topology(topo, path=True))
    parts.append(_section("Coordinates chosen by the tree", shown.coordinates()))
    parts.append(_section("The three equation sets", shown.equation_sets()))
    parts.append(_section("Equations of motion", shown.equations_of_motion()))
    parts.append(_section("Diagnosis", shown.diagnosis()))
    parts.append(_section("Joint reactions", shown.reactions()))
    if res is not None:
        names = [f"{b}.{'angle' if planar else 'z'}" for b in mech.bodies][:4]
        caption = "Body angles." if planar else "Heights of the mass centres."
        parts.append(_section("Simulation", _figure(_plot(res, names), caption)
                              + _energy_figure(res) + _motion(mech, res)))
    return "".join(parts)


def _motion(mech: Any, res: Any) -> str:
    """The simulated motion as a looping picture (SVG animation, no script)."""
    from .picture import animation_svg

    try:
        svg = animation_svg(mech, res, frames=MOTION_FRAMES)
    except VecnetError as exc:
        return f'<p class="note">(No picture of the motion: {html.escape(str(exc))})</p>'
    return _figure(svg, f"The motion over the simulated span, looped ({MOTION_FRAMES} frames).")


#: Frames of the looping picture of a mechanism's motion.
MOTION_FRAMES = 60

#: What the diagram of a mechanism shows, said above it.
_VECTOR_NETWORK_WORDS = (
    "Every body is an edge from the ground (the datum) to its mass centre, every point of a "
    "body an arm edge from the mass centre to the point, and every joint, spring, damper "
    "and driver an edge between two points. An edge carries the across variables (the "
    "vector from its tail point to its head point and the rotation of its head frame "
    "relative to its tail frame) and the through variables (force and torque).")

#: Instants (as fractions of the simulated span) at which reactions are tabulated.
REACTION_INSTANTS = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Joints whose reactions are plotted (the first ones; the table lists every joint).
REACTION_PLOT_JOINTS = 4


class _MechanismListing:
    """The pieces of a mechanism's report: the coordinates the tree brings, the cutset,
    circuit and terminal equations of the vector network, the equations of motion, the
    diagnosis by rank and the joint reactions, and the explorer's details of each edge."""

    def __init__(self, eom, planar: bool, values: dict, res) -> None:
        self.eom, self.planar, self.values, self.res = eom, planar, values, res
        self.net = eom.mechanism.network
        self.topo = eom.topology
        from .teaching import summary_reason

        # the constraint expressions are built only when M and Q are shown in full
        self.large = summary_reason(eom) is not None

    # -- coordinates --------------------------------------------------------------------
    def branch_coordinates(self, branch: str) -> list[str]:
        return [c for c in self.eom.coordinates if c.rpartition(".")[0] == branch]

    def coordinates(self) -> str:
        rows = []
        for branch in self.topo.branches:
            element = self.net.element(branch)
            own = self.branch_coordinates(branch)
            rows.append(f"<tr><th>{html.escape(branch)}</th><td>{html.escape(_kind(element))}"
                        f"</td><td>{html.escape(', '.join(own) or 'none (rigid)')}</td></tr>")
        which = "joint" if any(self.net.element(b).is_joint for b in self.topo.branches) \
            else "absolute"
        return (f"<p>Every tree branch brings the coordinates of its element: {len(self.eom.q)} "
                f"coordinates q ({which} coordinates) and {len(self.eom.u)} speeds. Chords "
                "bring none: each cut joint closes a loop and brings its constraint rows "
                "instead.</p>"
                '<figure class="fit"><table class="listing"><tr><th>branch</th><th>element</th>'
                "<th>coordinates</th></tr>" + "".join(rows) + "</table></figure>")

    # -- the three equation sets ----------------------------------------------------------
    def cutset_rows(self, branch: str) -> list[str]:
        """The force and moment balances of ``branch``'s cutset, as LaTeX rows."""
        cut = self.topo.fundamental_cutset(branch)[1:]
        return [_tex_var(symbol, branch) + " &= " + _signed_sum(symbol, [(c, -s) for c, s in cut])
                for symbol in (r"\mathbf{F}", r"\mathbf{M}")]

    def circuit_rows(self, chord: str) -> list[str]:
        """The loop closure of ``chord``'s circuit, as LaTeX rows."""
        walk = self.topo.fundamental_circuit(chord)[1:]     # head back to tail
        terms = [(b, -s) for b, s in walk]                   # tail to head along the tree
        rows = [_tex_var(r"\delta\mathbf{r}", chord) + " &= "
                + _signed_sum(r"\delta\mathbf{r}", terms)]
        if self.planar:
            rows.append(_tex_var(r"\delta\theta", chord) + " &= "
                        + _signed_sum(r"\delta\theta", terms))
        else:
            product = r"\,".join(_tex_var("R", b) + ("" if s > 0 else "^{T}")
                                 for b, s in reversed(walk)) or "1"
            rows.append(_tex_var("R", chord) + " &= " + product)
        return rows

    def terminal_rows(self, element) -> list[str]:
        return _terminal_rows(element, self.planar)

    def equation_sets(self) -> str:
        topo = self.topo
        branches, chords = topo.branches, topo.chords
        moment = (r"\mathbf{M}_e = \mathbf{T}_e + \mathbf{r}_{\mathrm{head}(e)} \times "
                  r"\mathbf{F}_e")
        cut = [row for b in branches for row in self.cutset_rows(b)]
        loops = [row for c in chords for row in self.circuit_rows(c)]
        terminal = "".join(
            f"<tr><th>{html.escape(element.name)}</th><td>{html.escape(_kind(element))}</td>"
            f"<td>{_math(_one_line(self.terminal_rows(element)), '')}</td></tr>"
            for element in self.net.elements)
        return (
            f"<p>Cutset equations ({len(branches)} branches, a force and a moment balance "
            "each): the through variables of a branch balance those of the chords its cut "
            "crosses, <i>τ</i><sub>t</sub> = −A<sub>c</sub> <i>τ</i><sub>c</sub>, row by "
            "row of [CU]. Moments are taken about the world origin O:</p>"
            + _math(_aligned([r"&" + moment] + cut), "")
            + f"<p>Circuit equations ({len(chords)} chords): the across variables of a "
            "chord close its loop through the tree, row by row of [CI] (vectors add; "
            + ("angles add" if self.planar else "rotations compose along the path")
            + "): δ<b>r</b> is the vector from an edge's tail point to its head point, "
            + ("δθ the turn of its head frame relative to its tail frame.</p>" if self.planar
               else "R the rotation of its head frame relative to its tail frame.</p>")
            + _math(_aligned(loops), "")
            + f"<p>Terminal equations ({len(self.net.elements)} elements): what each element "
            "says about its own across and through variables. Joints and arms are workless "
            "(their force does no work in any motion they allow); their through variables are "
            "the reactions, found from the cutset equations.</p>"
            + '<figure class="fit"><table class="listing terminal"><tr><th>element</th><th>kind</th>'
            "<th>terminal equations</th></tr>" + terminal + "</table></figure>")

    # -- equations of motion -------------------------------------------------------------
    def equations_of_motion(self) -> str:
        from .teaching import latex

        eom = self.eom
        head = (f"<p>Coordinates ({len(eom.q)}): {html.escape(', '.join(eom.coordinates))}. "
                "The principle of orthogonality (Tellegen's theorem with virtual velocities "
                "that meet the circuit equations) turns the cutset equations into these "
                "equations, in which the workless joints and arms do not appear; "
                "λ are the reactions of the cut joints.</p>")
        tex = latex(eom)
        if len(tex) <= LATEX_LIMIT:
            return head + _math(break_rows(tex, FORMULA_WIDTH), "")
        # too long to typeset quickly: the summary, and the constraints on their own
        out = head + (f'<p class="note">M and Q in full are {len(tex):,} characters of LaTeX, '
                      "more than this page typesets (the equations command prints them); "
                      "their summary:</p>") + _math(break_rows(latex(eom, summary=True),
                                                                FORMULA_WIDTH), "")
        if eom.constraint_names:
            rows = [r"\Phi_{" + _tex_name(n) + "} &= " + self.expression(e)
                    for n, e in zip(eom.constraint_names, eom.constraints)]
            constraints = _aligned(rows)
            if len(constraints) <= LATEX_LIMIT:
                out += "<p>The constraints Φ(q, t) = 0:</p>" + _math(constraints, "")
        return out

    def expression(self, expr) -> str:
        """LaTeX of an expression in the coordinates and speeds, which are shown as the
        equations of motion show them (``\\theta_{P1}``, ``q_{w,S1}``)."""
        import sympy

        from .numbers import round_floats

        names = {}
        for symbols, rate in ((self.eom.q, ""), (self.eom.u, r"\dot")):
            for symbol in symbols:
                owner, _, what = symbol.name.rstrip("'").rpartition(".")
                base = _COORDINATE_TEX.get(what)
                if base is None and len(what) == 2 and what[0] in "qw":
                    base = f"{what[0]}_{{{what[1]}"
                    names[symbol] = base + "," + _tex_name(owner) + "}"
                    if rate and what[0] == "q":
                        names[symbol] = rf"\dot{{{what[0]}}}_{{{what[1]}," + _tex_name(owner) + "}"
                    continue
                base = base or _tex_name(what)
                head = rf"\dot{{{base}}}" if rate and symbol.name.endswith("'") else base
                names[symbol] = f"{head}_{{{_tex_name(owner)}}}"
        expr = round_floats(sympy.sympify(expr))
        for symbol in expr.free_symbols:
            if symbol not in names and not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)?",
                                                        symbol.name):
                names[symbol] = _tex_name(symbol.name)
        return sympy.latex(expr, symbol_names=names)

    # -- diagnosis ------------------------------------------------------------------------
    def rank(self) -> tuple[int, list[int]] | str:
        """The rank of the constraint Jacobian at the assembled pose and the independent
        rows, or why it could not be found."""
        from .numerics import multibody as mb

        eom = self.eom
        parameters = {k: v for k, v in self.values.items()} or None
        try:
            q = eom.assemble(parameters=parameters)
            model = eom.compile(parameters)
            phi_u = mb.velocity_constraints(model, 0.0, q)[0]
        except VecnetError as exc:
            return str(exc)
        rows = mb.independent_rows(np.asarray(phi_u, dtype=float)) if len(phi_u) else []
        return len(rows), [int(i) for i in rows]

    def diagnosis(self) -> str:
        eom = self.eom
        n, m = len(eom.u), len(eom.constraint_names)
        found = self.rank()
        counting = (f"<p>Counting: {n} speeds less {m} constraint rows gives {n - m} degree(s) "
                    "of freedom, if every constraint row were independent.</p>")
        if isinstance(found, str):
            return counting + (f'<p class="note">The rank of the constraint Jacobian is not '
                               f"found: {html.escape(found)}</p>")
        rank, independent = found
        redundant = [name for i, name in enumerate(eom.constraint_names) if i not in independent]
        return counting + (
            f"<p>By rank: at the assembled initial pose the constraint Jacobian "
            f"Φ<sub>u</sub> ({m} x {n}) has rank {rank}, so the mechanism has "
            f"<b>{n - rank} degree(s) of freedom</b> and {m - rank} redundant constraint "
            "row(s)" + (f": {html.escape(', '.join(redundant))} (they repeat what the other "
                        "rows already hold; their reactions are not determined by the "
                        "motion alone)." if redundant else ".") + "</p>")

    # -- reactions ------------------------------------------------------------------------
    def joints(self) -> list[str]:
        return [e.name for e in self.net.elements if e.is_joint]

    def reaction_samples(self) -> dict[str, dict]:
        """Per joint: the sampled instants, the reaction force on its head body and the
        reaction torque (about its head point), from the simulation; ``{}`` without one."""
        res = self.res
        if res is None or not len(res.t):
            return {}
        picks = sorted({int(round(f * (len(res.t) - 1))) for f in REACTION_INSTANTS})
        out = {}
        for joint in self.joints():
            try:
                force = np.asarray(res[f"{joint}.reaction"], dtype=float)
                torque = np.asarray(res[f"{joint}.reaction_torque"], dtype=float)
            except (KeyError, VecnetError):
                continue
            # rounding noise (1e-14 of the forces) in components that are zero shows as 0
            noise = 1e-9 * max(float(np.max(np.abs(force), initial=0.0)), 1e-300)
            force = np.where(np.abs(force) < noise, 0.0, force)
            torque = np.where(np.abs(torque) < noise, 0.0, torque)
            out[joint] = {"t": [float(res.t[k]) for k in picks],
                          "force": [np.atleast_1d(force[k]).tolist() for k in picks],
                          "torque": [np.atleast_1d(torque[k]).tolist() for k in picks]}
        return out

    def reaction_rows(self, joint: str) -> list[str]:
        """The reaction on ``joint``'s head body as LaTeX rows: the multipliers of a cut
        joint, the cutset equation of a tree joint."""
        if joint in self.topo.chords:
            names = [n for n in self.eom.constraint_names if n.rpartition(".")[0] == joint]
            lam = ", ".join(r"\lambda_{" + _tex_name(n) + "}" for n in names) or "0"
            return [_tex_var(r"\mathbf{R}", joint) + r" &= -\mathbf{F}_{" + _tex_name(joint)
                    + r"}\ \text{from its multipliers}\ (" + lam + ")"]
        cut = self.topo.fundamental_cutset(joint)[1:]
        return [_tex_var(r"\mathbf{R}", joint) + r" &= -\mathbf{F}_{" + _tex_name(joint) + "} = "
                + _signed_sum(r"\mathbf{F}", [(c, s) for c, s in cut])]

    def reactions(self) -> str:
        joints = self.joints()
        if not joints:
            return "<p>The mechanism has no joints.</p>"
        rows = [row for j in joints for row in self.reaction_rows(j)]
        out = ("<p>The reaction of a joint is the force its tail body applies to its head "
               "body, <b>R</b> = −<b>F</b> (and the torque about the head point). A cut joint's "
               "comes from its multipliers λ; a tree joint's from its cutset equation, with "
               "the chords' through variables from their terminal equations "
               "(<b>F</b> = m(<b>r</b>'' − <b>g</b>) for a body):</p>"
               + _math(_aligned(rows), ""))
        samples = self.reaction_samples()
        if samples:
            out += self.reaction_table(samples)
            out += _figure(self.reaction_plot(list(samples)[:REACTION_PLOT_JOINTS]),
                           "Magnitudes of the reaction forces on the joints' head bodies (the "
                           "table gives their components in world axes).")
        elif self.res is not None:
            out += '<p class="note">No reactions in the results (gears or racks share the ' \
                   "tooth force with the axles in a way the cutsets do not hold).</p>"
        return out

    def reaction_plot(self, joints: list[str]) -> str:
        from .numerics.result import Result

        res = self.res
        series = {f"|{j}.reaction|": np.linalg.norm(np.asarray(res[f"{j}.reaction"], dtype=float),
                                                    axis=1) for j in joints}
        return _plot(Result(res.t, series), list(series),
                     units={name: ("force", "N") for name in series})

    def reaction_table(self, samples: dict[str, dict]) -> str:
        def format_number(x: float) -> str:
            return f"{x:.6g}"

        axes = "xy" if self.planar else "xyz"
        torque_axes = [""] if self.planar else list("xyz")
        head = ("<tr><th>joint</th><th>t [s]</th>"
                + "".join(f"<th>R<sub>{a}</sub> [N]</th>" for a in axes)
                + "".join(f"<th>T{('<sub>' + a + '</sub>') if a else ''} [N·m]</th>"
                          for a in torque_axes) + "</tr>")
        rows = []
        for joint, data in samples.items():
            for k, time in enumerate(data["t"]):
                cells = [format_number(time)] + [format_number(v) for v in data["force"][k]] \
                    + [format_number(v) for v in data["torque"][k]]
                rows.append(f'<tr data-joint="{html.escape(joint)}"><th>{html.escape(joint)}</th>'
                            + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        return ('<p>Reactions at five instants of the simulation:</p><figure class="fit">'
                '<table class="listing" id="reaction-table">' + head + "".join(rows)
                + "</table></figure>")

    # -- the explorer's details of each edge -----------------------------------------------
    def details(self) -> list[dict]:
        from .teaching import text

        constraints: dict[str, list] = {}
        if self.eom.constraint_names:
            exprs = [None] * len(self.eom.constraint_names) if self.large \
                else list(self.eom.constraints)
            for name, expr in zip(self.eom.constraint_names, exprs):
                tex = r"\Phi_{" + _tex_name(name) + "} = " + (
                    self.expression(expr) if expr is not None else r"\dots")
                plain = text(expr) if expr is not None else ""
                constraints.setdefault(name.rpartition(".")[0], []).append([name, tex, plain])
        samples = self.reaction_samples()
        out = []
        for edge in self.topo.edges:
            element = self.net.element(edge)
            item: dict[str, Any] = {"kind": _kind(element),
                                    "terminal": _aligned(self.terminal_rows(element))}
            if edge in self.topo.branches:
                item["coordinates"] = self.branch_coordinates(edge)
                item["cutset"] = _aligned(self.cutset_rows(edge))
            else:
                item["constraints"] = constraints.get(edge, [])
                item["circuit"] = _aligned(self.circuit_rows(edge))
            if element.is_joint:
                item["reaction"] = _aligned(self.reaction_rows(edge))
                if edge in samples:
                    item["samples"] = samples[edge]
            out.append(item)
        return out


#: How coordinates of each kind are written (the subscript is the owner's name).
_COORDINATE_TEX = {"angle": r"\theta", "angle1": r"\theta_1", "angle2": r"\theta_2",
                   "distance": "s", "x": "x", "y": "y", "z": "z", "dx": r"\Delta x",
                   "dy": r"\Delta y", "dz": r"\Delta z"}


def _kind(element) -> str:
    """An element's kind in words: ``"revolute joint"``, ``"body"``, ``"arm"``."""
    if element.tree_role == "mass":
        return "body (mass element)"
    if element.tree_role == "arm":
        return "arm"
    name = type(element).__name__.removeprefix("Spatial")
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()
    return words + (" joint" if element.is_joint and "joint" not in words else "")


def _tex_name(label: Any) -> str:
    """A name in upright LaTeX with LaTeX's special characters escaped."""
    from .teaching import name_tex

    return name_tex(label)


def _tex_words(words: str) -> str:
    """Words for ``\\text{...}`` with LaTeX's special characters escaped."""
    from .names import visible

    special = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
               "#": r"\#", "%": r"\%", "_": r"\_", "~": r"\textasciitilde{}",
               "^": r"\textasciicircum{}"}
    return "".join(special.get(c, c) for c in visible(words))


def _tex_var(symbol: str, edge: str) -> str:
    return f"{symbol}_{{{_tex_name(edge)}}}"


def _signed_sum(symbol: str, terms: list[tuple[str, int]]) -> str:
    """``a_x - a_y + ...`` for ``(edge, sign)`` terms; ``0`` when there are none."""
    out = ""
    for edge, sign in terms:
        var = _tex_var(symbol, edge)
        out += ("- " if sign < 0 else ("+ " if out else "")) + var + " "
    return out.strip() or "0"


def _one_line(rows: list[str]) -> str:
    """Rows ``lhs &= rhs`` side by side on one line, apart by a quad."""
    return r",\quad ".join(row.replace("&", "", 1) for row in rows) or r"\text{none}"


def _aligned(rows: list[str]) -> str:
    """Rows ``lhs &= rhs`` (or ``&heading``) as an ``aligned`` block, long rows broken."""
    if not rows:
        return r"\text{none}"
    return break_rows("\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}",
                      FORMULA_WIDTH)


def _terminal_rows(element, planar: bool) -> list[str]:
    """The terminal equations of a vector-network element as LaTeX rows."""
    from .teaching import latex

    F, T = _tex_var(r"\mathbf{F}", element.name), _tex_var(r"\mathbf{T}", element.name)
    dr = _tex_var(r"\delta\mathbf{r}", element.name)
    dth = _tex_var(r"\delta\theta", element.name)
    R = _tex_var("R", element.name)
    name = type(element).__name__.removeprefix("Spatial")
    if element.tree_role == "mass":
        if planar:
            return [F + r" &= m(\ddot{\mathbf{r}} - \mathbf{g}),\quad m = " + latex(element.m),
                    _tex_var("T", element.name) + r" &= J\ddot{\theta},\quad J = "
                    + latex(element.J)]
        J = element.J
        inertia = (r"\mathrm{diag}(" + ", ".join(latex(J[i, i]) for i in range(3)) + ")"
                   if J.is_diagonal() else latex(J))
        return [F + r" &= m(\ddot{\mathbf{r}} - \mathbf{g}),\quad m = " + latex(element.m),
                T + r" &= J\dot{\boldsymbol{\omega}} + \boldsymbol{\omega} \times J"
                r"\boldsymbol{\omega},\quad J = A J_b A^{T},\ J_b = " + inertia]
    if element.tree_role == "arm":
        rho = "(" + r",\ ".join(latex(v) for v in element.rho) + ")^{T}"
        return [dr + r" &= " + (r"R(\theta_{\mathrm{tail}})" if planar else r"A_{\mathrm{tail}}")
                + r"\,\boldsymbol{\rho},\ \boldsymbol{\rho} = " + rho,
                (dth + " &= 0") if planar else (R + " &= 1")]
    if element.is_joint:
        workless = (r"\mathbf{F}\cdot\delta\dot{\mathbf{r}} + T\,\delta\dot{\theta} = 0"
                    if planar else r"\mathbf{F}\cdot\delta\dot{\mathbf{r}} + \mathbf{T}\cdot"
                    r"\boldsymbol{\omega}_{\mathrm{rel}} = 0")
        rows: list[str] | None = None
        if name == "Revolute":
            rows = [dr + " &= 0",
                    (dth + r" &= \theta_{" + _tex_name(element.name) + "}") if planar
                    else (R + r" &= \mathrm{Rot}(\mathbf{a}, \theta) R_0"),
                    (_tex_var("T", element.name) + " &= 0") if planar
                    else (r"\mathbf{a}\cdot" + T + " &= 0")]
        elif name == "Spherical":
            rows = [dr + " &= 0", R + r" &= R(q_w, q_x, q_y, q_z)", T + " &= 0"]
        elif name == "Prismatic":
            rows = [dr + r" &= s\,\mathbf{e}",
                    (dth + " &= " + latex(element.angle0)) if planar else (R + " &= R_0"),
                    r"\mathbf{e}\cdot" + F + " &= 0"]
        elif name == "Weld":
            rows = [dr + " &= 0",
                    (dth + " &= " + latex(element.angle0)) if planar else (R + " &= R_0")]
        if rows is not None:
            return rows
        coords = ", ".join(element.coordinates) or "none"
        return [r"&\text{" + _tex_words(f"coordinates as a branch: {coords}") + "}",
                r"&\text{workless: }" + workless]
    through = _through(element, planar)
    if through is not None:
        force, torque = through
        rows = []
        if force is not None:
            rows.append(F + " &= " + force)
        if torque is not None:
            rows.append((_tex_var("T", element.name) if planar else T) + " &= " + torque)
        return rows
    return [r"&\text{" + _tex_words("a constraint: its rows are those of Phi it brings as a "
                                    "chord") + "}"]


def _through(element, planar: bool) -> tuple[str | None, str | None] | None:
    """LaTeX of a force element's force and torque laws in its own across variables, or
    ``None`` when it has none."""
    import sympy

    from .elements.base import t
    from .teaching import latex

    def shown(value) -> str | None:
        value = sympy.sympify(value)
        if isinstance(value, sympy.MatrixBase):
            if all(v == 0 for v in value):
                return "0"
            return r"\begin{pmatrix}" + r" \\ ".join(latex(v) for v in value) + r"\end{pmatrix}"
        return latex(value)

    try:
        if planar:
            dx, dy, dth, vx, vy, w, a = sympy.symbols(
                "delta_x delta_y delta_theta deltadot_x deltadot_y deltadot_theta theta_tail",
                real=True)
            law = element.through_in_frame(sympy.Matrix([dx, dy]), dth, sympy.Matrix([vx, vy]),
                                           w, a, t)
        else:
            dr = sympy.Matrix(sympy.symbols("delta_x delta_y delta_z", real=True))
            v = sympy.Matrix(sympy.symbols("deltadot_x deltadot_y deltadot_z", real=True))
            pose = {"dr": dr, "v": v, "R_tail": sympy.MatrixSymbol("A_tail", 3, 3),
                    "R_head": sympy.MatrixSymbol("A_head", 3, 3),
                    "omega_tail": sympy.Matrix(sympy.symbols("omega_x omega_y omega_z")),
                    "omega_head": sympy.Matrix(sympy.symbols("omega_x omega_y omega_z")),
                    "joint": (*sympy.symbols("theta thetadot", real=True),
                              sympy.Matrix(sympy.symbols("a_x a_y a_z")))}
            law = element.through(pose, t)
    except (TypeError, AttributeError, KeyError, ValueError, NotImplementedError):
        return None
    if law is None:
        return None
    force, torque = law
    return shown(force), shown(torque)


def _energy_figure(res) -> str:
    """The total energy against time; when it changes by less than a millionth of its
    size (a conservative motion), its change from the initial value, the base stated."""
    from .numerics.result import Result

    energy = np.asarray(res["energy"], dtype=float)
    if not len(energy):
        return ""
    base = float(energy[0])
    spread = float(np.max(energy) - np.min(energy))
    if spread > 1e-6 * max(abs(base), 1e-300):
        return _figure(_plot(res, ["energy"]), "Total energy.")
    change = Result(res.t, {"energy change": energy - base})
    return _figure(_plot(change, ["energy change"],
                         units={"energy change": ("energy - E(0)", "J")}),
                   f"Total energy less its initial value E(0) = {base:.10g} J (the motion "
                   "conserves energy: what is left is the integrator's error).")


def _diagram(system: Network | Mechanism, topo) -> tuple[str, bool]:
    """The diagram with the tree of ``topo`` and ``True``, or a note why it is left out
    (too large, Graphviz stopped after :data:`vecnet.draw.DOT_TIMEOUT`, or an SVG that
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
    return _figure(picture, "Tree branches solid, chords dashed."), bool(_safe_svg(picture))


def _explorer(net: Network, topo, mechanism: _MechanismListing | None = None) -> str:
    """The tree explorer's controls and data; the page's script runs it on the diagram.
    A mechanism's explorer shows what the report derives for each edge of the formulation's
    tree and, for a tree swapped to, the coordinates its branches bring."""
    from .trees import normal_tree

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
            + f'<pre id="explorer-data" hidden>{html.escape(_script_json(data), quote=False)}'
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


def _script_json(data: Any) -> str:
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
    return _section(
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


def _section(title: str, content: str) -> str:
    kind = ' class="explorer"' if title == "Tree explorer" else ""
    return f"<section{kind}><h2>{html.escape(title)}</h2>{content}</section>"


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
        return f"<p>{caption}</p>" + _math(latex(m, brackets=True), str(m))
    return (f"<p>{caption}, in {len(blocks)} blocks of columns:</p>"
            + "".join(_math(latex(b, brackets=True), str(b)) for b in blocks))


def _table(caption: str, m: LabeledMatrix) -> str:
    """A labelled matrix as HTML tables, one a block of columns that fits the page (rows
    and columns labelled in each); ``caption`` is markup (escape names in it)."""
    from .numbers import format_number

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
    summary (see :func:`vecnet.teaching.summary_reason`) when they are large or their
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
    return note + _math(break_rows(tex, FORMULA_WIDTH), "") + matrices


def _labelled_state_matrices(ss: StateSpace) -> str:
    """A linear state space's ``A, B, C, D`` (and ``E, F`` when not zero) with labelled
    rows and columns, in blocks of columns that fit."""
    import sympy

    from .teaching import latex

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
            lhs = name if len(blocks) == 1 else f"{name}_{{[{k + 1}]}}"
            out.append(_math(f"{lhs} = " + latex(block, brackets=True), str(block)))
    return ("<p>The matrices, rows and columns labelled (rows of A and B: the state "
            "equations; of C and D: the outputs):</p>" + "".join(out) if out else "")


def _math(tex: str, listing: str) -> str:
    """A display formula: the LaTeX ``tex`` as the text of a ``pre.tex`` element, which
    the page's script typesets (the source is what shows without scripts), or the plain
    text ``listing`` when ``tex`` is too long to typeset quickly."""
    if len(tex) > LATEX_LIMIT:
        return f"<pre>{html.escape(listing)}</pre>"
    return f'<pre class="tex">{html.escape(tex, quote=False)}</pre>'


# -- SVG: parsed and written again with drawing elements only -----------------------------
_SVG = "http://www.w3.org/2000/svg"
_XLINK = "http://www.w3.org/1999/xlink"
#: What Graphviz, matplotlib and :func:`vecnet.picture.animation_svg` draw with; other
#: elements (metadata, foreignObject, script, set, iframe ...) are left out with everything
#: inside them.
_SVG_ELEMENTS = frozenset(
    "svg g defs title desc path polygon polyline ellipse circle rect line text tspan "
    "clipPath use style a animate".split())
#: The attributes an ``<animate>`` may change: geometry only (animating a link's target
#: or an event attribute would be a way to run code).
_ANIMATED = frozenset("points cx cy r x y x1 y1 x2 y2 width height opacity".split())


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


def _figure(svg_text: str, caption: str) -> str:
    picture = _safe_svg(svg_text) or '<p class="note">(The picture could not be embedded.)</p>'
    return f"<figure>{picture}<figcaption>{html.escape(caption)}</figcaption></figure>"


def _plot(res, names, units: Any = None) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = res.plot(names, units=units).figure
    try:
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", bbox_inches="tight")
    finally:
        plt.close(fig)
    return buffer.getvalue()
