"""The name policy of vecnet.core.names, applied alike by the Python API and the readers.

Facts from outside the code: Unicode's NFKC normalisation folds mathematical bold 𝐑
(U+1D411), full-width Ｒ (U+FF32), the ligature ﬁ (U+FB01) and superscript ² into
plain characters, so those names are look-alikes; Greek θ and accented é (precomposed,
U+00E9) are NFKC-normal letters; Arabic-Indic ٣ (U+0663) is a decimal digit that is
not ASCII; U+D800 is a lone surrogate, no character at all.
"""

import json
import re
import unicodedata

import pytest

import vecnet as vn
from vecnet.core.names import MAX_NAME_LENGTH, check_name, check_node, name_problem

ACCEPTED = ["R1", "C_load", "_x", "n001", "0", "9a", "θ", "ωn", "é", "Ω2", "x" * MAX_NAME_LENGTH]
REFUSED = {
    "": "empty",
    "x" * (MAX_NAME_LENGTH + 1): "longer than 64",
    "R.1": "'.' is not part of a name",
    "a-b": "not a letter",
    "a b": "not a letter",
    "<script>": "not a letter",
    "R<svg/onload=alert(1)>": "not a letter",
    "x'": "not a letter",
    "x\n": "not a letter",
    "x\x00": "not a letter",
    "\U0001d411": "look-alike of 'R'",         # mathematical bold R
    "\uff32": "look-alike of 'R'",             # full-width R
    "\ufb01le": "look-alike of 'file'",        # ligature fi
    "x\u00b2": "not a letter",                 # superscript two (category No: not a letter)
    "e\u0301": "not a letter",                 # e + combining acute: a mark, not a letter
    "R\u0663": "not an ASCII digit",           # Arabic-Indic three
    "R\ud800": "lone surrogate",
    "\u200bR": "not a letter",                 # zero-width space
    "R\u202e": "not a letter",                 # right-to-left override
}


def test_the_unicode_facts_the_table_relies_on():
    assert unicodedata.normalize("NFKC", "\U0001d411") == "R"
    assert unicodedata.normalize("NFKC", "\ufb01le") == "file"
    assert unicodedata.normalize("NFKC", "θé") == "θé"
    assert unicodedata.category("\u0663") == "Nd" and int("\u0663") == 3  # int() takes it


@pytest.mark.parametrize("name", ACCEPTED)
def test_accepted_names(name):
    assert name_problem(name) is None
    assert check_name(name, "element name") == name
    vn.Resistor(name, "a", "b", R=1.0)                        # the Python API takes it too


@pytest.mark.parametrize("name, why", REFUSED.items(), ids=[ascii(n)[:20] for n in REFUSED])
def test_refused_names_say_why_and_show_the_name_safely(name, why):
    problem = name_problem(name)
    assert problem is not None and (why in problem or why.split("'")[0] in problem), problem
    with pytest.raises(vn.ModelError) as info:
        vn.Resistor(name, "a", "b", R=1.0)
    message = str(info.value)
    assert message.isascii() and "\n" not in message        # printable anywhere, one line
    assert "letters, ASCII digits and '_'" in message       # says what is allowed
    with pytest.raises(vn.ModelFileError) as info:
        check_name(name, "element name", "/elements/0/name")
    assert info.value.location == "/elements/0/name"


def test_look_alikes_are_refused_never_folded():
    net = vn.Network("n")
    net.add(vn.Resistor("R", "a", "b", R=1.0))
    with pytest.raises(vn.ModelError, match="look-alike of 'R'"):
        net.add(vn.Resistor("\U0001d411", "a", "b", R=1.0))
    assert [e.name for e in net.elements] == ["R"]


def test_nodes_are_names_dotted_names_or_small_non_negative_integers():
    for node in ("out", "0", "crank.p1", 0, 7, 10**15 - 1):
        assert check_node(node) == node
    for node, why in (("a.", "empty part"), ("<b>", "not a letter"), (-1, "0 or more"),
                      (10**15, "0 or more"), (1.5, "not float"), (("a", 1), "not tuple"),
                      (None, "not NoneType"), (True, "not bool")):
        with pytest.raises(vn.TopologyError, match=why):
            vn.LinearGraph([("x", node, "q")])


def test_edge_names_are_checked_by_the_graph():
    vn.LinearGraph([("T.1", "a", "b"), ("crank-p1", "b", "c")])   # port and arm separators
    for name in ("", "a b", "\U0001d411", "x.", ".x", 3):
        with pytest.raises(vn.TopologyError):
            vn.LinearGraph([(name, "a", "b")])


def test_mechanism_names_follow_the_policy():
    mech = vn.planar.Mechanism("m")
    bob = mech.body("θ_bob", mass=1.0, inertia=0.1, position=(0.0, -1.0))
    with pytest.raises(vn.ModelError, match="body name"):
        mech.body("bob<img>", mass=1.0, inertia=0.1)
    with pytest.raises(vn.ModelError, match="point name"):
        bob.point(1.0, 0.0, name="p\u2044")
    with pytest.raises(vn.ModelError, match="look-alike"):
        mech.revolute("\uff30", mech.ground.point(0, 0), bob.centre)
    joint = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1.0, 0.0, name="top"))
    assert joint.edges[0].head == "θ_bob.top"
    assert "θ_bob-top" in mech.network.graph                  # the arm vecnet made


def test_model_files_and_netlists_apply_the_same_policy():
    doc = {"vecnet": "1", "kind": "network",
           "elements": [{"type": "VoltageSource", "name": "V", "nodes": ["g", "a"],
                         "parameters": {"V": 1.0}},
                        {"type": "Resistor", "name": "\U0001d411", "nodes": ["a", "g"],
                         "parameters": {"R": 1.0}}]}
    with pytest.raises(vn.ModelFileError, match="look-alike of 'R'") as info:
        vn.load_model(doc)
    assert info.value.location == "/elements/1/name"
    with pytest.raises(vn.ModelFileError, match="look-alike of 'R1'") as info:
        vn.load_netlist("t\nV1 a 0 1\n\U0001d4111 a 0 1k\n")
    assert info.value.location == "netlist line 3"
    # and what is accepted in one is accepted in the other
    net = vn.load_netlist("t\nV1 in 0 1\nR_θ in n001 1k\nC1 n001 0 1u\n")
    assert [e.name for e in net.elements] == ["V1", "R_θ", "C1"]


# -- look-alikes: one name must never pass for another in the same model -----------------

@pytest.mark.parametrize("first, second", [
    ("P1", "\u04201"),          # Latin P, Cyrillic Er
    ("a", "\u0430"),            # Latin a, Cyrillic a
    ("o", "\u03bf"),            # Latin o, Greek omicron
    ("\u0430", "a"),            # the other way round
])
def test_names_that_look_alike_are_refused_naming_both(first, second):
    net = vn.Network("x")
    net.add(vn.Resistor(first, "n1", "n2", R=1.0))
    with pytest.raises(vn.TopologyError, match=f"looks like {re.escape(ascii(first))}"):
        net.add(vn.Resistor(second, "n1", "n2", R=1.0))
    with pytest.raises(vn.TopologyError,
                       match=f"node {re.escape(ascii(second + '_n'))} looks like"):
        net.add(vn.Resistor("R9", first + "_n", second + "_n", R=1.0))
    assert net.graph.edges == (first,)      # the refused elements left nothing behind


def test_names_of_other_scripts_that_look_like_nothing_else_are_kept():
    net = vn.Network("x")
    net.add(vn.Resistor("\u03b8", "a", "b", R=1.0), vn.Resistor("\u03c9_2", "a", "c", R=1.0),
            vn.Resistor("R0", "a", "b", R=1.0), vn.Resistor("RO", "a", "b", R=1.0),
            vn.Resistor("l1", "a", "b", R=1.0), vn.Resistor("ll", "a", "b", R=1.0))
    assert len(net.graph.edges) == 6        # ASCII names are never refused among themselves


def test_look_alikes_are_refused_in_model_files_and_netlists_at_their_place(tmp_path):
    doc = {"vecnet": "1", "kind": "network", "name": "d", "elements": [
        {"type": "VoltageSource", "name": "V", "nodes": ["g", "a"], "parameters": {"V": 1.0}},
        {"type": "Resistor", "name": "P1", "nodes": ["a", "g"], "parameters": {"R": 1.0}},
        {"type": "Resistor", "name": "\u04201", "nodes": ["a", "g"], "parameters": {"R": 1.0}}]}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(vn.ModelFileError, match="looks like 'P1'") as err:
        vn.load_model(path)
    assert err.value.location == "/elements/2"
    netlist = tmp_path / "n.cir"
    netlist.write_text("t\nV1 a 0 1\nR1 a 0 1k\nR2 \u0430 0 1k\n.end\n", encoding="utf-8")
    with pytest.raises(vn.ModelFileError, match="netlist line 4: .*looks like 'a'"):
        vn.load_netlist(netlist)


@pytest.mark.parametrize("source, value", [
    ("ForceSource", "F"), ("VelocitySource", "v"), ("TorqueSource", "T"),
    ("AngularVelocitySource", "w"), ("PressureSource", "P"), ("FlowSource", "Q"),
    ("HeatFlowSource", "q"), ("VoltageSource", "V"), ("CurrentSource", "I"),
    ("TemperatureSource", "T")])
def test_a_source_value_reads_apart_from_the_source_variable(source, value):
    # "Q_pump = -Q_pump" would say a flow equals its own negative
    element = getattr(vn, source)("drive", "0", "a", **{value: 2.0})
    (law,) = element.terminal_equations({e.name: vn.EdgeVariables.of(e) for e in element.edges})
    printed = vn.text(law)
    left, right = (side.strip().lstrip("-") for side in printed.split("="))
    assert left != right, printed
    assert element.parameters[value].symbol in law.rhs.free_symbols
