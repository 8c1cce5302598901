"""The studio's page: one HTML document with KaTeX (the report's, fonts inlined) and the
studio's script (``vecnet/output/static/studio.js``), under a Content-Security-Policy that
runs exactly those two scripts (by their hashes), loads nothing from anywhere and lets the
page talk to its own server alone (``connect-src 'self'``).

>>> page = studio_page("abc")
>>> "connect-src 'self'" in page.policy and page.html.count("<script>") == 2
True
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from ..output.report import (
    CONTENT_SECURITY_POLICY,
    content_security_policy,
    katex_assets,
    script_json,
)

__all__ = ["studio_page", "StudioPage"]


@dataclass(frozen=True)
class StudioPage:
    html: str
    policy: str


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 0; color: #222; }
header { padding: 0.4rem 0.8rem; background: #345; color: white; display: flex;
         gap: 0.6rem; align-items: center; flex-wrap: wrap; }
header h1 { font-size: 1.1rem; margin: 0 1rem 0 0; }
header button, header select, header input, header label { font-size: 0.85rem; }
header .mode[aria-pressed="true"] { background: #fc6; }
main { display: grid; grid-template-columns: minmax(420px, 1fr) minmax(420px, 1fr); }
#canvas-box { border-right: 1px solid #ccc; }
#canvas { width: 100%; height: 560px; background: #fbfbfb; cursor: crosshair; }
#canvas .node circle { fill: white; stroke: #345; stroke-width: 2; }
#canvas .node text, #canvas .edge text { font-size: 12px; pointer-events: none; }
#canvas .node.picked circle { fill: #fc6; }
#canvas .edge line { stroke-width: 2; stroke: #888; stroke-dasharray: 6 4; }
#canvas .edge.branch line { stroke: #1f5fa8; stroke-width: 4; stroke-dasharray: none; }
#canvas .edge.selected line { stroke: #d62728; }
#canvas .edge .hit { stroke: transparent; stroke-width: 14; stroke-dasharray: none; cursor: pointer; }
#form { padding: 0.5rem 0.8rem; border-top: 1px solid #ddd; font-size: 0.9rem; }
#form label { margin-right: 0.6rem; }
#message { padding: 0.3rem 0.8rem; min-height: 1.3rem; color: #a00; font-size: 0.9rem; }
#panels { padding: 0.5rem 1rem; overflow: auto; max-height: calc(100vh - 3rem); }
#panels h2 { font-size: 1rem; color: #345; margin: 1rem 0 0.3rem; }
#diagnosis { white-space: pre-wrap; font-family: monospace; font-size: 0.85rem; }
#notes { color: #8a5a00; font-size: 0.85rem; }
table.matrix { border-collapse: collapse; font-family: monospace; font-size: 0.8rem; }
table.matrix th, table.matrix td { padding: 0.1rem 0.35rem; text-align: right; }
table.matrix th { color: #555; font-weight: normal; }
table.matrix td.bar { border-left: 1px solid #333; }
table.matrix .hot { background: #ffe9a8; }
table.matrix td.plus { color: #d62728; } table.matrix td.minus { color: #7b3fb0; }
.step { overflow-x: auto; }
"""

_BODY = """
<header>
  <h1>vecnet studio: <span id="title"></span></h1>
  <button id="new-network">New network</button><button id="new-mechanism">New mechanism</button>
  <button class="mode" data-mode="node" aria-pressed="true">Add node</button>
  <button class="mode" data-mode="edge" aria-pressed="false">Add edge</button>
  <button class="mode" data-mode="tree" aria-pressed="false">Pick tree</button>
  <button class="mode" data-mode="delete" aria-pressed="false">Delete</button>
  <button id="normal">Normal tree</button>
  <label>H(s) of <input id="outputs" size="14" placeholder="C1.across, ..."></label>
  <button id="undo">Undo</button><button id="redo">Redo</button>
  <label>Open <input id="open" type="file" accept=".json"></label>
  <button id="save">Save model</button>
  <button id="svg">SVG</button><button id="tikz">TikZ</button>
  <button id="steps-json">Steps JSON</button><button id="steps-tex">Steps LaTeX</button>
  <button id="report">Report</button><button id="simulate">Simulate</button>
</header>
<main>
  <section id="canvas-box">
    <svg id="canvas" xmlns="http://www.w3.org/2000/svg" role="img"
         aria-label="the linear graph"></svg>
    <div id="form">
      <label>Element <select id="type"></select></label>
      <label>Name <input id="name" size="6"></label>
      <span id="parameters"></span>
      <div id="hint">Click on the canvas to place nodes.</div>
    </div>
    <div id="message" role="status"></div>
    <div id="plot"></div>
  </section>
  <section id="panels">
    <h2>Diagnosis</h2><div id="diagnosis"></div><ul id="notes"></ul>
    <h2>Matrices</h2><div id="matrices"></div>
    <h2>Steps from the graph to the equations</h2><div id="steps"></div>
  </section>
</main>
"""


def studio_page(token: str) -> StudioPage:
    """The page for the run whose token is ``token`` (in a JSON data element, read by the
    script; never markup)."""
    katex_script, katex_style = katex_assets()
    from importlib import resources

    script = (resources.files("vecnet.output") / "static" / "studio.js").read_text("utf-8")
    policy = content_security_policy([katex_script, script]).replace(
        CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY + "; connect-src 'self'")
    data = script_json({"token": token})
    page = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy)}">'
            f"<title>vecnet studio</title><style>{katex_style}</style><style>{_STYLE}</style>"
            f"</head><body>{_BODY}"
            f'<script type="application/json" id="studio-data">{data}</script>'
            f"<script>{katex_script}</script><script>{script}</script></body></html>\n")
    return StudioPage(page, policy)
