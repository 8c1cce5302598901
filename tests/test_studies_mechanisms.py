"""Parameter studies of mechanisms, coupled systems and symbolic networks against hand
results: a four-bar's frequency over its spring, a spherical pendulum's sqrt(g/l), a
PD-controlled motor-pendulum's characteristic polynomial, a series RLC's step response."""

from __future__ import annotations

import json
import math
import pickle
from pathlib import Path

import numpy as np
import pytest

import vecnet as vn
from vecnet.formulation.multibody import MechanismEquations
from vecnet.studies.sweep import compile_study

pandas = pytest.importorskip("pandas")

G = 9.81
L1, L2, L3, D = 0.3, 0.8, 0.6, 0.7          # crank, coupler, rocker, ground (m)
CRANK = math.radians(60)


def fourbar(ground: float = D) -> vn.planar.Mechanism:
    """A crank-rocker four-bar under gravity, a torsion spring k = vn.Symbol("k") between the
    ground and the crank, relaxed at the initial crank angle; ``ground`` is the distance
    between the ground pins."""
    B = L1 * np.array([math.cos(CRANK), math.sin(CRANK)])
    P4 = np.array([ground, 0.0])
    gap = P4 - B
    dist = np.linalg.norm(gap)
    along = (L2**2 - L3**2 + dist**2) / (2 * dist)
    across = math.sqrt(max(L2**2 - along**2, 0.0))
    C = B + (along * gap + across * np.array([-gap[1], gap[0]])) / dist
    mech = vn.planar.Mechanism("fourbar", gravity=(0, -G))
    links = []
    for i, ((a, b), m, length) in enumerate(zip([(np.zeros(2), B), (B, C), (C, P4)],
                                                (0.4, 1.0, 0.8), (L1, L2, L3))):
        links.append(mech.body(f"link{i + 1}", mass=m, inertia=m * length**2 / 12,
                               position=(a + b) / 2, angle=math.atan2(b[1] - a[1], b[0] - a[0])))
    crank, coupler, rocker = links
    mech.revolute("P1", mech.ground.point(0, 0), crank.point(-L1 / 2, 0))
    mech.revolute("P2", crank.point(L1 / 2, 0), coupler.point(-L2 / 2, 0))
    mech.revolute("P3", coupler.point(L2 / 2, 0), rocker.point(-L3 / 2, 0))
    mech.revolute("P4", rocker.point(L3 / 2, 0), mech.ground.point(ground, 0))
    mech.rotary_spring("S", mech.ground, crank, k=vn.Symbol("k"), angle=CRANK)
    return mech


STIFFNESSES = list(np.linspace(5.0, 50.0, 20))
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "models"


def model_file(document: dict):
    """A loaded model file of ``document``."""
    return vn.io.load_model(document)


@pytest.fixture
def counted(monkeypatch):
    """Counts of mechanism formulations and compilations while the test runs."""
    counts = {"formulate": 0, "compile": 0}
    formulate, compile_model = vn.planar.Mechanism.formulate, MechanismEquations.compile_model

    def counting_formulate(self, *args, **kwargs):
        counts["formulate"] += 1
        return formulate(self, *args, **kwargs)

    def counting_compile(self, *args, **kwargs):
        counts["compile"] += 1
        return compile_model(self, *args, **kwargs)

    monkeypatch.setattr(vn.planar.Mechanism, "formulate", counting_formulate)
    monkeypatch.setattr(MechanismEquations, "compile_model", counting_compile)
    return counts


def per_case_frequency(k: float) -> float:
    """The lowest natural frequency of the four-bar built, formulated and linearized for
    this stiffness alone."""
    eom = fourbar().formulate()
    lin = eom.linearize(eom.equilibrium(parameters={"k": k}), parameters={"k": k})
    return float(lin.natural_frequencies()[0])


def check_fourbar_frequencies(frame) -> None:
    assert list(frame["k"]) == STIFFNESSES and frame["error"].isna().all()
    for k, omega in zip(frame["k"], frame["omega0"]):
        assert omega == pytest.approx(per_case_frequency(k), rel=1e-9, abs=0)
    assert (frame["zeta0"].abs() < 1e-9).all()          # no damper: undamped modes


def test_fourbar_spring_sweep_is_formulated_and_compiled_once(counted):
    frame = vn.sweep(fourbar(), {"k": STIFFNESSES}, "eigenvalues")
    assert counted == {"formulate": 1, "compile": 1}
    check_fourbar_frequencies(frame)


def test_fourbar_spring_sweep_on_a_dask_cluster(counted):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        frame = vn.sweep(fourbar(), {"k": STIFFNESSES}, "eigenvalues", client=client,
                         batch_size=5)
    # formulated once, here; a worker that unpickles the study compiles it once
    assert counted["formulate"] == 1 and 1 <= counted["compile"] <= 3, counted
    check_fourbar_frequencies(frame)


def test_a_case_that_cannot_assemble_fails_alone():
    # the example four-bar file with its ground pins d apart: crank 1, coupler 1.88 and
    # rocker 1.43 reach 4.3 at most, so d = 5 cannot close the loop
    model = json.loads((EXAMPLES / "fourbar.json").read_text())
    model["parameters"]["d"] = 2.0
    model["ground"]["points"]["D"] = ["d", 0]
    frame = vn.sweep(model_file(model), {"d": [2.0, 5.0, 2.05], "T0": [0.0]}, "equilibrium",
                     outputs=["crank.angle", "P1.reaction.y", "P4.reaction.y"])
    assert list(frame["d"]) == [2.0, 5.0, 2.05]
    assert "cannot be assembled" in frame["error"][1]
    assert frame["error"][0] is None and frame["error"][2] is None
    # at rest the two ground pins carry the weight of the links, 4.5 kg; a reaction is
    # the force on the joint's head: the crank at P1, the ground at P4 (from the rocker)
    for k in (0, 2):
        assert frame["P1.reaction.y"][k] - frame["P4.reaction.y"][k] == pytest.approx(
            4.5 * G, rel=1e-9)


def test_negative_mass_is_refused_and_the_other_cases_finish():
    mech = vn.planar.Mechanism("p", gravity=(0, -G))
    bob = mech.body("bob", mass=vn.Symbol("m"), inertia=0.0, position=(0, -1))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
    mech.rotary_spring("k", mech.ground, bob, k=2.0)
    frame = vn.sweep(mech, {"m": [1.0, -1.0, 2.0]}, "eigenvalues")
    assert "mass" in frame["error"][1] and "bob" in frame["error"][1]
    for k in (0, 2):   # (m g l + k) / (m l^2), l = 1
        m = frame["m"][k]
        assert frame["error"][k] is None
        assert frame["omega0"][k] == pytest.approx(math.sqrt((m * G + 2.0) / m), rel=1e-9)


def test_an_unknown_method_or_a_step_without_one_is_refused_before_any_case():
    mech = vn.planar.Mechanism("p", gravity=(0, -G))
    bob = mech.body("bob", mass=vn.Symbol("m"), inertia=0.0, position=(0, -1))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
    with pytest.raises(vn.FormulationError, match="'partition', 'dae', 'rk4', 'euler', 'generalized-alpha'; got 'RK45'"):
        vn.sweep(mech, {"m": [1.0, 2.0]}, "simulate", t_end=1.0, method="RK45")
    with pytest.raises(vn.FormulationError, match="step= goes with the fixed-step methods"):
        vn.sweep(mech, {"m": [1.0, 2.0]}, "simulate", t_end=1.0, step=1e-3)


J_BOB = 1e-5       # the bob's moment of inertia about its centre, about every axis


def swing_frequency(m: float, length: float, g: float = G) -> float:
    """Small swings of a body of mass m and inertia J_BOB about its centre, hanging a
    distance l below a ball joint (a compound pendulum about either horizontal axis):
    omega^2 = m g l / (J_BOB + m l^2); sqrt(g / l) when J_BOB is nothing beside m l^2."""
    return math.sqrt(m * g * length / (J_BOB + m * length**2))


def test_spherical_pendulum_length_gives_sqrt_g_over_l(tmp_path):
    lengths = [0.25, 0.5, 1.0, 2.0]
    model = {"vecnet": "1", "kind": "mechanism", "name": "ball", "dimensions": 3,
             "parameters": {"l": 1.0, "m": 2.0},
             "gravity": [0, 0, -G],
             "ground": {"points": {"O": [0, 0, 0]}},
             "bodies": [{"name": "bob", "mass": "m", "inertia": [J_BOB] * 3,
                         "position": [0, 0, "-l"], "points": {"top": [0, 0, "l"]}}],
             "joints": [{"type": "spherical", "name": "S", "between": ["ground.O", "bob.top"]}]}
    path = tmp_path / "ball.json"
    path.write_text(json.dumps(model))
    frame = vn.sweep(str(path), {"l": lengths, "m": [1.0, 3.0]}, "eigenvalues")
    assert frame["error"].isna().all() and len(frame) == 8
    for length, m, omega0, omega1 in zip(frame["l"], frame["m"], frame["omega0"],
                                         frame["omega1"]):
        # small swings in two directions at the same frequency, close to sqrt(g / l)
        assert omega0 == pytest.approx(swing_frequency(m, length), rel=1e-7)
        assert omega1 == pytest.approx(swing_frequency(m, length), rel=1e-7)
        assert omega0 == pytest.approx(math.sqrt(G / length), rel=2e-4)


def test_spherical_pendulum_gravity_swept_as_a_symbol(counted):
    # the builder's geometry is numbers; gravity is a symbol of the equations
    mech = vn.spatial.Mechanism("ball", gravity=(0, 0, -vn.Symbol("g")))
    bob = mech.body("bob", mass=1.0, inertia=(J_BOB,) * 3, position=(0, 0, -0.5))
    mech.spherical("S", mech.ground.point(0, 0, 0), bob.point(0, 0, 0.5))
    gs = [1.62, 3.71, 9.81, 24.79]
    frame = vn.sweep(mech.formulate(), {"g": gs}, "eigenvalues")
    assert counted["compile"] == 1
    assert np.allclose(frame["omega0"], [swing_frequency(1.0, 0.5, g) for g in gs],
                       rtol=1e-7, atol=0)


# -- a PD-controlled DC motor turning a pendulum ----------------------------------------
R, L, K = 2.0, 0.05, 0.4                 # ohm, H, N m/A
M, LEVER, JC = 0.5, 0.3, 0.004           # kg, m (pivot to mass centre), kg m^2
KD, TF = 3.0, 0.01                       # V s/rad, s
JP = JC + M * LEVER**2


def motor_pendulum() -> vn.System:
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -G))
    bob = mech.body("bob", mass=M, inertia=JC, position=(0, -LEVER))
    mech.revolute("O", mech.ground.point(0, 0), bob.point(0, LEVER))
    net = vn.Network("motor")
    net.add(vn.VoltageSource("V", "g", "a", V=vn.Symbol("u")),
            vn.Resistor("R", "b", "a", R=R), vn.Inductor("L", "c", "b", L=L),
            vn.DCMotor("motor", "ref", "w", "g", "c", K=K),
            vn.RotaryPort("shaft", "ref", "w", joint="O"))
    theta = vn.System(mech, net).sensor("O.angle")
    pd = vn.PID("pd", -theta, kp=vn.Symbol("kp"), kd=KD, tf=TF)
    return vn.System(mech, net, blocks=[pd], connect={"V.across": pd.output})


def characteristic_roots(kp: float) -> np.ndarray:
    """Roots of the closed loop about the hanging pendulum, by hand. Deviation beta of the
    pendulum, current i, filtered error f:

        JP beta'' = K i - m g l beta,   L i' = -R i - K beta' + V,
        V = kp e + KD (e - f) / TF,  f' = (e - f) / TF,  e = -beta,

    so V = -(kp + KD s / (TF s + 1)) beta, and eliminating i:
        (JP s^2 + m g l)(L s + R)(TF s + 1) + K (kp (TF s + 1) + KD s) + K^2 s (TF s + 1) = 0.
    """
    plant = np.polymul(np.polymul([JP, 0.0, M * G * LEVER], [L, R]), [TF, 1.0])
    control = K * np.array([kp * TF + KD, kp])
    back_emf = K * K * np.array([TF, 1.0, 0.0])
    return np.roots(np.polyadd(plant, np.polyadd(control, back_emf)))


def test_pd_gain_sweep_of_a_coupled_system_matches_the_characteristic_polynomial():
    gains = [5.0, 20.0, 40.0, 80.0]
    frame = vn.sweep(motor_pendulum(), {"kp": gains}, "eigenvalues")
    assert frame["error"].isna().all()
    for k, kp in enumerate(gains):
        row = frame.iloc[k]
        # a PD (ki = 0) has no integral state: the four roots of the closed loop, no more
        found = np.array([row[f"eig{j}.real"] + 1j * row[f"eig{j}.imag"] for j in range(4)])
        assert "eig4.real" not in frame.columns
        expected = characteristic_roots(kp)
        assert len(expected) == 4
        for root in expected:
            assert np.min(np.abs(found - root)) < 1e-6 * max(1.0, abs(root))


def test_system_study_pickles_and_simulates():
    study = compile_study(motor_pendulum(), ["kp"], "simulate", t_end=0.5,
                                     outputs=["O.angle"])
    again = pickle.loads(pickle.dumps(study))
    first, second = study.run({"kp": 40.0}), again.run({"kp": 40.0})
    assert first["error"] is None and second["error"] is None
    assert first["O.angle.final"] == pytest.approx(second["O.angle.final"], abs=1e-12)
    assert abs(first["O.angle.final"]) < 1e-12     # hanging at rest, the reference 0


# -- the README's symbolic RLC --------------------------------------------------------
def readme_rlc() -> vn.Network:
    R, L, C = vn.Symbol("R"), vn.Symbol("L"), vn.Symbol("C")
    net = vn.Network("rlc")
    net.add(vn.VoltageSource("Vs", "g", "a", V=vn.Symbol("V")),
            vn.Resistor("R1", "a", "b", R=R), vn.Inductor("L1", "b", "c", L=L),
            vn.Capacitor("C1", "g", "c", C=C))
    return net


def series_rlc_step(t: np.ndarray, R: float, L: float, C: float) -> np.ndarray:
    """The capacitor voltage of a series RLC after a unit step, from rest (textbook):
    s^2 + (R/L) s + 1/(LC) = 0 with roots s1, s2,
    v = 1 + (s2 e^{s1 t} - s1 e^{s2 t}) / (s1 - s2); critically damped: 1 - (1 + a t) e^{-a t}."""
    a, w0 = R / (2 * L), 1 / math.sqrt(L * C)
    if abs(a - w0) < 1e-12:
        return 1 - (1 + a * t) * np.exp(-a * t)
    root = np.sqrt(complex(a * a - w0 * w0))
    s1, s2 = -a + root, -a - root
    return np.real(1 + (s2 * np.exp(s1 * t) - s1 * np.exp(s2 * t)) / (s1 - s2))


def test_readme_rlc_swept_over_r_gives_the_textbook_step_response():
    L, C = 0.5, 0.02                      # w0 = 10 rad/s; critical at R = 2 sqrt(L/C) = 10
    resistances = [1.0, 4.0, 10.0, 25.0]
    grid = np.linspace(0.0, 2.0, 2001)
    frame, traces = vn.sweep(readme_rlc(), {"R": resistances}, "simulate", t_end=2.0,
                             t_eval=grid, outputs=["C1.across"], traces=True,
                             parameters={"L": L, "C": C, "V": 1.0}, rtol=1e-10, atol=1e-12)
    assert frame["error"].isna().all()
    for k, R in enumerate(resistances):
        v = traces["C1.across"].sel(case=k).values
        assert np.max(np.abs(v - series_rlc_step(grid, R, L, C))) < 1e-7
        a, w0 = R / (2 * L), 1 / math.sqrt(L * C)
        if a < w0:   # overshoot of an underdamped step: 1 + exp(-a pi / wd)
            wd = math.sqrt(w0 * w0 - a * a)
            # sampled every 1 ms: within |v''| (dt/2)^2 / 2 < 1e-5 of the true peak
            assert frame["C1.across.peak"][k] == pytest.approx(1 + math.exp(-a * math.pi / wd),
                                                               abs=1e-5)
        else:
            assert frame["C1.across.peak"][k] <= 1.0 + 1e-9


def test_network_parameters_by_element_name_and_unknown_ones():
    frame = vn.sweep(readme_rlc(), {"R1.R": [2.0]}, "eigenvalues",
                     parameters={"L": 1.0, "C": 1.0})
    # s^2 + 2 s + 1: a double root at -1
    assert np.allclose(frame[["eig0.real", "eig1.real"]].to_numpy(), -1.0, atol=1e-6)
    with pytest.raises(vn.ModelError, match="C"):
        vn.sweep(readme_rlc(), {"R": [1.0]}, "eigenvalues", parameters={"L": 1.0})
    with pytest.raises(vn.UnknownNameError, match="nope"):
        vn.sweep(fourbar(), {"nope": [1.0]}, "eigenvalues", parameters={"k": 1.0})


def test_command_line_sweep_of_a_mechanism_file(tmp_path):
    from vecnet.cli import main

    # the example pendulum: (J + m l^2) beta'' + c beta' + (k + m g l) beta = 0 about hanging
    document = json.loads((EXAMPLES / "pendulum.json").read_text())
    values = document["parameters"]
    out = tmp_path / "modes.csv"
    assert main(["sweep", str(EXAMPLES / "pendulum.json"), "--param", "k=1:5:3",
                 "--analysis", "eigenvalues", "--output", str(out)]) == 0
    frame = pandas.read_csv(out)
    assert list(frame["k"]) == [1.0, 3.0, 5.0] and frame["error"].isna().all()
    inertia = values["J"] + values["m"] * values["l"] ** 2
    for k, omega, zeta in zip(frame["k"], frame["omega0"], frame["zeta0"]):
        stiffness = k + values["m"] * values["g"] * values["l"]
        assert omega == pytest.approx(math.sqrt(stiffness / inertia), rel=1e-7)
        assert zeta == pytest.approx(values["c"] / (2 * math.sqrt(stiffness * inertia)), rel=1e-6)
    out = tmp_path / "rest.csv"
    assert main(["sweep", str(EXAMPLES / "pendulum.json"), "--param", "m=1,2",
                 "--analysis", "equilibrium", "--outputs", "bob.y,pin.reaction.y",
                 "--output", str(out)]) == 0
    frame = pandas.read_csv(out)
    assert np.allclose(frame["bob.y"], -values["l"], atol=1e-9)
    assert np.allclose(frame["pin.reaction.y"], frame["m"] * values["g"], rtol=1e-9)
    assert main(["sweep", str(EXAMPLES / "pendulum.json"), "--param", "m=1",
                 "--analysis", "frequency_response"]) == 2


def test_a_system_file_is_swept_over_a_parameter_declared_without_a_value():
    from test_io import pd_pendulum

    doc = vn.model_to_dict(pd_pendulum())
    doc["parameters"] = {"kp": None}
    doc["connect"]["T.through"] = "kp*(0.5 - O.angle) - 0.1*O.rate"
    doc["outputs"] = ["O.angle"]
    table = vn.sweep(vn.load_model(doc), {"kp": [10.0, 20.0]}, analysis="simulate", t_end=0.5)
    for kp, final in zip(table["kp"], table["O.angle.final"]):
        # the same file with the gain declared, read and simulated on its own
        alone = vn.load_model({**doc, "parameters": {"kp": float(kp)}})
        expected = vn.simulate(alone.system, (0.0, 0.5), t_eval=[0.5])["O.angle"][-1]
        assert final == pytest.approx(expected, rel=1e-6, abs=1e-9)
    assert table["O.angle.final"][1] > table["O.angle.final"][0]   # a stiffer loop lifts more
    doc["parameters"] = {"kp": 5.0}
    with pytest.raises(vn.ModelError, match="declare a swept parameter without a value"):
        vn.sweep(vn.load_model(doc), {"kp": [10.0]}, analysis="simulate", t_end=0.5)


# -- element parameters by name, as a network's "R1.R" ---------------------------------
def mass_on_a_spring(k: float = 50.0, m: float = 2.0) -> vn.planar.Mechanism:
    """A body on a horizontal slide, tied to the ground by a spring k of free length 0.5:
    m x'' + k x = 0 about the free length, omega = sqrt(k / m)."""
    mech = vn.planar.Mechanism("mass-spring", gravity=(0, 0))
    bob = mech.body("bob", mass=m, inertia=0.1, position=(1.0, 0.0))
    mech.prismatic("slide", mech.ground.centre, bob.centre, axis=(1, 0))
    mech.spring("spring", mech.ground.centre, bob.centre, k=k, length=0.5)
    return mech


def test_a_bodys_mass_is_swept_by_its_element_name(counted):
    mech = mass_on_a_spring(k=50.0)
    masses = [0.5, 2.0, 8.0]
    frame = vn.sweep(mech, {"bob.mass": masses}, "eigenvalues")
    assert counted["compile"] == 1
    assert frame["error"].isna().all()
    np.testing.assert_allclose(frame["omega0"], [math.sqrt(50.0 / m) for m in masses],
                               rtol=1e-9)
    # the mechanism swept is left as it was built
    assert float(mech.network.element("bob").m) == 2.0


def test_a_springs_stiffness_and_the_fixed_mass_are_given_by_element_name():
    mech = mass_on_a_spring()
    stiffnesses = [8.0, 32.0, 200.0]
    frame = vn.sweep(mech.formulate(), {"spring.k": stiffnesses}, "eigenvalues",
                     parameters={"bob.mass": 0.5})
    assert frame["error"].isna().all()
    np.testing.assert_allclose(frame["omega0"], [math.sqrt(k / 0.5) for k in stiffnesses],
                               rtol=1e-9)


def test_a_pendulums_mass_matters_against_its_hinge_spring():
    # a point mass m at l = 1 below a pin with a hinge spring k: (m g l + k) / (m l^2)
    mech = vn.planar.Mechanism("p", gravity=(0, -G))
    bob = mech.body("bob", mass=1.0, inertia=0.0, position=(0, -1))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
    mech.rotary_spring("hinge", mech.ground, bob, k=2.0)
    frame = vn.sweep(mech, {"bob.mass": [0.5, 1.0, 4.0], "hinge.k": [2.0, 6.0]}, "eigenvalues")
    assert frame["error"].isna().all() and len(frame) == 6
    for m, k, omega in zip(frame["bob.mass"], frame["hinge.k"], frame["omega0"]):
        assert omega == pytest.approx(math.sqrt((m * G + k) / m), rel=1e-9)


def test_an_inertia_entry_of_a_spatial_body_is_swept_by_name():
    # a body turning about the z axis against a torsion spring k: omega = sqrt(k / J_zz)
    mech = vn.spatial.Mechanism("rotor", gravity=(0, 0, 0))
    rotor = mech.body("rotor", 1.0, (0.2, 0.2, 0.3))
    mech.revolute("J", mech.ground.centre, rotor.centre, axis=(0, 0, 1))
    mech.rotary_spring("spring", "J", k=1.2)
    frame = vn.sweep(mech, {"rotor.inertia.zz": [0.3, 0.4]}, "eigenvalues")
    assert frame["error"].isna().all()
    np.testing.assert_allclose(frame["omega0"], [2.0, math.sqrt(3.0)], rtol=1e-9)


def test_a_wrong_element_parameter_is_refused_with_those_there_are():
    mech = mass_on_a_spring()
    with pytest.raises(vn.UnknownNameError) as info:
        vn.sweep(mech, {"bob.mas": [1.0]}, "eigenvalues")
    for name in ("'bob.mas'", "bob.mass", "bob.inertia", "spring.k", "spring.length",
                 "spring.c"):
        assert name in str(info.value)
    with pytest.raises(vn.UnknownNameError, match="no element parameter"):
        mech.with_symbols(["slide.k"])


def test_studies_keep_a_files_body_axis_speeds():
    # the top's file takes its angular speeds in body axes (Euler's equations); a study
    # that formulates anew, for an element's mass or for a case's geometry, keeps them
    model = vn.load_model(Path(__file__).parent.parent / "examples" / "models" / "top.json")
    assert model.formulate().speed_names == ("tip.w1", "tip.w2", "tip.w3")
    by_element = compile_study(model, ["top.mass"], "simulate", t_end=0.05)
    assert by_element.eom.speed_names == ("tip.w1", "tip.w2", "tip.w3")
    by_geometry = compile_study(model, ["s"], "simulate", t_end=0.05)
    assert by_geometry._equations({"s": 0.25}).speed_names == ("tip.w1", "tip.w2", "tip.w3")
    values = {str(k): v for k, v in model.element_values.items() if str(k) != "m"}
    again = compile_study(model.formulate(), ["top.mass"], "simulate", t_end=0.05,
                          parameters=values)
    assert again.eom.speed_names == ("tip.w1", "tip.w2", "tip.w3")
