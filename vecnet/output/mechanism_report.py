"""What a mechanism's report says besides its diagram and matrices: the coordinates the
tree brings, the cutset, circuit and terminal equations of the vector network, the
equations of motion, the diagnosis by rank, the joint reactions (formulas, a table and
a plot), each edge's details for the tree explorer, the energy and the motion."""

from __future__ import annotations

import html
import re
from typing import Any

import numpy as np
import sympy

from ..core.numbers import DIGITS
from ..errors import VecnetError
from .html_pieces import FORMULA_WIDTH, LATEX_LIMIT, figure, math_block, plot_svg
from .pagefit import break_rows

__all__ = ["MechanismListing", "energy_figure", "motion_figure", "VECTOR_NETWORK_WORDS",
           "REACTION_INSTANTS", "REACTION_PLOT_JOINTS", "MOTION_FRAMES"]


def motion_figure(mech: Any, res: Any) -> str:
    """The simulated motion as a looping picture (SVG animation, no script)."""
    from .picture import animation_svg

    try:
        svg = animation_svg(mech, res, frames=MOTION_FRAMES)
    except VecnetError as exc:
        return f'<p class="note">(No picture of the motion: {html.escape(str(exc))})</p>'
    return figure(svg, f"The motion over the simulated span, looped ({MOTION_FRAMES} frames).")


#: Frames of the looping picture of a mechanism's motion.
MOTION_FRAMES = 60

#: What the diagram of a mechanism shows, said above it.
VECTOR_NETWORK_WORDS = (
    "Every body is an edge from the ground (the datum) to its mass centre, every point of a "
    "body an arm edge from the mass centre to the point, and every joint, spring, damper "
    "and driver an edge between two points. An edge carries the across variables (the "
    "vector from its tail point to its head point and the rotation of its head frame "
    "relative to its tail frame) and the through variables (force and torque).")

#: Instants (as fractions of the simulated span) at which reactions are tabulated.
REACTION_INSTANTS = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Joints whose reactions are plotted (the first ones; the table lists every joint).
REACTION_PLOT_JOINTS = 4


class MechanismListing:
    """The pieces of a mechanism's report: the coordinates the tree brings, the cutset,
    circuit and terminal equations of the vector network, the equations of motion, the
    diagnosis by rank and the joint reactions, and the explorer's details of each edge."""

    def __init__(self, eom, planar: bool, values: dict, res,
                 matrix_form: bool | None = None) -> None:
        self.eom, self.planar, self.values, self.res = eom, planar, values, res
        self.matrix_form = matrix_form   # as vecnet.latex's option of that name
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
        cut, cut_left = _within(branches, self.cutset_rows,
                                lambda b: len(topo.fundamental_cutset(b)))
        loops, loops_left = _within(chords, self.circuit_rows,
                                    lambda c: len(topo.fundamental_circuit(c)))
        terminal = "".join(
            f"<tr><th>{html.escape(element.name)}</th><td>{html.escape(_kind(element))}</td>"
            f"<td>{math_block(_one_line(self.terminal_rows(element)), '')}</td></tr>"
            for element in self.net.elements)
        return (
            f"<p>Cutset equations ({len(branches)} branches, a force and a moment balance "
            "each): the through variables of a branch balance those of the chords its cut "
            "crosses, <i>τ</i><sub>t</sub> = −A<sub>c</sub> <i>τ</i><sub>c</sub>, row by "
            "row of [CU]. Moments are taken about the world origin O:</p>"
            + math_block(_aligned([r"&" + moment] + cut), "") + cut_left
            + f"<p>Circuit equations ({len(chords)} chords): the across variables of a "
            "chord close its loop through the tree, row by row of [CI] (vectors add; "
            + ("angles add" if self.planar else "rotations compose along the path")
            + "): δ<b>r</b> is the vector from an edge's tail point to its head point, "
            + ("δθ the turn of its head frame relative to its tail frame.</p>" if self.planar
               else "R the rotation of its head frame relative to its tail frame.</p>")
            + math_block(_aligned(loops), "") + loops_left
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
        tex = latex(eom, matrix_form=self.matrix_form)
        if len(tex) <= LATEX_LIMIT:
            return head + math_block(break_rows(tex, FORMULA_WIDTH), "")
        # too long to typeset quickly: the summary, and the constraints on their own
        out = head + (f'<p class="note">M and Q in full are {len(tex):,} characters of LaTeX, '
                      "more than this page typesets (the equations command prints them); "
                      "their summary:</p>") + math_block(break_rows(latex(eom, summary=True),
                                                                FORMULA_WIDTH), "")
        if eom.constraint_names:
            rows = [r"\Phi_{" + _tex_name(n) + "} &= " + self.expression(e)
                    for n, e in zip(eom.constraint_names, eom.constraints)]
            constraints = _aligned(rows)
            if len(constraints) <= LATEX_LIMIT:
                out += "<p>The constraints Φ(q, t) = 0:</p>" + math_block(constraints, "")
        if eom.velocity_constraint_names:
            rows = []
            for name, expr in zip(eom.velocity_constraint_names, eom.velocity_constraints):
                row = self.expression(expr)
                if len(row) > LATEX_LIMIT // 10:   # one long row would hide the others
                    row = rf"\text{{({len(row):,} characters: the equations command prints it)}}"
                rows.append(_velocity_row(name) + " &= " + row)
            constraints = _aligned(rows)
            if len(constraints) <= LATEX_LIMIT:
                out += ("<p>The velocity constraints A(q) u + b = 0 of the rolling contacts "
                        "(no slip; they hold at the speed level only):</p>"
                        + math_block(constraints, ""))
        return out

    def expression(self, expr) -> str:
        """LaTeX of an expression in the coordinates and speeds, named as the equations of
        motion name them (``\\theta_{\\mathrm{P1}}``, ``q_{\\mathrm{S1},w}``), by the
        listing's one rule for names (:func:`vecnet.output.teaching.latex`)."""
        from .teaching import mechanism_latex

        return mechanism_latex(self.eom, expr, DIGITS)

    # -- diagnosis ------------------------------------------------------------------------
    def rank(self) -> tuple[int, list[int]] | str:
        """The rank of the constraint Jacobian at the assembled pose and the independent
        rows, or why it could not be found."""
        from ..numerics import multibody as mb

        eom = self.eom
        parameters = {k: v for k, v in self.values.items()} or None
        try:
            q = eom.assemble(parameters=parameters)
            model = eom.compile(parameters)
            phi_u = mb.velocity_constraints(model, 0.0, q)[0]
        except VecnetError as exc:
            return str(exc)
        rows: Any = mb.independent_rows(np.asarray(phi_u, dtype=float)) if len(phi_u) else []
        return len(rows), [int(i) for i in rows]

    def diagnosis(self) -> str:
        eom = self.eom
        names = tuple(eom.constraint_names) + tuple(eom.velocity_constraint_names)
        n, m = len(eom.u), len(names)
        found = self.rank()
        counting = (f"<p>Counting: {n} speeds less {m} constraint rows gives {n - m} degree(s) "
                    "of freedom, if every constraint row were independent.</p>")
        if isinstance(found, str):
            return counting + (f'<p class="note">The rank of the constraint Jacobian is not '
                               f"found: {html.escape(found)}</p>")
        rank, independent = found
        redundant = [name for i, name in enumerate(names) if i not in independent]
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
        topo = self.topo
        rows, left = _within(joints, self.reaction_rows, lambda j: 1 if j in topo.chords
                             else len(topo.fundamental_cutset(j)))
        out = ("<p>The reaction of a joint is the force its tail body applies to its head "
               "body, <b>R</b> = −<b>F</b> (and the torque about the head point). A cut joint's "
               "comes from its multipliers λ; a tree joint's from its cutset equation, with "
               "the chords' through variables from their terminal equations "
               "(<b>F</b> = m(<b>r</b>'' − <b>g</b>) for a body):</p>"
               + math_block(_aligned(rows), "") + left)
        samples = self.reaction_samples()
        if samples:
            out += self.reaction_table(samples)
            out += figure(self.reaction_plot(list(samples)[:REACTION_PLOT_JOINTS]),
                           "Magnitudes of the reaction forces on the joints' head bodies (the "
                           "table gives their components in world axes).")
        elif self.res is not None:
            out += '<p class="note">No reactions in the results (gears or racks share the ' \
                   "tooth force with the axles in a way the cutsets do not hold).</p>"
        return out

    def reaction_plot(self, joints: list[str]) -> str:
        from ..numerics.result import Result

        res = self.res
        series = {f"|{j}.reaction|": np.linalg.norm(np.asarray(res[f"{j}.reaction"], dtype=float),
                                                    axis=1) for j in joints}
        return plot_svg(Result(res.t, series), list(series),
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
        if self.eom.velocity_constraint_names and not self.large:
            for name, expr in zip(self.eom.velocity_constraint_names,
                                  self.eom.velocity_constraints):
                constraints.setdefault(name.rpartition(".")[0], []).append(
                    [name, _velocity_row(name) + " = " + self.expression(expr), text(expr)])
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
    from ..core.names import visible

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
        # J_b on a line of its own: a full inertia matrix of parameters is wide
        return [F + r" &= m(\ddot{\mathbf{r}} - \mathbf{g}),\quad m = " + latex(element.m),
                T + r" &= J\dot{\boldsymbol{\omega}} + \boldsymbol{\omega} \times J"
                r"\boldsymbol{\omega},\quad J = A J_b A^{T}",
                r"&\quad J_b = " + inertia + r"\,"]   # room for the bracket's overhang
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

    from ..elements.base import t
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


def friction_figure(mech: Any, res: Any) -> str:
    """The modes of the mechanism's set-valued joint frictions over the simulation (0
    sticking, +1 or -1 slipping with that sign of the joint's speed) and how many times
    they switched; empty without such friction."""
    names = [f"{e.name}.mode" for e in mech.network.elements if getattr(e, "set_valued", False)]
    if not names or not len(res.t):
        return ""
    switches = sum(1 for event in res.events if event.kind == "mode")
    return figure(plot_svg(res, names),   # the result knows the modes' quantity
                  "Modes of the joint friction that sticks and slips (0: sticking, +1 or -1: "
                  f"slipping with that sign of the joint's speed); {switches} switch(es).")


def contact_figure(mech: Any, res: Any) -> str:
    """The modes and normal forces of the mechanism's unilateral contacts over the
    simulation (0 open, 1 closed or sticking, 2 slipping), with the number of impacts and
    mode changes; empty without contacts."""
    from ..elements.joint_laws import ContactLaw

    names = [e.name for e in mech.network.elements if isinstance(e, ContactLaw)]
    if not names or not len(res.t):
        return ""
    impacts = sum(1 for event in res.events if event.kind == "impact" and event.name in names)
    changes = sum(1 for event in res.events if event.kind == "mode" and event.name in names)
    modes = [f"{name}.mode" for name in names]
    normals = [f"{name}.normal" for name in names]
    # the result knows its series' quantities (ContactModes.units)
    return (figure(plot_svg(res, modes),
                   "Modes of the contacts (0: open, 1: closed, sticking if it has friction, "
                   f"2: slipping); {impacts} impact(s), {changes} mode change(s).")
            + figure(plot_svg(res, normals),
                     "Normal forces of the contacts (the multipliers of their constraints "
                     "while closed, zero while open)."))


def energy_figure(res) -> str:
    """The total energy against time; when it changes by less than a millionth of its
    size (a conservative motion), its change from the initial value, the base stated."""
    from ..numerics.result import Result

    energy = np.asarray(res["energy"], dtype=float)
    if not len(energy):
        return ""
    base = float(energy[0])
    spread = float(np.max(energy) - np.min(energy))
    if spread > 1e-6 * max(abs(base), 1e-300):
        return figure(plot_svg(res, ["energy"]), "Total energy.")
    change = Result(res.t, {"energy change": energy - base})
    return figure(plot_svg(change, ["energy change"],
                         units={"energy change": ("energy - E(0)", "J")}),
                   f"Total energy less its initial value E(0) = {base:.10g} J (the motion "
                   "conserves energy: what is left is the integrator's error).")


def _velocity_row(name: str) -> str:
    """The left side of a velocity constraint's row in LaTeX: ``(A u + b)_{name}``."""
    return r"(A u + b)_{" + _tex_name(name) + "}"


#: most terms of the cutset or circuit equations a report lists; a long chain's cutsets
#: hold every body below each joint (N^2 / 2 terms), which no page typesets
LISTED_TERMS = 5_000


def _within(edges, rows_of, size_of) -> tuple[list[str], str]:
    """The LaTeX rows of ``edges`` in order while their terms (``size_of``) stay within
    :data:`LISTED_TERMS`, and a sentence for those left out (``""`` when none is)."""
    rows: list[str] = []
    terms = 0
    for k, edge in enumerate(edges):
        terms += size_of(edge)
        if terms > LISTED_TERMS and rows:
            return rows, (f"<p>… and the equations of the other {len(edges) - k} of the "
                          f"{len(edges)}, left out: more than {LISTED_TERMS:,} terms in all "
                          "(each is a row of [CU] or [CI]: a topology's <code>cutset</code> and "
                          "<code>circuit</code> hold every one).</p>")
        rows += rows_of(edge)
    return rows, ""
