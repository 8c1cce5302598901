"""Large systems are shown as summaries: what is left out and why, sizes, names, first rows.

Facts from outside the code:

* an RC ladder of ``N`` sections (series ``R``, shunt ``C`` to the ground, a source ``V``
  at the start) has the node voltages as states, ``C v_k' = (v_{k-1} - 2 v_k + v_{k+1})/R``
  (the last node has one neighbour): ``A`` is tridiagonal with ``3N - 2`` nonzero entries,
  ``B`` has one (the first node's ``1/(RC)``), the incidence matrix two per edge;
* its graph has ``2N + 1`` edges, so ``2(2N + 1)`` cutset, circuit and terminal equations;
* a chain of ``n`` bodies on spherical joints in joint coordinates has a unit quaternion
  (four coordinates) and three angular speeds per joint;
* the four-bar of ``examples/models/fourbar.json`` has three bodies, four revolute joints,
  one torque driver and a cut joint closing its loop (two constraints in the plane).
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

import vecnet as vn
from vecnet.cli import main
from vecnet.output import teaching

MODELS = Path(__file__).parent.parent / "examples" / "models"
SECTIONS = 80       # 80 states, more than SUMMARY_STATES; 161 edges, 322 equations
R, C = 1e3, 1e-6    # 1/(RC) = 1000 per second


def ladder(sections: int = SECTIONS) -> str:
    lines = ["RC ladder", "V1 n0 0 1"]
    for k in range(1, sections + 1):
        lines += [f"R{k} n{k - 1} n{k} {R:g}", f"C{k} n{k} 0 {C:g}"]
    return "\n".join(lines) + "\n"


def chain(bodies: int) -> dict:
    """Rods of 0.5 m hanging on spherical joints, as a model file."""
    rods = [{"name": f"b{k}", "mass": 1.0, "inertia": [0.02, 0.02, 0.002],
             "position": [0, 0, -(k - 0.5) * 0.5],
             "points": {"top": [0, 0, 0.25], "bottom": [0, 0, -0.25]}}
            for k in range(1, bodies + 1)]
    joints = [{"type": "spherical", "name": f"J{k}",
               "between": ["ground.O" if k == 1 else f"b{k - 1}.bottom", f"b{k}.top"]}
              for k in range(1, bodies + 1)]
    return {"vecnet": "1", "kind": "mechanism", "dimensions": 3, "name": "chain",
            "gravity": [0, 0, -9.81], "ground": {"points": {"O": [0, 0, 0]}},
            "bodies": rods, "joints": joints, "simulation": {"t_span": [0, 0.2], "points": 21}}


def rate_rows(listing: str) -> list[str]:
    return re.findall(r"^ *C\d+\.across' = .*$", listing, flags=re.M)


# -- networks -----------------------------------------------------------------------------

def test_the_sparse_state_space_of_a_large_ladder_is_summarized_with_its_sizes():
    net = vn.load_netlist(ladder())
    listing = vn.text(net.sparse_state_space())
    assert f"State equations ({SECTIONS} states, with the parameter values; the first " \
           f"{teaching.SUMMARY_ROWS} shown)" in listing
    assert f"{SECTIONS} states, more than {teaching.SUMMARY_STATES}" in listing
    rows = rate_rows(listing)
    assert len(rows) == teaching.SUMMARY_ROWS
    # C v_1' = (V - 2 v_1 + v_2)/R: the first row in numbers
    assert rows[0].split(" = ")[1] == "-2000*C1.across + 1000*C2.across + 1000*V1.across"
    assert f"A: {SECTIONS} x {SECTIONS}, {3 * SECTIONS - 2} nonzero entries" in listing
    assert f"B: {SECTIONS} x 1, 1 nonzero entry" in listing
    states = re.search(r"^x = \((.*)\)$", listing, flags=re.M).group(1).split(", ")
    assert states == [f"C{k}.across" for k in range(1, SECTIONS + 1)]


def test_summary_false_lists_every_state_equation_and_true_forces_a_summary():
    net = vn.load_netlist(ladder())
    assert len(rate_rows(vn.text(net.sparse_state_space(), summary=False))) == SECTIONS
    small = vn.load_netlist(ladder(8))
    assert len(rate_rows(vn.text(small.sparse_state_space()))) == 8
    forced = vn.text(small.sparse_state_space(), summary=True)
    assert len(rate_rows(forced)) == teaching.SUMMARY_ROWS and "Summary (asked for)" in forced
    assert "A: 8 x 8, 22 nonzero entries" in forced


def test_large_network_equations_list_the_first_of_each_kind():
    eqs = vn.load_netlist(ladder()).equations()
    equations = 2 * (2 * SECTIONS + 1)
    assert teaching.summary_reason(eqs) == \
        f"{equations} equations, more than {teaching.SUMMARY_EQUATIONS}"
    listing = vn.text(eqs)
    shown = teaching.SUMMARY_ROWS
    for title, count in (("Cutset", SECTIONS + 1), ("Circuit", SECTIONS),
                         ("Terminal", 2 * SECTIONS + 1)):
        assert f"{title} equations ({count}, " in listing
    assert len(re.findall(r"^  \S+ = ", listing, flags=re.M)) == 3 * shown
    tex = vn.latex(eqs)
    assert tex.count(r" &= ") == 3 * shown


def test_a_symbolic_state_space_summary_leaves_out_the_matrices():
    ss = vn.load_netlist(ladder(45)).state_space()
    listing = vn.text(ss)
    assert "45 states, more than 40" in listing and "A alone has 2,025 entries" in listing
    assert len(re.findall(r"^  v_C\d+' = ", listing, flags=re.M)) == teaching.SUMMARY_ROWS
    assert "A =" not in listing


def test_report_and_equations_of_a_large_ladder_file(tmp_path, monkeypatch, capsys):
    report_module = importlib.import_module("vecnet.output.report")   # vn.report is the function
    path = tmp_path / "ladder.cir"
    path.write_text(ladder(), encoding="utf-8")
    monkeypatch.setattr(report_module, "MATRIX_SUMMARY_CELLS", 1000)
    page = vn.report(vn.load_netlist(path), simulate=False)
    nodes, edges = SECTIONS + 2, 2 * SECTIONS + 1
    assert f"Incidence matrix [IN]: {nodes} x {edges}, {2 * edges} nonzero entries; left " \
           "out" in page
    assert f"Summary ({SECTIONS} states, more than {teaching.SUMMARY_STATES})" in page
    assert (rf"\mathbf{{A}}\text{{: }}{SECTIONS} \times {SECTIONS}\text{{, "
            f"{3 * SECTIONS - 2} nonzero entries") in page
    capsys.readouterr()
    assert main(["equations", str(path)]) == 0
    out = capsys.readouterr().out
    assert len(rate_rows(out)) == teaching.SUMMARY_ROWS
    assert f"Summary ({2 * edges} equations, more than {teaching.SUMMARY_EQUATIONS})" in out


# -- mechanisms ---------------------------------------------------------------------------

def test_a_chain_of_ball_joints_is_summarized_without_building_m_and_q(monkeypatch):
    monkeypatch.setattr(teaching, "SUMMARY_SPEEDS", 12)
    bodies = 5                                  # 15 speeds, more than SUMMARY_SPEEDS
    eom = vn.load_model(chain(bodies)).formulate()
    listing = vn.text(eom)
    assert f"Coordinates ({4 * bodies})" in listing and f"Speeds ({3 * bodies})" in listing
    assert f"Bodies ({bodies}): " + ", ".join(f"b{k}" for k in range(1, bodies + 1)) in listing
    assert f"Joints ({bodies}): spherical " + ", ".join(f"J{k}" for k in range(1, bodies + 1)) \
        in listing
    assert f"Summary ({3 * bodies} speeds, more than {teaching.SUMMARY_SPEEDS})" in listing
    assert "M" not in eom.__dict__ and "Q" not in eom.__dict__    # never built
    assert r"\text{Bodies (5): b1, b2, b3, b4, b5}" in vn.latex(eom)


def test_a_mechanism_summary_names_joints_loads_and_constraints():
    eom = vn.load_model(MODELS / "fourbar.json").formulate()
    listing = vn.text(eom, summary=True)
    assert "Bodies (3): crank, coupler, rocker" in listing
    assert "Joints (4): revolute P1, P2, P3, P4" in listing
    assert "Loads and drivers (1): torque driver drive" in listing
    assert re.search(r"Constraints \(2\), Phi\(q, t\) = 0: P4\.\w, P4\.\w", listing)
    assert "M[" not in listing and teaching.summary_reason(eom) is None


def test_full_matrices_with_long_expressions_are_summarized(monkeypatch):
    eom = vn.load_model(MODELS / "fourbar.json").formulate()
    assert "M[P1.angle, P1.angle] = " in vn.text(eom, matrix_form=True)
    monkeypatch.setattr(teaching, "SUMMARY_TERMS", 10)
    full = vn.text(eom, matrix_form=True)
    assert "Summary (M, Q and the constraints hold more than 10 terms)" in full
    assert "M[" not in full
    # the recursive form is short whatever M and Q hold: no summary
    assert teaching.summary_reason(eom) is None and "f_P1 = " in vn.text(eom)


def test_report_of_a_chain_file_keeps_the_simulation(tmp_path, capsys):
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(chain(5)), encoding="utf-8")
    output = tmp_path / "chain.html"
    assert main(["report", str(path), "--output", str(output)]) == 0
    page = output.read_text(encoding="utf-8")
    # the recursive form, typeset (M and Q of 15 speeds do not fit a page)
    assert r"\textbf{Equations of motion, recursive form (15)}" in page
    assert "<h2>Simulation</h2><figure><svg" in page
    capsys.readouterr()
    assert main(["equations", str(path), "--format", "latex"]) == 0
    out = capsys.readouterr().out
    assert r"f_{\mathrm{J5}} &= \dot{p}_{\mathrm{b5}} - m_{\mathrm{b5}}\,\mathbf{g}" in out


def test_the_summary_option_is_refused_where_it_means_nothing():
    from vecnet.output.draw import OutputError

    g = vn.LinearGraph([("R", "a", "b"), ("C", "b", "g"), ("V", "g", "a")])
    with pytest.raises(OutputError, match="unknown option"):
        vn.text(g.topology(tree=["R", "C"]).cutset, summary=True)
