"""Declared parameters given other values (``--param``, ``parameters=``), SPICE ``.param``
with ``{expressions}``, and ``.ic`` initial node voltages, against the RC step response
v(t) = V - (V - v0) exp(-t / RC)."""

import csv
import io
import json
import math

import pytest

import vecnet as vn
from test_cli_analysis import run

NETLIST = """RC with parameters
.param R0=1k C0={1e-6*2}
V1 in 0 DC 1
R1 in out {R0}
C1 out 0 {C0}
.ic v(out)=0.5
.tran 1m 10m
.end
"""


def last_row(text):
    rows = list(csv.DictReader(io.StringIO(text)))
    return {k: float(v) for k, v in rows[-1].items()}


@pytest.mark.parametrize("override, R", [((), 1e3), (("--param", "R0=2k"), 2e3)])
def test_a_netlist_with_param_expressions_and_initial_voltages(tmp_path, capsys, override, R):
    path = tmp_path / "rc.cir"
    path.write_text(NETLIST)
    status, out, err = run(capsys, "simulate", path, *override)
    assert status == 0, err
    row = last_row(out)
    assert row["t"] == pytest.approx(0.01)
    expected = 1.0 - 0.5 * math.exp(-0.01 / (R * 2e-6))
    assert abs(row["C1.across"] - expected) < 1e-6


def test_the_library_reads_the_same():
    net = vn.load_netlist(NETLIST, parameters={"r0": 4e3})      # SPICE names ignore case
    assert net.element("R1").parameters["R"].value == 4e3
    assert net.element("C1").parameters["C"].value == pytest.approx(2e-6, rel=1e-15)
    assert net.analyses.initial_states(net) == {"C1.across": 0.5}
    with pytest.raises(vn.ModelFileError, match="no parameter 'X' to set; the netlist "
                                                "declares 'R0', 'C0'"):
        vn.load_netlist(NETLIST, parameters={"X": 1.0})
    with pytest.raises(vn.ModelFileError, match=r"line 2: .*unknown name"):
        vn.load_netlist(NETLIST.replace("{1e-6*2}", "{1e-6*Q}"))
    with pytest.raises(vn.ModelFileError, match="line 6: .ic: no node 'nowhere'"):
        vn.load_netlist(NETLIST.replace("v(out)", "v(nowhere)"))


def test_a_model_file_parameter_given_on_the_command_line(tmp_path, capsys):
    doc = {"vecnet": "1", "kind": "network", "name": "rc", "parameters": {"R": 1e3, "C": 1e-6},
           "elements": [
               {"type": "VoltageSource", "name": "V", "nodes": ["g", "a"], "parameters": {"V": 1.0}},
               {"type": "Resistor", "name": "R1", "nodes": ["a", "b"], "parameters": {"R": "R"}},
               {"type": "Capacitor", "name": "C1", "nodes": ["g", "b"], "parameters": {"C": "C"}}],
           "simulation": {"t_span": [0, 0.002], "points": 3}}
    path = tmp_path / "rc.json"
    path.write_text(json.dumps(doc))
    for R in (1e3, 3e3):
        status, out, err = run(capsys, "simulate", path, "--param", f"R={R:g}")
        assert status == 0, err
        expected = 1.0 - math.exp(-0.002 / (R * 1e-6))
        assert abs(last_row(out)["C1.across"] - expected) < 1e-6
    status, out, err = run(capsys, "simulate", path, "--param", "L=1")
    assert status == 2 and "no parameter 'L' to set; the model declares 'R', 'C'" in err
    assert err.count("\n") == 1
    status, _, err = run(capsys, "simulate", path, "--param", "R")
    assert status == 2 and "--param takes NAME=VALUE" in err
    status, _, err = run(capsys, "simulate", path, "--param", "R=1k:2k:3")
    assert status == 2 and "--param R has several values" in err


def test_values_given_to_simulate_win_over_the_elements_own():
    net = vn.Network("rc")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
            vn.Capacitor("C", "g", "b", C=1.0))
    model = net.state_space(symbolic=True)            # R and C stay symbols with values
    res = model.simulate((0, 1), t_eval=[1.0], parameters={"R": 2.0}, rtol=1e-10, atol=1e-12)
    assert abs(res["C.across"][-1] - (1 - math.exp(-1 / 2.0))) < 1e-8


def test_an_unknown_parameter_name_is_refused_naming_the_known_ones():
    net = vn.Network("rc")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=vn.Symbol("R")),
            vn.Capacitor("C", "g", "b", C=vn.Symbol("Cx") * 2))
    for formulation in (None, "symbolic"):
        with pytest.raises(vn.UnknownNameError) as info:
            net.simulate((0, 1), parameters={"R": 1.0, "Cx": 0.5, "Rx": 2.0},
                         formulation=formulation)
        assert "'Rx'" in str(info.value) and "its parameters are Cx, R, V" in str(info.value)
    # the known ones are used: tau = R C = 1 s, C.across(1) = 1 - 1/e
    res = net.simulate((0, 1), parameters={"R": 1.0, "Cx": 0.5}, t_eval=[1.0])
    assert res["C.across"][-1] == pytest.approx(1 - math.exp(-1), rel=1e-6)


def test_an_unknown_mechanism_parameter_is_refused_and_the_known_ones_are_used():
    # a mass on a spring of stiffness k (a law the builder wraps in a function), m x'' = -k x
    mech = vn.planar.Mechanism("oscillator", gravity=(0, 0))
    block = mech.body("block", vn.Symbol("m"), 0.1, position=(1.1, 0))
    mech.prismatic("slide", mech.ground.centre, block.centre, axis=(1, 0))
    mech.spring("spring", mech.ground.centre, block.centre, k=vn.Symbol("k"), length=1.0)
    eom = mech.formulate()
    with pytest.raises(vn.UnknownNameError) as info:
        eom.simulate(1.0, parameters={"m": 2.0, "k": 8.0, "mass": 1.0})
    assert "no parameter(s) 'mass'" in str(info.value)
    assert "its parameters are k, m" in str(info.value)
    period = 2 * math.pi * math.sqrt(2.0 / 8.0)           # T = 2 pi sqrt(m / k)
    res = eom.simulate(period, t_eval=[0.0, period], parameters={"m": 2.0, "k": 8.0},
                       rtol=1e-10, atol=1e-12)
    assert res["slide.distance"][-1] == pytest.approx(1.1, abs=1e-7)
