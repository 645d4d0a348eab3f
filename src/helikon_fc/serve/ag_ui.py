"""The AG-UI protocol (``ag-ui-protocol`` 1.0) for helikon_fc agents, as an ASGI app for any ASGI server.

``ag_ui_endpoint(agents)`` answers ``POST`` with a `RunAgentInput` body by running the agent with a
`Runner` under trio and streaming the run as AG-UI events (server-sent events, written by the
package's `EventEncoder`), so AG-UI frontends (CopilotKit and others) talk to it unchanged. Mount it
where you like: ``Route("/ag-ui", ag_ui_endpoint(agent), methods=["POST"])`` in a Starlette app, or
serve it alone (``hypercorn.trio.serve(endpoint, config)``). See ``docs/ag-ui.md``.

- The request: ``threadId`` names the conversation (the session, with `sessions`), ``runId`` the run,
  ``messages`` are its conversation (the last user message its input), ``state`` seeds ``ctx.state``;
  see `helikon_fc.serve._ag_ui_input` for what crosses. A body that is not a valid ``RunAgentInput``
  is answered 400 with ``{"error": ..., "problems": [...]}``; one over `max_body_bytes` 413.
- The stream: `AgUiTranslator` (pure, see its module) makes the AG-UI events; the shared state is
  ``ctx.state``, looked at after every event but the streamed deltas (a ``STATE_DELTA`` when it changed).
- A paused run finishes with an ``interrupt`` outcome; a request whose ``resume`` entries answer it, with
  ``parentRunId`` naming it, continues it (``Runner.resume``: the runner needs a store).
- A client that disconnects cancels the run (a durable run is left resumable, as any cancelled run). An app
  that cancels a run itself (``ctx.cancel(reason)`` on the context its `context` factory made, as a server
  shutting down does) gets its stream ended with ``RUN_FINISHED`` and the ``cancelled`` outcome.
- Authentication is the enclosing app's job (``helikon serve`` checks its bearer token before this).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeAlias

import attrs
import trio

try:
    from ag_ui.core import RunAgentInput
    from ag_ui.encoder import EventEncoder
except ImportError as missing:  # say what to install, not which of its modules was missing
    raise ImportError(
        f"helikon_fc.serve.ag_ui needs the ag-ui-protocol package ({missing}): pip install 'helikon_fc[serve]'",
        name="ag_ui",
    ) from None

from ..core import AgentEvent, ReasoningDelta, TokenDelta, ToolCallDelta
from ..shell.context.run_context import RunContext
from ..shell.control.permissions import ApprovalAnswer
from ..shell.durable.run_log import IncompatibleRunError
from ..shell.durable.storage import RunNotFound, RunRecordConflict, Session
from ..shell.input import AgentInput
from ..shell.loop.protocol import Agent, RunStream
from ..shell.loop.run_stream import forward_run
from ..shell.loop.runner import Runner
from ._ag_ui_asgi import (
    SSE_HEADERS,
    Receive,
    Scope,
    Send,
    acknowledge_lifespan,
    cancel_on_disconnect,
    read_body,
    send_error,
)
from ._ag_ui_input import AgUiInputError, conversation, decisions, initial_state, new_turn, read_run_input
from ._ag_ui_translate import AgUiTranslator
from ._served import agents_by_name

__all__ = ["AgUiEndpoint", "AgUiInputError", "AgUiTranslator", "ag_ui_endpoint"]

AgUiTranslator.__module__ = __name__  # its home is a private module; this is where users import it from
AgUiInputError.__module__ = __name__

ContextFactory: TypeAlias = Callable[[RunAgentInput], RunContext[Any]]
"""Makes the run context of one request (a fresh one each time: its `RunState` is the run's)."""

SessionFactory: TypeAlias = Callable[[str], Session]
"""The session of an AG-UI thread, by thread id (``store.session``)."""

DEFAULT_MAX_BODY_BYTES = 1 << 20
"""The largest request body `ag_ui_endpoint` reads by default (1 MiB)."""

_STREAMED = (TokenDelta, ReasoningDelta, ToolCallDelta)
"""The live fragments, after which the shared state is not looked at (it changes at settled events)."""


def ag_ui_endpoint(
    agents: Agent[Any] | Iterable[Agent[Any]] | Mapping[str, Agent[Any]],
    *,
    runner: Runner | None = None,
    context: ContextFactory | None = None,
    sessions: SessionFactory | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
) -> AgUiEndpoint:
    """An ASGI app speaking AG-UI for `agents`: see the module docstring.

    Args:
        agents: one agent, several (each by its ``name``), or a mapping from name to agent. With several,
            a request names its agent in ``forwardedProps.agent``, or in the path parameter ``agent`` of a
            route such as ``Route("/ag-ui/{agent}", endpoint)``.
        runner: runs each request's agent (its config, and its store: a run is then recorded under the
            request's ``runId``); a plain `Runner()` when `None`.
        context: makes each request's run context (its user value, permissions, hooks, tracer); each
            run gets ``RunContext.ephemeral(None)`` when `None`. The request's ``state`` is set into it.
        sessions: the session of a thread (``store.session``): the thread's history is then the
            session's, and the run's input only the messages added since the agent last spoke. When
            `None`, the request's ``messages`` are the whole conversation (AG-UI clients send it all).
        max_body_bytes: the largest request body read; a larger one is answered 413.

    Raises:
        TypeError: an argument is not of the kind described above.
        ValueError: no agent, two agents with one name, or `max_body_bytes` below 1.
    """
    served = agents_by_name(agents, "ag_ui_endpoint")
    if runner is not None and not isinstance(runner, Runner):
        raise TypeError(f"ag_ui_endpoint: runner must be a Runner or None, got {runner!r}")
    for name, value in (("context", context), ("sessions", sessions)):
        if value is not None and not callable(value):
            raise TypeError(f"ag_ui_endpoint: {name} must be a callable or None, got {value!r}")
    if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int) or max_body_bytes < 1:
        raise ValueError(f"ag_ui_endpoint: max_body_bytes must be a positive int, got {max_body_bytes!r}")
    return AgUiEndpoint(served, runner or Runner(), context, sessions, max_body_bytes)


@attrs.frozen
class _Request:
    """A request understood: the agent to run, on what; or the paused run it continues, with the decisions."""

    agent: Agent[Any]
    run_input: RunAgentInput
    input: AgentInput
    resumes: str | None = None
    """The recorded run this request continues (its ``parentRunId``), `None` for a new run."""
    approvals: dict[str, ApprovalAnswer] = attrs.field(factory=dict)


class AgUiEndpoint:
    """The ASGI app `ag_ui_endpoint` returns: ``await endpoint(scope, receive, send)``."""

    __slots__ = ("_agents", "_context", "_max_body", "_runner", "_sessions")

    def __init__(
        self,
        agents: dict[str, Agent[Any]],
        runner: Runner,
        context: ContextFactory | None,
        sessions: SessionFactory | None,
        max_body_bytes: int,
    ) -> None:
        self._agents = agents
        self._runner = runner
        self._context = context
        self._sessions = sessions
        self._max_body = max_body_bytes

    @property
    def agents(self) -> Mapping[str, Agent[Any]]:
        """The served agents, by name."""
        return dict(self._agents)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection: a lifespan (acknowledged) or an HTTP request (see the module docstring)."""
        if scope["type"] == "lifespan":
            await acknowledge_lifespan(receive, send)
            return
        if scope["type"] != "http":
            raise ValueError(f"the AG-UI endpoint serves HTTP, not {scope['type']!r}")
        if scope["method"] != "POST":
            message = "the AG-UI endpoint takes POST with a RunAgentInput body"
            await send_error(send, 405, message, headers=[(b"allow", b"POST")])
            return
        body = await read_body(receive, self._max_body)
        if body is None:
            await send_error(send, 413, f"the request body is over {self._max_body} bytes")
            return
        try:
            request = self._understand(scope, body)
        except AgUiInputError as exc:
            await send_error(send, 400, "the body is not a RunAgentInput this endpoint can run", list(exc.problems))
            return
        except LookupError as exc:
            await send_error(send, 404, str(exc.args[0]), [f"served agents: {', '.join(sorted(self._agents))}"])
            return
        await self._run(request, receive, send)

    def _understand(self, scope: Scope, body: bytes) -> _Request:
        run_input = read_run_input(body)
        agent = self._pick(scope, run_input)
        if run_input.resume:
            return self._resuming(agent, run_input)
        items = conversation(run_input.messages)
        if self._sessions is not None:
            items = new_turn(items)
        if not items:
            raise AgUiInputError(["messages: no message to answer (send at least the user's message)"])
        return _Request(agent, run_input, AgentInput.from_items(items))

    def _resuming(self, agent: Agent[Any], run_input: RunAgentInput) -> _Request:
        """A request whose ``resume`` answers a paused run's interrupts: it continues that run."""
        problems = []
        if self._runner.store is None:
            problems.append("resume: continuing a paused run needs a runner with a store (runner=Runner(store=...))")
        if not run_input.parent_run_id:
            problems.append("parentRunId: name the paused run these resume entries answer (its runId)")
        approvals = decisions(run_input.resume or ())
        if problems:
            raise AgUiInputError(problems)
        return _Request(agent, run_input, AgentInput(()), run_input.parent_run_id, approvals)

    def _pick(self, scope: Scope, run_input: RunAgentInput) -> Agent[Any]:
        """The agent a request names (path parameter ``agent``, else ``forwardedProps.agent``), or the only one."""
        name = (scope.get("path_params") or {}).get("agent")
        props = run_input.forwarded_props
        if name is None and isinstance(props, dict):
            name = props.get("agent")
        if name is None:
            if len(self._agents) == 1:
                return next(iter(self._agents.values()))
            raise AgUiInputError(["forwardedProps.agent: several agents are served; name the one to run"])
        if not isinstance(name, str):
            raise AgUiInputError([f"forwardedProps.agent: must be an agent's name (a string), got {name!r}"])
        agent = self._agents.get(name)
        if agent is None:
            raise LookupError(f"no agent named {name!r} is served")
        return agent

    def _run_context(self, run_input: RunAgentInput) -> RunContext[Any]:
        ctx = self._context(run_input) if self._context is not None else RunContext.ephemeral(None)
        if not isinstance(ctx, RunContext):
            raise TypeError(f"ag_ui_endpoint: context must return a RunContext, returned {ctx!r}")
        for key, value in initial_state(run_input).items():
            ctx.state.set(key, value)
        if self._sessions is not None:
            ctx = attrs.evolve(ctx, session=self._sessions(run_input.thread_id))
        return ctx

    def _open(self, request: _Request, ctx: RunContext[Any]) -> RunStream:
        runner = self._runner
        if request.resumes is not None:
            return runner.resume(request.resumes, request.agent, ctx, approvals=request.approvals)
        run_id = request.run_input.run_id if runner.store is not None else None
        return runner.run(request.agent, ctx, request.input, run_id=run_id)

    async def _run(self, request: _Request, receive: Receive, send: Send) -> None:
        """Run the agent and stream its events; a disconnect (seen by a watcher task) cancels the run."""
        run_input = request.run_input
        ctx = self._run_context(run_input)
        run = self._open(request, ctx)
        translator = AgUiTranslator(thread_id=run_input.thread_id, run_id=run_input.run_id, state=ctx.state.snapshot())
        sink = _EventSink(send, translator, ctx)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(cancel_on_disconnect, receive, nursery.cancel_scope)
            try:
                await forward_run(run, sink)
            except (RunNotFound, IncompatibleRunError, RunRecordConflict) as exc:
                if sink.streaming:
                    raise
                await send_error(send, 404 if isinstance(exc, RunNotFound) else 409, str(exc))
            else:
                await sink.end()
            nursery.cancel_scope.cancel()


class _EventSink:
    """Where the run hands each event, in the run's own task: the response starts with the first event, and
    each event goes out as the AG-UI events it becomes (one body chunk per run event; the terminal one ends it).

    The run is drained in the request's task (`forward_run`), not buffered ahead of its consumer: so the shared
    state looked at after an event is the state as of that event, and a ``STATE_DELTA`` follows its cause.
    """

    __slots__ = ("_ctx", "_encoder", "_send", "streaming", "translator")

    def __init__(self, send: Send, translator: AgUiTranslator, ctx: RunContext[Any]) -> None:
        self._send = send
        self._ctx = ctx
        self._encoder = EventEncoder()
        self.translator = translator
        self.streaming = False

    async def __call__(self, event: AgentEvent) -> None:
        if not self.streaming:
            self.streaming = True
            await self._send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
        state = None if isinstance(event, _STREAMED) else self._ctx.state.snapshot()
        self.translator, out = self.translator.translate(event, state=state)
        chunk = "".join(self._encoder.encode(item) for item in out).encode()
        await self._send({"type": "http.response.body", "body": chunk, "more_body": not self.translator.finished})

    async def end(self) -> None:
        """End the body if the run's terminal event did not (a stream cut short)."""
        if not self.translator.finished:
            await self._send({"type": "http.response.body", "body": b"", "more_body": False})
        else:
            await trio.lowlevel.checkpoint()
