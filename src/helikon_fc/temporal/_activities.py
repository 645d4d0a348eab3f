"""The worker's activities: describe an agent, call a model, call a tool; each runs in the worker's trio portal."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from functools import partial
from typing import Any

from temporalio import activity
from temporalio.client import Client
from temporalio.exceptions import ApplicationError

from ..agents.agent_as_tool import AgentAsTool
from ..agents.graph import GraphAgent
from ..agents.llm_agent import LlmAgent
from ..agents.loop import LoopAgent
from ..agents.parallel import ParallelAgent
from ..agents.sequential import SequentialAgent
from ..agents.swarm import SwarmAgent
from ..core import (
    AgentEvent,
    HookFailed,
    ModelRequest,
    ModelResponse,
    OtherError,
    RunFailed,
    ToolCall,
    ToolResult,
    UnknownHandoffTarget,
    from_json,
    to_json,
)
from ..core.records import ModelAnswered, ToolFinished
from ..models.call import call_model
from ..models.retry import RETRYABLE
from ..shell.context.config import RunConfig
from ..shell.context.run_context import RunContext, SessionState
from ..shell.control.permissions import Permissions
from ..shell.loop.controls import failing_on_hook
from ..shell.loop.definition import LoopDefinition
from ..shell.loop.driver import call_tool, transition_context
from ..shell.loop.protocol import Agent
from ..shell.loop.tool_round import Allowed, CallHeld, CallOutcome
from ..shell.telemetry.metering import UsageMeter
from ..shell.tools.tool_exec import execute_tool_call
from ..shell.tools.tool_source import ToolSourceError
from . import _pipeline
from ._decisions import answer_of, run_permissions
from ._deltas import DeltaBuffer
from ._payloads import (
    AUTHORIZE_TOOL,
    CALL_MODEL,
    CALL_TOOL,
    CONTROL,
    DELTAS,
    DESCRIBE,
    FINISH_TOOL,
    AgentPlan,
    AgentToolRef,
    ChildRef,
    ControlInput,
    ControlOutput,
    DeltaBatch,
    DescribeInput,
    GraphEdge,
    ModelCallInput,
    RunSettings,
    ToolCallInput,
    ToolCallOutput,
)
from ._portal import TrioPortal
from ._registry import AgentRegistry, UnknownAgentPath
from ._run_level import RunLevel
from ._settings import config_of, settings_of
from ._tool_sources import listed_definition, with_listed
from ._user import UserCodec


async def _ignore(event: AgentEvent) -> None:
    """Deltas of a call whose run wants none live (``delta_interval=None``)."""


class Activities:
    """The activities of one worker over its `AgentRegistry`, run through its `TrioPortal`."""

    def __init__(
        self,
        registry: AgentRegistry,
        portal: TrioPortal,
        *,
        user_codec: UserCodec | None = None,
        permissions: Permissions | None = None,
        run_level: RunLevel | None = None,
        heartbeat_every: float = 1.0,
    ) -> None:
        self._registry = registry
        self._permissions = permissions
        self._run_level = run_level or RunLevel()
        self._portal = portal
        self._heartbeat_every = heartbeat_every
        self._codec = user_codec or UserCodec()
        self._client: Client | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind(self, client: Client, loop: asyncio.AbstractEventLoop) -> None:
        """Signal runs through `client`, on the worker's event loop `loop` (the activities run on other threads)."""
        self._client = client
        self._loop = loop

    def _signaller(self, stream: int) -> Any:
        """Sends one batch of deltas to the workflow of the running activity; a batch that fails is dropped.

        Deltas are a live view: the response the activity returns is what the run records, so a lost
        batch costs a watcher some fragments, never the run its answer.
        """
        info = activity.info()
        client, loop, workflow_id = self._client, self._loop, info.workflow_id

        def send(events: list[str]) -> None:
            if client is None or loop is None or workflow_id is None:
                return
            handle = client.get_workflow_handle(workflow_id, run_id=info.workflow_run_id)
            future = asyncio.run_coroutine_threadsafe(handle.signal(DELTAS, DeltaBatch(stream, events)), loop)
            try:
                future.result(timeout=10)
            except Exception:
                future.cancel()

        return send

    def _user(self, text: str | None) -> Any:
        """The run's user value, decoded; a value that does not decode fails the call, never retried."""
        try:
            return self._codec.from_text(text)
        except Exception as exc:
            message = f"the run's user value could not be decoded: {type(exc).__name__}: {exc}"
            raise ApplicationError(message, type="user_value", non_retryable=True) from None

    @activity.defn(name=DESCRIBE)
    def describe(self, request: DescribeInput) -> AgentPlan:
        """What the agent at ``request.path`` is, as the workflow needs it (instructions rendered)."""
        try:
            agent = self._registry.resolve(request.path)
        except UnknownAgentPath as exc:
            kind, _, name = request.path.rpartition("/")[2].partition(":")
            error = UnknownHandoffTarget(name) if kind == "handoff" else OtherError(str(exc))
            return _error_plan(name or request.path, error)
        except Exception as exc:  # a handoff resolver that raises, say: the run fails, not retried forever
            message = f"agent at {request.path!r} could not be resolved: {type(exc).__name__}: {exc}"
            return _error_plan(request.path, OtherError(message))
        try:
            user = self._user(request.user_json)
        except ApplicationError as exc:
            return _error_plan(agent.name, OtherError(str(exc)))
        definition = agent.definition if isinstance(agent, LlmAgent) else None
        if definition is not None and definition.tool_sources:  # listed here: the plan, in history, holds them
            try:
                definition = self._portal.run(
                    partial(listed_definition, definition), heartbeat_every=self._heartbeat_every
                )
            except ToolSourceError as exc:
                return _error_plan(agent.name, OtherError(str(exc)))
        plan = _plan(agent, request, user, guarded=self._permissions is not None, definition=definition)
        return self._with_run_level(plan, request.path)

    def _with_run_level(self, plan: AgentPlan, path: str) -> AgentPlan:
        """`plan` with the run-level hooks and guardrails that apply at `path` counted in."""
        here = self._run_level.at(path)
        if plan.kind == "error" or not (here.hooks or here.input_guardrails or here.output_guardrails):
            return plan
        if plan.kind != "llm":
            return dataclasses.replace(plan, run_hooked=bool(here.hooks))
        return dataclasses.replace(
            plan,
            hooked=plan.hooked or bool(here.hooks),
            input_guarded=plan.input_guarded or bool(here.input_guardrails),
            output_guarded=plan.output_guarded or bool(here.output_guardrails),
            guarded_tools=plan.guarded_tools or bool(here.hooks),
            run_hooked=bool(here.hooks),
        )

    @activity.defn(name=CALL_MODEL)
    def call_model(self, request: ModelCallInput) -> str:
        """One model call: its deltas sent live in batches (see `_deltas`), then its `ModelAnswered` record as JSON.

        The record (the durable format's, `helikon_fc.core.records`) holds the assembled response and
        the deltas no batch carried yet.

        Raises:
            ApplicationError: the model failed; its type is the failure kind, its detail the
                `ModelFailed` as JSON, and only the retryable kinds may be retried.
        """
        model = _loop(self._registry.resolve(request.path)).definition.model
        model_request = from_json(ModelRequest, request.request_json)
        live = request.delta_interval is not None
        deltas = DeltaBuffer(self._signaller(request.stream))
        answer = self._portal.run(
            lambda: call_model(model, model_request, deltas.collect if live else _ignore),
            heartbeat_every=self._heartbeat_every,
            tick=deltas.flush,
            tick_every=request.delta_interval,
        )
        if isinstance(answer, RunFailed):
            deltas.flush()  # the stream's fragments before it broke, as on trio
            error: Any = answer.error
            kind = getattr(error, "kind", None)
            raise ApplicationError(
                str(error), to_json(error), type=getattr(kind, "value", "other"), non_retryable=kind not in RETRYABLE
            )
        assert isinstance(answer, ModelResponse)
        return to_json(ModelAnswered(response=answer, deltas=deltas.drain()))

    @activity.defn(name=CALL_TOOL)
    def call_tool(self, request: ToolCallInput) -> ToolCallOutput:
        """One tool call through the trio shell's per-call pipeline, in a context holding the run's shared state.

        The pipeline is `helikon_fc.shell.loop.driver.call_tool`'s: the agent's `PreToolUse` hooks, the
        permission decision (the run's `PermissionConfig` with this worker's policy; a human's answer
        when the workflow passes one), the tool (or the call's `problem`, which answers it), `PostToolUse`,
        redaction. It returns the call's
        record (result, escalation, decision events), the state after and the usage, or that the call
        waits for a human (`held`), or the `HookFailed` of a hook that raised.
        """
        definition = _loop(self._registry.resolve(request.path)).definition
        call = from_json(ToolCall, request.call_json)
        meter = UsageMeter()
        ctx = self._context(request, meter)
        answer = answer_of(request.answer) if request.answer is not None else None

        async def run(listed: LoopDefinition) -> CallOutcome | HookFailed:
            tool = listed.tools_by_name.get(call.name)
            return await failing_on_hook(
                call_tool(execute_tool_call, listed.hooks, tool, call, ctx, answer, None, request.problem)
            )

        outcome = self._portal.run(lambda: with_listed(definition, run), heartbeat_every=self._heartbeat_every)
        state_json, usage_json = json.dumps(ctx.state.snapshot()), to_json(meter.by_model())
        if isinstance(outcome, HookFailed):
            return ToolCallOutput("", state_json, usage_json, hook_failed_json=to_json(outcome))
        if isinstance(outcome, CallHeld):
            return ToolCallOutput("", state_json, usage_json, held=True, held_json=to_json(outcome.call))
        finished = ToolFinished(result=outcome.result, escalated=ctx.actions.escalated, events=outcome.events)
        return ToolCallOutput(to_json(finished), state_json, usage_json)

    def _context(self, request: ToolCallInput | ControlInput, meter: UsageMeter | None = None) -> RunContext[Any]:
        """The run context a hook, guardrail or call sees on this worker: the run's user value, state and depth."""
        permissions_json = request.permissions_json if isinstance(request, ToolCallInput) else None
        ctx: RunContext[Any] = RunContext(
            self._user(request.user_json),
            state=SessionState(json.loads(request.state_json)),
            agent_depth=request.depth,
            meter=meter,
            permissions=run_permissions(self._permissions, permissions_json),
        )
        return self._run_level.on(ctx, request.path)

    @activity.defn(name=CONTROL)
    def control(self, request: ControlInput) -> ControlOutput:
        """Fire one hook point or run one kind of guardrails of the model loop at ``request.path`` (see `_pipeline`);
        or fire `OnSubagentStop` on the run-level hooks of the run at ``request.path``, any agent's."""
        ctx = self._context(request)
        if request.point == "subagent_stop":
            return self._portal.run(
                lambda: _pipeline.subagent_stop(ctx, request.target), heartbeat_every=self._heartbeat_every
            )
        definition = _loop(self._registry.resolve(request.path)).definition
        return self._portal.run(
            lambda: _pipeline.control(definition, ctx, request), heartbeat_every=self._heartbeat_every
        )

    @activity.defn(name=AUTHORIZE_TOOL)
    def authorize_tool(self, request: ToolCallInput) -> ToolCallOutput:
        """`PreToolUse` and the permission decision for a call the workflow runs itself (an `AgentAsTool`)."""
        definition = _loop(self._registry.resolve(request.path)).definition
        call = from_json(ToolCall, request.call_json)
        ctx = self._context(request)
        answer = answer_of(request.answer) if request.answer is not None else None
        tool = definition.tools_by_name.get(call.name)
        outcome = self._portal.run(
            lambda: failing_on_hook(_pipeline.authorize(definition, tool, call, ctx, answer)),
            heartbeat_every=self._heartbeat_every,
        )
        state_json = json.dumps(ctx.state.snapshot())
        if isinstance(outcome, HookFailed):
            return ToolCallOutput("", state_json, hook_failed_json=to_json(outcome))
        if isinstance(outcome, CallHeld):
            return ToolCallOutput("", state_json, held=True, held_json=to_json(outcome.call))
        if isinstance(outcome, Allowed):
            return ToolCallOutput("", state_json, run_json=to_json(outcome.call), events_json=to_json(outcome.events))
        finished = ToolFinished(result=outcome.result, events=outcome.events)
        return ToolCallOutput(to_json(finished), state_json)

    @activity.defn(name=FINISH_TOOL)
    def finish_tool(self, request: ToolCallInput) -> ToolCallOutput:
        """`PostToolUse` and redaction of the result (``request.result_json``) of a call the workflow ran itself."""
        definition = _loop(self._registry.resolve(request.path)).definition
        call = from_json(ToolCall, request.call_json)
        result = from_json(ToolResult, request.result_json)
        ctx = self._context(request)
        outcome = self._portal.run(
            lambda: failing_on_hook(_pipeline.finish(definition, call, result, ctx)),
            heartbeat_every=self._heartbeat_every,
        )
        state_json = json.dumps(ctx.state.snapshot())
        if isinstance(outcome, HookFailed):
            return ToolCallOutput("", state_json, hook_failed_json=to_json(outcome))
        return ToolCallOutput(to_json(ToolFinished(result=outcome)), state_json)


def _loop(agent: Agent[Any]) -> LlmAgent[Any]:
    if not isinstance(agent, LlmAgent):
        raise ApplicationError(f"agent {agent.name!r} is not a model loop", non_retryable=True)
    return agent


def _error_plan(name: str, error: Any) -> AgentPlan:
    return AgentPlan(kind="error", name=name, config=RunSettings(), error_json=to_json(error))


def _plan(
    agent: Agent[Any],
    request: DescribeInput,
    user: Any,
    *,
    guarded: bool = False,
    definition: LoopDefinition | None = None,
) -> AgentPlan:
    """The plan of `agent`; a model loop's from `definition` (its own, or with its sources' tools listed)."""
    ctx_config = request.config
    if isinstance(agent, LlmAgent):
        definition = definition or agent.definition
        plan = _loop_plan(agent, definition, request, user)
        if plan.kind != "llm":
            return plan
        hooked = bool(definition.hooks.hooks)
        return dataclasses.replace(
            plan,
            hooked=hooked,
            input_guarded=bool(definition.input_guardrails),
            output_guarded=bool(definition.output_guardrails),
            guarded_tools=hooked or guarded or request.permissions,
        )
    config = ctx_config or RunSettings()
    if isinstance(agent, SequentialAgent | LoopAgent | ParallelAgent):
        pairs = agent.branches if isinstance(agent, ParallelAgent) else agent.steps
        segment = "branch" if isinstance(agent, ParallelAgent) else "step"
        children = [ChildRef(key, f"{request.path}/{segment}:{i}") for i, (key, _) in enumerate(pairs)]
        kind = (
            "parallel" if isinstance(agent, ParallelAgent) else "loop" if isinstance(agent, LoopAgent) else "sequential"
        )
        iterations = agent.max_iterations if isinstance(agent, LoopAgent) else 0
        return AgentPlan(kind=kind, name=agent.name, config=config, children=children, max_iterations=iterations)
    if isinstance(agent, SwarmAgent):
        entry = [ChildRef(agent.entry, f"{request.path}/member:{agent.entry}")]
        budget = agent.max_handoffs if agent.max_handoffs is not None else -1
        return AgentPlan(kind="swarm", name=agent.name, config=config, children=entry, max_iterations=budget)
    if isinstance(agent, GraphAgent):
        nodes = [ChildRef(key, f"{request.path}/node:{key}") for key, _ in agent.nodes]
        edges = [GraphEdge(before, after) for before, after in agent.edges]
        return AgentPlan(kind="graph", name=agent.name, config=config, children=nodes, edges=edges)
    message = f"agent {agent.name!r} ({type(agent).__name__}) cannot run on Temporal"
    return _error_plan(agent.name, OtherError(message))


def _loop_plan(agent: LlmAgent[Any], definition: LoopDefinition, request: DescribeInput, user: Any) -> AgentPlan:
    settings = request.config or settings_of(definition.run_config) or RunSettings()
    if definition.collision is not None:
        return _error_plan(agent.name, definition.collision)
    instructions = definition.instructions
    if callable(instructions):
        ctx: RunContext[Any] = RunContext(
            user, state=SessionState(json.loads(request.state_json)), agent_depth=request.depth
        )
        ctx = ctx.with_run_config(config_of(settings))
        try:
            instructions = instructions(ctx)
        except Exception as exc:
            message = f"instructions of agent {agent.name!r} failed: {type(exc).__name__}: {exc}"
            return _error_plan(agent.name, OtherError(message))
    in_force = config_of(request.config) if request.config is not None else definition.run_config or RunConfig()
    tctx = transition_context(definition, in_force, instructions or None, request.depth, settings.max_agent_depth)
    agent_tools = [
        AgentToolRef(tool.name, tool.agent.name, settings_of(tool.run_config))
        for tool in definition.tools
        if isinstance(tool, AgentAsTool)
    ]
    return AgentPlan(
        kind="llm",
        name=agent.name,
        config=settings,
        ctx_json=to_json(tctx),
        agent_tools=agent_tools,
        model=definition.model.name,
    )
