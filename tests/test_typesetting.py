"""Typesetting of teaching output: one fraction instead of nested ones, names of several
letters upright, fractions in matrices at text size, units with raised powers."""

import re
from pathlib import Path

import numpy as np
import pytest
import sympy

import vecnet as vn
from vecnet.output import teaching

MODELS = Path(__file__).resolve().parents[1] / "examples" / "models"


def motor_pump():
    return vn.load_model(MODELS / "motor_pump.json").state_space()


def test_the_motor_pump_state_equation_is_one_fraction_with_the_same_value():
    ss = motor_pump()
    tex = vn.latex(ss)
    line = next(x for x in tex.splitlines() if x.startswith(r"\dot{T}"))
    assert line.count(r"\frac") == 1                       # no fraction within a fraction
    # the text form, read back, is the state equation at random parameter values
    listing = vn.text(ss)
    rhs = re.search(r"^ *T_shaft' = (.*)$", listing, flags=re.M).group(1)
    names = {s.name: s for s in ss.f[0].free_symbols}
    shown = sympy.sympify(rhs, locals={n: sympy.Symbol(n) for n in names})
    rng = np.random.default_rng(1)
    for _ in range(5):
        values = {n: float(rng.uniform(0.5, 2.0)) for n in names}
        exact = float(ss.f[0].subs({names[n]: v for n, v in values.items()}))
        printed = float(shown.subs({sympy.Symbol(n): v for n, v in values.items()}))
        assert printed == pytest.approx(exact, rel=1e-12)


def test_names_of_several_letters_are_upright():
    tex = vn.latex(motor_pump())
    assert r"\mathrm{Rp}" in tex and "Rp" not in tex.replace(r"\mathrm{Rp}", "")
    assert r"T_{\mathrm{shaft}}" in tex
    # one letter, a letter and digits, and Greek letters stay as sympy sets them; a name
    # of several characters as a subscript (an element's, dotted or not) is upright
    assert vn.latex(sympy.Symbol("R") * sympy.Symbol("p")) == "R p"
    assert vn.latex(sympy.Symbol("C6")) == "C_{6}"
    assert vn.latex(sympy.Symbol("v_C6")) == r"v_{\mathrm{C6}}"
    assert vn.latex(sympy.Symbol("T_motor.m")) == r"T_{\mathrm{motor.m}}"
    assert vn.latex(sympy.Symbol("x_1")) == "x_{1}"
    assert vn.latex(sympy.Symbol("omega_n")) == r"\omega_{n}"
    assert vn.latex(sympy.Symbol("Kt")) == r"\mathrm{Kt}"


def test_fractions_in_matrices_are_set_at_text_size():
    tex = vn.latex(motor_pump())
    for matrix in re.findall(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", tex):
        for cell in re.split(r"&|\\\\", matrix):
            if r"\frac" in cell:
                assert cell.strip().startswith(r"\displaystyle")


def test_a_large_nested_fraction_is_left_as_it_is_and_said_so(monkeypatch):
    monkeypatch.setattr(teaching, "TIDY_TERMS", 5)
    listing = vn.text(motor_pump())
    assert "(1 nested fraction of more than 5 terms left unsimplified)" in listing \
        or "nested fractions of more than 5 terms left unsimplified" in listing
    assert "/(1 + L*k/K**2)" in listing                     # as formulated


def test_units():
    assert teaching.unit_latex("m^3/s") == r"\mathrm{m}^{3}/\mathrm{s}"
    assert teaching.unit_text("m^3/s") == "m³/s"
    assert teaching.unit_latex("N m") == r"\mathrm{N}\,\mathrm{m}"
    assert teaching.unit_text("kg m^2") == "kg·m²"
    # every unit of the domain table comes out without a caret or brackets
    for d in vn.DOMAINS.values() if isinstance(vn.DOMAINS, dict) else vn.DOMAINS:
        for unit in (d.across_unit, d.through_unit):
            assert "^" not in teaching.unit_text(unit) and "[" not in teaching.unit_latex(unit)
