"""The 3-D picture of a spatial mechanism and plots of vector results."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import vecnet as vn  # noqa: E402


def double_pendulum():
    mech = vn.spatial.Mechanism("double pendulum", gravity=(0, 0, -9.81))
    a = mech.body("a", 1.0, (0.01, 0.01, 0.01), position=(0.5, 0, 0))
    b = mech.body("b", 1.0, (0.01, 0.01, 0.01), position=(1.0, 0, -0.5))
    mech.spherical("s1", mech.ground.point(0, 0, 0), a.point(-0.5, 0, 0))
    mech.spherical("s2", a.point(0.5, 0, 0), b.point(0, 0, 0.5))
    return mech


def test_joined_points_stay_together_and_links_keep_their_length():
    mech = double_pendulum()
    res = mech.formulate().simulate(1.0, t_eval=np.linspace(0, 1, 11))
    for time in res.t:
        where = vn.spatial.node_positions(mech, res, time)
        # the spherical joints hold their two points together; the bodies are rigid
        assert np.allclose(where["a.p1"], where["ground"], atol=1e-9)
        assert np.allclose(where["a.p2"], where["b.p1"], atol=1e-9)
        assert np.linalg.norm(where["a.p2"] - where["a.p1"]) == pytest.approx(1.0, abs=1e-9)
    assert not np.allclose(vn.spatial.node_positions(mech, res)["b"],
                           vn.spatial.node_positions(mech)["b"])   # it moved


def test_picture_and_vector_plots(tmp_path):
    mech = double_pendulum()
    res = mech.formulate().simulate(0.5)
    ax = vn.spatial.picture(mech, res, time=0.25)
    assert ax.get_title() == "double pendulum at t = 0.25 s"
    ax.figure.savefig(tmp_path / "pose.png")
    assert (tmp_path / "pose.png").stat().st_size > 10_000
    figure = res.plot(["a.omega", "b.orientation", "energy"]).figure
    lines = [label for panel in figure.axes for label in panel.get_legend_handles_labels()[1]]
    assert sorted(lines) == ["a.omega.x", "a.omega.y", "a.omega.z", "b.orientation.w",
                             "b.orientation.x", "b.orientation.y", "b.orientation.z", "energy"]
    assert len(figure.axes) == 3                   # angular velocity, orientation, energy
    with pytest.raises(vn.ModelError, match="outside the result's span"):
        vn.spatial.node_positions(mech, res, 2.0)
    with pytest.raises(vn.ModelError, match="spatial.Mechanism"):
        vn.spatial.picture(vn.Network())
