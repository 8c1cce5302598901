"""Planar mechanisms as vector networks.

>>> import vecnet as vn
>>> mech = vn.planar.Mechanism("m")
>>> isinstance(mech.ground.point(0, 0), vn.planar.Point)
True
"""

from ..builders.planar import DATUM, Body, Mechanism, Point

__all__ = ["Mechanism", "Body", "Point", "DATUM"]
