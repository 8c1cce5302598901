"""Body-axis angular speeds (``formulate(speeds="body")``): a rigid body's equations are
Euler's.

Euler's equations for a rigid body turning about its mass centre or a fixed point, with
principal moments of inertia I1, I2, I3 about that point and the angular velocity
``omega = (w1, w2, w3)`` in the body's principal axes (Goldstein, *Classical Mechanics*,
Sec. 5.6; Wittenburg, Sec. 4.1):

    I1 w1' + (I3 - I2) w2 w3 = M1,   I2 w2' + (I1 - I3) w3 w1 = M2,
    I3 w3' + (I2 - I1) w1 w2 = M3,

M the moment of the applied forces about that point in body axes. For a heavy top whose
mass centre sits at ``c = (0, 0, s)`` (body axes) from its fixed point, ``M = c x (R^T m g)``
with ``R`` the rotation of the body (body to world) and ``g`` gravity in world axes; the
moments of inertia about the fixed point are those about the mass centre with ``m s^2``
added about the two axes across ``c`` (Steiner). The tests write these independently of
vecnet — ``R`` from the Euler parameters by the textbook formula, checked against sympy's
own quaternion algebra — and require vecnet's ``M u' - Q`` to equal them exactly on the
unit quaternions (the remainder of the difference on division by the norm polynomial is
zero), and a simulation in body-axis speeds to follow the same motion as one in the
default (tail, here world) axes.
"""

import numpy as np
import pytest
import sympy
from sympy.algebras.quaternion import Quaternion

import vecnet as vn


def unit_remainder(expr, w, x, y, z):
    """``expr`` modulo the unit norm ``w^2 + x^2 + y^2 + z^2 - 1`` (the remainder of its
    division as a polynomial in ``w``), simplified: zero when ``expr`` vanishes on the unit
    quaternions."""
    expr = sympy.expand(expr)
    if not expr.has(w):
        return sympy.simplify(expr)
    norm = sympy.Poly(w**2 + x**2 + y**2 + z**2 - 1, w)
    return sympy.simplify(sympy.Poly(expr, w).rem(norm).as_expr())


def rotation(w, x, y, z):
    """The rotation matrix (body to world) of the Euler parameters ``(w, x, y, z)``, as the
    textbooks write it (Wittenburg (2.52))."""
    return sympy.Matrix([
        [w**2 + x**2 - y**2 - z**2, 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), w**2 - x**2 + y**2 - z**2, 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), w**2 - x**2 - y**2 + z**2]])


def euler_residuals(I, omega, rates, moment):
    """``I_i w_i' + (I_k - I_j) w_j w_k - M_i`` for (i, j, k) cyclic."""
    out = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        out.append(I[i] * rates[i] + (I[k] - I[j]) * omega[j] * omega[k] - moment[i])
    return out


def test_the_textbook_rotation_is_sympys():
    w, x, y, z = sympy.symbols("w x y z", real=True)
    theirs = Quaternion(w, x, y, z).to_rotation_matrix()
    for a, b in zip(rotation(w, x, y, z), theirs):
        assert unit_remainder(a - b.subs(w**2 + x**2 + y**2 + z**2, 1), w, x, y, z) == 0


m, g, A, B, C = (vn.Symbol(name) for name in ("m", "g", "A", "B", "C"))


def heavy_top(s: float, inertia=(A, B, C), tilt: float = 0.0):
    """A body on a ball joint at the origin, its mass centre s up its third axis, the axis
    tilted by ``tilt`` about the world x axis."""
    mech = vn.spatial.Mechanism("top", gravity=(0, 0, -g))
    top = mech.body("top", m, inertia, position=(0, -s * np.sin(tilt), s * np.cos(tilt)),
                    orientation=(np.cos(tilt / 2), np.sin(tilt / 2), 0, 0))
    mech.spherical("tip", mech.ground.point(0, 0, 0), top.point(0, 0, -s))
    return mech


@pytest.mark.parametrize("s", [0.25, 0.0])
def test_a_heavy_top_in_body_axes_follows_eulers_equations(s):
    eom = heavy_top(s).formulate(speeds="body")
    assert eom.speed_names == ("tip.w1", "tip.w2", "tip.w3")
    quaternion = eom.q
    omega = eom.u
    rates = sympy.symbols("r1:4")
    # Euler's equations about the fixed point, written independently
    I = (A + m * s**2, B + m * s**2, C)
    R = rotation(*quaternion)
    weight_in_body = R.T * sympy.Matrix([0, 0, -m * g])
    moment = sympy.Matrix([0, 0, s]).cross(weight_in_body)
    expected = euler_residuals(I, omega, rates, moment)
    # vecnet's M u' - Q
    got = eom.M * sympy.Matrix(rates) - eom.Q
    for a, b in zip(got, expected):
        assert unit_remainder(a - b, *quaternion) == 0
    # the mass matrix is the constant diag(I1, I2, I3): no quaternion left in it
    for i in range(3):
        for j in range(3):
            assert unit_remainder(eom.M[i, j] - (I[i] if i == j else 0), *quaternion) == 0


def test_a_torque_free_body_in_body_axes_follows_eulers_and_newtons_equations():
    mech = vn.spatial.Mechanism("free", gravity=(0, 0, -g))
    mech.body("b", m, (A, B, C))
    eom = mech.formulate(speeds="body")
    assert eom.speed_names == ("b.vx", "b.vy", "b.vz", "b.w1", "b.w2", "b.w3")
    quaternion = eom.q[3:]
    v, omega = eom.u[:3], eom.u[3:]
    rates = sympy.symbols("r1:7")
    # Newton for the mass centre in world axes, Euler about it in body axes (no moment)
    expected = [m * rates[i] - m * (-g if i == 2 else 0) for i in range(3)] \
        + euler_residuals((A, B, C), omega, rates[3:], (0, 0, 0))
    got = eom.M * sympy.Matrix(rates) - eom.Q
    for a, b in zip(got, expected):
        assert unit_remainder(a - b, *quaternion) == 0
    assert all(x == 0 for x in v if x in eom.Q.free_symbols)   # v does not enter Q


def test_the_world_axis_equations_are_not_eulers():
    """The default speeds are world-axis angular velocities: the same top's M then
    depends on its orientation (what body axes take away)."""
    eom = heavy_top(0.25).formulate()
    assert eom.speed_names == ("tip.wx", "tip.wy", "tip.wz")
    assert unit_remainder(eom.M[0, 1], *eom.q) != 0


def numeric_top():
    values = {"m": 1.5, "g": 9.81, "A": 0.02, "B": 0.025, "C": 0.03}
    return heavy_top(0.2, tilt=0.4), values


@pytest.mark.parametrize("linear_algebra", ["dense", "sparse"])
def test_body_and_world_axis_speeds_simulate_the_same_motion(linear_algebra):
    mech, values = numeric_top()
    results = {}
    for speeds in ("tail", "body"):
        eom = mech.formulate(speeds=speeds)
        results[speeds] = eom.simulate(
            0.5, t_eval=np.linspace(0, 0.5, 26), rtol=1e-12, atol=1e-13, parameters=values,
            velocities={"top.omega": (0.3, -1.0, 40.0)}, linear_algebra=linear_algebra)
    tail, body = results["tail"], results["body"]
    for name in ("top.orientation", "top.omega", "top.x", "top.z"):
        a, b = np.asarray(tail[name]), np.asarray(body[name])
        assert np.max(np.abs(a - b)) <= 1e-9 * max(1.0, np.max(np.abs(a))), name
    # the speeds are the body-axis components of the angular velocity
    R = [np.array(rotation(*p).evalf(), dtype=float) for p in body["top.orientation"]]
    in_body = np.array([Rk.T @ w for Rk, w in zip(R, body["top.omega"])])
    speeds = np.column_stack([body[f"tip.w{i}"] for i in (1, 2, 3)])
    assert np.max(np.abs(in_body - speeds)) < 1e-9 * np.max(np.abs(speeds))


def test_the_symmetric_top_keeps_its_spin():
    """With I1 = I2 Euler's third equation is I3 w3' = M3 = 0: the spin about the axis is
    constant, whatever the precession and nutation (Lagrange top)."""
    mech = heavy_top(0.25, inertia=(A, A, C), tilt=0.4)
    eom = mech.formulate(speeds="body")
    assert unit_remainder(eom.Q[2], *eom.q) == 0 and unit_remainder(eom.M[2, 2] - C, *eom.q) == 0
    res = eom.simulate(1.0, t_eval=np.linspace(0, 1, 11), rtol=1e-11, atol=1e-12,
                       parameters={"m": 1.5, "g": 9.81, "A": 0.02, "C": 0.03},
                       velocities={"tip.w1": 0.5, "tip.w2": -0.3, "tip.w3": 50.0})
    assert np.ptp(res["tip.w3"]) < 1e-9 * 50.0
    assert np.ptp(res["tip.w1"]) > 1e-3           # while the other two change


def test_symbolic_and_compiled_body_axis_models_agree():
    """The compiled kernels' M and Q in body axes are the symbolic ones."""
    mech, values = numeric_top()
    eom = mech.formulate(speeds="body")
    model = eom.compile(values)
    rng = np.random.default_rng(5)
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    u = rng.normal(size=3)
    M, Q = model.mass_and_forces(0.0, q, u)
    subs = {**dict(zip(eom.q, q)), **dict(zip(eom.u, u)),
            **{vn.Symbol(k): v for k, v in values.items()}}
    assert np.allclose(np.array(eom.M.xreplace(subs).evalf(), dtype=float), M, atol=1e-12)
    assert np.allclose(np.array(eom.Q.xreplace(subs).evalf(), dtype=float).ravel(), Q,
                       atol=1e-10)


def test_speeds_are_checked():
    with pytest.raises(vn.FormulationError, match="speeds"):
        heavy_top(0.2).formulate(speeds="world")
    planar = vn.planar.Mechanism("p")
    planar.body("b", 1.0, 0.1)
    with pytest.raises(vn.FormulationError, match="speeds='body' is for spatial"):
        planar.formulate(speeds="body")


def test_a_model_file_takes_body_axis_speeds(tmp_path):
    from pathlib import Path

    path = Path(__file__).parent.parent / "examples" / "models" / "top.json"
    model = vn.load_model(path)
    assert model.speeds == "body"
    assert model.formulate().speed_names == ("tip.w1", "tip.w2", "tip.w3")
    assert vn.model_to_dict(model)["speeds"] == "body"        # written back as read
    vn.save_model(model, tmp_path / "top.json")
    assert vn.load_model(tmp_path / "top.json").speeds == "body"
    # vn.simulate formulates a mechanism in the axes asked for
    res = vn.simulate(model.system, (0.0, 0.01), speeds="body",
                      parameters=model.element_values)
    assert len(res["tip.w3"]) == len(res.t)
