"""Parameter studies of mechanisms and coupled systems: formulated once, compiled once.

A mechanism's equations are formulated once with the swept parameters as symbols, and
compiled once into the one model whose compiled functions take those parameters as
arguments (:meth:`~vecnet.formulation.multibody.MechanismEquations.parametric`). Each
case binds its numbers to that model
(:meth:`~vecnet.formulation.multibody.MechanismEquations.runtime_parameters`) and runs the
analysis: a simulation, the equilibrium, the eigenvalues or frequency response of the
motion linearized there, or a function of the caller's. A coupled
:class:`~vecnet.System` (a mechanism, a lumped network and signal blocks) keeps its swept
parameters as arguments of its compiled functions the same way
(:class:`~vecnet.formulation.coupled.CoupledModel`). :func:`vecnet.sweep` runs the cases,
here, in local processes or on Dask; a study pickles as its equations and compiles
again, once, where it is unpickled.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import ModelError, UnknownNameError
from ..numerics.multibody import check_method
from .study import BaseStudy, check_analysis, check_options, eigenvalue_columns

__all__ = ["MechanismStudy", "SystemStudy", "compile_multibody_study", "mode_columns",
           "MECHANISM_OPTIONS", "SYSTEM_OPTIONS"]

_SIMULATE = {"t_span", "t_end", "t_eval", "outputs", "initial", "velocities", "rtol", "atol",
             "method", "traces", "settle"}
#: options each named analysis of a mechanism takes (besides ``parameters`` and, for a
#: mechanism not yet formulated, ``coordinates``)
MECHANISM_OPTIONS = {
    "simulate": _SIMULATE | {"step", "spectral_radius", "coordinates"},
    "eigenvalues": {"coordinates"},
    "frequency_response": {"frequencies", "outputs", "coordinates"},
    "equilibrium": {"outputs", "coordinates"},
}
#: options each named analysis of a coupled system takes (``coordinates``: ``"joint"`` or
#: ``"absolute"`` to formulate; simulating, also a mapping of held scalar coordinates)
SYSTEM_OPTIONS = {
    "simulate": _SIMULATE | {"step", "spectral_radius", "coordinates"},
    "eigenvalues": {"coordinates"},
    "frequency_response": {"frequencies", "outputs", "coordinates"},
    "equilibrium": {"outputs", "coordinates"},
}


def mode_columns(eigenvalues: Sequence[complex] | np.ndarray) -> dict[str, float]:
    """``omega<k>`` (rad/s) and ``zeta<k>`` of each oscillatory mode: for every eigenvalue
    ``s`` in the upper half plane, ``omega = |s|`` and ``zeta = -Re(s) / |s|`` (a mode
    ``s^2 + 2 zeta omega s + omega^2``), in ascending order of ``omega``.

    >>> mode_columns([-1 + 1j, -1 - 1j, -5.0])
    {'omega0': 1.4142135623730951, 'zeta0': 0.7071067811865475}
    """
    ev = np.asarray(eigenvalues, dtype=complex)
    scale = max(1.0, float(np.max(np.abs(ev), initial=0.0)))
    up = sorted((s for s in ev if s.imag > 1e-12 * scale), key=abs)
    columns = {}
    for k, s in enumerate(up):
        columns[f"omega{k}"] = float(abs(s))
        columns[f"zeta{k}"] = float(-s.real / abs(s)) + 0.0   # no negative zero
    return columns


def _frequency_columns(A, B, C, D, inputs: Sequence[str], outputs: Sequence[str],
                       frequencies: Iterable[float]) -> dict[str, float]:
    """``<output>/<input>@<f>Hz.dB`` and ``.deg`` of ``C (j w I - A)^-1 B + D``."""
    if not len(inputs):
        raise ModelError("the linear model has no inputs: apply a torque or force (or leave "
                         "a network source unconnected) to take a frequency response")
    columns = {}
    n = A.shape[0]
    for f in frequencies:
        H = C @ np.linalg.solve(2j * np.pi * float(f) * np.eye(n) - A, B) + D
        for i, out in enumerate(outputs):
            for j, inp in enumerate(inputs):
                columns[f"{out}/{inp}@{float(f):g}Hz.dB"] = float(20 * np.log10(abs(H[i, j])))
                columns[f"{out}/{inp}@{float(f):g}Hz.deg"] = float(np.degrees(np.angle(H[i, j])))
    return columns


def _rows(names: Sequence[str], chosen: Sequence[str] | None, what: str) -> list[int]:
    """Positions of the ``chosen`` names among ``names`` (all when none are chosen)."""
    if not chosen:
        return list(range(len(names)))
    unknown = [n for n in chosen if n not in names]
    if unknown:
        raise UnknownNameError(f"no {what} {', '.join(map(repr, unknown))}; the linear model's "
                               f"{what}s are {', '.join(names)}")
    return [list(names).index(n) for n in chosen]


def _scalar(name: str, value) -> float:
    value = np.asarray(value, dtype=float)
    if value.ndim != 0:
        raise ModelError(f"output {name!r} is a vector: name a component of it "
                         f"('{name}.x', ...)")
    return float(value)


class _Locked(BaseStudy):
    """A study whose model is bound to one case's numbers at a time: a lock keeps threads
    (Dask workers of one process) from binding another case midway. The lock and the
    compiled model are made again where the study is unpickled."""

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_lock", None)
        state.pop("model", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._setup()

    def _setup(self) -> None:
        self._lock = threading.Lock()

    def _span(self) -> tuple[float, float]:
        span = self.options.get("t_span") or (0.0, self.options["t_end"])
        return float(span[0]), float(span[1])

    def _simulation_options(self, *keys: str) -> dict[str, Any]:
        chosen = {k: self.options[k] for k in ("t_eval", "rtol", "atol", "method", *keys)
                  if k in self.options}
        if "t_eval" not in chosen and self._wants_grid():
            chosen["t_eval"] = self.trace_grid()
        return chosen


class MechanismStudy(_Locked):
    """A planar or spatial mechanism formulated once for a study and compiled once, its
    swept parameters arguments of the compiled functions.

    Built by :func:`compile_multibody_study`; :meth:`run` evaluates one case.

    Attributes
    ----------
    eom : MechanismEquations
        The formulated mechanism, the swept parameters still symbols.
    names : tuple of str
        The swept parameters.
    fixed : dict
        Values of the parameters not swept (a model file's declared ones, ``parameters=``),
        put in when compiling.
    model : CompiledModel or None
        The one compiled model (:meth:`~vecnet.formulation.multibody.MechanismEquations.
        parametric`); ``None`` when the mechanism is built anew for each case.
    geometry : tuple of str
        Swept parameters of a model file that place points (numbers when the file is read,
        so that no equation holds them): the mechanism is read, formulated and compiled
        again for each case, its other swept parameters bound as usual.
    elements : tuple of str
        Parameters named ``"<element>.<parameter>"`` (``"bob.mass"``) that :attr:`eom`
        holds as symbols of those names
        (:meth:`~vecnet.builders.mechanism.MechanismBuilder.with_symbols`); a mechanism
        read anew for a case's geometry gets them as symbols too.
    """

    def __init__(self, eom, names: Sequence[str], fixed: Mapping[str, float],
                 analysis: str | Callable, options: Mapping,
                 geometry: Sequence[str] = (), source: Any = None,
                 elements: Sequence[str] = ()) -> None:
        self.eom = eom
        self.names = tuple(names)
        self.fixed = dict(fixed)
        self.analysis = analysis
        self.options = dict(options)
        self.geometry = tuple(geometry)
        self.elements = tuple(elements)
        self._source = source
        self._setup()

    @property
    def runtime_names(self) -> tuple[str, ...]:
        """The swept parameters bound to the compiled model (all but :attr:`geometry`)."""
        return tuple(n for n in self.names if n not in self.geometry)

    def _setup(self) -> None:
        super()._setup()
        # compiled here, once per process (UnknownNameError for a name no expression holds)
        self.model = None if self.geometry else \
            self.eom.parametric(self.names, self.fixed or None)

    def _equations(self, values: Mapping[str, float]):
        """The formulated mechanism: the study's, or read anew with the case's geometry."""
        if not self.geometry:
            return self.eom
        from ..io import load_model

        document, formulation = self._source
        declared = document.get("parameters", {})
        given = {**{k: v for k, v in (self.fixed or {}).items() if k in declared},
                 **{n: values[n] for n in self.geometry}}
        mech = load_model(document, parameters=given).system
        if self.elements:
            mech = mech.with_symbols(self.elements)
        return mech.formulate(**formulation)

    @property
    def outputs(self) -> tuple[str, ...]:
        """The ``outputs`` option, else the mechanism's coordinates."""
        return tuple(self.options.get("outputs") or self.eom.coordinates)

    def _evaluate(self, values: Mapping[str, float]) -> dict[str, Any]:
        eom = self._equations(values)
        runtime = {n: values[n] for n in self.runtime_names}
        with self._lock, eom.runtime_parameters(runtime, self.fixed or None) as model:
            # the values the equations hold (a file's others served its own expressions)
            used = {str(s) for s in model.used}
            parameters = {**{k: v for k, v in self.fixed.items() if k in used}, **runtime}
            _check_bodies(model)
            if callable(self.analysis):
                return dict(self.analysis(eom, dict(values)))
            if self.analysis == "simulate":
                from ..numerics.simulation import simulate

                options = self._simulation_options("initial", "velocities", "step")
                result = simulate(eom, self._span(), parameters=parameters, **options)
                return self._summaries(result)   # read now: the outputs come from the model
            point = eom.equilibrium(parameters=parameters)
            if self.analysis == "equilibrium":
                return {name: _scalar(name, point[name]) for name in self.outputs}
            lin = eom.linearize(point, parameters=parameters)
            A, B, C, D = lin.state_space()
            if self.analysis == "eigenvalues":
                return {**eigenvalue_columns(A), **mode_columns(np.linalg.eigvals(A))}
            rows = _rows(lin.outputs, self.options.get("outputs"), "output")
            return _frequency_columns(A, B, C[rows], D[rows], lin.inputs,
                                      [lin.outputs[i] for i in rows], self.options["frequencies"])


def _check_bodies(model) -> None:
    """Refuse a body whose mass or inertia, with the case's numbers, is negative."""
    for name, _, mass, J in model.bodies:
        if not mass >= 0:
            raise ModelError(f"body {name!r}: the mass is {mass:g} with these values; a mass "
                             "is zero or positive")
        J = np.asarray(J, dtype=float)
        if not np.linalg.eigvalsh((J + J.T) / 2).min() >= -1e-12 * max(1.0, np.abs(J).max()):
            raise ModelError(f"body {name!r}: the inertia is not positive semidefinite with "
                             "these values")


class SystemStudy(_Locked):
    """A coupled :class:`~vecnet.System` formulated once for a study, its swept parameters
    (and those given by ``parameters=``) arguments of its compiled functions.

    Attributes
    ----------
    system : CoupledModel
    names : tuple of str
    fixed : dict
        Values of parameters that are not swept, bound with every case.
    """

    def __init__(self, system, names: Sequence[str], fixed: Mapping[str, float],
                 analysis: str | Callable, options: Mapping) -> None:
        self.system = system
        self.names = tuple(names)
        self.fixed = dict(fixed)
        self.analysis = analysis
        self.options = dict(options)
        self._setup()

    @property
    def outputs(self) -> tuple[str, ...]:
        """The ``outputs`` option, else the mechanism's coordinates and the states."""
        return tuple(self.options.get("outputs")
                     or (*self.system.eom.coordinates, *self.system.states))

    def _evaluate(self, values: Mapping[str, float]) -> dict[str, Any]:
        cm = self.system
        with self._lock, cm.runtime_parameters({**self.fixed, **values}):
            _check_bodies(cm.eom.compile())
            if callable(self.analysis):
                return dict(self.analysis(cm, dict(values)))
            if self.analysis == "simulate":
                from ..numerics.simulation import simulate

                options = self._simulation_options("initial", "velocities")
                held = self.options.get("coordinates")
                if isinstance(held, Mapping):
                    options["coordinates"] = dict(held)
                return self._summaries(simulate(cm, self._span(), **options))
            if self.analysis == "equilibrium":
                q, s = cm.equilibrium()
                found = {**dict(zip(cm.eom.coordinates, q)), **dict(zip(cm.states, s))}
                unknown = [n for n in self.outputs if n not in found]
                if unknown:
                    raise UnknownNameError(f"no coordinate or state {', '.join(unknown)} at the "
                                           "equilibrium; they are "
                                           f"{', '.join(found)}")
                return {name: float(found[name]) for name in self.outputs}
            if self.analysis == "eigenvalues":
                lin = cm.linearize()
                return {**eigenvalue_columns(lin.A), **mode_columns(lin.eigenvalues())}
            lin = cm.linearize(outputs=self.options.get("outputs") or cm.eom.coordinates)
            return _frequency_columns(lin.A, lin.B, lin.C, lin.D, lin.inputs, lin.outputs,
                                      self.options["frequencies"])


def compile_multibody_study(model: Any, names: Iterable[str], analysis: str | Callable = "simulate",
                            **options: Any) -> MechanismStudy | SystemStudy:
    """Formulate a mechanism or a coupled system once, its parameters ``names`` kept as
    symbols, and compile it once (see :func:`vecnet.studies.sweep.compile_study`).

    Parameters
    ----------
    model
        A :class:`vecnet.planar.Mechanism` or :class:`vecnet.spatial.Mechanism`
        (formulated with ``coordinates=``, ``"joint"`` by default), its equations, a
        mechanism model file (:func:`vecnet.load_model`: its declared values, outputs,
        initial values, velocities and span are the defaults), a :class:`~vecnet.System`
        or its formulated model (formulated again when it does not keep these names).
    names : iterable of str
        Free symbols of the model, or for a mechanism its elements' parameters by name,
        ``"<element>.<parameter>"`` (``"bob.mass"``, ``"spring.k"``: the names of
        :meth:`~vecnet.builders.mechanism.MechanismBuilder.element_parameters`), as a
        network's ``"R1.R"``; the mechanism is formulated with those as symbols.
    analysis : str or callable
        ``"simulate"``, ``"eigenvalues"``, ``"frequency_response"``, ``"equilibrium"`` or
        ``f(model, values) -> dict``, given the equations (a system: its formulated
        model) with the case's numbers bound.
    **options
        See :data:`MECHANISM_OPTIONS`, :data:`SYSTEM_OPTIONS`; ``parameters`` (name ->
        number) for symbols (or a mechanism's element parameters) not swept.

    Returns
    -------
    MechanismStudy or SystemStudy

    Raises
    ------
    UnknownNameError
        A name that is no parameter of the model.
    ModelError
        A model of another kind, an unknown analysis or option, a missing option.

    Examples
    --------
    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    >>> bob = mech.body("bob", mass=1.0, inertia=0.0, position=(0, -1))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
    >>> _ = mech.rotary_spring("k", mech.ground, bob, k=vn.Symbol("k"))
    >>> study = compile_multibody_study(mech, ["k"], "eigenvalues")
    >>> round(study.run({"k": 6.19})["omega0"], 9)          # sqrt((m g l + k) / (m l^2))
    4.0
    >>> study = compile_multibody_study(mech, ["bob.mass"], "eigenvalues",
    ...                                 parameters={"k": 6.19})
    >>> round(study.run({"bob.mass": 2.0})["omega0"] ** 2, 9)   # g / l + k / (m l^2)
    12.905
    """
    from ..builders.mechanism import MechanismBuilder
    from ..builders.model import Model
    from ..formulation.coupled import CoupledModel, System
    from ..formulation.multibody import MechanismEquations

    names = [str(n) for n in names]
    fixed = {str(k): float(v) for k, v in (options.pop("parameters", None) or {}).items()}
    coordinates = options.get("coordinates", "joint")
    if isinstance(model, Model) and model.kind == "system":
        # a system file's declared values were put in when it was read
        valued = [n for n in names if model.parameters.get(n) is not None]
        if valued:
            raise ModelError(f"system {model.name!r} put the values of {', '.join(valued)} in "
                             "when its file was read: declare a swept parameter without a "
                             "value (null)")
        model = model.system
    if isinstance(model, (System, CoupledModel)):
        check_analysis(analysis, options, SYSTEM_OPTIONS, "system")
        check_options(analysis, options)
        form = coordinates if isinstance(coordinates, str) else "joint"
        runtime = [*names, *(n for n in fixed if n not in names)]
        if isinstance(model, CoupledModel):
            if set(model.runtime_names) != set(runtime) or model.coordinates != form:
                model = model.system.formulate(form, runtime=runtime)
        else:
            model = model.formulate(form, runtime=runtime)
        return SystemStudy(model, names, fixed, analysis, options)
    settings: dict[str, Any] = {}
    elements: list[str] = []
    if isinstance(model, Model) and model.kind == "mechanism":
        elements = _element_names(model.system, [*names, *fixed])
        formulation = model.formulation(model.coordinates, model.tree or None)
        eom = model.system.with_symbols(elements).formulate(**formulation) if elements \
            else model.formulate()
        # declared values the equations do not hold (they served the file's own
        # expressions) are put in harmlessly
        declared = {k: float(v) for k, v in model.parameters.items()
                    if v is not None and k not in names and k not in fixed}
        held = {str(s) for s in eom.parametric(names, {**declared, **fixed} or None,
                                               strict=False).used}
        geometry = [n for n in names if n not in held and n in model.parameters]
        source = (model.document, formulation)
        settings = {"outputs": list(model.outputs), "initial": dict(model.initial),
                    "velocities": dict(model.velocities)}
        if model.t_span:
            settings["t_span"] = tuple(model.t_span)
            if model.points:
                settings["t_eval"] = np.linspace(*model.t_span, int(model.points))
        settings = {k: v for k, v in settings.items() if not isinstance(v, (dict, list)) or v}
        if analysis != "simulate":
            settings = {k: v for k, v in settings.items() if k == "outputs"}
            if analysis == "eigenvalues":
                settings = {}
    elif isinstance(model, MechanismBuilder):
        if not isinstance(coordinates, str):
            raise ModelError("coordinates= formulates a mechanism: 'joint' or 'absolute'")
        elements = _element_names(model, [*names, *fixed])
        eom = (model.with_symbols(elements) if elements else model).formulate(coordinates)
        declared, geometry, source = {}, [], None
    elif isinstance(model, MechanismEquations):
        eom = model
        elements = _element_names(eom.mechanism, [*names, *fixed])
        if elements:   # the same tree, loads and rotors, the parameters made symbols
            speeds = getattr(eom, "speeds", "tail")   # spatial equations: the speeds' axes
            axes = {"speeds": speeds} if speeds != "tail" else {}
            eom = eom.mechanism.with_symbols(elements).formulate(
                tree=list(eom.topology.branches), joint_loads=eom.joint_loads or None,
                rotors=eom.rotors or None, **axes)
        declared, geometry, source = {}, [], None
    else:
        raise ModelError("a study takes a Network, a planar or spatial Mechanism or its "
                         "equations, a System or its formulated model, or a model file; not "
                         f"{type(getattr(model, 'system', model)).__name__}")
    if "t_end" in options or "t_span" in options:   # the caller's span wins over the file's
        settings.pop("t_span", None)
        settings.pop("t_eval", None)
    options.pop("coordinates", None)
    check_analysis(analysis, options, MECHANISM_OPTIONS, "mechanism")
    options = {**settings, **options}
    check_options(analysis, options)
    if analysis == "simulate":   # before any case runs, not in every case's row
        check_method(options.get("method", "partition"), options.get("step"))
    known = {str(s) for s in eom.parametric(names, {**declared, **fixed} or None,
                                            strict=False).used}
    unknown = [n for n in [*names, *fixed] if n not in known and n not in geometry]
    if unknown:
        raise UnknownNameError(
            f"mechanism {eom.mechanism.name!r} has no parameter(s) "
            f"{', '.join(map(repr, unknown))}; its parameters are "
            f"{', '.join(sorted(known - set(elements))) or 'none'}, and by element "
            f"('<element>.<parameter>') "
            f"{', '.join(eom.mechanism.element_parameters()) or 'none'}")
    return MechanismStudy(eom, names, {**declared, **fixed}, analysis, options, geometry,
                          source, elements)


def _element_names(mechanism, names: Iterable[str]) -> list[str]:
    """Those of ``names`` that name a parameter of one of the mechanism's elements
    (``"bob.mass"``, :meth:`~vecnet.builders.mechanism.MechanismBuilder.element_parameters`)."""
    known = mechanism.element_parameters()
    return list(dict.fromkeys(n for n in names if n in known))
