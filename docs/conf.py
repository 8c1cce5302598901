"""Sphinx configuration of vecnet's documentation: the tutorials, the notebooks, the theory
and the API reference generated from the docstrings (``make docs``)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import vecnet  # noqa: E402

project = "vecnet"
author = "the vecnet authors"
copyright = "vecnet authors"
release = version = vecnet.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "myst_nb",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "images/make_images.py", "**/.ipynb_checkpoints"]

autosummary_generate = True
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
napoleon_google_docstring = False
napoleon_numpy_docstring = True

myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
# The notebooks run while the site is built (``make docs``); the test suite runs them with
# nbclient on its own and builds the site with execution off (``-D nb_execution_mode=off``).
nb_execution_mode = "force"
nb_execution_timeout = 300
nb_execution_raise_on_error = True

# "Mechanism" in a type hint is planar or spatial: the two stand for one another there
suppress_warnings = ["ref.python"]

html_theme = "alabaster"
html_title = f"vecnet {release}"
# the KaTeX of vecnet's reports typesets the math (no web access needed to read the site)
html_static_path = ["_static", str(ROOT / "vecnet" / "output" / "static")]
html_css_files = ["katex/katex.min.css"]
html_js_files = ["katex/katex.min.js", "render-math.js"]
html_math_renderer = "katex"


def setup(app):
    from sphinx.ext import mathjax

    # MathJax's markup (\( \) and \[ \] in elements of class "math"), typeset by
    # render-math.js instead of MathJax from a CDN
    app.add_html_math_renderer("katex", (mathjax.html_visit_math, None),
                               (mathjax.html_visit_displaymath, None))
