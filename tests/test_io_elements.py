"""Coupled inductors, op-amps and the planar joint friction, joint limits, gears and rack
and pinion in model files: each entry gives the equations of the same system built in
Python and of a textbook formula, survives save_model / load_model, and a bad entry is
refused at its JSON pointer."""

import numpy as np
import pytest
import sympy

import vecnet as vn
from vecnet.builders.model import Model
from vecnet.errors import ModelFileError
from vecnet.io import load_model, save_model

s = vn.s


def network(elements, **extra):
    return {"vecnet": "1", "kind": "network", "name": "n", "elements": elements, **extra}


def round_trip(model, tmp_path):
    path = tmp_path / "model.json"
    save_model(model, path)
    return load_model(path)


def numeric_state_space(ss, values):
    """A, B, C, D as arrays, with ``values`` (by symbol) put in."""
    return ss.subs(values)._numeric()


def assert_same_state_space(ours, theirs, values):
    for a, b in zip(numeric_state_space(ours, values), numeric_state_space(theirs, values)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


# -- coupled inductors --------------------------------------------------------------------

L1, M, L2, R1, R2 = 1e-3, 0.6e-3, 4e-3, 2.0, 5.0
COUPLED = [
    {"type": "VoltageSource", "name": "Vs", "nodes": ["g", "a"], "parameters": {"V": 1.0}},
    {"type": "Resistor", "name": "Ra", "nodes": ["a", "b"], "parameters": {"R": R1}},
    {"type": "CoupledInductors", "name": "T", "nodes": ["g", "b", "g", "c"],
     "parameters": {"L": [[L1, "M"], ["M", L2]]}, "windings": ["p", "s"]},
    {"type": "Resistor", "name": "Rb", "nodes": ["c", "g"], "parameters": {"R": R2}}]


def coupled_in_python():
    net = vn.Network("n")
    net.add(vn.VoltageSource("Vs", "g", "a", V=1.0), vn.Resistor("Ra", "a", "b", R=R1),
            vn.CoupledInductors("T", "g", "b", "g", "c", L=[[L1, vn.Symbol("M")],
                                                             [vn.Symbol("M"), L2]],
                                windings=["p", "s"]),
            vn.Resistor("Rb", "c", "g", R=R2))
    return net


def test_coupled_inductors_entry_gives_the_python_network_and_the_loop_equations(tmp_path):
    doc = network(COUPLED, parameters={"M": M}, outputs=["T.s.through"])
    model = load_model(doc)
    python = coupled_in_python().state_space(outputs=["T.s.through"], symbolic=True)
    assert_same_state_space(model.state_space(), python, model.values)
    # the two loop equations L di/dt = -R i + (Vs, 0): the modes are those of -L^-1 R,
    # whatever sign each winding current is taken with
    A = numeric_state_space(model.state_space(), model.values)[0]
    expected = -np.linalg.solve([[L1, M], [M, L2]], np.diag([R1, R2]))
    np.testing.assert_allclose(np.sort(np.linalg.eigvals(A)), np.sort(np.linalg.eigvals(expected)),
                               rtol=1e-9)
    again = round_trip(model, tmp_path)
    assert_same_state_space(again.state_space(), python, again.values)
    assert again.system.element("T").ports == ("p", "s")


def test_coupled_inductors_built_in_python_are_written_with_their_matrix(tmp_path):
    model = Model("network", coupled_in_python(), parameters={"M": M}, outputs=["T.p.through"])
    again = round_trip(model, tmp_path)
    assert_same_state_space(again.state_space(), model.state_space(), model.values)


@pytest.mark.parametrize("change, location, words", [
    # M = 5e-3 couples harder than sqrt(L1 L2) = 2e-3 allows: |k| = 2.5
    ({"parameters": {"L": [[L1, 5e-3], [5e-3, L2]]}}, "/elements/2/parameters/L", "[-1, 1]"),
    ({"parameters": {"L": [[L1, "M_big"], ["M_big", L2]]}}, "/elements/2/parameters/L",
     "with the values under"),
    ({"parameters": {"L": [[L1, M], [M, L2]], "k": 0.5}}, "/elements/2/parameters/k", "matrix"),
    ({"parameters": {}}, "/elements/2/parameters", "needs the inductance matrix"),
    ({"parameters": {"L": [[L1, M], [0.0, L2]]}}, "/elements/2/parameters/L", "symmetric"),
    ({"parameters": {"L": [[L1, M, 0.0], [M, L2, 0.0]]}}, "/elements/2/parameters/L", "square"),
    ({"parameters": {"L": [[-L1, M], [M, L2]]}}, "/elements/2/parameters/L", "positive"),
    ({"parameters": {"L": [[L1, "L9"], ["L9", L2]]}}, "/elements/2/parameters/L/0/1", "L9"),
    ({"nodes": ["g", "b", "g", "c", "g", "d"]}, "/elements/2/nodes", "4 nodes"),
    ({"nodes": ["g", "b", "c", "c"]}, "/elements/2/nodes", "different nodes"),
    ({"windings": ["p", "p"]}, "/elements/2/windings/1", "twice"),
    ({"windings": ["p", "s", "t"]}, "/elements/2/windings", "2 winding names"),
    ({"windings": ["p", "bad name"]}, "/elements/2/windings/1", "winding name"),
    ({"allow_negative": True}, "/elements/2/allow_negative", "takes no"),
])
def test_bad_coupled_inductors_entries_are_refused_where_they_are(change, location, words):
    elements = [dict(e) for e in COUPLED]
    elements[2].update(change)
    doc = network(elements, parameters={"M": M, "M_big": 5e-3})
    with pytest.raises(ModelFileError) as info:
        load_model(doc)
    assert info.value.location == location and words in str(info.value)


# -- op-amps --------------------------------------------------------------------------------

Rin, Rf, Cf = 1e3, 10e3, 1e-7


def lowpass(opamp):
    """Inverting amplifier with a capacitor across the feedback resistor."""
    return [{"type": "VoltageSource", "name": "Vs", "nodes": ["g", "i"], "parameters": {"V": 1.0}},
            {"type": "Resistor", "name": "Rin", "nodes": ["i", "n"], "parameters": {"R": Rin}},
            {"type": "Resistor", "name": "Rf", "nodes": ["n", "o"], "parameters": {"R": "Rf"}},
            {"type": "Capacitor", "name": "Cf", "nodes": ["n", "o"], "parameters": {"C": Cf}},
            {"type": "OpAmp", "name": "U1", "nodes": ["n", "g", "o", "g"], **opamp},
            {"type": "Resistor", "name": "Rl", "nodes": ["g", "o"], "parameters": {"R": 1e3}}]


def lowpass_in_python(**opamp):
    net = vn.Network("n")
    net.add(vn.VoltageSource("Vs", "g", "i", V=1.0), vn.Resistor("Rin", "i", "n", R=Rin),
            vn.Resistor("Rf", "n", "o", R=vn.Symbol("Rf")), vn.Capacitor("Cf", "n", "o", C=Cf),
            vn.OpAmp("U1", "n", "g", "o", "g", **opamp), vn.Resistor("Rl", "g", "o", R=1e3))
    return net


def test_ideal_op_amp_entry_gives_the_inverting_low_pass(tmp_path):
    doc = network(lowpass({}), parameters={"Rf": Rf}, outputs=["Rl.across"])
    model = load_model(doc)
    python = lowpass_in_python().state_space(outputs=["Rl.across"], symbolic=True)
    assert_same_state_space(model.state_space(), python, model.values)
    H = model.state_space().subs(model.values).subs().transfer_function()[0, 0]
    textbook = -(Rf / Rin) / (1 + s * Rf * Cf)
    for w in (10.0, 1e3, 1e5):
        assert complex(H.subs(s, 1j * w)) == pytest.approx(complex(textbook.subs(s, 1j * w)),
                                                           rel=1e-9)
    again = round_trip(model, tmp_path)
    assert again.system.element("U1").edges[1].tail == "g"
    assert_same_state_space(again.state_space(), python, again.values)


def test_finite_gain_op_amp_entry_reads_and_writes_its_gain(tmp_path):
    doc = network(lowpass({"gain": "A"}), parameters={"Rf": Rf, "A": 1e5}, outputs=["Rl.across"])
    model = load_model(doc)
    python = lowpass_in_python(gain=vn.Symbol("A")).state_space(outputs=["Rl.across"],
                                                                symbolic=True)
    assert_same_state_space(model.state_space(), python, model.values)
    # dc gain of the inverting amplifier with open-loop gain A: -(Rf/Rin) / (1 + (1 + Rf/Rin)/A)
    H0 = model.state_space().subs(model.values).subs().transfer_function()[0, 0].subs(s, 0)
    assert float(H0) == pytest.approx(-(Rf / Rin) / (1 + (1 + Rf / Rin) / 1e5), rel=1e-9)
    again = round_trip(model, tmp_path)
    assert_same_state_space(again.state_space(), python, again.values)
    assert again.system.element("U1").parameters["A"].symbol == vn.Symbol("A")


@pytest.mark.parametrize("change, location", [
    ({"nodes": ["n", "g", "o"]}, "/elements/4/nodes"),
    ({"nodes": ["n", "n", "o", "g"]}, "/elements/4/nodes"),
    ({"nodes": ["n", "g", "o", "h"]}, "/elements/4/nodes/3"),
    ({"gain": "B"}, "/elements/4/gain"),
    ({"parameters": {"A": 1e5}}, "/elements/4/parameters"),
])
def test_bad_op_amp_entries_are_refused_where_they_are(change, location):
    elements = lowpass({})
    elements[4] = {**elements[4], **change}
    doc = network(elements, parameters={"Rf": Rf}, nodes=["g", "i", "n", "o"])
    with pytest.raises(ModelFileError) as info:
        load_model(doc)
    assert info.value.location == location


# -- planar mechanisms ----------------------------------------------------------------------

def mechanism(forces, **extra):
    return {"vecnet": "1", "kind": "mechanism", "name": "m", "gravity": [0, 0],
            "ground": {"points": {"B": [1, 0], "S": [0, -1]}},
            "bodies": [{"name": "a", "mass": 1, "inertia": 0.1, "position": [0, 0]},
                       {"name": "b", "mass": 1, "inertia": 0.4, "position": [1, 0]},
                       {"name": "rack", "mass": 2, "inertia": 0.1, "position": [0, -1]}],
            "joints": [{"type": "revolute", "name": "A", "between": ["ground", "a"]},
                       {"type": "revolute", "name": "B", "between": ["ground.B", "b"]},
                       {"type": "prismatic", "name": "S", "between": ["ground.S", "rack"]}],
            "forces": forces, **extra}


def mechanism_in_python():
    mech = vn.planar.Mechanism("m", gravity=(0, 0))
    a = mech.body("a", 1, 0.1)
    b = mech.body("b", 1, 0.4, position=(1, 0))
    rack = mech.body("rack", 2, 0.1, position=(0, -1))
    mech.revolute("A", mech.ground.point(0, 0), a.centre)
    mech.revolute("B", mech.ground.point(1, 0), b.centre)
    mech.prismatic("S", mech.ground.point(0, -1), rack.centre)
    return mech, a, b, rack


FORCES = [{"type": "joint_friction", "name": "rub", "joint": "A", "viscous": "c",
           "coulomb": 0.2, "smoothing": 0.01},
          {"type": "joint_limit", "name": "stop", "joint": "S", "lower": -0.5, "upper": 0.5,
           "restitution": 0.3},
          {"type": "gear", "name": "mesh", "bodies": ["a", "b"], "ratio": "r"},
          {"type": "rack_and_pinion", "name": "rp", "pinion": "a", "rack": "rack",
           "radius": 0.25, "axis": [1, 0]}]


def assert_same_equations(ours, theirs, values):
    assert ours.coordinates == theirs.coordinates
    state = {**{q: 0.1 * (k + 1) for k, q in enumerate(ours.q)},
             **{u: -0.3 * (k + 1) for k, u in enumerate(ours.u)}, **values}
    for name in ("M", "Q"):
        a, b = (sympy.Matrix(getattr(e, name)).xreplace(state).evalf() for e in (ours, theirs))
        np.testing.assert_allclose(np.array(a.tolist(), dtype=float),
                                   np.array(b.tolist(), dtype=float), rtol=1e-12, atol=1e-12)


def test_friction_limit_gear_and_rack_entries_give_the_python_mechanism(tmp_path):
    model = load_model(mechanism(FORCES, parameters={"c": 0.5, "r": 2.0},
                                 outputs=["mesh.torque_a", "rp.force_b"]))
    mech, a, b, rack = mechanism_in_python()
    mech.joint_friction("rub", "A", viscous=vn.Symbol("c"), coulomb=0.2, smoothing=0.01)
    mech.joint_limit("stop", "S", lower=-0.5, upper=0.5, restitution=0.3)
    mech.gear("mesh", a, b, ratio=2)
    mech.rack_and_pinion("rp", a, rack, radius=0.25, axis=(1, 0))
    python = mech.formulate()
    assert_same_equations(model.formulate(), python, model.values)
    again = round_trip(model, tmp_path)
    assert_same_equations(again.formulate(), python, again.values)
    stop = again.system.network.element("stop")
    assert (stop.lower, stop.upper, stop.restitution) == (-0.5, 0.5, 0.3)


def test_joint_friction_entry_gives_the_regularised_friction_torque():
    model = load_model(mechanism(FORCES[:1], parameters={"c": 0.5}))
    eom = model.formulate()
    omega = 0.004
    Q = sympy.Matrix(eom.Q).xreplace({**dict(zip(eom.u, (omega, 0.0, 0.0))), **model.values,
                                      **{q: 0.0 for q in eom.q}})
    # the pin of body a turns against viscous + Coulomb friction, tanh-regularised
    assert float(Q[0]) == pytest.approx(-(0.5 * omega + 0.2 * np.tanh(omega / 0.01)), rel=1e-12)


def test_gear_entry_couples_the_speeds_by_the_ratio():
    """Geared on fixed axles, b turns -ratio times as fast as a: a torque T on a spins the
    pair up with the reflected inertia J_a + ratio^2 J_b."""
    forces = [FORCES[2], {"type": "torque", "name": "T", "body": "a", "value": 1.0}]
    doc = mechanism(forces, parameters={"r": 2.0})
    doc["bodies"], doc["joints"] = doc["bodies"][:2], doc["joints"][:2]
    doc["ground"]["points"].pop("S")
    result = load_model(doc).simulate(t_span=(0, 1.0), points=3)
    alpha = 1.0 / (0.1 + 2.0**2 * 0.4)
    assert result["a.angle"][-1] == pytest.approx(alpha / 2, rel=1e-6)
    assert result["b.angle"][-1] == pytest.approx(-2.0 * alpha / 2, rel=1e-6)


@pytest.mark.parametrize("entry, location, words", [
    ({**FORCES[0], "joint": "Q"}, "/forces/0/joint", "unknown joint"),
    ({**FORCES[0], "viscous": -1}, "/forces/0/viscous", "zero or more"),
    ({**FORCES[0], "smoothing": 0}, "/forces/0/smoothing", "positive"),
    ({"type": "joint_friction", "name": "f", "joint": "A"}, "/forces/0", "viscous, coulomb"),
    ({**FORCES[1], "lower": 1.0}, "/forces/0", "above"),
    ({**FORCES[1], "restitution": 1.5}, "/forces/0", "[0, 1]"),
    ({**FORCES[1], "upper": "u"}, "/forces/0/upper", "no value"),
    ({**FORCES[1], "joint": "mesh"}, "/forces/0/joint", "unknown joint"),
    ({**FORCES[2], "bodies": ["a", "c"]}, "/forces/0/bodies/1", "unknown body"),
    ({**FORCES[2], "ratio": -2}, "/forces/0", "positive"),
    ({**FORCES[2], "teeth": 12}, "/forces/0", "teeth"),
    ({**FORCES[3], "axis": [0, 0]}, "/forces/0/axis", "zero"),
    ({**FORCES[3], "radius": 0}, "/forces/0", "positive"),
    ({**FORCES[3], "rack": "rack", "pinion": "rack"}, "/forces/0", "different"),
])
def test_bad_mechanism_force_entries_are_refused_where_they_are(entry, location, words):
    doc = mechanism([entry], parameters={"c": 0.5, "r": 2.0, "u": None})
    with pytest.raises(ModelFileError) as info:
        load_model(doc)
    assert info.value.location == location and words in str(info.value)


# -- the same entries in a spatial mechanism --------------------------------------------------

def spatial_mechanism(forces, **extra):
    """Gears ``a`` and ``b`` on pins about z, a rack on a slider along x and a sleeve on a
    cylindrical shaft along y, in zero gravity."""
    return {"vecnet": "1", "kind": "mechanism", "dimensions": 3, "name": "m",
            "gravity": [0, 0, 0],
            "ground": {"points": {"B": [1, 0, 0], "S": [0, -1, 0], "C": [0, 0, 2]}},
            "bodies": [{"name": "a", "mass": 1, "inertia": [0.1, 0.1, 0.1], "position": [0, 0, 0]},
                       {"name": "b", "mass": 1, "inertia": [0.4, 0.4, 0.4], "position": [1, 0, 0]},
                       {"name": "rack", "mass": 2, "inertia": [0.1, 0.1, 0.1],
                        "position": [0, -1, 0]},
                       {"name": "sleeve", "mass": 1, "inertia": [0.1, 0.2, 0.1],
                        "position": [0, 0, 2]}],
            "joints": [{"type": "revolute", "name": "A", "between": ["ground", "a"],
                        "axis": [0, 0, 1]},
                       {"type": "revolute", "name": "B", "between": ["ground.B", "b"],
                        "axis": [0, 0, 1]},
                       {"type": "prismatic", "name": "S", "between": ["ground.S", "rack"],
                        "axis": [1, 0, 0]},
                       {"type": "cylindrical", "name": "C", "between": ["ground.C", "sleeve"],
                        "axis": [0, 1, 0]}],
            "forces": forces, **extra}


SPATIAL_FORCES = [
    {"type": "joint_friction", "name": "rub", "joint": "A", "viscous": "c", "coulomb": 0.2,
     "smoothing": 0.01},
    {"type": "joint_friction", "name": "drag", "joint": "C", "viscous": 0.7,
     "quantity": "distance"},
    {"type": "joint_limit", "name": "stop", "joint": "S", "lower": -0.5, "upper": 0.5,
     "restitution": 0.3},
    {"type": "joint_limit", "name": "twist", "joint": "C", "upper": 1.0, "quantity": "angle"},
    {"type": "gear", "name": "mesh", "bodies": ["a", "b"], "ratio": "r", "joints": ["A", "B"]},
    {"type": "rack_and_pinion", "name": "rp", "pinion": "a", "rack": "rack", "radius": 0.25,
     "axis": [-1, 0, 0]}]


def spatial_in_python():
    mech = vn.spatial.Mechanism("m", gravity=(0, 0, 0))
    a = mech.body("a", 1, (0.1, 0.1, 0.1))
    b = mech.body("b", 1, (0.4, 0.4, 0.4), position=(1, 0, 0))
    rack = mech.body("rack", 2, (0.1, 0.1, 0.1), position=(0, -1, 0))
    sleeve = mech.body("sleeve", 1, (0.1, 0.2, 0.1), position=(0, 0, 2))
    mech.revolute("A", mech.ground.point(0, 0, 0), a.centre, axis=(0, 0, 1))
    mech.revolute("B", mech.ground.point(1, 0, 0), b.centre, axis=(0, 0, 1))
    mech.prismatic("S", mech.ground.point(0, -1, 0), rack.centre, axis=(1, 0, 0))
    mech.cylindrical("C", mech.ground.point(0, 0, 2), sleeve.centre, axis=(0, 1, 0))
    mech.joint_friction("rub", "A", viscous=vn.Symbol("c"), coulomb=0.2, smoothing=0.01)
    mech.joint_friction("drag", "C", viscous=0.7, quantity="distance")
    mech.joint_limit("stop", "S", lower=-0.5, upper=0.5, restitution=0.3)
    mech.joint_limit("twist", "C", upper=1.0, quantity="angle")
    mech.gear("mesh", a, b, ratio=2)
    mech.rack_and_pinion("rp", a, rack, radius=0.25, axis=(-1, 0, 0))
    return mech


def test_spatial_friction_limit_gear_and_rack_entries_survive_a_round_trip(tmp_path):
    model = load_model(spatial_mechanism(SPATIAL_FORCES, parameters={"c": 0.5, "r": 2.0}))
    python = spatial_in_python().formulate()
    for eom in (model.formulate(), round_trip(model, tmp_path).formulate()):
        assert_same_equations(eom, python, model.values)
        assert eom.constraint_names == python.constraint_names == ("mesh.mesh", "rp.rolling")
        state = {**{q: 0.1 * (k + 1) for k, q in enumerate(eom.q)}, **model.values}
        assert [float(c.xreplace(state)) for c in eom.constraints] == pytest.approx(
            [float(c.xreplace(state)) for c in python.constraints], abs=1e-15)
        stops = {e.name: (e.joint, e.quantity, e.lower, e.upper, e.restitution)
                 for e in eom.mechanism.network.elements if hasattr(e, "restitution")}
        assert stops == {"stop": ("S", "distance", -0.5, 0.5, 0.3),
                         "twist": ("C", "angle", None, 1.0, 0.5)}


@pytest.mark.parametrize("entry, location, words", [
    ({**SPATIAL_FORCES[1], "quantity": "slide"}, "/forces/0/quantity", "slide"),
    ({**SPATIAL_FORCES[0], "quantity": "distance"}, "/forces/0", "'A' along its 'distance'"),
    ({**SPATIAL_FORCES[4], "joints": ["A", "Z"]}, "/forces/0/joints/1", "unknown joint"),
    ({**SPATIAL_FORCES[4], "joints": ["A", "C"]}, "/forces/0", "does not join body 'b'"),
    ({**SPATIAL_FORCES[5], "axis": [0, 1, 0]}, "/forces/0", "not parallel"),
    ({**SPATIAL_FORCES[5], "axis": [0, 0, 0]}, "/forces/0/axis", "zero"),
])
def test_bad_spatial_joint_entries_are_refused_where_they_are(entry, location, words):
    doc = spatial_mechanism([entry], parameters={"c": 0.5, "r": 2.0})
    with pytest.raises(ModelFileError) as info:
        load_model(doc)
    assert info.value.location == location and words in str(info.value)
