"""`RunContext`: what a run carries besides its conversation — the user's value, shared state,
the escalate signal, cancellation, the session, the nesting depth and the run's config.

It also declares what receives a context: a hook (`Hook`, gathered in `Hooks`) and a guardrail
(`Guardrail`). A context carries them and they are called with it, so they live beside it; the code
that fires hooks and runs guardrails (`helikon_fc.shell.hooks`, `helikon_fc.shell.guardrails`) sits
above this module and re-exports them.
"""

from __future__ import annotations

import copy
import inspect
import json
import weakref
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from types import TracebackType
from typing import Any, Generic, TypeAlias, TypeVar

import attrs
import trio

from ..core import Item, JsonValue
from . import _checks
from .config import RunConfig
from .control_values import GuardrailVerdict, HookDecision, HookPoint
from .durable import Durability
from .metering import UsageMeter
from .permissions import Approvals, Permissions, require_permissions
from .storage import Session, SessionSnapshot
from .tracing import Tracer

Ctx = TypeVar("Ctx")
T = TypeVar("T")
_DEFAULT_CONFIG = RunConfig()
Ctx_co = TypeVar("Ctx_co", covariant=True)


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


def _input_guardrails(value: object) -> tuple[Guardrail[Any], ...]:
    return value if value == () else guardrail_tuple("RunContext", "input_guardrails", value)


def _output_guardrails(value: object) -> tuple[Guardrail[Any], ...]:
    return value if value == () else guardrail_tuple("RunContext", "output_guardrails", value)


class RunState:
    """A run-scoped map from keys to JSON values, shared by an agent and the sub-agents it runs
    (``ctx.state``; its old name, `SessionState`, still imports: it has nothing to do with a `Session`).

    Workflow agents write each child's final text here under the child's key (as a JSON string);
    dynamic instructions read it back. Values are copied in and out, so no caller can change a
    stored value behind the state's back.
    """

    __slots__ = ("_values",)

    def __init__(self, values: dict[str, JsonValue] | None = None) -> None:
        self._values: dict[str, JsonValue] = {}
        for key, value in (values or {}).items():
            self.set(key, value)

    def get(self, key: str) -> JsonValue | None:
        """The value stored under `key`, or `None`."""
        value = self._values.get(key)
        return value if isinstance(value, str | int | float | bool) or value is None else copy.deepcopy(value)

    def set(self, key: str, value: JsonValue) -> None:
        """Store `value` under `key`; raises `TypeError` if it is not JSON."""
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"state[{key!r}] must be a JSON value: {exc}") from None
        self._values[key] = copy.deepcopy(value)

    def keys(self) -> tuple[str, ...]:
        """The keys, in the order they were first set."""
        return tuple(self._values)

    def snapshot(self) -> dict[str, JsonValue]:
        """A copy of everything stored."""
        return copy.deepcopy(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __repr__(self) -> str:
        return f"RunState({self._values!r})"


SessionState = RunState
"""Deprecated: the old name of `RunState` (the same class)."""


class ActionsHandle:
    """Signals a tool can raise for the orchestrator around its agent; `escalate()` ends a `LoopAgent`."""

    __slots__ = ("_escalated",)

    def __init__(self) -> None:
        self._escalated = False

    def escalate(self) -> None:
        """Ask the enclosing loop to stop after the current sub-agent finishes."""
        self._escalated = True

    @property
    def escalated(self) -> bool:
        """Whether `escalate()` was called since the last `reset()`."""
        return self._escalated

    def reset(self) -> None:
        """Clear the escalate flag."""
        self._escalated = False


class CancelToken:
    """Cancellation that crosses task boundaries: cancelling a token cancels every run attached to it
    and every child token; cancelling a child never reaches its parent.

    A token holds its children weakly: a child lives as long as the run context that carries it,
    so a long-lived context does not accumulate one token per sub-agent run it ever started."""

    __slots__ = ("__weakref__", "_children", "_reason", "_scopes", "_trio_token")

    def __init__(self) -> None:
        self._reason: str | None = None
        # Both made on first use: most tokens never get a child, and whatever a token holds, every
        # concurrent run holds (a `WeakSet` alone is eight objects for the garbage collector to track).
        self._scopes: set[trio.CancelScope] | None = None
        self._children: weakref.WeakSet[CancelToken] | None = None
        self._trio_token: trio.lowlevel.TrioToken | None = None

    @property
    def cancelled(self) -> bool:
        """Whether `cancel` was called (here or on an ancestor)."""
        return self._reason is not None

    @property
    def reason(self) -> str | None:
        """Why it was cancelled, or `None`."""
        return self._reason

    def cancel(self, reason: str = "run cancelled") -> None:
        """Cancel every run attached to this token and to its children. Idempotent.

        Safe from any thread, and it never blocks: off the trio thread of the run it last attached to,
        the flags are set at once and the scopes are cancelled on that thread
        (`trio.lowlevel.TrioToken.run_sync_soon`); a run that is over has no scope left to cancel.
        """
        if self._reason is not None:
            return
        self._reason = reason
        token = self._trio_token
        if token is None or _on_trio_thread(token):
            self._cancel_scopes()
        else:
            try:
                token.run_sync_soon(self._cancel_scopes)
            except trio.RunFinishedError:
                pass
        if self._children is not None:
            for child in list(self._children):
                child.cancel(reason)

    def _cancel_scopes(self) -> None:
        if self._scopes is not None:
            for scope in list(self._scopes):
                scope.cancel()

    def child(self) -> CancelToken:
        """A token cancelled with this one, that can also be cancelled on its own."""
        token = CancelToken()
        if self._children is None:
            self._children = weakref.WeakSet()
        self._children.add(token)
        if self._reason is not None:
            token.cancel(self._reason)
        return token

    def attach(self, scope: trio.CancelScope) -> AbstractContextManager[None]:
        """Cancel `scope` when this token is cancelled (at once if it already is), while inside the block.

        Call it from the trio thread that runs `scope`.
        """
        return _Attachment(self, scope)

    def _attach(self, scope: trio.CancelScope) -> None:
        # Token and scope first, the flag last: a thread cancelling meanwhile is then seen either way.
        self._trio_token = trio.lowlevel.current_trio_token()
        if self._scopes is None:
            self._scopes = set()
        self._scopes.add(scope)
        if self._reason is not None:
            scope.cancel()

    def _detach(self, scope: trio.CancelScope) -> None:
        if self._scopes is not None:
            self._scopes.discard(scope)


class _Attachment:
    """What `CancelToken.attach` returns: one slotted object per attached run, where a
    ``@contextmanager`` costs a generator, its context manager and that one's ``__dict__``."""

    __slots__ = ("_scope", "_token")

    def __init__(self, token: CancelToken, scope: trio.CancelScope) -> None:
        self._token = token
        self._scope = scope

    def __enter__(self) -> None:
        self._token._attach(self._scope)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._token._detach(self._scope)


def _on_trio_thread(token: trio.lowlevel.TrioToken) -> bool:
    """Whether this thread runs the trio run `token` belongs to."""
    return trio.lowlevel.in_trio_run() and trio.lowlevel.current_trio_token() is token


class InMemorySession:
    """A `Session` kept in memory: what earlier runs on this context said.

    `Runner` prepends the history to a run's input and appends the run's new items when it ends.
    Each call runs whole between two trio checkpoints, so concurrent tasks never see half an append.
    For a history that outlives the process, use a store's session (`helikon_fc.stores`).
    """

    __slots__ = ("_items", "_session_id")

    def __init__(self, items: Iterable[Item] = (), *, session_id: str = "memory") -> None:
        # An empty session holds the empty tuple until its first append: every run context has a
        # session, and most never append to theirs.
        self._items: list[Item] | tuple[()] = list(items) or ()
        self._session_id = session_id

    @property
    def session_id(self) -> str:
        """The id this session was given (``"memory"`` unless named)."""
        return self._session_id

    async def append(self, items: Sequence[Item]) -> int:
        """Add `items` at the end; return the watermark (the item count) after them."""
        await trio.lowlevel.checkpoint()
        if isinstance(self._items, tuple):
            self._items = list(items)
        else:
            self._items.extend(items)
        return len(self._items)

    async def items(self, since: int | None = None) -> tuple[Item, ...]:
        """The items appended after watermark `since` (all of them when ``None``), oldest first."""
        if since is not None and (isinstance(since, bool) or not isinstance(since, int) or since < 0):
            raise ValueError(f"since must be a watermark (an int >= 0) or None, got {since!r}")
        await trio.lowlevel.checkpoint()
        return tuple(self._items[since or 0 :])

    async def snapshot(self) -> SessionSnapshot:
        """Every item and the current watermark."""
        await trio.lowlevel.checkpoint()
        return SessionSnapshot(tuple(self._items), len(self._items))

    def __len__(self) -> int:
        return len(self._items)


class WorkerGate:
    """What a sync tool's worker thread may still reach of its run, and on which thread.

    While the gate is open, every use of the run's state, signals, cancellation and session runs on the
    trio thread (`trio.from_thread.run_sync`), never beside it on the worker thread. The trio side calls
    `close()` when the call is over (it returned, failed, timed out or was cancelled and its thread
    abandoned); from then on every use raises `RuntimeError` and changes nothing, whether the run goes
    on or has ended.

    Args:
        label: What the call is, for the error (``"tool 'x' (call 'c1')"``).
    """

    __slots__ = ("_label", "_open", "_token")

    def __init__(self, label: str) -> None:
        self._label = label
        self._open = True
        self._token = trio.lowlevel.current_trio_token()

    @property
    def is_open(self) -> bool:
        """Whether the call is still running."""
        return self._open

    def close(self) -> None:
        """End the call: every later use raises. Call it from the trio thread."""
        self._open = False

    def run(self, fn: Callable[[], T]) -> T:
        """`fn()` on the trio thread, while the gate is open.

        Raises:
            RuntimeError: the gate is closed (the call is over), or the run has ended.
        """
        if not self._open:
            raise self._over()
        if _on_trio_thread(self._token):
            return fn()
        try:
            return trio.from_thread.run_sync(self._run_open, fn, trio_token=self._token)
        except trio.RunFinishedError:
            raise self._over() from None

    def _run_open(self, fn: Callable[[], T]) -> T:
        if not self._open:  # closed while the request crossed over to the trio thread
            raise self._over()
        return fn()

    def _over(self) -> RuntimeError:
        return RuntimeError(
            f"{self._label} is over: its context no longer accepts use from its worker thread "
            "(the call returned, failed, timed out or was cancelled)"
        )


class _GatedState(RunState):
    """A run's `RunState` as a worker thread sees it: every use through a `WorkerGate`."""

    __slots__ = ("_gate", "_inner")

    def __init__(self, inner: RunState, gate: WorkerGate) -> None:  # no super().__init__: `inner` holds the values
        self._inner = inner
        self._gate = gate

    def get(self, key: str) -> JsonValue | None:
        return self._gate.run(lambda: self._inner.get(key))

    def set(self, key: str, value: JsonValue) -> None:
        self._gate.run(lambda: self._inner.set(key, value))

    def keys(self) -> tuple[str, ...]:
        return self._gate.run(self._inner.keys)

    def snapshot(self) -> dict[str, JsonValue]:
        return self._gate.run(self._inner.snapshot)

    def __contains__(self, key: object) -> bool:
        return self._gate.run(lambda: key in self._inner)

    def __repr__(self) -> str:
        return "<RunState of a worker thread>"


class _GatedActions(ActionsHandle):
    """A run's `ActionsHandle` as a worker thread sees it."""

    __slots__ = ("_gate", "_inner")

    def __init__(self, inner: ActionsHandle, gate: WorkerGate) -> None:
        self._inner = inner
        self._gate = gate

    def escalate(self) -> None:
        self._gate.run(self._inner.escalate)

    @property
    def escalated(self) -> bool:
        return self._gate.run(lambda: self._inner.escalated)

    def reset(self) -> None:
        self._gate.run(self._inner.reset)


class _GatedCancelToken(CancelToken):
    """A run's `CancelToken` as a worker thread sees it: it may cancel the run while its call runs."""

    __slots__ = ("_gate", "_inner")

    def __init__(self, inner: CancelToken, gate: WorkerGate) -> None:
        self._inner = inner
        self._gate = gate

    @property
    def cancelled(self) -> bool:
        return self._inner.cancelled

    @property
    def reason(self) -> str | None:
        return self._inner.reason

    def cancel(self, reason: str = "run cancelled") -> None:
        self._gate.run(lambda: self._inner.cancel(reason))

    def child(self) -> CancelToken:
        return self._gate.run(self._inner.child)

    @contextmanager
    def attach(self, scope: trio.CancelScope) -> Iterator[None]:
        raise RuntimeError("a cancel scope can be attached only from the trio thread, not from a worker thread")
        yield  # pragma: no cover


class _GatedSession:
    """A run's session as a sync tool's context carries it: usable while the call runs, refused after.

    The session is async, so only async code (on the trio thread) can use it; each call first checks
    the gate, so a call that is over cannot change the history."""

    __slots__ = ("_gate", "_inner")

    def __init__(self, inner: Session, gate: WorkerGate) -> None:
        self._inner = inner
        self._gate = gate

    @property
    def session_id(self) -> str:
        return self._inner.session_id

    async def append(self, items: Sequence[Item]) -> int:
        self._gate.run(_nothing)
        return await self._inner.append(items)

    async def items(self, since: int | None = None) -> tuple[Item, ...]:
        self._gate.run(_nothing)
        return await self._inner.items(since)

    async def snapshot(self) -> SessionSnapshot:
        self._gate.run(_nothing)
        return await self._inner.snapshot()


def _nothing() -> None:
    """What `_GatedSession` runs through the gate: only its check that the call is still open."""


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
            state=_GatedState(self.state, gate),
            actions=_GatedActions(self.actions, gate),
            cancel_token=_GatedCancelToken(self.cancel_token, gate),
            session=_GatedSession(self.session, gate),
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

    def for_run(self, own: RunConfig | None = None) -> RunContext[Ctx]:
        """The context a run that starts in this one works in (what its tools and children see).

        It has the run's own `UsageMeter` (a child of the one in force, so the run's usage also counts
        for every run above it) and the run's depth limit: the tighter of the one in force
        (`depth_limit`) and its config's ``max_agent_depth`` (the installed `run_config`, else `own`,
        the agent's own). A limit set higher below never loosens one above.
        """
        limit = _tightest(self.depth_limit, self.run_config or own)
        meter = self.meter.child() if self.meter is not None else UsageMeter()
        return attrs.evolve(self, depth_limit=limit, meter=meter)

    def with_meter_slot(self) -> tuple[RunContext[Ctx], UsageMeter]:
        """This context with a fresh meter below the one in force, for one child run; and that meter."""
        slot = self.meter.child() if self.meter is not None else UsageMeter()
        return attrs.evolve(self, meter=slot), slot

    @property
    def max_agent_depth(self) -> int:
        """The deepest level a child of a run in this context may start at (see `limit_depth`)."""
        return _tightest(self.depth_limit, self.run_config)

    def handoff_child(self) -> RunContext[Ctx]:
        """The context a handoff target runs in: everything shared, one level deeper (not recorded
        until given a child id: see `child_context`)."""
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


def child_context(ctx: RunContext[Any], parent: RunContext[Any], segment: str) -> RunContext[Any]:
    """`ctx` (a sub-run's context built from `parent`) recorded under `parent`'s child id `segment`."""
    durable = parent.durable
    if durable is None:
        return ctx
    return attrs.evolve(ctx, durable=durable.child(segment))


def _tightest(depth_limit: int | None, config: RunConfig | None) -> int:
    """The tighter of a depth limit in force and a config's; the default (8) when neither is set."""
    if config is None:
        return depth_limit if depth_limit is not None else _DEFAULT_CONFIG.max_agent_depth
    return config.max_agent_depth if depth_limit is None else min(depth_limit, config.max_agent_depth)
