"""FMUs of vecnet's models, checked by another tool: FMPy validates each one against the
FMI schema and simulates it (Model Exchange with FMPy's CVODE, Co-Simulation with the
FMU's own integrator), and the answer is vecnet's own simulation's to 1e-6 of each
signal's size, for FMI 2.0 and 3.0: a 20-section RLC ladder, the motor-pump network, the
four-bar (a loop), the spatial top (quaternions), the RSSR (a spatial loop), the Whipple
bicycle (rolling) and a system (a motor behind a gear turning a pendulum under a PID)."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest
import sympy

import vecnet as vn
from vecnet.cli import main
from vecnet.numerics.c_code import find_c_compiler
from vecnet.numerics.c_model import DRIFT, c_model

fmpy = pytest.importorskip("fmpy", reason="FMPy checks the FMUs (pip install fmpy)")
from fmpy.validation import validate_fmu  # noqa: E402

MODELS = Path(__file__).parents[1] / "examples" / "models"
needs_compiler = pytest.mark.skipif(find_c_compiler() is None, reason="no C compiler found")

#: the outputs each model file's FMU gives (the files' reactions and energy are not
#: exported yet), and the span simulated
CASES = {
    "motor_pump": (None, 0.05),
    "fourbar": (["crank.angle", "rocker.angle", "P1.angle'"], 1.0),
    "top": (["top.z", "tip.qx"], 0.5),
    "rssr": (["R1.angle", "R2.angle"], 1.0),
}


def ladder(sections: int) -> vn.Network:
    net = vn.Network("ladder")
    parts = [vn.VoltageSource("Vs", "g", "n0", V=1.0)]
    for k in range(1, sections + 1):
        parts += [vn.Resistor(f"R{k}", f"n{k - 1}", f"m{k}", R=1.0 + 0.1 * k),
                  vn.Inductor(f"L{k}", f"m{k}", f"n{k}", L=1e-3 * (1 + 0.05 * k)),
                  vn.Capacitor(f"C{k}", f"n{k}", "g", C=1e-6 * (1 + 0.02 * k))]
    net.add(*parts)
    return net


def run(path: Path, kind: str, stop: float, start_values=None, outputs=None,
        interval: float | None = None) -> np.ndarray:
    # CVODE takes at most 500 steps between two outputs
    return fmpy.simulate_fmu(
        str(path), stop_time=stop, output_interval=interval or stop / 50,
        relative_tolerance=1e-10,
        fmi_type="ModelExchange" if kind == "model-exchange" else "CoSimulation",
        start_values=start_values or {}, output=outputs)


def relative_error(fmu: np.ndarray, result, names) -> float:
    worst = 0.0
    for name in names:
        ours = np.interp(fmu["time"], result.t, np.asarray(result[name], float))
        worst = max(worst, np.abs(fmu[name] - ours).max() / max(np.abs(ours).max(), 1e-300))
    return worst


@needs_compiler
@pytest.mark.parametrize("version", ["2.0", "3.0"])
@pytest.mark.parametrize("kind", ["model-exchange", "co-simulation"])
@pytest.mark.parametrize("name", list(CASES))
def test_a_model_files_fmu_runs_in_fmpy_as_vecnet_runs_it(tmp_path, name, kind, version):
    outputs, stop = CASES[name]
    model = vn.load_model(MODELS / f"{name}.json")
    path = tmp_path / f"{name}.fmu"
    done = vn.export_fmu(model, path, kind=kind, fmi_version=version, outputs=outputs)
    assert done.compiled and validate_fmu(str(path)) == []
    fmu = run(path, kind, stop)
    ours = model.simulate(t_span=(0, stop), points=501, rtol=1e-11, atol=1e-13)
    names = fmu.dtype.names[1:]
    assert set(names) == set(outputs or model.outputs)
    assert relative_error(fmu, ours, names) < 1e-6


@needs_compiler
@pytest.mark.parametrize("version", ["2.0", "3.0"])
@pytest.mark.parametrize("kind", ["model-exchange", "co-simulation"])
def test_a_twenty_section_ladder_and_a_tuned_parameter(tmp_path, kind, version):
    net = ladder(20)
    ss = net.state_space(outputs=["C20.across", "L1.through"], symbolic=True)
    path = tmp_path / "ladder.fmu"
    vn.export_fmu(ss, path, kind=kind, fmi_version=version)
    assert validate_fmu(str(path)) == []
    names = ["C20.across", "L1.through"]
    fmu = run(path, kind, 0.01)
    ours = vn.simulate(net, (0, 0.01), rtol=1e-11, atol=1e-13, inputs={"Vs.across": 1.0})
    assert relative_error(fmu, ours, names) < 1e-6
    # a parameter set in FMPy changes the answer as the same value does in vecnet's run
    tuned = run(path, kind, 0.01, start_values={"R1": 40.0, "Vs.across": 2.0})
    again = vn.simulate(net, (0, 0.01), rtol=1e-11, atol=1e-13, inputs={"Vs.across": 2.0},
                        parameters={"R1": 40.0})
    assert relative_error(tuned, again, names) < 1e-6
    assert np.abs(tuned["C20.across"] - fmu["C20.across"]).max() > 0.1


def geared_pid_pendulum() -> vn.System:
    """A DC motor behind a 5:1 gear turns a pendulum to 0.6 rad under a PID's voltage."""
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    bob = mech.body("bob", mass=0.5, inertia=0.004, position=(0, -0.3))
    mech.revolute("O", mech.ground.point(0, 0), bob.point(0, 0.3))
    net = vn.Network("motor")
    net.add(vn.VoltageSource("V", "g", "a", V=vn.Symbol("u")),
            vn.Resistor("Ra", "a", "b", R=1.0), vn.Inductor("La", "b", "c", L=0.01),
            vn.DCMotor("M", "ref", "w1", "g", "c", K=0.05), vn.Inertia("Jm", "ref", "w1", J=1e-4),
            vn.GearPair("gear", "ref", "w1", "ref", "w2", N=5.0),
            vn.RotaryPort("shaft", "ref", "w2", joint="O"))
    pid = vn.PID("pid", 0.6 - vn.System(mech, net).sensor("O.angle"), kp=40.0, ki=60.0,
                 kd=3.0, tf=0.01)
    return vn.System(mech, net, blocks=[pid], connect={"V.across": pid.output})


@needs_compiler
@pytest.mark.parametrize("version", ["2.0", "3.0"])
@pytest.mark.parametrize("kind", ["model-exchange", "co-simulation"])
def test_a_system_of_motor_gear_pendulum_and_pid_runs_as_vecnet_runs_it(tmp_path, kind,
                                                                         version):
    system = geared_pid_pendulum()
    path = tmp_path / "system.fmu"
    done = vn.export_fmu(system.formulate(), path, kind=kind, fmi_version=version,
                         outputs=["O.angle"])
    assert [v.name for v in done.model.states] == ["O.angle", "O.angle'", "La.through",
                                                   "pid.integral", "pid.filter"]
    assert validate_fmu(str(path)) == []
    names = ["O.angle", "La.through", "pid.integral"]
    fmu = run(path, kind, 3.0, outputs=names)
    ours = system.simulate(3.0, t_eval=np.linspace(0, 3, 301), rtol=1e-11, atol=1e-13)
    assert relative_error(fmu, ours, names) < 1e-6


@needs_compiler
def test_the_description_names_vecnets_variables_with_their_causality_and_units(tmp_path):
    model = vn.load_model(MODELS / "fourbar.json")
    path = tmp_path / "fourbar.fmu"
    vn.export_fmu(model, path, outputs=["crank.angle"])
    description = fmpy.read_model_description(str(path))
    variables = {v.name: v for v in description.modelVariables}
    assert variables["P1.angle"].unit == "rad" and variables["P1.angle'"].unit == "rad/s"
    assert variables["crank.angle"].causality == "output"
    assert variables["T0"].causality == "parameter" and float(variables["T0"].start) == 20.0
    assert variables["der(P1.angle')"].derivative is variables["P1.angle'"]
    # the start values are the assembled pose: the loop closed
    eom = model.formulate()
    q0 = vn.assemble(eom)
    assert [float(variables[c].start) for c in eom.coordinates] == pytest.approx(q0, abs=1e-12)


def test_what_cannot_be_exported_is_refused_in_words_before_any_file(tmp_path):
    model = vn.load_model(MODELS / "fourbar.json")
    path = tmp_path / "fourbar.fmu"
    with pytest.raises(vn.ModelError, match="P1.reaction.*cannot be exported yet"):
        vn.export_fmu(model, path)
    with pytest.raises(vn.ModelError, match="kind is one of"):
        vn.export_fmu(model, path, kind="ME")
    with pytest.raises(vn.ModelError, match="fmi_version is one of"):
        vn.export_fmu(model, path, fmi_version="1.0")
    assert list(tmp_path.iterdir()) == []


def test_without_a_compiler_the_fmu_holds_its_sources_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "no-such-compiler-here")
    done = vn.export_fmu(vn.load_model(MODELS / "rlc.json"), tmp_path / "rlc.fmu")
    assert not done.compiled and "no C compiler" in done.reason
    names = zipfile.ZipFile(tmp_path / "rlc.fmu").namelist()
    assert not any(n.startswith("binaries/") for n in names)
    assert {"sources/model.c", "sources/fmi2.c", "sources/fmi2Functions.h"} <= set(names)
    assert validate_fmu(str(tmp_path / "rlc.fmu")) == []


@needs_compiler
def test_the_command_line_writes_the_fmu(tmp_path, capsys):
    path = tmp_path / "rlc.fmu"
    status = main(["export", str(MODELS / "rlc.json"), "--fmu", str(path),
                   "--fmi-version", "3.0", "--kind", "co-simulation"])
    assert status == 0 and capsys.readouterr().out.strip() == str(path)
    assert validate_fmu(str(path)) == []
    assert main(["export", str(MODELS / "fourbar.json"), "--fmu", str(path)]) == 2
    assert "'P1.reaction' cannot be exported yet" in capsys.readouterr().err


@needs_compiler
@pytest.mark.parametrize("version", ["2.0", "3.0"])
def test_the_bicycle_rolls_in_fmpy_as_vecnet_runs_it_its_wheels_never_sliding(tmp_path,
                                                                               version):
    """The Whipple bicycle: two rolling contacts (velocity rows without a position row)
    and two wheel-height rows. Its lean and steer are vecnet's to 1e-6, and the rolling
    rows ``A(q) u`` of the symbolic formulation, evaluated here with numpy on FMPy's
    states, stay at zero (the drift at which a step is projected)."""
    model = vn.load_model(MODELS / "bicycle.json")
    kind = "model-exchange" if version == "3.0" else "co-simulation"
    path = tmp_path / "bicycle.fmu"
    done = vn.export_fmu(model, path, kind=kind, fmi_version=version,
                         outputs=["lean.angle", "steer.angle"])
    assert done.compiled and validate_fmu(str(path)) == []
    eom = model.formulate()
    states = list(eom.coordinates) + list(eom.speed_names)
    fmu = run(path, kind, 1.0, outputs=states, interval=0.01)
    ours = model.simulate(t_span=(0, 1.0), points=501, rtol=1e-11, atol=1e-13)
    assert relative_error(fmu, ours, ["lean.angle", "steer.angle"]) < 1e-6
    rows = sympy.lambdify([list(eom.q), list(eom.u)], list(eom.velocity_constraints), "numpy")
    nq = len(eom.q)
    slip = [np.abs(np.array(rows(y[:nq], y[nq:]), float)).max()
            for y in np.column_stack([fmu[n] for n in states])]
    assert max(slip) < 2 * DRIFT


@needs_compiler
def test_the_generated_c_compiles_without_a_warning(tmp_path):
    """The sources an FMU holds, built as the strictest C99 compiler flags ask (a macro
    of the model's header defined twice, or an unused value, is an error here)."""
    path = tmp_path / "bicycle.fmu"
    vn.export_fmu(vn.load_model(MODELS / "bicycle.json"), path, compile=False,
                  outputs=["lean.angle"])
    zipfile.ZipFile(path).extractall(tmp_path)
    sources = tmp_path / "sources"
    done = subprocess.run([*find_c_compiler(), "-c", "-std=c99", "-O1", "-Wall", "-Wextra",
                           "-pedantic", "-Werror", f"-I{sources}", *map(str, sorted(
                               sources.glob("*.c")))], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode == 0 and not done.stderr, done.stderr


def chain(n: int) -> vn.spatial.Mechanism:
    """n links hanging from universal joints, each link's mass and length its own."""
    mech = vn.spatial.Mechanism(f"chain{n}", gravity=(0.0, 0.0, -9.81))
    parent, top = mech.ground, 0.0
    for k in range(1, n + 1):
        length, mass = 0.3 + 0.01 * k, 1.0 + 0.1 * k
        a = mech.ground.point(0, 0, 0) if parent is mech.ground else parent.point(
            0.0, 0.0, -(0.3 + 0.01 * (k - 1)) / 2)
        body = mech.body(f"b{k}", mass, (0.01 * k, 0.012 * k, 0.004 * k),
                         position=(0, 0, top - length / 2))
        mech.universal(f"J{k}", a, body.point(0.0, 0.0, length / 2),
                       axes=((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)))
        parent, top = body, top - length
    return mech


@needs_compiler
def test_a_long_chains_c_grows_with_its_length_and_gives_the_kernels_accelerations():
    """The recursive scheme written out: a chain twice as long gives about twice the C
    (the symbolic M and Q written out would grow with its square or faster), and its
    accelerations are those of the numba kernel (another formulation: the articulated-body
    passes) at random states."""
    sizes = {}
    for n in (8, 16):
        eom = chain(n).formulate()
        sizes[n] = len(c_model(eom).source)
        library = vn.compile(eom, backend="c")
        rng = np.random.default_rng(n)
        for _ in range(3):
            q = 0.3 * rng.normal(size=len(eom.q))
            u = rng.normal(size=len(eom.u))
            ours = library.forward_dynamics(q, u)
            theirs = vn.forward_dynamics(eom, q, u)
            # M's conditioning grows with the chain: a few digits are lost in the solve
            assert np.abs(ours - theirs).max() <= 1e-8 * np.abs(theirs).max()
    assert sizes[16] < 2.2 * sizes[8]


@needs_compiler
@pytest.mark.parametrize("name", ["fourbar", "top", "rssr"])
def test_the_c_backend_gives_the_numba_kernels_accelerations(name):
    """Two formulations: the C of the recursive Newton-Euler listing (and the loops'
    saddle point), the numba kernel of the articulated-body passes, at random states near
    the assembled pose."""
    eom = vn.load_model(MODELS / f"{name}.json").formulate()
    library = vn.compile(eom, backend="c")
    rng = np.random.default_rng(3)
    q0 = vn.assemble(eom)
    for _ in range(3):
        u = vn.initial_speeds(eom, q0, None) + 0.0
        q = q0.copy()
        if not eom.constraint_names:   # a tree: any pose and speeds
            q = q0 + 0.1 * rng.normal(size=q0.size)
            u = rng.normal(size=len(eom.u))
        ours = library.forward_dynamics(eom.compile().normalize(q), u)
        theirs = vn.forward_dynamics(eom, eom.compile().normalize(q), u)
        assert np.abs(ours - theirs).max() <= 1e-10 * max(1.0, np.abs(theirs).max())


@needs_compiler
@pytest.mark.parametrize("kind", ["model-exchange", "co-simulation"])
def test_the_rssr_fmu_keeps_its_loop_closed_over_a_long_run(tmp_path, kind):
    """The projection after each step holds the loop's rows at zero over 20 s (the
    integrator alone would let them drift), the rows evaluated here from the symbolic
    constraints with numpy."""
    model = vn.load_model(MODELS / "rssr.json")
    path = tmp_path / "rssr.fmu"
    vn.export_fmu(model, path, kind=kind, outputs=["R1.angle"])
    eom = model.formulate()
    fmu = run(path, kind, 20.0, outputs=list(eom.coordinates), interval=0.01)
    rows = sympy.lambdify([list(eom.q)], list(eom.constraints), "numpy")
    q = np.column_stack([fmu[n] for n in eom.coordinates])
    # the drift at which a step is followed by a projection, and a little more
    assert max(np.abs(np.array(rows(qk), float)).max() for qk in q) < 2 * DRIFT
    quaternion = q[:, 1:5]
    assert np.abs(np.linalg.norm(quaternion, axis=1) - 1).max() < 2 * DRIFT


def stopped_pendulum() -> vn.planar.Mechanism:
    """A pendulum released at rest swings down onto a stop at -0.4 rad (restitution 0.5)."""
    mech = vn.planar.Mechanism("stopped", gravity=(0, -9.81))
    c, s = np.cos(0.8), np.sin(0.8)
    bob = mech.body("bob", mass=1.0, inertia=0.01, position=(s, -c))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-s, c))
    mech.joint_limit("stop", "pin", lower=-0.4, restitution=0.5)
    return mech


@needs_compiler
@pytest.mark.parametrize(("version", "kind"), [("2.0", "model-exchange"),
                                               ("3.0", "model-exchange"),
                                               ("2.0", "co-simulation"),
                                               ("3.0", "co-simulation")])
def test_a_joint_stop_is_a_state_event_struck_as_vecnet_strikes_it(tmp_path, version, kind):
    """Model Exchange: FMPy's CVODE finds the strikes from the gap indicators;
    Co-Simulation: the FMU's own integrator locates them inside its steps."""
    eom = stopped_pendulum().formulate()
    path = tmp_path / "stopped.fmu"
    done = vn.export_fmu(eom, path, fmi_version=version, kind=kind, outputs=["pin.angle"])
    assert done.model.indicators and validate_fmu(str(path)) == []
    fmu = run(path, kind, 1.0, outputs=["pin.angle", "pin.angle'"], interval=0.01)
    times = np.unique(fmu["time"])
    ours = vn.simulate(eom, (0, 1.0), t_eval=times, rtol=1e-11, atol=1e-13)
    strikes = [e.t for e in ours.events if e.kind == "impact"]
    assert len(strikes) == 2
    # each time's last row (after an event's jump), away from the strikes' instants
    last = [np.where(fmu["time"] == tk)[0][-1] for tk in times]
    away = np.array([min(abs(tk - s) for s in strikes) > 1e-6 for tk in times])
    for name in ("pin.angle", "pin.angle'"):
        theirs, mine = fmu[name][last][away], np.asarray(ours[name], float)[away]
        assert np.abs(theirs - mine).max() < 1e-6 * np.abs(mine).max()
    assert fmu["pin.angle"].min() > -0.4 - 1e-9


def slope(alpha: float, mu_k: float = 0.4, mu_s: float = 0.5, mass: float = 2.0):
    """A block on a slope at ``alpha`` (its distance grows down the slope) with set-valued
    friction of fixed forces mu N, N = m g cos(alpha)."""
    mech = vn.planar.Mechanism("slope", gravity=(0, -9.81))
    block = mech.body("block", mass=mass, inertia=0.1)
    mech.prismatic("slide", mech.ground.point(0, 0), block.centre,
                   axis=(np.cos(alpha), -np.sin(alpha)))
    normal = mass * 9.81 * np.cos(alpha)
    mech.joint_friction("rub", "slide", coulomb=mu_k * normal, coulomb_static=mu_s * normal)
    return mech


@needs_compiler
@pytest.mark.parametrize(("version", "kind"), [("2.0", "model-exchange"),
                                               ("3.0", "co-simulation")])
def test_set_valued_friction_sticks_and_slips_as_state_events(tmp_path, version, kind):
    """Pushed up a slope at 3 m/s it slides up decelerating at g (sin a + mu_k cos a),
    stops at 3 / that, v0^2 / (2 that) up, and sticks (tan a < mu_s); released at rest on a
    steeper slope (tan a > mu_s) it slips at once, x = g (sin a - mu_k cos a) t^2 / 2."""
    g, mu_k, v0 = 9.81, 0.4, 3.0
    eom = slope(0.3).formulate()
    path = tmp_path / "slope.fmu"
    done = vn.export_fmu(eom, path, fmi_version=version, kind=kind,
                         outputs=["slide.distance"])
    assert done.model.indicators and validate_fmu(str(path)) == []
    fmu = run(path, kind, 2.0, start_values={"slide.distance'": -v0},
              outputs=["slide.distance", "slide.distance'"], interval=0.01)
    deceleration = g * (np.sin(0.3) + mu_k * np.cos(0.3))
    stop = v0 / deceleration
    before = fmu["time"] < stop - 1e-6
    t = fmu["time"][before]
    up = -v0 * t + deceleration * t ** 2 / 2
    assert np.abs(fmu["slide.distance"][before] - up).max() < 1e-8
    after = fmu["time"] > stop + 1e-6
    assert np.abs(fmu["slide.distance"][after] + v0 ** 2 / (2 * deceleration)).max() < 1e-8
    assert np.abs(fmu["slide.distance'"][after]).max() < 1e-9
    ours = vn.simulate(eom, (0, 2.0), t_eval=[2.0], velocities={"slide.distance": -v0},
                       rtol=1e-11, atol=1e-13)
    assert [e.after for e in ours.events] == ["stick"]
    assert fmu["slide.distance"][-1] == pytest.approx(float(ours["slide.distance"][-1]),
                                                      abs=1e-8)

    steep = tmp_path / "steep.fmu"
    vn.export_fmu(slope(0.6).formulate(), steep, fmi_version=version, kind=kind,
                  outputs=["slide.distance"])
    fmu = run(steep, kind, 1.0, outputs=["slide.distance"])
    slip = g * (np.sin(0.6) - mu_k * np.cos(0.6))
    assert np.abs(fmu["slide.distance"] - slip * fmu["time"] ** 2 / 2).max() < 1e-8


def test_friction_that_follows_the_normal_reaction_is_refused_in_words(tmp_path):
    mech = vn.planar.Mechanism("slope", gravity=(0, -9.81))
    block = mech.body("block", mass=1.0, inertia=0.1)
    mech.prismatic("slide", mech.ground.point(0, 0), block.centre, axis=(1.0, -0.3))
    mech.joint_friction("rub", "slide", mu_kinetic=0.4)
    with pytest.raises(vn.ModelError, match="normal reaction.*fixed forces"):
        vn.export_fmu(mech.formulate(), tmp_path / "x.fmu")
    assert list(tmp_path.iterdir()) == []
