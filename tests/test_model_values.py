"""A loaded model's equations carry the file's declared values into every later call:
``equilibrium``, ``linearize``, ``steady_motion`` and ``simulate`` need no ``parameters=``.

Facts from outside the code: the pendulum file's own description,
``(J + m l^2) beta'' + c beta' + k beta + m g l sin(beta) = 0`` about the hanging pose,
whose small oscillations have ``omega_n^2 = (k + m g l) / (J + m l^2)`` and damping
``c / (J + m l^2) = 2 zeta omega_n``; the numbers are read from the file here.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import vecnet as vn

MODELS = Path(__file__).parent.parent / "examples" / "models"


def test_a_loaded_pendulum_linearizes_with_the_files_values():
    p = json.loads((MODELS / "pendulum.json").read_text())["parameters"]
    inertia = p["J"] + p["m"] * p["l"] ** 2
    expected = np.roots([inertia, p["c"], p["k"] + p["m"] * p["g"] * p["l"]])
    eom = vn.load_model(MODELS / "pendulum.json").formulate()
    op = eom.equilibrium()                         # no parameters=
    assert op["pin.angle"] == pytest.approx(-np.pi / 2, abs=1e-12)  # hanging: spring relaxed
    poles = np.linalg.eigvals(eom.linearize(op).state_space()[0])
    assert np.sort_complex(poles) == pytest.approx(np.sort_complex(expected), rel=1e-10)
    # a value given wins over the file's: a stiffer spring
    stiff = eom.linearize(eom.equilibrium(parameters={"k": 30.0}), parameters={"k": 30.0})
    w2 = (30.0 + p["m"] * p["g"] * p["l"]) / inertia
    assert np.max(np.abs(np.linalg.eigvals(stiff.state_space()[0]))) ** 2 == \
        pytest.approx(w2, rel=1e-10)


def test_a_loaded_pendulum_simulates_through_the_equations_with_the_files_values():
    model = vn.load_model(MODELS / "pendulum.json")
    direct = vn.simulate(model.formulate(), (0.0, 1.0), initial=model.initial, rtol=1e-10,
                         atol=1e-12, t_eval=np.linspace(0, 1, 11))
    through_model = model.simulate((0.0, 1.0), points=11, rtol=1e-10, atol=1e-12)
    assert direct["pin.angle"] == pytest.approx(through_model["pin.angle"], abs=1e-8)


def test_the_loaded_bicycle_finds_its_steady_motion_without_parameters():
    model = vn.load_model(MODELS / "bicycle.json")
    eom = model.formulate()
    assert set(map(str, eom.parameter_values)) >= {"mB", "IBxx", "IFyy"}   # not the lengths
    v, rR = model.parameters["v"], model.parameters["rR"]
    motion = eom.steady_motion({"rear_axle.angle'": -v / rR})
    # upright and straight: no lean, no steer
    assert motion["lean.angle"] == pytest.approx(0.0, abs=1e-9)
    assert motion["steer.angle"] == pytest.approx(0.0, abs=1e-9)


def test_a_model_names_what_it_holds_by_its_kind():
    network = vn.load_model(MODELS / "rlc.json")
    mechanism = vn.load_model(MODELS / "fourbar.json")
    assert network.network is network.system and isinstance(network.network, vn.Network)
    assert mechanism.mechanism is mechanism.system
    with pytest.raises(vn.ModelError, match="is a mechanism, not a network: its mechanism "
                                            "is model.mechanism"):
        mechanism.network
    with pytest.raises(vn.ModelError, match="is a network, not a mechanism"):
        network.mechanism
