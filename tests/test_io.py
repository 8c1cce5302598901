"""Model files, safe expressions and SPICE netlists.

Facts checked from outside the code: the bundled models give the textbook
results of the Python examples; a saved model reloads to the same equations;
an expression written by :func:`format_expression` reads back to the same
sympy object; netlists give the transfer functions of the same circuits built
by hand, and SPICE's PULSE and SIN sources have their defined values.
"""

import json
import math
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import assume, given
from hypothesis import strategies as st

import vecnet as vn
from vecnet.io import (
    Model,
    format_expression,
    load_model,
    load_netlist,
    model_to_dict,
    parse_expression,
    save_model,
)
from vecnet.io.spice import parse_value, pulse, sine

EXAMPLES = Path(__file__).parent.parent / "examples" / "models"
MODEL_FILES = sorted(EXAMPLES.glob("*.json"))
s = vn.s


def test_the_bundled_models_are_there():
    names = {p.name for p in EXAMPLES.iterdir()}
    assert {"rlc.json", "e1.json", "motor_pump.json", "pendulum.json", "fourbar.json",
            "rc_filter.cir"} <= names


# -- round trips --------------------------------------------------------------------------

def assert_same_network(a: vn.Network, b: vn.Network, outputs=(), tree="normal",
                        formulate=True):
    assert [type(e) for e in a.elements] == [type(e) for e in b.elements]
    assert a.graph.nodes == b.graph.nodes and a.graph.edges == b.graph.edges
    for x, y in zip(a.elements, b.elements):
        assert [(e.name, e.tail, e.head, e.domain) for e in x.edges] == \
               [(e.name, e.tail, e.head, e.domain) for e in y.edges]
        va = {e.name: a.variables(e.name) for e in x.edges}
        assert x.terminal_equations(va) == y.terminal_equations(va)
        assert x.values == y.values
        assert {k: p.value for k, p in x.parameters.items()} == \
               {k: p.value for k, p in y.parameters.items()}
    if not formulate:
        return
    ssa = a.state_space(outputs=outputs, tree=tree)
    ssb = b.state_space(outputs=outputs, tree=tree)
    assert (ssa.states, ssa.inputs, ssa.outputs) == (ssb.states, ssb.inputs, ssb.outputs)
    assert ssa.f == ssb.f and ssa.h == ssb.h and ssa.g == ssb.g
    if ssa.is_linear:
        assert (ssa.A, ssa.B, ssa.C, ssa.D) == (ssb.A, ssb.B, ssb.C, ssb.D)
    assert ssa.signals == ssb.signals


def assert_same_mechanism(a: Model, b: Model):
    ea, eb = a.formulate(), b.formulate()
    assert ea.coordinates == eb.coordinates
    assert ea.constraint_names == eb.constraint_names
    if a.system.beams:   # their terms are numbers: the compiled equations at random states
        from roundtrip import same_mechanism

        same_mechanism(a.system, b.system)
        return
    assert ea.M == eb.M and ea.Q == eb.Q and ea.constraints == eb.constraints
    # and numerically, at random states, with the declared values
    values = {k: sympy.Float(v) for k, v in a.values.items()}
    rng = np.random.default_rng(7)
    for _ in range(3):
        point = {q: rng.uniform(-2, 2) for q in ea.q} | {u: rng.uniform(-2, 2) for u in ea.u}
        point[vn.t] = rng.uniform(0, 1)
        point = {k: sympy.Float(v) for k, v in point.items()}
        for x, y in ((ea.M, eb.M), (ea.Q, eb.Q)):
            nx_ = np.array(x.xreplace(values).xreplace(point).evalf(), dtype=float)
            ny_ = np.array(y.xreplace(values).xreplace(point).evalf(), dtype=float)
            assert np.allclose(nx_, ny_, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("path", MODEL_FILES, ids=[p.name for p in MODEL_FILES])
def test_example_models_load_save_and_reload_to_the_same_equations(path, tmp_path):
    model = load_model(path)
    target = tmp_path / path.name
    save_model(model, target)
    again = load_model(target)
    assert model_to_dict(again) == model_to_dict(model)
    for key in ("kind", "parameters", "inputs", "initial", "velocities", "outputs", "tree",
                "coordinates", "t_span", "points", "description"):
        assert getattr(again, key) == getattr(model, key), key
    assert again.name == model.name
    if model.kind == "network":
        assert_same_network(model.system, again.system, model.outputs, model.tree or "normal")
    else:
        assert_same_mechanism(model, again)
    # saving the reloaded model writes the same bytes
    save_model(again, tmp_path / "twice.json")
    assert (tmp_path / "twice.json").read_text() == target.read_text()


@pytest.mark.filterwarnings("ignore::vecnet.errors.VecnetWarning")  # every element stands apart
def test_a_network_built_in_python_with_every_element_type_round_trips():
    R0, U = vn.Symbol("R0"), vn.Symbol("U")
    net = vn.Network("zoo")
    p = sympy.Rational(1, 3)
    for k, cls in enumerate(getattr(vn.elements.lumped, n) for n in vn.elements.lumped.__all__):
        if cls is vn.NonlinearDissipator:
            continue
        (pname,) = cls.parameter_names
        given = [2.5, 2 * R0 + p, U][k % 3] if not cls.signals else \
            [1.5, sympy.sin(3 * vn.t) * sympy.Heaviside(vn.t - 1), U][k % 3]
        net.add(cls(f"{cls.__name__}_{k}", f"n{k}", f"m{k}", **{pname: given}))
    net.add(vn.NonlinearDissipator("orifice", "p0", "p1", domain="fluid",
                                   across=lambda Q: 2 * Q * sympy.Abs(Q)),
            vn.NonlinearDissipator("diode", "d0", "d1", through=lambda v: R0 * (sympy.exp(v) - 1)))
    for k, name in enumerate(vn.elements.transducers.__all__):
        cls = getattr(vn.elements.transducers, name)
        (pname,) = cls.parameter_names
        net.add(cls(f"tp{k}", f"a{k}", f"b{k}", f"c{k}", f"d{k}", **{pname: 0.5 + k}))
    net.add(vn.Transformer("mixed", "x0", "x1", "y0", "y1", domains=("electrical", "thermal"),
                           N=R0))
    doc = model_to_dict(Model("network", net))
    assert doc["parameters"] == {"R0": None, "U": None}
    assert json.loads(json.dumps(doc)) == doc
    again = load_model(doc).system
    # every element on its own edge: compare the elements, not a (meaningless) formulation
    assert_same_network(net, again, formulate=False)


def test_values_numbers_and_expressions_keep_their_meaning():
    doc = {"vecnet": "1", "kind": "network", "parameters": {"R": 2.0, "L": None},
           "elements": [
               {"type": "VoltageSource", "name": "Vs", "nodes": ["g", "a"],
                "parameters": {"V": "sin(t)"}},
               {"type": "Resistor", "name": "R1", "nodes": ["a", "b"], "parameters": {"R": 5}},
               {"type": "Resistor", "name": "R2", "nodes": ["b", "c"], "parameters": {"R": "2*R"}},
               {"type": "Inductor", "name": "L1", "nodes": ["c", "g"], "parameters": {"L": "L"}}]}
    model = load_model(doc)
    net = model.system
    R, L = vn.Symbol("R"), vn.Symbol("L")
    # a number is the value of the element's own symbol, as in the Python API
    assert net.element("R1").parameters["R"] == vn.elements.Parameter("R", vn.Symbol("R1"), 5.0)
    assert net.element("R2").symbol("R") == 2 * R
    assert net.element("L1").symbol("L") == L
    assert net.element("Vs").parameters["V"].value == sympy.sin(vn.t)
    assert model.values == {R: 2.0} and model.symbols == {"R": R, "L": L}


# -- the bundled models give the textbook answers ----------------------------------------

def test_rlc_model_transfer_function_and_delayed_step():
    model = load_model(EXAMPLES / "rlc.json")
    R, L, C = (vn.Symbol(n) for n in "RLC")
    H = model.state_space().transfer_function()[0, 0]
    assert sympy.simplify(H - 1 / (L * C * s**2 + R * C * s + 1)) == 0
    res = model.simulate()
    before = res.t < 0.0005
    assert np.abs(res["C1.across"][before]).max() < 1e-12      # the step comes at 0.5 ms
    zeta = 5.0 / 2 * math.sqrt(1e-5 / 1e-3)
    overshoot = math.exp(-math.pi * zeta / math.sqrt(1 - zeta**2))
    assert abs(res["C1.across"].max() - (1 + overshoot)) < 1e-3


def test_e1_model_steady_state():
    res = load_model(EXAMPLES / "e1.json").simulate()
    assert abs(res["C6.across"][-1] + 0.4) < 1e-4
    assert abs(res["L1.through"][-1] + 0.2) < 1e-4


def test_motor_pump_model_single_state_and_steady_torque():
    model = load_model(EXAMPLES / "motor_pump.json")
    ss = model.state_space()
    assert ss.states == ("shaft.through",)
    p = model.parameters
    T_ss = (p["V"] / p["K"]) / (p["R"] / p["K"]**2 + 1 / (p["D"]**2 * p["Rp"]))
    res = model.simulate()
    assert abs(res["shaft.through"][-1] - T_ss) < 1e-6 * T_ss


def test_pendulum_model_frequency_and_damping():
    model = load_model(EXAMPLES / "pendulum.json")
    p = model.parameters
    eom = model.formulate()
    # the values its equations hold: l and g placed the bodies when the file was read
    values = {k: sympy.Float(v) for k, v in model.element_values.items()}
    assert {str(k) for k in values} == {"m", "J", "k", "c"}
    lin = eom.linearize(eom.equilibrium(parameters=values), parameters=values)
    wn = math.sqrt((p["k"] + p["m"] * p["g"] * p["l"]) / (p["J"] + p["m"] * p["l"]**2))
    assert abs(lin.natural_frequencies()[0] - wn) < 1e-6
    res = model.simulate(t_span=(0, 1), points=51)
    assert abs(res["pin.angle"][0] - (math.pi / 3 - math.pi / 2)) < 1e-12
    assert np.all(np.diff(res["energy"]) < 1e-9)               # the damper dissipates


def test_fourbar_model_moves_and_keeps_its_loop_closed():
    model = load_model(EXAMPLES / "fourbar.json")
    eom = model.formulate()
    assert len(eom.q) - len(eom.constraints) == 1       # three pin angles, one loop
    res = model.simulate(t_span=(0, 0.3), points=31)
    assert np.abs(res["constraint residual"]).max() < 1e-9
    assert abs(res["crank.angle"][-1] - res["crank.angle"][0]) > 1e-3


# -- expressions ---------------------------------------------------------------------------

x, y = vn.Symbol("x"), vn.Symbol("y")
NAMES = {"x": x, "y": y}


@pytest.mark.parametrize("text, expected", [
    ("1", sympy.Integer(1)),
    ("2.5", sympy.Float(2.5)),
    ("1e-6", sympy.Float(1e-6)),
    ("x + y*2", x + 2 * y),
    ("x - y - 1", x - y - 1),
    ("-x**2", -x**2),
    ("+x", x),
    ("x/y/2", x / y / 2),
    ("x**-2", x**-2),
    ("(x + 1)**64", (x + 1)**64),
    ("2**-64", sympy.Rational(1, 2**64)),
    ("1/3", sympy.Rational(1, 3)),
    ("pi*e", sympy.pi * sympy.E),
    ("sin(2*pi*50*t)", sympy.sin(100 * sympy.pi * vn.t)),
    ("atan2(y, x)", sympy.atan2(y, x)),
    ("abs(x) + sign(y)", sympy.Abs(x) + sympy.sign(y)),
    ("min(x, y, 1)", sympy.Min(x, y, 1)),
    ("max(x, 2)", sympy.Max(x, 2)),
    ("step(t - 1)", sympy.Heaviside(vn.t - 1)),
    ("sqrt(x) + exp(-x) + log(y)", sympy.sqrt(x) + sympy.exp(-x) + sympy.log(y)),
    ("asin(x) + acos(x) + atan(x) + tan(x)", sympy.asin(x) + sympy.acos(x) + sympy.atan(x)
     + sympy.tan(x)),
    ("sinh(x)*cosh(x)/tanh(x)", sympy.sinh(x) * sympy.cosh(x) / sympy.tanh(x)),
    ("  x\n+ 1 ", x + 1),
])
def test_expressions_parse_to_the_expected_sympy_objects(text, expected):
    assert parse_expression(text, NAMES) == expected


def test_names_time_and_dotted_quantities():
    assert parse_expression("t", {}) == vn.t
    with pytest.raises(vn.ModelFileError, match="cannot depend on time"):
        parse_expression("2*t", {}, "/bodies/0/mass", time=False)
    omega = vn.Symbol("crank.omega")
    assert parse_expression("-0.5*crank.omega", {"crank.omega": omega}) == -0.5 * omega
    with pytest.raises(vn.ModelFileError, match="attribute access"):
        parse_expression("crank.omega", {})
    with pytest.raises(vn.ModelFileError, match="unknown name 'z'; declared names are x, y"):
        parse_expression("z", NAMES, "/p")


@pytest.mark.parametrize("text, construct", [
    ("x.real", "attribute access"), ("x[0]", "subscript"), ("lambda: 0", "lambda"),
    ("[i for i in x]", "comprehension"), ("(i for i in x)", "generator expression"),
    ("'s'", "string"), ("b'x'", "bytes"), ("1j", "complex number"), ("True", "boolean"),
    ("x < 1", "comparison"), ("x and y", "boolean operator"), ("x if y else 1", "conditional"),
    ("sin(*x)", "starred"), ("sin(x=1)", "keyword"), ("(1, 2)", "tuple"), ("{1: 2}", "dict"),
    ("x // 2", "'//'"), ("x % 2", "'%'"), ("x ^ 2", "'\\^'"), ("~x", "'~'"), ("not x", "'not'"),
    ("__import__('os')", "call of '__import__'"), ("eval('1')", "call of 'eval'"),
    ("x(1)", "call of 'x'"), ("sin", "must be called"), ("sin(1, 2)", "takes 1 argument"),
    ("min(1)", "takes 2 to 16"), ("9**9**9**9", "power tower"), ("x**65", "exponent larger"),
    ("2**(8*9)", "exponent larger"), ("((10**64)**64)**64", "more than 1000 digits"),
    ("1/0", "division by zero"), ("log(0)", "infinite or undefined"), ("sqrt(-4)", "complex"),
    ("x" * 2001, "too long"), ("", "empty"), ("1 +", "not an expression"),
    ("sin(" * 80 + "1" + ")" * 80, "nested too deeply"), ("(x:=1)", "assignment"),
    ("f'{x}'", "f-string"), ("1e999", "out of range"),
])
def test_everything_else_is_refused_naming_location_and_construct(text, construct):
    with pytest.raises(vn.ModelFileError, match=construct) as info:
        parse_expression(text, NAMES, "/elements/3/parameters/R")
    assert info.value.location == "/elements/3/parameters/R"
    assert str(info.value).startswith("/elements/3/parameters/R: ")


SYMBOLS = [x, y, vn.Symbol("R_1"), vn.Symbol("body.omega"), vn.t]
LEAVES = st.one_of(
    st.sampled_from(SYMBOLS + [sympy.pi, sympy.E]),
    st.integers(-50, 50).map(sympy.Integer),
    st.fractions(min_value=-20, max_value=20, max_denominator=30).map(
        lambda f: sympy.Rational(f.numerator, f.denominator)),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(sympy.Float),
)
UNARY = [sympy.sin, sympy.cos, sympy.tan, sympy.asin, sympy.acos, sympy.atan, sympy.sinh,
         sympy.cosh, sympy.tanh, sympy.exp, sympy.log, sympy.sqrt, sympy.Abs, sympy.sign,
         sympy.Heaviside]
BINARY = [sympy.Add, sympy.Mul, lambda a, b: a - b, lambda a, b: a / b, sympy.atan2,
          sympy.Min, sympy.Max]

# trees of (function, children...) tuples: sympy builds them inside the test, where an
# undefined combination (atan2(0, 0), 1/0) can be skipped
TREES = st.recursive(LEAVES, lambda children: st.one_of(
    st.tuples(st.sampled_from(BINARY), children, children),
    st.tuples(st.sampled_from(UNARY), children),
    st.tuples(st.just(sympy.Pow), children, st.integers(-4, 4).map(sympy.Integer))),
    max_leaves=8)


def _build(tree):
    value = sympy.sympify(tree[0](*(_build(c) for c in tree[1:]))) \
        if isinstance(tree, tuple) else tree
    # sympy's floats go beyond a double, and functions of such floats (or of complex
    # values) get very slow: stop at once, as the parser does
    undefined = value.has(sympy.I, sympy.zoo, sympy.nan, sympy.oo, sympy.AccumBounds)
    if undefined or not all(math.isfinite(float(f)) and
                            (f.is_zero or abs(float(f)) >= sys.float_info.min)
                            for f in value.atoms(sympy.Float)):
        raise OverflowError
    if not value.free_symbols:                            # acos(3) is complex, sinh(800) huge
        number = value.evalf(15)
        if number.has(sympy.I) or not number.is_Number or not math.isfinite(float(number)):
            raise OverflowError
    return value


ALLOWED = set(UNARY) | {sympy.atan2, sympy.Min, sympy.Max}


def _writable(expr) -> bool:
    if not isinstance(expr, sympy.Expr) or expr.has(sympy.I, sympy.zoo, sympy.nan, sympy.oo,
                                                    sympy.AccumBounds):
        return False
    if sympy.count_ops(expr) > 150:
        return False
    # sympy may turn tan(x + pi/2) into -cot(x): the format writes that as -1/tan(x)
    if any(f.func not in ALLOWED for f in expr.atoms(sympy.Function)):
        return False
    return all(abs(p.exp) <= 64 for p in expr.atoms(sympy.Pow) if p.exp.is_Number)


@given(TREES)
def test_format_then_parse_gives_the_same_expression(tree):
    try:
        expr = sympy.sympify(_build(tree))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        assume(False)
    assume(_writable(expr))
    text = format_expression(expr)
    names = {str(v): v for v in SYMBOLS if v != vn.t}
    back = parse_expression(text, names)
    # the same expression, or the same built again by sympy from its parts (sympy keeps
    # Abs(x)*sqrt(Abs(x)) made one way, but makes Abs(x)**(3/2) another way)
    assert back == expr or back == _rebuild(expr)
    assert format_expression(back) == text or parse_expression(format_expression(back),
                                                                names) == back


def _rebuild(expr):
    return expr.func(*(_rebuild(a) for a in expr.args)) if expr.args else expr


def test_format_refuses_what_the_format_cannot_hold():
    f = sympy.Function("f")
    for expr in (sympy.Derivative(f(vn.t), vn.t), f(vn.t), sympy.I * x, sympy.Symbol("a b"),
                 sympy.Symbol("e"), sympy.Symbol("t"), x**100, sympy.floor(x)):
        with pytest.raises(vn.ModelFileError):
            format_expression(expr, "/inputs/V")
    assert format_expression(0.1 + 0.2) == "0.30000000000000004"
    # sympy's own cot (tan shifted by pi/2) is written with the functions of the format
    assert parse_expression("tan(x + pi/2)", NAMES) == -1 / sympy.tan(x)
    assert format_expression(sympy.cot(x)) == "1/tan(x)"
    assert format_expression(sympy.Rational(1, 3) * x) == "x/3"


# -- SPICE netlists -----------------------------------------------------------------------

def hand_rc() -> vn.Network:
    net = vn.Network("rc")
    net.add(vn.VoltageSource("V1", "0", "in", V=1.0), vn.Resistor("R1", "out", "in", R=1e3),
            vn.Capacitor("C1", "0", "out", C=1e-6))
    return net


def test_rc_netlist_has_the_transfer_function_of_the_same_network_built_by_hand():
    net = load_netlist(EXAMPLES / "rc_filter.cir")
    H = net.state_space(outputs=["C1.across"]).transfer_function()
    H_hand = hand_rc().state_space(outputs=["C1.across"]).transfer_function()
    assert sympy.simplify(H - H_hand) == sympy.zeros(1, 1)
    assert net.graph.nodes[0] == "0" and net.topology().datum == ("0",)
    assert net.element("R1").values == {vn.Symbol("R1"): 1000.0}
    assert net.element("C1").values == {vn.Symbol("C1"): 1e-6}
    num = net.state_space(outputs=["C1.across"]).subs().transfer_function()[0, 0]
    assert sympy.simplify(num - 1 / (sympy.Rational(1, 1000) * s + 1)) == 0


def test_rlc_netlist_matches_a_series_rlc_built_by_hand():
    net = load_netlist("""series RLC
* R, L and C in series across a voltage source
Vs 1 0 DC 1 AC 1
R1 1 2 5
L1 2 3
+ 1m
C1 3 gnd 10u
.tran 1u 5m
.end
R9 this line comes after .end
""")
    hand = vn.Network("rlc")
    hand.add(vn.VoltageSource("Vs", "0", "1", V=1.0), vn.Resistor("R1", "2", "1", R=5.0),
             vn.Inductor("L1", "3", "2", L=1e-3), vn.Capacitor("C1", "0", "3", C=1e-5))
    assert [e.name for e in net.elements] == ["Vs", "R1", "L1", "C1"]
    H = net.state_space(outputs=["C1.across"], symbolic=True).transfer_function()[0, 0]
    H_hand = hand.state_space(outputs=["C1.across"], symbolic=True).transfer_function()[0, 0]
    assert sympy.simplify(H - H_hand) == 0
    # with the numbers put in: L C = 1e-8, R C = 5e-5, exactly
    H_numbers = net.state_space(outputs=["C1.across"]).transfer_function()[0, 0]
    assert sympy.simplify(H_numbers - 1 / (sympy.Rational(1, 10**8) * s**2
                                           + sympy.Rational(5, 10**5) * s + 1)) == 0
    R, L, C = vn.Symbol("R1"), vn.Symbol("L1"), vn.Symbol("C1")
    assert sympy.simplify(H - 1 / (L * C * s**2 + R * C * s + 1)) == 0


def test_netlist_orientation_follows_spice():
    # V(a) - V(0) = 5: the resistor voltage V(a, 0) is +V1
    v = load_netlist("v\nV1 a 0 5\nR1 a 0 1k\n").state_space(outputs=["R1.across", "R1.through"],
                                                          symbolic=True)
    assert v.D == sympy.Matrix([[1], [1 / vn.Symbol("R1")]])
    # I1 0 b 1m drives 1 mA from 0 through the source into b: V(b) = +R I
    i = load_netlist("i\nI1 0 b 1m\nR1 b 0 1k\n").state_space(outputs=["R1.across"], symbolic=True)
    assert i.inputs == ("I1.through",)
    assert i.D == sympy.Matrix([[vn.Symbol("R1")]])
    assert float(i.subs().D[0, 0]) * 1e-3 == pytest.approx(1.0)
    # I1 b 0 1m drives it out of b
    j = load_netlist("j\nI1 b 0 1m\nR1 b 0 1k\n").state_space(outputs=["R1.across"], symbolic=True)
    assert j.D == sympy.Matrix([[-vn.Symbol("R1")]])


def test_an_ac_only_source_is_zero_in_time_and_still_an_input():
    net = load_netlist("ac\nV1 in 0 AC 1\nR1 in out 1k\nC1 out 0 1u\n")
    assert net.element("V1").parameters["V"].value == 0.0
    assert net.state_space(outputs=["C1.across"]).inputs == ("V1.across",)


def test_netlist_names_are_case_insensitive_and_ground_has_two_names():
    net = load_netlist("case\nV1 In GND 1\nR1 in Out 1k\nC1 OUT 0 1n\n")
    assert net.graph.nodes == ("0", "In", "Out")
    assert net.name == "case"


@pytest.mark.parametrize("token, value", [
    ("1", 1.0), ("4.7k", 4700.0), ("4.7K", 4700.0), ("10u", 1e-5), ("10uF", 1e-5),
    ("1meg", 1e6), ("1MEG", 1e6), ("2.2Meg", 2.2e6), ("1m", 1e-3), ("1M", 1e-3), ("3n", 3e-9),
    ("5p", 5e-12), ("7f", 7e-15), ("1F", 1e-15), ("2g", 2e9), ("1t", 1e12), ("1kOhm", 1e3),
    ("5V", 5.0), ("1e3", 1e3), ("1.5e-3k", 1.5), (".5", 0.5), ("-2m", -2e-3), ("10mH", 1e-2),
    ("60Hz", 60.0),
])
def test_spice_values_with_scale_factors(token, value):
    assert parse_value(token) == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize("token", ["10x", "1q", "abc", "1.2.3", "k", "1e", "1kk", "5 V"])
def test_bad_spice_values_name_the_line(token):
    with pytest.raises(vn.ModelFileError) as info:
        parse_value(token, 7)
    assert info.value.location == "netlist line 7"


def spice_pulse(time, v1, v2, td, tr, tf, pw, per):
    """SPICE's PULSE, the definition written out."""
    if time < td:
        return v1
    local = (time - td) % per
    if local < tr:
        return v1 + (v2 - v1) * local / tr
    if local < tr + pw:
        return v2
    if local < tr + pw + tf:
        return v2 - (v2 - v1) * (local - tr - pw) / tf
    return v1


def test_pulse_values_at_sample_times():
    v1, v2, td, tr, tf, pw, per = 0.5, 2.0, 1e-3, 2e-4, 1e-4, 5e-4, 2e-3
    wave = pulse(v1, v2, td, tr, tf, pw, per)
    f = sympy.lambdify(vn.t, wave, "numpy")

    def spice(time):
        return spice_pulse(time, v1, v2, td, tr, tf, pw, per)

    for time in [0, 0.5e-3, 1.1e-3, 1.2e-3, 1.5e-3, 1.75e-3, 1.85e-3, 2.5e-3, 3.1e-3, 3.5e-3,
                 5.15e-3, 7.0e-3]:
        assert float(f(time)) == pytest.approx(spice(time), abs=1e-9), time
    once = pulse(0, 1, 0, 1e-6, 1e-6, 1e-3)           # no period: a single pulse
    assert float(once.subs(vn.t, 0.5e-3)) == pytest.approx(1.0)
    assert float(once.subs(vn.t, 5e-3)) == pytest.approx(0.0)


def test_sin_values_at_sample_times():
    vo, va, freq, td, theta = 0.5, 2.0, 50.0, 0.01, 3.0
    wave = sine(vo, va, freq, td, theta)
    for time in [0, 0.005, 0.01, 0.013, 0.02, 0.0437]:
        expected = vo if time < td else \
            vo + va * math.exp(-theta * (time - td)) * math.sin(2 * math.pi * freq * (time - td))
        assert float(wave.subs(vn.t, time)) == pytest.approx(expected, abs=1e-12)


def test_netlist_sources_are_expressions_in_t():
    net = load_netlist("sources\nV1 a 0 SIN(0 1 1k)\nR1 a b 1k\nI2 0 b PULSE(0 1m 0 1u 1u 1m 2m)\n"
                       "R2 b 0 1k\n")
    v = net.element("V1").parameters["V"].value
    assert v == sine(0, 1, 1e3)
    assert net.element("I2").parameters["I"].value == pulse(0, 1e-3, 0, 1e-6, 1e-6, 1e-3, 2e-3)


PULSES = [  # v1 v2 td tr tf pw per: levels that are not exact in binary, falling pulses,
    # steps without ramps, and ramps far shorter than the period
    (0.1, 0.3, 1e-3, 2e-4, 1e-4, 5e-4, 2e-3),
    (2.0, -0.7, 0.0, 1e-6, 3e-6, 1e-3, 4e-3),
    (0.0, 1.0, 0.0, 1e-6, 1e-6, 1e-3, 4e-3),           # examples/models/rc_filter.cir
    (0.0, 5.0, 0.25, 0.0, 0.0, 0.3, 1.0),
    (-1e-3, 1e-3, 0.0, 1e-9, 1e-9, 0.3, 0.7),
]


@pytest.mark.parametrize("v1, v2, td, tr, tf, pw, per", PULSES)
def test_pulse_stays_within_its_levels_and_keeps_its_corners(v1, v2, td, tr, tf, pw, per):
    from vecnet.numerics.network_integration import switching_times

    wave = pulse(v1, v2, td, tr, tf, pw, per)
    f = sympy.lambdify(vn.t, wave, "numpy")
    corners = np.array([td + k * per + c for k in range(40) for c in (0, tr, tr + pw,
                                                                       tr + pw + tf)])
    tiny = 1e-3 * min(x for x in (tr, tf, pw, per) if x > 0)
    times = np.concatenate([np.linspace(0, td + 40 * per, 20_001), corners, corners - tiny,
                            corners + tiny, np.arange(100) * per, np.arange(100) * per + td])
    values = f(times)
    assert values.min() >= min(v1, v2) and values.max() <= max(v1, v2)

    def spice(time):
        return spice_pulse(time, v1, v2, td, tr, tf, pw, per)

    # away from the corners (where a rounded time may fall in either piece), the definition;
    # on a ramp, a time rounded by 1e-13 of its size moves the value by that over the ramp
    away = np.min(np.abs(times[:, None] - corners[None, :]), axis=1) > 1e-9 * per
    expected = np.array([spice(x) for x in times[away]])
    ramp = min(x for x in (tr, tf, per) if x > 0)
    slack = max(1e-9, 1e-13 * times.max() / ramp)
    np.testing.assert_allclose(values[away], expected, atol=slack * abs(v2 - v1))
    # the corners within a span are where the simulator restarts
    span = (0.0, td + 3 * per - tiny)
    expected = sorted({round(c, 15) for c in corners if span[0] < c < span[1]})
    found = switching_times(wave, *span)
    assert len(found) == len(expected)
    np.testing.assert_allclose(found, expected, atol=1e-12)


def test_a_sine_stays_within_its_amplitude_and_waits_for_its_delay():
    vo, va, freq, td, theta = 0.3, -0.7, 1e3, 2.0, 500.0
    f = sympy.lambdify(vn.t, sine(vo, va, freq, td, theta), "numpy")
    times = np.concatenate([np.linspace(0, 4, 400_001), td + np.arange(20) / (4 * freq)])
    values = f(times)
    # before td the damping factor would be exp(1000): it must not be evaluated there
    assert np.all(np.isfinite(values))
    assert np.all(values[times < td] == vo)
    assert values.min() >= vo - abs(va) and values.max() <= vo + abs(va)
    quarter = f(np.array([td + 1 / (4 * freq)]))[0]
    assert quarter == pytest.approx(vo + va * math.exp(-theta / (4 * freq)), rel=1e-12)


def test_netlist_analysis_commands_are_kept():
    net = load_netlist("""analyses
V1 in 0 DC 1 AC 2 45
I1 0 out AC
R1 in out 1k
C1 out 0 1u
.op
.ac dec 10 10 10k
.tran 10u 5m 1m 20u uic
.print tran v(out)
.end
""")
    a = net.analyses
    assert a.op and a.tran == vn.io.spice.Transient(1e-5, 5e-3, 1e-3, 2e-5)
    assert a.ac_sources["V1.across"] == pytest.approx(2 * np.exp(1j * np.pi / 4))
    assert a.ac_sources["I1.through"] == 1.0
    f = a.ac.frequencies()
    # SPICE: 10 points a decade over three decades, both ends included
    assert len(f) == 31 and f[0] == 10.0 and f[-1] == pytest.approx(1e4)
    np.testing.assert_allclose(np.diff(np.log10(f)), 0.1)
    assert vn.io.spice.AcSweep("oct", 3, 1.0, 8.0).frequencies().tolist() == \
        pytest.approx(2 ** (np.arange(10) / 3))
    assert vn.io.spice.AcSweep("lin", 5, 0.0, 4.0).frequencies().tolist() == [0, 1, 2, 3, 4]
    plain = load_netlist("plain\nV1 a 0 1\nR1 a 0 1\n")
    assert plain.analyses == vn.io.spice.Analyses()
    assert vn.Network().analyses is None


@pytest.mark.parametrize("card, message", [
    (".ac dec 0 1 10", "whole number"), (".ac dec 2.5 1 10", "whole number"),
    (".ac log 10 1 10", "dec|oct|lin"), (".ac dec 10 0 10", "0 < fstart"),
    (".ac lin 10 5 1", "fstart <= fstop"), (".ac dec 10 1", "dec|oct|lin"),
    (".tran 0 1m", "tstep > 0"), (".tran 1u", "tstep tstop"), (".tran 1u 1m 2m", "tstart < tstop"),
    (".tran 1u -1m", "not be negative"), (".op now", ".op takes nothing"),
])
def test_bad_analysis_commands_name_their_line(card, message):
    with pytest.raises(vn.ModelFileError, match=message) as info:
        load_netlist(f"bad\nV1 a 0 1\nR1 a 0 1\n{card}\n")
    assert info.value.location == "netlist line 4"


def test_too_many_ac_frequencies_are_refused():
    with vn.limits(max_points=100), pytest.raises(vn.ModelError, match="max_points"):
        vn.io.spice.AcSweep("dec", 1000, 1.0, 1e6).frequencies()


# -- saving is all or nothing --------------------------------------------------------------

def unsavable() -> Model:
    net = vn.Network("python signal")
    net.add(vn.VoltageSource("Vs", "g", "a", V=lambda time: math.sin(time)),
            vn.Resistor("R", "a", "g", R=1.0))
    return Model("network", net)


def test_a_failed_save_leaves_no_file(tmp_path):
    target = tmp_path / "model.json"
    with pytest.raises(vn.ModelFileError, match="Python function") as info:
        save_model(unsavable(), target)
    assert info.value.location == "/elements/0/parameters/V"
    assert list(tmp_path.iterdir()) == []
    target.write_text("keep me")
    with pytest.raises(vn.ModelFileError):
        save_model(unsavable(), target)
    assert target.read_text() == "keep me" and list(tmp_path.iterdir()) == [target]


def test_a_save_failing_at_the_last_step_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "rlc.json"
    target.write_text("old")
    model = load_model(EXAMPLES / "rlc.json")

    def broken(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(vn.ModelFileError, match="No space left") as info:
        save_model(model, target)
    assert info.value.location == str(target)
    assert target.read_text() == "old" and list(tmp_path.iterdir()) == [target]


def test_saving_into_a_missing_folder_is_a_model_file_error(tmp_path):
    with pytest.raises(vn.ModelFileError, match="cannot write"):
        save_model(load_model(EXAMPLES / "e1.json"), tmp_path / "missing" / "e1.json")


def test_a_mechanism_built_in_python_is_saved_as_built_and_python_functions_are_refused():
    from roundtrip import check_round_trip, saved_and_loaded

    k, l0 = vn.Symbol("k"), vn.Symbol("l0")
    mech = vn.planar.Mechanism("python")
    b = mech.body("b", mass=1.0, inertia=0.1, position=(0.5, 0))
    mech.revolute("pin", mech.ground.point(0, 0), b.point(-0.5, 0))
    mech.spring("s", mech.ground.point(1, 1), b.point(0.5, 0), force=lambda L: k * (L - l0) ** 3)
    mech.torque("T", b, 0.2 * vn.t - mech.quantity("b.omega"))
    check_round_trip(mech)
    # built on after loading: what is saved is what the mechanism is now
    model = load_model(EXAMPLES / "pendulum.json")
    model.system.torque("extra", model.system.bodies["bob"], 1.0)
    assert "extra" in saved_and_loaded(model).network.graph
    mech.torque("motor", b, lambda time: time)
    with pytest.raises(vn.ModelFileError, match="torque 'motor': a Python function") as info:
        model_to_dict(mech)
    assert info.value.location == "/forces/2/value"
    with pytest.raises(vn.ModelError, match="holds a Network"):
        Model("network", mech)


def test_unreadable_files_name_the_path(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(vn.ModelFileError, match="cannot read") as info:
        load_model(missing)
    assert info.value.location == str(missing)
    with pytest.raises(vn.ModelFileError, match="cannot read"):
        load_netlist(tmp_path / "nope.cir")


# -- systems ----------------------------------------------------------------------------

def pd_pendulum():
    """A pendulum on a pin O, a torque source on O's port, and a PD controller of O's
    angle driving the source."""
    mech = vn.planar.Mechanism("pendulum")
    bob = mech.body("bob", mass=1.0, inertia=0.01, position=(0.5, 0))
    mech.revolute("O", mech.ground.centre, bob.point(-0.5, 0))
    motor = vn.Network("motor")
    motor.add(vn.TorqueSource("T", "g", "w", T=0.0), vn.RotaryPort("shaft", "g", "w", joint="O"))
    sensor = vn.System(mech, motor).sensor
    pd = vn.PID("pd", 0.5 - sensor("O.angle"), kp=20.0, kd=2.0)
    # the rate written with a prime: saved as O.rate, the rate of O's only coordinate
    damping = vn.Gain("damping", sensor("O.angle'"), -0.1)
    return vn.System(mech, motor, blocks=[pd, damping],
                     connect={"T.through": pd.output + damping.output})


def test_a_system_saves_and_loads_to_the_same_equations_and_motion(tmp_path):
    from roundtrip import check_round_trip

    system = pd_pendulum()
    check_round_trip(system)
    save_model(vn.Model("system", system, t_span=(0.0, 0.5), points=6), tmp_path / "pd.json")
    doc = json.loads((tmp_path / "pd.json").read_text())
    assert doc["kind"] == "system" and "O.rate" in doc["connect"]["T.through"]
    model = load_model(tmp_path / "pd.json")
    ours, theirs = model.simulate(), system.simulate(0.5, t_eval=np.linspace(0, 0.5, 6))
    assert np.allclose(ours["O.angle"], theirs["O.angle"], rtol=1e-9, atol=1e-12)
    # the controller drove the pendulum up from hanging at rest
    assert ours["O.angle"][-1] > ours["O.angle"][0] + 0.1


@pytest.mark.parametrize("change, location, says", [
    (lambda d: d["network"]["elements"][1].update(joint="Q"), "/network",
     "names joint 'Q'"),
    (lambda d: d["connect"].update({"T.through": "pd.filter + nowhere.x"}),
     "/connect/T.through", "nowhere"),
    (lambda d: d["mechanism"].update(simulation={"t_span": [0, 1]}), "/mechanism/simulation",
     "setting of the whole system"),
    (lambda d: d["mechanism"]["joints"][0].update(between=["ground", "bob.nothing"]),
     "/mechanism/joints/0/between/1", "no point 'nothing'"),
    (lambda d: d["blocks"][0]["states"].append("other.x"), "/blocks/0",
     "one rate and one initial value per state"),
])
def test_a_wrong_system_file_is_refused_at_the_place_it_is_wrong(change, location, says):
    doc = model_to_dict(pd_pendulum())
    change(doc)
    with pytest.raises(vn.ModelFileError, match=says) as info:
        load_model(doc)
    assert info.value.location == location


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")) + sorted(EXAMPLES.glob("*.cir")),
                         ids=lambda p: p.name)
def test_every_bundled_model_saves_and_loads_to_the_same_equations(path, tmp_path):
    from roundtrip import check_round_trip

    if path.suffix == ".json":
        check_round_trip(load_model(path).system)
        return
    # a netlist's PULSE switches at its corners to the next piece (Heaviside(x, 1)), which
    # the expressions of model files cannot write: refused, naming the source
    with pytest.raises(vn.ModelFileError, match="VoltageSource 'V1': only step") as info:
        vn.save_model(vn.load_netlist(path), tmp_path / "rc.json")
    assert info.value.location == "/elements/0/parameters/V"
    assert not list(tmp_path.iterdir())


def test_the_command_line_simulates_a_system_file_and_refuses_what_it_cannot_show(
        tmp_path, capsys):
    from vecnet.cli import main

    system = pd_pendulum()
    save_model(vn.Model("system", system, t_span=(0.0, 0.4), points=5, outputs=["O.angle"]),
               tmp_path / "pd.json")
    assert main(["simulate", str(tmp_path / "pd.json")]) == 0
    rows = [line.split(",") for line in capsys.readouterr().out.split()]
    assert rows[0] == ["t", "O.angle"]
    expected = system.simulate(0.4, t_eval=np.linspace(0, 0.4, 5))["O.angle"]
    assert np.allclose([float(r[1]) for r in rows[1:]], expected, rtol=1e-9, atol=1e-12)
    assert main(["equations", str(tmp_path / "pd.json")]) == 2
    assert "is a system" in capsys.readouterr().err
