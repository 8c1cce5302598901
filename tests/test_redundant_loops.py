"""Spatial loops with redundant constraints: the Bennett linkage (a 4R loop, Gruebler -2)
and Bricard's orthogonal 6R linkage (Gruebler 0), each with one degree of freedom.

Each is checked against its closed-form loop relation and against a one-degree-of-freedom
Lagrangian written here from Denavit-Hartenberg frames alone (``m(s) s'' + m'(s) s'^2 / 2
+ V'(s) = 0``, the kinetic coefficient ``m(s)`` from complex-step derivatives of the poses),
over several periods, at the default and at tight tolerances, by coordinate partitioning
and by the DAE.

* Bennett (1903): links of lengths a, b, a, b and twists alpha, beta, alpha, beta with
  a / sin(alpha) = b / sin(beta); the joint angles obey theta3 = -theta1, theta4 = -theta2
  and tan(theta1 / 2) tan(theta2 / 2) = sin((beta + alpha) / 2) / sin((beta - alpha) / 2).
* Bricard's orthogonal linkage: six links of length 1, twists +90 and -90 degrees in turn,
  no offsets; on its threefold-symmetric branch theta1 = theta3 = theta5,
  theta2 = theta4 = theta6 and cos(theta1) + cos(theta2) + cos(theta1) cos(theta2) = 0,
  that is (1 + t^2)(1 + u^2) = 4 with t, u the tangents of the half angles: a closed curve
  that the motion goes round, parametrized here by the polar angle psi of (t, u).
"""

import functools

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import vecnet as vn

G = 9.81
ALPHA, BETA = np.radians(30.0), np.radians(60.0)
A_LEN = 0.5
B_LEN = A_LEN * np.sin(BETA) / np.sin(ALPHA)
BENNETT_K = np.sin((BETA + ALPHA) / 2) / np.sin((BETA - ALPHA) / 2)
INERTIA = (0.01, 0.02, 0.03)   # principal moments along the world axes at the start


def _dh(theta, a, alpha):
    """The Denavit-Hartenberg transform Rz(theta) Tx(a) Rx(alpha) (complex entries allowed)."""
    c, s = np.cos(theta), np.sin(theta)
    ca, sa = np.cos(alpha), np.sin(alpha)
    return np.array([[c, -s * ca, s * sa, a * c],
                     [s, c * ca, -c * sa, a * s],
                     [0 * c, sa + 0 * c, ca + 0 * c, 0 * c],
                     [0 * c, 0 * c, 0 * c, 1 + 0 * c]])


def _frames(angles, lengths, twists):
    frames = [np.eye(4, dtype=complex)]
    for theta, a, alpha in zip(angles, lengths, twists):
        frames.append(frames[-1] @ _dh(theta, a, alpha))
    return frames


class Loop:
    """A single loop of revolute joints from its DH parameters, the last link the ground;
    ``angles(s)`` gives the joint angles along the one degree of freedom ``s``."""

    def __init__(self, lengths, twists, angles, gravity):
        self.lengths, self.twists, self.angles, self.gravity = lengths, twists, angles, gravity

    def bodies(self, s):
        """Each moving link's mass centre and rotation (the frame of its first joint turned
        by that joint's angle), at ``s`` (complex allowed)."""
        frames = _frames(self.angles(s), self.lengths, self.twists)
        out = []
        for i in range(len(self.lengths) - 1):
            centre = (frames[i][:3, 3] + frames[i + 1][:3, 3]) / 2
            turn = frames[i][:3, :3] @ _dh(self.angles(s)[i], 0.0, 0.0)[:3, :3]
            out.append((centre, turn))
        return out

    def mechanism(self, s0):
        """The vecnet model, placed at ``s0``: unit masses, the inertia INERTIA."""
        frames = [f.real for f in _frames(self.angles(s0), self.lengths, self.twists)]
        mech = vn.spatial.Mechanism("loop", gravity=tuple(self.gravity))
        links = []
        for i, (centre, _) in enumerate(self.bodies(s0)):
            links.append((mech.body(f"L{i + 1}", 1.0, INERTIA, position=centre.real),
                          centre.real))

        def at(i, X):
            if i < 0 or i == len(links):
                return mech.ground.point(*X)
            body, centre = links[i]
            return body.point(*(X - centre))

        for j in range(len(self.lengths)):
            origin, axis = frames[j][:3, 3], frames[j][:3, 2]
            mech.revolute(f"J{j + 1}", at(j - 1, origin), at(j, origin), axis=axis)
        return mech

    def energy_terms(self, s, s0):
        """``(m(s), V(s), V'(s))``: ``T = m s'^2 / 2`` and the potential, the derivatives
        in ``s`` by a complex step."""
        h = 1e-20
        m, V, V_s = 0.0, 0.0, 0.0
        for (c, R), (_, R0) in zip(self.bodies(s + 1j * h), self._start(s0)):
            v = c.imag / h
            W = (R.imag / h) @ R.real.T          # the angular velocity's cross matrix
            w = np.array([W[2, 1], W[0, 2], W[1, 0]])
            turn = R.real @ R0.real.T
            J = turn @ np.diag(INERTIA) @ turn.T
            m += v @ v + w @ J @ w
            V -= np.dot(self.gravity, c.real)
            V_s -= np.dot(self.gravity, v)
        return m, V, V_s

    @functools.lru_cache(maxsize=None)
    def _start(self, s0):
        return self.bodies(s0)

    @functools.lru_cache(maxsize=None)
    def reference(self, s0, rate0, span, points):
        """``s(t)`` at ``points`` times over ``(0, span)`` from Lagrange's equation in ``s``
        (DOP853 at rtol 1e-12)."""
        def rhs(t, y):
            s, sd = y
            d = 1e-5
            m, _, V_s = self.energy_terms(s, s0)
            m_s = (self.energy_terms(s + d, s0)[0] - self.energy_terms(s - d, s0)[0]) / (2 * d)
            return [sd, -(0.5 * m_s * sd ** 2 + V_s) / m]

        times = np.linspace(0.0, span, points)
        sol = solve_ivp(rhs, (0.0, span), [s0, rate0], method="DOP853", t_eval=times,
                        rtol=1e-12, atol=1e-12)
        return sol.y[0]


def bennett_angles(s):
    t2 = 2 * np.arctan(BENNETT_K / np.tan(s / 2))
    return [s, t2, -s, -t2]


BENNETT = Loop([A_LEN, B_LEN, A_LEN, B_LEN], [ALPHA, BETA, ALPHA, BETA], bennett_angles,
               np.array([0.0, 0.0, -G]))


def bricard_angles(psi):
    a = np.sin(2 * psi) ** 2 / 4
    r = np.sqrt(6 / (1 + np.sqrt(1 + 12 * a)))    # a r^4 + r^2 = 3
    t1, t2 = 2 * np.arctan(r * np.cos(psi)), 2 * np.arctan(r * np.sin(psi))
    return [t1, t2, t1, t2, t1, t2]


BRICARD = Loop([1.0] * 6, [np.pi / 2, -np.pi / 2] * 3, bricard_angles,
               np.array([0.0, -G, 0.0]))


def _bricard_psi(t1, t2):
    return np.unwrap(np.arctan2(np.tan(t2 / 2), np.tan(t1 / 2)))


POINTS = 241
CASES = {
    # loop, start, rate of J1, span (several periods of the motion)
    "bennett": (BENNETT, 1.0, 1.0, 6.0),
    "bricard": (BRICARD, 0.6, 0.0, 10.0),
}


def _run(name, **options):
    loop, s0, rate, span = CASES[name]
    mech = loop.mechanism(s0)
    eom = mech.formulate()
    assert eom.degrees_of_freedom() == 1
    velocities = {"J1.angle": rate} if rate else {}
    res = eom.simulate(span, t_eval=np.linspace(0.0, span, POINTS), velocities=velocities,
                       **options)
    start = [float(x.real) for x in loop.angles(s0)]
    angles = [res[f"J{j + 1}.angle"] + start[j] for j in range(len(loop.lengths) - 1)]
    return loop, s0, res, angles


def _parameter(name, angles):
    if name == "bennett":
        return np.unwrap(angles[0])
    return _bricard_psi(angles[0], angles[1])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("method, rtol, bound", [
    ("partition", None, 1e-4), ("partition", 1e-11, 5e-8), ("dae", 1e-10, 1e-5)])
def test_redundant_spatial_loops_follow_their_one_degree_of_freedom(name, method, rtol, bound):
    options = {"method": method}
    if rtol is not None:
        options.update(rtol=rtol, atol=rtol)
    loop, s0, res, angles = _run(name, **options)
    assert res.t[-1] == pytest.approx(CASES[name][3])
    # the closed-form loop relations hold at every output, to the projection's roundoff
    if name == "bennett":
        t1, t2, t3 = angles
        assert np.abs(np.sin((t1 + t3) / 2)).max() < 1e-9
        relation = np.tan(t1 / 2) * np.tan(t2 / 2) / BENNETT_K - 1
        assert np.abs(relation[np.abs(np.tan(t1 / 2)) > 0.1]).max() < 1e-8
    else:
        t1, t2, t3, t4, t5 = angles
        for a, b in ((t1, t3), (t3, t5), (t2, t4)):
            assert np.abs(np.sin((a - b) / 2)).max() < 1e-9
        assert np.abs(np.cos(t1) + np.cos(t2) + np.cos(t1) * np.cos(t2)).max() < 1e-9
    # the motion goes round (or through) its configuration curve, as Lagrange's equation
    # in one coordinate says: to the local tolerance times the thousands of steps of several
    # periods (the reference's own error, from its central differences, is about 5e-9)
    s = _parameter(name, angles)
    assert np.ptp(s) > 1.0
    reference = loop.reference(s0, CASES[name][2], CASES[name][3], POINTS)
    assert np.abs(s - reference).max() < bound
    energy = res["energy"]
    assert np.ptp(energy) < 0.1 * bound * np.abs(energy).max() + 1e-12
