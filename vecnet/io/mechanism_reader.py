"""Planar and spatial mechanisms from model files: bodies and their points, joints,
force elements, drives, initial values and outputs (``docs/model-format.md``).

The parts both dimensions share are read once (:class:`MechanismReader`);
:class:`PlanarReader` and :class:`SpatialReader` add what differs (the pose of a body,
the joints, rotary springs). A spatial file's loops are closed in its initial pose when it
is read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import sympy

from ..builders.model import Model
from ..builders.planar import DATUM, Mechanism
from ..builders.spatial import Mechanism as SpatialMechanism
from ..core.names import check_name
from ..core.rotations import inertia_matrix, orientation_matrix, unit_axis
from ..elements.base import Symbol
from ..elements.beam import Material, Section
from ..elements.joints import JOINTS
from ..elements.spatial import SpatialMotionDriver
from ..errors import ModelFileError, VecnetError
from .reading import (
    FileLaw,
    Scope,
    as_number,
    read_simulation,
    read_tree,
    suggestion,
    unique_name,
    unique_outputs,
)
from .source import located, pointer

__all__ = ["MechanismReader", "PlanarReader", "SpatialReader", "read_mechanism"]

_BODY_QUANTITIES = ("x", "y", "angle", "vx", "vy", "omega")
_MECHANISM_RESULTS = ("kinetic", "potential", "energy", "constraint residual")


def _error(location: str, message: str) -> ModelFileError:
    return ModelFileError(message, location=location)


class MechanismReader:
    """What planar and spatial mechanism files share: names, point and body references,
    points, masses, springs, dampers, applied torques and forces, drives, initial values.
    :class:`PlanarReader` and :class:`SpatialReader` add what differs (the pose of a
    body, joints, rotary springs)."""

    #: the mechanism builder, the gravity it gets when the file gives none, and the
    #: joint kinds a drive may act on
    builder: type = Mechanism
    default_gravity: tuple[float, ...] = (0.0, -9.81)
    drivable: tuple[str, ...] = ("revolute", "prismatic")

    def __init__(self, doc: Mapping, scope: Scope) -> None:
        self.doc, self.scope = doc, scope
        # numbers: the numeric models read gravity as floats
        gravity = scope.vector(doc.get("gravity", self.default_gravity), "/gravity")
        self.mech = self.builder(doc.get("name", "mechanism"), gravity=gravity)
        self.points: dict[str, Any] = {}
        self.names: dict[str, str] = {DATUM: "the ground frame"}
        self.joints: dict[str, str] = {}

    def not_negative(self, value: Any, loc: str, what: str, name: str) -> Any:
        """Stiffness and damping of a mechanism: zero (none) or more, also when given as
        declared parameters with values."""
        number = as_number(value, self.scope)
        if number is not None and number < 0:
            raise _error(loc, f"{what} of {name!r} must be zero or more; got {number:g}")
        return value

    def call(self, loc: str, method, *args, **kwargs):
        try:
            return method(*args, **kwargs)
        except VecnetError as exc:
            raise located(loc, exc) from None

    def point(self, ref: str, loc: str):
        body_name, dot, pname = ref.partition(".")
        if body_name == DATUM:
            body = self.mech.ground
        elif body_name in self.mech.bodies:
            body = self.mech.bodies[body_name]
        else:
            raise _error(loc, f"unknown body {body_name!r}{suggestion(body_name, self.mech.bodies)}; "
                              f"bodies are {', '.join(self.mech.bodies)} and ground")
        if not dot:
            return body.centre
        key = f"{body_name}.{pname}"
        if key not in self.points:
            own = [k.partition(".")[2] for k in self.points if k.startswith(body_name + ".")]
            raise _error(loc, f"{body_name} has no point {pname!r}"
                              + (f"; its points are {', '.join(own)}" if own else
                                 "; declare it under the body's \"points\""))
        return self.points[key]

    def body(self, ref: str, loc: str, ground: bool = False):
        if ref == DATUM and ground:
            return self.mech.ground
        if ref not in self.mech.bodies:
            extra = " and ground" if ground else ""
            raise _error(loc, f"unknown body {ref!r}{suggestion(ref, self.mech.bodies)}; bodies are "
                              f"{', '.join(self.mech.bodies)}{extra}")
        return self.mech.bodies[ref]

    def joint_ref(self, joint: str, loc: str, kinds: tuple[str, ...], what: str) -> str:
        """A reference to a joint of the file, of one of the ``kinds`` that ``what`` (a
        drive, a rotary spring) acts on."""
        if joint not in self.joints:
            raise _error(loc, f"unknown joint {joint!r}{suggestion(joint, self.joints)}")
        if self.joints[joint] not in kinds:
            raise _error(loc, f"only {', '.join(kinds[:-1])} and {kinds[-1]} joints {what}; "
                              f"{joint!r} is a {self.joints[joint]} joint")
        return joint

    def add_points(self, body, points: Mapping, loc: str) -> None:
        for pname, coordinates in points.items():
            ploc = loc + pointer(pname)  # the key is the user's: escaped like any pointer
            check_name(pname, "point name", ploc)
            local = self.scope.vector(coordinates, ploc)
            self.points[f"{body.name}.{pname}"] = self.call(ploc, body.point, *local, name=pname)

    def quantities(self) -> dict[str, sympy.Symbol]:
        """Names of mechanism quantities that applied forces and torques may use."""
        return {}

    def signal(self, value: Any, loc: str) -> sympy.Expr | list[sympy.Expr]:
        """A value of an applied force or torque: a scalar, or a list of components."""
        if isinstance(value, list):
            return [self.signal(v, f"{loc}/{k}") for k, v in enumerate(value)]
        return self.scope.expr(value, loc, time=True, extra=self.quantities())

    def build(self):
        doc, scope, mech = self.doc, self.scope, self.mech
        self.add_points(mech.ground, doc.get("ground", {}).get("points", {}), "/ground/points")
        for i, entry in enumerate(doc.get("bodies", [])):
            loc = f"/bodies/{i}"
            name = entry["name"]
            unique_name(self.names, name, f"{loc}/name")
            mass = scope.raw(entry["mass"], f"{loc}/mass")
            number = as_number(mass, scope)
            if number is not None and number < 0:
                raise _error(f"{loc}/mass", f"mass of body {name!r} must be zero or more; "
                                            f"got {number:g}")
            body = self.add_body(entry, loc, mass)
            self.add_points(body, entry.get("points", {}), f"{loc}/points")
        for i, entry in enumerate(doc.get("beams", [])):
            self.beam(entry, f"/beams/{i}")
        for i, entry in enumerate(doc.get("joints", [])):
            loc = f"/joints/{i}"
            kind, name = entry["type"], entry["name"]
            unique_name(self.names, name, f"{loc}/name")
            if kind == "rolling_wheel":
                self.rolling_wheel(entry, loc)
            else:
                a, b = self.between(entry, loc)
                self.add_joint(entry, loc, a, b)
            self.joints[name] = kind
        for i, entry in enumerate(doc.get("forces", [])):
            self.force(entry, f"/forces/{i}")
        for i, entry in enumerate(doc.get("drives", [])):
            loc = f"/drives/{i}"
            unique_name(self.names, entry["name"], f"{loc}/name")
            joint = self.joint_ref(entry["joint"], f"{loc}/joint", self.drivable, "can be driven")
            motion = scope.expr(entry["motion"], f"{loc}/motion", time=True)
            extra = {"quantity": entry["quantity"]} if "quantity" in entry else {}
            self.call(loc, mech.drive, entry["name"], joint, motion, **extra)
        return mech

    def add_body(self, entry: Mapping, loc: str, mass: Any):
        raise NotImplementedError

    def beam(self, entry: Mapping, loc: str) -> None:
        """A flexible body (``Mechanism.beam``): its ends in ground coordinates, the
        numbers of its ``material`` and ``section``, its element count and, in space,
        the section's ``y_axis``; its nodes are bodies the joints may name."""
        unique_name(self.names, entry["name"], f"{loc}/name")
        start, end = (self.scope.vector(entry[key], f"{loc}/{key}") for key in ("start", "end"))
        material = self.call(f"{loc}/material", Material, **entry["material"])
        section = self.call(f"{loc}/section", Section, **entry["section"])
        extra = {"y_axis": entry["y_axis"]} if "y_axis" in entry else {}
        self.call(loc, self.mech.beam, entry["name"], start, end, material, section,
                  elements=entry.get("elements", 4), **extra)

    def rolling_wheel(self, entry: Mapping, loc: str) -> None:
        """A wheel rolling without slip (``Mechanism.rolling_wheel``): its centre ``wheel``
        (a point reference), ``radius`` (a positive number), the optional ``point`` its
        line or plane passes through (of the ground, or in the plane of another body) and
        the directions of :meth:`wheel_directions`."""
        wheel = self.point(entry["wheel"], f"{loc}/wheel")
        point = self.point(entry["point"], f"{loc}/point") if "point" in entry else None
        radius = self.scope.number(entry["radius"], f"{loc}/radius", exact=True)
        self.call(loc, self.mech.rolling_wheel, entry["name"], wheel, radius, point=point,
                  **self.wheel_directions(entry, loc))

    def wheel_directions(self, entry: Mapping, loc: str) -> dict:
        """The directions a rolling wheel's entry gives: the line's in the plane."""
        if "direction" not in entry:
            return {}
        direction = self.scope.vector(entry["direction"], f"{loc}/direction")
        if not any(direction):
            raise _error(f"{loc}/direction", "the direction must not be zero")
        return {"direction": direction}

    def add_joint(self, entry: Mapping, loc: str, a, b) -> None:
        raise NotImplementedError

    def rotary_spring(self, entry: Mapping, loc: str, **law: Any) -> None:
        raise NotImplementedError

    def between(self, entry: Mapping, loc: str):
        a, b = (self.point(ref, f"{loc}/between/{k}") for k, ref in enumerate(entry["between"]))
        if a.body is b.body:
            raise _error(f"{loc}/between", f"both ends are on {a.body.name!r}; a joint or force "
                                           "element joins two different bodies")
        return a, b

    def force(self, entry: Mapping, loc: str) -> None:
        """An entry of ``forces``: the elements that act in joints (friction, limits,
        gears, rack and pinion), read alike in both dimensions, or the others."""
        read = {"joint_friction": self.joint_friction, "joint_limit": self.joint_limit,
                "contact": self.contact,
                "gear": self.gear, "rack_and_pinion": self.rack_and_pinion}.get(entry["type"])
        if read is None:
            self.other_force(entry, loc)
            return
        unique_name(self.names, entry["name"], f"{loc}/name")
        read(entry, loc)

    def joint_friction(self, entry: Mapping, loc: str) -> None:
        name, scope = entry["name"], self.scope
        joint = self.joint_ref(entry["joint"], f"{loc}/joint", self.drivable, "take friction")
        coefficients = ("viscous", "coulomb", "mu_kinetic", "mu_static", "coulomb_static",
                        "radius")
        if not any(key in entry for key in coefficients[:3]):
            raise _error(loc, f"joint friction {name!r} needs viscous, coulomb or mu_kinetic")
        law = {key: self.not_negative(scope.expr(entry[key], f"{loc}/{key}"), f"{loc}/{key}",
                                      f"the {key} coefficient", name)
               for key in coefficients if key in entry}
        if "law" in entry:
            law["law"] = entry["law"]
        if "smoothing" in entry:
            sloc = f"{loc}/smoothing"
            law["smoothing"] = scope.expr(entry["smoothing"], sloc)
            number = as_number(law["smoothing"], scope)
            if number is not None and number <= 0:
                raise _error(sloc, f"smoothing of {name!r} is the speed below which the Coulomb "
                                   f"part fades; it must be positive, got {number:g}")
        if "quantity" in entry:
            law["quantity"] = entry["quantity"]
        self.call(loc, self.mech.joint_friction, name, joint, **law)

    def joint_limit(self, entry: Mapping, loc: str) -> None:
        joint = self.joint_ref(entry["joint"], f"{loc}/joint", self.drivable, "take limits")
        # numbers: the simulation compares the coordinate with them to find each strike
        stops = {key: self.scope.number(entry[key], f"{loc}/{key}")
                 for key in ("lower", "upper", "restitution") if key in entry}
        if "quantity" in entry:
            stops["quantity"] = entry["quantity"]
        self.call(loc, self.mech.joint_limit, entry["name"], joint, **stops)

    def contact(self, entry: Mapping, loc: str) -> None:
        name, scope = entry["name"], self.scope
        at = self.point(entry["at"], f"{loc}/at")
        plane = entry.get("plane", "ground")
        if plane != "ground":
            plane = self.point(plane, f"{loc}/plane")
        # numbers (declared parameters take their values): the simulation's events compare
        # the gap and the forces with them
        law: dict[str, Any] = {key: scope.number(entry[key], f"{loc}/{key}")
                               for key in ("radius", "restitution", "mu_kinetic", "mu_static")
                               if key in entry}
        if "normal" in entry:
            law["normal"] = scope.vector(entry["normal"], f"{loc}/normal")
        if "shape" in entry:
            law["shape"] = entry["shape"]
        if entry.get("sphere") is not None:    # against another body's sphere
            law["sphere"] = self.point(entry["sphere"], f"{loc}/sphere")
        if entry.get("sphere_radius") is not None:
            law["sphere_radius"] = scope.number(entry["sphere_radius"], f"{loc}/sphere_radius")
        self.call(loc, self.mech.contact, name, at, plane=plane, **law)

    def mesh_joints(self, entry: Mapping, loc: str) -> dict:
        """The ``joints`` a spatial gear or rack names (none in the plane, whose gears turn
        on axles fixed in the ground)."""
        if "joints" not in entry:
            return {}
        return {"joints": tuple(self.joint_ref(j, f"{loc}/joints/{k}", self.drivable,
                                               "carry gears")
                                for k, j in enumerate(entry["joints"]))}

    def gear(self, entry: Mapping, loc: str) -> None:
        a, b = (self.body(ref, f"{loc}/bodies/{k}") for k, ref in enumerate(entry["bodies"]))
        # a number (kept exact): the builder checks that it is positive
        ratio = self.scope.number(entry["ratio"], f"{loc}/ratio", exact=True)
        self.call(loc, self.mech.gear, entry["name"], a, b, ratio,
                  internal=entry.get("internal", False), **self.mesh_joints(entry, loc))

    #: the direction a rack advances in when the file gives none (``None``: its joint's)
    rack_axis: list | None = [1.0, 0.0]

    def rack_and_pinion(self, entry: Mapping, loc: str) -> None:
        pinion = self.body(entry["pinion"], f"{loc}/pinion")
        rack = self.body(entry["rack"], f"{loc}/rack")
        radius = self.scope.number(entry["radius"], f"{loc}/radius", exact=True)
        axis = entry.get("axis", self.rack_axis)
        if axis is not None:
            axis = self.scope.vector(axis, f"{loc}/axis")
            if not any(axis):
                raise _error(f"{loc}/axis", "the axis must not be zero")
        self.call(loc, self.mech.rack_and_pinion, entry["name"], pinion, rack, radius, axis=axis,
                  **self.mesh_joints(entry, loc))

    def other_force(self, entry: Mapping, loc: str) -> None:
        kind, name, scope, mech = entry["type"], entry["name"], self.scope, self.mech
        unique_name(self.names, name, f"{loc}/name")
        if kind == "spring":
            a, b = self.between(entry, loc)
            c = self.not_negative(scope.expr(entry.get("c", 0), f"{loc}/c"), f"{loc}/c",
                                  "the damping", name)
            if "force" in entry:
                for key in ("k", "length"):
                    if key in entry:
                        raise _error(f"{loc}/{key}", "give either k (and length) or force, not both")
                length = Symbol("length")
                law = FileLaw(scope.expr(entry["force"], f"{loc}/force",
                                      extra={"length": length}), length)
                self.call(loc, mech.spring, name, a, b, force=law, c=c)
            else:
                if "k" not in entry:
                    raise _error(loc, f"spring {name!r} needs k (and length) or force")
                k = self.not_negative(scope.expr(entry["k"], f"{loc}/k"), f"{loc}/k",
                                      "the stiffness", name)
                length = scope.expr(entry["length"], f"{loc}/length") if "length" in entry else None
                self.call(loc, mech.spring, name, a, b, k=k, length=length, c=c)
        elif kind == "damper":
            a, b = self.between(entry, loc)
            c = self.not_negative(scope.expr(entry["c"], f"{loc}/c"), f"{loc}/c", "the damping", name)
            self.call(loc, mech.damper, name, a, b, c=c)
        elif kind == "rotary_spring":
            if "k" not in entry and "c" not in entry:
                raise _error(loc, f"rotary spring {name!r} needs k, c or both")
            k, c = (self.not_negative(scope.expr(entry.get(key, 0), f"{loc}/{key}"),
                                      f"{loc}/{key}", what, name)
                    for key, what in (("k", "the stiffness"), ("c", "the damping")))
            # without an angle, the builder's default: the initial relative angle
            angle = {"angle": scope.expr(entry["angle"], f"{loc}/angle")} if "angle" in entry \
                else {}
            self.rotary_spring(entry, loc, k=k, c=c, **angle)
        else:  # torque or force; in space a vector, in world or (body_axes) body axes
            extra = {"body_axes": entry["body_axes"]} if "body_axes" in entry else {}
            value = self.signal(entry["value"], f"{loc}/value")
            if kind == "torque":
                body = self.body(entry["body"], f"{loc}/body")
                reaction = self.body(entry["reaction"], f"{loc}/reaction", ground=True) \
                    if "reaction" in entry else None
                if reaction is body:
                    raise _error(f"{loc}/reaction",
                                 "a torque reacts on another body than it drives")
                self.call(loc, mech.torque, name, body, value, reaction=reaction, **extra)
            else:
                point = self.point(entry["point"], f"{loc}/point")
                if point.body is mech.ground:
                    raise _error(f"{loc}/point", "a force acts on a body, not on the ground")
                self.call(loc, mech.force, name, point, value, **extra)

    def initial_value(self, key: str, value: Any, loc: str) -> float:
        """An entry of ``initial``: a coordinate held at a value during assembly."""
        _coordinate_name(key, loc, self.mech)
        return self.scope.number(value, loc)

    def velocity(self, key: str, value: Any, loc: str) -> Any:
        """An entry of ``velocities``: the rate of a coordinate."""
        return self.initial_value(key, value, loc)

    def check(self, model: Model) -> None:
        """Checks that need the whole model (none in the plane)."""


class PlanarReader(MechanismReader):
    """A planar mechanism (:class:`vecnet.planar.Mechanism`) from a file."""

    def quantities(self) -> dict[str, sympy.Symbol]:
        return {f"{b}.{q}": self.mech.quantity(f"{b}.{q}") for b in self.mech.bodies
                if b.isidentifier() for q in _BODY_QUANTITIES}

    def add_body(self, entry: Mapping, loc: str, mass: Any):
        name = entry["name"]
        inertia = self.scope.raw(entry["inertia"], f"{loc}/inertia")
        number = as_number(inertia, self.scope)
        if number is not None and number < 0:
            raise _error(f"{loc}/inertia", f"inertia of body {name!r} must be zero or more; "
                                           f"got {number:g}")
        position = self.scope.vector(entry["position"], f"{loc}/position")
        angle = self.scope.number(entry.get("angle", 0.0), f"{loc}/angle", exact=True)
        return self.call(loc, self.mech.body, name, mass=mass, inertia=inertia,
                         position=position, angle=angle)

    def add_joint(self, entry: Mapping, loc: str, a, b) -> None:
        kind, name = entry["type"], entry["name"]
        if kind in ("prismatic", "slot"):
            axis = self.scope.vector(entry.get("axis", [1.0, 0.0]), f"{loc}/axis")
            if axis == (0.0, 0.0):
                raise _error(f"{loc}/axis", "the axis must not be zero")
            method = self.mech.prismatic if kind == "prismatic" else self.mech.slot
            self.call(loc, method, name, a, b, axis=axis)
        else:
            if "axis" in entry:
                raise _error(f"{loc}/axis", f"a {kind} joint has no axis")
            self.call(loc, self.mech.revolute if kind == "revolute" else self.mech.weld, name, a, b)

    def rotary_spring(self, entry: Mapping, loc: str, **law: Any) -> None:
        a, b = self.between(entry, loc)
        self.call(loc, self.mech.rotary_spring, entry["name"], a, b, **law)

class SpatialReader(MechanismReader):
    """A spatial mechanism (:class:`vecnet.spatial.Mechanism`) from a file with
    ``"dimensions": 3``: 3-vectors, orientations, inertia matrices and the spatial joints.
    The builder's own checks (inertia, rotations, axes) report at the file's location."""

    builder = SpatialMechanism
    default_gravity = (0.0, 0.0, -9.81)
    drivable = ("revolute", "prismatic", "cylindrical")
    rack_axis = None

    def inertia(self, values: list, loc: str, name: str) -> list:
        """Three principal moments or a 3 x 3 matrix: numbers stay numbers; expressions are
        checked as the builder checks numbers when their parameters all have values."""
        if isinstance(values[0], list):
            raw = [[self.scope.raw(v, f"{loc}/{i}/{j}") for j, v in enumerate(row)]
                   for i, row in enumerate(values)]
            numbers: list[Any] = [[as_number(v, self.scope) for v in row] for row in raw]
        else:
            raw = [self.scope.raw(v, f"{loc}/{j}") for j, v in enumerate(values)]
            numbers = [as_number(v, self.scope) for v in raw]
        flat = [n for row in numbers for n in row] if isinstance(values[0], list) else numbers
        if None not in flat:
            self.call(loc, inertia_matrix, numbers, name)
        return raw

    def orientation(self, values: list, loc: str, name: str) -> np.ndarray:
        if isinstance(values[0], list):
            numbers: Any = [self.scope.vector(row, f"{loc}/{i}") for i, row in enumerate(values)]
        else:
            numbers = self.scope.vector(values, loc)
        return self.call(loc, orientation_matrix, numbers, name)

    def add_body(self, entry: Mapping, loc: str, mass: Any):
        name = entry["name"]
        inertia = self.inertia(entry["inertia"], f"{loc}/inertia", name)
        position = self.scope.vector(entry["position"], f"{loc}/position")
        orientation = self.orientation(entry["orientation"], f"{loc}/orientation", name) \
            if "orientation" in entry else None
        return self.call(loc, self.mech.body, name, mass=mass, inertia=inertia,
                         position=position, orientation=orientation)

    def axis(self, values: list, loc: str, name: str) -> tuple[float, ...]:
        axis = self.scope.vector(values, loc)
        self.call(loc, unit_axis, axis, name)
        return axis

    def add_joint(self, entry: Mapping, loc: str, a, b) -> None:
        """A joint of the catalogue (:data:`vecnet.elements.joints.JOINTS`): its direction
        and options as the kind's record names them."""
        kind, name = JOINTS[entry["type"]], entry["name"]
        key = kind.direction
        where, options = loc, dict[str, Any]()
        if key == "axes":
            where = f"{loc}/axes"  # the builder's complaint: the axes are not perpendicular
            options["axes"] = tuple(self.axis(v, f"{where}/{k}", name)
                                    for k, v in enumerate(entry["axes"]))
        elif key is not None:
            options[key] = self.axis(entry[key], f"{loc}/{key}", name)
        for option in kind.options:
            options[option] = self.scope.expr(entry[option], f"{loc}/{option}")
        self.call(where, self.mech.joint, kind.name, name, a, b, **options)

    def wheel_directions(self, entry: Mapping, loc: str) -> dict:
        """The directions a rolling wheel's entry gives: the axle's and the plane's normal
        (world axes at the initial pose)."""
        return {key: self.axis(entry[key], f"{loc}/{key}", entry["name"])
                for key in ("axis", "normal") if key in entry}

    def rotary_spring(self, entry: Mapping, loc: str, **law: Any) -> None:
        joint = self.joint_ref(entry["joint"], f"{loc}/joint", ("revolute", "cylindrical"),
                               "take a rotary spring")
        self.call(loc, self.mech.rotary_spring, entry["name"], joint, **law)

    def initial_value(self, key: str, value: Any, loc: str) -> float:
        _coordinate_name(key, loc, self.mech)
        edge, _, coordinate = key.rpartition(".")
        if f"{coordinate}'" not in self.mech.network.owner(edge).speeds:
            raise _error(loc, f"coordinate {key!r} is part of a quaternion; set the orientation "
                              "of the bodies instead")
        return self.scope.number(value, loc)

    def velocity(self, key: str, value: Any, loc: str) -> Any:
        base, _, what = key.rpartition(".")
        if base in self.mech.bodies and what in ("omega", "velocity"):
            if not isinstance(value, list):
                raise _error(loc, f"{key!r} is a vector: give [x, y, z] in world axes")
            return self.scope.vector(value, loc)

        def rates(element: Any) -> tuple[str, ...]:
            """Speeds by name ('S1.wx', "R1.angle'") and coordinates that have a rate."""
            vectors = ("omega", "velocity") if element.name in self.mech.bodies else ()
            return (*element.speeds, *(c for c in element.coordinates
                                       if f"{c}'" in element.speeds), *vectors)

        _coordinate_name(key, loc, self.mech, "speed", rates)  # the name first, then its value
        if isinstance(value, list):
            raise _error(loc, f"{key!r} is one speed: give a number")
        return self.scope.number(value, loc)

    def check(self, model: Model) -> None:
        """Formulate, and close the loops of the initial pose: a loop that cannot close
        (or locks the mechanism) is an error of the file, found when it is read."""
        eom = self.call("/tree" if model.tree is not None else "/joints", model.formulate)
        net = self.mech.network
        closing = [c for c in eom.topology.chords
                   if net.element(c).is_joint or isinstance(net.element(c), SpatialMotionDriver)]
        if not closing or None in model.parameters.values():
            return  # no loop to close, or numbers missing: assembly is left to simulation
        where = self.names[closing[0]].rpartition("/")[0]  # the joint's or drive's entry
        self.call(where, eom.assemble, model.initial or None, 0.0, model.values or None)


def _coordinate_name(key: str, loc: str, mech: Mechanism | SpatialMechanism,
                     what: str = "coordinate",
                     names: Callable[[Any], Sequence[str]] = lambda e: e.coordinates) -> None:
    """Check that ``key`` is ``'<edge>.<name>'`` with ``name`` one of ``names(element)``."""
    edge, _, coordinate = key.rpartition(".")
    if edge not in mech.network.graph:
        example = next((f", e.g. {e.name + '.' + n!r}" for e in mech.network.elements
                        for n in names(e)), "")
        raise _error(loc, f"{key!r} is not a {what} name ('<edge>.<{what}>'{example}); there "
                          f"is no edge {edge!r}")
    own = names(mech.network.owner(edge))
    if coordinate not in own:
        raise _error(loc, f"{edge!r} has no {what} {coordinate!r}; its {what}s are "
                          f"{', '.join(own) or 'none'}")


def read_mechanism(doc: Mapping, scope: Scope) -> Model:
    """The mechanism model of a validated model file ``doc`` of kind ``"mechanism"``
    (spatial with ``"dimensions": 3``), its values read in ``scope``.

    Raises
    ------
    ModelFileError
        A reference, name, value or joint the file gets wrong, at its JSON pointer; for a
        spatial file, a loop that cannot close in the initial pose.
    """
    reader = (SpatialReader if doc.get("dimensions") == 3 else PlanarReader)(doc, scope)
    mech = reader.build()
    model = Model("mechanism", mech, parameters=dict(scope.values),
                  description=doc.get("description", ""))
    model.coordinates = doc.get("coordinates", "joint")
    model.speeds = doc.get("speeds", "tail")
    if "tree" in doc:
        drives = {e["name"]: f"drive {e['name']!r} prescribes motion; it belongs in the cotree"
                  for e in doc.get("drives", [])}
        model.tree = read_tree(doc["tree"], mech.network.graph.edges, drives)
    for section, target, read in (("initial", model.initial, reader.initial_value),
                                  ("velocities", model.velocities, reader.velocity)):
        for key, value in doc.get(section, {}).items():
            target[key] = read(key, value, pointer(section, key))
    known = set(mech.bodies) | {e.name for e in mech.network.elements}
    unique_outputs(doc)
    for k, name in enumerate(doc.get("outputs", [])):
        head = name.split(".")[0].rstrip("'")
        if name not in _MECHANISM_RESULTS and head not in known:
            # examples of this model's own names, never the one refused
            examples = [f"{body}.x" for body in list(mech.bodies)[:1]] + [
                f"{e.name}.reaction" for e in mech.network.elements if e.is_joint][:1]
            shown = f" ({', '.join(map(repr, examples))})" if examples else ""
            raise _error(f"/outputs/{k}", f"unknown output {name!r}: results are named "
                                          "after bodies, joints, force elements and "
                                          f"coordinates{shown}, or are "
                                          f"{', '.join(_MECHANISM_RESULTS)}"
                                          f"{suggestion(head, sorted(known))}")
        model.outputs.append(name)
    read_simulation(doc, model)
    reader.check(model)
    return model

