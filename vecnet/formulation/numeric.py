"""Linear lumped networks with numeric values, formulated as sparse matrices.

The symbolic formulation (:mod:`vecnet.formulation.lumped`) writes one sympy expression per
element and eliminates exactly; its cost grows faster than the network. For a linear network
whose parameters are all numbers, the same normal-tree formulation is done here with sparse
matrices, in time close to linear in the network's size for networks whose resistive parts
are small between energy stores (ladders, grids, thermal networks).

The algebra
-----------
With the normal tree, the primary variables ``w`` are the across variables of the branches
and the through variables of the chords; the cutset and circuit equations give the rest,

    tau_branches = -A_c tau_chords,      a_chords = A_c^T a_branches,

``A_c`` the chord part of ``[CU] = [1 | A_c]``. So every edge variable is a sparse linear map
of ``w``: ``a = T_a w``, ``tau = T_tau w``. Each element adds its terminal equations, linear
in its edges' variables and their rates, with coefficients that are functions of its
parameters (found once per element class on symbols, then evaluated for all elements of the
class at once with numpy). Stacked, the terminal equations read

    P w + Q w' = 0.

The primaries fall into four groups: ``x``, the states (across variables of A-type branches,
through variables of T-type chords); ``y``, the primaries of the dependent stores (A-type
chords, T-type branches); ``z``, those of the dissipators and transducers; ``s``, those of
the sources, ``s = S u`` (``+u`` across, ``-u`` through). Their rows split the same way:
store rows ``S`` (A- and T-type elements) and algebraic rows ``D`` (dissipators,
transducers). The normal tree makes the algebraic rows free of ``y`` and of every rate,

    P_Dx x + P_Dz z + P_Ds s = 0      =>   z = Z_x x + Z_s s,   Z = -P_Dz^{-1} [P_Dx  P_Ds],

one sparse factorisation of the resistive block ``P_Dz``. The store rows then hold the rates
of the states and, through the dependent stores, ``y``:

    H [x'; y] = -(P_Sx + P_Sz Z_x) x - (P_Ss + P_Sz Z_s) s - Q_Ss s',    H = [Q_Sx  P_Sy],

a second factorisation, of ``H``, which is diagonal without dependent stores (each store's
own rate) and otherwise couples each dependent store with the stores of its loop or cutset
(the capacitance or inductance matrix). Its ``x`` rows are ``x' = A x + B u + E u'``; its
``y`` rows give ``y`` in ``x``, ``u`` and ``u'``. Both solves exploit the block structure of
the matrix: its connected blocks are found first, and right-hand-side columns that touch no
common block are solved together, so the work is that of the entries of the result.

Nonlinear dissipators
---------------------
A nonlinear dissipator's law gives one of its variables from the other, ``out = phi(in)``.
Its primary ``n_k`` joins the known columns of both eliminations, so that

    x' = A x + B u + E u' + G n,

and its secondary (its through variable in the tree, its across variable in the cotree) is
``L_x x + L_u u + L_n n``. Where every law gives the primary from a secondary that depends
on no other ``n`` (a resistor in series with an inductor, a conductance across a capacitor),
``n = phi(L_x x + L_u u)`` is explicit, evaluated per law with numpy over all the elements
that share it; otherwise ``n`` is found by Newton's method on the sparse system of the laws
(an algebraic loop through nonlinear elements). Either way the Jacobian
``A + G dn/dx`` is exact and sparse.

Refused, with a pointer to the symbolic path: a parameter without a number, sources off
the normal-tree rule, and dependent stores whose loop or cutset runs through a transducer
or dissipator (their equations need the rate of an algebraic variable).
"""

from __future__ import annotations

import copy
from collections.abc import Hashable, Iterable, Mapping, Sequence
from enum import IntEnum
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
import sympy
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import splu

from ..core.collection import collector_paused
from ..core.forwards import public
from ..core.later import later
from ..elements.base import EdgeVariables, Element, Kind, Parameter, t
from ..elements.coupled_inductors import CoupledInductors
from ..elements.lumped import NonlinearDissipator
from ..errors import SimulationError, UnknownNameError, UnsupportedNetwork
from .linear_model import LinearModel
from .lumped import network_inputs, store_name

if TYPE_CHECKING:
    from ..builders.network import Network

__all__ = ["SparseStateSpace", "NonlinearLaws", "sparse_state_space", "UnsupportedNetwork",
           "solve_blockwise"]

_STORES = (Kind.ACROSS_STORE, Kind.THROUGH_STORE)
_ALGEBRAIC = (Kind.DISSIPATOR, Kind.TRANSDUCER)


class Primary(IntEnum):
    """What a primary variable (an across variable of the tree, a through variable of the
    cotree) is to the formulation, in the order its columns are stacked."""

    STATE = 0             # an energy store's, independent
    DEPENDENT_STORE = 1   # an energy store's, fixed by the others (solved with the rates)
    ALGEBRAIC = 2         # a dissipator's or transducer's
    SOURCE = 3            # a source's
    NONLINEAR = 4         # a nonlinear dissipator's (its law evaluated at each step)


class Row(IntEnum):
    """The kind of a terminal equation's row."""

    STORE = 0       # the law of an energy store (holds a rate)
    ALGEBRAIC = 1   # the law of a dissipator or transducer
_SOURCES = (Kind.ACROSS_SOURCE, Kind.THROUGH_SOURCE)
_SYMBOLIC = "; formulate it symbolically (net.state_space(), or formulation='symbolic')"


class SparseStateSpace:
    """``x' = A x + B u + E u'`` and ``y = C x + D u + F u'`` as sparse numeric matrices;
    with nonlinear dissipators, ``x' = A x + B u + E u' + G n`` where ``n`` solves their
    laws (:class:`NonlinearLaws`).

    The names follow :class:`~vecnet.formulation.lumped.StateSpace`: ``states``, ``inputs``,
    ``outputs`` (``"C6.across"``, ``"V7.across"``), ``signals`` (input name -> the value
    given to its source); every edge variable of the network can be an output.

    Attributes
    ----------
    A, B, E : scipy.sparse.csr_matrix
        The model's matrices (its linear part, when it has nonlinear dissipators).
    C, D, F : scipy.sparse.csr_matrix
        The outputs' matrices (linear models only).
    nonlinear : NonlinearLaws or None
        The nonlinear dissipators, their laws and ``G``.
    states, inputs, outputs : tuple of str
    dependent_stores : tuple of str
    """

    def __init__(self, *, A, B, E, states, inputs, signals, variables, rows, outputs=(),
                 dependent_stores=(), nonlinear: NonlinearLaws | None = None) -> None:
        self.A, self.B, self.E = A.tocsr(), B.tocsr(), E.tocsr()
        self.states = tuple(states)
        self.inputs = tuple(inputs)
        self.signals = dict(signals)
        self.dependent_stores = tuple(dependent_stores)
        self.nonlinear = nonlinear
        # rows: every edge variable; columns [x, u, u', n]
        self.variable_map = variables.tocsr()
        self.variable_rows = dict(rows)
        self.outputs = tuple(outputs)
        for name in self.outputs:
            self._row(name)

    @property
    def is_linear(self) -> bool:
        """Whether the model has no nonlinear dissipator."""
        return self.nonlinear is None

    @property
    def variable_names(self) -> tuple[str, ...]:
        """Every variable that can be an output: ``"<edge>.across"``, ``"<edge>.through"``."""
        return tuple(self.variable_rows)

    def _row(self, name: str) -> int:
        try:
            return self.variable_rows[name]
        except KeyError:
            raise UnknownNameError(f"no variable {name!r}; variables are named "
                                   "'<edge>.across' and '<edge>.through', e.g. "
                                   f"{', '.join(list(self.variable_rows)[:4])}") from None

    def output_matrices(self, names: Sequence[str]) -> tuple[sp.csr_matrix, sp.csr_matrix,
                                                             sp.csr_matrix]:
        """``(C, D, F)`` of the variables ``names``: ``v = C x + D u + F u'``.

        Raises :class:`UnsupportedNetwork` for a nonlinear model, whose variables also
        depend on the nonlinear dissipators."""
        if not self.is_linear:
            raise UnsupportedNetwork(
                "the network has nonlinear dissipators: its variables are no linear map of the "
                "states and inputs (simulate it, or linearize its symbolic model about an "
                "operating point)")
        n, p = len(self.states), len(self.inputs)
        rows = self.variable_map[[self._row(name) for name in names]]
        return rows[:, :n], rows[:, n:n + p], rows[:, n + p:]

    C = property(lambda self: self.output_matrices(self.outputs)[0], doc="outputs in states")
    D = property(lambda self: self.output_matrices(self.outputs)[1], doc="outputs in inputs")
    F = property(lambda self: self.output_matrices(self.outputs)[2],
                 doc="outputs in input derivatives")

    def with_outputs(self, outputs: Iterable[str]) -> SparseStateSpace:
        """The same model with other outputs."""
        changed = copy.copy(self)
        changed.outputs = tuple(outputs)
        for name in changed.outputs:
            changed._row(name)
        return changed

    def linear_model(self) -> LinearModel:
        """The model as the one numeric linear model, sparse: ``A, B, C, D`` with the input
        rates' ``E`` and ``F``, for the current :attr:`outputs`. Raises
        :class:`UnsupportedNetwork` for a nonlinear model.

        >>> import vecnet as vn
        >>> net = vn.Network("rc")
        >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=2.0),
        ...             vn.Capacitor("C", "g", "b", C=0.25))
        >>> model = net.sparse_state_space(outputs=["C.across"]).linear_model()
        >>> model.is_sparse, model.states, model.inputs, model.A.toarray().tolist()
        (True, ('C.across',), ('V.across',), [[-2.0]])
        """
        C, D, F = self.output_matrices(self.outputs)
        return LinearModel(self.A, self.B, C, D, self.states, self.inputs, self.outputs,
                           E=self.E, F=F)

    def shifted(self) -> tuple[Any, ...]:
        """``(A, B, C, D)`` of the proper model in ``w = x - E u`` (``w' = A w + (A E + B) u``,
        ``y = C w + (C E + D) u``), dense (:meth:`LinearModel.proper
        <vecnet.formulation.linear_model.LinearModel.proper>`). Raises
        :class:`FormulationError` when an output depends on input derivatives."""
        return self.linear_model().proper()

    def to_scipy(self):
        """A :class:`scipy.signal.StateSpace` (dense; with input derivatives, the states are
        shifted: ``w = x - E u``)."""
        import scipy.signal

        return scipy.signal.StateSpace(*self.shifted())

    def to_control(self):
        """A python-control ``StateSpace`` with this model's names (``:`` for ``.``): see
        :func:`~vecnet.formulation.lumped.control_state_space` (no sources: no inputs; no
        outputs: the states are the outputs). Raises :class:`FormulationError` when
        python-control is missing or an output depends on input derivatives, and
        :class:`UnsupportedNetwork` for nonlinear dissipators.

        >>> import vecnet as vn
        >>> net = vn.Network("rc")
        >>> _ = net.add(vn.Resistor("R", "a", "g", R=2.0), vn.Capacitor("C", "g", "a", C=0.5))
        >>> system = net.sparse_state_space().to_control()
        >>> system.ninputs, system.state_labels, system.output_labels
        (0, ['C:across'], ['C:across'])
        """
        return self.linear_model().to_control()

    def transfer_function_at(self, s_values: Iterable[complex]) -> np.ndarray:
        """``H(s) = C (sI - A)^{-1} (B + s E) + D + s F`` at each complex frequency, an array
        of shape ``(len(s_values), outputs, inputs)``: see
        :func:`vecnet.numerics.analysis.response_at`."""
        return public("response_at")(self, np.asarray(list(s_values), dtype=complex), self.outputs)

    def evaluate(self, x: Sequence[float], u: Sequence[float], du: Sequence[float] | None = None,
                 time: float = 0.0) -> tuple[np.ndarray, dict[str, float]]:
        """The states' rates and every variable at the state ``x`` and input ``u`` (and its
        rate ``du``, zero by default), in the orders of ``states`` and ``inputs``.

        >>> import vecnet as vn
        >>> net = vn.Network("rc")
        >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=2.0),
        ...             vn.Capacitor("C", "g", "b", C=0.25))
        >>> rates, values = net.sparse_state_space().evaluate([0.5], [1.0])
        >>> float(rates[0]), float(values["R.through"])
        (1.0, -0.25)
        """
        x, u = np.asarray(x, dtype=float), np.asarray(u, dtype=float)
        du = np.zeros(len(self.inputs)) if du is None else np.asarray(du, dtype=float)
        known = [x, u, du]
        rates = self.A @ x + self.B @ u + self.E @ du
        if self.nonlinear is not None:
            n = self.nonlinear.solve(np.concatenate([x, u]), time)
            rates = rates + self.nonlinear.G @ n
            known.append(n)
        values = self.variable_map @ np.concatenate(known)
        return rates, {name: float(values[row]) for name, row in self.variable_rows.items()}

    def simulate(self, t_span, **options):
        """Integrate in time: ``vn.simulate(model, t_span, **options)``
        (:func:`vecnet.simulate`)."""
        return public("simulate")(self, t_span, **options)

    def _repr_latex_(self) -> str | None:
        """``$$`` + :func:`vecnet.output.teaching.latex` + ``$$``, for notebooks (``None`` when too
        large to typeset)."""
        repr_latex = later("vecnet.output.teaching").repr_latex

        return repr_latex(self)

    def __repr__(self) -> str:
        return (f"<SparseStateSpace: {len(self.states)} states, {len(self.inputs)} inputs, "
                f"outputs {list(self.outputs)}, A with {self.A.nnz} entries>")


# -- the element laws, found once per class -----------------------------------------------

class _Law:
    """An element's terminal equations as coefficient rows over its edges' ``a, tau, a',
    tau'``, each coefficient a numpy function of the element's parameter values."""

    def __init__(self, element: Element) -> None:
        generic = {name: sympy.Symbol(f"p{k}", real=True)
                   for k, name in enumerate(element.parameter_names)}
        probe = copy.copy(element)
        probe.parameters = {name: Parameter(name, symbol) for name, symbol in generic.items()}
        ports = len(element.edges)
        a = [sympy.Function(f"a{k}", real=True)(t) for k in range(ports)]
        tau = [sympy.Function(f"tau{k}", real=True)(t) for k in range(ports)]
        equations = probe.terminal_equations(
            {edge.name: EdgeVariables(a[k], tau[k]) for k, edge in enumerate(element.edges)})
        plain = [sympy.Symbol(f"v{k}") for k in range(4 * ports)]
        variables = [*a, *tau, *(x.diff(t) for x in a), *(x.diff(t) for x in tau)]
        # rates first, so that the functions inside them are replaced whole
        swap = dict(zip(variables[2 * ports:], plain[2 * ports:]))
        swap.update(zip(variables[:2 * ports], plain[:2 * ports]))
        residuals = [sympy.expand((eq.lhs - eq.rhs).xreplace(swap)) for eq in equations]
        self.linear = True
        coefficients = []
        for r in residuals:
            row = [r.coeff(v) for v in plain]
            rest = sympy.expand(r - sum(c * v for c, v in zip(row, plain)))
            if any(c.free_symbols & set(plain) for c in row) or rest.free_symbols & set(plain) \
                    or (element.kind not in _SOURCES and rest != 0):
                self.linear = False
                return
            coefficients.append(row)
        self.rows = len(equations)
        self.ports = ports
        self._function = sympy.lambdify([list(generic.values())], coefficients, modules="numpy")
        self.names = element.parameter_names

    def coefficients(self, values: np.ndarray) -> np.ndarray:
        """Coefficients for ``values`` (elements x parameters): shape (elements, rows, 4 ports)."""
        count = values.shape[0]
        raw = self._function(values.T)
        return np.stack([np.stack([np.broadcast_to(np.asarray(c, dtype=float), (count,))
                                   for c in row], axis=-1) for row in raw], axis=1)


def _parameter_value(element: Element, name: str, parameters: Mapping) -> float:
    param = element.parameters[name]
    # a value given for the element's own symbol wins over its number, as the symbolic
    # path's (numeric_model) does; without values given the symbol is not made at all
    if param.value is not None and (not parameters or param.symbol not in parameters):
        return float(param.value)
    expr = sympy.sympify(param.symbol.xreplace(parameters))
    if expr.free_symbols:
        raise UnsupportedNetwork(
            f"element {element.name!r}: parameter {name} = {param.symbol} has no numeric value "
            f"(missing {', '.join(sorted(map(str, expr.free_symbols)))}); give numbers to the "
            "elements or pass parameters={...}" + _SYMBOLIC)
    return float(expr)


# -- nonlinear dissipators -------------------------------------------------------------------

class NonlinearLaws:
    """The laws ``out = phi(in)`` of a sparse model's nonlinear dissipators, and how their
    primaries ``n`` enter the model: ``x' = A x + B u + E u' + G n``.

    Each element's secondary is ``L_x x + L_u u + L_n n``; its law gives either its primary
    from its secondary or the other way round. The laws are grouped by expression and each
    group evaluated with numpy at once.

    Attributes
    ----------
    names : tuple of str
        The elements, in the order of ``n``.
    G : scipy.sparse.csr_matrix
        ``n`` in the states' rates.
    explicit : bool
        ``n = phi(L_x x + L_u u)`` without iteration.
    """

    def __init__(self, elements: Sequence[NonlinearDissipator], primary_is_output: np.ndarray,
                 L_x: sp.spmatrix, L_u: sp.spmatrix, L_n: sp.spmatrix, G: sp.spmatrix,
                 given: Mapping) -> None:
        self.names = tuple(el.name for el in elements)
        self.G = sp.csr_matrix(G)
        k = len(elements)
        gives_primary = sp.diags(primary_is_output.astype(float))
        gives_secondary = sp.diags((~primary_is_output).astype(float))
        identity = sp.identity(k, format="csr")
        # the laws as out = phi(in), both affine in [x, u] and linear in n; small matrices
        # dense, where numpy's overhead per call is far below scipy.sparse's
        self._out_n, self._in_n, self._out_xu, self._in_xu = (
            m.toarray() if m.shape[0] * m.shape[1] <= _DENSE_BELOW else m.tocsr()
            for m in (gives_primary @ identity + gives_secondary @ L_n,
                      gives_primary @ L_n + gives_secondary @ identity,
                      gives_secondary @ sp.hstack([L_x, L_u]),
                      gives_primary @ sp.hstack([L_x, L_u])))
        self._states = L_x.shape[1]
        self.explicit = bool(primary_is_output.all()) and sp.csr_matrix(L_n).count_nonzero() == 0
        argument = sympy.Symbol("v", real=True)
        # laws that differ only in their numbers share one numpy function
        groups: dict[sympy.Expr, tuple[list[int], list[list[float]]]] = {}
        for index, element in enumerate(elements):
            expr = sympy.sympify(element.law(argument)).xreplace(given)
            unknown = expr.free_symbols - {argument, t}
            if unknown:
                raise UnsupportedNetwork(
                    f"element {element.name!r}: its law has no numeric value for "
                    f"{', '.join(sorted(map(str, unknown)))}; give them in parameters={{...}}"
                    + _SYMBOLIC)
            template, numbers = _template(expr)
            members, constants = groups.setdefault(template, ([], []))
            members.append(index)
            constants.append(numbers)
        self._groups = []
        for template, (members, constants) in groups.items():
            placeholders = sorted(template.free_symbols - {argument, t}, key=str)
            self._groups.append((
                np.array(members), np.array(constants, dtype=float).reshape(len(members), -1),
                _vectorised(template, argument, placeholders),
                _vectorised(sympy.diff(template, argument), argument, placeholders)))
        self._last = np.zeros(k)

    def _phi(self, values: np.ndarray, time, slopes: bool = True):
        """The laws (and their slopes) at ``values``: one per element, or elements x samples
        with ``time`` a row of sample times."""
        out = np.empty_like(values)
        slope = np.empty_like(values) if slopes else None
        for members, constants, law, derivative in self._groups:
            # constants of each element along its row, whatever the samples
            columns = [c.reshape((-1,) + (1,) * (values.ndim - 1)) for c in constants.T]
            out[members] = law(values[members], time, columns)
            if slopes:
                slope[members] = derivative(values[members], time, columns)
        return out, slope

    def solve(self, xu: np.ndarray, time: float) -> np.ndarray:
        """``n`` at the state and input ``xu = [x; u]``: the laws directly when explicit,
        otherwise Newton's method from the last solution.

        Raises
        ------
        SimulationError
            Newton's method does not converge (the laws have no solution near the last one).
        """
        if self.explicit:
            return self._phi(self._in_xu @ xu, time, slopes=False)[0]
        out_b, in_b = self._out_xu @ xu, self._in_xu @ xu

        def residual(n):
            value, slope = self._phi(self._in_n @ n + in_b, time)
            return self._out_n @ n + out_b - value, slope

        # a start where a law has no slope (a square law at zero) gives no Newton step
        for start in (None, 0.0, 1.0, -1.0):
            n = self._last.copy() if start is None else np.full_like(self._last, start)
            F, slope = residual(n)
            for _ in range(50):
                try:
                    step = _solve(self._out_n - _scale_rows(slope, self._in_n), -F)
                except (RuntimeError, np.linalg.LinAlgError):  # singular: no Newton step
                    break
                size, norm = 1.0, np.linalg.norm(F)
                while True:  # halve the step until the residual falls
                    trial = n + size * step
                    F_trial, slope_trial = residual(trial)
                    if np.linalg.norm(F_trial) < norm or size < 1e-6:
                        break
                    size /= 2
                n, F, slope = trial, F_trial, slope_trial
                if np.all(np.abs(size * step) <= 1e-11 * (1.0 + np.abs(n))):
                    self._last = n
                    return n
        raise SimulationError(f"t = {time:.6g}: the laws of the nonlinear dissipators "
                              f"{', '.join(self.names[:4])} have no solution near the last one "
                              "(Newton's method did not converge)")

    def sensitivity(self, xu: np.ndarray, n: np.ndarray, time: float) -> sp.csr_matrix:
        """``dn/dx`` at a solution ``n`` for ``xu = [x; u]`` (sparse; by the implicit
        function theorem)."""
        slope = self._phi(self._in_n @ n + self._in_xu @ xu, time)[1]
        F_x = sp.csr_matrix((self._out_xu - _scale_rows(slope, self._in_xu))[:, :self._states])
        if self.explicit:
            return -F_x
        F_n = sp.csr_matrix(self._out_n - _scale_rows(slope, self._in_n))
        return -solve_blockwise(F_n, F_x, "Jacobian of the nonlinear dissipators' laws")

    def evaluate(self, xs: np.ndarray, us: np.ndarray, times: np.ndarray) -> np.ndarray:
        """``n`` at samples (columns of ``xs`` and ``us``, at ``times``)."""
        if self.explicit:
            return self._phi(self._in_xu @ np.vstack([xs, us]), times, slopes=False)[0]
        stacked = np.vstack([xs, us])
        return np.column_stack([self.solve(stacked[:, j], time) for j, time in
                                enumerate(times)]).reshape(len(self.names), len(times))


#: matrices with fewer entries than this are kept dense in the nonlinear laws
_DENSE_BELOW = 4096


def _scale_rows(factors: np.ndarray, M):
    """``diag(factors) @ M`` for a dense or sparse ``M``."""
    return factors[:, None] * M if isinstance(M, np.ndarray) else sp.diags(factors) @ M


def _solve(M, rhs: np.ndarray) -> np.ndarray:
    return np.linalg.solve(M, rhs) if isinstance(M, np.ndarray) else splu(M.tocsc()).solve(rhs)


def _template(expr: sympy.Expr) -> tuple[sympy.Expr, list[float]]:
    """``expr`` with its non-integer numbers replaced by placeholders ``_c0, _c1, ...`` (in
    the order they appear), and those numbers."""
    numbers: list[sympy.Number] = []
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Number) and not node.is_Integer and node not in numbers:
            numbers.append(node)
    swap = {number: sympy.Symbol(f"_c{k:03d}") for k, number in enumerate(numbers)}
    return expr.xreplace(swap), [float(number) for number in numbers]


def _vectorised(expr: sympy.Expr, argument: sympy.Symbol, constants: Sequence[sympy.Symbol]):
    """``expr`` in ``argument``, ``t`` and ``constants`` as a numpy function that keeps its
    input's shape."""
    fn = sympy.lambdify((argument, t, *constants), expr, modules="numpy")

    def call(values: np.ndarray, time, columns: Sequence[np.ndarray]) -> np.ndarray:
        return np.broadcast_to(np.asarray(fn(values, time, *columns), dtype=float), values.shape)

    return call


# -- block solves ---------------------------------------------------------------------------

def solve_blockwise(K: sp.spmatrix, R: sp.spmatrix, what: str = "matrix") -> sp.csr_matrix:
    """``K^{-1} R`` for a sparse square ``K`` and sparse ``R``, as a sparse matrix.

    ``K`` is factorised once. Its connected blocks are found from its pattern; columns of
    ``R`` that touch no common block are solved in one right-hand side and scattered back, so
    the work follows the entries of the result, not ``K``'s size times ``R``'s columns.

    Raises
    ------
    UnsupportedNetwork
        ``K`` is singular (``what`` names it in the message).

    >>> import scipy.sparse as sp
    >>> K = sp.csr_matrix([[2.0, 0, 0], [0, 1, 1], [0, 1, 2]])
    >>> solve_blockwise(K, sp.identity(3)).toarray()
    array([[ 0.5,  0. ,  0. ],
           [ 0. ,  2. , -1. ],
           [ 0. , -1. ,  1. ]])
    """
    K = sp.csr_matrix(K)
    K.eliminate_zeros()
    R = sp.csc_matrix(R)
    R.eliminate_zeros()
    n = K.shape[0]
    if n == 0:
        return sp.csr_matrix((0, R.shape[1]))
    pattern = abs(K) + abs(K).T
    count, label = connected_components(pattern, directed=False)
    if count == n:  # diagonal
        diagonal = K.diagonal()
        if np.any(diagonal == 0):
            raise UnsupportedNetwork(f"the {what} is singular" + _SYMBOLIC)
        return (sp.diags(1.0 / diagonal) @ R).tocsr()
    try:
        lu = splu(K.tocsc())
    except RuntimeError:
        raise UnsupportedNetwork(f"the {what} is singular" + _SYMBOLIC) from None
    if R.nnz == 0:
        return sp.csr_matrix((n, R.shape[1]))
    order = np.argsort(label, kind="stable")
    size = np.bincount(label, minlength=count)
    start = np.concatenate([[0], np.cumsum(size)])
    entries = R.tocoo()
    pairs = np.unique(np.stack([entries.col, label[entries.row]], axis=1), axis=0)
    color = _colors(pairs, R.shape[1], count)
    rows, cols, values = [], [], []
    for c in range(int(color.max()) + 1 if len(color) else 0):
        chosen = np.flatnonzero(color == c)
        if not len(chosen):
            continue
        rhs = np.asarray(R[:, chosen].sum(axis=1)).ravel()
        solution = lu.solve(rhs)
        mine = pairs[np.isin(pairs[:, 0], chosen)]
        lengths = size[mine[:, 1]]
        offsets = np.repeat(start[mine[:, 1]] - np.concatenate([[0], np.cumsum(lengths)[:-1]]),
                            lengths) + np.arange(lengths.sum())
        where = order[offsets]
        rows.append(where)
        cols.append(np.repeat(mine[:, 0], lengths))
        values.append(solution[where])
    X = sp.csr_matrix((np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(n, R.shape[1]))
    X.eliminate_zeros()
    return X


def _colors(pairs: np.ndarray, columns: int, blocks: int) -> np.ndarray:
    """A colour per column such that no two columns of one colour touch the same block
    (greedy, in column order); ``pairs`` lists (column, block) without repeats."""
    color = np.full(columns, -1, dtype=np.int64)
    taken: list[set[int]] = [set() for _ in range(blocks)]
    split = np.flatnonzero(np.diff(pairs[:, 0])) + 1
    for group in np.split(pairs, split):
        touched = group[:, 1].tolist()
        used = set().union(*(taken[b] for b in touched))
        c = 0
        while c in used:
            c += 1
        color[group[0, 0]] = c
        for b in touched:
            taken[b].add(c)
    return color


# -- the formulation ------------------------------------------------------------------------

@collector_paused()
def sparse_state_space(net: Network, outputs: Iterable[str] = (),
                       tree: Sequence[str] | str = "normal",
                       parameters: Mapping[Any, float] | None = None) -> SparseStateSpace:
    """The linear state equations of ``net`` as sparse numeric matrices (see the module
    notes for the algebra), without a sympy expression per element.

    Parameters
    ----------
    net : Network
        Linear elements with numeric parameters (or parameters given in ``parameters``).
    outputs : iterable of str
        Variable names, ``"<edge>.across"`` or ``"<edge>.through"``.
    tree : list of str or "normal"
        A tree with the across sources in it and the through sources out of it.
    parameters : mapping, optional
        Values for parameters that are symbols, by symbol or name.

    Raises
    ------
    UnsupportedNetwork
        A nonlinear element, a parameter without a number, sources off the normal-tree rule,
        a dependent store coupled through a transducer, or a singular resistive block; the
        symbolic formulation (:func:`~vecnet.formulation.lumped.state_space`) may still apply.
    UnknownNameError
        ``parameters`` names a parameter the network has not (the message lists its own).

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=2.0),
    ...             vn.Capacitor("C", "g", "b", C=0.25))
    >>> ss = sparse_state_space(net, outputs=["R.through"])
    >>> ss.A.toarray(), ss.B.toarray(), ss.C.toarray(), ss.D.toarray()
    (array([[-2.]]), array([[2.]]), array([[0.5]]), array([[-0.5]]))
    """
    net.check_parameters(parameters)
    topo = net.topology(tree=tree)
    branches, chords = topo.branches, topo.chords
    nb, e = len(branches), len(branches) + len(chords)
    column = {name: k for k, name in enumerate(branches)}
    column.update({name: nb + k for k, name in enumerate(chords)})
    Ac = sp.csr_matrix(topo.chord_part.tosparse(), dtype=float)
    # a = T_a w, tau = T_tau w, rows and columns in branch-then-chord order
    zeros_bc = sp.csr_matrix((nb, e - nb))
    T_a = sp.vstack([sp.hstack([sp.identity(nb), zeros_bc]),
                     sp.hstack([Ac.T, sp.csr_matrix((e - nb, e - nb))])]).tocsr()
    T_tau = sp.vstack([sp.hstack([sp.csr_matrix((nb, nb)), -Ac]),
                       sp.hstack([zeros_bc.T, sp.identity(e - nb)])]).tocsr()

    given = {(k if isinstance(k, sympy.Basic) else sympy.Symbol(str(k), real=True)): v
             for k, v in (parameters or {}).items()}
    group = _primary_groups(net, topo, column)
    P, Q, row_kind, row_owner = _terminal_rows(net, column, T_a, T_tau, given)

    inputs = network_inputs(net)
    source_columns = [column[net.element(i.element).edges[0].name] for i in inputs]
    S = sp.csr_matrix((np.array([i.sign for i in inputs], dtype=float),
                       (np.arange(len(inputs)), np.arange(len(inputs)))),
                      shape=(len(inputs), len(inputs)))
    x_cols = np.flatnonzero(group == Primary.STATE)
    y_cols = np.flatnonzero(group == Primary.DEPENDENT_STORE)
    z_cols = np.flatnonzero(group == Primary.ALGEBRAIC)
    s_cols = np.array(source_columns, dtype=np.int64)
    nonlinear = [el for el in net.elements if isinstance(el, NonlinearDissipator)]
    n_cols = np.array([column[el.edges[0].name] for el in nonlinear], dtype=np.int64)
    store_rows = np.flatnonzero(row_kind == Row.STORE)
    algebraic_rows = np.flatnonzero(row_kind == Row.ALGEBRAIC)
    P_rows_s, P_rows_d = P[store_rows], P[algebraic_rows]
    Q_rows_s, Q_rows_d = Q[store_rows], Q[algebraic_rows]

    def needs_rate(rows, cols, owners):
        block = rows[:, cols].tocoo()
        if block.nnz:
            owner = owners[int(block.row[0])]
            raise UnsupportedNetwork(
                f"element {owner!r} needs the rate of an algebraic variable (a dependent energy "
                "store whose loop or cutset runs through a transducer or dissipator)" + _SYMBOLIC)

    needs_rate(Q, np.concatenate([y_cols, z_cols, n_cols]), row_owner)
    needs_rate(P_rows_d, y_cols, [row_owner[r] for r in algebraic_rows])
    if Q_rows_d.nnz:
        needs_rate(Q_rows_d, np.arange(e), [row_owner[r] for r in algebraic_rows])

    # the algebraic rows: z = Z_x x + Z_s s + Z_n n
    P_dz = P_rows_d[:, z_cols]
    known = [x_cols, s_cols, n_cols]
    Z = -solve_blockwise(P_dz, sp.hstack([P_rows_d[:, c] for c in known]),
                         "resistive block of the network (dissipators and transducers)")
    n, m, k = len(x_cols), len(s_cols), len(n_cols)
    Z_x, Z_s, Z_n = Z[:, :n], Z[:, n:n + m], Z[:, n + m:]
    # the store rows: H [x'; y] = -K_x x - K_s s - K_n n - Q_Ss s'
    H = sp.hstack([Q_rows_s[:, x_cols], P_rows_s[:, y_cols]]).tocsr()
    K_x, K_s, K_n = (P_rows_s[:, c] + P_rows_s[:, z_cols] @ Zc
                     for c, Zc in zip(known, (Z_x, Z_s, Z_n)))
    K_ds = Q_rows_s[:, s_cols]
    solved = -solve_blockwise(H, sp.hstack([K_x, K_s, K_ds, K_n]),
                              "matrix of the energy stores' rates (capacitances, inductances)")
    solved = solved.tocsr()
    A, B_s, E_s = solved[:n, :n], solved[:n, n:n + m], solved[:n, n + m:n + 2 * m]
    Y = solved[n:]
    B, E = B_s @ S, E_s @ S

    # every primary in [x, u, u', n]: w = W [x; u; u'; n]
    p = len(inputs)
    blocks = {Primary.STATE: sp.hstack([sp.identity(n), sp.csr_matrix((n, 2 * p + k))]),
              Primary.DEPENDENT_STORE: sp.hstack([Y[:, :n], Y[:, n:n + m] @ S,
                                                  Y[:, n + m:n + 2 * m] @ S, Y[:, n + 2 * m:]]),
              Primary.ALGEBRAIC: sp.hstack([Z_x, Z_s @ S, sp.csr_matrix((len(z_cols), p)), Z_n]),
              Primary.SOURCE: sp.hstack([sp.csr_matrix((m, n)), S, sp.csr_matrix((m, p + k))]),
              Primary.NONLINEAR: sp.hstack([sp.csr_matrix((k, n + 2 * p)),
                                            sp.identity(k)])}
    order = np.concatenate([x_cols, y_cols, z_cols, s_cols, n_cols]).astype(np.int64)
    stacked = sp.vstack([blocks[g] for g in Primary]).tocsr()
    W = sp.csr_matrix((e, n + 2 * p + k))
    W = stacked[np.argsort(order)] if len(order) == e else W
    variables = sp.vstack([T_a @ W, T_tau @ W]).tocsr()
    laws = None
    if nonlinear:
        # each nonlinear dissipator's secondary: its through variable in the tree, its
        # across variable in the cotree
        secondary = variables[[e + c if c < nb else c for c in n_cols]]
        if secondary[:, n + p:n + 2 * p].count_nonzero():
            raise UnsupportedNetwork("a nonlinear dissipator's variable depends on the rate of a "
                                     "source (through a dependent energy store)" + _SYMBOLIC)
        output_is_primary = np.array([(el.output == "across") == (c < nb)
                                      for el, c in zip(nonlinear, n_cols)], dtype=bool)
        laws = NonlinearLaws(nonlinear, output_is_primary, secondary[:, :n],
                             secondary[:, n:n + p], secondary[:, n + 2 * p:],
                             solved[:n, n + 2 * m:], given)
    variables.eliminate_zeros()
    edge_order = list(branches) + list(chords)
    # names in the network's edge order, as the symbolic model lists them
    position = {edge: k for k, edge in enumerate(edge_order)}
    rows = {}
    for edge in net.graph.edges:
        rows[f"{edge}.across"] = position[edge]
        rows[f"{edge}.through"] = e + position[edge]
    states = [f"{edge_order[c]}.{'across' if c < nb else 'through'}" for c in x_cols]
    dependent = [store_name(el, edge.name) for el in net.elements if el.kind in _STORES
                 for edge in el.edges
                 if group[column[edge.name]] == Primary.DEPENDENT_STORE] \
        if np.any(group == Primary.DEPENDENT_STORE) else []
    return SparseStateSpace(A=A, B=B, E=E, states=states, inputs=[i.name for i in inputs],
                            signals={i.name: i.signal for i in inputs}, variables=variables,
                            rows=rows, outputs=tuple(outputs), dependent_stores=dependent,
                            nonlinear=laws)


def _primary_groups(net: Network, topo, column: Mapping[str, int]) -> np.ndarray:
    """The :class:`Primary` group of every primary, by column."""
    nb = len(topo.branches)
    group = np.full(len(column), -1, dtype=np.int64)
    # the members looked up once: an enum's attribute costs a microsecond a lookup
    state, dependent, nonlinear = Primary.STATE, Primary.DEPENDENT_STORE, Primary.NONLINEAR
    algebraic, source = Primary.ALGEBRAIC, Primary.SOURCE
    across_store, through_store = Kind.ACROSS_STORE, Kind.THROUGH_STORE
    for element in net.elements:
        _check_coupling(element)
        for edge in element.edges:
            k = column[edge.name]
            in_tree = k < nb
            kind = element.kind
            if kind is across_store:
                group[k] = state if in_tree else dependent
            elif kind is through_store:
                group[k] = dependent if in_tree else state
            elif isinstance(element, NonlinearDissipator):
                group[k] = nonlinear
            elif kind in _ALGEBRAIC:
                group[k] = algebraic
            elif kind in _SOURCES:
                if in_tree != (kind is Kind.ACROSS_SOURCE):
                    raise UnsupportedNetwork(
                        f"source {element.name!r} is {'in' if in_tree else 'out of'} the tree; "
                        "across sources belong in it, through sources out of it (use the "
                        "normal tree)" + _SYMBOLIC)
                group[k] = source
            else:
                raise UnsupportedNetwork(f"element {element.name!r} ({kind.value}) is not a "
                                         "lumped one-port or two-port" + _SYMBOLIC)
    return group


def _check_coupling(element: Element) -> None:
    """Refuse perfectly coupled inductors: their singular inductance matrix leaves fewer
    independent currents than windings, which no state of this formulation stands for."""
    if not isinstance(element, CoupledInductors):
        return
    L = element.numeric_inductance()
    if L is not None and np.linalg.matrix_rank(L, tol=1e-9 * np.abs(L).max()) < len(L):
        raise UnsupportedNetwork(
            f"coupled inductors {element.name!r} are perfectly coupled (|k| = 1, a singular "
            "inductance matrix): their currents are not independent states; make |k| < 1, or "
            "model them as an ideal Transformer with a magnetising Inductor")


def _terminal_rows(net: Network, column: Mapping[str, int], T_a, T_tau, given: Mapping):
    """``P`` and ``Q`` of the terminal equations ``P w + Q w' = 0`` of every element but the
    sources, the :class:`Row` kind of each row and the element it belongs to."""
    laws: dict[Hashable, _Law] = {}
    members: dict[Hashable, list[Element]] = {}
    for element in net.elements:
        if element.kind in _SOURCES or isinstance(element, NonlinearDissipator):
            continue
        # a class's law, unless its instances differ in parameters (coupled inductors of
        # two or three windings)
        key = (type(element), element.parameter_names)
        if key not in laws:
            laws[key] = _Law(element)
            if not laws[key].linear:
                raise UnsupportedNetwork(f"element {element.name!r} ({type(element).__name__}) "
                                         "has a nonlinear terminal equation" + _SYMBOLIC)
        members.setdefault(key, []).append(element)
    rows, cols, coeff, kinds, owners = [], [], [], [], []
    count = 0
    for key, elements in members.items():
        law = laws[key]
        values = np.array([[_parameter_value(el, name, given) for name in law.names]
                           for el in elements], dtype=float).reshape(len(elements), len(law.names))
        c = law.coefficients(values)  # (elements, rows, 4 ports)
        edge_cols = np.array([[column[edge.name] for edge in el.edges] for el in elements])
        row_index = count + np.arange(len(elements) * law.rows).reshape(len(elements), law.rows)
        count += len(elements) * law.rows
        for r in range(law.rows):
            for slot in range(4 * law.ports):
                port = slot % law.ports
                rows.append(row_index[:, r])
                cols.append(edge_cols[:, port] + len(column) * (slot // law.ports))
                coeff.append(c[:, r, slot])
        kind = Row.STORE if elements[0].kind in _STORES else Row.ALGEBRAIC
        kinds.extend([kind] * (len(elements) * law.rows))
        owners.extend(el.name for el in elements for _ in range(law.rows))
    e = len(column)
    # coefficients over [a, tau, a', tau'] of the edges (in primary order)
    M = sp.csr_matrix((np.concatenate(coeff) if coeff else [], (
        np.concatenate(rows) if rows else [], np.concatenate(cols) if cols else [])),
        shape=(count, 4 * e))
    M.eliminate_zeros()
    P = M[:, :e] @ T_a + M[:, e:2 * e] @ T_tau
    Q = M[:, 2 * e:3 * e] @ T_a + M[:, 3 * e:] @ T_tau
    return P.tocsr(), Q.tocsr(), np.array(kinds, dtype=np.int64), owners
