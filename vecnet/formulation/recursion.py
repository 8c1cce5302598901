"""A mechanism's equations of motion as the recursive Newton–Euler scheme computes them.

The explicit ``M(q) u' = Q(q, u, t)`` substitutes every body's kinematics into every entry,
and its expressions grow much faster than the tree is deep (the 3-D double pendulum's fill
hundreds of thousands of characters). The recursive scheme keeps the same physics in
short steps that each refer to the quantities already named, in the order the tree is
walked (Fisette & Samin's "recursive scheme"; Featherstone's algorithm with spatial
vectors):

1. **forward pass** along the tree, from the ground outward, branch by branch in the
   path matrix's order: each node's rotation ``R`` (an angle ``theta`` in the plane),
   position ``r``, angular and linear velocity ``omega, v`` and acceleration
   ``alpha, a``, each from its parent's and the branch's own motion;
2. every **body's momentum** ``p = m v``, ``h = R J R^T omega`` (``J omega`` in the plane)
   and their rates;
3. the **loads**: the force laws of springs, dampers and drivers;
4. **backward pass**: the reaction ``(f, n)`` that each branch with coordinates (a joint,
   or a body in absolute coordinates) carries, from its cutset — everything beyond it
   (away from the ground) must be pushed by it: the bodies' rates of momentum less their
   weights, the loads, and the reactions of the joints farther out, moments taken about
   the joint's point;
5. the **equations of motion**: the components of each reaction along the joint's free
   directions vanish, ``W^T R^T n + V^T R^T f = 0`` (``W``, ``V``: the joint's motion per
   unit speed); with loops, they equal the loop reactions ``(Phi_u^T lambda)``.

Stacked in the order of the speeds, the left-hand sides of step 5 are exactly
``M u' - Q`` (the principle of virtual work; :meth:`NewtonEuler.residuals` evaluates
them, which the tests compare with ``M`` and ``Q``). Every step is short, so the listing
grows linearly with the number of bodies.

Both dimensions use the same code: in the plane an angular quantity is a number (about
``z``), ``R(theta)`` turns vectors, ``omega x d = omega (-d_y, d_x)`` and
``d x f = d_x f_y - d_y f_x``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import sympy

from ..elements.base import t
from ..errors import FormulationError

__all__ = ["NewtonEuler", "newton_euler", "Term", "Quantity", "Literal", "Writer",
           "Definition", "Equation"]


class Writer(Protocol):
    """What a :class:`Term` needs to be written: the style and how to write a sympy
    expression, a sympy matrix and a named quantity."""

    is_latex: bool

    def __call__(self, expr: Any) -> str: ...

    def matrix(self, matrix: sympy.MatrixBase) -> str: ...

    def quantity(self, quantity: Quantity) -> str: ...


# -- terms: short vector expressions that refer to named quantities -------------------
class Term:
    """A vector expression over named quantities: it writes itself (:meth:`write`) and
    evaluates to numbers (:meth:`value`) from the values of the quantities."""

    #: 3 for atoms, 2 for products, 1 for sums (parentheses where a lower one is an operand)
    precedence = 3

    def value(self, env: dict) -> Any:  # pragma: no cover - per kind
        raise NotImplementedError

    def write(self, out: Writer) -> str:  # pragma: no cover - per kind
        raise NotImplementedError

    def operand(self, out: Writer, precedence: int) -> str:
        text = self.write(out)
        if self.precedence < precedence:
            return (r"\left(" + text + r"\right)") if out.is_latex else f"({text})"
        return text


@dataclass(eq=False)
class Quantity(Term):
    """A named quantity: ``base`` says what it is (``"omega"``, ``"r"``, ``"f"`` ...) and
    ``owner`` whose (a body, a point, a joint); ``transposed`` for ``R^T``."""

    base: str
    owner: str
    transposed: bool = False

    @property
    def key(self) -> tuple[str, str]:
        return (self.base, self.owner)

    def value(self, env: dict) -> Any:
        x = env[self.key]
        return np.transpose(x) if self.transposed else x

    def write(self, out: Writer) -> str:
        return out.quantity(self)

    @property
    def T(self) -> Quantity:
        return Quantity(self.base, self.owner, not self.transposed)


@dataclass(eq=False)
class Literal(Term):
    """A sympy scalar or matrix in the coordinates, speeds, their rates and parameters;
    ``shown`` (LaTeX, text) writes it another way (``Rq(...)`` for a quaternion's
    rotation)."""

    expr: Any
    shown: tuple[str, str] | None = None

    def value(self, env: dict) -> Any:
        values = env["symbols"]
        exact = env.get("exact", False)   # sympy entries (:meth:`NewtonEuler.steps`)
        if isinstance(self.expr, sympy.MatrixBase):
            out = (np.array(self.expr.xreplace(values).tolist(), dtype=object) if exact
                   else np.array(self.expr.xreplace(values).evalf(), dtype=float))
            return out.ravel() if self.expr.cols == 1 else out
        value = sympy.sympify(self.expr).xreplace(values)
        return value if exact else float(value.evalf())

    def write(self, out: Writer) -> str:
        if self.shown is not None:
            return self.shown[0 if out.is_latex else 1]
        if isinstance(self.expr, sympy.MatrixBase):
            return out.matrix(self.expr)
        return out(self.expr)

    @property
    def precedence(self) -> int:  # type: ignore[override]
        if isinstance(self.expr, sympy.MatrixBase) or self.shown is not None:
            return 3
        return 1 if isinstance(self.expr, sympy.Add) else 2


@dataclass(eq=False)
class Rotation(Term):
    """The planar rotation matrix ``R(theta)`` of an angle quantity (or its transpose)."""

    angle: Quantity
    transposed: bool = False

    def value(self, env: dict) -> Any:
        angle = self.angle.value(env)
        exact = env.get("exact", False)
        c, s = (sympy.cos(angle), sympy.sin(angle)) if exact else (np.cos(angle), np.sin(angle))
        R = np.array([[c, -s], [s, c]])
        return R.T if self.transposed else R

    def write(self, out: Writer) -> str:
        angle = self.angle.write(out)
        if out.is_latex:
            return rf"R({angle})" + (r"^{\mathsf{T}}" if self.transposed else "")
        return f"R({angle})" + ("^T" if self.transposed else "")

    @property
    def T(self) -> Rotation:
        return Rotation(self.angle, not self.transposed)


@dataclass(eq=False)
class Sum(Term):
    """``sum sign * term``."""

    terms: list[tuple[int, Term]]
    precedence = 1

    def value(self, env: dict) -> Any:
        return sum(sign * term.value(env) for sign, term in self.terms)

    def write(self, out: Writer) -> str:
        parts = []
        for k, (sign, term) in enumerate(self.terms):
            text = term.operand(out, 2 if sign < 0 else 1)
            if sign < 0:
                parts.append(f"- {text}" if k == 0 else f" - {text}")
            else:
                parts.append(text if k == 0 else f" + {text}")
        return "".join(parts)


@dataclass(eq=False)
class Product(Term):
    """Scalars, matrices and a vector multiplied in order."""

    factors: list[Term]
    precedence = 2

    def value(self, env: dict) -> Any:
        out = self.factors[0].value(env)
        for f in self.factors[1:]:
            x = f.value(env)
            out = out * x if np.ndim(out) == 0 or np.ndim(x) == 0 else out @ x
        return out

    def write(self, out: Writer) -> str:
        return (r"\," if out.is_latex else " ").join(f.operand(out, 3) for f in self.factors)


@dataclass(eq=False)
class Cross(Term):
    """``a x b``; in the plane an angular (scalar) ``a`` turns ``b`` by a right angle and
    two vectors give a scalar."""

    a: Term
    b: Term
    precedence = 2

    def value(self, env: dict) -> Any:
        a, b = self.a.value(env), self.b.value(env)
        if np.ndim(a) == 0:
            return a * np.array([-b[1], b[0]])
        if len(a) == 2:
            return a[0] * b[1] - a[1] * b[0]
        return np.cross(a, b)

    def write(self, out: Writer) -> str:
        times = r" \times " if out.is_latex else " x "
        return self.a.operand(out, 3) + times + self.b.operand(out, 3)


def plus(*terms: tuple[int, Term | None]) -> Term | None:
    """The sum of the signed terms that are not zero (``None``), flattened; ``None`` when
    none is left."""
    kept: list[tuple[int, Term]] = []
    for sign, term in terms:
        if term is None:
            continue
        if isinstance(term, Sum):
            kept += [(sign * s, x) for s, x in term.terms]
        else:
            kept.append((sign, term))
    if not kept:
        return None
    if len(kept) == 1 and kept[0][0] == 1:
        return kept[0][1]
    return Sum(kept)


def times(*factors: Term | None, identity: tuple = ()) -> Term | None:
    """The product of the factors; a ``None`` among the ``identity`` positions is the
    identity and dropped, any other ``None`` is zero (the product is ``None``)."""
    kept = []
    for k, f in enumerate(factors):
        if f is None:
            if k in identity:
                continue
            return None
        kept += f.factors if isinstance(f, Product) else [f]
    return kept[0] if len(kept) == 1 else Product(kept)


def cross(a: Term | None, b: Term | None) -> Term | None:
    return None if a is None or b is None else Cross(a, b)


def difference(a: Term | None, b: Term | None) -> Term | None:
    """``a - b`` of two positions, ``None`` when they are the same quantity."""
    if a is b:
        return None
    return plus((1, a), (-1, b))


# -- the listing ---------------------------------------------------------------------
@dataclass
class Definition:
    """``quantity = term`` in the listing's section ``section``."""

    quantity: Quantity
    term: Term | None
    section: str


@dataclass
class Equation:
    """``lhs = loop reactions of rows`` (``0`` without loops) for the speeds ``rows``."""

    lhs: Term | None
    rows: list[int]
    branch: str
    loops: bool


@dataclass
class NewtonEuler:
    """The recursive form of a mechanism's equations of motion (:func:`newton_euler`).

    Attributes
    ----------
    eom : MechanismEquations
    dimensions : int
        2 or 3.
    rates : tuple of sympy.Symbol
        The rates ``u'`` of the speeds, in the order of ``eom.u``.
    parameters : list of (Quantity, sympy object)
        Masses, inertias and gravity, by name.
    definitions : list of Definition
        The named quantities in the order they are computed.
    equations : list of Equation
        One per group of a branch's speeds; their rows cover every speed once.
    quaternion_rotation : bool
        Whether some rotation is written ``Rq(w, x, y, z)`` (the listing defines it).
    """

    eom: Any
    dimensions: int
    rates: tuple
    parameters: list = field(default_factory=list)
    definitions: list = field(default_factory=list)
    equations: list = field(default_factory=list)
    quaternion_rotation: bool = False

    def residuals(self, q, u, du, parameters: dict | None = None, time: float = 0.0) -> np.ndarray:
        """The left-hand sides of the equations of motion at coordinates ``q``, speeds
        ``u`` and their rates ``du`` (numbers), stacked in the order of the speeds: equal
        to ``M u' - Q`` (and so to ``Phi_u^T lambda`` along a motion).

        ``parameters`` gives values to symbolic parameters, by name or symbol.

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
        >>> bob = mech.body("bob", mass=2.0, inertia=0.0, position=(1, 0))
        >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
        >>> ne = newton_euler(mech.formulate())
        >>> ne.residuals([0.0], [0.0], [1.0]).tolist()    # M u' - Q = 2 * 1 + 2 * 9.81 * 1
        [21.62]
        """
        eom = self.eom
        values: dict = {s: sympy.Float(float(x)) for s, x in zip(eom.q, q)}
        values.update({s: sympy.Float(float(x)) for s, x in zip(eom.u, u)})
        values.update({s: sympy.Float(float(x)) for s, x in zip(self.rates, du)})
        values[t] = sympy.Float(time)
        for key, value in (parameters or {}).items():
            symbol = key if isinstance(key, sympy.Symbol) else sympy.Symbol(str(key), real=True)
            values[symbol] = sympy.sympify(value)
        env: dict = {"symbols": values}
        for quantity, value in self.parameters:
            env[quantity.key] = Literal(value).value(env)
        for d in self.definitions:
            env[d.quantity.key] = d.term.value(env) if d.term is not None else 0.0
        out = np.zeros(len(eom.u))
        for eq in self.equations:
            if eq.lhs is not None:
                out[eq.rows] = np.atleast_1d(eq.lhs.value(env)).ravel()
        return out

    def steps(self) -> tuple[list[tuple[sympy.Symbol, sympy.Expr]], list[sympy.Expr]]:
        """The listing as assignments in the order of :attr:`definitions`: every entry of
        every quantity that is not a number or a symbol becomes a new symbol ``name = expr``
        over the coordinates, speeds, :attr:`rates`, parameters, time and the earlier
        symbols; and the residuals ``M u' - Q`` over them, in the order of the speeds. Each
        expression is as short as the step it comes from, so code written from them grows
        with the number of bodies, where ``M`` and ``Q`` written out grow much faster.

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
        >>> bob = mech.body("bob", mass=2.0, inertia=0.0, position=(1, 0))
        >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
        >>> eom = mech.formulate()
        >>> ne = newton_euler(eom)
        >>> steps, residuals = ne.steps()
        >>> values = {eom.q[0]: 0.0, eom.u[0]: 0.0, ne.rates[0]: 1.0}
        >>> for symbol, expr in steps:
        ...     values[symbol] = expr.xreplace(values)
        >>> float(residuals[0].xreplace(values))     # as residuals() above
        21.62
        """
        env: dict = {"symbols": {}, "exact": True}
        steps: list[tuple[sympy.Symbol, sympy.Expr]] = []
        names = sympy.numbered_symbols("ne", real=True)

        def name(value: Any) -> Any:
            if not isinstance(value, np.ndarray):
                value = sympy.sympify(value)
                if value.is_Atom:
                    return value
                symbol = next(names)
                steps.append((symbol, value))
                return symbol
            return np.array([name(x) for x in value.ravel()], dtype=object).reshape(
                value.shape)

        for quantity, value in self.parameters:
            env[quantity.key] = Literal(value).value(env)
        for d in self.definitions:
            env[d.quantity.key] = name(d.term.value(env)) if d.term is not None else 0
        out: list[sympy.Expr] = [sympy.S.Zero] * len(self.eom.u)
        for eq in self.equations:
            if eq.lhs is not None:
                for row, x in zip(eq.rows, np.atleast_1d(eq.lhs.value(env)).ravel()):
                    out[row] = sympy.sympify(x)
        return steps, out


def _is_identity(R: sympy.MatrixBase) -> bool:
    return R == sympy.eye(R.rows)


def _nonzero(M: sympy.MatrixBase) -> bool:
    return any(x != 0 for x in M)


class _Builder:
    """Builds a :class:`NewtonEuler` (see :func:`newton_euler`)."""

    def __init__(self, eom) -> None:
        self.eom = eom
        self.net = eom.mechanism.network
        self.dim = eom.mechanism.dimensions
        self.rates = tuple(sympy.Symbol(f"rate of {u.name}", real=True) for u in eom.u)
        self.out = NewtonEuler(eom, self.dim, self.rates)
        self.speed_index = self._speed_index()
        self.bodies = {name: self.net.element(name).edges[0].head for name in eom.mechanism.bodies}
        self.centres = {node: name for name, node in self.bodies.items()}
        self.used: set = set()

    def _speed_index(self) -> dict[str, list[int]]:
        index = getattr(self.eom, "speed_index", None)
        if index is not None:
            return index
        out, start = {}, 0
        for branch in self.eom.topology.branches:
            k = len(self.net.element(branch).coordinates)
            out[branch] = list(range(start, start + k))
            start += k
        return out

    def define(self, base: str, owner: str, term: Term | None, section: str) -> Quantity | None:
        """Name ``term`` (``None`` stays zero and unnamed)."""
        if term is None:
            return None
        key = (base, owner)
        k = 2
        while key in self.used:   # two nodes of one body with different rotations
            key = (base, f"{owner} ({k})")
            k += 1
        self.used.add(key)
        quantity = Quantity(*key)
        self.out.definitions.append(Definition(quantity, term, section))
        return quantity

    def owner(self, node: str) -> str:
        """The body a node belongs to (its name before the point's), or the node."""
        node = str(node)
        if node in self.bodies:
            return node
        head = node.rpartition(".")[0]
        return head if head in self.bodies or head == "ground" else node

    # -- a branch's relative motion, the same for both dimensions ----------------------
    def motion(self, element, qb: list, ub: sympy.Matrix, dub: sympy.Matrix) -> dict:
        """The branch's rotation (a matrix, or in the plane an angle), offset ``rho``,
        angular and linear motion per unit speed ``W``, ``V``, and the rates ``W u, V u``,
        ``W u' + W' u``, ``V u' + V' u``."""
        if self.dim == 2:
            rho0, rho_q, theta0, theta_q = element.motion()
            k = len(qb)
            qv = sympy.Matrix(qb) if k else sympy.zeros(0, 1)
            V = sympy.Matrix(rho_q) if k else sympy.zeros(2, 0)
            rho = sympy.Matrix(rho0) + (V * qv if k else sympy.zeros(2, 1))
            W = sympy.Matrix([list(theta_q)]) if k else sympy.zeros(1, 0)
            turn = sympy.sympify(theta0) + sum((a * b for a, b in zip(theta_q, qb)), sympy.S.Zero)
            Wdot = Vdot = None
            rotation = turn
            turns = turn != 0
        else:
            rotation, rho, W, V, Nb = element.branch_motion(qb, getattr(self.eom, "speeds",
                                                                        "tail"))
            qdot = list(Nb * ub) if qb else []

            def rate(X):
                out = sympy.zeros(*X.shape)
                for qi, qd in zip(qb, qdot):
                    if X.has(qi):
                        out += X.diff(qi) * qd
                return out

            # a free rotation's W u_b has no rate at constant u_b (SpatialElement.branch_motion)
            Wdot = rate(W) if W.shape[1] and not element.free_rotation else None
            Vdot = rate(V) if V.shape[1] else None
            turns = not _is_identity(rotation)
        info = {"rotation": rotation, "turns": turns, "rho": rho, "W": W, "V": V,
                "frame": getattr(element, "frame", "tail"),
                # body-axis angular speeds and their rates: W u_b = R_rel omega_b, which the
                # forward pass writes as the head body's rotation times omega_b
                "body": (ub[ub.rows - 3:, :], dub[dub.rows - 3:, :])
                if self.dim == 3 and element.free_rotation
                and getattr(self.eom, "speeds", "tail") == "body" else None}
        info["Wu"] = W * ub if W.shape[1] else None
        info["Vu"] = V * ub if V.shape[1] else None
        info["Wa"] = (W * dub + (Wdot * ub if Wdot is not None else sympy.zeros(W.rows, 1))) \
            if W.shape[1] else None
        info["Va"] = (V * dub + (Vdot * ub if Vdot is not None else sympy.zeros(V.rows, 1))) \
            if V.shape[1] else None
        return info

    def rotation_literal(self, element, rotation, qb: list, forward: bool) -> Literal:
        """The branch's relative rotation (transposed when walked against the edge),
        written ``Rq(w, x, y, z)`` for a quaternion and ``Rot(e, angle) R_0`` for a turn
        about a fixed axis."""
        value = rotation if forward else rotation.T
        names = list(getattr(element, "coordinates", ()))
        shown = None
        if len(qb) >= 4 and names[-4:] == ["qw", "qx", "qy", "qz"] and \
                rotation == _quaternion(qb[-4:]):
            self.out.quaternion_rotation = True
            shown = ("Rq", qb[-4:])
        elif "angle" in names and getattr(element, "turns", False) and len(names) <= 2:
            shown = ("Rot", qb[names.index("angle")])
        if shown is None:
            return Literal(value)
        return _ShownRotation(value, shown, element, forward)

    # -- the passes --------------------------------------------------------------------
    def build(self) -> NewtonEuler:
        eom, dim = self.eom, self.dim
        if getattr(eom, "rotors", None) or getattr(eom, "joint_loads", None):
            raise FormulationError("the recursive form does not show rotors and port loads")
        u, du = list(eom.u), list(self.rates)
        R: dict = {"ground": None}
        r: dict = {"ground": None}
        w: dict = {"ground": None}
        v: dict = {"ground": None}
        al: dict = {"ground": None}
        a: dict = {"ground": None}
        self.branch_info: dict = {}
        kin = "kinematics"
        for here, there, branch, forward, qidx in eom.walk:
            element = self.net.element(branch)
            uidx = self.speed_index[branch]
            qb = [eom.q[i] for i in qidx]
            ub = sympy.Matrix([u[i] for i in uidx]) if uidx else sympy.zeros(0, 1)
            dub = sympy.Matrix([du[i] for i in uidx]) if uidx else sympy.zeros(0, 1)
            m = self.motion(element, qb, ub, dub)
            s = 1 if forward else -1
            body = self.owner(there)
            # rotation
            if m["turns"]:
                if dim == 2:
                    R[there] = self.define("theta", body, plus((1, R[here]),
                                                               (s, Literal(m["rotation"]))), kin)
                else:
                    R[there] = self.define("R", body, times(
                        R[here], self.rotation_literal(element, m["rotation"], qb, forward),
                        identity=(0,)), kin)
            else:
                R[there] = R[here]
            F = here if forward else there         # the frame the branch's motion is in
            RF = self.turn(R[F])
            tail_frame = m["frame"] == "tail"
            # position
            moves = _nonzero(m["rho"]) or (m["V"].shape[1] and _nonzero(m["V"]))
            if moves:
                d = Literal(m["rho"])
                d = times(RF, d, identity=(0,)) if tail_frame else d
                r[there] = self.define("r", str(there), plus((1, r[here]), (s, d)), kin)
            else:
                r[there] = r[here]
            # angular velocity and acceleration
            if m["Wu"] is not None and _nonzero(m["W"]):
                rel = Literal(m["Wu"][0]) if dim == 2 else times(RF, Literal(m["Wu"]), identity=(0,))
                acc = Literal(m["Wa"][0]) if dim == 2 else times(RF, Literal(m["Wa"]), identity=(0,))
                if m["body"] is not None:    # R_F R_rel omega_b = R_head omega_b
                    head = self.turn(R[there] if forward else R[here])
                    rel = times(head, Literal(m["body"][0]), identity=(0,))
                    acc = times(head, Literal(m["body"][1]), identity=(0,))
                w[there] = self.define("omega", body, plus((1, w[here]), (s, rel)), kin)
                spin = cross(w[here], rel) if dim == 3 else None
                al[there] = self.define("alpha", body, plus((1, al[here]), (s, acc), (s, spin)),
                                        kin)
            else:
                w[there], al[there] = w[here], al[here]
            # velocity and acceleration of the point
            if moves:
                delta = difference(r[there], r[here])
                slide = slide_rate = None
                if m["Vu"] is not None and _nonzero(m["V"]):
                    slide = times(RF, Literal(m["Vu"]), identity=(0,)) if tail_frame \
                        else Literal(m["Vu"])
                    slide_rate = times(RF, Literal(m["Va"]), identity=(0,)) if tail_frame \
                        else Literal(m["Va"])
                wF, aF = (w[F], al[F]) if tail_frame else (None, None)
                v[there] = self.define("v", str(there), plus(
                    (1, v[here]), (1, cross(wF, delta)), (s, slide)), kin)
                coriolis = times(Literal(sympy.Integer(2)), cross(wF, slide))
                a[there] = self.define("a", str(there), plus(
                    (1, a[here]), (1, cross(aF, delta)), (1, cross(wF, cross(wF, delta))),
                    (s, coriolis), (s, slide_rate)), kin)
            else:
                v[there], a[there] = v[here], a[here]
            self.branch_info[branch] = (here, there, forward, uidx, m, F)
        self.R, self.r, self.w, self.v, self.al, self.a = R, r, w, v, al, a
        self.momenta()
        self.loads()
        self.reactions()
        return self.out

    def turn(self, R: Quantity | None) -> Term | None:
        """The rotation matrix of a node's rotation quantity (``R(theta)`` in the plane)."""
        if R is None:
            return None
        return Rotation(R) if self.dim == 2 else R

    def momenta(self) -> None:
        """Every body's momentum, angular momentum about its mass centre and their rates."""
        self.effective: dict = {}   # centre node -> (force, moment about the centre)
        params = self.out.parameters
        g = Quantity("g", "")
        params.append((g, self.eom.gravity))
        self.gravity = g if _nonzero(self.eom.gravity) else None
        sec = "momentum"
        for name, node in self.bodies.items():
            element = self.net.element(name)
            mass, inertia = Quantity("m", name), Quantity("J", name)
            params.append((mass, element.m))
            params.append((inertia, element.J))
            R, w, al = self.R[node], self.w[node], self.al[node]
            self.define("p", name, times(mass, self.v[node]), sec)
            pdot = self.define("pdot", name, times(mass, self.a[node]), sec)
            if self.dim == 2:
                self.define("h", name, times(inertia, w), sec)
                hdot = self.define("hdot", name, times(inertia, al), sec)
            else:
                Rt = R.T if R is not None else None
                self.define("h", name, times(R, inertia, Rt, w, identity=(0, 2)), sec)
                wbar = self.define("wbar", name, times(Rt, w, identity=(0,)), sec) \
                    if R is not None else w
                inner = plus((1, times(inertia, Rt, al, identity=(1,))),
                             (1, cross(wbar, times(inertia, wbar))))
                hdot = self.define("hdot", name, times(R, inner, identity=(0,)), sec)
            weight = times(mass, self.gravity)
            self.effective[node] = (plus((1, pdot), (-1, weight)), hdot)

    def loads(self) -> None:
        """The force laws of springs, dampers and drivers, at their end nodes."""
        self.node_loads: dict = {}
        eom = self.eom
        for entry in eom.force_elements:
            element = entry[0]
            F, T = entry[1] if self.dim == 2 else entry[1:3]
            F = sympy.Matrix(F)
            T = sympy.sympify(T) if self.dim == 2 else sympy.Matrix(T)
            Fq = self.define("F", element.name, Literal(F), "loads") if _nonzero(F) else None
            zero_T = T == 0 if self.dim == 2 else not _nonzero(T)
            Tq = None if zero_T else self.define("T", element.name, Literal(T), "loads")
            tail, head = self.net.graph.ends(element.name)
            for node, sign in ((head, 1), (tail, -1)):
                if node != "ground" and (Fq is not None or Tq is not None):
                    self.node_loads.setdefault(node, []).append((sign, Fq, Tq))

    def reactions(self) -> None:
        """The backward pass: each branch with speeds carries what lies beyond it; its
        free directions give the equations of motion."""
        eom = self.eom
        children: dict = {}
        for here, there, branch, forward, qidx in eom.walk:
            children.setdefault(here, []).append(branch)
        on_loops = self._branches_on_loops()
        done: dict = {}   # branch -> (f, n, reference point's position)
        for here, there, branch, forward, qidx in reversed(eom.walk):
            _, _, _, uidx, m, F = self.branch_info[branch]
            if not uidx:
                continue
            ref = here if (not forward and m["frame"] == "tail") else there
            r_ref = self.r[ref]
            forces: list = []
            moments: list = []
            stack = [there]
            while stack:        # the part beyond the branch, joined to it by arms
                node = stack.pop()
                lever = difference(self.r[node], r_ref)
                if node in self.effective:
                    force, moment = self.effective[node]
                    forces.append((1, force))
                    moments += [(1, moment), (1, cross(lever, force))]
                for sign, Fq, Tq in self.node_loads.get(node, []):
                    forces.append((sign, Fq))
                    moments += [(sign, Tq), (sign, cross(lever, Fq))]
                for child in children.get(node, []):
                    c_here, c_there, c_forward, c_uidx, _, _ = self.branch_info[child]
                    if c_uidx:
                        f_c, n_c, r_c = done[child]
                        forces.append((1, f_c))
                        moments += [(1, n_c), (1, cross(difference(r_c, r_ref), f_c))]
                    else:
                        stack.append(c_there)
            f = self.define("f", branch, plus(*forces), "reactions")
            n = self.define("n", branch, plus(*moments), "reactions")
            done[branch] = (f, n, r_ref)
            self.equations(branch, forward, uidx, m, F, f, n, branch in on_loops)
        self.out.equations.sort(key=lambda e: e.rows[0])

    def equations(self, branch, forward, uidx, m, F, f, n, loops) -> None:
        """``s (W^T R_F^T n + V^T R_F^T f) = loop reactions`` by groups of the branch's
        speeds: the turning ones, the sliding ones, and any that do both."""
        s = 1 if forward else -1
        W, V = m["W"], m["V"]
        k = len(uidx)
        turning = [j for j in range(k) if W.shape[1] and _nonzero(W[:, j])
                   and not (V.shape[1] and _nonzero(V[:, j]))]
        sliding = [j for j in range(k) if j not in turning and not (W.shape[1] and _nonzero(W[:, j]))]
        both = [j for j in range(k) if j not in turning and j not in sliding]
        RF = self.turn(self.R[F])
        RFt = None if RF is None else RF.T
        for group in (turning, sliding, both):
            if not group:
                continue
            parts: list = []
            if W.shape[1] and _nonzero(W[:, group]):
                Wt = W[:, group].T
                element = self.net.element(branch)
                if self.dim == 2:
                    parts.append((s, times(_literal_or_identity(Wt), n, identity=(0,))))
                elif element.free_rotation and getattr(self.eom, "speeds", "tail") == "body":
                    # W = R_rel in body axes: W^T R_F^T n is the moment in the head body's
                    # axes, R_head^T n (Euler's components)
                    here, there = self.branch_info[branch][:2]
                    head = self.turn(self.R[there if forward else here])
                    parts.append((s, times(None if head is None else head.T, n,
                                           identity=(0,))))
                else:
                    parts.append((s, times(_literal_or_identity(Wt), RFt, n, identity=(0, 1))))
            if V.shape[1] and _nonzero(V[:, group]):
                Vt = V[:, group].T
                turn = RFt if m["frame"] == "tail" else None
                parts.append((s, times(_literal_or_identity(Vt), turn, f, identity=(0, 1))))
            self.out.equations.append(Equation(plus(*parts), [uidx[j] for j in group], branch,
                                               loops))

    def _branches_on_loops(self) -> set:
        """Branches in the circuit of a chord that constrains (a cut joint, a driver, a
        gear): their equations hold the loop reactions."""
        chords = self.eom.constraint_chords
        if not chords:
            return set()
        topo = self.eom.topology
        circuit = topo.circuit
        cells = circuit.toarray()
        rows, columns = list(circuit.rows), list(circuit.columns)
        return {b for chord in chords for j, b in enumerate(columns)
                if b in topo.branches and cells[rows.index(chord)][j]}


def _literal_or_identity(M: sympy.MatrixBase) -> Literal | None:
    return None if M.rows == M.cols and _is_identity(M) else Literal(M)


def _quaternion(p) -> sympy.Matrix:
    from ..core.rotations import quaternion_matrix

    return quaternion_matrix(p)


class _ShownRotation(Literal):
    """A relative rotation written by name: ``Rq(w, x, y, z)`` (a quaternion) or
    ``Rot(e, angle) R_0`` (a turn about the tail-fixed axis ``e``)."""

    def __init__(self, value, form, element, forward) -> None:
        super().__init__(value)
        self.form, self.element, self.forward = form, element, forward

    def write(self, out: Writer) -> str:
        kind, arg = self.form
        tee = "" if self.forward else (r"^{\mathsf{T}}" if out.is_latex else "^T")
        if kind == "Rq":
            inside = ", ".join(out(x) for x in arg)
            return (rf"R_q({inside})" if out.is_latex else f"Rq({inside})") + tee
        axis = sympy.Matrix([_number(x) for x in self.element.axis])
        R0 = sympy.Matrix(np.asarray(self.element.R0, dtype=float).round(12)).applyfunc(_number)
        turn = (rf"\mathrm{{Rot}}\left({out.matrix(axis.T)}, {out(arg)}\right)" if out.is_latex
                else f"Rot({out.matrix(axis.T)}, {out(arg)})")
        if not _is_identity(R0):
            turn += (r"\," if out.is_latex else " ") + out.matrix(R0)
        return (rf"\left({turn}\right){tee}" if out.is_latex else f"({turn}){tee}") if tee \
            else turn

    @property
    def precedence(self) -> int:  # type: ignore[override]
        return 3


def _number(x) -> sympy.Expr:
    x = float(x)
    return sympy.Integer(int(x)) if x.is_integer() else sympy.Float(x)


def newton_euler(eom) -> NewtonEuler:
    """The recursive Newton–Euler form of a planar or spatial mechanism's equations of
    motion (see the module notes): named quantities of the forward pass, the bodies'
    momenta, the loads, the reactions of the backward pass, and one equation per group of
    a branch's speeds, whose left-hand sides stacked are ``M u' - Q``.

    Parameters
    ----------
    eom : MultibodyEquations or SpatialEquations

    Returns
    -------
    NewtonEuler

    Raises
    ------
    FormulationError
        For a mechanism coupled to a network by rotors or port loads (their terms are in
        ``M`` and ``Q`` only).

    Examples
    --------
    >>> import vecnet as vn
    >>> mech = vn.spatial.Mechanism("p", gravity=(0, 0, -9.81))
    >>> bob = mech.body("bob", 1.0, (0.1, 0.1, 0.1), position=(0, 0, -1))
    >>> _ = mech.spherical("ball", mech.ground.point(0, 0, 0), bob.point(0, 0, 1))
    >>> ne = newton_euler(mech.formulate())
    >>> [d.quantity.base + " " + d.quantity.owner for d in ne.definitions][:3]
    ['R bob', 'omega bob', 'alpha bob']
    """
    return _Builder(eom).build()
