"""Unilateral contacts between a body and the ground: open, struck, closed; sticking or
slipping while closed. Written once for the plane and for space.

A contact (:meth:`~vecnet.builders.mechanism.MechanismBuilder.contact`,
:class:`~vecnet.elements.joint_laws.ContactLaw`) is a sphere of radius ``r`` centred at a
point ``p`` of a body against a plane of the ground (origin ``o``, unit normal ``n``). Its
gap is the height of the sphere's lowest point, ``g(q) = n . (p - o) - r``, and its contact
point ``C = p - r n``. With ``Jc`` the Jacobian of the velocity of the body's material
point at ``C`` (``v_C = Jc u``) and ``T`` a basis of the plane's tangents (one in the
plane of a planar mechanism, two in space), the contact in each mode is:

* **open**: absent, no force; its event is ``g`` falling through zero (through minus half
  the tolerance where it rests touching, so that roundoff does not strike; for two
  spheres, the gap unfolded past their nearest point, :meth:`ContactModes._unfolded`;
  one event for all the open contacts, their least gap), an impact:
  Newton's law turns the normal speed ``n . v_C`` into ``-e`` times itself by an impulse
  along ``Jc^T n`` that keeps the mechanism's constraints and the other closed contacts
  (the impulses of :func:`~vecnet.numerics.multibody.impact`). With friction the impulse
  has a tangential part at the contact point too: the one that stops the slip if it fits
  within ``mu`` times the normal impulse (a sticking impact), else ``mu_k`` times it
  against the slip (a sliding impact), which for a sphere is Routh's impact exactly
  (:meth:`ContactModes._strike`). When the speed left would lift the sphere for less than
  a negligible time (or is below the speed tolerance) the contact closes instead, its
  normal speed brought exactly to zero by the same kind of impulse.
* **closed**: an edge of the network with the constraint ``n . a_C = -n . bias`` (the
  gap's second derivative held at zero) and its multiplier ``N``, the normal force; it
  opens when ``N`` falls through zero.
* **closed, sticking** (with friction): also ``T^T a_C = -T^T bias`` (no slip at the
  contact point, a velocity constraint), the tangential force ``lambda_t`` its
  multipliers; it slips when ``|lambda_t|`` reaches ``mu_s N``, against that force.
* **closed, slipping**: the force ``N (n - mu_k T s)`` with ``s`` the unit slip velocity
  in tangent coordinates (its direction at the start of the slip while the slip speed is
  below the speed tolerance); it sticks when the slip velocity along the direction it
  started in falls through zero and the holding force fits the cone, else slips on.

At every evaluation the accelerations and all multipliers come from one saddle-point
solve (``M`` and the mechanism's own constraints from
:meth:`~vecnet.numerics.mechanism.CompiledModel.evaluate`, the contact rows appended; a
slipping contact's force column is not its row, so the system is solved by LU). The
contact forces are then loads of the compiled model (a force along each world axis at the
body's mass centre and a torque about each, from the ground to the body), so that the
integrator's accelerations and the joints' reactions from the cutset equations include
them like any element's through variable.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

import numpy as np

from ..core.rotations import cross, cross_rows
from ..elements.joint_laws import ContactLaw
from ..errors import FormulationError, SimulationError
from . import tree_kernels as kernels
from .result import Event

if TYPE_CHECKING:
    from .mechanism import NodeKinematics

__all__ = ["UnilateralContact", "unilateral_contacts", "ContactModes", "OPEN", "STICK", "SLIP"]

#: a contact's mode: open, closed (sticking, or frictionless), closed and slipping
OPEN, STICK, SLIP = 0, 1, 2

#: the time (relative to the simulated span) below which a rebound's flight counts as
#: none: the contact closes instead of bouncing on in ever shorter hops
SHORTEST_FLIGHT = 1e-7

#: the first step after a strike, as a fraction of the rebound's flight (that of a body
#: thrown up at the normal speed against the pull there; with no pull, of the time to
#: leave by the spheres' radii): a struck contact's event starts at its strike and is
#: seen again only once it has risen above it, within that step
RESTART = 1e-3


class UnilateralContact(NamedTuple):
    """One contact as numbers: its ``name``, the ``node`` of its body's mass centre, the
    sphere centre's offset ``local`` (body axes), ``radius``, the plane's ``origin`` and
    unit ``normal`` (world), the tangents ``T`` (3 x 1 in the plane, 3 x 2 in space), the
    ``restitution``, the friction coefficients ``kinetic`` and ``static`` (``None``:
    frictionless), the ground node ``ground`` and the index ``load`` of the first of its
    six loads (force along x, y, z; torque about x, y, z). Against another body's sphere
    (``other`` its mass centre's node, else -1) the sphere's centre ``other_local`` (its
    body axes) and ``other_radius`` replace the plane, whose ``normal`` and ``T`` are then
    those at the start, and the loads ``other_load`` on and on take the force on that
    body; against a plane of another body, ``other_local`` is the plane's point and
    ``other_normal`` its normal, both in that body's axes."""

    name: str
    node: int
    local: np.ndarray
    radius: float
    origin: np.ndarray
    normal: np.ndarray
    T: np.ndarray
    restitution: float
    kinetic: float | None
    static: float | None
    ground: int
    load: int
    other: int = -1
    other_local: np.ndarray = np.zeros(3)
    other_radius: float = 0.0
    other_load: int = -1
    #: against a plane of that other body: its normal in the body's axes (the plane
    #: through ``other_local``); ``None`` against its sphere
    other_normal: np.ndarray | None = None

    @property
    def pair(self) -> bool:
        """Whether the contact is between two spheres (whose gap folds, see
        :meth:`ContactModes.events`)."""
        return self.other >= 0 and self.other_normal is None


#: the world's axes, rows (read, never written)
_AXES = np.eye(3)
_AXES.setflags(write=False)


def _tangents(normal: np.ndarray, planar: bool) -> np.ndarray:
    """An orthonormal basis (columns) of the plane normal to ``normal``; in a planar
    mechanism its one tangent in the x-y plane."""
    if planar:
        return np.array([[-normal[1]], [normal[0]], [0.0]])
    other = _AXES[int(np.argmin(np.abs(normal)))]
    t1 = cross(normal, other)
    t1 /= np.linalg.norm(t1)
    return np.column_stack([t1, cross(normal, t1)])


def unilateral_contacts(model) -> list[UnilateralContact]:
    """The contacts of the compiled ``model``, their six loads each appended to
    ``model.loads`` (called where the model sets its loads up).

    Raises
    ------
    FormulationError
        For a coefficient or restitution whose value (a parameter's) is out of range.
    """
    from ..builders.mechanism import DATUM

    eom = model.eom
    mech = eom.mechanism
    planar = mech.dimensions == 2 if hasattr(mech, "dimensions") else False
    nodes = {name: node for name, node, *_ in model.bodies}
    out = []
    for element in mech.network.elements:
        if not isinstance(element, ContactLaw):
            continue
        name = element.name
        restitution = model.number(element.restitution, name)
        radius = model.number(element.radius, name)
        kinetic = static = None
        if element.mu_kinetic is not None:
            kinetic = model.number(element.mu_kinetic, name)
            static = model.number(element.mu_static, name)
            if not 0 <= kinetic <= static and not np.isnan(kinetic + static):
                raise FormulationError(f"contact {name!r}: needs 0 <= mu_kinetic <= mu_static;"
                                       f" got {kinetic:g}, {static:g}")
        if not 0 <= restitution <= 1 and not np.isnan(restitution):
            raise FormulationError(f"contact {name!r}: restitution = {restitution:g} must lie "
                                   "in [0, 1]")
        if radius < 0:
            raise FormulationError(f"contact {name!r}: radius = {radius:g} is negative")
        normal = np.array(element.normal, dtype=float)
        other: dict[str, Any] = {}
        if element.other is None:
            ground = model.node[model.eom.mechanism.network.graph.ends(name)[0]]
        else:
            # each body takes the contact force through loads from the ground, which
            # balance there: a force and a torque about each body's own mass centre
            ground = model.node[DATUM]
            other = {"other": nodes[element.other], "other_radius":
                     model.number(element.other_radius, name), "other_local":
                     np.array(element.other_local, float), "other_load": len(model.loads) + 6,
                     "other_normal": None if element.other_normal is None
                     else np.array(element.other_normal, float)}
        contact = UnilateralContact(name, nodes[element.body], np.array(element.local, float),
                                    radius, np.array(element.origin, float), normal,
                                    _tangents(normal, planar), restitution, kinetic, static,
                                    ground, len(model.loads), **other)
        for node in (contact.node, contact.other)[:2 if other else 1]:
            for coordinate in ("distance", "angle"):
                for axis in _AXES:
                    model.loads.append((coordinate, ground, node, axis))
        out.append(contact)
    return out


class _Geometry(NamedTuple):
    """A contact at one state: the gap ``g``, the Jacobian ``Jc`` (3 x nu) of the contact
    point's velocity (relative to the other body's, against a sphere), its velocity ``v``
    and the bias ``b`` of its acceleration (``a_C = Jc u' + b`` for the material points
    that stay under the spheres, with the turning of the normal ``n`` folded into ``b``'s
    normal part so that ``n . (Jc u' + b)`` is the gap's second derivative), the lever
    ``d`` from the mass centre to the contact point and ``e`` from the other body's, the
    normal ``n`` (towards the sphere) and the tangents ``T`` at this state."""

    g: float
    Jc: np.ndarray
    v: np.ndarray
    b: np.ndarray
    d: np.ndarray
    e: np.ndarray
    n: np.ndarray
    T: np.ndarray


def _cross_columns(d: np.ndarray, J: np.ndarray) -> np.ndarray:
    """``d x J[:, k]`` for every column of ``J`` (3 x n)."""
    return np.array([d[1] * J[2] - d[2] * J[1], d[2] * J[0] - d[0] * J[2],
                     d[0] * J[1] - d[1] * J[0]])


def _surface_point(model, kin, node, local, radius, n, n_rate, u):
    """For a sphere of ``radius`` centred at ``local`` (body axes) on the body of mass
    centre ``node``, its point ``radius`` along ``-n``: the lever from the mass centre, the
    velocity Jacobian of the material point there, the bias of its acceleration, and the
    sphere centre's position and velocity."""
    k = model.row[node]
    d_p = kin.R[node] @ local                   # mass centre to sphere centre
    d = d_p - radius * n
    J_p = kin.Jv[k] - _cross_columns(d_p, kin.Jw[k])
    J = kin.Jv[k] - _cross_columns(d, kin.Jw[k])
    w = kin.w[k]
    # the point slides over the body as n turns: d' = w x d_p - radius n'
    b = (kin.gv[k] + cross(kin.gw[k], d) + cross(w, cross(w, d_p))
         - radius * cross(w, n_rate))
    return d, J, b, kin.r[node] + d_p, J_p @ u


def geometry(model, contact: UnilateralContact, kin: NodeKinematics, u: np.ndarray) -> _Geometry:
    """The :class:`_Geometry` of ``contact`` from the model's kinematics ``kin``."""
    if contact.other < 0:
        n, T, none = contact.normal, contact.T, np.zeros(3)
        d, Jc, b, p, _ = _surface_point(model, kin, contact.node, contact.local,
                                        contact.radius, n, none, u)
        g = float(n @ (p - contact.origin) - contact.radius)
        return _Geometry(g, Jc, Jc @ u, b, d, none, n, T)
    if contact.other_normal is not None:
        return _on_moving_plane(model, contact, kin, u)
    k, j = contact.node, contact.other
    pa = kin.r[k] + kin.R[k] @ contact.local
    pb = kin.r[j] + kin.R[j] @ contact.other_local
    distance = float(np.linalg.norm(pa - pb))
    n = (pa - pb) / distance                       # from the other sphere towards this one
    T = _tangents(n, contact.T.shape[1] == 1)
    zero = np.zeros(3)
    _, _, _, _, va = _surface_point(model, kin, k, contact.local, 0.0, n, zero, u)
    _, _, _, _, vb = _surface_point(model, kin, j, contact.other_local, 0.0, n, zero, u)
    n_rate = (va - vb - n * (n @ (va - vb))) / distance
    d, Ja, ba, _, _ = _surface_point(model, kin, k, contact.local, contact.radius, n, n_rate, u)
    e, Jb, bb, _, _ = _surface_point(model, kin, j, contact.other_local, -contact.other_radius,
                                     n, n_rate, u)
    Jc = Ja - Jb
    v = Jc @ u
    # g = |pa - pb| - ra - rb: g'' = n . (a_a - a_b) + n' . (v_a - v_b)
    b = ba - bb + n * float(n_rate @ v)
    return _Geometry(distance - contact.radius - contact.other_radius, Jc, v, b, d, e, n, T)


def _on_moving_plane(model, contact: UnilateralContact, kin: NodeKinematics, u: np.ndarray) -> _Geometry:
    """The :class:`_Geometry` of a sphere against a plane of another body ``j``: the
    normal ``n = R_j n_j`` turns with it, the gap is ``n . (p - P) - r`` (``p`` the sphere's
    centre, ``P`` the plane's point). The gap's rate is ``n . v`` with ``v`` the velocity of
    the sphere's material point under the contact relative to the plane's, and ``b`` holds
    both material points' accelerations as the contact point slides over each body, with
    ``n' . v`` folded into its normal part, as for two spheres."""
    k, j = contact.node, contact.other
    n = kin.R[j] @ contact.other_normal
    n = n / np.linalg.norm(n)
    T = _tangents(n, contact.T.shape[1] == 1)
    row = model.row[j]
    w_j = kin.w[row]
    n_rate = cross(w_j, n)
    d, Ja, ba, pa, va = _surface_point(model, kin, k, contact.local, contact.radius, n, n_rate,
                                       u)
    plane = kin.r[j] + kin.R[j] @ contact.other_local
    g = float(n @ (pa - plane) - contact.radius)
    # the plane's material point under the contact: lever e from j's mass centre; as the
    # contact point slides over j (at v_C = v_p - r n') it meets points of other speeds
    e = pa - contact.radius * n - kin.r[j]
    Jb = kin.Jv[row] - _cross_columns(e, kin.Jw[row])
    v_j = kin.Jv[row] @ u
    bb = kin.gv[row] + cross(kin.gw[row], e) \
        + cross(w_j, va - contact.radius * n_rate - v_j)
    Jc = Ja - Jb
    v = Jc @ u
    return _Geometry(g, Jc, v, ba - bb + n * float(n_rate @ v), d, e, n, T)


def _row_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a[k] . b[k]`` for every row of two k x 3 arrays."""
    return a[:, 0] * b[:, 0] + a[:, 1] * b[:, 1] + a[:, 2] * b[:, 2]


def _points(st, nodes: np.ndarray, local: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions and velocities (world) of the points ``local`` (body axes, k x 3) of
    the bodies whose mass centres are ``nodes``, from the walk's state ``st``."""
    arm = np.einsum("kij,kj->ki", st.R[nodes], local)
    return st.r[nodes] + arm, st.v[nodes] + cross_rows(st.w[nodes], arm)


class _Shapes(NamedTuple):
    """The contacts as arrays, so that what every open contact needs at each step (its
    gap, a pair's centres) is worked out for all at once. The spheres, each once (one
    sphere has contacts with the floor, the walls and every other sphere): the node of
    its body's mass centre ``centre_node`` and its centre ``centre_local`` (body axes).
    Each contact's ``sphere`` and ``radius``; the indices ``plane`` of those against a
    plane of the ground (its ``origin`` and ``normal``, one row each) and ``plane_row``,
    each contact's row among them (-1 for none); the indices ``pair`` of those against
    another body's sphere (that sphere ``other_sphere`` and its ``other_radius``, one row
    each) and ``slot``, each contact's row among them (-1 for none); and the indices
    ``moving`` of those against a plane of another body (one at a time: few)."""

    radius: np.ndarray
    plane: np.ndarray
    origin: np.ndarray
    normal: np.ndarray
    pair: np.ndarray
    other_radius: np.ndarray
    slot: np.ndarray
    moving: np.ndarray
    centre_node: np.ndarray
    centre_local: np.ndarray
    sphere: np.ndarray
    other_sphere: np.ndarray
    plane_row: np.ndarray

    @classmethod
    def of(cls, contacts: list[UnilateralContact]) -> "_Shapes":
        def pick(test) -> np.ndarray:
            return np.array([i for i, c in enumerate(contacts) if test(c)], dtype=int)

        def rows(values, width=3) -> np.ndarray:
            return np.array(values, dtype=float).reshape(-1, width)

        plane = pick(lambda c: c.other < 0)
        pair = pick(lambda c: c.pair)
        slot = np.full(len(contacts), -1)
        slot[pair] = np.arange(len(pair))
        plane_row = np.full(len(contacts), -1)
        plane_row[plane] = np.arange(len(plane))
        spheres: dict[tuple, int] = {}

        def sphere(node: int, local) -> int:
            return spheres.setdefault((node, *map(float, local)), len(spheres))

        own = np.array([sphere(c.node, c.local) for c in contacts], dtype=int)
        others = np.array([sphere(contacts[i].other, contacts[i].other_local) for i in pair],
                          dtype=int)
        return cls(np.array([c.radius for c in contacts], dtype=float), plane,
                   rows([contacts[i].origin for i in plane]),
                   rows([contacts[i].normal for i in plane]), pair,
                   np.array([contacts[i].other_radius for i in pair], dtype=float), slot,
                   pick(lambda c: c.other >= 0 and c.other_normal is not None),
                   np.array([key[0] for key in spheres], dtype=int),
                   rows([key[1:] for key in spheres]), own, others, plane_row)


class _Centres(NamedTuple):
    """What the open contacts' events read at one state, for a list of contacts at once:
    each one's gap ``g``, and per pair of spheres among them (in their order) the velocity
    ``v`` of the first centre relative to the other's, its product ``dot`` with their
    relative position, the ``distance`` of the centres and the ``margin`` of ``dot``'s
    roundoff (:meth:`ContactModes._closing`)."""

    g: np.ndarray
    v: np.ndarray
    dot: np.ndarray
    distance: np.ndarray
    margin: np.ndarray


class _Solution(NamedTuple):
    """Accelerations ``a``, and per contact its normal force ``N``, tangential force
    ``lt`` (tangent coordinates) and force ``f`` on the body (world)."""

    a: np.ndarray
    N: np.ndarray
    lt: list
    f: np.ndarray


class ContactModes:
    """The modes of a mechanism's unilateral contacts over one simulation, and what the
    integrator asks of them (:func:`vecnet.numerics.multibody.integrate_partitioned`, the
    same calls as :class:`~vecnet.numerics.friction.CoulombModes`): the accelerations at a
    state, solved with the contact forces (:meth:`accelerations`), the events that end the
    present modes (:meth:`events`), the switch when one fires (:meth:`switch`), the modes
    at start and after impacts (:meth:`start`) and those of each output sample
    (:meth:`record`, :meth:`series`).

    ``tol`` is the speed below which a contact counts as at rest (normally) or sticking
    (tangentially) when modes are decided from the state; ``span`` the simulated time.
    """

    def __init__(self, model, time: float, q: np.ndarray, tol: float, span: float) -> None:
        from .multibody import independent_rows, velocity_constraints

        self.model, self.contacts, self.tol = model, list(model.contacts), tol
        self.span = span
        self.rows = independent_rows(velocity_constraints(model, time, q)[0])
        k = len(self.contacts)
        self.mode = np.zeros(k, dtype=int)
        #: each slipping contact's slip direction (world axes) when it started
        self.direction: list[Any] = [None] * k
        #: each pair of spheres: whether its strike is watched on its gap unfolded past the
        #: centres' nearest point (:meth:`_strikes`); not while they recede from where
        #: they touched, until an event at their farthest point
        self.approach = np.ones(k, dtype=bool)
        #: each open contact whose gap is within the tolerance (resting against, or just
        #: struck): its strike is where the gap falls below minus half the tolerance, not
        #: zero, which its roundoff crosses at once and again (spheres touching in a row)
        self.touching = np.zeros(k, dtype=bool)
        #: each open contact whose strike function (its gap plus that margin) is not above
        #: zero where the stretch starts (just struck, rising again): it has an event of
        #: its own, as the open contacts' least one would not fall through zero while it
        #: is the least
        self.alone = np.zeros(k, dtype=bool)
        self.sampled: list[tuple] = []
        self._memo: tuple[Any, Any] = (None, None)
        self._geometry_memo: tuple[Any, Any, dict] = (None, None, {})
        self._centres_memo: tuple[Any, Any] = (None, None)
        self._spheres_memo: tuple[Any, Any] = (None, None)
        self._layout_memo: tuple[Any, Any] = (None, None)
        self._every = np.arange(k)
        #: the near contacts' list of the last stretch (:class:`_Nearest`)
        self._near_list: tuple | None = None
        self._fired: list[tuple[Any, str]] = []
        #: the first step after the last switch where it may be longer than the run's
        #: settling time (``None``: not)
        self.restart: float | None = None
        self._shapes = _Shapes.of(self.contacts)

    # -- forces -------------------------------------------------------------------------
    def _geometry(self, i: int, q, u, kin: NodeKinematics | None = None) -> _Geometry:
        """Contact ``i``'s :class:`_Geometry` at ``(q, u)``, kept for the last state (the
        forces, the loads and the events read it again); ``kin``, the kinematics at
        ``(q, u)`` where the caller has them."""
        key = (np.asarray(q).tobytes(), np.asarray(u).tobytes())
        if self._geometry_memo[0] != key:
            self._geometry_memo = (key, kin, {})
        _, held, geos = self._geometry_memo
        if i not in geos:
            if held is None:
                held = self.model.kinematics(q, u) if kin is None else kin
                self._geometry_memo = (key, held, geos)
            geos[i] = geometry(self.model, self.contacts[i], held, u)
        return geos[i]

    def _spheres(self, q, u) -> tuple[np.ndarray, ...]:
        """Every sphere's centre, velocity, speed and its body's angular velocity at
        ``(q, u)`` (:class:`_Shapes`' ``centre_node``), from the walk's positions and
        velocities alone (no Jacobians), kept for the last state."""
        key = (np.asarray(q).tobytes(), np.asarray(u).tobytes())
        if self._spheres_memo[0] != key:
            shapes = self._shapes
            st = kernels.state(self.model.kernel_tree, q, u)
            centre, velocity = _points(st, shapes.centre_node, shapes.centre_local)
            self._spheres_memo = (key, (centre, velocity, np.sqrt(_row_dot(velocity,
                                                                           velocity)),
                                        st.w[shapes.centre_node]))
        return self._spheres_memo[1]

    def _centres(self, q, u) -> _Centres:
        """The :class:`_Centres` of every contact at ``(q, u)``, kept for the last state."""
        key = (np.asarray(q).tobytes(), np.asarray(u).tobytes())
        if self._centres_memo[0] != key:
            self._centres_memo = (key, self._centres_of(q, u, self._every))
        return self._centres_memo[1]

    def _centres_of(self, q, u, which: np.ndarray) -> _Centres:
        """The :class:`_Centres` of the contacts ``which`` at ``(q, u)``."""
        centre, velocity, speed, _ = self._spheres(q, u)
        (plane_at, normal, origin, plane_sphere, plane_radius, pair_at, a, b, radii,
         moving) = self._layout(which)
        g = np.empty(len(which))
        g[plane_at] = _row_dot(normal, centre[plane_sphere] - origin) - plane_radius
        p, v = centre[a] - centre[b], velocity[a] - velocity[b]
        distance = np.sqrt(_row_dot(p, p))
        g[pair_at] = distance - radii
        for k in moving:
            g[k] = self._geometry(which[k], q, u).g
        margin = 1e-10 * distance * (speed[a] + speed[b] + distance / self.span)
        return _Centres(g, v, _row_dot(p, v), distance, margin)

    def _layout(self, which: np.ndarray) -> tuple[np.ndarray, ...]:
        """What :meth:`_centres_of` reads of the contacts ``which``, kept for the last
        list asked (an event asks of the same list at every state): the positions in
        ``which`` of the contacts against a plane of the ground, the planes' normals and
        origins, their spheres and radii; those of the pairs, their two spheres and
        radii's sums; those on another body's plane."""
        kept = self._layout_memo
        if kept[0] is which:
            return kept[1]
        shapes = self._shapes
        plane_at = np.flatnonzero(shapes.plane_row[which] >= 0)
        rows, on = shapes.plane_row[which[plane_at]], which[plane_at]
        pair_at = np.flatnonzero(shapes.slot[which] >= 0)
        slots, pairs = shapes.slot[which[pair_at]], which[pair_at]
        layout = (plane_at, shapes.normal[rows], shapes.origin[rows], shapes.sphere[on],
                  shapes.radius[on], pair_at, shapes.sphere[pairs], shapes.other_sphere[slots],
                  shapes.radius[pairs] + shapes.other_radius[slots],
                  np.flatnonzero(np.isin(which, shapes.moving)) if len(shapes.moving)
                  else np.zeros(0, dtype=int))
        self._layout_memo = (which, layout)
        return layout

    def _slips(self, q, u) -> np.ndarray:
        """Every contact's slip speed at ``(q, u)``: the tangential speed of the sphere's
        material point under the contact (relative to the other body's)."""
        shapes = self._shapes
        centre, velocity, _, omega = self._spheres(q, u)
        a, b, pair = shapes.sphere, shapes.other_sphere, shapes.pair
        n = np.zeros((len(self.contacts), 3))
        n[shapes.plane] = shapes.normal
        rel = centre[a[pair]] - centre[b]
        n[pair] = rel / np.sqrt(_row_dot(rel, rel))[:, None]
        # the material points under the contact: -r n from this sphere's centre, r_b n
        # from the other's
        v = velocity[a] - cross_rows(omega[a], shapes.radius[:, None] * n)
        v[pair] -= velocity[b] + cross_rows(omega[b], shapes.other_radius[:, None] * n[pair])
        tangential = v - n * _row_dot(n, v)[:, None]
        slip = np.sqrt(_row_dot(tangential, tangential))
        for i in shapes.moving:
            geo = self._geometry(i, q, u)
            slip[i] = np.linalg.norm(geo.T.T @ geo.v)
        return slip

    def _slip_direction(self, i: int, geo: _Geometry) -> np.ndarray:
        """Unit slip velocity of contact ``i`` in tangent coordinates (the direction it
        started in while slower than the tolerance). Past where the slip along the
        direction it started in falls through zero (the event that ends the slip), the
        direction is turned back, so that the force the integrator's step reads goes on
        smoothly: a slip that reverses on a line would otherwise flip the friction there,
        and each step across the event would be rejected until it ended just short."""
        vt = geo.T.T @ geo.v
        size = np.linalg.norm(vt)
        if self.direction[i] is None:
            return vt / size if size > 0 else np.eye(len(vt))[0]
        start = geo.T.T @ self.direction[i]
        if size > self.tol:
            return vt / size if vt @ start >= 0 else -vt / size
        return start / np.linalg.norm(start)

    def _solve(self, time, q, u, mode, w_other=None) -> _Solution:
        """Accelerations and contact forces at a state in the modes ``mode``: the closed
        contacts' rows ``G u' = g`` and force directions ``F`` (one multiplier each), then
        ``M u' - F^T lambda = Q`` with ``G u' = g`` (and the mechanism's own constraints).
        Where the mechanism has no constraints of its own and nothing coupled loads it,
        by the tree's recursion: ``a`` under its own forces and ``Y = M^-1 F^T``, then
        ``(G Y) lambda = g - G a`` (the size of the multipliers) and ``u' = a + Y lambda``,
        no ``M`` formed."""
        model = self.model
        recursive = not len(self.rows) and (w_other is None or not np.any(w_other))
        snap = None if recursive else self._snapshot(time, q, u, w_other)
        kin = model.kinematics(q, u) if snap is None else snap.kin
        G, F, g, where = self._closed_rows(q, u, mode, kin)
        out = self._recursive(time, q, u, kin, G, F, g) if recursive else None
        if out is None:   # loops, coupled loads, or what the recursion cannot answer
            if snap is None:
                snap = self._snapshot(time, q, u, w_other)
            out = self._saddle_point(snap, G, F, g)
        if out is None:
            names = ", ".join(repr(c.name) for c, m in zip(self.contacts, mode) if m != OPEN)
            raise SimulationError(
                f"at t = {time:.6g} the forces of contact {names} have no unique value (the "
                "contacts hold the body more ways than it can move, or friction makes the "
                "normal force undetermined: Painlevé's paradox)")
        a, lam = out
        N = np.zeros(len(self.contacts))
        lt: list = [None] * len(self.contacts)
        f = np.zeros((len(self.contacts), 3))
        for i, (first, size) in where.items():
            contact, geo = self.contacts[i], self._geometry(i, q, u)
            N[i] = lam[first]
            if size > 1:
                lt[i] = lam[first + 1:first + size]
                f[i] = N[i] * geo.n + geo.T @ lt[i]
            elif mode[i] == SLIP:
                f[i] = N[i] * (geo.n - contact.kinetic * geo.T @ self._slip_direction(i, geo))
            else:
                f[i] = N[i] * geo.n
        return _Solution(a, N, lt, f)

    def _closed_rows(self, q, u, mode, kin) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                     dict[int, tuple[int, int]]]:
        """The closed contacts' rows ``G`` in the speeds, their forces' directions ``F``
        (a row each, in the speeds), the rows' right-hand sides ``g`` and, per closed
        contact, its first multiplier's index and how many: a sticking contact with
        friction holds its point (normal and tangents), any other its normal speed, a
        slipping one's force leaning against its slip by ``mu_k``."""
        nu = len(u)
        rows: list[np.ndarray] = [np.zeros((0, nu))]
        cols: list[np.ndarray] = [np.zeros((0, nu))]
        rhs: list[np.ndarray] = [np.zeros(0)]
        where = {}
        count = 0
        for i in np.flatnonzero(mode != OPEN):
            contact, geo = self.contacts[i], self._geometry(i, q, u, kin)
            n, T = geo.n, geo.T
            if mode[i] == STICK and contact.kinetic is not None:
                axes = np.column_stack([n, T]).T
                rows.append(axes @ geo.Jc)
                cols.append(rows[-1])
                rhs.append(-axes @ geo.b)
            else:
                force = n.copy()
                if mode[i] == SLIP:
                    force = n - contact.kinetic * T @ self._slip_direction(i, geo)
                rows.append((n @ geo.Jc)[None])
                cols.append((force @ geo.Jc)[None])
                rhs.append(np.array([-(n @ geo.b)]))
            where[i] = (count, len(rows[-1]))
            count += len(rows[-1])
        return np.vstack(rows), np.vstack(cols), np.concatenate(rhs), where

    def _recursive(self, time, q, u, kin, G, F, g) -> tuple[np.ndarray, np.ndarray] | None:
        """``(u', lambda)`` by the tree's recursion (:meth:`_solve`); ``None`` where it
        cannot answer (inertia outside the tree's bodies, a branch without)."""
        from .multibody import solve

        model = self.model
        free = model.accelerations(time, q, u, self.rows)
        if free is None:
            return None
        a = free[0]
        if not len(g):
            return a, np.zeros(0)
        Y = self._inverse_mass(q, F.T, kin.state)
        if Y is None:
            return None
        try:
            lam = solve(G @ Y, g - G @ a)
        except np.linalg.LinAlgError:
            return None
        a = a + Y @ lam
        return (a, lam) if np.isfinite(a).all() else None

    def _snapshot(self, time, q, u, w_other):
        """The model's equations at ``(t, q, u)`` under the loads ``w_other`` of anything
        coupled (the contacts' own loads zero)."""
        w = np.zeros(len(self.model.loads))
        if w_other is not None:
            w[:len(w_other)] = w_other
        return self.model.evaluate(time, q, u, w=w)

    def _saddle_point(self, snap, G, F, g) -> tuple[np.ndarray, np.ndarray] | None:
        """``(u', lambda)`` from the equations ``snap`` (``M``, ``Q`` and the mechanism's
        constraints) with the closed contacts' rows (:meth:`_solve`); ``None`` where the
        system is singular."""
        from .multibody import solve

        nu = len(snap.Q)
        A = snap.phi_q[self.rows] if len(self.rows) else np.zeros((0, nu))
        G, F = np.vstack([A, G]), np.vstack([A, F])
        k = len(G)
        K = np.zeros((nu + k, nu + k))
        K[:nu, :nu], K[:nu, nu:], K[nu:, :nu] = snap.M, -F.T, G
        try:
            x = solve(K, np.concatenate([snap.Q, snap.c[self.rows] if len(self.rows)
                                         else np.zeros(0), g]))
        except np.linalg.LinAlgError:
            return None
        return x[:nu], x[nu + len(A):]

    def _at(self, time, q, u, mode, w_other=None) -> _Solution:
        key = (time, q.tobytes(), u.tobytes(), mode.tobytes(),
               None if w_other is None else np.asarray(w_other).tobytes())
        if self._memo[0] == key:
            return self._memo[1]
        out = self._solve(time, q, u, mode, w_other)
        self._memo = (key, out)
        return out

    def _wrenches(self, q, u, f: np.ndarray, w: np.ndarray) -> np.ndarray:
        """``w`` with the contact forces ``f`` as loads: force and torque about the mass
        centre (and against another body's sphere, the opposite force on that body)."""
        for i in np.flatnonzero(np.any(f != 0, axis=1)):
            contact, geo, force = self.contacts[i], self._geometry(i, q, u), f[i]
            w[contact.load:contact.load + 3] = force
            w[contact.load + 3:contact.load + 6] = cross(geo.d, force)
            if contact.other >= 0:
                w[contact.other_load:contact.other_load + 3] = -force
                w[contact.other_load + 3:contact.other_load + 6] = cross(geo.e, -force)
        return w

    def idle(self) -> bool:
        """Whether the present modes apply no load: every contact open (a body in flight
        between impacts), so that the motion is the mechanism's own until an event."""
        return bool(np.all(self.mode == OPEN))

    def accelerations(self, time: float, q: np.ndarray, u: np.ndarray,
                      w_other=None) -> np.ndarray:
        """The accelerations at ``(t, q, u)`` in the present modes under the loads
        ``w_other`` of anything coupled (default none): those the contact forces were
        solved with, so that the integrator's right-hand side solves once (with no contact
        closed and nothing coupled, the mechanism's own by its recursion)."""
        if w_other is None and self.idle():
            from .multibody import solve_accelerations
            return solve_accelerations(self.model, time, q, u, self.rows)[0]
        return self._at(time, q, u, self.mode, w_other).a

    # -- events ---------------------------------------------------------------------------
    def events(self, n: int) -> list[Callable[[float, np.ndarray], float]]:
        """The terminal events that end the present modes, functions of the integrator's
        state ``y`` (``n`` coordinates first), each falling through zero: the open
        contacts' least gap (one function for all: the first strike ends the stretch); a
        closed contact's normal force; a sticking one's margin ``mu_s N - |lambda_t|``; a
        slipping one's slip speed along the direction it started in; and the first pair
        of spheres receding from where they touched to turn towards each other again (the
        product of their centres' relative position and velocity falling through zero)."""
        from .multibody import normalize

        nu = len(self.model.zero_speeds)
        model = self.model
        out: list[Any] = []
        self._fired = []
        mode = self.mode.copy()

        def state(y):
            return normalize(model, y[:n]), y[n:n + nu]

        def add(event, direction: int, what, kind: str) -> None:
            event.terminal, event.direction = True, direction
            out.append(event)
            self._fired.append((what, kind))

        def strikes(which: np.ndarray) -> None:
            margin = np.where(self.touching[which], 0.5 * max(self.tol, 1e-12), 0.0)
            approach = self.approach.copy()
            least = _Nearest(self, which, margin, approach)
            add(lambda tt, y: least(*state(y)), -1, least, "gap")

        opened = np.flatnonzero(mode == OPEN)
        together = opened[~self.alone[opened]]
        if len(together):
            strikes(together)
        for i in opened[self.alone[opened]]:
            strikes(np.array([i]))
        pairs = opened[self._shapes.slot[opened] >= 0]
        leaving = pairs[~self.approach[pairs]]
        if len(leaving):
            add(lambda tt, y: float(np.min(self._closing(*state(y), leaving))), -1, leaving,
                "farthest")
        for i in np.flatnonzero(mode != OPEN):
            contact = self.contacts[i]

            def normal(tt, y, i=i):
                return self._at(tt, *state(y), mode).N[i]
            add(normal, -1, i, "normal")
            if mode[i] == STICK and contact.kinetic is not None:
                def cone(tt, y, i=i):
                    sol = self._at(tt, *state(y), mode)
                    return contact_static(self.contacts[i]) * sol.N[i] - np.linalg.norm(
                        sol.lt[i])
                add(cone, -1, i, "cone")
            if mode[i] == SLIP:
                def slip(tt, y, i=i, s0=self.direction[i]):
                    q, u = state(y)
                    return float(s0 @ self._geometry(i, q, u).v)
                add(slip, -1, i, "slip")
        return out

    def _strikes(self, q, u, which: np.ndarray, approach: np.ndarray) -> np.ndarray:
        """The gaps of the open contacts ``which``, those of pairs of spheres watched
        unfolded (``approach``) as :meth:`_unfolded` gives them."""
        at = self._centres_of(q, u, which)
        gaps = at.g
        members = np.flatnonzero(self._shapes.slot[which] >= 0)
        rows = np.flatnonzero(approach[which[members]])
        if len(rows):
            gaps[members[rows]] = self._unfolded_of(at, rows, which[members[rows]])[0]
        return gaps

    def _unfolded(self, q, u, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The gaps of the pairs of spheres ``which`` (contact indices) unfolded past their
        centres' nearest point, and whether each has passed through its other sphere.

        The distance of two spheres folds where they would pass through each other, so
        a long step could cross the whole overlap unseen. Past the nearest point (the
        product ``p . v`` of the relative position and velocity of the centres above its
        roundoff margin, :meth:`_closing`), with ``d = |p|``, ``b`` the distance of the
        relative line of motion from the other centre and ``R`` the radii's sum, the
        unfolded gap is ``(b - R) (2 - b / d)``: below zero all the way where they went
        through each other (``b < R``), above where they missed. It is the gap itself at
        the nearest point (``b = d``) and before, so it is continuous, and a step that
        carried the spheres through each other ends below zero, its strike found on the
        way in. Spheres receding from where they touched (``b < R`` from the start) are
        watched on their gap instead, until they turn (:attr:`approach`); so are spheres
        apart whose unfolded gap falls through zero as their relative motion turns (the
        event then finds their gap well above zero, :meth:`switch`)."""
        return self._unfolded_of(self._centres(q, u), self._shapes.slot[which], which)

    def _unfolded_of(self, at: _Centres, rows: np.ndarray, which: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_unfolded` of the pairs ``which``, the rows ``rows`` of ``at``."""
        dot, distance, margin = at.dot[rows], at.distance[rows], at.margin[rows]
        past = dot > margin
        along = np.zeros(len(which))
        if past.any():
            v = at.v[rows[past]]
            along[past] = (dot[past] - margin[past]) / np.sqrt(_row_dot(v, v))
        side = np.sqrt(np.maximum(distance ** 2 - along ** 2, 0.0))
        reach = self._shapes.radius[which] + self._shapes.other_radius[self._shapes.slot[which]]
        return (side - reach) * (2 - side / distance), past & (side < reach)

    def _closing(self, q, u, which: np.ndarray) -> np.ndarray:
        """``(pa - pb) . (va - vb)`` of the sphere centres of the pairs ``which`` (contact
        indices), negative while they approach, plus a margin far above its roundoff
        (``1e-10`` of its size were the centres moving at their own speeds, or the
        distance crossed over the whole span): it falls through zero where the spheres
        begin to approach, and stays positive while they rest, or move together, side by
        side, whose product is roundoff of either sign."""
        at = self._centres_of(q, u, which)
        return at.dot + at.margin

    def longest_step(self, q, u) -> float:
        """The longest step over the stretch starting at ``(q, u)``: for each open pair of
        spheres, the time their centres take to close half their radii's sum at their
        relative speed there. Over a longer step a pair's motion could turn and carry it
        through the other sphere and out unseen (a straight pass is seen,
        :meth:`_unfolded`)."""
        pairs = self._shapes.pair
        pairs = pairs[self.mode[pairs] == OPEN]
        if not len(pairs):
            return np.inf
        rows = self._shapes.slot[pairs]
        speed = np.sqrt(_row_dot(*(self._centres(q, u).v[rows],) * 2))
        reach = self._shapes.radius[pairs] + self._shapes.other_radius[rows]
        moving = speed > 0
        return float(np.min(0.5 * reach[moving] / speed[moving])) if moving.any() else np.inf

    def _fired_contact(self, j: int, q, u) -> tuple[int, str]:
        """The contact and kind of event ``j`` of :meth:`events`, fired at ``(q, u)``: of
        the open contacts' events, the one whose function gave the least value."""
        what, kind = self._fired[j]
        if kind == "gap":
            return what.first(q, u), kind
        if kind == "farthest":
            return int(what[np.argmin(self._closing(q, u, what))]), kind
        return what, kind

    def _held(self, q, u, i: int) -> list:
        """The rows whose speeds an impulse at contact ``i`` keeps: the other closed
        contacts' normal speeds."""
        return [geo.n @ geo.Jc for geo in (self._geometry(j, q, u)
                                           for j in np.flatnonzero(self.mode != OPEN)
                                           if j != i)]

    def _impulse(self, time, q, u, held: list, R: np.ndarray, F: np.ndarray,
                 change: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The speeds after impulses ``P`` along the columns ``F^T`` that change the speeds
        ``R u`` by ``change``, the mechanism's constraints and the rows ``held`` kept:

            M du = Phi_u^T L + H^T L_h + F^T P,   Phi_u du = 0,   H du = 0,   R du = change.

        Returns the new speeds and ``P``. Without the mechanism's own constraints, by the
        tree's recursion: ``du = Y_H L_h + Y_F P`` with ``Y = M^-1 [H^T F^T]``, and the
        rows' conditions a system the size of the rows."""
        nu = len(u)
        held = np.array(held).reshape(len(held), nu)
        Y = self._inverse_mass(q, np.vstack([held, F]).T) if not len(self.rows) else None
        if Y is not None:
            k = len(held)
            S = np.vstack([held, R]) @ Y
            rhs = np.concatenate([np.zeros(k), change])
            x = np.linalg.solve(S, rhs)
            return u + Y @ x, x[k:]
        snap = self.model.evaluate(time, q, u)
        A = snap.phi_q[self.rows] if len(self.rows) else np.zeros((0, nu))
        A = np.vstack([A, held])
        k, r = len(A), len(R)
        K = np.zeros((nu + k + r, nu + k + r))
        K[:nu, :nu] = snap.M
        K[:nu, nu:nu + k], K[nu:nu + k, :nu] = -A.T, A
        K[:nu, nu + k:], K[nu + k:, :nu] = -F.T, R
        rhs = np.zeros(nu + k + r)
        rhs[nu + k:] = change
        x = np.linalg.solve(K, rhs)
        return u + x[:nu], x[nu + k:]

    def _inverse_mass(self, q, columns: np.ndarray, st=None) -> np.ndarray | None:
        """``M^-1 columns`` at ``q`` by the tree's recursion, without forming ``M``; ``None``
        where it cannot answer (inertia outside the tree's bodies, a branch without);
        ``st``, the walk's state at ``q`` where the caller has it."""
        model = self.model
        if model.rotors or model.beams is not None:
            return None
        tree = model.kernel_tree
        st = kernels.state(tree, q, model.zero_speeds) if st is None else st
        out = kernels.inverse_mass(tree, st, np.ascontiguousarray(columns), model.nu)
        return out if np.isfinite(out).all() else None

    def _jump(self, time, q, u, i: int, restitution: float | None) -> np.ndarray:
        """The speeds after an impulse at contact ``i``: along its normal with Newton's
        ``restitution`` (with Coulomb friction, :meth:`_strike`), or (``None``) one that
        brings its contact point to rest; the mechanism's constraints and the other closed
        contacts' normal speeds kept."""
        contact, geo = self.contacts[i], self._geometry(i, q, u)
        held = self._held(q, u, i)
        if restitution is None:
            D = np.column_stack([geo.n, geo.T]).T @ geo.Jc
            return self._impulse(time, q, u, held, D, D, -D @ u)[0]
        if contact.kinetic is not None:
            return self._strike(time, q, u, i, restitution, held)
        row = (geo.n @ geo.Jc)[None]
        return self._impulse(time, q, u, held, row, row,
                             np.array([-(1 + restitution) * float(row[0] @ u)]))[0]

    def _strike(self, time, q, u, i: int, restitution: float, held: list) -> np.ndarray:
        """An impact with Coulomb friction at contact ``i``: a normal impulse ``P_n`` that
        turns the normal speed ``v_n`` into ``-e v_n`` (Newton), with a tangential
        impulse ``P_t`` at the contact point.

        * **sticking impact**: the impulse that also brings the slip to zero, kept when
          ``|P_t| <= mu P_n`` (``mu_kinetic`` when the contact point arrives slipping:
          the slip then stops during the impact; ``mu_static`` when it arrives at rest);
        * **sliding impact** otherwise: ``P_t = mu_kinetic P_n`` against the slip it
          arrives with (or against the sticking ``P_t`` when it arrives at rest).

        When the normal and tangential impulses are uncoupled at the contact (a sphere of
        a free body, whose contact point lies under its centre), this is Routh's
        incremental impact exactly, and Newton's, Poisson's and Stronge's restitution agree:
        the slip falls linearly with the normal impulse and stops, or not, within it. For a
        coupled contact (the end of a rod) it is the algebraic Newton-Coulomb model, which
        keeps the slip direction through the impact rather than following a slip that
        would stop or reverse partway."""
        contact, geo = self.contacts[i], self._geometry(i, q, u)
        n, T = geo.n, geo.T
        vn, vt = float(n @ geo.v), T.T @ geo.v
        D = np.column_stack([n, T]).T @ geo.Jc
        target = np.concatenate([[-(1 + restitution) * vn], -vt])
        stuck, P = self._impulse(time, q, u, held, D, D, target)
        slipping = np.linalg.norm(vt) > self.tol
        mu = contact.kinetic if slipping else contact.static
        assert mu is not None and contact.kinetic is not None
        if np.linalg.norm(P[1:]) <= mu * P[0] * (1 + 1e-12):
            return stuck
        row = (n @ geo.Jc)[None]
        if P[0] <= 0:    # closing on a speed that barely lifts: a pull, which has no friction
            return self._impulse(time, q, u, held, row, row,
                                 np.array([-(1 + restitution) * vn]))[0]
        s = vt / np.linalg.norm(vt) if slipping else -P[1:] / np.linalg.norm(P[1:])
        column = ((n - contact.kinetic * T @ s) @ geo.Jc)[None]
        return self._impulse(time, q, u, held, row, column,
                             np.array([-(1 + restitution) * vn]))[0]

    def _name(self, i: int) -> str:
        contact, mode = self.contacts[i], self.mode[i]
        if mode == OPEN:
            return "open"
        if contact.kinetic is None:
            return "closed"
        return "stick" if mode == STICK else "slip"

    def _friction_mode(self, i: int, time, q, u) -> np.ndarray:
        """Contact ``i`` just closed (or stopped slipping): slip on if its contact point
        moves faster than the tolerance, else brought to rest and sticking where the
        holding force fits, slipping against it where it does not."""
        contact = self.contacts[i]
        if contact.kinetic is None:
            self.mode[i] = STICK
            return u
        geo = self._geometry(i, q, u)
        vt = geo.T.T @ geo.v
        if np.linalg.norm(vt) > self.tol:
            self.mode[i], self.direction[i] = SLIP, geo.T @ vt / np.linalg.norm(vt)
            return u
        u = self._jump(time, q, u, i, None)
        self.mode[i] = STICK
        sol = self._at(time, q, u, self.mode)
        size = np.linalg.norm(sol.lt[i])
        if size > contact.static * sol.N[i] * (1 + 1e-12) and size > 0:
            T = self._geometry(i, q, u).T
            self.mode[i], self.direction[i] = SLIP, -T @ sol.lt[i] / size
        return u

    def _settle(self, time, q, u) -> np.ndarray:
        """Open the closed contacts that pull (the most negative normal force first)."""
        while True:
            closed = np.flatnonzero(self.mode != OPEN)
            if not len(closed):
                return u
            sol = self._at(time, q, u, self.mode)
            worst = closed[np.argmin(sol.N[closed])]
            if sol.N[worst] >= 0:
                return u
            self.mode[worst] = OPEN

    def start(self, time: float, q: np.ndarray, u: np.ndarray, first: bool = False):
        """Decide every mode from the state: a contact whose gap is within the tolerance
        and whose normal speed is not opening faster than it closes (brought exactly to
        rest normally) and stays pressed; its friction from its slip speed. Returns the
        speeds and the :class:`Event` of each mode changed (none when ``first``).

        Raises
        ------
        SimulationError
            When a sphere starts inside its plane (a negative gap beyond the tolerance).
        """
        before = [self._name(i) for i in range(len(self.contacts))]
        tol = max(self.tol, 1e-12)
        gaps = self._centres(q, u).g
        for i in np.flatnonzero(gaps < -tol)[:1]:
            raise SimulationError(f"contact {self.contacts[i].name!r} starts inside its plane"
                                  f" (gap {gaps[i]:.6g}); place the body on or above it")
        for i in range(len(self.contacts)):
            # the normal speed as the contacts decided before left it
            vn = self._normal_speed(i, q, u) if gaps[i] <= tol else np.inf
            if vn <= self.tol:
                self.mode[i] = STICK
                if vn != 0:
                    u = self._jump(time, q, u, i, 0.0)
                u = self._friction_mode(i, time, q, u)
            else:
                self.mode[i] = OPEN
        u = self._settle(time, q, u)
        self._touch(q, u)
        changed = [Event(time, c.name, "mode", a, self._name(i))
                   for i, (c, a) in enumerate(zip(self.contacts, before))
                   if a != self._name(i) and not first]
        return u, changed

    def _normal_speed(self, i: int, q, u) -> float:
        geo = self._geometry(i, q, u)
        return float(geo.n @ geo.v)

    def _touch(self, q, u, fired: int = -1) -> None:
        """Where a stretch starts: mark the open contacts whose gap is within the
        tolerance (:attr:`touching`) and those of them at or below their strike
        (:attr:`alone`), and which pairs of spheres are watched unfolded
        (:attr:`approach`): all but those that recede from where they touched and the one
        just struck or turned (``fired``); an impulse anywhere may have turned them."""
        pairs = self._shapes.pair
        pairs = pairs[pairs != fired]
        self.approach[pairs] = ~self._unfolded(q, u, pairs)[1]
        gaps = self._centres(q, u).g
        tol = max(self.tol, 1e-12)
        self.touching = (self.mode == OPEN) & (gaps <= tol)
        self.alone = self.touching & (gaps + 0.5 * tol <= 0)

    def switch(self, j: int, time: float, q: np.ndarray, u: np.ndarray):
        """Event ``j`` of :meth:`events` fired at ``(t, q, u)``: the new modes, the speeds
        after (an impact's jump, a contact brought to rest) and the :class:`Event` s."""
        i, kind = self._fired_contact(j, q, u)
        contact = self.contacts[i]
        before = self._name(i)
        happened = []
        self.restart = None
        if kind == "gap" and contact.pair and self._centres(q, u).g[i] > max(self.tol, 1e-12):
            # not a strike: spheres apart whose unfolded gap fell through zero as their
            # relative motion turned past their nearest point; watched on their gap now
            self.approach[i] = False
        elif kind == "gap":   # struck: Newton's impact, then closed if it barely rebounds
            u = self._jump(time, q, u, i, contact.restitution)
            self.approach[i] = False
            happened.append(Event(time, contact.name, "impact"))
            geo = self._geometry(i, q, u)
            vn = float(geo.n @ geo.v)
            pull = -float(geo.n @ (geo.Jc @ self.accelerations(time, q, u) + geo.b))
            # the next stretch starts with a step well within the flight, or (nothing
            # pulling back) the time to leave by a fraction of the spheres' size
            reach = contact.radius + contact.other_radius
            if pull > 0:
                self.restart = RESTART * 2 * vn / pull
            elif reach > 0 and vn > 0:
                self.restart = RESTART * reach / vn
            if vn <= self.tol or (pull > 0 and 2 * vn / pull < SHORTEST_FLIGHT * self.span):
                self.restart = None
                u = self._jump(time, q, u, i, 0.0)
                self.mode[i] = STICK
                u = self._friction_mode(i, time, q, u)
                u = self._settle(time, q, u)
        elif kind == "farthest":
            self.approach[i] = True
        else:
            # the contact lifts off, or its point starts or stops slipping: no flight to
            # leap, so that the integrator picks its first step
            self.restart = math.inf
            if kind == "normal":
                self.mode[i] = OPEN
                self.approach[i] = False
            elif kind == "cone":
                sol = self._at(time, q, u, self.mode)
                T = self._geometry(i, q, u).T
                self.mode[i], self.direction[i] = SLIP, -T @ sol.lt[i] / np.linalg.norm(
                    sol.lt[i])
            else:   # the slip speed reached zero
                self.mode[i] = STICK
                u = self._friction_mode(i, time, q, u)
        after = self._name(i)
        if after != before:
            happened.append(Event(time, contact.name, "mode", before, after))
        self._touch(q, u, i)
        return u, happened

    # -- outputs --------------------------------------------------------------------------
    def record(self, count: int) -> None:
        """The present modes for ``count`` more output samples."""
        state = (self.mode.copy(), tuple(self.direction))
        self.sampled.extend([state] * count)

    def series(self, times, qs, us, w_other=None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The loads at each output sample (a column a sample) in the modes recorded for
        it, and the series ``"<name>.gap"``, ``"<name>.normal"`` (``N``), ``"<name>.mode"``
        (0 open, 1 closed or sticking, 2 slipping), ``"<name>.force"`` (on the body, at
        the contact point) and ``"<name>.slip"`` (the contact point's tangential
        speed)."""
        k = len(self.contacts)
        ws = np.zeros((len(self.model.loads), len(times)))
        if w_other is not None:
            ws[:len(w_other)] = w_other
        gap, normal, mode, slip = (np.zeros((k, len(times))) for _ in range(4))
        force = np.zeros((k, len(times), 3))
        keep = (self.mode.copy(), list(self.direction))
        for s, (time, q, u) in enumerate(zip(times, qs.T, us.T)):
            if s < len(self.sampled):
                self.mode[:], self.direction = self.sampled[s][0], list(self.sampled[s][1])
            sol = self._at(time, q, u, self.mode, ws[:, s] if w_other is not None else None)
            ws[:, s] = self._wrenches(q, u, sol.f, ws[:, s].copy())
            gap[:, s], normal[:, s], mode[:, s] = self._centres(q, u).g, sol.N, self.mode
            force[:, s] = sol.f
            slip[:, s] = self._slips(q, u)
        self.mode[:], self.direction = keep
        planar = self.contacts and self.contacts[0].T.shape[1] == 1
        out = {}
        for i, contact in enumerate(self.contacts):
            out[f"{contact.name}.gap"] = gap[i]
            out[f"{contact.name}.normal"] = normal[i]
            out[f"{contact.name}.mode"] = mode[i]
            out[f"{contact.name}.force"] = force[i][:, :2] if planar else force[i]
            out[f"{contact.name}.slip"] = slip[i]
        return ws, out

    def units(self) -> dict[str, tuple[str, str]]:
        """Name -> (quantity, unit) of the series of :meth:`series`, for plots."""
        return {f"{contact.name}.{what}": quantity for contact in self.contacts
                for what, quantity in (("gap", ("gap", "m")), ("normal", ("normal force", "N")),
                                       ("mode", ("mode", "")), ("force", ("contact force", "N")),
                                       ("slip", ("slip speed", "m/s")))}


#: the fewest open contacts watched through a list of the near ones (:class:`_Nearest`)
NEAR_LIST = 64


class _Nearest:
    """The least strike value (:meth:`ContactModes._strikes` plus each one's margin) of the
    open contacts ``which`` over one stretch. Of many, only those whose value was within
    the ``skin`` (four times the largest radius) when the list was last made are worked
    out: the others' gaps have fallen since by at most twice the farthest any sphere's
    centre has moved, ``s`` (a pair's by both spheres' moves), so ``skin - 2 s`` bounds
    them from below, and the list is made anew before that bound falls to half the skin.
    The value's sign is then the least gap's over all the contacts (that of a pair apart
    unfolded past its nearest point aside, which no step crosses,
    :meth:`ContactModes.longest_step`), and no strike is missed. The list and where it
    was made carry over to the next stretch (positions do not jump at an event), with
    the contacts opened since added to it."""

    def __init__(self, modes: ContactModes, which: np.ndarray, margin: np.ndarray,
                 approach: np.ndarray) -> None:
        self.modes, self.which, self.margin, self.approach = modes, which, margin, approach
        shapes = modes._shapes
        self.skin = 4 * float(np.max(shapes.radius[which], initial=0.0))
        if len(shapes.other_radius):
            self.skin = max(self.skin, 4 * float(np.max(shapes.other_radius)))
        self.listed = len(which) >= NEAR_LIST and self.skin > 0
        # on another body's plane, whose turning moves it more than its sphere
        self.always = np.isin(which, shapes.moving)
        self.ref: np.ndarray | None = None
        self.near, self.near_margin = which, margin
        kept = modes._near_list
        if self.listed and kept is not None and kept[0] == self.skin:
            _, self.ref, listed, group = kept
            near = listed[which] | ~group[which] | self.always
            self.near, self.near_margin = which[near], margin[near]

    def first(self, q, u) -> int:
        """The contact whose value is the least at ``(q, u)``, where the event fired."""
        values = self.modes._strikes(q, u, self.near, self.approach) + self.near_margin
        return int(self.near[np.argmin(values)])

    def __call__(self, q, u) -> float:
        modes = self.modes
        if not self.listed:
            return float(np.min(modes._strikes(q, u, self.which, self.approach) + self.margin))
        centre = modes._spheres(q, u)[0]
        moved = 0.0 if self.ref is None else \
            float(np.sqrt(np.max(_row_dot(centre - self.ref, centre - self.ref))))
        bound = self.skin - 2 * moved
        if self.ref is None or bound < 0.5 * self.skin:
            values = modes._strikes(q, u, self.which, self.approach) + self.margin
            near = (values < self.skin) | self.always
            self.near, self.near_margin = self.which[near], self.margin[near]
            self.ref = centre.copy()
            listed, group = (np.zeros(len(modes.contacts), dtype=bool) for _ in range(2))
            listed[self.near], group[self.which] = True, True
            modes._near_list = (self.skin, self.ref, listed, group)
            return float(np.min(values))
        if not len(self.near):
            return bound
        values = modes._strikes(q, u, self.near, self.approach) + self.near_margin
        return float(min(np.min(values), bound))


def contact_static(contact: UnilateralContact) -> float:
    """The static coefficient of a contact with friction."""
    assert contact.static is not None
    return contact.static

