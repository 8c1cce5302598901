"""Lumped networks: the three equation sets, state equations and linear models.

Primary variables are the across variables of tree branches and the through
variables of chords; the cutset and circuit equations give every secondary
variable (branch through, chord across) in terms of them. State variables are
the across variables of A-type branches and the through variables of T-type
chords. Substituting the secondary variables into the terminal equations and
solving them block by block (:mod:`vecnet.formulation.blt`) leaves the state
equations ``x' = f(x, u, u')``; what cannot be solved explicitly stays as
algebraic equations ``0 = g(x, z, u)`` for the DAE path.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import sympy

from ..core.bounds import get_limits
from ..core.forwards import public
from ..core.later import later
from ..core.numbers import exact_rational
from ..elements.base import EdgeVariables, Kind, t
from ..errors import FormulationError, ModelError, UnknownNameError
from ..graph.topology import Topology
from .blt import solve_blocks
from .transfer import TransferMatrix, collected_in_s, s

if TYPE_CHECKING:
    from ..builders.network import Network

__all__ = ["NetworkEquations", "Input", "StateSpace", "network_equations", "network_inputs",
           "state_space", "collected_in_s"]


@dataclass(frozen=True)
class Input:
    """An input of the network: the value of one source.

    ``name`` says what the source drives (``"V7.across"``, ``"I1.through"``);
    ``symbol`` stands for its value in the equations; ``signal`` is the value
    given to the element (a number, an expression in ``t``, a function of
    ``t``, or ``None`` when only symbolic). The driven edge variable equals
    ``sign * value``: +1 for across sources, -1 for through sources, which
    deliver their value into their head node.
    """

    name: str
    element: str
    symbol: sympy.Symbol
    signal: Any
    sign: int


class NetworkEquations:
    """The cutset, circuit and terminal equations of a network for one tree.

    Attributes
    ----------
    topology : Topology
    variables : dict
        Edge name -> :class:`~vecnet.EdgeVariables` (sympy functions of ``t``).
    cutset, circuit, terminal : list of sympy.Eq
        ``v - p`` cutset equations (branch through variables), ``e - v + p``
        circuit equations (chord across variables) and the ``e`` terminal
        equations of the elements.
    primary, secondary : tuple of sympy expressions
        Branch across and chord through variables; branch through and chord
        across variables.
    states : dict
        State name (``"C6.across"``) -> the edge variable it is.
    dependent_stores : tuple of str
        A-type elements in the cotree and T-type elements in the tree (a winding of coupled
        inductors by its edge name).
    inputs : tuple of Input

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network()
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=2.0),
    ...             vn.Capacitor("C", "b", "g", C=3.0))
    >>> eqs = net.equations()
    >>> eqs.counts
    {'unknowns': 6, 'cutset': 2, 'circuit': 1, 'terminal': 3}
    >>> list(eqs.states)
    ['C.across']
    """

    def __init__(self, net: Network, tree: Sequence[str] | str = "normal",
                 datum: Hashable | None = None) -> None:
        bound = get_limits().max_elements
        if len(net.elements) > bound:
            raise FormulationError(
                f"network {net.name!r} has {len(net.elements)} elements, more than max_elements "
                f"= {bound} for the exact symbolic formulation, whose cost grows faster than "
                "the network; a linear network with numbers simulates through the sparse "
                "numeric formulation (net.sparse_state_space(), net.simulate()), or raise the "
                "limit with vn.limits(max_elements=...)")
        self.network = net
        self.topology: Topology = net.topology(tree=tree, datum=datum)
        topo = self.topology
        self.variables: dict[str, EdgeVariables] = {e: net.variables(e) for e in topo.edges}
        self.cutset = topo.cutset_equations({e: v.through for e, v in self.variables.items()})
        self.circuit = topo.circuit_equations({e: v.across for e, v in self.variables.items()})
        self.terminal: list[sympy.Eq] = []
        self.terminal_owner: list[str] = []
        for element in net.elements:
            for eq in element.terminal_equations(self.variables):
                self.terminal.append(eq)
                self.terminal_owner.append(element.name)
        branches = set(topo.branches)
        self.primary = tuple(self.variables[e].across for e in topo.branches) + tuple(
            self.variables[e].through for e in topo.chords)
        self.secondary = tuple(self.variables[e].through for e in topo.branches) + tuple(
            self.variables[e].across for e in topo.chords)
        self.states: dict[str, sympy.Expr] = {}
        dependent = []
        for element in net.elements:
            for edge in (e.name for e in element.edges):
                if element.kind is Kind.ACROSS_STORE:
                    if edge in branches:
                        self.states[f"{edge}.across"] = self.variables[edge].across
                    else:
                        dependent.append(store_name(element, edge))
                elif element.kind is Kind.THROUGH_STORE:
                    if edge in branches:
                        dependent.append(store_name(element, edge))
                    else:
                        self.states[f"{edge}.through"] = self.variables[edge].through
        self.dependent_stores = tuple(dependent)
        self.inputs = network_inputs(net)

    @property
    def counts(self) -> dict[str, int]:
        """Numbers of unknowns (``2e``) and of cutset, circuit and terminal equations."""
        return {"unknowns": 2 * len(self.topology.edges), "cutset": len(self.cutset),
                "circuit": len(self.circuit), "terminal": len(self.terminal)}

    @property
    def order(self) -> int:
        """The system order: the number of independent energy stores."""
        return len(self.states)

    def diagnosis(self) -> str:
        """The tree, the states and the dependent energy stores, in words."""
        topo = self.topology
        lines = [f"normal tree: {', '.join(topo.branches)}; cotree: {', '.join(topo.chords)}",
                 f"state variables ({self.order}): {', '.join(self.states) or 'none'}"]
        if self.dependent_stores:
            lines.append(
                f"dependent energy stores: {', '.join(self.dependent_stores)} (an A-type element in "
                "the cotree or a T-type element in the tree stores energy that the other stores "
                "fix); they add no state, and the system order is " + str(self.order))
        else:
            lines.append(f"no dependent energy stores; the system order is {self.order}")
        return "\n".join(lines)

    def secondary_equations(self) -> dict[sympy.Expr, sympy.Expr]:
        """Each secondary variable as an expression in primary variables."""
        return {eq.lhs: eq.rhs for eq in self.cutset + self.circuit}

    def _repr_latex_(self) -> str | None:
        """``$$`` + :func:`vecnet.output.teaching.latex` + ``$$``, for notebooks (``None`` when too
        large to typeset)."""
        repr_latex = later("vecnet.output.teaching").repr_latex

        return repr_latex(self)


class StateSpace:
    """State equations ``x' = f(x, u, u')`` and outputs ``y = h(x, u, u')`` of a network.

    For linear networks ``x' = A x + B u + E u'`` and ``y = C x + D u + F u'``;
    ``E`` and ``F`` are zero unless a dependent energy store differentiates an
    input. Networks with algebraic loops that cannot be solved explicitly keep
    algebraic variables ``z`` with residuals ``0 = g(x, z, u)``.

    Attributes
    ----------
    states, inputs, outputs : tuple of str
        Names such as ``"C6.across"``, ``"V7.across"``.
    x, u, du, z : tuple of sympy.Symbol
    f, h : sympy.Matrix
    g : sympy.Matrix
        Residuals of the algebraic variables ``z`` (empty for explicit models).
    z_names : tuple of str
        The variable (``"<edge>.across"`` or ``.through``) each ``z`` stands for.
    values : dict
        Numeric parameter values of the elements, by symbol.
    signals : dict
        Input name -> the value given to its source (number, expression in t, callable).
    """

    def __init__(self, *, states, x, dx, inputs, u, du, f, z, g, variables, values, signals,
                 outputs=(), dependent_stores=(), diagnosis: str = "", z_names=()) -> None:
        self.states = tuple(states)
        self.x = tuple(x)
        self._dx = tuple(dx)
        self.inputs = tuple(inputs)
        self.u = tuple(u)
        self.du = tuple(du)
        self.f = sympy.ImmutableMatrix(f) if f else sympy.ImmutableMatrix.zeros(0, 1)
        self.z = tuple(z)
        self.z_names = tuple(z_names)
        self.g = sympy.ImmutableMatrix(g) if g else sympy.ImmutableMatrix.zeros(0, 1)
        self._variables = dict(variables)
        self.values = dict(values)
        self.signals = dict(signals)
        self.dependent_stores = tuple(dependent_stores)
        self._diagnosis = diagnosis
        self.outputs = tuple(outputs)
        self.h = sympy.ImmutableMatrix([self.output(name) for name in self.outputs]) \
            if self.outputs else sympy.ImmutableMatrix.zeros(0, 1)

    # -- naming ---------------------------------------------------------------
    @property
    def variable_names(self) -> tuple[str, ...]:
        """Every variable that can be an output: ``"<edge>.across"``, ``"<edge>.through"``."""
        return tuple(self._variables)

    def output(self, name: str) -> sympy.Expr:
        """The expression of variable ``name`` in the states, inputs and input derivatives."""
        try:
            return self._variables[name]
        except KeyError:
            raise UnknownNameError(f"no variable {name!r}; variables are named "
                                   "'<edge>.across' and '<edge>.through', e.g. "
                                   f"{', '.join(list(self._variables)[:4])}") from None

    def with_outputs(self, outputs: Iterable[str]) -> StateSpace:
        """The same model with other outputs."""
        return self.replace(outputs=tuple(outputs))

    def replace(self, **changes) -> StateSpace:
        fields = dict(states=self.states, x=self.x, dx=self._dx, inputs=self.inputs, u=self.u,
                      du=self.du, f=list(self.f), z=self.z, g=list(self.g),
                      variables=self._variables, values=self.values, signals=self.signals,
                      outputs=self.outputs, dependent_stores=self.dependent_stores,
                      diagnosis=self._diagnosis, z_names=self.z_names)
        fields.update(changes)
        return StateSpace(**fields)

    def diagnosis(self) -> str:
        """The tree, the states and the dependent energy stores, in words."""
        return self._diagnosis

    def subs(self, values: dict | None = None) -> StateSpace:
        """Substitute parameter values: the elements' numeric values, or ``values``.
        Inputs are not parameters: give their values when simulating."""
        values = self.values if values is None else {_symbol(k): v for k, v in values.items()}
        inputs = [k for k in values if k in self.u]
        if inputs:
            raise ModelError(f"{', '.join(map(str, inputs))} stand(s) for input(s) "
                             f"{', '.join(self.inputs)}; give input values to simulate()")
        exact = {k: exact_rational(v) if isinstance(v, float) else v for k, v in values.items()}

        def put(expr):
            return expr.xreplace(exact)

        return self.replace(f=[put(e) for e in self.f], g=[put(e) for e in self.g],
                             variables={k: put(v) for k, v in self._variables.items()},
                             values={k: v for k, v in self.values.items() if k not in exact})

    def state_equations(self) -> list[sympy.Eq]:
        """``d x_i/dt = f_i`` as sympy equations, for display."""
        return [sympy.Eq(sympy.Derivative(sympy.Function(str(x))(t), t), fi)
                for x, fi in zip(self.x, self.f)]

    # -- linear model ---------------------------------------------------------
    @cached_property
    def is_linear(self) -> bool:
        """True when f and h are linear in the states, inputs and input derivatives."""
        return self._linear_parts is not None

    @cached_property
    def _linear_parts(self) -> dict[str, sympy.ImmutableMatrix] | None:
        if self.z:
            return None
        args = list(self.x) + list(self.u) + list(self.du)
        index = {a: k for k, a in enumerate(args)}
        groups = (("f", self.f, ("A", "B", "E")), ("h", self.h, ("C", "D", "F")))
        parts = {}
        for _, exprs, names in groups:
            # the Jacobian, differentiating each expression only by the arguments it holds
            # (a row of a large network holds a few of its thousands)
            entries = {}
            for i, expr in enumerate(exprs):
                for a in expr.free_symbols & index.keys():
                    slope = expr.diff(a)
                    if slope.free_symbols & index.keys():
                        return None
                    entries[i, index[a]] = slope
            jac = sympy.SparseMatrix(len(exprs), len(args), entries)
            sizes = (len(self.x), len(self.u), len(self.du))
            start = 0
            for name, size in zip(names, sizes):
                parts[name] = sympy.ImmutableMatrix(jac[:, start:start + size]) if len(exprs) \
                    else sympy.ImmutableMatrix.zeros(0, size)
                start += size
        return parts

    def _part(self, name: str) -> sympy.ImmutableMatrix:
        if self._linear_parts is None:
            raise FormulationError("the network is nonlinear (or keeps algebraic loops): it has "
                                   "no A, B, C, D; use f and h, or linearize(point) about an "
                                   "operating point")
        return self._linear_parts[name]

    A = property(lambda self: self._part("A"), doc="``df/dx``")
    B = property(lambda self: self._part("B"), doc="``df/du``")
    E = property(lambda self: self._part("E"), doc="``df/du'`` (input derivatives)")
    C = property(lambda self: self._part("C"), doc="``dh/dx``")
    D = property(lambda self: self._part("D"), doc="``dh/du``")
    F = property(lambda self: self._part("F"), doc="``dh/du'``")

    def transfer_function(self, control: str | bool | None = None) -> Any:
        """``H(s) = C (sI - A)^{-1} (B + s E) + D + s F``, one row per output and one column
        per input, exact and without inverting a symbolic matrix: for numeric models
        each entry comes from two characteristic polynomials (the matrix determinant lemma,
        ``det(sI - A + B_j C_i) = det(sI - A) (1 + C_i (sI - A)^{-1} B_j)``); otherwise from
        fraction-free elimination over the rational functions of the parameters, which is
        far slower: for numbers, ``subs()`` first (or ``state_space()`` without ``symbolic=True``).

        Parameters
        ----------
        control : {None, "sympy", "python-control"}
            ``None`` (default): a :class:`~vecnet.formulation.transfer.TransferMatrix` of
            rational functions in ``s`` named by the outputs and inputs, each numerator
            and denominator collected in powers of ``s`` (:func:`collected_in_s`, printed
            in descending powers as ``vecnet equations --transfer-function`` prints
            them), with its zeros, poles and gain, partial fractions and responses in time.
            ``"sympy"``: :class:`sympy.physics.control.TransferFunction` for one input and
            one output, else a :class:`~sympy.physics.control.TransferFunctionMatrix` (for
            block-diagram algebra and plots). ``"python-control"``: a
            ``control.TransferFunction`` (``pip install vecnet[control]``) with the inputs
            and outputs named (``:`` for ``.``); every parameter needs a number.
            ``True``, the older spelling, gives the ``TransferFunctionMatrix`` always.

        Returns
        -------
        TransferMatrix, sympy.physics.control.TransferFunction or TransferFunctionMatrix,
        or control.TransferFunction

        Raises
        ------
        FormulationError
            ``control`` is none of these; the network is nonlinear; the model has no
            output (choose some: ``with_outputs(["C1.across"])``) or no input (no source);
            for ``"python-control"``, a parameter without a value or python-control
            missing.

        Examples
        --------
        >>> import vecnet as vn
        >>> net = vn.Network("rc")
        >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=0.5),
        ...             vn.Capacitor("C", "g", "b", C=4.0))
        >>> ss = net.state_space(outputs=["C.across"], symbolic=True)
        >>> ss.transfer_function()["C.across", "V.across"], ss.subs().transfer_function()[0, 0]
        (1/(C*R*s + 1), 1/(2*s + 1))
        >>> ss.subs().transfer_function(control="sympy")
        TransferFunction(1, 2*s + 1, s)
        >>> H = ss.subs().transfer_function(control="python-control")
        >>> H.num[0][0].tolist(), H.den[0][0].tolist(), H.input_labels, H.output_labels
        ([1.0], [2.0, 1.0], ['V:across'], ['C:across'])
        """
        choices = (None, "sympy", "python-control")
        if control is not True and control not in choices:
            raise FormulationError(f"control is None (a sympy matrix), 'sympy' or "
                                   f"'python-control'; got {control!r}")
        if not self.outputs:
            example = f'["{self.states[0]}"]' if self.states else '["R1.across"]'
            raise FormulationError(
                "the state space has no outputs, and a transfer function is output over "
                f"input: choose them, e.g. ss.with_outputs({example}) or "
                f"state_space(outputs={example})")
        if not self.inputs:
            raise FormulationError("the network has no sources: it has no input, and so no "
                                   "transfer function")
        H = self._transfer_matrix()
        if control is None or control is False:
            return TransferMatrix(H, self.outputs, self.inputs)
        if control == "python-control":
            return _control_transfer_function(H, self.inputs, self.outputs)
        from sympy.physics.control import TransferFunction, TransferFunctionMatrix

        if control == "sympy" and H.shape == (1, 1):
            return TransferFunction.from_rational_expression(H[0, 0], s)
        return TransferFunctionMatrix.from_Matrix(H, s)

    def _transfer_matrix(self) -> sympy.Matrix:
        from sympy.polys.matrices import DomainMatrix

        n = len(self.x)
        A, B, C, D, E, F = self.A, self.B, self.C, self.D, self.E, self.F
        direct = D + s * F
        if n == 0 or not self.u:
            return sympy.Matrix(direct).applyfunc(lambda e: collected_in_s(sympy.cancel(e)))
        numeric = not (A.free_symbols | B.free_symbols | C.free_symbols) and E.is_zero_matrix
        if numeric:
            def charpoly(M):
                return sympy.Poly(DomainMatrix.from_Matrix(sympy.Matrix(M)).convert_to(
                    sympy.QQ).charpoly(), s)

            base = charpoly(A)
            H = sympy.zeros(C.rows, B.cols)
            for i in range(C.rows):
                for j in range(B.cols):
                    shifted = charpoly(A - B[:, j] * C[i, :])
                    H[i, j] = collected_in_s(sympy.cancel(
                        (shifted - base).as_expr() / base.as_expr() + direct[i, j]))
            return H
        lhs = DomainMatrix.from_Matrix(s * sympy.eye(n) - A)
        rhs = DomainMatrix.from_Matrix(B + s * E)
        lhs, rhs = lhs.unify(rhs)
        field = lhs.domain.get_field()
        solution = lhs.convert_to(field).lu_solve(rhs.convert_to(field)).to_Matrix()
        return (C * solution + direct).applyfunc(lambda e: collected_in_s(sympy.cancel(e)))

    def _numeric(self):
        import numpy as np

        model = self.subs() if self.values else self
        matrices = []
        for m in (model.A, model.B, model.C, model.D, model.E, model.F):
            if m.free_symbols:
                raise FormulationError("numeric export needs a value for every parameter; "
                                       f"missing: {', '.join(sorted(map(str, m.free_symbols)))}")
            matrices.append(np.array(m.tolist(), dtype=float).reshape(m.shape))
        A, B, C, D, E, F = matrices
        if np.any(F):
            raise FormulationError("an output depends on input derivatives: no proper state-"
                                   "space model exists; use transfer_function()")
        # x' = Ax + Bu + Eu': with w = x - E u, w' = A w + (A E + B) u and y = C w + (C E + D) u
        return A, A @ E + B, C, C @ E + D

    def to_scipy(self):
        """A :class:`scipy.signal.StateSpace` (numeric values needed). With input
        derivatives, the states are shifted: ``w = x - E u``."""
        import scipy.signal

        return scipy.signal.StateSpace(*self._numeric())

    def to_control(self):
        """A python-control ``StateSpace`` (``pip install vecnet[control]``) whose signals
        carry this model's names with ``:`` for ``.`` (python-control reserves the dot):
        ``"C6:across"``. Numeric values are needed (the elements' or :meth:`subs`).

        A network without sources gives a system of no inputs (its free response); a model
        without outputs has its states as outputs (``y = x``).

        Raises
        ------
        FormulationError
            python-control is missing, a parameter has no value, the network is nonlinear,
            or an output depends on input derivatives.

        >>> import vecnet as vn
        >>> net = vn.Network("rc")
        >>> _ = net.add(vn.Resistor("R", "a", "g", R=2.0), vn.Capacitor("C", "g", "a", C=0.5))
        >>> system = net.state_space().to_control()
        >>> system.ninputs, system.output_labels, [complex(p) for p in system.poles()]
        (0, ['C:across'], [(-1+0j)])
        """
        return control_state_space(*self._numeric(), self.states, self.inputs, self.outputs)

    def linearize(self, point: Mapping[str, float], parameters: Mapping | None = None) -> StateSpace:
        """The linear model of the deviations from an operating point: see
        :func:`vecnet.numerics.linearize.linearize`."""
        return public("linearize")(self, point, parameters)

    def simulate(self, t_span, **options):
        """Integrate in time: ``vn.simulate(model, t_span, **options)``
        (:func:`vecnet.simulate`)."""
        return public("simulate")(self, t_span, **options)

    def __repr__(self) -> str:
        kind = "linear" if self.is_linear else "nonlinear"
        return (f"<StateSpace {kind}: {len(self.x)} states {list(self.states)}, inputs "
                f"{list(self.inputs)}, outputs {list(self.outputs)}>")

    def _repr_latex_(self) -> str | None:
        """``$$`` + :func:`vecnet.output.teaching.latex` + ``$$``, for notebooks (``None`` when too
        large to typeset)."""
        repr_latex = later("vecnet.output.teaching").repr_latex

        return repr_latex(self)


def control_state_space(A, B, C, D, states: Sequence[str], inputs: Sequence[str],
                        outputs: Sequence[str]):
    """A python-control ``StateSpace`` ``x' = A x + B u``, ``y = C x + D u`` whose states,
    inputs and outputs are named, ``:`` for ``.`` (python-control reserves the dot).

    A model without inputs becomes a system of no inputs (its free response, e.g. by
    ``control.initial_response``); a model without outputs has its states as outputs
    (``C = I``, ``D = 0``), since python-control needs some output to say anything.

    Parameters
    ----------
    A, B, C, D : array_like
        Numeric matrices of shapes (n, n), (n, m), (p, n), (p, m).
    states, inputs, outputs : sequence of str
        Their names: n, m and p of them (``outputs`` may be empty).

    Returns
    -------
    control.StateSpace

    Raises
    ------
    FormulationError
        python-control is not installed, or the shapes do not match the names.

    Examples
    --------
    >>> import numpy as np
    >>> free = control_state_space(-np.eye(1), np.zeros((1, 0)), np.zeros((0, 1)),
    ...                            np.zeros((0, 0)), ["C.across"], [], [])
    >>> free.ninputs, free.output_labels, [complex(p) for p in free.poles()]
    (0, ['C:across'], [(-1+0j)])
    """
    import numpy as np

    try:
        import control
    except ImportError as exc:
        raise FormulationError("to_control() needs python-control: pip install control") from exc

    def names(items):
        return [n.replace(".", ":") for n in items]

    A, B, C, D = (np.asarray(m, dtype=float) for m in (A, B, C, D))
    n, m = len(states), len(inputs)
    A, B = A.reshape(n, n), B.reshape(n, m)
    if not outputs:   # the states are the outputs
        outputs, C, D = states, np.eye(n), np.zeros((n, m))
    p = len(outputs)
    C, D = C.reshape(p, n), D.reshape(p, m)
    if m:
        return control.ss(A, B, C, D, states=names(states), inputs=names(inputs),
                          outputs=names(outputs))
    # python-control reads a matrix of shape (1, 0) as an empty (0, 0) one: build the
    # system with one input of no effect, then take that input away
    system = control.ss(A, np.zeros((n, 1)), C, np.zeros((p, 1)), states=names(states),
                        inputs=["none"], outputs=names(outputs))
    system.B, system.D = np.zeros((n, 0)), np.zeros((p, 0))
    system.set_inputs(0)
    return system


def _control_transfer_function(H: sympy.Matrix, inputs: Sequence[str],
                                outputs: Sequence[str]) -> Any:
    """python-control's ``TransferFunction`` of the numeric sympy matrix ``H(s)``."""
    try:
        import control
    except ImportError as exc:
        raise FormulationError("control='python-control' needs python-control: pip install "
                               "control") from exc
    missing = sorted(map(str, H.free_symbols - {s}))
    if missing:
        raise FormulationError("a python-control transfer function needs a number for every "
                               f"parameter; missing: {', '.join(missing)} (subs() them first)")
    num: list[list[list[float]]] = []
    den: list[list[list[float]]] = []
    for i in range(H.rows):
        num.append([])
        den.append([])
        for j in range(H.cols):
            top, bottom = sympy.fraction(sympy.cancel(sympy.together(H[i, j])))
            num[i].append([float(c) for c in sympy.Poly(top, s).all_coeffs()])
            den[i].append([float(c) for c in sympy.Poly(bottom, s).all_coeffs()])

    def names(items):
        return [n.replace(".", ":") for n in items]

    return control.tf(num, den, inputs=names(inputs), outputs=names(outputs))


def _symbol(key) -> sympy.Symbol:
    return key if isinstance(key, sympy.Basic) else sympy.Symbol(str(key), real=True)


def store_name(element, edge: str) -> str:
    """How a dependent store is named: by its element, or by its edge when the element is a
    store of several edges (a winding of coupled inductors).

    >>> import vecnet as vn
    >>> T = vn.CoupledInductors("T", "0", "a", "0", "b", L=[[1.0, 0.5], [0.5, 1.0]])
    >>> store_name(T, "T.2"), store_name(vn.Inductor("L1", "a", "b", L=1.0), "L1")
    ('T.2', 'L1')
    """
    return element.name if len(element.edges) == 1 else edge


def network_inputs(net: Network) -> tuple[Input, ...]:
    """The inputs of ``net``, one per source, in the order of its elements.

    >>> import vecnet as vn
    >>> net = vn.Network()
    >>> _ = net.add(vn.CurrentSource("I", "g", "a", I=2.0), vn.Resistor("R", "a", "g", R=1.0))
    >>> [(i.name, i.sign, i.signal) for i in network_inputs(net)]
    [('I.through', -1, 2.0)]
    """
    return tuple(
        Input(f"{el.edges[0].name}.{el.driven}", el.name, el.symbol(el.parameter_names[0]),
              el.parameters[el.parameter_names[0]].value, 1 if el.driven == "across" else -1)
        for el in net.elements if el.kind in (Kind.ACROSS_SOURCE, Kind.THROUGH_SOURCE))


def network_equations(net: Network, tree: Sequence[str] | str = "normal",
                      datum: Hashable | None = None) -> NetworkEquations:
    """The :class:`NetworkEquations` of ``net`` for ``tree``."""
    return NetworkEquations(net, tree=tree, datum=datum)


def state_space(net: Network, outputs: Iterable[str] = (), tree: Sequence[str] | str = "normal",
                symbolic: bool = False) -> StateSpace:
    """State equations of a lumped network, with any edge variables as outputs.

    Parameters
    ----------
    net : Network
    outputs : iterable of str
        Variable names, ``"<edge>.across"`` or ``"<edge>.through"``.
    tree : list of str or "normal"
        The tree; states are across variables of A-type branches and through
        variables of T-type chords.
    symbolic : bool
        Keep every number given to an element as its symbol (``R3``, the value in
        ``values``), as a teaching derivation shows it. By default the numbers are put in,
        as exact rationals (``0.1`` is ``1/10``), *before* the elimination, which is then
        far cheaper than with symbols; parameters given as symbols stay symbols.

    Raises
    ------
    FormulationError
        An ill-posed network (across-source loop, through-source cutset), or
        equations that need the derivative of an algebraic variable.

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=vn.Symbol("V")),
    ...             vn.Resistor("R", "a", "b", R=vn.Symbol("R")),
    ...             vn.Capacitor("C", "g", "b", C=vn.Symbol("C")))
    >>> ss = net.state_space(outputs=["C.across"])
    >>> ss.A, ss.B
    (Matrix([[-1/(C*R)]]), Matrix([[1/(C*R)]]))
    >>> ss.transfer_function()
    <TransferMatrix: 1 output(s) x 1 input(s)>
    C.across/V.across = 1/(C*R*s + 1)

    Numbers given to the elements are put in, unless ``symbolic=True``:

    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=0.5),
    ...             vn.Capacitor("C", "g", "b", C=4.0))
    >>> net.state_space().A, net.state_space(symbolic=True).A
    (Matrix([[-1/2]]), Matrix([[-1/(C*R)]]))
    """
    eqs = NetworkEquations(net, tree=tree)
    values = {k: v for element in net.elements for k, v in element.values.items()}
    exact = {} if symbolic else {k: exact_rational(v) for k, v in values.items()}
    secondary = eqs.secondary_equations()
    state_of = {fn: name for name, fn in eqs.states.items()}
    x = {fn: sympy.Symbol(str(fn.func), real=True) for fn in eqs.states.values()}
    dx = {fn: sympy.Symbol(f"d{fn.func}", real=True) for fn in eqs.states.values()}
    driven = {}
    for inp in eqs.inputs:
        el = net.element(inp.element)
        edge_vars = eqs.variables[el.edges[0].name]
        driven[edge_vars.across if inp.sign == 1 else edge_vars.through] = inp
    du = {inp.name: sympy.Symbol(f"d{inp.symbol}", real=True) for inp in eqs.inputs}
    algebraic = {fn: sympy.Symbol(str(fn.func), real=True) for fn in eqs.primary
                 if fn not in state_of and fn not in driven}

    derivative_map = {sympy.Derivative(fn, t): dx[fn] for fn in x}
    derivative_map.update({sympy.Derivative(fn, t): inp.sign * du[inp.name]
                           for fn, inp in driven.items()})
    value_map = {**x, **{fn: inp.sign * inp.symbol for fn, inp in driven.items()}, **algebraic}

    # a dependent store differentiates an algebraic variable: a placeholder stands for the rate
    rate_of = {sympy.Derivative(fn, t): sympy.Symbol(f"d{sym}", real=True)
               for fn, sym in algebraic.items()}
    derivative_map.update(rate_of)
    placeholders = {rate_of[sympy.Derivative(fn, t)]: sym for fn, sym in algebraic.items()}
    du_of = {inp.symbol: du[inp.name] for inp in eqs.inputs}

    def time_derivative(expr: sympy.Expr) -> sympy.Expr:
        if expr.free_symbols & set(du.values()):
            raise FormulationError("a dependent energy store needs the second derivative of an "
                                   "input; drive the network through an element that stores energy")
        return sum((expr.diff(v) * d for v, d in [*zip(x.values(), dx.values()), *du_of.items()]),
                   sympy.Integer(0))

    def reduce(expr: sympy.Expr, owner: str) -> sympy.Expr:
        expr = expr.xreplace(secondary).doit().xreplace(derivative_map).xreplace(value_map)
        if expr.has(sympy.Derivative):
            raise FormulationError(
                f"element {owner!r} needs the derivative of "
                f"{', '.join(map(str, expr.atoms(sympy.Derivative)))}; choose a tree that "
                "makes its energy store a state")
        return expr

    residuals, labels = [], []
    for eq, owner in zip(eqs.terminal, eqs.terminal_owner):
        r = reduce((eq.lhs - eq.rhs).xreplace(exact), owner)
        if r != 0:
            residuals.append(r)
            labels.append(owner)
    unknowns = list(algebraic.values()) + list(dx.values())
    solved = solve_blocks(residuals, unknowns, labels, placeholders, time_derivative)
    explicit = solved.explicit

    f = []
    for fn in eqs.states.values():
        if dx[fn] not in explicit:
            raise FormulationError(f"the state equation of {state_of[fn]} is implicit; "
                                   "simulate it as a DAE")
        f.append(explicit[dx[fn]])
    # variables solved before the states' rates may contain them (dependent stores)
    rates = dict(zip(dx.values(), f))
    explicit = {k: v.xreplace(rates) for k, v in explicit.items()}
    z_names = {}
    every = {}
    for edge, v in eqs.variables.items():
        for kind, fn in (("across", v.across), ("through", v.through)):
            expr = secondary.get(fn, fn).xreplace(value_map).xreplace(explicit)
            every[f"{edge}.{kind}"] = expr
            if fn in algebraic and algebraic[fn] in solved.implicit_unknowns:
                z_names[algebraic[fn]] = f"{edge}.{kind}"
    if not symbolic:
        values = {}  # already in the equations
    model = StateSpace(
        states=eqs.states, x=x.values(), dx=dx.values(), inputs=[i.name for i in eqs.inputs],
        u=[i.symbol for i in eqs.inputs], du=du.values(), f=f, z=solved.implicit_unknowns,
        z_names=[z_names[z] for z in solved.implicit_unknowns],
        g=solved.residuals, variables=every, values=values,
        signals={i.name: i.signal for i in eqs.inputs}, outputs=tuple(outputs),
        dependent_stores=eqs.dependent_stores, diagnosis=eqs.diagnosis())
    return model
