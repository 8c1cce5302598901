"""Result plots: one panel per physical quantity, each labelled with its SI unit."""

from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import vecnet as vn  # noqa: E402
from vecnet.core.domains import unit_text  # noqa: E402
from vecnet.numerics.result import Result  # noqa: E402

MODELS = Path(__file__).parent.parent / "examples" / "models"

# the SI unit of each variable of the motor-pump model, from its physics: the armature is
# electrical, the motor's and pump's mechanical ports and the shaft rotational, the pipe fluid
MOTOR_PUMP_UNITS = {"Vs.across": "V", "La.through": "A", "motor.m.across": "rad/s",
                    "shaft.through": "N m", "pump.m.across": "rad/s", "pipe.through": "m^3/s",
                    "pump.f.across": "Pa"}


def unit_of(label: str) -> str:
    return label[label.index("[") + 1:label.rindex("]")]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_a_mixed_domain_result_has_one_panel_per_unit(tmp_path):
    model = vn.load_model(MODELS / "motor_pump.json")
    res = model.simulate(t_span=(0.0, 0.01), points=50)
    ax = res.plot(list(MOTOR_PUMP_UNITS), units=model.system)
    panels = ax.figure.axes
    # units typeset: m³/s, N·m (the table writes m^3/s, N m)
    typeset = {name: unit_text(unit) for name, unit in MOTOR_PUMP_UNITS.items()}
    assert "m³/s" in typeset.values()
    assert sorted(unit_of(p.get_ylabel()) for p in panels) == sorted(set(typeset.values()))
    for panel in panels:
        names = [line.get_label() for line in panel.get_lines()]
        assert {typeset[n] for n in names} == {unit_of(panel.get_ylabel())}
    assert panels[-1].get_xlabel() == "time [s]"
    assert all(p.get_shared_x_axes().joined(p, panels[0]) for p in panels)
    path = tmp_path / "motor_pump.png"
    ax.figure.savefig(path)
    assert path.stat().st_size > 10_000


def test_a_mechanism_result_reads_as_positions_angles_speeds_and_energy():
    t = np.linspace(0.0, 1.0, 5)
    series = {"energy": t, "crank.omega": t, "P1.angle'": t, "crank.vx": t, "crank.angle": t,
              "P1.reaction": np.column_stack([t, t]), "crank.x": t, "P1.reaction_torque": t}
    ax = Result(t, series).plot(list(series))
    assert [p.get_ylabel() for p in ax.figure.axes] == [
        "position [m]", "angle [rad]", "velocity [m/s]", "angular velocity [rad/s]",
        "force [N]", "torque [N·m]", "energy [J]"]
    force = ax.figure.axes[4]
    assert [line.get_label() for line in force.get_lines()] == ["P1.reaction.x", "P1.reaction.y"]


def test_many_curves_of_one_quantity_share_panels_of_at_most_eight():
    t = np.linspace(0.0, 1.0, 5)
    series = {f"J{k}.angle": k * t for k in range(1, 12)}
    ax = Result(t, series).plot(list(series))
    counts = [len(p.get_lines()) for p in ax.figure.axes]
    assert counts == [8, 3] and all(p.get_ylabel() == "angle [rad]" for p in ax.figure.axes)


def test_without_units_a_network_variable_is_not_put_beside_another_quantity():
    t = np.linspace(0.0, 1.0, 5)
    ax = Result(t, {"C1.across": t, "L1.through": t}).plot()
    assert [len(p.get_lines()) for p in ax.figure.axes] == [1, 1]


def test_a_nearly_constant_series_is_ticked_without_an_offset():
    t = np.linspace(0.0, 2.0, 201)
    energy = 18.1369664 + 1e-6 * np.sin(3 * t)       # a conserved energy, integrator noise
    ax = Result(t, {"energy": energy}).plot(["energy"])
    ax.figure.canvas.draw()
    assert ax.yaxis.get_offset_text().get_text() == ""     # no "1e-6+1.813696e1"
    labels = [float(x.get_text().replace("\u2212", "-")) for x in ax.get_yticklabels()
              if x.get_text()]
    ticks = ax.get_yticks()       # each label says its tick's value itself
    assert len(labels) == len(ticks) and np.allclose(labels, ticks, rtol=0, atol=1e-7)


def test_bode_phase_ticks_fall_on_multiples_of_45_degrees():
    from vecnet.numerics.analysis import frequency_response

    # a series RLC to the capacitor: the phase runs from 0 to -180 degrees
    model = vn.load_model(MODELS / "rlc.json")
    ss = model.system.sparse_state_space(parameters=model.values)
    res = frequency_response(ss, np.logspace(-2, 3, 200))
    top, bottom = res.plot()
    ticks = bottom.get_yticks()
    assert len(ticks) >= 3 and all(float(x) % 45 == 0 for x in ticks)
    low, high = bottom.get_ylim()
    for key in [(o, i) for o in res.outputs for i in res.inputs]:
        phase = res.phase_deg(key)
        assert low <= phase.min() and phase.max() <= high        # every curve on the axes
    assert top.get_ylabel() == "magnitude [dB]" and bottom.get_ylabel() == "phase [deg]"



def test_an_undamped_resonance_lags_by_half_a_turn_and_shows_on_the_axes():
    """Through an undamped resonance H changes sign: its phase is the limit of light
    damping's, a lag of 180 degrees (not a lead); the curves along the first and last
    ticks stay inside the frame (the four-bar's Bode plot)."""
    from vecnet.numerics.analysis import FrequencyResponse

    f = np.logspace(-1, 1, 200)                 # not at the resonance itself
    w, wn = 2 * np.pi * f, 2 * np.pi * 1.0

    def oscillator(zeta):
        return (wn**2 / (wn**2 - w**2 + 2j * zeta * wn * w))[:, None, None]

    undamped = FrequencyResponse(f, oscillator(0.0) + 0j, ("x",), ("F",))
    damped = FrequencyResponse(f, oscillator(1e-9), ("x",), ("F",))
    away = np.abs(f - 1.0) > 0.02
    assert np.allclose(undamped.phase_deg("x")[away], damped.phase_deg("x")[away], atol=1e-3)
    assert undamped.phase_deg("x")[-1] == pytest.approx(-180.0)
    flipped = FrequencyResponse(f, -oscillator(0.0) + 0j, ("x",), ("F",))   # from 180
    assert flipped.phase_deg("x")[0] == pytest.approx(180.0)
    assert flipped.phase_deg("x")[-1] == pytest.approx(0.0, abs=1e-9)
    _, bottom = flipped.plot()
    low, high = bottom.get_ylim()
    assert low < 0.0 and high > 180.0                     # both flat parts inside the frame


def test_a_curve_constant_to_roundoff_is_drawn_flat():
    # a weight's reaction: m g, give or take its last digits; the panel must not spread
    # those digits over its height as if the force moved
    t = np.linspace(0.0, 2.0, 101)
    res = Result(t, {"tip.force": 14.7194704219 + 1e-11 * np.sin(20 * t),
                     "arm.angle": np.sin(t)})
    flat = res.plot(["tip.force"])
    low, high = flat.get_ylim()
    assert high - low > 0.01 * 14.7194704219
    moving = res.plot(["arm.angle"])
    low, high = moving.get_ylim()
    assert high - low < 2.5     # autoscaled to sin(t) over [0, 2]: about 0.9 and margins
    plt.close("all")
