"""Systems from model files: a mechanism, a lumped network tied to its joints by ports,
and signal blocks, with the signals that drive the network's sources
(``docs/model-format.md``).

A system is compiled without parameters, so the declared parameters' values are put in
as the file is read; a parameter without a value stays a symbol (and formulating says so).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import sympy

from ..builders.model import Model
from ..core.names import check_name
from ..elements.signals import Block
from ..errors import ModelFileError, VecnetError
from .mechanism_reader import PlanarReader, SpatialReader
from .network_reader import build_network, source_input
from .reading import Scope, read_simulation, unique_name, unique_outputs
from .source import located, pointer

__all__ = ["read_system", "sensor_names"]

#: what the parts of a system file hold: the description of each, no settings
_MECHANISM_KEYS = {"name", "description", "dimensions", "gravity", "ground", "bodies", "joints",
                   "forces", "drives"}
_NETWORK_KEYS = {"name", "description", "nodes", "elements"}


def _error(location: str, message: str) -> ModelFileError:
    return ModelFileError(message, location=location)


class _NumericScope(Scope):
    """Values with the declared parameters' values put in."""

    def expr(self, value: Any, loc: str, *, time: bool = False,
             extra: Mapping[str, sympy.Expr] | None = None) -> sympy.Expr:
        return super().expr(value, loc, time=time, extra=extra).xreplace(self.numeric)


@contextmanager
def _within(prefix: str) -> Iterator[None]:
    """Errors of a part of the file, located under ``prefix`` (``"/mechanism"``)."""
    try:
        yield
    except ModelFileError as exc:
        if not exc.location.startswith("/"):
            raise
        raise ModelFileError(exc.detail, location=prefix + exc.location.rstrip("/")) from None


def sensor_names(mechanism: Any) -> dict[str, sympy.Symbol]:
    """The sensors of ``mechanism`` that a file's expressions may read, by name, as
    :meth:`vecnet.System.sensor` makes them: joints' ``"<joint>.angle"``,
    ``"<joint>.distance"`` and ``"<joint>.rate"``, bodies' and points' positions and
    velocities (``"bob.x"``, ``"crank.p1.vy"``) and body frames' quantities. (The rates
    written with a prime, ``"O.angle'"``, have no spelling in an expression: ``"O.rate"``
    is the rate of a joint's only coordinate.)"""
    from ..builders.mechanism import sensor_reading

    candidates: list[str] = []
    for element in mechanism.network.elements:
        coordinates = mechanism.axial_coordinates(element.name)
        candidates += [f"{element.name}.{c}" for c in coordinates]
        candidates += [f"{element.name}.rate"] if coordinates else []
    motion = ("x", "y", "z", "vx", "vy", "vz")
    for body in (mechanism.ground, *mechanism.bodies.values()):
        if body is not mechanism.ground:
            candidates += [f"{body.name}.{q}" for q in (*motion, *mechanism.frame_quantities)]
        candidates += [f"{p.node}.{q}" for p in body.points if p.node != body.node
                       for q in motion]
    names = {}
    for name in candidates:
        try:
            sensor_reading(mechanism, name)
        except VecnetError:
            continue
        names[name] = sympy.Symbol(name, real=True)
    return names


def read_system(doc: Mapping, scope: Scope) -> Model:
    """The system model of a validated model file ``doc`` of kind ``"system"``.

    Raises
    ------
    ModelFileError
        A reference, name, value or element the file gets wrong, at its JSON pointer; a
        port on a joint the mechanism does not have.
    """
    from ..builders.system import System

    scope = _NumericScope(scope.values)
    part = doc["mechanism"]
    for key in part:
        if key not in _MECHANISM_KEYS:
            raise _error(pointer("mechanism", key), f"{key!r} is a setting of the whole system: "
                                                    "give it at the top of the file")
    reader = (SpatialReader if part.get("dimensions") == 3 else PlanarReader)(part, scope)
    with _within("/mechanism"):
        mech = reader.build()
    net = None
    if "network" in doc:
        for key in doc["network"]:
            if key not in _NETWORK_KEYS:
                raise _error(pointer("network", key), f"{key!r} is a setting of the whole "
                                                      "system: give it at the top of the file")
        with _within("/network"):
            net = build_network(doc["network"], scope, ports=True)
    names = dict(sensor_names(mech))
    blocks = _blocks(doc.get("blocks", []), scope, names)
    connect = {}
    for key, value in doc.get("connect", {}).items():
        if net is None:
            raise _error(pointer("connect", key), "a system without a network has no inputs "
                                                  "to connect")
        connect[key] = source_input(key, value, pointer("connect", key), net, scope, names)
    try:
        system = System(mech, net, blocks=blocks, connect=connect)
    except VecnetError as exc:
        raise located("/network" if net is not None else "/", exc) from None
    model = Model("system", system, parameters=dict(scope.values),
                  description=doc.get("description", ""),
                  coordinates=doc.get("coordinates", "joint"))
    for section, target in (("initial", model.initial), ("velocities", model.velocities)):
        for key, value in doc.get(section, {}).items():
            target[key] = scope.number(value, pointer(section, key))
    unique_outputs(doc)
    model.outputs.extend(doc.get("outputs", []))
    read_simulation(doc, model)
    return model


def _blocks(entries: list, scope: Scope, names: dict[str, sympy.Symbol]) -> list[Block]:
    """The signal blocks: their states first (any block's expressions may read any
    block's state), then their outputs and rates; ``names`` gains the states."""
    seen: dict[str, str] = {}
    for i, entry in enumerate(entries):
        loc = f"/blocks/{i}"
        unique_name(seen, entry["name"], f"{loc}/name")
        states, rates = entry.get("states", []), entry.get("rates", [])
        initial = entry.get("initial", [0.0] * len(states))
        if not len(states) == len(rates) == len(initial):
            raise _error(loc, f"block {entry['name']!r}: give one rate and one initial value "
                              f"per state; got {len(states)} states, {len(rates)} rates and "
                              f"{len(initial)} initial values")
        for k, state in enumerate(states):
            owner, dot, own = state.partition(".")
            if owner != entry["name"] or not dot:
                raise _error(f"{loc}/states/{k}", f"a state of block {entry['name']!r} is "
                                                  f"named '{entry['name']}.<name>'")
            check_name(own, "state name", f"{loc}/states/{k}")
            if state in names:
                raise _error(f"{loc}/states/{k}", f"{state!r} is named twice")
            names[state] = sympy.Symbol(state, real=True)
    blocks = []
    for i, entry in enumerate(entries):
        loc = f"/blocks/{i}"
        states = entry.get("states", [])
        blocks.append(Block(
            entry["name"], scope.expr(entry["output"], f"{loc}/output", time=True, extra=names),
            tuple(names[s] for s in states),
            tuple(scope.expr(r, f"{loc}/rates/{k}", time=True, extra=names)
                  for k, r in enumerate(entry.get("rates", []))),
            tuple(float(x) for x in entry.get("initial", [0.0] * len(states)))))
    return blocks
