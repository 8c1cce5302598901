"""Contacts against the plane of a moving body: the plane turns and moves with its body,
restitution and friction act on the relative motion, and the contact force acts on both
bodies (checked through the reactions of the joints that carry the plane's body).

* Routh's sphere on a turntable: a uniform sphere rolling without slip on a table turning
  at a constant rate Omega has ``v' = (2/7) Omega z x v``, so its centre goes round a circle
  at (2/7) Omega (Routh, *Advanced Rigid Dynamics*, section 243);
* a disc on a cart that a force F pushes along a rail: rolling without slip on the deck
  (I = m r^2 / 2) the disc's centre accelerates at a_c / 3 where the cart's a_c =
  F / (M + m / 3); the friction on the disc is m a_c / 3, and the rail carries both weights;
* a ball dropped onto a platform driven upwards at V: it strikes when h - g t^2 / 2 = V t and
  leaves at V + e (V + g t), the relative normal speed reversed times e.
"""

import numpy as np
import pytest

import vecnet as vn

G = 9.81
TIGHT = {"rtol": 1e-10, "atol": 1e-12}


def test_a_sphere_rolling_on_a_turntable_circles_at_two_sevenths_of_its_rate():
    omega, r, m, x0, vy = 2.0, 0.05, 0.2, 0.3, 0.2
    mech = vn.spatial.Mechanism("turntable", gravity=(0, 0, -G))
    table = mech.body("table", 5.0, (1.0, 1.0, 2.0), position=(0, 0, -0.05))
    mech.revolute("axle", mech.ground.point(0, 0, 0), table.point(0, 0, 0.05), axis=(0, 0, 1))
    mech.drive("motor", "axle", omega * vn.t)
    ball = mech.body("ball", m, (0.4 * m * r * r,) * 3, position=(x0, 0, r))
    mech.contact("top", ball, radius=r, plane=table.point(0, 0, 0.05), normal=(0, 0, 1),
                 restitution=0.0, mu_kinetic=5.0)
    # no slip at the start: v + w x (-r z) equals the table's Omega z x (x0, 0)
    spin = (x0 * omega - vy) / r
    rate = 2 * omega / 7
    span = 2 * np.pi / rate              # once round the circle
    res = vn.simulate(mech, (0, span), t_eval=np.linspace(0, span, 9),
                      velocities={"ball.velocity": (0, vy, 0), "ball.omega": (spin, 0, 0)},
                      **TIGHT)
    t = res.t
    assert res.events == () or list(res.events) == []
    assert np.all(res["top.mode"] == 1)
    assert np.allclose(res["ball.x"], x0 + vy / rate * (np.cos(rate * t) - 1), rtol=0, atol=1e-8)
    assert np.allclose(res["ball.y"], vy / rate * np.sin(rate * t), rtol=0, atol=1e-8)
    assert np.allclose(res["top.normal"], m * G, rtol=1e-9)


def cart(push=2.0, M=3.0, m=1.0, r=0.1):
    mech = vn.planar.Mechanism("cart", gravity=(0, -G))
    body = mech.body("cart", M, 0.5, position=(0, 0))
    mech.prismatic("rail", mech.ground.point(0, 0), body.point(0, 0), axis=(1, 0))
    mech.force("push", body.point(0, 0), (push, 0))
    disc = mech.body("disc", m, 0.5 * m * r * r, position=(0.2, 0.1 + r))
    mech.contact("deck", disc, radius=r, plane=body.point(0, 0.1), normal=(0, 1),
                 restitution=0.0, mu_kinetic=1.0)
    return mech


def test_a_disc_rolls_on_a_pushed_cart_at_a_third_of_its_acceleration(tmp_path):
    F, M, m = 2.0, 3.0, 1.0
    a_cart = F / (M + m / 3)
    res = vn.simulate(cart(F, M, m), (0, 1), t_eval=np.linspace(0, 1, 5), **TIGHT)
    t = res.t
    assert np.allclose(res["cart.x"], 0.5 * a_cart * t ** 2, rtol=0, atol=1e-10)
    assert np.allclose(res["disc.x"], 0.2 + 0.5 * a_cart / 3 * t ** 2, rtol=0, atol=1e-10)
    assert np.all(res["deck.mode"] == 1)
    assert np.allclose(res["deck.force"], [[m * a_cart / 3, m * G]] * 5, rtol=0, atol=1e-9)
    # the rail carries the cart's weight and, through the deck, the disc's
    assert np.allclose(res["rail.reaction"][:, 1], (M + m) * G, rtol=1e-12)
    # saved and read back, the plane stays the cart's
    vn.save_model(cart(F, M, m), tmp_path / "cart.json")
    again = vn.simulate(vn.load_model(tmp_path / "cart.json"), (0, 1),
                        t_eval=np.linspace(0, 1, 5), **TIGHT)
    assert np.array_equal(again["disc.x"], res["disc.x"])


@pytest.mark.parametrize("e", [0.0, 0.6, 1.0])
def test_a_ball_strikes_a_rising_platform_with_the_relative_speed_reversed(e):
    V, h, r = 0.5, 0.2, 0.05
    mech = vn.planar.Mechanism("lift", gravity=(0, -G))
    platform = mech.body("platform", 10.0, 1.0, position=(0, 0))
    mech.prismatic("guide", mech.ground.point(0, 0), platform.point(0, 0), axis=(0, 1))
    mech.drive("jack", "guide", V * vn.t)
    ball = mech.body("ball", 1.0, 0.4 * r * r, position=(0, h + r))
    mech.contact("pad", ball, radius=r, plane=platform.point(0, 0), normal=(0, 1),
                 restitution=e)
    strike = (-V + np.sqrt(V ** 2 + 2 * G * h)) / G
    after = strike + 0.01
    res = vn.simulate(mech, (0, after), t_eval=[0.5 * strike, after], **TIGHT)
    impacts = [event for event in res.events if event.kind == "impact"]
    assert abs(impacts[0].t - strike) < 1e-9
    leaves = V + e * (V + G * strike)
    if e > 0:
        assert abs(res["ball.vy"][-1] - (leaves - G * 0.01)) < 1e-8
    else:   # it stays on the platform, rising with it
        assert abs(res["ball.vy"][-1] - V) < 1e-8


def test_a_plane_on_the_sphere_s_own_body_is_refused():
    mech = vn.planar.Mechanism("m", gravity=(0, -G))
    ball = mech.body("ball", 1.0, 0.01, position=(0, 1))
    with pytest.raises(vn.ModelError, match="both on body 'ball'"):
        mech.contact("self", ball, radius=0.1, plane=ball.point(0, -0.1), normal=(0, 1))


def test_a_wheel_rolling_on_a_sprung_cart_follows_the_hand_lagrangian():
    """A cart of mass M on a rail, tied to the ground by a spring k, and a disc wheel
    (m, I = m r^2 / 2) rolling without slip on its deck. With x the cart's place and s the
    wheel's along the deck, T = M x'^2 / 2 + m (x' + s')^2 / 2 + I (s' / r)^2 / 2 and
    V = k x^2 / 2, so (m + I / r^2) s'' = -m x'' and (M + m - m^2 / (m + I / r^2)) x'' = -k x:
    from rest at x0 the cart swings as x0 cos(w t), w^2 = k / (M + m / 3), and the wheel's
    centre moves by a third of the cart's displacement."""
    M, m, r, k, x0 = 3.0, 1.0, 0.1, 40.0, 0.05
    mech = vn.planar.Mechanism("sprung cart", gravity=(0, -G))
    body = mech.body("cart", M, 0.5, position=(x0, 0))
    mech.prismatic("rail", mech.ground.point(0, 0), body.point(-x0, 0), axis=(1, 0))
    mech.spring("tie", mech.ground.point(-1, 0), body.point(0, 0), k=k, length=1.0)
    wheel = mech.body("wheel", m, 0.5 * m * r * r, position=(0.3, 0.1 + r))
    mech.rolling_wheel("roll", wheel, radius=r, point=body.point(0, 0.1))
    eom = mech.formulate()
    assert eom.degrees_of_freedom() == 2
    w = np.sqrt(k / (M + m / 3))
    t = np.linspace(0, 2 * np.pi / w, 9)
    res = eom.simulate(t[-1], t_eval=t, **TIGHT)
    x = x0 * np.cos(w * t)
    assert np.allclose(res["cart.x"], x, rtol=0, atol=1e-8)
    assert np.allclose(res["wheel.x"], 0.3 + (x - x0) / 3, rtol=0, atol=1e-8)
    # rolling: the wheel turns by what its centre moves relative to the deck
    assert np.allclose(res["wheel.angle"], -(res["wheel.x"] - 0.3 - (x - x0)) / r, rtol=0,
                       atol=1e-7)
    # the deck carries the wheel's weight; the rail, both
    assert np.allclose(res["roll.normal_force"], m * G, rtol=1e-8)
    assert np.allclose(res["rail.reaction"][:, 1], (M + m) * G, rtol=1e-8)
