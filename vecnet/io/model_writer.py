"""Model files written: a :class:`~vecnet.Model` as a JSON document, saved in one step.

Loading what :func:`save_model` wrote gives the same equations.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import sympy

from ..builders.model import Model
from ..builders.network import Network
from ..builders.planar import Mechanism
from ..builders.spatial import Mechanism as SpatialMechanism
from ..builders.system import System
from ..core.files import write_atomically
from ..elements import controlled, lumped
from ..elements.base import EdgeVariables, Element, Symbol, t
from ..elements.beam import Material, Section
from ..elements.coupled_inductors import CoupledInductors
from ..elements.coupling import Port
from ..errors import ModelError, ModelFileError, OutputError
from .expressions import format_expression
from .json_document import FORMAT_VERSION, validate
from .network_reader import ELEMENT_TYPES, GENERIC_TWO_PORTS, OWN_ENTRY_TYPES
from .source import pointer

__all__ = ["model_to_dict", "save_model"]


def _error(location: str, message: str) -> ModelFileError:
    return ModelFileError(message, location=location)


def _node(node: Any, loc: str) -> str | int:
    if isinstance(node, bool) or not isinstance(node, (str, int)):
        raise _error(loc, f"node {node!r} cannot be written: nodes in model files are strings "
                          "or integers")
    return node


def _write_value(value: Any, loc: str, found: dict[str, None]) -> float | str:
    """A parameter value as a number or as expression text (noting the symbols it uses):
    an integer or a float is written as a number, whatever type holds it (a gravity of
    ``(0, 0, -9.81)`` made sympy integers of its zeros)."""
    if isinstance(value, (sympy.Integer, sympy.Float)):
        value = float(value)
    if isinstance(value, sympy.Basic):
        text = format_expression(value, loc)
        for s in sorted(value.free_symbols, key=str):
            if s != t:
                found.setdefault(s.name, None)
        return text
    if callable(value):
        raise _error(loc, "a Python function cannot be written to a model file; give an "
                          "expression in vn.t instead")
    number = float(value)
    if not math.isfinite(number):
        raise _error(loc, f"{number} cannot be written to a model file")
    return number


def _write_vector(value: Any, loc: str, found: dict[str, None]) -> Any:
    """A value, or a vector of them (a spatial body's ``omega``) as a list."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_write_value(v, f"{loc}/{k}", found) for k, v in enumerate(value)]
    return _write_value(value, loc, found)


def _parameter_value(element: Element, pname: str, loc: str, found: dict[str, None]) -> Any:
    """A parameter as written: its number, or the expression it was given as."""
    p = element.parameters[pname]
    return _write_value(p.symbol if p.value is None else p.value, loc, found)


def _coupled_inductors(element: CoupledInductors, loc: str,
                       found: dict[str, None]) -> dict[str, Any]:
    """The entry of coupled inductors: the ends of each winding and the matrix ``L``."""
    entry: dict[str, Any] = {"type": "CoupledInductors", "name": element.name}
    n = len(element.edges)
    values = element.values  # a number is the value of the element's own symbol
    entry["nodes"] = [_node(node, f"{loc}/nodes") for e in element.edges
                      for node in (e.tail, e.head)]
    entry["parameters"] = {"L": [
        [_write_value(values.get(sym, sym), f"{loc}/parameters/L/{i}/{j}", found)
         for j, sym in enumerate(element.inductance.row(i))] for i in range(n)]}
    if element.ports != tuple(str(i + 1) for i in range(n)):
        entry["windings"] = list(element.ports)
    return entry


def _op_amp(element: controlled.OpAmp, loc: str, found: dict[str, None]) -> dict[str, Any]:
    """The entry of an op-amp: its four nodes in the constructor's order and its ``gain``."""
    entry: dict[str, Any] = {"type": "OpAmp", "name": element.name}
    into, out = element.edges
    entry["nodes"] = [_node(node, f"{loc}/nodes")
                      for node in (into.tail, into.head, out.head, out.tail)]
    if "A" in element.parameters:
        entry["gain"] = _parameter_value(element, "A", f"{loc}/gain", found)
    return entry


def _network_parts(net: Network, found: dict[str, None], ports: bool = False
                   ) -> dict[str, Any]:
    """A network's nodes and elements (with ``ports``, a system's network: its ports too)."""
    elements = []
    for i, element in enumerate(net.elements):
        loc = f"/elements/{i}"
        try:
            elements.append(_element_entry(element, loc, found, ports))
        except ModelFileError as exc:
            raise _error(exc.location or loc, f"{type(element).__name__} {element.name!r}: "
                                              f"{exc.detail}") from None
    return {"nodes": [_node(n, "/nodes") for n in net.graph.nodes], "elements": elements}


def _element_entry(element: Element, loc: str, found: dict[str, None], ports: bool
                   ) -> dict[str, Any]:
    """The entry of one element of a network."""
    cls, kind = type(element), type(element).__name__
    if isinstance(element, CoupledInductors):
        return _coupled_inductors(element, loc, found)
    if isinstance(element, controlled.OpAmp):
        return _op_amp(element, loc, found)
    if isinstance(element, Port):
        if not ports:
            raise _error(loc, "a port ties the network to a mechanism: save the vn.System "
                              "that joins them")
        edge = element.edges[0]
        where = {"joint": element.joint} if element.points is None else \
            {"points": list(element.points)}
        return {"type": kind, "name": element.name,
                "nodes": [_node(edge.tail, f"{loc}/nodes"), _node(edge.head, f"{loc}/nodes")],
                **where}
    if ELEMENT_TYPES.get(kind) is not cls:
        raise _error(loc, f"the class {cls.__module__}.{kind} is not part of the model "
                          f"format; types are {', '.join((*ELEMENT_TYPES, *OWN_ENTRY_TYPES))}")
    entry: dict[str, Any] = {"type": kind, "name": element.name,
                             "nodes": [_node(n, f"{loc}/nodes") for e in element.edges
                                       for n in (e.tail, e.head)]}
    if isinstance(element, lumped.NonlinearDissipator):
        edge = element.edges[0]
        a, tau = Symbol("a"), Symbol("tau")
        (law,) = element.terminal_equations({edge.name: EdgeVariables(a, tau)})
        key = "across" if law.lhs == a else "through"
        entry["domain"] = edge.domain.name
        used: dict[str, None] = {}
        entry[key] = _write_value(law.rhs, f"{loc}/{key}", used)
        used.pop("tau" if key == "across" else "a", None)  # the law's own variable
        found.update(used)
    else:
        parameters = {}
        for pname in element.parameters:
            parameters[pname] = _parameter_value(element, pname, f"{loc}/parameters/{pname}",
                                                 found)
        domains = [e.domain.name for e in element.edges]
        if kind in GENERIC_TWO_PORTS and tuple(domains) != tuple(cls.domain):
            entry["domains"] = domains
        if parameters:
            entry["parameters"] = parameters
        if getattr(element, "allow_negative", False):
            entry["allow_negative"] = True
    return entry


def _mechanism_parts(mech: Mechanism | SpatialMechanism, found: dict[str, None]
                     ) -> dict[str, Any]:
    """The description of a mechanism, however it was built: gravity, the ground's and the
    bodies' named points, and the bodies, joints, force elements and drives as its builder
    recorded them (:attr:`~vecnet.builders.mechanism.MechanismBuilder.description`)."""
    parts: dict[str, Any] = {"gravity": _write_entry(list(mech.gravity), "/gravity", found)}
    ground = _points(mech.ground, "/ground/points", found)
    if ground:
        parts["ground"] = {"points": ground}
    for section, entries in mech.description.items():
        written = []
        for k, entry in enumerate(entries):
            loc = pointer(section, k)
            given = {key: value for key, value in entry.items() if value is not None}
            if section == "bodies" and "orientation" in given:
                # a rotation however given (a matrix, a quaternion, scipy's): its matrix
                given["orientation"] = mech.bodies[entry["name"]].R  # type: ignore[attr-defined]
            # a beam's material and section: their numbers
            solid = {key: given.pop(key) for key in ("material", "section")} \
                if section == "beams" else {}
            # a spring's law of its length, not a signal
            law = given.pop("force") if given.get("type") == "spring" and "force" in given \
                else None
            try:
                item = _write_entry(given, loc, found)
                if law is not None:
                    item["force"] = _write_law(law, f"{loc}/force", found)
                item |= {key: _solid_numbers(value) for key, value in solid.items()}
                if section == "beams":   # a count, not a number of the model
                    item["elements"] = int(given["elements"])
            except ModelFileError as exc:
                what = entry.get("type", section.rstrip("s")).replace("_", " ")
                raise _error(exc.location or loc,
                             f"{what} {entry['name']!r}: {exc.detail}") from None
            if section == "bodies":
                points = _points(mech.bodies[entry["name"]], f"{loc}/points", found)
                if points:
                    item["points"] = points
            written.append(item)
        if written:
            parts[section] = written
    return parts


def _solid_numbers(value: Material | Section) -> dict[str, float]:
    """A beam's material (``E``, ``density`` and ``nu`` or ``G``, as it was given) or
    section (``A``, ``Iy``, ``Iz``, ``J``, ``size``) as the numbers its entry holds."""
    keys = ("E", "density", "G" if value.nu is None else "nu") \
        if isinstance(value, Material) else ("A", "Iy", "Iz", "J", "size")
    held = sorted({str(s) for key in keys for s in getattr(sympy.sympify(getattr(value, key)),
                                                            "free_symbols", ())})
    if held:
        raise ModelFileError(f"its {type(value).__name__.lower()} holds the parameter(s) "
                             f"{', '.join(held)}; a model file holds a beam's numbers: give "
                             "them values before saving")
    return {key: float(getattr(value, key)) for key in keys}


def _system_parts(system: System, found: dict[str, None]) -> dict[str, Any]:
    """A system's mechanism, network (with its ports), blocks and connections."""
    mech: Any = system.mechanism
    parts: dict[str, Any] = {"mechanism": {**({"dimensions": 3} if mech.dimensions == 3
                                              else {}),
                                           "name": mech.name, **_mechanism_parts(mech, found)}}
    if system.network.elements:
        parts["network"] = {"name": system.network.name,
                            **_network_parts(system.network, found, ports=True)}
    if system.blocks:
        parts["blocks"] = [_block(block, mech, f"/blocks/{i}", found)
                           for i, block in enumerate(system.blocks)]
    if system.connect:
        parts["connect"] = {key: _signal(value, mech, pointer("connect", key), found)
                            for key, value in system.connect.items()}
    return parts


def _block(block: Any, mech: Any, loc: str, found: dict[str, None]) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": block.name,
                             "output": _signal(block.output, mech, f"{loc}/output", found)}
    if block.states:
        entry["states"] = [state.name for state in block.states]
        entry["rates"] = [_signal(rate, mech, f"{loc}/rates/{k}", found)
                          for k, rate in enumerate(block.rates)]
        entry["initial"] = [float(x) for x in block.initial]
    return entry


def _signal(value: Any, mech: Any, loc: str, found: dict[str, None]) -> Any:
    """A signal of a system: an expression in t, parameters, sensors and block states. The
    rate of a joint's only coordinate (``"O.angle'"``) is written ``"O.rate"``."""
    expr = sympy.sympify(value)
    renamed = {}
    for symbol in expr.free_symbols:
        name = symbol.name
        if name.endswith("'"):
            joint, _, coordinate = name[:-1].rpartition(".")
            if mech.axial_coordinates(joint) != (coordinate,):
                raise _error(loc, f"the sensor {name!r} has no spelling in a model file; a "
                                  "joint's rate is written '<joint>.rate', for a joint with "
                                  "one coordinate about or along its axis")
            renamed[symbol] = sympy.Symbol(f"{joint}.rate", real=True)
    return _write_entry(expr.xreplace(renamed), loc, found)


def _points(body: Any, loc: str, found: dict[str, None]) -> dict[str, Any]:
    """A body's points other than its mass centre: name -> coordinates in body axes."""
    return {point.node.rpartition(".")[2]: _write_entry(list(point.local), loc, found)
            for point in body.points if point.node != body.node}


def _write_entry(value: Any, loc: str, found: dict[str, None]) -> Any:
    """A recorded builder argument as a model file holds it: text, a flag, a number or an
    expression, or a list (or dict) of them."""
    if isinstance(value, (str, bool)):
        return value
    if isinstance(value, dict):
        return {key: _write_entry(v, loc + pointer(key), found) for key, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_write_entry(v, f"{loc}/{k}", found) for k, v in enumerate(value)]
    if isinstance(value, sympy.Float):
        return float(value)
    used: dict[str, None] = {}
    text = _write_value(value, loc, used)
    # a mechanism quantity ("crank.omega") is no parameter
    found.update({name: None for name in used if "." not in name})
    return text


def _write_law(law: Callable[[Any], Any], loc: str, found: dict[str, None]) -> float | str:
    """A spring's ``force(length)`` as an expression in ``length``, when it builds one."""
    length = Symbol("length")
    try:
        expr = law(length)
    except Exception:  # noqa: BLE001 - any failure: it is not a law of sympy expressions
        expr = None
    if not isinstance(expr, sympy.Expr) or t in expr.free_symbols:
        raise _error(loc, "a Python function cannot be written to a model file; give a law "
                          "that builds a sympy expression of the spring's length")
    used: dict[str, None] = {}
    text = _write_value(expr, loc, used)
    used.pop("length", None)  # the law's own variable
    found.update(used)
    return text


def as_model(system: Model | Network | Mechanism | SpatialMechanism | System) -> Model:
    """``system`` as a :class:`~vecnet.Model` without settings (a model stays itself)."""
    if isinstance(system, Model):
        return system
    if isinstance(system, System):
        return Model("system", system)
    if isinstance(system, Network):
        return Model("network", system)
    if isinstance(system, (Mechanism, SpatialMechanism)):
        return Model("mechanism", system)
    raise ModelError(f"a model file holds a network, a mechanism or a system (or a vn.Model "
                     "of one); "
                     f"got {type(system).__name__}")


def model_to_dict(model: Model | Network | Mechanism | SpatialMechanism | System
                  ) -> dict[str, Any]:
    """The model file contents of ``model`` (see :func:`save_model`) as a JSON-ready dict.

    >>> import vecnet as vn
    >>> net = vn.Network("r")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=vn.Symbol("U")),
    ...             vn.Resistor("R", "a", "g", R=2.0))
    >>> doc = model_to_dict(vn.Model("network", net))
    >>> doc["parameters"], doc["elements"][0]["parameters"]
    ({'U': None}, {'V': 'U'})
    """
    model = as_model(model)
    doc: dict[str, Any] = {"vecnet": FORMAT_VERSION, "kind": model.kind}
    if isinstance(model.system, SpatialMechanism):
        doc["dimensions"] = 3
    doc["name"] = model.name
    if model.description:
        doc["description"] = model.description
    found: dict[str, None] = {}
    if isinstance(model.system, Network):
        parts = _network_parts(model.system, found)
    elif model.kind == "system":
        parts = _system_parts(model.system, found)
    else:
        parts = _mechanism_parts(model.system, found)
    inputs = {key: _write_value(expr, pointer("inputs", key), found)
              for key, expr in model.inputs.items()}
    parameters = dict(model.parameters)
    for name in found:
        parameters.setdefault(name, None)
    if parameters:
        doc["parameters"] = parameters
    doc.update(parts)
    if inputs:
        doc["inputs"] = inputs
    if model.kind != "network" and model.coordinates != "joint":
        doc["coordinates"] = model.coordinates
    if model.kind == "mechanism" and getattr(model, "speeds", "tail") != "tail":
        doc["speeds"] = model.speeds
    if model.tree is not None:
        doc["tree"] = model.tree if isinstance(model.tree, str) else list(model.tree)
    for key in ("initial", "velocities"):
        values = getattr(model, key)
        if values:
            doc[key] = {k: _write_vector(v, pointer(key, k), found) for k, v in values.items()}
    if model.outputs:
        doc["outputs"] = list(model.outputs)
    if model.t_span is not None:
        doc["simulation"] = {"t_span": [float(model.t_span[0]), float(model.t_span[1])]}
        if model.points is not None:
            doc["simulation"]["points"] = int(model.points)
        if model.step is not None:
            doc["simulation"]["step"] = float(model.step)
    validate(doc)  # what is written can be read: a name or node the schema refuses stops here
    return doc


def _dumps(value: Any, indent: int = 0, width: int = 100) -> str:
    """JSON with two-space indentation, but anything that fits on one line kept on one
    line (an element, a list of nodes), so that saved files stay readable."""
    flat = json.dumps(value, allow_nan=False)
    if not isinstance(value, (dict, list)) or indent + len(flat) <= width or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k)}: {_dumps(v, indent + 2, width)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + _dumps(v, indent + 2, width) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def save_model(model: Model | Network | Mechanism | SpatialMechanism | System,
               path: str | os.PathLike) -> None:
    """Write ``model`` (a :class:`~vecnet.Model`, or a network or mechanism however it was
    built) to ``path`` as JSON. The file is replaced in one step: if anything fails, an
    existing file is left as it was and no partial file remains.

    Raises
    ------
    ModelFileError
        Something the format cannot hold (a Python function as a signal or law, a
        number that is not finite), naming the element and its place in the file.

    >>> import tempfile, os, vecnet as vn
    >>> net = vn.Network("r")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "g", R=2.0))
    >>> with tempfile.TemporaryDirectory() as d:
    ...     save_model(vn.Model("network", net), os.path.join(d, "r.json"))
    ...     vn.load_model(os.path.join(d, "r.json")).system.element("R").parameters["R"].value
    2.0
    """
    doc = model_to_dict(as_model(model))  # any error comes before the file is touched
    try:
        text = _dumps(doc) + "\n"
    except (TypeError, ValueError) as exc:
        raise _error("/", f"the model cannot be written as JSON: {exc}") from None
    try:
        write_atomically(path, text)
    except OutputError as exc:
        raise _error(os.fspath(path), f"cannot write the model file: {exc}") from None
