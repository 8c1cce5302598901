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
