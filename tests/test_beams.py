"""Beams (flexible bodies) against closed forms and the published benchmarks of Meijaard,
"Validation of flexible beam elements in dynamics programs", Nonlinear Dynamics 9 (1996):
the cantilever's natural frequencies (Euler-Bernoulli, beta_n L = 1.8751, 4.6941,
7.8548), its tip deflection under a small load (P L^3 / 3 E I), the flexible
slider-crank of Chu and Pan, the spin-up of Kane, Ryan and Banerjee, the lateral
buckling of a cantilever (Timoshenko and Gere) and the energy of an undamped free
vibration."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

import vecnet as vn
from vecnet.errors import FormulationError, ModelError

STEEL = vn.Material(E=2.0e11, density=7800.0, nu=0.3)
ROD = vn.Section.circle(0.02)


def cantilever(elements: int, tip_force: float | None = None):
    """A 1 m steel rod clamped to the ground at its start, no gravity."""
    mech = vn.planar.Mechanism("cantilever", gravity=(0, 0))
    rod = mech.beam("rod", (0, 0), (1, 0), STEEL, ROD, elements=elements)
    mech.weld("clamp", mech.ground.point(0, 0), rod.start)
    if tip_force is not None:
        mech.force("P", rod.end, (0, -tip_force))
    return mech


def test_cantilever_natural_frequencies_are_euler_bernoulli_s():
    eom = cantilever(8).formulate()
    omega = eom.linearize(eom.equilibrium()).natural_frequencies()[:3]
    beta_l = np.array([1.8751040687, 4.6940911330, 7.8547574382])
    exact = beta_l ** 2 * np.sqrt(STEEL.E * ROD.Iz / (STEEL.density * ROD.A))
    assert np.all(np.abs(omega / exact - 1) < 1e-3), (omega, exact)


def test_small_tip_load_bends_the_cantilever_by_p_l3_over_3_e_i():
    P = 1.0   # a deflection of 2e-4 of the length: the small-load limit
    op = cantilever(2, P).formulate().equilibrium()
    expected = P / (3 * STEEL.E * ROD.Iz)
    assert op["rod_2.y"] == pytest.approx(-expected, rel=1e-6)
    # the slope at the tip, P L^2 / 2 E I
    assert op["rod_2.angle"] == pytest.approx(-1.5 * expected, rel=1e-6)


def test_pin_reaction_of_a_falling_beam_is_its_momentum_s_rate_less_its_weight():
    """A beam pinned at one end falls from level and flails: the pin's reaction plus the
    weight is the rate of the linear momentum of the elements' Hermite axes (Newton's
    second law for the whole flexible body), differentiated here from the nodes' motion."""
    aluminium, h, end = vn.Material(E=7e10, density=2700.0, nu=0.33), 5e-5, 0.03
    mech = vn.planar.Mechanism("flail", gravity=(0, -9.81))
    rod = mech.beam("rod", (0, 0), (1, 0), aluminium, vn.Section.circle(0.02), elements=2)
    mech.revolute("pin", mech.ground.point(0, 0), rod.start)
    res = mech.formulate().simulate(end, step=h, t_eval=np.linspace(0, end, round(end / h) + 1))
    m_e, l_e = aluminium.density * vn.Section.circle(0.02).A * 0.5, 0.5

    def motion(node):   # velocity and the rate of l_e times the unit tangent
        angle, omega = res[f"{node}.angle"], res[f"{node}.omega"]
        return (np.stack([res[f"{node}.vx"], res[f"{node}.vy"]]),
                l_e * omega * np.stack([-np.sin(angle), np.cos(angle)]))

    P = 0.0
    for a, b in (("rod_0", "rod_1"), ("rod_1", "rod_2")):
        (va, ta), (vb, tb) = motion(a), motion(b)
        P = P + m_e * (va / 2 + ta / 12 + vb / 2 - tb / 12)
    rate = np.gradient(P, res.t, axis=1)
    weight = 2 * m_e * 9.81
    reaction = np.stack([res["pin.reaction.x"], res["pin.reaction.y"]])
    inner = slice(20, -20)   # central differences inside the span
    assert np.ptp(reaction[1, inner]) > 0.2 * weight   # it flails: not the weight alone
    assert np.abs(reaction - rate - [[0], [weight]])[:, inner].max() < 1e-3 * weight


def test_a_motor_driving_a_flexible_arm_keeps_the_energy_it_is_given():
    """A DC motor network (vn.System) spins up a hub with a beam welded to it: the
    electrical work in is what the resistor dissipates plus what the inductor, the
    motion and the arm's bending store (generalized-alpha without damping)."""
    from scipy.integrate import cumulative_trapezoid
    R, L = 2.0, 0.05
    mech = vn.planar.Mechanism("arm", gravity=(0, 0))
    hub = mech.body("hub", mass=1.0, inertia=0.01)
    arm = mech.beam("arm", (0, 0), (0.5, 0), vn.Material(E=7e10, density=2700.0, nu=0.33),
                    vn.Section.circle(0.01), elements=2)
    mech.revolute("O", mech.ground.centre, hub.centre)
    mech.weld("root", hub.centre, arm.start)
    net = vn.Network("motor")
    net.add(vn.VoltageSource("V", "g", "a", V=12.0), vn.Resistor("Ra", "a", "b", R=R),
            vn.Inductor("La", "b", "c", L=L), vn.DCMotor("M", "ref", "w", "g", "c", K=0.4),
            vn.RotaryPort("shaft", "ref", "w", joint="O"))
    res = vn.System(mech, net).simulate(0.1, t_eval=np.linspace(0, 0.1, 1001), step=1e-4,
                                        spectral_radius=1.0)
    assert res.solver == "generalized-alpha"
    i = res["La.through"]
    supplied = cumulative_trapezoid(-res["V.across"] * i, res.t, initial=0)
    dissipated = cumulative_trapezoid(R * i ** 2, res.t, initial=0)
    stored = L * i ** 2 / 2 + res["energy"] - res["energy"][0]
    assert np.abs(supplied - dissipated - stored).max() < 1e-5 * supplied[-1]
    # the tip lags the hub's line: the arm bends as it is spun up
    angle = res["O.angle"]
    lag = res["arm_2.x"] * np.sin(angle) - res["arm_2.y"] * np.cos(angle)
    assert lag.max() > 1e-4


def test_a_study_sweeps_a_beam_s_modulus_and_diameter():
    """The beam's ``rod.E`` and ``rod.diameter`` as the parameters of a study: the first
    frequency is Euler-Bernoulli's 1.8751^2 sqrt(E I / rho A) / L^2 at every case."""
    frame = vn.sweep(cantilever(4), {"rod.E": [1e11, 2e11, 7e10], "rod.diameter": [0.01, 0.02]},
                     "eigenvalues")
    exact = 1.8751 ** 2 * np.sqrt(frame["rod.E"] * frame["rod.diameter"] ** 2 / 16
                                  / STEEL.density)
    assert len(frame) == 6
    assert np.allclose(frame["omega0"], exact, rtol=1e-4)


def test_a_beam_s_material_and_section_may_be_expressions_in_parameters(tmp_path):
    E, d = sp.symbols("E d")
    mech = vn.planar.Mechanism("cantilever", gravity=(0, 0))
    rod = mech.beam("rod", (0, 0), (1, 0), vn.Material(E=E, density=7800.0, nu=0.3),
                    vn.Section.circle(d), elements=2)
    mech.weld("clamp", mech.ground.point(0, 0), rod.start)
    mech.force("P", rod.end, (0, -1.0))
    op = mech.formulate().equilibrium(parameters={E: STEEL.E, d: 0.02})
    assert op["rod_2.y"] == pytest.approx(-1 / (3 * STEEL.E * ROD.Iz), rel=1e-6)
    with pytest.raises(ModelError, match="E A = -0.785"):
        mech.formulate().equilibrium(parameters={E: -1e4, d: 0.01})
    # a rectangle of sides to study: Saint-Venant's series for sides 10:1, J = 0.3123 a b^3
    w = sp.Symbol("w")
    J = float(vn.Section.rectangle(width=w, height=0.005).J.subs(w, 0.05))
    assert J == pytest.approx(0.3123 * 0.05 * 0.005 ** 3, rel=5e-3)
    with pytest.raises(ModelError, match="holds the parameter"):   # a file holds numbers
        vn.save_model(mech, tmp_path / "rod.json")
    assert not (tmp_path / "rod.json").exists()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_end_loads_are_the_slopes_of_the_stored_energy(seed):
    """A spatial element bent, twisted and stretched at random: its end loads against
    central differences of its energy (a move of the second end, turns of each frame)."""
    from scipy.spatial.transform import Rotation

    from vecnet.elements.spatial import SpatialBeamElement
    from vecnet.numerics.beams import BeamSet
    rng = np.random.default_rng(seed)
    element = SpatialBeamElement("e", "a", "b", 0.5, STEEL,
                                 vn.Section.rectangle(width=0.02, height=0.01), "rod")
    beams = BeamSet([element], {"a": 0, "b": 1})
    r = np.array([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0]]) + 0.02 * rng.standard_normal((2, 3))
    R = Rotation.from_rotvec(0.2 * rng.standard_normal((2, 3))).as_matrix()
    g_d, g_1, g_2 = (g[0] for g in beams.loads(r, R))
    h, scale = 1e-6, np.abs(np.concatenate([g_d, g_1, g_2])).max()
    for k in np.eye(3):
        moved = r + np.outer([0, 1], k) * h, r - np.outer([0, 1], k) * h
        slope = (beams.energy(moved[0], R) - beams.energy(moved[1], R)) / (2 * h)
        assert slope == pytest.approx(g_d @ k, abs=1e-6 * scale)
        for end, g in ((0, g_1), (1, g_2)):
            turned = [R.copy(), R.copy()]
            for sign, Rs in zip((1, -1), turned):
                Rs[end] = Rotation.from_rotvec(sign * h * k).as_matrix() @ R[end]
            slope = (beams.energy(r, turned[0]) - beams.energy(r, turned[1])) / (2 * h)
            assert slope == pytest.approx(g @ k, abs=1e-6 * scale)


def lateral_buckling_load(elements: int) -> float:
    """The tip force at which a clamped-free beam loaded in its stiff plane first loses
    stability: where the lowest eigenvalue of ``K v = lambda M v`` about the loaded
    equilibrium crosses zero, over Timoshenko and Gere's 4.013 sqrt(E Iy G J) / L^2."""
    from scipy.linalg import eigvals
    from scipy.optimize import brentq
    narrow = vn.Section.rectangle(width=0.05, height=0.005)
    # the closed form holds for a beam that does not bend in its stiff plane before it
    # buckles, as Meijaard's element was checked: a stiff plane 10^4 times the weak one
    section = vn.Section(A=narrow.A, Iy=narrow.Iy, Iz=1e4 * narrow.Iy, J=narrow.J, size=0.05)
    F = sp.Symbol("F")
    mech = vn.spatial.Mechanism("lateral", gravity=(0, 0, 0))
    rod = mech.beam("rod", (0, 0, 0), (1, 0, 0), STEEL, section, elements=elements)
    mech.weld("clamp", mech.ground.point(0, 0, 0), rod.start)
    mech.force("F", rod.end, (0, -F, 0))
    eom = mech.formulate()
    theory = 4.013 * np.sqrt(STEEL.E * section.Iy * STEEL.G * section.J)

    def lowest(ratio: float) -> float:
        loads = {F: ratio * theory}
        linear = eom.linearize(eom.equilibrium(parameters=loads), parameters=loads)
        return float(np.min(eigvals(linear.K, linear.M).real))

    return brentq(lowest, 0.9, 1.6, xtol=1e-6)


def test_lateral_buckling_converges_to_timoshenko_s_load_at_second_order():
    ratios = np.array([lateral_buckling_load(n) for n in (1, 2, 4, 8)])
    # Meijaard's element with its second-order terms, 1, 2 and 4 elements
    assert ratios[:3] == pytest.approx([1.4951, 1.0690, 1.0153], abs=5e-4)
    errors = ratios - 1
    assert np.all(errors > 0) and np.all(np.diff(errors) < 0)
    order = np.log2(errors[2] / errors[3])
    assert 1.8 < order < 2.2, order
    assert errors[3] < 5e-3


R_CRANK, L_ROD, W_CRANK = 0.1524, 0.3048, 124.8


def slider_crank(elements: int):
    """Chu and Pan's slider-crank: a rigid crank turned at 124.8 rad/s, a steel rod."""
    mech = vn.planar.Mechanism("slider_crank", gravity=(0, 0))
    ground = mech.ground
    # bodies, beams, joints, drives: the order of a model file's sections, so that the
    # model saved and loaded has its coordinates in the same order
    crank = mech.body("crank", 0.1, 1e-4, position=(R_CRANK / 2, 0))
    rod = mech.beam("rod", (R_CRANK, 0), (R_CRANK + L_ROD, 0),
                    vn.Material(E=2.06843e11, density=7834.56, nu=0.3),
                    vn.Section.circle(0.00635), elements=elements)
    mech.revolute("O", ground.point(0, 0), crank.point(-R_CRANK / 2, 0))
    mech.drive("turn", "O", W_CRANK * vn.t)
    mech.revolute("A", crank.point(R_CRANK / 2, 0), rod.start)
    mech.slot("B", ground.point(R_CRANK + L_ROD, 0), rod.end, axis=(1, 0))
    return mech


def rigid_start(elements: int) -> dict[str, float]:
    """The speeds of the rod moving as a rigid body at the start: no deformation rate."""
    tip = R_CRANK * W_CRANK
    turn = -tip / L_ROD
    speeds = {"A.angle": turn - W_CRANK, "B.angle": turn, "B.distance": 0.0}
    for i in range(1, elements):
        speeds |= {f"rod_{i}.x": 0.0, f"rod_{i}.y": tip * (1 - i / elements),
                   f"rod_{i}.angle": turn}
    return speeds


def first_maximum(values: np.ndarray) -> float:
    """The first local maximum of a sampled series, refined by a parabola."""
    k = next(i for i in range(1, len(values) - 1)
             if values[i - 1] < values[i] >= values[i + 1] and values[i] > 0)
    a, b, c = values[k - 1:k + 2]
    return float(b + (a - c) ** 2 / (8 * (2 * b - a - c)))


@pytest.mark.parametrize("elements, low, high", [(4, 0.00976 * 0.99, 0.00976 * 1.01),
                                                 (2, 0.0094, 0.0105)])
def test_flexible_slider_crank_bends_as_published(elements, low, high):
    end = 8 / W_CRANK   # 8 rad of the crank
    res = slider_crank(elements).formulate().simulate(
        end, t_eval=np.linspace(0, end, 801), velocities=rigid_start(elements),
        step=1e-4, rtol=1e-6, atol=1e-8)
    assert res.solver == "generalized-alpha"   # the stiff default for beams
    # the mid node's distance from the chord through the rod's ends, over the length
    angle = res["O.angle"]
    a = np.array([R_CRANK * np.cos(angle), R_CRANK * np.sin(angle)])
    b = np.array([R_CRANK + L_ROD + res["B.distance"], 0 * angle])
    mid = np.array([res[f"rod_{elements // 2}.x"], res[f"rod_{elements // 2}.y"]])
    chord = (b - a) / np.hypot(*(b - a))
    deflection = (chord[0] * (mid - a)[1] - chord[1] * (mid - a)[0]) / L_ROD
    assert low < first_maximum(deflection) < high


def test_spin_up_tip_deflection_is_published():
    ws, Ts, L = 4.0, 15.0, 8.0
    mech = vn.planar.Mechanism("spin_up", gravity=(0, 0))
    hub = mech.body("hub", 1.0, 1.0)
    mech.revolute("shaft", mech.ground.point(0, 0), hub.centre)
    t = vn.t
    mech.drive("spin", "shaft", sp.Piecewise(
        (ws / Ts * (t ** 2 / 2 + (Ts / (2 * sp.pi)) ** 2 * (sp.cos(2 * sp.pi * t / Ts) - 1)),
         t <= Ts), (ws * (t - Ts / 2), True)))
    beam = mech.beam("beam", (0, 0), (L, 0), vn.Material(E=6.895e10, density=2766.67, nu=0.3),
                     vn.Section.rectangle(width=0.03676, height=0.001986), elements=4)
    mech.weld("clamp", hub.centre, beam.start)
    # the extreme comes near t = 6.8 s, within the first 8 s of the published 20 s
    res = mech.formulate().simulate(8.0, t_eval=np.linspace(0, 8, 801), rtol=1e-6, atol=1e-8)
    angle = res["shaft.angle"]
    lateral = -np.sin(angle) * res["beam_4.x"] + np.cos(angle) * res["beam_4.y"]
    assert lateral.min() == pytest.approx(-0.5360, rel=0.01)


def test_undamped_free_vibration_keeps_its_energy():
    """Without numerical damping (spectral radius 1) the generalized-alpha method is the
    trapezoidal rule, which keeps a linear system's energy; this vibration is linear to
    its amplitude of 1e-4 of the length."""
    eom = cantilever(2).formulate()
    period = 2 * np.pi / 89.02
    end = 50 * period
    res = eom.simulate(end, t_eval=np.linspace(0, end, 501), velocities={"rod_2.y": 0.01,
                                                                      "rod_1.y": 0.003},
                       step=period / 50, spectral_radius=1.0, rtol=1e-10, atol=1e-12)
    energy = res["energy"]
    drift = np.max(np.abs(energy - energy[0])) / energy[0]
    print(f"energy drift over 50 periods: {drift:.2e}")
    assert drift < 1e-6   # the geometric non-linearity at this amplitude: (1e-4)^2 of it
    # with the default damping the fast modes lose energy, never gain it
    damped = eom.simulate(end, t_eval=[0, end], velocities={"rod_2.y": 0.01}, step=period / 50)
    assert damped["energy"][-1] < damped["energy"][0]


def tumbler():
    """A free beam in space thrown tumbling, twisting and bending in both planes."""
    mech = vn.spatial.Mechanism("tumbler", gravity=(0, 0, 0))
    mech.beam("rod", (0, 0, 0), (1, 0, 0), STEEL, vn.Section.rectangle(width=0.03, height=0.02),
              elements=2)
    return mech, {"rod_0.velocity": (0, 0.5, -0.3), "rod_2.velocity": (0, -0.5, 0.4),
                  "rod_1.omega": (3.0, 0, 0), "rod_2.omega": (0, 0.2, -1.0)}


def flail():
    """Two aluminium beams pinned to each other and to the ground, falling from level."""
    aluminium = vn.Material(E=7e10, density=2700.0, nu=0.33)
    mech = vn.planar.Mechanism("flail", gravity=(0, -9.81))
    upper = mech.beam("upper", (0, 0), (0.5, 0), aluminium, vn.Section.circle(0.02), elements=2)
    lower = mech.beam("lower", (0.5, 0), (1.0, 0), aluminium, vn.Section.circle(0.02),
                      elements=2)
    mech.revolute("shoulder", mech.ground.point(0, 0), upper.start)
    mech.revolute("elbow", upper.end, lower.start)
    return mech, None


@pytest.mark.parametrize("build, span", [(tumbler, 0.02), (flail, 0.1)],
                         ids=["tumbling in space", "two beams jointed"])
def test_large_motions_keep_their_energy_to_second_order_in_the_step(build, span):
    """Far from linear, the undamped method keeps the energy only to its order: the
    error falls four times as the step halves (forces that did not derive from the
    stored energy, or a joint's reaction that worked, would leave a drift no step
    removes)."""
    mech, velocities = build()
    eom = mech.formulate()
    errors = []
    for step in (2e-4, 1e-4):
        res = eom.simulate(span, t_eval=np.linspace(0, span, 11), velocities=velocities,
                           step=step, spectral_radius=1.0)
        energy = res["energy"]
        errors.append(np.abs(energy - energy[0]).max() / res["kinetic"].max())
    assert 3.0 < errors[0] / errors[1] < 6.0, errors
    assert errors[1] < 1e-6
    moving = [name for name in res.names if name.endswith(("_2.y", "_2.z"))]
    assert min(np.ptp(res[name]) for name in moving) > 1e-3


def test_generalized_alpha_is_of_second_order():
    """Halving the step quarters the error of a pendulum's swing (the method's order)."""
    mech = vn.planar.Mechanism("pendulum")
    bob = mech.body("bob", 1.0, 0.01, position=(1, 0))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    eom = mech.formulate()
    exact = eom.simulate(1.0, t_eval=[1.0], rtol=1e-12, atol=1e-12)["pin.angle"][-1]
    errors = [abs(eom.simulate(1.0, t_eval=[1.0], method="generalized-alpha", step=h,
                               rtol=1e-12, atol=1e-12)["pin.angle"][-1] - exact)
              for h in (0.02, 0.01)]
    assert 3.5 < errors[0] / errors[1] < 4.5


def test_non_physical_beams_are_refused_in_words():
    with pytest.raises(ModelError, match="E = -1"):
        vn.Material(E=-1.0, density=7800, nu=0.3)
    with pytest.raises(ModelError):
        vn.Material(E=2e11, density=7800, nu=0.6)
    with pytest.raises(ModelError, match="diameter"):
        vn.Section.circle(0.0)
    mech = vn.planar.Mechanism("stub")
    with pytest.raises(ModelError, match="section"):
        mech.beam("stub", (0, 0), (0.1, 0), STEEL, vn.Section.circle(0.05), elements=4)
    with pytest.raises(ModelError, match="elements"):
        mech.beam("rod", (0, 0), (1, 0), STEEL, ROD, elements=0)
    eom = cantilever(1).formulate()
    # the symbolic equations would leave the beam's inertia and stiffness out
    with pytest.raises(FormulationError, match="cannot be written in symbols"):
        eom.M
    # the equations in words name the beams and give the element's terminal equations
    words = vn.text(eom)
    assert "the beams 'rod' add their inertia" in words and "N = EA/l0 eps" in words
    with pytest.raises(FormulationError, match="spectral_radius"):
        eom.simulate(0.01, method="partition", spectral_radius=0.5)
    with pytest.raises(FormulationError, match="spectral_radius"):
        eom.simulate(0.01, spectral_radius=1.5)


def test_picture_draws_the_bent_axis_of_a_loaded_cantilever():
    """One element carries the exact cubic of a tip load, w = P x^2 (3 L - x) / (6 E I),
    and the picture draws the axis along it."""
    import matplotlib

    matplotlib.use("Agg")
    P = 50.0   # a deflection of 1 % of the length: linear to 1e-4
    mech = cantilever(1, P)
    eom = mech.formulate()
    op = eom.equilibrium()
    res = eom.simulate(1e-9, t_eval=[0.0, 1e-9], initial={c: op[c] for c in ("rod_1.x", "rod_1.y", "rod_1.angle")},
                       method="partition")
    ax = vn.picture(mech, res, time=0.0)
    (line,) = [a for a in ax.lines if a.get_gid() == "beam:rod_e1"]
    x, y = line.get_data()
    EI = STEEL.E * ROD.Iz
    # the points are taken along the element's own length, as the inertia interpolates
    assert np.allclose(y, -P * x ** 2 * (3 - x) / (6 * EI), rtol=1e-3, atol=1e-9)
    # and the SVG animation draws the same axis, in pixels (y down, rounded to 0.1)
    import re
    svg = vn.animation_svg(mech, res, frames=2)
    (points,) = re.findall(r'<polyline points="([^"]+)"[^>]*><title>rod_e1 \(beam element\)',
                           svg)
    px = np.array([[float(v) for v in p.split(",")] for p in points.split()])
    scale = np.ptp(px[:, 0]) / np.ptp(x)
    assert np.allclose((px[0, 1] - px[:, 1]) / scale, y, atol=0.1 / scale)


@pytest.mark.parametrize("build", [lambda: slider_crank(2), lambda: cantilever(2, 1.0)],
                         ids=["slider-crank", "cantilever"])
def test_a_beam_model_saved_and_loaded_has_the_same_equations(build):
    from roundtrip import check_round_trip, saved_and_loaded

    mech = build()
    check_round_trip(mech)
    loaded = saved_and_loaded(mech)
    assert list(loaded.beams) == ["rod"]
    assert loaded.beams["rod"].material == mech.beams["rod"].material


def test_a_model_file_keeps_the_step_of_its_run(tmp_path):
    model = vn.Model("mechanism", cantilever(2, 1.0), t_span=(0.0, 0.01), step=1e-3)
    vn.save_model(model, tmp_path / "rod.json")
    loaded = vn.load_model(tmp_path / "rod.json")
    assert loaded.step == 1e-3
    res = loaded.simulate(points=3)
    assert res.solver == "generalized-alpha" and "at most 0.001 s" in res.message
    network = vn.Network("rc")
    network.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
                vn.Capacitor("C", "b", "g", C=1.0))
    vn.save_model(vn.Model("network", network, t_span=(0.0, 1.0)), tmp_path / "rc.json")
    document = json.loads((tmp_path / "rc.json").read_text())
    document["simulation"]["step"] = 0.1
    (tmp_path / "rc.json").write_text(json.dumps(document))
    with pytest.raises(ModelError, match="a network's integrators choose their own"):
        vn.load_model(tmp_path / "rc.json")
