"""Ill-posed networks and dependent energy stores, diagnosed in words."""

import pytest

import vecnet as vn


def test_across_source_loop_names_the_sources():
    net = vn.Network()
    net.add(vn.VoltageSource("V1", "g", "a", V=1.0), vn.VoltageSource("V2", "a", "b", V=1.0),
            vn.VoltageSource("V3", "b", "g", V=2.0), vn.Resistor("R", "a", "g", R=1.0))
    with pytest.raises(vn.FormulationError, match="across sources V3, V1, V2 form a loop"):
        net.state_space()


def test_through_source_cutset_names_the_sources():
    net = vn.Network()
    net.add(vn.CurrentSource("I1", "g", "a", I=1.0), vn.CurrentSource("I2", "a", "b", I=2.0),
            vn.Resistor("R", "b", "g", R=1.0), vn.Capacitor("C", "g", "b", C=1.0))
    with pytest.raises(vn.FormulationError, match="through sources I1, I2 form a cutset"):
        net.equations()


def order_of(*elements):
    net = vn.Network()
    net.add(*elements)
    eqs = net.equations()
    return eqs.order, eqs.dependent_stores, eqs.diagnosis()


def test_parallel_capacitors_and_series_inductors_are_dependent():
    order, dependent, text = order_of(
        vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
        vn.Capacitor("C1", "g", "b", C=1.0), vn.Capacitor("C2", "g", "b", C=2.0),
        vn.Inductor("L1", "b", "c", L=1.0), vn.Inductor("L2", "c", "d", L=1.0),
        vn.Resistor("R2", "d", "g", R=1.0))
    # by hand: C1 || C2 store one independent energy, L1 - L2 in series one more
    assert order == 2
    assert set(dependent) == {"C2", "L2"} or set(dependent) == {"C2", "L1"}
    assert "dependent energy stores: C2" in text and "system order is 2" in text


def test_gear_between_two_inertias_leaves_one_state():
    order, dependent, _ = order_of(
        vn.TorqueSource("T", "g", "w1", T=1.0), vn.Inertia("J1", "g", "w1", J=1.0),
        vn.GearPair("G", "g", "w1", "g", "w2", N=3.0), vn.Inertia("J2", "g", "w2", J=2.0),
        vn.RotaryDamper("b", "w2", "g", b=0.5))
    assert order == 1 and len(dependent) == 1 and dependent[0] in ("J1", "J2")


def test_gear_reflects_inertia_and_damping():
    """A torque T on J1, geared with ratio N to J2 and a damper b: the reflected system is
    (J1 + N^2 J2) w1' = T - N^2 b w1."""
    J1, J2, N, b = 1.0, 2.0, 3.0, 0.5
    net = vn.Network()
    net.add(vn.TorqueSource("T", "g", "w1", T=1.0), vn.Inertia("J1", "g", "w1", J=J1),
            vn.GearPair("G", "g", "w1", "g", "w2", N=N), vn.Inertia("J2", "g", "w2", J=J2),
            vn.RotaryDamper("b", "w2", "g", b=b))
    ss = net.state_space(outputs=["J1.across"])
    H = ss.transfer_function()[0, 0]
    import sympy
    s = sympy.Symbol("s")
    assert sympy.simplify(H - 1 / ((J1 + N**2 * J2) * s + N**2 * b)) == 0


@pytest.mark.parametrize("build, hand_order", [
    (lambda: [vn.VoltageSource("V7", "f", "a", V=1.0), vn.Inductor("L1", "a", "b", L=2.0),
              vn.Inductor("L2", "e", "d", L=1.0), vn.Resistor("R3", "c", "b", R=1.0),
              vn.Resistor("R4", "e", "b", R=2.0), vn.Resistor("R5", "f", "e", R=3.0),
              vn.Capacitor("C6", "c", "d", C=0.5)], 3),                       # McPhee E1
    (lambda: [vn.VelocitySource("road", "g", "r", v=0.0), vn.Spring("kt", "r", "u", k=2e5),
              vn.Mass("mu", "g", "u", m=40.0), vn.Spring("ks", "u", "x", k=2e4),
              vn.Damper("cs", "u", "x", b=1e3), vn.Mass("ms", "g", "x", m=300.0)], 4),  # quarter car
    (lambda: [vn.TemperatureSource("in", "g", "i", T=20.0), vn.ThermalResistance("R1", "i", "m", R=0.1),
              vn.ThermalCapacitance("Cw", "g", "m", C=1e5), vn.ThermalResistance("R2", "m", "o", R=0.2),
              vn.TemperatureSource("out", "g", "o", T=0.0)], 1),            # wall
])
def test_order_matches_hand_count(build, hand_order):
    assert order_of(*build())[0] == hand_order


def test_bad_simulation_requests():
    net = vn.Network()
    net.add(vn.VoltageSource("V", "g", "a", V=vn.Symbol("V")), vn.Resistor("R", "a", "b", R=1.0),
            vn.Capacitor("C", "g", "b", C=vn.Symbol("C")))
    with pytest.raises(vn.ModelError, match="no value for parameter.*C"):
        net.simulate((0, 1), inputs={"V.across": 1.0})
    with pytest.raises(vn.ModelError, match="input 'V.across' has no value"):
        net.simulate((0, 1), parameters={"C": 1.0})
    with pytest.raises(vn.ModelError, match="no input.*W.across"):
        net.simulate((0, 1), inputs={"W.across": 1.0}, parameters={"C": 1.0})
    with pytest.raises(vn.ModelError, match="no state.*R.across"):
        net.simulate((0, 1), inputs={"V.across": 1.0}, parameters={"C": 1.0},
                     initial={"R.across": 1.0})
    nonlinear = vn.Network()
    nonlinear.add(vn.VoltageSource("V", "g", "a", V=1.0),
                  vn.NonlinearDissipator("D", "a", "b", across=lambda i: i**3),
                  vn.Capacitor("C", "g", "b", C=1.0))
    with pytest.raises(vn.FormulationError, match="nonlinear"):
        nonlinear.state_space().A
