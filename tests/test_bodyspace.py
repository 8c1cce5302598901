"""Loops in body space against joint space.

The body-space path (:mod:`vecnet.numerics.bodyspace`) solves the constrained equations
with one spatial acceleration per rigid body as unknowns, the tree joints and the cut
joints as constraint rows and a band Cholesky of their Schur complement; the dense path
solves them in joint space (the articulated-body recursion and the dense Schur complement
of the loop rows, or the saddle-point system of ``M``). They share only the walk and the
loop constraints' wrenches, so their agreement at random states checks the grouping into
rigid bodies, the rows of every joint kind, the inertias and forces about each body's
reference point and the band solve.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import vecnet as vn
from vecnet.numerics import bodyspace as bs
from vecnet.numerics import multibody as mb

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
from loops import INITIAL, vecnet_ladder  # noqa: E402

from test_recursive import (  # noqa: E402
    random_mechanism,
    random_planar_mechanism,
    well_conditioned_state,
)


def compiled(eom, linear_algebra):
    return eom.compile_model(None, linear_algebra=linear_algebra)


def assert_body_space_agrees(eom, rng):
    """Accelerations and multipliers of the body-space path equal the saddle-point
    system's to 1e-10 (relative to the largest), and the body-space path answered."""
    model = compiled(eom, "sparse")
    assert model.m and model.solver == "sparse", model.fallback
    q, u, snap, rows = well_conditioned_state(model, rng)
    a, lam = mb.accelerations(snap, rows)
    b, mu = model.accelerations(0.2, q, u, rows)
    assert model.path_counts == {"sparse": 1, "dense": 0}
    assert np.max(np.abs(a - b)) < 1e-10 * max(1.0, np.max(np.abs(a)))
    assert np.max(np.abs(lam - mu)) < 1e-10 * max(1.0, np.max(np.abs(lam)))


@pytest.mark.parametrize("seed", range(25))
def test_body_space_accelerations_agree_on_random_spatial_loops(seed):
    mech = random_mechanism(seed)
    rng = np.random.default_rng(3000 + seed)
    screwed = any(type(e).__name__ == "SpatialScrew" for e in mech.network.elements)
    for coordinates in ("joint",) if screwed else ("joint", "absolute"):
        assert_body_space_agrees(mech.formulate(coordinates), rng)


@pytest.mark.parametrize("seed", range(25))
def test_body_space_accelerations_agree_on_random_planar_loops(seed):
    mech = random_planar_mechanism(seed)
    rng = np.random.default_rng(4000 + seed)
    for coordinates in ("joint", "absolute"):
        assert_body_space_agrees(mech.formulate(coordinates), rng)


@pytest.mark.parametrize("K", [3, 12])
def test_ladder_accelerations_agree_and_the_band_stays_narrow(K):
    """The hanging ladder of K four-bar loops (benchmarks/loops.py): the same
    accelerations and multipliers in body space at its assembled pose with random speeds,
    a Schur complement of 8K rows whose band does not grow with K."""
    eom = vecnet_ladder(K).formulate()
    dense, sparse = compiled(eom, "dense"), compiled(eom, "sparse")
    q = eom.assemble(INITIAL)
    u = np.random.default_rng(K).normal(size=dense.nu)
    rows = mb.independent_rows(dense.constraints(0.0, q)[1])
    a, lam = dense.accelerations(0.0, q, u, rows)
    b, mu = sparse.accelerations(0.0, q, u, rows)
    assert dense.path_counts["dense"] == 1 and sparse.path_counts["sparse"] == 1
    assert np.max(np.abs(a - b)) < 1e-10 * np.max(np.abs(a))
    assert np.max(np.abs(lam - mu)) < 1e-10 * np.max(np.abs(lam))
    layout = sparse.body_space().layout(rows)
    assert layout.n == 8 * K and layout.kd <= 12


def test_band_cholesky_solves_a_band_system():
    rng = np.random.default_rng(1)
    n, kd = 40, 5
    S = np.zeros((n, n))
    for i in range(n):
        for j in range(i, min(n, i + kd + 1)):
            S[i, j] = S[j, i] = rng.normal()
    S += n * np.eye(n)
    B = np.zeros((n, kd + 1))
    for j in range(n):
        for i in range(max(0, j - kd), j + 1):
            B[j, kd + i - j] = S[i, j]
    assert bs.band_cholesky(B, kd)
    b = rng.normal(size=n)
    assert np.allclose(bs.band_solve(B, kd, b.copy()), np.linalg.solve(S, b), atol=1e-13)
    B[:] = 0.0
    B[:, kd] = -1.0   # not positive definite
    assert not bs.band_cholesky(B, kd)


def four_bar(mass_of_coupler=1.0, inertia_of_coupler=0.02):
    mech = vn.planar.Mechanism("four-bar", gravity=(0, -9.81))
    crank = mech.body("crank", 1.0, 0.02, position=(0, 0.5))
    coupler = mech.body("coupler", mass_of_coupler, inertia_of_coupler, position=(0.5, 1.0))
    rocker = mech.body("rocker", 1.0, 0.02, position=(1.0, 0.5))
    mech.revolute("A", mech.ground.point(0, 0), crank.point(0, -0.5))
    mech.revolute("B", crank.point(0, 0.5), coupler.point(-0.5, 0))
    mech.revolute("C", coupler.point(0.5, 0), rocker.point(0, 0.5))
    mech.revolute("D", rocker.point(0, -0.5), mech.ground.point(1, 0))
    return mech


def test_the_choice_and_its_fallbacks():
    """Automatic: dense below six loop rows (a four-bar has two), sparse for the ladder
    of 12 loops; asked for, sparse where body space can answer, and the dense path with
    the reason where it cannot (a body without inertia, a constraint on more than two
    bodies)."""
    eom = four_bar().formulate()
    assert eom.compile_model(None).solver == "dense"
    assert "fewer than 6" in eom.compile_model(None).fallback
    assert compiled(eom, "sparse").solver == "sparse"
    assert compiled(eom, "dense").solver == "dense"
    assert compiled(vecnet_ladder(12).formulate(), "auto").solver == "sparse"
    point = four_bar(inertia_of_coupler=0.0).formulate()
    model = compiled(point, "sparse")
    assert model.solver == "dense" and "without mass or inertia" in model.fallback
    with pytest.raises(vn.ModelError, match="linear_algebra"):
        compiled(eom, "banded")


@pytest.mark.parametrize("seed", range(12))
def test_spatial_drivers_act_on_two_bodies_in_body_space(seed):
    """A spatial motion driver on a revolute, in the tree (a row of the pseudo-inverse of
    its motion subspace, on its two bodies) or cut (a torque about its axis): body space
    answers, as the saddle-point system does."""
    mech = random_mechanism(seed)
    turning = [e.name for e in mech.network.elements
               if type(e).__name__ in ("SpatialRevolute", "SpatialCylindrical")]
    if not turning:
        pytest.skip("no revolute or cylindrical joint to drive")
    mech.drive("motor", turning[seed % len(turning)], 0.4 * vn.t + 0.1 * vn.t ** 2)
    assert_body_space_agrees(mech.formulate(), np.random.default_rng(5000 + seed))


@pytest.mark.parametrize("joint", ["R1", "R2"])
def test_a_driver_on_a_tree_or_a_cut_joint_of_an_rssr(joint):
    """RSSR driven at R1 (in the tree) or at R2 (cut: the tree keeps both spherical
    joints)."""
    from test_spatial import rssr

    mech = rssr()
    mech.drive("motor", joint, 0.3 * vn.t)
    tree = None if joint == "R1" else ["crank-p1", "R1", "crank-p2", "coupler-p1", "S1",
                                         "coupler-p2", "rocker-p1", "rocker-p2", "ground-p2",
                                         "S2"]
    eom = mech.formulate("joint", tree=tree)
    assert (joint in eom.topology.chords) == (joint == "R2")
    assert_body_space_agrees(eom, np.random.default_rng(6))


def test_a_gear_keeps_the_dense_path():
    """A spatial gear's row couples two joints' coordinates (up to four bodies): the dense
    path answers, and says why."""
    mech = vn.spatial.Mechanism("pair", gravity=(0, 0, -9.81))
    a = mech.body("a", 1, (0.1, 0.1, 0.1))
    b = mech.body("b", 1, (0.2, 0.2, 0.2), position=(1, 0, 0))
    mech.revolute("A", mech.ground.point(0, 0, 0), a.centre, axis=(0, 0, 1))
    mech.revolute("B", mech.ground.point(1, 0, 0), b.centre, axis=(0, 0, 1))
    mech.gear("mesh", a, b, ratio=2)
    model = compiled(mech.formulate(), "sparse")
    assert model.solver == "dense" and "gear" in model.fallback


# -- the partition's projections -------------------------------------------------------------
def test_projections_equal_the_dense_ones_on_the_ladder():
    """From coordinates off the loops and random independent speeds, the body-space Newton
    steps and dependent speeds land where the joint-space ones do; the conditioning
    estimate is the dense measure within a small factor."""
    eom = vecnet_ladder(6).formulate()
    dense, sparse = compiled(eom, "dense"), compiled(eom, "sparse")
    q0 = eom.assemble(INITIAL)
    pd, ps = mb.Partition(dense, 0.0, q0), mb.Partition(sparse, 0.0, q0)
    assert pd.body is None and ps.body is not None
    rng = np.random.default_rng(7)
    for size in (1e-6, 1e-3, 3e-2):
        q = q0 + size * rng.normal(size=len(q0))
        uw = rng.normal(size=len(pd.ind))
        qd, ud = pd.project(0.0, q, uw)
        qs, us = ps.project(0.0, q, uw)
        assert np.max(np.abs(qd - qs)) < 1e-12
        assert np.max(np.abs(ud - us)) < 1e-10 * np.max(np.abs(ud))
        assert np.max(np.abs(sparse.constraints(0.0, qs)[0])) < 1e-12
        ratio = ps.conditioning(0.0, q) / pd.conditioning(0.0, q)
        assert 0.5 < ratio < 3.0


@pytest.mark.parametrize("seed", range(8))
def test_projections_equal_the_dense_ones_on_random_planar_loops(seed):
    eom = random_planar_mechanism(seed).formulate()
    dense, sparse = compiled(eom, "dense"), compiled(eom, "sparse")
    try:
        q0 = eom.assemble()
    except vn.FormulationError:
        pytest.skip("the random loops do not close")
    pd, ps = mb.Partition(dense, 0.0, q0), mb.Partition(sparse, 0.0, q0)
    assert ps.body is not None
    rng = np.random.default_rng(seed)
    q = q0 + 1e-4 * rng.normal(size=len(q0))
    uw = rng.normal(size=len(pd.ind))
    qd, ud = pd.project(0.0, q, uw)
    qs, us = ps.project(0.0, q, uw)
    assert np.max(np.abs(qd - qs)) < 1e-11
    assert np.max(np.abs(ud - us)) < 1e-10 * max(1.0, np.max(np.abs(ud)))
    assert 0.3 < ps.conditioning(0.0, q) / pd.conditioning(0.0, q) < 3.0


def test_the_conditioning_estimate_follows_a_four_bar_to_its_change_point():
    """A parallelogram four-bar driven toward its change point (every link in a line): the
    dependent block turns singular, and the body-space estimate follows the dense measure
    all the way down."""
    eom = four_bar().formulate()
    dense, sparse = compiled(eom, "dense"), compiled(eom, "sparse")
    q0 = eom.assemble()
    pd, ps = mb.Partition(dense, 0.0, q0), mb.Partition(sparse, 0.0, q0)
    assert ps.body is not None
    for delta in (0.5, 0.05, 1e-3):
        q = eom.assemble({"A.angle": -np.pi / 2 + delta})
        exact, estimate = pd.conditioning(0.0, q), ps.conditioning(0.0, q)
        assert abs(estimate - exact) < 0.05 * exact
    assert estimate < 1e-3


# -- simulations ------------------------------------------------------------------------------
def simulate_both(eom, t_end, **options):
    times = np.linspace(0.0, t_end, 11)
    return [eom.simulate(t_end, t_eval=times, linear_algebra=la, **options)
            for la in ("dense", "sparse")]


def test_the_ladder_moves_alike_in_body_and_joint_space():
    """The ladder of 6 loops released from its tilted pose: the same trajectory, the loops
    closed to 1e-10 on both paths, the same energy to the tolerance, and each result says
    which path ran."""
    eom = vecnet_ladder(6).formulate()
    dense, sparse = simulate_both(eom, 0.5, rtol=1e-10, atol=1e-12, initial=INITIAL)
    assert dense.linear_algebra == "dense" and sparse.linear_algebra == "sparse"
    assert "body space (sparse)" in sparse.message and "joint space" in dense.message
    assert dense.nfev == sparse.nfev
    for name in eom.coordinates + eom.speed_names:
        assert np.max(np.abs(dense[name] - sparse[name])) < 1e-8
    for res in (dense, sparse):
        assert np.max(res["constraint residual"]) <= 1e-10
        assert np.ptp(res["energy"]) < 1e-8


def test_fixed_steps_move_alike_in_body_and_joint_space():
    eom = vecnet_ladder(4).formulate()
    dense, sparse = simulate_both(eom, 0.2, method="rk4", step=1e-3, initial=INITIAL)
    assert sparse.linear_algebra == "sparse"
    for name in eom.coordinates:
        assert np.max(np.abs(dense[name] - sparse[name])) < 1e-10
    assert np.max(sparse["constraint residual"]) <= 1e-10


def test_a_spatial_loop_with_spherical_joints_moves_alike():
    """RSSR: its quaternions keep the joint-space projections, the accelerations come from
    body space."""
    from test_spatial import rssr

    eom = rssr().formulate()
    dense, sparse = simulate_both(eom, 1.0, rtol=1e-10, atol=1e-12,
                                  velocities={"R1.angle": 2.0})
    assert sparse.linear_algebra == "sparse"
    for name in eom.coordinates:
        assert np.max(np.abs(dense[name] - sparse[name])) < 1e-8
    assert np.max(sparse["constraint residual"]) <= 1e-10


def test_band_lu_solves_a_band_system_and_its_transpose():
    rng = np.random.default_rng(2)
    n, kl, ku = 30, 3, 5
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(max(0, i - kl), min(n, i + ku + 1)):
            A[i, j] = rng.normal()
    B = np.zeros((n, 2 * kl + ku + 1))
    for j in range(n):
        for i in range(max(0, j - ku), min(n, j + kl + 1)):
            B[j, kl + ku + i - j] = A[i, j]
    piv = np.zeros(n, dtype=np.int64)
    assert bs.band_lu(B, kl, ku, piv)
    b = rng.normal(size=n)
    assert np.allclose(bs.band_lu_solve(B, kl, ku, piv, b.copy()), np.linalg.solve(A, b),
                       atol=1e-10)
    assert np.allclose(bs.band_lu_solve(B, kl, ku, piv, b.copy(), True),
                       np.linalg.solve(A.T, b), atol=1e-10)
    assert not bs.band_lu(np.zeros((n, 2 * kl + ku + 1)), kl, ku, piv)


# -- the automatic choice and its report -----------------------------------------------------
def test_simulations_say_which_path_ran():
    """The ladder of 12 loops runs in body space by itself; a four-bar (two loop rows) in
    joint space, and says why; an open chain has no constrained equations to report; an
    unknown choice is refused."""
    ladder = vecnet_ladder(12).formulate().simulate(0.05, t_eval=[0.0, 0.05], initial=INITIAL)
    assert ladder.linear_algebra == "sparse" and ladder.solver == "partition"
    assert ladder.message.endswith("constrained equations solved in body space (sparse)")
    bar = four_bar().formulate().simulate(0.05, t_eval=[0.0, 0.05])
    assert bar.linear_algebra == "dense"
    assert "joint space (dense): fewer than 6 loop constraint rows" in bar.message
    forced = four_bar().formulate().simulate(0.05, t_eval=[0.0, 0.05], linear_algebra="sparse")
    assert forced.linear_algebra == "sparse"
    point = four_bar(inertia_of_coupler=0.0).formulate().simulate(
        0.05, t_eval=[0.0, 0.05], linear_algebra="sparse")
    assert point.linear_algebra == "dense" and "without mass or inertia" in point.message
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    bob = mech.body("bob", 1.0, 0.01, position=(0, -1))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
    open_chain = mech.formulate().simulate(0.05, t_eval=[0.0, 0.05])
    assert open_chain.linear_algebra == "" and "constrained" not in open_chain.message
    with pytest.raises(vn.ModelError, match="linear_algebra"):
        four_bar().formulate().simulate(0.05, linear_algebra="banded")


def test_evaluations_the_body_space_path_gives_up_are_reported(monkeypatch):
    """Where the body-space solve cannot answer an evaluation (here: every other one), the
    joint-space path does, and the result says how often and why."""
    eom = vecnet_ladder(6).formulate()
    calls = {"n": 0}
    original = bs.BodySpace.accelerations

    def flaky(self, *args):
        calls["n"] += 1
        return None if calls["n"] % 2 else original(self, *args)

    monkeypatch.setattr(bs.BodySpace, "accelerations", flaky)
    res = eom.simulate(0.05, t_eval=[0.0, 0.05], initial=INITIAL, linear_algebra="sparse")
    assert res.linear_algebra == "sparse+dense"
    assert "in joint space (dense) at" in res.message and "degenerate" in res.message


def test_the_prediction_prefers_body_space_as_the_loops_grow():
    for K, expected in ((2, "dense"), (8, "sparse"), (30, "sparse")):
        model = vecnet_ladder(K).formulate().compile()
        assert model.solver == expected
        sparse, dense = model.predicted_costs()
        assert (sparse < dense) or model.m < 6
    sparse, dense = vecnet_ladder(60).formulate().compile().predicted_costs()
    assert dense > 4 * sparse


def test_planar_drivers_and_gears_act_on_two_bodies_in_body_space():
    """A planar motion driver and a gear pair are laws in their chords' relative poses, so
    their rows are wrenches on two bodies (the gear's also on its tail's angle, a torque):
    body space answers, as the saddle-point system does."""
    mech = four_bar()
    mech.drive("motor", "A", 0.3 * vn.t)
    a = mech.body("gear_a", 1.0, 0.1, position=(3, 0))
    b = mech.body("gear_b", 1.0, 0.2, position=(4, 0))
    mech.revolute("GA", mech.ground.point(3, 0), a.centre)
    mech.revolute("GB", mech.ground.point(4, 0), b.centre)
    mech.gear("mesh", a, b, ratio=2)
    eom = mech.formulate()
    model = compiled(eom, "sparse")
    assert model.solver == "sparse"
    q, u, snap, rows = well_conditioned_state(model, np.random.default_rng(5))
    x, lam = mb.accelerations(snap, rows)
    y, mu = model.accelerations(0.2, q, u, rows)
    assert model.path_counts["sparse"] == 1
    assert np.max(np.abs(x - y)) < 1e-10 * max(1.0, np.max(np.abs(x)))
    assert np.max(np.abs(lam - mu)) < 1e-10 * max(1.0, np.max(np.abs(lam)))
    dense, sparse = simulate_both(eom, 0.5, rtol=1e-10, atol=1e-12,
                                  velocities={"GA.angle": 1.0})
    assert sparse.linear_algebra == "sparse"
    for name in eom.coordinates:
        assert np.max(np.abs(dense[name] - sparse[name])) < 1e-8


def test_redundant_loops_are_solved_on_their_independent_rows():
    """Three parallel links carrying one top: two loops, four rows, one of them redundant.
    On the independent rows (as the dense path takes them) the body-space Schur complement
    stays positive definite, and the motion is the dense path's."""
    mech = vn.planar.Mechanism("parallel", gravity=(0, -9.81))
    top = mech.body("top", 2.0, 0.3, position=(1, -1))
    for k, x in enumerate((0.0, 1.0, 2.0)):
        link = mech.body(f"l{k}", 1.0, 0.05, position=(x, -0.5))
        mech.revolute(f"G{k}", mech.ground.point(x, 0), link.point(0, 0.5))
        mech.revolute(f"T{k}", link.point(0, -0.5), top.point(x - 1, 0))
    eom = mech.formulate()
    dense, sparse = simulate_both(eom, 1.0, velocities={"G0.angle": 0.7})
    assert sparse.linear_algebra == "sparse"
    for name in eom.coordinates:
        assert np.max(np.abs(dense[name] - sparse[name])) < 1e-10
    assert np.max(sparse["constraint residual"]) <= 1e-10
