"""Telling records apart by the names of their classes, as sympy's printers do.

A later stage that shows or draws the records of earlier ones (:mod:`vecnet.output.teaching`,
:mod:`vecnet.output.draw`) is reached from those records' display hooks
(``_repr_latex_``, ``_repr_svg_``). Were it to import the records' modules to tell them
apart, the hook and the import would close a circle at run time; it looks up the names
of the object's classes instead, the most specific first (a subclass a user writes is
shown as its base).

>>> class Base: pass
>>> class Mine(Base): pass
>>> class_named(Mine(), ("Base", "Other"))
'Base'
>>> class_named(3, ("Base",)) is None
True
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

__all__ = ["class_named"]


def class_named(obj: Any, names: Collection[str]) -> str | None:
    """The name of the most specific class of ``obj`` (along its method resolution order)
    that is among ``names``, or ``None``."""
    return next((cls.__name__ for cls in type(obj).__mro__ if cls.__name__ in names), None)
