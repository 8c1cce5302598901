"""vecnet: equations of physical systems from linear graphs.

>>> import vecnet as vn
>>> g = vn.LinearGraph([("R", "a", "b"), ("C", "b", "g"), ("V", "g", "a")])
>>> g.topology(tree=["R", "C"]).chords
('V',)
"""

from . import io, planar, samples, spatial
from .bounds import Limits, get_limits, limits
from .domains import DOMAINS, Domain, domain
from .draw import draw, to_dot
from .elements import *  # noqa: F401,F403
from .elements import __all__ as _elements
from .elements.base import EdgeVariables, Symbol, t
from .elements.signals import PID, Block, Gain, Integrator, total
from .errors import (FormulationError, ModelError, ModelFileError, SimulationError,
                     TopologyError, TreeError, UnknownNameError, VecnetError, VecnetWarning)
from .formulation.coupled import System
from .formulation.lumped import s
from .formulation.numeric import UnsupportedNetwork
from .graph import LinearGraph
from .io import (format_expression, load_model, load_netlist, model_to_dict, parse_expression,
                 save_model, write_netlist)
from .matrix import LabeledMatrix
from .network import Network
from .numerics.analysis import NoOperatingPoint, frequency_response, operating_point
from .report import report
from .studies import sweep
from .teaching import latex, text
from .topology import Topology, check_tree, incidence_matrix, spanning_forest

__version__ = "0.1.0"

__all__ = [
    # graphs and topology
    "LinearGraph", "Topology", "LabeledMatrix", "check_tree", "incidence_matrix",
    "spanning_forest",
    # elements, networks, mechanisms and coupled systems
    *_elements, "Domain", "DOMAINS", "domain", "EdgeVariables", "Network", "planar", "spatial", "System",
    "Block", "Gain", "Integrator", "PID", "total", "Symbol", "t", "s",
    # numeric analyses of linear networks
    "operating_point", "frequency_response",
    # parameter studies (pandas when a study runs, Dask when a client is given)
    "sweep", "samples",
    # output and files
    "draw", "to_dot", "latex", "text", "report", "io", "load_model", "save_model",
    "model_to_dict", "load_netlist", "write_netlist", "parse_expression", "format_expression",
    # bounds on the work of one request
    "Limits", "get_limits", "limits",
    # errors
    "VecnetError", "ModelError", "ModelFileError", "TopologyError", "TreeError",
    "UnknownNameError", "FormulationError", "UnsupportedNetwork", "NoOperatingPoint",
    "SimulationError",
    "VecnetWarning",
]
