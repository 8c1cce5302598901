"""McPhee's electrical network (REFERENCE case E1): its linear graph and topology matrices.

Run with ``python examples/topology_e1.py``.
"""

import vecnet as vn

net = vn.Network("E1")
net.add(
    vn.Inductor("L1", "a", "b", L=vn.Symbol("L1")),
    vn.Inductor("L2", "e", "d", L=vn.Symbol("L2")),
    vn.Resistor("R3", "c", "b", R=vn.Symbol("R3")),
    vn.Resistor("R4", "e", "b", R=vn.Symbol("R4")),
    vn.Resistor("R5", "f", "e", R=vn.Symbol("R5")),
    vn.Capacitor("C6", "c", "d", C=vn.Symbol("C6")),
    vn.VoltageSource("V7", "f", "a", V=vn.Symbol("V")),
)
topo = net.topology(tree=["L1", "L2", "R3", "R4", "R5"], datum="f")

sections = [
    ("Incidence matrix [IN] (+1: edge points toward the node)", topo.incidence),
    (f"Reduced incidence [A] (datum {topo.datum[0]})", topo.reduced_incidence),
    ("Fundamental cutset matrix [CU] = [1 | A_c]", topo.cutset),
    ("Fundamental circuit matrix [CI] = [B_t | 1], B_t = -A_c^T", topo.circuit),
    ("Node-to-datum path matrix P = A_t^-1", topo.path),
]
print(f"{net.name}: {len(topo.nodes)} nodes, {len(topo.edges)} edges")
print(f"tree branches: {', '.join(topo.branches)}    chords: {', '.join(topo.chords)}\n")
for title, matrix in sections:
    print(title)
    print(matrix, end="\n\n")
print("Cutset equations (vertex postulate)")
for eq in topo.cutset_equations():
    print(f"  {eq.lhs} = {eq.rhs}")
print("Circuit equations (circuit postulate)")
for eq in topo.circuit_equations():
    print(f"  {eq.lhs} = {eq.rhs}")
