"""`RunContext`: what a run carries besides its conversation — the user's value, shared state,
the escalate signal, cancellation, the session, the nesting depth and the run's config.

It also declares what receives a context: a hook (`Hook`, gathered in `Hooks`) and a guardrail
(`Guardrail`). A context carries them and they are called with it, so they live beside it; the code
that fires hooks and runs guardrails (`helikon_fc.shell.control.hooks`, `helikon_fc.shell.control.guardrails`) sits
above this module and re-exports them.

What the context carries has a module each (`run_state`, `actions`, `cancel`, `session`,
`worker_gate`); this module re-exports those values, as a context's fields are read with it.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Generic, Literal, TypeAlias, TypeVar

import attrs

from ...core import AgentEvent
from .. import _checks
from ..durable.run_log import Durability
from ..durable.storage import Session
from ..telemetry.metering import UsageMeter
from ..telemetry.tracing import Tracer
from .actions import ActionsHandle
from .cancel import CancelToken
from .config import RunConfig
from .control_values import GuardrailVerdict, HookDecision, HookPoint
from .permission_values import Approvals, Permissions, require_permissions
from .run_state import RunState, SessionState
from .session import InMemorySession
from .worker_gate import GatedActions, GatedCancelToken, GatedSession, GatedState, WorkerGate

__all__ = [
    "ActionsHandle",
    "CancelToken",
    "ChildKind",
    "Guardrail",
    "Hook",
    "Hooks",
    "InMemorySession",
    "RunContext",
    "RunState",
    "SessionState",
    "WorkerGate",
    "as_hooks",
    "guardrail_tuple",
    "require_guardrail",
    "require_hook",
]

Ctx = TypeVar("Ctx")
_DEFAULT_CONFIG = RunConfig()


# What receives a context: hooks and guardrails.


Hook: TypeAlias = Callable[["RunContext[Ctx]", HookPoint], Awaitable[HookDecision | None]]
"""An async callable consulted at every point."""

_HOOK = "an async callable (ctx, point) -> HookDecision | None"


def require_hook(owner: str, argument: str, value: object) -> None:
    """Raise `TypeError` unless `value` can be a hook: callable, and not a plain ``def`` (which cannot be awaited)."""
    if not callable(value) or isinstance(value, type | Hooks):
        raise TypeError(_checks.message(owner, argument, value, _HOOK))
    if inspect.isfunction(value) and not inspect.iscoroutinefunction(value):
        raise TypeError(_checks.message(owner, argument, value, _HOOK, "define it with `async def`"))


def _hook_tuple(hooks: Iterable[Hook[Any]]) -> tuple[Hook[Any], ...]:
    if callable(hooks) and not isinstance(hooks, Hooks):
        raise TypeError(_checks.message("Hooks", "hooks", hooks, "an iterable of hooks", "wrap one hook in a list"))
    items = tuple(hooks)
    for index, hook in enumerate(items):
        require_hook("Hooks", f"hooks[{index}]", hook)
    return items


def as_hooks(value: Hooks[Any] | Iterable[Hook[Any]]) -> Hooks[Any]:
    """`value` as a `Hooks` registry: a registry as it is, an iterable of hooks wrapped (and checked)."""
    return value if isinstance(value, Hooks) else Hooks(value)


@attrs.frozen
class Hooks(Generic[Ctx]):
    """A registry of hooks, fired in order (an agent's, or a run's)."""

    hooks: tuple[Hook[Ctx], ...] = attrs.field(default=(), converter=_hook_tuple)

    def __bool__(self) -> bool:
        """Whether there is any hook to fire."""
        return bool(self.hooks)

    def with_hook(self, hook: Hook[Ctx]) -> Hooks[Ctx]:
        """A copy with `hook` added last."""
        return attrs.evolve(self, hooks=(*self.hooks, hook))


_CHECK = "an async callable (ctx, text) -> Pass | Tripwire"


def _require_check(owner: str, argument: str, value: object) -> None:
    if not callable(value) or isinstance(value, type):
        raise TypeError(_checks.message(owner, argument, value, _CHECK))
    if inspect.isfunction(value) and not inspect.iscoroutinefunction(value):
        raise TypeError(_checks.message(owner, argument, value, _CHECK, "define it with `async def`"))


@attrs.frozen
class Guardrail(Generic[Ctx]):
    """A named async check: ``await check(ctx, text)`` answers `Pass` or `Tripwire`.

    Attributes:
        name: Names the guardrail in a raising guardrail's tripwire info.
        check: The check; it may await (a moderation call) and may raise (a tripwire of kind ``"other"``).
    """

    name: str = attrs.field(validator=_checks.field(_checks.require_name))
    check: Callable[[RunContext[Ctx], str], Awaitable[GuardrailVerdict]] = attrs.field(
        validator=_checks.field(_require_check)
    )


def require_guardrail(owner: str, argument: str, value: object) -> None:
    """Raise `TypeError` unless `value` is a `Guardrail`; a bare function gets a hint to wrap it."""
    if isinstance(value, Guardrail):
        return
    hint = "wrap the check: Guardrail('name', check)" if callable(value) else ""
    raise TypeError(_checks.message(owner, argument, value, "a Guardrail(name, check)", hint))


def guardrail_tuple(owner: str, argument: str, value: object) -> tuple[Guardrail[Any], ...]:
    """`value` (an iterable of guardrails) as a tuple, each element checked (`require_guardrail`)."""
    if isinstance(value, Guardrail | str) or not isinstance(value, Iterable):
        raise TypeError(_checks.message(owner, argument, value, "a list of Guardrail values", "wrap one in a list"))
    items = tuple(value)
    for index, item in enumerate(items):
        require_guardrail(owner, f"{argument}[{index}]", item)
    return items


_NO_HOOKS: Hooks[Any] = Hooks()

ChildKind: TypeAlias = Literal["handoff", "workflow", "tool"]
"""The kinds of sub-run a context makes a child context for (`RunContext.child`)."""

Stream: TypeAlias = Callable[[AgentEvent], Awaitable[None]]
"""Where a run's events go, one at a time (the loop's ``Send``)."""


def _input_guardrails(value: object) -> tuple[Guardrail[Any], ...]:
    return value if value == () else guardrail_tuple("RunContext", "input_guardrails", value)


def _output_guardrails(value: object) -> tuple[Guardrail[Any], ...]:
    return value if value == () else guardrail_tuple("RunContext", "output_guardrails", value)


@attrs.frozen
class RunContext(Generic[Ctx]):
    """Everything a run carries besides its conversation.

    Build one with `RunContext.ephemeral(user)`. `user` is the application's own value (typed by
    ``Ctx``); `state` is shared with sub-agents; `cancel()` ends the run from any task (or thread) with
    `RunFailed(Cancelled)` as its last event. `tracer` (default `None`: no tracing, at no cost)
    receives a span per agent run, model call and tool call; it crosses every child context,
    an agent-as-tool sub-run's included (see `helikon_fc.otel.OpenTelemetryTracer`).
    """

    user: Ctx
    state: RunState = attrs.field(factory=RunState)
    actions: ActionsHandle = attrs.field(factory=ActionsHandle)
    cancel_token: CancelToken = attrs.field(factory=CancelToken)
    session: Session = attrs.field(factory=InMemorySession)
    agent_depth: int = 0
    run_config: RunConfig | None = None
    tracer: Tracer | None = None
    durable: Durability | None = None
    """Where the run records itself (set by ``Runner(config, store=...)``); `None` for a run that is not recorded."""
    depth_limit: int | None = None
    """The deepest level a run below this one may start at: the tightest ``max_agent_depth`` in force
    in the runs above (`None` until a run sets one). It crosses every boundary, `AgentAsTool` included,
    and only ever tightens; see `for_run`."""
    meter: UsageMeter | None = attrs.field(default=None, eq=False, repr=False)
    """The usage meter of the run this context belongs to (`None` outside any run); see `for_run`."""
    hooks: Hooks[Ctx] = attrs.field(default=_NO_HOOKS, converter=as_hooks, eq=False)
    """The run-level hooks: they fire after each agent's own, in every model loop run in this context and
    its handoff and workflow children; an `AgentAsTool` sub-run gets none (see `with_hooks`)."""
    input_guardrails: tuple[Guardrail[Ctx], ...] = attrs.field(default=(), converter=_input_guardrails, eq=False)
    """Run-level input guardrails, checked beside each agent's own wherever the run-level hooks fire."""
    output_guardrails: tuple[Guardrail[Ctx], ...] = attrs.field(default=(), converter=_output_guardrails, eq=False)
    """Run-level output guardrails, checked beside each agent's own on every final answer of a model loop."""
    permissions: Permissions | None = attrs.field(default=None, validator=_checks.field(require_permissions))
    """What the run's tool calls may do: decided per call before it runs, its output redacted (`None`:
    every call runs, nothing is redacted). It crosses every boundary, `AgentAsTool` included."""
    approvals: Approvals | None = attrs.field(default=None, eq=False, repr=False)
    """The human decisions a resumed run was given (``runner.resume(..., approvals=...)``), shared by its sub-runs."""
    stream: Stream | None = attrs.field(default=None, eq=False, repr=False)
    """The event stream of the model loop whose tools run in this context (set by `for_run`; `None` outside
    one): an `AgentAsTool` relays its sub-run's questions into it while the call runs."""
    scope: str = ""
    """The run's place below the run that was started (``""`` there, ``"tool:CALL/"`` in an agent-as-tool
    sub-run, ...; set by `child`, recorded or not): it qualifies the call ids a paused run asks approval for,
    as the stream's questions are qualified, so a decision reaches the run whose call waits."""

    @classmethod
    def ephemeral(cls, user: Ctx, *, session: Session | None = None) -> RunContext[Ctx]:
        """A fresh context: empty state, a new cancel token, depth 0, and `session` (a new in-memory
        one when `None`; pass ``store.session(id)`` for a history that outlives the process)."""
        return cls(user) if session is None else cls(user, session=session)

    def cancel(self, reason: str = "run cancelled") -> None:
        """Cancel every run using this context; each ends with `RunFailed(Cancelled)`. Safe from any thread."""
        self.cancel_token.cancel(reason)

    @property
    def cancelled(self) -> bool:
        """Whether the run was cancelled from outside."""
        return self.cancel_token.cancelled

    def for_worker_thread(self, gate: WorkerGate) -> RunContext[Ctx]:
        """The same context as a sync tool's worker thread must see it: its state, signals, cancellation and
        session reached through `gate` (on the trio thread, and only while the call runs)."""
        return attrs.evolve(
            self,
            state=GatedState(self.state, gate),
            actions=GatedActions(self.actions, gate),
            cancel_token=GatedCancelToken(self.cancel_token, gate),
            session=GatedSession(self.session, gate),
            stream=None,  # an async sink the thread could not await
        )

    def with_run_config(self, config: RunConfig | None) -> RunContext[Ctx]:
        """The same context with `config` installed (it wins over the agent's own)."""
        return attrs.evolve(self, run_config=config)

    def with_hooks(self, *hooks: Hook[Ctx]) -> RunContext[Ctx]:
        """The same context with `hooks` added to the run-level hooks, after the ones it has.

        Run-level hooks fire after the running agent's own (`LlmAgent(hooks=...)`) at every point. They
        cross handoffs and workflow children (one registry for the whole run, so `OnRunStart` fires
        again for a handoff target) and receive `OnSubagentStop` when a child or an agent-as-tool
        sub-run stops; the sub-run itself gets none.
        """
        return attrs.evolve(self, hooks=Hooks((*self.hooks.hooks, *hooks)))

    def with_input_guardrails(self, *guardrails: Guardrail[Ctx]) -> RunContext[Ctx]:
        """The same context with `guardrails` added to the run-level input guardrails."""
        return attrs.evolve(self, input_guardrails=(*self.input_guardrails, *guardrails))

    def with_output_guardrails(self, *guardrails: Guardrail[Ctx]) -> RunContext[Ctx]:
        """The same context with `guardrails` added to the run-level output guardrails."""
        return attrs.evolve(self, output_guardrails=(*self.output_guardrails, *guardrails))

    def with_permissions(self, permissions: Permissions | None) -> RunContext[Ctx]:
        """The same context with `permissions` deciding every tool call (`None`: no checks)."""
        return attrs.evolve(self, permissions=permissions)

    def with_tracer(self, tracer: Tracer | None) -> RunContext[Ctx]:
        """The same context traced by `tracer` (`None`: not traced)."""
        return attrs.evolve(self, tracer=tracer)

    @property
    def run_id(self) -> str | None:
        """The id the run is recorded under, or `None` when it is not recorded."""
        return self.durable.run_id if self.durable is not None else None

    def for_run(self, own: RunConfig | None = None, stream: Stream | None = None) -> RunContext[Ctx]:
        """The context a run that starts in this one works in (what its tools and children see).

        It has the run's own `UsageMeter` (a child of the one in force, so the run's usage also counts
        for every run above it), the run's depth limit: the tighter of the one in force
        (`depth_limit`) and its config's ``max_agent_depth`` (the installed `run_config`, else `own`,
        the agent's own), and the run's own event `stream` (a model loop's; `None` for a workflow, whose
        children each have theirs). A limit set higher below never loosens one above.
        """
        limit = _tightest(self.depth_limit, self.run_config or own)
        meter = self.meter.child() if self.meter is not None else UsageMeter()
        return attrs.evolve(self, depth_limit=limit, meter=meter, stream=stream)

    def with_meter_slot(self) -> tuple[RunContext[Ctx], UsageMeter]:
        """This context with a fresh meter below the one in force, for one child run; and that meter."""
        slot = self.meter.child() if self.meter is not None else UsageMeter()
        return attrs.evolve(self, meter=slot), slot

    @property
    def max_agent_depth(self) -> int:
        """The deepest level a child of a run in this context may start at (see `limit_depth`)."""
        return _tightest(self.depth_limit, self.run_config)

    def child(self, kind: ChildKind, segment: str) -> RunContext[Ctx]:
        """The context of a sub-run of `kind` at `segment` below this run's `scope`, recorded (when this context
        is) under its child id `segment`.

        `kind` says what crosses (see `handoff_child`, `subagent_child`, `isolated_child`):
        ``"handoff"`` a handoff target, ``"workflow"`` a workflow child, ``"tool"`` an agent-as-tool sub-run.
        """
        made = attrs.evolve(_CHILDREN[kind](self), scope=f"{self.scope}{segment}/")
        return made if self.durable is None else attrs.evolve(made, durable=self.durable.child(segment))

    def handoff_child(self) -> RunContext[Ctx]:
        """The context a handoff target runs in: everything shared, one level deeper (not recorded:
        `child` gives it its child id)."""
        return attrs.evolve(self, agent_depth=self.agent_depth + 1, durable=None)

    def subagent_child(self) -> RunContext[Ctx]:
        """The context a workflow child runs in: shared state and session, its own escalate
        signal and a child cancel token, one level deeper."""
        return attrs.evolve(
            self,
            actions=ActionsHandle(),
            cancel_token=self.cancel_token.child(),
            agent_depth=self.agent_depth + 1,
            durable=None,
        )

    def isolated_child(self) -> RunContext[Ctx]:
        """The context of an agent-as-tool sub-run: the user value, cancellation, the tracer, depth and
        the permissions (with a resumed run's approvals) cross; it gets a fresh in-memory session,
        fresh state and signals, no run config, and no run-level hooks or guardrails (the wrapped
        agent's own still apply). The depth limit in force crosses too, so a sub-run can never nest
        deeper than its callers allow."""
        return RunContext(
            self.user,
            cancel_token=self.cancel_token.child(),
            agent_depth=self.agent_depth + 1,
            tracer=self.tracer,
            depth_limit=self.max_agent_depth,
            meter=self.meter,
            permissions=self.permissions,
            approvals=self.approvals,
        )


_CHILDREN: dict[str, Callable[[RunContext[Any]], RunContext[Any]]] = {
    "handoff": RunContext.handoff_child,
    "workflow": RunContext.subagent_child,
    "tool": RunContext.isolated_child,
}


def _tightest(depth_limit: int | None, config: RunConfig | None) -> int:
    """The tighter of a depth limit in force and a config's; the default (8) when neither is set."""
    if config is None:
        return depth_limit if depth_limit is not None else _DEFAULT_CONFIG.max_agent_depth
    return config.max_agent_depth if depth_limit is None else min(depth_limit, config.max_agent_depth)
