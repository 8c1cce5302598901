"""JSON model files: lumped networks and planar and spatial mechanisms as data.

A model file is a JSON object with the format version ``"vecnet": "1"`` and a
``kind``, ``"network"`` or ``"mechanism"``; a mechanism is planar, or spatial with
``"dimensions": 3``. The format is described in
``docs/model-format.md`` and by the JSON Schema ``vecnet/io/schema/model-v1.json``.

Loading never runs code from the file: formulas are read by
:func:`vecnet.io.parse_expression`. A file is checked in three steps, each
failing with a one-line :class:`~vecnet.errors.ModelFileError` whose
``location`` is a JSON pointer (``/elements/3/parameters/R``) or a line of
the file:

1. JSON syntax (with duplicate keys, ``NaN`` and huge numbers refused);
2. the schema (types, required and unknown keys);
3. meaning: element types, parameters, names, node, body, point, joint and
   edge references, expressions, inertias, orientations and axes; the loops of a
   spatial mechanism are closed in its initial pose.

:func:`save_model` writes a model back; loading what it wrote gives the same
equations.
"""

from __future__ import annotations

import copy
import difflib
import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import sympy

from ..bounds import check_oscillation, finite_number, time_grid
from ..domains import DOMAINS
from ..elements import controlled, lumped, transducers
from ..elements.base import EdgeVariables, Element, Kind, Symbol, number_problem, t
from ..elements.coupled_inductors import CoupledInductors
from ..elements.spatial import SpatialMotionDriver
from ..errors import ModelError, ModelFileError, SimulationError, VecnetError
from ..names import check_name, check_node, shown
from ..network import Network, warn_connectivity
from ..planar.mechanism import DATUM, Mechanism
from ..rotations import inertia_matrix, orientation_matrix, unit_axis
from ..spatial.mechanism import Mechanism as SpatialMechanism
from .expressions import CONSTANTS, FUNCTIONS, format_expression, parse_expression

__all__ = ["Model", "load_model", "save_model", "model_to_dict", "FORMAT_VERSION", "SCHEMA",
           "ELEMENT_TYPES"]

#: the version of the model format this module reads and writes
FORMAT_VERSION = "1"
#: largest model file read, in bytes
MAX_FILE_SIZE = 10_000_000
#: the JSON Schema of the format (draft 2020-12)
SCHEMA: dict = json.loads(resources.files("vecnet.io").joinpath("schema/model-v1.json")
                          .read_text(encoding="utf-8"))
_VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

#: element type name in a file -> element class
ELEMENT_TYPES: dict[str, type[Element]] = {
    name: getattr(module, name) for module in (lumped, transducers, controlled)
    for name in module.__all__
    if isinstance(getattr(module, name), type) and issubclass(getattr(module, name), Element)
    # an op-amp's nodes are not its edges' ends in order: it has its own entry
    and not issubclass(getattr(module, name), controlled.OpAmp)
    and getattr(module, name) is not controlled.ControlledSource}
#: element types whose entries differ from ``nodes`` + ``parameters`` by port: their number
#: of windings comes from the matrix given, or their nodes are not their edges' ends in order
_OWN_ENTRY_TYPES = ("CoupledInductors", "OpAmp")
_GENERIC_TWO_PORTS = ("Transformer", "Gyrator", "AcrossControlledAcrossSource",
                      "AcrossControlledThroughSource", "ThroughControlledAcrossSource",
                      "ThroughControlledThroughSource")
_RESERVED = {"t"} | set(CONSTANTS) | set(FUNCTIONS)
_SOURCES = (Kind.ACROSS_SOURCE, Kind.THROUGH_SOURCE)
_BODY_QUANTITIES = ("x", "y", "angle", "vx", "vy", "omega")
_MECHANISM_RESULTS = ("kinetic", "potential", "energy", "constraint residual")
_MECHANISM_PARTS = ("gravity", "ground", "bodies", "joints", "forces", "drives")


def _pointer(*parts: Any) -> str:
    """A JSON pointer (RFC 6901) from keys and indices. Characters that cannot be shown
    (control characters, lone surrogates) are written as backslash escapes, so that the
    location of a hostile key can always be printed."""
    def part(p: Any) -> str:
        text = str(p).replace("~", "~0").replace("/", "~1")
        return text if text.isprintable() else ascii(text)[1:-1]
    return "".join("/" + part(p) for p in parts) or "/"


def _error(location: str, message: str) -> ModelFileError:
    return ModelFileError(message, location=location)


# -- the model ---------------------------------------------------------------------------

@dataclass
class Model:
    """A network or mechanism with the settings of its model file.

    Attributes
    ----------
    kind : str
        ``"network"`` or ``"mechanism"``.
    system : Network or Mechanism
        The built :class:`~vecnet.Network`, :class:`~vecnet.planar.Mechanism` or (a file with
        ``"dimensions": 3``) :class:`~vecnet.spatial.Mechanism`.
    parameters : dict
        Declared parameter name -> numeric value, or ``None`` for a symbol without one.
    inputs : dict
        Network input name (``"Vs.across"``) -> sympy expression in :data:`vecnet.t`.
    initial, velocities : dict
        Initial values: state name -> number for networks, coordinate name -> number
        (and rate) for mechanisms; spatial mechanisms also take speeds by name and a body's
        ``"<body>.omega"`` and ``"<body>.velocity"`` as ``(x, y, z)`` in world axes.
    outputs : list of str
    tree : str or list of str or None
        Networks: ``"normal"``, ``"auto"`` or branch names; mechanisms: branch names or ``None``.
    coordinates : str
        Mechanisms: ``"joint"`` or ``"absolute"``.
    t_span, points
        Simulation interval and number of output points (``None``: not given).
    source : dict or None
        For mechanisms, the description (bodies, points, joints, ...) the system was built
        from; :func:`save_model` writes it back.

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("Vs", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1e3),
    ...             vn.Capacitor("C", "g", "b", C=1e-6))
    >>> model = Model("network", net, outputs=["C.across"])
    >>> model_to_dict(model)["elements"][1]
    {'type': 'Resistor', 'name': 'R', 'nodes': ['a', 'b'], 'parameters': {'R': 1000.0}}
    """

    kind: str
    system: Network | Mechanism | SpatialMechanism
    parameters: dict[str, float | None] = field(default_factory=dict)
    inputs: dict[str, sympy.Expr] = field(default_factory=dict)
    initial: dict[str, float] = field(default_factory=dict)
    velocities: dict[str, float | tuple[float, ...]] = field(default_factory=dict)
    outputs: list[str] = field(default_factory=list)
    tree: str | list[str] | None = None
    coordinates: str = "joint"
    t_span: tuple[float, float] | None = None
    points: int | None = None
    description: str = ""
    source: dict | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in ("network", "mechanism"):
            raise ModelError(f"a model's kind is 'network' or 'mechanism', not {self.kind!r}")
        expected = (Network,) if self.kind == "network" else (Mechanism, SpatialMechanism)
        if not isinstance(self.system, expected):
            raise ModelError(f"a {self.kind} model holds a "
                             f"{'Network' if self.kind == 'network' else 'Mechanism'}, "
                             f"got {type(self.system).__name__}")

    @property
    def name(self) -> str:
        return self.system.name

    @property
    def symbols(self) -> dict[str, sympy.Symbol]:
        """Declared parameter name -> its sympy symbol."""
        return {name: Symbol(name) for name in self.parameters}

    @property
    def values(self) -> dict[sympy.Symbol, float]:
        """Numeric values of the declared parameters that have one, by symbol."""
        return {Symbol(name): value for name, value in self.parameters.items() if value is not None}

    def state_space(self):
        """The network's :class:`~vecnet.formulation.lumped.StateSpace` for the file's tree
        and outputs, as the teaching path shows it: every parameter stays its symbol (numbers
        given to elements too); ``.subs(model.values)`` fills the declared values in."""
        self._need("network")
        return self.system.state_space(outputs=self.outputs, tree=self.tree or "normal",
                                       symbolic=True)

    def formulate(self):
        """The mechanism's :class:`~vecnet.formulation.planar.MultibodyEquations` (or, in
        space, :class:`~vecnet.formulation.spatial.SpatialEquations`) for the file's
        coordinates (or tree)."""
        self._need("mechanism")
        return self.system.formulate(coordinates=self.coordinates, tree=self.tree or None)

    def simulate(self, t_span: Sequence[float] | None = None, points: int | None = None,
                 progress: Callable[[float], None] | None = None, **options: Any):
        """Simulate with the file's settings (or the ``t_span`` and ``points`` given) by
        :func:`vecnet.simulate`; declared parameter values are applied. ``progress`` is
        called with the time reached as the integration goes on; the other ``options`` of
        :func:`vecnet.simulate` win over the file's settings. Returns a
        :class:`~vecnet.numerics.result.Result`."""
        from ..numerics.simulation import simulate

        # only passed on when given, so that the integrators keep their own default
        extra = {} if progress is None else {"progress": progress}
        t_span = tuple(t_span or self.t_span or ())
        if len(t_span) != 2:
            raise ModelError(f"model {self.name!r} has no simulation t_span; pass t_span=(t0, t1)")
        t0, t1, times = time_grid(t_span, points=int(points or self.points or 501))
        values = self.values
        if self.kind == "mechanism":
            # sympy numbers: the planar compiler substitutes them with xreplace; only the
            # values the equations hold (others served the file's own expressions)
            eom = self.formulate()
            exact = {k: sympy.Float(v) for k, v in values.items()}
            used = {str(s) for s in eom.compile_model(exact).used} if exact else set()
            exact = {k: v for k, v in exact.items() if str(k) in used}
            return simulate(eom, (t0, t1), **{"t_eval": times, "initial": self.initial or None,
                                              "velocities": self.velocities or None,
                                              "parameters": exact or None, **extra, **options})
        from ..formulation.lumped import network_inputs

        inputs: dict[str, Any] = {}
        sources = network_inputs(self.system)
        for source in sources:
            name, u = source.name, source.symbol
            if name in self.inputs:
                # sympify: a whole input that is one parameter becomes its (float) value
                signal = sympy.sympify(self.inputs[name].xreplace(values))
                check_oscillation(name, signal, (t0, t1))
                inputs[name] = _time_function(signal, name)
            elif u in values:  # a source whose value is a declared parameter
                inputs[name] = values[u]
            elif isinstance(source.signal, sympy.Basic):
                check_oscillation(name, source.signal, (t0, t1))
                inputs[name] = _time_function(source.signal, name)
        # the declared values the elements use (others served the file's own expressions)
        used = {str(s) for s in self.system.parameter_symbols()}
        parameters = {k: v for k, v in values.items()
                      if k not in {i.symbol for i in sources} and str(k) in used}
        # the sparse numeric formulation when it applies, else the symbolic one
        return simulate(self.system, (t0, t1), **{
            "tree": self.tree or "normal", "inputs": inputs, "initial": self.initial or None,
            "t_eval": times, "parameters": parameters or None, **extra, **options})

    def _need(self, kind: str) -> None:
        if self.kind != kind:
            raise ModelError(f"model {self.name!r} is a {self.kind}, not a {kind}")


def _located(loc: str, exc: VecnetError) -> ModelFileError:
    """``exc`` at ``loc`` in the file, or at its own location when it has one: the
    location is said once."""
    if isinstance(exc, ModelFileError):
        return _error(exc.location or loc, exc.detail)
    return _error(loc, str(exc))


def _time_function(expr: sympy.Expr, name: str):
    """A number, or a numeric function of t: the simulator then takes slopes by finite
    differences instead of differentiating steps and kinks into delta functions."""
    expr = sympy.sympify(expr)
    if expr.free_symbols - {t}:
        raise ModelError(f"input {name!r}: {expr} needs values for "
                         f"{', '.join(sorted(map(str, expr.free_symbols - {t})))}")
    if not expr.free_symbols:
        return float(expr)
    fn = sympy.lambdify(t, expr, modules="numpy")

    def value(time: float) -> float:
        v = fn(time)
        if isinstance(v, complex) or np.iscomplexobj(v):  # sqrt(t) before t = 0, log(-1)
            if v.imag != 0:
                raise SimulationError(f"input {name!r} = {expr} has no real value at "
                                      f"t = {time:g} (the slope of an input is taken from its "
                                      "values on both sides of each time)")
            v = v.real
        return float(v)

    value.expression = expr  # where the integrator finds the signal's switching times
    return value


# -- reading ----------------------------------------------------------------------------

class _Refused(Exception):
    def __init__(self, message: str, needle: str) -> None:
        super().__init__(message)
        self.needle = needle


def _line_of(text: str, needle: str, occurrence: int = 1) -> str:
    """``"line N"`` of the ``occurrence``-th match of ``needle`` in ``text`` (or ``"/"``)."""
    matches = list(re.finditer(needle, text))
    if len(matches) >= occurrence:
        return f"line {text.count(chr(10), 0, matches[occurrence - 1].start()) + 1}"
    return "/"


def _parse_json(text: str) -> Any:
    def pairs(items):
        seen = set()
        for key, _ in items:
            if key in seen:
                raise _Refused(f"duplicate key {key!r}", re.escape(json.dumps(key)) + r"\s*:")
            seen.add(key)
        return dict(items)

    def constant(name):
        raise _Refused(f"{name} is not a number in JSON", re.escape(name))

    def ascii_digits(literal):
        # float() and int() read Arabic-Indic and other digits too: JSON numbers are ASCII
        if not literal.isascii():
            raise _Refused(f"number {shown(literal, 20)} is not written in ASCII digits",
                           re.escape(literal))

    def number(literal):
        ascii_digits(literal)
        value = float(literal)
        if not math.isfinite(value):
            raise _Refused(f"number {literal[:20]} is out of range", re.escape(literal))
        return value

    def integer(literal):
        if len(literal) > 300:  # Python refuses very long integers anyway; say so clearly
            raise _Refused("integer with more than 300 digits", re.escape(literal[:30]))
        ascii_digits(literal)
        return int(literal)

    try:
        return json.loads(text, object_pairs_hook=pairs, parse_constant=constant,
                          parse_float=number, parse_int=integer)
    except json.JSONDecodeError as exc:
        raise _error(f"line {exc.lineno} column {exc.colno}", f"invalid JSON: {exc.msg}") from None
    except _Refused as exc:
        occurrence = 2 if str(exc).startswith("duplicate") else 1
        raise _error(_line_of(text, exc.needle, occurrence), str(exc)) from None
    except RecursionError:
        raise _error("/", "the JSON is nested too deeply") from None


def _read(source: str | os.PathLike | Mapping) -> dict:
    if isinstance(source, Mapping):
        try:
            return copy.deepcopy(dict(source))
        except RecursionError:
            raise _error("/", "the model is nested too deeply") from None
    if not isinstance(source, (str, os.PathLike)):
        raise _error("/", f"load_model takes a file path or a dict, got {type(source).__name__}")
    path = Path(source)
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_SIZE + 1)
    except OSError as exc:
        raise _error(str(path), f"cannot read the model file: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_SIZE:
        raise _error(str(path), f"the model file is larger than {MAX_FILE_SIZE} bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _error(f"byte offset {exc.start}", "the model file is not UTF-8 text") from None
    return _parse_json(text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_data(doc: Any) -> None:
    """Refuse, at their JSON pointer, values no model needs and that break later steps:
    NaN and infinite numbers (a dict given to :func:`load_model` may hold them), subnormal
    numbers (their reciprocals overflow) and text with lone surrogates (``"\\ud800"`` in
    JSON: not a character, and no output can encode it). Iterative: the document may be deep."""
    stack: list[tuple[Any, tuple]] = [(doc, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, float):
            problem = number_problem(value)
            if problem:
                raise _error(_pointer(*path), f"the number {value!r} {problem}")
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**1023:
            raise _error(_pointer(*path), "the integer is out of the range of floating point "
                                          "numbers")
        elif isinstance(value, str):
            if not value.isascii() and _SURROGATE.search(value):
                raise _error(_pointer(*path), f"the text {shown(value)} holds a lone surrogate "
                                              "(an escape such as \\ud800 that is no character)")
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and not key.isascii() and _SURROGATE.search(key):
                    raise _error(_pointer(*path, key), f"the key {shown(key)} holds a lone "
                                                       "surrogate (no character)")
                stack.append((item, (*path, key)))
        elif isinstance(value, (list, tuple)):
            stack.extend((item, (*path, k)) for k, item in enumerate(value))


def _schema_message(error: jsonschema.ValidationError) -> str:
    message = " ".join(error.message.split())
    return message if len(message) <= 200 else message[:197] + "..."


def _validate(doc: Any) -> None:
    if not isinstance(doc, dict):
        raise _error("/", f"a model file holds a JSON object {{...}}, not a {type(doc).__name__}")
    if "vecnet" not in doc:
        raise _error("/", f'no format version: start the model with "vecnet": "{FORMAT_VERSION}"')
    if doc["vecnet"] != FORMAT_VERSION:
        raise _error("/vecnet", f"unsupported model format version {doc['vecnet']!r}; this "
                                f"vecnet reads version \"{FORMAT_VERSION}\"")
    dimensions = doc.get("dimensions", 2)
    if doc.get("kind") == "mechanism" and (isinstance(dimensions, bool)
                                           or dimensions not in (2, 3)):
        # before the schema: its error would be about the branch it then picks
        raise _error("/dimensions", "a mechanism has \"dimensions\": 2 (planar, the default) or 3 "
                                    f"(spatial), not {json.dumps(dimensions)[:20]}")
    error = jsonschema.exceptions.best_match(_VALIDATOR.iter_errors(doc))
    if error is not None:
        raise _error(_pointer(*error.absolute_path), _schema_message(error) + _hint(doc, error))


def _hint(doc: dict, error: jsonschema.ValidationError) -> str:
    """For a planar mechanism refused for what a spatial one holds (a 3-vector, a spatial
    joint): how to make it spatial."""
    if doc.get("kind") != "mechanism" or doc.get("dimensions", 2) != 2:
        return ""
    spatial_joint = error.validator == "enum" and isinstance(error.instance, str) \
        and error.instance in _SPATIAL_JOINTS
    vector = error.validator == "maxItems" and isinstance(error.instance, list) \
        and len(error.instance) == 3
    return "; a spatial mechanism needs \"dimensions\": 3" if spatial_joint or vector else ""


class _Scope:
    """The declared parameters and how to read values that use them."""

    def __init__(self, declared: Mapping[str, float | None]) -> None:
        for name in declared:
            check_name(name, "parameter name", _pointer("parameters", name))
            if name in _RESERVED:
                raise _error(_pointer("parameters", name),
                             f"{name!r} is a built-in name (t, pi, e and the functions); "
                             "choose another parameter name")
        self.values = {n: (None if v is None else float(v)) for n, v in declared.items()}
        self.symbols = {n: Symbol(n) for n in declared}
        self.numeric = {self.symbols[n]: sympy.Float(v) for n, v in self.values.items()
                        if v is not None}

    def expr(self, value: Any, loc: str, *, time: bool = False,
             extra: Mapping[str, sympy.Expr] | None = None) -> sympy.Expr:
        """A number or an expression over the declared names (and ``extra``)."""
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise _error(loc, f"expected a number or an expression, got {value!r}")
        if isinstance(value, (int, float)):
            return sympy.Float(float(value))
        names = dict(self.symbols)
        for key, symbol in (extra or {}).items():
            if key in names:
                raise _error(loc, f"parameter {key!r} has the name of a variable here; rename it")
            names[key] = symbol
        return parse_expression(value, names, loc, time=time)

    def raw(self, value: Any, loc: str, *, time: bool = False) -> Any:
        """Numbers stay Python floats (an element then keeps them as values of its own
        symbols), text becomes a sympy expression."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return self.expr(value, loc, time=time)

    def number(self, value: Any, loc: str, exact: bool = False) -> float | sympy.Expr:
        """A value that must be a number once the declared values are put in (with
        ``exact``, as the sympy number it is: ``pi/2`` stays ``pi/2``)."""
        expr = self.expr(value, loc).xreplace(self.numeric)
        missing = sorted(map(str, expr.free_symbols))
        if missing:
            raise _error(loc, f"needs a number, but parameter(s) {', '.join(missing)} have no "
                              "value; give them one under \"parameters\"")
        try:
            number = float(expr)
        except (TypeError, ValueError, OverflowError):  # sqrt(l - 1) with l = 0.4
            raise _error(loc, f"the value {expr} is not a real number") from None
        if not math.isfinite(number):
            raise _error(loc, "the value is not finite")
        return expr if exact else number

    def vector(self, values: list, loc: str) -> tuple[float, ...]:
        """Numbers (see :meth:`number`) of a list, e.g. a position or an axis."""
        return tuple(self.number(v, f"{loc}/{k}") for k, v in enumerate(values))


def _simulation(doc: Mapping, model: Model) -> None:
    sim = doc.get("simulation")
    if sim is None:
        return
    t0, t1 = (float(x) for x in sim["t_span"])
    if not t1 > t0:
        raise _error("/simulation/t_span", f"the end time {t1:g} must come after the start {t0:g}")
    model.t_span, model.points = (t0, t1), sim.get("points")


def _unique(names: dict[str, str], name: str, loc: str) -> None:
    """Check a name of the file (element, body, joint, force, drive) against the name
    policy of :mod:`vecnet.names` and against the names already used."""
    check_name(name, "name", loc)
    if name in names:
        raise _error(loc, f"duplicate name {name!r} (also at {names[name]})")
    names[name] = loc


def _suggest(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


# -- networks ---------------------------------------------------------------------------

class _Law:
    """A nonlinear law read from a file: ``expression`` with ``variable`` replaced by the
    argument (the callable :class:`~vecnet.NonlinearDissipator` wants)."""

    def __init__(self, expression: sympy.Expr, variable: sympy.Symbol) -> None:
        self.expression, self.variable = expression, variable

    def __call__(self, x):
        return self.expression.xreplace({self.variable: x})


def _check_nodes(entry: Mapping, loc: str, declared_nodes: set | None, want: int,
                 ends: str) -> list:
    """The ``nodes`` of an element entry: ``want`` of them (``ends`` says which), each a
    valid node (declared, when the file declares nodes), every edge's two ends different."""
    kind, name, nodes = entry["type"], entry["name"], entry["nodes"]
    if len(nodes) != want:
        raise _error(f"{loc}/nodes", f"{kind} {name!r} takes {want} nodes ({ends}); got {len(nodes)}")
    for k, node in enumerate(nodes):
        if isinstance(node, bool):
            raise _error(f"{loc}/nodes/{k}", "a node is a string or an integer")
        check_node(node, f"{loc}/nodes/{k}")
        if declared_nodes is not None and node not in declared_nodes:
            raise _error(f"{loc}/nodes/{k}", f"unknown node {node!r}; the file declares nodes "
                                             f"{', '.join(map(repr, declared_nodes))}")
    return nodes


def _check_ends(entry: Mapping, loc: str, edges: Sequence[tuple[Any, Any]]) -> None:
    for tail, head in edges:
        if tail == head:
            raise _error(f"{loc}/nodes", f"{entry['type']} {entry['name']!r}: tail and head are "
                                         f"both {tail!r}; an edge joins two different nodes")


def _check_keys(entry: Mapping, loc: str, allowed: set[str]) -> None:
    for key in entry:
        if key not in allowed:
            raise _error(f"{loc}/{key}", f"{entry['type']} takes no {key!r}; it takes "
                                         f"{', '.join(sorted(allowed - {'description'}))}")


def _coupled_inductors(entry: Mapping, loc: str, scope: _Scope,
                       declared_nodes: set | None) -> CoupledInductors:
    """``"parameters": {"L": [[L1, M], [M, L2]]}`` (numbers or expressions), ``nodes`` the
    tail and head of each winding, optional ``windings`` names."""
    name = entry["name"]
    _check_keys(entry, loc, {"type", "name", "nodes", "parameters", "windings", "description"})
    given = entry.get("parameters", {})
    for pname in given:
        if pname != "L":
            raise _error(loc + _pointer("parameters", pname),
                         f"CoupledInductors has no parameter {pname!r}; it takes the inductance "
                         "matrix \"L\": [[L1, M], [M, L2]]")
    if "L" not in given:
        raise _error(f"{loc}/parameters", f"CoupledInductors {name!r} needs the inductance "
                                          "matrix \"L\": [[L1, M], [M, L2]]")
    mloc = f"{loc}/parameters/L"
    rows = [[scope.raw(v, f"{mloc}/{i}/{j}") for j, v in enumerate(row)]
            for i, row in enumerate(given["L"])]
    n = len(rows)
    if any(len(row) != n for row in rows):
        raise _error(mloc, f"L must be square, one row and one column per winding; got rows "
                           f"of lengths {[len(r) for r in rows]}")
    nodes = _check_nodes(entry, loc, declared_nodes, 2 * n,
                         "tail and head of each winding, one winding per row of L")
    _check_ends(entry, loc, list(zip(nodes[::2], nodes[1::2])))
    windings = entry.get("windings")
    if windings is not None and len(windings) != n:
        raise _error(f"{loc}/windings", f"give {n} winding names, one per row of L; got "
                                        f"{len(windings)}")
    for k, winding in enumerate(windings or ()):
        check_name(winding, "winding name", f"{loc}/windings/{k}")
        if winding in windings[:k]:
            raise _error(f"{loc}/windings/{k}", f"winding {winding!r} is named twice")
    try:
        element = CoupledInductors(name, *nodes, L=rows, windings=windings)
    except VecnetError as exc:
        raise _located(mloc, exc) from None
    numbers = [[_as_number(v, scope) for v in row] for row in rows]
    if any(isinstance(v, sympy.Expr) for row in rows for v in row) \
            and None not in (v for row in numbers for v in row):
        # the element checks numbers only: check the declared parameters' values too
        try:
            CoupledInductors(name, *nodes, L=numbers, windings=windings)
        except VecnetError as exc:
            raise _error(mloc, f"{exc} (with the values under \"parameters\")") from None
    return element


def _op_amp(entry: Mapping, loc: str, scope: _Scope, declared_nodes: set | None) -> Element:
    """``nodes`` ``[in_minus, in_plus, out, ground]`` as :class:`~vecnet.OpAmp` takes them,
    optional open-loop ``gain`` (without it the op-amp is ideal)."""
    _check_keys(entry, loc, {"type", "name", "nodes", "gain", "description"})
    nodes = _check_nodes(entry, loc, declared_nodes, 4, "in_minus, in_plus, out, ground")
    in_minus, in_plus, out, ground = nodes
    _check_ends(entry, loc, [(in_minus, in_plus), (ground, out)])
    gain = scope.raw(entry["gain"], f"{loc}/gain") if "gain" in entry else None
    try:
        return controlled.OpAmp(entry["name"], *nodes, gain=gain)
    except VecnetError as exc:
        raise _located(loc, exc) from None


def _element(entry: Mapping, loc: str, scope: _Scope, declared_nodes: set | None) -> Element:
    kind = entry["type"]
    if kind == "CoupledInductors":
        return _coupled_inductors(entry, loc, scope, declared_nodes)
    if kind == "OpAmp":
        return _op_amp(entry, loc, scope, declared_nodes)
    cls = ELEMENT_TYPES.get(kind)
    if cls is None:
        known = (*ELEMENT_TYPES, *_OWN_ENTRY_TYPES)
        raise _error(f"{loc}/type", f"unknown element type {kind!r}{_suggest(kind, known)} "
                                    f"(types: {', '.join(known)})")
    name = entry["name"]
    want = 2 * len(cls.ports)
    nodes = _check_nodes(entry, loc, declared_nodes, want,
                         "tail, head" if want == 2 else "tail and head of port 1, then of port 2")
    _check_ends(entry, loc, list(zip(nodes[::2], nodes[1::2])))
    allowed = {"type", "name", "nodes", "description"}
    if cls.positive:
        allowed.add("allow_negative")
    if cls is lumped.NonlinearDissipator:
        allowed |= {"domain", "across", "through"}
    elif kind in _GENERIC_TWO_PORTS:
        allowed |= {"domains", "parameters"}
    else:
        allowed |= {"parameters"}
    _check_keys(entry, loc, allowed)
    kwargs: dict[str, Any] = {}
    if cls is lumped.NonlinearDissipator:
        domain = entry.get("domain", "electrical")
        if domain not in DOMAINS or DOMAINS[domain].dimension != "scalar":
            raise _error(f"{loc}/domain", f"unknown domain {domain!r}; domains are "
                         + ", ".join(d for d, v in DOMAINS.items() if v.dimension == "scalar"))
        laws = [key for key in ("across", "through") if key in entry]
        if len(laws) != 1:
            raise _error(loc, f"NonlinearDissipator {name!r}: give exactly one of \"across\" "
                              "(a = f(tau), in tau) or \"through\" (tau = g(a), in a)")
        key = laws[0]
        var = Symbol("tau" if key == "across" else "a")
        expr = scope.expr(entry[key], f"{loc}/{key}", extra={var.name: var})
        kwargs = {"domain": domain, key: _Law(expr, var)}
    else:
        given = entry.get("parameters", {})
        for pname in given:
            if pname not in cls.parameter_names:
                raise _error(loc + _pointer("parameters", pname),
                             f"{kind} has no parameter {pname!r}{_suggest(pname, cls.parameter_names)}"
                             f"; its parameters are {', '.join(cls.parameter_names) or 'none'}")
        missing = [p for p in cls.parameter_names if p not in given and p not in cls.defaults]
        if missing:
            raise _error(f"{loc}/parameters", f"{kind} {name!r} needs parameter(s) "
                                              f"{', '.join(missing)}")
        for pname, value in given.items():
            ploc = f"{loc}/parameters/{pname}"
            signal = pname in cls.signals
            value = scope.raw(value, ploc, time=signal)
            if signal and isinstance(value, sympy.Expr) and not isinstance(value, sympy.Symbol) \
                    and not value.free_symbols <= {t}:
                raise _error(ploc, "a source value is a number, a declared parameter or an "
                                   "expression in t alone; to drive it with a formula in "
                                   "parameters, name a parameter here and give the formula "
                                   "under \"inputs\"")
            kwargs[pname] = value
        if "domains" in entry:
            for k, d in enumerate(entry["domains"]):
                if d not in DOMAINS or DOMAINS[d].dimension != "scalar":
                    raise _error(f"{loc}/domains/{k}", f"unknown domain {d!r}; domains are "
                                 + ", ".join(x for x, v in DOMAINS.items() if v.dimension == "scalar"))
            kwargs["domains"] = tuple(entry["domains"])
    allow_negative = bool(entry.get("allow_negative"))
    if allow_negative:
        kwargs["allow_negative"] = True
    for pname in cls.positive:
        # a number, or a parameter symbol bound to a number under "parameters": check it
        value = kwargs.get(pname)
        if isinstance(value, sympy.Expr):
            bound = value.xreplace(scope.numeric)
            try:
                value = float(bound) if bound.is_number else None
            except (TypeError, ValueError, OverflowError):
                value = None  # not real: the formulation says so
            given = " (with the values under \"parameters\")"
        else:
            given = ""
        problem = value is not None and cls.value_problem(pname, value, name, allow_negative)
        if problem:
            raise _error(f"{loc}/parameters/{pname}", problem + given)
    try:
        return cls(name, *nodes, **kwargs)
    except VecnetError as exc:
        raise _located(loc, exc) from None


def _edge_variable(key: str, loc: str, net: Network) -> str:
    edge, _, what = key.rpartition(".")
    if what not in ("across", "through") or not edge:
        raise _error(loc, f"{key!r} is not a variable name; write '<edge>.across' or "
                          "'<edge>.through'")
    if edge not in net.graph:
        raise _error(loc, f"no edge {edge!r}{_suggest(edge, net.graph.edges)}")
    return edge


def _check_symbols(net: Network, scope: _Scope) -> None:
    """Numbers are kept as values of symbols named after the element; two parameters must
    not end up with the same symbol."""
    owners: dict[str, str] = {}
    for i, element in enumerate(net.elements):
        for pname, p in element.parameters.items():
            if p.value is None or not isinstance(p.symbol, sympy.Symbol):
                continue
            loc, sname = f"/elements/{i}/parameters/{pname}", p.symbol.name
            if sname in scope.symbols:
                raise _error(loc, f"this number is kept as the value of symbol {sname!r}, which is "
                                  f"also a declared parameter; write \"{sname}\" to use the "
                                  "parameter, or rename one of them")
            if sname in owners:
                raise _error(loc, f"this number is kept as the value of symbol {sname!r}, as is "
                                  f"the one at {owners[sname]}; rename one of the elements")
            owners[sname] = loc


def _load_network(doc: Mapping, scope: _Scope) -> Model:
    net = Network(doc.get("name", "network"))
    declared = None
    if "nodes" in doc:
        declared = {}
        for k, node in enumerate(doc["nodes"]):
            if isinstance(node, bool):
                raise _error(f"/nodes/{k}", "a node is a string or an integer")
            check_node(node, f"/nodes/{k}")
            if node in declared:
                raise _error(f"/nodes/{k}", f"node {node!r} is declared twice")
            declared[node] = k
            net.graph.add_node(node)
    names: dict[str, str] = {}
    for i, entry in enumerate(doc["elements"]):
        loc = f"/elements/{i}"
        _unique(names, entry["name"], f"{loc}/name")
        element = _element(entry, loc, scope, declared)
        try:
            net.add(element)
        except VecnetError as exc:
            raise _located(loc, exc) from None
    if declared is not None:
        used = {e.tail for el in net.elements for e in el.edges} | \
               {e.head for el in net.elements for e in el.edges}
        for node, k in declared.items():
            if node not in used:
                raise _error(f"/nodes/{k}", f"node {node!r} is declared but no element uses it")
    _check_symbols(net, scope)
    warn_connectivity(net)

    model = Model("network", net, parameters=dict(scope.values),
                  description=doc.get("description", ""))
    for key, value in doc.get("inputs", {}).items():
        loc = _pointer("inputs", key)
        edge = _edge_variable(key, loc, net)
        element = net.owner(edge)
        if element.kind not in _SOURCES:
            raise _error(loc, f"{edge!r} is a {type(element).__name__}, not a source; inputs "
                              "are the values of sources")
        if key != f"{edge}.{element.driven}":
            raise _error(loc, f"the input of {type(element).__name__} {edge!r} is "
                              f"'{edge}.{element.driven}'")
        model.inputs[key] = scope.expr(value, loc, time=True)
    for key, value in doc.get("initial", {}).items():
        loc = _pointer("initial", key)
        _edge_variable(key, loc, net)
        model.initial[key] = scope.number(value, loc)
    for k, name in enumerate(doc.get("outputs", [])):
        _edge_variable(name, f"/outputs/{k}", net)
        model.outputs.append(name)
    tree = doc.get("tree")
    if isinstance(tree, list):
        seen: set[str] = set()
        for k, edge in enumerate(tree):
            if edge not in net.graph:
                raise _error(f"/tree/{k}", f"no edge {edge!r}{_suggest(edge, net.graph.edges)}")
            if edge in seen:
                raise _error(f"/tree/{k}", f"edge {edge!r} is listed twice")
            seen.add(edge)
        tree = list(tree)
    model.tree = tree
    _simulation(doc, model)
    return model


# -- mechanisms -------------------------------------------------------------------------

class _MechanismReader:
    """What planar and spatial mechanism files share: names, point and body references,
    points, masses, springs, dampers, applied torques and forces, drives, initial values.
    :class:`_PlanarReader` and :class:`_SpatialReader` add what differs (the pose of a
    body, joints, rotary springs)."""

    #: the mechanism builder, the gravity it gets when the file gives none, and the
    #: joint kinds a drive may act on
    builder: type = Mechanism
    default_gravity: tuple[float, ...] = (0.0, -9.81)
    drivable: tuple[str, ...] = ("revolute", "prismatic")

    def __init__(self, doc: Mapping, scope: _Scope) -> None:
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
        number = _as_number(value, self.scope)
        if number is not None and number < 0:
            raise _error(loc, f"{what} of {name!r} must be zero or more; got {number:g}")
        return value

    def call(self, loc: str, method, *args, **kwargs):
        try:
            return method(*args, **kwargs)
        except VecnetError as exc:
            raise _located(loc, exc) from None

    def point(self, ref: str, loc: str):
        body_name, dot, pname = ref.partition(".")
        if body_name == DATUM:
            body = self.mech.ground
        elif body_name in self.mech.bodies:
            body = self.mech.bodies[body_name]
        else:
            raise _error(loc, f"unknown body {body_name!r}{_suggest(body_name, self.mech.bodies)}; "
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
            raise _error(loc, f"unknown body {ref!r}{_suggest(ref, self.mech.bodies)}; bodies are "
                              f"{', '.join(self.mech.bodies)}{extra}")
        return self.mech.bodies[ref]

    def joint_ref(self, joint: str, loc: str, kinds: tuple[str, ...], what: str) -> str:
        """A reference to a joint of the file, of one of the ``kinds`` that ``what`` (a
        drive, a rotary spring) acts on."""
        if joint not in self.joints:
            raise _error(loc, f"unknown joint {joint!r}{_suggest(joint, self.joints)}")
        if self.joints[joint] not in kinds:
            raise _error(loc, f"only {', '.join(kinds[:-1])} and {kinds[-1]} joints {what}; "
                              f"{joint!r} is a {self.joints[joint]} joint")
        return joint

    def add_points(self, body, points: Mapping, loc: str) -> None:
        for pname, coordinates in points.items():
            ploc = loc + _pointer(pname)  # the key is the user's: escaped like any pointer
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
        for i, entry in enumerate(doc["bodies"]):
            loc = f"/bodies/{i}"
            name = entry["name"]
            _unique(self.names, name, f"{loc}/name")
            mass = scope.raw(entry["mass"], f"{loc}/mass")
            number = _as_number(mass, scope)
            if number is not None and number < 0:
                raise _error(f"{loc}/mass", f"mass of body {name!r} must be zero or more; "
                                            f"got {number:g}")
            body = self.add_body(entry, loc, mass)
            self.add_points(body, entry.get("points", {}), f"{loc}/points")
        for i, entry in enumerate(doc.get("joints", [])):
            loc = f"/joints/{i}"
            kind, name = entry["type"], entry["name"]
            _unique(self.names, name, f"{loc}/name")
            a, b = self.between(entry, loc)
            self.add_joint(entry, loc, a, b)
            self.joints[name] = kind
        for i, entry in enumerate(doc.get("forces", [])):
            self.force(entry, f"/forces/{i}")
        for i, entry in enumerate(doc.get("drives", [])):
            loc = f"/drives/{i}"
            _unique(self.names, entry["name"], f"{loc}/name")
            joint = self.joint_ref(entry["joint"], f"{loc}/joint", self.drivable, "can be driven")
            motion = scope.expr(entry["motion"], f"{loc}/motion", time=True)
            extra = {"quantity": entry["quantity"]} if "quantity" in entry else {}
            self.call(loc, mech.drive, entry["name"], joint, motion, **extra)
        return mech

    def add_body(self, entry: Mapping, loc: str, mass: Any):
        raise NotImplementedError

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
                "gear": self.gear, "rack_and_pinion": self.rack_and_pinion}.get(entry["type"])
        if read is None:
            self.other_force(entry, loc)
            return
        _unique(self.names, entry["name"], f"{loc}/name")
        read(entry, loc)

    def joint_friction(self, entry: Mapping, loc: str) -> None:
        name, scope = entry["name"], self.scope
        joint = self.joint_ref(entry["joint"], f"{loc}/joint", self.drivable, "take friction")
        if "viscous" not in entry and "coulomb" not in entry:
            raise _error(loc, f"joint friction {name!r} needs viscous, coulomb or both")
        law = {key: self.not_negative(scope.expr(entry[key], f"{loc}/{key}"), f"{loc}/{key}",
                                      f"the {key} coefficient", name)
               for key in ("viscous", "coulomb") if key in entry}
        if "smoothing" in entry:
            sloc = f"{loc}/smoothing"
            law["smoothing"] = scope.expr(entry["smoothing"], sloc)
            number = _as_number(law["smoothing"], scope)
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
        _unique(self.names, name, f"{loc}/name")
        if kind == "spring":
            a, b = self.between(entry, loc)
            c = self.not_negative(scope.expr(entry.get("c", 0), f"{loc}/c"), f"{loc}/c",
                                  "the damping", name)
            if "force" in entry:
                for key in ("k", "length"):
                    if key in entry:
                        raise _error(f"{loc}/{key}", "give either k (and length) or force, not both")
                length = Symbol("length")
                law = _Law(scope.expr(entry["force"], f"{loc}/force",
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


class _PlanarReader(_MechanismReader):
    """A planar mechanism (:class:`vecnet.planar.Mechanism`) from a file."""

    def quantities(self) -> dict[str, sympy.Symbol]:
        return {f"{b}.{q}": self.mech.quantity(f"{b}.{q}") for b in self.mech.bodies
                if b.isidentifier() for q in _BODY_QUANTITIES}

    def add_body(self, entry: Mapping, loc: str, mass: Any):
        name = entry["name"]
        inertia = self.scope.raw(entry["inertia"], f"{loc}/inertia")
        number = _as_number(inertia, self.scope)
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

#: spatial joint kind -> the key of its direction in the file (``None``: it has none)
_SPATIAL_JOINTS = {"revolute": "axis", "prismatic": "axis", "cylindrical": "axis",
                   "screw": "axis", "point_on_line": "axis", "planar_joint": "normal",
                   "point_on_plane": "normal", "universal": "axes", "spherical": None,
                   "weld": None}


class _SpatialReader(_MechanismReader):
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
            numbers = [[_as_number(v, self.scope) for v in row] for row in raw]
        else:
            raw = [self.scope.raw(v, f"{loc}/{j}") for j, v in enumerate(values)]
            numbers = [_as_number(v, self.scope) for v in raw]
        flat = [n for row in numbers for n in row] if isinstance(values[0], list) else numbers
        if None not in flat:
            self.call(loc, inertia_matrix, numbers, name)
        return raw

    def orientation(self, values: list, loc: str, name: str) -> np.ndarray:
        if isinstance(values[0], list):
            numbers = [self.scope.vector(row, f"{loc}/{i}") for i, row in enumerate(values)]
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
        kind, name = entry["type"], entry["name"]
        key = _SPATIAL_JOINTS[kind]
        where, options = loc, {}
        if key == "axes":
            where = f"{loc}/axes"  # the builder's complaint: the axes are not perpendicular
            options["axes"] = tuple(self.axis(v, f"{where}/{k}", name)
                                    for k, v in enumerate(entry["axes"]))
        elif key is not None:
            options[key] = self.axis(entry[key], f"{loc}/{key}", name)
        if kind == "screw":
            options["pitch"] = self.scope.expr(entry["pitch"], f"{loc}/pitch")
        self.call(where, getattr(self.mech, kind), name, a, b, **options)

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

        def rates(element: Element) -> tuple[str, ...]:
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


def _as_number(value: Any, scope: _Scope) -> float | None:
    if isinstance(value, float):
        return value
    expr = value.xreplace(scope.numeric)
    return float(expr) if expr.is_number and expr.is_real else None


def _coordinate_name(key: str, loc: str, mech: Mechanism | SpatialMechanism,
                     what: str = "coordinate",
                     names: Callable[[Element], Sequence[str]] = lambda e: e.coordinates) -> None:
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


def _load_mechanism(doc: Mapping, scope: _Scope) -> Model:
    reader = (_SpatialReader if doc.get("dimensions") == 3 else _PlanarReader)(doc, scope)
    mech = reader.build()
    model = Model("mechanism", mech, parameters=dict(scope.values),
                  description=doc.get("description", ""),
                  source={k: copy.deepcopy(doc[k]) for k in _MECHANISM_PARTS if k in doc})
    model.coordinates = doc.get("coordinates", "joint")
    if "tree" in doc:
        seen: set[str] = set()
        for k, edge in enumerate(doc["tree"]):
            if edge not in mech.network.graph:
                raise _error(f"/tree/{k}", f"no edge {edge!r}{_suggest(edge, mech.network.graph.edges)}")
            if edge in seen:
                raise _error(f"/tree/{k}", f"edge {edge!r} is listed twice")
            if edge in {e["name"] for e in doc.get("drives", [])}:
                raise _error(f"/tree/{k}", f"drive {edge!r} prescribes motion; it belongs in the cotree")
            seen.add(edge)
        model.tree = list(doc["tree"])
    for section, target, read in (("initial", model.initial, reader.initial_value),
                                  ("velocities", model.velocities, reader.velocity)):
        for key, value in doc.get(section, {}).items():
            target[key] = read(key, value, _pointer(section, key))
    known = set(mech.bodies) | {e.name for e in mech.network.elements}
    for k, name in enumerate(doc.get("outputs", [])):
        head = name.split(".")[0].rstrip("'")
        if name not in _MECHANISM_RESULTS and head not in known:
            raise _error(f"/outputs/{k}", f"unknown output {name!r}: results are named after "
                                          "bodies, joints, force elements and coordinates "
                                          f"('crank.angle', 'P1.reaction'), or are "
                                          f"{', '.join(_MECHANISM_RESULTS)}")
        model.outputs.append(name)
    _simulation(doc, model)
    reader.check(model)
    return model


def load_model(source: str | os.PathLike | Mapping[str, Any],
               parameters: Mapping[str, float] | None = None) -> Model:
    """Read a model file (or an already parsed dict) into a :class:`Model`; ``parameters``
    gives declared parameters other values (``{"R": 2e3}``, as ``vecnet --param R=2e3``).

    Raises
    ------
    ModelFileError
        The file cannot be read or is not a valid model, or ``parameters`` names a
        parameter the model does not declare; ``location`` says where.

    Examples
    --------
    >>> model = load_model({"vecnet": "1", "kind": "network", "name": "rc",
    ...     "parameters": {"R": 1000.0, "C": 1e-6},
    ...     "elements": [
    ...         {"type": "VoltageSource", "name": "Vs", "nodes": ["g", "a"], "parameters": {"V": 1.0}},
    ...         {"type": "Resistor", "name": "R1", "nodes": ["a", "b"], "parameters": {"R": "R"}},
    ...         {"type": "Capacitor", "name": "C1", "nodes": ["g", "b"], "parameters": {"C": "C"}}],
    ...     "outputs": ["C1.across"]})
    >>> model.state_space().transfer_function()
    Matrix([[1/(C*R*s + 1)]])
    >>> load_model({"vecnet": "2", "kind": "network"})
    Traceback (most recent call last):
    ...
    vecnet.errors.ModelFileError: /vecnet: unsupported model format version '2'; this vecnet reads version "1"
    """
    doc = _read(source)
    _check_data(doc)
    _validate(doc)
    declared = dict(doc.get("parameters", {}))
    for name, value in (parameters or {}).items():
        if name not in declared:
            raise _error("/parameters", f"no parameter {name!r} to set; the model declares "
                                        f"{', '.join(map(repr, declared)) or 'none'}")
        declared[name] = finite_number(value, f"parameter {name!r}")
    scope = _Scope(declared)
    model = _load_network(doc, scope) if doc["kind"] == "network" else \
        _load_mechanism(doc, scope)
    model.system.untrusted = True  # simulated under the bounds of files (vecnet.bounds)
    return model


# -- writing ----------------------------------------------------------------------------

def _node(node: Any, loc: str) -> str | int:
    if isinstance(node, bool) or not isinstance(node, (str, int)):
        raise _error(loc, f"node {node!r} cannot be written: nodes in model files are strings "
                          "or integers")
    return node


def _write_value(value: Any, loc: str, found: dict[str, None]) -> float | str:
    """A parameter value as a number or as expression text (noting the symbols it uses)."""
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


def _own_entry(element: CoupledInductors | controlled.OpAmp, loc: str,
               found: dict[str, None]) -> dict[str, Any]:
    """The entry of coupled inductors (the matrix ``L``) or of an op-amp (its four nodes in
    the constructor's order and its ``gain``)."""
    coupled = isinstance(element, CoupledInductors)
    entry: dict[str, Any] = {"type": "CoupledInductors" if coupled else "OpAmp",
                             "name": element.name}
    if coupled:
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
    into, out = element.edges
    entry["nodes"] = [_node(node, f"{loc}/nodes")
                      for node in (into.tail, into.head, out.head, out.tail)]
    if "A" in element.parameters:
        entry["gain"] = _parameter_value(element, "A", f"{loc}/gain", found)
    return entry


def _network_parts(net: Network, found: dict[str, None]) -> dict[str, Any]:
    elements = []
    for i, element in enumerate(net.elements):
        loc = f"/elements/{i}"
        cls, kind = type(element), type(element).__name__
        if isinstance(element, (CoupledInductors, controlled.OpAmp)):
            elements.append(_own_entry(element, loc, found))
            continue
        if ELEMENT_TYPES.get(kind) is not cls:
            raise _error(loc, f"element class {cls.__module__}.{kind} is not part of the model "
                              f"format; types are {', '.join((*ELEMENT_TYPES, *_OWN_ENTRY_TYPES))}")
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
            if kind in _GENERIC_TWO_PORTS and tuple(domains) != tuple(cls.domain):
                entry["domains"] = domains
            if parameters:
                entry["parameters"] = parameters
            if getattr(element, "allow_negative", False):
                entry["allow_negative"] = True
        elements.append(entry)
    return {"nodes": [_node(n, "/nodes") for n in net.graph.nodes], "elements": elements}


def _check_source(model: Model) -> dict:
    if model.source is None:
        raise ModelError(f"mechanism {model.name!r} was built in Python; only mechanisms loaded "
                         "from a model file can be saved")
    # the description must still be the system: rebuild it and compare the element names
    reader = _SpatialReader if isinstance(model.system, SpatialMechanism) else _PlanarReader
    rebuilt = reader({"name": model.name, **model.source}, _Scope(model.parameters)).build()
    ours = [e.name for e in model.system.network.elements]
    if [e.name for e in rebuilt.network.elements] != ours:
        raise ModelError(f"mechanism {model.name!r} was changed after it was loaded; "
                         "save_model writes the description it was loaded from")
    return copy.deepcopy(model.source)


def model_to_dict(model: Model) -> dict[str, Any]:
    """The model file contents of ``model`` as a JSON-ready dict.

    >>> import vecnet as vn
    >>> net = vn.Network("r")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=vn.Symbol("U")),
    ...             vn.Resistor("R", "a", "g", R=2.0))
    >>> doc = model_to_dict(Model("network", net))
    >>> doc["parameters"], doc["elements"][0]["parameters"]
    ({'U': None}, {'V': 'U'})
    """
    doc: dict[str, Any] = {"vecnet": FORMAT_VERSION, "kind": model.kind}
    if isinstance(model.system, SpatialMechanism):
        doc["dimensions"] = 3
    doc["name"] = model.name
    if model.description:
        doc["description"] = model.description
    found: dict[str, None] = {}
    if model.kind == "network":
        parts = _network_parts(model.system, found)
    else:
        parts = _check_source(model)
    inputs = {key: _write_value(expr, _pointer("inputs", key), found)
              for key, expr in model.inputs.items()}
    parameters = dict(model.parameters)
    for name in found:
        parameters.setdefault(name, None)
    if parameters:
        doc["parameters"] = parameters
    doc.update(parts)
    if inputs:
        doc["inputs"] = inputs
    if model.kind == "mechanism" and model.coordinates != "joint":
        doc["coordinates"] = model.coordinates
    if model.tree is not None:
        doc["tree"] = model.tree if isinstance(model.tree, str) else list(model.tree)
    for key in ("initial", "velocities"):
        values = getattr(model, key)
        if values:
            doc[key] = {k: _write_vector(v, _pointer(key, k), found) for k, v in values.items()}
    if model.outputs:
        doc["outputs"] = list(model.outputs)
    if model.t_span is not None:
        doc["simulation"] = {"t_span": [float(model.t_span[0]), float(model.t_span[1])]}
        if model.points is not None:
            doc["simulation"]["points"] = int(model.points)
    _validate(doc)  # what is written can be read: a name or node the schema refuses stops here
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


def save_model(model: Model, path: str | os.PathLike) -> None:
    """Write ``model`` to ``path`` as JSON. The file is replaced in one step: if anything
    fails, an existing file is left as it was and no partial file remains.

    >>> import tempfile, os, vecnet as vn
    >>> net = vn.Network("r")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "g", R=2.0))
    >>> with tempfile.TemporaryDirectory() as d:
    ...     save_model(Model("network", net), os.path.join(d, "r.json"))
    ...     load_model(os.path.join(d, "r.json")).system.element("R").parameters["R"].value
    2.0
    """
    doc = model_to_dict(model)  # any error comes before the file is touched
    try:
        text = _dumps(doc) + "\n"
    except (TypeError, ValueError) as exc:
        raise _error("/", f"the model cannot be written as JSON: {exc}") from None
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                   dir=path.parent if str(path.parent) else ".")
    except OSError as exc:
        raise _error(str(path), f"cannot write the model file: {exc.strerror or exc}") from None
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        mode = 0o644  # mkstemp makes the file private; a model file is an ordinary document
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        with suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _error(str(path), f"cannot write the model file: {exc.strerror or exc}") from None
        raise
