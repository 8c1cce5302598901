"""Set-valued Coulomb friction in joints: stick and slip as modes switched by events, the
friction force bounded by the joint's normal reaction from the cutset equations.

A joint friction with ``law="set-valued"``
(:meth:`~vecnet.builders.mechanism.MechanismBuilder.joint_friction`) keeps its viscous
part in its own law; its Coulomb part ``F`` is a load across the joint (a force along a
slider's axis, a torque about a turning joint's), one of the compiled model's loads ``w``
(:attr:`~vecnet.numerics.mechanism.CompiledModel.loads`), which this module sets at every
evaluation from the modes:

* slipping with ``s = sign(v)``: ``F = -mu_k |N| s``;
* sticking: ``F`` is the force that holds the joint's acceleration ``v' = g u' + gamma``
  at zero (``g`` the joint rate's row in the speeds), its speed having been set to zero
  exactly when it stuck.

``N`` is the reaction force of the joint on its head body, from the cutset equations
(:func:`~vecnet.numerics.mechanism_outputs.balance`), less its component along the
joint's axis; a turning joint's limits are ``radius`` times these. A fixed-force law has
``|N| = 1`` and the forces for coefficients.

The accelerations, the reactions and the joint accelerations are affine in the loads: one
evaluation with no Coulomb force and one with a unit force in each friction give them
exactly, and the friction forces solve the small system

    v'_i(F) = 0                        (sticking i),
    F_j + mu_j s_j |N_j(F)| = 0        (slipping j)

by Newton's method (linear in the sticking rows; ``|N_j|`` is a norm of an affine
function, so a few steps reach roundoff). A system that has no solution or several
(Painlevé's paradoxes: friction that would need to push harder the harder it pushes) is
refused.

Events switch the modes (:func:`vecnet.numerics.multibody.integrate_partitioned` ends a
stretch of integration at each): a slipping joint whose speed crosses zero sticks when the
force holding it fits within ``mu_s |N|``, else it slips on the other way; a sticking joint
slips when the holding force reaches ``mu_s |N|``, against the holding force. Each switch
is a :class:`~vecnet.numerics.result.Event` of kind ``"mode"`` with the modes before and
after (``"stick"``, ``"slip+"``, ``"slip-"``).
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from ..elements.joint_laws import MeshLaw
from ..errors import FormulationError, SimulationError
from .result import Event

__all__ = ["CoulombJoint", "coulomb_joints", "CoulombModes", "MODE_NAMES"]

#: a mode's name by its number: 0 sticking, +1 / -1 slipping with that sign of the speed
MODE_NAMES = {0: "stick", 1: "slip+", -1: "slip-"}

#: Newton steps allowed for the friction forces at one evaluation
ITERATIONS = 50


class CoulombJoint(NamedTuple):
    """One set-valued joint friction as numbers: its ``name``, the ``joint`` it acts in,
    the index ``load`` of its Coulomb force among the model's loads, their ``target``
    ``(coordinate, tail node, head node, unit axis in the tail's axes)``, the ``kinetic``
    and ``static`` coefficients (or fixed forces, when not ``scaled`` by the normal
    reaction), the friction ``radius`` (1 for a slider) and whether the joint ``turns``
    (its friction a torque) or slides (a force)."""

    name: str
    joint: str
    load: int
    target: tuple
    kinetic: float
    static: float
    radius: float
    scaled: bool
    turns: bool


def coulomb_joints(model) -> list[CoulombJoint]:
    """The set-valued frictions of the compiled ``model``, their Coulomb forces appended to
    ``model.loads`` (called where the model sets its loads up).

    Raises
    ------
    FormulationError
        For a mechanism with gears or racks (their tooth loads leave the joints'
        reactions undetermined by the cutsets) whose friction follows the normal
        reaction, or a value that is negative or makes the static limit the smaller.
    """
    eom = model.eom
    out = []
    for element in eom.mechanism.network.elements:
        if not getattr(element, "set_valued", False):
            continue
        scaled = element.mu_kinetic is not None
        if scaled and any(isinstance(e, MeshLaw) for e in eom.mechanism.network.elements):
            raise FormulationError(
                f"joint friction {element.name!r}: its force follows the normal reaction of "
                f"{element.joint!r}, which the cutsets do not give in a mechanism with gears "
                "or racks; give it a fixed force (coulomb=, coulomb_static=) instead")
        coordinate, tail, head, axis = eom.load_target(f"{element.joint}.{element.quantity}")
        unit = model.axis_vector(axis, coordinate)
        unit = unit / np.linalg.norm(unit)
        if scaled:
            kinetic = model.number(element.mu_kinetic, element.name)
            static = model.number(element.mu_static, element.name)
        else:
            kinetic = model.number(element.coulomb, element.name)
            static = model.number(element.coulomb_static, element.name)
        radius = model.number(element.radius, element.name) if element.radius is not None \
            else 1.0
        # (runtime parameters are not a number until bound: checked again then)
        if not 0 <= kinetic <= static and not np.isnan(kinetic + static):
            which = ("mu_kinetic", "mu_static") if scaled else ("coulomb", "coulomb_static")
            raise FormulationError(
                f"joint friction {element.name!r}: needs 0 <= {which[0]} <= {which[1]}; "
                f"got {which[0]} = {kinetic:g}, {which[1]} = {static:g}")
        if radius <= 0:
            raise FormulationError(f"joint friction {element.name!r}: radius = {radius:g} must "
                                   "be more than zero")
        out.append(CoulombJoint(element.name, element.joint, len(model.loads),
                                (coordinate, model.node[tail], model.node[head], unit),
                                kinetic, static, radius if scaled else 1.0, scaled,
                                element.quantity == "angle"))
        model.loads.append(out[-1].target)
    return out


class _Linear(NamedTuple):
    """The friction problem at one state, affine in the Coulomb forces ``F``: the normal
    reactions ``N0 + B F`` (k x 3 and k x 3 x k), the joint accelerations ``vd0 + V F``,
    the accelerations ``a0 + A F`` (nu and nu x k)."""

    N0: np.ndarray
    B: np.ndarray
    vd0: np.ndarray
    V: np.ndarray
    a0: np.ndarray
    A: np.ndarray


class CoulombModes:
    """The modes of a mechanism's set-valued joint frictions over one simulation, and what
    the integrator asks of them (:func:`vecnet.numerics.multibody.integrate_partitioned`):
    the accelerations at a state under the Coulomb forces (:meth:`accelerations`), the
    events that end the present modes (:meth:`events`), the switch when one fires
    (:meth:`switch`), the modes at start and after impacts (:meth:`start`) and those of
    each output sample (:meth:`record`).

    ``tol`` is the speed (m/s, rad/s) below which a joint counts as at rest when the
    modes are decided from the state.
    """

    def __init__(self, model, time: float, q: np.ndarray, tol: float) -> None:
        from .mechanism_outputs import Cutsets
        from .multibody import independent_rows, velocity_constraints

        self.model, self.joints, self.tol = model, list(model.friction), tol
        self.cutsets = Cutsets(model)
        self.rows = independent_rows(velocity_constraints(model, time, q)[0])
        self.mode = np.zeros(len(self.joints), dtype=int)
        self.sampled: list[tuple[int, ...]] = []
        self._memo: tuple[Any, Any] = (None, None)

    # -- the friction forces ----------------------------------------------------------------
    def _state(self, time, q, u, w):
        """The joints' normal reaction vectors (k x 3), their accelerations (k) and the
        mechanism's (nu) at the loads ``w``."""
        from .mechanism_outputs import balance

        state = balance(self.cutsets, time, q, u, w, self.rows)
        R = state.kin.R
        N = np.zeros((len(self.joints), 3))
        vd = np.zeros(len(self.joints))
        for j, joint in enumerate(self.joints):
            coordinate, tail, head, axis = joint.target
            F = -state.through[joint.joint][0]        # the reaction on the head body
            e = R[tail] @ axis
            N[j] = F - (F @ e) * e
            g, gamma = self.model.axial_row(state.kin, *joint.target)
            vd[j] = g @ state.a + gamma
        return N, vd, state.a

    def _linear(self, time, q, u, w_other=None) -> _Linear:
        k = len(self.joints)
        w = np.zeros(len(self.model.loads))
        if w_other is not None:
            w[:len(w_other)] = w_other
        N0, vd0, a0 = self._state(time, q, u, w)
        B, V, A = np.zeros((k, 3, k)), np.zeros((k, k)), np.zeros((len(a0), k))
        for i, joint in enumerate(self.joints):
            wi = w.copy()
            wi[joint.load] = 1.0
            Ni, vdi, ai = self._state(time, q, u, wi)
            B[:, :, i], V[:, i], A[:, i] = Ni - N0, vdi - vd0, ai - a0
        return _Linear(N0, B, vd0, V, a0, A)

    def _scale(self, N: np.ndarray) -> np.ndarray:
        """``|N|`` of each friction (times its radius; 1 for a fixed force)."""
        return np.array([joint.radius * np.linalg.norm(n) if joint.scaled else 1.0
                         for joint, n in zip(self.joints, N)])

    def _solve(self, lin: _Linear, mode: np.ndarray, time: float) -> np.ndarray:
        """The Coulomb forces ``F`` for the modes ``mode`` (Newton's method; see the
        module)."""
        k = len(self.joints)
        kinetic = np.array([joint.kinetic for joint in self.joints])
        F = np.zeros(k)
        for _ in range(ITERATIONS):
            N = lin.N0 + lin.B @ F
            r, J = np.zeros(k), np.zeros((k, k))
            for j, joint in enumerate(self.joints):
                if mode[j] == 0:
                    r[j], J[j] = lin.vd0[j] + lin.V[j] @ F, lin.V[j]
                    continue
                size = np.linalg.norm(N[j])
                r[j] = F[j] + mode[j] * kinetic[j] * (joint.radius * size if joint.scaled
                                                       else 1.0)
                J[j, j] = 1.0
                if joint.scaled and size > 0:
                    J[j] += mode[j] * kinetic[j] * joint.radius * (N[j] / size) @ lin.B[j]
            try:
                step = np.linalg.solve(J, r)
            except np.linalg.LinAlgError:
                break
            F = F - step
            if np.max(np.abs(step)) <= 1e-14 * (1.0 + np.max(np.abs(F))):
                return F
        names = ", ".join(repr(joint.name) for joint in self.joints)
        raise SimulationError(
            f"at t = {time:.6g} the Coulomb forces of joint friction {names} have no unique "
            "value (the normal force grows with the friction force faster than friction "
            "can follow: Painlevé's paradox, or a sticking joint that no force can hold); "
            "lower the friction coefficients or give a fixed force")

    def _at(self, time, q, u, mode, w_other=None):
        """``(F, |N|, u')`` at a state in the modes ``mode``, the last one remembered (the
        integrator's events ask again at the states its steps evaluated)."""
        key = (time, q.tobytes(), u.tobytes(), mode.tobytes(),
               None if w_other is None else np.asarray(w_other).tobytes())
        if self._memo[0] == key:
            return self._memo[1]
        lin = self._linear(time, q, u, w_other)
        F = self._solve(lin, mode, time)
        out = (F, self._scale(lin.N0 + lin.B @ F), lin.a0 + lin.A @ F)
        self._memo = (key, out)
        return out

    def idle(self) -> bool:
        """Whether the present modes apply no load (never: a sticking joint is held, a
        slipping one rubs)."""
        return False

    def accelerations(self, time: float, q: np.ndarray, u: np.ndarray,
                      w_other=None) -> np.ndarray:
        """The accelerations at ``(t, q, u)`` in the present modes under the loads
        ``w_other`` of a coupled network (default none) and the Coulomb forces: affine in
        those forces, from the solves that found them (:class:`_Linear`), so that the
        integrator's right-hand side solves no more."""
        return self._at(time, q, u, self.mode, w_other)[2]

    # -- modes and events ---------------------------------------------------------------
    def _speed(self, j: int, q: np.ndarray, u: np.ndarray):
        """The speed of friction ``j``'s joint and its row ``g`` in the speeds."""
        kin = self.model.kinematics(q, u)
        g, _ = self.model.axial_row(kin, *self.joints[j].target, convective=False)
        return float(g @ u), g

    def events(self, n: int) -> list[Callable[[float, np.ndarray], float]]:
        """The terminal events that end the present modes, functions of the integrator's
        state ``y`` (coordinates first, ``n`` of them): a slipping joint's speed times its
        sign falling through zero; a sticking joint's margin ``mu_s |N| - |F|`` falling
        through zero."""
        from .multibody import normalize

        nu = len(self.model.zero_speeds)
        out: list[Any] = []
        for j, s in enumerate(self.mode.copy()):
            if s:
                def slip(tt, y, j=j, s=s):
                    return s * self._speed(j, normalize(self.model, y[:n]), y[n:n + nu])[0]
                out.append(slip)
            else:
                mode = self.mode.copy()

                def stick(tt, y, j=j, mode=mode):
                    F, size, _ = self._at(tt, normalize(self.model, y[:n]), y[n:n + nu],
                                          mode)
                    return self.joints[j].static * size[j] - abs(F[j])
                out.append(stick)
            out[-1].terminal, out[-1].direction = True, -1
        return out

    def _rest(self, j: int, time: float, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The speeds with joint ``j``'s speed made exactly zero: the impulse of a stop with
        no rebound along its rate's row (:func:`~vecnet.numerics.multibody.impact`)."""
        from .multibody import Stop, impact

        _, g = self._speed(j, q, u)
        return impact(self.model, time, q, u, Stop(self.joints[j].name, lambda q: 0.0,
                                                   lambda q: g, 0.0))

    def _fits(self, j: int, time, q, u, mode) -> tuple[bool, float]:
        """Whether joint ``j`` sticks in ``mode`` (its holding force within the static
        limit, up to roundoff) and the sign the holding force has."""
        F, size, _ = self._at(time, q, u, mode)
        limit = self.joints[j].static * size[j]
        return abs(F[j]) <= limit * (1 + 1e-12) + 1e-300, float(np.sign(F[j]))

    def start(self, time: float, q: np.ndarray, u: np.ndarray, first: bool = False):
        """Decide every mode from the state: a joint moving faster than ``tol`` slips
        with its speed's sign; the others are brought exactly to rest and stick where the
        holding forces fit, else slip against the holding force (the one furthest out
        first). Returns the speeds and the :class:`Event` of each mode changed (none when
        ``first``: the modes a run starts in are its first samples')."""
        before = self.mode.copy()
        for j in range(len(self.joints)):
            v, _ = self._speed(j, q, u)
            self.mode[j] = int(np.sign(v)) if abs(v) > self.tol else 0
            if not self.mode[j] and v != 0:
                u = self._rest(j, time, q, u)
        while True:
            worst, ratio = None, 1.0
            F, size, _ = self._at(time, q, u, self.mode)
            for j in np.flatnonzero(self.mode == 0):
                over = abs(F[j]) / max(self.joints[j].static * size[j], 1e-300)
                if over > ratio * (1 + 1e-12):
                    worst, ratio = j, over
            if worst is None:
                break
            self.mode[worst] = -int(np.sign(F[worst]))
        changed = [Event(time, joint.name, "mode", MODE_NAMES[int(a)], MODE_NAMES[int(b)])
                   for joint, a, b in zip(self.joints, before, self.mode)
                   if a != b and not first]
        return u, changed

    def switch(self, j: int, time: float, q: np.ndarray, u: np.ndarray):
        """The event of friction ``j`` fired at ``(t, q, u)``: its new mode, the speeds
        after (a joint that stops is brought exactly to rest) and the :class:`Event`."""
        before = int(self.mode[j])
        if before:   # its speed crossed zero: stick if the holding force fits
            u = self._rest(j, time, q, u)
            self.mode[j] = 0
            fits, sign = self._fits(j, time, q, u, self.mode)
            if not fits:
                self.mode[j] = -int(sign)
        else:        # the holding force reached the static limit: slip against it
            _, sign = self._fits(j, time, q, u, self.mode)
            self.mode[j] = -int(sign) or 1
        after = int(self.mode[j])
        return u, [Event(time, self.joints[j].name, "mode", MODE_NAMES[before],
                         MODE_NAMES[after])]

    def record(self, count: int) -> None:
        """The present modes for ``count`` more output samples."""
        self.sampled.extend([tuple(int(m) for m in self.mode)] * count)

    def series(self, times, qs, us) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The loads at each output sample (a column a sample) in the modes recorded for
        it, and the series ``"<name>.mode"``, ``"<name>.coulomb"`` (the Coulomb force or
        torque on the joint's head body, along or about its axis) and ``"<name>.normal"``
        (``|N|``, times the radius of a turning joint; 1 for a fixed force)."""
        k = len(self.joints)
        ws = np.zeros((len(self.model.loads), len(times)))
        mode = np.zeros((k, len(times)))
        normal = np.zeros((k, len(times)))
        for i, (time, q, u) in enumerate(zip(times, qs.T, us.T)):
            modes = np.array(self.sampled[i] if i < len(self.sampled) else self.mode)
            F, size, _ = self._at(time, q, u, modes)
            for j, joint in enumerate(self.joints):
                ws[joint.load, i] = F[j]
            mode[:, i], normal[:, i] = modes, size
        out = {}
        for j, joint in enumerate(self.joints):
            out[f"{joint.name}.mode"] = mode[j]
            out[f"{joint.name}.coulomb"] = ws[joint.load]
            out[f"{joint.name}.normal"] = normal[j]
        return ws, out

    def units(self) -> dict[str, tuple[str, str]]:
        """Name -> (quantity, unit) of the series of :meth:`series`, for plots."""
        out = {}
        for joint in self.joints:
            force = ("friction torque", "N m") if joint.turns else ("friction force", "N")
            normal = ("normal force x radius", "N m") if joint.turns and joint.scaled \
                else ("normal force", "N") if joint.scaled else ("fixed force", "1")
            out.update({f"{joint.name}.mode": ("mode", ""), f"{joint.name}.coulomb": force,
                        f"{joint.name}.normal": normal})
        return out

