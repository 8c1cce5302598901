# Everything a fresh machine needs: `make demo` runs the main job, `make test` the tests.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Root installs system packages directly; anyone else goes through sudo.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test test-min bench docs graphviz chromium latex system-package clean

# The main job: teaching reports and simulation plots of a motor-pump network, a four-bar
# and a spatial four-bar (RSSR).
demo: $(STAMP) graphviz
	@mkdir -p out
	$(PY) -m vecnet.cli report examples/models/motor_pump.json --output out/motor_pump.html
	$(PY) -m vecnet.cli simulate examples/models/motor_pump.json --output out/motor_pump.png
	$(PY) -m vecnet.cli report examples/models/fourbar.json --output out/fourbar.html
	$(PY) -m vecnet.cli simulate examples/models/fourbar.json --output out/fourbar.png
	$(PY) -m vecnet.cli report examples/models/rssr.json --output out/rssr.html
	$(PY) -m vecnet.cli simulate examples/models/rssr.json --output out/rssr.png

test:
	@echo "make test: sets up .venv, installs Graphviz, headless Chromium and pdflatex through the system package manager when they are missing, checks lint (ruff) and types (mypy), then runs the suite (about 6 minutes on 2 cores)"
	@$(MAKE) --no-print-directory $(STAMP) graphviz chromium latex
	$(PY) -m ruff check vecnet tests benchmarks
	$(PY) -m mypy
	$(PY) -m pytest -q -n 2

# The documentation site: tutorials, the notebooks (run while it is built), the theory and
# the API reference from the docstrings; a warning fails the build.
docs: $(STAMP) graphviz latex
	$(PY) -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "$(CURDIR)/docs/_build/html/index.html"

# The suite against the oldest supported dependencies (pinned in requirements-min.txt).
test-min: graphviz chromium latex
	$(PYTHON) -m venv .venv-min
	.venv-min/bin/python -m pip install -q -r requirements-min.txt
	.venv-min/bin/python -m pip install -q --no-deps -e .
	.venv-min/bin/python -m pytest -q -n 2

bench: $(STAMP)
	$(PY) -m pip install -q -e '.[test,bench]'
	@command -v ngspice >/dev/null 2>&1 || $(MAKE) --no-print-directory system-package PACKAGE=ngspice
	$(PY) benchmarks/topology.py
	$(PY) benchmarks/lumped.py
	$(PY) benchmarks/planar.py
	$(PY) benchmarks/spatial.py
	$(PY) benchmarks/large.py
	$(PY) benchmarks/studies.py
	$(PY) benchmarks/multibody.py
	$(PY) benchmarks/loops.py
	$(PY) benchmarks/animation.py
	$(PY) benchmarks/contact.py
	$(PY) benchmarks/codegen.py

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	$(PY) -c "from vecnet.numerics.bodyspace import compile_kernels; compile_kernels()"
	touch $(STAMP)

# System programs, installed when missing and a package manager is at hand:
# Graphviz `dot` renders diagrams; headless Chromium runs the report's end-to-end test.
graphviz:
	@command -v dot >/dev/null 2>&1 || $(MAKE) --no-print-directory system-package PACKAGE=graphviz

chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  $(MAKE) --no-print-directory system-package PACKAGE=chromium

# pdflatex compiles the TikZ diagrams (`vecnet draw --format tikz`): LaTeX itself, TikZ and
# the preview package that crops the page to the picture. Debian's texlive-pictures recommends
# ruby and tk, which TikZ does not use, hence no recommends (18 packages instead of 49).
latex:
	@command -v pdflatex >/dev/null 2>&1 && kpsewhich tikz.sty preview.sty >/dev/null 2>&1 || \
	  $(MAKE) --no-print-directory system-package APT_OPTIONS=--no-install-recommends \
	    PACKAGE="texlive-latex-base texlive-pictures preview-latex-style" \
	    DNF_PACKAGE="texlive-latex texlive-pgf texlive-preview" BREW_PACKAGE=texlive

# PACKAGE names the Debian packages; DNF_PACKAGE and BREW_PACKAGE others where they differ.
system-package:
	@if command -v apt-get >/dev/null 2>&1; then \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $(APT_OPTIONS) $(PACKAGE) >/dev/null; \
	elif command -v dnf >/dev/null 2>&1; then $(SUDO) dnf install -y -q $(or $(DNF_PACKAGE),$(PACKAGE)); \
	elif command -v brew >/dev/null 2>&1; then brew install $(or $(BREW_PACKAGE),$(PACKAGE)); \
	else echo "note: $(PACKAGE) not found and no package manager to install it"; fi

clean:
	rm -rf $(VENV) .venv-min out .pytest_cache .hypothesis docs/_build docs/api/generated
