"""A model file as a JSON document: its syntax, the values it may hold and its schema.

Each check fails with a one-line :class:`~vecnet.errors.ModelFileError` whose
``location`` is a line of the file (syntax) or a JSON pointer (``/elements/3/parameters/R``).
The meaning of the document (element types, references, expressions) is the readers'
(:mod:`vecnet.io.network_reader`, :mod:`vecnet.io.mechanism_reader`).
"""

from __future__ import annotations

import copy
import difflib
import functools
import json
import math
import os
import re
from collections.abc import Mapping
from importlib import resources
from typing import Any

import jsonschema

from ..core.bounds import check_count
from ..core.names import shown
from ..elements.base import number_problem
from ..elements.joints import JOINTS, JointKind
from ..errors import ModelFileError
from .source import decode, line_of, pointer, read_bounded

__all__ = ["FORMAT_VERSION", "MAX_FILE_SIZE", "SCHEMA", "read_document", "check_data",
           "check_counts", "validate", "spatial_joint_schema", "spatial_joints"]

#: the version of the model format read and written
FORMAT_VERSION = "1"
#: largest model file read, in bytes
MAX_FILE_SIZE = 10_000_000
#: the JSON Schema of the format (draft 2020-12)
SCHEMA: dict = json.loads(resources.files("vecnet.io").joinpath("schema/model-v1.json")
                          .read_text(encoding="utf-8"))
#: the spatial joint types a file may name that are no catalogued joint
_OTHER_SPATIAL = ("rolling_wheel",)


def spatial_joint_schema() -> dict:
    """The schema of a spatial mechanism's joint entry, derived from the joint catalogue
    (:data:`vecnet.elements.joints.JOINTS`): the types, and for each kind the entry's keys
    (``between``, its direction, its options), all required; a rolling wheel's keys as the
    schema file gives them. The schema file holds this for the catalogue vecnet ships
    (``tests/test_joint_catalogue.py``).

    >>> spatial_joint_schema()["properties"]["type"]["enum"][:2]
    ['revolute', 'spherical']
    """
    shipped = SCHEMA["$defs"]["spatial_joint"]
    rules = [rule for rule in shipped["allOf"]
             if rule["if"]["properties"]["type"].get("const") in _OTHER_SPATIAL]
    for kind in JOINTS.values():
        keys: dict[str, Any] = {"type": True, "name": True, "description": True,
                                "between": {"$ref": "#/$defs/between"}}
        if kind.direction == "axes":
            keys["axes"] = {"type": "array", "items": {"$ref": "#/$defs/triple"},
                            "minItems": 2, "maxItems": 2}
        elif kind.direction is not None:
            keys[kind.direction] = {"$ref": "#/$defs/triple"}
        keys.update((option, {"$ref": "#/$defs/value"}) for option in kind.options)
        rules.append({"if": {"properties": {"type": {"const": kind.name}}},
                      "then": {"required": [k for k in keys if k not in
                                            ("type", "name", "description")],
                               "properties": keys, "additionalProperties": False}})
    return {**shipped, "properties": {**shipped["properties"], "type": {
        "enum": [*JOINTS, *_OTHER_SPATIAL]}}, "allOf": rules}


@functools.lru_cache(maxsize=4)
def _validator(kinds: tuple[JointKind, ...]) -> jsonschema.Draft202012Validator:
    """The validator of the schema with the joint catalogue's ``kinds`` (a joint kind
    registered later, or registered again otherwise, makes a new one)."""
    schema = {**SCHEMA, "$defs": {**SCHEMA["$defs"], "spatial_joint": spatial_joint_schema()}}
    return jsonschema.Draft202012Validator(schema)


def spatial_joints() -> list[str]:
    """Every joint type a spatial mechanism's file may name."""
    return [*JOINTS, *_OTHER_SPATIAL]


def _error(location: str, message: str) -> ModelFileError:
    return ModelFileError(message, location=location)


class _Refused(Exception):
    def __init__(self, message: str, needle: str) -> None:
        super().__init__(message)
        self.needle = needle


def _line_of(text: str, needle: str, occurrence: int = 1) -> str:
    """``"line N"`` of the ``occurrence``-th match of ``needle`` in ``text`` (or ``"/"``)."""
    matches = list(re.finditer(needle, text))
    if len(matches) >= occurrence:
        return f"line {line_of(text, matches[occurrence - 1].start())}"
    return "/"


def _parse_json(text: str) -> Any:
    def pairs(items):
        seen = set()
        for key, _ in items:
            if key in seen:
                raise _Refused(f"duplicate key {key!r}", re.escape(json.dumps(key)) + r"\s*:")
            seen.add(key)
        return dict(items)

    def constant(name):
        raise _Refused(f"{name} is not a number in JSON", re.escape(name))

    def ascii_digits(literal):
        # float() and int() read Arabic-Indic and other digits too: JSON numbers are ASCII
        if not literal.isascii():
            raise _Refused(f"number {shown(literal, 20)} is not written in ASCII digits",
                           re.escape(literal))

    def number(literal):
        ascii_digits(literal)
        value = float(literal)
        if not math.isfinite(value):
            raise _Refused(f"number {literal[:20]} is out of range", re.escape(literal))
        return value

    def integer(literal):
        if len(literal) > 300:  # Python refuses very long integers anyway; say so clearly
            raise _Refused("integer with more than 300 digits", re.escape(literal[:30]))
        ascii_digits(literal)
        return int(literal)

    try:
        return json.loads(text, object_pairs_hook=pairs, parse_constant=constant,
                          parse_float=number, parse_int=integer)
    except json.JSONDecodeError as exc:
        raise _error(f"line {exc.lineno} column {exc.colno}", f"invalid JSON: {exc.msg}") from None
    except _Refused as exc:
        occurrence = 2 if str(exc).startswith("duplicate") else 1
        raise _error(_line_of(text, exc.needle, occurrence), str(exc)) from None
    except RecursionError:
        raise _error("/", "the JSON is nested too deeply") from None


def read_document(source: str | os.PathLike | Mapping) -> dict:
    """The JSON document of a model file at ``source`` (a path), or a copy of ``source``
    when it is a dict already; syntax checked (duplicate keys, ``NaN``, numbers out of range
    and digits other than ASCII refused).

    >>> read_document({"vecnet": "1"})
    {'vecnet': '1'}
    """
    if isinstance(source, Mapping):
        try:
            return copy.deepcopy(dict(source))
        except RecursionError:
            raise _error("/", "the model is nested too deeply") from None
    if not isinstance(source, (str, os.PathLike)):
        raise _error("/", f"load_model takes a file path or a dict, got {type(source).__name__}")
    data = read_bounded(source, MAX_FILE_SIZE, "model file")
    return _parse_json(decode(data, "utf-8", "model file"))


_SURROGATE = re.compile("[\ud800-\udfff]")


def check_data(doc: Any) -> None:
    """Refuse, at their JSON pointer, values no model needs and that break later steps:
    NaN and infinite numbers (a dict given to :func:`~vecnet.load_model` may hold them), subnormal
    numbers (their reciprocals overflow) and text with lone surrogates (``"\\ud800"`` in
    JSON: not a character, and no output can encode it). Iterative: the document may be deep."""
    stack: list[tuple[Any, tuple]] = [(doc, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, float):
            problem = number_problem(value)
            if problem:
                raise _error(pointer(*path), f"the number {value!r} {problem}")
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**1023:
            raise _error(pointer(*path), "the integer is out of the range of floating point "
                                          "numbers")
        elif isinstance(value, str):
            if not value.isascii() and _SURROGATE.search(value):
                raise _error(pointer(*path), f"the text {shown(value)} holds a lone surrogate "
                                              "(an escape such as \\ud800 that is no character)")
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and not key.isascii() and _SURROGATE.search(key):
                    raise _error(pointer(*path, key), f"the key {shown(key)} holds a lone "
                                                       "surrogate (no character)")
                stack.append((item, (*path, key)))
        elif isinstance(value, (list, tuple)):
            stack.extend((item, (*path, k)) for k, item in enumerate(value))


#: the lists and maps of a model (or of a system's parts) whose length a limit bounds
COUNTED = {"elements": "max_parts", "bodies": "max_parts", "joints": "max_parts",
           "forces": "max_parts", "drives": "max_parts", "blocks": "max_parts",
           "outputs": "max_outputs", "parameters": "max_parameters"}


def check_counts(doc: Any) -> None:
    """Refuse a document that holds more parts (elements, bodies, joints, forces,
    drives, blocks), outputs or parameters than the limits allow
    (:class:`~vecnet.core.bounds.Limits`), at the pointer of the list, before the schema
    or any reader looks at them; parts are counted over the whole document (a system's
    network and mechanism together)."""
    if not isinstance(doc, dict):
        return
    parts = [("", doc)] + [(f"/{key}", doc[key]) for key in ("network", "mechanism")
                           if isinstance(doc.get(key), dict)]
    total = 0
    for at, part in parts:
        for key, limit in COUNTED.items():
            value = part.get(key)
            if not isinstance(value, (list, dict)):
                continue
            if limit == "max_parts":
                total += len(value)
                problem = check_count(total, limit, "parts (elements, bodies, joints, "
                                      "forces, drives and blocks together)")
            else:
                problem = check_count(len(value), limit, key)
            if problem:
                raise _error(f"{at}/{key}", f"the model holds {problem}")


def _schema_message(error: jsonschema.ValidationError) -> str:
    message = " ".join(error.message.split())
    return message if len(message) <= 200 else message[:197] + "..."


def validate(doc: Any) -> None:
    """Check ``doc`` against the format version and the schema (types, required and unknown
    keys); a planar mechanism refused for what a spatial one holds is told how to be one."""
    if not isinstance(doc, dict):
        raise _error("/", f"a model file holds a JSON object {{...}}, not a {type(doc).__name__}")
    if "vecnet" not in doc:
        raise _error("/", f'no format version: start the model with "vecnet": "{FORMAT_VERSION}"')
    if doc["vecnet"] != FORMAT_VERSION:
        raise _error("/vecnet", f"unsupported model format version {doc['vecnet']!r}; this "
                                f"vecnet reads version \"{FORMAT_VERSION}\"")
    dimensions = doc.get("dimensions", 2)
    if doc.get("kind") == "mechanism" and (isinstance(dimensions, bool)
                                           or dimensions not in (2, 3)):
        # before the schema: its error would be about the branch it then picks
        raise _error("/dimensions", "a mechanism has \"dimensions\": 2 (planar, the default) or 3 "
                                    f"(spatial), not {json.dumps(dimensions)[:20]}")
    error = jsonschema.exceptions.best_match(_validator(tuple(JOINTS.values())).iter_errors(doc))
    if error is not None:
        raise _error(pointer(*error.absolute_path), _schema_message(error) + _hint(doc, error))


def _hint(doc: dict, error: jsonschema.ValidationError) -> str:
    """The closest allowed word for a misspelt one (a joint's or element's type, a flag);
    and for a planar mechanism refused for what a spatial one holds (a 3-vector, a
    spatial joint): how to make it spatial."""
    hint = ""
    if error.validator == "enum" and isinstance(error.instance, str):
        choices = [str(v) for v in error.validator_value]
        close = difflib.get_close_matches(error.instance, choices, n=1)
        if close and error.instance not in spatial_joints():
            hint = f"; did you mean {close[0]!r}?"
    if doc.get("kind") != "mechanism" or doc.get("dimensions", 2) != 2:
        return hint
    spatial_joint = error.validator == "enum" and isinstance(error.instance, str) \
        and error.instance in spatial_joints()
    vector = error.validator == "maxItems" and isinstance(error.instance, list) \
        and len(error.instance) == 3
    return hint + ("; a spatial mechanism needs \"dimensions\": 3" if spatial_joint or vector
                   else "")
