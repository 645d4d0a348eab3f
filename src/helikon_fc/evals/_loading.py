"""`load_dataset`: a dataset from a JSONL file, one case per line; every error names the line and the field.

A line is a JSON object::

    {"name": "dining", "input": "How is my dining budget?",
     "expected_output": "...",                                    # optional: ExactOutput
     "expected_calls": [{"name": "get_budget", "arguments": {"category": "dining"}, "agent": "budget"}],
     "calls_match": "in_order",                                   # or "any_order", "subset"
     "expected_agents": ["triage", "budgeting specialist"],       # optional: HandoffPath
     "metadata": {"topic": "budgets"},
     "evaluators": [{"contains": "$88"}, {"regex": "\\$\\d+"}, {"max_requests": 3}, {"max_usd": "0.01"}]}

Blank lines and lines starting with ``#`` are skipped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ._budget_checks import CostBudget, UsageBudget
from ._case import CALLS_MATCHES, Case, Dataset, Evaluator, ExpectedCall
from ._output_checks import Contains, ExactOutput, MatchesRegex

CASE_FIELDS = (
    "name",
    "input",
    "expected_output",
    "expected_calls",
    "calls_match",
    "expected_agents",
    "metadata",
    "evaluators",
)
"""The fields a case's line may have (`input` is required)."""

_USAGE_KEYS = ("max_requests", "max_input_tokens", "max_output_tokens", "max_total_tokens")
_SPEC_KINDS = ("exact", "contains", "regex", "max_usd", *_USAGE_KEYS)


class DatasetError(ValueError):
    """A dataset file cannot be read; the message names the file, the line and the field."""


def load_dataset(
    path: str | os.PathLike[str], *, evaluators: Iterable[Evaluator] = (), name: str | None = None
) -> Dataset:
    """The dataset in the JSONL file at `path` (see the module docstring for a line's fields).

    Args:
        path: the file.
        evaluators: evaluators for every case, besides those the lines name.
        name: the dataset's name in reports (default: the file's name without its suffix).

    Raises:
        DatasetError: the file cannot be read, a line is not a JSON object, a field is unknown or of the wrong
            kind, or two cases share a name.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8-sig")  # a byte order mark, as some editors write, is not a case
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot read the dataset {str(file)!r}: {exc}") from None
    cases: list[Case] = []
    names: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        case = _case(_Where(file.name, number), line)
        if case.name in names:
            raise DatasetError(
                f"{file.name} line {number}, field 'name': {case.name!r} names the case of line {names[case.name]} too;"
                " case names must be unique"
            )
        names[case.name] = number
        cases.append(case)
    if not cases:
        raise DatasetError(f"{file.name}: no cases (one JSON object per line is expected)")
    return Dataset(cases=cases, evaluators=tuple(evaluators), name=name or file.stem)


class _Where:
    __slots__ = ("file", "line")

    def __init__(self, file: str, line: int) -> None:
        self.file = file
        self.line = line

    def error(self, field: str | None, problem: str) -> DatasetError:
        where = f"{self.file} line {self.line}" + (f", field {field!r}" if field else "")
        return DatasetError(f"{where}: {problem}")


def _case(where: _Where, line: str) -> Case:
    try:
        value = json.loads(line)
    except ValueError as exc:
        raise where.error(None, f"not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise where.error(None, f"must be a JSON object (a case), got {type(value).__name__}")
    unknown = sorted(set(value) - set(CASE_FIELDS))
    if unknown:
        raise where.error(unknown[0], f"unknown field; a case has {', '.join(CASE_FIELDS)}")
    if "input" not in value:
        raise where.error("input", "missing: every case needs an input (the user's message)")
    name = value.get("name", f"line {where.line}")
    calls = value.get("expected_calls")
    agents = value.get("expected_agents")
    match = value.get("calls_match", "in_order")
    if match not in CALLS_MATCHES:
        raise where.error("calls_match", f"must be one of {', '.join(CALLS_MATCHES)}, got {match!r}")
    metadata = value.get("metadata", {})
    if not isinstance(metadata, dict):
        raise where.error("metadata", f"must be a JSON object, got {_kind(metadata)}")
    return Case(
        name=_string(where, "name", name),
        input=_string(where, "input", value["input"]),
        expected_output=None
        if value.get("expected_output") is None
        else _string(where, "expected_output", value["expected_output"]),
        expected_calls=None if calls is None else _calls(where, calls),
        calls_match=match,
        expected_agents=None if agents is None else _strings(where, "expected_agents", agents),
        metadata=metadata,
        evaluators=_specs(where, value.get("evaluators", [])),
    )


def _kind(value: object) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    ) + f" ({json.dumps(value)[:40]})"


def _string(where: _Where, field: str, value: object) -> str:
    if not isinstance(value, str):
        raise where.error(field, f"must be a string, got {_kind(value)}")
    return value


def _strings(where: _Where, field: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise where.error(field, f"must be an array of strings, got {_kind(value)}")
    return tuple(value)


def _calls(where: _Where, value: object) -> tuple[ExpectedCall, ...]:
    if not isinstance(value, list):
        raise where.error("expected_calls", f"must be an array of calls, got {_kind(value)}")
    calls = []
    for index, call in enumerate(value):
        field = f"expected_calls[{index}]"
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise where.error(field, f'must be an object with a "name" (and "arguments", "agent"), got {_kind(call)}')
        extra = sorted(set(call) - {"name", "arguments", "agent"})
        if extra:
            raise where.error(f"{field}.{extra[0]}", 'unknown field; a call has "name", "arguments" and "agent"')
        arguments = call.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            raise where.error(
                f"{field}.arguments", f"must be an object (or absent: any arguments), got {_kind(arguments)}"
            )
        agent = call.get("agent")
        if agent is not None and not isinstance(agent, str):
            raise where.error(f"{field}.agent", f"must be a string (or absent: any agent), got {_kind(agent)}")
        calls.append(ExpectedCall(name=call["name"], arguments=arguments, agent=agent))
    return tuple(calls)


def _specs(where: _Where, value: object) -> tuple[Evaluator, ...]:
    if not isinstance(value, list):
        raise where.error("evaluators", f"must be an array of evaluator objects, got {_kind(value)}")
    return tuple(_spec(where, f"evaluators[{index}]", spec) for index, spec in enumerate(value))


def _spec(where: _Where, field: str, spec: object) -> Evaluator:
    if not isinstance(spec, dict):
        raise where.error(field, f'must be an object such as {{"contains": "text"}}, got {_kind(spec)}')
    kinds = [key for key in spec if key in _SPEC_KINDS]
    if not kinds:
        raise where.error(field, f"names no evaluator; use one of {', '.join(_SPEC_KINDS)}")
    options: dict[str, Any] = {key: spec[key] for key in ("name",) if key in spec}
    try:
        match kinds[0]:
            case "exact":
                return ExactOutput(expected=_string(where, f"{field}.exact", spec["exact"]), **options)
            case "contains":
                text = _string(where, f"{field}.contains", spec["contains"])
                return Contains(text=text, ignore_case=bool(spec.get("ignore_case", False)), **options)
            case "regex":
                return MatchesRegex(pattern=_string(where, f"{field}.regex", spec["regex"]), **options)
            case "max_usd":
                return CostBudget(max_usd=spec["max_usd"], **options)
            case _:
                return UsageBudget(**{key: spec[key] for key in _USAGE_KEYS if key in spec}, **options)
    except (TypeError, ValueError, ArithmeticError) as exc:
        if isinstance(exc, DatasetError):
            raise
        raise where.error(field, str(exc)) from None
