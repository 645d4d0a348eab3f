"""`RunHub`: the served runs. It starts, resumes, cancels and interrupts them in the app's nursery, logs
every envelope before publishing it, and tells the streams where each run stands."""

from __future__ import annotations

import json
import time
import uuid
import weakref
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import attrs
import trio

from ..core import AgentEvent, RunCompleted, RunFailed, RunPaused, ToolCallItem, ToolOutputItem
from ..pricing import PriceTable
from ..shell.context.config import RunConfig
from ..shell.context.run_context import CancelToken, RunContext
from ..shell.control.permissions import Approve, Reject
from ..shell.durable.storage import RunNotFound, Store
from ..shell.loop.protocol import Agent, RunStream
from ..shell.loop.runner import Runner
from .envelopes import cost_of, envelope, pending_of, status_of
from .errors import bad_request, conflict, not_found, unavailable
from .event_log import EventLog, RunLine
from .feed import Feed
from .paths import PathTracker, agent_paths, children
from .subruns import agent_tools, sub_run_events

Decision = Approve | Reject
SHUTTING_DOWN = "the server is shutting down"
"""Why a request's own run (AG-UI) is cancelled at shutdown."""
ContextFactory = Callable[[str | None], RunContext[Any]]
"""Builds the run context of a served run from its session id (`None`: no session)."""


@attrs.define
class _Active:
    """A run this process drives now: its feed, its context (to cancel it) and its scope (to interrupt it)."""

    feed: Feed
    ctx: RunContext[Any]
    line: RunLine
    scope: trio.CancelScope = attrs.field(factory=trio.CancelScope)


class RunHub:
    """The served runs of one app; `nursery` (the app's lifespan) holds every run task."""

    def __init__(
        self,
        agents: Mapping[str, Agent[Any]],
        store: Store,
        log: EventLog,
        context: ContextFactory,
        prices: PriceTable,
    ) -> None:
        self.agents = dict(agents)
        self.store = store
        self.log = log
        self._context = context
        self._prices = prices
        self._paths = {name: agent_paths(agent) for name, agent in self.agents.items()}
        self._agent_tools = {name: agent_tools(agent, children) for name, agent in self.agents.items()}
        self.active: dict[str, _Active] = {}
        self._claimed: set[str] = set()  # runs being started or resumed: between the check and the launch
        self.closing = False
        self.nursery: trio.Nursery | None = None
        self._request_runs: weakref.WeakSet[CancelToken] = weakref.WeakSet()  # the AG-UI runs' (held by their runs)

    def agent(self, name: str | None) -> Agent[Any]:
        """The served agent called `name` (the only one when `name` is `None` and one is served)."""
        if name is None:
            if len(self.agents) == 1:
                return next(iter(self.agents.values()))
            raise bad_request(
                "the run request names no agent", [f"$.agent: required: this server serves {sorted(self.agents)}"]
            )
        agent = self.agents.get(name)
        if agent is None:
            raise not_found(f"no agent {name!r}: this server serves {sorted(self.agents)}")
        return agent

    async def start(
        self,
        agent_name: str | None,
        text: str,
        session_id: str | None,
        run_id: str | None,
        config: RunConfig | None = None,
    ) -> str:
        """Start a run of the named agent on `text` (under `config`: the runner's default when `None`); its id.
        Raises 404/409/503 `ServeError`s."""
        self._check_open()
        agent = self.agent(agent_name)
        run_id = run_id or str(uuid.uuid4())
        with self._claim(run_id, f"a run with id {run_id!r} exists already"):
            if await self._recorded(run_id):
                raise conflict(f"a run with id {run_id!r} exists already")
            self._check_open()  # shutdown began while the store was asked: refused, not left unresumable
            ctx = self._context(session_id)
            runner = Runner(store=self.store) if config is None else Runner(config, store=self.store)
            stream = runner.run(agent, ctx, text, run_id=run_id)
            line = RunLine(run_id, agent.name, "running", time.time())
            await self.log.put_line(line)
            self._launch(run_id, agent, ctx, line, stream, base=0)
        return run_id

    async def decide(self, run_id: str, decisions: Mapping[str, Decision]) -> None:
        """Resume a paused run with `decisions` (by call id). Raises 404, or 409 for a call that does not wait."""
        self._check_open()
        line = await self._line(run_id)
        if line.status != "paused" or run_id in self.active:
            raise conflict(f"run {run_id!r} is {line.status}, not paused: no call of it waits for a decision")
        waiting = {call["call_id"] for call in json.loads(line.pending)}
        strangers = sorted(set(decisions) - waiting)
        if strangers:
            problems = [f"call {call_id!r} is not waiting (waiting: {sorted(waiting)})" for call_id in strangers]
            raise conflict(f"run {run_id!r}: a decision names a call that is not waiting", problems)
        await self._resume(run_id, line, dict(decisions))

    async def resume(self, run_id: str) -> None:
        """Resume a run whose process died (``interrupted``). Raises 404, or 409 for a run in any other state."""
        self._check_open()
        line = await self._line(run_id)
        if line.status != "interrupted":
            raise conflict(f"run {run_id!r} is {line.status}: only an interrupted run is resumed")
        try:
            await self.store.run_summary(run_id)
        except RunNotFound:
            message = f"run {run_id!r} was interrupted before it recorded anything: nothing to resume; start it again"
            raise conflict(message) from None
        await self._resume(run_id, line, None)

    async def cancel(self, run_id: str) -> None:
        """Cancel a running or paused run. Raises 404, or 409 for a run that has ended."""
        active = self.active.get(run_id)
        if active is not None:
            active.ctx.cancel("cancelled over HTTP")
            await trio.lowlevel.checkpoint()
            return
        line = await self._line(run_id)
        if line.status not in ("paused", "interrupted"):
            raise conflict(f"run {run_id!r} is {line.status}: there is nothing to cancel")
        await self.log.put_line(attrs.evolve(line, status="cancelled", ended_at=time.time(), pending="[]"))

    def own(self, ctx: RunContext[Any]) -> RunContext[Any]:
        """`ctx`, of a run that belongs to its request (AG-UI), cancelled at shutdown (at once when closing)."""
        self._request_runs.add(ctx.cancel_token)  # (not `ctx`: the endpoint runs a copy, which shares the token)
        if self.closing:
            ctx.cancel(SHUTTING_DOWN)
        return ctx

    async def shutdown(self) -> None:
        """Refuse new runs and interrupt the running ones (their records stay resumable), cancel the runs that
        belong to their requests (AG-UI: their streams end with the cancelled outcome); return once all ended."""
        self.closing = True
        for token in list(self._request_runs):
            token.cancel(SHUTTING_DOWN)
        for active in list(self.active.values()):
            active.scope.cancel()
        while self.active:
            await next(iter(self.active.values())).feed.wait_closed()
        await trio.lowlevel.checkpoint()

    async def status(self, run_id: str) -> RunLine:
        """The run's line, with its live status. Raises 404."""
        return await self._line(run_id)

    async def lines(self) -> list[RunLine]:
        """Every run's line (the store's runs this server never served included), newest first."""
        known = {line.run_id: line for line in await self.log.lines()}
        for summary in await self.store.runs():
            if "/" not in summary.run_id and summary.run_id not in known:
                known[summary.run_id] = _line_of_stored(summary.run_id, summary.agent, summary.status, summary)
        return sorted((self._live(line) for line in known.values()), key=lambda line: -line.started_at)

    def _check_open(self) -> None:
        if self.closing:
            raise unavailable("the server is shutting down: no new runs")

    async def _recorded(self, run_id: str) -> bool:
        try:
            await self.store.run_summary(run_id)
        except RunNotFound:
            return await self.log.line(run_id) is not None
        return True

    async def _line(self, run_id: str) -> RunLine:
        await trio.lowlevel.checkpoint()
        active = self.active.get(run_id)
        if active is not None:
            return active.line
        line = await self.log.line(run_id)
        if line is None:
            try:
                summary = await self.store.run_summary(run_id)
            except RunNotFound:
                raise not_found(f"no run {run_id!r}") from None
            line = _line_of_stored(run_id, summary.agent, summary.status, summary)
        return self._live(line)

    def _live(self, line: RunLine) -> RunLine:
        """`line` as it stands now: a run logged as running that no task drives any more was interrupted."""
        if line.run_id in self.active:
            return self.active[line.run_id].line
        if line.status == "running":
            return attrs.evolve(line, status="interrupted")
        return line

    async def _resume(self, run_id: str, line: RunLine, decisions: dict[str, Decision] | None) -> None:
        agent = self.agents.get(line.agent)
        if agent is None:
            raise conflict(f"run {run_id!r} ran agent {line.agent!r}, which this server does not serve")
        with self._claim(run_id, f"run {run_id!r} is being resumed already"):
            ctx = self._context(None)
            stream = Runner(store=self.store).resume(run_id, agent, ctx, approvals=decisions)
            line = attrs.evolve(line, status="running", ended_at=None, pending="[]", error=None)
            base = await self.log.last_position(run_id)
            await self.log.put_line(line)
            self._launch(run_id, agent, ctx, line, stream, base=base)

    @contextmanager
    def _claim(self, run_id: str, taken: str) -> Iterator[None]:
        """Hold `run_id` while it is being started or resumed (a second request for it is 409 `taken`)."""
        if run_id in self.active or run_id in self._claimed:
            raise conflict(taken)
        self._claimed.add(run_id)
        try:
            yield
        finally:
            self._claimed.discard(run_id)

    def _launch(
        self, run_id: str, agent: Agent[Any], ctx: RunContext[Any], line: RunLine, stream: RunStream, base: int
    ) -> None:
        if self.nursery is None:
            raise unavailable("the server is not running (its lifespan has not started)")
        active = _Active(Feed(base), ctx, line)
        self.active[run_id] = active
        if self.closing:  # started as shutdown began (past the door, writing its records): interrupted with the rest
            active.scope.cancel()
        self.nursery.start_soon(self._drive, run_id, agent.name, active, stream)

    async def _drive(self, run_id: str, agent_name: str, active: _Active, stream: RunStream) -> None:
        """Run the stream, logging then publishing each event; record how the stretch ended."""
        tracker = PathTracker(self._paths.get(agent_name, {agent_name: (agent_name,)}), agent_name)
        tools = self._agent_tools.get(agent_name, {})
        calls: dict[str, str] = {}  # call id -> tool name, for the agent-as-tool calls' results
        terminal: AgentEvent | None = None
        error: str | None = None
        try:
            with active.scope:
                async with stream as events:
                    async for event in events:
                        if isinstance(event, ToolCallItem):
                            calls[event.item.call_id] = event.item.name
                        elif isinstance(event, ToolOutputItem) and calls.get(event.item.call_id) in tools:
                            sub_agent = tools[calls[event.item.call_id]]
                            inner = await sub_run_events(
                                self.store, run_id, event.item.call_id, sub_agent, tracker.agent
                            )
                            for sub_event in inner:
                                await self._publish(run_id, active, tracker, sub_event)
                        await self._publish(run_id, active, tracker, event)
                        if isinstance(event, RunCompleted | RunFailed | RunPaused):
                            terminal = event
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
        finally:
            with trio.CancelScope(shield=True):
                await self._ended(run_id, active, terminal, error)

    async def _publish(self, run_id: str, active: _Active, tracker: PathTracker, event: AgentEvent) -> None:
        """Log `event`'s envelope at the run's next position, then hand it to the streams that follow the run."""
        at_ms = int((time.time() - active.line.started_at) * 1000)
        logged = envelope(active.feed.last + 1, at_ms, tracker.see(event), event)
        await self.log.append(run_id, [logged])
        active.feed.publish(logged)

    async def _ended(  # noqa: ASYNC910 - `put_line` is the checkpoint (skipped for an interrupted run, cancelled anyway)
        self, run_id: str, active: _Active, terminal: AgentEvent | None, error: str | None
    ) -> None:
        status = "failed" if error is not None else status_of(terminal)
        line = attrs.evolve(
            active.line, status=status, ended_at=time.time(), pending=json.dumps(pending_of(terminal)), error=error
        )
        if isinstance(terminal, RunFailed):
            line = attrs.evolve(line, error=str(terminal.error))
        if isinstance(terminal, RunCompleted | RunPaused):
            line = attrs.evolve(line, requests=terminal.usage.requests)
        if isinstance(terminal, RunCompleted):
            line = attrs.evolve(line, cost=cost_of(terminal, self._prices))  # (the table caches its look-ups)
        try:
            if status != "interrupted":  # an interrupted run's line stays "running": a restart sees it so too
                await self.log.put_line(line)
        finally:
            active.line = line
            del self.active[run_id]
            active.feed.close(status)


def _line_of_stored(run_id: str, agent: str, status: str, summary: Any) -> RunLine:
    """The line of a run recorded in the store by something other than this server."""
    ended = summary.updated_at if status in ("completed", "failed") else None
    return RunLine(run_id, agent, status, summary.created_at, ended)
