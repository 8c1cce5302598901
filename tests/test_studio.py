"""The studio: its server's walls, and the page clicked in headless Chromium.

Facts from outside the code: McPhee's E1 drawn by clicks, with the tree {L1, L2, R3, R4,
R5} picked by clicks, shows the cutset and circuit matrices McPhee printed (the
reference test's arrays); its normal tree's states are the capacitor's voltage and the
inductors' currents (a normal tree's rule); an RLC drawn by clicks shows the H(s) of the
same network built in the test; the four-bar's coordinates follow the tree clicked (the
joints in the tree, as ``formulate(tree=...)`` of the same mechanism says); a model whose
names are markup shows them as text and runs nothing.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

import vecnet as vn
from test_output_escaping import allow_any_name
from test_reference_topology import E1_CI, E1_CU, E1_EDGES, E1_TREE
from test_report_browser import CHROMIUM
from vecnet.web.server import MAX_BODY, studio

ROOT = Path(__file__).parent.parent
MODELS = ROOT / "examples" / "models"


# -- the server's walls ---------------------------------------------------------------------
def request(running, path: str, body: bytes | None = None, headers: dict | None = None,
            method: str | None = None) -> tuple[int, dict | str]:
    sent = {"X-Vecnet-Token": running.token, "Content-Type": "application/json",
            **(headers or {})}
    req = urllib.request.Request(running.origin + path, data=body, method=method,
                                 headers={k: v for k, v in sent.items() if v is not None})
    try:
        with urllib.request.urlopen(req, timeout=60) as answer:
            text = answer.read().decode()
            status = answer.status
    except urllib.error.HTTPError as error:
        text, status = error.read().decode(), error.code
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


@pytest.fixture
def running():
    server = studio(MODELS / "rlc.json")
    yield server
    server.stop()


def test_the_server_answers_only_its_page(running):
    document = json.loads((MODELS / "rlc.json").read_text())
    good = json.dumps({"document": document}).encode()
    assert request(running, "/api/view", good)[0] == 200
    # the page needs the run's token; so does every request
    assert request(running, "/?token=wrong", method="GET")[0] == 403
    assert request(running, f"/?token={running.token}", method="GET")[0] == 200
    assert request(running, "/api/view", good, {"X-Vecnet-Token": "guess"})[0] == 403
    assert request(running, "/api/view", good, {"X-Vecnet-Token": None})[0] == 403
    # another site's page, or a name that resolves here (DNS rebinding), is refused
    assert request(running, "/api/view", good, {"Origin": "http://evil.example"})[0] == 403
    assert request(running, "/api/view", good, {"Host": "evil.example"})[0] == 403
    # bodies: too large, no JSON, no model
    # a body announced too large is refused before it is read
    connection = http.client.HTTPConnection(running.origin.removeprefix("http://"), timeout=60)
    connection.putrequest("POST", "/api/view")
    for key, value in (("X-Vecnet-Token", running.token), ("Content-Length", str(MAX_BODY + 1))):
        connection.putheader(key, value)
    connection.endheaders()
    answer = connection.getresponse()
    assert answer.status == 413 and "at most" in json.loads(answer.read())["error"]
    connection.close()
    assert request(running, "/api/view", b"{not json")[0] == 400
    status, answer = request(running, "/api/view", json.dumps(
        {"document": {"vecnet": "1", "kind": "network", "elements": [
            {"type": "Resistr", "name": "R", "nodes": ["a", "b"]}]}}
    ).encode())
    assert status == 422 and "did you mean 'Resistor'" in answer["error"]
    assert request(running, "/api/nothing", good)[0] == 404
    # and it goes on answering
    status, view = request(running, "/api/view", good)
    assert status == 200 and view["states"] == ["L1.through", "C1.across"]


def test_a_model_over_the_bounds_in_force_at_the_start_is_refused():
    elements = [{"type": "Resistor", "name": f"R{k}", "nodes": [f"n{k}", f"n{k + 1}"],
                 "parameters": {"R": 1.0}} for k in range(20)]
    body = json.dumps({"document": {"vecnet": "1", "kind": "network", "elements": elements}})
    with vn.limits(max_elements=10):
        bounded = studio()
    try:
        status, answer = request(bounded, "/api/view", body.encode())
        assert status == 422 and "max_elements" in answer["error"]
    finally:
        bounded.stop()


# -- the page in a browser ------------------------------------------------------------------
pytestmark_browser = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")

#: What the page shows, read from the DOM: a matrix table as rows, columns and values, the
#: diagnosis, the steps' titles and LaTeX (KaTeX's annotation), the message, the edges drawn
#: in the tree, the readiness count.
READ = """(function () {
  function matrix(key) {
    var t = document.querySelector('table[data-matrix="' + key + '"]');
    if (!t) return null;
    var rows = Array.prototype.slice.call(t.rows);
    var columns = Array.prototype.slice.call(rows[0].cells, 1).map(function (c) { return c.textContent; });
    return {columns: columns, rows: rows.slice(1).map(function (r) { return r.cells[0].textContent; }),
            values: rows.slice(1).map(function (r) {
              return Array.prototype.slice.call(r.cells, 1).map(function (c) { return Number(c.textContent); }); })};
  }
  var steps = Array.prototype.map.call(document.querySelectorAll("#steps .step"), function (s) {
    var a = s.querySelector("annotation");
    return a ? a.textContent : s.textContent; });
  var titles = Array.prototype.map.call(document.querySelectorAll("#steps h3"), function (h) {
    return h.textContent; });
  return {cutset: matrix("cutset"), circuit: matrix("circuit"),
          diagnosis: document.getElementById("diagnosis").textContent,
          message: document.getElementById("message").textContent,
          branches: Array.prototype.map.call(document.querySelectorAll("#canvas .edge.branch"),
                                             function (g) { return g.getAttribute("data-edge"); }),
          edges: Array.prototype.map.call(document.querySelectorAll("#canvas .edge text"),
                                          function (t) { return t.textContent; }),
          nodes: Array.prototype.map.call(document.querySelectorAll("#canvas .node text"),
                                          function (t) { return t.textContent; }),
          steps: steps, titles: titles, title: document.title,
          ready: document.body.getAttribute("data-ready")};
})()"""


def quiet(problems: list[dict]) -> list[dict]:
    """The page's problems less the browser's note of a refused model (an answer of 422,
    which the page shows in words: a body not yet joined to anything)."""
    return [p for p in problems if "status of 422" not in str(p.get("text", ""))]


@contextlib.contextmanager
def page(model=None):
    from test_tree_explorer import Browser

    running = studio(model)
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(profile, offline=False)
        try:
            browser.command("Page.navigate", session=True, url=running.url)
            browser.wait_for("Page.loadEventFired")
            browser.edits = 0
            settle(browser)
            yield browser
        finally:
            browser.close()
            running.stop()


def settle(browser) -> dict:
    """The page once it has shown its answer to the last edit (counts edits, not time)."""
    for _ in range(2000):
        shown = browser.evaluate(READ)
        if shown["ready"] == str(browser.edits):
            return shown
        time.sleep(0.02)
    raise AssertionError(f"the page did not answer edit {browser.edits}: {shown}")


def click_canvas(browser, x: float, y: float) -> None:
    left, top = browser.evaluate("(function () { var r = document.getElementById('canvas')"
                                 ".getBoundingClientRect(); return [r.left, r.top]; })()")
    for kind in ("mousePressed", "mouseReleased"):
        browser.command("Input.dispatchMouseEvent", session=True, type=kind, x=left + x,
                        y=top + y, button="left", clickCount=1)
    browser.edits += 1
    settle(browser)


def mode(browser, name: str) -> None:
    browser.click(f'button.mode[data-mode="{name}"]')


def add_element(browser, kind: str, name: str, nodes: list[str], **parameters) -> None:
    """Pick ``kind`` in the menu, type the name and the parameters, click the nodes."""
    browser.evaluate(f"""(function () {{ var s = document.getElementById("type");
        s.value = {json.dumps(kind)}; s.dispatchEvent(new Event("change"));
        document.getElementById("name").value = {json.dumps(name)}; }})()""")
    for key, value in parameters.items():
        browser.evaluate(f"""document.querySelector('#parameters input[data-parameter="{key}"]')
            .value = {json.dumps(str(value))}""")
    for node in nodes:
        browser.click(f'#canvas .node[data-node="{node}"] circle')
    browser.edits += 1
    settle(browser)


def click_edge(browser, name: str) -> dict:
    browser.click(f'#canvas .edge[data-edge="{name}"] .hit')
    browser.edits += 1
    return settle(browser)


def draw(browser, places: dict[str, tuple[float, float]]) -> dict[str, str]:
    """Nodes placed by clicks at ``places``; the page names them: our name -> the page's."""
    names = {}
    for ours, (x, y) in places.items():
        before = set(settle(browser)["nodes"])
        click_canvas(browser, x, y)
        (names[ours],) = set(settle(browser)["nodes"]) - before
    return names


E1_PLACES = {"a": (420, 300), "b": (300, 420), "c": (150, 420), "d": (60, 300),
             "e": (150, 150), "f": (320, 150)}
E1_KINDS = {"L": ("Inductor", "L"), "R": ("Resistor", "R"), "C": ("Capacitor", "C"),
            "V": ("VoltageSource", "V")}


@pytestmark_browser
def test_e1_drawn_by_clicks_shows_mcphees_matrices_and_its_tree_swaps():
    with page() as browser:
        names = draw(browser, E1_PLACES)
        mode(browser, "edge")
        for edge, tail, head in E1_EDGES:
            kind, parameter = E1_KINDS[edge[0]]
            add_element(browser, kind, edge, [names[tail], names[head]], **{parameter: 1})
        shown = settle(browser)
        assert sorted(shown["edges"]) == sorted(e for e, _, _ in E1_EDGES)
        # the normal tree first: source and capacitor in, inductors out
        net = vn.Network("E1")
        for edge, tail, head in E1_EDGES:
            kind, parameter = E1_KINDS[edge[0]]
            net.add(getattr(vn, kind)(edge, tail, head, **{parameter: 1.0}))
        normal = net.state_space(tree="normal")
        assert f"state variables (3): {', '.join(normal.states)}" in shown["diagnosis"]
        # pick McPhee's tree by clicks: out with V7 and C6, in with L1 and L2
        mode(browser, "tree")
        for edge in ("V7", "C6", "L1"):
            assert "Tree refused" in click_edge(browser, edge)["message"]   # not yet spanning
        shown = click_edge(browser, "L2")
        assert shown["message"] == "" and sorted(shown["branches"]) == sorted(E1_TREE)
        for key, expected in (("cutset", E1_CU), ("circuit", E1_CI)):
            m = shown[key]
            order = E1_TREE + ["C6", "V7"]
            columns = [m["columns"].index(c) for c in order]
            rows = {"cutset": E1_TREE, "circuit": ["C6", "V7"]}[key]
            values = np.array([[m["values"][m["rows"].index(r)][j] for j in columns]
                               for r in rows])
            assert np.array_equal(values, expected), key
        # that tree has the inductors in it: no state equations, and the page says why
        assert "No state equations for this tree" in shown["diagnosis"]
        mode(browser, "node")
        browser.click("#normal")
        browser.edits += 1
        assert f"state variables (3): {', '.join(normal.states)}" in settle(browser)["diagnosis"]
        assert browser.problems() == []


def source_resistor_capacitor(browser) -> dict[str, str]:
    """Draw Vs (g to a), R1 (a to b) and C1 (g to b) by clicks; the nodes' names."""
    names = draw(browser, {"g": (100, 400), "a": (100, 120), "b": (350, 260)})
    mode(browser, "edge")
    add_element(browser, "VoltageSource", "Vs", [names["g"], names["a"]], V=1)
    add_element(browser, "Resistor", "R1", [names["a"], names["b"]], R=1)
    add_element(browser, "Capacitor", "C1", [names["g"], names["b"]], C=1)
    return names


@pytestmark_browser
def test_swapping_a_branch_and_a_chord_swaps_the_state_and_the_dependent_store():
    """Two capacitors side by side: the one in the tree stores the state, the other is a
    dependent store; a swap by two clicks swaps them."""
    with page() as browser:
        names = source_resistor_capacitor(browser)
        add_element(browser, "Capacitor", "C2", [names["g"], names["b"]], C=2)
        net = vn.Network("p")
        net.add(vn.VoltageSource("Vs", "g", "a", V=1.0), vn.Resistor("R1", "a", "b", R=1.0),
                vn.Capacitor("C1", "g", "b", C=1.0), vn.Capacitor("C2", "g", "b", C=2.0))
        before = settle(browser)
        branch = "C1" if "C1" in before["branches"] else "C2"
        chord = {"C1": "C2", "C2": "C1"}[branch]
        assert net.state_space(tree=before["branches"]).states == (f"{branch}.across",)
        assert f"dependent energy stores: {chord}" in before["diagnosis"]
        mode(browser, "tree")
        click_edge(browser, branch)
        after = click_edge(browser, chord)
        assert net.state_space(tree=after["branches"]).states == (f"{chord}.across",)
        assert f"state variables (1): {chord}.across" in after["diagnosis"]
        assert f"dependent energy stores: {branch}" in after["diagnosis"]
        assert browser.problems() == []


@pytestmark_browser
def test_an_rlc_drawn_by_clicks_shows_its_transfer_function():
    with page() as browser:
        names = draw(browser, {"g": (100, 400), "a": (100, 120), "b": (300, 120),
                               "c": (300, 400)})
        mode(browser, "edge")
        add_element(browser, "VoltageSource", "Vs", [names["g"], names["a"]], V=1)
        add_element(browser, "Resistor", "R1", [names["a"], names["b"]], R=2)
        add_element(browser, "Inductor", "L1", [names["b"], names["c"]], L=1)
        add_element(browser, "Capacitor", "C1", [names["g"], names["c"]], C="C")
        browser.evaluate("""(function () { var o = document.getElementById("outputs");
            o.value = "C1.across"; o.dispatchEvent(new Event("change")); })()""")
        browser.edits += 1
        shown = settle(browser)
        net = vn.Network("rlc")
        net.add(vn.VoltageSource("Vs", "g", "a", V=1.0), vn.Resistor("R1", "a", "b", R=2.0),
                vn.Inductor("L1", "b", "c", L=1.0),
                vn.Capacitor("C1", "g", "c", C=vn.Symbol("C")))
        H = net.state_space(outputs=["C1.across"]).transfer_function()["C1.across", "Vs.across"]
        step = shown["steps"][shown["titles"].index("Transfer functions H(s)")]
        assert vn.latex(H) in step          # 1/(C s^2 + 2 C s + 1), as vecnet writes it
        assert browser.problems() == []


@pytestmark_browser
def test_the_four_bars_coordinates_follow_the_tree_clicked():
    with page(MODELS / "fourbar.json") as browser:
        mech = vn.load_model(MODELS / "fourbar.json").mechanism
        first = settle(browser)
        assert "(P1.angle, P2.angle, P3.angle)" in first["diagnosis"]
        mode(browser, "tree")
        click_edge(browser, "P3")                     # out: the tree no longer spans
        shown = click_edge(browser, "P4")             # in: P3 is the cut joint now
        tree = [b for b in mech.formulate().topology.branches if b != "P3"] + ["P4"]
        expected = mech.formulate(tree=tree).coordinates
        assert f"({', '.join(expected)})" in shown["diagnosis"]
        assert "P4.angle" in expected and "P3.angle" not in expected
        assert "P3.x" in shown["diagnosis"]           # its constraint rows
        # the cut joint's loop closes through the tree; its reaction enters the balances
        loops = shown["steps"][shown["titles"].index(
            "Circuit equations: each chord's loop through the tree")]
        assert r"\delta\mathbf{r}_{\mathrm{P3}}" in loops
        balances = shown["steps"][shown["titles"].index(
            "Cutset equations: the reactions, force and moment balances of each branch")]
        assert r"\mathbf{F}_{\mathrm{P3}}" in balances
        assert browser.problems() == []


@pytestmark_browser
def test_names_that_are_markup_show_as_text(monkeypatch):
    allow_any_name(monkeypatch)
    hostile = "<img src=x onerror=\"document.title='XSS'\"><script>document.title='XSS'</script>"
    net = vn.Network("<b>net</b>")
    net.add(vn.VoltageSource("Vs", "g", hostile, V=1.0), vn.Resistor(hostile + "R", hostile, "g",
                                                                     R=1.0))
    with page(net) as browser:
        shown = settle(browser)
        assert hostile in shown["nodes"] and hostile + "R" in shown["edges"]
        assert shown["title"] == "vecnet studio"
        assert browser.evaluate("document.querySelectorAll('#canvas img, #canvas script, "
                                "#panels img').length") == 0
        assert browser.problems() == []


def test_the_command_line_prints_the_address_and_stops_on_ctrl_c():
    import signal
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-m", "vecnet.cli", "studio",
                                str(MODELS / "e1.json"), "--no-browser"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and "?token=" in url
        with urllib.request.urlopen(url, timeout=60) as answer:
            assert answer.status == 200 and "vecnet studio" in answer.read().decode()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0
        assert "studio stopped" in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()


def test_the_steps_of_e1_and_the_four_bar_compile_with_pdflatex(tmp_path):
    from test_tikz import LATEX_MISSING, compile_tex
    from vecnet.web.view import steps_latex, studio_view

    if LATEX_MISSING:
        pytest.skip(LATEX_MISSING)
    for name in ("e1", "fourbar"):
        view = studio_view(json.loads((MODELS / f"{name}.json").read_text()))
        log = compile_tex(steps_latex(view), tmp_path)
        assert "Output written on d.pdf" in log, name


@pytestmark_browser
def test_undo_redo_the_clicked_edges_row_and_column_and_opening_a_file():
    with page() as browser:
        source_resistor_capacitor(browser)
        assert sorted(settle(browser)["edges"]) == ["C1", "R1", "Vs"]
        # the clicked edge lights its row and its column, and nothing else
        mode(browser, "node")
        browser.click('#canvas .edge[data-edge="R1"] .hit')
        lit = browser.evaluate("""Array.prototype.map.call(document.querySelectorAll(
            'table[data-matrix="cutset"] td.hot'), function (td) {
            return [td.parentNode.getAttribute("data-row"), td.getAttribute("data-column")]; })""")
        cutset = settle(browser)["cutset"]
        expected = {(r, c) for r in cutset["rows"] for c in cutset["columns"]
                    if "R1" in (r, c)}
        assert {tuple(x) for x in lit} == expected and expected
        # undo twice: C1 and R1 gone; redo twice: back
        for _ in range(2):
            browser.click("#undo")
            browser.edits -= 1
        assert sorted(settle(browser)["edges"]) == ["Vs"]
        for _ in range(2):
            browser.click("#redo")
            browser.edits += 1
        assert sorted(settle(browser)["edges"]) == ["C1", "R1", "Vs"]
        # a model file opened: the four-bar's vector network, its coordinates
        document = browser.command("DOM.getDocument", session=True)["root"]["nodeId"]
        node = browser.command("DOM.querySelector", session=True, nodeId=document,
                               selector="#open")["nodeId"]
        browser.command("DOM.setFileInputFiles", session=True, nodeId=node,
                        files=[str(MODELS / "fourbar.json")])
        browser.edits += 1
        shown = settle(browser)
        assert "(P1.angle, P2.angle, P3.angle)" in shown["diagnosis"]
        assert "P4" in shown["edges"] and "crank" in shown["nodes"]
        assert browser.problems() == []


def test_every_element_of_the_menu_makes_a_model_the_reader_takes():
    """The page's menu is every element type a network file takes (the reader's table
    and the two entries of their own), and an entry filled as the page fills it (its
    defaults, 1 for the rest, its number of nodes) is a model vecnet reads."""
    import warnings

    from vecnet.io.network_reader import ELEMENT_TYPES, OWN_ENTRY_TYPES
    from vecnet.web.view import element_catalogue

    menu = element_catalogue()
    assert {e["type"] for e in menu} == set(ELEMENT_TYPES) | set(OWN_ENTRY_TYPES)
    for entry in menu:
        nodes = ["a", "g", "b", "g"][:entry["nodes"]] if entry["nodes"] == 4 else ["a", "g"]
        if entry["type"] == "OpAmp":
            nodes = ["m", "p", "o", "g"]
        element = {"type": entry["type"], "name": "X", "nodes": nodes}
        if entry["parameters"]:
            element["parameters"] = {p: entry["defaults"].get(p, 1) for p in entry["parameters"]}
        element.update(entry["fields"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", vn.VecnetWarning)
            try:
                vn.load_model({"vecnet": "1", "kind": "network", "name": "one",
                               "elements": [element]})
            except vn.ModelFileError as exc:
                pytest.fail(f"{entry['type']}: {exc}")


def test_the_exports_are_vecnets_own(running, tmp_path):
    """TikZ, the report, the steps and a simulation, as the page's buttons ask for them:
    each what the same call in Python gives (the TikZ compiles as a document), or for the
    simulation a plot of the file's outputs."""
    from test_tikz import LATEX_MISSING, compile_tex

    document = json.loads((MODELS / "rlc.json").read_text())
    model = vn.load_model(MODELS / "rlc.json")
    status, answer = request(running, "/api/tikz", json.dumps({"document": document}).encode())
    assert status == 200 and answer["tikz"] == vn.to_tikz(model)
    if not LATEX_MISSING:
        compile_tex(answer["tikz"], tmp_path)
    status, answer = request(running, "/api/report", json.dumps({"document": document}).encode())
    assert status == 200 and "<h2>State equations</h2>" in answer["html"]
    status, answer = request(running, "/api/steps.tex", json.dumps(
        {"document": document, "tree": "normal"}).encode())
    assert status == 200 and answer["latex"].count("\\section*{") >= 9
    status, answer = request(running, "/api/simulate", json.dumps({"document": document}).encode())
    assert status == 200 and answer["svg"].startswith("<svg") and answer["svg"].count("<path") > 20
    status, answer = request(running, "/api/view", json.dumps(
        {"document": document, "tree": 7}).encode())
    assert status == 422 and "list of branch names" in answer["error"]


@pytestmark_browser
def test_a_pendulum_drawn_by_clicks_has_the_inertia_about_its_pin():
    """A body placed at (1, 0) m, pinned to the ground at (0, 0.5) m by clicks: one
    coordinate, the pin's angle, and the mass matrix J + m d^2 (Steiner) with
    d^2 = 1^2 + 0.5^2, for the mass and inertia typed."""
    with page() as browser:
        browser.click("#new-mechanism")
        browser.edits += 1
        settle(browser)
        browser.evaluate('document.getElementById("mass").value = "2"; '
                         'document.getElementById("inertia").value = "0.3";')
        scale, (ox, oy) = 100, (300, 280)          # a new mechanism's canvas: 100 px a metre
        click_canvas(browser, ox + 1.0 * scale, oy)                    # the body at (1, 0)
        mode(browser, "edge")
        browser.click('#canvas .node[data-node="ground"] circle')
        browser.click('#canvas .node[data-node="body1"] circle')
        click_canvas(browser, ox, oy - 0.5 * scale)                    # the pin at (0, 0.5)
        shown = settle(browser)
        assert "(P1.angle)" in shown["diagnosis"]
        motion = shown["steps"][shown["titles"].index("Equations of motion")]
        # M = 0.3 + 2 (1 + 0.25); Q the weight's moment about the pin, m g (d_x cos - d_y sin)
        # with the centre d = (1, -0.5) from it: -19.62 cos(theta) - 9.81 sin(theta)
        assert r"\mathbf{M} &= \begin{bmatrix}2.8\end{bmatrix}" in motion
        assert re.search(r"\\mathbf\{Q\} &= \\begin\{bmatrix\}- 9\.81 \\sin.*?- 19\.62 \\cos",
                         motion)
        assert quiet(browser.problems()) == []
