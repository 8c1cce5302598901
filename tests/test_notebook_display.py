"""Notebook representations: every public result object shows itself as LaTeX (or HTML),
and the numbers it shows are the object's."""

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import vecnet as vn
from vecnet.studies.sweep import compile_study

sys.path.insert(0, str(Path(__file__).parent))
from planar_models import four_bar  # noqa: E402


def check_math(tex):
    """What KaTeX needs at the least: display math around a body with balanced groups."""
    assert isinstance(tex, str) and tex.startswith("$$") and tex.endswith("$$")
    body = tex[2:-2].replace(r"\{", "").replace(r"\}", "")
    assert body.strip() and "$" not in body
    depth = 0
    for c in body:
        depth += {"{": 1, "}": -1}.get(c, 0)
        assert depth >= 0
    assert depth == 0
    assert body.count(r"\left") == body.count(r"\right")
    assert re.findall(r"\\begin\{(\w+)\}", body) == re.findall(r"\\end\{(\w+)\}", body)[::-1] or \
        sorted(re.findall(r"\\begin\{(\w+)\}", body)) == sorted(re.findall(r"\\end\{(\w+)\}", body))
    return tex[2:-2]


def shown_values(tex):
    """``name -> number`` of the rows ``\\mathrm{name} &= number``."""
    return {m.group(1): float(m.group(2)) for m in
            re.finditer(r"^\\mathrm\{([^}]*)\} &= (-?[0-9.]+(?:e-?\d+)?)", tex, flags=re.M)}


def pendulum():
    mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    bob = mech.body("bob", mass=1.5, inertia=0.02, position=(0.3, -1))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-0.3, 1))
    mech.torque("T", bob, 0.0)
    return mech


def rc():
    net = vn.Network("rc")
    net.add(vn.VoltageSource("V", "g", "a", V=2.0), vn.Resistor("R", "a", "b", R=3.0),
            vn.Resistor("R2", "b", "g", R=1.0), vn.Capacitor("C", "b", "g", C=1.0))
    return net


def test_mechanism_equations_of_both_dimensions():
    planar = pendulum().formulate()
    space = vn.spatial.Mechanism("s", gravity=(0, 0, -9.81))
    bob = space.body("bob", 1.0, (0.1, 0.1, 0.1), position=(0, 0, -1))
    space.spherical("ball", space.ground.point(0, 0, 0), bob.point(0, 0, 1))
    for eom in (planar, space.formulate(), four_bar().formulate()):
        body = check_math(eom._repr_latex_())
        assert r"\textbf{Equations of motion" in body


def test_network_objects():
    net = rc()
    for obj in (net.equations(), net.state_space(), net.sparse_state_space()):
        check_math(obj._repr_latex_())


def test_a_mechanism_operating_point_shows_its_coordinates_and_multipliers():
    eom = four_bar(spring=40.0).formulate()
    op = eom.equilibrium()
    shown = shown_values(check_math(op._repr_latex_()))
    for name, value in zip(eom.coordinates, op.q):
        assert shown[name] == pytest.approx(value, rel=1e-3, abs=1e-12)
    for name, value in zip(eom.constraint_names, op.lam):
        assert shown[name] == pytest.approx(value, rel=1e-3, abs=1e-12)
    # the pendulum hangs below its pin: its angle from the initial pose is zero
    point = pendulum().formulate().equilibrium()
    angle = shown_values(check_math(point._repr_latex_()))["pin.angle"]
    assert angle == pytest.approx(point["pin.angle"], rel=1e-3)
    assert angle == pytest.approx(-np.arctan2(0.3, 1.0), rel=1e-3)   # the centre below the pin


def test_a_network_operating_point_shows_its_dc_values():
    op = vn.operating_point(rc())
    shown = shown_values(check_math(op._repr_latex_()))
    # the divider: 2 V over 3 + 1 ohm leaves 0.5 V at b; across is head minus tail (C from
    # b to g: 0 - 0.5; R from a to b: 0.5 - 2), and R's through the passive R.across / 3
    assert shown["C.across"] == pytest.approx(-0.5) and shown["R.across"] == pytest.approx(-1.5)
    assert shown["R.through"] == pytest.approx(-0.5)
    assert shown == pytest.approx({**op.variables, **op.states, **op.inputs}, rel=1e-3)


def test_a_linearization_shows_its_matrices_and_frequencies():
    eom = pendulum().formulate()
    lin = eom.linearize(eom.equilibrium())
    body = check_math(lin._repr_latex_())
    # a compound pendulum: M = J + m l^2, K = m g l about the pin, l the pin's distance
    l2 = 0.3**2 + 1.0
    M, K = 0.02 + 1.5 * l2, 1.5 * 9.81 * np.sqrt(l2)
    matrices = dict(re.findall(r"^(\w) &= \\begin\{bmatrix\}([^\\]*)\\end\{bmatrix\}", body,
                               flags=re.M))
    assert float(matrices["M"]) == pytest.approx(M, rel=1e-3)
    assert float(matrices["K"]) == pytest.approx(K, rel=1e-3)
    assert float(matrices["B"]) == pytest.approx(1.0)
    frequency = re.search(r"\\omega_n &= \\begin\{bmatrix\}([^\\]*)\\end", body).group(1)
    assert float(frequency) == pytest.approx(np.sqrt(K / M), rel=1e-3)
    assert r"w &= (\mathrm{T})" in body


def test_a_study_is_a_small_html_table():
    study = compile_study(rc(), ["R"], "simulate", t_end=2.5, outputs=["C.across"])

    class Cells(HTMLParser):
        def __init__(self):
            super().__init__()
            self.cells, self.tags = [], []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)

        def handle_data(self, data):
            self.cells.append(data)

    parser = Cells()
    page = study._repr_html_()
    parser.feed(page)
    assert parser.tags[0] == "table" and parser.tags.count("tr") == 4 + len(study.options)
    pairs = dict(zip(parser.cells[1::2], parser.cells[2::2]))
    assert pairs["swept parameters"] == "R" and pairs["outputs"] == "C.across"
    assert float(pairs["option t_end"]) == 2.5 and pairs["analysis"] == "simulate"
