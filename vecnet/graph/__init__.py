"""Stage 1, the linear graph: named directed edges (LinearGraph) in, the topology matrices
[IN], [A], [CU], [CI] and the path matrix for a chosen tree (Topology, LabeledMatrix) out."""
