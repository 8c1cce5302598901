"""Teaching reports: one self-contained HTML page with every step of a formulation.

The page needs no LaTeX and no network: the diagram and the plots are inline
SVG, matrices are labelled HTML tables, equations are aligned text listings
and presentation MathML (which browsers render natively).
"""

from __future__ import annotations

import html
import io
import os
import tempfile
from typing import Any

import numpy as np
import sympy
from sympy.printing.mathml import mathml

from .errors import ModelError
from .matrix import LabeledMatrix
from .network import Network
from .planar.mechanism import Mechanism

__all__ = ["report", "write_atomically"]

#: Expressions with more operations than this are listed as text only.
MATHML_LIMIT = 400

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
    failure never leaves a partial file behind."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".vecnet-", suffix=".tmp")
    try:
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

    if isinstance(model, (Network, Mechanism)):
        kind = "network" if isinstance(model, Network) else "mechanism"
        model = Model(kind, model)
    if not isinstance(model, Model):
        raise ModelError(f"report needs a model, a Network or a Mechanism; got {type(model).__name__}")
    body = _network(model, tree, simulate) if model.kind == "network" else \
        _mechanism(model, tree, simulate)
    name = html.escape(title or model.name)
    page = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{name} — vecnet report</title><style>{_STYLE}</style></head><body>"
            f"<h1>{name}</h1>"
            + (f"<p>{html.escape(model.description)}</p>" if model.description else "")
            + body + '<p class="note">Made by vecnet.</p></body></html>\n')
    if path is not None:
        write_atomically(path, page)
    return page


def _network(model, tree, simulate: bool) -> str:
    from .draw import svg
    from .teaching import text

    net = model.system
    tree = tree or model.tree or "normal"
    eqs = net.equations(tree=tree)
    topo = eqs.topology
    parts = [_section("Linear graph", _figure(svg(net, tree=list(topo.branches)),
                                              "Tree branches solid, chords dashed."))]
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
    from .draw import svg

    mech = model.system
    coordinates = tree if tree in ("joint", "absolute") else model.coordinates
    eom = mech.formulate(coordinates=coordinates)
    topo = eom.topology
    parts = [_section("Vector network", _figure(svg(mech, tree=list(topo.branches)),
                                                "Tree branches solid, chords dashed."))]
    parts.append(_topology(topo))
    dynamics = (f"<p>Coordinates ({len(eom.q)}): {html.escape(', '.join(eom.coordinates))}</p>"
                + "<p>Constraints from the circuits of the cut joints:</p>"
                + "".join(_math(sympy.Eq(c, 0), label=n)
                          for n, c in zip(eom.constraint_names, eom.constraints))
                + "<p>Equations of motion M(q) q'' = Q(q, q', t) + Φ<sub>q</sub><sup>T</sup> λ with</p>"
                + f"<p>M = {_math(eom.M, inline=True)}</p><p>Q = {_math(eom.Q, inline=True)}</p>")
    parts.append(_section("Equations of motion", dynamics))
    if simulate:
        t_end = float((model.t_span or (0.0, 1.0))[1])
        res = model.simulate(t_span=(0.0, t_end)) if model.t_span else eom.simulate(t_end)
        names = [f"{b}.angle" for b in mech.bodies][:4]
        parts.append(_section("Simulation", _figure(_plot(res, names), "Body angles.")
                              + _figure(_plot(res, ["energy"]), "Total energy.")))
    return "".join(parts)


def _topology(topo) -> str:
    return _section(
        "Topology",
        _table("Incidence matrix [IN]", topo.incidence)
        + _table(f"Reduced incidence matrix [A] (datum {', '.join(map(str, topo.datum))})",
                 topo.reduced_incidence)
        + f"<p>Tree: {html.escape(', '.join(topo.branches))}<br>Cotree: "
          f"{html.escape(', '.join(topo.chords))}</p>"
        + _table("Fundamental cutset matrix [CU] = [1 | A<sub>c</sub>]", topo.cutset)
        + _table("Fundamental circuit matrix [CI] = [B<sub>t</sub> | 1]", topo.circuit))


def _section(title: str, content: str) -> str:
    return f"<section><h2>{html.escape(title)}</h2>{content}</section>"


def _table(caption: str, m: LabeledMatrix) -> str:
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
    if sympy.count_ops(expr) > MATHML_LIMIT:
        return f"<pre>{html.escape(str(expr))}</pre>"
    body = mathml(expr, printer="presentation")
    display = "inline" if inline else "block"
    prefix = f"<span class=\"note\">{html.escape(label)}</span>" if label else ""
    return f'{prefix}<math display="{display}">{body}</math>'


def _figure(svg_text: str, caption: str) -> str:
    start = svg_text.find("<svg")
    return (f"<figure>{svg_text[start:] if start >= 0 else svg_text}"
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def _plot(res, names) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.5))
    try:
        for name in names:
            values = np.asarray(res[name])
            if values.ndim == 1:
                ax.plot(res.t, values, label=name)
        ax.set_xlabel("t [s]")
        ax.legend()
        ax.grid(True, alpha=0.3)
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", bbox_inches="tight")
    finally:
        plt.close(fig)
    return buffer.getvalue()
