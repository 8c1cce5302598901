# Everything a fresh machine needs: `make demo` runs the main job, `make test` the tests.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Root installs system packages directly; anyone else goes through sudo when it is there.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test bench graphviz clean

demo: $(STAMP) graphviz
	$(PY) examples/topology_e1.py

test: $(STAMP) graphviz
	$(PY) -m pytest -q -n 2

bench: $(STAMP)
	$(PY) -m pip install -q -e '.[test,bench]'
	$(PY) benchmarks/topology.py
	$(PY) benchmarks/lumped.py
	$(PY) benchmarks/planar.py

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

# The Graphviz `dot` program renders diagrams; install it when missing and a package manager is at hand.
graphviz:
	@command -v dot >/dev/null 2>&1 || { \
	  if command -v apt-get >/dev/null 2>&1; then \
	    $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq graphviz >/dev/null; \
	  elif command -v dnf >/dev/null 2>&1; then $(SUDO) dnf install -y -q graphviz; \
	  elif command -v brew >/dev/null 2>&1; then brew install graphviz; \
	  else echo "note: Graphviz 'dot' not found; diagrams will be DOT text only"; fi; }

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis
