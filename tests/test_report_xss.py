"""Reports of models whose names carry XSS payloads run no script (issue 10).

Every payload tries to set ``document.title`` (without a dot in the name: dots
separate port and point names). The payloads go into element, node, joint, body,
point and parameter symbol names and into the model name and description, of a
network and of a planar mechanism; the name policy is switched off so that the
outputs are tested on their own.

Facts checked from outside the code:

* the page files, parsed with :mod:`html.parser`: no ``script`` but the page's own
  two (KaTeX and the call that typesets), no ``iframe``, ``img`` ... element, no
  ``on...`` attribute, no ``javascript:`` value, no comment, and every payload
  present as text (or, escaped, in the LaTeX text that KaTeX typesets);
* two headless Chromium runs (``--dump-dom``): the network page (its own
  Content-Security-Policy removed, so that the escaping alone is measured) with
  the mechanism page's body added, and the mechanism page as written with a
  script of the test's own added (the policy must block it). In both,
  ``document.title`` is untouched and the dumped DOM holds no injected element.
"""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import sympy

from test_output_escaping import allow_any_name, hostile_mechanism, hostile_network
from test_report_browser import CHROMIUM, chromium, console_errors
from vecnet import latex
from vecnet.builders.model import Model
from vecnet.output.report import (
    _RENDER_SCRIPT,
    CONTENT_SECURITY_POLICY,
    content_security_policy,
    report,
)

ROOT = Path(__file__).parent.parent

PAYLOADS = [
    "<script>document['title']='XSS0'</script>",
    "<img src=x onerror=document['title']='XSS1'>",
    "<svg/onload=document['title']='XSS2'>",
    "\"><script>document['title']='XSS3'</script>",
    "'><img src=x onerror=document['title']='XSS4'>",
    "<a href=\"javascript:document['title']='XSS5'\">link</a>",
    "--><script>document['title']='XSS6'</script><!--",
    "</math><script>document['title']='XSS7'</script>",
    "]]><script>document['title']='XSS8'</script>",
    "<![CDATA[</mi><img src=x onerror=document['title']='XSS9'>]]>",
    "<iframe srcdoc=\"<script>parent['document']['title']='XSS10'</script>\"></iframe>",
    "<svg><a xlink:href=\"javascript:document['title']='XSS11'\"><text>x</text></a></svg>",
    "<div style=\"width:expression(document['title']='XSS12')\">",
    "<style>*{background:url('javascript:document[\"title\"]=\"XSS13\"')}</style>",
    "</title><script>document['title']='XSS14'</script>",
    "<details open ontoggle=document['title']='XSS15'>",
    "</style></svg></pre><script>document['title']='XSS16'</script>",
    "<math><mtext><table><mglyph><style><img src=x onerror=document['title']='XSS17'>",
    # out of the LaTeX that KaTeX reads, and out of the script element around KaTeX
    "}\\end{aligned}\\href{javascript:document['title']='XSS18'}{x}</script><script>"
    "document['title']='XSS18'</script>",
]
#: The page's own scripts (KaTeX and the call that typesets the formulas); any other
#: script in a page means a name became markup.
OWN_SCRIPTS = {(ROOT / "vecnet" / "output" / "static" / "katex" / "katex.min.js").read_text(encoding="utf-8"),
               _RENDER_SCRIPT}
#: Elements no report has; any of them in a page means a name became markup.
INJECTED = {"script", "iframe", "img", "object", "embed", "details", "foreignobject",
            "frame", "frameset", "base", "form", "input", "link", "mglyph", "div"}


class Page(HTMLParser):
    """What a browser's parser sees in a page: elements, attributes, comments and text."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str, str]] = []
        self.comments: list[str] = []
        self.text: list[str] = []
        self.title = ""
        self.scripts: list[str] = []
        self._in_title = self._in_script = False
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes += [(tag, key, value or "") for key, value in attrs]
        self._in_title = tag == "title"  # the page's is the first; the SVG's come later
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data
            return
        self.text.append(data)
        if self._in_title and not self.title:
            self.title = data

    def handle_comment(self, data):
        self.comments.append(data)

    def handle_pi(self, data):
        self.comments.append(data)


#: Attributes whose value a browser reads as a URL or as code; other values (id, title)
#: are plain data even when they hold a payload's text.
ACTIVE = {"href", "xlink:href", "src", "srcdoc", "action", "formaction", "data", "poster",
          "background", "style", "values", "from", "to", "by"}


def injected(page: Page) -> list:
    """Elements and attributes that no report has of its own."""
    own = sum(script in OWN_SCRIPTS for script in page.scripts)
    bad = [t for t in page.tags if t in INJECTED]
    for _ in range(own):
        bad.remove("script")
    for tag, key, value in page.attributes:
        compact = "".join(value.split()).lower()
        if key.startswith("on") or key in ("srcdoc", "src", "formaction", "background"):
            bad.append((tag, key, value))
        elif key in ACTIVE and ("javascript:" in compact or "expression(" in compact):
            bad.append((tag, key, value))
        elif key.endswith("href") and not value.startswith("#"):
            bad.append((tag, key, value))
    return bad


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The network and mechanism reports (paths and models), written once."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        allow_any_name(monkeypatch)
        folder = tmp_path_factory.mktemp("xss")
        net, values = hostile_network(PAYLOADS[1:], name=PAYLOADS[0])
        net_model = Model("network", net, parameters=values, description=PAYLOADS[-1])
        bodies = math.ceil(len(PAYLOADS) / 5)
        mech, values = hostile_mechanism(PAYLOADS[2:] + PAYLOADS[:2], name=PAYLOADS[14],
                                         bodies=bodies)
        mech_model = Model("mechanism", mech, parameters=values, description=PAYLOADS[6],
                           t_span=(0.0, 0.2))
        paths = {"network": folder / "network.html", "mechanism": folder / "mechanism.html"}
        report(net_model, paths["network"])
        report(mech_model, paths["mechanism"])
    return paths, {"network": net_model, "mechanism": mech_model}


@pytest.mark.parametrize("kind", ["network", "mechanism"])
def test_page_files_hold_the_payloads_as_text(pages, kind):
    paths, models = pages
    markup = paths[kind].read_text(encoding="utf-8")
    page = Page(markup)
    assert injected(page) == []
    assert page.comments == []
    assert page.title == f"{models[kind].name} — vecnet report"
    text = "".join(page.text)
    for payload in PAYLOADS:                                     # shown, not dropped:
        escaped = latex(sympy.Symbol(payload))                   # as text or in the LaTeX
        assert payload in text or escaped[len(r"\mathrm{"):-1] in text, payload
    csp = [v for t, k, v in page.attributes if t == "meta" and k == "content"
           and ("meta", "http-equiv", "Content-Security-Policy") in page.attributes]
    # the page's own scripts (KaTeX and the call that typesets) by hash, nothing else
    scripts = re.findall(r"<script>(.*?)</script>", markup, re.S)
    assert len(scripts) == 2
    assert csp == [content_security_policy(scripts)]
    assert csp[0].startswith(CONTENT_SECURITY_POLICY + "; script-src 'sha256-")
    assert "default-src 'none'" in csp[0] and "unsafe-inline' " not in csp[0].split("script-src")[1]


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
def test_no_payload_runs_in_chromium(pages, tmp_path):
    paths, models = pages
    network = paths["network"].read_text(encoding="utf-8")
    mechanism = paths["mechanism"].read_text(encoding="utf-8")
    body = mechanism[mechanism.index("<body>") + len("<body>"):mechanism.rindex("</body>")]

    # 1. escaping alone: both reports in one page, without the policy
    bare = network
    start = network.find('<meta http-equiv="Content-Security-Policy"')
    if start >= 0:  # (the page file test checks that it is there)
        bare = network[:start] + network[network.index(">", start) + 1:]
    bare = bare[:bare.rindex("</body>")] + body + "</body></html>\n"
    assert "Content-Security-Policy" not in bare
    # 2. the policy: the mechanism page as written, with a script of our own
    walled = mechanism.replace("<body>", "<body><script>document.title='CSP-FAILED'</script>", 1)
    runs = [(bare, models["network"]), (walled, models["mechanism"])]
    for i, (markup, model) in enumerate(runs):
        path = tmp_path / f"page{i}.html"
        path.write_text(markup, encoding="utf-8")
        run = chromium("--virtual-time-budget=3000", "--dump-dom", path.resolve().as_uri())
        assert run.returncode == 0, run.stderr[-2000:]
        dom = Page(run.stdout)
        assert dom.title == f"{model.name} — vecnet report", dom.title   # no script ran
        assert not dom.title.startswith(("XSS", "CSP-FAILED"))
        assert injected(dom) == (["script"] if i == 1 else [])   # only the test's own script
        assert {"svg", "math"} <= set(dom.tags)                  # the page rendered
        assert 'class="tex typeset"' in run.stdout               # KaTeX ran (its hash)
        if i == 0:
            assert console_errors(run.stderr) == []
