"""The integrators' driver: explicit steps moved back onto a manifold after each one
(`after_step`), checked on the circle, whose exact solution is known."""

import numpy as np
import pytest

from vecnet.errors import SimulationError
from vecnet.numerics.integrators import IDLE_TRIES, solve_ivp
from vecnet.numerics.result import Outcome


def rotation(t, y):
    return np.array([-y[1], y[0]])


def onto_circle(t, y):
    return y / np.hypot(*y)


@pytest.mark.parametrize("method", ["RK45", "DOP853"])
def test_moved_steps_stay_on_the_circle_and_follow_it(method):
    out = Outcome(method)
    sol = solve_ivp(rotation, (0.0, 20.0), np.array([1.0, 0.0]), method, out,
                    after_step=onto_circle, rtol=1e-8, atol=1e-10)
    assert sol.status == 0 and out.error is None
    # every accepted step is on the circle to roundoff (no drift after 20 s)
    assert np.abs(np.hypot(*sol.y) - 1.0).max() < 1e-15
    exact = np.array([np.cos(sol.t), np.sin(sol.t)])
    assert np.abs(sol.y - exact).max() < 1e-6


def test_a_step_that_cannot_be_moved_is_taken_again_shorter():
    tried = []

    def only_short(t, y):
        tried.append(t)
        if len(tried) < 3:    # the first two accepted steps cannot be brought back
            raise SimulationError("too far out")
        return onto_circle(t, y)

    out = Outcome("DOP853")
    sol = solve_ivp(rotation, (0.0, 1.0), np.array([1.0, 0.0]), "DOP853", out,
                    after_step=only_short, rtol=1e-8, atol=1e-10)
    assert sol.status == 0 and out.error is None
    assert tried[1] < tried[0] and tried[2] < tried[1]     # each retry shorter
    assert np.allclose(sol.y[:, -1], [np.cos(1.0), np.sin(1.0)], atol=1e-7)


def test_a_move_larger_than_the_tolerance_shortens_the_step():
    def biased(t, y):      # every move is 1e-7 off: far beyond rtol 1e-12 whatever the step
        return onto_circle(t, y) * (1.0 + 1e-7)

    out = Outcome("DOP853")
    sol = solve_ivp(rotation, (0.0, 1.0), np.array([1.0, 0.0]), "DOP853", out,
                    after_step=biased, rtol=1e-12, atol=1e-14)
    assert sol.status == -1
    assert "however short" in str(out.error)


def test_a_move_that_shorter_steps_do_not_shrink_ends_the_run_in_words():
    """A move that is the projection's own (here a fixed bias) is not the step's error: the
    run ends after a few shortened tries, the message told by ``after_step.explain``."""
    tried = []

    def biased(t, y):
        tried.append(t)
        return onto_circle(t, y) * (1.0 + 1e-7)

    biased.explain = lambda t, y: f"the radius there is {np.hypot(*y):.3f}"
    out = Outcome("DOP853")
    sol = solve_ivp(rotation, (0.0, 1.0), np.array([1.0, 0.0]), "DOP853", out,
                    after_step=biased, rtol=1e-12, atol=1e-14)
    assert sol.status == -1 and len(tried) == 1 + IDLE_TRIES
    assert "every step, however short" in str(out.error)
    assert "the radius there is 1.000" in str(out.error)


def test_after_step_needs_an_explicit_method():
    with pytest.raises(ValueError, match="explicit"):
        solve_ivp(rotation, (0.0, 1.0), np.array([1.0, 0.0]), "Radau", Outcome("Radau"),
                  after_step=onto_circle)

