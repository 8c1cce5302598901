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
    """Base class of every error raised by vecnet.

    >>> import vecnet as vn
    >>> try:
    ...     vn.Resistor("R1", "a", "b", R=-5.0)
    ... except vn.VecnetError as error:
    ...     print(type(error).__name__)
    ModelError
    """


class ModelError(VecnetError, ValueError):
    """An element, parameter or model description is malformed.

    >>> import vecnet as vn
    >>> vn.Resistor("R1", "a", "b", R=-5.0)
    Traceback (most recent call last):
    ...
    vecnet.errors.ModelError: Resistor 'R1': R = -5 is not physical (it must be positive); pass allow_negative=True to the element to accept a negative value
    """


class TopologyError(VecnetError, ValueError):
    """The graph is malformed: a self-loop, a duplicate edge name, a bad datum.

    >>> import vecnet as vn
    >>> vn.LinearGraph([("e1", "a", "a")])
    Traceback (most recent call last):
    ...
    vecnet.errors.TopologyError: edge 'e1' is a self-loop at node 'a'; an edge must join two different nodes
    """


class TreeError(TopologyError):
    """A requested tree is not a spanning tree (or forest) of the graph.

    >>> import vecnet as vn
    >>> g = vn.LinearGraph([("R", "a", "b"), ("C", "b", "g"), ("V", "g", "a")])
    >>> g.topology(tree=["R"])
    Traceback (most recent call last):
    ...
    vecnet.errors.TreeError: the tree leaves out node(s) 'g': add a branch that reaches each of them
    """


class UnknownNameError(VecnetError, LookupError):
    """A name (edge, node, element, variable) that the model does not contain.

    >>> import vecnet as vn
    >>> net = vn.Network("n")
    >>> _ = net.add(vn.Resistor("R1", "a", "0", R=1.0))
    >>> net.element("R2")
    Traceback (most recent call last):
    ...
    vecnet.errors.UnknownNameError: network 'n' has no element 'R2'
    """

    def __str__(self) -> str:  # LookupError would quote the message like a key
        return str(self.args[0]) if self.args else ""


class FormulationError(VecnetError, ValueError):
    """The equations cannot be formed or solved as asked (ill-posed network).

    >>> import vecnet as vn
    >>> net = vn.Network("n")
    >>> _ = net.add(vn.VoltageSource("V1", "0", "a", V=1.0), vn.VoltageSource("V2", "0", "a", V=2.0))
    >>> net.state_space()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    vecnet.errors.FormulationError: across sources V2, V1 form a loop: ...
    """


class SimulationError(VecnetError, RuntimeError):
    """A numerical integration or solve did not succeed; the message gives the solver's report.

    A caller that wants the samples up to a failure catches it, or asks for a
    :class:`~vecnet.numerics.result.Result` whose ``status`` says how the run ended:

    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "0", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
    ...             vn.Capacitor("C", "b", "0", C=1.0))
    >>> try:
    ...     result = net.simulate((0, 1))
    ... except vn.SimulationError as error:
    ...     print("the run failed:", error)
    ... else:
    ...     print(result.status)
    0
    """


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
    """The numeric linear formulation does not apply to this network (the symbolic one may).

    A caller with a network of any kind tries the fast numeric path first:

    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "0", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
    ...             vn.Capacitor("C", "b", "0", C=1.0))
    >>> try:
    ...     ss = net.sparse_state_space()
    ... except vn.UnsupportedNetwork:
    ...     ss = net.state_space(symbolic=True)
    >>> type(ss).__name__
    'SparseStateSpace'
    """


class NoOperatingPoint(FormulationError):
    """The state matrix is singular: some states have no DC value. ``states`` names them.

    >>> import vecnet as vn
    >>> net = vn.Network("n")
    >>> _ = net.add(vn.CurrentSource("I", "0", "a", I=1.0), vn.Capacitor("C", "a", "0", C=1.0))
    >>> try:
    ...     vn.operating_point(net)
    ... except vn.NoOperatingPoint as error:
    ...     print(error.states)
    ('C.across',)
    """

    def __init__(self, message: str, states: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.states = tuple(states)

    def __reduce__(self):  # keep the states when pickled (pytest-xdist, multiprocessing)
        return (type(self), (self.args[0], self.states))


class OutputError(VecnetError, ValueError):
    """A diagram or listing was asked for in a way vecnet cannot honour (unknown object,
    format, label style or tree rule).

    >>> import vecnet as vn
    >>> vn.draw(vn.LinearGraph([("R", "a", "b")]), format="bmp")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    vecnet.errors.OutputError: unknown diagram format 'bmp'; use one of ...
    """


class GraphvizError(VecnetError, RuntimeError):
    """The Graphviz ``dot`` program is missing or failed to render a diagram.

    The DOT text needs no program, so a caller can fall back to it:

    >>> import vecnet as vn
    >>> graph = vn.LinearGraph([("R", "a", "b"), ("C", "b", "a")])
    >>> try:
    ...     picture = vn.draw(graph, format="svg")
    ... except vn.GraphvizError:
    ...     picture = vn.to_dot(graph)
    >>> picture is not None
    True
    """


class GraphvizTimeoutError(GraphvizError):
    """The ``dot`` program took longer than :data:`vecnet.output.draw.DOT_TIMEOUT` and was
    stopped. A :class:`GraphvizError`, so the same fallback applies:

    >>> import vecnet as vn
    >>> issubclass(vn.GraphvizTimeoutError, vn.GraphvizError)
    True
    """


class StudyInterrupted(KeyboardInterrupt):
    """A parameter study stopped by Ctrl-C (or ``KeyboardInterrupt``): ``frame`` holds the
    rows of the ``done`` cases that finished, of ``total``, in the order of the samples.

    A long study keeps what it has when it is stopped:

    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "0", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
    ...             vn.Capacitor("C", "b", "0", C=1.0))
    >>> try:
    ...     table = vn.sweep(net, {"R.R": [1.0, 2.0]}, "eigenvalues")
    ... except vn.StudyInterrupted as stop:
    ...     table = stop.frame          # the cases done before Ctrl-C
    >>> len(table)
    2
    """

    def __init__(self, frame, done: int, total: int) -> None:
        super().__init__(f"{done} of {total} cases finished before the interrupt")
        self.frame, self.done, self.total = frame, done, total


class VecnetWarning(UserWarning):
    """Something in a model that is allowed but probably not meant: a part of a network
    cut off from every source, a node that only one element touches. The message names
    them. Silence it with ``warnings.filterwarnings("ignore", category=VecnetWarning)``.

    >>> import warnings
    >>> import vecnet as vn
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     net = vn.load_netlist("divider\\nV1 a 0 1\\nR1 a 0 1k\\nR2 a b 1k\\n")
    >>> print(caught[0].message)
    network 'divider': node 'b' is touched only by 'R2' (a dangling node: nothing flows through 'R2')
    """
