"""Stage 2, the elements: parameters in, each component's edges and terminal equations out
(Element, EdgeVariables), for lumped, transducer, planar and spatial components."""

from .base import Edge, Element, Kind, Parameter
from .controlled import *  # noqa: F401,F403
from .controlled import __all__ as _controlled
from .coupled_inductors import CoupledInductors
from .coupling import LinearPort, RotaryPort
from .lumped import *  # noqa: F401,F403
from .lumped import __all__ as _lumped
from .transducers import *  # noqa: F401,F403
from .transducers import __all__ as _transducers

__all__ = ["Edge", "Element", "Kind", "Parameter", "RotaryPort", "LinearPort", "CoupledInductors", *_lumped,
           *_transducers, *_controlled]
