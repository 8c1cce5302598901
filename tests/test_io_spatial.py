"""Spatial mechanisms as model files (``"dimensions": 3``): the file-read RSSR moves as the
one built in Python, the top file precesses at the Lagrange top's rate, files round-trip,
the command line simulates and reports them, and bad files are refused at their location."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import vecnet as vn
from vecnet.cli import main
from vecnet.io import load_model, model_to_dict, save_model

sys.path.insert(0, str(Path(__file__).parent))
from test_spatial import rssr  # noqa: E402

ROOT = Path(__file__).parent.parent
MODELS = ROOT / "examples" / "models"
DATA = Path(__file__).parent / "data"
EXPECTED = json.loads((DATA / "bad_models_expected.json").read_text())


def test_the_rssr_file_moves_as_the_rssr_built_in_python():
    model = load_model(MODELS / "rssr.json")
    assert isinstance(model.system, vn.spatial.Mechanism)
    from_file, built = model.formulate(), rssr().formulate()
    assert from_file.coordinates == built.coordinates
    assert from_file.constraint_names == built.constraint_names
    times = np.linspace(0, 1, 11)
    a = from_file.simulate(1.0, t_eval=times, rtol=1e-11, atol=1e-13, velocities=model.velocities)
    b = built.simulate(1.0, t_eval=times, rtol=1e-11, atol=1e-13, velocities={"R1.angle": 2.0})
    assert np.ptp(a["R1.angle"]) > 1.0                                # it does move
    for name in ("R1.angle", "R2.angle", "crank.position", "coupler.position", "rocker.position",
                 "coupler.orientation", "rocker.orientation", "coupler.omega"):
        assert np.max(np.abs(a[name] - b[name])) < 1e-10, name


def test_the_top_file_precesses_at_the_lagrange_top_rate():
    # Goldstein, Sec. 5.7: a heavy symmetric top (transverse moment J1 about the tip, axial
    # J3, spin w3) tilted by theta precesses steadily at the rate psi with
    # m g s = psi (J3 w3 - J1 psi cos theta); the slow root is taken
    model = load_model(MODELS / "top.json")
    p = model.parameters
    m, s, Jt, J3, g, spin, tilt = (p[k] for k in ("m", "s", "Jt", "J3", "g", "spin", "tilt"))
    J1 = Jt + m * s**2
    psi = J3 * spin / (2 * J1 * np.cos(tilt)) * (
        1 - np.sqrt(1 - 4 * J1 * m * g * s * np.cos(tilt) / (J3 * spin) ** 2))
    period = 2 * np.pi / psi
    res = model.simulate(t_span=(0, period), points=101)
    quaternions = res["top.orientation"]
    axis = Rotation.from_quat(quaternions[:, [1, 2, 3, 0]]).apply([0, 0, 1])
    assert np.max(np.abs(np.arccos(axis[:, 2]) - tilt)) < 1e-5 * tilt    # the tilt stays
    azimuth = np.unwrap(np.arctan2(axis[:, 1], axis[:, 0]))
    rate = np.gradient(azimuth, res.t)
    assert np.max(np.abs(rate[1:-1] - psi)) < 1e-5 * psi
    assert abs(azimuth[-1] - azimuth[0] - 2 * np.pi) < 1e-5            # one turn in a period
    assert np.max(np.abs(np.einsum("ij,ij->i", axis, res["top.omega"]) - spin)) < 1e-6 * spin


# -- round trips -------------------------------------------------------------------------

#: every spatial joint kind (each body hangs from the ground by one), every force kind,
#: drives, orientations as quaternions and matrices, inertia as moments and as a matrix
JOINTS = [("revolute", {"axis": [0, 0, 1]}), ("prismatic", {"axis": [1, 0, 0]}),
          ("cylindrical", {"axis": [0, 1, 0]}), ("screw", {"axis": [0, 0, 1], "pitch": "h"}),
          ("spherical", {}), ("universal", {"axes": [[1, 0, 0], [0, "cos(a)", "sin(a)"]]}),
          ("planar_joint", {"normal": [0, 0, 1]}), ("weld", {}),
          ("point_on_line", {"axis": [1, 1, 0]}), ("point_on_plane", {"normal": [0, 1, 1]})]
CATALOGUE = {
    "vecnet": "1", "kind": "mechanism", "dimensions": 3, "name": "catalogue",
    "parameters": {"h": 0.05, "a": 0.3, "k": 20.0, "F": 2.0, "m": 1.2, "J": 0.1},
    "gravity": [0, 0, "-9.81"],
    "ground": {"points": {f"G{i}": [i, 0, 1] for i in range(len(JOINTS))}},
    "bodies": [
        {"name": f"b{i}", "mass": "m" if i % 2 else 1.0 + i / 10,
         "inertia": ["J", 0.12, 0.15] if i % 3 == 0 else [[0.1, 0.01, 0], [0.01, 0.12, 0],
                                                          [0, 0, 0.15]],
         "position": [i, 0, 0.5],
         **({"orientation": ["cos(0.1)", 0, "sin(0.1)", 0]} if i % 3 == 1 else
            {"orientation": [[0, -1, 0], [1, 0, 0], [0, 0, 1]]} if i % 3 == 2 else {}),
         # the joined points meet: the top point is 0.5 above the mass centre in world axes
         "points": {"top": ["-0.5*sin(0.2)", 0, "0.5*cos(0.2)"] if i % 3 == 1 else [0, 0, 0.5]}}
        for i in range(len(JOINTS))],
    "joints": [{"type": kind, "name": f"J{i}", "between": [f"ground.G{i}", f"b{i}.top"], **extra}
               for i, (kind, extra) in enumerate(JOINTS)],
    "forces": [
        {"type": "spring", "name": "k1", "between": ["b0", "b1"], "k": "k", "length": 0.9,
         "c": 0.1},
        {"type": "spring", "name": "k2", "between": ["b4", "b5"], "force": "k*(length - 1)**3"},
        {"type": "damper", "name": "c1", "between": ["b2", "b3"], "c": 0.3},
        {"type": "rotary_spring", "name": "r0", "joint": "J0", "k": 1.5, "c": 0.05, "angle": 0.2},
        {"type": "torque", "name": "T4", "body": "b4", "value": [0, "sin(t)", 0.1],
         "body_axes": True, "reaction": "b6"},
        {"type": "force", "name": "F8", "point": "b8.top", "value": [0, 0, "-F*t"]}],
    "drives": [{"name": "d1", "joint": "J1", "motion": "0.1*sin(t)"},
               {"name": "d2", "joint": "J2", "motion": "0.2*t", "quantity": "distance"}],
    "initial": {"J0.angle": 0.1},
    "velocities": {"J0.angle": 1.0, "b4.omega": [0.5, 0, 0], "J6.x'": 0.2},
    "outputs": ["J0.angle", "b4.omega", "d1.effort", "energy"],
    "simulation": {"t_span": [0, 0.1], "points": 6}}


@pytest.mark.parametrize("doc, motion", [(CATALOGUE, False), (MODELS / "rssr.json", True)],
                         ids=["catalogue", "rssr"])
def test_spatial_files_round_trip_to_the_same_equations_and_motion(doc, motion, tmp_path):
    model = load_model(doc)
    save_model(model, tmp_path / "saved.json")
    again = load_model(tmp_path / "saved.json")
    written = model_to_dict(model)
    assert written["dimensions"] == 3 and model_to_dict(again) == written
    assert again.velocities == model.velocities and again.initial == model.initial
    a, b = model.formulate(), again.formulate()
    assert a.coordinates == b.coordinates and a.speed_names == b.speed_names
    assert a.M == b.M and a.Q == b.Q and a.constraints == b.constraints
    if not motion:  # the same equations move the same; simulated once, for the RSSR
        return
    ra, rb = model.simulate(t_span=(0, 0.1), points=6), again.simulate(t_span=(0, 0.1), points=6)
    for name in ra.names:
        assert np.array_equal(ra[name], rb[name]), name


def test_the_catalogue_reads_every_kind_as_the_builder_makes_it():
    system = load_model(CATALOGUE).system
    kinds = [type(system.network.element(f"J{i}")).__name__ for i in range(len(JOINTS))]
    assert kinds == ["SpatialRevolute", "SpatialPrismatic", "SpatialCylindrical", "SpatialScrew",
                     "SpatialSpherical", "SpatialUniversal", "SpatialPlanarJoint", "SpatialWeld",
                     "SpatialPointOnLine", "SpatialPointOnPlane"]
    # axes in world axes at the initial pose; the builder keeps them in the tail's (ground) axes
    assert np.allclose(system.network.element("J8").axis, np.array([1, 1, 0]) / np.sqrt(2))
    b1 = system.bodies["b1"]
    # the quaternion (cos 0.1, 0, sin 0.1, 0) turns by 0.2 rad about y
    assert np.allclose(b1.R, Rotation.from_rotvec([0, 0.2, 0]).as_matrix())
    assert np.allclose(b1.point(*b1.R.T @ [0, 0, 0.5]).position, [1, 0, 1])


def test_a_spatial_mechanism_built_in_python_saves_and_loads_to_the_same_equations():
    from roundtrip import check_round_trip

    check_round_trip(rssr())


# -- the command line -------------------------------------------------------------------

def run(capsys, *args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_command_line_simulates_a_spatial_file_to_csv(tmp_path, capsys):
    out = tmp_path / "rssr.csv"
    status, stdout, err = run(capsys, "simulate", MODELS / "rssr.json", "--t-end", 0.5,
                              "--output", out)
    assert status == 0, err
    assert stdout.strip() == str(out.resolve())
    header, *rows = out.read_text().splitlines()
    # the file's outputs; a vector is a column a component
    assert header.split(",") == ["t", "R1.angle", "R2.angle", "coupler.position.x",
                                 "coupler.position.y", "coupler.position.z"]
    table = np.array([[float(x) for x in row.split(",")] for row in rows])
    assert table[-1, 0] == 0.5 and table[0, 1] == 0.0
    assert np.allclose(table[0, 3:], [1.0, 0.5, 0.5])                # midway between B and C
    # the crank's angular velocity is its joint rate: d(R1.angle)/dt at t = 0 is 2 rad/s
    assert abs((table[1, 1] - table[0, 1]) / (table[1, 0] - table[0, 0]) - 2.0) < 0.05


def test_the_command_line_reports_a_spatial_file(tmp_path, capsys):
    out = tmp_path / "top.html"
    status, _, err = run(capsys, "report", MODELS / "top.json", "--output", out)
    assert status == 0, err
    page = out.read_text()
    assert "<svg" in page and '<pre class="tex">' in page
    assert "Coordinates (4): tip.qw, tip.qx, tip.qy, tip.qz" in page   # a ball joint's quaternion
    # the file takes its angular speeds in the top's own axes ("speeds": "body")
    assert (r"Speeds (3)}\quad u = (\omega_{\mathrm{tip},1}, \omega_{\mathrm{tip},2}, "
            r"\omega_{\mathrm{tip},3})") in page


@pytest.mark.parametrize("command", ["equations", "draw"])
def test_equations_and_diagrams_of_a_spatial_file(tmp_path, capsys, command):
    out = tmp_path / ("rssr.txt" if command == "equations" else "rssr.svg")
    status, _, err = run(capsys, command, MODELS / "rssr.json", "--output", out)
    assert status == 0, err
    assert "S2" in out.read_text()                                     # the cut joint is there


# -- bad input: exit status 2 and one line naming the place -----------------------------

#: hostile spatial files of the corpus -> what their message must say (the records of
#: bad_models_expected.json that hold a message give it there)
WORDS = {name: record["says"] for name, record in EXPECTED.items()
         if name.startswith("spatial_") and isinstance(record, dict)} | {
    "spatial_quaternion_not_unit.json": "give a unit quaternion",
    "spatial_matrix_not_rotation.json": "not a rotation",
    "spatial_inertia_triangle.json": "triangle inequality",
    "spatial_inertia_parameter.json": "triangle inequality",
    "spatial_inertia_negative.json": "negative principal moment",
    "spatial_zero_axis.json": "zero length",
    "spatial_planar_vector.json": "too short",
    "spatial_unknown_joint.json": "'ball' is not one of",
    "spatial_universal_parallel.json": "must be perpendicular",
    "spatial_loop_cannot_close.json": "cannot be assembled",
    "spatial_locked_loop.json": "no degree of freedom",
    "spatial_unknown_body.json": "did you mean 'rocker'",
    "spatial_nan_axis.json": "NaN is not a number",
    "spatial_huge_inertia.json": "out of range",
    "spatial_huge_position.json": "out of the range",
    "spatial_dimensions_4.json": "2 (planar, the default) or 3 (spatial), not 4",
    "spatial_joint_in_planar_file.json": "needs \"dimensions\": 3",
    "spatial_omega_not_a_vector.json": "give [x, y, z]",
    "spatial_quaternion_held.json": "part of a quaternion",
    "spatial_drive_spherical.json": "'tip' is a spherical joint",
}


def test_every_spatial_file_of_the_corpus_has_its_words():
    assert set(WORDS) == {name for name in EXPECTED if name.startswith("spatial_")}


@pytest.mark.parametrize("name", sorted(WORDS))
def test_bad_spatial_files_exit_2_with_one_line_at_their_location(tmp_path, capsys, name):
    path = DATA / "bad_models" / name
    out = tmp_path / "never.csv"
    status, stdout, err = run(capsys, "simulate", path, "--output", out)
    assert status == 2 and stdout == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    record = EXPECTED[name]
    location = record if isinstance(record, str) else record["location"]
    assert lines[0].startswith(f"vecnet: error: {path}:{location}: "), lines[0]
    assert WORDS[name] in lines[0]
    assert not out.exists()


@pytest.mark.parametrize("change, location, words", [
    (lambda d: d["bodies"][0].update(inertia=[[1, 0.1, 0], [0, 1, 0], [0, 0, 1]]),
     "/bodies/0/inertia", "not symmetric"),
    (lambda d: d["joints"][0].pop("axis"), "/joints/0", "'axis' is a required property"),
    (lambda d: d["velocities"].update({"S1.qw": 1.0}), "/velocities/S1.qw",
     "'S1' has no speed 'qw'; its speeds are wx, wy, wz"),
    (lambda d: d.update(forces=[{"type": "rotary_spring", "name": "k", "joint": "S1", "k": 1}]),
     "/forces/0/joint", "only revolute and cylindrical joints take a rotary spring"),
    (lambda d: d.update(forces=[{"type": "torque", "name": "T", "body": "crank", "value": [0, 1]}]),
     "/forces/0/value", "too short"),
    (lambda d: d.update(gravity=[0, -9.81]), "/gravity", "too short"),
    (lambda d: d.update(tree=["crank", "coupler", "rocker"]), "/tree", "leaves out"),
], ids=["asymmetric inertia", "no axis", "quaternion rate", "rotary spring on a ball",
        "planar torque", "planar gravity", "tree of bodies only"])
def test_more_bad_spatial_input(tmp_path, capsys, change, location, words):
    doc = json.loads((MODELS / "rssr.json").read_text())
    change(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    status, _, err = run(capsys, "simulate", path, "--output", tmp_path / "x.csv")
    assert status == 2
    (line,) = err.strip().splitlines()
    assert line.startswith(f"vecnet: error: {path}:{location}: ") and words in line, line


def test_saved_numbers_are_numbers_whatever_type_held_them():
    # gravity (0, 0, -9.81) makes sympy integers of its zeros; a file holds them as numbers
    mech = vn.spatial.Mechanism("p", gravity=(0, 0, -9.81))
    bob = mech.body("bob", 2, (0.1, 0.1, 0.1), position=(0, 0, -1))
    mech.spherical("s", mech.ground.point(0, 0, 0), bob.point(0, 0, 1))
    doc = model_to_dict(mech)
    assert doc["gravity"] == [0.0, 0.0, -9.81]
    assert all(isinstance(x, float) for x in doc["gravity"] + doc["bodies"][0]["position"])
    assert doc["bodies"][0]["mass"] == 2.0
