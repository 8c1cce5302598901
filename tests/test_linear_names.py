"""The linear models of mechanisms name their states and inputs after the coordinates:
a pendulum's state is (pin.angle, pin.angle'), a four-bar's the crank angle and its rate,
and a model without loads is driven by the generalized force Q_pin.angle, in Python, in
python-control and on the command line.

Facts from outside the code: a point mass m at distance l below a pin obeys
m l^2 z'' + m g l z = Q (so A = [[0, 1], [-g/l, 0]], B = [0, 1/(m l^2)]); a four-bar's
loop closure l1 e(p1) + l2 e(p1+p2) + l3 e(p1+p2+p3) = D - A, differentiated by hand,
gives the rates of the other pins per unit rate of the crank (implicit functions).
"""

import csv
import io
import json

import matplotlib
import numpy as np
import pytest

import vecnet as vn
from planar_models import four_bar
from vecnet.cli import main
from vecnet.numerics import multibody as mb


def point_pendulum(m=2.0, l=0.5, g=9.81, torque=False):
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -g))
    bob = mech.body("bob", m, 0.0, position=(0, -l))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, l))
    if torque:
        mech.torque("T", bob, 0.0)
    return mech


def test_a_pendulum_reads_as_its_pin_angle_and_the_generalized_force_on_it():
    m, l, g = 2.0, 0.5, 9.81
    eom = point_pendulum(m, l, g).formulate()
    lin = eom.linearize(eom.equilibrium())
    assert lin.coordinates == ("pin.angle",)
    assert lin.states == ("pin.angle", "pin.angle'")
    forced = lin.with_generalized_forces()
    assert forced.inputs == ("Q_pin.angle",)
    A, B, C, _ = forced.state_space()
    # the states in this order: z' = z', z'' = -(g / l) z + Q / (m l^2)
    np.testing.assert_allclose(A, [[0, 1], [-g / l, 0]], atol=1e-6)
    np.testing.assert_allclose(B, [[0], [1 / (m * l**2)]], rtol=1e-9)
    np.testing.assert_allclose(C, [[1, 0]])


def test_the_pendulum_goes_to_python_control_under_its_coordinate_names():
    pytest.importorskip("control")
    eom = point_pendulum().formulate()
    system = eom.linearize(eom.equilibrium()).to_control()
    assert system.state_labels == ["pin:angle", "pin:angle'"]
    assert system.input_labels == ["Q_pin:angle"]
    assert system.output_labels == ["pin:angle"]
    # an applied torque is the input when there is one
    eom = point_pendulum(torque=True).formulate()
    system = eom.linearize(eom.equilibrium()).to_control()
    assert system.input_labels == ["T"] and system.state_labels == ["pin:angle", "pin:angle'"]


def test_a_pendulum_in_absolute_coordinates_reads_as_its_body_angle():
    eom = point_pendulum().formulate("absolute")
    lin = eom.linearize(eom.equilibrium())
    assert lin.coordinates == ("bob.angle",)
    assert lin.states == ("bob.angle", "bob.angle'")
    assert lin.with_generalized_forces().inputs == ("Q_bob.angle",)


def hand_crank_rates(q, lengths):
    """d(p2, p3)/d(p1) of the loop closure sum_i l_i e(p1 + ... + p_i) = const."""
    angles = np.cumsum(q)
    # column j: d(closure)/d(p_j) = sum over the links at and after j of l_i e'(angle_i)
    columns = [sum(lengths[i] * np.array([-np.sin(angles[i]), np.cos(angles[i])])
                   for i in range(j, 3)) for j in range(3)]
    J = np.column_stack(columns)
    return -np.linalg.solve(J[:, 1:], J[:, 0])


def test_a_four_bar_reads_as_its_crank_angle_and_moves_the_others_by_the_loop_closure():
    mech = four_bar(spring=200.0)
    eom = mech.formulate("joint")
    point = eom.equilibrium()
    lin = eom.linearize(point)
    assert eom.coordinates == ("P1.angle", "P2.angle", "P3.angle")
    assert lin.coordinates == ("P1.angle",)
    assert lin.states == ("P1.angle", "P1.angle'")
    assert lin.with_generalized_forces().inputs == ("Q_P1.angle",)
    # the crank's row of the basis is 1: z is the crank angle itself; the others follow
    # the loop closure (crank 1, coupler |BC|, rocker |CD| of the model's points)
    B = np.array([np.cos(np.pi / 3), np.sin(np.pi / 3)])
    C, D = np.array([2.3, 1.4]), np.array([2.0, 0.0])
    lengths = [1.0, np.linalg.norm(C - B), np.linalg.norm(D - C)]
    np.testing.assert_allclose(lin.basis[0], [1.0], atol=1e-12)
    np.testing.assert_allclose(lin.basis[1:, 0], hand_crank_rates(point.q, lengths), rtol=1e-7)
    # the eigenvalues do not depend on the basis: the orthonormal one gives the same
    M, Cd, K, H = mb.linear_model(eom.compile(), point.q, point.lam)
    other = vn.formulation.multibody.Linearization(M, Cd, K, H, np.zeros((1, 0)), ())
    assert other.coordinates == ("z1",)            # a mix of the three: the documented fallback
    np.testing.assert_allclose(np.sort_complex(other.eigenvalues()),
                               np.sort_complex(lin.eigenvalues()), rtol=1e-6)


def test_a_four_bar_in_absolute_coordinates_reads_as_its_crank_angle():
    eom = four_bar(spring=200.0).formulate("absolute")
    lin = eom.linearize(eom.equilibrium())
    assert lin.coordinates == ("crank.angle",)
    assert lin.states == ("crank.angle", "crank.angle'")


def test_a_four_bar_goes_to_python_control_under_its_crank_name():
    pytest.importorskip("control")
    mech = four_bar(spring=200.0)
    mech.torque("T", mech.bodies["crank"], 0.0)
    eom = mech.formulate()
    system = eom.linearize(eom.equilibrium()).to_control()
    assert system.state_labels == ["P1:angle", "P1:angle'"]
    assert system.input_labels == ["T"]
    assert system.output_labels == ["P1:angle", "P2:angle", "P3:angle"]


def double_pendulum_file(tmp_path):
    """Two point masses 0.5 m apart hanging from a pin, without loads."""
    doc = {"vecnet": "1", "kind": "mechanism", "name": "double", "gravity": [0, -9.81],
           "ground": {"points": {"O": [0, 0]}},
           "bodies": [{"name": "a", "mass": 1.0, "inertia": 0.0, "position": [0, -0.5],
                       "points": {"top": [0, 0.5]}},
                      {"name": "b", "mass": 1.0, "inertia": 0.0, "position": [0, -1.0],
                       "points": {"top": [0, 0.5]}}],
           "joints": [{"type": "revolute", "name": "pin1", "between": ["ground.O", "a.top"]},
                      {"type": "revolute", "name": "pin2", "between": ["a", "b.top"]}],
           "coordinates": "joint"}
    path = tmp_path / "double.json"
    path.write_text(json.dumps(doc))
    return path


def test_step_and_bode_tables_name_the_generalized_forces_after_the_coordinates(capsys,
                                                                               tmp_path):
    path = double_pendulum_file(tmp_path)
    assert main(["step", str(path), "--t-end", "1", "--points", "11"]) == 0
    header = next(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert header == ["t", "pin1.angle/Q_pin1.angle", "pin1.angle/Q_pin2.angle",
                      "pin2.angle/Q_pin1.angle", "pin2.angle/Q_pin2.angle"]
    assert main(["bode", str(path), "--start", "1", "--stop", "10", "--points", "2"]) == 0
    header = next(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert "pin2.angle/Q_pin1.angle dB" in header


def test_the_step_plot_of_a_pendulum_file_labels_its_axis_with_the_generalized_force(
        capsys, tmp_path, monkeypatch):
    # text kept as text in the SVG (not glyph outlines) so that the label can be read
    monkeypatch.setitem(matplotlib.rcParams, "svg.fonttype", "none")
    target = tmp_path / "step.svg"
    path = tmp_path / "p.json"
    path.write_text(json.dumps({
        "vecnet": "1", "kind": "mechanism", "name": "p", "gravity": [0, -9.81],
        "ground": {"points": {"O": [0, 0]}},
        "bodies": [{"name": "bob", "mass": 1.0, "inertia": 0.0, "position": [0, -0.5],
                    "points": {"top": [0, 0.5]}}],
        "joints": [{"type": "revolute", "name": "pin", "between": ["ground.O", "bob.top"]}],
        "coordinates": "joint"}))
    assert main(["step", str(path), "--t-end", "1", "--output", str(target)]) == 0
    svg = target.read_text()
    assert "response to a unit step of Q_pin.angle" in svg
    assert "Q_z1" not in svg


def test_a_linear_model_built_by_hand_names_a_mixed_coordinate_z():
    # a basis that moves both outputs with z: no coordinate equals z alone
    basis = np.array([[0.6], [0.8]])
    lin = vn.formulation.multibody.Linearization(np.eye(1), np.zeros((1, 1)), np.eye(1),
                                                 basis, np.zeros((1, 0)), (), ["a", "b"])
    assert lin.coordinates == ("z1",) and lin.states == ("z1", "z1'")
    assert lin.with_generalized_forces().inputs == ("Q_z1",)

