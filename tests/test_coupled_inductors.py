"""Coupled inductors against a modified nodal analysis written here, the limits on the
coupling, and the ideal transformer as the limit of perfect coupling and large inductance."""

import numpy as np
import pytest
import sympy

import vecnet as vn
from vecnet.errors import ModelError

S_VALUES = [0.3j, 1j, 2.5 + 4j, 10j]


def mna_output(s_value, R1, R2, L, series=0.0):
    """V(b) of: source 1 V at node in, R1 from in to a, optional inductor ``series`` from a to
    c, winding 1 from ground to c (c = a without it), winding 2 from ground to b, R2 from b
    to ground; windings' dots at their upper nodes. Unknowns: V(in), V(a), V(c), V(b), the
    source current, the winding currents (entering the dots) and the series current."""
    M = np.zeros((8, 8), dtype=complex)
    rhs = np.zeros(8, dtype=complex)
    IN, A, C, B, IV, I1, I2, IS = range(8)
    # KCL, current leaving each node
    M[IN, IN] += 1 / R1; M[IN, A] -= 1 / R1; M[IN, IV] += 1
    M[A, A] += 1 / R1; M[A, IN] -= 1 / R1; M[A, IS] += 1
    M[C, I1] += 1; M[C, IS] -= 1
    M[B, B] += 1 / R2; M[B, I2] += 1
    M[IV, IN] = 1; rhs[IV] = 1.0                     # the source
    M[I1, C] = 1; M[I1, I1] = -s_value * L[0][0]; M[I1, I2] = -s_value * L[0][1]
    M[I2, B] = 1; M[I2, I1] = -s_value * L[1][0]; M[I2, I2] = -s_value * L[1][1]
    if series:  # V(a) - V(c) = s L I
        M[IS, A] = 1; M[IS, C] = -1; M[IS, IS] = -s_value * series
    else:       # a and c are one node
        M[IS, A] = 1; M[IS, C] = -1
    return np.linalg.solve(M, rhs)[B]


def transformer_circuit(L, R1=2.0, R2=3.0, series=None):
    net = vn.Network("two windings")
    net.add(vn.VoltageSource("V", "0", "in", V=1.0), vn.Resistor("R1", "in", "a", R=R1))
    upper = "a"
    if series is not None:
        net.add(vn.Inductor("Ls", "a", "c", L=series))
        upper = "c"
    net.add(vn.CoupledInductors("T", "0", upper, "0", "b", L=L), vn.Resistor("R2", "0", "b", R=R2))
    return net


@pytest.mark.parametrize("L", [[[1.0, 0.6], [0.6, 0.5]], [[2.0, -1.5], [-1.5, 3.0]]])
def test_two_windings_match_nodal_analysis(L):
    net = transformer_circuit(L)
    expected = [mna_output(x, 2.0, 3.0, L) for x in S_VALUES]
    numeric = net.sparse_state_space(outputs=["R2.across"]).transfer_function_at(S_VALUES)[:, 0, 0]
    assert np.allclose(numeric, expected, rtol=1e-10)
    H = net.state_space(outputs=["R2.across"]).transfer_function()[0, 0]
    exact = [complex(H.subs(vn.s, x)) for x in S_VALUES]
    assert np.allclose(exact, expected, rtol=1e-10)
    assert net.state_space().states == ("T.1.through", "T.2.through")


def test_winding_forced_into_the_tree_is_a_dependent_store():
    # the series inductor and winding 1 alone meet at node c: a cutset of T-type stores
    L = [[1.0, 0.6], [0.6, 0.5]]
    net = transformer_circuit(L, series=0.7)
    expected = [mna_output(x, 2.0, 3.0, L, series=0.7) for x in S_VALUES]
    sparse = net.sparse_state_space(outputs=["R2.across"])
    assert np.allclose(sparse.transfer_function_at(S_VALUES)[:, 0, 0], expected, rtol=1e-10)
    ss = net.state_space(outputs=["R2.across"])
    assert len(ss.states) == 2 and len(ss.dependent_stores) == 1
    H = ss.transfer_function()[0, 0]
    assert np.allclose([complex(H.subs(vn.s, x)) for x in S_VALUES], expected, rtol=1e-10)


@pytest.mark.parametrize("k", [1.2, -1.01])
def test_coupling_outside_minus_one_to_one_is_refused(k):
    with pytest.raises(ModelError, match=r"outside \[-1, 1\]"):
        vn.CoupledInductors.coupled("T", "0", "a", "0", "b", L=(1.0, 4.0), k=k)
    M = k * 2.0
    with pytest.raises(ModelError, match=r"coupling coefficient k .* outside \[-1, 1\]"):
        vn.CoupledInductors("T", "0", "a", "0", "b", L=[[1.0, M], [M, 4.0]])


def test_matrix_not_positive_semidefinite_is_refused():
    # every pair within |k| <= 1, but all three pairs strongly opposed: L (1, 1, 1) < 0
    m = -0.9
    with pytest.raises(ModelError, match="not positive semidefinite"):
        vn.CoupledInductors("T", *"0a0b0c", L=[[1, m, m], [m, 1, m], [m, m, 1]])


def test_asymmetric_matrix_and_zero_inductance_are_refused():
    with pytest.raises(ModelError, match="symmetric"):
        vn.CoupledInductors("T", "0", "a", "0", "b", L=[[1.0, 0.2], [0.3, 1.0]])
    with pytest.raises(ModelError, match="must be positive"):
        vn.CoupledInductors("T", "0", "a", "0", "b", L=[[0.0, 0.0], [0.0, 1.0]])


def test_perfect_coupling_is_refused_by_the_numeric_formulation():
    net = transformer_circuit([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(vn.UnsupportedNetwork, match="perfectly coupled"):
        net.sparse_state_space()


def test_three_windings_match_their_impedance():
    # three windings, two shorted through resistors: the input impedance at winding 1 is
    # Z = s L11 - s^2 l^T (s L' + R)^{-1} l, L' the 2x2 block of windings 2, 3
    L = np.array([[1.0, 0.3, 0.2], [0.3, 2.0, 0.5], [0.2, 0.5, 1.5]])
    net = vn.Network("three")
    net.add(vn.CurrentSource("I", "0", "a", I=1.0),
            vn.CoupledInductors("T", "0", "a", "0", "b", "0", "c", L=L.tolist()),
            vn.Resistor("Rb", "b", "0", R=2.0), vn.Resistor("Rc", "c", "0", R=5.0))
    got = net.sparse_state_space(outputs=["T.1.across"]).transfer_function_at(S_VALUES)[:, 0, 0]
    for x, value in zip(S_VALUES, got):
        block = x * L[1:, 1:] + np.diag([2.0, 5.0])
        Z = x * L[0, 0] - x * x * L[0, 1:] @ np.linalg.solve(block, L[1:, 0])
        assert np.isclose(value, Z, rtol=1e-10)  # V(a) for 1 A into node a


def test_ideal_transformer_is_the_limit_of_perfect_coupling():
    # primary L, secondary n^2 L, coupling k: as k -> 1 and L -> oo the voltage gain from the
    # source to the load is the textbook ideal transformer's, n R2 / (n^2 R1 + R2)
    Lp, k, n = (vn.Symbol(x, positive=True) for x in ("Lp", "k", "n"))
    R1, R2 = 2, 3
    net = transformer_circuit([[Lp, k * n * Lp], [k * n * Lp, n**2 * Lp]], R1=R1, R2=R2)
    H = net.state_space(outputs=["R2.across"]).transfer_function()[0, 0]
    limit = sympy.limit(sympy.cancel(H.subs(k, 1)), Lp, sympy.oo)
    assert sympy.simplify(limit - n * R2 / (n**2 * R1 + R2)) == 0
    # a numeric sequence that approaches it with k < 1, through the sparse formulation
    ideal = 2 * 3 / (4 * 2 + 3)
    errors = []
    for scale in (1e1, 1e2, 1e3):
        k_value = 1 - scale**-2  # the leakage (1 - k) L must vanish too
        L = [[scale, k_value * 2 * scale], [k_value * 2 * scale, 4 * scale]]
        H = transformer_circuit(L).sparse_state_space(outputs=["R2.across"])
        errors.append(abs(H.transfer_function_at([1j])[0, 0, 0] - ideal))
    assert errors[0] > errors[1] > errors[2] and errors[2] < 1e-3
