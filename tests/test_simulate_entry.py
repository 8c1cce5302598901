"""One way to simulate: ``vn.simulate(model, (t0, t1), ...)`` for every kind of model.

Its results equal those of the entry points it replaces (the ``simulate`` methods, kept as
delegates) on every bundled model file and every simulation of the examples; mechanisms
start at any ``t0``; the result reports the status, the evaluations (counted here
independently, and against scipy's own count), the events and the solver; a run stopped by
a limit returns the samples it reached when asked to."""

from __future__ import annotations

import contextlib
import io
import json
import math
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy
from scipy.integrate import solve_ivp

import vecnet as vn
from test_friction import slope_into_stop
from vecnet.core import bounds
from vecnet.formulation.coupled import CoupledModel, System
from vecnet.formulation.lumped import StateSpace
from vecnet.formulation.multibody import MechanismEquations
from vecnet.formulation.numeric import SparseStateSpace
from vecnet.io import Model
from vecnet.numerics.result import Event

ROOT = Path(__file__).parent.parent
MODELS = sorted((ROOT / "examples" / "models").glob("*.json"))
G = 9.81


def assert_same(reference: vn.numerics.result.Result, result, tol: float = 1e-12) -> None:
    """Every named output the two results share is equal to ``tol`` (relative above 1)."""
    assert np.array_equal(reference.t, result.t)
    common = set(reference.names) & set(result.names)
    assert common == set(reference.names)
    for name in common:
        a, b = np.asarray(reference[name], float), np.asarray(result[name], float)
        assert a.shape == b.shape, name
        assert np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True), name


# -- the same results as the entry points it replaces ---------------------------------------

@pytest.mark.parametrize("path", MODELS, ids=lambda path: path.name)
def test_every_model_file_simulates_as_its_own_simulate(path):
    model = vn.load_model(path)
    result = vn.simulate(model)            # the file's span and points
    assert_same(model.simulate(), result)
    assert result.status == 0 and result.nfev > 0
    assert result.t[0] == model.t_span[0] and result.t[-1] == model.t_span[1]


def test_the_bundled_netlist_simulates_as_its_network_and_model():
    net = vn.load_netlist(ROOT / "examples" / "models" / "rc_filter.cir")
    tran = net.analyses.tran
    model = Model("network", net, t_span=(0.0, tran.stop), points=201)
    result = vn.simulate(model)
    assert_same(model.simulate(), result)
    assert_same(net.simulate((0.0, tran.stop), t_eval=result.t), result)
    # PULSE(0 1 0 1u 1u 1m 4m): up over 1 us from each 4 ms, down over 1 us after 1 ms more
    corners = [k * 4e-3 + c for k in range(3) for c in (0.0, 1e-6, 1.001e-3, 1.002e-3)]
    assert [e.t for e in result.events] == pytest.approx([c for c in corners if c > 0],
                                                         abs=1e-15)
    assert {(e.name, e.kind) for e in result.events} == {("V1.across", "switch")}


#: the entry points the examples call, and how their arguments read as vn.simulate's
ENTRY_POINTS = {
    vn.Network: lambda args, kw: (args[0], kw),
    StateSpace: lambda args, kw: (args[0], kw),
    SparseStateSpace: lambda args, kw: (args[0], kw),
    MechanismEquations: lambda args, kw: ((0.0, args[0]), {**kw, **dict(zip(["t_eval"], args[1:]))}),
    CoupledModel: lambda args, kw: ((0.0, args[0]), {**kw, **dict(zip(["t_eval"], args[1:]))}),
    System: lambda args, kw: ((0.0, args[0]), {**kw, **dict(zip(["coordinates"], args[1:]))}),
    Model: lambda args, kw: (kw.pop("t_span", args[0] if args else None), kw),
}
EXAMPLES = sorted(path for path in (ROOT / "examples").glob("*.py")
                  if ".simulate(" in path.read_text(encoding="utf-8"))


#: the simulations of the examples that are run again, by their evaluations: the larger
#: ones (two of a double pendulum and of a motor-driven slider-crank, 24,000 to 65,000
#: evaluations each) take the paths of smaller ones run again
REPLAYED = 12_000


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda path: path.name)
def test_every_simulation_of_the_examples_is_vn_simulate(script, monkeypatch):
    # each simulation the example runs through an entry point is run again by vn.simulate
    seen = []
    nested = [0]   # a delegate's own inner calls are not the example's

    def replay(cls, original):
        def entry(self, *args, **kwargs):
            nested[0] += 1
            try:
                reference = original(self, *args, **kwargs)
                if nested[0] == 1:
                    seen.append(reference.nfev)
                    if reference.nfev <= REPLAYED:
                        span, options = ENTRY_POINTS[cls](args, dict(kwargs))
                        assert_same(reference, vn.simulate(self, span, **options))
            finally:
                nested[0] -= 1
            return reference
        return entry

    for cls in ENTRY_POINTS:
        monkeypatch.setattr(cls, "simulate", replay(cls, cls.simulate))
    monkeypatch.setattr(sys, "argv", [str(script)])
    monkeypatch.setenv("MPLBACKEND", "Agg")
    with contextlib.redirect_stdout(io.StringIO()):
        runpy.run_path(str(script), run_name="__main__")
    assert seen, f"{script.name} ran no simulation"


# -- mechanisms start at any t0 ---------------------------------------------------------

def pendulum(dimensions: int = 2):
    """A pendulum (planar) or a top on its tip (spatial): nothing in them reads the time."""
    if dimensions == 2:
        mech = vn.planar.Mechanism("pendulum", gravity=(0, -G))
        bob = mech.body("bob", mass=1.0, inertia=0.01, position=(0.5, 0.0))
        mech.revolute("pin", mech.ground.point(0, 0), bob.point(-0.5, 0))
        return mech.formulate(), {"pin.angle": 1.5}
    top = vn.spatial.Mechanism("top", gravity=(0, 0, -G))
    body = top.body("body", mass=1.0, inertia=(0.02, 0.02, 0.03), position=(0, 0, 0.2))
    top.spherical("tip", top.ground.point(0, 0, 0), body.point(0, 0, -0.2))
    return top.formulate(), {"body.omega": (0.5, 0, 20.0)}


@pytest.mark.parametrize("dimensions, method", [(2, "partition"), (2, "dae"), (2, "rk4"),
                                                (3, "partition"), (3, "dae")])
def test_a_time_invariant_mechanism_started_later_moves_the_same(dimensions, method):
    eom, velocities = pendulum(dimensions)
    step = {"step": 1e-3} if method == "rk4" else {}
    ts = np.linspace(0.0, 0.4, 9)
    early = vn.simulate(eom, (0.0, 0.4), t_eval=ts, velocities=velocities, method=method, **step)
    late = vn.simulate(eom, (0.5, 0.9), t_eval=0.5 + ts, velocities=velocities, method=method,
                       **step)
    assert late.t == pytest.approx(0.5 + ts, abs=1e-15)
    assert late.solver == early.solver == method
    for name in [*eom.coordinates, *eom.speed_names, "energy"]:
        assert late[name] == pytest.approx(early[name], abs=1e-9), name


def crank_and_link(omega: float):
    """A crank driven at ``angle = omega t`` carrying a free link: the driver fixes one
    of the two degrees of freedom."""
    mech = vn.planar.Mechanism("driven", gravity=(0, -G))
    crank = mech.body("crank", mass=1.0, inertia=0.1, position=(0.5, 0))
    link = mech.body("link", mass=1.0, inertia=0.1, position=(1.5, 0))
    mech.revolute("O", mech.ground.point(0, 0), crank.point(-0.5, 0))
    mech.revolute("A", crank.point(0.5, 0), link.point(-0.5, 0))
    mech.drive("motor", "O", omega * vn.t)
    return mech


def test_a_mechanism_model_file_simulates_from_a_later_start(tmp_path):
    model = vn.load_model(ROOT / "examples" / "models" / "pendulum.json")   # (0, 3) in the file
    early, late = vn.simulate(model), vn.simulate(model, (1.0, 4.0))
    assert late.t == pytest.approx(early.t + 1.0, abs=1e-14)
    assert late["pin.angle"] == pytest.approx(early["pin.angle"], abs=1e-9)
    # the file itself may say so: a time-invariant pendulum, shifted by a second
    doc = json.loads((ROOT / "examples" / "models" / "pendulum.json").read_text())
    doc["simulation"]["t_span"] = [1, 4]
    (tmp_path / "later.json").write_text(json.dumps(doc))
    shifted = vn.load_model(tmp_path / "later.json").simulate()
    assert shifted["pin.angle"] == pytest.approx(early["pin.angle"], abs=1e-9)


def test_a_driven_mechanism_obeys_its_driver_from_t0():
    omega, t0, t1 = 2.0, 0.5, 1.0
    ts = np.linspace(t0, t1, 11)
    res = vn.simulate(crank_and_link(omega), (t0, t1), t_eval=ts)
    assert res["O.angle"] == pytest.approx(omega * ts, abs=1e-9)
    assert res["O.angle'"] == pytest.approx(np.full_like(ts, omega), abs=1e-9)
    assert res["crank.angle"][0] == pytest.approx(omega * t0, abs=1e-12)
    assert res.solver == "partition" and res.nfev > 0


def test_a_slider_crank_driven_at_every_degree_of_freedom_is_kinematics_from_t0():
    r, L, omega, t0 = 0.1, 0.4, 3.0, 0.25
    mech = vn.planar.Mechanism("slider-crank", gravity=(0, 0))
    crank = mech.body("crank", mass=0.5, inertia=0.01, position=(r / 2, 0))
    rod = mech.body("rod", mass=1.0, inertia=0.02, position=(r + L / 2, 0))
    slider = mech.body("slider", mass=2.0, inertia=0.01, position=(r + L, 0))
    mech.revolute("O", mech.ground.point(0, 0), crank.point(-r / 2, 0))
    mech.revolute("A", crank.point(r / 2, 0), rod.point(-L / 2, 0))
    mech.revolute("B", rod.point(L / 2, 0), slider.centre)
    mech.prismatic("S", mech.ground.point(0, 0), slider.centre)
    mech.drive("motor", "O", omega * vn.t)
    ts = np.linspace(t0, t0 + 0.5, 6)
    res = vn.simulate(mech, (t0, t0 + 0.5), t_eval=ts)
    theta = omega * ts
    assert res.solver == "kinematics" and res.nfev == 0 and res.status == 0
    assert res["slider.x"] == pytest.approx(
        r * np.cos(theta) + np.sqrt(L**2 - (r * np.sin(theta)) ** 2), abs=1e-10)


def test_a_system_from_t0_follows_a_torque_that_grows_with_time():
    # J w' = T(t) = 2 t: w(t) = (t^2 - t0^2) / J from rest at t0
    J, t0, t1 = 0.5, 1.0, 3.0
    mech = vn.planar.Mechanism("wheel", gravity=(0, 0))
    wheel = mech.body("wheel", mass=1.0, inertia=J)
    mech.revolute("O", mech.ground.centre, wheel.centre)
    net = vn.Network("drive")
    net.add(vn.TorqueSource("T", "g", "w", T=2 * vn.t), vn.RotaryPort("shaft", "g", "w", joint="O"))
    system = vn.System(mech, net)
    res = vn.simulate(system, (t0, t1), t_eval=[t0, t1], rtol=1e-10, atol=1e-12)
    assert res["O.angle'"][-1] == pytest.approx((t1**2 - t0**2) / J, rel=1e-8)
    angle = ((t1**3 - t0**3) / 3 - t0**2 * (t1 - t0)) / J
    assert res["O.angle"][-1] - res["O.angle"][0] == pytest.approx(angle, rel=1e-8)
    assert_same(system.formulate().simulate(t1, t_eval=[0.0, t1]),
                vn.simulate(system.formulate(), (0.0, t1), t_eval=[0.0, t1]))


# -- status, evaluations, events and solver ------------------------------------------------

@pytest.fixture
def evaluations(monkeypatch):
    """Counts every evaluation of a simulation's right-hand side or residual (each goes
    through the simulation's Watch, one at a time or, for a compiled step, ``count`` at
    once), apart from the code under test."""
    calls = []
    watch = bounds.Watch.__call__

    def counted(self, time, state=None, finite=False, count=1):
        calls.extend([time] * count)
        return watch(self, time, state, finite, count)

    monkeypatch.setattr(bounds.Watch, "__call__", counted)
    return calls


def rc(V=1.0):
    net = vn.Network("rc")
    net.add(vn.VoltageSource("V", "g", "a", V=V), vn.Resistor("R", "a", "b", R=1.0),
            vn.Capacitor("C", "g", "b", C=1.0))
    return net


def sinh_loop():
    """A resistor in series with a sinh-law element: an algebraic loop, integrated by IDA."""
    net = vn.Network("dae")
    net.add(vn.VoltageSource("V", "g", "a", V=2.0), vn.Resistor("R", "a", "b", R=1.0),
            vn.NonlinearDissipator("D", "c", "b", through=lambda a: 0.3 * sympy.sinh(a / 0.4)),
            vn.Capacitor("C", "g", "c", C=0.5))
    return net.state_space()


def test_nfev_is_scipys_count_for_the_same_equation():
    # x' = 1 - x, as the sparse model evaluates it, by scipy alone
    for method in ("RK45", "DOP853"):
        res = vn.simulate(rc(), (0, 1), method=method)
        ref = solve_ivp(lambda t, x: 1.0 - x, (0, 1), [0.0], method=method, rtol=1e-8,
                        atol=1e-10, t_eval=res.t)
        assert res.nfev == ref.nfev > 0 and res.solver == method
        assert res["C.across"] == pytest.approx(ref.y[0], abs=1e-14)


@pytest.mark.parametrize("case", ["sparse", "symbolic", "ida", "partition", "dae", "rk4",
                                  "system"])
def test_nfev_counts_every_evaluation(case, evaluations):
    eom, velocities = pendulum()
    runs = {
        "sparse": lambda: vn.simulate(rc(), (0, 1)),
        "symbolic": lambda: vn.simulate(rc(), (0, 1), formulation="symbolic"),
        "ida": lambda: vn.simulate(sinh_loop(), (0, 1)),
        "partition": lambda: vn.simulate(eom, (0, 1), velocities=velocities),
        "dae": lambda: vn.simulate(eom, (0, 1), velocities=velocities, method="dae"),
        "rk4": lambda: vn.simulate(eom, (0, 1), t_eval=np.linspace(0, 1, 11), method="rk4",
                                   step=0.01),
        "system": lambda: vn.simulate(vn.System(pendulum_with_motor()), (0, 0.5)),
    }
    res = runs[case]()
    assert res.status == 0 and res.success and res.message
    assert res.nfev == len(evaluations) > 0
    if case == "rk4":   # four evaluations a step, 100 steps of 0.01 s
        assert res.nfev == 400
    if case in ("ida", "dae"):
        assert res.solver in ("IDA", "dae") and res.njev > 0


def pendulum_with_motor():
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -G))
    bob = mech.body("bob", mass=1.0, inertia=0.01, position=(0.5, 0.0))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-0.5, 0))
    return mech


def test_a_step_is_a_switching_event_and_the_run_restarts_there():
    res = vn.simulate(rc(V=sympy.Heaviside(vn.t - 1)), (0, 2), t_eval=[1.0, 2.0])
    assert res.events == (Event(1.0, "V.across", "switch"),)
    assert res["C.across"][-1] == pytest.approx(1 - math.exp(-1), abs=1e-8)


def bar_with_stop(limit: float = 0.5, e: float = 0.8):
    mech = vn.planar.Mechanism("bar", gravity=(0, 0))
    bar = mech.body("bar", mass=1.0, inertia=0.05, position=(0.3, 0.0))
    mech.revolute("pin", mech.ground.point(0, 0), bar.point(-0.3, 0))
    mech.joint_limit("stop", "pin", lower=-1.0, upper=limit, restitution=e)
    return mech.formulate()


@pytest.mark.parametrize("t0", [0.0, 0.5])
def test_a_struck_stop_is_an_impact_event_at_its_time(t0):
    # turning freely at w0, the bar reaches the stop at limit / w0 after it starts
    limit, w0, e = 0.5, 2.0, 0.8
    res = vn.simulate(bar_with_stop(limit, e), (t0, t0 + 0.5), velocities={"pin.angle": w0})
    (event,) = res.events
    assert event.name == "stop.upper" and event.kind == "impact"
    assert event.t == pytest.approx(t0 + limit / w0, abs=1e-10)
    assert res["pin.angle'"][-1] == pytest.approx(-e * w0, rel=1e-8)


# -- a run stopped early -------------------------------------------------------------------

def stopped(run):
    """``run()`` within 50 evaluations; it must not raise."""
    with vn.limits(max_evaluations=50):
        return run()


@pytest.mark.parametrize("case", ["sparse", "symbolic", "ida", "partition", "dae", "rk4",
                                  "system", "model file"])
def test_a_run_stopped_by_a_limit_returns_its_samples_and_says_why(case):
    eom, velocities = pendulum()
    ts = np.linspace(0, 2, 2001)
    pendulum_file = vn.load_model(ROOT / "examples" / "models" / "pendulum.json")
    runs = {
        "sparse": (rc(), {}),
        "symbolic": (rc(), {"formulation": "symbolic"}),
        "ida": (sinh_loop(), {}),
        "partition": (eom, {"velocities": velocities}),
        "dae": (eom, {"velocities": velocities, "method": "dae"}),
        "rk4": (eom, {"velocities": velocities, "method": "rk4", "step": 1e-3}),
        "system": (vn.System(pendulum_with_motor()), {}),
        "model file": (pendulum_file, {"points": 2001}),
    }
    model, options = runs[case]
    span = None if case == "model file" else (0, 2)
    if case != "model file":
        options = {**options, "t_eval": ts}
    res = stopped(lambda: vn.simulate(model, span, raise_on_failure=False, **options))
    assert res.status < 0 and not res.success
    assert "max_evaluations" in res.message and res.nfev == 51
    assert 0 < len(res.t) < 2001 and res.t[0] == 0.0 and np.all(np.diff(res.t) > 0)
    # the samples it reached are those of the whole run
    whole = vn.simulate(model, span, **options)
    for name in res.names:
        assert np.allclose(res[name], whole[name][:len(res.t)], rtol=1e-12, atol=1e-12), name
    # raised by default, and by check()
    with pytest.raises(vn.SimulationError, match="max_evaluations"):
        stopped(lambda: vn.simulate(model, span, **options))
    with pytest.raises(vn.SimulationError, match="max_evaluations"):
        res.check()


@pytest.mark.parametrize("budget", range(40, 60))
def test_a_run_stopped_at_any_evaluation_keeps_only_true_samples(budget):
    # DOP853 evaluates the right-hand side also for the interpolant of the samples in a
    # step: a limit reached there drops that step's samples
    eom, velocities = pendulum()
    ts = np.linspace(0, 1, 1001)
    whole = vn.simulate(eom, (0, 1), t_eval=ts, velocities=velocities)
    with vn.limits(max_evaluations=budget):
        res = vn.simulate(eom, (0, 1), t_eval=ts, velocities=velocities,
                          raise_on_failure=False)
    assert res.status == -1 and res.nfev == budget + 1
    assert np.array_equal(res.t, ts[:len(res.t)])
    assert np.array_equal(res["pin.angle"], whole["pin.angle"][:len(res.t)])


def test_a_stop_struck_without_end_fails_with_the_strikes_so_far():
    res = vn.simulate(slope_into_stop(0.5, 0.5), (0, 3.0), raise_on_failure=False)
    assert res.status == -1 and "settling on its stop" in res.message
    assert len(res.events) > 3 and all(e.name == "stop.upper" for e in res.events)
    assert 0 < res.t[-1] < 3.0 and res.t[-1] >= res.events[-1].t - 1e-2


def test_what_cannot_be_simulated_is_refused_in_words():
    with pytest.raises(vn.ModelError, match="cannot simulate a str"):
        vn.simulate("rc.json", (0, 1))
    with pytest.raises(vn.ModelError, match=r"t_span=\(t0, t1\) is needed"):
        vn.simulate(rc())
    eom, _ = pendulum()
    with pytest.raises(vn.ModelError, match="a mechanism is simulated without option.*inputs; "
                                            "its options are t_eval"):
        vn.simulate(eom, (0, 1), inputs={"V.across": 1.0})
    with pytest.raises(vn.ModelError, match="a network is simulated without option.*velocities"):
        vn.simulate(rc(), (0, 1), velocities={})
