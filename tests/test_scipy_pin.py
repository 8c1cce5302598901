"""The scipy that :mod:`vecnet.numerics.scipy_steppers` was written against: its stepped
methods subclass scipy's explicit Runge-Kutta methods and override, call and copy their
private parts (``RungeKutta._step_impl``, ``_dense_output_impl``, the attributes a step
keeps). scipy may change those in any release, so the versions are pinned here and every
private name the subclass relies on is checked; an upgrade that fails this is read against
``scipy/integrate/_ivp/rk.py`` and ``base.py`` before the range is widened."""

import inspect

import numpy as np
import pytest
import scipy
import scipy.integrate._ivp.base as ivp_base
import scipy.integrate._ivp.rk as rk

from vecnet.numerics import scipy_steppers

#: the scipy versions checked against (the oldest the package supports, to the newest
#: whose private stepping was read)
OLDEST, NEWEST = (1, 11), (1, 17)


def _version() -> tuple[int, int]:
    major, minor = scipy.__version__.split(".")[:2]
    return int(major), int(minor)


def _parameters(function) -> list[str]:
    return list(inspect.signature(function).parameters)


def test_the_installed_scipy_is_in_the_range_the_steppers_were_written_against():
    assert OLDEST <= _version() <= NEWEST, (
        f"scipy {scipy.__version__} is outside {OLDEST[0]}.{OLDEST[1]} to "
        f"{NEWEST[0]}.{NEWEST[1]}, the versions vecnet/numerics/scipy_steppers.py was written "
        "against: it overrides scipy's private RungeKutta._step_impl and _dense_output_impl; "
        "read them in this version and run this file's other checks before widening NEWEST")


def test_the_private_methods_overridden_and_called_keep_their_signatures():
    # the subclass overrides both and calls scipy's own through super()
    for owner in (ivp_base.OdeSolver, rk.RungeKutta, rk.DOP853):
        assert _parameters(owner._step_impl) == ["self"], f"{owner.__name__}._step_impl changed"
    for owner in (ivp_base.OdeSolver, rk.RungeKutta, rk.DOP853):
        assert _parameters(owner._dense_output_impl) == ["self"], \
            f"{owner.__name__}._dense_output_impl changed"
    # OdeSolver.step and dense_output are what reach the overrides
    assert "self._step_impl()" in inspect.getsource(ivp_base.OdeSolver.step)
    assert "self._dense_output_impl()" in inspect.getsource(ivp_base.OdeSolver.dense_output)
    assert isinstance(ivp_base.OdeSolver.TOO_SMALL_STEP, str)


def test_the_copied_step_control_is_scipys():
    """``_compiled_step`` repeats ``RungeKutta._step_impl`` with each attempt one call: the
    constants and the steps of scipy's control must be the ones it repeats."""
    assert (rk.SAFETY, rk.MIN_FACTOR, rk.MAX_FACTOR) == (
        scipy_steppers.SAFETY, scipy_steppers.MIN_FACTOR, scipy_steppers.MAX_FACTOR)
    assert _parameters(rk.rk_step) == ["fun", "t", "y", "f", "h", "A", "B", "C", "K"]
    source = inspect.getsource(rk.RungeKutta._step_impl)
    for piece in ("min_step = 10 * np.abs(np.nextafter(t, self.direction * np.inf) - t)",
                  "return False, self.TOO_SMALL_STEP", "rk_step(self.fun, t, y, self.f, h,",
                  "self.error_exponent", "factor = min(1, factor)", "self.h_previous = h",
                  "self.y_old = y", "self.h_abs = h_abs", "self.f = f_new", "return True, None"):
        assert piece in source, f"RungeKutta._step_impl no longer has {piece!r}"
    assert "self.error_exponent = -1 / (self.error_estimator_order + 1)" in \
        inspect.getsource(rk.RungeKutta.__init__)


@pytest.mark.parametrize("method", [rk.RK23, rk.RK45, rk.DOP853])
def test_a_step_keeps_the_attributes_the_subclass_reads_and_sets(method):
    solver = method(lambda t, y: -y, 0.0, np.ones(2), 1.0, rtol=1e-8, atol=1e-10)
    read = ("t", "y", "f", "h_abs", "t_bound", "direction", "max_step", "rtol", "atol", "K",
            "n_stages", "nfev", "error_exponent", "fun", "A", "B", "C")
    missing = [name for name in read if not hasattr(solver, name)]
    assert missing == [], f"{method.__name__} no longer has {missing}"
    assert solver.K.shape == (solver.n_stages + 1, 2)
    solver.step()
    after = ("t_old", "y_old", "h_previous")
    missing = [name for name in after if getattr(solver, name, None) is None]
    assert missing == [], f"{method.__name__}'s step no longer sets {missing}"
    # the interpolant of the step just taken, between its ends
    assert np.allclose(solver._dense_output_impl()(0.5 * (solver.t_old + solver.t)),
                       np.exp(-0.5 * (solver.t_old + solver.t)), rtol=1e-6)


def test_dop853_keeps_the_tables_its_compiled_stages_take():
    tables = [np.asarray(getattr(rk.DOP853, name)) for name in ("A", "B", "C", "E3", "E5")]
    stages = rk.DOP853.n_stages
    assert [t.shape for t in tables] == [(stages, stages), (stages,), (stages,),
                                         (stages + 1,), (stages + 1,)]
    assert rk.DOP853.order == 8 and rk.DOP853.error_estimator_order == 7
