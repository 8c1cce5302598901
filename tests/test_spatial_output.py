"""Diagrams, teaching text and HTML reports of spatial mechanisms."""

import re
from html.parser import HTMLParser

import pytest

import vecnet as vn


def pendulum():
    mech = vn.spatial.Mechanism("spherical pendulum", gravity=(0, 0, -9.81))
    bob = mech.body("bob", 1.0, (0.01, 0.01, 0.01), position=(0.3, 0, -1))
    mech.spherical("tip", mech.ground.point(0, 0, 0), bob.point(-0.3, 0, 1))
    return mech


@pytest.mark.parametrize("coordinates, branches", [("joint", {"tip", "bob-p1"}),
                                                   ("absolute", {"bob", "bob-p1"})])
def test_the_diagram_draws_the_tree_the_coordinates_choose(coordinates, branches):
    # joint coordinates put the joints in the tree, absolute ones the bodies' mass elements
    dot = vn.to_dot(pendulum(), tree=coordinates)
    solid = {line.split("label=")[1].split()[0].strip('"') for line in dot.splitlines()
             if "->" in line and "dashed" not in line and "legend" not in line}
    assert solid == branches
    assert vn.to_dot(pendulum().formulate(coordinates)) == dot


def test_text_and_latex_name_coordinates_and_speeds():
    eom = pendulum().formulate("joint")
    shown = vn.text(eom)
    # a spherical joint: four Euler parameters, three angular velocity components
    assert "Coordinates (4): q = (tip.qw, tip.qx, tip.qy, tip.qz)" in shown
    assert "Speeds (3): u = (tip.wx, tip.wy, tip.wz)" in shown
    assert "R_bob = Rq(tip.qw, tip.qx, tip.qy, tip.qz)" in shown and "n_tip = 0" in shown
    full = vn.text(eom, matrix_form=True)
    assert "q' = N(q) u" in full and "M[tip.wx, tip.wx] = " in full
    assert r"\textbf{Speeds (3)}" in vn.latex(eom)


def test_the_report_of_a_spatial_mechanism():
    page = vn.report(pendulum(), simulate=True)

    class Tags(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags = []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)

    tags = Tags()
    tags.feed(page)
    # [IN], [A], [CU], [CI]: each a caption and a LaTeX block
    for name in ("[IN]", "[A]", "[CU]", "[CI]"):
        assert re.search(re.escape(name) + r"[^<]*(<sub>.</sub>[^<]*)?</p><pre class=\"tex\">",
                         page), name
    # the diagram, the reactions, two plots and the motion
    assert tags.tags.count("svg") == 5
    assert "<h2>Joint reactions</h2>" in page and 'data-joint="tip"' in page
    assert (r"Speeds (3)}\quad u = (\omega_{\mathrm{tip},x}, \omega_{\mathrm{tip},y}, "
            r"\omega_{\mathrm{tip},z})") in page
    assert "Heights of the mass centres." in page
