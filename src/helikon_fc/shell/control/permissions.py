"""The IO half of permissions: an async policy, an approval handler, and `resolve_permission`.

The decision itself is pure (`helikon_fc.core.decide`); this module only awaits what the pure
decision cannot know — the verdict of a policy that needs IO (a database, a web service) and the
answer of a human — and feeds it back in, until the decision is `Allow` or `Deny`.

`Permissions` bundles the frozen `PermissionConfig` with the two callables. It is one immutable
value, so it crosses handoffs and `AgentAsTool` sub-runs unchanged. It and the other values a run
context carries (`Approve`, `Reject`, `Approvals`, ...) are written in `permission_values`, below the
run context, and re-exported here.
"""

from __future__ import annotations

import attrs
import trio

from ...core import (
    AgentEvent,
    Allow,
    ApprovalRequested,
    Ask,
    ConsultPolicy,
    Deny,
    PolicyVerdict,
    ToolCall,
    ToolEffect,
    ToolInfo,
    decide,
    decision_events,
    refuse_unanswered,
    replacement_problem,
)
from ..context.permission_values import (
    ApprovalAnswer,
    ApprovalHandler,
    ApprovalRequest,
    Approvals,
    Approve,
    PermissionPolicy,
    Permissions,
    Reject,
    is_async_callable,
    require_permissions,
)

__all__ = [
    "ApprovalAnswer",
    "Approvals",
    "Held",
    "ApprovalHandler",
    "ApprovalRequest",
    "Approve",
    "PermissionPolicy",
    "PermissionResolution",
    "Permissions",
    "Reject",
    "SubRunPaused",
    "denial_text",
    "held_question",
    "is_async_callable",
    "require_permissions",
    "resolve_permission",
]

MAX_APPROVAL_ROUNDS = 8
"""How many questions one call may raise before it is refused (each guard once, plus rewritten arguments)."""


@attrs.frozen
class PermissionResolution:
    """How one call was settled: the final `decision`, the `call` to run (arguments maybe replaced), the `events`.

    `events` holds an `ApprovalRequested` for every question asked, then the `PermissionGranted` or
    `PermissionDenied` of the final decision, in that order: the driver emits them as they are.
    """

    decision: Allow | Deny
    call: ToolCall
    events: tuple[AgentEvent, ...]


def denial_text(deny: Deny) -> str:
    """The error result the model reads for a refused call (the original's ``permission denied: R``)."""
    return f"permission denied: {deny.reason}"


class SubRunPaused(Exception):
    """Raised by a tool whose sub-run paused for approval (`AgentAsTool`): the call waits with it.

    Attributes:
        requests: What the sub-run's waiting calls ask.
    """

    def __init__(self, requests: tuple[ApprovalRequested, ...]) -> None:
        super().__init__(f"{len(requests)} call(s) of a sub-run wait for approval")
        self.requests = requests


class Held(Exception):
    """A question came up that only a human can answer and no answer is at hand (see `resolve_permission`'s `hold`).

    `call` is the call the question is about: the model's call, or the call with the arguments an
    approver gave in its place when those raised the question. The call waits as `call`, so the next
    question shows, and the next yes runs, the replacement; the replaced arguments never run.
    """

    def __init__(self, question: Ask, call: ToolCall) -> None:
        super().__init__(question.reason)
        self.question = question
        self.call = call


async def resolve_permission(
    permissions: Permissions,
    call: ToolCall,
    tool: ToolInfo | None = None,
    *,
    hold: bool = False,
    answer: ApprovalAnswer | None = None,
    given: ToolCall | None = None,
) -> PermissionResolution:
    """Decide `call`, awaiting the policy and the approver as the pure decision asks for them.

    Args:
        permissions: The run's permissions.
        call: The model's call.
        tool: The tool it names; `None` for an unknown tool (a side effect).
        hold: How a run asks: a question is answered with `answer` (once), and any other question
            raises `Held` instead of reaching the approval handler (the run's approval phase asks it).
        answer: With `hold`, the human's answer to the first question.
        given: The call before a `PreToolUse` hook replaced its arguments with `call`'s, if one did.

    Returns:
        The final decision, the call to run and the events that record how it was reached. A policy or
        handler that raises refuses the call (the reason names the exception); trio's ``Cancelled`` propagates.

    Raises:
        Held: with `hold`, a question is left that no answer was given for.
    """
    info = tool if tool is not None else ToolInfo(call.name, ToolEffect.SIDE_EFFECT, known=False)
    asking = _Asking(permissions, call, info, hold=hold, answer=answer)
    final = await asking.run()
    run = asking.call
    if isinstance(final, Allow):
        if final.arguments is not None:
            run = attrs.evolve(run, arguments=final.arguments)
        before = given if given is not None else call
        if asking.approvals or run.arguments != before.arguments:
            # An approved call records the arguments it runs with: `call` may itself be a replacement an
            # approver gave for an earlier question (a held call waits as its replacement).
            final = attrs.evolve(final, approved=final.approved or bool(asking.approvals), arguments=run.arguments)
    return PermissionResolution(final, run, (*asking.events, *decision_events(call, final)))


class _Asking:
    """The loop of one resolution: decide, await what the decision asks for, decide again."""

    def __init__(
        self, permissions: Permissions, call: ToolCall, tool: ToolInfo, *, hold: bool, answer: ApprovalAnswer | None
    ) -> None:
        self.permissions = permissions
        self.hold = hold
        self.answer = answer
        self.config = permissions.decision_config
        self.call = call
        self.tool = tool
        self.approved: set[str] = set()
        self.verdict: PolicyVerdict | None = None
        self.policy_approved = False
        self.approvals = 0
        self.events: list[AgentEvent] = []

    async def run(self) -> Allow | Deny:
        await trio.lowlevel.checkpoint()  # a call the rules settle still passes a checkpoint
        for _ in range(MAX_APPROVAL_ROUNDS + 2):
            decision = self.decide()
            match decision:
                case Allow() | Deny():
                    return decision
                case ConsultPolicy():
                    refusal = await self.consult()
                case Ask():
                    refusal = await self.ask(decision)
            if refusal is not None:
                return refusal
        return Deny(f"more than {MAX_APPROVAL_ROUNDS} approval rounds for one call")

    def decide(self) -> Allow | Deny | Ask | ConsultPolicy:
        decision = decide(self.config, self.call, self.tool, approved_guards=self.approved, policy_verdict=self.verdict)
        if self.policy_approved and isinstance(decision, Ask) and decision.guard is None:
            return Allow("approved by the approval handler", approved=True)
        return decision

    async def consult(self) -> Deny | None:
        await trio.lowlevel.checkpoint()
        policy = self.permissions.policy
        if policy is None:
            return Deny("no permission policy installed")
        try:
            self.verdict = await policy(self.call, self.tool)
        except Exception as exc:
            return Deny(f"permission policy raised {type(exc).__name__}: {exc}")
        return None

    async def ask(self, question: Ask) -> Deny | None:
        await trio.lowlevel.checkpoint()
        if self.approvals >= MAX_APPROVAL_ROUNDS:
            return Deny(f"more than {MAX_APPROVAL_ROUNDS} approval rounds for one call")
        if self.hold:
            if self.answer is None:
                raise Held(question, self.call)
            answer, self.answer = self.answer, None
        else:
            self.events.extend(decision_events(self.call, question))
            handler = self.permissions.approval_handler
            if handler is None:
                return refuse_unanswered(question)
            request = ApprovalRequest(self.call, self.tool, question.reason, question.prompt, question.guard)
            try:
                answer = await handler(request)
            except Exception as exc:
                return Deny(f"approval handler raised {type(exc).__name__}: {exc}")
        match answer:
            case Reject(reason=reason):
                return Deny(reason, rule=f"guard:{question.guard}" if question.guard else None)
            case Approve(arguments=arguments):
                self.approvals += 1
                return self.approve(question, arguments)

    def approve(self, question: Ask, arguments: str | None) -> Deny | None:
        """Record a yes: clear the guard (or the policy's question) for these arguments.

        A yes with new arguments answers nothing about them: they are judged afresh by every guard and the
        policy, the one just answered included, so a replacement the same guard stops asks it again. A
        replacement that cannot run the tool (see `replacement_problem`) refuses the call.
        """
        if arguments is not None and arguments != self.call.arguments:
            problem = replacement_problem(arguments, self.tool)
            if problem is not None:
                return Deny(f"the approver replaced the arguments with ones {problem}")
            self.call = attrs.evolve(self.call, arguments=arguments)
            self.approved.clear()
            self.verdict = None
            self.policy_approved = False
            return None
        if question.guard is not None:
            self.approved.add(question.guard)
        else:
            self.policy_approved = True
        return None


async def held_question(permissions: Permissions, call: ToolCall, tool: ToolInfo | None = None) -> Ask | None:
    """The question `call` raises for a human (the policy is consulted on the way), or `None` when none is left."""
    try:
        await resolve_permission(permissions, call, tool, hold=True)
    except Held as held:
        return held.question  # noqa: ASYNC910 - raised out of `resolve_permission`, which checkpoints first
    return None
