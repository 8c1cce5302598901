"""Stage 4, the formulations: a network or mechanism and a tree in; its equations out (state
equations, transfer functions, the multibody M(q) u' = Q + Phi_q^T lambda, the recursive scheme)."""
