"""``eom.forward_dynamics(q, u, tau)`` against Pinocchio's ``aba`` and against a Newton–Euler
solve written here with numpy, on random states of random trees (chains and branched trees
of spherical, revolute and universal joints; planar chains), and its refusals.

The Newton–Euler reference knows nothing of vecnet's tree, kernels or spatial vectors: it
walks the bodies from the ground with their rotation matrices, finds each body's angular
velocity and mass-centre velocity for the speeds (so the Jacobians column by column, from
unit speeds), the accelerations for the speeds' rates, and the generalized forces from the
virtual power of the bodies' Newton–Euler balances; ``M`` (columns from unit rates) and the
bias (zero rates) then give ``u' = M^-1 (tau - bias)``. Its joint conventions are those the
builders document: a revolute's angle about its axis, a ball joint's relative rotation as a
quaternion (w, x, y, z) with the relative angular velocity in the tail body's axes as its
speeds, a universal's two angles (the second axis, fixed in the head body, turned by the
first).
"""

from __future__ import annotations

import numpy as np
import pytest

import vecnet as vn
from vecnet.errors import ModelError

try:
    import pinocchio as pin
except ImportError:   # an optional benchmark dependency: the numpy reference still runs
    pin = None

GRAVITY = np.array([0.0, 0.0, -9.81])
KINDS = ("revolute", "spherical", "universal")


# -- random trees --------------------------------------------------------------------------
def unit(v):
    return v / np.linalg.norm(v)


def random_tree(rng, n, kinds=KINDS, chain=False):
    """Bodies 1..n, each on a joint to an earlier body (0: the ground); identity
    orientations at the initial pose. Per body: parent, joint kind, joint point P (world),
    mass centre c, mass, inertia (3 x 3 about the mass centre), axes."""
    bodies = []
    for k in range(1, n + 1):
        parent = k - 1 if chain else int(rng.integers(0, k))
        above = bodies[parent - 1]["c"] if parent else np.zeros(3)
        P = above + rng.uniform(-0.4, 0.4, 3)
        c = P + rng.uniform(-0.5, 0.5, 3)
        # a physical inertia: the second moments s of a mass distribution in random axes
        s = rng.uniform(0.005, 0.05, 3)
        axes = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        inertia = axes @ np.diag([s[1] + s[2], s[0] + s[2], s[0] + s[1]]) @ axes.T
        inertia = (inertia + inertia.T) / 2
        a = unit(rng.normal(size=3))
        f = unit(np.cross(a, rng.normal(size=3)))
        bodies.append(dict(parent=parent, kind=str(rng.choice(kinds)), P=P, c=c,
                           mass=float(rng.uniform(0.5, 2.0)), J=inertia, a=a, f=f))
    return bodies


def vecnet_tree(bodies):
    mech = vn.spatial.Mechanism("tree", gravity=tuple(GRAVITY))
    made = []
    for k, b in enumerate(bodies, start=1):
        body = mech.body(f"b{k}", b["mass"], b["J"], position=tuple(b["c"]))
        if b["parent"]:
            parent = bodies[b["parent"] - 1]
            tail = made[b["parent"] - 1].point(*(b["P"] - parent["c"]))
        else:
            tail = mech.ground.point(*b["P"])
        head = body.point(*(b["P"] - b["c"]))
        if b["kind"] == "revolute":
            mech.revolute(f"J{k}", tail, head, axis=tuple(b["a"]))
        elif b["kind"] == "spherical":
            mech.spherical(f"J{k}", tail, head)
        else:
            mech.universal(f"J{k}", tail, head, axes=(tuple(b["a"]), tuple(b["f"])))
        made.append(body)
    return mech.formulate()


def random_state(rng, bodies, speed=1.0):
    """Coordinates and speeds per body (by joint), and tau per body."""
    state = []
    for b in bodies:
        if b["kind"] == "spherical":
            q = unit(rng.normal(size=4))
            u = speed * rng.normal(size=3)
            tau = rng.normal(size=3)
        else:
            m = 1 if b["kind"] == "revolute" else 2
            q = rng.uniform(-np.pi, np.pi, m)
            u = speed * rng.normal(size=m)
            tau = rng.normal(size=m)
        state.append((q, u, tau))
    return state


def vecnet_vectors(eom, bodies, state):
    """The state in the order of ``eom.coordinates`` and ``eom.speed_names``."""
    q, u, tau = {}, {}, {}
    for k, (b, (qk, uk, tk)) in enumerate(zip(bodies, state), start=1):
        if b["kind"] == "spherical":
            names, speeds = [f"J{k}.q{x}" for x in "wxyz"], [f"J{k}.w{x}" for x in "xyz"]
        elif b["kind"] == "revolute":
            names, speeds = [f"J{k}.angle"], [f"J{k}.angle'"]
        else:
            names, speeds = [f"J{k}.angle1", f"J{k}.angle2"], [f"J{k}.angle1'", f"J{k}.angle2'"]
        q.update(zip(names, qk))
        u.update(zip(speeds, uk))
        tau.update(zip(speeds, tk))
    return (np.array([q[x] for x in eom.coordinates]), np.array([u[x] for x in eom.speed_names]),
            np.array([tau[x] for x in eom.speed_names]))


def per_body(eom, bodies, values):
    """A vector in ``eom.speed_names`` order back into one array per body."""
    by_name = dict(zip(eom.speed_names, values))
    out = []
    for k, b in enumerate(bodies, start=1):
        if b["kind"] == "spherical":
            out.append(np.array([by_name[f"J{k}.w{x}"] for x in "xyz"]))
        elif b["kind"] == "revolute":
            out.append(np.array([by_name[f"J{k}.angle'"]]))
        else:
            out.append(np.array([by_name[f"J{k}.angle1'"], by_name[f"J{k}.angle2'"]]))
    return out


# -- the numpy Newton–Euler reference ------------------------------------------------------
def skew(x):
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


def rotation(axis, angle):
    S = skew(axis)
    return np.eye(3) + np.sin(angle) * S + (1 - np.cos(angle)) * S @ S


def quaternion_matrix(p):
    w, x, y, z = p
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def joint_motion(b, q, u, ud):
    """Relative rotation, relative angular velocity and its rate (tail axes; the rate
    with the tail frame fixed)."""
    if b["kind"] == "revolute":
        return rotation(b["a"], q[0]), b["a"] * u[0], b["a"] * ud[0]
    if b["kind"] == "spherical":
        return quaternion_matrix(q), u.copy(), ud.copy()
    turn = rotation(b["a"], q[0])
    g = turn @ b["f"]              # the second axis, turned by the first angle
    R = turn @ rotation(b["f"], q[1])
    w = b["a"] * u[0] + g * u[1]
    wd = b["a"] * ud[0] + g * ud[1] + np.cross(b["a"], g) * u[0] * u[1]
    return R, w, wd


def motion(bodies, state, speeds, rates, gravity=True):
    """Every body's rotation, angular velocity and acceleration, mass-centre velocity and
    acceleration, for the coordinates of ``state`` and the given speeds and rates."""
    out = []
    for b, (q, _, _), u, ud in zip(bodies, state, speeds, rates):
        if b["parent"]:
            Rp, wp, alp, rp, vp, ap = out[b["parent"] - 1]
            dp = Rp @ (b["P"] - bodies[b["parent"] - 1]["c"])
        else:
            Rp, wp, alp = np.eye(3), np.zeros(3), np.zeros(3)
            rp, vp = np.zeros(3), np.zeros(3)
            ap = -GRAVITY if gravity else np.zeros(3)   # gravity as the ground's acceleration
            dp = b["P"]
        Rrel, wrel, wdrel = joint_motion(b, q, u, ud)
        R = Rp @ Rrel
        w = wp + Rp @ wrel
        al = alp + np.cross(wp, Rp @ wrel) + Rp @ wdrel
        s_a = ap + np.cross(alp, dp) + np.cross(wp, np.cross(wp, dp))
        y = R @ (b["c"] - b["P"])
        r = rp + dp + y
        v = vp + np.cross(wp, dp) + np.cross(w, y)
        a = s_a + np.cross(al, y) + np.cross(w, np.cross(w, y))
        out.append((R, w, al, r, v, a))
    return out


def newton_euler(bodies, state, tau):
    """``u'`` from ``M u' = tau - bias`` with ``M`` and the bias by inverse dynamics."""
    sizes = [len(u) for _, u, _ in state]
    offsets = np.cumsum([0] + sizes)
    nu = offsets[-1]
    speeds = [u for _, u, _ in state]
    zero = [np.zeros(k) for k in sizes]

    def split(x):
        return [x[offsets[i]:offsets[i + 1]] for i in range(len(sizes))]

    # the Jacobians, column by column: the velocities of unit speeds (no velocity terms)
    columns = [motion(bodies, state, split(e), zero, gravity=False) for e in np.eye(nu)]

    def generalized(kin):
        out = np.zeros(nu)
        for j in range(nu):
            for k, b in enumerate(bodies):
                R, w, al, _, _, a = kin[k]
                Jw = R @ b["J"] @ R.T
                force = b["mass"] * a
                torque = Jw @ al + np.cross(w, Jw @ w)
                out[j] += columns[j][k][4] @ force + columns[j][k][1] @ torque
        return out

    bias = generalized(motion(bodies, state, speeds, zero))
    M = np.column_stack([generalized(motion(bodies, state, zero, split(e), gravity=False))
                         for e in np.eye(nu)])
    return split(np.linalg.solve(M, np.concatenate(tau) - bias))


# -- Pinocchio's model of the same tree ------------------------------------------------------
def pinocchio_tree(bodies):
    model = pin.Model()
    model.gravity.linear = GRAVITY
    frame = [0]          # the joint that carries each body (0: the universe)
    for k, b in enumerate(bodies, start=1):
        parent = frame[b["parent"]]
        above = bodies[b["parent"] - 1]["P"] if b["parent"] else np.zeros(3)
        place = pin.SE3(np.eye(3), b["P"] - above)
        if b["kind"] == "revolute":
            jid = model.addJoint(parent, pin.JointModelRevoluteUnaligned(b["a"]), place, f"J{k}")
        elif b["kind"] == "spherical":
            jid = model.addJoint(parent, pin.JointModelSpherical(), place, f"J{k}")
        else:   # two hinges, the second on a body without inertia
            first = model.addJoint(parent, pin.JointModelRevoluteUnaligned(b["a"]), place,
                                   f"J{k}a")
            jid = model.addJoint(first, pin.JointModelRevoluteUnaligned(b["f"]),
                                 pin.SE3.Identity(), f"J{k}b")
        model.appendBodyToJoint(jid, pin.Inertia(b["mass"], b["c"] - b["P"], b["J"]),
                                pin.SE3.Identity())
        frame.append(jid)
    return model


def pinocchio_accelerations(bodies, state):
    """``u'`` per body by ``pin.aba``, in vecnet's speeds (a ball joint's Pinocchio
    velocity is in the head body's axes: ``R^T`` of vecnet's)."""
    model = pinocchio_tree(bodies)
    data = model.createData()
    q, v, tau, turns = [], [], [], []
    for b, (qk, uk, tk) in zip(bodies, state):
        if b["kind"] == "spherical":
            R = quaternion_matrix(qk)
            q.append([qk[1], qk[2], qk[3], qk[0]])
            v.append(R.T @ uk)
            tau.append(R.T @ tk)     # the same power: tau . u
            turns.append(R)
        else:
            q.append(qk)
            v.append(uk)
            tau.append(tk)
            turns.append(None)
    a = pin.aba(model, data, np.concatenate(q), np.concatenate(v), np.concatenate(tau))
    out, at = [], 0
    for R, (_, uk, _) in zip(turns, state):
        ak = a[at:at + len(uk)]
        out.append(ak if R is None else R @ ak)
        at += len(uk)
    return out


# -- the tests -----------------------------------------------------------------------------
CASES = [(kinds, n, chain, seed)
         for seed, (kinds, n, chain) in enumerate([
             (("spherical",), 4, True), (("revolute",), 5, True), (("universal",), 4, True),
             (("spherical",), 6, False), (("revolute",), 7, False), (("universal",), 5, False),
             (KINDS, 6, True), (KINDS, 8, False), (KINDS, 3, False), (KINDS, 10, False)])]


def relative_error(got, expected):
    got, expected = np.concatenate(got), np.concatenate(expected)
    return np.abs(got - expected).max() / max(1.0, np.abs(expected).max())


@pytest.mark.parametrize("kinds,n,chain,seed", CASES)
def test_forward_dynamics_matches_newton_euler_and_pinocchio(kinds, n, chain, seed):
    rng = np.random.default_rng(100 + seed)
    bodies = random_tree(rng, n, kinds, chain)
    eom = vecnet_tree(bodies)
    for _ in range(3):
        state = random_state(rng, bodies)
        q, u, tau = vecnet_vectors(eom, bodies, state)
        got = per_body(eom, bodies, eom.forward_dynamics(q, u, tau))
        assert relative_error(got, per_body(eom, bodies, np.zeros(len(u)))) > 0  # it moves
        expected = newton_euler(bodies, state, [t for _, _, t in state])
        assert relative_error(got, expected) < 1e-9
        if pin is not None:
            assert relative_error(got, pinocchio_accelerations(bodies, state)) < 1e-9
        # without tau: gravity and the velocity terms alone
        free = per_body(eom, bodies, eom.forward_dynamics(q, u))
        zero = [np.zeros_like(t) for _, _, t in state]
        assert relative_error(free, newton_euler(bodies, state, zero)) < 1e-9


def test_pinocchio_is_available_where_the_bench_extra_is_installed():
    if pin is None:
        pytest.skip("pin (Pinocchio) is not installed: compared with the numpy reference only")
    assert hasattr(pin, "aba")


@pytest.mark.parametrize("n", [1, 3, 6])
def test_planar_chain_matches_the_spatial_reference(n):
    """A vn.planar chain of pins about z is the spatial chain of revolutes about z."""
    rng = np.random.default_rng(7 + n)
    mech = vn.planar.Mechanism("chain", gravity=(0.0, GRAVITY[2]))
    bodies, made = [], []
    for k in range(1, n + 1):
        above = bodies[-1]["c"] if bodies else np.zeros(3)
        P = above + np.append(rng.uniform(-0.4, 0.4, 2), 0.0)
        c = P + np.append(rng.uniform(-0.5, 0.5, 2), 0.0)
        mass, Jz = float(rng.uniform(0.5, 2.0)), float(rng.uniform(0.01, 0.1))
        body = mech.body(f"b{k}", mass=mass, inertia=Jz, position=tuple(c[:2]))
        tail = made[-1].point(*(P - bodies[-1]["c"])[:2]) if made else mech.ground.point(*P[:2])
        mech.revolute(f"J{k}", tail, body.point(*(P - c)[:2]))
        made.append(body)
        bodies.append(dict(parent=k - 1, kind="revolute", P=P, c=c, mass=mass,
                           J=np.diag([1.0, 1.0, Jz]), a=np.array([0.0, 0.0, 1.0])))
    eom = mech.formulate()
    # the plane's y is the reference's z (a quarter turn about x): gravity along -z there
    turn = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])
    for b in bodies:
        b["P"], b["c"] = turn.T @ b["P"], turn.T @ b["c"]
        b["a"] = turn.T @ b["a"]
        b["J"] = turn.T @ b["J"] @ turn
    for _ in range(3):
        state = random_state(rng, bodies)
        q, u, tau = vecnet_vectors(eom, bodies, state)
        got = per_body(eom, bodies, eom.forward_dynamics(q, u, tau))
        assert relative_error(got, newton_euler(bodies, state, [t for _, _, t in state])) < 1e-9


def fourbar():
    mech = vn.planar.Mechanism("fourbar", gravity=(0, -9.81))
    crank = mech.body("crank", 1.0, 0.02, position=(0.0, 0.25), angle=np.pi / 2)
    coupler = mech.body("coupler", 1.5, 0.08, position=(0.5, 0.5))
    rocker = mech.body("rocker", 1.2, 0.05, position=(1.0, 0.25), angle=np.pi / 2)
    mech.revolute("A", mech.ground.point(0, 0), crank.point(-0.25, 0))
    mech.revolute("B", crank.point(0.25, 0), coupler.point(-0.5, 0))
    mech.revolute("C", coupler.point(0.5, 0), rocker.point(0.25, 0))
    mech.revolute("D", rocker.point(-0.25, 0), mech.ground.point(1.0, 0))
    return mech


def test_a_loop_is_solved_with_its_multipliers():
    """With a loop, ``u'`` keeps the loop closed (``Phi_u u' = c``) and is the explicit
    saddle-point solution with the generalized forces added."""
    from vecnet.numerics import multibody as mb

    eom = fourbar().formulate()
    model = eom.compile()
    q = eom.assemble()
    phi_u = model.constraints(0.0, q)[1]
    H = mb.tangent_basis(model, 0.0, q)
    u = H @ np.array([1.3])
    tau = np.array([0.7, -0.2, 0.4])[:len(u)]
    got = eom.forward_dynamics(q, u, tau)
    snap = model.evaluate(0.0, q, u)
    assert np.abs(phi_u @ got - snap.c).max() < 1e-10
    snap.Q = snap.Q + tau
    expected = mb.accelerations(snap, mb.independent_rows(snap.phi_q))[0]
    assert np.allclose(got, expected, rtol=1e-10, atol=1e-10)


def pendulum(mass=1.0):
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    bob = mech.body("bob", mass=mass, inertia=0.0, position=(1, 0))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    return mech


@pytest.mark.parametrize("args,words", [
    (([0.0, 0.0], [0.0]), "q must be a vector of 1 entries"),
    (([0.0], [[0.0]]), "u must be a vector of 1 entries"),
    (([0.0], [0.0], [1.0, 2.0]), "tau must be a vector of 1 entries"),
    (([np.nan], [0.0]), "q[0] (pin.angle) is nan"),
    (([0.0], [np.inf]), "u[0] (pin.angle') is inf"),
    ((["a"], [0.0]), "q must be real numbers"),
    (([1j], [0.0]), "q must be real numbers (the coordinates pin.angle); got complex"),
    (([0.0], np.array([True])), "u must be real numbers (the speeds pin.angle'); got booleans"),
    ((np.array([object()]), [0.0]), "q must be real numbers (the coordinates pin.angle); got "
                                     "objects"),
    # float arrays go to the compiled recursion first: what it refuses is told the same way
    ((np.zeros(2), np.zeros(1)), "q must be a vector of 1 entries"),
    ((np.zeros(1), np.zeros((1, 1))), "u must be a vector of 1 entries"),
    ((np.array([np.nan]), np.zeros(1)), "q[0] (pin.angle) is nan"),
    ((np.zeros(1), np.array([np.inf])), "u[0] (pin.angle') is inf"),
])
def test_bad_input_is_refused_in_words(args, words):
    with pytest.raises(ModelError) as info:
        pendulum().formulate().forward_dynamics(*args)
    assert words in str(info.value) and "pin.angle" in str(info.value)


def test_strided_and_read_only_vectors_give_the_contiguous_answer():
    """Views that are not the compiled call's contiguous float vectors take the checked
    path and agree with it: the accelerations of the spherical pendulum's chain do not
    depend on how q and u are laid out in memory."""
    rng = np.random.default_rng(5)
    bodies = random_tree(rng, 4, ("spherical",), True)
    eom = vecnet_tree(bodies)
    state = random_state(rng, bodies)
    q, u, _ = vecnet_vectors(eom, bodies, state)
    expected = eom.forward_dynamics(q, u)
    zero = [np.zeros_like(t) for _, _, t in state]
    assert relative_error(per_body(eom, bodies, expected), newton_euler(bodies, state, zero)) \
        < 1e-9
    wide = np.zeros((2, len(q)))
    wide[0] = q
    frozen = u.copy()
    frozen.flags.writeable = False
    assert np.array_equal(eom.forward_dynamics(wide[0], u), expected)
    assert np.array_equal(eom.forward_dynamics(np.asfortranarray(wide)[0], frozen), expected)
    assert np.array_equal(eom.forward_dynamics(list(q), list(u)), expected)


def test_a_parameter_without_value_is_refused_and_can_be_given():
    eom = pendulum(mass=vn.Symbol("m")).formulate()
    with pytest.raises(ModelError, match="no value for parameter"):
        eom.forward_dynamics([0.0], [0.0])
    assert np.allclose(eom.forward_dynamics([0.0], [0.0], parameters={"m": 2.0}), [-9.81])


@pytest.mark.parametrize("options, error, words", [
    ({"parameters": {"m": 1.0, "k": 2.0}}, vn.UnknownNameError, "no parameter(s) 'k'"),
    ({"parameters": {"m": "heavy"}}, ModelError, "parameter 'm' = 'heavy'"),
    ({"parameters": {"m": float("nan")}}, ModelError, "parameter 'm' = nan"),
    ({"parameters": {"m": 1.0}, "time": float("nan")}, ModelError, "time = nan"),
    ({"parameters": {"m": 1.0}, "time": "now"}, ModelError, "time = 'now'"),
])
def test_bad_parameters_and_times_are_refused_by_name(options, error, words):
    eom = pendulum(mass=vn.Symbol("m")).formulate()
    with pytest.raises(error) as info:
        eom.forward_dynamics([0.0], [0.0], **options)
    assert words in str(info.value)


def test_speeds_that_overflow_are_told_apart_from_a_missing_inertia():
    """The bob's centripetal term at 1e200 rad/s leaves double precision; a bob of zero
    mass has no inertia at all: two different messages."""
    with pytest.raises(vn.SimulationError, match="speeds this large"):
        pendulum().formulate().forward_dynamics([0.0], [1e200])
    with pytest.raises(vn.SimulationError, match="no inertia"):
        pendulum(mass=0.0).formulate().forward_dynamics([0.0], [0.0])


def test_a_zero_quaternion_is_refused():
    mech = vn.spatial.Mechanism("ball", gravity=tuple(GRAVITY))
    body = mech.body("b", 1.0, (0.1, 0.1, 0.1), position=(0, 0, -1))
    mech.spherical("J", mech.ground.point(0, 0, 0), body.point(0, 0, 1))
    with pytest.raises(ModelError, match="zero norm"):
        mech.formulate().forward_dynamics(np.zeros(4), np.zeros(3))
