"""Pictures and animations of planar and spatial mechanisms (vecnet.output.picture).

The drawn points are checked against positions worked out here: the four-bar's by
forward kinematics from its joint angles and the link lengths of its model file, a
spatial pendulum's from its bodies' positions and quaternions. Animations are read back:
the GIF with Pillow, the SVG as XML.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

import vecnet as vn  # noqa: E402

FOURBAR = Path(__file__).parent.parent / "examples" / "models" / "fourbar.json"
SVG = "{http://www.w3.org/2000/svg}"
# the four-bar's model file: crank A-B of length 1 from A = (0, 0), coupler B-C and rocker
# C-D of twice the half lengths given for their points, D = (2, 0)
CRANK, COUPLER, ROCKER = 1.0, 2 * 0.9387663273418433, 2 * 0.7158910531638176


@pytest.fixture(scope="module")
def fourbar():
    model = vn.load_model(FOURBAR)
    return model, vn.simulate(model, t_span=(0, 1), points=21)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def drawn(ax, gid: str) -> np.ndarray:
    """The vertices of the artist with ``gid`` (one row per vertex)."""
    (line,) = [a for a in ax.lines if a.get_gid() == gid]
    if hasattr(line, "get_data_3d"):
        return np.array(line.get_data_3d(), dtype=float).T
    return np.asarray(line.get_xydata(), dtype=float)


def fourbar_points(crank: float, p2: float, p3: float) -> dict[str, np.ndarray]:
    """Forward kinematics of the four-bar from its joint angles (each joint's angle is the
    head body's angle less the tail body's; the ground's angle is 0)."""
    def along(angle: float, length: float) -> np.ndarray:
        return length * np.array([math.cos(angle), math.sin(angle)])

    coupler, rocker = crank + p2, crank + p2 + p3
    A = np.zeros(2)
    B = A + along(crank, CRANK)
    C = B + along(coupler, COUPLER)
    D = C + along(rocker, ROCKER)
    return {"A": A, "B": B, "C": C, "D": D, "crank": (A + B) / 2, "coupler": (B + C) / 2,
            "rocker": (C + D) / 2}


# -- the four-bar -------------------------------------------------------------------------------
def test_the_four_bar_is_drawn_where_its_joint_angles_put_it(fourbar):
    model, res = fourbar
    k = int(np.argmin(np.abs(res.t - 0.5)))
    assert res.t[k] == pytest.approx(0.5)
    at = fourbar_points(*(float(res[f"P{j}.angle"][k]) for j in (1, 2, 3)))
    assert np.allclose(at["D"], [2.0, 0.0], atol=1e-6)         # the loop closes on the ground pin
    ax = vn.picture(model, res, time=0.5)
    assert ax.name == "rectilinear" and ax.get_title() == "fourbar at t = 0.5"
    for body, (a, b) in {"crank": "AB", "coupler": "BC", "rocker": "CD"}.items():
        # the segments from the mass centre to the two named points: end, centre, end
        assert np.allclose(drawn(ax, f"body:{body}"), [at[a], at[body], at[b]], atol=1e-6)
        assert np.allclose(drawn(ax, f"centre:{body}"), [at[body]], atol=1e-6)
    for joint, point in {"P1": "A", "P2": "B", "P3": "C", "P4": "D"}.items():
        assert np.allclose(drawn(ax, f"joint-mark:{joint}"), [at[point]], atol=1e-6)
    assert np.allclose(drawn(ax, "ground"), [[0, 0], [2, 0]])
    # one legend entry per kind of mark: ground points, mass centres, revolute joints
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "ground point", "mass centre", "revolute joint"]


def test_the_four_bar_animates_into_a_gif_of_the_frames_asked_for(fourbar, tmp_path):
    model, res = fourbar
    ax = plt.figure(figsize=(3, 3)).add_subplot()    # small frames: the test reads them all
    movie = vn.animate(model, res, frames=5, interval=100, ax=ax)
    path = tmp_path / "fourbar.gif"
    movie.save(path, writer="pillow", dpi=50)
    with Image.open(path) as gif:
        assert gif.n_frames == 5
        gif.seek(0)
        first = np.asarray(gif.convert("RGB"), dtype=int)
        gif.seek(gif.n_frames - 1)
        last = np.asarray(gif.convert("RGB"), dtype=int)
    assert first.shape == last.shape == (150, 150, 3)
    assert np.abs(first - last).sum(axis=2).astype(bool).sum() > 100   # the links moved
    # writing ends on the last frame: the end of the simulation
    assert ax.get_title() == "fourbar at t = 1"
    crank = float(res["P1.angle"][-1])
    assert np.allclose(drawn(ax, "body:crank")[-1], [math.cos(crank), math.sin(crank)])


def test_an_animation_in_jupyter_and_frames_by_time(fourbar):
    model, res = fourbar
    movie = vn.animate(model, res, frames=[0.0, 0.25, 0.5])
    assert len(list(movie.new_frame_seq())) == 3
    assert movie.to_jshtml().count("data:image/png;base64") == 3
    with pytest.raises(vn.OutputError, match="frames must be between"):
        vn.animate(model, res, frames=0)
    with pytest.raises(vn.ModelError, match="outside the result's span"):
        vn.animate(model, res, frames=[0.5, 2.0])
    with pytest.raises(vn.ModelError, match="needs a simulation result"):
        vn.animate(model, None)
    with pytest.raises(vn.ModelError, match="vn.planar or vn.spatial Mechanism"):
        vn.picture(vn.Network())


# -- the SVG animation --------------------------------------------------------------------------
def test_the_svg_animation_loops_every_frame_without_a_script(fourbar):
    model, res = fourbar
    frames = 12
    text = vn.animation_svg(model, res, frames=frames, duration=3)
    root = ET.fromstring(text)                       # a well-formed document on its own
    assert root.tag == f"{SVG}svg"
    tags = {element.tag.removeprefix(SVG) for element in root.iter()}
    assert "script" not in tags and "style" not in tags and "script" not in text.lower()
    assert tags <= {"svg", "title", "rect", "g", "polyline", "polygon", "circle", "line",
                    "text", "animate"}
    for element in root.iter():
        assert not any(k.startswith("on") or k.endswith("href") or k == "style"
                       for k in element.attrib), element.attrib
    animations = list(root.iter(f"{SVG}animate"))
    assert animations
    for animation in animations:
        key_times = [float(x) for x in animation.get("keyTimes").split(";")]
        assert len(key_times) == frames == len(animation.get("values").split(";"))
        assert key_times[0] == 0 and key_times[-1] == 1 and np.all(np.diff(key_times) > 0)
        assert animation.get("dur") == "3s" and animation.get("repeatCount") == "indefinite"
    # the links keep their lengths in every frame: crank and coupler as 1 to 1.8775
    outlines = {p.find(f"{SVG}title").text: p for p in root.iter(f"{SVG}polyline")}

    def spans(body: str) -> np.ndarray:
        """Pixel distance between the outline's two ends, in each frame."""
        moving = outlines[body].find(f"{SVG}animate").get("values").split(";")
        ends = [[np.array(p.split(","), dtype=float) for p in f.split()] for f in moving]
        return np.array([np.linalg.norm(e[-1] - e[0]) for e in ends])

    assert np.allclose(spans("coupler") / spans("crank"), COUPLER / CRANK, rtol=2e-3)


def test_the_svg_writes_names_as_text():
    mech = vn.planar.Mechanism('a<b> & "c"', gravity=(0, -9.81))
    bob = mech.body("bob", 1.0, 0.01, position=(1, 0))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    root = ET.fromstring(vn.animation_svg(mech, mech.formulate().simulate(0.2), frames=3))
    assert root.find(f"{SVG}title").text.startswith('a<b> & "c"')
    with pytest.raises(vn.OutputError, match="frames is a whole number"):
        vn.animation_svg(mech, mech.formulate().simulate(0.2), frames=1)


# -- spatial mechanisms -------------------------------------------------------------------------
def rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``v`` turned by the unit quaternion ``q = (w, x, y, z)``: v + 2w (u x v) + 2u x (u x v)."""
    w, u = q[0], q[1:]
    return v + 2 * w * np.cross(u, v) + 2 * np.cross(u, np.cross(u, v))


def double_pendulum(rod_b: bool):
    """A link ``a`` on a ball joint, and below it ``b`` on another: a bob (small inertia) or,
    with ``rod_b``, a slender rod of length 1 (inertia m L^2 / 12) hung by one end."""
    mech = vn.spatial.Mechanism("double pendulum", gravity=(0, 0, -9.81))
    a = mech.body("a", 1.0, (0.01, 1 / 12, 1 / 12), position=(0.5, 0, 0))
    J = (1 / 12, 1 / 12, 0.001) if rod_b else (0.01, 0.01, 0.01)
    b = mech.body("b", 1.0, J, position=(1.0, 0, -0.5))
    mech.spherical("s1", mech.ground.point(0, 0, 0), a.point(-0.5, 0, 0))
    mech.revolute("r2", a.point(0.5, 0, 0), b.point(0, 0, 0.5), axis=(0, 1, 0))
    return mech


@pytest.mark.parametrize("rod_b", [False, True])
def test_spatial_bodies_are_drawn_at_their_poses(rod_b):
    mech = double_pendulum(rod_b)
    res = mech.formulate().simulate(0.6, t_eval=np.linspace(0, 0.6, 7))
    ax = vn.picture(mech, res, time=0.4)
    assert ax.name == "3d" and ax.get_title() == "double pendulum at t = 0.4"
    k = 4
    pose = {name: (np.asarray(res[f"{name}.position"])[k],
                   np.asarray(res[f"{name}.orientation"])[k]) for name in ("a", "b")}

    def world(body, local):
        origin, q = pose[body]
        return origin + rotate(q / np.linalg.norm(q), np.asarray(local, dtype=float))

    a_ends = [world("a", (-0.5, 0, 0)), world("a", (0, 0, 0)), world("a", (0.5, 0, 0))]
    assert np.allclose(drawn(ax, "body:a"), a_ends, atol=1e-9)
    # b has one named point: a rod is drawn through its mass centre to the far end, a bob
    # only up to its mass centre
    b_ends = [world("b", (0, 0, 0.5)), world("b", (0, 0, 0))]
    if rod_b:
        b_ends.append(world("b", (0, 0, -0.5)))
    assert np.allclose(drawn(ax, "body:b"), b_ends, atol=1e-9)
    assert np.allclose(b_ends[0], a_ends[2], atol=1e-6)       # the joint holds them together
    assert math.dist(b_ends[0], b_ends[-1]) == pytest.approx(1.0 if rod_b else 0.5)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["ground point", "mass centre", "spherical joint", "revolute joint"]
    markers = {joint: [a for a in ax.lines if a.get_gid() == f"joint-mark:{joint}"][0]
               for joint in ("s1", "r2")}
    assert markers["s1"].get_markeredgecolor() != markers["r2"].get_markeredgecolor()
    # the old entry point draws the same picture
    old = vn.spatial.picture(mech, res, time=0.4)
    assert np.allclose(drawn(old, "body:b"), b_ends, atol=1e-9)


def test_a_spatial_mechanism_in_the_plane_z0_is_drawn_in_2d_and_a_planar_one_alike():
    # the same pendulum swinging in the x-y plane, built both ways
    flat = vn.spatial.Mechanism("flat", gravity=(0, -9.81, 0))
    bob = flat.body("bob", 1.0, (0.01, 0.01, 0.01), position=(1, 0, 0))
    flat.revolute("pin", flat.ground.point(0, 0, 0), bob.point(-1, 0, 0), axis=(0, 0, 1))
    plane = vn.planar.Mechanism("plane", gravity=(0, -9.81))
    bob2 = plane.body("bob", 1.0, 0.01, position=(1, 0))
    plane.revolute("pin", plane.ground.point(0, 0), bob2.point(-1, 0))
    times = np.linspace(0, 0.5, 6)
    pictures = [vn.picture(m, m.formulate().simulate(0.5, t_eval=times), time=0.5)
                for m in (flat, plane)]
    assert [ax.name for ax in pictures] == ["rectilinear", "rectilinear"]
    # a pendulum released level has fallen by g t^2 / 2 at first; by t = 0.5 the bob is below
    spatial_bob, planar_bob = (drawn(ax, "centre:bob")[0] for ax in pictures)
    assert spatial_bob[1] < -0.5 and np.allclose(spatial_bob, planar_bob, atol=1e-6)
    for gid in ("body:bob", "joint-mark:pin"):                 # one palette for both
        lines = [[a for a in ax.lines if a.get_gid() == gid][0] for ax in pictures]
        assert lines[0].get_color() == lines[1].get_color()
        assert lines[0].get_marker() == lines[1].get_marker()
    # a spatial motion needs 3-D axes
    rssr = vn.load_model(FOURBAR.with_name("rssr.json"))
    with pytest.raises(vn.OutputError, match="3-D axes"):
        vn.picture(rssr, ax=plt.figure().add_subplot())
    assert vn.picture(rssr).name == "3d"


def test_a_plate_is_filled_within_its_outer_points_and_sliders_and_gears_are_marked():
    mech = vn.planar.Mechanism("plate", gravity=(0, -9.81))
    plate = mech.body("plate", 1.0, 0.1, position=(1, 1), angle=math.pi / 2)
    corners = [(0.3, 0.0), (-0.2, 0.3), (-0.2, -0.3)]
    for x, y in [*corners, (0.0, 0.1)]:                 # the last one lies inside
        plate.point(x, y)
    mech.revolute("O", mech.ground.point(1, 1), plate.centre)
    a, b = mech.body("ga", 1.0, 0.1, position=(3, 0)), mech.body("gb", 1.0, 0.2, position=(4, 0))
    mech.revolute("A", mech.ground.point(3, 0), a.centre)
    mech.revolute("B", mech.ground.point(4, 0), b.centre)
    mech.gear("mesh", a, b, ratio=2)
    slider = mech.body("slider", 1.0, 0.1, position=(0, -1))
    mech.prismatic("S", mech.ground.point(-0.5, -1), slider.point(-0.2, 0), axis=(1, 0))
    ax = vn.picture(mech)
    (outline,) = [p for p in ax.patches if p.get_gid() == "outline:plate"]
    # turned a quarter turn about (1, 1): (x, y) -> (1 - y, 1 + x)
    expected = {(round(1 - y, 9), round(1 + x, 9)) for x, y in corners}
    vertices = {tuple(np.round(v, 9)) for v in outline.get_xy()}
    assert vertices == expected
    assert np.allclose(drawn(ax, "joint:S"), [[-0.5, -1], [-0.2, -1]])   # tail to head
    assert np.allclose(drawn(ax, "joint-mark:mesh"), [[3.5, 0]])         # between the gears
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["ground point", "mass centre", "revolute joint", "gear", "prismatic joint"]
