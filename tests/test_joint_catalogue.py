"""The joint catalogue: every kind's compiled motion is its symbolic motion, and a joint
kind added by one record runs through every stage.

Facts checked from outside the code under test:

* for every catalogued kind, the mass matrix the compiled kernel's composite-rigid-body
  recursion gives (its motion written in numba) equals the mass matrix of the symbolic
  formulation (its motion written in sympy), ``sum m Jv^T Jv + Jw^T J Jw``, at random
  states;
* a toy "slot" joint (a body sliding along a line fixed in the ground and turning about
  the normal of the plane it slides in), registered by a test-local record and a
  subclass, needs no other module: with its mass centre on the joint under gravity along
  the slot, it falls as ``g t^2 / 2`` and spins at its initial rate (Newton and Euler,
  decoupled), and saved and loaded it moves the same;
* the schema file holds the catalogue (the joint types and each kind's keys).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy
from scipy.spatial.transform import Rotation

import vecnet as vn
from vecnet.elements import joints
from vecnet.elements import spatial as se
from vecnet.io.json_document import SCHEMA, spatial_joint_schema

G = 9.81

#: a direction for each kind's builder (world axes)
DIRECTIONS = {"axis": (0.2, 1.0, 0.3), "normal": (0.1, 0.2, 1.0),
              "axes": ((1.0, 0.0, 0.0), (0.0, 0.6, 0.8))}


def one_joint(kind: joints.JointKind):
    """A body joined to the ground by a joint of ``kind``, placed off its axes."""
    mech = vn.spatial.Mechanism(kind.name, gravity=(1.0, -0.5, -G))
    body = mech.body("b", 1.2, (0.05, 0.07, 0.09), position=(0.3, 0.1, -0.5),
                     orientation=Rotation.from_euler("zx", [0.3, -0.2]))
    options = {kind.direction: DIRECTIONS[kind.direction]} if kind.direction else {}
    options.update({option: 0.15 for option in kind.options})
    mech.joint(kind.name, "J", mech.ground.point(0, 0, 0),
               body.point(*(body.R.T @ [-0.3, -0.1, 0.5])), **options)
    return mech


def random_state(eom, rng) -> np.ndarray:
    q = rng.uniform(-1.0, 1.0, len(eom.q))
    for i, name in enumerate(eom.coordinates):
        if name.endswith(".qw"):                # a unit quaternion: qw, qx, qy, qz
            q[i:i + 4] /= np.linalg.norm(q[i:i + 4])
    return q


@pytest.mark.parametrize("name", [n for n in joints.JOINTS if n != "weld"])
def test_every_kinds_compiled_motion_is_its_symbolic_motion(name):
    kind = joints.JOINTS[name]
    eom = one_joint(kind).formulate()
    model = eom.compile()
    symbolic = sympy.lambdify([eom.q], eom.M, modules="numpy")
    rng = np.random.default_rng(len(name))
    for _ in range(5):
        q = random_state(eom, rng)
        assert np.allclose(model.mass_matrix(q), np.asarray(symbolic(q), dtype=float),
                           rtol=1e-12, atol=1e-12)


# -- a joint kind added by one record ------------------------------------------------------
class SpatialSlot(se.SpatialJoint):
    """The head point slides along ``direction`` (the first in-plane direction of the
    axis, tail axes) and the head turns about ``axis``: coordinates ``distance`` and
    ``angle``."""

    turns = True
    coordinates = ("distance", "angle")
    speeds = ("distance'", "angle'")
    #: the AXIAL kernel branch: coordinate 1 turns it, coordinate 0 moves it along the slot
    turn_at = 1

    @property
    def direction(self) -> np.ndarray:
        return se.perpendiculars(self.axis)[0]

    @property
    def slides(self):
        return (self.direction, np.zeros(3))

    def motion(self, q):
        e, d = sympy.Matrix(self.axis), sympy.Matrix(self.direction)
        zero = sympy.zeros(3, 1)
        return self.turned(q[1]), d * q[0], zero.row_join(e), d.row_join(zero), sympy.eye(2)

    def coordinates_from(self, R_tail, R_head, dr):
        return [float(self.direction @ (R_tail.T @ dr)),
                se.revolute_angle(self.axis, R_tail, R_head, self.R0)]

    def primitives(self):
        normal = np.cross(self.axis, self.direction)
        return [*self.parallel_axis(), ("plane", f"{self.name}.n", self.axis),
                ("plane", f"{self.name}.m", normal)]


@pytest.fixture
def slot():
    kind = joints.register_joint(joints.JointKind(
        "slot", SpatialSlot, joints.AXIAL, "axis", (0.0, 0.0, 1.0), row=joints.axial_row,
        look=joints.JointStyle("slot", "#123456", "odotobox", "d", False),
        summary="slides along a line and turns about the normal of its plane"))
    yield kind
    joints.JOINTS.pop("slot")


def slider():
    """A body on a slot along y (the first in-plane direction of the axis z), its mass
    centre on the joint, gravity along the slot."""
    mech = vn.spatial.Mechanism("slider", gravity=(0.0, -G, 0.0))
    body = mech.body("b", 2.0, (0.1, 0.2, 0.3), position=(0.0, 0.0, 0.0))
    mech.joint("slot", "J", mech.ground.point(0, 0, 0), body.centre, axis=(0, 0, 1))
    return mech


def test_a_joint_kind_added_by_one_record_runs_through_every_stage(slot, tmp_path):
    assert np.allclose(SpatialSlot("s", "a", "b", np.eye(3), (0, 0, 1)).direction, [0, 1, 0])
    mech = slider()
    eom = mech.formulate()
    assert eom.coordinates == ("J.distance", "J.angle")
    times = np.linspace(0.0, 1.0, 6)
    run = eom.simulate(1.0, t_eval=times, velocities={"J.angle": 2.0}, rtol=1e-11, atol=1e-12)
    assert np.allclose(run["J.distance"], -G * times ** 2 / 2, atol=1e-9)   # falls along y
    assert np.allclose(run["J.angle"], 2.0 * times, atol=1e-9)             # spins steadily
    assert np.allclose(run["b.z"], 0.0, atol=1e-12) and np.allclose(run["b.x"], 0.0, atol=1e-12)
    compiled = eom.compile()
    assert compiled.forward_dynamics(0.0, np.zeros(2), np.array([0.0, 2.0]))[0] == \
        pytest.approx(-G, abs=1e-12)
    # saved with its catalogue type and direction, and read back
    path = tmp_path / "slider.json"
    vn.save_model(mech, path)
    entry = json.loads(path.read_text())["joints"][0]
    assert entry["type"] == "slot" and entry["axis"] == [0, 0, 1]
    loaded = vn.load_model(path)
    again = loaded.formulate().simulate(1.0, t_eval=times, velocities={"J.angle": 2.0},
                                        rtol=1e-11, atol=1e-12)
    assert np.allclose(again["J.distance"], run["J.distance"], atol=1e-12)
    # drawn with its own style
    assert "#123456" in vn.to_dot(mech)


def test_the_slot_cut_from_the_tree_closes_as_in_the_tree(slot):
    mech = slider()
    absolute = mech.formulate("absolute")    # the slot cut: its primitives hold the body
    assert absolute.degrees_of_freedom() == 2
    times = np.linspace(0.0, 0.5, 3)
    run = absolute.simulate(0.5, t_eval=times, velocities={"b.omega": (0, 0, 2.0)},
                            rtol=1e-11, atol=1e-12)
    assert np.allclose(run["b.y"], -G * times ** 2 / 2, atol=1e-8)


def test_the_schema_file_holds_the_catalogue():
    assert SCHEMA["$defs"]["spatial_joint"] == spatial_joint_schema()
    enum = SCHEMA["$defs"]["spatial_joint"]["properties"]["type"]["enum"]
    assert enum == [*joints.JOINTS, "rolling_wheel"]


def test_the_documentations_joint_table_lists_every_kind():
    from pathlib import Path

    page = (Path(__file__).parent.parent / "docs" / "architecture.md").read_text()
    for kind in joints.JOINTS.values():
        assert f"| `{kind.name}` | {', '.join(kind.coordinates) or 'none'} |" in page, kind.name
