"""The machine's vocabulary: `LoopState` (phases), `TransitionInput` (what happened),
`NextAction` (what the driver must do next), `TransitionCtx` (what the machine may read) and
`TransitionOutcome` (what one step returns).

Everything here is a frozen value. A state plus its conversation is all a durable runner has to
persist to resume a run at any transition boundary.
"""

from __future__ import annotations

from typing import TypeAlias

import attrs

from .compaction import CompactionPolicy, ResumePhase
from .conversation import Conversation
from .errors import AgentError
from .events import AgentEvent
from .items import Item, ToolCall, ToolResult
from .json_value import JsonObject, JsonValue
from .model import ModelRequest, ModelResponse, ModelSettings, OutputSchema, ToolDef
from .usage import Usage


@attrs.frozen
class FinalOutput:
    """What a successful run produced: the final answer's text and, for structured output, its decoded JSON value."""

    text: str
    value: JsonValue = None
    structured: bool = False


# LoopState: one variant per phase.


@attrs.frozen
class CallingModel:
    """About to call the model for `turn` (0-based) in the tool loop."""

    turn: int
    usage: Usage = Usage()


@attrs.frozen
class ExecutingTools:
    """The model asked for `calls`; the driver is running them and reports them with `ToolResults`.

    Every call goes to the driver, one that cannot run (unknown tool, arguments not JSON or off the
    tool's schema) with its problem attached (`ExecuteTools.problems`): hooks and permissions see it
    first, as in the original. `rejected` is always empty in records this version writes; records of
    older versions hold there the results they settled without the driver, and such a round asks the
    driver only for the others. (A response with a handoff call never gets here: it goes to
    `ApplyingHandoff` with every call answered.)
    """

    calls: tuple[ToolCall, ...]
    rejected: tuple[ToolResult, ...]
    turn: int
    usage: Usage = Usage()


@attrs.frozen
class ApplyingHandoff:
    """Control passes to the agent `target`, which continues with `transcript`."""

    target: str
    transcript: Conversation
    usage: Usage = Usage()


@attrs.frozen
class Finalizing:
    """About to ask the model, with no tools, for output that fits the structured-output schema."""

    turn: int
    usage: Usage = Usage()


@attrs.frozen
class RepairingOutput:
    """About to make the one repair turn after the finalizing turn failed validation."""

    turn: int
    usage: Usage = Usage()


@attrs.frozen
class Compacting:
    """Asking a model for a summary of the conversation before the model call of `turn`.

    The conversation the model would have seen passed the run's compaction budget. Once the summary
    is in (or skipped), the run goes back to `resume` with a `Compacted` marker appended.
    """

    turn: int
    usage: Usage = Usage()
    resume: ResumePhase = ResumePhase.CALLING_MODEL


@attrs.frozen
class NeedsApproval:
    """Tool calls of a round wait for a human decision (the permission decision asked).

    `pending` are the waiting calls; `calls` every call of the round (results keep their order)
    and `settled` the results already in (rejected, refused or run). The driver asks the approval
    handler, or pauses the run until it is resumed with approvals, and answers with `ToolResults`
    (the approved calls run, the refused ones answered); calls still undecided go in its `pending`.
    """

    pending: tuple[ToolCall, ...]
    turn: int
    usage: Usage = Usage()
    calls: tuple[ToolCall, ...] = ()
    settled: tuple[ToolResult, ...] = ()


@attrs.frozen
class Done:
    """Terminal success."""

    output: FinalOutput
    usage: Usage = Usage()


@attrs.frozen
class Failed:
    """Terminal failure."""

    error: AgentError
    usage: Usage = Usage()


LoopState: TypeAlias = (
    CallingModel
    | ExecutingTools
    | ApplyingHandoff
    | Finalizing
    | RepairingOutput
    | Compacting
    | NeedsApproval
    | Done
    | Failed
)
"""The phase a run is in."""


def initial_state() -> LoopState:
    """The state every run starts in: about to call the model for turn 0, nothing spent."""
    return CallingModel(turn=0, usage=Usage())


# TransitionInput: what just happened.


@attrs.frozen
class Start:
    """Begin (or resume) the run from the current state."""


@attrs.frozen
class ToolResults:
    """The results of the calls an `ExecuteTools` (or `AwaitApproval`) action asked for, one per call.

    `pending` are the calls that wait for approval instead (each answered by no result), and
    `events` the permission decisions of the round (`PermissionGranted`, `PermissionDenied`), which
    the machine emits before the results.
    """

    results: tuple[ToolResult, ...]
    pending: tuple[ToolCall, ...] = ()
    events: tuple[AgentEvent, ...] = ()


@attrs.frozen
class SummaryFailed:
    """The summary call a `Compacting` state asked for failed with `error`; the run goes on uncompacted."""

    error: AgentError


TransitionInput: TypeAlias = Start | ModelResponse | ToolResults | SummaryFailed
"""What the driver feeds the machine."""


# NextAction: what the driver must do before the next step.


@attrs.frozen
class CallModel:
    """Call the model with `request`; feed its answer back as `ModelResponse`."""

    request: ModelRequest


@attrs.frozen
class ExecuteTools:
    """Run `calls` concurrently; feed their results back, in any order, as `ToolResults`.

    `arguments` and `problems` hold, one per call in order, what `transition` found checking each call:
    its argument object, parsed and checked against the tool's schema (the driver hands it to the tool
    instead of parsing the text again), or, for a call that cannot run, its problem, the error text the
    model reads (``unknown tool: ...``, ``invalid arguments for tool ...``; its argument slot is `None`).
    The driver still puts such a call through `PreToolUse` and the permission decision, and answers it
    with its problem where it would invoke the tool; arguments a hook or the permissions replaced are
    checked afresh. Both are derived from `calls` and the tools, so they take no part in equality and are
    not on the wire (empty when not given: the driver then parses each call itself).
    """

    calls: tuple[ToolCall, ...]
    arguments: tuple[JsonObject | None, ...] = attrs.field(default=(), eq=False, repr=False)
    problems: tuple[str | None, ...] = attrs.field(default=(), eq=False, repr=False)


@attrs.frozen
class AwaitApproval:
    """Get a human decision on each of `pending` (the approval handler, or pause the run); then run the
    approved calls and feed every result back as `ToolResults` (calls still undecided as its `pending`).

    `problems` are the calls' problems as in `ExecuteTools` (one per call; `None` for one that can run),
    derived, off the wire: an approved call that cannot run is answered with its problem.
    """

    pending: tuple[ToolCall, ...]
    problems: tuple[str | None, ...] = attrs.field(default=(), eq=False, repr=False)


@attrs.frozen
class PerformHandoff:
    """Run the agent `target` on `transcript`; its events continue this run's stream."""

    target: str
    transcript: Conversation


@attrs.frozen
class Terminate:
    """The state is terminal: stop driving."""


NextAction: TypeAlias = CallModel | ExecuteTools | AwaitApproval | PerformHandoff | Terminate
"""The side effect the driver performs next."""


@attrs.frozen
class HandoffTarget:
    """An agent this agent may hand off to, through the tool `tool_name`."""

    tool_name: str
    agent: str
    description: str


@attrs.frozen(kw_only=True)
class TransitionCtx:
    """Everything `transition` may read besides the state and the input.

    `conversation` is the accumulated conversation *before* this step's appends.
    `agent_depth` is how deeply this run is nested in handoffs and sub-runs (0 at the top).
    `compaction`, when set, is the budget past which the loop compacts before a model call.
    """

    agent_name: str
    instructions: str | None
    conversation: Conversation
    tools: tuple[ToolDef, ...] = ()
    handoffs: tuple[HandoffTarget, ...] = ()
    settings: ModelSettings = ModelSettings()
    max_turns: int = 16
    output_schema: OutputSchema | None = None
    agent_depth: int = 0
    max_agent_depth: int = 8
    compaction: CompactionPolicy | None = None


@attrs.frozen
class TransitionOutcome:
    """One step of the machine: the next state, the events to emit (in order), what to do next,
    and the items the driver appends to the conversation before the next step."""

    next_state: LoopState
    events: tuple[AgentEvent, ...]
    next_action: NextAction
    conversation_appends: tuple[Item, ...] = ()
