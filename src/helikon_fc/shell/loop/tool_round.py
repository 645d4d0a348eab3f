"""One tool call's pipeline in a run, and the approval phase of a round.

The per-call pipeline (`run_call`) follows the original's order: authorize (the run's
`Permissions`, see `helikon_fc.shell.control.permissions`) → the call's problem (an unknown tool,
arguments off its schema: `ExecuteTools.problems`) or invoke → redaction. Each step is one call,
so the hook steps (PreToolUse before authorize, PostToolUse after invoke) slot in beside them. A
call that cannot run is authorized like any other (under ``PLAN`` an unknown tool is refused, as
a side effect) and answered with its problem where the tool would run; arguments a hook or the
permissions replaced are checked afresh. A refused call is an error result the model reads
(``permission denied: R``); a call a human must decide first is *held* (`CallHeld`): the round
ends with it pending and the machine enters `NeedsApproval`.

The approval phase (`ApprovalPhase.settle`) gets a human decision for each held call: from the
decisions a resumed run was given (`RunContext.approvals`), else from the in-process approval
handler (the run waits for it, cancellable, under the run's deadline). Approved calls then go
through the pipeline again, with the answer (so replaced arguments are judged afresh); a call
whose question no one answered stays pending, and when nothing could be decided the run pauses.
A held call that no longer raises a question was waiting on a sub-run (an `AgentAsTool` whose own
run paused): it simply runs again, and the sub-run resumes with the decisions meant for it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias, assert_never

import attrs
import trio

from ...core import AgentEvent, ApprovalRequested, Deny, JsonObject, ToolCall, ToolResult, ToolResults
from ...core.loop_steps import CallDone, CallHeld, CallOutcome, after_approval, decided_split, round_results
from ..context.run_context import RunContext
from ..control.permissions import (
    MAX_APPROVAL_ROUNDS,
    ApprovalAnswer,
    ApprovalRequest,
    Held,
    Permissions,
    Reject,
    SubRunPaused,
    denial_text,
    held_question,
    resolve_permission,
)
from ..control.redaction import redact_result
from ..tools.tool import Tool, tool_info

__all__ = [
    "Allowed",
    "ApprovalPhase",
    "CallDone",
    "CallHeld",
    "CallOutcome",
    "authorize",
    "held_requests",
    "invoke_call",
    "round_results",
    "run_call",
]

RunTool: TypeAlias = Callable[..., Awaitable[ToolResult]]
"""`execute_tool_call` or its traced form: ``run(tool, call, ctx, checked=..., arguments=..., problem=...)``."""


@attrs.frozen
class Allowed:
    """The call may run as `call` (its arguments maybe replaced); `events` record the decision."""

    call: ToolCall
    events: tuple[AgentEvent, ...] = ()


def approval_key(ctx: RunContext[Any], call_id: str) -> str:
    """The id a paused run asks approval for `call_id` under: qualified by the run's place in the run tree
    (``"tool:call_1/call_7"`` for call ``call_7`` of the agent-as-tool sub-run of call ``call_1``), whether
    the run is recorded or not, as its stream's questions are."""
    return ctx.scope + call_id


def _waiting(ctx: RunContext[Any], call: ToolCall) -> ApprovalRequested:
    return ApprovalRequested(approval_key(ctx, call.call_id), call.name, call.arguments)


async def run_call(
    tool: Tool[Any] | None,
    call: ToolCall,
    ctx: RunContext[Any],
    run: RunTool,
    answer: ApprovalAnswer | None = None,
    arguments: JsonObject | None = None,
    problem: str | None = None,
    given: ToolCall | None = None,
) -> CallOutcome:
    """One call through the pipeline: authorize, then its problem or run it (`run` answers either), then redact.

    Args:
        tool: The tool the call names (`None`: unknown, which still goes through authorize first).
        call: The model's call, its arguments as `transition` checked them against the tool's schema.
        ctx: The run's context (its `permissions` decide; none: the call runs).
        run: What runs a call (`execute_tool_call` or the traced form).
        answer: A human's decision on the call's question (the approval phase passes it).
        arguments: The call's arguments as `transition` parsed them (`ExecuteTools.arguments`), if it did.
        problem: Why `transition` found the call cannot run (`ExecuteTools.problems`), if it did: its answer,
            unless the permissions replaced its arguments (those are checked afresh).
        given: The call as it was before a `PreToolUse` hook replaced its arguments, if one did (the
            grant then records the arguments that run).
    """
    permissions = ctx.permissions
    if permissions is None:
        return await invoke_call(tool, call, ctx, run, arguments, checked=True, problem=problem)
    allowed = await authorize(permissions, tool, call, ctx, answer, given)
    if not isinstance(allowed, Allowed):
        return allowed
    runnable = allowed.call
    unchanged = runnable.arguments == call.arguments
    outcome = await invoke_call(
        tool, runnable, ctx, run, arguments if unchanged else None, checked=unchanged, problem=problem
    )
    match outcome:
        case CallDone(result=result):
            return CallDone(redact_result(result, permissions.redaction), allowed.events)
        case CallHeld():
            return outcome
        case _:
            assert_never(outcome)


async def authorize(
    permissions: Permissions,
    tool: Tool[Any] | None,
    call: ToolCall,
    ctx: RunContext[Any],
    answer: ApprovalAnswer | None = None,
    given: ToolCall | None = None,
) -> CallDone | CallHeld | Allowed:
    """The permission decision on `call` (the pipeline's authorize step, the same in a trio run and in the
    Temporal worker's ``helikon.authorize_tool``): it may run (`Allowed`, its arguments maybe replaced), it
    is refused (`CallDone` with ``permission denied: R``), or it waits for a human (`CallHeld`, as the call
    the question is about: an approver's replacement, maybe). `given`: the call before a `PreToolUse` hook
    replaced its arguments, if one did."""
    try:
        resolution = await resolve_permission(
            permissions, call, tool_info(call, tool), hold=True, answer=answer, given=given
        )
    except Held as held:
        return CallHeld(held.call, (_waiting(ctx, held.call),))  # noqa: ASYNC910 - raised out of `resolve_permission`'s await
    decision = resolution.decision
    if isinstance(decision, Deny):
        return CallDone(ToolResult(call.call_id, denial_text(decision), is_error=True), resolution.events)
    return Allowed(resolution.call, resolution.events)


async def invoke_call(
    tool: Tool[Any] | None,
    call: ToolCall,
    ctx: RunContext[Any],
    run: RunTool,
    arguments: JsonObject | None,
    *,
    checked: bool,
    problem: str | None = None,
) -> CallOutcome:
    """Run the call with `run`, or answer it with its `problem` (`run` does, where `checked` says the arguments
    are the ones `transition` judged, or the tool is unknown); a sub-run that paused for approval holds it
    (the pipeline's invoke step)."""
    try:
        return CallDone(await run(tool, call, ctx, checked=checked, arguments=arguments, problem=problem))
    except SubRunPaused as paused:
        return CallHeld(call, paused.requests)  # noqa: ASYNC910 - raised out of the tool's own awaited run


def held_requests(outcomes: tuple[CallOutcome, ...]) -> tuple[ApprovalRequested, ...]:
    """What the held calls of a round ask a human, in call order."""
    return tuple(request for outcome in outcomes if isinstance(outcome, CallHeld) for request in outcome.requests)


@attrs.frozen
class _Decided:
    """The approval phase's answer for one held call: run it with `answer` (`None`: it no longer asks)."""

    answer: ApprovalAnswer | None


async def _decision_for(
    call: ToolCall, tool: Tool[Any] | None, ctx: RunContext[Any], before: tuple[ApprovalRequested, ...] | None
) -> _Decided | tuple[ApprovalRequested, ...]:
    """A decision for a held call, or what it asks when no one can decide it now.

    `before` is what the call asked when it was last held in this process (`None`: not yet).
    """
    await trio.lowlevel.checkpoint()  # every path below may answer without waiting
    approvals = ctx.approvals
    permissions = ctx.permissions
    question = await held_question(permissions, call, tool_info(call, tool)) if permissions is not None else None
    if question is None:
        # It waited on its sub-run: run it again, unless that sub-run paused in this process and
        # no decision for it has come since (it would only pause again).
        if before is None or (approvals is not None and any(r.call_id in approvals for r in before)):
            return _Decided(None)
        return before
    given = approvals.take(approval_key(ctx, call.call_id)) if approvals is not None else None
    if given is not None:
        return _Decided(given)
    assert permissions is not None
    handler = permissions.approval_handler
    if handler is None:
        return (_waiting(ctx, call),)
    request = ApprovalRequest(call, tool_info(call, tool), question.reason, question.prompt, question.guard)
    try:
        return _Decided(await handler(request))
    except Exception as exc:
        return _Decided(Reject(f"approval handler raised {type(exc).__name__}: {exc}"))


Execute: TypeAlias = Callable[
    [tuple[ToolCall, ...], Mapping[str, ApprovalAnswer | None]], Awaitable[tuple[CallOutcome, ...]]
]
"""Runs decided calls through `run_call` (each with its answer) and gives their outcomes in call order."""


class ApprovalPhase:
    """The approval phase of one run in this process: what each held call asked when last held here."""

    __slots__ = ("_answered", "_held")

    def __init__(self) -> None:
        self._held: dict[str, tuple[ApprovalRequested, ...]] = {}
        self._answered: dict[str, int] = {}  # answers given here per call: replacements that ask again are bounded

    def note(self, outcomes: tuple[CallOutcome, ...]) -> None:
        """Remember the held calls of a round just run."""
        for outcome in outcomes:
            if isinstance(outcome, CallHeld):
                self._held[outcome.call.call_id] = outcome.requests

    async def _decide(
        self, call: ToolCall, tool: Tool[Any] | None, ctx: RunContext[Any]
    ) -> _Decided | tuple[ApprovalRequested, ...]:
        """`_decision_for` the call, refused once it has had `MAX_APPROVAL_ROUNDS` answers here: each answer
        may replace the arguments with ones that ask again, so a handler could otherwise keep it asking forever."""
        answered = self._answered.get(call.call_id, 0)
        if answered >= MAX_APPROVAL_ROUNDS:
            await trio.lowlevel.checkpoint()
            return _Decided(Reject(f"more than {MAX_APPROVAL_ROUNDS} approval rounds for one call"))
        decided = await _decision_for(call, tool, ctx, self._held.get(call.call_id))
        if isinstance(decided, _Decided) and decided.answer is not None:
            self._answered[call.call_id] = answered + 1
        return decided

    async def settle(
        self, pending: tuple[ToolCall, ...], tools: Mapping[str, Tool[Any]], ctx: RunContext[Any], execute: Execute
    ) -> ToolResults | tuple[ApprovalRequested, ...]:
        """Decide the held calls of a round and run the decided ones (see the module docstring).

        Returns:
            The `ToolResults` for the machine (calls still undecided as its pending), or, when no call
            could be decided, what every waiting call asks (the run pauses).
        """
        await trio.lowlevel.checkpoint()
        answers: dict[str, ApprovalAnswer | None] = {}
        waiting: list[ApprovalRequested] = []
        for call in pending:  # one by one: a human answers one question at a time
            decided = await self._decide(call, tools.get(call.name), ctx)
            if isinstance(decided, _Decided):
                answers[call.call_id] = decided.answer
            else:
                waiting.extend(decided)
        if not answers:
            return tuple(waiting)
        ready, undecided = decided_split(pending, answers)
        outcomes = await execute(ready, answers)
        self.note(outcomes)
        return after_approval(undecided, round_results(outcomes))
