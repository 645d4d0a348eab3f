"""The codecs behind `type_schema`: one per type, each knows its JSON Schema and how to decode a JSON value into it.

Private to the shell: `type_schema` is the public face (its docstring lists the supported types and decoding rules).
"""

from __future__ import annotations

import datetime
import decimal
import json
import math
import uuid
from collections.abc import Callable
from typing import (
    Any,
    Literal,
    TypeVar,
    cast,
)

import attrs

from ...core import JsonObject, JsonValue
from ...core.schema import json_type_name
from .type_constraints import Bound

T = TypeVar("T")


class DecodeError(ValueError):
    """A JSON value did not fit the type it was decoded into; `errors` holds one ``path: problem`` line each."""

    def __init__(self, type_name: str, errors: tuple[str, ...]) -> None:
        self.type_name = type_name
        self.errors = errors
        super().__init__(f"cannot decode {type_name}: " + "; ".join(errors))


class Missing:
    """Marks a failed decode (the problem was recorded) or an absent value."""


FAIL: Any = Missing()


def child_path(path: str, key: str) -> str:
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{json.dumps(key)}]"


# ---------------------------------------------------------------------------------------------
# Codecs: one per type, each knows its schema and how to decode a JSON value into the type.


Form = Literal["plain", "strict", "output"]
"""Which schema a codec writes for a field with a default:

- ``plain``: optional (left out of ``required``), of its own type;
- ``strict``: required but nullable (OpenAI's strict form; ``null`` means the default);
- ``output``: optional *and* nullable, what a structured answer is checked against. A provider sends it
  in strict form (`strict_schema` makes every key required), so a strict model sends ``null`` and a
  model that is not held to the schema may leave the field out; either way the default applies.
"""


class Codec:
    """Schema and decoder for one type; see `Form` for how fields with defaults are written."""

    accepts_none: bool = False

    def __init__(self) -> None:
        self.description: str | None = None

    def schema(self, form: Form) -> JsonObject:
        result = self._schema(form)
        if self.description:
            result["description"] = self.description
        return result

    def _schema(self, form: Form) -> JsonObject:
        raise NotImplementedError

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        """The decoded value, or `FAIL` after appending the problems to `errors`."""
        raise NotImplementedError


def _expected(errors: list[str], path: str, expected: str, value: JsonValue) -> Any:
    errors.append(f"{path}: expected {expected}, got {json_type_name(value)}")
    return FAIL


class StrCodec(Codec):
    def _schema(self, form: Form) -> JsonObject:
        return {"type": "string"}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        return value if isinstance(value, str) else _expected(errors, path, "string", value)


class IntCodec(Codec):
    def _schema(self, form: Form) -> JsonObject:
        return {"type": "integer"}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        if type(value) is int or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return _expected(errors, path, "integer", value)


class FloatCodec(Codec):
    def _schema(self, form: Form) -> JsonObject:
        return {"type": "number"}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool):
            if math.isfinite(value):
                return float(value)
            errors.append(f"{path}: expected a finite number, got {value}")
            return FAIL
        return _expected(errors, path, "number", value)


class BoolCodec(Codec):
    def _schema(self, form: Form) -> JsonObject:
        return {"type": "boolean"}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        return value if isinstance(value, bool) else _expected(errors, path, "boolean", value)


class NullCodec(Codec):
    accepts_none = True

    def _schema(self, form: Form) -> JsonObject:
        return {"type": "null"}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        return None if value is None else _expected(errors, path, "null", value)


class AnyJsonCodec(Codec):
    """Bare ``list`` or ``dict``: any JSON array or object, passed through as it is."""

    def __init__(self, kind: Literal["array", "object"]) -> None:
        super().__init__()
        self.kind = kind

    def _schema(self, form: Form) -> JsonObject:
        return {"type": self.kind}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        ok = isinstance(value, list) if self.kind == "array" else isinstance(value, dict)
        return value if ok else _expected(errors, path, self.kind, value)


class _Formatted(Codec):
    """A string in a standard format, decoded into its Python type: ``datetime``, ``date``, ``time``, ``UUID``."""

    def __init__(self, fmt: str, parse: Callable[[str], object], what: str) -> None:
        super().__init__()
        self._format = fmt
        self._parse = parse
        self._what = what

    def _schema(self, form: Form) -> JsonObject:
        return {"type": "string", "format": self._format}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        if not isinstance(value, str):
            return _expected(errors, path, f"string ({self._what})", value)
        try:
            return self._parse(value)
        except ValueError:
            errors.append(f"{path}: expected {self._what}, got {_json_repr(value)}")
            return FAIL


FORMATS: dict[object, _Formatted] = {
    datetime.datetime: _Formatted("date-time", datetime.datetime.fromisoformat, "an ISO 8601 date-time"),
    datetime.date: _Formatted("date", datetime.date.fromisoformat, "an ISO 8601 date"),
    datetime.time: _Formatted("time", datetime.time.fromisoformat, "an ISO 8601 time"),
    uuid.UUID: _Formatted("uuid", uuid.UUID, "a UUID"),
}

Kind = Literal["number", "string", "array", "object"]

_LENGTH_KEYWORDS: dict[Kind, tuple[str, str, str]] = {
    "string": ("minLength", "maxLength", "characters"),
    "array": ("minItems", "maxItems", "items"),
    "object": ("minProperties", "maxProperties", "keys"),
}

_COMPARISONS: dict[str, tuple[Callable[[float, float], bool], str]] = {
    "minimum": (lambda v, b: v >= b, ">="),
    "exclusiveMinimum": (lambda v, b: v > b, ">"),
    "maximum": (lambda v, b: v <= b, "<="),
    "exclusiveMaximum": (lambda v, b: v < b, "<"),
}


class ConstrainedCodec(Codec):
    """Another codec's values, bounded: ``Annotated[int, Ge(0)]``, ``Annotated[list[str], MaxLen(3)]``, ..."""

    def __init__(self, inner: Codec, kind: Kind, bounds: tuple[Bound, ...]) -> None:
        super().__init__()
        self.inner = inner
        self.kind = kind
        self.bounds = bounds
        self.accepts_none = inner.accepts_none

    def _schema(self, form: Form) -> JsonObject:
        result = self.inner.schema(form)
        for bound in self.bounds:
            result[self._keyword(bound)] = bound.value
        return result

    def _keyword(self, bound: Bound) -> str:
        if not bound.is_length:
            return bound.keyword
        low, high, _ = _LENGTH_KEYWORDS[self.kind]
        return low if bound.keyword == "minLength" else high

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        before = len(errors)
        result = self.inner.decode(value, path, errors)
        if len(errors) > before or value is None:
            return result
        for bound in self.bounds:
            problem = self._problem(bound, value)
            if problem is not None:
                errors.append(f"{path}: {problem}")
        return FAIL if len(errors) > before else result

    def _problem(self, bound: Bound, value: JsonValue) -> str | None:
        if bound.is_length:
            assert isinstance(value, str | list | dict)
            unit = _LENGTH_KEYWORDS[self.kind][2]
            if bound.keyword == "minLength" and len(value) < bound.value:
                return f"must have at least {bound.value} {unit}, got {len(value)}"
            if bound.keyword == "maxLength" and len(value) > bound.value:
                return f"must have at most {bound.value} {unit}, got {len(value)}"
            return None
        assert isinstance(value, int | float)
        if bound.keyword == "multipleOf":
            if _is_multiple(value, bound.value):
                return None
            return f"must be a multiple of {bound.value:g}, got {_json_repr(value)}"
        holds, symbol = _COMPARISONS[bound.keyword]
        return None if holds(value, bound.value) else f"must be {symbol} {bound.value:g}, got {_json_repr(value)}"


def _is_multiple(value: float, factor: float) -> bool:
    """Exact for whole numbers (``4e16`` as the integer it is) and for floats written in decimal (``0.3`` is
    a multiple of ``0.1``)."""
    if isinstance(factor, int) and (isinstance(value, int) or value.is_integer()):
        return int(value) % factor == 0
    try:
        return decimal.Decimal(repr(value)) % decimal.Decimal(repr(factor)) == 0
    except decimal.InvalidOperation:  # a quotient too large to hold exactly: compare as floats
        quotient = value / factor
        return math.isfinite(quotient) and quotient == math.floor(quotient)


def kind_of(codec: Codec) -> Kind | None:
    """Which JSON values `codec` makes, when it is one a bound can apply to."""
    match codec:
        case ConstrainedCodec(kind=kind):
            return kind
        case IntCodec() | FloatCodec():
            return "number"
        case StrCodec():
            return "string"
        case ListCodec() | FixedTupleCodec():
            return "array"
        case DictCodec():
            return "object"
        case AnyJsonCodec():
            return "array" if codec.kind == "array" else "object"
        case _:
            return None


class ListCodec(Codec):
    def __init__(self, item: Codec, as_tuple: bool) -> None:
        super().__init__()
        self._item = item
        self._tuple = as_tuple

    def _schema(self, form: Form) -> JsonObject:
        return {"type": "array", "items": self._item.schema(form)}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        if not isinstance(value, list):
            return _expected(errors, path, "array", value)
        before = len(errors)
        item = self._item
        out = [item.decode(v, f"{path}[{i}]", errors) for i, v in enumerate(value)]
        if len(errors) > before:
            return FAIL
        return tuple(out) if self._tuple else out


class FixedTupleCodec(Codec):
    def __init__(self, items: tuple[Codec, ...]) -> None:
        super().__init__()
        self._items = items

    def _schema(self, form: Form) -> JsonObject:
        n = len(self._items)
        return {
            "type": "array",
            "prefixItems": [item.schema(form) for item in self._items],
            "items": False,
            "minItems": n,
            "maxItems": n,
        }

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        if not isinstance(value, list):
            return _expected(errors, path, "array", value)
        if len(value) != len(self._items):
            errors.append(f"{path}: expected {len(self._items)} items, got {len(value)}")
            return FAIL
        before = len(errors)
        pairs = enumerate(zip(self._items, value, strict=True))
        out = tuple(codec.decode(item, f"{path}[{i}]", errors) for i, (codec, item) in pairs)
        return FAIL if len(errors) > before else out


class DictCodec(Codec):
    def __init__(self, value: Codec) -> None:
        super().__init__()
        self._value = value

    def _schema(self, form: Form) -> JsonObject:
        return {"type": "object", "additionalProperties": self._value.schema(form)}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        if not isinstance(value, dict):
            return _expected(errors, path, "object", value)
        before = len(errors)
        sub = self._value
        out = {k: sub.decode(v, child_path(path, k), errors) for k, v in value.items()}
        return FAIL if len(errors) > before else out


class ChoiceCodec(Codec):
    """``Literal[...]`` or an ``Enum``: one of a fixed set of JSON scalars."""

    def __init__(self, pairs: list[tuple[JsonValue, object]]) -> None:
        super().__init__()
        self._values = [v for v, _ in pairs]
        # Keyed by (type, value) so that True never matches 1.
        self._by_value = {(type(v), v): member for v, member in pairs}
        self.accepts_none = None in self._values

    def _schema(self, form: Form) -> JsonObject:
        kinds = {json_type_name(v) for v in self._values}
        result: JsonObject = {}
        if len(kinds) == 1:
            result["type"] = kinds.pop()
        result["enum"] = list(self._values)
        return result

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        try:
            member = self._by_value.get((type(value), value), FAIL)
        except TypeError:  # an unhashable value (list, dict) is never a member
            member = FAIL
        if member is FAIL and isinstance(value, int | float) and not isinstance(value, bool):
            # JSON does not tell 1 from 1.0; match the other numeric spelling.
            if isinstance(value, int):
                member = self._by_value.get((float, float(value)), FAIL)
            elif value.is_integer():
                member = self._by_value.get((int, int(value)), FAIL)
        if member is FAIL:
            allowed = ", ".join(_json_repr(v) for v in self._values)
            errors.append(f"{path}: {_json_repr(value)} is not one of {allowed}")
        return member


def _json_repr(value: JsonValue) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


class UnionCodec(Codec):
    def __init__(self, options: tuple[Codec, ...]) -> None:
        super().__init__()
        self._options = options
        self.accepts_none = any(o.accepts_none for o in options)

    def _schema(self, form: Form) -> JsonObject:
        schemas = [o.schema(form) for o in self._options]
        non_null = [s for s in schemas if s != {"type": "null"}]
        if len(non_null) == 1 and len(schemas) == 2:
            return _nullable(non_null[0])
        return {"anyOf": cast(JsonValue, schemas)}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        closest: list[str] | None = None
        for option in self._options:
            attempt: list[str] = []
            result = option.decode(value, path, attempt)
            if not attempt:
                return result
            if closest is None or len(attempt) < len(closest):
                closest = attempt
        # Report the option that came closest (fewest problems), as `validate` does.
        errors.extend(closest or [f"{path}: no option fits"])
        return FAIL


_SCALAR_TYPES = ("string", "integer", "number", "boolean")


def _nullable(schema: JsonObject) -> JsonObject:
    """`schema` that also accepts ``null``: a type list for plain scalars, ``anyOf`` otherwise."""
    kind = schema.get("type")
    if isinstance(kind, str) and kind in _SCALAR_TYPES and "enum" not in schema:
        return {**schema, "type": [kind, "null"]}
    if schema.get("type") == "null":
        return schema
    description = schema.get("description")
    inner = {k: v for k, v in schema.items() if k != "description"}
    result: JsonObject = {"anyOf": [inner, {"type": "null"}]}
    if description is not None:
        result["description"] = description
    return result


@attrs.frozen
class Field:
    key: str
    """The JSON key."""
    arg: str
    """The keyword (or position) it is passed as."""
    codec: Codec
    default: Any
    """The default value, or `FAIL` when the field is required."""
    positional: bool = False


class FieldsCodec(Codec):
    """A JSON object with fixed keys: an attrs class, or the parameters of a tool function."""

    def __init__(self, fields: tuple[Field, ...], build: Callable[[dict[str, Any]], Any], title: str | None) -> None:
        super().__init__()
        self._fields = fields
        self._by_key = {f.key: f for f in fields}
        # Each field with what `child_path` appends to its object's path, worked out once, not per value.
        self._steps = tuple((f, child_path("", f.key)) for f in fields)
        self._build = build
        self._title = title

    @property
    def fields(self) -> tuple[Field, ...]:
        return self._fields

    def _schema(self, form: Form) -> JsonObject:
        properties: JsonObject = {}
        required: list[JsonValue] = []
        for field in self._fields:
            sub = field.codec.schema(form)
            if field.default is not FAIL and form != "plain" and not field.codec.accepts_none:
                sub = _nullable(sub)
            properties[field.key] = sub
            if form == "strict" or field.default is FAIL:
                required.append(field.key)
        result: JsonObject = {}
        if self._title:
            result["title"] = self._title
        result["type"] = "object"
        result["properties"] = properties
        result["required"] = required
        result["additionalProperties"] = False
        return result

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        if not isinstance(value, dict):
            return _expected(errors, path, "object", value)
        before = len(errors)
        kwargs: dict[str, Any] = {}
        for field, step in self._steps:
            raw = value.get(field.key, FAIL)
            if raw is None and field.default is not FAIL and not field.codec.accepts_none:
                raw = FAIL  # null spells "omitted" in the strict schema form
            if raw is FAIL:
                if field.default is FAIL:
                    errors.append(f"{path}{step}: missing required field")
                continue
            kwargs[field.arg] = field.codec.decode(raw, path + step, errors)
        if len(value) > len(kwargs):
            errors.extend(f"{child_path(path, key)}: unexpected field" for key in value if key not in self._by_key)
        if len(errors) > before:
            return FAIL
        try:
            return self._build(kwargs)
        except (TypeError, ValueError) as exc:  # an attrs validator or converter refused the value
            errors.append(f"{path}: {exc}")
            return FAIL
