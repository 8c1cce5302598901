"""Fuzzing (issue 10, item 5): generated hostile model files, netlists and names.

Hypothesis generates

* **network model files** of valid structure: a bundled network
  (``examples/models``) or a generated chain of lumped elements and two-ports,
  with element, node, parameter and port names renamed to generated names (plain,
  Unicode, reserved words, look-alikes, markup, lone surrogates, overlong, dotted,
  duplicated), a few values replaced by hostile numbers (0, negatives, subnormals,
  huge, big integers, NaN and infinities, ``"nan"`` as text) or hostile expressions
  (deep nesting, big and nested powers, dunder access, look-alike letters,
  non-ASCII digits, long sums, calls of unknown functions), hostile inputs, initial
  values and simulation settings;
* **planar mechanism model files**: the bundled pendulum and four-bar, renamed the
  same way (bodies, points, joints, forces, parameters), with hostile masses,
  inertias, positions, gravity, spring, damper and torque values, extra forces and
  drives;
* **spatial mechanism model files**: the bundled spatial four-bar (RSSR) and top,
  renamed the same way, with hostile values, 3-vectors of the wrong length, axes,
  orientations, angular velocities, gravity, and extra springs, dampers, rotary
  springs, torques, forces (in world or body axes) and drives, fast ones among them;
* **SPICE netlists**: R, L, C, V and I cards (and a few cards and dot commands
  vecnet does not read) with generated card and node names, values with scale
  factors and units, ``PULSE``/``SIN`` sources with extreme parameters,
  continuation lines, comments, odd line ends, and bytes that are not UTF-8;
* **expressions** on their own, and **names** for the report and the browser.

Each generated case is loaded and taken through a cheap pipeline (state space or
multibody equations, ``vn.text``, ``vn.latex``, ``vn.to_dot``, a save/load round
trip of model files, a short simulation under small :func:`vecnet.limits`) and must
end in success or in one :class:`vecnet.VecnetError` (one line; a
``ModelFileError`` with its location first) within :data:`SECONDS` of processor
time (never the wall clock, which a busy machine stretches without bound).
Any other exception, a hang or a markup leak in a report is a defect of vecnet,
not of the test. About half the generated cases are *mild* (names the policy
accepts, plausible values), so that the later stages are reached too; the
events of each test count the outcomes.

Profiles::

    pytest tests/test_fuzz.py          # the "ci" profile of conftest.py: 184 fixed
                                       # examples, about 15 s on one core
    VECNET_FUZZ=long pytest tests/test_fuzz.py --hypothesis-show-statistics
                                       # 25 times the examples (about 4,300), new ones
                                       # each run; about 7 minutes

``--hypothesis-show-statistics`` lists, per test, the examples tried and the
outcomes (``ok`` or the error class and the part of the file it points at).
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import tempfile
import time
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import vecnet as vn
from test_output_escaping import allow_any_name, hostile_mechanism, hostile_network
from test_report_browser import CHROMIUM, chromium
from test_report_xss import Page, injected
from vecnet.builders.model import Model
from vecnet.core.names import name_problem
from vecnet.elements.base import Kind
from vecnet.io.network_reader import ELEMENT_TYPES

EXAMPLES = Path(__file__).parent.parent / "examples" / "models"
BUNDLED = {p.stem: json.loads(p.read_text(encoding="utf-8"))
           for p in sorted(EXAMPLES.glob("*.json"))}
NETWORKS = sorted(k for k, d in BUNDLED.items() if d["kind"] == "network")
MECHANISMS = sorted(k for k, d in BUNDLED.items() if d["kind"] == "mechanism"
                    and d.get("dimensions", 2) == 2)
SPATIAL = sorted(k for k, d in BUNDLED.items() if d.get("dimensions") == 3)

#: the most processor time one generated case may take, load to simulation (seconds): the
#: slowest seen is about 1.5 s on a quiet machine and 6.8 s on one at load 20-30 (processor
#: time grows too when the caches are shared), so a case four times slower than that
#: still passes; only a hang or runaway work fails
SECONDS = 30.0
#: the bounds every pipeline runs under: small, so that a hostile case ends quickly
LIMITS = {"max_seconds": 1.0, "max_evaluations": 20_000, "max_points": 2_000}

LONG = os.environ.get("VECNET_FUZZ", "") == "long"


def budget(examples: int, **kwargs) -> settings:
    """Settings of one fuzz test: ``examples`` in the default profile, 25 times as many
    (and new ones each run) under ``VECNET_FUZZ=long``."""
    return settings(max_examples=examples * 25 if LONG else examples, deadline=None,
                    derandomize=not LONG, database=None if not LONG else settings().database,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much,
                                           HealthCheck.function_scoped_fixture], **kwargs)


# -- names --------------------------------------------------------------------------------

XSS = ["<script>document['title']='XSS'</script>", "<img src=x onerror=alert(1)>",
       "<svg/onload=alert(1)>", '"><b>x</b>', "--><!--", "]]>", "&amp;", "a'b", 'a"b']
LOOKALIKES = ["\U0001d411", "\uff32", "\ufb01", "R\u0301", "\u212b", "\u2126", "\u00b5",
              "\u0391", "\u0420"]  # bold R, full-width R, fi, R + accent, Angstrom, Ohm, micro
ODD = ["", " ", "t", "pi", "e", "sin", "step", "ground", "energy", "kinetic", "across",
       "through", "gnd", "0", "00", "1e3", "_", "__class__", "__import__", "None", "True",
       "a.b", "a-b", "crank-p1", "a b", "a\tb", "a\nb", "\x00", "\u202e", "\u200d", "\ud800",
       "R\u0663", "\u0661\u0660", "x" * 64, "y" * 65, "z" * 5000, "θ", "ω_1", "é", "漢字",
       "Ⅻ", "ǅ", "ß", "ﬀ"]
VALID = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)
UNICODE = st.text(st.characters(categories=["Lu", "Ll", "Lo", "Lt", "Lm", "Nd", "Mn"]),
                  min_size=1, max_size=8)
ANY_TEXT = st.text(max_size=20)
#: names the policy accepts: ASCII, Unicode letters in NFKC form, digits first, 64 long
GOOD_NAMES = st.one_of(VALID, VALID, st.sampled_from(["θ", "ω_1", "é", "漢字", "ß", "0", "n001",
                                                      "x" * 64, "Ω_2", "t", "e", "pi", "sin",
                                                      "energy", "gnd", "ground_", "_"]),
                       UNICODE.filter(lambda n: name_problem(n) is None))
#: mostly names the policy accepts (so that the case goes on), the rest hostile
NAMES = st.one_of(GOOD_NAMES, GOOD_NAMES, st.sampled_from(XSS + LOOKALIKES + ODD), UNICODE,
                  ANY_TEXT)
#: parameter names: the schema takes ASCII identifiers only
PARAMETER_NAMES = st.one_of(VALID, VALID, st.sampled_from(
    ["t", "pi", "e", "sin", "step", "x", "tau", "a", "__class__", "_", "R" * 64, "R" * 65,
     "\U0001d411", "R1.x", "1R", "é"]))
NODES = st.one_of(NAMES, st.integers(0, 20), st.sampled_from([-1, 10**15 - 1, 10**15, 2**64]))


# -- numbers and expressions -----------------------------------------------------------------

BAD_NUMBERS = [0, 0.0, -0.0, -1, -1e-6, 5e-324, 1e-310, 2.2250738585072014e-308, 1e308,
               -1.7976931348623157e308, 10**400, -(10**30), 2**53 + 1, math.nan, math.inf,
               -math.inf, True]
NUMBERS = st.one_of(
    st.floats(1e-9, 1e6), st.floats(1e-9, 1e6),                  # physical, mostly
    st.sampled_from(BAD_NUMBERS),
    st.floats(), st.integers(-(10**20), 10**20), st.integers(),
)
TEXT_NUMBERS = ["nan", "NaN", "inf", "-inf", "Infinity", "1e400", "1e-400", "5e-324",
                "1e-310", "0", "-0", "0.0", "1_000", "0x10", "1j", "\u0663", "\uff11",
                "1e308*10", "10**64", "2**-1074"]
EXPRESSION_ATOMS = ["t", "pi", "e", "x", "tau", "a", "R", "__class__", "__import__", "\U0001d411",
                    "\uff32", "R\u0663", "\u0663", "\uff11", "1e400", "1e-400", "5e-324", "0",
                    "1", "2.5", "-1", "nan", "inf", "True", "None", "'s'", "[]", "()", "...",
                    "1j", "0x1f", "1_0", "`x`", "$", "#", "\\", "\n", "\x00"]
FUNCTIONS = ["sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
             "exp", "log", "sqrt", "abs", "sign", "min", "max", "step"]
UNARY = [f for f in FUNCTIONS if f not in ("atan2", "min", "max")]
OTHER_CALLS = ["eval", "exec", "open", "getattr", "__import__", "lambda x", "Symbol",
               "sympify", "print", "x", "R", "\U0001d42c\U0001d422\U0001d427"]  # bold 'sin'
OPERATORS = ["+", "-", "*", "/", "**", "%", "//", "@", "<", "==", " and ", " if ", ",", "."]
EXPONENTS = ["64", "65", "128", "1000", "9**9", "-64", "0.5", "-1", "t", "R", "(1/3)", "0",
             "1e3", "2**6"]


def _expressions(names: list[str]) -> st.SearchStrategy[str]:
    """Expression text over ``names`` (the parameters and quantities in scope) and hostile
    atoms, built recursively: operators, calls, powers, nesting, attribute access, sums."""
    atoms = st.one_of(st.sampled_from(names or ["t"]), st.sampled_from(EXPRESSION_ATOMS),
                      st.floats().map(repr), st.integers().map(str),
                      st.sampled_from(names or ["t"]))

    def extend(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(OPERATORS), inner).map("".join),
            st.tuples(inner, st.sampled_from(OPERATORS[:5]), inner).map("".join),
            inner.map(lambda x: f"({x})"),
            inner.map(lambda x: f"-{x}"),
            st.tuples(st.sampled_from(FUNCTIONS + OTHER_CALLS),
                      st.lists(inner, max_size=3)).map(lambda c: f"{c[0]}({', '.join(c[1])})"),
            st.tuples(st.sampled_from(FUNCTIONS), inner).map(lambda c: f"{c[0]}({c[1]})"),
            st.tuples(inner, st.sampled_from(EXPONENTS)).map(lambda p: f"({p[0]})**{p[1]}"),
            st.tuples(inner, st.sampled_from([10, 100, 300, 1000])).map(
                lambda p: "(" * p[1] + p[0] + ")" * p[1]),
            st.tuples(inner, st.sampled_from([10, 100, 1000])).map(
                lambda p: "-" * p[1] + p[0]),
            st.tuples(inner, st.integers(2, 700)).map(lambda p: "+".join([p[0]] * p[1])),
            st.tuples(inner, st.sampled_from(["__class__", "__globals__", "real", "func",
                                              "args", "x"])).map(lambda p: f"({p[0]}).{p[1]}"),
            inner.map(lambda x: f"{x}[0]"),
            inner.map(lambda x: f"lambda: {x}"),
        )

    return st.recursive(atoms, extend, max_leaves=8)


def _valid_expressions(names: list[str]) -> st.SearchStrategy[str]:
    """Expression text of the whitelist over ``names``: sums, products, quotients, small
    powers and the functions vecnet knows (the result may still be unphysical)."""
    atoms = st.one_of(st.sampled_from(names or ["t"]), st.floats(0.01, 100).map(lambda x: f"{x:g}"),
                      st.sampled_from(["pi", "e", "2", "0.5", "1e-3"]))

    def extend(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "*"]), inner).map(
                lambda p: f"({p[0]}){p[1]}({p[2]})"),
            st.tuples(st.sampled_from(UNARY), inner).map(lambda c: f"{c[0]}({c[1]})"),
            st.tuples(inner, st.sampled_from(["2", "3", "0.5", "-1"])).map(
                lambda p: f"({p[0]})**{p[1]}"))

    return st.recursive(atoms, extend, max_leaves=4)


def _values(names: list[str]) -> st.SearchStrategy:
    """A value in a model file: a number, a number as text, or an expression (valid or
    hostile)."""
    return st.one_of(NUMBERS, st.sampled_from(TEXT_NUMBERS), _valid_expressions(names),
                     _expressions(names), st.none())


def _mild_values(names: list[str]) -> st.SearchStrategy:
    """A value a physical model may have: a positive number or a valid expression."""
    return st.one_of(st.floats(1e-6, 1e6), st.sampled_from([1, 2, 0.5, 1e-3, 1e3]),
                     _valid_expressions(names))


# -- network model files ------------------------------------------------------------------

ONE_PORTS = [n for n, c in ELEMENT_TYPES.items() if len(c.ports) == 1
             and n != "NonlinearDissipator"]
TWO_PORTS = [n for n, c in ELEMENT_TYPES.items() if len(c.ports) == 2]
_SKIP_KEYS = {"vecnet", "kind", "name", "description", "type", "nodes", "between", "body",
              "reaction", "point", "joint", "outputs", "tree", "coordinates", "domain",
              "domains", "allow_negative", "dimensions", "body_axes"}
_TOKEN = re.compile(r"\b[A-Za-z_]\w*\b")


def _chain(draw, mild: bool) -> dict:
    """A generated network: a source and a chain of one- and two-ports over a few nodes."""
    pool = ["g", "a", "b", "c", "d", "e"][:draw(st.integers(2, 6))]
    elements = [{"type": "VoltageSource", "name": "Vs", "nodes": ["g", "a"],
                 "parameters": {"V": 1.0}}]
    for k in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(ONE_PORTS * 3 + TWO_PORTS + ["NonlinearDissipator"]))
        cls = ELEMENT_TYPES[kind]
        nodes = []
        for _ in cls.ports:  # two different nodes a port, mostly
            tail = draw(st.sampled_from(pool))
            others = [n for n in pool if n != tail]
            same = not mild and draw(st.integers(0, 9)) == 0
            nodes += [tail, draw(st.sampled_from(pool if same else others))]
        entry = {"type": kind, "name": f"E{k}", "nodes": nodes}
        if kind == "NonlinearDissipator":
            law = draw(st.sampled_from(["across", "through"]))
            var = "tau" if law == "across" else "a"
            entry[law] = draw(st.sampled_from([f"{var}*abs({var})", f"{var}**3", f"sinh({var})",
                                               f"{var}", "1", f"1/{var}", f"log({var})"]))
        else:
            entry["parameters"] = {p: draw(st.floats(0.01, 100)) for p in cls.parameter_names}
        elements.append(entry)
    return {"vecnet": "1", "kind": "network", "name": "chain", "elements": elements,
            "simulation": {"t_span": [0, 0.01], "points": 11}}


def _atoms(doc: dict) -> set[str]:
    """The names of a model document that can be renamed (not parameters)."""
    found: set = set()
    if doc["kind"] == "network":
        for e in doc["elements"]:
            found.add(e["name"])
            found.update(n for n in e["nodes"] if isinstance(n, str))
    else:
        found.update(doc.get("ground", {}).get("points", {}))
        for b in doc["bodies"]:
            found.add(b["name"])
            found.update(b.get("points", {}))
        for part in ("joints", "forces", "drives"):
            found.update(x["name"] for x in doc.get(part, []))
    return found - {"ground"}


def _rename(doc: dict, names: dict, params: dict) -> dict:
    """``doc`` with its names (``names``) and parameter names (``params``) replaced, in
    definitions and in every reference (``"body.point"``, ``"P1.angle"``, expressions)."""
    def ref(text):
        return ".".join(names.get(part, part) for part in text.split(".")) \
            if isinstance(text, str) else names.get(text, text)

    def expr(text):
        if not isinstance(text, str):
            return text
        return _TOKEN.sub(lambda m: params.get(m.group(), names.get(m.group(), m.group())), text)

    def walk(value, key=None):
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                if key in ("inputs", "initial", "velocities"):
                    out[ref(k)] = walk(v, k)
                elif key == "points":
                    out[names.get(k, k)] = walk(v, k)
                elif key == "parameters" and value is doc.get("parameters"):
                    out[params.get(k, k)] = walk(v, k)
                else:
                    out[k] = walk(v, k)
            return out
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        if key in ("name", "nodes", "body", "reaction", "joint"):
            return names.get(value, value) if isinstance(value, str) else value
        if key in ("between", "point", "outputs", "tree"):
            return ref(value)
        if isinstance(value, str) and key not in _SKIP_KEYS:
            return expr(value)
        return value

    return walk(doc)


def _value_paths(doc, prefix=()):
    """Paths of the leaves that hold values (numbers, expressions), not names."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            if key not in _SKIP_KEYS or key == "name" and prefix[-1:] == ("parameters",):
                yield from _value_paths(value, prefix + (key,))
    elif isinstance(doc, list):
        for k, value in enumerate(doc):
            yield from _value_paths(value, prefix + (k,))
    elif prefix:
        yield prefix


def _set(doc, path, value):
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def _scope_names(doc: dict) -> list[str]:
    """Names an expression in ``doc`` may use: its parameters, t, body quantities."""
    scope = list(doc.get("parameters", {})) + ["t"]
    for b in doc.get("bodies", []):
        scope += [f"{b['name']}.{q}" for q in ("x", "omega", "angle")]
    return scope


def _hostile(draw, doc: dict, mild: bool) -> dict:
    """Rename some names of ``doc`` and replace some of its values: with names the policy
    accepts and plausible values when ``mild``, with anything otherwise."""
    atoms = sorted(_atoms(doc), key=str)
    renamed = draw(st.lists(st.sampled_from(atoms), max_size=4, unique=True)) if atoms else []
    names = {a: draw(GOOD_NAMES if mild else NAMES) for a in renamed}
    if mild:  # distinct new names, none clashing with the others
        taken = set(atoms) - set(renamed)
        for a in renamed:
            if names[a] in taken:
                names[a] = a
            taken.add(names[a])
    elif renamed and draw(st.integers(0, 9)) == 0:  # two names made one
        names[renamed[0]] = draw(st.sampled_from([a for a in atoms if a != renamed[0]] or atoms))
    declared = sorted(doc.get("parameters", {}))
    params = {} if mild else {p: draw(PARAMETER_NAMES) for p in
                              (draw(st.lists(st.sampled_from(declared), max_size=2, unique=True))
                               if declared else [])}
    doc = _rename(doc, names, params)
    scope = list(doc.get("parameters", {})) if mild else _scope_names(doc)
    paths = [p for p in _value_paths(doc) if not mild or p[0] not in ("simulation", "inputs")]
    for path in draw(st.lists(st.sampled_from(paths), max_size=3, unique=True)) if paths else []:
        if not mild:
            value = draw(_values(scope))
        elif path[0] == "parameters":
            value = draw(st.floats(1e-3, 1e3))
        else:
            value = draw(_mild_values([n for n in scope if n != "t"]))
        _set(doc, path, value)
    return doc


@st.composite
def network_documents(draw, mild: bool | None = None) -> dict:
    """Network model documents: hostile, or ``mild`` (names the policy accepts, plausible
    values), or either when ``mild`` is None."""
    mild = draw(st.booleans()) if mild is None else mild
    doc = copy.deepcopy(BUNDLED[draw(st.sampled_from(NETWORKS))]) if draw(st.booleans()) \
        else _chain(draw, mild)
    if draw(st.booleans()):  # a parameter (hostile name, hostile value) used by an element
        pname = draw(VALID if mild else PARAMETER_NAMES)
        if pname in ("t", "pi", "e") or pname in FUNCTIONS:
            pname += "_"
        doc.setdefault("parameters", {})[pname] = draw(
            st.floats(1e-3, 1e3) if mild else st.one_of(NUMBERS, st.none()))
        element = draw(st.sampled_from(doc["elements"]))
        if element.get("parameters"):
            element["parameters"][draw(st.sampled_from(sorted(element["parameters"])))] = pname
    doc = _hostile(draw, doc, mild)
    for element in doc["elements"]:
        if ELEMENT_TYPES.get(element["type"]) and ELEMENT_TYPES[element["type"]].positive \
                and draw(st.integers(0, 5)) == 0:
            element["allow_negative"] = True
    kinds = {e["name"]: getattr(ELEMENT_TYPES.get(e["type"]), "kind", None)
             for e in doc["elements"]}
    scope = [n for n in _scope_names(doc) if n != "t" or not mild]
    sources = [n for n, k in kinds.items() if k in (Kind.ACROSS_SOURCE, Kind.THROUGH_SOURCE)]
    if sources and draw(st.booleans()):
        source = draw(st.sampled_from(sources))
        side = "across" if kinds[source] == Kind.ACROSS_SOURCE else "through"
        if not mild:
            side = draw(st.sampled_from([side, "across", "through"]))
        doc["inputs"] = {f"{source}.{side}": draw(
            _valid_expressions(scope + ["t"]) if mild else st.one_of(
                _valid_expressions(["t"]), _expressions(scope), st.sampled_from(
                    ["sin(2*pi*1e15*t)", "step(t - 1e-3)", "exp(1000*t)", "exp(exp(exp(t)))",
                     "1/t", "log(t)", "sqrt(-1)", "t**64", "1e308*t*1e308", "sin(t)**64"])))}
    stores = [f"{n}.{'across' if k == Kind.ACROSS_STORE else 'through'}"
              for n, k in kinds.items() if k in (Kind.ACROSS_STORE, Kind.THROUGH_STORE)]
    if draw(st.integers(0, 3)) == 0 and (stores or not mild):
        state = draw(st.sampled_from(stores) if mild else st.sampled_from(stores + [
            f"{n}.{side}" for n in kinds for side in ("across", "through")]))
        doc["initial"] = {state: draw((_mild_values if mild else _values)(scope))}
    if draw(st.integers(0, 3)) == 0:
        doc["tree"] = draw(st.sampled_from(["normal", "auto"]) if mild else st.one_of(
            st.sampled_from(["normal", "auto"]),
            st.lists(st.sampled_from(list(kinds) + ["x"]), max_size=4)))
    return doc


# -- mechanism model files --------------------------------------------------------------------

@st.composite
def mechanism_documents(draw, mild: bool | None = None) -> dict:
    """Mechanism model documents, hostile or ``mild`` (as :func:`network_documents`)."""
    mild = draw(st.booleans()) if mild is None else mild
    values = _mild_values if mild else _values
    doc = copy.deepcopy(BUNDLED[draw(st.sampled_from(MECHANISMS))])
    bodies = [b["name"] for b in doc["bodies"]]
    refs = ["ground"] + bodies + [f"{b['name']}.{p}" for b in doc["bodies"]
                                  for p in b.get("points", {})]
    scope = _scope_names(doc)
    fixed = list(doc.get("parameters", {})) if mild else scope  # no t, no body quantities
    forces = doc.setdefault("forces", [])
    for k in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["spring", "damper", "rotary_spring", "torque", "force"]))
        entry = {"type": kind, "name": f"F{k}"}
        if kind in ("spring", "damper", "rotary_spring"):
            pick = bodies + ["ground"] if kind == "rotary_spring" else refs
            a = draw(st.sampled_from(pick))
            entry["between"] = [a, draw(st.sampled_from(
                [r for r in pick if r.split(".")[0] != a.split(".")[0]] if mild else pick))]
        if kind in ("spring", "rotary_spring"):
            entry["k"] = draw(st.one_of(st.floats(0, 1e3), values(fixed)))
        if kind == "spring" and draw(st.booleans()):
            entry["force"] = draw(st.sampled_from(["-10*(length - 1)", "length**64",
                                                   "1/length", "exp(length)", "x"]))
            entry.pop("k")
        if kind in ("damper",) or draw(st.integers(0, 3)) == 0 and kind != "torque" \
                and kind != "force":
            entry["c"] = draw(st.one_of(st.floats(0, 10), values(fixed)))
        if kind == "torque":
            entry["body"] = draw(st.sampled_from(bodies))
            entry["value"] = draw(values(scope))
        if kind == "force":
            entry["point"] = draw(st.sampled_from(refs))
            entry["value"] = [draw(values(scope)), draw(st.floats(-10, 10))]
        forces.append(entry)
    joints = [j["name"] for j in doc.get("joints", [])]
    if joints and draw(st.integers(0, 3)) == 0:
        doc["drives"] = [{"name": "D0", "joint": draw(st.sampled_from(joints)),
                          "motion": draw(st.one_of(st.sampled_from(
                              ["2*pi*t", "t**2", "sin(1e9*t)", "exp(100*t)"]), values(fixed + ["t"])))}]
    if draw(st.integers(0, 3)) == 0:
        doc["coordinates"] = "absolute"
        doc.pop("initial", None)
    doc = _hostile(draw, doc, mild)
    if draw(st.integers(0, 4)) == 0:
        doc["gravity"] = [draw(values(fixed)), draw(st.sampled_from([-9.81, 1e308, 0]))]
    return doc


@st.composite
def spatial_documents(draw, mild: bool | None = None) -> dict:
    """Spatial mechanism model documents, hostile or ``mild`` (as :func:`network_documents`)."""
    mild = draw(st.booleans()) if mild is None else mild
    values = _mild_values if mild else _values
    doc = copy.deepcopy(BUNDLED[draw(st.sampled_from(SPATIAL))])
    bodies = [b["name"] for b in doc["bodies"]]
    refs = ["ground"] + bodies + [f"{b['name']}.{p}" for b in doc["bodies"]
                                  for p in b.get("points", {})]
    scope = _scope_names(doc)
    fixed = list(doc.get("parameters", {})) if mild else scope  # no t, no body quantities
    turning = [j["name"] for j in doc["joints"] if j["type"] in ("revolute", "cylindrical")]

    def vector(items, size=3):
        """Three values (mild), or two to four of anything."""
        count = size if mild else draw(st.sampled_from([size, size, size, size - 1, size + 1]))
        return [draw(st.one_of(st.floats(-10, 10), items)) for _ in range(count)]

    forces = doc.setdefault("forces", [])
    for k in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["spring", "damper", "torque", "force"]
                                    + (["rotary_spring"] if turning else [])))
        entry: dict = {"type": kind, "name": f"F{k}"}
        if kind in ("spring", "damper"):
            a = draw(st.sampled_from(refs))
            entry["between"] = [a, draw(st.sampled_from(
                [r for r in refs if r.split(".")[0] != a.split(".")[0]] if mild else refs))]
            entry["k" if kind == "spring" else "c"] = draw(st.one_of(st.floats(0, 1e3),
                                                                     values(fixed)))
        elif kind == "rotary_spring":
            entry.update(joint=draw(st.sampled_from(turning)),
                         k=draw(st.one_of(st.floats(0, 10), values(fixed))))
        else:
            entry["body" if kind == "torque" else "point"] = draw(
                st.sampled_from(bodies if kind == "torque" else refs))
            entry["value"] = vector(values(scope) if not mild else st.sampled_from(
                ["sin(t)", "0.1*cos(2*t)", "step(t - 0.01)"]) if draw(st.booleans())
                else st.sampled_from(["sin(1e15*t)", "cos(3e9*t + 1)"]))
            if draw(st.booleans()):
                entry["body_axes"] = True
        forces.append(entry)
    if turning and draw(st.integers(0, 3)) == 0:
        doc["drives"] = [{"name": "D0", "joint": draw(st.sampled_from(turning)),
                          "motion": draw(st.one_of(st.sampled_from(
                              ["2*pi*t", "0.1*sin(t)", "sin(1e12*t)", "exp(100*t)"]),
                              values(fixed + ["t"])))}]
    body = draw(st.sampled_from(doc["bodies"]))
    if draw(st.integers(0, 3)) == 0:
        body["orientation"] = draw(st.sampled_from(
            [[1, 0, 0, 0], [0, 0, 0, 1], [[1, 0, 0], [0, 0, -1], [0, 1, 0]]] + ([] if mild else
            [[0, 0, 0, 0], [1, 1, 0, 0], [[1, 0, 0], [0, 1, 0], [0, 0, 2]], "pi", [1e308] * 4])))
    if draw(st.integers(0, 3)) == 0:
        doc["velocities"] = {f"{body['name']}.omega": vector(values(fixed))}
    if turning and draw(st.integers(0, 3)) == 0:
        joint = next(j for j in doc["joints"] if j["name"] == draw(st.sampled_from(turning)))
        joint["axis"] = draw(st.sampled_from([[0, 0, 1], [1, 0, 0], [0, 1, 1]])) if mild \
            else vector(values(fixed))
    doc = _hostile(draw, doc, mild)
    if draw(st.integers(0, 4)) == 0:
        doc["gravity"] = vector(values(fixed))
    return doc


# -- SPICE netlists ---------------------------------------------------------------------------

NETLIST_NUMBERS = ["1", "0", "-1", "1.5", "1e3", ".5", "1.", "+2", "1e-310", "1e400", "5e-324",
                   "1e-300", "1e300", "1e", "1..2", "\u0663", "\uff11", "0x10", "1_000", "nan",
                   "inf", "-0", "1e-15", "1e15", "9" * 400]
NETLIST_SUFFIXES = ["", "", "", "f", "p", "n", "u", "m", "k", "meg", "MEG", "g", "t", "mil", "x",
                    "\u00b5"]
NETLIST_UNITS = ["", "", "F", "H", "V", "A", "Ohm", "Hz", "ohms", "farad", "s"]
_NO_SPACE = str.maketrans({c: "_" for c in "\n\r \t;\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"})
NETLIST_NODES = st.one_of(st.sampled_from(["0", "0", "gnd", "GND", "in", "out", "n001", "1", "2",
                                           "a", "b"]), NAMES.map(lambda s: s.translate(_NO_SPACE)))
GOOD_NODES = st.sampled_from(["0", "0", "gnd", "in", "out", "n001", "1", "2", "a", "θ"])
NETLIST_EXTRA = [".tran 10u 10m", ".end", ".END", ".model D1 D", ".include /etc/passwd",
                 ".param R=1k", ".subckt x 1 2", ".ends", ".op", "* a comment", "",
                 "D1 a 0 D1", "Q1 c b e npn", "X1 a b sub", "E1 a 0 b 0 2", "K1 L1 L2 0.9",
                 "+ 5", ".control", "Rlone", "V1", "C1 a", ".tran 1e-300 1e300"]


def _netlist_numbers(mild: bool):
    if mild:
        return st.tuples(st.floats(1e-3, 1e3).map(lambda x: f"{x:.4g}"),
                         st.sampled_from(["", "", "m", "u", "k", "meg", "n"]),
                         st.sampled_from(["", "", "F", "Ohm", "V"])).map("".join)
    number = st.one_of(st.sampled_from(NETLIST_NUMBERS), st.floats().map(repr),
                       st.floats(1e-6, 1e6).map(lambda x: f"{x:.6g}"), st.integers().map(str))
    return st.tuples(number, st.sampled_from(NETLIST_SUFFIXES),
                     st.sampled_from(NETLIST_UNITS)).map("".join)


@st.composite
def netlists(draw, mild: bool | None = None) -> tuple[bytes, str]:
    """The bytes of a netlist file and the encoding to read it with: hostile, or ``mild``
    (names the policy accepts, plausible values, UTF-8), or either when ``mild`` is None."""
    mild = draw(st.booleans()) if mild is None else mild
    number = _netlist_numbers(mild)
    names = (GOOD_NAMES.map(lambda s: s[:50]) if mild else NAMES).map(
        lambda s: s.translate(_NO_SPACE))
    nodes = GOOD_NODES if mild else NETLIST_NODES
    lines = [draw(st.sampled_from(["RC", "title <script>alert(1)</script>", "", "* title",
                                   "R1 a 0 1k", "\u00e9t\u00e9"]))]
    if mild:
        lines.append("V0 a 0 1")
    for k in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from("RRLLCCVVII") | st.sampled_from("rlcvi"))
        name = kind + draw(st.one_of(st.just(str(k)), names)) + ("" if not mild else f"_{k}")
        tokens = [name, draw(nodes), draw(nodes)]
        if mild and {tokens[1], tokens[2]} <= {"0", "gnd"} or tokens[1] == tokens[2]:
            tokens[2] = "x" if tokens[1] != "x" else "y"
        if kind.upper() in "VI" and draw(st.booleans()):
            wave = draw(st.sampled_from(["PULSE", "SIN", "pulse", "sin"] + ([] if mild else
                                                                            ["EXP", "PWL"])))
            pulse = wave.upper() == "PULSE"
            args = draw(st.lists(number, min_size=(6 if pulse else 3) if mild else 0,
                                 max_size=(7 if pulse else 5) if mild else 9))
            style = draw(st.sampled_from(["({})", "( {} )"] + ([] if mild else
                                                               ["{}", "({}", "(({}))"])))
            tokens.append(wave + style.format(" ".join(args)))
            if draw(st.integers(0, 3)) == 0:
                tokens = tokens[:3] + ["DC", draw(number)] + tokens[3:]
        elif kind.upper() in "VI" and draw(st.booleans()):
            tokens += draw(st.sampled_from([["DC"], ["AC", "1"], [], ["DC", "1", "AC", "1"]]))
            tokens.append(draw(number))
        else:
            tokens.append(draw(number))
        if draw(st.integers(0, 4)) == 0:  # a continuation line
            cut = draw(st.integers(1, len(tokens)))
            lines += [" ".join(tokens[:cut]), "+ " + " ".join(tokens[cut:])]
        else:
            lines.append(" ".join(tokens) + draw(st.sampled_from(
                ["", "", " ; comment"] + ([] if mild else [" $ x"]))))
        if not mild and draw(st.integers(0, 4)) == 0:
            lines.append(draw(st.sampled_from(NETLIST_EXTRA)))
    if draw(st.booleans()):
        lines.append(".end")
    end = draw(st.sampled_from(["\n", "\n", "\r\n"] + ([] if mild else ["\r", "\u2028", "\x0b"])))
    data = end.join(lines).encode("utf-8", "surrogatepass")
    if not mild and draw(st.integers(0, 3)) == 0:  # bytes that are not UTF-8, or a BOM
        bad = draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\xe9",
                                    b"\xef\xbb\xbf", b"\x80\x80"]))
        at = draw(st.integers(0, len(data)))
        data = data[:at] + bad + data[at:]
    encoding = "utf-8" if mild else draw(st.sampled_from(["utf-8", "utf-8", "latin-1",
                                                          "utf-16", "rot13"]))
    return data, encoding


# -- the pipeline ------------------------------------------------------------------------------

def check_error(exc: vn.VecnetError) -> None:
    message = str(exc)
    assert message and "\n" not in message, repr(message)
    if isinstance(exc, vn.ModelFileError):
        assert exc.location and message.startswith(exc.location + ": "), message


def pipeline(model: Model, span: tuple | None, points: int | None, stages: list,
             from_file: bool = True) -> None:
    """Equations, their text and LaTeX, the diagram's DOT, a save/load round trip and a short
    simulation of a loaded model; ``stages`` gets each stage's name and end time."""
    equations = model.state_space() if model.kind == "network" else model.formulate()
    stages.append(("equations", time.perf_counter()))
    vn.text(equations)
    vn.latex(equations)
    stages.append(("text and latex", time.perf_counter()))
    vn.to_dot(model.system)
    stages.append(("dot", time.perf_counter()))
    if from_file:  # what save_model writes of a model file must load again
        vn.load_model(vn.model_to_dict(model))
        stages.append(("round trip", time.perf_counter()))
    if span is None and model.t_span is None:
        span = (0.0, 0.01)
    model.simulate(t_span=span, points=points)
    stages.append(("simulation", time.perf_counter()))


def outcome(load, span=None, points=None) -> str:
    """Run ``load()`` and the pipeline; returns ``"ok"`` or the error's class and where.
    Anything but a VecnetError propagates (and fails the test)."""
    stages = [("start", time.perf_counter())]
    cpu = time.process_time()
    try:
        with warnings.catch_warnings(), vn.limits(**LIMITS):
            warnings.simplefilter("ignore", vn.VecnetWarning)
            model = load()
            stages.append(("load", time.perf_counter()))
            netlist = isinstance(model, vn.Network)
            if netlist:
                model = Model("network", model)
            pipeline(model, span, points, stages, from_file=not netlist)
        result = "ok"
    except vn.VecnetError as exc:
        check_error(exc)
        where = getattr(exc, "location", "").split("/")[1:2] or ["-"]
        result = f"{type(exc).__name__} at {where[0]}"
    cpu = time.process_time() - cpu
    assert cpu < SECONDS, (f"{cpu:.1f} s of processor time: " + ", ".join(
        f"{name} {end - before:.2f} s" for (_, before), (name, end) in zip(stages, stages[1:]))
        + f"; then {result}")
    event(result.split(" at ")[0] if "line" in result else result)
    return result


SPANS = st.one_of(st.none(), st.sampled_from([(0.0, 1e-3), (0.0, 0.05), (0.0, 1.0)]))
POINTS = st.one_of(st.none(), st.sampled_from([2, 11, 101]))


def _through_file(doc: dict):
    """A loader that writes ``doc`` as JSON text and reads the file."""
    def load():
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "model.json"
            path.write_text(json.dumps(doc, ensure_ascii=False, allow_nan=True),
                            encoding="utf-8", errors="surrogatepass")
            return vn.load_model(path)
    return load


@budget(30)
@given(doc=network_documents(), as_file=st.booleans(), span=SPANS, points=POINTS)
def test_generated_networks_load_and_run_or_fail_with_one_error(doc, as_file, span, points):
    load = _through_file(doc) if as_file else lambda: vn.load_model(doc)
    outcome(load, span, points)


@budget(15)
@given(doc=mechanism_documents(), as_file=st.booleans(),
       span=st.one_of(st.none(), st.sampled_from([(0.0, 0.02), (0.0, 0.2)])), points=POINTS)
def test_generated_mechanisms_load_and_run_or_fail_with_one_error(doc, as_file, span, points):
    load = _through_file(doc) if as_file else lambda: vn.load_model(doc)
    outcome(load, span, points)


@budget(10)
@given(doc=spatial_documents(), as_file=st.booleans(),
       span=st.one_of(st.none(), st.sampled_from([(0.0, 0.02), (0.0, 0.2)])), points=POINTS)
def test_generated_spatial_mechanisms_load_and_run_or_fail_with_one_error(doc, as_file, span,
                                                                          points):
    load = _through_file(doc) if as_file else lambda: vn.load_model(doc)
    outcome(load, span, points)


@budget(40)
@given(netlist=netlists(), span=SPANS, points=POINTS)
def test_generated_netlists_load_and_run_or_fail_with_one_error(netlist, span, points):
    data, encoding = netlist

    def load():
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "net.cir"
            path.write_bytes(data)
            return vn.load_netlist(path, encoding=encoding)

    outcome(load, span or (0.0, 1e-3), points)


@budget(60)
@given(text=_expressions(["R", "L", "t", "x"]))
def test_generated_expressions_parse_print_and_parse_again_or_fail_with_one_error(text):
    names = {n: vn.Symbol(n) for n in ("R", "L", "x")}
    start = time.process_time()
    try:
        expr = vn.parse_expression(text, names, "/x")
    except vn.VecnetError as exc:
        check_error(exc)
        event("refused")
    else:
        event("read")
        again = vn.format_expression(expr)               # a read expression can be written
        vn.parse_expression(again, names, "/x")          # ... and read back
        vn.text(expr)
        vn.latex(expr)
    assert time.process_time() - start < SECONDS


# -- reports ----------------------------------------------------------------------------------

#: MathML presentation elements (sympy writes subscripts for some names, roots and fractions
#: for lengths and ratios): harmless in themselves; script and handlers are checked apart
NAME_MATHML = {"math", "mi", "mn", "mo", "ms", "mtext", "mspace", "mrow", "mfrac", "msqrt",
               "mroot", "mstyle", "mpadded", "mphantom", "mfenced", "menclose", "msub", "msup",
               "msubsup", "munder", "mover", "munderover", "mtable", "mtr", "mtd"}


def _baseline_markup() -> tuple[set, set]:
    import importlib
    from unittest import mock

    report_module = importlib.import_module("vecnet.output.report")
    tags, attributes = set(NAME_MATHML), set()
    for stem, cells in (("rlc", 0), ("motor_pump", None), ("pendulum", None), ("fourbar", None),
                        ("bicycle", None)):
        # large matrices are tables: the first page shows every matrix as one
        limit = report_module.MATRIX_CELL_LIMIT if cells is None else cells
        with mock.patch.object(report_module, "MATRIX_CELL_LIMIT", limit):
            page = Page(vn.report(vn.load_model(EXAMPLES / f"{stem}.json"), simulate=False))
        tags |= set(page.tags)
        attributes |= {(t, k) for t, k, _ in page.attributes}
    return tags, attributes


_BASELINE: list = []


def markup_problems(html_text: str) -> list:
    """Elements and attributes in a page that no report of a benign model has, injected
    ones (script, on... handlers, javascript: URLs) and comments."""
    if not _BASELINE:
        _BASELINE.append(_baseline_markup())
    tags, attributes = _BASELINE[0]
    page = Page(html_text)
    extra = [t for t in page.tags if t not in tags]
    extra += [(t, k) for t, k, _ in page.attributes if (t, k) not in attributes]
    return extra + injected(page) + page.comments


@budget(12)
@given(doc=st.one_of(network_documents(mild=True), mechanism_documents(mild=True),
                    spatial_documents(mild=True)))
def test_reports_of_generated_models_hold_no_markup_from_names(doc):
    start = time.process_time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", vn.VecnetWarning)
            page = vn.report(vn.load_model(doc), simulate=False)
    except vn.VecnetError as exc:
        check_error(exc)
        event(type(exc).__name__)
    else:
        event("report")
        assert markup_problems(page) == []
    assert time.process_time() - start < SECONDS


#: names with markup, quotes and entities around generated text; none holds a dot (the
#: separator of port and point names)
TEMPLATES = ["<script>document['title']='XSS{}'</script>", "<img src=x onerror=\"document["
             "'title']='XSS{}'\">", "<svg/onload=document['title']='XSS{}'>",
             "\"><script>document['title']='XSS{}'</script>", "'><b id=x{}>", "--><i>{}</i><!--",
             "]]><u>{}</u>", "</math><script>document['title']='XSS{}'</script>",
             "<a href=\"javascript:document['title']='XSS{}'\">x</a>", "&lt;{}&amp;&#60;",
             "</title><script>document['title']='XSS{}'</script>", "{}<<TABLE>>",
             "<details open ontoggle=document['title']='XSS{}'>", "{}", "\\input{{{}}}"]
#: characters the filler text is drawn from
FILLER = st.text(st.sampled_from(list("<>&\"'=/;:#{}[]()$%^~\\ `!?*|") + ["\u202e", "\u00a0",
                                                                           "\u2028", "θ", "𝐑"]
                                 + list("abcXYZ019_")), min_size=1, max_size=10)


def _hostile_names(fillers: list[str]) -> list[str]:
    names = [TEMPLATES[i % len(TEMPLATES)].format(f.replace(".", ""))
             for i, f in enumerate(fillers)]
    return [f"{n}{i}" for i, n in enumerate(names)]      # unique


@budget(8)
@given(fillers=st.lists(FILLER, min_size=6, max_size=12))
def test_reports_escape_generated_names_the_policy_would_refuse(fillers):
    names = _hostile_names(fillers)
    with pytest.MonkeyPatch.context() as monkeypatch:
        allow_any_name(monkeypatch)
        net, values = hostile_network(names, name=names[-1])
        page = vn.report(Model("network", net, parameters=values, description=names[0]),
                         simulate=False)
        assert markup_problems(page) == []
        mech, values = hostile_mechanism(names, name=names[0], bodies=1)
        page = vn.report(Model("mechanism", mech, parameters=values, description=names[-1]),
                         simulate=False)
        assert markup_problems(page) == []


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
@settings(max_examples=1, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(fillers=st.lists(FILLER, min_size=20, max_size=20, unique=True))
def test_one_browser_run_over_a_batch_of_generated_names(fillers, tmp_path_factory):
    """Twenty generated hostile names in a network and a mechanism, both reports in one
    page (the Content-Security-Policy removed: the escaping alone is tested), opened once
    in headless Chromium: the title is untouched and no injected element is in the DOM."""
    names = _hostile_names(fillers)
    with pytest.MonkeyPatch.context() as monkeypatch:
        allow_any_name(monkeypatch)
        net, values = hostile_network(names, name="fuzz")
        network = vn.report(Model("network", net, parameters=values, description=names[1]),
                            simulate=False)
        mech, values = hostile_mechanism(names, name="fuzz mechanism", bodies=4)
        mechanism = vn.report(Model("mechanism", mech, parameters=values,
                                    description=names[2]), simulate=False)
    start = network.find('<meta http-equiv="Content-Security-Policy"')
    assert start >= 0
    page = network[:start] + network[network.index(">", start) + 1:]
    body = mechanism[mechanism.index("<body>") + len("<body>"):mechanism.rindex("</body>")]
    page = page[:page.rindex("</body>")] + body + "</body></html>\n"
    path = tmp_path_factory.mktemp("fuzz-browser") / "names.html"
    path.write_text(page, encoding="utf-8", errors="surrogatepass")
    run = chromium("--virtual-time-budget=3000", "--dump-dom", path.resolve().as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    dom = Page(run.stdout)
    assert dom.title == "fuzz — vecnet report", dom.title        # no script ran
    assert injected(dom) == []
    assert {"svg", "math", "table"} <= set(dom.tags)            # the pages rendered


# -- the command line --------------------------------------------------------------------------

COMMANDS = [["matrices"], ["equations", "--format", "latex"], ["draw", "--format", "dot"],
            ["simulate", "--t-end", "0.001"], ["report"]]


def _json_file(doc: dict) -> tuple[str, bytes]:
    return "model.json", json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")


@budget(8)
@given(case=st.one_of(network_documents(mild=True).map(_json_file),
                      mechanism_documents(mild=True).map(_json_file),
                      spatial_documents(mild=True).map(_json_file),
                      netlists(mild=True).map(lambda n: ("model.cir", n[0])),
                      network_documents(mild=False).map(_json_file),
                      netlists(mild=False).map(lambda n: ("model.cir", n[0]))),
    command=st.sampled_from(COMMANDS), to_file=st.booleans())
def test_generated_cases_through_the_command_line(case, command, to_file, capsys):
    from vecnet.cli import main

    filename, data = case
    capsys.readouterr()
    with tempfile.TemporaryDirectory() as folder:
        model = Path(folder) / filename
        model.write_bytes(data)
        suffix = {"matrices": "txt", "equations": "tex", "draw": "dot", "simulate": "csv",
                  "report": "html"}[command[0]]
        output = Path(folder) / "out" / f"result.{suffix}"
        argv = [command[0], str(model), *command[1:],
                *(["--output", str(output)] if to_file or command[0] == "report" else []),
                "--limit", "max_seconds=1", "--limit", "max_evaluations=20000"]
        start = time.process_time()
        status = main(argv)
        elapsed = time.process_time() - start
        written = output.exists()
    out, err = capsys.readouterr()
    assert elapsed < SECONDS
    assert status in (0, 2), (status, err)
    event(f"exit {status}")
    if status == 2:
        errors = [line for line in err.splitlines() if not line.startswith("vecnet: warning: ")]
        assert len(errors) == 1 and errors[0].startswith("vecnet: error: "), err
        assert "internal error" not in err, err
        assert not written
    else:
        assert written == bool(to_file or command[0] == "report")


# -- what fuzzing found, kept as plain tests ---------------------------------------------------

def test_found_a_hostile_key_is_escaped_in_its_location():
    doc = copy.deepcopy(BUNDLED["pendulum"])
    doc["ground"]["points"]["a\nb/c"] = [0, 0]
    with pytest.raises(vn.ModelFileError) as info:
        vn.load_model(doc)
    assert info.value.location == "/ground/points/a\\nb~1c"
    check_error(info.value)
    doc = copy.deepcopy(BUNDLED["rlc"])
    doc["elements"][1]["parameters"]["R\n"] = 1.0
    with pytest.raises(vn.ModelFileError) as info:
        vn.load_model(doc)
    assert info.value.location == "/elements/1/parameters/R\\n"


def test_found_an_input_that_is_one_parameter_is_simulated():
    doc = copy.deepcopy(BUNDLED["rlc"])
    doc["inputs"] = {"Vs.across": "R"}                  # once crashed the frequency check
    res = vn.load_model(doc).simulate(t_span=(0, 1e-3), points=3)
    assert len(res.t) == 3


def test_found_a_spring_between_points_that_start_together_is_refused():
    doc = copy.deepcopy(BUNDLED["pendulum"])             # bob.pin starts at the ground origin
    doc["forces"].append({"type": "spring", "name": "F0", "between": ["ground", "bob.pin"],
                          "k": 0.0, "c": 0.0})          # once a sympy ShapeError
    with pytest.raises(vn.ModelFileError, match="start at the same place") as info:
        vn.load_model(doc)
    assert info.value.location == "/forces/1"
    doc["forces"][1] = {"type": "damper", "name": "F0", "between": ["bob.pin", "ground.O"],
                        "c": 1.0}
    with pytest.raises(vn.ModelFileError, match="start at the same place"):
        vn.load_model(doc)


def test_found_a_damper_between_points_the_joints_hold_together_is_refused():
    doc = copy.deepcopy(BUNDLED["fourbar"])
    doc["forces"].append({"type": "damper", "name": "F1", "between": ["crank.B", "coupler.C"],
                          "c": 1})
    doc["bodies"][1]["points"]["C"] = [0.5, 0.866]      # apart in the file, but P2 ...
    doc["joints"][1]["between"] = ["coupler.C", "crank.B"]  # ... pins coupler.C to crank.B
    model = vn.load_model(doc)
    with pytest.raises(vn.FormulationError, match="held at the same place"):
        vn.text(model.formulate())                       # once a sympy ShapeError


def test_found_a_partition_change_before_the_first_output_time():
    doc = copy.deepcopy(BUNDLED["fourbar"])
    doc["bodies"][1]["points"]["C"] = ["pi", 0]          # the loop closes far from the file's pose
    model = vn.load_model(doc)
    try:                                                  # once an AttributeError from scipy's []
        with vn.limits(max_evaluations=2_000, max_seconds=10):  # the event comes before
            model.simulate(t_span=(0.0, 1.0), points=2)
    except vn.SimulationError as exc:
        check_error(exc)


def test_found_powers_beyond_the_limit_made_by_simplification_are_refused():
    R = vn.Symbol("R")
    for text in ["R/R**-64", "R**64*R"]:                 # both are R**65, once read but unwritable
        with pytest.raises(vn.ModelFileError, match="makes the power"):
            vn.parse_expression(text, {"R": R}, "/x")
    assert vn.format_expression(vn.parse_expression("R**64", {"R": R})) == "R**64"


def test_found_an_input_without_real_values_is_a_simulation_error():
    doc = copy.deepcopy(BUNDLED["rlc"])
    doc["inputs"] = {"Vs.across": "t**0.5"}              # complex just before t = 0
    with pytest.raises(vn.SimulationError, match="no real value"):   # once a TypeError
        vn.load_model(doc).simulate(t_span=(0, 1e-3), points=3)
