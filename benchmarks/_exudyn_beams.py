"""Exudyn half of the flexible-beam benchmarks of Meijaard (1996).

J. P. Meijaard, "Validation of flexible beam elements in dynamics programs",
Nonlinear Dynamics 9 (1996) 21-36: two planar problems, no damping, no gravity, each
built here in Exudyn with the number of beam elements asked for.

* :func:`slider_crank` -- flexible slider-crank of Chu & Pan: rigid crank OA, 0.1524 m,
  turning at a constant 124.8 rad/s about the ground point O = (0, 0) (starting along +x);
  elastic connecting rod AB, 0.3048 m, solid circular section of diameter 0.00635 m,
  density 7834.56 kg/m^3, E = 2.06843e11 N/m^2; massless slider: B kept on the x axis,
  free to slide and to turn; revolute joint at A.  The rod starts straight along +x,
  from A = (0.1524, 0) to B = (0.4572, 0), undeformed and with zero deformation rate,
  i.e. with the rigid velocity field of the mechanism at that instant (A moves with
  (0, 0.1524 * 124.8) m/s, the rod turns at -0.1524 * 124.8 / 0.3048 = -62.4 rad/s, B is
  at rest).  8 rad of crank rotation, t_end = 8 / 124.8 s.  Series: the lateral deflection
  of the rod's mid-point, perpendicular to the chord through the rod's two end nodes
  (positive to the left of the chord A -> B), divided by the rod length.  Value: its
  first local maximum (published 0.00976 with 4 elements, 0.00973 with 2).
* :func:`spin_up` -- spin-up of a cantilever (Kane, Ryan & Banerjee): root clamped at
  the origin to a shaft whose angle is prescribed, theta(t) = (ws/Ts)[t^2/2 +
  (Ts/(2 pi))^2 (cos(2 pi t/Ts) - 1)] for t <= Ts, ws (t - Ts/2) after, ws = 4 rad/s,
  Ts = 15 s; L = 8 m, rectangular section 0.03676 m (in the plane of rotation) x
  0.001986 m, density 2766.67 kg/m^3, E = 6.895e10 N/m^2; t in [0, 20] s.  Series: the
  tip's lateral deflection in the rotating frame, (x_tip, y_tip) . (-sin theta,
  cos theta).  Value: its minimum (published -0.5360 m with 4 elements, -0.5338 with 2).

Element.  ``ObjectBeamGeometricallyExact2D`` (Simo-Reissner beam on ``NodeRigidBody2D``
nodes, coordinates x, y, rotation), used as its 3-node QUADRATIC element (end, middle,
end node; 3-point Gauss integration), so that n elements have 2n + 1 nodes.  Its 2-node
linear version (one-point integration, constant curvature per element) is far too
coarse for these element counts: at 2 / 4 / 8 / 16 / 32 linear elements the slider-crank
value is 0.0047 / 0.0084 / 0.0094 / 0.0097 / 0.0097 against 0.00970 / 0.00975 for 2 / 4
quadratic ones.  ``ObjectANCFCable2D`` was therefore not needed.  The benchmark's beams
are shear-rigid (Euler-Bernoulli); a Reissner element needs a shear stiffness, set to
``SHEAR_FACTOR`` = 10 times the physical k G A (G = E / 2.6, i.e. nu = 0.3; k =
6(1+nu)/(7+6nu) for the circle, 10(1+nu)/(12+11nu) for the rectangle).  That is the
shear-rigid limit to 0.01 % (factor 100 changes the slider-crank value by -0.009 % and
the spin-up value by 2e-6 relative; the values level off, no shear locking shows); the
physical k G A would raise the slider-crank value by 0.09 % (0.009760 with 4 elements)
and change the spin-up value by 2e-5.  Factor 100 makes Newton fail at some steps
(slider-crank with 4 elements at rho_inf = 0.6; spin-up with 8 elements).  The
cross-sections' rotary inertia rho I is included.  Needs an Exudyn whose
``ObjectBeamGeometricallyExact2D`` takes 3 nodes (tested: 1.13.6).

Drive.  Slider-crank: the crank is an ``ObjectRigidBody2D`` on a ``NodeRigidBody2D`` at
O (its mass is irrelevant), held at O by two ``CoordinateConstraint``s and turned by a
velocity-level ``CoordinateConstraint`` (rotation rate = 124.8 rad/s, no user function;
its angle stays exact: 8 rad at the end to 1e-13); crank tip and the rod's first node are
joined by an ``ObjectJointRevolute2D``; the rod's last node has its y coordinate held at 0.
The nodes start with the rigid velocity field above (x, y and rotation rates).  Spin-up:
the root node's x, y are held at 0 and its rotation coordinate follows theta(t) through a
``CoordinateConstraint`` with a (Python) ``offsetUserFunction``; theta'(0) = theta''(0)
= 0, so the start at rest is consistent.

Solver.  Exudyn's implicit generalized-alpha (``SolveDynamic``, index-3 constraints),
spectral radius rho_inf = 0.8 (``RHO_INF``), fixed step (``adaptiveStep`` off), full
Newton (modified Newton fails on the spin-up near t = 15 s), relative tolerance 1e-8 and
absolute tolerance 1e-6 (the unscaled residual, N; the spin-up's residual stalls at ~1e-8
from round-off in EA = 5e6 N, above Exudyn's default of 1e-10).  Dense linear solver.
Sensors store every step in memory; no files are written.  ``cpu`` is
``time.process_time()`` around ``mbs.SolveDynamic`` alone (building and assembling the
model excluded, the solver's initialisation and initial accelerations included).

Default steps (halving until the value moved by < 0.1 %; measured with exudyn 1.13.6):

* slider-crank, step 2e-4 s (t_end / 321 = 1.997e-4 s, 321 steps):
  4 el: 4e-4: 0.009763, 2e-4: 0.009754, 1e-4: 0.009749, 5e-5: 0.009751, 2.5e-5: 0.009752;
  2 el: 4e-4: 0.009701, 2e-4: 0.009689, 1e-4: 0.009687, 5e-5: 0.009687, 2.5e-5: 0.009687.
  The peak comes at 0.69-0.70 rad of crank rotation.  The value is the largest sample, not
  an interpolated peak; part of the remaining 0.02-0.05 % scatter is that sampling.
* spin-up, step 0.0125 s (1600 steps):
  4 el: 0.05: -0.537545, 0.025: -0.534669, 0.0125: -0.533958, 0.00625: -0.533782;
  2 el: 0.05: -0.537077, 0.025: -0.534203, 0.0125: -0.533493, 0.00625: -0.533317;
  (8 elements, 0.00625: -0.533814).  The minimum comes near t = 6.76 s.  This model's
  converged value is thus -0.5338, which is the published 2-element value; the published
  4-element value -0.5360 lies 0.4 % beyond it.  With rho_inf = 0.8 a step of 0.1 s fails
  to converge (a failed solve raises ``RuntimeError``).

More elements, at the default steps: slider-crank 1 / 8 / 16 elements 0.007358 / 0.009755 /
0.009755; spin-up 1 / 8 / 16 elements -0.528555 / -0.533991 / -0.533993.

CPU at the default steps (one core, best of 5 in one process; the first solve in a process
is ~50 % slower): slider-crank 2 / 4 elements 0.009 / 0.018 s; spin-up 2 / 4 elements
0.044 / 0.089 s, of which ~14,000 calls of the Python offset function are a small part.

Run ``python benchmarks/_exudyn_beams.py`` for both cases at 2 and 4 elements.
"""

from __future__ import annotations

import time
from typing import Any

import exudyn as exu
import exudyn.itemInterface as eii
import numpy as np

RHO_INF = 0.8  # generalized-alpha spectral radius at infinity
SHEAR_FACTOR = 10.0  # shear stiffness / physical k G A (shear-rigid limit)
NEWTON_REL_TOL = 1e-8
NEWTON_ABS_TOL = 1e-6  # N (Exudyn's unscaled residual norm)

SLIDER_CRANK_STEP = 2e-4  # s
SPIN_UP_STEP = 0.0125  # s

# slider-crank (Chu & Pan)
SC_CRANK = 0.1524  # m
SC_ROD = 0.3048  # m
SC_DIAMETER = 0.00635  # m
SC_DENSITY = 7834.56  # kg/m^3
SC_E = 2.06843e11  # N/m^2
SC_OMEGA = 124.8  # rad/s
SC_ANGLE = 8.0  # rad of crank rotation simulated

# spin-up (Kane, Ryan & Banerjee)
SU_LENGTH = 8.0  # m
SU_WIDTH = 0.03676  # m, in the plane of rotation
SU_THICKNESS = 0.001986  # m
SU_DENSITY = 2766.67  # kg/m^3
SU_E = 6.895e10  # N/m^2
SU_OMEGA = 4.0  # rad/s, final shaft speed ws
SU_TS = 15.0  # s, spin-up time
SU_T_END = 20.0  # s

_NU = 0.3  # Poisson's ratio, for the (nearly rigid) shear stiffness only


def spin_up_angle(t: float | np.ndarray) -> float | np.ndarray:
    """The prescribed shaft angle theta(t) of the spin-up problem (rad)."""
    t = np.asarray(t, dtype=float)
    ws, ts = SU_OMEGA, SU_TS
    ramp = ws / ts * (0.5 * t**2 + (ts / (2.0 * np.pi)) ** 2 * (np.cos(2.0 * np.pi * t / ts) - 1.0))
    out = np.where(t <= ts, ramp, ws * (t - 0.5 * ts))
    return float(out) if out.ndim == 0 else out


def _theta_scalar(t: float) -> float:
    if t <= SU_TS:
        return SU_OMEGA / SU_TS * (
            0.5 * t * t + (SU_TS / (2.0 * np.pi)) ** 2 * (np.cos(2.0 * np.pi * t / SU_TS) - 1.0)
        )
    return SU_OMEGA * (t - 0.5 * SU_TS)


def _quiet() -> bool | None:
    """Silence exudyn's console output; returns the previous setting where it can be read."""
    config = getattr(exu, "config", None)
    if config is not None and hasattr(config, "printToConsole"):  # exudyn >= 1.12
        previous = bool(config.printToConsole)
        config.printToConsole = False
        return previous
    if hasattr(exu, "SetWriteToConsole"):
        exu.SetWriteToConsole(False)
    return None


def _restore(previous: bool | None) -> None:
    if previous is not None:
        exu.config.printToConsole = previous


def _item(cls, new: dict, old: dict, common: dict):
    """Construct an item with the keyword names of exudyn >= 1.12.258, else the older ones."""
    try:
        return cls(**new, **common)
    except TypeError:
        return cls(**old, **common)


def _beam(nodes: list[int], length: float, rho_a: float, rho_i: float, ei: float, ea: float,
          ga: float):
    vals = (length, rho_a, rho_i, ei, ea, ga)
    new = dict(zip(("length", "massPerLength", "crossSectionInertia", "bendingStiffness",
                    "axialStiffness", "shearStiffness"), vals))
    old = dict(zip(("physicsLength", "physicsMassPerLength", "physicsCrossSectionInertia",
                    "physicsBendingStiffness", "physicsAxialStiffness",
                    "physicsShearStiffness"), vals))
    return _item(eii.ObjectBeamGeometricallyExact2D, new, old, {"nodeNumbers": nodes})


def _settings(t_end: float, steps: int) -> exu.SimulationSettings:
    s = exu.SimulationSettings()
    h = t_end / steps
    ti = s.timeIntegration
    ti.endTime = t_end
    ti.numberOfSteps = steps
    ti.verboseMode = 0
    ti.adaptiveStep = False
    ti.generalizedAlpha.spectralRadius = RHO_INF
    ti.generalizedAlpha.useNewmark = False
    ti.generalizedAlpha.useIndex2Constraints = False
    ti.newton.useModifiedNewton = False
    ti.newton.relativeTolerance = NEWTON_REL_TOL
    ti.newton.absoluteTolerance = NEWTON_ABS_TOL
    if hasattr(s, "solution") and hasattr(s, "show"):  # exudyn >= 1.12
        s.solution.file.write = False
        s.solution.sensors.writePeriod = 0.5 * h  # a sample at every step
        s.show.computationTime = False
        s.show.statistics = False
        s.linearSolver.solverType = exu.LinearSolverType.EXUdense
    else:  # the names of older exudyn
        legacy: Any = s
        legacy.solutionSettings.writeSolutionToFile = False
        legacy.solutionSettings.sensorsWritePeriod = 0.5 * h
        legacy.displayComputationTime = False
        legacy.displayStatistics = False
        legacy.linearSolverType = exu.LinearSolverType.EXUdense
    return s


def _solve(mbs, settings, case: str) -> float:
    """Run SolveDynamic quietly; the process time it took (s)."""
    previous = _quiet()
    try:
        t0 = time.process_time()
        mbs.SolveDynamic(settings)
        return time.process_time() - t0
    except Exception as exc:  # exudyn.SolverError: Newton failed at some step (no adaptive step)
        raise RuntimeError(f"{case}: Exudyn's generalized-alpha solve failed ({exc}); "
                           "try a smaller step") from exc
    finally:
        _restore(previous)


def _steps(t_end: float, step: float) -> int:
    if not step > 0:
        raise ValueError(f"step must be positive, got {step!r}")
    return max(1, int(round(t_end / step)))


def _integrator() -> str:
    return (f"generalized-alpha, rho_inf={RHO_INF} (Exudyn SolveDynamic, index-3 constraints, "
            f"fixed step, full Newton)")


def _rod_nodes(mbs, elements: int, start: tuple[float, float], length: float,
               velocity=None) -> list[int]:
    """2*elements+1 NodeRigidBody2D along +x from ``start``; ``velocity(s)`` -> (vx, vy, omega)."""
    nn = 2 * elements
    nodes = []
    for i in range(nn + 1):
        s = i * length / nn
        v = [0.0, 0.0, 0.0] if velocity is None else list(velocity(s))
        nodes.append(mbs.AddNode(eii.NodeRigidBody2D(
            referenceCoordinates=[start[0] + s, start[1], 0.0], initialVelocities=v)))
    return nodes


def _position_sensor(mbs, node: int) -> int:
    return mbs.AddSensor(eii.SensorNode(nodeNumber=node,
                                        outputVariableType=exu.OutputVariableType.Position,
                                        storeInternal=True, writeToFile=False))


def _coordinate(mbs, node: int, k: int) -> int:
    return mbs.AddMarker(eii.MarkerNodeCoordinate(nodeNumber=node, coordinate=k))


def _hold(mbs, m_ground: int, node: int, k: int, **options) -> int:
    """CoordinateConstraint: coordinate k of ``node`` = 0 (or what ``options`` prescribe)."""
    return mbs.AddObject(eii.CoordinateConstraint(
        markerNumbers=[m_ground, _coordinate(mbs, node, k)], **options))


def slider_crank(elements: int, *, step: float | None = None) -> dict:
    """Flexible slider-crank (Chu & Pan) with ``elements`` quadratic Reissner beam elements.

    Returns value (first maximum of the rod's relative mid-point deflection), cpu, steps,
    step, integrator, times (s) and series (deflection / rod length at every step).
    """
    if elements < 1:
        raise ValueError("elements must be >= 1")
    h = SLIDER_CRANK_STEP if step is None else float(step)
    t_end = SC_ANGLE / SC_OMEGA
    n = _steps(t_end, h)

    r, l, w = SC_CRANK, SC_ROD, SC_OMEGA
    area = np.pi * SC_DIAMETER**2 / 4.0
    inertia = np.pi * SC_DIAMETER**4 / 64.0
    kappa = 6.0 * (1.0 + _NU) / (7.0 + 6.0 * _NU)
    ga = SHEAR_FACTOR * kappa * SC_E / (2.0 * (1.0 + _NU)) * area

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddNode(eii.NodePointGround(referenceCoordinates=[0.0, 0.0, 0.0]))
    m_ground = _coordinate(mbs, ground, 0)

    # crank: rigid body turning about O at the prescribed rate
    crank_node = mbs.AddNode(eii.NodeRigidBody2D(referenceCoordinates=[0.0, 0.0, 0.0],
                                                 initialVelocities=[0.0, 0.0, w]))
    crank = mbs.AddObject(_item(eii.ObjectRigidBody2D, {"mass": 1.0, "inertia": 1.0},
                                {"physicsMass": 1.0, "physicsInertia": 1.0},
                                {"nodeNumber": crank_node}))
    for k in (0, 1):
        _hold(mbs, m_ground, crank_node, k)
    _hold(mbs, m_ground, crank_node, 2, velocityLevel=True, offset=w)  # rotation rate = w
    m_tip = mbs.AddMarker(eii.MarkerBodyPosition(bodyNumber=crank, localPosition=[r, 0.0, 0.0]))

    # connecting rod, rigid velocity field of the mechanism at t = 0
    omega_rod = -r * w / l
    nodes = _rod_nodes(mbs, elements, (r, 0.0), l,
                       velocity=lambda s: (0.0, r * w * (1.0 - s / l), omega_rod))
    for e in range(elements):
        mbs.AddObject(_beam(nodes[2 * e:2 * e + 3], l / elements, SC_DENSITY * area,
                            SC_DENSITY * inertia, SC_E * inertia, SC_E * area, ga))
    mbs.AddObject(eii.ObjectJointRevolute2D(
        markerNumbers=[m_tip, mbs.AddMarker(eii.MarkerNodePosition(nodeNumber=nodes[0]))]))
    # massless slider: rod end on the x axis
    _hold(mbs, m_ground, nodes[-1], 1)

    sensors = [_position_sensor(mbs, nodes[i]) for i in (0, elements, 2 * elements)]
    mbs.Assemble()
    settings = _settings(t_end, n)
    cpu = _solve(mbs, settings, f"slider_crank({elements}, step={h})")

    data = [np.asarray(mbs.GetSensorStoredData(k)) for k in sensors]
    times = data[0][:, 0].copy()
    p0, pm, p1 = (d[:, 1:3] for d in data)
    chord = p1 - p0
    chord /= np.linalg.norm(chord, axis=1)[:, None]
    rel = pm - p0
    series = (chord[:, 0] * rel[:, 1] - chord[:, 1] * rel[:, 0]) / l
    return {"value": _first_maximum(series), "cpu": cpu, "steps": n, "step": t_end / n,
            "integrator": _integrator(), "times": times, "series": series}


def _first_maximum(series: np.ndarray) -> float:
    """First local maximum of |series| that reaches half of max |series|."""
    a = np.abs(series)
    threshold = 0.5 * a.max()
    for k in range(1, len(a) - 1):
        if a[k] >= threshold and a[k] >= a[k - 1] and a[k] > a[k + 1]:
            return float(a[k])
    return float(a.max())


def spin_up(elements: int, *, step: float | None = None) -> dict:
    """Spin-up of a cantilever (Kane, Ryan & Banerjee), ``elements`` quadratic Reissner elements.

    Returns value (minimum tip deflection in the rotating frame, m), cpu, steps, step,
    integrator, times (s) and series (that deflection at every step).
    """
    if elements < 1:
        raise ValueError("elements must be >= 1")
    h = SPIN_UP_STEP if step is None else float(step)
    n = _steps(SU_T_END, h)

    area = SU_WIDTH * SU_THICKNESS
    inertia = SU_THICKNESS * SU_WIDTH**3 / 12.0
    kappa = 10.0 * (1.0 + _NU) / (12.0 + 11.0 * _NU)
    ga = SHEAR_FACTOR * kappa * SU_E / (2.0 * (1.0 + _NU)) * area

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddNode(eii.NodePointGround(referenceCoordinates=[0.0, 0.0, 0.0]))
    m_ground = _coordinate(mbs, ground, 0)

    nodes = _rod_nodes(mbs, elements, (0.0, 0.0), SU_LENGTH)
    for e in range(elements):
        mbs.AddObject(_beam(nodes[2 * e:2 * e + 3], SU_LENGTH / elements, SU_DENSITY * area,
                            SU_DENSITY * inertia, SU_E * inertia, SU_E * area, ga))
    # clamp: root at the origin, its rotation coordinate = theta(t)
    for k in (0, 1):
        _hold(mbs, m_ground, nodes[0], k)

    def offset(mbs_, t, item_number, l_offset):
        return _theta_scalar(t)

    _hold(mbs, m_ground, nodes[0], 2, offsetUserFunction=offset)

    sensor = _position_sensor(mbs, nodes[-1])
    mbs.Assemble()
    settings = _settings(SU_T_END, n)
    cpu = _solve(mbs, settings, f"spin_up({elements}, step={h})")

    data = np.asarray(mbs.GetSensorStoredData(sensor))
    times = data[:, 0].copy()
    theta = spin_up_angle(times)
    series = -np.sin(theta) * data[:, 1] + np.cos(theta) * data[:, 2]
    return {"value": float(series.min()), "cpu": cpu, "steps": n, "step": SU_T_END / n,
            "integrator": _integrator(), "times": times, "series": series}


if __name__ == "__main__":
    print(f"exudyn {exu.__version__}; ObjectBeamGeometricallyExact2D, 3-node; {_integrator()}")
    for name, fn, published in (("slider-crank", slider_crank, {2: 0.00973, 4: 0.00976}),
                                ("spin-up", spin_up, {2: -0.5338, 4: -0.5360})):
        for ne in (2, 4):
            res = fn(ne)
            print(f"{name:12s} {ne} elements: value {res['value']:+.6f} "
                  f"(published {published[ne]:+.5f}), cpu {res['cpu']:.4f} s, "
                  f"{res['steps']} steps of {res['step']:.4g} s")
