"""A JSON Schema compiled once and checked many times: every keyword of draft 2020-12, never any IO.

The checking itself is `jsonschema_rs` (a compiled validator that passes the official test suite):
`compile_schema` builds it once per schema, with a retriever that refuses every fetch, so a remote
``$ref`` is refused when the schema is compiled, like an unresolvable ``$ref``, an uncompilable
``pattern`` or a keyword holding the wrong kind of value. `CompiledSchema.errors` is total: values
that are not JSON (a NaN, a non-string key, bytes) get a message where the schema looks at them, and
under a schema that can recurse values nested deeper than `MAX_DEPTH` are refused with a message:
never an exception, never a stack overflow in the native code.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Iterable, Iterator
from typing import NoReturn, cast, final

import jsonschema_rs

from .json_value import JsonValue
from .schema_messages import json_path, messages

MAX_DEPTH = 200
"""The deepest nesting of arrays and objects checked under a schema that can recurse (deeper is refused)."""


class SchemaError(ValueError):
    """A JSON Schema that cannot be used: not a schema, a keyword of the wrong form, or a ``$ref`` that does
    not resolve inside the schema (remote references are never fetched)."""


@final
class CompiledSchema:
    """A schema ready to check values against; build one with `compile_schema`. Immutable."""

    __slots__ = ("_recursive", "_text", "_validator")

    _validator: jsonschema_rs.Validator
    _recursive: bool
    _text: str

    def __init__(self, validator: jsonschema_rs.Validator, recursive: bool, text: str) -> None:
        object.__setattr__(self, "_validator", validator)
        object.__setattr__(self, "_recursive", recursive)
        object.__setattr__(self, "_text", text)

    def __copy__(self) -> CompiledSchema:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> CompiledSchema:
        return self

    def __reduce__(self) -> tuple[Callable[[str], CompiledSchema], tuple[str]]:
        return _compile_text, (self._text,)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"CompiledSchema is immutable (cannot set {name!r})")

    def __repr__(self) -> str:
        return "CompiledSchema(...)"

    def errors(self, value: JsonValue, path: str = "$") -> list[str]:
        """Every way `value` fails to fit, as ``path: problem`` messages; empty when it fits. Never raises.

        A schema that can recurse (a ``$ref`` cycle, an anchor, ``$dynamicRef``) would make the native
        code recurse as deep as the value, so the value is walked first: deeper than `MAX_DEPTH`, a NaN,
        a non-string key or a non-JSON object gets one message. Other schemas go straight to the native
        code, whose own recursion is bounded by the schema; when the value fails there, the same walk
        names such a fault instead (a NaN fails every check, and would be shown as null).
        """
        if self._recursive and not _plain_json(value):
            unfit = _not_json(value, path)
            if unfit is not None:
                return [unfit]
        try:
            if self._validator.is_valid(value):
                return []
        except Exception:  # the native code reports a value it cannot read as ValueError
            pass
        unfit = _not_json(value, path)  # a NaN fails every check: say why, not "got null"
        if unfit is not None:
            return [unfit]
        try:
            return messages(self._validator.iter_errors(value), path)
        except Exception as exc:
            return [f"{path}: cannot be checked ({exc})"]


def compile_schema(schema: JsonValue) -> CompiledSchema:
    """Compile `schema` (a JSON object or a boolean) for checking.

    The last 128 schemas compiled are remembered by their JSON text (``json.dumps`` writes ``true`` and
    ``1`` apart, so equal text means the same schema), so building the same schema again (a handoff's
    tool definition on every turn, `validate` with a dict) costs one ``json.dumps``.

    Raises:
        SchemaError: `schema` is not a valid JSON Schema, one of its ``$ref`` does not resolve inside it
            (a remote reference is never fetched), or one of its ``pattern`` is not a regular expression.
    """
    if not isinstance(schema, dict | bool):
        raise SchemaError(f"a JSON Schema is an object or a boolean, got {type(schema).__name__}")
    try:
        text = json.dumps(schema, ensure_ascii=False, allow_nan=False)
    except (ValueError, TypeError, RecursionError) as exc:  # a NaN, a non-JSON object, too deep
        raise SchemaError(_not_json(schema, "schema") or f"schema: not JSON ({type(exc).__name__})") from None
    return _compile_text(text)


@functools.lru_cache(maxsize=128)
def _compile_text(text: str) -> CompiledSchema:
    """Compile the schema `text` holds (JSON text keeps ``true`` apart from ``1``, so it is a safe key)."""
    schema: dict[str, JsonValue] | bool = json.loads(text)  # compile_schema passes objects and booleans only
    refused: list[str] = []

    def refuse(uri: str) -> NoReturn:
        refused.append(uri)
        raise SchemaError(f"remote references are never fetched ({uri})")

    try:
        validator = jsonschema_rs.validator_for(schema, retriever=refuse)
    except Exception as exc:  # jsonschema_rs.ValidationError, ReferencingError or ValueError
        if refused:
            raise SchemaError(f"invalid JSON Schema: {_refused(schema, refused[0])}") from None
        raise SchemaError(f"invalid JSON Schema: {_first_line(exc)}") from None
    return CompiledSchema(validator, _may_recurse(schema), text)


def _refused(schema: JsonValue, uri: str) -> str:
    meta = schema.get("$schema") if isinstance(schema, dict) else None
    if isinstance(meta, str) and meta.rstrip("#") == uri.rstrip("#"):
        return f"$schema {uri!r} is not a meta-schema known offline (remote documents are never fetched)"
    return f"$ref to {uri!r}, which is not inside the schema (remote references are never fetched)"


_SCOPE_KEYWORDS = frozenset(["$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "$recursiveAnchor"])


def _may_recurse(schema: JsonValue) -> bool:
    """Whether checking against `schema` may recurse with the value: a cycle of ``#/...`` references, or any
    anchor, dynamic reference or nested ``$id`` (which this conservative reading does not follow)."""
    targets: dict[int, JsonValue] = {}
    edges: dict[int, list[int]] = {}
    stack: list[tuple[JsonValue, int | None]] = [(schema, None)]
    while stack:
        node, parent = stack.pop()
        if not isinstance(node, dict | list):
            continue
        targets[id(node)] = node
        if parent is not None:
            edges.setdefault(parent, []).append(id(node))
        if isinstance(node, dict):
            if any(key in node for key in _SCOPE_KEYWORDS) and node is not schema:
                return True
            ref = node.get("$ref")
            if isinstance(ref, str):
                target = _pointer(schema, ref)
                if target is None:
                    return True
                edges.setdefault(id(node), []).append(id(target))
            stack.extend((sub, id(node)) for sub in node.values())
        else:
            stack.extend((sub, id(node)) for sub in node)
    return _has_cycle(edges)


def _pointer(root: JsonValue, ref: str) -> JsonValue | None:
    """The node a ``#`` or ``#/a/b`` reference names in `root` (a dict or list), or `None` for any other form."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node = root
    for part in ref[2:].split("/"):
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node if isinstance(node, dict | list) else None


def _has_cycle(edges: dict[int, list[int]]) -> bool:
    """Depth-first search for a back edge, iteratively (white/grey/black marking)."""
    state: dict[int, int] = {}
    for start in edges:
        if state.get(start):
            continue
        path: list[tuple[int, Iterator[int]]] = [(start, iter(edges.get(start, ())))]
        state[start] = 1
        while path:
            node, children = path[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                path.pop()
            elif state.get(child) == 1:
                return True
            elif not state.get(child):
                state[child] = 1
                path.append((child, iter(edges.get(child, ()))))
    return False


def _first_line(exc: Exception) -> str:
    """The reason, and where in the schema when the schema broke a rule of the meta-schema."""
    text = exc.message if isinstance(exc, jsonschema_rs.ValidationError) else str(exc)
    reason = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    if isinstance(exc, jsonschema_rs.ValidationError) and exc.instance_path:
        return f"{json_path('schema', exc.instance_path)}: {reason}"
    return reason


_SCALARS = (str, int, bool, type(None))


def _plain_json(value: object) -> bool:
    """The fast, common answer: `value` is built of exact JSON types only, finite, within `MAX_DEPTH`.

    `False` sends the value to `_not_json`, which also accepts subclasses (a str enum) and names the fault.
    """
    kind = type(value)
    if kind is not dict and kind is not list:
        return kind in _SCALARS or (kind is float and math.isfinite(cast(float, value)))
    stack: list[tuple[object, int]] = [(value, 0)]
    pop, push, isfinite = stack.pop, stack.append, math.isfinite
    while stack:
        item, depth = pop()
        if depth >= MAX_DEPTH:
            return False
        subs: Iterable[object]
        if type(item) is dict:
            mapping = cast(dict[object, object], item)
            if any(type(key) is not str for key in mapping):
                return False
            subs = mapping.values()
        else:
            subs = cast(list[object], item)
        for sub in subs:
            kind = type(sub)
            if kind is str or kind is int or kind is bool or sub is None:
                continue
            if kind is dict or kind is list:
                push((sub, depth + 1))
            elif kind is not float or not isfinite(cast(float, sub)):
                return False
    return True


_Node = tuple[object, int, "_Node | None", str | int]
"""A value on the walk's stack: the value, its depth, the node holding it and its key or index there."""


def _not_json(value: object, path: str) -> str | None:
    """Why `value` is not a JSON value `jsonschema_rs` can check (naming where), or `None`. Iterative."""
    stack: list[_Node] = [(value, 0, None, "")]
    while stack:
        node = stack.pop()
        item, depth = node[0], node[1]
        if isinstance(item, dict | list) and depth >= MAX_DEPTH:
            return f"{path}: nested more than {MAX_DEPTH} levels deep, too deep to check"
        if isinstance(item, dict):
            for key, sub in item.items():
                if not isinstance(key, str):
                    return f"{_where(path, node)}: an object key is {type(key).__name__}, not a string"
                if not isinstance(sub, str | int) and sub is not None:
                    stack.append((sub, depth + 1, node, key))
        elif isinstance(item, list):
            for index, sub in enumerate(item):
                if not isinstance(sub, str | int) and sub is not None:
                    stack.append((sub, depth + 1, node, index))
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"{_where(path, node)}: {item} is not a JSON number"
        elif not isinstance(item, str | int) and item is not None:
            return f"{_where(path, node)}: a {type(item).__name__} is not a JSON value"
    return None


def _where(path: str, node: _Node) -> str:
    keys: list[str | int] = []
    current: _Node | None = node
    while current is not None and current[2] is not None:
        keys.append(current[3])
        current = current[2]
    return json_path(path, reversed(keys))
