"""Random spatial open chains (hypothesis, few examples): whatever the joints, joint and
absolute coordinates give one motion, energy is conserved, and the reactions from the
cutset equations (joints in the tree) equal those from the multipliers (joints cut)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

import vecnet as vn

KINDS = ("revolute", "universal", "spherical", "cylindrical", "prismatic", "planar_joint",
         "point_on_line")


def chain(kinds, seed):
    rng = np.random.default_rng(seed)
    mech = vn.spatial.Mechanism("random", gravity=tuple(rng.normal(size=3) + (0, 0, -9.81)))
    parent, at = mech.ground, np.zeros(3)
    for k, kind in enumerate(kinds):
        C = Rotation.random(random_state=rng).as_matrix()
        local = rng.uniform(-0.4, 0.4, 3)
        body = mech.body(f"b{k}", rng.uniform(0.5, 2), rng.uniform(0.02, 0.04, 3),
                         position=at - C @ local, orientation=C)
        a = parent.point(*(parent.R.T @ (at - parent.position)))
        b = body.point(*local)
        axis = rng.normal(size=3)
        if kind == "universal":
            other = np.cross(axis, rng.normal(size=3))
            mech.universal(f"J{k}", a, b, axes=(axis, other))
        elif kind == "spherical":
            mech.spherical(f"J{k}", a, b)
        elif kind == "planar_joint":
            mech.planar_joint(f"J{k}", a, b, normal=axis)
        else:
            getattr(mech, kind)(f"J{k}", a, b, axis)
        mech.spring(f"k{k}", mech.ground.point(*rng.normal(size=3)), body.centre, k=20.0)
        parent, at = body, body.position + C @ rng.uniform(-0.4, 0.4, 3)
    return mech


@settings(max_examples=4, deadline=None)
@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=3), st.integers(0, 2**16))
def test_random_chains_move_alike_in_joint_and_absolute_coordinates(kinds, seed):
    mech = chain(kinds, seed)
    joint, absolute = mech.formulate("joint"), mech.formulate("absolute")
    assert absolute.degrees_of_freedom() == len(joint.u)
    kw = dict(t_eval=np.linspace(0, 0.3, 4), rtol=1e-11, atol=1e-12)
    rates = dict(zip(joint.speed_names, np.random.default_rng(seed).normal(size=len(joint.u))))
    a = joint.simulate(0.3, velocities=rates, **kw)
    given_ = {f"{b}.{w}": a[f"{b}.{w}"][0] for b in mech.bodies for w in ("omega", "velocity")}
    b = absolute.simulate(0.3, velocities=given_, **kw)
    scale = max(1.0, np.max(np.abs(a["energy"])))
    assert np.max(np.abs(a["energy"] - a["energy"][0])) < 1e-8 * scale
    for body in mech.bodies:
        assert np.max(np.abs(a[f"{body}.position"] - b[f"{body}.position"])) < 1e-8
        assert np.max(np.abs(a[f"{body}.orientation"] - b[f"{body}.orientation"])) < 1e-8
    for k in range(len(kinds)):
        for what in ("reaction", "reaction_torque"):
            x, y = a[f"J{k}.{what}"], b[f"J{k}.{what}"]
            assert np.max(np.abs(x - y)) < 1e-6 * max(1.0, np.max(np.abs(x)))
