"""Models handed to python-control and sympy.physics.control; y = C x + D u, H(s), Bode
plots and step responses on the command line; unknown parameter names refused by every
entry point. The expected values are derived here by hand from the model files' numbers."""

import cmath
import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
import sympy

import vecnet as vn
from vecnet.cli import main
from vecnet.errors import FormulationError, UnknownNameError, VecnetError

ROOT = Path(__file__).parent.parent
MODELS = ROOT / "examples" / "models"
RLC = MODELS / "rlc.json"
PENDULUM = MODELS / "pendulum.json"


def run(capsys, *args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def table(text: str) -> dict[str, np.ndarray]:
    rows = list(csv.reader(io.StringIO(text)))
    return {name: np.array([float(r[k]) for r in rows[1:]]) for k, name in enumerate(rows[0])}


def rlc_numbers() -> tuple[float, float, float]:
    """R, L and C of the series RLC file: each element's parameter, looked up among the
    declared parameters when it names one."""
    doc = json.loads(RLC.read_text())
    declared = doc["parameters"]
    value = {}
    for element in doc["elements"]:
        for key, given in element["parameters"].items():
            value[element["type"]] = declared[given] if isinstance(given, str) else given
    return value["Resistor"], value["Inductor"], value["Capacitor"]


def rlc_poles() -> list[complex]:
    """Roots of L C s^2 + R C s + 1 by the quadratic formula."""
    R, L, C = rlc_numbers()
    root = cmath.sqrt((R * C) ** 2 - 4 * L * C)
    return sorted([(-R * C + root) / (2 * L * C), (-R * C - root) / (2 * L * C)],
                  key=lambda z: z.imag)


# -- the command line: y = C x + D u and H(s) ------------------------------------------------
def test_equations_list_the_outputs_after_the_state_equations(capsys):
    status, out, _ = run(capsys, "equations", RLC)
    assert status == 0
    # the file declares C1.across and L1.through: the capacitor voltage and loop current
    assert "Output equations (2 outputs):" in out
    lines = [line.split() for line in out.splitlines()]
    assert ["C1.across", "=", "v_C1"] in lines and ["L1.through", "=", "i_L1"] in lines
    order = ["x' = A x + B u", "A =", "B =", "y = C x + D u", "C =", "D ="]
    places = [out.index(words) for words in order]
    assert places == sorted(places)
    # --outputs chooses others; a network without outputs has no y line
    status, out, _ = run(capsys, "equations", RLC, "--outputs", "R1.across")
    assert status == 0 and "R1.across = R*i_L1" in out and "L1.through =" not in out
    status, out, _ = run(capsys, "equations", MODELS / "rc_filter.cir")
    assert status == 0 and "x' = A x + B u" in out and "y = C x + D u" not in out


def test_the_printed_transfer_functions_of_the_rlc_are_the_textbook_ones(capsys):
    status, out, _ = run(capsys, "equations", RLC, "--transfer-function")
    assert status == 0
    lines = out.splitlines()
    start = lines.index("Transfer functions H(s) = output(s)/input(s), zero initial state:")
    rows = [line.split(" = ", 1) for line in lines[start + 1:] if line.startswith("  ")]
    symbolic, numeric = rows[:2], rows[2:4]
    assert lines[start + 3].startswith("With the parameter values")
    # the series loop: Vs = (R + L s + 1/(C s)) I and V_C = I/(C s)
    s, R, L, C = sympy.symbols("s R L C")
    loop = {"C1.across/Vs.across": 1 / (L * C * s**2 + R * C * s + 1),
            "L1.through/Vs.across": C * s / (L * C * s**2 + R * C * s + 1)}
    names = {"s": s, "R": R, "L": L, "C": C}
    for pair, printed in symbolic:
        assert sympy.simplify(sympy.sympify(printed, locals=names) - loop[pair.strip()]) == 0
    # with the file's numbers, at a few complex frequencies
    numbers = dict(zip((R, L, C), rlc_numbers()))
    for pair, printed in numeric:
        H = sympy.lambdify(s, sympy.sympify(printed, locals=names))
        hand = sympy.lambdify(s, loop[pair.strip()].subs(numbers))
        for point in (1j * 1e3, 5e3 + 2j * 1e4, -100 + 1e2j):
            assert complex(H(point)) == pytest.approx(complex(hand(point)), rel=1e-12)


def test_transfer_function_refusals_are_one_line(capsys, tmp_path):
    status, _, err = run(capsys, "equations", PENDULUM, "--transfer-function")
    assert status == 2 and "mechanism" in err and len(err.splitlines()) == 1
    status, _, err = run(capsys, "equations", MODELS / "rc_filter.cir", "--transfer-function")
    assert status == 2 and "--outputs" in err and len(err.splitlines()) == 1
    status, out, _ = run(capsys, "equations", MODELS / "rc_filter.cir", "--transfer-function",
                         "--outputs", "C1.across")
    assert status == 0 and "C1.across/V1.across = 1/(C1*R1*s + 1)" in out


# -- python-control and sympy.physics.control ----------------------------------------------
def test_the_rlc_in_python_control_has_the_hand_derived_poles():
    control = pytest.importorskip("control")
    model = vn.load_model(RLC)
    system = model.state_space().subs(model.values).to_control()
    assert system.input_labels == ["Vs:across"]
    assert system.output_labels == ["C1:across", "L1:through"]
    assert sorted(system.state_labels) == ["C1:across", "L1:through"]
    poles = sorted(np.asarray(system.poles()), key=lambda z: z.imag)
    assert np.allclose(poles, rlc_poles(), rtol=1e-12)
    # at DC the capacitor takes the whole source voltage and no current flows
    assert np.allclose(np.ravel(system.dcgain()), [1.0, 0.0], atol=1e-12)
    # the sparse formulation gives the same system
    sparse = model.system.sparse_state_space(outputs=model.outputs,
                                             parameters=model.values).to_control()
    assert np.allclose(sorted(np.asarray(sparse.poles()), key=lambda z: z.imag), rlc_poles())
    # and python-control's transfer function of H(s) the same poles and gains
    H = model.state_space().subs(model.values).transfer_function(control="python-control")
    assert isinstance(H, control.TransferFunction)
    assert H.input_labels == ["Vs:across"] and H.output_labels == ["C1:across", "L1:through"]
    R, L, C = rlc_numbers()
    assert np.allclose(np.array(H.den[0][0]) / H.den[0][0][-1], [L * C, R * C, 1.0])
    assert np.allclose(np.ravel(H.dcgain()), [1.0, 0.0], atol=1e-12)
    s = 3e3j
    assert complex(H(s)[0][0]) == pytest.approx(1 / (L * C * s**2 + R * C * s + 1), rel=1e-9)


def test_sympy_control_objects_and_the_default_matrix():
    from sympy.physics.control import TransferFunction, TransferFunctionMatrix

    net = vn.Network("rc")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=0.5),
            vn.Capacitor("C", "g", "b", C=4.0))
    ss = net.state_space(outputs=["C.across"])
    s = vn.s
    assert ss.transfer_function() == sympy.Matrix([[1 / (2 * s + 1)]])   # unchanged default
    siso = ss.transfer_function(control="sympy")
    assert isinstance(siso, TransferFunction)
    assert sympy.simplify(siso.to_expr() - 1 / (2 * s + 1)) == 0
    assert isinstance(ss.transfer_function(control=True), TransferFunctionMatrix)
    mimo = ss.with_outputs(["C.across", "R.through"]).transfer_function(control="sympy")
    assert isinstance(mimo, TransferFunctionMatrix) and mimo.shape == (2, 1)
    # the charging current C s V / (R C s + 1) = 4 s / (2 s + 1) enters the resistor at its
    # tail a: its through variable (the current into its head) is minus that
    current = mimo.args[0][1][0].to_expr()
    assert sympy.simplify(current + 4 * s / (2 * s + 1)) == 0
    with pytest.raises(FormulationError, match="'python-control'"):
        ss.transfer_function(control="matlab")
    with pytest.raises(FormulationError, match="no outputs"):
        ss.with_outputs([]).transfer_function(control="sympy")
    pytest.importorskip("control")
    symbolic = net.state_space(outputs=["C.across"], symbolic=True)
    with pytest.raises(FormulationError, match="missing: C, R"):
        symbolic.transfer_function(control="python-control")


def test_the_readme_pendulum_goes_to_python_control_with_its_hand_derived_poles():
    pytest.importorskip("control")
    # README.md: a body of mass m and inertia J about its centre, l below the pin
    m, J, l, g = 1.0, 0.01, 0.5, 9.81
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -g))
    bob = mech.body("bob", mass=m, inertia=J, position=(0.0, -l))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, l))
    eom = mech.formulate(coordinates="joint")
    system = eom.linearize(eom.equilibrium()).to_control()
    # (J + m l^2) z'' + m g l z = Q: a simple pendulum of length l_eff = (J + m l^2) / (m l)
    l_eff = (J + m * l**2) / (m * l)
    poles = sorted(np.asarray(system.poles()), key=lambda z: z.imag)
    assert np.allclose(poles, [-1j * np.sqrt(g / l_eff), 1j * np.sqrt(g / l_eff)], atol=1e-6)
    assert system.input_labels == ["Q_pin:angle"] and system.output_labels == ["pin:angle"]
    assert system.state_labels == ["pin:angle", "pin:angle'"]


def discharge() -> vn.Network:
    """A capacitor C = 0.5 charged to v0 discharging through R = 2: RC = 1 s."""
    net = vn.Network("discharge")
    net.add(vn.Resistor("R", "a", "g", R=2.0), vn.Capacitor("C", "g", "a", C=0.5))
    return net


@pytest.mark.parametrize("formulation", ["symbolic", "sparse"])
def test_networks_without_inputs_or_outputs_convert(formulation):
    control = pytest.importorskip("control")
    net = discharge()
    make = net.state_space if formulation == "symbolic" else net.sparse_state_space
    system = make().to_control()   # no sources, no outputs: the states are the outputs
    assert system.ninputs == 0 and system.output_labels == ["C:across"]
    assert np.allclose(system.poles(), [-1.0])
    times = np.linspace(0, 3, 7)
    response = control.initial_response(system, T=times, X0=[2.0])
    assert np.allclose(np.ravel(response.outputs), 2.0 * np.exp(-times), rtol=1e-9)
    # declared outputs without inputs: the resistor's voltage is the capacitor's
    named = make(outputs=["R.across"]).to_control()
    assert named.output_labels == ["R:across"] and named.ninputs == 0
    assert abs(float(named.C[0, 0])) == pytest.approx(1.0)
    # two states, no input: an LC tank oscillates at 1/sqrt(L C)
    tank = vn.Network("tank")
    tank.add(vn.Inductor("L", "a", "g", L=0.25), vn.Capacitor("C", "g", "a", C=4.0))
    poles = sorted(np.asarray((tank.state_space() if formulation == "symbolic"
                               else tank.sparse_state_space()).to_control().poles()).imag)
    assert np.allclose(poles, [-1.0, 1.0])


def test_a_driven_network_without_outputs_has_its_states_as_outputs():
    pytest.importorskip("control")
    net = vn.Network("lowpass")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=2.0),
            vn.Capacitor("C", "g", "b", C=0.5))
    for ss in (net.state_space(), net.sparse_state_space()):
        system = ss.to_control()
        assert system.input_labels == ["V:across"] and system.output_labels == ["C:across"]
        assert np.allclose(system.D, 0.0) and np.allclose(np.ravel(system.dcgain()), [1.0])


# -- bode and step -------------------------------------------------------------------------
def test_step_of_the_rlc_is_the_underdamped_textbook_response(capsys):
    status, out, _ = run(capsys, "step", RLC, "--t-end", "4e-3", "--points", "401")
    assert status == 0
    data = table(out)
    R, L, C = rlc_numbers()
    t = data["t"]
    assert len(t) == 401 and t[-1] == pytest.approx(4e-3)
    alpha, wd = R / (2 * L), np.sqrt(1 / (L * C) - (R / (2 * L)) ** 2)
    v = 1 - np.exp(-alpha * t) * (np.cos(wd * t) + alpha / wd * np.sin(wd * t))
    i = np.exp(-alpha * t) * np.sin(wd * t) / (L * wd)          # C dv/dt
    assert np.allclose(data["C1.across"], v, atol=1e-8)
    assert np.allclose(data["L1.through"], i, atol=1e-8)


def test_bode_of_the_rlc_spans_its_resonance_and_matches_h(capsys, tmp_path):
    status, out, _ = run(capsys, "bode", RLC)
    assert status == 0
    data = table(out)
    R, L, C = rlc_numbers()
    f = data["f"]
    resonance = 1 / (2 * np.pi * np.sqrt(L * C))
    assert f[0] < resonance / 10 and f[-1] > resonance * 10
    w = 2j * np.pi * f
    H = 1 / (L * C * w**2 + R * C * w + 1)
    assert np.allclose(data["C1.across dB"], 20 * np.log10(np.abs(H)), atol=1e-9)
    assert np.allclose(data["C1.across deg"], np.degrees(np.unwrap(np.angle(H))), atol=1e-7)
    # between --start and --stop, 10 points a decade, both ends included
    status, out, _ = run(capsys, "bode", RLC, "--start", "10", "--stop", "1e4", "--points", "10")
    assert status == 0 and len(table(out)["f"]) == 31
    for suffix, magic in ((".png", b"\x89PNG"), (".svg", b"<svg"), (".pdf", b"%PDF")):
        target = tmp_path / f"bode{suffix}"
        status, out, _ = run(capsys, "bode", RLC, "--output", target)
        assert status == 0 and magic in target.read_bytes()[:400]
        target = tmp_path / f"step{suffix}"
        status, out, _ = run(capsys, "step", RLC, "--output", target)
        assert status == 0 and magic in target.read_bytes()[:400]


def test_step_of_the_pendulum_file_linearizes_about_its_equilibrium(capsys):
    status, out, _ = run(capsys, "step", PENDULUM, "--t-end", "5", "--points", "251")
    assert status == 0
    doc = json.loads(PENDULUM.read_text())
    p = doc["parameters"]
    # (J + m l^2) b'' + c b' + (k + m g l) b = Q about b = 0, from the file's description
    inertia, K, c = p["J"] + p["m"] * p["l"] ** 2, p["k"] + p["m"] * p["g"] * p["l"], p["c"]
    alpha = c / (2 * inertia)
    wd = np.sqrt(K / inertia - alpha**2)
    data = table(out)
    t = data["t"]
    hand = (1 - np.exp(-alpha * t) * (np.cos(wd * t) + alpha / wd * np.sin(wd * t))) / K
    assert list(data) == ["t", "pin.angle"]
    assert np.allclose(data["pin.angle"], hand, atol=1e-7)


def test_bode_and_step_refuse_in_one_line(capsys):
    for args, words in [(("bode", RLC, "--start", "10"), "--start and --stop"),
                        (("step", RLC, "--outputs", "nope"), "no variable 'nope'"),
                        (("bode", PENDULUM, "--outputs", "pin.angle"), "coordinates"),
                        (("step", RLC, "--format", "gif"), "invalid choice")]:
        status, out, err = run(capsys, *args)
        assert status == 2 and words in err and len(err.splitlines()) == 1 and not out


# -- unknown parameter names -------------------------------------------------------------------
def refusals():
    rlc = vn.load_model(RLC)
    net = rlc.system
    values = {str(k): v for k, v in rlc.values.items()}
    bad = {**values, "Rx": 1.0}
    pendulum = vn.load_model(PENDULUM)
    eom = pendulum.formulate()
    held = {"m": 2.0, "J": 0.05, "k": 3.0, "c": 0.2}
    yield "load_model", lambda: vn.load_model(RLC, parameters={"Rx": 1.0})
    yield "load_netlist", lambda: vn.load_netlist(MODELS / "rc_filter.cir",
                                                  parameters={"Rx": 1.0})
    yield "Model.simulate", lambda: rlc.simulate(parameters={"Rx": 1.0})
    yield "Model.simulate mechanism", lambda: pendulum.simulate(parameters={"Rx": 1.0})
    yield "vn.simulate network", lambda: vn.simulate(net, (0, 1e-3), parameters=bad)
    yield "StateSpace.simulate", lambda: net.state_space().simulate((0, 1e-3), parameters=bad)
    yield "StateSpace.linearize", lambda: net.state_space().linearize(
        {"C1.across": 0.0, "L1.through": 0.0, "Vs.across": 0.0}, bad)
    yield "sparse_state_space", lambda: net.sparse_state_space(parameters=bad)
    yield "operating_point", lambda: vn.operating_point(net, parameters=bad)
    yield "frequency_response", lambda: vn.frequency_response(net, [1.0], parameters=bad)
    yield "sweep", lambda: vn.sweep(rlc, {"Rx": [1.0, 2.0]}, "eigenvalues")
    yield "equilibrium", lambda: eom.equilibrium(parameters={**held, "Rx": 1.0})
    yield "linearize", lambda: eom.linearize(eom.equilibrium(parameters=held),
                                             parameters={**held, "Rx": 1.0})
    yield "vn.simulate mechanism", lambda: vn.simulate(eom, (0, 0.1),
                                                       parameters={**held, "Rx": 1.0})


@pytest.mark.parametrize("name", [name for name, _ in refusals()])
def test_unknown_parameter_names_are_refused_with_the_known_ones_listed(name):
    call = dict(refusals())[name]
    with pytest.raises(VecnetError) as info:
        call()
    message = str(info.value)
    assert "'Rx'" in message or "Rx;" in message
    # the known names are listed: the RLC's R, L, C, the pendulum's m and k (the netlist
    # declares none and says so)
    known = [("R", "L", "C"), ("m", "k"), ("none",)]
    assert any(all(f" {n}" in message or f"'{n}'" in message for n in names)
               for names in known), message


def test_the_command_line_refuses_an_unknown_param(capsys):
    for command in ("equations", "simulate", "bode", "step", "op"):
        status, out, err = run(capsys, command, RLC, "--param", "Rx=3")
        assert status == 2 and "'Rx'" in err and "'R', 'L', 'C'" in err and not out


def test_model_simulate_puts_the_parameters_given_over_the_declared_ones():
    model = vn.load_model(RLC)
    R, L, C = rlc_numbers()
    res = model.simulate(t_span=(0, 2e-3), points=5, parameters={"R": 4 * R})
    again = vn.load_model(RLC, parameters={"R": 4 * R}).simulate(t_span=(0, 2e-3), points=5)
    assert np.allclose(res["C1.across"], again["C1.across"], atol=1e-9)
    # a pendulum's inertia changed alone; its length shaped the file's geometry
    pendulum = vn.load_model(PENDULUM)
    assert pendulum.simulate(t_span=(0, 0.1), points=3, parameters={"J": 0.1})["pin.angle"].size
    with pytest.raises(UnknownNameError, match="'l' shaped the model"):
        pendulum.simulate(parameters={"l": 1.0})


def test_a_parameter_of_the_inputs_alone_is_not_refused_by_the_commands(capsys, tmp_path):
    doc = json.loads(RLC.read_text())
    doc["parameters"]["V0"] = 2.0
    doc["inputs"] = {"Vs.across": "V0*step(t)"}
    path = tmp_path / "amplitude.json"
    path.write_text(json.dumps(doc))
    assert vn.load_model(path).element_values.keys() == {vn.Symbol("R"), vn.Symbol("L"),
                                                         vn.Symbol("C")}
    for command in ("equations", "bode", "op", "ac"):
        status, _, err = run(capsys, command, path)
        assert status == 0, err
    status, out, _ = run(capsys, "simulate", path, "--t-end", "0.02", "--points", "3")
    assert status == 0 and table(out)["C1.across"][-1] == pytest.approx(2.0, rel=1e-6)
