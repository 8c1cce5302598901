"""How an earlier stage's display hooks reach the printers of the output stage.

``topo._repr_svg_()``, ``eom._repr_latex_()`` and ``print(H)`` are offered where the user
holds the record, but drawing and typesetting belong to :mod:`vecnet.output`. Such a hook
names the output module here and has it imported when it is first called. The printers
tell the records apart by the names of their classes (:mod:`vecnet.core.dispatch`), never
importing them, so the hooks close no circle (``tests/test_layout.py`` checks it, that
the calls stand in display hooks alone and that every name below is used). Methods that
run an algorithm forward to a public function instead (:mod:`vecnet.core.forwards`).

>>> later("vecnet.output.teaching").latex is __import__("vecnet").latex
True
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: the later-stage modules that earlier stages' convenience methods use
LATER = frozenset({
    "vecnet.output.draw",             # every _repr_svg_
    "vecnet.output.teaching",         # every _repr_latex_ and TransferMatrix.__str__
})


def later(module: str) -> ModuleType:
    """The later-stage ``module`` (one of :data:`LATER`), imported when first asked for.

    Raises
    ------
    ValueError
        ``module`` is not in :data:`LATER`: an earlier stage's module imports it directly.
    """
    if module not in LATER:
        raise ValueError(f"{module} is not a later stage reached by a convenience method")
    return importlib.import_module(module)
