"""Spatial (3-D) mechanisms as vector networks.

>>> import vecnet as vn
>>> mech = vn.spatial.Mechanism("m")
>>> isinstance(mech.ground.point(0, 0, 0), vn.spatial.Point)
True
"""

from ..builders.spatial import DATUM, Body, Mechanism, Point
from ..core.rotations import euler_angles, matrix_quaternion, quaternion_matrix
from .picture import node_positions, picture

__all__ = ["Mechanism", "Body", "Point", "DATUM", "picture", "node_positions",
           "quaternion_matrix", "matrix_quaternion", "euler_angles"]
