"""How an earlier stage's convenience methods reach a later stage of the pipeline.

``net.state_space()``, ``eom.simulate()``, ``topo._repr_svg_()`` and their like are offered
where the user holds the object, but the work belongs to a later stage (the formulation,
the numerics, the output). Such a method names the later module here and has it imported
when it is first called, so that no module imports a later stage and the imports form no
circle (``tests/test_layout.py`` checks both, and that every name below is used).

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
