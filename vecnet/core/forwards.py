"""How a record's convenience method runs an algorithm of a later stage.

``eom.equilibrium()`` is ``vn.equilibrium(eom)``, ``net.state_space()`` is
``vn.state_space(net)``: the algorithm is a public function of a later stage, the method a
one-line forward that names the function and not its module. vecnet's table of public
names (``vecnet/__init__.py``) says where each function lives and imports it when first
used, so a record needs no later stage when it is imported and no earlier stage names a
later module. ``tests/test_layout.py`` checks that every forward names a public function
of a later stage than the record's.

>>> public("simulate") is __import__("vecnet").simulate
True
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable

__all__ = ["public"]


def public(name: str) -> Callable[..., Any]:
    """vecnet's public function ``name`` (``vn.<name>``), imported when first used.

    Raises
    ------
    AttributeError
        vecnet has no public name ``name``.
    """
    # the package is imported once; import_module's own lookup costs microseconds a call
    return getattr(sys.modules.get("vecnet") or importlib.import_module("vecnet"), name)
