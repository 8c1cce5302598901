"""Exceptions raised by vecnet.

Every error that vecnet raises on bad input is a :class:`VecnetError`. Each
message names the offending element, edge, node or file location and says what
to change. The subclasses also derive from the matching built-in exception, so
``except ValueError`` or ``except KeyError`` keeps working for callers who
prefer those.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "VecnetError",
    "ModelError",
    "TopologyError",
    "TreeError",
    "UnknownNameError",
    "FormulationError",
    "SimulationError",
    "ModelFileError",
    "UnsupportedNetwork",
    "NoOperatingPoint",
    "OutputError",
    "GraphvizError",
    "GraphvizTimeoutError",
    "StudyInterrupted",
    "VecnetWarning",
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


class ModelFileError(ModelError):
    """A model file or netlist is malformed, hostile or refers to something it does not define.

    ``location`` says where: a JSON pointer into the model document (``"/elements/3/parameters/R"``)
    or a netlist line (``"netlist line 7"``). The message starts with it.

    >>> str(ModelFileError("unknown element type 'Resistr'", location="/elements/0/type"))
    "/elements/0/type: unknown element type 'Resistr'"
    """

    def __init__(self, message: str, location: str = "") -> None:
        self.location = location
        self.detail = message
        # the location leads, so a one-line report says where to look first
        super().__init__(f"{location}: {message}" if location else message)

    def __reduce__(self):  # keep the location when pickled (pytest-xdist, multiprocessing)
        return (type(self), (self.detail, self.location))


class UnsupportedNetwork(FormulationError):
    """The numeric linear formulation does not apply to this network (the symbolic one may)."""


class NoOperatingPoint(FormulationError):
    """The state matrix is singular: some states have no DC value. ``states`` names them."""

    def __init__(self, message: str, states: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.states = tuple(states)

    def __reduce__(self):  # keep the states when pickled (pytest-xdist, multiprocessing)
        return (type(self), (self.args[0], self.states))


class OutputError(VecnetError, ValueError):
    """A diagram or listing was asked for in a way vecnet cannot honour (unknown object,
    format, label style or tree rule)."""


class GraphvizError(VecnetError, RuntimeError):
    """The Graphviz ``dot`` program is missing or failed to render a diagram."""


class GraphvizTimeoutError(GraphvizError):
    """The ``dot`` program took longer than :data:`vecnet.output.draw.DOT_TIMEOUT` and was
    stopped."""


class StudyInterrupted(KeyboardInterrupt):
    """A parameter study stopped by Ctrl-C (or ``KeyboardInterrupt``): ``frame`` holds the
    rows of the ``done`` cases that finished, of ``total``, in the order of the samples."""

    def __init__(self, frame, done: int, total: int) -> None:
        super().__init__(f"{done} of {total} cases finished before the interrupt")
        self.frame, self.done, self.total = frame, done, total


class VecnetWarning(UserWarning):
    """Something in a model that is allowed but probably not meant: a part of a network
    cut off from every source, a node that only one element touches. The message names
    them. Silence it with ``warnings.filterwarnings("ignore", category=VecnetWarning)``."""
