"""Report pages that fit, and the vector network of mechanism reports, in headless Chromium.

Facts checked from outside the code:

* every bundled model's report (``examples/models/*.json``) typesets every formula with
  KaTeX: no KaTeX error, no raw LaTeX left, no ``<pre>`` listing of equations; on screen
  (1400 px) and in print (A4 width, print media emulated) no formula, matrix or table is
  wider than the column it stands in, and the page is no wider than the window;
* the four-bar's explorer, clicked at the chord P4, shows P4's row of [CI] as
  ``Topology`` computes it for the report's tree and P4's constraint rows as the
  formulation computed here writes them; those rows vanish on the assembled loop and
  equal the loop closure written here from the link lengths; clicked at the branch P2,
  it shows P2's row of [CU];
* the reactions the report shows (its table and the explorer's) equal ``J.reaction`` of
  a simulation run here, at the same instants, and the reactions of the two ground pins
  with the bodies' weights give the bodies' total rate of momentum (Newton's second law
  for the whole linkage, accelerations by finite differences of a finer simulation);
* a wide incidence matrix comes in blocks of columns that together hold every column once,
  each block with its row labels; a state space's A, B, C, D carry the state, input and
  output names as labels.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import vecnet as vn
from test_report_browser import CHROMIUM
from test_tree_explorer import Browser, opened
from vecnet.output.pagefit import break_rows, column_blocks, tex_width
from vecnet.output.report import report

ROOT = Path(__file__).parent.parent
MODELS = ROOT / "examples" / "models"
WIDTH = 1400
#: The text width of an A4 page printed with the browser's default margins (CSS px).
A4_TEXT = 718

needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")

#: What a loaded page measures: formulas (typeset or not, KaTeX errors, raw LaTeX left),
#: <pre> elements that are not formulas, and the boxes wider than their column.
MEASURE = """(function () {
  var raw = 0, walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    var node = walker.currentNode;
    if (/\\\\(begin|frac|mathrm|left)/.test(node.nodeValue) &&
        !node.parentNode.closest("annotation, script, #explorer-data")) raw += 1;
  }
  var other = [];
  document.querySelectorAll("pre").forEach(function (p) {
    if (!p.classList.contains("tex") && !p.classList.contains("diagnosis") &&
        p.id !== "explorer-data") other.push(p.textContent.slice(0, 80));
  });
  var wide = [];
  document.querySelectorAll("pre.tex, .fit, table, figure").forEach(function (box) {
    var column = box.parentNode.getBoundingClientRect();
    var r = box.getBoundingClientRect();
    if (box.scrollWidth > box.clientWidth + 1 || r.right > column.right + 1)
      wide.push([box.tagName, box.className, box.scrollWidth, box.clientWidth,
                 Math.round(r.right), Math.round(column.right)]);
  });
  return {blocks: document.querySelectorAll("pre.tex").length,
          typeset: document.querySelectorAll("pre.tex.typeset").length,
          errors: document.querySelectorAll(".katex-error").length, raw: raw, other: other,
          wide: wide, pageWidth: document.documentElement.scrollWidth,
          viewport: window.innerWidth};
})()"""


def measured(browser: Browser) -> dict:
    # the fonts set the widths: wait for them by the promise itself (a loaded machine
    # may take longer than any number of quick polls)
    answer = browser.command("Runtime.evaluate", session=True, awaitPromise=True,
                             expression="document.fonts.ready.then(function () { return true; })",
                             returnByValue=True)
    assert answer["result"].get("value") is True, answer
    browser.evaluate("window.vecnetPage.fit()")
    return browser.evaluate(MEASURE)


def screen_and_print(page: Path) -> tuple[dict, dict, list]:
    """The measurements of ``page`` at 1400 px on screen and at A4 width in print media,
    and the browser's problems (console errors, policy violations)."""
    with opened(page) as browser:
        browser.command("Emulation.setDeviceMetricsOverride", session=True, width=WIDTH,
                        height=1000, deviceScaleFactor=1, mobile=False)
        screen = measured(browser)
        # the width first, then the medium: the page refits 100 ms after a resize, and a
        # refit in print media at the screen's width (the resize to 1400 px still pending
        # on a loaded machine) would measure a page no printer has
        browser.command("Emulation.setDeviceMetricsOverride", session=True, width=A4_TEXT,
                        height=1000, deviceScaleFactor=1, mobile=False)
        browser.command("Emulation.setEmulatedMedia", session=True, media="print")
        printed = browser.evaluate(MEASURE)   # the style sheet alone: no script runs on print
        return screen, printed, browser.problems()


@needs_chromium
@pytest.mark.parametrize("name", sorted(p.stem for p in MODELS.glob("*.json")))
def test_every_bundled_model_typesets_every_formula_and_fits(tmp_path, name):
    page = tmp_path / f"{name}.html"
    report(vn.load_model(MODELS / f"{name}.json"), page, simulate=False)
    screen, printed, problems = screen_and_print(page)
    assert problems == []
    assert screen["blocks"] >= 5
    assert screen["typeset"] == screen["blocks"]           # every formula typeset
    assert screen["errors"] == 0 and screen["raw"] == 0
    assert screen["other"] == []                           # no equations listed as text
    for facts, width in ((screen, WIDTH), (printed, A4_TEXT)):
        assert facts["wide"] == [], facts["wide"]
        assert facts["pageWidth"] <= width


# -- the four-bar's explorer ---------------------------------------------------------------
READ_DETAILS = """(function () {
  var table = document.getElementById("explorer-row"), row = {};
  var head = table.rows[0].cells, line = table.rows[1].cells;
  for (var i = 1; i < head.length; i++) row[head[i].textContent] = Number(line[i].textContent);
  var constraints = [], reaction = [];
  var rows = document.querySelectorAll("#explorer-constraints tr");
  rows.forEach(function (r) {
    var tex = r.querySelector("annotation");
    constraints.push([r.cells[0].textContent, r.cells[1].title, tex ? tex.textContent : null]);
  });
  document.querySelectorAll("#explorer-reaction tr").forEach(function (r, k) {
    if (k) reaction.push(Array.prototype.map.call(r.cells, function (c) {
      return Number(c.textContent); }));
  });
  return {label: line[0].textContent, row: row, constraints: constraints, reaction: reaction,
          status: document.getElementById("explorer-status").textContent,
          errors: document.querySelectorAll("#explorer-details .katex-error").length,
          typeset: document.querySelectorAll("#explorer-details .katex").length};
})()"""


def loop_closure(angles: np.ndarray) -> np.ndarray:
    """ground.D less rocker.D walked from the pin A through crank, coupler and rocker, from
    the link lengths of fourbar.json and the joint angles (relative, as joint coordinates)."""
    crank, coupler, rocker = 1.0, 2 * 0.9387663273418433, 2 * 0.7158910531638176
    a1 = angles[0]
    a2 = a1 + angles[1]
    a3 = a2 + angles[2]
    end = crank * np.array([np.cos(a1), np.sin(a1)]) + coupler * np.array(
        [np.cos(a2), np.sin(a2)]) + rocker * np.array([np.cos(a3), np.sin(a3)])
    return np.array([2.0, 0.0]) - end


@pytest.fixture(scope="module")
def fourbar(tmp_path_factory):
    """The four-bar report open in Chromium, its model and an independent simulation."""
    model = vn.load_model(MODELS / "fourbar.json")
    page = tmp_path_factory.mktemp("fourbar") / "fourbar.html"
    report(model, page)
    with opened(page) as browser:
        yield browser, model


def click_edge(browser: Browser, graph, name: str) -> dict:
    browser.click(f"#edge-{graph.edge_index(name)} text")
    return browser.evaluate(READ_DETAILS)


@needs_chromium
def test_the_chord_p4_shows_its_loop_and_constraint_rows(fourbar):
    browser, model = fourbar
    eom = model.formulate()                       # the formulation, computed here
    topo = eom.topology
    shown = click_edge(browser, model.system.network.graph, "P4")
    assert "P4 is a chord" in shown["status"]
    circuit = topo.circuit
    expected = dict(zip(circuit.columns, circuit.toarray()[circuit.rows.index("P4")].tolist()))
    assert shown["label"] == "P4" and shown["row"] == expected
    rows = [(n, vn.text(e)) for n, e in zip(eom.constraint_names, eom.constraints)
            if n.startswith("P4.")]
    assert [(name, text) for name, text, _ in shown["constraints"]] == rows
    assert all(tex and tex.startswith(r"\Phi_{\mathrm{" + name + "}}")
               for name, _, tex in shown["constraints"])
    assert shown["errors"] == 0 and shown["typeset"] >= 4
    # the rows are the loop closure: zero on the assembled loop, and equal to the closure
    # written from the link lengths at any angles
    values = {str(s): v for s, v in model.values.items()}
    q0 = eom.assemble(parameters=values)
    import sympy

    closure = sympy.lambdify([eom.q], list(eom.constraints))
    assert np.allclose(closure(q0), 0.0, atol=1e-9)
    rng = np.random.default_rng(7)
    for angles in rng.uniform(-np.pi, np.pi, size=(5, 3)):
        assert np.allclose(closure(angles), loop_closure(angles), atol=1e-3)   # 4 digits shown
    browser.click(f"#edge-{model.system.network.graph.edge_index('P4')} text")   # let go


@needs_chromium
def test_a_branch_shows_its_cutset_and_the_reaction_it_carries(fourbar):
    browser, model = fourbar
    topo = model.formulate().topology
    shown = click_edge(browser, model.system.network.graph, "P2")
    assert "P2 is a branch" in shown["status"]
    cutset = topo.cutset
    expected = dict(zip(cutset.columns, cutset.toarray()[cutset.rows.index("P2")].tolist()))
    assert shown["label"] == "P2" and shown["row"] == expected
    assert shown["constraints"] == []
    res = model.simulate()                          # an independent run, the file's settings
    times = [r[0] for r in shown["reaction"]]
    assert len(times) == 5 and times[0] == 0.0 and times[-1] == pytest.approx(1.0)
    for t, rx, ry, torque in shown["reaction"]:
        k = int(np.argmin(np.abs(res.t - t)))
        assert res.t[k] == pytest.approx(t)
        assert [rx, ry] == pytest.approx(res["P2.reaction"][k].tolist(), rel=1e-5, abs=1e-6)
        assert torque == pytest.approx(float(res["P2.reaction_torque"][k]), abs=1e-6)
    assert browser.problems() == []
    browser.click(f"#edge-{model.system.network.graph.edge_index('P2')} text")


@needs_chromium
def test_the_reaction_table_is_the_results_and_obeys_newtons_second_law(fourbar):
    browser, model = fourbar
    table = browser.evaluate("""Array.prototype.map.call(
      document.querySelectorAll('#reaction-table tr[data-joint]'), function (r) {
        return [r.dataset.joint].concat(Array.prototype.slice.call(r.cells, 1).map(
          function (c) { return Number(c.textContent); })); })""")
    fine = model.simulate(points=4001)              # fine samples for finite differences
    shown: dict[str, dict[float, np.ndarray]] = {}
    for joint, t, rx, ry, _ in table:
        k = int(np.argmin(np.abs(fine.t - t)))
        assert fine.t[k] == pytest.approx(t)
        assert [rx, ry] == pytest.approx(fine[f"{joint}.reaction"][k].tolist(), rel=1e-4,
                                         abs=1e-4)
        shown.setdefault(joint, {})[t] = np.array([rx, ry])
    assert set(shown) == {"P1", "P2", "P3", "P4"}
    # the linkage: P1 acts on the crank (its head), P4 on the ground (its head), so the
    # ground pushes the rocker with -R_P4; sum of m a = R_P1 - R_P4 + sum of m g
    masses = {"crank": 1.0, "coupler": 2.0, "rocker": 1.5}
    g = np.array([0.0, -9.81])
    dt = fine.t[1] - fine.t[0]
    for t in (0.25, 0.5, 0.75):
        k = int(np.argmin(np.abs(fine.t - t)))
        momentum_rate = sum(m * np.array([np.gradient(fine[f"{b}.vx"], dt)[k],
                                          np.gradient(fine[f"{b}.vy"], dt)[k]])
                            for b, m in masses.items())
        external = shown["P1"][t] - shown["P4"][t] + sum(masses.values()) * g
        assert external == pytest.approx(momentum_rate, rel=1e-3, abs=1e-3 * 50)


# -- matrices in blocks, and labelled -------------------------------------------------------
def test_wide_matrices_come_in_blocks_that_hold_every_column_once():
    topo = vn.load_model(MODELS / "fourbar.json").formulate().topology
    for matrix in (topo.incidence, topo.cutset, topo.circuit):
        blocks = column_blocks(matrix, 40)
        assert len(blocks) > 1
        assert [c for b in blocks for c in b.columns] == list(matrix.columns)
        assert all(b.rows == matrix.rows for b in blocks)
        assert np.array_equal(np.hstack([b.toarray() for b in blocks]), matrix.toarray())
        bars = [b.split for b in blocks if b.split is not None]
        if matrix.split is not None:    # the [1 | A_c] bar, once, before the first chord
            assert len(bars) <= 1
    page = report(vn.load_model(MODELS / "fourbar.json"), simulate=False)
    assert "Incidence matrix [IN], in 2 blocks of columns" in page


def test_long_rows_break_at_outer_signs_and_keep_every_term():
    terms = [rf"\sin{{\left(\theta_{{{k}}} \right)}}" for k in range(40)]
    tex = "\\begin{aligned}\nQ_{1} &= " + " + ".join(terms) + "\n\\end{aligned}"
    broken = break_rows(tex, 40)
    rows = broken.split(r"\\")
    assert len(rows) >= 3 and all(tex_width(r) <= 40 for r in rows)
    assert re.findall(r"\\theta_\{(\d+)\}", broken) == [str(k) for k in range(40)]
    # a long sum inside brackets breaks too: the stretching brackets become fixed ones,
    # which may hold line breaks
    inner = "\\begin{aligned}\nx &= 2 \\left(" + " + ".join(terms) + "\\right)^{2}\n\\end{aligned}"
    broken = break_rows(inner, 40)
    assert r"2 \Bigl(" in broken and r"\Bigr)^{2}" in broken
    assert re.findall(r"\\theta_\{(\d+)\}", broken) == [str(k) for k in range(40)]
    assert all(tex_width(r) <= 40 for r in broken.split(r"\\"))


def test_a_state_spaces_matrices_carry_their_labels():
    model = vn.load_model(MODELS / "rlc.json")
    ss = model.state_space()
    page = report(model, simulate=False)
    # the matrices bold, never a user's symbol of the same letter
    blocks = re.findall(r'<pre class="tex">\\mathbf\{([ABCD]\}(?:_\{\[\d\]\})? = .*?)</pre>',
                        page, re.S)
    assert {b[0] for b in blocks} >= {"A", "B"}
    a_block = next(b for b in blocks if b.startswith("A"))
    for state in ss.states:
        assert r"\mathrm{" + state.replace("_", r"\_") + "}" in a_block
    b_block = next(b for b in blocks if b.startswith("B"))
    for name in ss.inputs:
        assert r"\mathrm{" + name.replace("_", r"\_") + "}" in b_block


def test_mechanism_report_lists_the_vector_networks_equation_sets():
    model = vn.load_model(MODELS / "fourbar.json")
    topo = model.formulate().topology
    page = report(model, simulate=False)
    for heading in ("Tree explorer", "Coordinates chosen by the tree", "The three equation sets",
                    "Equations of motion", "Diagnosis", "Joint reactions"):
        assert f"<h2>{heading}</h2>" in page
    assert "Path matrix [P]" in page
    # one force and one moment balance per branch, one loop closure (vector, angle) per chord
    assert page.count(r"\mathbf{F}_{\mathrm{") >= len(topo.branches)
    data = json.loads(re.search(r'<pre id="explorer-data" hidden>(.*?)</pre>', page, re.S)
                      .group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert len(data["details"]) == len(data["brings"]) == len(topo.edges)
    # a four-bar has one degree of freedom and no redundant constraint
    assert "<b>1 degree(s) of freedom</b> and 0 redundant" in page


def test_the_mechanism_report_shows_the_motion_as_an_animation_without_script():
    page = report(vn.load_model(MODELS / "fourbar.json"))
    assert "<script" not in page.split("<h2>Simulation</h2>")[1].split("</section>")[0]
    animations = re.findall(r'<animate ([^>]*)>', page)
    assert animations
    for attributes in animations:
        fields = dict(re.findall(r'(\w+)="([^"]*)"', attributes))
        assert fields["attributeName"] in ("points", "cx", "cy", "x1", "y1", "x2", "y2", "width")
        assert len(fields["keyTimes"].split(";")) == len(fields["values"].split(";")) == 60


def test_an_animation_that_would_change_a_link_or_a_handler_is_dropped():
    from vecnet.output.html_pieces import safe_svg as _safe_svg

    svg = ('<svg xmlns="http://www.w3.org/2000/svg"><a href="#x"><circle cx="1" cy="1" r="1">'
           '<animate attributeName="cx" values="1;2" dur="1s"/></circle>'
           '<animate attributeName="href" values="javascript:alert(1)" dur="1s"/>'
           '<animate attributeName="onclick" values="alert(1)" dur="1s"/>'
           '<set attributeName="href" to="javascript:alert(1)"/></a></svg>')
    cleaned = _safe_svg(svg)
    assert cleaned.count("<animate") == 1 and 'attributeName="cx"' in cleaned
    assert "javascript" not in cleaned and "alert" not in cleaned and "<set" not in cleaned


@needs_chromium
def test_swapping_a_chord_and_a_branch_shows_the_coordinates_of_the_new_tree(fourbar):
    browser, model = fourbar
    mech, graph = model.system, model.system.network.graph
    topo = model.formulate().topology
    loop = topo.circuit.toarray()[topo.circuit.rows.index("P4")]
    branch = next(b for b, entry in zip(topo.circuit.columns, loop)
                  if entry and b in topo.branches and b.startswith("P"))   # a joint on P4's loop
    click_edge(browser, graph, "P4")
    browser.click(f"#edge-{graph.edge_index(branch)} text")
    line = browser.evaluate('document.getElementById("explorer-tree").textContent')
    assert f"{branch} a chord" in browser.evaluate(
        'document.getElementById("explorer-status").textContent')
    tree = line.split("Tree: ")[1].split(". Cotree")[0].split(", ")
    shown = line.split("Coordinates: ")[1].rstrip(".").split(", ")
    # the formulation's own coordinates for that tree, computed here
    assert sorted(shown) == sorted(mech.formulate(tree=tree).coordinates)
    assert "P4.angle" in shown and f"{branch}.angle" not in shown
    browser.click("#explorer-user")          # back to the report's tree
    assert "(the report's tree)" in browser.evaluate(
        'document.getElementById("explorer-tree").textContent')


def test_a_long_row_of_words_wraps_at_spaces_and_keeps_every_word():
    words = " ".join(f"word{k}" for k in range(60)) + r" M u\textasciicircum{}T"
    tex = "\\begin{aligned}\n&\\textbf{Heading}\\quad \\text{" + words + "}\n\\end{aligned}"
    broken = break_rows(tex, 40)
    rows = broken.split(r"\\")
    assert len(rows) >= 4 and all(tex_width(r) <= 40 for r in rows)
    assert r"\textbf{Heading}" in rows[0]
    again = " ".join(re.findall(r"\\text\{(.*?)\}\s*(?=\\\\|\\end|$)", broken))
    assert again == words
