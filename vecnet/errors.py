"""Exceptions raised by vecnet.

Every error that vecnet raises on bad input is a :class:`VecnetError`. Each
message names the offending element, edge, node or file location and says what
to change. The subclasses also derive from the matching built-in exception, so
``except ValueError`` or ``except KeyError`` keeps working for callers who
prefer those.
"""

from __future__ import annotations

__all__ = [
    "VecnetError",
    "ModelError",
    "TopologyError",
    "TreeError",
    "UnknownNameError",
    "FormulationError",
    "SimulationError",
]


class VecnetError(Exception):
    """Base class of every error raised by vecnet."""


class ModelError(VecnetError, ValueError):
    """An element, parameter or model description is malformed."""


class TopologyError(VecnetError, ValueError):
    """The graph is malformed: a self-loop, a duplicate edge name, a bad datum."""


class TreeError(TopologyError):
    """A requested tree is not a spanning tree (or forest) of the graph."""


class UnknownNameError(VecnetError, LookupError):
    """A name (edge, node, element, variable) that the model does not contain."""

    def __str__(self) -> str:  # LookupError would quote the message like a key
        return str(self.args[0]) if self.args else ""


class FormulationError(VecnetError, ValueError):
    """The equations cannot be formed or solved as asked (ill-posed network)."""


class SimulationError(VecnetError, RuntimeError):
    """A numerical integration or solve did not succeed; the message gives the solver's report."""
