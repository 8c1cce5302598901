"""The algorithms over formulated equations, as functions of the record.

``vn.assemble(eom)``, ``vn.equilibrium(eom)``, ``vn.linearize(eom, point)``,
``vn.forward_dynamics(eom, q, u, tau)`` (Pinocchio's ``aba(model, data, q, v, tau)``),
``vn.inverse_dynamics(eom, t_eval)``, ``vn.compile(eom)``: the equations
(:class:`~vecnet.formulation.multibody.MechanismEquations`, a coupled system's
:class:`~vecnet.formulation.coupled.CoupledModel`, a network's
:class:`~vecnet.formulation.lumped.StateSpace`) hold coordinates, speeds, ``M``, ``Q``,
``Phi`` and names; these functions compute with them. The records' methods of the same
names (``eom.equilibrium()``) are one-line forwards to these functions
(:func:`vecnet.core.forwards.public`). Functions of several kinds of record
(:func:`equilibrium`, :func:`linearize`) dispatch on the record's type
(:func:`functools.singledispatch`).
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Sequence
from typing import Any, Callable

import numpy as np
import scipy.linalg
import sympy

from ..core.bounds import get_limits
from ..elements.base import Kind
from ..errors import FormulationError, ModelError, UnknownNameError, VecnetError
from ..formulation.coupled import CoupledModel, LinearModel
from ..formulation.lumped import StateSpace
from ..formulation.multibody import (
    Linearization,
    MechanismEquations,
    OperatingPoint,
    StateLinearization,
)
from . import mechanism_outputs
from . import multibody as mb
from .linearize import linearize as linearize_network
from .result import Result

__all__ = ["compile", "assemble", "degrees_of_freedom", "mobility", "initial_speeds", "forward_dynamics",
           "inverse_dynamics", "equilibrium", "steady_motion", "linearize", "result",
           "outputs", "point_values", "coupled_outputs", "mechanism_equilibrium", "system_equilibrium",
           "mechanism_linearization", "system_linearization", "first_entry", "finite_real",
           "lacks_inertia", "massless", "stops", "check_mass_matrix", "check_time_scale",
           "holonomic"]


def compile(eom: MechanismEquations, parameters: dict | None = None, *,
            runtime: Sequence[str] = (), linear_algebra: str = "auto",
            backend: str = "numba"):
    """A new compiled numeric model of ``eom`` (:class:`vecnet.numerics.planar.CompiledMechanism`,
    :class:`vecnet.numerics.spatial.CompiledSpatial`) with the ``parameters`` (by symbol or
    name) put in; ``eom.compile()`` keeps the last few. The parameters named in
    ``runtime`` stay arguments of its compiled functions, their values set by its
    ``bind``; ``linear_algebra`` tells how it solves the constrained equations
    (``"auto"``, ``"dense"``, ``"sparse"``:
    :attr:`~vecnet.numerics.mechanism.CompiledModel.solver`).

    ``backend="c"`` builds instead the C an FMU of ``eom`` runs
    (:func:`vecnet.export_fmu`: ``M``, ``Q`` and the loops' rows from the symbolic
    equations with common subexpressions, one saddle-point solve) with the system's C
    compiler, and returns it loaded (:class:`vecnet.numerics.c_library.CLibrary`: its
    ``forward_dynamics(q, u)`` and ``derivatives(t, x)``), to measure against the numba
    kernel; vecnet's own integrators keep the numba model.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    >>> bob = mech.body("bob", mass=1.0, inertia=0.0, position=(0, -1))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
    >>> model = vn.compile(mech.formulate())
    >>> model.n, model.nu
    (1, 1)
    """
    if backend == "c":
        from .c_library import CLibrary
        from .c_model import c_model

        return CLibrary(c_model(eom, parameters=parameters))
    if backend != "numba":
        raise ModelError(f"backend is 'numba' or 'c'; got {backend!r}")
    from .planar import CompiledMechanism
    from .spatial import CompiledSpatial

    compiled: Any = CompiledMechanism if eom.mechanism.dimensions == 2 else CompiledSpatial
    return compiled(eom, parameters, runtime=tuple(runtime), linear_algebra=linear_algebra)


@functools.singledispatch
def equilibrium(record, *args, **options):
    """A static equilibrium of a mechanism's equations (:class:`OperatingPoint`) or of a
    coupled system's model (``(q, s)``), near the assembled initial pose.

    Raises
    ------
    ModelError
        For a record of another kind.

    A pendulum hangs straight down:

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    >>> bob = mech.body("bob", mass=1.0, inertia=0.0, position=(0, -1))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
    >>> point = vn.equilibrium(mech.formulate())
    >>> round(point["pin.angle"], 12)
    0.0
    """
    raise ModelError(f"vn.equilibrium takes a mechanism's equations or a coupled system's "
                     f"model, not a {type(record).__name__}")


@functools.singledispatch
def linearize(record, *args, **options):
    """The linear model of a record about an operating point: a network's
    :class:`~vecnet.formulation.lumped.StateSpace` about a point of its variables
    (:func:`vecnet.numerics.linearize.linearize`), a mechanism's equations about an
    :class:`OperatingPoint` (:class:`Linearization` or :class:`StateLinearization`), a
    coupled system's model about an equilibrium (:class:`LinearModel`).

    Raises
    ------
    ModelError
        For a record of another kind.

    A pendulum of 1 m about its lowest point: ``M = m l^2``, ``K = m g l``.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    >>> bob = mech.body("bob", mass=1.0, inertia=0.0, position=(0, -1))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
    >>> eom = mech.formulate()
    >>> lin = vn.linearize(eom, vn.equilibrium(eom))
    >>> lin.M.round(9).tolist(), lin.K.round(9).tolist()
    ([[1.0]], [[9.81]])
    """
    raise ModelError(f"vn.linearize takes a network's state space, a mechanism's equations "
                     f"or a coupled system's model, not a {type(record).__name__}")


linearize.register(StateSpace, linearize_network)


def first_entry(f: Callable) -> Callable[[np.ndarray], float]:
    """``f(q)[0]`` as a float: the value of a compiled one-entry function."""
    return lambda q: float(f(q)[0])


def finite_real(value) -> bool:
    """Whether ``value`` is a finite real number (a Python, numpy or sympy one; not a
    boolean, a string or a complex number)."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, sympy.Basic):
        return bool(value.is_number and value.is_real and value.is_finite)
    return isinstance(value, numbers.Real) and bool(np.isfinite(float(value)))


def lacks_inertia(element) -> bool:
    """Whether ``element`` is a body without mass or without inertia about some axis (its
    numbers zero; a symbol is taken to have a value that is not)."""
    m, J = getattr(element, "m", None), getattr(element, "J", None)
    if element.kind is not Kind.ACROSS_STORE or m is None or J is None:
        return False
    J = J.det() if isinstance(J, sympy.MatrixBase) else sympy.sympify(J)
    return bool(sympy.sympify(m).is_zero or J.is_zero)


def massless(element) -> bool:
    """Whether ``element`` is a body whose mass and inertia are both the number zero."""
    values = [getattr(element, "m", None), getattr(element, "J", None)]
    if element.kind is not Kind.ACROSS_STORE or any(v is None for v in values):
        return False
    return all(sympy.sympify(x).is_zero for v in values
               for x in (v if isinstance(v, sympy.MatrixBase) else [v]))


def assemble(eom: MechanismEquations, initial: dict | None = None, time: float = 0.0,
             parameters: dict | None = None) -> np.ndarray:
    """Assembled coordinates ``q`` (closing every loop) from the bodies' initial poses,
    with the scalar coordinates named in ``initial`` held at the given values.

    Only dependent coordinates move: the independent ones, those named in ``initial``
    and then the first of :attr:`speed_preference` the constraints leave free (a
    four-bar's crank angle), keep the values the bodies were placed with, and the others
    close the loops (:func:`vecnet.numerics.multibody.assemble`). When the placed
    values admit no assembly, they move too, as little as they can (least squares).

    Parameters
    ----------
    initial : dict, optional
        Coordinate name -> value, held.
    time : float
        The time of the drivers' motions.
    parameters : dict, optional
        Values of the mechanism's symbols.

    Returns
    -------
    numpy.ndarray
        The coordinates, in the order of :attr:`coordinates`.

    Raises
    ------
    FormulationError
        When the loops cannot close, or close with no degree of freedom left and no
        driver to move the mechanism (it is locked).

    Examples
    --------
    A crank placed at 90 degrees, its coupler and rocker roughly where they go:

    >>> import math, vecnet as vn
    >>> mech = vn.planar.Mechanism("four-bar")
    >>> crank = mech.body("crank", 1.0, 0.1, position=(0, 0.5), angle=math.pi / 2)
    >>> coupler = mech.body("coupler", 1.0, 0.1, position=(1, 1.2), angle=0.2)
    >>> rocker = mech.body("rocker", 1.0, 0.1, position=(2, 0.6), angle=-1.4)
    >>> _ = mech.revolute("A", mech.ground.point(0, 0), crank.point(-0.5, 0))
    >>> _ = mech.revolute("B", crank.point(0.5, 0), coupler.point(-1, 0))
    >>> _ = mech.revolute("C", coupler.point(1, 0), rocker.point(-0.6, 0))
    >>> _ = mech.revolute("D", rocker.point(0.6, 0), mech.ground.point(2, 0))
    >>> eom = mech.formulate()
    >>> round(math.degrees(eom.assemble()[0]), 9)
    90.0
    """
    model = eom.compile(parameters)
    q = eom.initial_guess()
    fixed = eom.fixed_coordinates(initial)
    for i, value in fixed.items():
        q[i] = value
    held = [eom.speed_names.index(f"{eom.coordinates[i]}'") for i in fixed]
    q = mb.assemble(model, q, time, fixed=held, prefer=eom.speed_preference)
    driven = any(isinstance(e, eom.driver) for e in eom.mechanism.network.elements)
    if mobility(eom, model, time, q) == 0 and not driven:
        joints = [c for c in eom.topology.chords if eom.mechanism.network.element(c).is_joint]
        raise FormulationError("the mechanism is locked: its constraints leave no degree of "
                               "freedom (the loops closed by " + ", ".join(joints) + ")")
    return q


def degrees_of_freedom(eom: MechanismEquations, q=None, time: float = 0.0, parameters: dict | None = None) -> int:
    """The number of speeds less ``rank(Phi_u)`` at ``q`` (default: the assembled pose):
    redundant constraints are found from the rank, not by counting. ``Phi_u`` holds the
    velocity (nonholonomic) constraints too, so that with rolling wheels this counts the
    free speeds, fewer than the free coordinates.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    >>> bob = mech.body("bob", mass=1.0, inertia=0.0, position=(0, -1))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
    >>> vn.degrees_of_freedom(mech.formulate("absolute"))   # 3 speeds, 2 pin constraints
    1
    """
    model = eom.compile(parameters)
    q = assemble(eom, time=time, parameters=parameters) if q is None \
        else np.asarray(q, dtype=float)
    return mobility(eom, model, time, q)


def mobility(eom: MechanismEquations, model, time: float, q: np.ndarray) -> int:
    phi_u = mb.velocity_constraints(model, time, q)[0]
    return mb.speeds(model) - len(mb.independent_rows(phi_u))


def initial_speeds(eom: MechanismEquations, q: np.ndarray, velocities: dict | None, time: float = 0.0,
                   parameters: dict | None = None) -> np.ndarray:
    """Speeds from ``velocities``: rates of scalar coordinates (``"J.angle"`` or
    ``"J.angle'"``), speeds by name (``"ball.wx"``), a body's ``"b.omega"`` and
    ``"b.velocity"`` (of its mass centre, world axes; in the plane a number and an
    x-y pair). The constraints are met exactly, the given values in the least-squares
    sense; a :class:`~vecnet.errors.ModelError` is raised when they cannot all be met.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("m")
    >>> bob = mech.body("bob", 1.0, 0.1, position=(1, 0))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    >>> eom = mech.formulate()
    >>> eom.initial_speeds(eom.assemble(), {"bob.velocity": (0, 2)}).tolist()
    [2.0]
    """
    model = eom.compile(parameters)
    n, d = model.nu, eom.mechanism.dimensions
    rows, values = [], []
    kin = model.kinematics(q, np.zeros(n))
    for name, value in (velocities or {}).items():
        base, _, what = name.rpartition(".")
        if name in eom.speed_names or f"{name}'" in eom.speed_names:
            e = np.zeros((1, n))
            e[0, eom.speed_names.index(name if name in eom.speed_names else f"{name}'")] = 1
            rows.append(e)
            values.append(np.atleast_1d(float(value)))
        elif base in eom.mechanism.bodies and what in ("omega", "velocity"):
            k = model.row[model.node[base]]
            rows.append(kin.Jv[k][:d] if what == "velocity"
                        else kin.Jw[k][2:] if d == 2 else kin.Jw[k])
            values.append(np.asarray(value, dtype=float).reshape(len(rows[-1])))
        else:
            raise UnknownNameError(f"no speed {name!r}; give coordinate rates "
                                   f"({', '.join(eom.speed_names)}) or '<body>.omega', "
                                   "'<body>.velocity'")
    phi_u, phi_t = mb.velocity_constraints(model, time, q)
    if len(phi_t):
        u0 = np.linalg.lstsq(phi_u, -phi_t, rcond=None)[0]
        H = scipy.linalg.null_space(phi_u)
    else:
        u0, H = np.zeros(n), np.eye(n)
    if not rows:
        return u0
    G, g = np.vstack(rows), np.concatenate(values)
    z = np.linalg.lstsq(G @ H, g - G @ u0, rcond=None)[0]
    u = u0 + H @ z
    miss = np.max(np.abs(G @ u - g))
    if miss > 1e-9 * max(1.0, np.max(np.abs(g))):
        raise ModelError("the given velocities are not allowed by the joints (off by "
                         f"{miss:.3g}): " + ", ".join(velocities or ()))
    return u


def forward_dynamics(eom: MechanismEquations, q, u, tau=None, *, time: float = 0.0,
                     parameters: dict | None = None) -> np.ndarray:
    """The accelerations ``u'`` at coordinates ``q`` and speeds ``u`` (in the order of
    :attr:`coordinates` and :attr:`speed_names`) under the generalized forces ``tau``
    (one per speed, added to gravity, springs, dampers, drivers and the velocity
    terms; default none), at ``time`` — what Pinocchio's ``aba(model, data, q, v,
    tau)`` gives.

    A mechanism without loops takes the articulated-body recursion, in time linear in
    its size. A mechanism with loops (cut joints, drivers, velocity constraints) is
    solved with the loops' multipliers, ``Phi_u u' = c`` holding (see
    ``docs/multibody-core.md``): give a ``q`` and ``u`` that satisfy its constraints
    (:meth:`assemble`), as the result is otherwise that of a state the mechanism cannot
    take. Unit quaternions in ``q`` are normalized. The model compiled for the
    ``parameters`` (:meth:`compile`) is kept, so repeated calls compile nothing.

    Compared with ``aba``: a body moving freely (absolute coordinates) has as speeds
    its mass centre's velocity and its angular velocity, both in world axes (with
    ``formulate(speeds="body")`` the angular velocity in body axes), and its entries of
    ``tau`` are the force at the mass centre and the torque about it in the same axes;
    Pinocchio's free flyer takes the velocity of the body frame's origin and the
    angular velocity, both in body axes, so its ``q``, ``v`` and ``tau`` are those
    quantities after the change of frame and of reference point.

    Returns
    -------
    numpy.ndarray
        ``u'``, one entry per speed.

    Raises
    ------
    ModelError
        ``q``, ``u`` or ``tau`` of the wrong length, not real numbers (complex, boolean
        or other objects) or not finite, a quaternion of zero norm, a parameter without
        a value (pass ``parameters={...}``) or with one that is not a finite real
        number, a ``time`` that is not.
    UnknownNameError
        ``parameters`` names a parameter the mechanism's equations do not hold.
    SimulationError
        Where the accelerations are not determined (a motion without inertia) or not
        finite (speeds so large that the velocity terms overflow).

    Examples
    --------
    A pendulum of 1 kg on a massless arm of 1 m, held level: gravity turns it at
    ``-g / l``, a torque ``m g l`` holds it.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    >>> bob = mech.body("bob", mass=1.0, inertia=0.0, position=(1, 0))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    >>> eom = mech.formulate()
    >>> eom.forward_dynamics([0.0], [0.0]).tolist()
    [-9.81]
    >>> eom.forward_dynamics([0.0], [0.0], tau=[9.81]).tolist()
    [0.0]
    """
    if tau is None and not parameters and type(time) is float and math.isfinite(time):
        # the common call: float vectors straight to the compiled recursion, which checks
        # their sizes and that the result is finite (what is wrong is told below if not)
        fast = eom.compile().open_chain_accelerations()
        out = fast(q, u) if fast is not None else None
        if out is not None:
            return out
    owner = f"mechanism {eom.mechanism.name!r}"
    if parameters:
        for key, value in parameters.items():
            if not finite_real(value):
                raise ModelError(f"{owner}: parameter {str(key)!r} = {value!r}: "
                                 "forward_dynamics takes a finite real number")
        eom.check_parameters(parameters)
    if not (type(time) is float and math.isfinite(time)) and not finite_real(time):
        raise ModelError(f"{owner}: time = {time!r} must be a finite real number")
    return mb.forward_dynamics(eom.compile(parameters), q, u, tau, float(time),
                               (eom.coordinates, eom.speed_names), owner)


def inverse_dynamics(eom: MechanismEquations, t_eval, parameters: dict | None = None):
    """Kinematics and the efforts of drivers that fix every degree of freedom, with every
    joint reaction from the cutset equations: a :class:`~vecnet.numerics.result.Result`
    as from :meth:`simulate`, with ``"<driver>.effort"``.

    Raises
    ------
    FormulationError
        When the drivers leave a degree of freedom.

    A pendulum of 1 kg on a massless arm of 1 m held level by a drive: the drive's effort
    carries the weight's moment, ``m g l``.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    >>> bob = mech.body("bob", mass=1.0, inertia=0.0, position=(1, 0))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    >>> _ = mech.drive("hold", "pin", 0.0)
    >>> res = vn.inverse_dynamics(mech.formulate(), [0.0, 1.0])
    >>> [round(abs(float(x)), 9) for x in res["hold.effort"]]
    [9.81, 9.81]
    """
    model = eom.compile(parameters)
    times = np.asarray(t_eval, dtype=float)
    q0 = assemble(eom, time=float(times[0]), parameters=parameters)
    if mobility(eom, model, float(times[0]), q0) != 0:
        raise FormulationError("inverse dynamics needs drivers that fix every degree of "
                               "freedom; use simulate() for forward dynamics")
    ts, qs, us = mb.kinematics(model, times, q0)
    return result(eom, model, ts, qs, us)


@equilibrium.register
def mechanism_equilibrium(eom: MechanismEquations, time: float = 0.0, parameters: dict | None = None,
                iterations: int = 100) -> OperatingPoint:
    """Static equilibrium near the initial pose: ``Q(q, 0) + Phi_u^T lambda = 0``,
    ``Phi(q) = 0``, by Newton steps on the assembled mechanism. At every step the
    coordinates are partitioned anew, the generalized force is reduced to the
    independent ones and a limited step is followed by assembly (all constraints, so
    redundant ones stay satisfied); the multipliers then balance the forces
    (:func:`vecnet.numerics.multibody.equilibrium`). Returns an :class:`OperatingPoint`.

    Raises
    ------
    FormulationError
        When no equilibrium is found near the initial pose.
    UnknownNameError
        ``parameters`` names a parameter the mechanism's equations do not hold.
    """
    eom.check_parameters(parameters)
    model = eom.compile(parameters)
    q = assemble(eom, time=time, parameters=parameters)
    q, lam = mb.equilibrium(model, q, time, iterations)
    return OperatingPoint(eom, q, lam, time, derive=point_values)


def steady_motion(eom: MechanismEquations, velocities: dict, time: float = 0.0,
                  parameters: dict | None = None) -> OperatingPoint:
    """A nominal motion to linearize about: the assembled initial pose moving with
    ``velocities`` (as in :meth:`simulate`), with its acceleration and multipliers. For
    a steadily spinning rotor on a symmetric support the acceleration is zero and
    :meth:`linearize` gives the whirl (the gyroscopic terms are in ``C``).

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("wheel", gravity=(0, 0))
    >>> wheel = mech.body("wheel", 1.0, 0.5)
    >>> _ = mech.revolute("O", mech.ground.centre, wheel.centre)
    >>> point = vn.steady_motion(mech.formulate(), {"O.angle": 3.0})
    >>> point.u.tolist(), point.a.tolist()        # turning freely at 3 rad/s
    ([3.0], [0.0])
    """
    model = eom.compile(parameters)
    q = assemble(eom, time=time, parameters=parameters)
    u = eom.initial_speeds(q, velocities, time, parameters)
    snap = model.evaluate(time, q, u)
    a, lam = mb.accelerations(snap, mb.independent_rows(snap.phi_q))
    return OperatingPoint(eom, q, lam, time, u=u, a=a, derive=point_values)


@linearize.register
def mechanism_linearization(eom: MechanismEquations, point: OperatingPoint, parameters: dict | None = None,
              step: float = 1e-6) -> Linearization | StateLinearization:
    """Linear model about an operating point in independent coordinates (Thompson's
    reduced order): with ``H2`` a basis of the null space of ``Phi_u`` and
    ``u = u* + H2 z'``, ``M z'' + C z' + K z = B w`` with ``M = H2^T M H2``,
    ``C = -H2^T Q_u H2``, ``K = -H2^T (Q + Phi_u^T lambda - M a*)_q N H2``
    (:func:`vecnet.numerics.multibody.linear_model`) and ``B`` the generalized forces
    of unit inputs ``w``: every applied torque and force, by component (``"T"`` in the
    plane, ``"T.x"`` ... in space; forces ``"F.x"`` ...), and every load across a
    joint, each added to its value at the point.

    Examples
    --------
    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    >>> bob = mech.body("bob", mass=1.0, inertia=0.0, position=(0, -1))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
    >>> _ = mech.torque("T", bob, 0.0)
    >>> eom = mech.formulate()
    >>> lin = eom.linearize(eom.equilibrium())
    >>> lin.inputs, lin.B.round(12).tolist(), lin.K.round(9).tolist()
    (('T',), [[1.0]], [[9.81]])

    A mechanism with velocity (nonholonomic) constraints, a rolling wheel, has fewer
    independent speeds than coordinates: its linear model is the first-order
    :class:`StateLinearization` ``x' = A x + B w`` in its independent coordinates and
    speeds (:func:`vecnet.numerics.multibody.linear_state_model`).

    Raises
    ------
    FormulationError
        For a moving operating point when quaternions are among the coordinates.
    UnknownNameError
        ``parameters`` names a parameter the mechanism's equations do not hold.
    """
    eom.check_parameters(parameters)
    model = eom.compile(parameters)
    if point.u is not None and np.any(point.u) and not eom.speeds_are_rates:
        raise FormulationError("linearizing about a motion needs q' = u: coordinates "
                               "without quaternions (revolute, prismatic, universal ... "
                               "joints in the tree)")
    if mb.velocity_rows(model):
        inputs, columns = model.input_forces(point.time, point.q)
        A, B, C, iq, iu = mb.linear_state_model(model, point.q, point.u, point.time, step,
                                                columns)
        return StateLinearization(A, B, C, [eom.coordinates[i] for i in iq]
                                  + [eom.speed_names[i] for i in iu], inputs,
                                  eom.coordinates)
    # a basis whose z are coordinates themselves (the first independent ones of the
    # speed preference), so that the states read as the coordinates: pin.angle, not z1
    phi_u = mb.velocity_constraints(model, point.time, point.q)[0]
    basis = mb.independent_basis(model, point.time, point.q,
                                 mb.preferred_split(phi_u, eom.speed_preference))
    M, C, K, H = mb.linear_model(model, point.q, point.lam, point.time, step,
                                 u=point.u, a=point.a, basis=basis)
    inputs, columns = model.input_forces(point.time, point.q)
    outputs = [name[:-1] if name.endswith("'") else name for name in eom.speed_names]
    return Linearization(M, C, K, H, H.T @ columns, inputs, outputs)


def point_values(point: OperatingPoint) -> dict[str, np.ndarray]:
    """Every quantity a simulation reports, at the operating point (:func:`outputs`)."""
    eom = point.eom
    nu = len(eom.u)
    u = (np.zeros(nu) if point.u is None else point.u).reshape(nu, 1)
    series = outputs(eom, eom.compile(), [point.time], point.q.reshape(-1, 1), u)
    return {name: value[0] for name, value in series.items()}


def result(eom: MechanismEquations, model, ts, qs, us, outcome=None, ws=None, series=None):
    """A :class:`~vecnet.numerics.result.Result` of the motion sampled at ``ts``
    (coordinates ``qs`` and speeds ``us``, a column a sample) by the compiled
    ``model``: the coordinates and speeds now, everything :meth:`outputs` reports when
    first read (with the loads ``ws`` across joints, default zero); ``outcome`` (a
    :class:`~vecnet.numerics.result.Outcome`) tells how they were found; ``series``
    adds named series of the integrator's (a joint friction's modes)."""
    given = {**dict(zip(eom.coordinates, qs)), **dict(zip(eom.speed_names, us)),
             **(series or {})}
    return Result(ts, given, outcome, derive=lambda: outputs(eom, model, ts, qs, us, ws))


def outputs(eom: MechanismEquations, model, times, qs, us, ws=None) -> dict[str, np.ndarray]:
    """Every named result at the given coordinates and speeds, ``ws`` holding the loads
    (:attr:`inputs`) at each time, default zero
    (:func:`vecnet.numerics.mechanism_outputs.outputs`; docs/conventions.md):

    * every coordinate and speed, by name;
    * every body's ``x, y`` (and ``z``), ``vx, vy`` (and ``vz``), ``position`` and
      ``velocity`` (n x 2 or n x 3), ``omega`` (world axes; in the plane a number),
      and its ``angle`` in the plane, its ``orientation`` (unit quaternions ``w, x, y,
      z``) and ``euler`` (z-y-x angles) in space;
    * every joint's ``reaction`` (the force on its head body; also ``.x``, ``.y``,
      ``.z``) and ``reaction_torque`` (on its head body, about the head point), the
      ``angle`` of joints that turn about an axis and the ``distance`` of those that
      slide along one;
    * every force element's ``force`` and ``torque``, what it applies to its head;
      every driver's ``effort``; every gear's or rack's ``torque_a``, ``torque_b`` or
      ``force_b``;
    * ``kinetic``, ``potential``, ``energy`` and ``constraint residual``.

    A planar mechanism's outputs are those of the same mechanism in space restricted to
    the plane."""
    return mechanism_outputs.outputs(model, times, qs, us, ws, planar=eom.mechanism.dimensions == 2)


def stops(eom: MechanismEquations, model) -> list:
    """A :class:`~vecnet.numerics.multibody.Stop` for every lower and upper limit of
    the mechanism's joint stops (``Mechanism.joint_limit``,
    :class:`~vecnet.elements.joint_laws.StopLaw`): its gap the distance of the joint's
    coordinate from the limit (:meth:`axial`, in ``q``), its gradient the gap's rate
    per unit speed, along which the impact's impulse acts."""
    out = []
    for name, gap, row, element in mb.stop_sides(eom):
        gap_value = model.lambdify((list(eom.q),), [gap], element.name)
        grad = model.lambdify((list(eom.q),), row, element.name)
        out.append(mb.Stop(name, first_entry(gap_value), grad,
                           model.number(element.restitution, element.name)))
    return out


def check_mass_matrix(eom: MechanismEquations, model, q0: np.ndarray, time: float = 0.0) -> None:
    """Refuse forward dynamics whose mass matrix, on the motions the constraints allow
    at ``time`` (``H^T M H``, ``H`` a basis of the null space of ``Phi_u``), is singular
    at the initial pose: some motion then has no inertia, and forces cannot decide it.
    The message names the bodies without mass and inertia, the usual cause.

    Raises
    ------
    ModelError
        When it is singular.
    """
    if not any(lacks_inertia(e) for e in eom.mechanism.network.elements):
        return   # every body has mass and inertia about every axis: M is regular
    H = mb.tangent_basis(model, time, q0)
    if not H.shape[1]:
        return
    M = model.mass_matrix(q0)
    inertia = np.linalg.eigvalsh(H.T @ M @ H)
    if inertia[0] > 1e-12 * max(inertia[-1], np.abs(M).max()):
        return
    bare = [e.name for e in eom.mechanism.network.elements if massless(e)]
    raise ModelError(
        "the mass matrix is singular at the initial pose: a motion the joints allow has no "
        "inertia, so the forces cannot determine it"
        + (f" (bodies without mass and inertia: {', '.join(bare)})" if bare else "")
        + "; give those bodies mass or inertia, or drive the motion (inverse_dynamics)")


def check_time_scale(eom: MechanismEquations, model, q0: np.ndarray, t_span, method: str) -> None:
    """Refuse a span ``(t0, t1)`` holding more than ``max_cycles`` of the motion's
    fastest time scale, ``1 / |s|`` for the largest eigenvalue ``s`` of the motion
    linearized at the initial pose at ``t0``
    (:func:`vecnet.numerics.multibody.fastest_rate`): an explicit integrator takes
    several steps for each. The implicit ``"dae"`` method, which is not held to the
    fastest scale, nor the generalized-alpha method, which damps what it steps over, and a
    mechanism whose accelerations cannot be had (no inertia in a direction) are left to
    the :class:`~vecnet.core.bounds.Watch`.

    Raises
    ------
    ModelError
        When the span holds too many.
    """
    if method in ("dae", "generalized-alpha"):
        return
    t0, t1 = t_span
    try:
        with np.errstate(all="ignore"):
            fastest = mb.fastest_rate(model, t0, q0)
    except (np.linalg.LinAlgError, VecnetError):
        return
    cycles = fastest * (t1 - t0) / (2 * np.pi)
    bound = get_limits().max_cycles
    if cycles > bound:
        raise ModelError(
            f"the motion's fastest time scale is a period of {2 * np.pi / fastest:.3g} s "
            f"(an eigenvalue of {fastest:.3g} 1/s of the linearization at the initial "
            f"pose): the span of {t1 - t0:.6g} s holds {cycles:.3g} of them, more than "
            f"max_cycles = {bound:.6g}; "
            "shorten t_span or raise the limit with vn.limits(max_cycles=...)")


def coupled_outputs(system: CoupledModel, model, ts: np.ndarray, qs: np.ndarray, us: np.ndarray, ss: np.ndarray,
            rows: np.ndarray) -> dict[str, np.ndarray]:
    """Every quantity of the system at the sample times ``ts`` of the coordinates
    ``qs``, speeds ``us`` and states ``ss`` (a column a sample) of the compiled
    mechanism ``model``: what the mechanism reports (with the ports' loads on it), the
    coordinates, speeds and states themselves, every network variable and every block
    output (with the accelerations found from the independent constraint ``rows``)."""
    eom = system.eom
    ws = np.array([system.extra(tt, q, u, s)[1] for tt, q, u, s in
                   zip(ts, qs.T, us.T, ss.T)]).T.reshape(len(system.system.ports), len(ts))
    series = outputs(eom, model, ts, qs, us, ws)
    # the integrated coordinates and speeds themselves (a spatial joint's reported angle
    # is read off its frames, within a turn of it)
    series.update(zip(eom.coordinates, qs))
    series.update(zip(eom.speed_names, us))
    for name, values in zip(system.states, ss):
        series[name] = values
    if system.output_function is not None:
        offsets = np.zeros((len(system.inputs), len(ts)))
        accelerations = np.array([mb.accelerations(model.evaluate(tt, q, u, w=w), rows)[0]
                                  for tt, q, u, w in zip(ts, qs.T, us.T, ws.T)]).T
        for name, values in zip(system.output_names, system.output_function(ts, qs, us, ss, offsets,
                                                           accelerations)):
            series.setdefault(name, np.broadcast_to(np.asarray(values, float), ts.shape).copy())
    return series

@equilibrium.register
def system_equilibrium(system: CoupledModel, time: float = 0.0):
    """A static equilibrium of the whole system near the assembled pose: the mechanism at
    rest, the lumped and block states steady. Returns ``(q, s)``.

    The unknowns are a displacement of the assembled pose in the speeds (``q = q0 +
    N(q0) v``, quaternions normalized), the states and the multipliers of independent
    constraints: as many as the equations (forces, constraints, state rates).

    Raises
    ------
    FormulationError
        When the search finds no equilibrium.
    """
    model = system.eom.compile()
    holonomic(model, "an equilibrium")
    q0 = system.eom.assemble(time=time)
    rows = mb.independent_rows(mb.velocity_constraints(model, time, q0)[0])
    nu, e, k = mb.speeds(model), len(system.states), len(rows)
    zero = np.zeros(nu)

    def residual(v):
        q, s, lam = mb.displace(model, q0, v[:nu]), v[nu:nu + e], v[nu + e:]
        sdot, w = system.extra(time, q, zero, s)
        snap = model.evaluate(time, q, zero, w=w)
        return np.concatenate([snap.Q + snap.phi_q[rows].T @ lam, snap.phi[rows], sdot])

    # start from the multipliers that balance the forces at the assembled pose: with
    # bodies' coordinates, the stiffness of a pendulum comes only from its reaction
    # turning with it (Phi_u(q)^T lambda), which zero multipliers would hide
    s0 = system.initial_states
    snap = model.evaluate(time, q0, zero, w=system.extra(time, q0, zero, s0)[1])
    lam0 = np.linalg.lstsq(snap.phi_q[rows].T, -snap.Q, rcond=None)[0] if k else np.zeros(0)
    from scipy.optimize import root as scipy_root  # slow to import: here
    sol = scipy_root(residual, np.concatenate([zero, s0, lam0]), tol=1e-13)
    if not sol.success or np.max(np.abs(residual(sol.x)), initial=0.0) > 1e-8:
        raise FormulationError(f"no equilibrium of the system found: {sol.message}")
    return mb.displace(model, q0, sol.x[:nu]), sol.x[nu:nu + e]

@linearize.register
def system_linearization(system: CoupledModel, point=None, time: float = 0.0, step: float = 1e-6,
              outputs: Sequence[str] = ()) -> LinearModel:
    """The linear model ``x' = A x + B w``, ``y = C x + D w`` about an equilibrium
    (default: :meth:`equilibrium`). The states are the displacements along the
    independent speeds of a coordinate partition (named by their coordinates,
    ``"O.angle"``; by the speed, ``"ball.wx"``, for a small rotation of a quaternion),
    their rates (``"O.angle'"``), and the lumped and block states; the inputs ``w``
    are added to the network inputs that no port drives (:attr:`inputs`, e.g.
    ``"V.across"``); the outputs are any of the mechanism coordinates and speeds
    (``"O.angle'"``), the network variables and the block outputs. Found from central
    differences of the combined equations (constraints kept exactly)."""
    eom = system.eom
    model = eom.compile()
    holonomic(model, "a linear model")
    q_eq, s_eq = equilibrium(system, time) if point is None else point
    part = mb.Partition(model, time, q_eq)
    k, n = len(part.ind), model.n
    # a displacement along the independent speeds moves the dependent ones with them, so
    # that it stays on the constraints to first order and its rate is those speeds
    basis = mb.independent_basis(model, time, q_eq, (part.rows, part.dep, part.ind))
    values = {**{c: i for i, c in enumerate(eom.coordinates)},
              **{c: n + i for i, c in enumerate(eom.speed_names)}}
    unknown = [o for o in outputs if o not in values and o not in system.output_names]
    if unknown:
        raise UnknownNameError(f"no output(s) {', '.join(unknown)}; outputs are the "
                               "mechanism coordinates and speeds, the network variables "
                               "and the block outputs")

    def evaluate(state, offsets):
        qf, uf = part.project(time, mb.displace(model, q_eq, basis @ state[:k]),
                              state[k:2 * k])
        sdot, w = system.extra(time, qf, uf, state[2 * k:], offsets)
        a, _ = mb.accelerations(model.evaluate(time, qf, uf, w=w), part.rows)
        results = (np.asarray(system.output_function(time, qf, uf, state[2 * k:], offsets, a),
                              dtype=float)
                   if system.output_function is not None and outputs else np.zeros(0))
        y = [np.concatenate([qf, uf])[values[o]] if o in values
             else results[system.output_names.index(o)] for o in outputs]
        return np.concatenate([state[k:2 * k], a[part.ind], sdot]), np.array(y, dtype=float)

    x0, w0 = np.concatenate([np.zeros(2 * k), s_eq]), system.no_offsets

    def jacobian(perturbed, size):
        """d(rates, outputs)/d(state or input) by central differences."""
        columns = [np.concatenate(evaluate(*perturbed(e))) - np.concatenate(
            evaluate(*perturbed(-e))) for e in np.eye(size) * step]
        return np.array(columns).T.reshape(len(x0) + len(outputs), size) / (2 * step)

    by_state = jacobian(lambda e: (x0 + e, w0), len(x0))
    by_input = jacobian(lambda e: (x0, w0 + e), len(w0))
    names = [eom.speed_names[i].removesuffix("'") for i in part.ind]
    return LinearModel(by_state[:len(x0)], by_input[:len(x0)], by_state[len(x0):],
                       by_input[len(x0):],
                       tuple(names + [f"{c}'" for c in names] + list(system.states)),
                       system.inputs, tuple(outputs))


def holonomic(model, what: str) -> None:
    """Refuse ``what`` of a system whose mechanism has velocity (nonholonomic) constraints
    (a rolling wheel), which these second-order forms in the independent speeds do not
    hold.

    Raises
    ------
    FormulationError
        When the mechanism has them.
    """
    if getattr(model, "velocity_rows", 0):
        raise FormulationError(
            f"{what} of a system needs a mechanism without velocity constraints; "
            f"{', '.join(model.eom.velocity_constraint_names)} hold only at the speed level "
            "(a rolling wheel): simulate the system, or linearize the mechanism alone")
