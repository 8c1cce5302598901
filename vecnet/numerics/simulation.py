"""One way to simulate every kind of model: :func:`simulate`, which hands each kind to its
integrator (:mod:`vecnet.numerics.network_integration` for networks, :mod:`vecnet.numerics.multibody`
for mechanisms and coupled systems).

A run stops early when a bound of :mod:`vecnet.core.bounds` is reached (its
:class:`~vecnet.core.bounds.Watch` raises inside the right-hand side), the state stops being
finite, or the solver cannot take a step. The integrators record the
:class:`~vecnet.errors.SimulationError` in their :class:`~vecnet.numerics.result.Outcome`
and return the samples before it; :func:`simulate` raises it, or (with
``raise_on_failure=False``) returns them in a failed :class:`~vecnet.numerics.result.Result`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.bounds import Watch, time_grid, untrusted
from ..errors import FormulationError, ModelError, UnsupportedNetwork
from .contact import ContactModes
from .friction import CoulombModes
from .integrators import one_blas_thread
from .result import Outcome, Result

if TYPE_CHECKING:
    from ..builders.model import Model

__all__ = ["simulate"]


def simulate(model: Any, t_span: Sequence[float] | None = None, *,
             raise_on_failure: bool = True, **options: Any) -> Result:
    """Simulate any model over ``t_span = (t0, t1)``.

    Parameters
    ----------
    model
        A :class:`~vecnet.Network`; a state-space model (``net.state_space()``,
        ``net.sparse_state_space()``); a planar or spatial mechanism or its equations
        (``mech.formulate()``); a :class:`~vecnet.System` or its ``formulate()``; a model
        file (:func:`vecnet.load_model`), whose settings are the defaults.
    t_span : (t0, t1)
        The span; a model file without one uses its own. Mechanisms start at ``t0``: they
        are assembled there, and their drivers and forces read the time from it.
    raise_on_failure : bool
        Raise the :class:`~vecnet.errors.SimulationError` that stops a run early (a limit
        of :func:`vecnet.limits`, a step the solver cannot take, a state no longer finite);
        with ``False`` the result reports it instead (``status`` -1, ``message``) and
        holds the samples reached.
    **options
        Every model: ``t_eval`` (output times, default 501 over the span), ``method``,
        ``rtol``, ``atol`` and ``progress`` (a function of the model time, or ``True``
        for a progress bar).

        Networks and state spaces (:func:`vecnet.numerics.network_integration.integrate`):
        ``inputs`` (name -> number, expression in ``vn.t`` or function of ``t``),
        ``initial`` (state name -> value; algebraic variables as guesses),
        ``parameters``, ``max_steps`` (of IDA); a network also ``tree`` and
        ``formulation`` (``"numeric"``, ``"symbolic"``, default: numeric where it
        applies). ``method`` names a scipy integrator (default ``"LSODA"``, ``"BDF"``
        above 64 states); networks with algebraic loops use IDA.

        Mechanisms: ``initial`` (scalar coordinates held at values during assembly),
        ``velocities`` (coordinate rates, speeds, ``"<body>.omega"``, ``"<body>.velocity"``),
        ``parameters``, ``method`` (``"partition"``: DOP853 by coordinate partitioning,
        the default; ``"dae"``: IDA; ``"rk4"``, ``"euler"``: fixed steps of ``step``
        seconds; ``"generalized-alpha"``: implicit fixed steps of ``step`` seconds,
        default the span over 1000, with ``spectral_radius`` from 0 to 1, default 0.8,
        the numerical damping of modes faster than ``1 / step``; the default for a
        mechanism with beams, whose elastic modes are stiff), ``linear_algebra`` (``"auto"``, the default: the constrained equations
        in body space, ``"sparse"``, where it is predicted cheaper than in joint space,
        ``"dense"``; the result's ``linear_algebra`` tells which ran); a
        mechanism not yet formulated also ``coordinates`` (``"joint"`` or ``"absolute"``),
        ``tree`` and, in space, ``speeds`` (``"tail"`` or ``"body"``: the axes of the
        angular speeds, :meth:`vecnet.spatial.Mechanism.formulate`).

        Systems: ``initial`` (lumped and block states), ``velocities``, ``method``,
        ``step`` and ``spectral_radius`` (as for mechanisms), ``coordinates`` (a
        :class:`~vecnet.System`: ``"joint"`` or ``"absolute"``; a mapping: scalar
        coordinates held at values).

        Model files: ``points`` (output points), and any option above, which wins over
        the file's setting.

    Returns
    -------
    Result
        Every variable by name, and how the run went: ``status`` (0: it reached ``t1``;
        -1: it stopped early), ``success``, ``message``, ``nfev`` and ``njev`` (evaluations
        of the right-hand side and of the Jacobian), ``events`` (joint stops struck,
        sources switching) and ``solver``.

    Raises
    ------
    ModelError
        An unknown option or name, a bad span; a model of another kind.
    SimulationError
        The run stopped early (unless ``raise_on_failure=False``).

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network()
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
    ...             vn.Capacitor("C", "g", "b", C=1.0))
    >>> res = vn.simulate(net, (0, 1), t_eval=[1.0])
    >>> round(float(res["C.across"][-1]), 6), res.status   # 1 - exp(-1)
    (0.632121, 0)
    >>> with vn.limits(max_evaluations=5):
    ...     res = vn.simulate(net, (0, 1), raise_on_failure=False)
    >>> res.success, "max_evaluations" in res.message
    (False, True)
    """
    # a diverging trial state overflows on its way to being refused (by the step control or
    # the Watch): the refusal, not numpy's warning, is what the user is told
    # one BLAS thread for every kind (:func:`one_blas_thread`): threads woken for small
    # products cost more than they save on a busy machine
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"), one_blas_thread():
        result = _run(model, t_span, options)
    return result.check() if raise_on_failure else result


def _run(model: Any, t_span: Sequence[float] | None, options: dict[str, Any]) -> Result:
    """The result of the simulation that ``model``'s kind takes (failures in it)."""
    # each kind's module is imported when it is asked about: by then it is loaded anyway
    from ..builders.network import Network

    if isinstance(model, Network):
        return _network(model, t_span, **options)
    from ..formulation.lumped import StateSpace
    from ..formulation.numeric import SparseStateSpace
    from . import network_integration as lumped

    if isinstance(model, SparseStateSpace):
        return _call(lumped.integrate_sparse, "a sparse state-space model", model, t_span,
                     options)
    if isinstance(model, StateSpace):
        return _call(lumped.integrate, "a state-space model", model, t_span, options)
    from ..builders.model import Model

    if isinstance(model, Model):   # before the mechanisms: a network's file needs none of them
        return _model_file(model, t_span, raise_on_failure=False, **options)
    from ..builders.mechanism import MechanismBuilder
    from ..formulation.multibody import MechanismEquations

    if isinstance(model, MechanismBuilder):
        speeds = options.pop("speeds", None)
        model = model.formulate(options.pop("coordinates", "joint"),
                                tree=options.pop("tree", None),
                                **({"speeds": speeds} if speeds is not None else {}))
    if isinstance(model, MechanismEquations):
        return _call(_mechanism, "a mechanism", model, t_span, options)
    from ..formulation.coupled import CoupledModel, System

    if isinstance(model, System):
        coordinates = options.pop("coordinates", "joint")
        if not isinstance(coordinates, str):   # scalar coordinates held at values
            options["coordinates"], coordinates = coordinates, "joint"
        model = model.formulate(coordinates)
    if isinstance(model, CoupledModel):
        return _call(_coupled, "a system", model, t_span, options)
    raise ModelError(f"cannot simulate a {type(model).__name__}: give a Network, a state-space "
                     "model, a mechanism or its equations, a System or a model file")


def _call(run: Callable[..., Result], kind: str, model: Any, t_span: Sequence[float] | None,
          options: dict[str, Any]) -> Result:
    """``run(model, t_span, **options)``, refusing in words an option it does not take."""
    _need_span(t_span)
    known = list(inspect.signature(run).parameters)[2:]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ModelError(f"{kind} is simulated without option(s) {', '.join(unknown)}; its "
                         f"options are {', '.join(known)}")
    return run(model, t_span, **options)


def _need_span(t_span: Sequence[float] | None) -> None:
    if t_span is None:
        raise ModelError("t_span=(t0, t1) is needed: only a model file has a span of its own")


def _network(net, t_span: Sequence[float] | None, tree: Sequence[str] | str = "normal",
             formulation: str | None = None, **options: Any) -> Result:
    """A network by its sparse numeric formulation where it applies (``formulation=None``)
    or as asked, ``"numeric"`` or ``"symbolic"``."""
    from . import network_integration as lumped

    _need_span(t_span)
    if formulation not in (None, "numeric", "symbolic"):
        raise ModelError(f"network {net.name!r}: formulation is 'numeric', 'symbolic' or "
                         f"None (choose), not {formulation!r}")
    net.check_parameters(options.get("parameters"))
    model = None
    if formulation != "symbolic":
        parameters = options.pop("parameters", None)
        try:
            model = net.sparse_state_space(tree=tree, parameters=parameters)
        except UnsupportedNetwork:
            if formulation == "numeric":
                raise
            options["parameters"] = parameters
    with untrusted(net.untrusted):
        if model is None:
            result = _call(lumped.integrate, "a network", net.state_space(tree=tree), t_span,
                           options)
        else:
            result = _call(lumped.integrate_sparse, "a network", model, t_span, options)
    result.units = net.units()
    return result


def _mechanism(eom, t_span: Sequence[float], t_eval: Sequence[float] | None = None,
               rtol: float = 1e-8, atol: float = 1e-10, initial: Mapping[str, float] | None = None,
               velocities: Mapping[str, Any] | None = None,
               parameters: Mapping[Any, float] | None = None, method: str | None = None,
               progress: Callable[[float], None] | bool | None = None,
               step: float | None = None, linear_algebra: str = "auto",
               spectral_radius: float | None = None) -> Result:
    """Forward dynamics of mechanism equations from the pose assembled at ``t0`` (at rest
    unless ``velocities``); by kinematics when drivers fix every degree of freedom. The
    result's ``linear_algebra`` and ``message`` tell which path solved the constrained
    equations (:meth:`~vecnet.numerics.mechanism.CompiledModel.linear_algebra_report`).
    ``method`` is ``"partition"`` unless the mechanism has beams: their elastic modes are
    stiff, and ``"generalized-alpha"`` steps over the fastest of them (its ``step`` by
    default :data:`BEAM_STEPS` to the span)."""
    from . import algorithms
    from . import multibody as mb

    t0, t1, times = time_grid(t_span, t_eval)
    method, integrators = _integrators(eom, method, step, spectral_radius, t1 - t0)
    eom.check_signals((t0, t1), parameters)
    eom.check_parameters(parameters)
    with untrusted(eom.mechanism.untrusted):
        watch = Watch(t0, t1, progress)
    model = eom.compile(parameters, linear_algebra=linear_algebra)
    q0 = eom.assemble(initial, t0, parameters)
    if eom.degrees_of_freedom(q0, t0, parameters) == 0:
        ts, qs, us = mb.kinematics(model, times, q0)
        return algorithms.result(eom, model, ts, qs, us, Outcome(
            "kinematics", message="the drivers fix every degree of freedom: solved by kinematics"))
    u0 = eom.initial_speeds(q0, velocities, t0, parameters)
    stops = algorithms.stops(eom, model)
    _refuse_without_events(model, stops, method)
    for stop in stops:
        if stop.gap(q0) < 0:
            raise FormulationError(f"the initial pose is beyond stop {stop.name!r} (by "
                                   f"{-stop.gap(q0):.6g}); start within the joint limits")
    algorithms.check_mass_matrix(eom, model, q0, t0)
    algorithms.check_time_scale(eom, model, q0, (t0, t1), method)
    model.path_counts = {"sparse": 0, "dense": 0}
    moded = len(model.friction) + len(model.contacts)
    watch.weigh(MODE_WORK * moded + (CONSTRAINED_WORK if model.m else 0))
    # the outputs (reactions, energies, the modes' forces) at every sample, counted first
    watch.spend(len(times) * (OUTPUT_WORK * (model.n + mb.speeds(model) + model.m + 2)
                              + MODE_WORK * moded), f"the outputs at {len(times)} samples")
    events: dict[str, Any] = {"stops": stops} if stops else {}
    if model.friction:   # set-valued joint friction: its modes, switched by events
        events["modes"] = CoulombModes(model, t0, q0, tol=atol)
    if model.contacts:   # unilateral contacts: open, closed, sticking, slipping by events
        events["modes"] = ContactModes(model, t0, q0, tol=atol, span=t1 - t0)
    motion = integrators[method](model, t0, q0, u0, times, rtol, atol, progress=watch,
                                 **events)
    if len(motion.t):
        watch.reach(float(motion.t[-1]))
    outcome = motion.outcome
    outcome.linear_algebra, note = model.linear_algebra_report()
    if note:
        outcome.message = f"{outcome.message}; {note}" if outcome.message else note
    if "modes" in events:   # the Coulomb forces are loads: the outputs need them
        ws, series = events["modes"].series(motion.t, motion.q, motion.u)
        result = algorithms.result(eom, model, motion.t, motion.q, motion.u, outcome, ws=ws, series=series)
        result.units.update(events["modes"].units())
        return result
    return algorithms.result(eom, model, motion.t, motion.q, motion.u, outcome)


def _integrators(eom, method: str | None, step: float | None, spectral_radius: float | None,
                 span: float) -> tuple[str, dict[str, Callable[..., Any]]]:
    """The method a mechanism's run takes (``"generalized-alpha"`` by default where it has
    beams, else ``"partition"``) and the integrators by method, the fixed-step ones with
    their ``step`` (for generalized-alpha by default :data:`BEAM_STEPS` to the ``span``)
    and ``spectral_radius`` bound.

    Raises
    ------
    FormulationError
        For an unknown method, a ``step`` or ``spectral_radius`` without a method that
        takes it.
    """
    from . import multibody as mb

    if method is None:
        method = "generalized-alpha" if eom.mechanism.beams else "partition"
    if spectral_radius is not None and method != "generalized-alpha":
        raise FormulationError("spectral_radius= goes with method='generalized-alpha'; "
                               f"method is {method!r}")
    mb.check_method(method, step)
    if method == "generalized-alpha" and step is None:
        step = span / BEAM_STEPS
    rho = mb.DEFAULT_SPECTRAL_RADIUS if spectral_radius is None else spectral_radius
    integrators: dict[str, Callable[..., Any]] = {"partition": mb.integrate_partitioned,
                                                  "dae": mb.integrate_dae}
    for scheme in mb.FIXED_STEP:
        integrators[scheme] = lambda model, t0, q0, u0, times, rtol, atol, progress=None, \
            scheme=scheme, **coupled: mb.integrate_fixed(
                model, t0, q0, u0, times, float(step or 0), scheme, progress, rtol, atol,
                rho, **coupled)
    return method, integrators


#: the steps of the generalized-alpha method over the span unless ``step`` is given: two an
#: output time at the default 501, 50 or more a period of the modes it follows closely
BEAM_STEPS = 1000


#: the work (in state evaluations: 10^8 of them about half a minute on one core) of an
#: evaluation's contact geometry or set-valued friction mode, each, beyond its states; of
#: an evaluation with constraint rows (the saddle-point system, the rows' terms: a rolling
#: wheel's costs as much as 600 states'); and of one output sample per state and
#: constraint row (its reactions and energies)
MODE_WORK, CONSTRAINED_WORK, OUTPUT_WORK = 1500, 600, 100


def _moded(model) -> str:
    """The set-valued joint frictions and contacts of ``model``, named, or ``""``: what
    switches between modes by events (:class:`CoulombModes`, :class:`ContactModes`)."""
    return "; ".join(f"{what} {', '.join(repr(x.name) for x in those)}" for what, those in (
        ("set-valued joint friction", model.friction), ("contact", model.contacts)) if those)


def _refuse_without_events(model, stops: list, method: str) -> None:
    """Joint stops, set-valued friction and contacts change the motion at events, which only
    ``method="partition"`` locates; friction and contacts do not yet run together."""
    moded = _moded(model)
    if (stops or moded) and method != "partition":
        what = "; ".join(filter(None, ["joint limits" if stops else "", moded]))
        raise FormulationError(f"{what} strike, stick, slip, open or close through the events "
                               "of method='partition'; simulate with that method")
    if model.friction and model.contacts:
        raise FormulationError(f"{moded} are not yet simulated together; give the joint "
                               "friction law='smooth'")


def _coupled(system, t_span: Sequence[float], t_eval: Sequence[float] | None = None,
             method: str | None = None, rtol: float = 1e-8, atol: float = 1e-10,
             initial: Mapping[str, float] | None = None,
             coordinates: Mapping[str, float] | None = None,
             velocities: Mapping[str, Any] | None = None, step: float | None = None,
             spectral_radius: float | None = None) -> Result:
    """A formulated :class:`~vecnet.System` from the mechanism assembled at ``t0`` (the
    scalar ``coordinates`` held at the values given, at rest unless ``velocities``) and
    its lumped and block states (``initial``, by name). ``method``, ``step`` and
    ``spectral_radius`` as for a mechanism alone (:func:`_integrators`)."""
    from . import algorithms
    from . import multibody as mb

    eom = system.eom
    t0, t1, times = time_grid(t_span, t_eval)
    method, integrators = _integrators(eom, method, step, spectral_radius, t1 - t0)
    with untrusted(eom.mechanism.untrusted):
        watch = Watch(t0, t1)
    model = eom.compile()
    moded = _moded(model)
    if moded:
        raise FormulationError(f"{moded} is simulated in a mechanism alone, not yet in a "
                               "system (joint friction: give it law='smooth' there)")
    q0 = eom.assemble(coordinates, t0)
    u0 = eom.initial_speeds(q0, velocities, t0)
    motion = integrators[method](model, t0, q0, u0, times, rtol, atol, extra=system.extra,
                                 s0=system.state_vector(initial), progress=watch)
    rows = mb.independent_rows(model.evaluate(t0, q0, u0).phi_q)
    series = algorithms.coupled_outputs(system, model, motion.t, motion.q, motion.u, motion.s, rows)
    return Result(motion.t, series, motion.outcome)


def _model_file(model: Model, t_span: Sequence[float] | None = None, points: int | None = None,
                progress: Callable[[float], None] | None = None, **options: Any) -> Result:
    """A loaded model with the file's settings (:meth:`vecnet.builders.model.Model.simulate`)."""
    import sympy

    from ..builders.model import time_function
    from ..builders.network import Network
    from ..core.bounds import check_oscillation
    from ..elements.base import Symbol
    from ..formulation.lumped import network_inputs

    # only passed on when given, so that the integrators keep their own default
    extra = {} if progress is None else {"progress": progress}
    t_span = tuple(t_span or model.t_span or ())
    if len(t_span) != 2:
        raise ModelError(f"model {model.name!r} has no simulation t_span; pass t_span=(t0, t1)")
    t0, t1, times = time_grid(t_span, points=int(points or model.points or 501))
    given = {str(k): v for k, v in (options.pop("parameters", None) or {}).items()}
    values = {**model.values, **{Symbol(k): v for k, v in given.items()}}
    if model.kind == "system":
        return _system_file(model, (t0, t1), times, given, options)
    if model.kind == "mechanism":
        # sympy numbers: the planar compiler substitutes them with xreplace; only the
        # values the equations hold (others served the file's own expressions)
        eom = model.formulate()
        exact = {k: sympy.Float(v) for k, v in values.items()}
        used = {str(s) for s in eom.compile_model(exact).used} if exact else set()
        model.check_given(given, used, "its equations hold")
        exact = {k: v for k, v in exact.items() if str(k) in used}
        step = {} if model.step is None else {"step": model.step}
        return simulate(eom, (t0, t1), **{"t_eval": times, "initial": model.initial or None,
                                          "velocities": model.velocities or None,
                                          "parameters": exact or None, **step, **extra,
                                          **options})
    net = model.system
    assert isinstance(net, Network)  # a network model holds one (__post_init__)
    inputs: dict[str, Any] = {}
    sources = network_inputs(net)
    for source in sources:
        name, u = source.name, source.symbol
        if name in model.inputs:
            # sympify: a whole input that is one parameter becomes its (float) value
            signal = sympy.sympify(model.inputs[name].xreplace(values))
            check_oscillation(name, signal, (t0, t1))
            inputs[name] = time_function(signal, name)
        elif u in values:  # a source whose value is a declared parameter
            inputs[name] = values[u]
        elif isinstance(source.signal, sympy.Basic):
            check_oscillation(name, source.signal, (t0, t1))
            inputs[name] = time_function(source.signal, name)
    # the declared values the elements use (others served the file's own expressions)
    used = {str(s) for s in net.parameter_symbols()}
    model.check_given(given, used | set(model.parameters), "it declares or its elements hold")
    parameters = {k: v for k, v in values.items()
                  if k not in {i.symbol for i in sources} and str(k) in used}
    # the sparse numeric formulation when it applies, else the symbolic one
    return simulate(net, (t0, t1), **{
        "tree": model.tree or "normal", "inputs": inputs, "initial": model.initial or None,
        "t_eval": times, "parameters": parameters or None, **extra, **options})


def _system_file(file_model: Model, t_span: tuple[float, float], times: Any,
                 given: dict[str, float], options: dict[str, Any]):
    """A system from its assembled initial pose: the file's ``initial`` values of the
    mechanism's coordinates are held during assembly, the others start the network's
    and the blocks' states."""
    if given:
        raise ModelError(f"system {file_model.name!r} has its parameters' values put in when it "
                         "is read: set them with load_model(path, parameters={...})")
    model = file_model.formulate()
    coordinates = {k: v for k, v in file_model.initial.items() if k in model.eom.coordinates}
    states = {k: v for k, v in file_model.initial.items() if k not in coordinates}
    step = {} if file_model.step is None else {"step": file_model.step}
    return simulate(model, t_span, **{"t_eval": times, "coordinates": coordinates or None,
                                      "initial": states or None,
                                      "velocities": file_model.velocities or None, **step,
                                      **options})
