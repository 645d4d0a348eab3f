"""Compiling a Python type into a codec (`compile_codec`, cached per type): the type rules of `type_schema`.

Private to the shell: `type_schema` is the public face.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import enum
import inspect
import itertools
import textwrap
import threading
import types
from collections.abc import Callable, Mapping
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

import attrs
from typing_extensions import is_typeddict

from ...core import JsonValue
from ._type_codecs import (
    FAIL,
    FORMATS,
    AnyJsonCodec,
    BoolCodec,
    ChoiceCodec,
    Codec,
    ConstrainedCodec,
    DictCodec,
    Field,
    FieldsCodec,
    FixedTupleCodec,
    FloatCodec,
    IntCodec,
    Kind,
    ListCodec,
    Missing,
    NullCodec,
    StrCodec,
    UnionCodec,
    child_path,
    kind_of,
)
from .type_constraints import Bound, read_metadata

# ---------------------------------------------------------------------------------------------
# Compiling a type into a codec.

_cache: dict[object, Codec] = {}
_cache_lock = threading.Lock()


def compile_codec(tp: object, localns: Mapping[str, Any] | None = None) -> Codec:
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

    def compile(self, tp: object, where: str) -> Codec:
        origin = get_origin(tp)
        args = get_args(tp)
        if origin is Annotated:
            return self._annotated(args[0], tp.__metadata__, where)  # type: ignore[attr-defined]
        if tp in FORMATS:
            return FORMATS[tp]
        if tp is str:
            return StrCodec()
        if tp is bool:
            return BoolCodec()
        if tp is int:
            return IntCodec()
        if tp is float:
            return FloatCodec()
        if tp is None or tp is type(None):
            return NullCodec()
        if tp is list:
            return AnyJsonCodec("array")
        if tp is dict:
            return AnyJsonCodec("object")
        if origin is Union or origin is types.UnionType:
            return UnionCodec(tuple(self.compile(a, where) for a in args))
        if origin is Literal:
            return ChoiceCodec([(self._literal_value(a, tp, where), a) for a in args])
        if origin is list:
            if len(args) != 1:
                raise _unsupported(tp, where)
            return ListCodec(self.compile(args[0], f"{where}[]"), as_tuple=False)
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return ListCodec(self.compile(args[0], f"{where}[]"), as_tuple=True)
            if not args or Ellipsis in args or args == ((),):
                raise _unsupported(tp, where)
            return FixedTupleCodec(tuple(self.compile(a, f"{where}[{i}]") for i, a in enumerate(args)))
        if origin is dict:
            if len(args) != 2 or args[0] is not str:
                raise TypeError(
                    f"unsupported type {type_repr(tp)} at {where}: JSON object keys are strings, use dict[str, X]"
                )
            return DictCodec(self.compile(args[1], f"{where}{{}}"))
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return self._enum(tp, where)
        if isinstance(tp, type) and (attrs.has(tp) or dataclasses.is_dataclass(tp) or is_typeddict(tp)):
            return self._class(tp, where)
        raise _unsupported(tp, where)

    def _annotated(self, tp: object, metadata: tuple[object, ...], where: str) -> Codec:
        """``Annotated[X, ...]``: `X` with the description and the bounds its metadata gives."""
        description, bounds = read_metadata(metadata, where)
        codec = self.compile(tp, where)
        if bounds:
            codec = ConstrainedCodec(codec, _bounded_kind(codec, tp, bounds, where), bounds)
        return described(codec, description)

    @staticmethod
    def _literal_value(value: object, tp: object, where: str) -> JsonValue:
        if value is None or isinstance(value, str | int | bool):
            return value
        raise TypeError(f"unsupported type {type_repr(tp)} at {where}: Literal values must be str, int, bool or None")

    @staticmethod
    def _enum(tp: type[enum.Enum], where: str) -> Codec:
        pairs: list[tuple[JsonValue, object]] = []
        for member in tp:
            if not (member.value is None or isinstance(member.value, str | int | float | bool)):
                raise TypeError(
                    f"unsupported type {tp.__name__} at {where}: enum values must be str, int, float, bool or None, "
                    f"{tp.__name__}.{member.name} is {member.value!r}"
                )
            pairs.append((member.value, member))
        return ChoiceCodec(pairs)

    def _class(self, tp: type, where: str) -> Codec:
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
            fields: list[Field] = []
            for spec in _field_specs(tp, hints):
                if spec.name not in hints:
                    raise TypeError(f"field {tp.__name__}.{spec.name} at {where} has no type annotation")
                codec = self.compile(_unwrap_required(hints[spec.name]), child_path(where, spec.name))
                # A description given for the field wins over one its type carries (a class docstring).
                codec = described(codec, spec.description or docs.get(spec.name))
                fields.append(Field(spec.name, spec.arg, codec, spec.default))
        finally:
            self._active.discard(tp)
        summary = _summary(tp.__doc__) if tp.__doc__ and not _is_attrs_generated_doc(tp) else None
        build: Callable[[dict[str, Any]], Any] = dict if is_typeddict(tp) else lambda kwargs: tp(**kwargs)
        codec = FieldsCodec(tuple(fields), build, tp.__name__)
        return described(codec, summary)


def _bounded_kind(codec: Codec, tp: object, bounds: tuple[Bound, ...], where: str) -> Kind:
    """What `bounds` constrain in `codec`'s values; `TypeError` when one cannot apply to them."""
    kind = kind_of(codec)
    for bound in bounds:
        if kind is None or (kind == "number") == bound.is_length:
            what = (
                "a length bounds a str, list, tuple or dict" if bound.is_length else "a bound applies to int and float"
            )
            raise TypeError(
                f"unsupported constraint {bound.keyword}={bound.value!r} at {where}: {type_repr(tp)} cannot have it "
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
    """`FAIL` when the field is required; anything else means it may be left out."""
    description: str | None


_OMITTED: Any = Missing()
"""The default of a TypedDict key that is not required: when absent, it stays absent."""


def _field_specs(tp: type, hints: Mapping[str, object]) -> list[_FieldSpec]:
    """The fields of an attrs class, a dataclass or a TypedDict (only those its constructor takes)."""
    if attrs.has(tp):
        return [
            _FieldSpec(a.name, a.alias or a.name, FAIL if a.default is attrs.NOTHING else a.default, _meta(a.metadata))
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
        _FieldSpec(key, key, FAIL if _is_required_key(tp, key, hint) else _OMITTED, None) for key, hint in hints.items()
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
    return FAIL


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


def described(codec: Codec, description: str | None) -> Codec:
    """`codec` with `description` set; codecs are shared through the cache, so this copies."""
    if not description:
        return codec
    clone = copy.copy(codec)
    clone.description = description
    return clone


def _unsupported(tp: object, where: str) -> TypeError:
    return TypeError(
        f"unsupported type {type_repr(tp)} at {where}: supported are str, int, float, bool, None, list[X], "
        "tuple[X, ...], tuple[X, Y], dict[str, X], X | Y, Literal[...], Enum, datetime, date, time, UUID, "
        "attrs classes, dataclasses and TypedDicts (and Annotated[X, ...] of these)"
    )


def type_repr(tp: object) -> str:
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
