# Everything a fresh machine needs: `make demo` runs the main job, `make test` the tests.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Root installs system packages directly; anyone else goes through sudo.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test test-min bench graphviz chromium system-package clean

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
	@echo "make test: sets up .venv, installs Graphviz and headless Chromium through the system package manager when they are missing, checks lint (ruff) and types (mypy), then runs the suite (about 4 minutes on 2 cores)"
	@$(MAKE) --no-print-directory $(STAMP) graphviz chromium
	$(PY) -m ruff check vecnet tests benchmarks
	$(PY) -m mypy
	$(PY) -m pytest -q -n 2

# The suite against the oldest supported dependencies (pinned in requirements-min.txt).
test-min: graphviz chromium
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

system-package:
	@if command -v apt-get >/dev/null 2>&1; then \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $(PACKAGE) >/dev/null; \
	elif command -v dnf >/dev/null 2>&1; then $(SUDO) dnf install -y -q $(PACKAGE); \
	elif command -v brew >/dev/null 2>&1; then brew install $(PACKAGE); \
	else echo "note: $(PACKAGE) not found and no package manager to install it"; fi

clean:
	rm -rf $(VENV) .venv-min out .pytest_cache .hypothesis
