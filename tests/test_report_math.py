"""The report's formulas in a real browser, and exact numbers from a model file to every output.

Facts checked from outside the code:

* headless Chromium, networking off, loads the motor-pump and four-bar reports as
  written (their own Content-Security-Policy, with the hash of a probe script of
  the test added): every ``pre.tex`` was typeset by KaTeX, no ``.katex-error``
  node and no raw ``\\begin`` text outside KaTeX's MathML annotation (and the
  scripts), and the page is no wider than the window (long formulas scroll in
  their own box); a screenshot of each goes to ``tmp_path``;
* a name that tries to leave the LaTeX (``\\href{javascript:...}``, ``</script>``)
  runs nothing and is shown as text;
* ``pi/2`` in pendulum.json stays ``pi/2`` in ``vecnet equations`` and in the
  report's LaTeX; ``1/3`` stays exact, ``0.1`` shows as ``0.1``, numeric floats
  to 4 significant digits.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import sympy

import vecnet as vn
from test_output_escaping import allow_any_name
from test_report_browser import CHROMIUM, chromium, console_errors
from vecnet.io.expressions import parse_expression
from vecnet.output.report import report

ROOT = Path(__file__).parent.parent
MODELS = ROOT / "examples" / "models"
WIDTH = 1200
OFFLINE = ["--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=socks5://127.0.0.1:9",
           "--proxy-bypass-list=<-loopback>", "--virtual-time-budget=5000"]

#: Runs after the page's scripts and writes what it measured into the title.
PROBE = """(function () {
  function measure() {
    var raw = 0, walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      var node = walker.currentNode;
      if (node.nodeValue.indexOf("\\\\begin") >= 0 &&
          !node.parentNode.closest("annotation, script, #explorer-data"))
        raw += 1;
    }
    document.title = "PROBE" + JSON.stringify({
      blocks: document.querySelectorAll("pre.tex").length,
      typeset: document.querySelectorAll("pre.tex.typeset").length,
      katex: document.querySelectorAll("pre.tex .katex").length,
      errors: document.querySelectorAll(".katex-error").length,
      raw: raw, scrollWidth: document.body.scrollWidth,
      pageWidth: document.documentElement.scrollWidth, viewport: window.innerWidth,
      ms: performance.now()});
  }
  document.fonts.ready.then(measure);
})();"""


def with_probe(page: str) -> str:
    """The page with :data:`PROBE` after its own scripts, allowed by its hash."""
    digest = base64.b64encode(hashlib.sha256(PROBE.encode()).digest()).decode()
    assert page.count("script-src ") == 1
    page = page.replace("script-src ", f"script-src 'sha256-{digest}' ", 1)
    return page.replace("</body>", f"<script>{PROBE}</script></body>", 1)


def load(path: Path, shot: Path) -> tuple[dict, str]:
    """One Chromium run, offline: the probe's measurements, the DOM, and a screenshot."""
    run = chromium(*OFFLINE, f"--window-size={WIDTH},2400", f"--screenshot={shot}",
                   "--dump-dom", path.resolve().as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    assert console_errors(run.stderr) == [], console_errors(run.stderr)
    title = re.search(r"<title>PROBE(.*?)</title>", run.stdout, re.S)
    assert title, "the probe did not run"
    return json.loads(title.group(1).replace("&quot;", '"').replace("&amp;", "&")), run.stdout


needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")


@needs_chromium
@pytest.mark.parametrize("name", ["motor_pump", "fourbar"])
def test_katex_typesets_every_formula_within_the_page(tmp_path, name):
    page = report(vn.load_model(MODELS / f"{name}.json"))
    path = tmp_path / f"{name}.html"
    path.write_text(with_probe(page), encoding="utf-8")
    shot = tmp_path / f"report-{name}.png"
    facts, dom = load(path, shot)
    assert facts["blocks"] >= 5                           # 4 matrices and the equations
    assert facts["typeset"] == facts["blocks"] == facts["katex"]
    assert facts["errors"] == 0 and facts["raw"] == 0
    assert facts["scrollWidth"] <= facts["viewport"] == WIDTH
    assert facts["pageWidth"] <= WIDTH
    assert "katex-mathml" in dom and "<svg" in dom
    assert shot.stat().st_size > 20_000


@needs_chromium
def test_names_that_try_to_leave_the_latex_stay_text(monkeypatch, tmp_path):
    allow_any_name(monkeypatch)
    hostile = ["R\\href{javascript:document.title='XSS-href'}{x}",
               "C</script><script>document.title='XSS-close'</script>",
               "L}\\end{aligned}\\htmlClass{x}{y}\\def\\a{\\a}\\a"]
    net = vn.Network("net \\href{javascript:alert(1)}{x}")
    net.add(vn.VoltageSource("Vs", "g", "a", V=1.0), vn.Resistor(hostile[0], "a", "b", R=1.0),
            vn.Inductor(hostile[2], "b", "c", L=1.0), vn.Capacitor(hostile[1], "c", "g", C=1.0))
    page = report(net, simulate=False)
    assert "<script><script>" not in page and "</script><script>document" not in page
    path = tmp_path / "hostile.html"
    path.write_text(with_probe(page), encoding="utf-8")
    facts, dom = load(path, tmp_path / "hostile.png")
    assert facts["typeset"] == facts["blocks"] and facts["errors"] == 0
    assert "XSS" not in re.search(r"<title>(.*?)</title>", dom, re.S).group(1)
    assert "javascript:" not in "".join(re.findall(r'href="([^"]*)"', dom))
    assert not re.search(r"<a\b[^>]*\shref=", dom)       # no link came out of \href
    for name in hostile:                                   # the names, shown as typed
        assert name.replace("<", "&lt;").replace(">", "&gt;") in dom


def test_model_expressions_stay_exact_and_decimals_show_as_written():
    x = sympy.Symbol("x")
    assert parse_expression("pi/2", {}) == sympy.pi / 2
    assert parse_expression("1/3", {}) == sympy.Rational(1, 3)
    expr = parse_expression("0.1*x + 1/3 + pi/2", {"x": x})
    assert vn.text(expr) == "0.1*x + 1/3 + pi/2"
    assert vn.latex(expr) == r"0.1 x + \frac{1}{3} + \frac{\pi}{2}"
    assert vn.text(x * 0.08333333333333333 + 3.9240000000000004) == "0.08333*x + 3.924"


def test_pendulum_angle_stays_pi_over_2():
    run = subprocess.run([sys.executable, "-m", "vecnet.cli", "equations",
                          str(MODELS / "pendulum.json")],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert "1.571" not in run.stdout and ("pi/2" in run.stdout or "π/2" in run.stdout)
    page = report(vn.load_model(MODELS / "pendulum.json"), simulate=False)
    assert "1.571" not in page and r"\frac{\pi}{2}" in page
