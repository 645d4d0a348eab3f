"""Hypothesis strategies for every core type, valid by construction.

Named as plural nouns of what they generate. Two families:

- *values* (`items()`, `agent_events()`, `loop_states()`, ...): any value of a core type, for the
  wire format and for fuzzing `transition` with arbitrary (state, input, context) triples;
- *runs* (`scenario_ctxs()`, `scripts()`): a context in the small world of `properties.reference`
  and a finite script of model behaviour to drive through `transition`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable

import attrs
from hypothesis import strategies as st
from properties.permission_strategies import (
    permission_configs,
    permission_rules,
    policy_verdicts,
    tool_effects,
)
from properties.reference import ADD, ANSWER, BILLING, SUPPORT, WEATHER, Answer, make_ctx

from helikon_fc.core import (
    AgentError,
    AgentEvent,
    AgentUpdated,
    AgentUsage,
    Allow,
    ApplyingHandoff,
    ApprovalRequested,
    Ask,
    AssistantMessage,
    BranchFailure,
    CallingModel,
    CallModel,
    Cancelled,
    Compacted,
    Compacting,
    CompactionPolicy,
    CompactionSkipped,
    ConsultPolicy,
    Conversation,
    ConversationCompacted,
    Deny,
    Done,
    ExecuteTools,
    ExecutingTools,
    Failed,
    Finalizing,
    FinalOutput,
    FinishReason,
    GraphFailed,
    GuardrailTriggered,
    GuardrailTripped,
    HandoffCollision,
    HandoffItem,
    HandoffTarget,
    HookDenied,
    HookFailed,
    InvalidTransition,
    Item,
    JsonObject,
    JsonValue,
    LoopState,
    MaxAgentDepthExceeded,
    MaxHandoffsExceeded,
    MaxIterationsExceeded,
    MaxTurnsExceeded,
    MessageOutput,
    ModelEvent,
    ModelFailed,
    ModelFailureKind,
    ModelFinish,
    ModelReasoningDelta,
    ModelRequest,
    ModelResponse,
    ModelSettings,
    ModelShare,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    NeedsApproval,
    NextAction,
    OtherError,
    OutputSchema,
    ParallelFailed,
    PerformHandoff,
    PermissionConfig,
    PermissionDecision,
    PermissionDenied,
    PermissionGranted,
    PermissionRule,
    PolicyVerdict,
    Reasoning,
    ReasoningDelta,
    RepairingOutput,
    RepairStarted,
    ResumePhase,
    RunCompleted,
    RunFailed,
    RunStarted,
    SessionFailed,
    Start,
    StructuredOutputFailed,
    StructuredOutputInvalid,
    SummaryFailed,
    SystemMessage,
    Terminate,
    TimedOut,
    TokenDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallItem,
    ToolDef,
    ToolFailed,
    ToolInfo,
    ToolOutputItem,
    ToolResult,
    ToolResults,
    TransitionCtx,
    TransitionInput,
    TransitionOutcome,
    TurnStarted,
    UnknownHandoffTarget,
    Usage,
    UserMessage,
)
from helikon_fc.core.records import (
    ActionKind,
    AskedRequest,
    Boundary,
    ModelAnswered,
    OfferedTool,
    RunFinished,
    RunOpened,
    RunRecordBody,
    ToolFinished,
    ToolsOffered,
)
from helikon_fc.core.schema import SchemaError, compile_schema

# Scalars


@functools.cache
def texts() -> st.SearchStrategy[str]:
    """Short unicode text, the empty string included."""
    return st.text(max_size=12)


@functools.cache
def names() -> st.SearchStrategy[str]:
    """Identifier-like names: agents, tools, call ids, keys."""
    return st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=10)


@functools.cache
def counts() -> st.SearchStrategy[int]:
    """Non-negative counts (turns, tokens, limits)."""
    return st.integers(min_value=0, max_value=10_000)


@functools.cache
def finite_floats() -> st.SearchStrategy[float]:
    """Floats JSON can hold: no NaN, no infinity."""
    return st.floats(allow_nan=False, allow_infinity=False)


@functools.cache
def json_values() -> st.SearchStrategy[JsonValue]:
    """Any JSON value: scalars, and arrays and objects of them, a few levels deep."""
    scalars: st.SearchStrategy[JsonValue] = st.none() | st.booleans() | st.integers() | finite_floats() | texts()
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts(), inner, max_size=3),
        max_leaves=8,
    )


@functools.cache
def json_objects() -> st.SearchStrategy[JsonObject]:
    """JSON objects, such as schemas or decoded arguments."""
    return st.dictionaries(texts(), json_values(), max_size=3)


@functools.cache
def json_schemas() -> st.SearchStrategy[JsonObject]:
    """JSON Schemas built from the keywords `validate` understands (and some it does not), well formed or not."""
    type_names = st.sampled_from(["null", "boolean", "integer", "number", "string", "array", "object", "bogus"])
    keys = st.sampled_from(["a", "b", "city", "with space"])
    bounds = st.integers(min_value=-3, max_value=5) | finite_floats() | st.booleans()

    def compound(inner: st.SearchStrategy[JsonObject]) -> st.SearchStrategy[JsonObject]:
        keywords: dict[str, st.SearchStrategy[JsonValue]] = {
            "type": type_names | st.lists(type_names, max_size=3),
            "properties": st.dictionaries(keys, inner, max_size=3),
            "required": st.lists(keys, max_size=3),
            "additionalProperties": st.booleans() | inner,
            "items": inner | st.booleans(),
            "prefixItems": st.lists(inner, max_size=2),
            "minItems": bounds,
            "maxItems": bounds,
            "minimum": bounds,
            "exclusiveMaximum": bounds,
            "minLength": bounds,
            "maxLength": bounds,
            "pattern": st.sampled_from(["^a", "[0-9]+", "(", ""]),
            "enum": st.lists(json_values(), max_size=3) | json_values(),
            "const": json_values(),
            "anyOf": st.lists(inner, max_size=2),
            "oneOf": st.lists(inner, max_size=2),
            "allOf": st.lists(inner, max_size=2),
            "$ref": st.sampled_from(["#", "#/$defs/a", "#/$defs/missing", "#/properties/a", "other.json"]),
            "$defs": st.fixed_dictionaries({"a": inner}),
        }
        return st.lists(st.sampled_from(sorted(keywords)), max_size=4, unique=True).flatmap(
            lambda chosen: st.fixed_dictionaries({key: keywords[key] for key in chosen})
        )

    return st.recursive(st.builds(dict) | st.builds(lambda t: {"type": t}, type_names), compound, max_leaves=6)


@functools.cache
def usages() -> st.SearchStrategy[Usage]:
    """Any usage, with any provider-reported request count."""
    return st.builds(
        Usage,
        input_tokens=counts(),
        output_tokens=counts(),
        cached_input_tokens=counts(),
        reasoning_tokens=counts(),
        requests=counts(),
        unreported_requests=counts(),
    )


@functools.cache
def model_shares() -> st.SearchStrategy[ModelShare]:
    """Any usage of one agent's calls to one model (a model not known included)."""
    return st.builds(ModelShare, names(), st.none() | names(), usages())


# Items


@functools.cache
def tool_calls() -> st.SearchStrategy[ToolCall]:
    """Tool calls with any name and any argument text (valid JSON or not)."""
    return st.builds(ToolCall, names(), names(), texts() | json_objects().map(json.dumps))


@functools.cache
def tool_results() -> st.SearchStrategy[ToolResult]:
    """Tool results, errors included."""
    return st.builds(ToolResult, names(), texts(), st.booleans())


@functools.cache
def items() -> st.SearchStrategy[Item]:
    """Any conversation item."""
    return st.one_of(
        st.builds(SystemMessage, texts()),
        st.builds(UserMessage, texts()),
        st.builds(AssistantMessage, texts(), st.none() | names()),
        tool_calls(),
        tool_results(),
        st.builds(Reasoning, texts()),
        compaction_markers(),
    )


@functools.cache
def compaction_markers() -> st.SearchStrategy[Compacted]:
    """Compaction markers, blank summaries (skips) included, keeping any number of items."""
    return st.builds(Compacted, texts(), st.integers(min_value=0, max_value=8))


@functools.cache
def compaction_policies(most_tokens: int = 400) -> st.SearchStrategy[CompactionPolicy]:
    """Compaction budgets from the least allowed up to `most_tokens`, each with a summary budget below it."""
    return st.integers(min_value=17, max_value=most_tokens).flatmap(
        lambda most: st.builds(
            CompactionPolicy,
            max_tokens=st.just(most),
            summary_tokens=st.integers(min_value=16, max_value=most - 1),
            instructions=texts(),
        )
    )


def conversations(item_strategy: st.SearchStrategy[Item] | None = None) -> st.SearchStrategy[Conversation]:
    """Conversations of a few items."""
    return st.lists(items() if item_strategy is None else item_strategy, max_size=5).map(Conversation)


@functools.cache
def messages() -> st.SearchStrategy[Item]:
    """Items with no tool call in them: a conversation of these has nothing unanswered."""
    return st.one_of(
        st.builds(SystemMessage, texts()),
        st.builds(UserMessage, texts()),
        st.builds(AssistantMessage, texts(), st.none() | names()),
    )


# Model carriers


@functools.cache
def model_settings() -> st.SearchStrategy[ModelSettings]:
    """Any model settings."""
    return st.builds(
        ModelSettings,
        temperature=st.none() | finite_floats(),
        top_p=st.none() | finite_floats(),
        max_output_tokens=st.none() | counts(),
        tool_choice=st.none() | st.sampled_from(["auto", "required", "none"]) | names(),
        parallel_tool_calls=st.none() | st.booleans(),
        previous_response_id=st.none() | names(),
    )


@functools.cache
def valid_schemas() -> st.SearchStrategy[JsonObject]:
    """Schemas that compile: arbitrary JSON objects (mostly unknown keywords) and keyword schemas."""
    return (json_objects() | json_schemas()).filter(_compiles)


def _compiles(schema: JsonObject) -> bool:
    try:
        compile_schema(schema)
    except SchemaError:
        return False
    return True


@functools.cache
def tool_defs() -> st.SearchStrategy[ToolDef]:
    """Tool definitions with arbitrary schemas that compile (ToolDef refuses the others)."""
    return st.builds(ToolDef, names(), texts(), valid_schemas(), st.booleans())


@functools.cache
def output_schemas() -> st.SearchStrategy[OutputSchema]:
    """Output schemas with arbitrary schemas that compile (OutputSchema refuses the others)."""
    return st.builds(OutputSchema, names(), valid_schemas(), st.booleans())


@functools.cache
def model_requests() -> st.SearchStrategy[ModelRequest]:
    """Any model request."""
    return st.builds(
        ModelRequest,
        instructions=st.none() | texts(),
        items=conversations(),
        tools=st.lists(tool_defs(), max_size=2).map(tuple),
        settings=model_settings(),
        output_schema=st.none() | output_schemas(),
    )


@functools.cache
def finish_reasons() -> st.SearchStrategy[FinishReason]:
    """Every finish reason."""
    return st.sampled_from(FinishReason)


@functools.cache
def model_events() -> st.SearchStrategy[ModelEvent]:
    """Any provider-neutral model stream event."""
    return st.one_of(
        st.builds(ModelTextDelta, texts()),
        st.builds(ModelReasoningDelta, texts()),
        st.builds(ModelToolCallDelta, names(), st.none() | names(), texts()),
        st.builds(ModelUsage, usages(), st.none() | names()),
        st.builds(ModelFinish, finish_reasons(), st.none() | names()),
    )


@functools.cache
def model_responses() -> st.SearchStrategy[ModelResponse]:
    """Any aggregated model response: arbitrary text, reasoning and tool calls."""
    return st.builds(
        ModelResponse,
        text=texts(),
        reasoning=texts(),
        tool_calls=st.lists(tool_calls(), max_size=3).map(tuple),
        usage=usages(),
        finish_reason=finish_reasons(),
        model=st.none() | names(),
    )


# Errors and events


@functools.cache
def _leaf_errors() -> st.SearchStrategy[AgentError]:
    return st.one_of(
        st.builds(MaxTurnsExceeded, counts()),
        st.builds(MaxAgentDepthExceeded, counts(), counts()),
        st.builds(MaxIterationsExceeded, counts()),
        st.builds(MaxHandoffsExceeded, counts()),
        st.builds(HandoffCollision, names(), st.lists(names(), max_size=3).map(tuple)),
        st.builds(UnknownHandoffTarget, names()),
        st.builds(ModelFailed, st.sampled_from(ModelFailureKind), texts(), st.none() | finite_floats()),
        st.builds(StructuredOutputInvalid, st.lists(texts(), max_size=3).map(tuple), texts()),
        st.builds(TimedOut, finite_floats()),
        st.builds(Cancelled, texts()),
        st.builds(GuardrailTripped, names(), json_values()),
        st.builds(HookDenied, names(), texts()),
        st.builds(HookFailed, names(), texts()),
        st.builds(ToolFailed, names(), texts()),
        st.builds(SessionFailed, texts()),
        st.builds(InvalidTransition, names(), names(), texts()),
        st.builds(OtherError, texts()),
    )


@functools.cache
def agent_errors() -> st.SearchStrategy[AgentError]:
    """Any failure, workflow failures nesting other failures (`BranchFailure`) included."""

    def nest(inner: st.SearchStrategy[AgentError]) -> st.SearchStrategy[AgentError]:
        branches = st.lists(st.builds(BranchFailure, names(), inner), max_size=2).map(tuple)
        return st.builds(ParallelFailed, branches) | st.builds(
            GraphFailed, branches, st.lists(names(), max_size=2).map(tuple)
        )

    return st.recursive(_leaf_errors(), nest, max_leaves=4)


@functools.cache
def agent_events() -> st.SearchStrategy[AgentEvent]:
    """Any agent event."""
    return st.one_of(
        st.builds(RunStarted, names()),
        st.builds(TurnStarted, counts()),
        st.builds(TokenDelta, texts()),
        st.builds(ReasoningDelta, texts()),
        st.builds(ToolCallDelta, names(), st.none() | names(), texts()),
        st.builds(MessageOutput, st.builds(AssistantMessage, texts(), st.none() | names())),
        st.builds(ToolCallItem, tool_calls()),
        st.builds(ToolOutputItem, tool_results()),
        st.builds(HandoffItem, names(), names()),
        st.builds(AgentUpdated, names()),
        st.builds(GuardrailTriggered, names(), json_values()),
        st.builds(ApprovalRequested, names(), names(), texts()),
        st.builds(PermissionDenied, names(), texts(), st.none() | names(), st.none() | texts()),
        st.builds(
            PermissionGranted, names(), names(), texts(), st.none() | texts(), st.booleans(), st.none() | texts()
        ),
        st.builds(RepairStarted, st.just(1)),
        st.builds(StructuredOutputFailed, st.lists(texts(), max_size=3).map(tuple), texts()),
        st.builds(ConversationCompacted, texts(), counts(), counts(), counts()),
        st.builds(CompactionSkipped, texts()),
        st.builds(
            RunCompleted,
            usages(),
            st.lists(st.builds(AgentUsage, names(), usages()), max_size=2).map(tuple),
            st.lists(model_shares(), max_size=3).map(tuple),
        ),
        st.builds(RunFailed, agent_errors()),
    )


# States, inputs, actions, outcomes


@functools.cache
def final_outputs() -> st.SearchStrategy[FinalOutput]:
    """Plain and structured final outputs."""
    return st.builds(FinalOutput, texts(), json_values(), st.booleans())


@functools.cache
def terminal_states() -> st.SearchStrategy[LoopState]:
    """`Done` and `Failed` states."""
    return st.builds(Done, final_outputs(), usages()) | st.builds(Failed, agent_errors(), usages())


@functools.cache
def loop_states() -> st.SearchStrategy[LoopState]:
    """Any loop state, with arbitrary (not necessarily reachable) contents."""
    calls = st.lists(tool_calls(), max_size=3).map(tuple)
    return st.one_of(
        st.builds(CallingModel, counts(), usages()),
        st.builds(ExecutingTools, calls, st.lists(tool_results(), max_size=2).map(tuple), counts(), usages()),
        st.builds(ApplyingHandoff, names(), conversations(), usages()),
        st.builds(Finalizing, counts(), usages()),
        st.builds(RepairingOutput, counts(), usages()),
        st.builds(Compacting, counts(), usages(), st.sampled_from(ResumePhase)),
        st.builds(NeedsApproval, calls, counts(), usages()),
        terminal_states(),
    )


@functools.cache
def transition_inputs() -> st.SearchStrategy[TransitionInput]:
    """Any transition input."""
    return st.one_of(
        st.just(Start()),
        model_responses(),
        st.builds(ToolResults, st.lists(tool_results(), max_size=3).map(tuple)),
        st.builds(SummaryFailed, agent_errors()),
    )


@functools.cache
def next_actions() -> st.SearchStrategy[NextAction]:
    """Any next action."""
    return st.one_of(
        st.builds(CallModel, model_requests()),
        st.builds(ExecuteTools, st.lists(tool_calls(), max_size=3).map(tuple)),
        st.builds(PerformHandoff, names(), conversations()),
        st.just(Terminate()),
    )


@functools.cache
def handoff_targets() -> st.SearchStrategy[HandoffTarget]:
    """Handoff targets."""
    return st.builds(HandoffTarget, names().map(lambda slug: f"transfer_to_{slug}"), names(), texts())


@functools.cache
def transition_ctxs() -> st.SearchStrategy[TransitionCtx]:
    """Any transition context: arbitrary tools, schemas, handoffs and budgets."""
    return st.builds(
        TransitionCtx,
        agent_name=names(),
        instructions=st.none() | texts(),
        conversation=conversations(),
        tools=st.lists(tool_defs() | st.sampled_from([WEATHER, ADD]), max_size=3).map(tuple),
        handoffs=st.lists(handoff_targets() | st.sampled_from([BILLING, SUPPORT]), max_size=2).map(tuple),
        settings=model_settings(),
        max_turns=st.integers(min_value=0, max_value=20),
        output_schema=st.none() | output_schemas() | st.just(ANSWER),
        agent_depth=st.integers(min_value=0, max_value=10),
        max_agent_depth=st.integers(min_value=0, max_value=10),
        compaction=st.none() | compaction_policies(),
    )


@functools.cache
def transition_outcomes() -> st.SearchStrategy[TransitionOutcome]:
    """Any transition outcome."""
    return st.builds(
        TransitionOutcome,
        loop_states(),
        st.lists(agent_events(), max_size=3).map(tuple),
        next_actions(),
        st.lists(items(), max_size=3).map(tuple),
    )


@functools.cache
def boundaries() -> st.SearchStrategy[Boundary]:
    """Any boundary record."""
    return st.builds(
        Boundary,
        state=loop_states(),
        appends=st.lists(items(), max_size=3).map(tuple),
        events=st.lists(agent_events(), max_size=3).map(tuple),
        action=st.sampled_from(ActionKind),
    )


@functools.cache
def asked_requests() -> st.SearchStrategy[AskedRequest]:
    """The request a recorded model call answered: every field of a `ModelRequest` but its conversation,
    which the log holds (how many of its items are kept, and what follows them)."""
    return st.builds(
        AskedRequest,
        instructions=st.none() | texts(),
        tools=st.lists(tool_defs(), max_size=2).map(tuple),
        settings=model_settings(),
        output_schema=st.none() | output_schemas(),
        kept=counts(),
        items=st.lists(items(), max_size=2).map(tuple),
        injected=counts(),
    )


@functools.cache
def run_records() -> st.SearchStrategy[RunRecordBody]:
    """Any durable run record."""
    return st.one_of(
        st.builds(
            RunOpened,
            agent=names(),
            pattern=st.sampled_from(["llm", "graph", "sequential"]),
            fingerprint=names(),
            input=st.lists(items(), max_size=3).map(tuple),
            version=counts(),
        ),
        boundaries(),
        st.builds(
            ModelAnswered,
            response=model_responses(),
            deltas=st.lists(agent_events(), max_size=3).map(tuple),
            asked=st.none() | asked_requests(),
            latency=st.none() | finite_floats(),
        ),
        st.builds(ToolFinished, result=tool_results(), escalated=st.booleans()),
        st.builds(RunFinished, terminal=agent_events(), escalated=st.booleans(), latency=st.none() | finite_floats()),
        st.builds(
            ToolsOffered,
            sources=st.lists(names(), max_size=2).map(tuple),
            tools=st.lists(
                st.builds(
                    OfferedTool,
                    name=names(),
                    source=names(),
                    description=st.text(max_size=20),
                    parameters=json_objects(),
                    effect=tool_effects(),
                ),
                max_size=2,
            ).map(tuple),
        ),
    )


# Runs: a context in the small world, and a script of model behaviour


@functools.cache
def scenario_ctxs() -> st.SearchStrategy[TransitionCtx]:
    """Contexts of the reference world: some of its tools and handoffs, maybe the output schema, small budgets."""
    return st.builds(
        make_ctx,
        tools=st.sampled_from([(WEATHER, ADD), (WEATHER,), ()]),
        handoffs=st.sampled_from([(BILLING, SUPPORT), (), (BILLING,)]),
        output_schema=st.sampled_from([None, None, ANSWER]),
        max_turns=st.sampled_from([1, 2, 3, 4, 5, 6, 0]),
        agent_depth=st.integers(min_value=0, max_value=2),
        max_agent_depth=st.sampled_from([8, 2, 1, 0]),
        conversation=conversations(messages()),
    ).flatmap(lambda ctx: st.builds(attrs.evolve, st.just(ctx), compaction=st.none() | compaction_policies(60)))


@functools.cache
def _fitting_arguments(name: str) -> st.SearchStrategy[str]:
    """Argument text that fits the schema of `name` (one of the reference tools)."""
    if name == "get_weather":
        return st.builds(lambda city: json.dumps({"city": city}), texts())
    return st.builds(lambda a, b: json.dumps({"a": a, "b": b}), st.integers(), st.integers())


_BAD_ARGUMENTS = (
    '{"city": 3}',
    '{"a": "one", "b": 2}',
    '{"c": true}',
    "{}",
    "",
    "   ",
    "[1, 2]",
    '"text"',
    "null",
    '{"city": ',
    "{oops",
    "{'city': 'Oslo'}",
    "[" * 3000,
)


@st.composite
def tool_call_shapes(draw: st.DrawFn, call_id: str) -> ToolCall:
    """One call: fitting a reference tool, off its schema or not JSON, to an unknown or nameless tool, or a handoff."""
    kind = draw(st.sampled_from(["valid", "valid", "valid", "bad_arguments", "unknown", "handoff"]))
    match kind:
        case "valid":
            name = draw(st.sampled_from(["get_weather", "add"]))
            return ToolCall(call_id, name, draw(_fitting_arguments(name)))
        case "bad_arguments":
            name = draw(st.sampled_from(["get_weather", "add"]))
            return ToolCall(call_id, name, draw(st.sampled_from(_BAD_ARGUMENTS)))
        case "unknown":
            return ToolCall(call_id, draw(st.sampled_from(["launch_rockets", ""])), "{}")
        case _:
            target = draw(st.sampled_from(["transfer_to_billing", "transfer_to_support", "transfer_to_nobody"]))
            return ToolCall(call_id, target, "{}")


@st.composite
def call_batches(draw: st.DrawFn, prefix: str) -> tuple[ToolCall, ...]:
    """1-3 calls (see `tool_call_shapes`) with ids under `prefix`; a call may reuse an earlier call's id, as
    some models and proxies do within one response."""
    count = draw(st.integers(min_value=1, max_value=3))
    ids: list[str] = []
    for index in range(count):
        fresh = f"{prefix}_{index}"
        ids.append(draw(st.sampled_from([fresh, *ids])) if ids else fresh)
    return tuple(draw(tool_call_shapes(call_id)) for call_id in ids)


@functools.cache
def structured_answers() -> st.SearchStrategy[str]:
    """Answer text for a structured-output turn: fitting `ANSWER`, off-schema, fenced, or not JSON at all."""
    fitting = st.builds(lambda answer, score: {"answer": answer, "score": score}, texts(), st.integers())
    off_schema = st.sampled_from(
        [{"answer": "x"}, {"answer": 1, "score": 2}, {"answer": "x", "score": 1, "extra": None}, [], "text"]
    )
    return st.one_of(
        fitting.map(json.dumps),
        fitting.map(lambda value: f"  {json.dumps(value)}\n"),
        off_schema.map(json.dumps),
        fitting.map(lambda value: f"```json\n{json.dumps(value)}\n```"),
        texts(),
    )


@st.composite
def behaviours(draw: st.DrawFn, prefix: str, kinds: tuple[str, ...] | None = None) -> ModelResponse:
    """One scripted model answer: tool calls, text, structured output, an empty answer, or reasoning only."""
    usage = draw(usages())
    kind = draw(st.sampled_from(kinds or ("tools", "text", "structured", "empty", "reasoning")))
    match kind:
        case "text":
            return ModelResponse(text=draw(texts()), usage=usage)
        case "empty":
            return ModelResponse(usage=usage)
        case "reasoning":
            return ModelResponse(reasoning=draw(texts()), usage=usage)
        case "structured":
            return ModelResponse(text=draw(structured_answers()), usage=usage)
        case _:
            text = draw(st.sampled_from(["", "Let me check."]))
            return ModelResponse(text=text, tool_calls=draw(call_batches(prefix)), usage=usage)


@st.composite
def scripts(draw: st.DrawFn) -> tuple[Answer, ...]:
    """A finite script of up to 9 model answers, each with a tool-loop and a structured-output variant.

    The first answers mostly call tools; structured-output turns mostly answer with (fitting or broken)
    JSON. Call ids are unique across the script.
    """
    rounds = draw(st.integers(min_value=0, max_value=6))
    tail = draw(st.integers(min_value=0, max_value=3))
    mostly_tools = ("tools", "tools", "tools", "text", "empty")
    mostly_json = ("structured", "structured", "structured", "text", "tools", "empty", "reasoning")
    return tuple(
        Answer(
            draw(behaviours(f"s{index}", mostly_tools if index < rounds else None)),
            draw(behaviours(f"s{index}", mostly_json)),
        )
        for index in range(rounds + tail)
    )


@st.composite
def tool_calling_scripts(draw: st.DrawFn, length: int) -> tuple[ModelResponse, ...]:
    """`length` answers that each call at least one tool with fitting arguments."""
    responses = []
    for index in range(length):
        cities = draw(st.lists(texts(), min_size=1, max_size=3))
        calls = tuple(
            ToolCall(f"s{index}_{n}", "get_weather", json.dumps({"city": city})) for n, city in enumerate(cities)
        )
        responses.append(ModelResponse(tool_calls=calls, usage=draw(usages())))
    return tuple(responses)


@functools.cache
def permission_decisions() -> st.SearchStrategy[PermissionDecision]:
    """Any permission decision."""
    return st.one_of(
        st.builds(Allow, texts(), st.none() | texts(), st.none() | texts(), st.booleans()),
        st.builds(Deny, texts(), st.none() | texts()),
        st.builds(Ask, texts(), texts(), st.none() | names()),
        st.just(ConsultPolicy()),
    )


@functools.cache
def tool_infos() -> st.SearchStrategy[ToolInfo]:
    """Any tool description."""
    return st.builds(ToolInfo, names(), tool_effects(), st.booleans())


WIRE_TYPES: tuple[tuple[str, object, Callable[[], st.SearchStrategy[object]]], ...] = (
    ("Item", Item, items),
    ("ModelEvent", ModelEvent, model_events),
    ("AgentEvent", AgentEvent, agent_events),
    ("AgentError", AgentError, agent_errors),
    ("LoopState", LoopState, loop_states),
    ("TransitionInput", TransitionInput, transition_inputs),
    ("NextAction", NextAction, next_actions),
    ("Usage", Usage, usages),
    ("Conversation", Conversation, conversations),
    ("ModelSettings", ModelSettings, model_settings),
    ("ToolDef", ToolDef, tool_defs),
    ("OutputSchema", OutputSchema, output_schemas),
    ("ModelRequest", ModelRequest, model_requests),
    ("ModelResponse", ModelResponse, model_responses),
    ("FinalOutput", FinalOutput, final_outputs),
    ("HandoffTarget", HandoffTarget, handoff_targets),
    ("TransitionCtx", TransitionCtx, transition_ctxs),
    ("TransitionOutcome", TransitionOutcome, transition_outcomes),
    ("RunRecordBody", RunRecordBody, run_records),
    ("PermissionRule", PermissionRule, permission_rules),
    ("PolicyVerdict", PolicyVerdict, policy_verdicts),
    ("PermissionDecision", PermissionDecision, permission_decisions),
    ("PermissionConfig", PermissionConfig, permission_configs),
    ("ToolInfo", ToolInfo, tool_infos),
)
"""Every type the wire format covers, with the strategy that generates its values."""
