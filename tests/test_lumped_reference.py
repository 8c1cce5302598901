"""Lumped networks against textbook results (Rowell & Wormley style)."""

import numpy as np
import pytest
import sympy

import vecnet as vn

s = sympy.Symbol("s")


def series_rlc(R, L, C, V=1.0):
    net = vn.Network("rlc")
    net.add(vn.VoltageSource("Vs", "g", "a", V=V), vn.Resistor("R", "a", "b", R=R),
            vn.Inductor("L", "b", "c", L=L), vn.Capacitor("C", "g", "c", C=C))
    return net


def test_series_rlc_transfer_function_and_step_response():
    R, L, C = vn.Symbol("R"), vn.Symbol("L"), vn.Symbol("C")
    ss = series_rlc(R, L, C, V=vn.Symbol("V")).state_space(outputs=["C.across"])
    assert len(ss.x) == 2
    H = ss.transfer_function()[0, 0]
    assert sympy.simplify(H - 1 / (L * C * s**2 + R * C * s + 1)) == 0

    # underdamped step response: 1 - exp(-zeta w t) (cos wd t + zeta/sqrt(1-zeta^2) sin wd t)
    Rv, Lv, Cv = 1.0, 0.5, 0.2
    res = series_rlc(Rv, Lv, Cv).simulate((0, 3), t_eval=np.linspace(0, 3, 301))
    w = 1 / np.sqrt(Lv * Cv)
    zeta = Rv / 2 * np.sqrt(Cv / Lv)
    wd = w * np.sqrt(1 - zeta**2)
    t = res.t
    exact = 1 - np.exp(-zeta * w * t) * (np.cos(wd * t) + zeta / np.sqrt(1 - zeta**2) * np.sin(wd * t))
    assert np.max(np.abs(res["C.across"] - exact)) < 1e-7
    # the same current flows through every element of the series loop
    assert np.allclose(res["R.through"], -res["C.through"], atol=1e-9)


def test_mass_spring_damper_natural_frequency_and_damping_ratio():
    m, k, c = 2.0, 50.0, 3.0
    net = vn.Network("msd")
    net.add(vn.ForceSource("F", "g", "x", F=1.0), vn.Mass("m", "g", "x", m=m),
            vn.Spring("k", "x", "g", k=k), vn.Damper("c", "x", "g", b=c))
    ss = net.state_space(outputs=["m.across"])
    A = np.array(ss.A.tolist(), dtype=float)
    poles = np.linalg.eigvals(A)
    wn = np.sqrt(np.prod(np.abs(poles)))
    zeta = -poles.real[0] / wn
    assert wn == pytest.approx(np.sqrt(k / m), rel=1e-12)
    assert zeta == pytest.approx(c / (2 * np.sqrt(k * m)), rel=1e-12)
    # a constant force F settles the spring at F/k and the mass at rest
    res = net.simulate((0, 20), t_eval=[20.0])
    assert res["k.through"][-1] == pytest.approx(-1.0, abs=1e-6)  # spring pulls back with F
    assert res["m.across"][-1] == pytest.approx(0.0, abs=1e-6)


def test_dc_motor_with_inertia_and_friction():
    R, L, K, J, b = (vn.Symbol(n) for n in ("R", "L", "K", "J", "b"))
    net = vn.Network("motor")
    net.add(vn.VoltageSource("V", "g", "a", V=vn.Symbol("V")), vn.Resistor("Ra", "a", "b", R=R),
            vn.Inductor("La", "b", "c", L=L), vn.DCMotor("M", "gm", "w", "g", "c", K=K),
            vn.Inertia("J", "gm", "w", J=J), vn.RotaryDamper("B", "gm", "w", b=b))
    ss = net.state_space(outputs=["J.across"])
    assert len(ss.x) == 2 and not ss.dependent_stores
    H = ss.transfer_function()[0, 0]
    assert sympy.simplify(H - K / ((L * s + R) * (J * s + b) + K**2)) == 0


def test_motor_shaft_pump_has_one_state_the_shaft_torque():
    R, L, K, k, D, Rp = (vn.Symbol(n) for n in ("R", "L", "K", "k", "D", "Rp"))
    net = vn.Network("pump")
    net.add(vn.VoltageSource("V", "g", "a", V=vn.Symbol("V")), vn.Resistor("Ra", "a", "b", R=R),
            vn.Inductor("La", "b", "c", L=L), vn.DCMotor("M", "gm", "n1", "g", "c", K=K),
            vn.TorsionSpring("shaft", "n1", "n2", k=k), vn.Pump("P", "gm", "n2", "gf", "p", D=D),
            vn.FluidResistance("pipe", "p", "gf", R=Rp))
    ss = net.state_space(outputs=["shaft.through"])
    assert ss.states == ("shaft.through",)
    assert ss.dependent_stores == ("La",)
    # by hand: no rotor inertia, so the motor current is i = -T/K and the pump turns at
    # w2 = T/(D^2 Rp); the winding gives w1 = (V - R i - L di/dt)/K and T' = k (w2 - w1):
    # T' (1 + k L/K^2) = -k (R/K^2 + 1/(D^2 Rp)) T - (k/K) V
    A_hand = -k * (R / K**2 + 1 / (D**2 * Rp)) / (1 + k * L / K**2)
    B_hand = -(k / K) / (1 + k * L / K**2)
    assert sympy.simplify(ss.A[0, 0] - A_hand) == 0
    assert sympy.simplify(ss.B[0, 0] - B_hand) == 0


def test_quadratic_orifice_drains_a_tank_like_torricelli():
    C, k, P0 = 2.0, 0.5, 4.0
    net = vn.Network("tank")
    net.add(vn.FluidCapacitance("tank", "g", "p", C=C),
            vn.NonlinearDissipator("orifice", "p", "g", domain="fluid",
                                   across=lambda Q: k * Q * sympy.Abs(Q)))
    T = 2 * C * np.sqrt(k * P0)  # time to empty
    ts = np.linspace(0, 0.9 * T, 50)
    res = net.simulate((0, ts[-1]), t_eval=ts, initial={"tank.across": P0})
    # C dP/dt = -sqrt(P/k)  =>  sqrt(P) = sqrt(P0) - t / (2 C sqrt(k))
    exact = (np.sqrt(P0) - ts / (2 * C * np.sqrt(k))) ** 2
    assert np.max(np.abs(res["tank.across"] - exact)) < 1e-6


def test_algebraic_loop_goes_the_dae_path():
    # a resistor in series with a sinh-law element: no explicit solution, so IDA integrates
    Vs, R, C, I0, a0 = 2.0, 1.0, 0.5, 0.3, 0.4
    net = vn.Network("dae")
    net.add(vn.VoltageSource("V", "g", "a", V=Vs), vn.Resistor("R", "a", "b", R=R),
            vn.NonlinearDissipator("D", "c", "b", through=lambda a: I0 * sympy.sinh(a / a0)),
            vn.Capacitor("C", "g", "c", C=C))
    ss = net.state_space()
    assert ss.z, "the loop should stay implicit"
    ts = np.linspace(0, 2, 41)
    res = ss.simulate((0, 2), t_eval=ts)
    assert res.success
    # reference: the same circuit written by hand, current from brentq at every step
    from scipy.integrate import solve_ivp
    from scipy.optimize import brentq

    def current(vc):  # V - R i - a0 asinh(i/I0) - vc = 0
        return brentq(lambda i: Vs - R * i - a0 * np.arcsinh(i / I0) - vc, -10, 10, xtol=1e-14)

    ref = solve_ivp(lambda t, y: [current(y[0]) / C], (0, 2), [0.0], t_eval=ts, rtol=1e-10,
                    atol=1e-12)
    assert np.max(np.abs(res["C.across"] - ref.y[0])) < 1e-5


def test_input_derivatives_and_the_scipy_export():
    # C2 closes a loop with the source and C1: a dependent store that differentiates V
    net = vn.Network("divider")
    net.add(vn.VoltageSource("V", "g", "a", V=sympy.sin(3 * vn.t)),
            vn.Capacitor("C1", "b", "a", C=1.0), vn.Capacitor("C2", "g", "b", C=3.0),
            vn.Resistor("R", "b", "g", R=2.0))
    ss = net.state_space(outputs=["C2.across"])
    assert ss.dependent_stores == ("C2",) and len(ss.x) == 1
    assert ss.E[0, 0] != 0
    # by hand: node b, v = v_b: C1 (V' - v') = C2 v' + v/R  =>  v' = (C1 V' - v/R)/(C1 + C2)
    assert float(ss.A[0, 0]) == pytest.approx(-1 / (2.0 * 4.0))
    ts = np.linspace(0, 5, 201)
    res = ss.simulate((0, 5), t_eval=ts)
    import scipy.signal

    fine = np.linspace(0, 5, 20001)  # lsim holds the input piecewise linear: a fine grid
    _, y, _ = scipy.signal.lsim(ss.to_scipy(), np.sin(3 * fine), fine)
    assert np.max(np.abs(y[::100] - res["C2.across"])) < 1e-7


def test_outputs_chosen_after_formulation():
    ss = series_rlc(1.0, 1.0, 1.0).state_space()
    assert {"R.across", "R.through", "Vs.through", "C.across"} <= set(ss.variable_names)
    other = ss.with_outputs(["R.across", "Vs.through"])
    assert other.outputs == ("R.across", "Vs.through") and other.C.shape == (2, 2)
    with pytest.raises(vn.UnknownNameError, match="no variable 'R.voltage'"):
        ss.with_outputs(["R.voltage"])


def test_python_control_export_has_the_same_step_response():
    control = pytest.importorskip("control")
    Rv, Lv, Cv = 1.0, 0.5, 0.2
    ss = series_rlc(Rv, Lv, Cv).state_space(outputs=["C.across"])
    sys = ss.to_control()
    assert list(sys.state_labels) == ["L:through", "C:across"] and sys.output_labels == ["C:across"]
    ts = np.linspace(0, 3, 301)
    step = control.step_response(sys, ts)
    res = ss.simulate((0, 3), t_eval=ts)
    assert np.max(np.abs(np.squeeze(step.outputs) - res["C.across"])) < 1e-6


def test_result_plot(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    res = series_rlc(1.0, 0.5, 0.2).simulate((0, 1))
    ax = res.plot(["C.across", "L.through"])
    # a panel per quantity: the voltage, then the current
    assert [[line.get_label() for line in panel.get_lines()] for panel in ax.figure.axes] \
        == [["C.across"], ["L.through"]]
    ax.figure.savefig(tmp_path / "rlc.png")
    assert (tmp_path / "rlc.png").stat().st_size > 1000


def two_tanks(Q, C=0.5, R=4.0, k=3.0):
    """A pump fills tank 1, a pipe R joins it to tank 2, an orifice P = k Q|Q| drains tank 2."""
    net = vn.Network("two tanks")
    net.add(vn.FlowSource("pump", "g", "p1", Q=Q), vn.FluidCapacitance("tank1", "g", "p1", C=C),
            vn.FluidCapacitance("tank2", "g", "p2", C=C), vn.FluidResistance("pipe", "p2", "p1", R=R),
            vn.NonlinearDissipator("orifice", "g", "p2", domain="fluid",
                                   across=lambda q: k * q * sympy.Abs(q)))
    return net


def test_linearized_tanks_have_the_orifice_resistance_2kQ():
    """About the steady state P2 = k Q0^2, P1 = P2 + R Q0 the orifice acts as the
    resistance dP/dQ = 2 k Q0 (Rowell & Wormley's linearized fluid resistance)."""
    Q0, C, R, k = 2.0, 0.5, 4.0, 3.0
    P2 = k * Q0**2
    P1 = P2 + R * Q0
    ss = two_tanks(Q0, C, R, k).state_space(outputs=["orifice.through"])
    assert ss.z_names == ("orifice.through",) and not ss.is_linear
    lin = ss.linearize({"tank1.across": P1, "tank2.across": P2})
    Ro = 2 * k * Q0
    A = np.array([[-1 / (R * C), 1 / (R * C)], [1 / (R * C), -1 / (R * C) - 1 / (Ro * C)]])
    index = [lin.states.index(name) for name in ("tank1.across", "tank2.across")]
    np.testing.assert_allclose(np.array(lin.A, dtype=float)[np.ix_(index, index)], A, rtol=1e-12)
    np.testing.assert_allclose(np.array(lin.B, dtype=float)[index, 0], [1 / C, 0], rtol=1e-12)
    np.testing.assert_allclose(np.array(lin.C, dtype=float)[0, index], [0, 1 / Ro], rtol=1e-12)
    # a small step of the pump from the steady state: the nonlinear deviation follows the
    # linear model to second order in the step
    step = 1e-4 * Q0
    start = {"tank1.across": P1, "tank2.across": P2, "orifice.through": Q0}
    times = np.linspace(0, 20, 41)
    nonlinear = ss.simulate((0, 20), inputs={"pump.through": Q0 + step}, initial=start,
                            t_eval=times)
    linear = lin.simulate((0, 20), inputs={"pump.through": step}, t_eval=times)
    deviation = nonlinear["orifice.through"] - Q0
    assert np.max(np.abs(deviation - linear["orifice.through"])) < 1e-2 * step


def test_linearized_diode_is_its_small_signal_conductance():
    """A source V through R charges C in parallel with a diode i = Is (exp(v/Vt) - 1): about
    the steady state (found here with brentq) the diode is the conductance Is/Vt exp(v0/Vt)."""
    from scipy.optimize import brentq

    V, R, Cv, Is, Vt = 5.0, 1e3, 1e-6, 1e-12, 0.025
    net = vn.Network("diode")
    net.add(vn.VoltageSource("V", "g", "a", V=V), vn.Resistor("R", "a", "b", R=R),
            vn.Capacitor("C", "g", "b", C=Cv),
            vn.NonlinearDissipator("D", "b", "g", through=lambda v: -Is * (sympy.exp(-v / Vt) - 1)))
    v0 = brentq(lambda v: (V - v) / R - Is * (np.exp(v / Vt) - 1), 0.0, V)
    ss = net.state_space(outputs=["D.through"])
    lin = ss.linearize({"C.across": v0})
    g = Is / Vt * np.exp(v0 / Vt)
    assert float(lin.A[0, 0]) == pytest.approx(-(1 / R + g) / Cv, rel=1e-9)
    assert float(lin.B[0, 0]) == pytest.approx(1 / (R * Cv), rel=1e-9)
    assert abs(float(lin.C[0, 0])) == pytest.approx(g, rel=1e-9)


def test_linearizing_a_linear_network_gives_it_back():
    ss = series_rlc(2.0, 0.5, 0.1).state_space(outputs=["C.across", "R.through"])
    lin = ss.linearize({"C.across": 0.3, "L.through": -0.2})
    for name in "ABCD":
        assert getattr(lin, name) == getattr(ss.subs(), name)


def test_linearize_names_what_is_wrong():
    ss = two_tanks(2.0).state_space()
    with pytest.raises(vn.ModelError, match="tank2.across"):
        ss.linearize({"tank1.across": 20.0})
    with pytest.raises(vn.UnknownNameError, match="tank3"):
        ss.linearize({"tank1.across": 20.0, "tank2.across": 12.0, "tank3.across": 1.0})
    ramp = two_tanks(vn.t).state_space()
    with pytest.raises(vn.ModelError, match="pump.through"):
        ramp.linearize({"tank1.across": 20.0, "tank2.across": 12.0})
