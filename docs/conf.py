"""Sphinx configuration of vecnet's documentation: the tutorials, the notebooks, the theory
and the API reference generated from the docstrings (``make docs``)."""

from __future__ import annotations

import os
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
nb_execution_mode = os.environ.get("VECNET_DOCS_EXECUTE", "force")
nb_execution_timeout = 300
nb_execution_raise_on_error = True

# "Mechanism" in a type hint is planar or spatial: the two stand for one another there
suppress_warnings = ["ref.python"]

html_theme = "alabaster"
html_title = f"vecnet {release}"
html_static_path: list[str] = []
