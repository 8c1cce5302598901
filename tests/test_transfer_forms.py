"""Transfer functions as a course reads them: output over input (refused without an
output), in descending powers of ``s``, with zeros, poles and gain, partial fractions and
the response in time.

Facts from outside the code: the series RLC's ``H(s) = 1 / (L C s^2 + R C s + 1)`` from
the capacitor's impedance divider; its critically damped step response
``1 - (1 + t/tau) exp(-t/tau)`` (a textbook formula for a double pole); scipy's
``tf2zpk`` and ``step`` on coefficients written in the test; partial fractions that add
back up to ``H`` at points off the poles.
"""

import re

import numpy as np
import pytest
import scipy.signal
import sympy

import vecnet as vn
from vecnet.errors import FormulationError
from vecnet.formulation.transfer import TransferMatrix, s

t = sympy.Symbol("t", real=True)


def series_rlc(R=None, L=None, C=None):
    R, L, C = (sympy.Symbol(n) if v is None else v for n, v in (("R", R), ("L", L), ("C", C)))
    net = vn.Network("rlc")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=R),
            vn.Inductor("L", "b", "c", L=L), vn.Capacitor("C", "g", "c", C=C))
    return net


def third_order():
    """Notebook 2's network E1 with its element values: a cubic that does not factor."""
    net = vn.Network("E1")
    net.add(vn.Inductor("L1", "a", "b", L=1e-3), vn.Inductor("L2", "e", "d", L=2e-3),
            vn.Resistor("R3", "c", "b", R=10.0), vn.Resistor("R4", "e", "b", R=20.0),
            vn.Resistor("R5", "f", "e", R=5.0), vn.Capacitor("C6", "c", "d", C=1e-4),
            vn.VoltageSource("V7", "f", "a", V=1.0))
    return net.state_space(outputs=["C6.across"]).transfer_function()


def test_a_transfer_function_without_outputs_is_refused_in_words():
    ss = series_rlc().state_space(symbolic=True)
    with pytest.raises(FormulationError, match=r"no outputs.*with_outputs\(\["):
        ss.transfer_function()
    net = vn.Network("rc")
    net.add(vn.Resistor("R", "a", "g", R=1.0), vn.Capacitor("C", "a", "g", C=1.0))
    with pytest.raises(FormulationError, match="no sources"):
        net.state_space(outputs=["C.across"]).transfer_function()


def test_h_of_s_is_named_and_printed_in_descending_powers():
    H = series_rlc().state_space(outputs=["C.across"], symbolic=True).transfer_function()
    L, C, R = sympy.symbols("L C R")
    assert sympy.simplify(H["C.across", "V.across"] - 1 / (L * C * s**2 + R * C * s + 1)) == 0
    assert H == sympy.Matrix([[H[0, 0]]]) and sympy.Matrix(H) == H.matrix
    with pytest.raises(KeyError, match="the outputs are C.across"):
        H["R.across", "V.across"]
    line = vn.text(H)
    denominator = line.split("/(", 1)[1]
    powers = [int(p or 1) for p in re.findall(r"s(?:\*\*(\d+))?", denominator)]
    assert powers == [2, 1], line                       # s**2, then s, then the constant
    assert denominator.rstrip(")").endswith("+ 1")
    tex = vn.latex(H)
    assert tex.index("s^{2}") < tex.index("R s") < tex.index("+ 1}")


def test_zeros_poles_gain_against_scipy():
    H = third_order()
    zeros, poles, gain = H.zpk()["C6.across", "V7.across"]
    # the same network by mesh currents, coefficients written here: -R4 / det(Z(s)) s
    L1, L2, R3, R4, R5, C6 = 1e-3, 2e-3, 10.0, 20.0, 5.0, 1e-4
    a = [C6 * L1 * L2, C6 * (L1 * R3 + L1 * R4 + L2 * R4 + L2 * R5),
         C6 * (R3 * R4 + R3 * R5 + R4 * R5) + L1, R4 + R5]
    z_ref, p_ref, k_ref = scipy.signal.tf2zpk([-R4 / a[0]], np.array(a) / a[0])
    assert zeros == [] and len(z_ref) == 0
    assert np.allclose(sorted(complex(p).real for p in poles), sorted(p_ref.real), rtol=1e-12)
    assert float(gain) == pytest.approx(k_ref, rel=1e-12)
    # a quadratic with rational roots stays exact
    exact = TransferMatrix(sympy.Matrix([[(s + 3) / (2 * s**2 + 6 * s + 4)]]), ["y"], ["u"])
    assert exact.zpk()["y", "u"] == ([-3], [-2, -1], sympy.Rational(1, 2))
    symbolic = series_rlc().state_space(outputs=["C.across"], symbolic=True).transfer_function()
    _, (p1, p2), _ = symbolic.zpk()["C.across", "V.across"]
    L, C, R = sympy.symbols("L C R")
    assert sympy.simplify(p1 * p2 - 1 / (L * C)) == 0          # Vieta
    assert sympy.simplify(p1 + p2 + R / L) == 0


@pytest.mark.parametrize("case", ["rational", "cubic"])
def test_partial_fractions_add_back_up_to_h(case):
    H = third_order() if case == "cubic" else \
        series_rlc(R=3.0, L=1.0, C=0.5).state_space(outputs=["C.across"]).transfer_function()
    entry, parts = H[0, 0], H.partial_fractions()[0, 0]
    terms = sympy.Add.make_args(parts)
    assert len(terms) == (3 if case == "cubic" else 2)        # one term per pole
    for point in (0.3 + 2j, -7.0 + 40j, 1e3j):
        value = complex(entry.subs(s, point))
        assert complex(parts.subs(s, point)) == pytest.approx(value, rel=1e-9)
    if case == "rational":   # poles -1 and -2: exact, 2/(s+1) - 2/(s+2)
        assert parts == 2 / (s + 1) - 2 / (s + 2)


def test_a_double_poles_step_response_is_the_textbook_formula():
    # R = 2 sqrt(L/C): critically damped, a double pole at -1/tau with tau = R C / 2
    H = series_rlc(R=2.0, L=1.0, C=1.0).state_space(outputs=["C.across"]).transfer_function()
    y = H.inverse_laplace("step")["C.across", "V.across"]
    tau = 1
    assert sympy.simplify(y - (1 - (1 + t / tau) * sympy.exp(-t / tau))) == 0
    impulse = H.inverse_laplace()["C.across", "V.across"]
    assert sympy.simplify(impulse - sympy.diff(y, t)) == 0          # the step's derivative


def test_a_cubics_step_response_matches_scipy():
    H = third_order()
    response = H.inverse_laplace("step")
    assert response.response == "unit step"
    y = sympy.lambdify(t, response["C6.across", "V7.across"], "numpy")
    top, bottom = (sympy.Poly(p, s) for p in sympy.fraction(sympy.cancel(H[0, 0])))
    times = np.linspace(0.0, 5e-3, 200)
    _, reference = scipy.signal.step(
        ([float(c) for c in top.all_coeffs()], [float(c) for c in bottom.all_coeffs()]),
        T=times)
    assert np.max(np.abs(np.real(y(times)) - reference)) < 1e-9 * np.max(np.abs(reference))
    assert "[unit step in V7.across]" in vn.text(response)
    with pytest.raises(FormulationError, match="one of impulse, step, ramp"):
        H.inverse_laplace("sine")
    with pytest.raises(FormulationError, match="not strictly proper"):
        TransferMatrix(sympy.Matrix([[s / (s + 1)]]), ["y"], ["u"]).inverse_laplace()
