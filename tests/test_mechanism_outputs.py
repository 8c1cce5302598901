"""Named outputs of a simulated mechanism, from the recursion in time linear in its size,
against the composite-body mass matrix and the loops' closure."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
from loops import INITIAL, vecnet_ladder  # noqa: E402


def test_a_ladders_outputs_hold_the_mass_matrix_energy_and_close_the_loops():
    # the named outputs of a mechanism without rotors come from the recursion, in time
    # linear in its size; the kinetic energy against u^T M u of the composite-body mass
    # matrix, the loops closed to roundoff at every output
    eom = vecnet_ladder(4).formulate()
    res = eom.simulate(0.3, t_eval=np.linspace(0, 0.3, 7), initial=INITIAL)
    model = eom.compile()
    for k, t in enumerate(res.t):
        q = np.array([res[name][k] for name in eom.coordinates])
        u = np.array([res[name][k] for name in eom.speed_names])
        assert res["kinetic"][k] == pytest.approx(0.5 * u @ model.mass_matrix(q) @ u,
                                                  rel=1e-12, abs=1e-15)
    assert np.max(res["constraint residual"]) < 1e-11
    assert np.ptp(res["energy"]) < 1e-7 * np.max(res["kinetic"])


def test_a_report_lists_the_cutset_equations_up_to_a_count_of_terms(monkeypatch):
    import vecnet as vn
    from vecnet.output import mechanism_report

    model = vn.load_model(Path(__file__).parent.parent / "examples" / "models" / "fourbar.json")
    whole = vn.report(model, simulate=False)
    assert "left out: more than" not in whole
    # a long chain's cutsets hold every body below each joint: listed up to the count
    monkeypatch.setattr(mechanism_report, "LISTED_TERMS", 3)
    cut = vn.report(model, simulate=False)
    assert cut.count("left out: more than 3 terms in all") == 3   # cutsets, circuits, reactions
    assert len(cut) < len(whole)
