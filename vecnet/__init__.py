"""vecnet: equations of physical systems from linear graphs.

>>> import vecnet as vn
>>> g = vn.LinearGraph([("R", "a", "b"), ("C", "b", "g"), ("V", "g", "a")])
>>> g.topology(tree=["R", "C"]).chords
('V',)
"""

from .domains import DOMAINS, Domain, domain
from .elements import *  # noqa: F401,F403
from .elements import __all__ as _elements
from .elements.base import EdgeVariables, Symbol, t
from . import planar
from .errors import (FormulationError, ModelError, SimulationError, TopologyError, TreeError,
                     UnknownNameError, VecnetError)
from .formulation.lumped import s
from .elements.signals import PID, Block, Gain, Integrator, total
from .formulation.coupled import System
from .graph import LinearGraph
from .matrix import LabeledMatrix
from .network import Network
from .topology import Topology, check_tree, incidence_matrix, spanning_forest

__version__ = "0.1.0"

__all__ = [
    "Symbol", "t", "Domain", "DOMAINS", "domain", "EdgeVariables", *_elements,
    "VecnetError", "ModelError", "TopologyError", "TreeError", "UnknownNameError",
    "FormulationError", "SimulationError", "s", "LinearGraph", "LabeledMatrix", "Network", "Topology", "check_tree",
    "incidence_matrix", "spanning_forest", "planar", "System", "Block", "Gain", "Integrator",
    "PID", "total",
]

from .draw import draw, to_dot  # noqa: E402
from .teaching import latex, text  # noqa: E402

__all__ += ["draw", "to_dot", "latex", "text"]

# model files, netlists and safe expressions
from . import io  # noqa: E402
from .errors import ModelFileError  # noqa: E402
from .io import (format_expression, load_model, load_netlist, model_to_dict,  # noqa: E402
                 parse_expression, save_model)

__all__ += ["io", "ModelFileError", "parse_expression", "format_expression", "load_model",
            "save_model", "model_to_dict", "load_netlist"]
