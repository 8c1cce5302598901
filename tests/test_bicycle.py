"""The Whipple bicycle benchmark (Meijaard, Papadopoulos, Ruina and Schwab, Proc. R. Soc. A
463, 2007; REFERENCE.md section 6) built from vecnet's joints and two rolling wheels
(``examples/models/bicycle.json``, and the same bicycle from the Python API), its linear
model about upright straight running against the published one.

The benchmark's axes have x forward and z down, with the origin at the rear contact; vecnet's
world has z up (gravity -z), so positions and inertias are mirrored in y and z
(``T = diag(1, -1, -1)``, ``I -> T I T``). The rear frame's pose is a chain of joints on
massless bodies whose rates are speeds: the height (prismatic), the place and heading on
the ground (planar joint), the lean (about the heading's x) and the pitch; then the rear
wheel's axle, the steer axis (tilted back by ``lambda`` and meeting the ground the trail
``c`` ahead of the front contact) and the front wheel's axle. The two contacts' normal
rows fix the height and the pitch, their four no-slip rows leave three speeds free: lean,
steer and rolling rates.

The published model is ``M q'' + v C1 q' + (g K0 + v^2 K2) q = 0`` in lean and steer; its
four eigenvalues at each speed must be among the first-order model's (whose other ones are
zero: place, heading, the wheels' angles and the rolling speed, which nothing pulls back).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

import vecnet as vn

G = 9.81
WHEELBASE, TRAIL, TILT = 1.02, 0.08, math.pi / 10
R_REAR, R_FRONT = 0.3, 0.35
M = np.array([[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]])
C1 = np.array([[0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]])
K0 = np.array([[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]])
K2 = np.array([[0, 76.59734589573222], [0, 2.65431523794604]])
#: the weave and capsize speeds of the benchmark's Table 2, to the digits published
WEAVE, CAPSIZE = 4.29238, 6.02426
MODEL = Path(__file__).resolve().parents[1] / "examples" / "models" / "bicycle.json"
#: the lean and steer angles and rates among the linear model's states
LEAN_STEER = ("lean.angle", "steer.angle", "lean.angle'", "steer.angle'")


def benchmark_eigenvalues(v: float) -> np.ndarray:
    """The eigenvalues of the published lean-and-steer model at speed ``v``."""
    A = np.block([[np.zeros((2, 2)), np.eye(2)],
                  [-np.linalg.solve(M, G * K0 + v**2 * K2), -np.linalg.solve(M, v * C1)]])
    return np.linalg.eigvals(A)


def whipple() -> vn.spatial.Mechanism:
    mirror = np.diag([1.0, -1.0, -1.0])
    frame_inertia = mirror @ np.array([[9.2, 0, 2.4], [0, 11, 0], [2.4, 0, 2.8]]) @ mirror
    fork_inertia = mirror @ np.array([[0.05892, 0, -0.00756], [0, 0.06, 0],
                                      [-0.00756, 0, 0.00708]]) @ mirror
    bike = vn.spatial.Mechanism("whipple", gravity=(0, 0, -G))
    hub = np.array([0.0, 0.0, R_REAR])
    slider, heading, leaner = (bike.body(name, 0.0, (0, 0, 0), position=hub)
                               for name in ("slider", "heading", "leaner"))
    frame = bike.body("frame", 85.0, frame_inertia, position=(0.3, 0, 0.9))
    fork = bike.body("fork", 4.0, fork_inertia, position=(0.9, 0, 0.7))
    rear = bike.body("rear", 2.0, (0.0603, 0.12, 0.0603), position=hub)
    front = bike.body("front", 3.0, (0.1405, 0.28, 0.1405), position=(WHEELBASE, 0, R_FRONT))

    def at(body, where):
        """The point of ``body`` at ``where`` (world axes, initial pose)."""
        return body.point(*(body.R.T @ (np.asarray(where, float) - body.position)))

    bike.prismatic("height", bike.ground.centre, slider.centre, axis=(0, 0, 1))
    bike.planar_joint("place", slider.centre, heading.centre, normal=(0, 0, 1))
    bike.revolute("lean", heading.centre, leaner.centre, axis=(1, 0, 0))
    bike.revolute("pitch", leaner.centre, at(frame, hub), axis=(0, 1, 0))
    bike.revolute("rear_axle", at(frame, hub), rear.centre, axis=(0, 1, 0))
    steer_axis = np.array([-math.sin(TILT), 0, math.cos(TILT)])
    on_axis = np.array([WHEELBASE + TRAIL, 0, 0]) + 0.7 / math.cos(TILT) * steer_axis
    bike.revolute("steer", at(frame, on_axis), at(fork, on_axis), axis=tuple(steer_axis))
    bike.revolute("front_axle", at(fork, (WHEELBASE, 0, R_FRONT)), front.centre,
                  axis=(0, 1, 0))
    bike.rolling_wheel("rear_contact", rear, radius=R_REAR)
    bike.rolling_wheel("front_contact", front, radius=R_FRONT)
    return bike


@pytest.fixture(scope="module")
def bicycle():
    """The model file's equations and the values of its parameters."""
    model = vn.load_model(MODEL)
    return model.system.formulate(), model.element_values


def linear_model(bicycle, v: float):
    equations, values = bicycle
    point = equations.steady_motion({"rear_axle.angle'": v / R_REAR}, parameters=values)
    return equations.linearize(point, parameters=values)


def lean_and_steer_eigenvalues(bicycle, v: float) -> np.ndarray:
    """The eigenvalues of the linear model's lean and steer block: at first order nothing
    else (place, heading, the wheels' angles, the rolling speed) acts on them."""
    lin = linear_model(bicycle, v)
    rows = [lin.states.index(name) for name in LEAN_STEER]
    return np.linalg.eigvals(np.asarray(lin.A, dtype=float)[np.ix_(rows, rows)])


def test_the_bicycle_has_three_free_speeds(bicycle):
    equations, values = bicycle
    assert equations.velocity_constraint_names == (
        "rear_contact.tangent1", "rear_contact.tangent2",
        "front_contact.tangent1", "front_contact.tangent2")
    # nine speeds less two normal rows and four no-slip rows
    assert equations.degrees_of_freedom(parameters=values) == 3


@pytest.mark.parametrize("v", [0.5 * k for k in range(21)])
def test_whipple_eigenvalues_from_0_to_10_m_per_s(bicycle, v):
    lin = linear_model(bicycle, v)
    # seven free coordinates (the height and the pitch are not), three free speeds
    assert len(lin.states) == 10
    assert "height.distance" not in lin.states and "pitch.angle" not in lin.states
    expected = np.sort_complex(benchmark_eigenvalues(v))
    got = np.sort_complex(lean_and_steer_eigenvalues(bicycle, v))
    assert np.all(np.abs(got - expected) < 1e-8 * np.maximum(1.0, np.abs(expected))), v
    ev = lin.eigenvalues()                        # the whole model holds them too
    for s in expected:
        assert np.min(np.abs(ev - s)) < 1e-6 * max(1.0, abs(s))


def test_weave_and_capsize_speeds_to_the_published_digits(bicycle):
    """Self-stable between the weave speed, where the oscillating pair crosses into the left
    half-plane, and the capsize speed, where the real eigenvalue leaves it (Table 2)."""
    def weave(v):
        ev = lean_and_steer_eigenvalues(bicycle, v)
        return np.max(ev.real[np.abs(ev.imag) > 1e-6])

    def capsize(v):
        ev = lean_and_steer_eigenvalues(bicycle, v)
        return np.max(ev.real[np.abs(ev.imag) <= 1e-6])

    weave_speed = brentq(weave, 4.0, 4.6, xtol=1e-10)
    capsize_speed = brentq(capsize, 5.8, 6.3, xtol=1e-10)
    assert abs(weave_speed - WEAVE) < 5e-6 and abs(capsize_speed - CAPSIZE) < 5e-6
    for v in (weave_speed + 0.01, 5.0, capsize_speed - 0.01):
        assert np.all(lean_and_steer_eigenvalues(bicycle, v).real < 0)


def test_small_push_follows_the_benchmark(bicycle):
    """The nonlinear motion after a small push on the lean at 5 m/s follows the published
    linear model's response (vecnet's steer turns about the axis pointing up, the
    benchmark's about the one pointing down: opposite signs), and keeps its energy."""
    equations, values = bicycle
    v, push = 5.0, 1e-3
    times = np.linspace(0.0, 4.0, 41)
    run = equations.simulate(4.0, t_eval=times, rtol=1e-11, atol=1e-13, parameters=values,
                             velocities={"rear_axle.angle'": v / R_REAR, "lean.angle'": push,
                                         "steer.angle'": 0.0})
    A = np.block([[np.zeros((2, 2)), np.eye(2)],
                  [-np.linalg.solve(M, G * K0 + v**2 * K2), -np.linalg.solve(M, v * C1)]])
    values_, vectors = np.linalg.eig(A)
    weights = np.linalg.solve(vectors, [0.0, 0.0, push, 0.0])
    linear = np.real(np.array([vectors @ (weights * np.exp(values_ * t)) for t in times]))
    scale = np.max(np.abs(linear[:, 0]))
    assert np.max(np.abs(run["lean.angle"] - linear[:, 0])) < 1e-5 * scale
    assert np.max(np.abs(run["steer.angle"] + linear[:, 1])) < 1e-5 * scale
    energy = run["energy"]
    assert np.max(np.abs(energy - energy[0])) < 1e-11 * energy[0]


def test_the_python_builder_gives_the_model_files_bicycle(bicycle):
    built = whipple().formulate()
    lin = built.linearize(built.steady_motion({"rear_axle.angle'": 5.0 / R_REAR}))
    from_file = linear_model(bicycle, 5.0)
    assert lin.states == from_file.states
    A = np.asarray(from_file.A, dtype=float)
    # the same model built twice: equal but for the finite differences' roundoff, which
    # leaves entries that are zero at about 1e-10 of the matrix's largest
    assert np.allclose(np.asarray(lin.A, dtype=float), A, rtol=0, atol=1e-9 * np.abs(A).max())


def test_the_report_shows_the_two_wheel_contacts_in_the_vector_network(tmp_path):
    page = vn.report(vn.load_model(MODEL), tmp_path / "bicycle.html", simulate=False)
    diagram = page[page.index("Vector network"):page.index("Tree explorer")]
    for contact in ("rear_contact", "front_contact"):
        assert contact in diagram
    assert "rolling wheel joint" in diagram            # the contacts' own style in the legend
    assert "The velocity constraints A(q) u + b = 0 of the rolling contacts" in page
    for row in ("rear_contact.tangent1", "front_contact.tangent2"):
        assert r"(A u + b)_{\mathrm{" + row.replace("_", r"\_") in page


@pytest.mark.parametrize("v", [1.0, 4.29238, 5.0, 6.02426, 9.0])
def test_the_lean_steer_model_is_the_published_one(bicycle, v):
    """Reduced to lean and steer (angles and rates), the model is the benchmark's
    ``M q'' + v C1 q' + (g K0 + v^2 K2) q = 0`` to 1e-8, its four eigenvalues alone (no
    spurious roots from the other states' round-off couplings near the capsize speed),
    with vecnet's steer the benchmark's mirrored (``T = diag(1, -1)`` on angles and rates)."""
    lean_steer = linear_model(bicycle, v).reduce(LEAN_STEER)
    assert lean_steer.states == LEAN_STEER and lean_steer.A.shape == (4, 4)
    T = np.diag([1.0, -1.0, 1.0, -1.0])
    published = np.block([[np.zeros((2, 2)), np.eye(2)],
                          [-np.linalg.solve(M, G * K0 + v**2 * K2), -np.linalg.solve(M, v * C1)]])
    assert np.max(np.abs(T @ lean_steer.A @ T - published)) < 1e-8 * np.max(np.abs(published))
    got = np.sort_complex(np.linalg.eigvals(lean_steer.A))
    expected = np.sort_complex(benchmark_eigenvalues(v))
    assert np.all(np.abs(got - expected) < 1e-8 * np.maximum(1.0, np.abs(expected)))
    # the outputs that read the states dropped went with them
    assert {"lean.angle", "steer.angle"} <= set(lean_steer.outputs)
    assert not {"place.x", "place.y", "rear_axle.angle"} & set(lean_steer.outputs)


def test_reducing_to_states_that_others_act_on_is_refused(bicycle):
    lin = linear_model(bicycle, 5.0)
    with pytest.raises(vn.FormulationError, match="acts on"):   # heading follows the steer
        lin.reduce(["place.angle"])
    with pytest.raises(vn.UnknownNameError, match="no state 'lean'"):
        lin.reduce(["lean"])
