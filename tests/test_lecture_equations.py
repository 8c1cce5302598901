"""The equations a lecturer writes: ``M(q) u' = Q`` in reports and ``vn.latex``.

The pendulum, the four-bar and the spinning top of ``examples/models`` show their mass
matrix and generalized forces typeset, tidied (the top's, in body-axis speeds, are Euler's),
before the recursive Newton–Euler form. Facts from outside the code: a pendulum's mass
matrix is its moment of inertia about the pin, ``J + m l^2`` (Steiner); a mass matrix is
symmetric and positive definite. The typesetting facts: no plain-text formulas inside the
LaTeX (every formula typeset, words as words), no row wider than a page's column (LaTeX does
not wrap a row), a user's symbol never reads as one of the formulations' matrices, and one
typeface rule for names.
"""

import re
from html import unescape
from pathlib import Path

import numpy as np
import pytest
import sympy

import vecnet as vn
from vecnet.output import teaching
from vecnet.output.html_pieces import FORMULA_WIDTH
from vecnet.output.pagefit import tex_width
from vecnet.output.teaching import mechanism_latex
from vecnet.output.tidy import quaternions_of, tidy_all

MODELS = Path(__file__).parent.parent / "examples" / "models"


def formulas(page: str) -> list[str]:
    """The LaTeX of a report page's typeset formulas."""
    return [unescape(t) for t in re.findall(r'<pre class="tex">(.*?)</pre>', page, re.S)]


@pytest.fixture(scope="module")
def reports() -> dict[str, str]:
    return {name: vn.report(vn.load_model(MODELS / f"{name}.json"), simulate=False)
            for name in ("pendulum", "fourbar", "top", "motor_pump")}


def equations_of_motion(page: str) -> str:
    """The formula of a mechanism report's section on the equations of motion."""
    section = re.search(r"<h2>Equations of motion</h2>(.*?)</section>", page, re.S).group(1)
    return "\n".join(formulas(section))


# -- M and Q in the reports ---------------------------------------------------------------
def test_the_pendulum_report_shows_its_moment_of_inertia_about_the_pin(reports):
    model = vn.load_model(MODELS / "pendulum.json")
    J, m = vn.Symbol("J"), vn.Symbol("m")
    length = model.parameters["l"]
    # Steiner: the inertia about the pin is the inertia about the centre plus m l^2
    steiner = J + m * sympy.Float(length) ** 2
    tex = equations_of_motion(reports["pendulum"])
    assert rf"\mathbf{{M}} &= \begin{{bmatrix}}{vn.latex(steiner)}\end{{bmatrix}}" in tex
    assert r"\mathbf{Q} &= \begin{bmatrix}" in tex
    # M and Q first, the recursive form after them
    assert tex.index(r"\mathbf{M} &=") < tex.index("recursive Newton-Euler form")


def test_the_four_bar_report_shows_a_symmetric_positive_definite_mass_matrix(reports):
    eom = vn.load_model(MODELS / "fourbar.json").formulate()
    # the entries as the page tidies them (vecnet.output.tidy), each on the page
    M = sympy.Matrix(3, 3, tidy_all(list(eom.M), quaternions_of(eom), eom.u)[0])
    tex = equations_of_motion(reports["fourbar"])
    for i in range(3):
        for j in range(i, 3):
            if M[i, j] != 0:
                assert rf"\mathbf{{M}}_{{{i + 1},{j + 1}}} &= {mechanism_latex(eom, M[i, j])}" \
                    in tex
    # the entries shown: M on and above its diagonal, Q, and the loop's constraints
    for i in range(3):
        for j in range(i, 3):
            assert rf"\mathbf{{M}}_{{{i + 1},{j + 1}}} &= " in tex
        assert rf"\mathbf{{Q}}_{{{i + 1}}} &= " in tex
    assert r"\mathbf{M}(q)\,\dot{u} = \mathbf{Q}(q, u, t) + \boldsymbol{\Phi}_u^{\mathsf{T}} " \
        r"\lambda" in tex
    assert r"\Phi_{\mathrm{P4.x}} &= " in tex
    # the tidied M the page shows is M: symmetric and positive definite at a sample pose
    rng = np.random.default_rng(11)
    for _ in range(3):
        point = dict(zip(eom.q, rng.uniform(-np.pi, np.pi, size=3)))
        shown = np.array(M.xreplace(point).evalf(), dtype=float)
        exact = np.array(eom.M.xreplace(point).evalf(), dtype=float)
        assert np.allclose(shown, exact, rtol=1e-12, atol=1e-12)
        assert np.allclose(shown, shown.T) and np.all(np.linalg.eigvalsh(shown) > 0)


def test_the_top_report_shows_eulers_equations(reports):
    tex = equations_of_motion(reports["top"])
    # body-axis speeds (the file's "speeds": "body"): the mass matrix is the constant
    # diag(I1, I2, I3) about the tip, I1 = I2 = Jt + m s^2 with s = 0.2
    assert (r"\mathbf{M} &= \begin{bmatrix}\mathrm{Jt} + 0.04 m & 0 & 0 \\ 0 & \mathrm{Jt} "
            r"+ 0.04 m & 0 \\ 0 & 0 & J_{3}\end{bmatrix}") in tex
    # Q: the gyroscopic terms (I2 - I3) w2 w3 and (I3 - I1) w3 w1, and the weight's moment
    q = re.search(r"\\mathbf\{Q\} &= \\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", tex, re.S)
    rows = q.group(1).split(r" \\ ")
    assert r"\omega_{\mathrm{tip},2} \omega_{\mathrm{tip},3}" in rows[0]
    assert r"\omega_{\mathrm{tip},1} \omega_{\mathrm{tip},3}" in rows[1]
    assert rows[2].strip() == "0"                                   # J3 w3' = 0


def test_the_world_axis_top_says_why_m_and_q_are_left_out():
    eom = vn.load_model(MODELS / "top.json").system.formulate()
    listing = vn.text(eom)
    assert "M (3 x 3) and the generalized forces Q are left out" in listing
    assert "speeds='body' shortens them" in listing
    assert r"\texttt{speeds='body'}" in vn.latex(eom)


def test_m_and_q_are_built_only_within_the_bounds(monkeypatch):
    monkeypatch.setattr(teaching, "PAGE_MASS_ENTRIES", 5)
    eom = vn.load_model(MODELS / "fourbar.json").formulate()
    listing = vn.text(eom)
    assert "3 speeds whose mass matrix has more than 5 entries that can be nonzero" in listing
    assert "M" not in eom.__dict__ and "Q" not in eom.__dict__      # never built


# -- every formula typeset ---------------------------------------------------------------
def outputs():
    """LaTeX of every kind of listing for the examples."""
    pendulum, fourbar = (vn.load_model(MODELS / f"{n}.json") for n in ("pendulum", "fourbar"))
    top = vn.load_model(MODELS / "top.json")
    pump, rlc = (vn.load_model(MODELS / f"{n}.json") for n in ("motor_pump", "rlc"))
    ss = pump.state_space()
    out = {"pendulum": vn.latex(pendulum.formulate()),
           "four-bar": vn.latex(fourbar.formulate()),
           "four-bar, absolute": vn.latex(fourbar.system.formulate("absolute")),
           "four-bar, full": vn.latex(fourbar.formulate(), matrix_form=True),
           "four-bar, summary": vn.latex(fourbar.formulate(), summary=True),
           "top, body axes": vn.latex(top.formulate()),
           "top, world axes": vn.latex(top.system.formulate()),
           "motor-pump equations": vn.latex(pump.system.equations()),
           "motor-pump state space": vn.latex(ss),
           "RLC sparse": vn.latex(rlc.system.sparse_state_space(
               outputs=rlc.outputs, parameters=rlc.element_values)),
           "transfer functions": teaching.transfer_functions(ss, "latex", values=pump.values)}
    return out


@pytest.fixture(scope="module")
def listings() -> dict[str, str]:
    return outputs()


#: what formulas look like when written as text: an equals sign, a power or transpose,
#: Greek letters spelled out, a cross product, a rate with a prime
PSEUDO_MATH = re.compile(r"=|\^|\bPhi\b|\blambda\b|\bomega\b| x [a-z]\b|\b[a-zA-Z]'(?!s\b)")


def text_groups(tex: str) -> list[str]:
    """The contents of every ``\\text{...}`` and ``\\textbf{...}`` group."""
    out = []
    for match in re.finditer(r"\\text(?:bf)?\{", tex):
        depth, i = 1, match.end()
        while depth and i < len(tex):
            if tex[i] == "\\":
                i += 2
                continue
            depth += (tex[i] == "{") - (tex[i] == "}")
            i += 1
        out.append(tex[match.end():i - 1])
    return out


def test_no_plain_text_math_in_the_latex(listings):
    for which, tex in listings.items():
        for words in text_groups(tex):
            assert not PSEUDO_MATH.search(words), (which, words)
        for pattern in ("Phi_u^T", "w x d", "M u'", "x' = A x"):
            assert pattern not in tex, (which, pattern)


def test_no_latex_row_wider_than_a_page(listings):
    """Every typeset row (between line breaks ``\\\\``, a matrix's rows each one) fits a
    page's column, with a little room for the estimate's error."""
    for which, tex in listings.items():
        for row in tex.split(r"\\"):
            assert tex_width(row) <= FORMULA_WIDTH * 1.1, (which, row)


def test_a_users_symbol_is_not_a_matrix(listings):
    """The pump's displacement D and the feedthrough matrix D read differently."""
    tex = listings["motor-pump state space"]
    assert r"y = \mathbf{C} x + \mathbf{D} u" in tex
    assert r"\mathbf{D} = \begin{bmatrix}0 \\ 0 \\ 0 \\ 0\end{bmatrix}" in tex
    assert "D^{2}" in tex                                          # the user's D, italic
    assert not re.search(r"(?<!\\mathbf\{)\bD = ", tex)
    assert r"\mathbf{M}" in listings["pendulum"] and not re.search(
        r"(?<![\\{])\bM(\(q\))? &?= ", listings["pendulum"])


def test_one_typeface_for_names_in_the_motor_pump_report(reports):
    """A name of several characters is upright wherever it is a subscript, dotted (a
    port's) or not: T_{motor.m} as T_{\\mathrm{motor.m}}, like i_{\\mathrm{Vs}}."""
    tex = "\n".join(formulas(reports["motor_pump"]))
    assert r"T_{\mathrm{motor.m}}" in tex and r"i_{\mathrm{Vs}}" in tex
    assert r"Q_{\mathrm{pump.f}}" in tex
    italic = re.findall(r"_\{([A-Za-z][A-Za-z0-9.]+)\}", tex)
    assert italic == [], italic


# -- absolute coordinates: M is diagonal, and shown -----------------------------------------
def listed_matrices(listing: str) -> tuple[dict, dict]:
    """``M`` and ``Q`` as ``vn.text`` lists them entry by entry: {(row, column): text} and
    {row: text}."""
    M = {(a, b): v for a, b, v in
         re.findall(r"^\s*M\[([\w.]+), ([\w.]+)\] = (.+)$", listing, re.M)}
    Q = dict(re.findall(r"^\s*Q\[([\w.]+)\] = (.+)$", listing, re.M))
    return M, Q


def test_mcphees_four_bar_in_absolute_coordinates_shows_its_diagonal_m_and_its_weights(tmp_path):
    """In absolute coordinates every body's pose is its own: M = diag(m, m, J) body by body
    and Q holds the weights (0, -m g) and the crank's torque, read here from the model file
    itself; the nine speeds no longer hide them, in text, LaTeX, the report and the CLI."""
    import json

    from vecnet.cli import main

    document = json.loads((MODELS / "fourbar.json").read_text())
    g = -document["gravity"][1]
    expected_M, expected_Q = {}, {}
    for body in document["bodies"]:
        name, m, J = body["name"], body["mass"], sympy.Rational(str(body["inertia"]))
        for axis, entry in (("x", m), ("y", m), ("angle", J)):
            expected_M[f"{name}.{axis}", f"{name}.{axis}"] = entry
        expected_Q.update({f"{name}.x": 0, f"{name}.y": -m * g, f"{name}.angle": 0})
    t, T0 = sympy.symbols("t T0")
    expected_Q["crank.angle"] = T0 * sympy.sin(2 * sympy.pi * t)

    eom = vn.load_model(MODELS / "fourbar.json").system.formulate(coordinates="absolute")
    assert len(teaching.mass_matrix_pattern(eom)) == 3 * 6      # a 3 x 3 block per body
    listing = vn.text(eom, digits=None)
    assert "left out" not in listing
    M, Q = listed_matrices(listing)
    assert M.keys() == expected_M.keys()                     # nothing off the diagonal
    for key, value in expected_M.items():
        assert float(sympy.sympify(M[key])) == pytest.approx(float(value), rel=1e-15)
    at = {"t": 0.3, "T0": 20.0}                               # Q's symbols, by name
    assert Q.keys() == expected_Q.keys()
    for key, value in expected_Q.items():
        value, shown = (sympy.sympify(v).subs({x: at[x.name] for x in sympy.sympify(v).free_symbols})
                        for v in (value, Q[key]))
        assert float(shown) == pytest.approx(float(value), rel=1e-12, abs=1e-12), key
    assert r"\mathbf{M}_{9,9} &= 0.2562" in vn.latex(eom)

    out = tmp_path / "absolute.html"
    assert main(["report", str(MODELS / "fourbar.json"), "--tree", "absolute", "-o", str(out)]) == 0
    page = out.read_text()
    assert r"\mathbf{M}_{9,9} &amp;= 0.2562" in page and "are left out" not in page
    printed = tmp_path / "equations.txt"
    assert main(["equations", str(MODELS / "fourbar.json"), "--tree", "absolute",
                 "-o", str(printed)]) == 0
    assert listed_matrices(printed.read_text())[0].keys() == expected_M.keys()


def hanging_chain(n: int):
    mech = vn.planar.Mechanism(f"{n}-link chain", gravity=(0, -9.81))
    end = mech.ground.point(0, 0)
    for i in range(1, n + 1):
        link = mech.body(f"link{i}", mass=1.0, inertia=0.02, position=(0, -0.5 * (i - 0.5)),
                         angle=-np.pi / 2)
        mech.revolute(f"J{i}", end, link.point(-0.25, 0))
        end = link.point(0.25, 0)
    return mech


def test_a_long_chain_in_joint_coordinates_is_dense_and_listed_in_full_on_request(tmp_path):
    """A chain's joint coordinates couple every body to every joint above it: its M is
    dense, n (n + 1) / 2 entries on and above the diagonal; ten links are more than a page,
    and matrix_form=True (the CLI's --matrix-form) lists every entry anyway."""
    from vecnet.cli import main

    eom = hanging_chain(10).formulate()
    assert len(teaching.mass_matrix_pattern(eom)) == 55
    assert "more than 45 entries that can be nonzero" in vn.text(eom)
    assert "M" not in eom.__dict__                                   # never built
    M, Q = listed_matrices(vn.text(eom, matrix_form=True))
    assert len(M) == 55 and len(Q) == 10       # every entry couples: none is zero
    model = tmp_path / "chain.json"
    vn.save_model(hanging_chain(10), model)
    out = tmp_path / "chain.txt"
    assert main(["equations", str(model), "--matrix-form", "-o", str(out)]) == 0
    assert len(listed_matrices(out.read_text())[0]) == 55
    assert main(["equations", str(model), "--no-matrix-form", "-o", str(out)]) == 0
    assert "matrix_form=False" in out.read_text()
