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

from ..builders.model import Model
from .expressions import format_expression, parse_expression
from .model import load_model, model_to_dict, save_model
from .netlist_reader import load_netlist
from .netlist_writer import write_netlist

__all__ = ["parse_expression", "format_expression", "Model", "load_model", "save_model",
           "model_to_dict", "load_netlist", "write_netlist"]
