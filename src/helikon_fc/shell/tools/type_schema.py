"""From Python annotations to JSON Schema and back: what `@function_tool` and `output_type` are built on.

`schema_for(tp)` describes a type as JSON Schema; `decode(tp, value)` turns a decoded JSON value into
an instance of that type, checking it on the way; `output_schema_for(tp)` is the schema a
structured-output turn sends to the model (in strict form) and checks the answer against. One
compiled *codec* per type does all three, so the schema and the decoder never disagree.

Supported types: ``str``, ``int``, ``float``, ``bool``, ``None``, ``list[X]``, ``tuple[X, ...]``,
``tuple[X, Y, ...]`` (fixed length), ``dict[str, X]``, bare ``list``/``dict`` (any JSON array/object),
``X | Y`` (``X | None`` included), ``Literal[...]`` of strings, ints, bools and ``None``, ``Enum``
classes (by value), ``datetime``/``date``/``time``/``UUID`` (strings with a ``format``, decoded with
``fromisoformat`` / ``UUID``), and attrs classes, dataclasses and TypedDicts (inlined closed objects;
field descriptions from ``metadata={"description": ...}``, attribute docstrings or
``Annotated[X, "description"]``, in that order, and the class docstring's summary when the field has
none; a TypedDict's ``NotRequired`` keys are optional). ``Annotated`` metadata may also bound a value
with `annotated_types` (``Ge``, ``Lt``, ``MultipleOf``, ``MaxLen``, ... see `type_constraints`): the
bound is in the schema and checked when decoding. Anything else, an unknown metadata object included,
raises `TypeError` when the schema is built.

Decoding is strict: no ``"1"`` -> ``1`` coercion, no unknown keys on class objects (their schemas say
``additionalProperties: false``); an integral float such as ``3.0`` is accepted as the int ``3`` and an
int as a float, as JSON Schema does. A ``null`` for a field that has a default but does not accept
``None`` means "use the default" — that is how the strict schema form spells an omitted field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import (
    Any,
    TypeVar,
    get_args,
    overload,
)

import attrs

from ...core import JsonObject, JsonValue, OutputSchema, strict_schema
from ._type_codecs import FAIL, Codec, DecodeError, Field, FieldsCodec, child_path
from ._type_compiler import compile_codec, described, type_repr

T = TypeVar("T")

__all__ = [
    "REQUIRED",
    "DecodeError",
    "Parameter",
    "ParametersCodec",
    "compile_parameters",
    "decode",
    "output_schema_for",
    "schema_for",
    "strict_problems",
    "strict_schema_for",
]

# ---------------------------------------------------------------------------------------------
# The parameters of a function, as one object schema (used by `function_tool`).

REQUIRED: Any = FAIL
"""The `Parameter.default` of a parameter without a default."""


@attrs.frozen
class Parameter:
    """One parameter of a tool function: its name, annotation, default and description."""

    name: str
    annotation: object
    default: Any = REQUIRED
    description: str | None = None
    positional_only: bool = False


class ParametersCodec:
    """The schema of a function's parameters and the decoder from a tool call's arguments to its call."""

    __slots__ = ("_codec", "_positional")

    def __init__(self, codec: FieldsCodec, positional: tuple[Field, ...]) -> None:
        self._codec = codec
        self._positional = positional

    def schema(self, strict: bool) -> JsonObject:
        """The object schema (strict form: every key required, optional ones nullable)."""
        schema = self._codec.schema("strict" if strict else "plain")
        return strict_schema(schema) if strict else schema

    def decode(self, arguments: JsonObject) -> tuple[list[Any], dict[str, Any]]:
        """The positional and keyword arguments for the call; raises `DecodeError` listing each problem."""
        errors: list[str] = []
        kwargs: dict[str, Any] = self._codec.decode(arguments, "$", errors)
        if errors:
            raise DecodeError("arguments", tuple(errors))
        if not self._positional:
            return [], kwargs
        args = [kwargs.pop(f.arg) if f.arg in kwargs else f.default for f in self._positional]
        return args, kwargs


def compile_parameters(
    params: tuple[Parameter, ...], owner: str, localns: Mapping[str, Any] | None = None
) -> ParametersCodec:
    """Compile the parameters of `owner` (a tool name, for messages); `localns` resolves local class names.

    Raises:
        TypeError: a parameter's annotation is unsupported; the message names the tool, the parameter and the type.
    """
    fields: list[Field] = []
    for param in params:
        try:
            codec = compile_codec(param.annotation, localns)
        except TypeError as exc:
            raise TypeError(f"tool {owner!r}, parameter {param.name!r}: {exc}") from None
        codec = described(codec, param.description)
        fields.append(Field(param.name, param.name, codec, param.default, positional=param.positional_only))
    positional = tuple(f for f in fields if f.positional)
    return ParametersCodec(FieldsCodec(tuple(fields), _identity, None), positional)


def _identity(kwargs: dict[str, Any]) -> dict[str, Any]:
    return kwargs


# ---------------------------------------------------------------------------------------------
# The public functions.


def schema_for(tp: object) -> JsonObject:
    """The JSON Schema of `tp` (attrs classes become closed ``type: object`` schemas, inlined).

    Args:
        tp: A supported annotation (see the module docstring).

    Returns:
        A fresh schema dict; changing it changes nothing here.

    Raises:
        TypeError: `tp` (or a type inside it) is not supported; the message names it and where it is.
    """
    return compile_codec(tp).schema("plain")


def strict_problems(schema: JsonValue, path: str = "$") -> list[str]:
    """What OpenAI's strict mode cannot express: free-form objects, untyped arrays, fixed-length tuples and
    string length bounds (``Annotated[str, MaxLen(n)]``)."""
    problems: list[str] = []
    if not isinstance(schema, dict):
        return problems
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "object" in kinds and "properties" not in schema:
        problems.append(f"{path}: a dict with free-form keys (strict mode needs fixed keys: use an attrs class)")
    if "array" in kinds and "prefixItems" in schema:
        problems.append(f"{path}: a fixed-length tuple (strict mode has no prefixItems: use an attrs class or a list)")
    elif "array" in kinds and not isinstance(schema.get("items"), dict):
        problems.append(f"{path}: an array of anything (strict mode needs an item type: use list[X])")
    if "string" in kinds and ("minLength" in schema or "maxLength" in schema):
        problems.append(f"{path}: a string length bound (strict mode has no minLength/maxLength: check it in the tool)")
    props = schema.get("properties")
    if isinstance(props, dict):
        for key, sub in props.items():
            problems.extend(strict_problems(sub, child_path(path, key)))
    items = schema.get("items")
    if isinstance(items, dict):
        problems.extend(strict_problems(items, f"{path}[]"))
    any_of = schema.get("anyOf")
    if isinstance(any_of, list):
        for sub in any_of:
            problems.extend(strict_problems(sub, path))
    return problems


def strict_schema_for(tp: object, where: str = "$") -> JsonObject:
    """The strict form of `tp`'s schema: every object closed, every key required, optional fields nullable.

    Raises:
        TypeError: `tp` is unsupported, or has a part strict mode cannot express (a ``dict[str, X]``,
            a bare ``list``/``dict``, a fixed-length tuple).
    """
    schema = strict_schema(compile_codec(tp).schema("strict"))
    problems = strict_problems(schema, where)
    if problems:
        raise TypeError(f"{type_repr(tp)} cannot be sent in strict mode: " + "; ".join(problems))
    return schema


_WRAPPER_KEY = "value"


def output_schema_for(tp: type) -> OutputSchema:
    """The strict `OutputSchema` a structured-output turn sends for `tp`.

    Providers (OpenAI) require the root of an output schema to be an object. An attrs class is sent
    as it is; any other type ``T`` (``int``, ``list[int]``, ``Literal[...]``, ``Point | None``, ...) is
    wrapped as ``{"value": T}`` and `decode` unwraps ``{"value": ...}`` again for such types.

    A field with a default is nullable and left out of ``required``: the answer is checked against this
    schema, and a model may leave such a field out or send ``null``, both meaning the default (`decode`
    fills it in). `strict` is set, so a provider sends ``strict_schema(schema)``, in which every key is
    required: that is `strict_schema_for(tp)`.

    Args:
        tp: The output type.

    Returns:
        `OutputSchema(name, schema, strict=True)`, `name` being the type's name (``list_int`` for ``list[int]``).

    Raises:
        TypeError: `tp` is unsupported or cannot be expressed in strict mode.
    """
    codec = compile_codec(tp)
    name = _schema_name(tp)
    wrapped_type = not isinstance(codec, FieldsCodec)
    strict_schema_for(tp, f"$.{_WRAPPER_KEY}" if wrapped_type else "$")  # refuse what strict mode cannot send
    if not wrapped_type:
        return OutputSchema(name, codec.schema("output"))
    inner = codec.schema("output")
    wrapped: JsonObject = {
        "type": "object",
        "properties": {_WRAPPER_KEY: inner},
        "required": [_WRAPPER_KEY],
        "additionalProperties": False,
    }
    return OutputSchema(name, wrapped)


def _schema_name(tp: object) -> str:
    if isinstance(tp, type) and not get_args(tp):
        raw = tp.__name__
    else:
        raw = type_repr(tp)
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", raw).strip("_")
    return name[:64] or "StructuredOutput"


def _is_wrapped(codec: Codec, value: JsonValue) -> bool:
    """Whether `value` may be the ``{"value": ...}`` wrapper `output_schema_for` puts around a non-class type."""
    return not isinstance(codec, FieldsCodec) and isinstance(value, dict) and len(value) == 1 and _WRAPPER_KEY in value


@overload
def decode(tp: type[T], value: JsonValue) -> T: ...
@overload
def decode(tp: object, value: JsonValue) -> Any: ...
def decode(tp: object, value: JsonValue) -> Any:
    """Decode a JSON value (as `json.loads` returns it) into `tp`, checking every part.

    For a type `output_schema_for` wraps (anything but an attrs class), a value that does not fit
    as it is but is a ``{"value": ...}`` wrapper is unwrapped and decoded.

    Args:
        tp: A supported annotation.
        value: The decoded JSON.

    Returns:
        An instance of `tp` (tuples for tuple types, enum members for enums, attrs instances).

    Raises:
        DecodeError: `value` does not fit; each problem is one ``$.path: problem`` line.
        TypeError: `tp` is not supported.
    """
    codec = compile_codec(tp)
    errors: list[str] = []
    result = codec.decode(value, "$", errors)
    if errors and _is_wrapped(codec, value):
        assert isinstance(value, dict)
        errors = []
        result = codec.decode(value[_WRAPPER_KEY], f"$.{_WRAPPER_KEY}", errors)
    if errors:
        raise DecodeError(type_repr(tp), tuple(errors))
    return result
