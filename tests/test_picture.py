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
from matplotlib.animation import FuncAnimation, PillowWriter  # noqa: E402
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
    assert ax.name == "rectilinear" and ax.get_title() == "fourbar at t = 0.5 s"
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
    assert ax.get_title() == "fourbar at t = 1.0 s"
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


# -- saving a GIF -------------------------------------------------------------------------------
BOB_BLUE = np.array([0x1F, 0x77, 0xB4])       # the first body's colour (palette.BODY_COLOURS)


def one_body_pendulum(start=(1.0, 0.0)):
    """A bob of 1 kg on a massless stick of length 1 from a pin at the origin, released at
    rest from ``start`` (its mass centre)."""
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    x, y = start
    bob = mech.body("bob", 1.0, 0.01, position=(x, y))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-x, -y))
    return mech


@pytest.fixture(scope="module")
def swing():
    mech = one_body_pendulum()
    return mech, mech.formulate().simulate(2.0, t_eval=np.linspace(0, 2, 21))


def gif_frames(path: Path) -> tuple[list[np.ndarray], list[int]]:
    """The frames (RGB) of a GIF read back with Pillow, and their durations (ms)."""
    frames, durations = [], []
    with Image.open(path) as gif:
        for k in range(gif.n_frames):
            gif.seek(k)
            durations.append(gif.info["duration"])
            frames.append(np.asarray(gif.convert("RGB"), dtype=int))
    return frames, durations


def test_a_gif_has_the_frames_asked_for_each_shown_for_the_interval(swing, tmp_path):
    mech, res = swing
    movie = vn.animate(mech, res, frames=13, interval=80)
    movie.save(tmp_path / "a.gif", dpi=30)
    frames, durations = gif_frames(tmp_path / "a.gif")
    assert len(frames) == 13 and durations == [80] * 13
    assert frames[0].shape == (180, 180, 3)               # 6 x 6 inches at 30 dpi
    # a frame rate given to save, or to the writer, sets the durations instead
    movie.save(tmp_path / "b.gif", fps=10, dpi=30)
    assert gif_frames(tmp_path / "b.gif")[1] == [100] * 13
    movie.save(tmp_path / "c.gif", writer=PillowWriter(fps=4), dpi=30)
    assert gif_frames(tmp_path / "c.gif")[1] == [250] * 13


def test_the_bob_is_drawn_where_the_simulation_puts_it(swing, tmp_path):
    mech, res = swing
    ax = plt.figure(figsize=(4, 4)).add_subplot()
    movie = vn.animate(mech, res, frames=list(res.t), ax=ax)   # frame k: sample k
    movie.save(tmp_path / "swing.gif", dpi=60)
    frames, _ = gif_frames(tmp_path / "swing.gif")
    height, width = frames[0].shape[:2]
    box, (x0, x1), (y0, y1) = ax.get_position(), ax.get_xlim(), ax.get_ylim()

    def pixel(x: float, y: float) -> np.ndarray:
        """Column and row (pixel centres at half-integers) of the data point (x, y)."""
        fx = box.x0 + (x - x0) / (x1 - x0) * box.width
        fy = box.y0 + (y - y0) / (y1 - y0) * box.height
        return np.array([fx * width, (1 - fy) * height])

    pivot = pixel(0.0, 0.0)
    seen = []
    for k in (0, 4, 6, 8, 10, 17, 20):
        bob = pixel(float(res["bob.x"][k]), float(res["bob.y"][k]))
        rows, cols = np.nonzero(np.linalg.norm(frames[k] - BOB_BLUE, axis=2) < 40)
        blue = np.column_stack([cols + 0.5, rows + 0.5])
        assert len(blue) > 50
        # the body's colour reaches the bob (the stick ends at its mass centre)...
        assert np.linalg.norm(blue - bob, axis=1).min() < 1.5
        # ...and lies along the stick from the pin to the bob: within the stick's half
        # width and the mass-centre mark's radius (4 and 10 points at 60 dpi)
        along = np.clip((blue - pivot) @ (bob - pivot) / np.sum((bob - pivot) ** 2), 0, 1)
        off = np.linalg.norm(blue - (pivot + along[:, None] * (bob - pivot)), axis=1)
        assert off.max() < 0.5 * (10 + 1) * 60 / 72 + 1.5
        seen.append(bob)
    # the bob swung: the frames checked are tens of pixels apart
    assert min(np.linalg.norm(a - b) for a, b in zip(seen, seen[1:])) > 20


def test_saving_reports_rising_shares_of_the_frames_ending_at_one(swing, tmp_path, capsys):
    mech, res = swing
    shares, calls = [], []
    movie = vn.animate(mech, res, frames=7, progress=shares.append)
    movie.save(tmp_path / "p.gif", dpi=20, progress_callback=lambda i, n: calls.append((i, n)))
    assert np.all(np.diff(shares) > 0) and 0 < shares[0] and shares[-1] == 1.0
    assert len(shares) == 7 and calls == [(i, 7) for i in range(7)]
    # the HTML player of Jupyter reports as well
    shares.clear()
    movie.to_jshtml()
    assert np.all(np.diff(shares) > 0) and shares[-1] == 1.0
    # True: a progress bar over the frames, on standard error
    vn.animate(mech, res, frames=5, progress=True).save(tmp_path / "q.gif", dpi=20)
    assert "5/5" in capsys.readouterr().err
    with pytest.raises(vn.OutputError, match="progress is a function"):
        vn.animate(mech, res, progress="yes")
    with pytest.raises(vn.OutputError, match="fps is a number"):
        movie.save(tmp_path / "r.gif", fps=0)
    with pytest.raises(vn.OutputError, match="dpi is a number"):
        movie.save(tmp_path / "r.gif", dpi=-5)


@pytest.mark.parametrize("case", ["four-bar", "spatial", "by the legend", "own line"])
def test_a_gif_shows_what_matplotlibs_own_writer_shows(case, fourbar, tmp_path):
    """Against matplotlib's Animation.save with its Pillow writer, which draws the whole
    figure for every frame: the same pictures, but for the colours that each quantizes
    differently at anti-aliased edges."""
    if case == "four-bar":
        model, res = fourbar
    elif case == "spatial":
        model = double_pendulum(rod_b=True)
        res = model.formulate().simulate(0.6, t_eval=np.linspace(0, 0.6, 7))
    else:
        # released next to the legend, which is drawn over the bob in the first frame
        model = one_body_pendulum(start=(-0.8, 0.6))
        res = model.formulate().simulate(1.0, t_eval=np.linspace(0, 1, 11))

    def axes():
        ax = plt.figure(figsize=(4, 4)).add_subplot(
            projection="3d" if case == "spatial" else None)
        if case == "own line":   # a line of the user's own, above the bodies' fills
            ax.plot([-1, 1], [0.5, -1], color="purple", linewidth=3, zorder=1.5)
        return ax

    ax = axes()
    vn.animate(model, res, frames=6, ax=ax).save(tmp_path / "vn.gif", dpi=40)
    reference = vn.animate(model, res, frames=6, ax=axes())
    FuncAnimation.save(reference, tmp_path / "mpl.gif", writer=PillowWriter(fps=20), dpi=40)
    ours, _ = gif_frames(tmp_path / "vn.gif")
    theirs, _ = gif_frames(tmp_path / "mpl.gif")
    assert len(ours) == len(theirs) == 6
    for a, b in zip(ours, theirs):
        difference = np.abs(a - b)
        # each quantizes colours its own way (matplotlib 3.7's writer shifts flat areas by up
        # to a few levels of 255); what is drawn, and where, must not differ
        assert difference.mean() < 8.0
        assert (difference.max(axis=2) > 60).mean() < 1e-3
    # the figure is left on the last frame, with every artist shown
    assert all(line.get_visible() for line in ax.lines)
    assert ax.get_title() == f"{model.name} at t = {res.t[-1]:.1f} s"


def test_a_gif_matplotlib_must_write_still_comes_out(swing, tmp_path):
    mech, res = swing
    # a transparent figure, which matplotlib's writer keeps transparent, and savefig's
    # own arguments go through matplotlib
    ax = plt.figure(figsize=(3, 3)).add_subplot()
    ax.figure.patch.set_alpha(0.0)
    vn.animate(mech, res, frames=4, ax=ax).save(tmp_path / "clear.gif", writer="pillow", dpi=20)
    with Image.open(tmp_path / "clear.gif") as gif:
        assert gif.n_frames == 4 and "transparency" in gif.info
    movie = vn.animate(mech, res, frames=4, ax=plt.figure(figsize=(3, 3)).add_subplot())
    movie.save(tmp_path / "yellow.gif", writer="pillow", dpi=20,
               savefig_kwargs={"facecolor": "yellow"})
    frames, _ = gif_frames(tmp_path / "yellow.gif")
    assert len(frames) == 4 and np.all(np.abs(frames[2][0, 0] - [255, 255, 0]) < 8)


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
    assert ax.name == "3d" and ax.get_title() == "double pendulum at t = 0.4 s"
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
