"""Evaluators of what ran: `ToolTrajectory` (the tool calls, per agent) and `HandoffPath` (the agents)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from ..core import JsonValue
from ._case import CALLS_MATCHES, CallsMatch, Case, ExpectedCall, Verdict
from ._observed import CaseRun, ObservedCall


def _calls(value: Iterable[ExpectedCall] | None) -> tuple[ExpectedCall, ...] | None:
    return None if value is None else tuple(value)


def _agents(value: Iterable[str] | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


def matches(expected: ExpectedCall, call: ObservedCall) -> bool:
    """Whether `call` is the call `expected` describes (its name, its agent if named, its arguments if given)."""
    if expected.name != call.name or (expected.agent is not None and expected.agent != call.agent):
        return False
    arguments = expected.arguments
    if arguments is None:
        return True
    if callable(arguments):
        try:
            return bool(arguments(call.arguments))
        except Exception:  # a predicate that cannot read these arguments does not accept them
            return False
    expected_value: JsonValue = arguments
    return expected_value == call.arguments


def _unmatched(
    expected: Sequence[ExpectedCall], calls: Sequence[ObservedCall]
) -> tuple[list[ExpectedCall], list[ObservedCall]]:
    """Pair expected calls with made ones (each used once, first fit); the expected and made calls left over."""
    left = list(calls)
    missing: list[ExpectedCall] = []
    for wanted in expected:
        hit = next((index for index, call in enumerate(left) if matches(wanted, call)), None)
        if hit is None:
            missing.append(wanted)
        else:
            del left[hit]
    return missing, left


@attrs.frozen(kw_only=True)
class ToolTrajectory:
    """The tool calls a run made against the expected ones (`expected`, or else the case's `expected_calls`).

    The score is the share of calls that match: in order, the matching prefix over the longer of the two
    lists; in any order, the calls paired over all calls (expected and extra); as a subset, the expected
    calls found. The run passes only on a full match for `match` (see `CallsMatch`).

    Attributes:
        expected: the calls to expect, or `None` to use each case's `expected_calls` (with its `calls_match`).
        match: how to compare, or `None` to use each case's `calls_match`.
        name: the report's column.
    """

    expected: tuple[ExpectedCall, ...] | None = attrs.field(default=None, converter=_calls)
    match: CallsMatch | None = attrs.field(default=None)
    name: str = "tools"

    @match.validator
    def _check(self, _: object, value: object) -> None:
        if value is not None and value not in CALLS_MATCHES:
            raise ValueError(f"ToolTrajectory: match must be one of {', '.join(CALLS_MATCHES)} or None, got {value!r}")

    def applies(self, case: Case) -> bool:
        """Whether there are expected calls for `case`."""
        return self.expected is not None or case.expected_calls is not None

    def evaluate(self, case: Case, run: CaseRun) -> Verdict | None:
        """Compare the calls made with the expected ones."""
        expected = self.expected if self.expected is not None else case.expected_calls
        if expected is None:
            return None
        mode = self.match or case.calls_match
        calls = run.calls
        if mode == "in_order":
            return _in_order(expected, calls)
        missing, extra = _unmatched(expected, calls)
        found = len(expected) - len(missing)
        score = found / max(len(expected) if mode == "subset" else len(expected) + len(extra), 1)
        problems = [f"missing {', '.join(call.describe() for call in missing)}"] if missing else []
        if extra and mode == "any_order":
            problems.append(f"unexpected {', '.join(call.describe() for call in extra)}")
        if problems:
            return Verdict(score=score, passed=False, reason="; ".join(problems))
        return Verdict.of(True, f"all {len(expected)} expected calls made ({mode.replace('_', ' ')})")


def _in_order(expected: Sequence[ExpectedCall], calls: Sequence[ObservedCall]) -> Verdict:
    prefix = 0
    while prefix < min(len(expected), len(calls)) and matches(expected[prefix], calls[prefix]):
        prefix += 1
    if prefix == len(expected) == len(calls):
        return Verdict.of(True, f"the {len(expected)} expected calls, in order")
    score = prefix / max(len(expected), len(calls))
    if prefix < len(expected) and prefix < len(calls):
        reason = f"call {prefix + 1}: expected {expected[prefix].describe()}, got {calls[prefix].describe()}"
    elif prefix < len(expected):
        reason = f"call {prefix + 1}: expected {expected[prefix].describe()}, but only {len(calls)} calls were made"
    else:
        reason = f"call {prefix + 1} was not expected: {calls[prefix].describe()}"
    return Verdict(score=score, passed=False, reason=reason)


@attrs.frozen(kw_only=True)
class HandoffPath:
    """The agents that ran, in order, against the expected path (`expected`, or else the case's `expected_agents`).

    Attributes:
        expected: the agents, in the order they became active, or `None` to use each case's `expected_agents`.
        name: the report's column.
    """

    expected: tuple[str, ...] | None = attrs.field(default=None, converter=_agents)
    name: str = "handoffs"

    def applies(self, case: Case) -> bool:
        """Whether there is an expected path for `case`."""
        return self.expected is not None or case.expected_agents is not None

    def evaluate(self, case: Case, run: CaseRun) -> Verdict | None:
        """Pass when the agents ran exactly along the expected path; score: the common prefix over the longer path."""
        expected = self.expected if self.expected is not None else case.expected_agents
        if expected is None:
            return None
        if tuple(run.agents) == tuple(expected):
            return Verdict.of(True, f"ran {' -> '.join(expected)}")
        prefix = 0
        while prefix < min(len(expected), len(run.agents)) and expected[prefix] == run.agents[prefix]:
            prefix += 1
        score = prefix / max(len(expected), len(run.agents))
        return Verdict(
            score=score, passed=False, reason=f"expected {' -> '.join(expected)}, ran {' -> '.join(run.agents)}"
        )
