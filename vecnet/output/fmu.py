"""FMUs (the FMI standard's model units) of vecnet's models: C that vecnet writes, built
by the system's C compiler, for Model Exchange or Co-Simulation, FMI 2.0 or 3.0.

An FMU is a zip file: ``modelDescription.xml`` (the variables by name, with their value
references, causality, units and start values), ``sources/`` (the model's generated
``model.c`` and ``model.h`` with the FMI run-time of ``vecnet/output/fmu_runtime``) and,
when a C compiler was found, ``binaries/<platform>/<identifier>.<so|dylib|dll>``. The
binary needs no Python: the model's equations are C (:mod:`vecnet.numerics.c_model`).

Variables are named as vecnet names them: a network's states and outputs
``"C1.across"``, a mechanism's coordinates and speeds ``"P1.angle"``, ``"P1.angle'"``;
the derivative of a state is ``"der(C1.across)"``. Every parameter the equations hold is
a tunable parameter of that name; a source with a constant value is an input; a source
given as a function of time is computed inside the FMU.
"""

from __future__ import annotations

import datetime
import platform
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from ..core.files import check_output, replacing
from ..core.version import installed_version
from ..errors import ModelError
from ..numerics.c_code import build_shared_library, find_c_compiler
from ..numerics.c_library import RUNTIME, runtime_sources
from ..numerics.c_model import CModel, Variable, c_model

__all__ = ["export_fmu", "FMUExport"]

KINDS = ("model-exchange", "co-simulation")
VERSIONS = ("2.0", "3.0")


class FMUExport:
    """What :func:`export_fmu` wrote: the ``path``, the ``model``
    (:class:`~vecnet.numerics.c_model.CModel`), the ``platform`` folder of the binary and
    whether one was built (``compiled``; ``False`` with the ``reason``, a source-only
    FMU)."""

    def __init__(self, path: Path, model: CModel, platform_folder: str, compiled: bool,
                 reason: str = "") -> None:
        self.path, self.model, self.platform = path, model, platform_folder
        self.compiled, self.reason = compiled, reason

    def __repr__(self) -> str:
        built = f"binary for {self.platform}" if self.compiled else f"sources only: {self.reason}"
        return f"<FMUExport {self.path.name}: {self.model.identifier}, {built}>"


def _platform(fmi_version: str) -> tuple[str, str]:
    """The binary folder's name for this platform and the library's suffix."""
    machine = platform.machine().lower()
    arch = {"amd64": "x86_64", "x86_64": "x86_64", "arm64": "aarch64",
            "aarch64": "aarch64"}.get(machine, machine)
    system = {"linux": "linux", "darwin": "darwin", "win32": "windows"}.get(sys.platform,
                                                                          sys.platform)
    suffix = {"linux": ".so", "darwin": ".dylib", "windows": ".dll"}.get(system, ".so")
    if fmi_version == "2.0":
        bits = "64" if sys.maxsize > 2 ** 32 else "32"
        return {"linux": "linux", "darwin": "darwin", "windows": "win"}.get(system, system) \
            + bits, suffix
    return f"{arch}-{system}", suffix


def export_fmu(model: Any, path: str | Path, kind: str = "model-exchange",
               fmi_version: str = "2.0", outputs: Iterable[str] | None = None,
               parameters: Mapping | None = None, compile: bool = True) -> FMUExport:
    """Write ``model`` as an FMU at ``path``.

    Parameters
    ----------
    model : Model, StateSpace, mechanism equations or CoupledModel
        A loaded model file (its outputs, start values and simulation span go in), a
        network's state space, a mechanism's equations or a coupled system's model.
    path : str or Path
        The ``.fmu`` file, in an existing folder; written whole or not at all.
    kind : {"model-exchange", "co-simulation"}
        Model Exchange: the importer integrates the states. Co-Simulation: the FMU carries
        its own integrator, an adaptive Dormand-Prince 5(4) method with relative tolerance
        1e-10 and absolute tolerance 1e-12, stepping up to each communication point and
        locating the state events of joint stops and set-valued friction inside a step.
    fmi_version : {"2.0", "3.0"}
    outputs : iterable of str, optional
        Output names (default: the model file's).
    parameters : mapping, optional
        Start values of parameters, by name (default: the model's own).
    compile : bool
        Build the binary with the system's C compiler (``$CC``, ``cc``, ``gcc`` or
        ``clang``). Without one, or with ``compile=False``, the FMU holds the sources
        alone and the result says why.

    Returns
    -------
    FMUExport

    Raises
    ------
    ModelError
        An unknown kind or version, or a model (or part of one) that cannot be exported
        yet; refused before any file is written.
    OutputError
        The path is refused, or the compiler fails.

    Examples
    --------
    >>> import tempfile, pathlib, zipfile
    >>> import vecnet as vn
    >>> rc = vn.Network("rc")
    >>> _ = rc.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=2.0),
    ...            vn.Capacitor("C", "g", "b", C=0.5))
    >>> target = pathlib.Path(tempfile.mkdtemp(), "rc.fmu")
    >>> done = vn.export_fmu(rc.state_space(symbolic=True), target, compile=False)
    >>> [v.name for v in done.model.states], [v.name for v in done.model.parameters]
    (['C.across'], ['R', 'C'])
    >>> "sources/model.c" in zipfile.ZipFile(target).namelist(), done.reason
    (True, 'compile=False')
    """
    if kind not in KINDS:
        raise ModelError(f"kind is one of {', '.join(map(repr, KINDS))}; got {kind!r}")
    if fmi_version not in VERSIONS:
        raise ModelError(f"fmi_version is one of {', '.join(map(repr, VERSIONS))}; "
                         f"got {fmi_version!r}")
    path = Path(path)
    check_output(path)   # before the formulation and the compiler's work
    cmodel = c_model(model, outputs=outputs, parameters=parameters)
    folder, suffix = _platform(fmi_version)
    wrapper = "fmi2.c" if fmi_version == "2.0" else "fmi3.c"
    sources = {"model.c": cmodel.source, "model.h": cmodel.header,
               **runtime_sources("runtime.c", "runtime.h", wrapper)}
    headers = {entry.name: entry.read_text("utf-8") for entry in (RUNTIME / "headers").iterdir()
               if entry.name.endswith(".h") or entry.name.endswith(".txt")}
    compiler = find_c_compiler() if compile else None
    reason = "" if compiler else ("compile=False" if not compile else
                                  "no C compiler was found ($CC, cc, gcc, clang)")
    description = _model_description(cmodel, kind, fmi_version, list(sources))
    with tempfile.TemporaryDirectory() as work:
        build = Path(work)
        for name, text in {**sources, **headers}.items():
            (build / name).write_text(text, encoding="utf-8")
        library = build / (cmodel.identifier + suffix)
        if compiler:
            build_shared_library([build / "model.c", build / "runtime.c", build / wrapper],
                                 [build], library, compiler)
        with replacing(path) as temporary, zipfile.ZipFile(temporary, "w",
                                                           zipfile.ZIP_DEFLATED) as fmu:
            fmu.writestr("modelDescription.xml", description)
            for name, text in sorted({**sources, **headers}.items()):
                fmu.writestr(f"sources/{name}", text)
            if fmi_version == "3.0":
                fmu.writestr("sources/buildDescription.xml", _build_description(cmodel,
                                                                                wrapper))
            if compiler:
                fmu.write(library, f"binaries/{folder}/{library.name}")
    return FMUExport(path, cmodel, folder, bool(compiler), reason)


# -- modelDescription.xml ------------------------------------------------------------------
def _attributes(**values: Any) -> str:
    return "".join(f" {key}={quoteattr(str(value))}" for key, value in values.items()
                   if value is not None and value != "")


def _units(rows: list[tuple[str, Variable, dict[str, Any]]]) -> list[str]:
    used = sorted({v.unit for _, v, _ in rows if v.unit})
    if not used:
        return []
    return ["  <UnitDefinitions>", *(f"    <Unit{_attributes(name=u)}/>" for u in used),
            "  </UnitDefinitions>"]


def _rows(cmodel: CModel) -> list[tuple[str, Variable, dict[str, Any]]]:
    """(role, variable, attributes) in value-reference order."""
    rows: list[tuple[str, Variable, dict[str, Any]]] = []
    outputs = set(cmodel.state_outputs)
    for k, v in enumerate(cmodel.states):
        rows.append(("state", v, {"causality": "output" if k in outputs else "local",
                                  "variability": "continuous", "initial": "exact"}))
    for k, v in enumerate(cmodel.states):
        rows.append(("derivative", Variable(f"der({v.name})", None, _rate_unit(v.unit),
                                            f"the rate of {v.name}"),
                     {"causality": "local", "variability": "continuous", "state": k}))
    for v in cmodel.parameters:
        rows.append(("parameter", v, {"causality": "parameter", "variability": "tunable",
                                      "initial": "exact"}))
    for v in cmodel.inputs:
        rows.append(("input", v, {"causality": "input", "variability": "continuous"}))
    for k, v in enumerate(cmodel.outputs):
        if k in cmodel.indicators:   # a stop's gap: computed, not an output
            rows.append(("indicator", v, {"causality": "local",
                                          "variability": "continuous",
                                          "initial": "calculated"}))
        else:
            rows.append(("output", v, {"causality": "output", "variability": "continuous",
                                       "initial": "calculated"}))
    return rows


def _rate_unit(unit: str) -> str:
    return f"{unit}/s" if unit else ""


def _model_description(cmodel: CModel, kind: str, fmi_version: str,
                       sources: list[str]) -> str:
    rows = _rows(cmodel)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    identifier = cmodel.identifier
    c_files = [name for name in sources if name.endswith(".c")]
    text = cmodel.description + (
        "; Co-Simulation steps with its own adaptive Dormand-Prince 5(4) integrator "
        "(relative tolerance 1e-10, absolute 1e-12)" + (
            ", which locates each state event to 1e-13 s by bisection of the step"
            if cmodel.indicators else "") if kind == "co-simulation" else "")
    head = _attributes(fmiVersion=fmi_version, modelName=cmodel.name, description=text,
                       generationTool=f"vecnet {installed_version() or '(source tree)'}", generationDateAndTime=stamp)
    experiment = _attributes(startTime=cmodel.start_time, stopTime=cmodel.stop_time,
                             tolerance="1e-08")

    def roles(*wanted: str) -> list[int]:
        return [vr for vr, (role, *_) in enumerate(rows) if role in wanted]

    outs = sorted([*cmodel.state_outputs, *roles("output")])
    ders = roles("derivative")
    initial = sorted({*ders, *roles("output")})
    if fmi_version == "2.0":
        lines = ['<?xml version="1.0" encoding="UTF-8"?>',
                 f"<fmiModelDescription{head}{_attributes(guid=cmodel.token)}"
                 ' variableNamingConvention="flat"'
                 f' numberOfEventIndicators="{len(cmodel.indicators)}">']
        files = ["    <SourceFiles>", *(f"      <File{_attributes(name=n)}/>" for n in c_files),
                 "    </SourceFiles>"]
        if kind == "model-exchange":
            lines += [f"  <ModelExchange{_attributes(modelIdentifier=identifier)}"
                      ' canNotUseMemoryManagementFunctions="true">', *files,
                      "  </ModelExchange>"]
        else:
            lines += [f"  <CoSimulation{_attributes(modelIdentifier=identifier)}"
                      ' canHandleVariableCommunicationStepSize="true"'
                      ' canNotUseMemoryManagementFunctions="true">', *files,
                      "  </CoSimulation>"]
        lines += _units(rows)
        lines.append(f"  <DefaultExperiment{experiment}/>")
        lines.append("  <ModelVariables>")
        for vr, (role, v, attrs) in enumerate(rows):
            state = attrs.pop("state", None)
            real = _attributes(start=v.start if role in ("state", "parameter", "input")
                               else None, unit=v.unit or None)
            if role == "derivative":
                real += _attributes(derivative=state + 1)
            lines.append(f"    <ScalarVariable{_attributes(name=v.name, valueReference=vr)}"
                         f"{_attributes(description=v.description, **attrs)}>"
                         f"<Real{real}/></ScalarVariable>")
        lines.append("  </ModelVariables>")
        # FMI 2 refers to a variable by its index, from 1, in the listing's order
        lines += ["  <ModelStructure>"]
        for tag, entries in (("Outputs", outs), ("Derivatives", ders),
                             ("InitialUnknowns", initial)):
            if entries:
                lines += [f"    <{tag}>", *(f'      <Unknown index="{vr + 1}"/>'
                                            for vr in entries), f"    </{tag}>"]
        lines += ["  </ModelStructure>", "</fmiModelDescription>"]
        return "\n".join(lines) + "\n"
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f"<fmiModelDescription{head}{_attributes(instantiationToken=cmodel.token)}"
             ' variableNamingConvention="flat">']
    if kind == "model-exchange":
        lines.append(f"  <ModelExchange{_attributes(modelIdentifier=identifier)}"
                     # the step's end is where a mechanism's loops are closed again
                     ' needsCompletedIntegratorStep="true" canGetAndSetFMUState="false"/>')
    else:
        lines.append(f"  <CoSimulation{_attributes(modelIdentifier=identifier)}"
                     ' canHandleVariableCommunicationStepSize="true"/>')
    lines += _units(rows)
    lines.append(f"  <DefaultExperiment{experiment}/>")
    lines.append("  <ModelVariables>")
    lines.append(f'    <Float64 name="time" valueReference="{len(rows)}"'
                 ' causality="independent" variability="continuous"'
                 ' description="the independent variable"/>')
    for vr, (role, v, attrs) in enumerate(rows):
        state = attrs.pop("state", None)
        extra = _attributes(start=v.start if role in ("state", "parameter", "input") else None,
                            unit=v.unit or None,
                            derivative=state if role == "derivative" else None)
        lines.append(f"    <Float64{_attributes(name=v.name, valueReference=vr)}"
                     f"{_attributes(description=v.description, **attrs)}{extra}/>")
    lines.append("  </ModelVariables>")
    lines.append("  <ModelStructure>")
    lines += [f'    <Output valueReference="{vr}"/>' for vr in outs]
    lines += [f'    <ContinuousStateDerivative valueReference="{vr}"/>' for vr in ders]
    lines += [f'    <InitialUnknown valueReference="{vr}"/>' for vr in initial]
    lines += [f'    <EventIndicator valueReference="{vr}"/>' for vr in roles("indicator")]
    lines += ["  </ModelStructure>", "</fmiModelDescription>"]
    return "\n".join(lines) + "\n"


def _build_description(cmodel: CModel, wrapper: str) -> str:
    files = "".join(f'\n      <SourceFile name="{name}"/>'
                    for name in ("model.c", "runtime.c", wrapper))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<fmiBuildDescription fmiVersion="3.0">\n'
            f'  <BuildConfiguration modelIdentifier="{cmodel.identifier}">\n'
            f'    <SourceFileSet language="C99">{files}\n    </SourceFileSet>\n'
            "  </BuildConfiguration>\n</fmiBuildDescription>\n")

