"""Stage 5, the numerics: formulated equations in; compiled models, simulations (Result),
operating points, linearizations and frequency responses out."""
