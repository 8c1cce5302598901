"""Strict readers and physical values: what the model file and netlist readers refuse,
and what the elements refuse whoever builds them.

Facts from outside the code: Python's float(), int() and Decimal() read Arabic-Indic
digits ('١٠' is 10), and its parser folds identifiers to NFKC ('𝐑' is the name 'R'),
so a reader that leans on them accepts look-alikes; byte 0xFF never occurs in UTF-8,
and 0xE9 is 'é' in Latin-1; 1e-310 and 5e-324 are subnormal doubles (below 2.2e-308);
(R+L+C)**64 multiplied out has C(66, 2) = 2145 terms; ((R+1)**64)**64 has degree 4096.
"""

import ast
import json
import math
import warnings
from decimal import Decimal
from pathlib import Path

import pytest

import vecnet as vn
from vecnet.builders.network import connectivity_problems
from vecnet.errors import VecnetWarning
from vecnet.io import expressions
from vecnet.io.model_writer import model_to_dict

BAD = Path(__file__).parent / "data" / "bad_models"
EXAMPLES = Path(__file__).parent.parent / "examples" / "models"


def test_the_python_facts_that_make_strictness_necessary():
    assert float("\u0661\u0660") == 10.0 and int("\u0663") == 3
    assert Decimal("\u0661\u0660") == 10
    assert ast.parse("\U0001d411", mode="eval").body.id == "R"
    assert 0 < 1e-310 < 2.2250738585072014e-308 and 5e-324 > 0
    assert math.comb(3 + 64 - 1, 64) == 2145


# -- netlists -------------------------------------------------------------------------------

RC = b"RC\nV1 in 0 1\nR1 in out 1k\nC1 out 0 1u\n"


def test_netlists_are_strict_utf8_unless_latin1_is_asked_for(tmp_path):
    path = tmp_path / "latin.cir"
    path.write_bytes(RC.replace(b"RC", b"caf\xe9") + b"* r\xe9sum\xe9\n")
    with pytest.raises(vn.ModelFileError, match="not UTF-8") as info:
        vn.load_netlist(path)
    assert info.value.location == "netlist line 1"
    assert vn.load_netlist(path, encoding="latin-1").name == "café"
    assert vn.load_netlist(path, encoding="ISO-8859-1").name == "café"
    path.write_bytes(b"\xef\xbb\xbf" + RC)                      # a UTF-8 byte order mark
    assert vn.load_netlist(path).name == "RC"
    path.write_bytes(RC + b"R2 out 0 1k \xff\n")
    with pytest.raises(vn.ModelFileError, match="not UTF-8") as info:
        vn.load_netlist(path)
    assert info.value.location == "netlist line 5"
    with pytest.raises(vn.ModelFileError, match="'utf-8' or 'latin-1'"):
        vn.load_netlist(path, encoding="cp1252")


@pytest.mark.parametrize("value", ["\u0661\u0660k", "1\u0660", "\uff11k", "\u0967e3"])
def test_netlist_numbers_are_ascii_digits_only(value):
    with pytest.raises(vn.ModelFileError, match=r"not a number") as info:
        vn.load_netlist(f"t\nV1 a 0 1\nR1 a 0 {value}\n")
    assert info.value.location == "netlist line 3" and str(info.value).isascii()


@pytest.mark.parametrize("value, why", [("nan", "not a number"), ("inf", "not a number"),
                                        ("1e-310", "subnormal"), ("1e999", "out of range"),
                                        ("0", "short circuit"), ("-1k", "not physical")])
def test_netlist_values_are_finite_normal_and_physical(value, why):
    with pytest.raises(vn.ModelFileError, match=why) as info:
        vn.load_netlist(f"t\nV1 a 0 1\nR1 a 0 {value}\n")
    assert info.value.location == "netlist line 3"


def test_netlist_sources_may_be_zero_or_negative():
    net = vn.load_netlist("t\nV1 a 0 -5\nI1 a 0 0\nR1 a 0 1k\n")
    assert net.element("V1").parameters["V"].value == -5.0


# -- model files ----------------------------------------------------------------------------

def rc(c=1e-6, r=1e3, parameters=None, **capacitor):
    doc = {"vecnet": "1", "kind": "network",
           "elements": [{"type": "VoltageSource", "name": "Vs", "nodes": ["g", "a"],
                         "parameters": {"V": 1.0}},
                        {"type": "Resistor", "name": "R1", "nodes": ["a", "b"],
                         "parameters": {"R": r}},
                        {"type": "Capacitor", "name": "C1", "nodes": ["g", "b"],
                         "parameters": {"C": c}, **capacitor}]}
    if parameters is not None:
        doc["parameters"] = parameters
    return doc


@pytest.mark.parametrize("value, where, why", [
    (float("nan"), "/elements/2/parameters/C", "NaN"),
    (float("inf"), "/elements/2/parameters/C", "infinite"),
    (1e-310, "/elements/2/parameters/C", "subnormal"),
    (-1e-6, "/elements/2/parameters/C", "not physical"),
    (0.0, "/elements/2/parameters/C", "open circuit"),
    ("\U0001d411", "/elements/2/parameters/C", "look-alike of 'R'"),
    ("2*\u0663", "/elements/2/parameters/C", "ASCII digits"),
    ("1e-310", "/elements/2/parameters/C", "out of the range"),
])
def test_model_values_are_refused_at_their_pointer(value, where, why):
    with pytest.raises(vn.ModelFileError, match=why) as info:
        vn.load_model(rc(c=value, parameters={"R": 1.0}))
    assert info.value.location == where


def test_subnormal_numbers_anywhere_and_lone_surrogates_anywhere():
    doc = rc()
    doc["simulation"] = {"t_span": [0, 5e-324]}
    with pytest.raises(vn.ModelFileError, match="subnormal") as info:
        vn.load_model(doc)
    assert info.value.location == "/simulation/t_span/1"
    doc = rc()
    doc["description"] = "x\ud800"
    with pytest.raises(vn.ModelFileError, match="lone surrogate") as info:
        vn.load_model(doc)
    assert info.value.location == "/description"
    assert str(info.value).encode("utf-8")                   # the message itself encodes


def test_json_numbers_in_other_digits_are_refused(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(rc()).replace("1000.0", "\u0661\u0660\u0660\u0660"), "utf-8")
    with pytest.raises(vn.ModelFileError):
        vn.load_model(path)


def test_parameter_values_are_checked_where_they_are_used():
    with pytest.raises(vn.ModelFileError, match="not physical.*under \"parameters\"") as info:
        vn.load_model(rc(c="Cx", parameters={"Cx": -1e-6}))
    assert info.value.location == "/elements/2/parameters/C"
    with pytest.raises(vn.ModelFileError, match="short circuit") as info:
        vn.load_model(rc(r="R0 - R0", parameters={"R0": 5.0}))
    assert info.value.location == "/elements/1/parameters/R"
    vn.load_model(rc(c="Cx", parameters={"Cx": None}))      # no value yet: nothing to check
    vn.load_model(rc(c="-Cx", parameters={"Cx": -1e-6}))     # -(-1e-6) is positive


def test_allow_negative_in_model_files_and_its_round_trip(tmp_path):
    model = vn.load_model(rc(c=-1e-6, allow_negative=True))
    assert model.system.element("C1").parameters["C"].value == -1e-6
    doc = model_to_dict(model)
    assert doc["elements"][2]["allow_negative"] is True
    assert vn.load_model(doc).system.element("C1").allow_negative
    with pytest.raises(vn.ModelFileError, match="open circuit"):
        vn.load_model(rc(c=0.0, allow_negative=True))       # zero is never a value
    doc = rc()
    doc["elements"][0]["allow_negative"] = True              # a source: nothing to allow
    with pytest.raises(vn.ModelFileError) as info:
        vn.load_model(doc)
    assert info.value.location == "/elements/0/allow_negative"


# -- the Python API -------------------------------------------------------------------------

POSITIVE = {  # element class -> (parameter, what zero means)
    vn.Resistor: ("R", "short circuit"), vn.Capacitor: ("C", "open circuit"),
    vn.Inductor: ("L", "short circuit"), vn.Mass: ("m", "open circuit"),
    vn.Spring: ("k", "transmits no force"), vn.Damper: ("b", "open circuit"),
    vn.Inertia: ("J", "open circuit"), vn.TorsionSpring: ("k", "transmits no force"),
    vn.RotaryDamper: ("b", "open circuit"), vn.FluidCapacitance: ("C", "open circuit"),
    vn.FluidInertance: ("I", "short circuit"), vn.FluidResistance: ("R", "short circuit"),
    vn.ThermalCapacitance: ("C", "open circuit"), vn.ThermalResistance: ("R", "short circuit"),
}


@pytest.mark.parametrize("cls", POSITIVE, ids=[c.__name__ for c in POSITIVE])
def test_stores_and_losses_must_be_positive_unless_allowed(cls):
    pname, zero = POSITIVE[cls]
    assert cls.positive == {pname: cls.positive[pname]}
    cls("x", "a", "b", **{pname: 2.0})
    with pytest.raises(vn.ModelError, match=f"{pname} = -2 is not physical.*allow_negative"):
        cls("x", "a", "b", **{pname: -2.0})
    assert cls("x", "a", "b", allow_negative=True, **{pname: -2.0}).values
    for allow in (False, True):
        with pytest.raises(vn.ModelError, match=zero):
            cls("x", "a", "b", allow_negative=allow, **{pname: 0})
    cls("x", "a", "b", **{pname: vn.Symbol("p")})            # a symbol: no value to check


@pytest.mark.parametrize("value, why", [(float("nan"), "NaN"), (float("-inf"), "infinite"),
                                        (-1e-310, "subnormal")])
def test_every_number_is_finite_and_normal(value, why):
    for make in (lambda v: vn.VoltageSource("V", "a", "b", V=v),
                 lambda v: vn.GearPair("G", "a", "b", "c", "d", N=v),
                 lambda v: vn.Capacitor("C", "a", "b", C=v, allow_negative=True)):
        with pytest.raises(vn.ModelError, match=why):
            make(value)


def test_sources_and_ratios_take_any_sign_and_refuse_allow_negative():
    vn.VoltageSource("V", "a", "b", V=-1.0)
    vn.GearPair("G", "a", "b", "c", "d", N=-2.0)             # an external gear reverses
    for make in (lambda: vn.VoltageSource("V", "a", "b", V=1.0, allow_negative=True),
                 lambda: vn.GearPair("G", "a", "b", "c", "d", N=2.0, allow_negative=True)):
        with pytest.raises(vn.ModelError, match="allow_negative does not apply"):
            make()


def test_mechanism_values():
    mech = vn.planar.Mechanism("m")
    with pytest.raises(vn.ModelError, match="mass -1 must be zero or more"):
        mech.body("b0", mass=-1.0, inertia=1.0)
    with pytest.raises(vn.ModelError, match="inertia -1 must be zero or more"):
        mech.body("b1", mass=1.0, inertia=-1.0)
    bob = mech.body("bob", mass=1.0, inertia=0.0, position=(1.0, 0.0))
    with pytest.raises(vn.ModelError, match="k = -3 is not physical"):
        mech.spring("s", mech.ground.point(0, 0), bob.centre, k=-3.0)
    with pytest.raises(vn.ModelError, match="c = -1 is not physical"):
        mech.damper("d", mech.ground.point(0, 0), bob.centre, c=-1.0)
    mech.rotary_spring("r", mech.ground, bob, k=0.0, c=0.0)


# -- floating parts and dangling nodes ------------------------------------------------------

def warned(load) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load()
    return [str(w.message) for w in caught if issubclass(w.category, VecnetWarning)]


def test_a_part_cut_off_from_every_source_is_named():
    doc = rc()
    doc["elements"] += [{"type": "Capacitor", "name": "Cf", "nodes": ["x", "y"],
                         "parameters": {"C": 1.0}},
                        {"type": "Inductor", "name": "Lf", "nodes": ["y", "x"],
                         "parameters": {"L": 1.0}}]
    (message,) = warned(lambda: vn.load_model(doc))
    assert "'x', 'y'" in message and "'Cf', 'Lf'" in message and "no source" in message


def test_a_dangling_node_is_named():
    messages = warned(lambda: vn.load_netlist("t\nV1 a 0 1\nR1 a 0 1k\nR2 a open 1k\n"))
    assert len(messages) == 1 and "'open'" in messages[0] and "'R2'" in messages[0]


def test_parts_joined_through_a_transducer_or_each_driven_are_not_warned():
    net = vn.Network("motor")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
            vn.DCMotor("M", "ref", "w", "g", "b", K=0.1),
            vn.Inertia("J", "ref", "w", J=0.01), vn.RotaryDamper("B", "ref", "w", b=0.1))
    assert connectivity_problems(net) == []
    two = vn.load_netlist("t\nV1 a 0 1\nR1 a 0 1k\nV2 b c 1\nR2 b c 1k\n")
    assert connectivity_problems(two) == []


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.*")), ids=lambda p: p.name)
def test_the_bundled_models_load_without_warnings(path):
    load = (lambda: vn.load_netlist(path)) if path.suffix == ".cir" else lambda: vn.load_model(path)
    assert warned(load) == []


# -- expression bounds ----------------------------------------------------------------------

R, L, C = vn.Symbol("R"), vn.Symbol("L"), vn.Symbol("C")
NAMES = {"R": R, "L": L, "C": C}


@pytest.mark.parametrize("text, why", [
    ("(R+L+C)**64", "more than 1000 terms"),
    ("((R+1)**64)**64", "degree 4096"),
    ("((R+1)**16)**9", "degree 144"),
    ("(R+L)**40*(R+C)**40*(L+C)**40", "more than 1000 terms"),
    ("sin((R+L+C)**64)", "more than 1000 terms"),          # inside a call, bounded too
    ("1/(R+L+C+1)**30", "more than 1000 terms"),
])
def test_expressions_that_would_expand_without_end_are_refused_before_building(text, why):
    with pytest.raises(vn.ModelFileError, match=why) as info:
        vn.parse_expression(text, NAMES, "/x")
    assert info.value.location == "/x"


@pytest.mark.parametrize("text", ["(R+1)**64", "R**64*L**64", "(R+L+C)**10", "sqrt(R+L)**3",
                                  "(R+L)**0.5", "exp(-t/(R*C))*sin(2*pi*t)**2", "R**R"])
def test_expressions_within_the_bounds_are_read(text):
    vn.parse_expression(text, NAMES, "/x")


def test_the_limits_are_module_constants():
    assert (expressions.MAX_DEGREE, expressions.MAX_TERMS) == (128, 1000)


# -- the corpus: the hostile cases and the words of their messages --------------------------

MESSAGES = {
    "name_script.json": "'<' is not a letter",
    "name_img_onerror.json": "'<' is not a letter",
    "name_bold_r.json": "look-alike of 'R'",
    "name_too_long.json": "longer than 64",
    "node_markup.json": "node '<b>a</b>' is not allowed",
    "lone_surrogate.json": "lone surrogate",
    "negative_capacitance.json": "C = -1e-06 is not physical",
    "negative_parameter_value.json": "C = -1e-06 is not physical",
    "zero_capacitance.json": "open circuit",
    "zero_resistance.json": "short circuit",
    "zero_parameter_value.json": "short circuit",
    "negative_with_allow_negative_zero.json": "open circuit",
    "allow_negative_on_source.json": "takes no 'allow_negative'",
    "subnormal_capacitance.json": "subnormal",
    "inf_parameter.json": "out of range",
    "expression_terms.json": "more than 1000 terms",
    "expression_degree.json": "degree 4096",
    "expression_bold_name.json": "look-alike of 'R'",
    "expression_arabic_digits.json": "ASCII digits",
    "mech_joint_markup.json": "'<' is not a letter",
    "mech_point_name.json": "point name",
    "svg_card.cir": "element name 'R<svg/onload=alert' is not allowed",
    "bold_name.cir": "look-alike of 'R1'",
    "node_markup.cir": "node '<b>' is not allowed",
    "arabic_digits.cir": "ASCII digits",
    "undecodable.cir": "not UTF-8",
    "nan_value.cir": "not a number",
    "subnormal.cir": "subnormal",
    "zero_resistance.cir": "short circuit",
    "negative_capacitance.cir": "not physical",
}


@pytest.mark.parametrize("name", MESSAGES)
def test_hostile_corpus_messages(name):
    path = BAD / name
    with pytest.raises(vn.ModelFileError) as info:
        vn.load_netlist(path) if path.suffix == ".cir" else vn.load_model(path)
    assert MESSAGES[name] in str(info.value)
    assert str(info.value).encode("utf-8")                   # printable as UTF-8


def test_sympy_numbers_and_huge_integers_are_checked_like_floats():
    import sympy
    with pytest.raises(vn.ModelError, match="not physical"):
        vn.Capacitor("C1", "a", "b", C=sympy.Float(-1.0))
    with pytest.raises(vn.ModelError, match="short circuit"):
        vn.Resistor("R1", "a", "b", R=sympy.Integer(0))
    with pytest.raises(vn.ModelError, match="out of the range"):
        vn.Resistor("R1", "a", "b", R=10**400)
    with pytest.raises(vn.ModelFileError, match="out of the range") as info:
        vn.load_model(rc(r=10**400))
    assert info.value.location == "/elements/1/parameters/R"


def test_signal_block_names_follow_the_policy():
    with pytest.raises(vn.ModelError, match="block name"):
        vn.Gain("g<x>", vn.Symbol("e"), 2)


def test_mechanism_files_check_stiffness_bound_to_parameters():
    doc = json.loads((EXAMPLES / "pendulum.json").read_text())
    doc["parameters"]["k"] = -3.0
    with pytest.raises(vn.ModelFileError, match="zero or more") as info:
        vn.load_model(doc)
    assert info.value.location == "/forces/0/k"


@pytest.mark.parametrize("example, output", [("rlc.json", "C1.across"),
                                             ("pendulum.json", "pin.angle")])
def test_an_output_listed_twice_is_refused_at_its_second_entry(tmp_path, example, output):
    """Each listed output is computed, drawn and written: a list repeating one name a
    thousand times cost a report a minute; the second mention is refused where it is."""
    doc = json.loads((Path(__file__).parent.parent / "examples" / "models" / example)
                     .read_text())
    doc["outputs"] = [output, output]
    path = tmp_path / example
    path.write_text(json.dumps(doc))
    with pytest.raises(vn.ModelFileError, match=r"/outputs/1: output .* is listed already "
                                                r"\(at /outputs/0\)"):
        vn.load_model(path)


def test_an_unknown_output_is_told_with_examples_of_the_model_s_own_names(tmp_path):
    """The examples of valid names are the model's (never the name refused), and a near
    miss is suggested."""
    doc = json.loads((Path(__file__).parent.parent / "examples" / "models" / "pendulum.json")
                     .read_text())
    for output, words in (("P1.reaction", "('bob.x', 'pin.reaction')"),
                          ("pni.angle", "did you mean 'pin'?")):
        doc["outputs"] = [output]
        path = tmp_path / "pendulum.json"
        path.write_text(json.dumps(doc))
        with pytest.raises(vn.ModelFileError) as info:
            vn.load_model(path)
        assert words in str(info.value) and "'P1.reaction')" not in str(info.value)
