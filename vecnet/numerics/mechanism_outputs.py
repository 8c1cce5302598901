"""Named outputs of a simulated mechanism, the same for the plane and for space.

Bodies (position, velocity, angular velocity, orientation), joints (angle, distance and
the reaction from the multipliers propagated along the cutsets), what force elements
apply, drivers' efforts, gears' and racks' tooth loads and the energies. Everything is
computed in 3-D; a planar mechanism reports the x-y components of vectors and the
z-component of turns (docs/conventions.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..core.rotations import cross, euler_angles, matrix_quaternion
from ..elements.joint_laws import MeshLaw
from ..elements.planar import RollingContact
from ..elements.spatial import SpatialRollingContact
from . import tree_kernels as kernels
from .multibody import accelerations, independent_rows, solve_accelerations, velocity_constraints

if TYPE_CHECKING:
    from .mechanism import NodeKinematics

__all__ = ["outputs", "balance", "Balance", "Cutsets"]


class Cutsets:
    """What the cutset equations of a compiled mechanism need, found once: the chord part
    ``A_c`` of the cutset matrix, every element's end nodes, the gears and racks, drivers
    and rolling wheels among the chords, and the columns of the loads and rotors across
    joints (:func:`_across_columns`)."""

    def __init__(self, model) -> None:
        eom = model.eom
        net, topo = eom.mechanism.network, eom.topology
        self.model, self.topology = model, topo
        self.A_c = topo.chord_part.toarray()
        self.ends = {e.name: tuple(model.node[v] for v in net.graph.ends(e.name))
                     for e in net.elements}
        self.meshes = {c: net.element(c) for c in topo.chords
                       if isinstance(net.element(c), MeshLaw)}
        self.drivers = [c for c in topo.chords if isinstance(net.element(c), eom.driver)]
        self.wheels = [net.element(c) for c in topo.chords
                       if isinstance(net.element(c), (RollingContact, SpatialRollingContact))]
        self.across = _across_columns(model, topo)


class Balance(NamedTuple):
    """The motion and the forces of a mechanism at one instant (:func:`balance`): the
    accelerations ``a`` and multipliers ``lam``, the kinematics ``kin``, the mass matrix
    ``M`` (``None`` on the path that forms none), the constraint residuals ``phi``, what
    the force elements carry (``forces``) and each chord's multipliers apply
    (``reactions``), the wrench of every chord's multipliers (``wrench``, 6-vectors) and
    every edge's through variable ``through`` (edge -> ``(F, moment about the world
    origin)``, minus what acts on its head), the bodies' and branches' among them."""

    a: np.ndarray
    lam: np.ndarray
    kin: NodeKinematics
    M: np.ndarray | None
    phi: np.ndarray
    forces: dict
    reactions: list
    wrench: dict
    through: dict


def balance(cutsets: Cutsets, time: float, q: np.ndarray, u: np.ndarray, w: np.ndarray,
            rows: np.ndarray) -> Balance:
    """The :class:`Balance` of the mechanism of ``cutsets`` (:class:`Cutsets`) at ``(t, q,
    u)`` with the loads ``w`` across joints and the independent constraint rows ``rows``.

    The through variables of the chords (force elements, multipliers of joints and drivers)
    and of the bodies (their Newton-Euler balance) give the branches' by the cutset
    equations ``(F, M)_branches = -A_c (F, M)_chords``, moments about the world origin.
    The loads a coupled network applies across joints or between points (and the
    set-valued joint frictions' Coulomb forces), and the rotors' inertia torques, are
    elements of their own in parallel with the joints: they count as chords too (their
    columns of ``A_c`` those of an edge between their two nodes), so that a joint's
    reaction is its own and a revolute carries no torque about its axis."""
    model, topo = cutsets.model, cutsets.topology
    zero = np.zeros(3)
    across = cutsets.across
    # without rotors or loads across joints, in time linear in the size: the recursive
    # accelerations, no mass matrix, and the bodies' accelerations J u' from a walk with
    # the accelerations for speeds; else (and with beams, whose inertia is the mass
    # matrix's alone) from the mass matrix and the Jacobians
    M = None
    if not across.shape[1] and model.beams is None:
        kin, phi, forces, reactions = model.outline(time, q, u)
        a, lam = solve_accelerations(model, time, q, u, rows)
        moved = kernels.state(model.kernel_tree, q, a)
        needed = model.needed_nodes
        jw, jv = moved.w[needed], moved.v[needed]
    else:
        snap = model.evaluate(time, q, u, w=w, reactions=True)
        a, lam = accelerations(snap, rows)
        kin, phi, forces, reactions, M = snap.kin, snap.phi, snap.forces, snap.reactions, snap.M
        jw, jv = kin.Jw @ a, kin.Jv @ a
    R, r = kin.R, kin.r
    through = {}
    for name, node, m, J in model.bodies:
        k = model.row[node]
        omega = kin.w[k]
        acc = jv[k] + kin.gv[k]
        alpha = jw[k] + kin.gw[k]
        Jw = R[node] @ J @ R[node].T
        F = m * (acc - model.gravity)
        through[name] = (F, cross(r[node], F) + Jw @ alpha + cross(omega, Jw @ omega))
    if model.beams is not None:   # the nodes' shares of their elements' inertia and weight
        carried = model.beams.node_through(kin, model.row, jv + kin.gv, jw + kin.gw,
                                           model.gravity)
        for name, node, _, _ in model.bodies:
            if node in carried:
                through[name] = tuple(t + c for t, c in zip(through[name], carried[node]))
    for name, (_, F, T) in forces.items():
        through[name] = (F, cross(r[cutsets.ends[name][1]], F) + T)
    wrench: dict[str, np.ndarray] = {}
    for chord, idx, W in reactions:
        if W is not None:   # (a gear's or rack's tooth loads act along the joints' axes)
            wrench[chord] = wrench.get(chord, np.zeros(6)) + W @ lam[idx]
    for chord, W in wrench.items():   # the wrench on the head is minus the through variable
        through[chord] = (-W[3:], -W[:3])
    if topo.chords:
        Fc = np.array([through.get(c, (zero, zero))[0] for c in topo.chords])
        Mc = np.array([through.get(c, (zero, zero))[1] for c in topo.chords])
        Fb, Mb = -cutsets.A_c @ Fc, -cutsets.A_c @ Mc
    else:
        Fb = Mb = np.zeros((len(topo.branches), 3))
    if across.shape[1]:   # the loads and rotors across joints, chords of their own
        Fx, Mx = _across_through(model, kin, w, a)
        Fb, Mb = Fb - across @ Fx, Mb - across @ Mx
    through.update((b, (Fb[i], Mb[i])) for i, b in enumerate(topo.branches))
    return Balance(a, lam, kin, M, phi, forces, reactions, wrench, through)


def outputs(model, times, qs, us, ws=None, planar: bool = False) -> dict[str, np.ndarray]:
    """Named time series of a compiled mechanism (:class:`~vecnet.numerics.mechanism.
    CompiledModel`) at ``times``, coordinates ``qs`` and speeds ``us`` (columns by time);
    ``ws`` holds the loads across joints at each time (default zero). ``planar`` gives
    vectors as their x-y components and turns as numbers about z. The joints' reactions
    come from the cutset equations (:func:`balance`).
    """
    eom = model.eom
    net = eom.mechanism.network
    cutsets = Cutsets(model)
    ends, meshes, drivers, wheels = cutsets.ends, cutsets.meshes, cutsets.drivers, cutsets.wheels
    turning = [e for e in net.elements if e.is_joint and "angle" in e.coordinates]
    sliding = [e for e in net.elements if e.is_joint and "distance" in e.coordinates]
    vector = (lambda v: v[:2]) if planar else (lambda v: v)
    turn = (lambda v: v[2]) if planar else (lambda v: v)
    axes = "xy" if planar else "xyz"
    ws = np.zeros((len(model.loads), len(times))) if ws is None else ws
    series: dict[str, list] = {}
    rows = None
    for time, q, u, w in zip(times, qs.T, us.T, ws.T):
        if rows is None:
            rows = independent_rows(velocity_constraints(model, time, q)[0])
        state = balance(cutsets, time, q, u, w, rows)
        kin, lam, through = state.kin, state.lam, state.through
        R, r = kin.R, kin.r
        row = {**dict(zip(eom.coordinates, q)), **dict(zip(eom.speed_names, u))}
        # body by body; with rotors, from the mass matrix that holds their inertia too
        kinetic = 0.0 if state.M is None else 0.5 * u @ state.M @ u
        potential = model.potential(q, kin)
        row["constraint residual"] = float(np.max(np.abs(state.phi))) if len(state.phi) else 0.0
        for name, node, m, J in model.bodies:
            k = model.row[node]
            v, omega = kin.v[k], kin.w[k]
            if state.M is None:
                spin = R[node].T @ omega
                kinetic += 0.5 * (m * v @ v + spin @ J @ spin)
            row.update({f"{name}.{axis}": value for axis, value in zip(axes, r[node])})
            row.update({f"{name}.v{axis}": value for axis, value in zip(axes, v)})
            row[f"{name}.position"], row[f"{name}.velocity"] = vector(r[node]), vector(v)
            row[f"{name}.omega"] = turn(omega)
            if planar:
                row[f"{name}.angle"] = kin.state.theta[node]
            else:   # as quaternions below, all times at once
                row[f"{name}.orientation"] = R[node]
        row.update(kinetic=kinetic, potential=potential, energy=kinetic + potential)
        applied = {name: (-F, -T) for name, (_, F, T) in state.forces.items()}
        for joint in getattr(model, "friction", ()):   # a set-valued law's Coulomb part
            coordinate, tail, _, axis = joint.target
            F, T = applied.get(joint.name, (np.zeros(3), np.zeros(3)))
            along = w[joint.load] * (R[tail] @ axis)
            applied[joint.name] = (F, T + along) if coordinate == "angle" else (F + along, T)
        for name, (F, T) in applied.items():
            row[f"{name}.force"], row[f"{name}.torque"] = vector(F), turn(T)
        for chord, idx, W in state.reactions:
            if W is None:   # a gear's or rack's tooth loads, about or along each joint's axis
                element = meshes[chord]
                efforts = element.efforts(float(lam[idx][0]), model.values)
                for label, effort, axis in zip(element.efforts_named, efforts,
                                               model.effort_axes(element, kin)):
                    row[f"{chord}.{label}"] = effort if axis is None else turn(effort * axis)
            elif chord in drivers:   # a driver's multiplier is its effort along its coordinate
                row[f"{chord}.effort"] = float(lam[idx][0])
        for element in wheels:   # the contact force on the wheel, at the contact point
            force = state.wrench[element.name][3:]
            point, normal = model.contact(element, kin)
            pressing = float(normal @ force)
            row[f"{element.name}.normal_force"] = pressing
            row[f"{element.name}.traction"] = vector(force - pressing * normal)
            row[f"{element.name}.contact"] = vector(point)
        for element in net.elements:
            # with gears, part of the tooth force goes to the axles in a way the cutsets
            # do not hold (it needs the gears' geometry): no joint reactions then
            if not element.is_joint or meshes:
                continue
            name = element.name
            F, Mo = through[name]
            row[f"{name}.reaction"] = vector(-F)
            row.update({f"{name}.reaction.{axis}": value for axis, value in zip(axes, -F)})
            row[f"{name}.reaction_torque"] = turn(-(Mo - cross(r[ends[name][1]], F)))
        for element in turning:
            row[f"{element.name}.angle"] = model.joint_angle(element, kin)
        for element in sliding:   # along the axis turned with the tail, tail point to head
            tail, head = ends[element.name]
            along = R[tail] @ model.axis_vector(element.axis, "distance")
            row[f"{element.name}.distance"] = float(along @ (r[head] - r[tail]))
        for name, value in row.items():
            series.setdefault(name, []).append(value)
    out = {k: np.array(v) for k, v in series.items()}
    if not len(times):
        return out
    if model.wrapped_angles:
        for element in turning:
            out[f"{element.name}.angle"] = np.unwrap(out[f"{element.name}.angle"])
    for name, *_ in model.bodies if not planar else ():
        # quaternions continuous in time (p and -p are one rotation)
        p = out[f"{name}.orientation"] = matrix_quaternion(out[f"{name}.orientation"])
        for i in range(1, len(p)):
            if p[i] @ p[i - 1] < 0:
                p[i] = -p[i]
        out[f"{name}.euler"] = np.unwrap(euler_angles(p), axis=0)   # z-y-x (Bryant) angles
    return out


def _across_columns(model, topo) -> np.ndarray:
    """The cutset columns (branches x loads and rotors) of the loads and rotors of a coupled
    network: each acts from its tail node to its head node like an edge between them, whose
    column is ``P[:, head] - P[:, tail]`` (path matrix ``P``; a datum has no column)."""
    targets = list(model.loads) + [target for target, _ in model.rotors]
    if not targets:
        return np.zeros((len(topo.branches), 0))
    P = topo.path
    Pd = P.toarray()
    index = {model.node[node]: k for k, node in enumerate(P.columns)}
    none = np.zeros(len(topo.branches))

    def column(v: int) -> np.ndarray:
        return Pd[:, index[v]] if v in index else none

    return np.array([column(b) - column(a) for _, a, b, _ in targets]).reshape(
        len(targets), len(topo.branches)).T


def _across_through(model, kin: NodeKinematics, w: np.ndarray, acc: np.ndarray):
    """The through variables ``(F, M)`` (moments about the world origin; minus what acts on
    the head) of the loads ``w`` across joints or between points and of the rotors' inertia
    torques ``-J (g u' + gamma)`` about their joints' axes, at the accelerations ``acc``."""
    R, r = kin.R, kin.r
    loads = list(zip(model.loads, w))
    for target, J in model.rotors:
        g, gamma = model.axial_row(kin, *target)
        loads.append((target, -J * (g @ acc + gamma)))
    F, M = np.zeros((len(loads), 3)), np.zeros((len(loads), 3))
    for k, ((coordinate, a, b, axis), load) in enumerate(loads):
        if coordinate == "angle":        # a torque about the axis turned with the tail
            M[k] = -load * (R[a] @ axis)
            continue
        if coordinate == "line":         # a force pushing the two points apart
            d = r[b] - r[a]
            e = d / np.linalg.norm(d)
        else:                            # a force along the axis turned with the tail
            e = R[a] @ axis
        F[k] = -load * e
        M[k] = cross(r[b], F[k])
    return F, M
