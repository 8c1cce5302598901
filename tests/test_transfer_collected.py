"""Transfer functions come out as a ratio of polynomials in s, each power of s once, from
Python as from ``vecnet equations --transfer-function``.

Fact from outside the code: a source V drives R1 and L in series into C parallel to R2;
by the voltage divider with Z = R2 / (1 + s C R2),
v_C / V = R2 / (C L R2 s^2 + (L + C R1 R2) s + R1 + R2).
"""

import json

import sympy

import vecnet as vn
from vecnet.cli import main
from vecnet.formulation.lumped import collected_in_s, s

R1, R2, L, C = sympy.symbols("R1 R2 L C", real=True)
HAND = R2 / (C * L * R2 * s**2 + (L + C * R1 * R2) * s + R1 + R2)


def network() -> vn.Network:
    net = vn.Network("rlc")
    net.add(vn.VoltageSource("V", "g", "a", V=vn.Symbol("V")),
            vn.Resistor("R1", "a", "b", R=vn.Symbol("R1")),
            vn.Inductor("L1", "b", "c", L=vn.Symbol("L")),
            vn.Capacitor("C1", "g", "c", C=vn.Symbol("C")),
            vn.Resistor("R2", "c", "g", R=vn.Symbol("R2")))
    return net


def degrees(polynomial: sympy.Expr) -> list[int]:
    """The degree in s of each term of ``polynomial`` as it stands."""
    return [sympy.degree(term, s) for term in sympy.Add.make_args(polynomial)]


def is_collected(H: sympy.Expr) -> bool:
    """Numerator and denominator polynomials in s, with one term per power of s (the
    terms free of s are the constant coefficient, which a sum flattens into its own)."""
    top, bottom = sympy.fraction(H)
    for part in (top, bottom):
        if not part.is_polynomial(s):
            return False
        found = [d for d in degrees(part) if d > 0]
        if len(found) != len(set(found)):
            return False
    return True


def test_the_transfer_function_from_python_is_collected_in_powers_of_s():
    H = network().state_space(outputs=["C1.across"]).transfer_function()[0, 0]
    assert sympy.simplify(H - HAND) == 0
    assert is_collected(H)
    # the first power of s carries its whole coefficient, as derived by hand
    bottom = sympy.fraction(H)[1]
    terms = [t for t in sympy.Add.make_args(bottom) if sympy.degree(t, s) == 1]
    assert len(terms) == 1 and sympy.expand(terms[0] / s - (L + C * R1 * R2)) == 0


def test_numbers_and_the_sympy_control_form_keep_the_collected_function():
    ss = network().state_space(outputs=["C1.across", "L1.through"])
    values = {R1: 2, R2: 3, L: sympy.Rational(1, 2), C: sympy.Rational(1, 4)}
    H = ss.subs(values).transfer_function()
    assert all(is_collected(h) for h in H)
    assert sympy.simplify(H[0, 0] - HAND.subs(values)) == 0
    tf = ss.subs(values).with_outputs(["C1.across"]).transfer_function(control="sympy")
    assert sympy.simplify(tf.to_expr() - HAND.subs(values)) == 0


def test_the_command_line_prints_the_same_function_as_python(tmp_path, capsys):
    doc = {"vecnet": "1", "kind": "network", "name": "rlc2",
           "parameters": {"R1": None, "R2": None, "L": None, "C": None},
           "elements": [
               {"type": "VoltageSource", "name": "V", "nodes": ["g", "a"],
                "parameters": {"V": 1.0}},
               {"type": "Resistor", "name": "R1", "nodes": ["a", "b"], "parameters": {"R": "R1"}},
               {"type": "Inductor", "name": "L1", "nodes": ["b", "c"], "parameters": {"L": "L"}},
               {"type": "Capacitor", "name": "C1", "nodes": ["g", "c"],
                "parameters": {"C": "C"}},
               {"type": "Resistor", "name": "R2", "nodes": ["c", "g"], "parameters": {"R": "R2"}}],
           "outputs": ["C1.across"]}
    path = tmp_path / "rlc2.json"
    path.write_text(json.dumps(doc))
    assert main(["equations", str(path), "--transfer-function"]) == 0
    printed = [line.split(" = ", 1)[1] for line in capsys.readouterr().out.splitlines()
               if line.strip().startswith("C1.across/V.across = ")]
    model = vn.load_model(path)
    H = model.system.state_space(outputs=["C1.across"]).transfer_function()[0, 0]
    assert printed == [vn.text(H)]        # the same printer: descending powers of s
    assert sympy.simplify(H - HAND) == 0 and is_collected(H)


def test_collected_in_s_leaves_what_is_no_ratio_of_polynomials():
    assert collected_in_s(sympy.exp(-s) / (s + 1)) == sympy.exp(-s) / (s + 1)
    assert collected_in_s(R1) == R1
    assert is_collected(collected_in_s((R1 * s + R2 * s + 1) / (L * s**2 + C * s**2 + s)))
