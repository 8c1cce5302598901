"""The symbols every stage shares: the time ``t`` and the Laplace variable ``s``, and the
name of a mechanism's ground node.

They live here, before every stage, so that a later stage (the printers of
:mod:`vecnet.output.teaching`) names them without importing the records that hold them.

>>> t.is_real, str(s), DATUM
(True, 's', 'ground')
"""

from __future__ import annotations

import sympy

__all__ = ["t", "s", "DATUM", "key_name"]

#: The time variable of every model.
t = sympy.Symbol("t", real=True)
#: The Laplace variable of every transfer function.
s = sympy.Symbol("s")
#: The node of a mechanism's ground frame (the datum of its vector network).
DATUM = "ground"


def key_name(key: object) -> str:
    """The name of a parameter given by symbol or by name: a symbol's own name (``str``
    would run sympy's printer, microseconds a call where values are looked up per
    evaluation), else ``str(key)``.

    >>> key_name(sympy.Symbol("m_bob")), key_name("m_bob")
    ('m_bob', 'm_bob')
    """
    return key.name if isinstance(key, sympy.Symbol) else str(key)
