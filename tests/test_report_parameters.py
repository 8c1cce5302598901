"""``vn.report(model, parameters=...)`` and a network report's transfer functions and Bode
plot.

Facts from outside the code: the series RLC's ``H(s) = 1 / (L C s^2 + R C s + 1)`` (the
capacitor's impedance divider) and ``I(s)/V(s) = C s / (L C s^2 + R C s + 1)``; with
R = 1, L = 1/2, C = 1/5 these are ``10 / (s^2 + 2 s + 10)`` and ``2 s / (s^2 + 2 s + 10)``.
"""

import re
from html import unescape
from pathlib import Path

import pytest

import vecnet as vn
from vecnet.errors import ModelError, UnknownNameError

MODELS = Path(__file__).parent.parent / "examples" / "models"


def symbolic_rlc():
    R, L, C = vn.Symbol("R"), vn.Symbol("L"), vn.Symbol("C")
    net = vn.Network("rlc")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=R),
            vn.Inductor("L", "b", "c", L=L), vn.Capacitor("C", "g", "c", C=C))
    return net


def transfer_section(page: str) -> str:
    return re.search(r"<h2>Transfer functions and frequency response</h2>(.*?)</section>",
                     page, re.S).group(1)


def test_a_symbolic_network_is_reported_with_the_values_given():
    with pytest.raises(ModelError, match="pass parameters"):
        vn.report(symbolic_rlc())          # the values are needed for the simulation
    page = vn.report(symbolic_rlc(), parameters={"R": 1.0, "L": 0.5, "C": 0.2})
    part = unescape(transfer_section(page))
    # in the symbols, descending powers of s; then with the values
    assert r"\frac{1}{C L s^{2} + C R s + 1}" in part
    assert r"\frac{10}{s^{2} + 2 s + 10}" in part
    assert r"\frac{- 2 s}{s^{2} + 2 s + 10}" in part      # the inductor's current, tail to head
    assert "every state (the model names no outputs)" in part
    assert "<svg" in part and "Bode plot" in part
    assert "<h2>Simulation</h2>" in page


def test_report_parameters_are_checked():
    with pytest.raises(UnknownNameError, match="its parameters are C, L, R"):
        vn.report(symbolic_rlc(), parameters={"Q": 1.0}, simulate=False)
    with pytest.raises(ModelError, match="finite real number"):
        vn.report(symbolic_rlc(), parameters={"R": float("nan")}, simulate=False)


def test_a_model_files_declared_parameters_are_read_again():
    page = vn.report(vn.load_model(MODELS / "fourbar.json"), parameters={"T0": 5.0},
                     simulate=False)
    assert "T_{0}" in page
    with pytest.raises(vn.ModelFileError, match="T1"):
        vn.report(vn.load_model(MODELS / "fourbar.json"), parameters={"T1": 5.0},
                  simulate=False)


def test_a_network_without_a_source_says_why_it_has_no_transfer_function():
    net = vn.Network("rc")
    net.add(vn.Resistor("R", "a", "g", R=1.0), vn.Capacitor("C", "a", "g", C=1.0))
    part = transfer_section(vn.report(net, simulate=False))
    assert "No transfer function: the network has no source." in part
