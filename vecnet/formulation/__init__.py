"""Formulations: graph + tree + terminal equations -> system equations."""
