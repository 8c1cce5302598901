"""A model's generated C (:mod:`vecnet.numerics.c_model`) built into a shared library and
called from Python: the same code an FMU runs, as a compiled backend for vecnet's own
calls (``vn.compile(eom, backend="c")``).

The library holds the model's ``model.c``, the run-time's ``runtime.c`` (for its linear
solve) and three entry points with default visibility (the run-time keeps its own symbols
hidden): ``vecnet_derivatives``, ``vecnet_outputs`` and ``vecnet_project``, called through
:mod:`ctypes` with arrays made once.
"""

from __future__ import annotations

import ctypes
import shutil
import tempfile
import weakref
from importlib import resources
from pathlib import Path

import numpy as np

from ..errors import ModelError, SimulationError
from .c_code import build_shared_library, find_c_compiler
from .c_model import CModel

__all__ = ["CLibrary"]

_ENTRIES = """\
#include "runtime.h"
#define VN_EXPORT __attribute__((visibility("default")))
VN_EXPORT int vecnet_derivatives(double t, const double *x, const double *p, const double *u,
                                 double *w, double *dx) {
    return vn_derivatives(t, x, p, u, w, dx);
}
VN_EXPORT int vecnet_outputs(double t, const double *x, const double *p, const double *u,
                             double *w, double *y) {
    return vn_outputs(t, x, p, u, w, y);
}
VN_EXPORT int vecnet_project(double t, double *x, const double *p, const double *u,
                             double *w) {
    return vn_project(t, x, p, u, w);
}
"""

_DOUBLES = ctypes.POINTER(ctypes.c_double)

#: the FMI run-time's C, which a model's library and its FMUs are built with
RUNTIME = resources.files("vecnet.output") / "fmu_runtime"


def runtime_sources(*names: str) -> dict[str, str]:
    """The text of the run-time's files ``names`` (``"runtime.c"``, ``"fmi2.c"`` ...)."""
    return {name: (RUNTIME / name).read_text("utf-8") for name in names}


class CLibrary:
    """The C of ``model`` compiled with the system's C compiler and loaded.

    Attributes
    ----------
    model : CModel
    parameters, inputs : numpy.ndarray
        The values the calls pass (the model's start values; set entries to change them).

    Raises
    ------
    ModelError
        No C compiler was found.
    OutputError
        The compiler failed.

    Examples
    --------
    >>> import numpy as np
    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    >>> bob = mech.body("bob", mass=1.0, inertia=0.0, position=(0, -1))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
    >>> library = vn.compile(mech.formulate(), backend="c")
    >>> a = library.forward_dynamics(np.array([0.5]), np.array([0.0]))
    >>> bool(np.isclose(a[0], -9.81 * np.sin(0.5), rtol=1e-14))    # a point mass at 1 m
    True
    """

    def __init__(self, model: CModel) -> None:
        compiler = find_c_compiler()
        if compiler is None:
            raise ModelError("no C compiler was found ($CC, cc, gcc, clang): the C backend "
                             "needs one")
        self.model = model
        folder = Path(tempfile.mkdtemp(prefix="vecnet-c-"))
        self._cleanup = weakref.finalize(self, shutil.rmtree, folder, True)
        files = {"model.c": model.source, "model.h": model.header, "entries.c": _ENTRIES,
                 **runtime_sources("runtime.c", "runtime.h")}
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
        library = folder / "model.so"
        build_shared_library([folder / "model.c", folder / "runtime.c", folder / "entries.c"],
                             [folder], library, compiler)
        self._library = ctypes.CDLL(str(library))
        for name in ("vecnet_derivatives", "vecnet_outputs"):
            function = getattr(self._library, name)
            function.restype = ctypes.c_int
            function.argtypes = [ctypes.c_double, *[_DOUBLES] * 5]
        self._library.vecnet_project.restype = ctypes.c_int
        self._library.vecnet_project.argtypes = [ctypes.c_double, *[_DOUBLES] * 4]
        self.parameters = np.array([v.start for v in model.parameters] or [0.0], float)
        self.inputs = np.array([v.start for v in model.inputs] or [0.0], float)
        self._work = np.zeros(max(len(model.states), 1))
        self._rates = np.zeros(max(len(model.states), 1))
        self._pointers = (self.parameters.ctypes.data_as(_DOUBLES),
                          self.inputs.ctypes.data_as(_DOUBLES),
                          self._work.ctypes.data_as(_DOUBLES))

    @property
    def n(self) -> int:
        """The number of states."""
        return len(self.model.states)

    def derivatives(self, t: float, x: np.ndarray) -> np.ndarray:
        """The states' rates at time ``t`` (a new array).

        Raises
        ------
        SimulationError
            The model's C failed (a singular mass matrix, a non-finite rate).
        """
        x = np.ascontiguousarray(x, dtype=float)
        if x.shape != (self.n,):
            raise ModelError(f"x has {x.size} entries; the model has {self.n} states")
        p, u, w = self._pointers
        code = self._library.vecnet_derivatives(float(t), x.ctypes.data_as(_DOUBLES), p, u, w,
                                                self._rates.ctypes.data_as(_DOUBLES))
        if code:
            raise SimulationError(f"the model's C failed (code {code}) at t = {t}")
        return self._rates[:self.n].copy()

    def forward_dynamics(self, q: np.ndarray, u: np.ndarray, t: float = 0.0) -> np.ndarray:
        """A mechanism's ``u'`` at ``(q, u)``: the rates of its speeds."""
        q, u = np.asarray(q, float), np.asarray(u, float)
        rates = self.derivatives(t, np.concatenate([q, u]))
        return rates[len(q):len(q) + len(u)]

    def raw(self):
        """``(function, arguments)``: the ``vecnet_derivatives`` call with its arguments
        made, writing the rates of the state array in ``arguments`` (for timing a call
        alone: ``function(*arguments)``)."""
        x = np.array([v.start for v in self.model.states] or [0.0], float)
        p, u, w = self._pointers
        return self._library.vecnet_derivatives, (0.0, x.ctypes.data_as(_DOUBLES), p, u, w,
                                                  self._rates.ctypes.data_as(_DOUBLES)), x
