"""The tree explorer of a network report, clicked in headless Chromium.

Chromium is driven over its DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages ended by a NUL byte on file descriptors 3 and 4), with real mouse events
at the drawn edges' labels, networking off. Facts checked from outside the code:

* clicking the chord C6 of McPhee's E1 (tree {L1, L2, R3, R4, R5}) highlights and
  shows C6's row of [CI] as printed by McPhee, and clicking the branch R4 shows R4's
  row of [CU] as printed; each equals the row of ``Topology(...)`` for that tree;
* a swap (C6, then R3 on its circuit) gives the tree {L1, L2, C6, R4, R5}, and the rows
  shown then equal those of ``Topology`` for that tree, computed here;
* a swap that would leave a circuit (C6, then R5) or disconnect the tree (L1, then R3)
  is refused with a message and leaves the tree as it was;
* the buttons restore the report's tree and a normal tree (source and capacitor
  branches, inductors chords);
* the page ran with no console error or policy violation, and its policy is the base
  policy with the hashes of exactly its two own scripts;
* names that try to end the data element or the script, or to start markup, reach the
  explorer's row as the exact names, and run nothing.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import select
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

import vecnet as vn
from test_output_escaping import allow_any_name
from test_reference_topology import E1_CI, E1_CU, E1_TREE
from test_report_browser import CHROMIUM, FLAGS
from vecnet.output.report import CONTENT_SECURITY_POLICY, report

ROOT = Path(__file__).parent.parent
OFFLINE = ["--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=socks5://127.0.0.1:9",
           "--proxy-bypass-list=<-loopback>"]
#: The loopback alone: every other name resolves to nothing, and no proxy is asked
LOOPBACK = ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--no-proxy-server"]
#: A guard against a browser that hangs, per command (not a bound on speed: a loaded
#: machine answers slowly, and only a browser that stops answering fails)
SECONDS = 300
#: The highlight colours of +1 and -1 entries, as the browser computes them.
RED, PURPLE = "rgb(214, 39, 40)", "rgb(123, 63, 176)"

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")


class Browser:
    """One headless Chromium page driven over the DevTools protocol on a pipe."""

    def __init__(self, profile: str, offline: bool = True) -> None:
        """``offline``: no network at all; else the loopback alone (a local server's page:
        IP literals need no name resolution, and every name resolves to nothing)."""
        to_browser, self._writer = os.pipe()
        self._reader, from_browser = os.pipe()

        def descriptors() -> None:  # Chromium reads commands on fd 3 and answers on fd 4
            high_in, high_out = os.dup(to_browser), os.dup(from_browser)
            os.dup2(high_in, 3)
            os.dup2(high_out, 4)

        self.process = subprocess.Popen(
            [CHROMIUM, *FLAGS, *(OFFLINE if offline else LOOPBACK), f"--user-data-dir={profile}",
             "--remote-debugging-pipe", "--window-size=1000,900", "about:blank"],
            preexec_fn=descriptors, close_fds=False, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        self.deadline = time.monotonic() + SECONDS
        page = next(t for t in self.command("Target.getTargets")["targetInfos"]
                    if t["type"] == "page")
        self.session = self.command("Target.attachToTarget", targetId=page["targetId"],
                                    flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.command(f"{domain}.enable", session=True)
        self.command("Network.enable", session=True)
        if offline:
            self.command("Network.emulateNetworkConditions", session=True, offline=True,
                         latency=0, downloadThroughput=-1, uploadThroughput=-1)

    def _message(self) -> dict:
        while b"\0" not in self._buffer:
            left = self.deadline - time.monotonic()
            ready, _, _ = select.select([self._reader], [], [], max(left, 0))
            if not ready:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._reader, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self._buffer += chunk
        text, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(text)

    def command(self, method: str, session: bool = False, **params) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._writer, json.dumps(message).encode() + b"\0")
        self.deadline = time.monotonic() + SECONDS
        while True:
            answer = self._message()
            if answer.get("id") == self._next_id:
                assert "error" not in answer, (method, answer["error"])
                return answer["result"]
            self.events.append(answer)

    def wait_for(self, method: str) -> dict:
        self.deadline = time.monotonic() + SECONDS
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            event = self._message()
            self.events.append(event)
            if event.get("method") == method:
                return event

    def evaluate(self, expression: str):
        result = self.command("Runtime.evaluate", session=True, expression=expression,
                              returnByValue=True)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click at the middle of the element (scrolled into view)."""
        x, y = self.evaluate(
            f"(function () {{ var e = document.querySelector({json.dumps(selector)});"
            " e.scrollIntoView({block: 'center'}); var r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.command("Input.dispatchMouseEvent", session=True, type=kind, x=x, y=y,
                         button="left", clickCount=1)

    def problems(self) -> list[dict]:
        """Console errors, uncaught exceptions and log errors (policy violations)."""
        bad = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                bad.append(params)
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                bad.append(params)
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                bad.append(params["entry"])
        return bad

    def close(self) -> None:
        try:
            self.command("Browser.close")
        except (RuntimeError, TimeoutError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._writer)
        os.close(self._reader)


#: What the explorer shows, read back from the DOM: the tree line, the status, the shown
#: row (label and {column: value}), the highlighted edges with their signs, and the
#: stroke colour and dashes each edge is drawn with.
READ = """(function () {
  var table = document.getElementById("explorer-row"), row = null;
  if (table.rows.length) {
    var head = table.rows[0].cells, line = table.rows[1].cells, values = {};
    for (var i = 1; i < head.length; i++) values[head[i].textContent] = Number(line[i].textContent);
    row = {label: line[0].textContent, columns: Array.prototype.map.call(head, function (c) {
      return c.textContent; }).slice(1), values: values};
  }
  var data = JSON.parse(document.getElementById("explorer-data").textContent), lit = {};
  var colours = {};
  data.edges.forEach(function (name, k) {
    var g = document.getElementById("edge-" + k);
    if (g.classList.contains("explorer-plus")) lit[name] = 1;
    if (g.classList.contains("explorer-minus")) lit[name] = -1;
    var line = g.querySelector("path:not(.explorer-hit)"), style = getComputedStyle(line);
    colours[name] = [style.stroke, style.strokeDasharray];
  });
  return {tree: document.getElementById("explorer-tree").textContent,
          status: document.getElementById("explorer-status").textContent, row: row, lit: lit,
          colours: colours};
})()"""


def e1_network() -> vn.Network:
    return vn.load_model(ROOT / "examples" / "models" / "e1.json").system


@contextlib.contextmanager
def opened(page: Path):
    """A page file open in Chromium, offline, loaded."""
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(profile)
        try:
            browser.command("Page.navigate", session=True, url=page.resolve().as_uri())
            browser.wait_for("Page.loadEventFired")
            browser.page = page.read_text(encoding="utf-8")
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def explorer(tmp_path_factory):
    """The E1 report (tree {L1, L2, R3, R4, R5}) open in Chromium."""
    page = tmp_path_factory.mktemp("explorer") / "e1.html"
    report(vn.load_model(ROOT / "examples" / "models" / "e1.json"), page, tree=E1_TREE,
           simulate=False)
    with opened(page) as browser:
        yield browser


def edge_label(name: str) -> str:
    """The selector of an edge's label in the drawing (edge ids are positions)."""
    return f"#edge-{e1_network().graph.edge_index(name)} text"


def click(browser: Browser, name: str) -> dict:
    browser.click(edge_label(name))
    return browser.evaluate(READ)


def expected_row(tree: list[str], edge: str) -> tuple[list[str], dict[str, int]]:
    """The columns and the row of ``edge`` in [CI] (a chord) or [CU] (a branch)."""
    topo = vn.Topology(e1_network().graph, tree=tree)
    matrix = topo.cutset if edge in topo.branches else topo.circuit
    values = matrix.toarray()[list(matrix.rows).index(edge)]
    return list(matrix.columns), {c: int(v) for c, v in zip(matrix.columns, values)}


def assert_shows(shown: dict, tree: list[str], edge: str) -> None:
    columns, values = expected_row(tree, edge)
    assert shown["row"]["label"] == edge
    assert shown["row"]["columns"] == columns
    assert shown["row"]["values"] == values
    assert shown["lit"] == {c: v for c, v in values.items() if v}
    drawn = {name: colour for name, (colour, _) in shown["colours"].items()}
    assert {name: drawn[name] for name in shown["lit"]} == \
        {c: {1: RED, -1: PURPLE}[v] for c, v in values.items() if v}
    assert not {RED, PURPLE} & {drawn[c] for c, v in values.items() if not v}
    dashed = {name for name, (_, dashes) in shown["colours"].items() if dashes != "none"}
    assert dashed == set(columns[len(tree):])                # the chords of that tree


def test_a_chord_shows_its_circuit_and_a_branch_its_cutset(explorer):
    start = explorer.evaluate(READ)
    assert start["tree"].startswith("Tree (the report's tree): L1, L2, R3, R4, R5.")
    assert start["row"] is None and start["lit"] == {}
    order = ["L1", "L2", "R3", "R4", "R5", "C6", "V7"]

    shown = click(explorer, "C6")
    assert "C6 is a chord" in shown["status"]
    assert [shown["row"]["values"][c] for c in order] == E1_CI[0].tolist()   # McPhee's row
    assert_shows(shown, E1_TREE, "C6")
    shown = click(explorer, "C6")                                            # let go
    assert shown["row"] is None and shown["lit"] == {}

    shown = click(explorer, "R4")
    assert "R4 is a branch" in shown["status"]
    assert [shown["row"]["values"][c] for c in order] == E1_CU[3].tolist()
    assert_shows(shown, E1_TREE, "R4")
    click(explorer, "R4")


def test_swaps_keep_a_tree_and_refusals_say_why(explorer):
    click(explorer, "C6")
    refused = click(explorer, "R5")             # not on C6's circuit: a circuit would stay
    assert refused["status"].startswith("Refused: R5 is not on the fundamental circuit of C6")
    assert "circuit" in refused["status"]
    assert_shows(refused, E1_TREE, "C6")         # nothing changed

    swapped = click(explorer, "R3")             # on C6's circuit
    tree = ["L1", "L2", "C6", "R4", "R5"]        # C6 in R3's place, as in the matrices
    assert swapped["status"].startswith("Swapped: C6 is now a branch and R3 a chord.")
    assert swapped["tree"] == "Tree: L1, L2, C6, R4, R5. Cotree: R3, V7."
    assert_shows(swapped, tree, "C6")            # C6's cutset in the new tree
    click(explorer, "C6")
    assert_shows(click(explorer, "R3"), tree, "R3")
    click(explorer, "R3")

    click(explorer, "L1")                       # only V7 crosses L1's cut
    refused = click(explorer, "R3")
    assert refused["status"].startswith("Refused: R3 is not in the fundamental cutset of L1")
    assert "disconnect" in refused["status"]
    assert_shows(refused, tree, "L1")

    explorer.click("#explorer-normal")
    normal = explorer.evaluate(READ)
    assert normal["tree"].startswith("Tree (the normal tree): ")
    # a normal tree of E1: the source and the capacitor are branches, the inductors chords
    branches = normal["tree"].split(": ")[1].split(". ")[0].split(", ")
    assert {"V7", "C6"} <= set(branches) and not {"L1", "L2"} & set(branches)
    assert len(set(branches)) == 5
    assert_shows(click(explorer, "V7"), branches, "V7")
    click(explorer, "V7")
    assert normal["row"] is None
    explorer.click("#explorer-user")
    assert explorer.evaluate(READ)["tree"].startswith("Tree (the report's tree): L1, L2, R3")


def test_the_page_ran_offline_without_errors_under_its_own_policy(explorer):
    assert explorer.evaluate("navigator.onLine") is False
    assert explorer.problems() == []
    scripts = re.findall(r"<script>(.*?)</script>", explorer.page, re.S)
    assert len(scripts) == 2                    # KaTeX, and the typesetting and explorer
    policy = explorer.evaluate(  # as the browser read it
        "document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]').content")
    hashes = " ".join("'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()
                      + "'" for s in scripts)
    assert policy == f"{CONTENT_SECURITY_POLICY}; script-src {hashes}"
    assert explorer.evaluate("document.querySelectorAll('pre.tex.typeset').length") >= 5
    data = explorer.evaluate("document.getElementById('explorer-data').textContent")
    assert json.loads(data)["edges"] == list(e1_network().graph.edges)


def test_hostile_names_are_shown_as_typed(monkeypatch, tmp_path):
    allow_any_name(monkeypatch)
    names = ["</pre><script>document.title='XSS1'</script>",
             "<img src=x onerror=\"document.title='XSS2'\">", "a&amp;b\"'\\u003c/pre>"]
    net = vn.Network("hostile")
    net.add(vn.VoltageSource("Vs", "g", "a", V=1.0), vn.Resistor(names[0], "a", "b", R=1.0),
            vn.Capacitor(names[1], "b", "g", C=1.0), vn.Resistor(names[2], "a", "g", R=1.0))
    page = tmp_path / "hostile.html"
    report(net, page, simulate=False)
    with opened(page) as browser:
        browser.click(f"#edge-{net.graph.edge_index(names[2])} text")
        shown = browser.evaluate(READ)
        assert browser.evaluate("document.title") == "hostile — vecnet report"
        assert browser.problems() == []
    assert shown["row"]["label"] == names[2]
    assert set(shown["row"]["columns"]) == {"Vs", *names}
    topo = vn.Topology(net.graph, tree=shown["tree"].split(": ")[1].split(". Cotree")[0]
                       .split(", "))
    assert shown["row"]["values"] == dict(zip(topo.circuit.columns, topo.circuit.toarray()[
        list(topo.circuit.rows).index(names[2])].tolist()))
