"""What ``Annotated[X, ...]`` metadata means to a schema: a description, and `annotated_types` constraints.

Understood: a string (the description), `annotated_types` ``Gt``, ``Ge``, ``Lt``, ``Le``, ``Interval``,
``MultipleOf``, ``MinLen``, ``MaxLen``, ``Len`` and ``doc(...)``, and ``typing_extensions.Doc``. Anything
else (``Predicate``, ``Timezone``, a pydantic ``Field``, an object of your own) raises `TypeError` when the
schema is built: a constraint the schema and the decoder silently left out would let through exactly
the values it was written to stop.

`annotated_types` is not a dependency of ours. It comes with pydantic (which the ``openai`` SDK needs),
and it is imported here only if it is installed: without it, no annotation can hold its objects. Its
classes are recognised by ``isinstance``, not by attribute names, so an unrelated object that happens to
have a ``ge`` attribute is refused rather than taken for a bound.
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Iterable
from typing import Literal

import attrs
import typing_extensions

__all__ = ["Bound", "read_metadata"]

Keyword = Literal["minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength"]
"""A bound's JSON Schema keyword; ``minLength``/``maxLength`` stand for the length of a string, array or object."""


def _optional_module(name: str) -> types.ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


_at = _optional_module("annotated_types")

_SUPPORTED = (
    "a description string, typing_extensions.Doc and the annotated_types constraints Gt, Ge, Lt, Le, "
    "Interval, MultipleOf, MinLen, MaxLen, Len and doc()"
)


@attrs.frozen
class Bound:
    """One constraint on a value: its JSON Schema keyword and the limit."""

    keyword: Keyword
    value: int | float

    @property
    def is_length(self) -> bool:
        """Whether it bounds a length (of a string, an array or an object) rather than a number."""
        return self.keyword in ("minLength", "maxLength")


def read_metadata(metadata: Iterable[object], where: str) -> tuple[str | None, tuple[Bound, ...]]:
    """The description (the first one given) and the bounds in ``Annotated`` metadata.

    Raises:
        TypeError: an object that is neither a description nor a supported constraint, or a bound whose
            limit is not a number (a length: not a non-negative int; ``MultipleOf``: not positive).
    """
    description: str | None = None
    bounds: list[Bound] = []
    for item in _flatten(metadata):
        if isinstance(item, str):
            description = description if description is not None else item
            continue
        documentation = _documentation(item)
        if documentation is not None:
            description = description if description is not None else documentation
            continue
        bound = _bound(item)
        if bound is None:
            raise TypeError(f"unsupported annotation metadata {item!r} at {where}: supported are {_SUPPORTED}")
        _check_limit(bound, item, where)
        bounds.append(bound)
    return description, tuple(bounds)


def _flatten(metadata: Iterable[object]) -> Iterable[object]:
    """``Interval`` and ``Len`` (`annotated_types.GroupedMetadata`) stand for the bounds they hold."""
    for item in metadata:
        if _at is not None and isinstance(item, _at.GroupedMetadata):
            yield from _flatten(item)
        else:
            yield item


def _documentation(item: object) -> str | None:
    doc_types = tuple(t for t in (getattr(_at, "DocInfo", None), getattr(typing_extensions, "Doc", None)) if t)
    if doc_types and isinstance(item, doc_types):
        documentation = getattr(item, "documentation", None)
        return documentation if isinstance(documentation, str) else None
    return None


def _bound(item: object) -> Bound | None:
    if _at is None:
        return None
    pairs: tuple[tuple[type, str, Keyword], ...] = (
        (_at.Gt, "gt", "exclusiveMinimum"),
        (_at.Ge, "ge", "minimum"),
        (_at.Lt, "lt", "exclusiveMaximum"),
        (_at.Le, "le", "maximum"),
        (_at.MultipleOf, "multiple_of", "multipleOf"),
        (_at.MinLen, "min_length", "minLength"),
        (_at.MaxLen, "max_length", "maxLength"),
    )
    for cls, attribute, keyword in pairs:
        if isinstance(item, cls):
            return Bound(keyword, getattr(item, attribute))
    return None


def _check_limit(bound: Bound, item: object, where: str) -> None:
    value: object = bound.value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"unsupported constraint {item!r} at {where}: its limit must be an int or a float")
    if bound.is_length and not (isinstance(value, int) and value >= 0):
        raise TypeError(f"unsupported constraint {item!r} at {where}: a length must be a non-negative int")
    if bound.keyword == "multipleOf" and not value > 0:
        raise TypeError(f"unsupported constraint {item!r} at {where}: MultipleOf needs a positive number")
