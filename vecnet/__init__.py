"""vecnet: equations of physical systems from linear graphs.

>>> import vecnet as vn
>>> g = vn.LinearGraph([("R", "a", "b"), ("C", "b", "g"), ("V", "g", "a")])
>>> g.topology(tree=["R", "C"]).chords
('V',)

Every public name is imported when first used (PEP 562), so that ``import vecnet`` and
the ``vecnet`` command start without loading sympy, scipy, networkx or matplotlib.
"""

from __future__ import annotations

import importlib
from typing import Any

from .errors import *  # noqa: F403 - the errors are light, and public as they are
from .errors import __all__ as _ERRORS

__version__ = "0.1.0"

#: the subpackages and modules reached as attributes -> where they live
_MODULES = {"io": "io", "planar": "planar", "samples": "studies.samples", "spatial": "spatial"}

#: public name -> the module that defines it (the elements are the rest, see __getattr__)
_NAMES = {
    # graphs and topology
    "LinearGraph": "graph.graph", "Topology": "graph.topology", "LabeledMatrix": "graph.matrix",
    "check_tree": "graph.topology", "incidence_matrix": "graph.topology",
    "spanning_forest": "graph.topology",
    # domains, elements, networks, mechanisms and coupled systems
    "Domain": "core.domains", "DOMAINS": "core.domains", "domain": "core.domains",
    "EdgeVariables": "elements.base", "Symbol": "elements.base", "t": "elements.base",
    "Network": "builders.network", "System": "builders.system",
    "Material": "elements.beam", "Section": "elements.beam",
    "Block": "elements.signals", "Gain": "elements.signals",
    "Integrator": "elements.signals", "PID": "elements.signals", "total": "elements.signals",
    "s": "formulation.lumped",
    # simulation of every kind of model, and numeric analyses of linear networks
    "simulate": "numerics.simulation", "operating_point": "numerics.analysis", "frequency_response": "numerics.analysis",
    # the algorithms over formulated equations (each record's methods forward to them)
    "compile": "numerics.algorithms", "assemble": "numerics.algorithms",
    "degrees_of_freedom": "numerics.algorithms", "forward_dynamics": "numerics.algorithms",
    "inverse_dynamics": "numerics.algorithms", "equilibrium": "numerics.algorithms",
    "steady_motion": "numerics.algorithms", "initial_speeds": "numerics.algorithms", "linearize": "numerics.algorithms",
    "formulate": "formulation.formulate", "NetworkEquations": "formulation.lumped",
    "state_space": "formulation.lumped", "sparse_state_space": "formulation.numeric",
    "response_at": "numerics.analysis", "step_response": "numerics.analysis",
    "linear_model": "numerics.analysis", "LinearModel": "formulation.linear_model",
    # parameter studies (pandas when a study runs, Dask when a client is given)
    "sweep": "studies.sweep",
    # output and files
    "draw": "output.draw", "to_dot": "output.draw", "to_tikz": "output.draw",
    "latex": "output.teaching",
    "text": "output.teaching",
    "newton_euler": "formulation.recursion", "picture": "output.picture",
    "animate": "output.picture", "animation_svg": "output.picture",
    "Model": "builders.model", "report": "output.report", "load_model": "io", "save_model": "io",
    "model_to_dict": "io",
    "load_netlist": "io", "write_netlist": "io", "parse_expression": "io",
    "format_expression": "io",
    "export_fmu": "output.fmu",
    # the studio: a graph drawn in the browser, every matrix and equation following
    "studio": "web.server",
    # bounds on the work of one request
    "Limits": "core.bounds", "get_limits": "core.bounds", "limits": "core.bounds",
}

def _elements() -> list[str]:
    return list(importlib.import_module(".elements", __name__).__all__)


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f".{_MODULES[name]}", __name__)
    if name == "__all__":
        return [*_NAMES, *_elements(), *_MODULES, *_ERRORS]
    module = _NAMES.get(name)
    if module is None:
        elements = importlib.import_module(".elements", __name__)
        if name not in elements.__all__:
            raise AttributeError(f"module 'vecnet' has no attribute {name!r}")
        value = getattr(elements, name)
    else:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value   # the next use is a plain lookup
    return value


def __dir__() -> list[str]:
    # the public names and the module's own dunders; not what the module imported for
    # itself (``importlib``, ``Any``) nor the stage packages loaded meanwhile
    return sorted({name for name in globals() if name.startswith("__")}
                  | {*_NAMES, *_MODULES, *_elements(), *_ERRORS})
