"""The FMU run-time in C (vecnet/output/fmu_runtime): a hand-written damped
oscillator compiled against it into FMI 2.0 and FMI 3.0 FMUs, validated and
simulated by FMPy (Model Exchange and Co-Simulation) against the closed form."""

from __future__ import annotations

import math
import platform
import shutil
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest

fmpy = pytest.importorskip("fmpy", reason="fmpy is not installed")

RUNTIME = Path(__file__).resolve().parents[1] / "vecnet" / "output" / "fmu_runtime"
CC = shutil.which("cc") or shutil.which("gcc")
if CC is None:
    pytest.skip("no C compiler (cc) on the PATH", allow_module_level=True)
if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
    pytest.skip("the test FMUs are built for x86_64 Linux only", allow_module_level=True)

TOKEN = "{8c4e810f-3df3-4a00-8276-176fa3c9f000}"
K, C, F = 2.0, 0.5, 0.5  # m = 1

MODEL_H = """\
#ifndef MODEL_H
#define MODEL_H
#define VN_NX 2
#define VN_NP 2
#define VN_NU 1
#define VN_NY 1
#define VN_NW 1
#define VN_NZ 0
#define VN_TOKEN "%s"
#define VN_CS_RTOL 1e-10
#define VN_CS_ATOL 1e-12
extern const double vn_x_start[];
extern const double vn_p_start[];
extern const double vn_u_start[];
int vn_initialize(double t, double *x, const double *p, const double *u, double *w);
int vn_derivatives(double t, const double *x, const double *p, const double *u, double *w,
                   double *dx);
int vn_outputs(double t, const double *x, const double *p, const double *u, double *w,
               double *y);
int vn_indicators(double t, const double *x, const double *p, const double *u, double *w,
                  double *z);
int vn_update(double t, double *x, const double *p, const double *u, double *w, int *changed);
int vn_project(double t, double *x, const double *p, const double *u, double *w);
const char *vn_message(int code);
int vn_solve(int n, double *A, double *b);
#endif
""" % TOKEN

# x'' + c x' + k x = F; states x, v; parameters k, c; input F; output k x.
# w[0] counts the derivative evaluations (the work array is per instance).
MODEL_C = """\
#include "model.h"
const double vn_x_start[] = {1.0, 0.0};
const double vn_p_start[] = {%r, %r};
const double vn_u_start[] = {%r};
int vn_initialize(double t, double *x, const double *p, const double *u, double *w)
{
    (void)t; (void)x; (void)u; (void)w;
    return p[0] > 0.0 ? 0 : 7;
}
int vn_derivatives(double t, const double *x, const double *p, const double *u, double *w,
                   double *dx)
{
    (void)t;
    w[0] += 1.0;
    dx[0] = x[1];
    dx[1] = u[0] - p[1] * x[1] - p[0] * x[0];
    return 0;
}
int vn_outputs(double t, const double *x, const double *p, const double *u, double *w,
               double *y)
{
    (void)t; (void)u; (void)w;
    y[0] = p[0] * x[0];
    return 0;
}
int vn_indicators(double t, const double *x, const double *p, const double *u, double *w,
                  double *z)
{
    (void)t; (void)x; (void)p; (void)u; (void)w; (void)z;
    return 0;
}
int vn_update(double t, double *x, const double *p, const double *u, double *w, int *changed)
{
    (void)t; (void)x; (void)p; (void)u; (void)w;
    *changed = 0;
    return 0;
}
int vn_project(double t, double *x, const double *p, const double *u, double *w)
{
    (void)t; (void)x; (void)p; (void)u; (void)w;
    return 0;
}
const char *vn_message(int code)
{
    return code == 7 ? "the stiffness k must be positive" : "unknown error";
}
""" % (K, C, F)

MD2 = f"""\
<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="oscillator" guid="{TOKEN}"
    generationTool="vecnet tests" numberOfEventIndicators="0" variableNamingConvention="flat">
  <ModelExchange modelIdentifier="oscillator" canGetAndSetFMUstate="true"
      canSerializeFMUstate="true"/>
  <CoSimulation modelIdentifier="oscillator" canHandleVariableCommunicationStepSize="true"
      canGetAndSetFMUstate="true" canSerializeFMUstate="true"/>
  <LogCategories>
    <Category name="logStatusError"/>
    <Category name="logEvents"/>
  </LogCategories>
  <DefaultExperiment startTime="0" stopTime="5"/>
  <ModelVariables>
    <ScalarVariable name="x" valueReference="0" causality="local" variability="continuous"
        initial="exact"><Real start="1"/></ScalarVariable>
    <ScalarVariable name="v" valueReference="1" causality="local" variability="continuous"
        initial="exact"><Real start="0"/></ScalarVariable>
    <ScalarVariable name="der(x)" valueReference="2" causality="local"
        variability="continuous" initial="calculated"><Real derivative="1"/></ScalarVariable>
    <ScalarVariable name="der(v)" valueReference="3" causality="local"
        variability="continuous" initial="calculated"><Real derivative="2"/></ScalarVariable>
    <ScalarVariable name="k" valueReference="4" causality="parameter" variability="tunable"
        initial="exact"><Real start="{K!r}"/></ScalarVariable>
    <ScalarVariable name="c" valueReference="5" causality="parameter" variability="tunable"
        initial="exact"><Real start="{C!r}"/></ScalarVariable>
    <ScalarVariable name="F" valueReference="6" causality="input" variability="continuous">
      <Real start="{F!r}"/></ScalarVariable>
    <ScalarVariable name="spring_force" valueReference="7" causality="output"
        variability="continuous" initial="calculated"><Real/></ScalarVariable>
    <ScalarVariable name="time" valueReference="8" causality="independent"
        variability="continuous"><Real/></ScalarVariable>
  </ModelVariables>
  <ModelStructure>
    <Outputs>
      <Unknown index="8" dependencies="1"/>
    </Outputs>
    <Derivatives>
      <Unknown index="3" dependencies="2"/>
      <Unknown index="4" dependencies="1 2 7"/>
    </Derivatives>
    <InitialUnknowns>
      <Unknown index="3"/>
      <Unknown index="4"/>
      <Unknown index="8"/>
    </InitialUnknowns>
  </ModelStructure>
</fmiModelDescription>
"""

MD3 = f"""\
<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="oscillator" instantiationToken="{TOKEN}"
    generationTool="vecnet tests" variableNamingConvention="flat">
  <ModelExchange modelIdentifier="oscillator" canGetAndSetFMUState="true"
      canSerializeFMUState="true"/>
  <CoSimulation modelIdentifier="oscillator" canHandleVariableCommunicationStepSize="true"
      canGetAndSetFMUState="true" canSerializeFMUState="true" hasEventMode="true"/>
  <LogCategories>
    <Category name="logStatusError"/>
    <Category name="logEvents"/>
  </LogCategories>
  <DefaultExperiment startTime="0" stopTime="5"/>
  <ModelVariables>
    <Float64 name="time" valueReference="8" causality="independent" variability="continuous"/>
    <Float64 name="x" valueReference="0" causality="local" variability="continuous"
        initial="exact" start="1"/>
    <Float64 name="v" valueReference="1" causality="local" variability="continuous"
        initial="exact" start="0"/>
    <Float64 name="der(x)" valueReference="2" causality="local" variability="continuous"
        initial="calculated" derivative="0"/>
    <Float64 name="der(v)" valueReference="3" causality="local" variability="continuous"
        initial="calculated" derivative="1"/>
    <Float64 name="k" valueReference="4" causality="parameter" variability="tunable"
        start="{K!r}"/>
    <Float64 name="c" valueReference="5" causality="parameter" variability="tunable"
        start="{C!r}"/>
    <Float64 name="F" valueReference="6" causality="input" variability="continuous"
        start="{F!r}"/>
    <Float64 name="spring_force" valueReference="7" causality="output"
        variability="continuous"/>
  </ModelVariables>
  <ModelStructure>
    <Output valueReference="7" dependencies="0"/>
    <ContinuousStateDerivative valueReference="2" dependencies="1"/>
    <ContinuousStateDerivative valueReference="3" dependencies="0 1 6"/>
    <InitialUnknown valueReference="2"/>
    <InitialUnknown valueReference="3"/>
    <InitialUnknown valueReference="7"/>
  </ModelStructure>
</fmiModelDescription>
"""

SOURCES = ("runtime.h", "runtime.c")
FLAGS = ["-shared", "-fPIC", "-O2", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"]


def closed_form(t, k=K, c=C, f=F):
    """x(t) of x'' + c x' + k x = f from x(0) = 1, v(0) = 0 (underdamped)."""
    w = math.sqrt(k)
    zeta = c / (2.0 * w)
    wd = w * math.sqrt(1.0 - zeta * zeta)
    xs = f / k
    return xs + (1.0 - xs) * np.exp(-zeta * w * t) * (
        np.cos(wd * t) + zeta * w / wd * np.sin(wd * t))


def build_fmu(tmp: Path, version: int) -> Path:
    work = tmp / f"fmi{version}"
    src = work / "sources"
    src.mkdir(parents=True)
    (src / "model.h").write_text(MODEL_H)
    (src / "model.c").write_text(MODEL_C)
    front = f"fmi{version}.c"
    for name in SOURCES + (front,):
        shutil.copy(RUNTIME / name, src / name)
    lib = work / "oscillator.so"
    cmd = [CC, *FLAGS, f"-I{RUNTIME / 'headers'}", f"-I{src}",
           str(src / "model.c"), str(src / "runtime.c"), str(src / front), "-lm",
           "-o", str(lib)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0 and not done.stderr, done.stderr
    platform_dir = "linux64" if version == 2 else "x86_64-linux"
    fmu = tmp / f"oscillator{version}.fmu"
    with zipfile.ZipFile(fmu, "w") as zf:
        zf.writestr("modelDescription.xml", MD2 if version == 2 else MD3)
        zf.write(lib, f"binaries/{platform_dir}/oscillator.so")
        for path in sorted(src.iterdir()):
            zf.write(path, f"sources/{path.name}")
    return fmu


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fmu_runtime")
    return {2: build_fmu(tmp, 2), 3: build_fmu(tmp, 3)}


@pytest.fixture(scope="module")
def unzipped(fmus, tmp_path_factory):
    from fmpy import extract

    tmp = tmp_path_factory.mktemp("fmu_unzipped")
    return {v: extract(str(path), unzipdir=str(tmp / f"fmi{v}")) for v, path in fmus.items()}


def max_error(result, k=K):
    t = result["time"]
    assert t[0] == 0.0 and abs(t[-1] - 5.0) < 1e-9
    ex = np.max(np.abs(result["x"] - closed_form(t, k=k)))
    ey = np.max(np.abs(result["spring_force"] - k * closed_form(t, k=k)))
    return max(ex, ey)


@pytest.mark.parametrize("version", [2, 3])
def test_validates(fmus, version):
    from fmpy.validation import validate_fmu

    assert validate_fmu(str(fmus[version])) == []


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("fmi_type", ["ModelExchange", "CoSimulation"])
@pytest.mark.parametrize("k", [None, 4.0])
def test_matches_closed_form(fmus, version, fmi_type, k):
    options = dict(solver="CVode", relative_tolerance=1e-10) if fmi_type == "ModelExchange" \
        else dict(output_interval=0.01)
    result = fmpy.simulate_fmu(
        str(fmus[version]), fmi_type=fmi_type, stop_time=5.0, output=["x", "spring_force"],
        start_values={} if k is None else {"k": k}, **options)
    assert max_error(result, K if k is None else k) < 1e-7


def _slave(version, unzipdir, name, logs):
    """A Co-Simulation instance whose log messages go to logs as (name, status, text)."""
    from fmpy import calloc, free, read_model_description
    from fmpy.fmi2 import (
        FMU2Slave,
        fmi2CallbackAllocateMemoryTYPE,
        fmi2CallbackFreeMemoryTYPE,
        fmi2CallbackFunctions,
        fmi2CallbackLoggerTYPE,
    )
    from fmpy.fmi3 import FMU3Slave

    md = read_model_description(unzipdir)
    if version == 2:
        fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzipdir, modelIdentifier="oscillator",
                        instanceName=name)

        def log2(env, instance, status, category, message):
            logs.append((instance.decode(), status, message.decode()))

        callbacks = fmi2CallbackFunctions()
        callbacks.logger = fmi2CallbackLoggerTYPE(log2)
        callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        fmu.instantiate(callbacks=callbacks)
        fmu.setupExperiment(startTime=0.0)
    else:
        fmu = FMU3Slave(guid=md.guid, unzipDirectory=unzipdir,
                        modelIdentifier="oscillator", instanceName=name)

        def log3(env, status, category, message):
            logs.append((name, status, message.decode()))

        fmu.instantiate(logMessage=log3)
    fmu.get = fmu.getReal if version == 2 else fmu.getFloat64
    fmu.set = fmu.setReal if version == 2 else fmu.setFloat64
    return fmu


@pytest.mark.parametrize("version", [2, 3])
def test_two_instances_do_not_share_state(unzipped, version):
    logs = []
    a = _slave(version, unzipped[version], "a", logs)
    b = _slave(version, unzipped[version], "b", logs)
    b.set([4], [4.0])  # k of b only
    for fmu in (a, b):
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
    t, h = 0.0, 0.05
    for _ in range(40):  # interleaved
        a.doStep(currentCommunicationPoint=t, communicationStepSize=h)
        b.doStep(currentCommunicationPoint=t, communicationStepSize=h)
        t += h
    xa, va, ka, ta = a.get([0, 1, 4, 8])
    xb, kb, tb = b.get([0, 4, 8])
    assert (ka, kb) == (K, 4.0) and ta == tb == pytest.approx(2.0, abs=1e-12)
    assert abs(xa - closed_form(2.0)) < 1e-8
    assert abs(xb - closed_form(2.0, k=4.0)) < 1e-8
    # derivatives and outputs through their value references are the model's
    assert a.get([2, 3, 7]) == pytest.approx([va, F - C * va - K * xa, K * xa], rel=1e-15)
    for fmu in (a, b):
        fmu.terminate()
        fmu.freeInstance()
    assert logs == []


@pytest.mark.parametrize("version", [2, 3])
def test_refusals_are_logged(unzipped, version):
    from fmpy.fmi1 import FMICallException

    logs = []
    fmu = _slave(version, unzipped[version], "r", logs)
    with pytest.raises(FMICallException):
        fmu.set([2], [1.0])  # a derivative
    with pytest.raises(FMICallException):
        fmu.get([9])  # no such variable
    fmu.set([4], [-1.0])  # k <= 0: the model's vn_initialize refuses
    fmu.enterInitializationMode()
    with pytest.raises(FMICallException):
        fmu.exitInitializationMode()
    messages = [m for _, _, m in logs]
    assert len(messages) == 3
    assert "state derivative" in messages[0]
    assert "value reference 9" in messages[1]
    assert "the stiffness k must be positive" in messages[2]
    assert all(name == "r" and status == 3 for name, status, _ in logs)
    fmu.reset()
    assert fmu.get([4]) == [K]  # start values again
    if version == 2:
        fmu.setupExperiment(startTime=0.0)
    # an undamped oscillator over 1e7 s: more than 100000 steps in one doStep
    fmu.set([5], [0.0])
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    with pytest.raises(FMICallException):
        fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=1e7)
    assert "more than 100000 integrator steps" in logs[-1][2]
    t_reached = fmu.get([8])[0]
    assert 0.0 < t_reached < 1e7
    if version == 2:
        assert fmu.getRealStatus(2) == t_reached  # fmi2LastSuccessfulTime
    fmu.freeInstance()


@pytest.mark.parametrize("version", [2, 3])
def test_fmu_state_round_trip(unzipped, version):
    logs = []
    fmu = _slave(version, unzipped[version], "s", logs)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=1.0)
    at_one = fmu.get([0, 1, 8])
    state = fmu.getFMUState() if version == 3 else fmu.getFMUstate()
    blob = fmu.serializeFMUState(state) if version == 3 else fmu.serializeFMUstate(state)
    fmu.doStep(currentCommunicationPoint=1.0, communicationStepSize=1.0)
    assert fmu.get([8]) == [2.0]
    if version == 3:
        fmu.setFMUState(fmu.deserializeFMUState(blob))
        fmu.freeFMUState(state)
    else:
        fmu.setFMUstate(fmu.deSerializeFMUstate(blob))
        fmu.freeFMUstate(state)
    assert fmu.get([0, 1, 8]) == at_one
    fmu.doStep(currentCommunicationPoint=1.0, communicationStepSize=1.0)
    assert abs(fmu.get([0])[0] - closed_form(2.0)) < 1e-8
    fmu.terminate()
    fmu.freeInstance()
    assert logs == []


SOLVE_MAIN = r"""
#include <stdio.h>
#include "runtime.h"
int main(void)
{
    /* needs a row swap: the (0,0) entry is zero */
    double A[9] = {0, 2, 1,  1, 1, 1,  2, 1, 3};
    double b[3] = {7, 6, 13};            /* x = (1, 2, 3) */
    double S[4] = {1, 2, 2, 4};          /* singular */
    double s[2] = {1, 2};
    double T[4] = {1e-200, 0, 0, 1e-200}; /* tiny but regular: scale-relative */
    double r[2] = {2e-200, 3e-200};
    int st1 = vn_solve(3, A, b), st2 = vn_solve(2, S, s), st3 = vn_solve(2, T, r);
    printf("%d %.17g %.17g %.17g %d %d %.17g %.17g\n", st1, b[0], b[1], b[2], st2, st3,
           r[0], r[1]);
    return 0;
}
"""


def test_vn_solve(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "model.h").write_text(MODEL_H)
    (src / "model.c").write_text(MODEL_C)
    (src / "main.c").write_text(SOLVE_MAIN)
    exe = tmp_path / "solve"
    cmd = [CC, "-O2", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror",
           f"-I{RUNTIME / 'headers'}", f"-I{RUNTIME}", f"-I{src}", str(src / "main.c"),
           str(src / "model.c"), str(RUNTIME / "runtime.c"), "-lm", "-o", str(exe)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0 and not done.stderr, done.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "0"
    assert [float(v) for v in out[1:4]] == pytest.approx([1.0, 2.0, 3.0], abs=1e-14)
    assert out[4] != "0"  # singular
    assert out[5] == "0"
    assert [float(v) for v in out[6:8]] == pytest.approx([2.0, 3.0], rel=1e-14)


@pytest.mark.parametrize("version", [2, 3])
def test_null_arrays_and_other_types(unzipped, version):
    from ctypes import c_double, c_int, c_uint, c_void_p

    logs = []
    fmu = _slave(version, unzipped[version], "n", logs)
    lib, inst = fmu.dll, c_void_p(fmu.component)
    prefix = f"fmi{version}"
    others = ["Integer", "Boolean", "String"] if version == 2 else \
        ["Float32", "Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64",
         "Boolean", "String"]
    tail = () if version == 2 else (0,)  # FMI 3.0's nValues
    for kind in ["Real" if version == 2 else "Float64", *others]:
        for verb in ("Get", "Set"):
            fn = getattr(lib, f"{prefix}{verb}{kind}")
            assert fn(inst, None, 0, None, *tail) == 0, (verb, kind)  # nothing to do
            assert fn(None, None, 0, None, *tail) == 3  # no instance
    vr, value = (c_uint * 1)(0), (c_double * 1)()
    if version == 2:
        assert lib.fmi2GetInteger(inst, vr, 1, (c_int * 1)()) == 3
        assert lib.fmi2GetReal(inst, vr, 1, value) == 0 and value[0] == 1.0
        assert lib.fmi2GetReal(inst, None, 1, value) == 3  # NULL with a count
    else:
        assert lib.fmi3GetInt32(inst, vr, 1, (c_int * 1)(), 1) == 3
        assert lib.fmi3GetFloat64(inst, vr, 1, value, 1) == 0 and value[0] == 1.0
        assert lib.fmi3GetFloat64(inst, vr, 1, value, 2) == 3  # counts differ
    assert len(logs) == 2 and all(status == 3 for _, status, _ in logs)
    fmu.freeInstance()
