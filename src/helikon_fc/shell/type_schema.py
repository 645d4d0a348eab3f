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

import ast
import copy
import dataclasses
import datetime
import decimal
import enum
import inspect
import itertools
import json
import math
import re
import textwrap
import threading
import types
import uuid
from collections.abc import Callable, Mapping
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Required,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
    overload,
)

import attrs
from typing_extensions import is_typeddict

from ..core import JsonObject, JsonValue, OutputSchema, strict_schema
from ..core.schema import json_type_name
from .type_constraints import Bound, read_metadata

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


class DecodeError(ValueError):
    """A JSON value did not fit the type it was decoded into; `errors` holds one ``path: problem`` line each."""

    def __init__(self, type_name: str, errors: tuple[str, ...]) -> None:
        self.type_name = type_name
        self.errors = errors
        super().__init__(f"cannot decode {type_name}: " + "; ".join(errors))


class _Missing:
    """Marks a failed decode (the problem was recorded) or an absent value."""


_FAIL: Any = _Missing()


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{json.dumps(key)}]"


# ---------------------------------------------------------------------------------------------
# Codecs: one per type, each knows its schema and how to decode a JSON value into the type.


_Form = Literal["plain", "strict", "output"]
"""Which schema a codec writes for a field with a default:

- ``plain``: optional (left out of ``required``), of its own type;
- ``strict``: required but nullable (OpenAI's strict form; ``null`` means the default);
- ``output``: optional *and* nullable, what a structured answer is checked against. A provider sends it
  in strict form (`strict_schema` makes every key required), so a strict model sends ``null`` and a
  model that is not held to the schema may leave the field out; either way the default applies.
"""


class _Codec:
    """Schema and decoder for one type; see `_Form` for how fields with defaults are written."""

    accepts_none: bool = False

    def __init__(self) -> None:
        self.description: str | None = None

    def schema(self, form: _Form) -> JsonObject:
        result = self._schema(form)
        if self.description:
            result["description"] = self.description
        return result

    def _schema(self, form: _Form) -> JsonObject:
        raise NotImplementedError

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        """The decoded value, or `_FAIL` after appending the problems to `errors`."""
        raise NotImplementedError


def _expected(errors: list[str], path: str, expected: str, value: JsonValue) -> Any:
    errors.append(f"{path}: expected {expected}, got {json_type_name(value)}")
    return _FAIL


class _Str(_Codec):
    def _schema(self, form: _Form) -> JsonObject:
        return {"type": "string"}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        return value if isinstance(value, str) else _expected(errors, path, "string", value)


class _Int(_Codec):
    def _schema(self, form: _Form) -> JsonObject:
        return {"type": "integer"}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return _expected(errors, path, "integer", value)


class _Float(_Codec):
    def _schema(self, form: _Form) -> JsonObject:
        return {"type": "number"}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool):
            if math.isfinite(value):
                return float(value)
            errors.append(f"{path}: expected a finite number, got {value}")
            return _FAIL
        return _expected(errors, path, "number", value)


class _Bool(_Codec):
    def _schema(self, form: _Form) -> JsonObject:
        return {"type": "boolean"}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        return value if isinstance(value, bool) else _expected(errors, path, "boolean", value)


class _Null(_Codec):
    accepts_none = True

    def _schema(self, form: _Form) -> JsonObject:
        return {"type": "null"}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        return None if value is None else _expected(errors, path, "null", value)


class _AnyJson(_Codec):
    """Bare ``list`` or ``dict``: any JSON array or object, passed through as it is."""

    def __init__(self, kind: Literal["array", "object"]) -> None:
        super().__init__()
        self.kind = kind

    def _schema(self, form: _Form) -> JsonObject:
        return {"type": self.kind}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        ok = isinstance(value, list) if self.kind == "array" else isinstance(value, dict)
        return value if ok else _expected(errors, path, self.kind, value)


class _Formatted(_Codec):
    """A string in a standard format, decoded into its Python type: ``datetime``, ``date``, ``time``, ``UUID``."""

    def __init__(self, fmt: str, parse: Callable[[str], object], what: str) -> None:
        super().__init__()
        self._format = fmt
        self._parse = parse
        self._what = what

    def _schema(self, form: _Form) -> JsonObject:
        return {"type": "string", "format": self._format}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        if not isinstance(value, str):
            return _expected(errors, path, f"string ({self._what})", value)
        try:
            return self._parse(value)
        except ValueError:
            errors.append(f"{path}: expected {self._what}, got {_json_repr(value)}")
            return _FAIL


_FORMATS: dict[object, _Formatted] = {
    datetime.datetime: _Formatted("date-time", datetime.datetime.fromisoformat, "an ISO 8601 date-time"),
    datetime.date: _Formatted("date", datetime.date.fromisoformat, "an ISO 8601 date"),
    datetime.time: _Formatted("time", datetime.time.fromisoformat, "an ISO 8601 time"),
    uuid.UUID: _Formatted("uuid", uuid.UUID, "a UUID"),
}

_Kind = Literal["number", "string", "array", "object"]

_LENGTH_KEYWORDS: dict[_Kind, tuple[str, str, str]] = {
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


class _Constrained(_Codec):
    """Another codec's values, bounded: ``Annotated[int, Ge(0)]``, ``Annotated[list[str], MaxLen(3)]``, ..."""

    def __init__(self, inner: _Codec, kind: _Kind, bounds: tuple[Bound, ...]) -> None:
        super().__init__()
        self.inner = inner
        self.kind = kind
        self.bounds = bounds
        self.accepts_none = inner.accepts_none

    def _schema(self, form: _Form) -> JsonObject:
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
        return _FAIL if len(errors) > before else result

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


def _kind_of(codec: _Codec) -> _Kind | None:
    """Which JSON values `codec` makes, when it is one a bound can apply to."""
    match codec:
        case _Constrained(kind=kind):
            return kind
        case _Int() | _Float():
            return "number"
        case _Str():
            return "string"
        case _List() | _FixedTuple():
            return "array"
        case _Dict():
            return "object"
        case _AnyJson():
            return "array" if codec.kind == "array" else "object"
        case _:
            return None


class _List(_Codec):
    def __init__(self, item: _Codec, as_tuple: bool) -> None:
        super().__init__()
        self._item = item
        self._tuple = as_tuple

    def _schema(self, form: _Form) -> JsonObject:
        return {"type": "array", "items": self._item.schema(form)}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        if not isinstance(value, list):
            return _expected(errors, path, "array", value)
        before = len(errors)
        item = self._item
        out = [item.decode(v, f"{path}[{i}]", errors) for i, v in enumerate(value)]
        if len(errors) > before:
            return _FAIL
        return tuple(out) if self._tuple else out


class _FixedTuple(_Codec):
    def __init__(self, items: tuple[_Codec, ...]) -> None:
        super().__init__()
        self._items = items

    def _schema(self, form: _Form) -> JsonObject:
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
            return _FAIL
        before = len(errors)
        pairs = enumerate(zip(self._items, value, strict=True))
        out = tuple(codec.decode(item, f"{path}[{i}]", errors) for i, (codec, item) in pairs)
        return _FAIL if len(errors) > before else out


class _Dict(_Codec):
    def __init__(self, value: _Codec) -> None:
        super().__init__()
        self._value = value

    def _schema(self, form: _Form) -> JsonObject:
        return {"type": "object", "additionalProperties": self._value.schema(form)}

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        if not isinstance(value, dict):
            return _expected(errors, path, "object", value)
        before = len(errors)
        sub = self._value
        out = {k: sub.decode(v, _child(path, k), errors) for k, v in value.items()}
        return _FAIL if len(errors) > before else out


class _Choice(_Codec):
    """``Literal[...]`` or an ``Enum``: one of a fixed set of JSON scalars."""

    def __init__(self, pairs: list[tuple[JsonValue, object]]) -> None:
        super().__init__()
        self._values = [v for v, _ in pairs]
        # Keyed by (type, value) so that True never matches 1.
        self._by_value = {(type(v), v): member for v, member in pairs}
        self.accepts_none = None in self._values

    def _schema(self, form: _Form) -> JsonObject:
        kinds = {json_type_name(v) for v in self._values}
        result: JsonObject = {}
        if len(kinds) == 1:
            result["type"] = kinds.pop()
        result["enum"] = list(self._values)
        return result

    def decode(self, value: JsonValue, path: str, errors: list[str]) -> Any:
        try:
            member = self._by_value.get((type(value), value), _FAIL)
        except TypeError:  # an unhashable value (list, dict) is never a member
            member = _FAIL
        if member is _FAIL and isinstance(value, int | float) and not isinstance(value, bool):
            # JSON does not tell 1 from 1.0; match the other numeric spelling.
            if isinstance(value, int):
                member = self._by_value.get((float, float(value)), _FAIL)
            elif value.is_integer():
                member = self._by_value.get((int, int(value)), _FAIL)
        if member is _FAIL:
            allowed = ", ".join(_json_repr(v) for v in self._values)
            errors.append(f"{path}: {_json_repr(value)} is not one of {allowed}")
        return member


def _json_repr(value: JsonValue) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


class _Union(_Codec):
    def __init__(self, options: tuple[_Codec, ...]) -> None:
        super().__init__()
        self._options = options
        self.accepts_none = any(o.accepts_none for o in options)

    def _schema(self, form: _Form) -> JsonObject:
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
        return _FAIL


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
class _Field:
    key: str
    """The JSON key."""
    arg: str
    """The keyword (or position) it is passed as."""
    codec: _Codec
    default: Any
    """The default value, or `_FAIL` when the field is required."""
    positional: bool = False


class _Fields(_Codec):
    """A JSON object with fixed keys: an attrs class, or the parameters of a tool function."""

    def __init__(self, fields: tuple[_Field, ...], build: Callable[[dict[str, Any]], Any], title: str | None) -> None:
        super().__init__()
        self._fields = fields
        self._by_key = {f.key: f for f in fields}
        self._build = build
        self._title = title

    @property
    def fields(self) -> tuple[_Field, ...]:
        return self._fields

    def _schema(self, form: _Form) -> JsonObject:
        properties: JsonObject = {}
        required: list[JsonValue] = []
        for field in self._fields:
            sub = field.codec.schema(form)
            if field.default is not _FAIL and form != "plain" and not field.codec.accepts_none:
                sub = _nullable(sub)
            properties[field.key] = sub
            if form == "strict" or field.default is _FAIL:
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
        for field in self._fields:
            raw = value.get(field.key, _FAIL)
            if raw is None and field.default is not _FAIL and not field.codec.accepts_none:
                raw = _FAIL  # null spells "omitted" in the strict schema form
            if raw is _FAIL:
                if field.default is _FAIL:
                    errors.append(f"{_child(path, field.key)}: missing required field")
                continue
            kwargs[field.arg] = field.codec.decode(raw, _child(path, field.key), errors)
        if len(value) > len(kwargs):
            errors.extend(f"{_child(path, key)}: unexpected field" for key in value if key not in self._by_key)
        if len(errors) > before:
            return _FAIL
        try:
            return self._build(kwargs)
        except (TypeError, ValueError) as exc:  # an attrs validator or converter refused the value
            errors.append(f"{path}: {exc}")
            return _FAIL


# ---------------------------------------------------------------------------------------------
# Compiling a type into a codec.

_cache: dict[object, _Codec] = {}
_cache_lock = threading.Lock()


def _compile(tp: object, localns: Mapping[str, Any] | None = None) -> _Codec:
    """The codec of `tp`, cached; `localns` helps resolve string annotations of classes defined in a function."""
    try:
        cached = _cache.get(tp)
    except TypeError:  # an unhashable annotation; compile it afresh
        return _Compiler(localns).compile(tp, "$")
    if cached is not None:
        return cached
    codec = _Compiler(localns).compile(tp, "$")
    with _cache_lock:
        _cache[tp] = codec
    return codec


class _Compiler:
    __slots__ = ("_active", "_localns")

    def __init__(self, localns: Mapping[str, Any] | None = None) -> None:
        self._active: set[type] = set()
        self._localns = dict(localns) if localns else None

    def compile(self, tp: object, where: str) -> _Codec:
        origin = get_origin(tp)
        args = get_args(tp)
        if origin is Annotated:
            return self._annotated(args[0], tp.__metadata__, where)  # type: ignore[attr-defined]
        if tp in _FORMATS:
            return _FORMATS[tp]
        if tp is str:
            return _Str()
        if tp is bool:
            return _Bool()
        if tp is int:
            return _Int()
        if tp is float:
            return _Float()
        if tp is None or tp is type(None):
            return _Null()
        if tp is list:
            return _AnyJson("array")
        if tp is dict:
            return _AnyJson("object")
        if origin is Union or origin is types.UnionType:
            return _Union(tuple(self.compile(a, where) for a in args))
        if origin is Literal:
            return _Choice([(self._literal_value(a, tp, where), a) for a in args])
        if origin is list:
            if len(args) != 1:
                raise _unsupported(tp, where)
            return _List(self.compile(args[0], f"{where}[]"), as_tuple=False)
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return _List(self.compile(args[0], f"{where}[]"), as_tuple=True)
            if not args or Ellipsis in args or args == ((),):
                raise _unsupported(tp, where)
            return _FixedTuple(tuple(self.compile(a, f"{where}[{i}]") for i, a in enumerate(args)))
        if origin is dict:
            if len(args) != 2 or args[0] is not str:
                raise TypeError(
                    f"unsupported type {_type_repr(tp)} at {where}: JSON object keys are strings, use dict[str, X]"
                )
            return _Dict(self.compile(args[1], f"{where}{{}}"))
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return self._enum(tp, where)
        if isinstance(tp, type) and (attrs.has(tp) or dataclasses.is_dataclass(tp) or is_typeddict(tp)):
            return self._class(tp, where)
        raise _unsupported(tp, where)

    def _annotated(self, tp: object, metadata: tuple[object, ...], where: str) -> _Codec:
        """``Annotated[X, ...]``: `X` with the description and the bounds its metadata gives."""
        description, bounds = read_metadata(metadata, where)
        codec = self.compile(tp, where)
        if bounds:
            codec = _Constrained(codec, _bounded_kind(codec, tp, bounds, where), bounds)
        return _described(codec, description)

    @staticmethod
    def _literal_value(value: object, tp: object, where: str) -> JsonValue:
        if value is None or isinstance(value, str | int | bool):
            return value
        raise TypeError(f"unsupported type {_type_repr(tp)} at {where}: Literal values must be str, int, bool or None")

    @staticmethod
    def _enum(tp: type[enum.Enum], where: str) -> _Codec:
        pairs: list[tuple[JsonValue, object]] = []
        for member in tp:
            if not (member.value is None or isinstance(member.value, str | int | float | bool)):
                raise TypeError(
                    f"unsupported type {tp.__name__} at {where}: enum values must be str, int, float, bool or None, "
                    f"{tp.__name__}.{member.name} is {member.value!r}"
                )
            pairs.append((member.value, member))
        return _Choice(pairs)

    def _class(self, tp: type, where: str) -> _Codec:
        """An attrs class, a dataclass or a TypedDict: a closed object of its fields, inlined."""
        if tp in self._active:
            raise TypeError(f"unsupported type {tp.__name__} at {where}: recursive classes cannot be inlined")
        self._active.add(tp)
        try:
            try:
                hints = get_type_hints(tp, localns=self._localns, include_extras=True)
            except Exception as exc:
                raise TypeError(f"cannot resolve the annotations of {tp.__name__} at {where}: {exc}") from exc
            docs = _attribute_docs(tp)
            fields: list[_Field] = []
            for spec in _field_specs(tp, hints):
                if spec.name not in hints:
                    raise TypeError(f"field {tp.__name__}.{spec.name} at {where} has no type annotation")
                codec = self.compile(_unwrap_required(hints[spec.name]), _child(where, spec.name))
                # A description given for the field wins over one its type carries (a class docstring).
                codec = _described(codec, spec.description or docs.get(spec.name))
                fields.append(_Field(spec.name, spec.arg, codec, spec.default))
        finally:
            self._active.discard(tp)
        summary = _summary(tp.__doc__) if tp.__doc__ and not _is_attrs_generated_doc(tp) else None
        build: Callable[[dict[str, Any]], Any] = dict if is_typeddict(tp) else lambda kwargs: tp(**kwargs)
        codec = _Fields(tuple(fields), build, tp.__name__)
        return _described(codec, summary)


def _bounded_kind(codec: _Codec, tp: object, bounds: tuple[Bound, ...], where: str) -> _Kind:
    """What `bounds` constrain in `codec`'s values; `TypeError` when one cannot apply to them."""
    kind = _kind_of(codec)
    for bound in bounds:
        if kind is None or (kind == "number") == bound.is_length:
            what = (
                "a length bounds a str, list, tuple or dict" if bound.is_length else "a bound applies to int and float"
            )
            raise TypeError(
                f"unsupported constraint {bound.keyword}={bound.value!r} at {where}: {_type_repr(tp)} cannot have it "
                f"({what}; in a union, annotate the member: Annotated[int, Ge(0)] | None)"
            )
    assert kind is not None
    return kind


@attrs.frozen
class _FieldSpec:
    """One field of a class as the schema needs it."""

    name: str
    arg: str
    """The keyword its constructor takes it by."""
    default: Any
    """`_FAIL` when the field is required; anything else means it may be left out."""
    description: str | None


_OMITTED: Any = _Missing()
"""The default of a TypedDict key that is not required: when absent, it stays absent."""


def _field_specs(tp: type, hints: Mapping[str, object]) -> list[_FieldSpec]:
    """The fields of an attrs class, a dataclass or a TypedDict (only those its constructor takes)."""
    if attrs.has(tp):
        return [
            _FieldSpec(a.name, a.alias or a.name, _FAIL if a.default is attrs.NOTHING else a.default, _meta(a.metadata))
            for a in attrs.fields(tp)
            if a.init
        ]
    if dataclasses.is_dataclass(tp):
        return [
            _FieldSpec(f.name, f.name, _dataclass_default(f), _meta(f.metadata))
            for f in dataclasses.fields(tp)
            if f.init
        ]
    return [
        _FieldSpec(key, key, _FAIL if _is_required_key(tp, key, hint) else _OMITTED, None)
        for key, hint in hints.items()
    ]


def _is_required_key(tp: type, key: str, hint: object) -> bool:
    """Whether a TypedDict must have `key`. The resolved hint decides first: under ``from __future__ import
    annotations`` the class cannot see ``NotRequired`` inside its string annotations when it is made."""
    origin = get_origin(hint)
    if origin is Required or origin is NotRequired:
        return origin is Required
    return key in getattr(tp, "__required_keys__", frozenset())


def _dataclass_default(field: dataclasses.Field[Any]) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory  # only marks the field optional: the constructor calls the factory
    return _FAIL


def _meta(metadata: Mapping[Any, Any] | None) -> str | None:
    description = metadata.get("description") if isinstance(metadata, Mapping) else None
    return description if isinstance(description, str) else None


def _unwrap_required(tp: object) -> object:
    """``Required[X]`` / ``NotRequired[X]`` (TypedDict keys) as ``X``: `__required_keys__` already says which."""
    while get_origin(tp) in (Required, NotRequired):
        tp = get_args(tp)[0]
    return tp


def _is_attrs_generated_doc(tp: type) -> bool:
    doc = tp.__doc__ or ""
    return doc.startswith(f"{tp.__name__}(")


def _described(codec: _Codec, description: str | None) -> _Codec:
    """`codec` with `description` set; codecs are shared through the cache, so this copies."""
    if not description:
        return codec
    clone = copy.copy(codec)
    clone.description = description
    return clone


def _unsupported(tp: object, where: str) -> TypeError:
    return TypeError(
        f"unsupported type {_type_repr(tp)} at {where}: supported are str, int, float, bool, None, list[X], "
        "tuple[X, ...], tuple[X, Y], dict[str, X], X | Y, Literal[...], Enum, datetime, date, time, UUID, "
        "attrs classes, dataclasses and TypedDicts (and Annotated[X, ...] of these)"
    )


def _type_repr(tp: object) -> str:
    if isinstance(tp, type) and not get_args(tp):
        return tp.__name__
    return repr(tp).replace("typing.", "")


def _summary(doc: str | None) -> str:
    """The first paragraph of a docstring, on one line."""
    if not doc:
        return ""
    text = inspect.cleandoc(doc)
    return " ".join(text.split("\n\n", 1)[0].split())


def _attribute_docs(tp: type) -> dict[str, str]:
    """Attribute docstrings (a string literal right after ``name: T``) of a class, read from its source."""
    try:
        source = textwrap.dedent(inspect.getsource(tp))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return {}
    cls = next((node for node in tree.body if isinstance(node, ast.ClassDef)), None)
    if cls is None:
        return {}
    docs: dict[str, str] = {}
    body = cls.body
    for node, following in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[node.target.id] = " ".join(inspect.cleandoc(following.value.value).split())
    return docs


# ---------------------------------------------------------------------------------------------
# The parameters of a function, as one object schema (used by `function_tool`).

REQUIRED: Any = _FAIL
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

    def __init__(self, codec: _Fields, positional: tuple[_Field, ...]) -> None:
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
    fields: list[_Field] = []
    for param in params:
        try:
            codec = _compile(param.annotation, localns)
        except TypeError as exc:
            raise TypeError(f"tool {owner!r}, parameter {param.name!r}: {exc}") from None
        codec = _described(codec, param.description)
        fields.append(_Field(param.name, param.name, codec, param.default, positional=param.positional_only))
    positional = tuple(f for f in fields if f.positional)
    return ParametersCodec(_Fields(tuple(fields), _identity, None), positional)


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
    return _compile(tp).schema("plain")


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
            problems.extend(strict_problems(sub, _child(path, key)))
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
    schema = strict_schema(_compile(tp).schema("strict"))
    problems = strict_problems(schema, where)
    if problems:
        raise TypeError(f"{_type_repr(tp)} cannot be sent in strict mode: " + "; ".join(problems))
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
    codec = _compile(tp)
    name = _schema_name(tp)
    wrapped_type = not isinstance(codec, _Fields)
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
        raw = _type_repr(tp)
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", raw).strip("_")
    return name[:64] or "StructuredOutput"


def _is_wrapped(codec: _Codec, value: JsonValue) -> bool:
    """Whether `value` may be the ``{"value": ...}`` wrapper `output_schema_for` puts around a non-class type."""
    return not isinstance(codec, _Fields) and isinstance(value, dict) and len(value) == 1 and _WRAPPER_KEY in value


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
    codec = _compile(tp)
    errors: list[str] = []
    result = codec.decode(value, "$", errors)
    if errors and _is_wrapped(codec, value):
        assert isinstance(value, dict)
        errors = []
        result = codec.decode(value[_WRAPPER_KEY], f"$.{_WRAPPER_KEY}", errors)
    if errors:
        raise DecodeError(_type_repr(tp), tuple(errors))
    return result
