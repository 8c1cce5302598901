"""Bounded work: simulations check their time grid first and stop, saying how far they got,
when they exceed their evaluation or time budget or their state overflows."""

import json
import math
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import sympy

import vecnet as vn
from vecnet.cli import main
from vecnet.core import bounds
from vecnet.numerics import multibody as mb

EXAMPLES = Path(__file__).parent.parent / "examples" / "models"


def rc(C=1e-3, **capacitor):
    net = vn.Network("rc")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
            vn.Capacitor("C", "g", "b", C=C, **capacitor))
    return net


def pendulum():
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    bob = mech.body("bob", mass=1.0, inertia=0.01, position=(0.0, -0.5))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 0.5))
    return mech.formulate()


@pytest.mark.parametrize("t_span, words", [
    ((0, float("nan")), "finite"), ((0, float("inf")), "finite"), ((1, 0), "after it starts"),
    ((0, 0), "after it starts"), ((0,), "(t0, t1)"), ("01", "(t0, t1)"),
    ((1e9, 1e9 + 1e-7), "too short")])
def test_bad_spans_are_refused_before_any_work(t_span, words):
    with pytest.raises(vn.ModelError, match=words.replace("(", r"\(").replace(")", r"\)")):
        rc().simulate(t_span)


@pytest.mark.parametrize("t_eval, words", [([0.5, 0.2], "increasing"), ([0.0, 2.0], "outside"),
                                           ([0.0, float("nan")], "not finite")])
def test_bad_output_times_are_refused(t_eval, words):
    with pytest.raises(vn.ModelError, match=words):
        rc().simulate((0, 1), t_eval=t_eval)
    with pytest.raises(vn.ModelError, match=words):
        pendulum().simulate(1.0, t_eval=t_eval)


def test_an_unstable_network_stops_where_its_exponential_overflows():
    # R = 1, C = -1e-3: v grows as e^(1000 t) and leaves double precision at ln(1.8e308)/1000
    overflow = math.log(np.finfo(float).max) / 1000
    with pytest.raises(vn.SimulationError, match="became infinite") as info:
        rc(C=-1e-3, allow_negative=True).simulate((0, 1))
    reached = float(str(info.value).split("at t = ")[1].split()[0])
    assert 0.9 * overflow < reached <= overflow + 1e-3
    assert "C.across" in str(info.value)


def test_a_mechanism_over_a_billion_seconds_stops_at_its_evaluation_budget():
    eom = pendulum()
    with vn.limits(max_evaluations=2000, max_cycles=1e12):
        with pytest.raises(vn.SimulationError, match="after 2000 evaluations") as info:
            eom.simulate(1e9, t_eval=[0.0, 1e9], velocities={"pin.angle": 2.0})
    reached = float(str(info.value).split("at t = ")[1].split()[0])
    assert 0 < reached < 1e9


@pytest.fixture
def evaluations(monkeypatch):
    """Counts every evaluation of a simulation's right-hand side (each goes through its
    Watch)."""
    calls = []
    watch = bounds.Watch.__call__
    monkeypatch.setattr(bounds.Watch, "__call__",
                        lambda self, *a: (calls.append(a[0]), watch(self, *a))[1])
    return calls


@pytest.mark.parametrize("joint", ["revolute", "spherical"])
def test_the_fastest_rate_is_the_largest_eigenvalue_of_the_linearization(joint):
    # a three-link chain hanging at rest, its links at angles off the vertical; the
    # reference is every eigenvalue of the linearized motion (Thompson's reduced order)
    mech = vn.spatial.Mechanism("chain", gravity=(0, 0, -9.81))
    parent, z = mech.ground.point(0, 0, 0), 0.0
    for k, (m, l) in enumerate([(1.0, 0.5), (0.4, 0.3), (0.1, 0.2)]):
        body = mech.body(f"b{k}", m, (m * l**2 / 12, m * l**2 / 12, m * l**2 / 200),
                         position=(0, 0, z - l / 2))
        if joint == "revolute":
            mech.revolute(f"J{k}", parent, body.point(0, 0, l / 2), axis=(1, 0, 0))
        else:
            mech.spherical(f"J{k}", parent, body.point(0, 0, l / 2))
        parent, z = body.point(0, 0, -l / 2), z - l
    eom = mech.formulate()
    model, q = eom.compile(), eom.assemble()
    M, C, K, H = mb.linear_model(model, q, np.zeros(0))
    exact = np.abs(vn.formulation.multibody.Linearization(
        M, C, K, H, np.zeros((H.shape[1], 0)), ()).eigenvalues()).max()
    assert mb.fastest_rate(model, 0.0, q) == pytest.approx(exact, rel=1e-3)


def test_a_billion_seconds_of_a_pendulum_are_refused_before_any_work(evaluations):
    # a point mass 0.5 m below its pin with J = 0.01 about its centre, hanging at rest:
    # w^2 = m g l / (J + m l^2), a period of 1.4466 s, 6.91e8 periods in 1e9 s
    period = 2 * math.pi / math.sqrt(9.81 * 0.5 / (0.01 + 0.25))
    with pytest.raises(vn.ModelError, match="max_cycles") as info:
        pendulum().simulate(1e9)
    assert f"a period of {period:.3g} s" in str(info.value)
    assert f"holds {1e9 / period:.3g} of them" in str(info.value)
    assert evaluations == []
    pendulum().simulate(1e9 / period / 2e5)   # a span of 5e4 periods runs
    assert evaluations


def test_a_sine_of_a_petahertz_in_a_netlist_is_refused_before_any_work(evaluations):
    for card in ("V1 a 0 SIN(0 1 1e15)", ".param f=1e15\nV1 a 0 SIN(0 1 {f})"):
        net = vn.load_netlist(f"fast\n{card}\nR1 a b 1k\nC1 b 0 1u\n.end\n")
        with pytest.raises(vn.ModelError, match=r"1e\+15 Hz: 1e\+15 periods in the span of 1 s"):
            net.simulate((0, 1))
        with pytest.raises(vn.ModelError, match=r"1e\+15 Hz"):
            net.simulate((0, 1), formulation="symbolic")
    assert evaluations == []


def test_a_fast_periodic_pulse_is_refused_before_any_work(evaluations):
    # a period of 1 ps over 1 s: 1e12 periods
    net = vn.load_netlist("fast\nV1 a 0 PULSE(0 1 0 1f 1f 1f 1p)\nR1 a b 1k\nC1 b 0 1u\n.end\n")
    with pytest.raises(vn.ModelError, match=r"1e\+12 periods"):
        net.simulate((0, 1))
    assert evaluations == []


def rssr(**extra):
    doc = json.loads((EXAMPLES / "rssr.json").read_text())
    return vn.load_model({**doc, **extra})


@pytest.mark.parametrize("extra, hertz", [
    ({"forces": [{"type": "torque", "name": "T", "body": "crank",
                  "value": [0, 0, "sin(1e15*t)"]}]}, 1e15 / (2 * math.pi)),
    ({"forces": [{"type": "force", "name": "F", "point": "coupler.B",
                  "value": [0, "cos(3e9*t + 1)", 0]}]}, 3e9 / (2 * math.pi)),
    ({"drives": [{"name": "D", "joint": "R1", "motion": "0.1*sin(1e12*t)"}]}, 1e12 / (2 * math.pi)),
], ids=["torque", "force", "drive"])
def test_fast_spatial_loads_and_drives_are_refused_before_any_work(evaluations, extra, hertz):
    model = rssr(**extra)
    with pytest.raises(vn.ModelError, match="max_cycles") as info:
        model.simulate()                                    # t_span [0, 3]
    assert f"oscillates at {hertz:.6g} Hz: {3 * hertz:.6g} periods" in str(info.value)
    assert evaluations == []


class Clock:
    """A monotonic clock that moves 200 s at every reading."""

    def __init__(self):
        self.now = 0.0

    def monotonic(self):
        self.now += 200.0
        return self.now


def test_no_simulation_reads_a_clock_unless_asked(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(bounds, "_clock", clock)
    pendulum().simulate(2.0, velocities={"pin.angle": 2.0})
    rc().simulate((0, 10))
    vn.load_model(EXAMPLES / "pendulum.json").simulate()     # a model file: counts alone
    vn.load_netlist(EXAMPLES / "rc_filter.cir").simulate((0, 0.01))
    assert clock.now == 0.0
    with vn.limits(max_seconds=600), pytest.raises(vn.SimulationError,
                                                   match=r"after 600 s \(max_seconds\)"):
        pendulum().simulate(2.0, velocities={"pin.angle": 2.0})


def test_model_files_and_netlists_are_bounded_by_state_evaluations():
    # the pendulum file has 2 states and its simulation takes a few hundred evaluations;
    # its outputs at two samples cost less than 100 evaluations of its states do
    with vn.limits(file_work=1000), pytest.raises(vn.SimulationError, match="file_work") as err:
        vn.load_model(EXAMPLES / "pendulum.json").simulate(points=2)
    assert "of 2 states each" in str(err.value)
    net = vn.load_netlist(EXAMPLES / "rc_filter.cir")
    with vn.limits(file_work=100), pytest.raises(vn.SimulationError, match="file_work"):
        net.simulate((0, 0.01))
    with vn.limits(file_work=100):                     # code written in Python: not bounded
        pendulum().simulate(2.0, velocities={"pin.angle": 2.0})


def test_output_samples_and_contacts_count_as_work_before_it_is_done():
    """A file's outputs cost work at every sample (reactions, energies, the contacts'
    forces): far more samples than the work bound allows are refused before the
    simulation starts; an evaluation with a contact counts its geometry's work too, so
    the bound stops a contact's run after fewer evaluations than a plain model's."""
    import tempfile

    ball = vn.planar.Mechanism("bounce", gravity=(0, -9.81))
    body = ball.body("ball", mass=1.0, inertia=0.004, position=(0, 0.2))
    ball.contact("floor", body, radius=0.1, restitution=1.0)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "ball.json")
        vn.save_model(ball, path)
        doc = json.loads(path.read_text())
        doc["simulation"] = {"t_span": [0, 3], "points": 100_000}
        path.write_text(json.dumps(doc))
        model = vn.load_model(path)
        with pytest.raises(vn.SimulationError, match="the outputs at 100000 samples") as err:
            model.simulate()
        assert "file_work" in str(err.value)
        # at two samples: stopped by the evaluations, each counting the contact's work
        with vn.limits(file_work=10 ** 6), pytest.raises(vn.SimulationError) as err:
            model.simulate(t_span=(0, 1e5), points=2)
        message = str(err.value)
        evaluations = int(message.split(" after ")[1].split()[0])
        assert "the work of its constraints, contacts or friction modes" in message
        assert evaluations < 10 ** 6 / 6 / 100   # each far more than its 6 states' work


def test_the_command_line_runs_a_file_to_its_end_on_a_slow_clock(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(bounds, "_clock", Clock())
    out = tmp_path / "x.csv"
    assert main(["simulate", str(EXAMPLES / "pendulum.json"), "-o", str(out)]) == 0
    assert out.exists()
    out.unlink()
    assert main(["simulate", str(EXAMPLES / "pendulum.json"), "-o", str(out),
                 "--limit", "file_work=100"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "file_work" in error and not out.exists()


class CompilingClock(Clock):
    """The clock above, where every 200 s that pass are spent compiling a kernel."""

    def monotonic(self):
        bounds.add_compile_time(200.0)
        return super().monotonic()


def test_time_spent_compiling_is_not_the_models_work(monkeypatch):
    # a cold numba cache: the kernels compile during the first evaluations; a clock asked
    # for leaves that time out, so the simulation runs to its end
    monkeypatch.setattr(bounds, "_clock", CompilingClock())
    model = vn.load_model(EXAMPLES / "pendulum.json")
    with vn.limits(max_seconds=20):
        result = model.simulate()
    assert result.success and result.t[-1] == model.t_span[1]


def test_numba_compiles_are_recorded_as_compile_time():
    import numba

    import vecnet.numerics.tree_kernels  # noqa: F401 - the kernels' module records compiles

    @numba.njit
    def square_root_sum(n):
        total = 0.0
        for k in range(n):
            total += k ** 0.5
        return total

    before = bounds.compile_time()
    started = time.monotonic()
    square_root_sum(3)                        # the first call compiles
    took = time.monotonic() - started
    recorded = bounds.compile_time() - before
    assert 0.0 < recorded <= took
    square_root_sum(4)                        # compiled: nothing more is recorded
    assert bounds.compile_time() - before == recorded


def test_limits_hold_inside_their_block_and_thread_only():
    default = vn.get_limits()
    seen = {}
    with vn.limits(max_points=7) as inside:
        assert inside.max_points == 7 == vn.get_limits().max_points
        worker = threading.Thread(target=lambda: seen.update(points=vn.get_limits().max_points))
        worker.start()
        worker.join()
        with pytest.raises(vn.ModelError, match="max_points"):
            rc().simulate((0, 1), t_eval=np.linspace(0, 1, 8))
    assert seen["points"] == default.max_points
    assert vn.get_limits() == default


def test_oscillations_are_counted_from_the_signal():
    t = vn.t
    # 10 kHz for 1 s is 10^4 periods: within the default bound, refused under a bound of 10^3
    signal = 2 * sympy.sin(2 * sympy.pi * 1e4 * t + 0.3)
    bounds.check_oscillation("V.across", signal, 1.0)
    with vn.limits(max_cycles=1e3), pytest.raises(vn.ModelError, match="10000 periods"):
        bounds.check_oscillation("V.across", signal, 1.0)
    # a periodic pulse counts its periods too
    pulse = vn.io.spice.pulse(0, 1, 0, 1e-9, 1e-9, 1e-6, 2e-6)
    with pytest.raises(vn.ModelError, match="500000 periods"):
        bounds.check_oscillation("V.across", pulse, 1.0)
    # a delayed sine (behind a Heaviside) and a chirp: the phase travelled over the span
    delayed = vn.io.spice.sine(0, 1, 1e6, td=0.5)          # 1 MHz from t = 0.5 s on
    with pytest.raises(vn.ModelError, match="500000 periods"):
        bounds.check_oscillation("V.across", delayed, (0.0, 1.0))
    chirp = sympy.cos(2 * sympy.pi * 1e6 * t ** 2)          # 1e6 t^2 periods by time t
    with pytest.raises(vn.ModelError, match="1e\\+06 periods"):
        bounds.check_oscillation("V.across", chirp, (0.0, 1.0))
    bounds.check_oscillation("V.across", chirp, (0.0, 0.1))   # 10^4 periods


def test_an_error_raised_after_an_interrupt_is_the_interrupt():
    # compiled code interrupted by Ctrl-C may return an error of its own (numba: a
    # SystemError "returned a result with an exception set"); the user interrupted
    with pytest.raises(KeyboardInterrupt):
        with bounds.interruptible():
            bounds._interrupted.set(True)   # as the SIGINT handler does
            raise SystemError("returned a result with an exception set")
    with pytest.raises(ValueError):             # without an interrupt, errors stay errors
        with bounds.interruptible():
            raise ValueError("not an interrupt")


def test_a_wheel_driven_for_a_billion_seconds_stops_by_its_constrained_work(tmp_path):
    """A wheel under a constant torque never oscillates (the span's check of periods lets
    it through); each evaluation solves its rolling rows, so it counts as far more than its
    states: the work bound stops it well before max_evaluations would."""
    import json

    mech = vn.planar.Mechanism("roll", gravity=(0, -9.81))
    disc = mech.body("disc", mass=2.0, inertia=0.25, position=(0, 0.5))
    mech.rolling_wheel("contact", disc, radius=0.5)
    mech.torque("drive", disc, -0.5)
    path = tmp_path / "wheel.json"
    vn.save_model(mech, path)
    doc = json.loads(path.read_text())
    doc["simulation"] = {"t_span": [0, 1e9], "points": 2}
    path.write_text(json.dumps(doc))
    with vn.limits(file_work=10 ** 6), pytest.raises(vn.SimulationError, match="file_work") \
            as err:
        vn.load_model(path).simulate()
    evaluations = int(str(err.value).split(" after ")[1].split()[0])
    assert evaluations < 10 ** 4      # its 4 states alone would allow 250,000


@pytest.mark.parametrize("name", ["fourbar", "rlc", "pendulum"])
def test_progress_never_goes_back_and_ends_at_the_span(name):
    """A step's evaluations go back and forth within it (Runge-Kutta stages, steps retried
    shorter): the progress told is the latest time reached, rising to the span's end."""
    from pathlib import Path

    model = vn.load_model(Path(__file__).parent.parent / "examples" / "models" / f"{name}.json")
    told: list[float] = []
    result = model.simulate(progress=told.append)
    assert len(told) > 10 and all(b > a for a, b in zip(told, told[1:]))
    assert told[-1] == float(result.t[-1]) == model.t_span[1]
