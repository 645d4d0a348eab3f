"""`RunWorkflow`: a helikon_fc run as a Temporal workflow, driving the pure `transition` step by step.

The workflow holds the run's data — the shared state, the events so far — and runs a model loop with
the loop the trio driver runs (`helikon_fc.engine.run_loop`), supplying its performer
(`_LoopPerformer`): each `NextAction` as Temporal commands:

- `CallModel`: one ``helikon.call_model`` activity, returning its `ModelAnswered` record; its deltas
  arrive meanwhile as ``helikon.deltas`` signals (`deltas`), into the stream of the agent making it;
- `ExecuteTools`: one ``helikon.call_tool`` activity per call (an `AgentAsTool` is a child
  workflow instead, so its sub-run is durable too), all of a turn at once, at most
  ``parallel_tool_call_limit`` at a time, results in call order;
- `PerformHandoff`: the target agent runs on the transcript in this workflow, one level deeper.
- `AwaitApproval`: wait (a workflow condition, durable, under the run's deadline) for decisions
  by the ``helikon.decide`` signal (`decide`), then run the decided calls with their answers; the
  waiting calls are the ``pending`` query. A decision for a child workflow's call is passed on to it.

Every tool call runs the trio shell's per-call pipeline in its activity (hooks, permissions,
redaction); the agent's other hooks and its guardrails run in ``helikon.control`` activities and
are applied here (`LoopControls`). A call that cannot run (`ExecuteTools.problems`: an unknown tool,
arguments off the schema) goes through that pipeline too when hooks or permissions could see it, and
its problem answers it there; without them, it is answered here with its problem, no activity (as
every such call was before the ``helikon-every-call-seen`` patch, so older histories replay).

A child workflow (a graph node, an agent-as-tool sub-run) forwards its events and usage to its
parent as it runs (``helikon.child_events``). Sequential, loop, parallel, swarm and graph agents are
the pure pattern machines of `helikon_fc.core.patterns`, the same the trio agents run, interpreted
here by `_patterns.Interpreter`: their children run by the merge convention of `helikon_fc.agents`
(each child's `RunStarted` becomes `AgentUpdated`, its terminal is folded in), a graph's nodes as
child workflows, the others' children in this workflow.
What an agent is comes from the worker (``helikon.describe``), so the workflow holds no agent code.
Everything here is deterministic: asyncio under Temporal's event loop, no clock, no IO, no trio.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError, ChildWorkflowError

with workflow.unsafe.imports_passed_through():
    import attrs

    from ..core import (
        AgentError,
        AgentEvent,
        AgentUsage,
        ApprovalRequested,
        Cancelled,
        Conversation,
        HandoffItem,
        HookFailed,
        Item,
        JsonObject,
        MaxAgentDepthExceeded,
        MessageOutput,
        ModelFailed,
        ModelFailureKind,
        ModelRequest,
        ModelResponse,
        ModelShare,
        OtherError,
        RunCompleted,
        RunFailed,
        RunStarted,
        Start,
        TerminalEvent,
        TimedOut,
        ToolCall,
        ToolResult,
        ToolResults,
        TransitionCtx,
        TransitionOutcome,
        Usage,
        UserMessage,
        Wavefront,
        from_json,
        initial_state,
        to_json,
    )
    from ..core.loop_steps import (
        CallDone,
        CallHeld,
        CallOutcome,
        after_approval,
        decided_split,
        problems_by_call,
        round_results,
    )
    from ..core.patterns import (
        ChildFailed,
        ChildOutcome,
        ChildSucceeded,
        HandoffSeen,
        RunChild,
        graph,
        loop,
        parallel,
        sequential,
        swarm,
    )
    from ..core.patterns.subrun import SubRun, depth_error, handoff_segment, tool_answer, tool_segment
    from ..core.records import ModelAnswered, ToolFinished
    from ..engine import Begin, Held, run_loop
    from ..shell.telemetry.metering import UsageMeter
    from ._event_flow import ChildForward, Follower, Interleaving
    from ._loop_controls import LoopControls
    from ._patterns import Interpreter, interpret
    from ._payloads import (
        AUTHORIZE_TOOL,
        CALL_MODEL,
        CALL_TOOL,
        CHILD_EVENTS,
        CONTROL,
        DECIDE,
        DELTAS,
        DESCRIBE,
        FINISH_TOOL,
        PENDING,
        WORKFLOW_NAME,
        ActivityPolicy,
        AgentPlan,
        AgentToolRef,
        ChildBatch,
        ControlInput,
        ControlOutput,
        Decision,
        DeltaBatch,
        DescribeInput,
        ModelCallInput,
        RunOutcome,
        RunRequest,
        ToolCallInput,
        ToolCallOutput,
    )
    from ._schedules import describe, model_call, user_code
    from ._scope import Actions, Emit, Scope, State

A = TypeVar("A")
B = TypeVar("B")

EVERY_CALL_SEEN = "helikon-every-call-seen"
"""The patch under which a call that cannot run goes through hooks and permissions (its own activity)."""


@workflow.defn(name=WORKFLOW_NAME)
class RunWorkflow:
    """One run of a registered agent (see the module docstring); queried for its events as it goes."""

    def __init__(self) -> None:
        self._events: list[str] = []
        self._output = ""
        self._children = 0
        self._policy = ActivityPolicy()
        self._meter = UsageMeter()
        self._user_json: str | None = None
        self._streams: dict[int, Emit] = {}
        self._calls = 0
        self._followers: dict[str, Follower] = {}
        self._done = False
        self._permissions_json: str | None = None
        self._decisions: dict[str, Decision] = {}
        self._pending: dict[str, str] = {}
        self._asked = 0  # bumped whenever what this run (or a child) waits for changes

    @workflow.query(name="events")
    def events(self, after: int) -> list[str]:
        """The run's events after the first `after`, as wire JSON; the last event of a finished run is its terminal."""
        return self._events[after:]

    @workflow.query(name=PENDING)
    def pending(self) -> list[str]:
        """What the run's waiting calls ask, its child workflows' included (`ApprovalRequested` wire JSON)."""
        return [*self._pending.values(), *(text for f in self._followers.values() for text in f.pending)]

    @workflow.signal(name=DECIDE)
    async def decide(self, decisions: list[Decision]) -> None:
        """Human decisions by call id: kept for the calls of this workflow, passed on to the child whose call it is.

        A decision is taken once, by the call that waits under its id; one for a call that does not
        wait (yet) is kept until it does.
        """
        by_child: dict[str, list[Decision]] = {}
        for decision in decisions:
            child = self._child_asking(decision.call_id)
            if child is None:
                self._decisions[decision.call_id] = decision
            else:
                by_child.setdefault(child, []).append(decision)
        for child_id, batch in by_child.items():
            try:
                await workflow.get_external_workflow_handle(child_id).signal(DECIDE, batch)
            except Exception:  # the child has just ended: its call no longer waits
                continue

    def _child_asking(self, call_id: str) -> str | None:
        """The running child workflow whose scope holds `call_id` (the deepest), or `None`."""
        found: tuple[int, str] | None = None
        for child_id, follower in self._followers.items():
            if follower.scope and call_id.startswith(follower.scope):
                if found is None or len(follower.scope) > found[0]:
                    found = (len(follower.scope), child_id)
        return found[1] if found is not None else None

    @workflow.signal(name=DELTAS)
    def deltas(self, batch: DeltaBatch) -> None:
        """Live deltas of a model call in flight, into the stream of the agent making it (late ones dropped)."""
        emit = self._streams.get(batch.stream)
        if emit is None:
            return
        for text in batch.events:
            try:
                event: AgentEvent = from_json(AgentEvent, text)
            except ValueError:
                continue
            emit(event)

    @workflow.signal(name=CHILD_EVENTS)
    def child_events(self, batch: ChildBatch) -> None:
        """A child run's events and usage so far, forwarded as they come (a finished child's dropped)."""
        follower = self._followers.get(batch.child_id)
        if follower is not None and follower.take(batch):
            self._asked += 1

    def _news_after(self, sent: int, asked: int) -> bool:
        """Whether the run ended, recorded events after its first `sent`, or changed what it waits for since `asked`."""
        return self._done or len(self._events) > sent or self._asked != asked

    async def _forward_to_parent(self, parent: workflow.ParentInfo, events: bool) -> None:
        """Send the parent this run's new events (when it shows them) and usage, one batch at a time.

        A batch goes whenever events were recorded since the last one went (for a parent that does
        not show them, only when the usage changed too): at most one signal in flight, each carrying
        what came meanwhile. The events left at the end go with the outcome.
        """
        handle = workflow.get_external_workflow_handle(parent.workflow_id, run_id=parent.run_id)
        me = workflow.info().workflow_id
        sent = asked = 0
        reported = "[]"
        reported_pending: list[str] = []
        while True:
            await workflow.wait_condition(functools.partial(self._news_after, sent, asked))
            if self._done:
                return
            end, asked = len(self._events), self._asked
            usage = to_json(self._meter.by_model())
            pending = self.pending()
            if events or usage != reported or pending != reported_pending:
                batch = ChildBatch(me, sent, self._events[sent:end] if events else [], usage, pending)
                try:
                    await handle.signal(CHILD_EVENTS, batch)
                except Exception:  # the parent is gone: nobody to tell
                    return
                reported, reported_pending = usage, pending
            sent = end

    @workflow.run
    async def run(self, request: RunRequest) -> RunOutcome:
        """Run the agent at ``request.path`` on ``request.input_json``; end with exactly one terminal event."""
        self._policy = request.policy
        self._user_json = request.user_json
        self._permissions_json = request.permissions_json
        items: tuple[Item, ...] = from_json(tuple[Item, ...], request.input_json)
        timeout = request.config.timeout if request.config is not None else None
        state: State = json.loads(request.state_json)
        scope = Scope(state, request.depth, request.config, self._meter, self._record, request.scope)
        body = self._run_agent(request.path, items, scope, Actions())
        parent = workflow.info().parent
        forwarding = None
        if parent is not None:
            forwarding = asyncio.ensure_future(self._forward_to_parent(parent, request.return_events))
        try:
            terminal = await asyncio.wait_for(body, timeout) if timeout is not None else await body
        except TimeoutError:
            terminal = RunFailed(TimedOut(timeout or 0.0))
            self._record(terminal)
        except asyncio.CancelledError:
            terminal = RunFailed(Cancelled("run cancelled"))
            self._record(terminal)
        except Exception as exc:  # a bug ends the run with an event, as on trio, not a workflow task retried forever
            terminal = RunFailed(OtherError(f"internal error: {type(exc).__name__}: {exc}"))
            self._record(terminal)
        self._done = True
        self._pending.clear()
        if forwarding is not None:
            forwarding.cancel()
        events = self._events if request.return_events else []
        usage = to_json(self._meter.by_model())
        return RunOutcome(to_json(terminal), self._output, len(self._events), json.dumps(state), events, usage)

    def _record(self, event: AgentEvent) -> None:
        if isinstance(event, MessageOutput):
            self._output = event.item.text
        self._events.append(to_json(event))

    async def _run_agent(self, path: str, items: tuple[Item, ...], scope: Scope, actions: Actions) -> TerminalEvent:
        """Run the agent at `path`: `RunStarted`, its events, then its terminal (also returned).

        The run counts its model calls and its children's on a meter of its own below the scope's,
        which completes its `RunCompleted` (total and by-agent usage, as the trio shell's `UsageMeter`).
        """
        emit = scope.emit
        plan = await workflow.execute_activity(
            DESCRIBE,
            DescribeInput(
                path,
                json.dumps(scope.state),
                scope.depth,
                scope.config,
                self._user_json,
                permissions=self._permissions_json is not None,
            ),
            result_type=AgentPlan,
            **describe(self._policy),
        )
        emit(RunStarted(plan.name))  # a run that cannot start opens its stream too, as on trio
        if plan.kind == "error":
            error: AgentError = from_json(AgentError, plan.error_json)
            terminal: TerminalEvent = RunFailed(error)
            emit(terminal)
            return terminal
        meter = scope.meter.child()
        scope = attrs.evolve(scope.metered(meter), run_hooked=plan.run_hooked)
        controls: LoopControls | None = None
        if plan.kind == "llm":
            controls = self._controls(path, plan, scope)
            terminal = await self._run_loop(path, plan, items, scope, actions, controls)
        elif scope.depth + 1 > scope.limit:
            terminal = RunFailed(MaxAgentDepthExceeded(scope.depth + 1, scope.limit))
        else:
            terminal = await self._run_workflow(plan, items, scope)
        terminal = meter.completed(terminal)
        emit(terminal)
        if controls is not None:
            await controls.run_completed()
        return terminal

    async def _run_workflow(self, plan: AgentPlan, items: tuple[Item, ...], scope: Scope) -> TerminalEvent:
        """A workflow agent's machine; a run-level hook that raised at a child's `OnSubagentStop` fails it."""
        try:
            if plan.kind == "parallel":
                return await self._run_parallel(plan, items, scope)
            if plan.kind == "swarm":
                return await self._run_swarm(plan, items, scope)
            if plan.kind == "graph":
                return await self._run_graph(plan, items, scope)
            return await self._run_steps(plan, items, scope)
        except _HookRaised as raised:
            return RunFailed(raised.error)

    async def _subagent_stopped(self, path: str, scope: Scope, agent: str) -> HookFailed | None:
        """`OnSubagentStop` for `agent`, a sub-run of the run at `path`, on the worker's run-level hooks (if they
        apply there): the `HookFailed` of one that raised (its answer is ignored), as on trio."""
        if not scope.run_hooked:
            return None
        request = ControlInput(
            path, "subagent_stop", json.dumps(scope.state), scope.depth, self._user_json, target=agent
        )
        try:
            output = await workflow.execute_activity(
                CONTROL, request, result_type=ControlOutput, **user_code(self._policy)
            )
        except ActivityError as exc:
            return HookFailed("on_subagent_stop", f"control activity failed: {exc.cause or exc}")
        scope.state.update(json.loads(output.state_json))
        if not output.error_json:
            return None
        return from_json(HookFailed, output.error_json)

    def _controls(self, path: str, plan: AgentPlan, scope: Scope) -> LoopControls | None:
        """The hooks and guardrails of the model loop `plan` describes, or `None` when it has none."""
        if not (plan.hooked or plan.input_guarded or plan.output_guarded):
            return None
        return LoopControls(
            path,
            scope.state,
            scope.depth,
            self._user_json,
            self._policy,
            hooked=plan.hooked,
            input_guarded=plan.input_guarded,
            output_guarded=plan.output_guarded,
        )

    async def _run_child(
        self, path: str, items: tuple[Item, ...], scope: Scope, segment: str
    ) -> tuple[ChildForward, Actions]:
        """Run the agent at `path` one level below `scope` (at `segment`), its events forwarded by the merge
        convention."""
        forward = ChildForward(scope.emit, path, segment)
        actions = Actions()
        await self._run_agent(path, items, scope.deeper().under(segment).emitting(forward), actions)
        failed = await self._subagent_stopped(path.rpartition("/")[0], scope, forward.agent)
        if failed is not None:
            raise _HookRaised(failed)
        return forward, actions

    async def _run_steps(self, plan: AgentPlan, items: tuple[Item, ...], scope: Scope) -> TerminalEvent:
        """A sequential agent (one pass, fail fast) or a loop agent (passes until a step escalates): its machine."""
        keys = tuple(child.key for child in plan.children)
        machine = loop(plan.name, keys, plan.max_iterations) if plan.kind == "loop" else sequential(plan.name, keys)

        async def run_step(action: RunChild) -> tuple[ChildOutcome, bool]:
            path = plan.children[action.index].path
            forward, actions = await self._run_child(path, items, scope, action.segment)
            return forward.outcome(), actions.escalated

        return await interpret(machine, scope.state, scope.emit, run_step)

    async def _run_parallel(self, plan: AgentPlan, items: tuple[Item, ...], scope: Scope) -> TerminalEvent:
        """A parallel agent: every branch at once, answers merged as sorted JSON, failures collected: its machine."""
        merged = Interleaving(scope.emit, plan.name)

        async def run_branch(action: RunChild) -> tuple[ChildOutcome, bool]:
            path = plan.children[action.index].path
            forward, actions = await self._run_child(path, items, scope.emitting(merged.emitter()), action.segment)
            return forward.outcome(), actions.escalated

        machine = parallel(plan.name, tuple(child.key for child in plan.children))
        return await interpret(machine, scope.state, merged.emit, run_branch)

    async def _run_swarm(self, plan: AgentPlan, items: tuple[Item, ...], scope: Scope) -> TerminalEvent:
        """A swarm: the entry member's loop, its mesh of handoffs nesting, each `HandoffItem` fed to its machine;
        over the handoff budget the member is cancelled and what it says after is dropped."""
        entry = plan.children[0]
        limit = plan.max_iterations if plan.max_iterations >= 0 else None

        def counting(event: AgentEvent) -> None:
            if interpreter.stopped:
                return
            scope.emit(event)
            if isinstance(event, HandoffItem):
                interpreter.feed(HandoffSeen())

        async def run_entry(action: RunChild) -> tuple[ChildOutcome, bool]:
            forward, _ = await self._run_child(entry.path, items, scope.emitting(counting), action.segment)
            return forward.outcome(), False

        interpreter = Interpreter(swarm(plan.name, entry.key, limit), scope.state, scope.emit, run_entry)
        return await interpreter.run()

    async def _run_graph(self, plan: AgentPlan, items: tuple[Item, ...], scope: Scope) -> TerminalEvent:
        """A graph: its machine (the `Wavefront` as workflow state), each node a child workflow started once its
        predecessors end.

        A node's events reach the stream as the node runs (its child workflow forwards them in batches,
        `child_events`), each node's run preceded by an `AgentUpdated` naming its agent; a node that completes
        brings its state back.
        """
        wave = Wavefront.of([node.key for node in plan.children], [(e.before, e.after) for e in plan.edges])
        merged = Interleaving(scope.emit, plan.name)

        async def run_node(action: RunChild) -> tuple[ChildOutcome, bool]:
            forward = ChildForward(merged.emitter(), action.key, action.key)
            path = plan.children[action.index].path
            node_items = (*items, *action.context)
            outcome = await self._child_run(path, node_items, scope.deeper().under(action.key), follow=forward)
            if isinstance(outcome, RunOutcome):
                if isinstance(forward.terminal, RunCompleted):
                    scope.state.update(json.loads(outcome.state_json))
            else:
                forward.ended(outcome)
            failed = await self._subagent_stopped(path.rpartition("/")[0], scope, forward.agent)
            if failed is not None:
                raise _HookRaised(failed)
            return forward.outcome(), False

        return await interpret(graph(plan.name, wave), scope.state, merged.emit, run_node)

    async def _child_run(
        self, path: str, items: tuple[Item, ...], scope: Scope, *, follow: Emit | None = None
    ) -> RunOutcome | RunFailed:
        """Run the agent at `path` in `scope` as a child workflow (durable on its own); failing to run it, `RunFailed`.

        What the child's model calls cost, by agent, counts on the scope's meter whether the child completed or failed
        (as a workflow too: then what it last reported counts). Its events reach `follow` (when given) as it runs.
        """
        self._children += 1
        config = scope.config
        if config is not None and config.timeout is not None:  # a run's timeout is its root's alone
            config = dataclasses.replace(config, timeout=None)
        request = RunRequest(
            path=path,
            input_json=to_json(items),
            config=config,
            depth=scope.depth,
            policy=self._policy,
            state_json=json.dumps(scope.state),
            return_events=follow is not None,
            user_json=self._user_json,
            permissions_json=self._permissions_json,
            scope=scope.prefix,
        )
        child_id = f"{workflow.info().workflow_id}.{self._children}"
        follower = self._followers[child_id] = Follower(follow, scope.prefix, scope.emit)
        try:
            outcome: RunOutcome = await workflow.execute_child_workflow(
                WORKFLOW_NAME, request, id=child_id, result_type=RunOutcome
            )
        except ChildWorkflowError as exc:
            _count(scope.meter, follower.usage_json)
            return RunFailed(OtherError(f"child run of {path!r} failed: {exc.cause or exc}"))
        finally:
            if self._followers.pop(child_id).pending:
                self._asked += 1
        follower.rest(outcome.events[follower.seen :])
        _count(scope.meter, outcome.usage_json)
        return outcome

    async def _run_loop(
        self,
        path: str,
        plan: AgentPlan,
        items: tuple[Item, ...],
        scope: Scope,
        actions: Actions,
        controls: LoopControls | None,
    ) -> TerminalEvent:
        """A model loop: the shared loop (`engine.run_loop`), each action an activity, a child workflow or a
        handoff (`_LoopPerformer`); `controls` (hooks and guardrails) review each step, as on trio."""
        performer = _LoopPerformer(self, path, plan, scope, actions)
        base: TransitionCtx = from_json(TransitionCtx, plan.ctx_json)
        return await run_loop(performer, controls, base, Begin(initial_state(), Start(), Conversation(items)))

    async def _call_model(self, path: str, request: ModelRequest, emit: Emit) -> ModelResponse | RunFailed:
        """One model call as an activity; its deltas reach `emit` live (`deltas`), the rest with the response."""
        policy = self._policy
        self._calls += 1
        stream = self._calls
        self._streams[stream] = emit
        try:
            output = await workflow.execute_activity(
                CALL_MODEL,
                ModelCallInput(path, to_json(request), stream, policy.delta_interval),
                result_type=str,
                **model_call(policy),
            )
        except ActivityError as exc:
            return RunFailed(_model_error(exc))
        finally:
            del self._streams[stream]
        answered: ModelAnswered = from_json(ModelAnswered, output)
        for event in answered.deltas:
            emit(event)
        return answered.response

    async def _execute_tools(
        self,
        path: str,
        plan: AgentPlan,
        calls: tuple[ToolCall, ...],
        scope: Scope,
        actions: Actions,
        answers: dict[str, Decision] | None = None,
        problems: dict[str, str] | None = None,
    ) -> ToolResults | HookFailed:
        """Every call of the turn at once (at most the run's limit at a time); results in call order.

        Calls that wait for a human are the round's pending; a tool hook that raised cancels the
        round's other calls and fails the run (its `HookFailed`). `answers` are the human decisions
        of an approval phase's calls, by call id; `problems` why calls cannot run, by call id (the
        module docstring says where they are answered).
        """
        limit = plan.config.parallel_tool_call_limit
        gate = asyncio.Semaphore(limit) if limit is not None else None
        agent_tools = {ref.tool: ref for ref in plan.agent_tools}
        snapshot = json.dumps(scope.state)
        guarded = plan.guarded_tools
        found = problems or {}
        seen = bool(found) and guarded and workflow.patched(EVERY_CALL_SEEN)

        async def one(call: ToolCall) -> _Called:
            problem = found.get(call.call_id)
            if problem is not None and not seen:  # nothing could see it: its answer, as the transition gave it before
                return _Called(ToolResult(call.call_id, problem, is_error=True))
            ref = agent_tools.get(call.name)
            answer = answers.get(call.call_id) if answers is not None else None
            if gate is None:
                called = await self._one_tool(path, ref, call, snapshot, scope, answer, guarded, problem)
            else:
                async with gate:
                    called = await self._one_tool(path, ref, call, snapshot, scope, answer, guarded, problem)
            if called.failed is not None:
                raise _HookRaised(called.failed)
            if called.result is None:  # listed at once, while the round's other calls (a sub-run, say) go on
                self._ask(scope.prefix, called.held or call)
            return called

        tasks = [asyncio.ensure_future(one(call)) for call in calls]
        try:
            done = await asyncio.gather(*tasks)
        except _HookRaised as raised:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            return raised.error
        for called in done:
            if called.after is not None:
                scope.state.update(called.after)
            actions.escalated = actions.escalated or called.escalated
        return round_results(tuple(called.outcome(call) for call, called in zip(calls, done, strict=True)))

    async def _await_approval(
        self,
        path: str,
        plan: AgentPlan,
        pending: tuple[ToolCall, ...],
        scope: Scope,
        actions: Actions,
        problems: dict[str, str] | None = None,
    ) -> ToolResults | HookFailed:
        """`AwaitApproval`: wait (durably, under the run's deadline) for a decision on some waiting call,
        then run the decided ones with their answers; the others wait on.

        The calls are listed by `pending` under their qualified ids (``tool:CALL/ID`` in a sub-run) until
        decided; a decision arrives by the ``helikon.decide`` signal (`decide`).
        """
        for call in pending:  # listed again, in call order (as they were held, they were listed as they came)
            self._pending.pop(scope.prefix + call.call_id, None)
        keys = {call.call_id: self._ask(scope.prefix, call) for call in pending}
        try:
            await workflow.wait_condition(lambda: any(key in self._decisions for key in keys.values()))
        except BaseException:  # cancelled, or past the run's deadline: nothing waits here any more
            for key in keys.values():
                self._pending.pop(key, None)
            self._asked += 1
            raise
        answers = {cid: self._decisions.pop(key) for cid, key in keys.items() if key in self._decisions}
        for cid in answers:
            del self._pending[keys[cid]]
        self._asked += 1
        decided, undecided = decided_split(pending, answers)
        results = await self._execute_tools(path, plan, decided, scope, actions, answers, problems)
        if isinstance(results, HookFailed):
            return results
        return after_approval(undecided, results)

    def _ask(self, prefix: str, call: ToolCall) -> str:
        """List `call` (of the run at `prefix`) as waiting for a human; the id it is decided by."""
        key = prefix + call.call_id
        self._pending[key] = to_json(ApprovalRequested(key, call.name, call.arguments))
        self._asked += 1
        return key

    async def _one_tool(
        self,
        path: str,
        ref: AgentToolRef | None,
        call: ToolCall,
        snapshot: str,
        scope: Scope,
        answer: Decision | None = None,
        guarded: bool = False,
        problem: str | None = None,
    ) -> _Called:
        request = ToolCallInput(
            path, to_json(call), snapshot, scope.depth, self._user_json, self._permissions_json, answer, problem=problem
        )
        if ref is not None:
            if not guarded:
                return _Called(await self._agent_tool(path, ref, call, scope))
            return await self._guarded_agent_tool(path, ref, request, scope)
        return await self._tool_activity(CALL_TOOL, request, scope)

    async def _guarded_agent_tool(self, path: str, ref: AgentToolRef, request: ToolCallInput, scope: Scope) -> _Called:
        """An `AgentAsTool` call through the per-call pipeline: `PreToolUse` and the permission decision
        (an activity), the sub-run (a child workflow) on the call they allow (or the call's problem, on the
        arguments it was found with), `PostToolUse` and redaction."""
        allowed = await self._tool_activity(AUTHORIZE_TOOL, request, scope)
        if allowed.run is None:
            return allowed
        call = allowed.run
        if request.problem is not None and call.arguments == from_json(ToolCall, request.call_json).arguments:
            result = ToolResult(call.call_id, request.problem, is_error=True)
        else:
            result = await self._agent_tool(path, ref, call, scope)
        state = json.dumps(scope.state)
        finishing = dataclasses.replace(request, call_json=to_json(call), state_json=state, result_json=to_json(result))
        finished = await self._tool_activity(FINISH_TOOL, finishing, scope)
        return attrs.evolve(finished, events=allowed.events)

    async def _tool_activity(self, name: str, request: ToolCallInput, scope: Scope) -> _Called:
        """One of the tool activities (`name`) for the call of `request`; how it went."""
        call: ToolCall = from_json(ToolCall, request.call_json)
        try:
            output = await workflow.execute_activity(
                name, request, result_type=ToolCallOutput, **user_code(self._policy)
            )
        except ActivityError as exc:
            message = f"tool activity failed: {exc.cause or exc}"
            return _Called(ToolResult(call.call_id, message, is_error=True))
        _count(scope.meter, output.usage_json)
        if output.hook_failed_json:
            return _Called(None, failed=from_json(HookFailed, output.hook_failed_json))
        after: State = json.loads(output.state_json)
        if output.held:
            held = from_json(ToolCall, output.held_json) if output.held_json else None
            return _Called(None, after=after, held=held)
        if output.run_json:
            events: tuple[AgentEvent, ...] = from_json(tuple[AgentEvent, ...], output.events_json)
            return _Called(None, events, after=after, run=from_json(ToolCall, output.run_json))
        finished: ToolFinished = from_json(ToolFinished, output.finished_json)
        return _Called(finished.result, finished.events, after=after, escalated=finished.escalated)

    async def _agent_tool(self, path: str, ref: AgentToolRef, call: ToolCall, scope: Scope) -> ToolResult:
        """An `AgentAsTool` call as a child workflow: isolated (fresh state, its own config), one level deeper."""
        try:
            arguments: Any = json.loads(call.arguments or "{}")
        except json.JSONDecodeError:
            arguments = None
        text = arguments.get("input") if isinstance(arguments, dict) else None
        if not isinstance(text, str):
            return ToolResult(call.call_id, f"invalid arguments for tool {ref.tool!r}: `input` must be a string", True)
        too_deep = depth_error(scope.depth, scope.limit)
        if too_deep is not None:
            return ToolResult(call.call_id, str(too_deep), is_error=True)
        segment = tool_segment(call.call_id)
        isolated = attrs.evolve(scope, state={}, depth=scope.depth + 1, config=ref.config).under(segment)
        outcome = await self._child_run(f"{path}/tool:{ref.tool}", (UserMessage(text),), isolated)
        failed = await self._subagent_stopped(path, scope, ref.agent)
        if failed is not None:
            raise _HookRaised(failed)
        terminal = outcome if isinstance(outcome, RunFailed) else from_json(TerminalEvent, outcome.terminal_json)
        if isinstance(terminal, RunFailed):
            return tool_answer(call.call_id, ref.agent, ChildFailed(terminal.error))
        assert isinstance(outcome, RunOutcome)
        return tool_answer(call.call_id, ref.agent, ChildSucceeded(outcome.output))


@attrs.frozen
class _Called:
    """How one tool call went: its `result` (`None`: it waits for a human, or `failed`), its decision
    `events`, the shared state `after` it, whether it escalated, the `HookFailed` of a hook that raised;
    from ``helikon.authorize_tool``, the call allowed to `run` (its arguments maybe replaced); the call a
    waiting one is `held` as (the arguments an approver gave in its place, when those asked again)."""

    result: ToolResult | None
    events: tuple[AgentEvent, ...] = ()
    after: State | None = None
    escalated: bool = False
    failed: HookFailed | None = None
    run: ToolCall | None = None
    held: ToolCall | None = None

    def outcome(self, call: ToolCall) -> CallOutcome:
        """How `call` went, as the round's results take it: done, or waiting as the call its question is about
        (a replacement, maybe; the question itself is listed by `RunWorkflow._ask`, not here)."""
        if self.result is None:
            return CallHeld(self.held or call, ())
        return CallDone(self.result, self.events)


class _HookRaised(Exception):
    """A tool hook raised in one call of a round: the round stops, the run fails with `error`."""

    def __init__(self, error: HookFailed) -> None:
        super().__init__(str(error))
        self.error = error


class _LoopPerformer:
    """The Temporal performer of one model loop (`engine.Performer`): the workflow's activities, child
    workflows and conditions for the actions the shared loop asks for. Nothing is recorded here: the
    workflow's history is the durable record."""

    records = False

    def __init__(self, wf: RunWorkflow, path: str, plan: AgentPlan, scope: Scope, actions: Actions) -> None:
        self._wf = wf
        self._path = path
        self._plan = plan
        self._scope = scope
        self._actions = actions
        self._emit = scope.emit  # a sub-run's questions are qualified where its events are relayed
        self.agent = plan.name
        self.model: str | None = plan.model
        self.meter = scope.meter

    async def checkpoint(self) -> None:
        """Nothing: a cancelled workflow is cancelled at its next await."""

    async def send(self, event: AgentEvent) -> None:
        self._emit(event)

    async def call_model(self, request: ModelRequest, held: Held | None) -> ModelResponse | RunFailed:
        emit = self._emit
        if held is None:
            return await self._wf._call_model(self._path, request, emit)
        held.send = self.send

        def hold(event: AgentEvent) -> None:
            if not held.offer(event):
                emit(event)

        return await self._wf._call_model(self._path, request, hold)

    async def summarise(self, request: ModelRequest) -> ModelResponse | RunFailed:
        """The summary call: the agent's model (the activity's), its deltas unseen."""
        return await self._wf._call_model(self._path, request, _unseen)

    def asking(self, own: ModelRequest, injected: int) -> None:
        """Nothing (never asked: `records` is false; the activity's input is in the history)."""

    def answered(self, answer: ModelResponse) -> None:
        """Nothing: the model activity's result is in the history."""

    async def run_tools(
        self, calls: tuple[ToolCall, ...], arguments: tuple[JsonObject | None, ...], problems: tuple[str | None, ...]
    ) -> ToolResults | HookFailed:
        found = problems_by_call(calls, problems)
        return await self._wf._execute_tools(self._path, self._plan, calls, self._scope, self._actions, problems=found)

    async def await_approval(
        self, pending: tuple[ToolCall, ...], problems: tuple[str | None, ...]
    ) -> ToolResults | HookFailed | tuple[ApprovalRequested, ...]:
        found = problems_by_call(pending, problems)
        return await self._wf._await_approval(self._path, self._plan, pending, self._scope, self._actions, found)

    async def hand_off(self, target: str, transcript: Conversation) -> TerminalEvent:
        """The target agent in this workflow, one level deeper, its events relayed into this stream."""
        segment = handoff_segment(target)
        forward = ChildForward(self._emit, target, segment, SubRun.HANDOFF)
        target_scope = self._scope.deeper().under(segment).emitting(forward)
        await self._wf._run_agent(f"{self._path}/{segment}", tuple(transcript), target_scope, self._actions)
        failed = await self._wf._subagent_stopped(self._path, self._scope, forward.agent)
        return forward.end() if failed is None else RunFailed(failed)

    async def beside(
        self, call: Callable[[], Awaitable[A]], check: Callable[[], Awaitable[B | None]]
    ) -> tuple[A | None, B | None]:
        """`call` as a task, `check` awaited here (its activity scheduled first); an answer of `check` cancels
        `call`."""
        asking = asyncio.ensure_future(call())
        checked = await check()
        if checked is None:
            return await asking, None
        asking.cancel()
        try:
            answer: A | None = await asking
        except asyncio.CancelledError:  # cancelled by us, after the trip: nothing to re-raise
            answer = None
        return answer, checked

    async def boundary(self, outcome: TransitionOutcome) -> None:
        """Nothing (never asked: `records` is false)."""

    async def ended(self, terminal: TerminalEvent) -> None:
        """Nothing: the workflow's result is the record."""


_METERED = RunCompleted(Usage())
"""A workflow's success before `_run_agent` completes it with the run's meter (its usage, total and by agent)."""


def _count(meter: UsageMeter, usage_json: str) -> None:
    """Count on `meter` a usage by agent and model that crossed a boundary (a tuple of `ModelShare` as
    wire JSON; one of `AgentUsage`, as histories recorded before models were counted hold, counts with
    the model not known)."""
    entries = json.loads(usage_json)
    if any("model" not in entry for entry in entries):
        usage: tuple[AgentUsage, ...] = from_json(tuple[AgentUsage, ...], usage_json)
        for part in usage:
            meter.add(part.agent, part.usage, None)
        return
    shares: tuple[ModelShare, ...] = from_json(tuple[ModelShare, ...], usage_json)
    for share in shares:
        meter.add(share.agent, share.usage, share.model)


def _failed(terminal: TerminalEvent | None, who: str) -> RunFailed:
    if isinstance(terminal, RunFailed):
        return terminal
    return RunFailed(OtherError(f"agent {who!r} ended its stream without a terminal event"))


def _model_error(exc: ActivityError) -> AgentError:
    """A failed model activity as the `AgentError` the activity raised (its kind kept), or ``OTHER``."""
    cause = exc.cause
    if isinstance(cause, ApplicationError) and cause.details:
        detail = cause.details[0]
        if isinstance(detail, str):
            try:
                error: AgentError = from_json(AgentError, detail)
                return error
            except ValueError:
                pass
    return ModelFailed(ModelFailureKind.OTHER, f"model activity failed: {cause or exc}")


def _unseen(event: AgentEvent) -> None:
    """Where a summary call's deltas go: nowhere (the trio driver does not stream them either)."""
