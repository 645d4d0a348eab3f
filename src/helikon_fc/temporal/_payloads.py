"""What crosses the workflow/activity boundary: plain dataclasses whose fields are wire-format JSON text.

Temporal's payload converter handles dataclasses of `str`, `int`, `float`, `bool`, lists and
`None`; every helikon_fc value inside them is `core.wire` JSON text, so nothing here needs a
converter of its own and a client reads it all without agent code. This module imports neither
trio nor the shell: the workflow sandbox loads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

WORKFLOW_NAME = "helikon.run"
DESCRIBE = "helikon.describe"
CALL_MODEL = "helikon.call_model"
CALL_TOOL = "helikon.call_tool"
DELTAS = "helikon.deltas"
CHILD_EVENTS = "helikon.child_events"
DECIDE = "helikon.decide"
CONTROL = "helikon.control"
AUTHORIZE_TOOL = "helikon.authorize_tool"
FINISH_TOOL = "helikon.finish_tool"
PENDING = "pending"


@dataclass(frozen=True)
class RunSettings:
    """A `RunConfig` as it crosses the boundary (the same fields; the compaction as its `CompactionPolicy`'s
    wire JSON, without a summary model: `_settings`)."""

    max_turns: int = 16
    parallel_tool_call_limit: int | None = None
    max_agent_depth: int = 8
    timeout: float | None = None
    compaction_json: str | None = None


@dataclass(frozen=True)
class ActivityPolicy:
    """How the workflow schedules its activities (seconds; attempts count the first call)."""

    model_timeout: float = 300.0
    """Start-to-close timeout of one model call."""
    model_attempts: int = 3
    """Tries of a model call whose failure is retryable (rate limited, unavailable, transport)."""
    tool_timeout: float = 300.0
    """Start-to-close timeout of one tool call."""
    tool_attempts: int = 3
    """Tries of a tool call whose activity failed (a worker lost, a timeout); a tool that raises returns an error
    result and is never retried."""
    heartbeat_timeout: float = 10.0
    """A model or tool call whose worker stops heartbeating for this long is retried elsewhere."""
    retry_interval: float = 1.0
    """The first wait before a retry (doubling after each)."""
    delta_interval: float | None = 0.2
    """A model call sends its live deltas to the run at most this often (each batch a signal in the run's history);
    what is left at its end rides with the response. `None`: no live deltas (they reach the run with the response,
    and the history holds no signals)."""


@dataclass(frozen=True)
class RunRequest:
    """The input of one run workflow: which agent (by path), on what items, with which bounds.

    `user_json` is the run's user value as a `UserCodec` encoded it (`None`: the tools see ``user=None``).
    `permissions_json` is the run's `PermissionConfig` as wire JSON (`None`: the worker's own, if any).
    `scope` is the run's place below the run a client started (``""`` there, ``"tool:CALL/"`` in an
    agent-as-tool sub-run): it qualifies the ids its waiting calls are decided by, as on trio.
    """

    path: str
    input_json: str
    config: RunSettings | None = None
    depth: int = 0
    policy: ActivityPolicy = field(default_factory=ActivityPolicy)
    state_json: str = "{}"
    return_events: bool = False
    user_json: str | None = None
    permissions_json: str | None = None
    scope: str = ""


@dataclass(frozen=True)
class RunOutcome:
    """The result of one run workflow: its terminal event, final output text and what its model calls cost.

    `usage_json` is the run's usage by agent and model (a sorted tuple of `ModelShare`, as wire JSON), counted
    whether the run completed or failed, so the parent folds a failed child's calls in too.
    """

    terminal_json: str
    output: str
    event_count: int
    state_json: str = "{}"
    events: list[str] = field(default_factory=list)
    usage_json: str = "[]"


@dataclass(frozen=True)
class DescribeInput:
    """Ask the worker what the agent at `path` is (rendering its instructions against `state_json`).

    `permissions`: the run has a `PermissionConfig` of its own (so its calls are decided).
    """

    path: str
    state_json: str
    depth: int
    config: RunSettings | None = None
    user_json: str | None = None
    permissions: bool = False


@dataclass(frozen=True)
class ChildRef:
    """A child of a workflow agent: its state key and its path."""

    key: str
    path: str


@dataclass(frozen=True)
class GraphEdge:
    """An edge of a graph agent: `after` waits for `before`."""

    before: str
    after: str


@dataclass(frozen=True)
class AgentToolRef:
    """An `AgentAsTool` of a model loop: the tool's name, the wrapped agent's name, the sub-run's config."""

    tool: str
    agent: str
    config: RunSettings | None = None


@dataclass(frozen=True)
class AgentPlan:
    """What the workflow needs to run one agent, as the worker describes it.

    Attributes:
        kind: ``llm``, ``sequential``, ``parallel``, ``loop``, ``swarm``, ``graph`` or ``error``.
        name: the agent's name.
        config: the run's effective bounds.
        ctx_json: (llm) the `TransitionCtx` with an empty conversation.
        agent_tools: (llm) the tools that are agents, run as child workflows.
        children: (workflow agents) the steps, branches or nodes, in order; (swarm) the entry member.
        edges: (graph) the edges.
        max_iterations: (loop) the most passes; (swarm) the handoff budget, -1 for none.
        error_json: (error) the `AgentError` that stops the run from starting.
        hooked: (llm) the agent has hooks (fired through ``helikon.control``).
        input_guarded: (llm) the agent has input guardrails.
        output_guarded: (llm) the agent has output guardrails.
        guarded_tools: (llm) its calls go through hooks or permissions, so an `AgentAsTool` call is
            authorized and finished by activities around its child workflow.
        model: (llm) the name of the agent's model (its calls count under it unless another answered).
        run_hooked: the worker's run-level hooks apply here: they hear `OnSubagentStop` when a child, a
            handoff target or an agent-as-tool sub-run of this agent stops.
    """

    kind: str
    name: str
    config: RunSettings
    ctx_json: str = ""
    agent_tools: list[AgentToolRef] = field(default_factory=list)
    children: list[ChildRef] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)
    max_iterations: int = 0
    error_json: str = ""
    hooked: bool = False
    input_guarded: bool = False
    output_guarded: bool = False
    guarded_tools: bool = False
    model: str = ""
    run_hooked: bool = False


@dataclass(frozen=True)
class ModelCallInput:
    """One model call: the loop's path and the `ModelRequest` as JSON; where and how often its deltas go.

    `stream` names the call among the run's calls in flight (`DeltaBatch.stream`); `delta_interval` is
    `ActivityPolicy.delta_interval`.
    """

    path: str
    request_json: str
    stream: int = 0
    delta_interval: float | None = None


@dataclass(frozen=True)
class ChildBatch:
    """What a child run sends its parent as it goes (the ``helikon.child_events`` signal).

    `events` are the child's events from its `start`-th on (wire JSON; empty when the parent does not
    show them, as for an agent-as-tool sub-run), `usage_json` what its model calls cost so far, by
    agent and model: the parent counts it should the child fail as a workflow (terminated, say). `pending` is
    what its waiting calls ask (`ApprovalRequested` wire JSON, ids qualified), its sub-runs' included.
    """

    child_id: str
    start: int
    events: list[str]
    usage_json: str
    pending: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class DeltaBatch:
    """Live deltas of the model call `stream` of a run (wire JSON, fragments joined): the ``helikon.deltas`` signal."""

    stream: int
    events: list[str]


@dataclass(frozen=True)
class ToolCallInput:
    """One tool call: the loop's path, the `ToolCall` and the run's shared state as JSON, the depth, the user value.

    `problem` is why the call cannot run (`ExecuteTools.problems`): the pipeline answers it with that text after
    `PreToolUse` and the permission decision. (Absent from inputs of older workflows, which never sent such calls.)
    """

    path: str
    call_json: str
    state_json: str
    depth: int
    user_json: str | None = None
    permissions_json: str | None = None
    answer: Decision | None = None
    result_json: str = ""
    problem: str | None = None


@dataclass(frozen=True)
class Decision:
    """A human's decision on one waiting call (the ``helikon.decide`` signal carries a list of them).

    `approve` with `arguments` (JSON text, or `None` to keep the call's) is `Approve(arguments)`;
    otherwise it is `Reject(reason)`. `call_id` is the id `RunHandle.pending` lists (qualified by the
    sub-run that asks, as ``tool:CALL/ID``).
    """

    call_id: str
    approve: bool
    arguments: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class ToolCallOutput:
    """A finished tool call: the durable record of it, the shared state after it, and its usage.

    `finished_json` is the `helikon_fc.core.records.ToolFinished` a recorded trio run writes for the
    same call (its `ToolResult` and whether it escalated), as wire JSON. `usage_json` is what the
    models the tool ran (an agent it started in its context, say) cost, by agent and model (a tuple
    of `ModelShare` as wire JSON): the workflow counts it on the run, as the trio meter does. `held`:
    the call waits for a human (its permission decision asked, no answer was given); its record is
    then empty, and `held_json` is the `ToolCall` it waits as (the arguments an approver gave in its place,
    when those asked again). `hook_failed_json`: a tool hook raised, the run fails with this `HookFailed`.
    From ``helikon.authorize_tool``: `run_json` is the `ToolCall` allowed to run (its arguments maybe
    replaced) and `events_json` the decision's events; else the call is answered (`finished_json`) or held.
    """

    finished_json: str
    state_json: str
    usage_json: str = "[]"
    held: bool = False
    hook_failed_json: str = ""
    run_json: str = ""
    events_json: str = ""
    held_json: str = ""


@dataclass(frozen=True)
class ControlInput:
    """One hook point or one kind of guardrails of the model loop at `path` (the ``helikon.control`` activity).

    `point` is ``run_start``, ``turn_start`` (with `turn`), ``handoff`` (with `target`), ``run_complete``,
    ``input_guardrails`` (on `items_json`, the run's input), ``output_guardrails`` (on `text`, the answer)
    or ``subagent_stop`` (with `target`, the agent that stopped; at any agent's `path`, not only a loop's).
    """

    path: str
    """Where the agent stands in the run's tree of agents."""
    point: str
    """The hook point or the kind of guardrails (above)."""
    state_json: str
    """The run's shared state (what hooks read and write), as JSON."""
    depth: int
    """The agent depth of the run at `path` (0: the run's own agent)."""
    user_json: str | None
    """The run's user value as its codec wrote it (`None`: the run has none)."""
    turn: int = 0
    target: str = ""
    text: str = ""
    items_json: str = "[]"


@dataclass(frozen=True)
class ControlOutput:
    """What a hook point or the guardrails said.

    `error_json`: the `AgentError` that aborts the run (a hook's `Deny` or failure); `injections`: the
    system messages for the next model request; `tripped_json`: the events a tripped guardrail ends the
    run with (``GuardrailTriggered``, ``RunFailed``); `state_json`: the shared state after.
    """

    error_json: str
    injections: list[str]
    tripped_json: str
    state_json: str
