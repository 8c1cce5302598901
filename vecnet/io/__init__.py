"""Stage 6, files: model files, netlists and safe expressions in; networks, mechanisms, systems
and Models out, and back to files.

* :func:`load_model`, :func:`save_model`, :func:`model_to_dict`: JSON model files
  (``docs/model-format.md``; :mod:`vecnet.io.model`);
* :func:`load_netlist`, :func:`write_netlist`: a SPICE netlist subset as a
  :class:`~vecnet.Network`, and a network as a netlist (:mod:`vecnet.io.spice`);
* :func:`parse_expression`, :func:`format_expression`: formulas as text, read
  without evaluating code.

>>> from vecnet.io import parse_expression
>>> parse_expression("2*pi", {})
2*pi
"""

from importlib import import_module
from typing import Any

from ..builders.model import Model
from .expressions import format_expression, parse_expression
from .model import load_model
from .netlist_reader import load_netlist

__all__ = ["parse_expression", "format_expression", "Model", "load_model", "save_model",
           "model_to_dict", "load_netlist", "write_netlist"]

#: the writers, imported when first asked for: reading a file does not need them (and
#: they bring in every formulation a model can hold)
_WRITERS = {"save_model": "model_writer", "model_to_dict": "model_writer",
            "write_netlist": "netlist_writer"}


def __getattr__(name: str) -> Any:
    if name in _WRITERS:
        return getattr(import_module(f".{_WRITERS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
