"""Wittenburg's Example 5.3: a closed chain of six bodies and six pins that moves although
counting says it cannot.

The bodies (body 0 is the ground) run along the edges of a unit cube, -e2, -e3, +e1, +e2,
+e3, -e1, and the pin axes are e1, e2, e3, e1, e2, e3. With joint coordinates five pins
are in the tree and the sixth closes the loop with five equations: 5 - 5 = 0 degrees of
freedom by counting. The rank of the constraint Jacobian says 1, and the motion keeps
Wittenburg's relations q3 = q1, q5 = -q1, q4 = -q2, sin q1 + sin q1 sin q2 - sin q2 = 0.

Run with ``python examples/six_pin_loop.py``.
"""

import numpy as np

import vecnet as vn

edges = [(0, -1, 0), (0, 0, -1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (-1, 0, 0)]
vertices = np.cumsum([(0, 0, 0)] + edges, axis=0)
axes = np.eye(3)[[0, 1, 2, 0, 1, 2]]
mech = vn.spatial.Mechanism("six pins", gravity=(0, 0, -9.81))
bodies = [mech.ground] + [mech.body(f"b{k}", 1.0, (0.1, 0.1, 0.1),
                                   position=(vertices[k] + vertices[k + 1]) / 2)
                          for k in range(1, 6)]
for k in range(1, 7):   # pin k at vertex k joins body k-1 and body k (body 6 is the ground)
    a, b, V = bodies[k - 1], bodies[k % 6], vertices[k]
    mech.revolute(f"J{k}", a.point(*(V - a.position)), b.point(*(V - b.position)),
                  axis=axes[k - 1])

eom = mech.formulate(coordinates="joint")
print(f"{len(eom.u)} coordinates, {len(eom.constraint_names)} loop equations "
      f"(cut: {[c for c in eom.topology.chords if c.startswith('J')]}); "
      f"degrees of freedom by rank: {eom.degrees_of_freedom()}")
assert eom.degrees_of_freedom() == 1

res = eom.simulate(3.0, velocities={"J1.angle": 1.0}, rtol=1e-10, atol=1e-12)
q = [res[f"J{k}.angle"] for k in range(1, 7)]
checks = {"q3 - q1": q[2] - q[0], "q5 + q1": q[4] + q[0], "q4 + q2": q[3] + q[1],
          "sin q1 + sin q1 sin q2 - sin q2":
              np.sin(q[0]) + np.sin(q[0]) * np.sin(q[1]) - np.sin(q[1])}
print(f"q1 swings over {np.ptp(q[0]):.3f} rad")
for name, value in checks.items():
    print(f"  max |{name}| = {np.max(np.abs(value)):.1e}")
    assert np.max(np.abs(value)) < 1e-8
print(f"energy drift {np.ptp(res['energy']):.1e} J")
