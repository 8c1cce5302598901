"""Sallen–Key unity-gain low-pass filter with an ideal operational amplifier.

R1 and R2 in series lead from the source to the + input; C1 feeds the output back to
their junction, C2 holds the + input to ground, and the output drives the - input
directly (a voltage follower). The ideal op-amp is a nullator–norator pair: no input
current, no input voltage, and whatever output current the circuit needs. The two
capacitors are independent stores, so the filter is of order 2, with the textbook

    H(s) = 1 / (R1 R2 C1 C2 s^2 + C2 (R1 + R2) s + 1),

natural frequency 1/sqrt(R1 R2 C1 C2) and quality factor
sqrt(R1 R2 C1 C2) / (C2 (R1 + R2)). With a finite open-loop gain A the op-amp is a
voltage-controlled voltage source, and H tends to the ideal one as A grows.

Run with ``python examples/opamp_filter.py``.
"""

import math

import numpy as np
import sympy

import vecnet as vn


def sallen_key(R1, R2, C1, C2, **opamp):
    net = vn.Network("Sallen-Key low-pass")
    net.add(
        vn.VoltageSource("V", "g", "in", V=1.0),
        vn.Resistor("R1", "in", "m", R=R1),
        vn.Resistor("R2", "m", "p", R=R2),
        vn.Capacitor("C1", "m", "out", C=C1),
        vn.Capacitor("C2", "g", "p", C=C2),
        vn.OpAmp("U", "out", "p", "out", "g", **opamp),   # in-, in+, output, ground
    )
    return net


R1, R2, C1, C2 = 10e3, 10e3, 22e-9, 10e-9      # ohm, farad: about 1.07 kHz, Q = 0.74
net = sallen_key(R1, R2, C1, C2)
ss = net.state_space(outputs=["U.out.across"], symbolic=True)
print(ss.diagnosis())
H = ss.transfer_function()[0, 0]
print("\nH(s) = v_out / V =", H)

s = vn.s
r1, r2, c1, c2 = (vn.Symbol(n) for n in ("R1", "R2", "C1", "C2"))
textbook = 1 / (r1 * r2 * c1 * c2 * s**2 + c2 * (r1 + r2) * s + 1)
assert len(ss.states) == 2
assert sympy.simplify(H - textbook) == 0

f0 = 1 / (2 * math.pi * math.sqrt(R1 * R2 * C1 * C2))
Q = math.sqrt(R1 * R2 * C1 * C2) / (C2 * (R1 + R2))
print(f"\nf0 = {f0:.1f} Hz, Q = {Q:.3f}")

# the sparse numeric formulation gives the same response; at f0, |H| = Q
sparse = net.sparse_state_space(outputs=["U.out.across"])
at_f0 = sparse.transfer_function_at([2j * math.pi * f0])[0, 0, 0]
print(f"|H(j 2 pi f0)| = {abs(at_f0):.4f}")
assert np.isclose(abs(at_f0), Q, rtol=1e-9)

# a finite open-loop gain A: the same filter as A grows
A = vn.Symbol("A")
finite = sallen_key(R1, R2, C1, C2, gain=A).state_space(outputs=["U.out.across"], symbolic=True)
H_A = finite.transfer_function()[0, 0]
print("\nwith open-loop gain A:", sympy.factor(H_A))
assert sympy.simplify(sympy.limit(H_A, A, sympy.oo) - textbook) == 0
