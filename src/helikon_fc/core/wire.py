"""The JSON wire format of every core value: `to_json`, `from_json` and `WireFormatError`.

The rules (documented with an example per union member in ``docs/wire-format.md``):

- An attrs class is a JSON object with one key per field, in declaration order.
- A member of one of the core unions (`Item`, `ModelEvent`, `AgentEvent`, `AgentError`,
  `LoopState`, `TransitionInput`, `NextAction`, `RunRecordBody`, and the permission unions
  `PermissionRule`, `PolicyVerdict`, `PermissionDecision`) always carries a snake_case ``"type"`` tag
  first: ``{"type": "tool_call", "call_id": ...}``. `from_json` requires it. The tags are declared
  (`TAGS`, checked against the unions at import), never derived from class names.
- `HandoffItem` writes its fields as ``from`` and ``to``.
- Tuples are JSON lists and come back as tuples; a `Conversation` is a list of tagged items.
- Enums are written by value; `JsonValue` fields pass through as JSON, checked to be JSON.
- Reading is strict: no key the class does not have, no missing field without a default, and
  no coercion (``"1"`` is not an int, ``1`` is not a str, ``true`` is not an int). Every problem
  is reported with the path to the value, e.g. ``$.events[2].item.call_id: expected str, got int``.

Built on a cattrs preconf JSON converter, with a hook per union and strict scalar hooks.
"""

from __future__ import annotations

import enum
import functools
import json
import math
import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast, get_args, get_origin, overload

import attrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override
from cattrs.preconf.json import JsonConverter, make_converter

from . import errors, events, items, model, records, states
from .conversation import Conversation
from .errors import AgentError, BranchFailure, OtherError
from .events import AgentEvent, HandoffItem
from .items import Item
from .json_value import JsonObject, JsonValue
from .model import ModelEvent, ModelRequest, ModelSettings, OutputSchema, ToolDef
from .permissions import (
    Allow,
    Ask,
    ConsultPolicy,
    Deny,
    Guard,
    PermissionConfig,
    PermissionDecision,
    PermissionRule,
    PolicyRule,
    PolicyVerdict,
    ToolInfo,
    config as permission_config,
)
from .records import RunRecordBody
from .states import (
    AwaitApproval,
    ExecuteTools,
    FinalOutput,
    HandoffTarget,
    LoopState,
    NextAction,
    TransitionCtx,
    TransitionInput,
    TransitionOutcome,
)
from .usage import AgentUsage, ModelShare, Usage

__all__ = ["WireFormatError", "from_json", "to_json"]

T = TypeVar("T")


class WireFormatError(ValueError):
    """A value could not be read from (or written to) JSON.

    Raised by `from_json` for text that is not JSON, an unknown or missing ``"type"`` tag, a
    missing field, an unexpected field or a value of the wrong type; and by `to_json` for a value
    JSON cannot hold (such as a NaN float or a non-JSON object in a `JsonValue` field).

    Attributes:
        problems: One ``path: problem`` line per fault, e.g. ``$.item.call_id: expected str, got int``.
    """

    problems: tuple[str, ...]

    def __init__(self, problems: tuple[str, ...]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


# The unions, and the tag of each member class.

UNIONS: Mapping[str, object] = {
    "Item": Item,
    "ModelEvent": ModelEvent,
    "AgentEvent": AgentEvent,
    "AgentError": AgentError,
    "LoopState": LoopState,
    "TransitionInput": TransitionInput,
    "NextAction": NextAction,
    "RunRecordBody": RunRecordBody,
    "PermissionRule": PermissionRule,
    "PolicyVerdict": PolicyVerdict,
    "PermissionDecision": PermissionDecision,
}
"""Every tagged union of the core, by name."""

_RENAMES: Mapping[type, Mapping[str, str]] = {HandoffItem: {"from_agent": "from", "to_agent": "to"}}

_OMITTED: Mapping[type, tuple[str, ...]] = {ExecuteTools: ("arguments", "problems"), AwaitApproval: ("problems",)}
"""Fields derived from the others, left off the wire (read back as their defaults)."""

_OMITTED_IF_NONE: Mapping[type, tuple[str, ...]] = {
    records.ModelAnswered: ("asked", "latency"),
    records.RunFinished: ("latency",),
}
"""Optional fields added to a record after its format was fixed: left off the wire when `None`, so a
record without them is written as before, and records written before them read back with `None`."""

_PLAIN_CLASSES: tuple[type, ...] = (
    Usage,
    AgentUsage,
    ModelShare,
    ModelSettings,
    ToolDef,
    OutputSchema,
    ModelRequest,
    FinalOutput,
    BranchFailure,
    HandoffTarget,
    TransitionCtx,
    TransitionOutcome,
    Guard,
    PolicyRule,
    PermissionConfig,
    ToolInfo,
    records.OfferedTool,
    records.AskedRequest,
)


TAGS: Mapping[type, str] = {
    # Item
    items.SystemMessage: "system_message",
    items.UserMessage: "user_message",
    items.AssistantMessage: "assistant_message",
    items.ToolCall: "tool_call",
    items.ToolResult: "tool_result",
    items.Reasoning: "reasoning",
    items.Compacted: "compacted",
    # ModelEvent
    model.ModelTextDelta: "model_text_delta",
    model.ModelReasoningDelta: "model_reasoning_delta",
    model.ModelToolCallDelta: "model_tool_call_delta",
    model.ModelUsage: "model_usage",
    model.ModelFinish: "model_finish",
    # AgentEvent
    events.RunStarted: "run_started",
    events.TurnStarted: "turn_started",
    events.TokenDelta: "token_delta",
    events.ReasoningDelta: "reasoning_delta",
    events.ToolCallDelta: "tool_call_delta",
    events.MessageOutput: "message_output",
    events.ToolCallItem: "tool_call_item",
    events.ToolOutputItem: "tool_output_item",
    events.HandoffItem: "handoff_item",
    events.AgentUpdated: "agent_updated",
    events.GuardrailTriggered: "guardrail_triggered",
    events.ApprovalRequested: "approval_requested",
    events.PermissionDenied: "permission_denied",
    events.PermissionGranted: "permission_granted",
    events.RepairStarted: "repair_started",
    events.StructuredOutputFailed: "structured_output_failed",
    events.ConversationCompacted: "conversation_compacted",
    events.CompactionSkipped: "compaction_skipped",
    events.RunCompleted: "run_completed",
    events.RunFailed: "run_failed",
    events.RunPaused: "run_paused",
    # AgentError
    errors.MaxTurnsExceeded: "max_turns_exceeded",
    errors.MaxAgentDepthExceeded: "max_agent_depth_exceeded",
    errors.MaxIterationsExceeded: "max_iterations_exceeded",
    errors.MaxHandoffsExceeded: "max_handoffs_exceeded",
    errors.HandoffCollision: "handoff_collision",
    errors.UnknownHandoffTarget: "unknown_handoff_target",
    errors.ModelFailed: "model_failed",
    errors.StructuredOutputInvalid: "structured_output_invalid",
    errors.TimedOut: "timed_out",
    errors.Cancelled: "cancelled",
    errors.ParallelFailed: "parallel_failed",
    errors.GraphFailed: "graph_failed",
    errors.GuardrailTripped: "guardrail_tripped",
    errors.HookDenied: "hook_denied",
    errors.HookFailed: "hook_failed",
    errors.ToolFailed: "tool_failed",
    errors.SessionFailed: "session_failed",
    errors.InvalidTransition: "invalid_transition",
    errors.OtherError: "other_error",
    # LoopState
    states.CallingModel: "calling_model",
    states.ExecutingTools: "executing_tools",
    states.ApplyingHandoff: "applying_handoff",
    states.Finalizing: "finalizing",
    states.RepairingOutput: "repairing_output",
    states.Compacting: "compacting",
    states.NeedsApproval: "needs_approval",
    states.Done: "done",
    states.Failed: "failed",
    # TransitionInput
    states.Start: "start",
    model.ModelResponse: "model_response",
    states.ToolResults: "tool_results",
    states.SummaryFailed: "summary_failed",
    # NextAction
    states.CallModel: "call_model",
    states.ExecuteTools: "execute_tools",
    states.AwaitApproval: "await_approval",
    states.PerformHandoff: "perform_handoff",
    states.Terminate: "terminate",
    # RunRecordBody
    records.RunOpened: "run_opened",
    records.ToolsOffered: "tools_offered",
    records.Boundary: "boundary",
    records.ModelAnswered: "model_answered",
    records.ToolFinished: "tool_finished",
    records.RunFinished: "run_finished",
    # PermissionRule
    permission_config.ToolRule: "tool_rule",
    permission_config.BashRule: "bash_rule",
    permission_config.ReadRule: "read_rule",
    permission_config.EditRule: "edit_rule",
    # PolicyVerdict
    permission_config.PolicyAllow: "policy_allow",
    permission_config.PolicyDeny: "policy_deny",
    permission_config.PolicyAsk: "policy_ask",
    permission_config.PolicyReplace: "policy_replace",
    # PermissionDecision
    Allow: "allow",
    Deny: "deny",
    Ask: "ask",
    ConsultPolicy: "consult_policy",
}
"""The ``"type"`` tag of every union member, declared: a class may be renamed without changing the wire."""


def _members(union: object) -> tuple[type, ...]:
    return tuple(arg for arg in get_args(union) if isinstance(arg, type))


def check_tags(unions: Mapping[str, object], tags: Mapping[type, str]) -> dict[type, str]:
    """`tags` as a dict, once checked against `unions`: every member of every union has a declared tag,
    no tag is declared for a class that is in no union, and no two members of one union share a tag.

    Raises:
        TypeError: the declarations do not match the unions; the message lists every mismatch.
    """
    found: list[str] = []
    members = {cls for union in unions.values() for cls in _members(union)}
    found.extend(f"{cls.__qualname__} has no declared tag" for cls in _members_in_order(unions) if cls not in tags)
    found.extend(f"{cls.__qualname__} has a tag but is in no union" for cls in tags if cls not in members)
    for name, union in unions.items():
        seen: dict[str, type] = {}
        for cls in _members(union):
            tag = tags.get(cls)
            if tag is None:
                continue
            if tag in seen:
                found.append(f"{name}: {seen[tag].__qualname__} and {cls.__qualname__} share the tag {tag!r}")
            seen[tag] = cls
    if found:
        raise TypeError("wire tags: " + "; ".join(found))
    return dict(tags)


def _members_in_order(unions: Mapping[str, object]) -> tuple[type, ...]:
    return tuple(dict.fromkeys(cls for union in unions.values() for cls in _members(union)))


_TAGS: dict[type, str] = check_tags(UNIONS, TAGS)


@attrs.frozen
class _NotImplementedPhase:
    """The retired `AgentError` ``not_implemented_phase``: a reserved phase no driver ran (no run ever
    failed with it). Read only, as the `OtherError` with the same text; never written."""

    feature: str


def _upgrade_not_implemented_phase(old: _NotImplementedPhase) -> OtherError:
    return OtherError(f"not implemented: {old.feature}")


_RETIRED: Mapping[str, Mapping[str, tuple[type, Callable[[Any], object]]]] = {
    "AgentError": {"not_implemented_phase": (_NotImplementedPhase, _upgrade_not_implemented_phase)},
}
"""Tags no longer written, by union: the class an old document is read as, and the value it becomes."""


# Problems, with the path to where they are.


class _Problems(Exception):
    """Faults found while structuring, each with its path relative to the value being structured."""

    def __init__(self, found: list[tuple[str, str]]) -> None:
        super().__init__(found)
        self.found = found

    @classmethod
    def one(cls, message: str, at: str = "") -> _Problems:
        return cls([(at, message)])


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _key_path(key: str) -> str:
    return f".{key}" if key.isidentifier() else f"[{json.dumps(key)}]"


def _flatten(exc: BaseException, path: str, renames: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """Turn an exception raised while structuring into ``(path, problem)`` pairs."""
    if isinstance(exc, _Problems):
        return [(path + at, message) for at, message in exc.found]
    if isinstance(exc, ClassValidationError):
        found: list[tuple[str, str]] = []
        with_notes, others = exc.group_exceptions()
        for sub, note in with_notes:
            name = (renames or {}).get(note.name, note.name)
            if isinstance(sub, KeyError):
                found.append((path + _key_path(name), "missing field"))
            else:
                found.extend(_flatten(sub, path + _key_path(name)))
        for sub in others:
            found.extend(_flatten(sub, path, renames))
        return found
    if isinstance(exc, IterableValidationError):
        found = []
        with_index, others = exc.group_exceptions()
        for sub, index_note in with_index:
            found.extend(_flatten(sub, f"{path}[{index_note.index}]"))
        for sub in others:
            found.extend(_flatten(sub, path))
        return found
    if isinstance(exc, ForbiddenExtraKeysError):
        return [(path + _key_path(key), "unexpected field") for key in sorted(exc.extra_fields)]
    return [(path, str(exc) or type(exc).__name__)]


# JSON values.


def _is_tuple_type(tp: object) -> bool:
    origin: object = get_origin(tp)
    return origin is tuple


def _is_list_type(tp: object) -> bool:
    origin: object = get_origin(tp)
    return origin is list or tp is list


def _is_json_value_type(tp: object) -> bool:
    origin = get_origin(tp)
    if origin is not typing.Union and origin is not types.UnionType:
        return False
    args = get_args(tp)
    return {bool, int, float, str, type(None)} <= set(args) and {list, dict} <= {get_origin(arg) for arg in args}


def _is_json_object_type(tp: object) -> bool:
    return get_origin(tp) is dict and _is_json_value_type(get_args(tp)[1])


def _json_problems(value: object, at: str = "") -> list[tuple[str, str]]:
    """Where `value` is not a JSON value (`JsonValue`); iterative, so any depth `json.loads` accepts is fine."""
    found: list[tuple[str, str]] = []
    stack: list[tuple[object, str]] = [(value, at)]
    while stack:
        item, path = stack.pop()
        if item is None or isinstance(item, bool | int | str):
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                found.append((path, f"expected a finite number, got {item}"))
        elif isinstance(item, list):
            stack.extend((element, f"{path}[{index}]") for index, element in enumerate(item))
        elif isinstance(item, dict):
            for key, element in item.items():
                if isinstance(key, str):
                    stack.append((element, path + _key_path(key)))
                else:
                    found.append((path, f"expected str object keys, got {_kind(key)}"))
        else:
            found.append((path, f"expected a JSON value, got {_kind(item)}"))
    return sorted(found)


def _structure_json_value(value: object, _: object) -> object:
    found = _json_problems(value)
    if found:
        raise _Problems(found)
    return value


def _structure_json_object(value: object, _: object) -> object:
    if not isinstance(value, dict):
        raise _Problems.one(f"expected object, got {_kind(value)}")
    return _structure_json_value(value, None)


def _unstructure_json_value(value: object) -> object:
    found = _json_problems(value)
    if found:
        raise WireFormatError(tuple(f"$value{at}: {message}" for at, message in found))
    return value


def _unchecked(value: object) -> object:
    return value


@functools.cache
def _unchecked_converter() -> JsonConverter:
    return _make_converter(check_json=False)


def _located(value: object, error: WireFormatError) -> WireFormatError:
    """`error` for a `JsonValue` fault in `value`, with each fault's path from the root (``$.info[0]``)."""
    found = _json_problems(_unchecked_converter().unstructure(value))
    return WireFormatError(tuple(f"${at}: {message}" for at, message in found)) if found else error


# Strict scalars.


def _structure_str(value: object, _: object) -> str:
    if not isinstance(value, str):
        raise _Problems.one(f"expected str, got {_kind(value)}")
    return value


def _structure_int(value: object, _: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Problems.one(f"expected int, got {_kind(value)}")
    return value


def _structure_float(value: object, _: object) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise _Problems.one(f"expected float, got {_kind(value)}")
    result = float(value)
    if not math.isfinite(result):
        raise _Problems.one(f"expected a finite float, got {value}")
    return result


def _structure_bool(value: object, _: object) -> bool:
    if not isinstance(value, bool):
        raise _Problems.one(f"expected bool, got {_kind(value)}")
    return value


def _structure_enum_factory(cls: type[enum.Enum]) -> Callable[[object, object], enum.Enum]:
    values = {member.value: member for member in cls}
    expected = ", ".join(json.dumps(value) for value in values)

    def structure(value: object, _: object) -> enum.Enum:
        member = values.get(value) if isinstance(value, str | int) and not isinstance(value, bool) else None
        if member is None:
            raise _Problems.one(f"expected one of {expected}, got {json.dumps(value)}")
        return member

    return structure


# The converter.


def _resolve_annotations(cls: type) -> None:
    """Resolve `cls`'s string annotations where the `JsonValue` alias's own forward reference resolves too."""
    namespace = dict(vars(sys.modules[cls.__module__]))
    namespace.update(JsonValue=JsonValue, JsonObject=JsonObject)
    attrs.resolve_types(cls, globalns=namespace)


def _make_converter(check_json: bool = True) -> JsonConverter:
    """The wire's converter; `check_json=False` writes `JsonValue` fields unchecked (to locate a fault)."""
    conv = make_converter(forbid_extra_keys=True)

    for scalar, hook in ((str, _structure_str), (int, _structure_int), (float, _structure_float)):
        conv.register_structure_hook(scalar, hook)
    conv.register_structure_hook(bool, _structure_bool)

    conv.register_structure_hook_factory(
        lambda tp: isinstance(tp, type) and issubclass(tp, enum.Enum), _structure_enum_factory
    )
    conv.register_structure_hook_func(_is_json_value_type, _structure_json_value)
    conv.register_structure_hook_func(_is_json_object_type, _structure_json_object)
    conv.register_unstructure_hook_func(
        lambda tp: _is_json_value_type(tp) or _is_json_object_type(tp),
        _unstructure_json_value if check_json else _unchecked,
    )

    def structure_tuple_factory(tp: Any) -> Callable[[object, object], tuple[object, ...]]:
        args: tuple[object, ...] = get_args(tp)
        if len(args) != 2 or args[1] != Ellipsis:
            raise TypeError(f"only homogeneous tuples are supported on the wire, not {tp}")
        element = args[0]

        def structure(value: object, _: object) -> tuple[object, ...]:
            return tuple(_structure_list(conv, value, element))

        return structure

    conv.register_structure_hook_factory(_is_tuple_type, structure_tuple_factory)

    def structure_list_factory(tp: Any) -> Callable[[object, object], list[object]]:
        (element,) = get_args(tp) or (Any,)

        def structure(value: object, _: object) -> list[object]:
            return _structure_list(conv, value, element)

        return structure

    conv.register_structure_hook_factory(_is_list_type, structure_list_factory)

    def structure_conversation(value: object, _: object) -> Conversation:
        return Conversation(cast("list[Item]", _structure_list(conv, value, Item)))

    def unstructure_conversation(conversation: Conversation) -> list[object]:
        return [conv.unstructure(item) for item in conversation]

    conv.register_structure_hook(Conversation, structure_conversation)
    conv.register_unstructure_hook(Conversation, unstructure_conversation)

    retired = [cls for tags in _RETIRED.values() for cls, _ in tags.values()]
    for cls in (*_TAGS, *_PLAIN_CLASSES, *retired):
        _resolve_annotations(cls)

    def structure_class_factory(cls: type) -> Callable[[object, object], object]:
        renames = _RENAMES.get(cls, {})
        base: Callable[[Mapping[str, Any], Any], object] = make_dict_structure_fn(cls, conv, **_overrides(cls))
        tag = _TAGS.get(cls)

        def structure(value: object, _: object) -> object:
            if not isinstance(value, dict):
                raise _Problems.one(f"expected object, got {_kind(value)}")
            if tag is not None:
                given = value.get("type")
                if given != tag:
                    shown = "missing" if "type" not in value else json.dumps(given)
                    raise _Problems.one(f"expected type tag {json.dumps(tag)}, got {shown}", ".type")
                value = {key: item for key, item in value.items() if key != "type"}
            try:
                return base(value, cls)
            except Exception as exc:
                raise _Problems(_flatten(exc, "", renames)) from exc

        return structure

    def unstructure_class_factory(cls: type) -> Callable[[object], dict[str, object]]:
        base: Callable[[Any], dict[str, Any]] = make_dict_unstructure_fn(cls, conv, **_overrides(cls))
        tag = _TAGS.get(cls)
        if tag is None:
            return base

        def unstructure(value: object) -> dict[str, object]:
            return {"type": tag, **base(value)}

        return unstructure

    conv.register_structure_hook_factory(attrs.has, structure_class_factory)
    conv.register_unstructure_hook_factory(attrs.has, unstructure_class_factory)

    for name, union in UNIONS.items():
        _register_union(conv, name, union)
    return conv


def _overrides(cls: type) -> dict[str, Any]:
    """cattrs field overrides: the renamed fields of `cls`, and its derived fields left off."""
    overrides = {field: override(rename=key) for field, key in _RENAMES.get(cls, {}).items()}
    overrides |= {field: override(omit_if_default=True) for field in _OMITTED_IF_NONE.get(cls, ())}
    return overrides | {field: override(omit=True) for field in _OMITTED.get(cls, ())}


def _structure_list(conv: JsonConverter, value: object, element: object) -> list[object]:
    if not isinstance(value, list):
        raise _Problems.one(f"expected list, got {_kind(value)}")
    out: list[object] = []
    found: list[tuple[str, str]] = []
    for index, item in enumerate(value):
        try:
            out.append(conv.structure(item, cast("type[Any]", element)))
        except Exception as exc:
            found.extend(_flatten(exc, f"[{index}]"))
    if found:
        raise _Problems(found)
    return out


def _register_union(conv: JsonConverter, name: str, union: object) -> None:
    by_tag = {_TAGS[cls]: cls for cls in _members(union)}
    expected = ", ".join(sorted(by_tag))
    retired = _RETIRED.get(name, {})

    def structure(value: object, _: object) -> object:
        if not isinstance(value, dict):
            raise _Problems.one(f"expected object, got {_kind(value)}")
        if "type" not in value:
            raise _Problems.one(f"missing field (the {name} tag, one of: {expected})", ".type")
        tag = value["type"]
        if isinstance(tag, str) and tag in retired:
            old, upgrade = retired[tag]
            return upgrade(conv.structure({key: item for key, item in value.items() if key != "type"}, old))
        cls = by_tag.get(tag) if isinstance(tag, str) else None
        if cls is None:
            raise _Problems.one(f"unknown {name} type {json.dumps(tag)} (expected one of: {expected})", ".type")
        return conv.structure(value, cls)

    conv.register_structure_hook_func(lambda tp: tp == union, structure)


_CONVERTER = _make_converter()


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


def to_json(value: object, *, indent: int | None = None) -> str:
    """Write a core value as JSON text.

    Args:
        value: Any core value (an item, event, error, state, input, action, outcome, request,
            `Usage`, `Conversation`, ...) or a tuple of them.
        indent: Pretty-print with this indent; compact when `None`.

    Returns:
        The JSON text; fields appear in declaration order, a union member's ``"type"`` first.

    Raises:
        WireFormatError: `value` holds something JSON cannot represent (a NaN, a set in a `JsonValue`).
    """
    separators = (",", ": ") if indent is not None else (",", ":")
    try:
        data = _CONVERTER.unstructure(value)
        return json.dumps(data, indent=indent, separators=separators, ensure_ascii=False, allow_nan=False)
    except WireFormatError as exc:
        raise _located(value, exc) from None
    except (TypeError, ValueError) as exc:
        raise WireFormatError((f"$: cannot be written as JSON: {exc}",)) from exc


def unstructure_data(value: object) -> Any:
    """`value` as the JSON data (dicts, lists, scalars) `to_json` would write as text.

    Raises:
        WireFormatError: a `JsonValue` field holds something JSON cannot (a float NaN is let through:
            the JSON encoder refuses it).
    """
    return _CONVERTER.unstructure(value)


def structure_data(tp: object, data: object) -> Any:
    """Read a core value of type `tp` from JSON data (as `json.loads` gives it), as `from_json` reads text.

    Raises:
        WireFormatError: `data` does not describe a `tp` (each fault with its path).
    """
    try:
        return _CONVERTER.structure(data, cast("type[Any]", tp))
    except Exception as exc:
        raise WireFormatError(tuple(f"${at}: {message}" for at, message in _flatten(exc, ""))) from None


@overload
def from_json(tp: type[T], text: str | bytes) -> T: ...
@overload
def from_json(tp: object, text: str | bytes) -> Any: ...
def from_json(tp: object, text: str | bytes) -> Any:
    """Read a core value of type `tp` from JSON text written by `to_json`.

    Args:
        tp: The type to read: a class (``ToolCall``), a union alias (``AgentEvent``) or a
            homogeneous tuple type (``tuple[AgentEvent, ...]``). For a union alias the result is
            typed `Any`; annotate the variable you assign it to.
        text: The JSON text.

    Returns:
        The value, equal to the one `to_json` was given.

    Raises:
        WireFormatError: The text is not JSON, or does not describe a `tp`; the message names
            the path to each bad value, e.g. ``$.events[2].item.call_id: expected str, got int``.
    """
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:
        raise WireFormatError((f"$: invalid JSON: {exc}",)) from exc
    except RecursionError as exc:
        raise WireFormatError(("$: invalid JSON: nested too deeply",)) from exc
    try:
        return _CONVERTER.structure(data, cast("type[Any]", tp))
    except Exception as exc:
        raise WireFormatError(tuple(f"${at}: {message}" for at, message in _flatten(exc, ""))) from None
