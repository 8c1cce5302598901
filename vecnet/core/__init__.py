"""Foundations every stage reads: the name policy, how numbers are shown, the domain table,
rotations, and the bounds on one request's work. Takes nothing from the other stages."""
