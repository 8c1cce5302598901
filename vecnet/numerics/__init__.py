"""Numerics: compiled models, simulation, results."""
