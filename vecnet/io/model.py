"""JSON model files: lumped networks and planar and spatial mechanisms as data.

A model file is a JSON object with the format version ``"vecnet": "1"`` and a
``kind``, ``"network"`` or ``"mechanism"``; a mechanism is planar, or spatial with
``"dimensions": 3``. The format is described in
``docs/model-format.md`` and by the JSON Schema ``vecnet/io/schema/model-v1.json``.

Loading never runs code from the file: formulas are read by
:func:`vecnet.io.parse_expression`. A file is checked in three steps, each
failing with a one-line :class:`~vecnet.errors.ModelFileError` whose
``location`` is a JSON pointer (``/elements/3/parameters/R``) or a line of
the file:

1. JSON syntax (with duplicate keys, ``NaN`` and huge numbers refused) and the schema
   (types, required and unknown keys): :mod:`vecnet.io.json_document`;
2. meaning: element types, parameters, names, node, body, point, joint and
   edge references, expressions, inertias, orientations and axes; the loops of a
   spatial mechanism are closed in its initial pose: :mod:`vecnet.io.network_reader`,
   :mod:`vecnet.io.mechanism_reader`.

:func:`~vecnet.io.model_writer.save_model` writes a model back
(:mod:`vecnet.io.model_writer`); loading what it wrote gives the same equations.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..builders.model import Model
from ..core.bounds import finite_number
from ..errors import ModelFileError
from .json_document import FORMAT_VERSION, SCHEMA, check_counts, check_data, read_document, validate
from .network_reader import ELEMENT_TYPES, read_network
from .reading import Scope

__all__ = ["Model", "load_model", "FORMAT_VERSION", "SCHEMA",
           "ELEMENT_TYPES"]


def load_model(source: str | os.PathLike | Mapping[str, Any],
               parameters: Mapping[str, float] | None = None) -> Model:
    """Read a model file (or an already parsed dict) into a :class:`Model`; ``parameters``
    gives declared parameters other values (``{"R": 2e3}``, as ``vecnet --param R=2e3``).

    Raises
    ------
    ModelFileError
        The file cannot be read or is not a valid model, or ``parameters`` names a
        parameter the model does not declare; ``location`` says where.

    Examples
    --------
    >>> model = load_model({"vecnet": "1", "kind": "network", "name": "rc",
    ...     "parameters": {"R": 1000.0, "C": 1e-6},
    ...     "elements": [
    ...         {"type": "VoltageSource", "name": "Vs", "nodes": ["g", "a"], "parameters": {"V": 1.0}},
    ...         {"type": "Resistor", "name": "R1", "nodes": ["a", "b"], "parameters": {"R": "R"}},
    ...         {"type": "Capacitor", "name": "C1", "nodes": ["g", "b"], "parameters": {"C": "C"}}],
    ...     "outputs": ["C1.across"]})
    >>> model.state_space().transfer_function()
    <TransferMatrix: 1 output(s) x 1 input(s)>
    C1.across/Vs.across = 1/(C*R*s + 1)
    >>> load_model({"vecnet": "2", "kind": "network"})
    Traceback (most recent call last):
    ...
    vecnet.errors.ModelFileError: /vecnet: unsupported model format version '2'; this vecnet reads version "1"
    """
    doc = read_document(source)
    check_counts(doc)
    check_data(doc)
    validate(doc)
    declared = dict(doc.get("parameters", {}))
    for name, value in (parameters or {}).items():
        if name not in declared:
            raise ModelFileError(f"no parameter {name!r} to set; the model declares "
                                 f"{', '.join(map(repr, declared)) or 'none'}",
                                 location="/parameters")
        declared[name] = finite_number(value, f"parameter {name!r}")
    scope = Scope(declared)
    if doc["kind"] == "network":
        model = read_network(doc, scope)
    elif doc["kind"] == "mechanism":   # the mechanism side, imported for mechanisms alone
        from .mechanism_reader import read_mechanism

        model = read_mechanism(doc, scope)
    else:
        from .system_reader import read_system

        model = read_system(doc, scope)
    model.document = doc
    # simulated under the bounds of files (vecnet.core.bounds)
    for part in (model.system.mechanism, model.system.network) if model.kind == "system" \
            else (model.system,):
        part.untrusted = True
    return model
