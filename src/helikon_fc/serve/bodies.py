"""Request bodies: read within the size limit, parsed as JSON, and checked field by field (every problem named)."""

from __future__ import annotations

import json
from contextlib import aclosing
from typing import Any

import attrs
from starlette.requests import Request

from ..shell.context.config import RunConfig
from ..shell.control.permissions import Approve, Reject
from .errors import ServeError, bad_request

Decision = Approve | Reject


@attrs.frozen
class StartRun:
    """A ``POST /runs`` body."""

    agent: str | None
    input: str
    session_id: str | None
    run_id: str | None
    config: RunConfig | None = None


async def read_json(request: Request, max_bytes: int) -> object:
    """The request's body as JSON. Raises 413 over `max_bytes`, 400 when it is not JSON."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit() and int(declared) > max_bytes:
        raise ServeError(413, f"the body is {declared} bytes; this server takes at most {max_bytes}")
    body = bytearray()
    async with aclosing(request.stream()) as chunks:  # closed at once when the body is cut short (413)
        async for chunk in chunks:
            body += chunk
            if len(body) > max_bytes:
                raise ServeError(413, f"the body is over {max_bytes} bytes, the most this server takes")
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise bad_request("the body is not JSON", [f"$: {exc}"]) from None


def start_run(body: object) -> StartRun:
    """A ``POST /runs`` body, checked. Raises 400 with one problem per bad field."""
    fields = _object(body, {"agent", "input", "session_id", "run_id", "config"})
    problems: list[str] = []
    if fields.get("input") is None:  # absent or null: a run needs the user's message
        problems.append("$.input: required (the user's message, a string)")
    values = {key: _optional_str(fields, key, problems) for key in ("agent", "input", "session_id", "run_id")}
    for key in ("run_id", "session_id", "agent"):
        if values[key] == "":
            problems.append(f"$.{key}: must not be empty")
    if values["run_id"] and "/" in values["run_id"]:  # '/' separates a run's id from its sub-runs' segments
        problems.append(f"$.run_id: must not contain '/', got {values['run_id']!r}")
    config = _config(fields.get("config"), problems)
    if problems:
        raise bad_request("the run request does not decode", problems)
    return StartRun(values["agent"], values["input"] or "", values["session_id"], values["run_id"], config)


CONFIG_FIELDS = ("max_turns", "parallel_tool_call_limit", "max_agent_depth", "timeout")
"""The `RunConfig` fields a ``POST /runs`` body may set under ``config``."""


def _config(value: object, problems: list[str]) -> RunConfig | None:
    """``$.config`` as a `RunConfig` (`None` when absent); each bad field is a problem naming it."""
    if value is None:
        return None
    if not isinstance(value, dict):
        problems.append(f"$.config: expected an object ({', '.join(CONFIG_FIELDS)}), got {_kind(value)}")
        return None
    problems.extend(
        f"$.config.{key}: unknown field (allowed: {list(CONFIG_FIELDS)})" for key in value if key not in CONFIG_FIELDS
    )
    good: dict[str, Any] = {}
    for key in CONFIG_FIELDS:
        if key in value:
            try:
                RunConfig(**{key: value[key]})
            except (TypeError, ValueError) as exc:
                problems.append(f"$.config.{key}: {exc}")
            else:
                good[key] = value[key]
    return RunConfig(**good)


def decisions(body: object) -> dict[str, Decision]:
    """A ``POST /runs/{id}/approvals`` body as decisions by call id. Raises 400 with every problem."""
    fields = _object(body, {"decisions"})
    listed = fields.get("decisions")
    if not isinstance(listed, list) or not listed:
        raise bad_request("the approvals do not decode", ["$.decisions: required, a non-empty list of decisions"])
    problems: list[str] = []
    found: dict[str, Decision] = {}
    for index, item in enumerate(listed):
        where = f"$.decisions[{index}]"
        decided = _decision(item, where, problems)
        if decided is not None:
            call_id, decision = decided
            if call_id in found:
                problems.append(f"{where}.call_id: {call_id!r} is decided twice")
            found[call_id] = decision
    if problems:
        raise bad_request("the approvals do not decode", problems)
    return found


def _decision(item: object, where: str, problems: list[str]) -> tuple[str, Decision] | None:
    if not isinstance(item, dict):
        problems.append(f"{where}: expected an object, got {_kind(item)}")
        return None
    unknown = sorted(set(item) - {"call_id", "decision", "arguments", "reason"})
    problems.extend(f"{where}.{key}: unknown field" for key in unknown)
    call_id = item.get("call_id")
    if not isinstance(call_id, str) or not call_id:
        problems.append(f"{where}.call_id: required, a non-empty string, got {_kind(call_id)}")
    verb = item.get("decision")
    if verb not in ("approve", "reject"):
        problems.append(f"{where}.decision: must be 'approve' or 'reject', got {verb!r}")
        return None
    if verb == "approve":
        if "reason" in item:
            problems.append(f"{where}.reason: only a rejection has a reason")
        arguments = item.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            problems.append(f"{where}.arguments: expected an object (the call's new arguments), got {_kind(arguments)}")
            return None
        decision: Decision = Approve() if arguments is None else Approve(arguments=json.dumps(arguments))
    else:
        if "arguments" in item:
            problems.append(f"{where}.arguments: only an approval takes arguments")
        reason = item.get("reason", "rejected over HTTP")
        if not isinstance(reason, str):
            problems.append(f"{where}.reason: expected a string, got {_kind(reason)}")
            return None
        decision = Reject(reason)
    return (call_id, decision) if isinstance(call_id, str) and call_id else None


def _object(body: object, allowed: set[str]) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise bad_request("the body does not decode", [f"$: expected an object, got {_kind(body)}"])
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise bad_request(
            "the body does not decode", [f"$.{key}: unknown field (allowed: {sorted(allowed)})" for key in unknown]
        )
    return body


def _optional_str(fields: dict[str, Any], key: str, problems: list[str]) -> str | None:
    value = fields.get(key)
    if value is None or isinstance(value, str):
        return value
    problems.append(f"$.{key}: expected a string, got {_kind(value)}")
    return None


def _kind(value: object) -> str:
    names = {type(None): "null", bool: "a boolean", int: "a number", float: "a number", str: "a string"}
    names |= {list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)
