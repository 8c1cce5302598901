"""DC operating point and AC frequency response of linear networks with numeric values.

Both work on the sparse state equations ``x' = A x + B u + E u'``, ``v = C x + D u + F u'``
of :func:`~vecnet.formulation.numeric.sparse_state_space` (every edge variable ``v`` of the
network), so they scale to networks of 10^4–10^5 states:

* the operating point holds every source at a constant value and every rate at zero,
  ``A x = -B u``: one sparse factorisation;
* the frequency response is ``H(jw) = C (jwI - A)^{-1} (B + jw E) + D + jw F``: one sparse
  complex factorisation per frequency.

Matrices are equilibrated (rows, then columns, scaled to a largest entry of one) before they
are factorised, so that a pivot is small only when the matrix is close to singular, not when
the elements' values span many decades.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

import numpy as np
import scipy.sparse as sp
import sympy
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import splu

from ..core.bounds import get_limits
from ..core.later import later
from ..elements.base import t
from ..errors import FormulationError, ModelError, NoOperatingPoint, UnknownNameError
from ..formulation.linear_model import LinearModel

if TYPE_CHECKING:
    from ..builders.network import Network
    from ..formulation.numeric import SparseStateSpace

__all__ = ["operating_point", "frequency_response", "response_at", "step_response",
           "step_span", "linear_model", "phase_ticks", "pole_frequencies", "DENSE_POLES",
           "OperatingPoint", "FrequencyResponse", "NoOperatingPoint"]

ModelLike = Union["Network", "SparseStateSpace"]

#: the most states of a model whose poles (and matrix exponentials) are computed densely:
#: the grid of a Bode plot spans the poles up to this size (a larger model's spans 1 Hz to
#: 1 MHz), and step responses are computed up to it
DENSE_POLES = 2000

#: a pivot of the equilibrated matrix below this is a singular matrix (entries are at most 1)
_PIVOT = 1e-11
#: singular blocks up to this size are searched for their undetermined states exactly
_DENSE_BLOCK = 600
#: names listed in one message
_LISTED = 8
#: the name of the one input column of a response to several sources driven together
AC = "ac"


@dataclass(frozen=True)
class OperatingPoint:
    """Every chosen variable at DC.

    Attributes
    ----------
    variables : dict of str to float
        ``"<edge>.across"`` / ``"<edge>.through"`` -> its DC value.
    states, inputs : dict of str to float
        The state vector and the source values it was solved for.
    """

    variables: dict[str, float]
    states: dict[str, float] = field(default_factory=dict)
    inputs: dict[str, float] = field(default_factory=dict)

    def __getitem__(self, name: str) -> float:
        try:
            return self.variables[name]
        except KeyError:
            raise UnknownNameError(f"no variable {name!r} in the operating point; it has "
                                   f"{_listed(list(self.variables))}") from None

    def _repr_latex_(self) -> str | None:
        """``$$`` + :func:`vecnet.output.teaching.latex` + ``$$``, for notebooks (``None`` when too
        large to typeset)."""
        repr_latex = later("vecnet.output.teaching").repr_latex

        return repr_latex(self)


@dataclass(frozen=True)
class FrequencyResponse:
    """``H(j 2 pi f)`` of chosen outputs to chosen inputs on a frequency grid.

    Attributes
    ----------
    frequencies : numpy.ndarray
        In hertz.
    H : numpy.ndarray
        Complex, of shape ``(frequencies, outputs, inputs)``.
    outputs, inputs : tuple of str
        Output variable names, input names (``"ac"`` for sources driven together).
    """

    frequencies: np.ndarray
    H: np.ndarray
    outputs: tuple[str, ...]
    inputs: tuple[str, ...]

    def __getitem__(self, key: str | tuple[str, str]) -> np.ndarray:
        """``res["C1.across"]`` (one input) or ``res["C1.across", "V1.across"]``: the complex
        response over the frequencies."""
        output, source = key if isinstance(key, tuple) else (key, None)
        if source is None:
            if len(self.inputs) != 1:
                raise UnknownNameError(f"the response has inputs {_listed(self.inputs)}; name "
                                       f"one: res[{output!r}, {self.inputs[0]!r}]")
            source = self.inputs[0]
        return self.H[:, _index(self.outputs, output, "output"),
                      _index(self.inputs, source, "input")]

    def magnitude_db(self, key: str | tuple[str, str]) -> np.ndarray:
        """``20 log10 |H|`` over the frequencies (``-inf`` where ``H`` is zero)."""
        with np.errstate(divide="ignore"):
            return 20 * np.log10(np.abs(self[key]))

    def phase_deg(self, key: str | tuple[str, str], unwrap: bool = True) -> np.ndarray:
        """The phase of ``H`` in degrees, unwrapped along the frequencies unless told. A
        jump of half a turn (an undamped resonance, where ``H`` passes through infinity
        and changes sign) is taken as the lag of 180 degrees that any damping makes it,
        not as a lead.

        >>> f = np.array([0.5, 0.9, 1.1, 2.0])
        >>> H = (1 / (1 - f**2) + 0j)[:, None, None]     # undamped, resonant at 1 Hz
        >>> FrequencyResponse(f, H, ("y",), ("u",)).phase_deg("y").tolist()
        [0.0, 0.0, -180.0, -180.0]
        """
        phase = np.angle(self[key])
        if not unwrap:
            return np.degrees(phase)
        phase = np.unwrap(phase)
        jumps = np.diff(phase)
        turned = np.isclose(np.abs(jumps), np.pi, rtol=0.0, atol=1e-6) & (jumps > 0)
        return np.degrees(phase - 2 * np.pi * np.concatenate([[0], np.cumsum(turned)]))

    def plot(self, keys: Sequence[str | tuple[str, str]] | None = None, title: str = ""):
        """A Bode plot: magnitude (dB) above phase (degrees) against frequency (Hz, log
        scale), one curve per ``(output, input)`` key (default: every pair). The phase
        axis is ticked at multiples of 45 or 90 degrees (:func:`phase_ticks`). Returns the
        two axes.

        >>> import numpy as np
        >>> f = np.logspace(0, 3, 50)
        >>> H = (1 / (1 + 1j * f / 30.0))[:, None, None]
        >>> top, bottom = FrequencyResponse(f, H, ("y",), ("u",)).plot()
        >>> [float(t) % 45 for t in bottom.get_yticks()] == [0.0] * len(bottom.get_yticks())
        True
        """
        import matplotlib.pyplot as plt

        keys = list(keys) if keys is not None else [(o, i) for o in self.outputs
                                                     for i in self.inputs]
        figure, (top, bottom) = plt.subplots(2, 1, sharex=True, layout="constrained")
        low, high = np.inf, -np.inf
        for key in keys:
            label = key if isinstance(key, str) else (
                key[0] if len(self.inputs) == 1 else f"{key[0]}/{key[1]}")
            top.semilogx(self.frequencies, self.magnitude_db(key), label=label)
            phase = self.phase_deg(key)
            bottom.semilogx(self.frequencies, phase, label=label)
            finite = phase[np.isfinite(phase)]
            if len(finite):
                low, high = min(low, float(finite.min())), max(high, float(finite.max()))
        top.set_ylabel("magnitude [dB]")
        bottom.set_ylabel("phase [deg]")
        bottom.set_xlabel("f [Hz]")
        if np.isfinite(low):
            ticks = phase_ticks(low, high)
            bottom.set_yticks(ticks)
            # a margin, so that a curve along the first or last tick is not hidden by
            # the frame
            margin = 0.05 * max(ticks[-1] - ticks[0], 1.0)
            bottom.set_ylim(min(ticks[0], low) - margin, max(ticks[-1], high) + margin)
        for ax in (top, bottom):
            ax.grid(True, which="both", alpha=0.3)
        if title:
            top.set_title(title)
        if keys:
            top.legend(fontsize="small")
        return top, bottom


def pole_frequencies(A: LinearModel | np.ndarray | None, per_decade: int = 50) -> np.ndarray:
    """Frequencies (Hz) for a Bode plot of a model (a :class:`LinearModel`, or its state
    matrix ``A``): from a decade below its slowest nonzero pole to a decade above its
    fastest, ``per_decade`` points a decade; 1 Hz to 1 MHz when every pole is zero, ``A``
    is ``None`` or the model has more than :data:`DENSE_POLES` states (too large to compute
    its poles densely).

    >>> f = pole_frequencies(np.array([[-2 * np.pi * 10.0]]), per_decade=2)
    >>> float(f[0]), float(f[-1]), len(f)
    (1.0, 100.0, 5)
    """
    if isinstance(A, LinearModel):
        A = A.proper()[0] if len(A.states) <= DENSE_POLES else None
    lo, hi = 1.0, 1e6
    if A is not None and A.size:
        magnitudes = np.abs(np.linalg.eigvals(A)) / (2 * np.pi)
        magnitudes = magnitudes[magnitudes > 1e-12 * max(1.0, magnitudes.max())]
        if magnitudes.size:
            lo = 10.0 ** (np.floor(np.log10(magnitudes.min())) - 1)
            hi = 10.0 ** (np.ceil(np.log10(magnitudes.max())) + 1)
    decades = int(round(np.log10(hi / lo)))
    return np.logspace(np.log10(lo), np.log10(hi), decades * per_decade + 1)


def operating_point(model: ModelLike, inputs: Mapping[str, Any] | None = None,
                    outputs: Sequence[str] | None = None,
                    parameters: Mapping[Any, float] | None = None) -> OperatingPoint:
    """The DC operating point: sources constant, every rate zero, ``A x = -B u``.

    Parameters
    ----------
    model : Network or SparseStateSpace
        A network is formulated with :func:`~vecnet.formulation.numeric.sparse_state_space`.
    inputs : mapping, optional
        Input name (``"V1.across"``) -> a number or an expression in ``vn.t``; an input not
        named keeps its source's value, expressions are taken at ``t = 0``.
    outputs : sequence of str, optional
        The variables to give (default: every edge variable).
    parameters : mapping, optional
        Values for parameters that are symbols, when a network is given.

    Returns
    -------
    OperatingPoint

    Raises
    ------
    NoOperatingPoint
        The state matrix is singular; the message names the undetermined states and why.
    UnknownNameError
        An input or output the model does not have.
    ModelError
        An input without a numeric value at ``t = 0``.

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("divider")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=10.0), vn.Resistor("R1", "a", "b", R=3.0),
    ...             vn.Inductor("L", "c", "b", L=1e-3), vn.Resistor("R2", "c", "g", R=2.0),
    ...             vn.Capacitor("C", "g", "c", C=1e-6))
    >>> op = operating_point(net)
    >>> round(op["C.across"], 12), round(op["L.through"], 12)   # 10 V over 3 + 2 ohm
    (4.0, 2.0)
    """
    ss = _state_space(model, parameters)
    u = np.array([_dc_value(name, value) for name, value in
                  _input_values(ss, inputs).items()], dtype=float)
    n = len(ss.states)
    if n:
        solve = _factorised(ss.A, ss.states, "the state matrix A")
        x = solve(-(ss.B @ u))
    else:
        x = np.zeros(0)
    names = list(ss.variable_names if outputs is None else outputs)
    C, D, _ = ss.output_matrices(names)
    values = C @ x + D @ u
    return OperatingPoint(dict(zip(names, map(float, values))),
                          dict(zip(ss.states, map(float, x))),
                          dict(zip(ss.inputs, map(float, u))))


def frequency_response(model: ModelLike, frequencies: Sequence[float] | np.ndarray,
                       inputs: Sequence[str] | Mapping[str, complex] | None = None,
                       outputs: Sequence[str] | None = None,
                       parameters: Mapping[Any, float] | None = None) -> FrequencyResponse:
    """``H(jw) = C (jwI - A)^{-1} (B + jw E) + D + jw F`` at ``w = 2 pi f`` for each frequency.

    Parameters
    ----------
    model : Network, SparseStateSpace or LinearModel
        A network is formulated with :func:`~vecnet.formulation.numeric.sparse_state_space`.
    frequencies : sequence of float
        In hertz, finite and not negative; at most ``vn.get_limits().max_points`` of them.
    inputs : sequence of str or mapping, optional
        Input names, one column of ``H`` each (default: every input); or input name ->
        complex amplitude (a phasor, as SPICE's ``AC mag phase``): one column, ``"ac"``, the
        response to those sources driven together.
    outputs : sequence of str, optional
        Output variables (default: every edge variable; a linear model's outputs).
    parameters : mapping, optional
        Values for parameters that are symbols, when a network is given.

    Returns
    -------
    FrequencyResponse

    Raises
    ------
    NoOperatingPoint
        A frequency of zero with a singular state matrix.
    FormulationError
        A frequency at which the network resonates without loss (``jwI - A`` singular).
    ModelError
        Frequencies that are not finite, negative, or too many.
    UnknownNameError
        An input or output the model does not have.

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1e3),
    ...             vn.Capacitor("C", "g", "b", C=1e-6))
    >>> res = frequency_response(net, [0.0, 1e3 / (2 * 3.141592653589793)],
    ...                          outputs=["C.across"])
    >>> [round(float(x), 6) for x in res.magnitude_db("C.across")]   # 0 dB, then -3 dB
    [0.0, -3.0103]
    """
    ss = model if isinstance(model, LinearModel) else _state_space(model, parameters)
    f = _frequencies(frequencies)
    columns = _column_map(ss, inputs)
    names = (AC,) if isinstance(inputs, Mapping) else tuple(ss.inputs if inputs is None
                                                            else inputs)
    every = ss.outputs if isinstance(ss, LinearModel) else ss.variable_names
    out = list(every if outputs is None else outputs)
    H = response_at(ss, 2j * np.pi * f, out, columns)
    return FrequencyResponse(f, H, tuple(out), names)


#: models up to this many states take LAPACK's inverse at every ``s``, many at once; and
#: the entries of the systems inverted at once
DENSE_STATES, DENSE_BLOCK = 32, 1 << 20


def response_at(ss: SparseStateSpace | LinearModel, s_values: np.ndarray,
                outputs: Sequence[str], columns: sp.spmatrix | None = None) -> np.ndarray:
    """``H(s) = C (sI - A)^{-1} (B + s E) + D + s F`` of a linear model (sparse or dense)
    at each complex ``s``: for a small model LAPACK's inverse of ``sI - A``, many values at once,
    else (and where that is ill-conditioned) one sparse LU per value: an array (values x
    outputs x inputs); ``columns`` combines the inputs (default: each its own column).

    Raises
    ------
    NoOperatingPoint
        ``s = 0`` with a singular state matrix.
    FormulationError
        ``sI - A`` singular at another ``s``.

    An RC low-pass of time constant 1 s: ``H(j) = 1 / (1 + j)``.

    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "a", "g", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
    ...             vn.Capacitor("C", "b", "g", C=1.0))
    >>> H = vn.response_at(net.sparse_state_space(), [1j], ["C.across"])
    >>> complex(H[0, 0, 0]) == 1 / (1 + 1j)
    True
    """
    columns = sp.identity(len(ss.inputs), format="csr") if columns is None else columns
    B, E = (sp.csr_matrix(ss.B) @ columns).tocsc(), (sp.csr_matrix(ss.E) @ columns).tocsc()
    C, D, F = (sp.csr_matrix(m) for m in ss.output_matrices(outputs))
    D, F = D @ columns, F @ columns
    n = len(ss.states)
    identity = sp.identity(n, format="csc", dtype=complex)
    A = sp.csc_matrix(ss.A).astype(complex)
    H = np.empty((len(s_values), len(outputs), B.shape[1]), dtype=complex)
    s_values = np.asarray(s_values, dtype=complex)
    sparse = np.ones(len(s_values), dtype=bool)
    if 0 < n <= DENSE_STATES:
        # a small model: LAPACK's inverse of every sI - A at once, a block of values at a
        # time (the sparse path below, with its diagnosis, takes s = 0 and any value whose
        # system is singular or ill-conditioned here)
        sparse = s_values == 0
        Ad, Bd, Ed = A.toarray(), B.toarray(), E.toarray()
        Cd, Dd, Fd = C.toarray(), D.toarray(), F.toarray()
        block = max(1, DENSE_BLOCK // (n * n))
        for start in range(0, len(s_values), block):
            chunk = np.flatnonzero(~sparse[start:start + block]) + start
            if not len(chunk):
                continue
            s_chunk = s_values[chunk]
            M = s_chunk[:, None, None] * np.eye(n) - Ad
            rhs = Bd + s_chunk[:, None, None] * Ed
            with np.errstate(all="ignore"):
                try:
                    inverse = np.linalg.inv(M)
                except np.linalg.LinAlgError:
                    sparse[chunk] = True
                    continue
                # a condition number (infinity norm) beyond what the sparse path's pivots
                # allow marks a (nearly) singular value for that path, which equilibrates
                # first and says what is singular
                condition = (np.abs(M).sum(axis=2).max(axis=1)
                             * np.abs(inverse).sum(axis=2).max(axis=1))
                bad = ~np.isfinite(condition) | (_PIVOT * condition > 1)
                X = inverse @ rhs
                H[chunk] = np.einsum("ij,kjl->kil", Cd, X) + Dd + s_chunk[:, None, None] * Fd
            sparse[chunk[bad]] = True
    states, band = ss.states, None
    if n and np.any(sparse):
        # a chain-like network (a ladder, a line, a chain of masses) has a narrow band in
        # its reverse Cuthill-McKee order: the states are renumbered once, and each sI - A
        # is factorised as a band (LAPACK), without a sparse LU's ordering and symbolic
        # work at every frequency; H = C X does not depend on the numbering
        order, band = _band_order(A + identity)
        if band is not None:
            A, B, E, C = A[order][:, order].tocsc(), B[order].tocsc(), E[order].tocsc(), \
                C.tocsc()[:, order]
            states = [ss.states[k] for k in order]
    for k in np.flatnonzero(sparse):
        s_value = s_values[k]
        rhs = (B + s_value * E).toarray()
        if n:
            where = "the state matrix A" if s_value == 0 else \
                f"sI - A at s = {complex(s_value):.6g} (f = {abs(s_value) / (2 * np.pi):.6g} Hz)"
            solve = _factorised(s_value * identity - A, states, where, dc=s_value == 0,
                                band=band)
            X = solve(rhs)
        else:
            X = np.zeros((0, rhs.shape[1]), dtype=complex)
        H[k] = C @ X + (D + s_value * F).toarray()
    return H


# -- inputs and outputs ---------------------------------------------------------------------

def step_response(model: LinearModel | np.ndarray, *matrices: Any) -> np.ndarray:
    """The response of ``x' = A x + B u``, ``y = C x + D u`` from ``x = 0`` to a unit step
    of each input in turn at ``t = 0``, exact at evenly spaced ``times`` (from 0): the
    matrix exponential of one time step, ``[[A, B], [0, 0]]`` at once.

    Called as ``step_response(model, times=None)`` with a :class:`LinearModel` (its
    proper form, :meth:`LinearModel.proper`; ``times`` by default 501 points over
    :func:`step_span`), or as ``step_response(A, B, C, D, times)``.

    Returns an array of shape ``(len(times), outputs, inputs)``.

    Raises
    ------
    ModelError
        A model of more than :data:`DENSE_POLES` states (dense matrix exponentials).

    >>> y = step_response(np.array([[-1.0]]), np.array([[1.0]]), np.array([[1.0]]),
    ...                   np.zeros((1, 1)), np.array([0.0, 1.0, 2.0]))
    >>> [round(float(v), 6) for v in y[:, 0, 0]]   # 1 - exp(-t)
    [0.0, 0.632121, 0.864665]
    """
    import scipy.linalg

    if isinstance(model, LinearModel):
        if len(model.states) > DENSE_POLES:
            raise ModelError(f"step responses work on models of up to {DENSE_POLES:,} states "
                             "(dense matrix exponentials); simulate a larger one with a step "
                             "input")
        A, B, C, D = model.proper()
        times = matrices[0] if matrices and matrices[0] is not None else \
            np.linspace(0.0, step_span(model), 501)
    else:
        A, (B, C, D, times) = model, matrices
    n, m = B.shape
    dt = times[1] - times[0] if len(times) > 1 else 0.0
    block = np.zeros((n + m, n + m))
    block[:n, :n], block[:n, n:] = A * dt, B * dt
    step = scipy.linalg.expm(block)
    Phi, Gamma = step[:n, :n], step[:n, n:]
    X = np.zeros((n, m))
    out = np.empty((len(times), C.shape[0], m))
    for k in range(len(times)):
        out[k] = C @ X + D
        X = Phi @ X + Gamma
    return out


def step_span(model: LinearModel, fallback: float = 1.0) -> float:
    """The span (s) a step response is shown over: six time constants of the slowest pole
    when every pole decays (at least three periods of the slowest oscillation, at most
    100 time constants), else ``fallback``.

    >>> step_span(LinearModel(-np.eye(1), np.ones((1, 1)), np.ones((1, 1)), np.zeros((1, 1)),
    ...                       ["x"], ["u"], ["x"]))
    6.0
    """
    ev = model.poles()
    if ev.size and np.all(ev.real < 0):
        decay = 6.0 / np.min(-ev.real)
        oscillating = np.abs(ev.imag) > 0
        periods = 3 * 2 * np.pi / np.min(np.abs(ev.imag[oscillating])) if oscillating.any() \
            else 0.0
        return float(min(max(decay, periods), 100 * decay))
    return float(fallback)


def linear_model(model: Any, outputs: Sequence[str] | None = None) -> LinearModel:
    """The numeric :class:`LinearModel` of a model: a network's (sparse, the parameters'
    values of a model file put in; the symbolic formulation with those values where the
    sparse one does not apply), or a mechanism's or coupled system's linearized about its
    static equilibrium (its inputs the applied forces and torques, or without them the
    generalized forces on its independent coordinates, ``"Q_pin.angle"``; its outputs its
    coordinates). What ``vecnet bode`` and ``vecnet step`` respond.

    Parameters
    ----------
    model : Model, Network, SparseStateSpace, Linearization or LinearModel
        A model file's :class:`~vecnet.Model`, a system, or a linear model already.
    outputs : sequence of str, optional
        A network's output variables (default: the model file's outputs, else its states).

    Raises
    ------
    ModelError
        A network without sources, a mechanism with velocity constraints and no applied
        load (nothing to respond to), or a model of another kind.

    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=2.0),
    ...             vn.Capacitor("C", "g", "b", C=0.25))
    >>> vn.linear_model(net).poles().tolist()
    [-2.0]
    """
    import sympy

    from ..builders.model import Model
    from ..builders.network import Network
    from ..errors import UnsupportedNetwork
    from ..formulation.lumped import network_inputs
    from ..formulation.multibody import Linearization
    from ..formulation.numeric import SparseStateSpace

    if isinstance(model, LinearModel):
        return model
    if isinstance(model, (SparseStateSpace, Linearization)):
        return model.linear_model()
    file = model if isinstance(model, Model) else None
    system = file.system if file is not None else model
    if isinstance(system, Network):
        tree = (file.tree if file is not None else None) or "normal"
        values = file.element_values if file is not None else {}
        chosen = list(outputs) if outputs is not None else \
            list(file.outputs) if file is not None and file.outputs else None
        try:
            ss = system.sparse_state_space(tree=tree, parameters=values or None)
        except UnsupportedNetwork:   # the symbolic formulation, with the declared values
            exact = system.state_space(tree=tree)
            sources = {i.symbol for i in network_inputs(system)}
            given = file.values if file is not None else {}
            exact = exact.subs({k: v for k, v in given.items() if k not in sources})
            exact = exact.with_outputs(chosen if chosen is not None else exact.states)
            _need_sources(exact.inputs, system.name)
            dense = exact.to_scipy()
            return LinearModel(dense.A, dense.B, dense.C, dense.D, exact.states, exact.inputs,
                               exact.outputs)
        ss = ss.with_outputs(chosen if chosen is not None else ss.states)
        _need_sources(ss.inputs, system.name)
        return ss.linear_model()
    if file is None:
        raise ModelError(f"expected a model file's Model, a network or a linear model, got "
                         f"{type(model).__name__}")
    eom = file.formulate()
    # sympy numbers: the mechanisms' compilers substitute them
    parameters = {k: sympy.Float(v) for k, v in file.element_values.items()} or None
    lin = eom.linearize(eom.equilibrium(parameters=parameters), parameters=parameters)
    if isinstance(lin, Linearization):
        # without inputs, the generalized forces on the independent coordinates
        return (lin if lin.inputs else lin.with_generalized_forces()).linear_model()
    if not lin.inputs:
        raise ModelError(f"mechanism {file.name!r} has velocity constraints and no applied "
                         "force or torque to respond to; apply one (a torque or force "
                         "element)")
    return lin


def _need_sources(inputs: Sequence[str], name: str) -> None:
    if not inputs:
        raise ModelError(f"network {name!r} has no sources, so no input to respond to")


def _state_space(model: ModelLike, parameters: Mapping | None) -> SparseStateSpace:
    from ..builders.network import Network
    from ..formulation.numeric import SparseStateSpace, sparse_state_space

    if isinstance(model, SparseStateSpace):
        return model
    if isinstance(model, Network):
        return sparse_state_space(model, parameters=parameters)
    raise ModelError(f"expected a Network or a SparseStateSpace, got {type(model).__name__}")


def _input_values(ss: SparseStateSpace, given: Mapping[str, Any] | None) -> dict[str, Any]:
    given = dict(given or {})
    _check_inputs(ss, given)
    return {name: given.get(name, ss.signals.get(name)) for name in ss.inputs}


def _check_inputs(ss: SparseStateSpace, names) -> None:
    unknown = [name for name in names if name not in ss.inputs]
    if unknown:
        raise UnknownNameError(f"no input {unknown[0]!r}; the inputs are "
                               f"{_listed(ss.inputs) or 'none'}")


def _dc_value(name: str, value: Any) -> float:
    """A source's value at ``t = 0``."""
    if value is None:
        raise ModelError(f"input {name!r} has no value: give it in inputs={{...}}")
    if callable(value) and not isinstance(value, sympy.Basic):
        value = value(0.0)
    if isinstance(value, sympy.Basic):
        expr = sympy.sympify(value).subs(t, 0)
        if expr.free_symbols:
            raise ModelError(f"input {name!r} = {value} needs values for "
                             f"{', '.join(sorted(map(str, expr.free_symbols)))}; give it in "
                             "inputs={...}")
        value = expr
    try:
        number = complex(value)
    except (TypeError, ValueError):
        raise ModelError(f"input {name!r} must be a number or an expression in t; "
                         f"got {value!r}") from None
    if number.imag or not np.isfinite(number.real):
        raise ModelError(f"input {name!r} = {value} is not a finite real number at t = 0")
    return number.real


def _column_map(ss: SparseStateSpace, inputs) -> sp.csr_matrix:
    """The inputs' columns as a matrix: input space -> the response's columns."""
    p = len(ss.inputs)
    if isinstance(inputs, Mapping):
        _check_inputs(ss, inputs)
        phasors = np.zeros((p, 1), dtype=complex)
        for name, value in inputs.items():
            phasors[ss.inputs.index(name), 0] = _phasor(name, value)
        return sp.csr_matrix(phasors)
    names = list(ss.inputs if inputs is None else inputs)
    _check_inputs(ss, names)
    picks = [ss.inputs.index(name) for name in names]
    return sp.csr_matrix((np.ones(len(picks)), (picks, np.arange(len(picks)))),
                         shape=(p, len(picks)), dtype=complex)


def _phasor(name: str, value: Any) -> complex:
    try:
        number = complex(value)
    except (TypeError, ValueError):
        raise ModelError(f"input {name!r}: an AC amplitude is a (complex) number; got "
                         f"{value!r}") from None
    if not np.isfinite(number.real) or not np.isfinite(number.imag):
        raise ModelError(f"input {name!r}: the AC amplitude {value!r} is not finite")
    return number


def _frequencies(frequencies) -> np.ndarray:
    try:
        f = np.asarray(frequencies, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ModelError("frequencies must be a sequence of numbers (Hz)") from None
    if not np.all(np.isfinite(f)) or np.any(f < 0):
        raise ModelError("frequencies must be finite and not negative (Hz)")
    limit = get_limits().max_points
    if len(f) > limit:
        raise ModelError(f"{len(f)} frequencies is more than the limit max_points = {limit}; "
                         "raise it with vn.limits(max_points=...)")
    return f


# -- factorisation and the diagnosis of singular matrices -----------------------------------

def _band_order(M: sp.spmatrix) -> tuple[np.ndarray, tuple[int, int] | None]:
    """The reverse Cuthill-McKee order of ``M``'s pattern (made symmetric) and the lower and
    upper bandwidths of ``M`` in it, or ``None`` for the bands where a band LU would cost
    more than a sparse one: its ``n (l + 1) (l + u + 1)`` operations beyond 20 per nonzero
    of ``M`` (a 2-D mesh's band grows with its side; a chain's stays a few entries wide)."""
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    M = sp.csr_matrix(M)
    order = reverse_cuthill_mckee((abs(M) + abs(M).T).tocsr(), symmetric_mode=True)
    permuted = sp.coo_matrix(M[order][:, order])
    offsets = permuted.row - permuted.col
    lower, upper = int(max(offsets.max(), 0)), int(max(-offsets.min(), 0))
    n = M.shape[0]
    if n * (lower + 1) * (lower + upper + 1) > 20 * max(M.nnz, n):
        return order, None
    return order, (lower, upper)


def _factorised(M: sp.spmatrix, states: Sequence[str], what: str, dc: bool = True,
                band: tuple[int, int] | None = None):
    """A function solving ``M X = R``, ``M`` equilibrated (rows, then columns, each divided
    by its largest entry) and factorised once: as a band of ``band`` = (lower, upper)
    bandwidths by LAPACK's ``gbtrf``, else by SuperLU. A singular ``M`` (a zero row or
    column, a pivot below :data:`_PIVOT`) raises :class:`NoOperatingPoint` (``dc``) or
    :class:`FormulationError`."""
    M = sp.csc_matrix(M)
    entries = sp.coo_matrix(M)
    n = M.shape[0]
    # the scales on the entries themselves, in time linear in them
    size = np.abs(entries.data)
    rows, cols = np.zeros(n), np.zeros(n)
    np.maximum.at(rows, entries.row, size)
    if np.any(rows == 0):
        _singular(M, states, what, dc)
    np.maximum.at(cols, entries.col, size / rows[entries.row])
    if np.any(cols == 0):
        _singular(M, states, what, dc)
    scaled = entries.data / (rows[entries.row] * cols[entries.col])
    lu_solve = _sparse_lu(entries, scaled, n) if band is None else \
        _band_lu(entries, scaled, n, *band)
    if lu_solve is None:
        _singular(M, states, what, dc)

    def solve(R: np.ndarray) -> np.ndarray:
        R = np.asarray(R)
        shape = (n,) + (1,) * (R.ndim - 1)
        Y = lu_solve(np.ascontiguousarray(R / rows.reshape(shape)).astype(M.dtype, copy=False))
        return Y / cols.reshape(shape)

    return solve


def _sparse_lu(entries: sp.coo_matrix, data: np.ndarray, n: int):
    """``R -> A^-1 R`` by SuperLU for the matrix of ``entries``' pattern holding ``data``;
    ``None`` where it is singular or a pivot falls below :data:`_PIVOT`."""
    try:
        lu = splu(sp.csc_matrix((data, (entries.row, entries.col)), shape=(n, n)))
    except RuntimeError:
        return None
    if np.min(np.abs(lu.U.diagonal())) < _PIVOT:
        return None
    return lu.solve


def _band_lu(entries: sp.coo_matrix, data: np.ndarray, n: int, lower: int, upper: int):
    """``R -> A^-1 R`` by LAPACK's band LU with partial pivoting (``gbtrf``, ``gbtrs``) for
    the matrix of ``entries``' pattern holding ``data``, within its ``lower`` and ``upper``
    bandwidths; ``None`` where a pivot falls below :data:`_PIVOT` (as for SuperLU)."""
    from scipy.linalg import get_lapack_funcs

    # gbtrf's storage: row kl + ku + i - j holds A[i, j], the kl rows above for its fill
    ab = np.zeros((2 * lower + upper + 1, n), dtype=data.dtype)
    ab[lower + upper + entries.row - entries.col, entries.col] = data
    gbtrf, gbtrs = get_lapack_funcs(("gbtrf", "gbtrs"), (ab,))
    lu, piv, info = gbtrf(ab, lower, upper, overwrite_ab=True)
    if info != 0 or np.min(np.abs(lu[lower + upper])) < _PIVOT:
        return None

    def solve(R: np.ndarray) -> np.ndarray:
        X, _ = gbtrs(lu, lower, upper, R, piv)
        return X

    return solve


def _largest(M: sp.csr_matrix) -> np.ndarray:
    """The largest absolute entry of each row."""
    return np.asarray(M.max(axis=1).toarray()).ravel().real


def _singular(M: sp.spmatrix, states: Sequence[str], what: str, dc: bool):
    undetermined = _undetermined(M, states)
    listed = _listed(undetermined)
    if not dc:
        raise FormulationError(f"{what} is singular: the network resonates without loss there "
                               f"(states {listed}); H is infinite at that frequency, add "
                               "damping or choose other frequencies")
    reasons = []
    if any(name.endswith(".across") for name in undetermined):
        reasons.append("an across-type store (capacitor, mass, tank) whose node has no DC "
                       "path to the reference except through other such stores or through "
                       "sources (a floating capacitor node, a capacitor fed by a current "
                       "source)")
    if any(name.endswith(".through") for name in undetermined):
        reasons.append("a through-type store (inductor, spring) in a loop of such stores "
                       "and across sources only (an inductor loop, an inductor across a "
                       "voltage source)")
    one = len(undetermined) == 1
    raise NoOperatingPoint(f"no DC operating point: {what} is singular, so "
                           f"{'the state' if one else 'the states'} {listed} "
                           f"{'is' if one else 'are'} undetermined at DC: no DC path leads "
                           f"through {'it' if one else 'them'}. "
                           f"{'It belongs' if one else 'Each belongs'} to "
                           f"{' or '.join(reasons)}. Add a resistance that gives "
                           f"{'it' if one else 'them'} a DC path, or study "
                           f"{'it' if one else 'them'} in time (simulate)", undetermined)


def _undetermined(M: sp.spmatrix, states: Sequence[str]) -> list[str]:
    """The states that a null vector of ``M`` moves: found exactly block by block for small
    singular blocks; a large singular block is named whole."""
    from scipy.linalg import null_space

    M = sp.csr_matrix(M)
    pattern = abs(M) + abs(M).T
    count, label = connected_components(pattern, directed=False)
    found: list[int] = []
    for block in range(count):
        members = np.flatnonzero(label == block)
        sub = M[members][:, members]
        if len(members) > _DENSE_BLOCK:
            if not _block_regular(sub):
                found.extend(members)
            continue
        dense = sub.toarray()
        scale = np.abs(dense).max(axis=1, keepdims=True)
        scale[scale == 0] = 1.0
        basis = null_space(dense / scale, rcond=1e-10)
        if basis.shape[1]:
            weight = np.abs(basis).max(axis=1)
            found.extend(members[weight > 1e-8 * weight.max()])
    return [states[k] for k in sorted(found)] or list(states)


def _block_regular(M: sp.spmatrix) -> bool:
    rows = _largest(abs(M).tocsr())
    if np.any(rows == 0):
        return False
    try:
        lu = splu((sp.diags(1.0 / rows) @ M).tocsc())
    except RuntimeError:
        return False
    return bool(np.min(np.abs(lu.U.diagonal())) >= _PIVOT)


def _listed(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown + (f" and {len(names) - _LISTED} more" if len(names) > _LISTED else "")


def _index(names: Sequence[str], name: str, what: str) -> int:
    try:
        return list(names).index(name)
    except ValueError:
        raise UnknownNameError(f"no {what} {name!r} in the response; its {what}s are "
                               f"{_listed(names)}") from None


def phase_ticks(low: float, high: float, most: int = 9) -> np.ndarray:
    """Phase ticks (degrees) covering ``[low, high]`` at multiples of 45 degrees, or of 90,
    180, 360 ... when more than ``most`` ticks would be needed.

    >>> phase_ticks(-100.0, 10.0).tolist()
    [-135.0, -90.0, -45.0, 0.0, 45.0]
    >>> phase_ticks(-700.0, 0.0).tolist()
    [-720.0, -630.0, -540.0, -450.0, -360.0, -270.0, -180.0, -90.0, 0.0]
    """
    step = 45.0
    while True:
        first, last = np.floor(low / step) * step, np.ceil(high / step) * step
        if last == first:
            last = first + step
        if (last - first) / step + 1 <= most:
            return np.arange(first, last + step / 2, step)
        step *= 2
