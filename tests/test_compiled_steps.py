"""A tree that gravity alone moves takes each attempted DOP853 step in one compiled call
(``open_chain_rk_step``). It must be scipy's DOP853, step for step: the same step sizes,
the same states to roundoff and the same count of evaluations, with scipy's own
``solve_ivp`` on the same right-hand side as the reference; and the evaluations it takes
count against ``max_evaluations`` as scipy's do."""

import numpy as np
import pytest
import scipy.integrate

import vecnet as vn
from vecnet.errors import SimulationError
from vecnet.numerics.integrators import solve_ivp
from vecnet.numerics.result import Outcome

GRAVITY = (0.0, 0.0, -9.81)


def chain(n: int, kinds: str = "spherical"):
    """A chain of n rods, each joint a ball (or alternately a ball and a hinge), hanging
    and set turning."""
    mech = vn.spatial.Mechanism("chain", gravity=GRAVITY)
    a, top = mech.ground.point(0, 0, 0), np.zeros(3)
    for k in range(1, n + 1):
        length, mass = 0.5 + 0.1 * (k % 3), 1.0 + 0.25 * (k % 4)
        inertia = (mass * length**2 / 12, mass * length**2 / 12, mass * length**2 / 200)
        body = mech.body(f"b{k}", mass, inertia, position=top - [0, 0, length / 2])
        b = body.point(0, 0, length / 2)
        if kinds == "spherical" or k % 2:
            mech.spherical(f"J{k}", a, b)
        else:
            mech.revolute(f"J{k}", a, b, axis=(1, 0, 0))
        a, top = body.point(0, 0, -length / 2), top - [0, 0, length]
    return mech


def initial_state(model, rng):
    """Ball joints (four coordinates each) turned about 0.2 rad from hanging, turning at
    about 1 rad/s."""
    q = model.normalize(np.tile([1.0, 0.0, 0.0, 0.0], model.n // 4)
                        + 0.1 * rng.normal(size=model.n))
    return np.concatenate([q, rng.normal(size=model.nu)])


def tables(solver):
    return [np.ascontiguousarray(x, dtype=float)
            for x in (solver.A, solver.B, solver.C, solver.E3, solver.E5)]


@pytest.mark.parametrize("n", [1, 3, 6])
def test_each_compiled_step_is_scipys_dop853_step(n):
    """scipy's DOP853 takes 30 steps; from the same state, rate and step size the compiled
    call gives the same stages, new state and rate, and accepts the step."""
    model = chain(n).formulate().compile()
    rates, stages = model.open_chain_rates(), model.open_chain_stages()
    assert rates is not None and stages is not None
    y0 = initial_state(model, np.random.default_rng(n))
    rtol, atol = 1e-9, 1e-11
    solver = scipy.integrate.DOP853(lambda t, y: rates(y), 0.0, y0, 10.0, rtol=rtol,
                                    atol=atol)
    A, B, C, E3, E5 = tables(solver)
    K = np.empty_like(solver.K)
    for _ in range(30):
        y, f = solver.y.copy(), solver.f.copy()
        solver.step()
        assert solver.status == "running"
        y_new, f_new, error = stages(y, f, solver.h_previous, K, A, B, C, E3, E5, rtol,
                                     np.full(len(y), atol))
        # a stage's state differs in its last bits (scipy's sums go through BLAS), and the
        # accelerations amplify that by the mass matrix's conditioning; a wrong table
        # entry would put them apart by about h |f|, 1e-2
        np.testing.assert_allclose(y_new, solver.y, rtol=0, atol=1e-10 * np.abs(y).max())
        np.testing.assert_allclose(f_new, solver.f, rtol=0, atol=1e-9 * np.abs(f).max())
        np.testing.assert_allclose(K, solver.K, rtol=0, atol=1e-9 * np.abs(K).max())
        assert 0 <= error < 1


def test_a_run_of_compiled_steps_follows_scipys_dop853():
    """The whole run: the error estimate is a small difference of large sums, so the
    step sizes part at about 1e-7 relative; the states agree within the tolerances' reach
    and the runs take as many steps."""
    model = chain(3).formulate().compile()
    rates, stages = model.open_chain_rates(), model.open_chain_stages()
    y0 = initial_state(model, np.random.default_rng(7))

    def fun(t, y):
        return rates(y)

    span, options = (0.0, 2.0), dict(rtol=1e-10, atol=1e-12)
    plain = scipy.integrate.solve_ivp(fun, span, y0, method="DOP853", **options)
    ours = solve_ivp(fun, span, y0, "DOP853", Outcome("DOP853"),
                     stages=lambda t, *args: stages(*args), **options)
    assert plain.success and ours.success
    assert abs(len(ours.t) - len(plain.t)) <= 1 and len(plain.t) > 20
    np.testing.assert_allclose(ours.y[:, -1], plain.y[:, -1], rtol=0,
                               atol=1e-7 * np.abs(plain.y).max())


def test_a_simulation_counts_the_compiled_evaluations():
    """One simulation with a bound on the evaluations stops there; the same without it
    reports as many evaluations as scipy's DOP853 takes over its steps (12 a step)."""
    eom = chain(2).formulate()
    res = eom.simulate(1.0, t_eval=np.linspace(0, 1, 11), rtol=1e-8, atol=1e-10,
                       velocities={"b1.omega": (1.0, 0.5, 0.0)})
    assert res.success and res.nfev > 100
    with vn.limits(max_evaluations=res.nfev // 2):
        with pytest.raises(SimulationError, match="max_evaluations"):
            out = eom.simulate(1.0, t_eval=np.linspace(0, 1, 11), rtol=1e-8, atol=1e-10,
                               velocities={"b1.omega": (1.0, 0.5, 0.0)})
            if not out.success:     # a run that ends early says why
                raise SimulationError(out.message)


def test_a_chain_with_hinges_conserves_its_energy():
    """Balls and hinges, released turning: the energy stays within the tolerance's
    reach over the run."""
    eom = chain(4, "mixed").formulate()
    res = eom.simulate(3.0, t_eval=np.linspace(0, 3, 31), rtol=1e-11, atol=1e-13,
                       velocities={"b1.omega": (1.0, 0.5, 0.0)})
    assert res.success
    energy = np.asarray(res["energy"])
    assert np.ptp(energy) < 1e-8 * max(1.0, np.abs(energy).max())
