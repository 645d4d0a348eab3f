"""The wire format, pinned: one golden file per union under ``tests/core/golden/`` and ``docs/wire-format.md``.

A change to the wire format shows up in review as a diff of these files. After an intended change,
regenerate both with ``python tests/core/test_wire_golden.py`` and review the diff.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import get_args

from helikon_fc.core import (
    AgentUpdated,
    AgentUsage,
    Allow,
    ApplyingHandoff,
    ApprovalRequested,
    Ask,
    AssistantMessage,
    AwaitApproval,
    BashRule,
    BranchFailure,
    CallingModel,
    CallModel,
    Cancelled,
    Compacted,
    Compacting,
    CompactionSkipped,
    ConsultPolicy,
    Conversation,
    ConversationCompacted,
    Deny,
    Done,
    EditRule,
    ExecuteTools,
    ExecutingTools,
    Failed,
    Finalizing,
    FinalOutput,
    FinishReason,
    GraphFailed,
    Guard,
    GuardAction,
    GuardrailTriggered,
    GuardrailTripped,
    HandoffCollision,
    HandoffItem,
    HandoffTarget,
    HookDenied,
    HookFailed,
    InvalidTransition,
    MaxAgentDepthExceeded,
    MaxHandoffsExceeded,
    MaxIterationsExceeded,
    MaxTurnsExceeded,
    MessageOutput,
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
    OtherError,
    OutputSchema,
    ParallelFailed,
    PerformHandoff,
    PermissionConfig,
    PermissionDenied,
    PermissionGranted,
    PermissionMode,
    PolicyAllow,
    PolicyAsk,
    PolicyDeny,
    PolicyReplace,
    PolicyRule,
    ReadRule,
    Reasoning,
    ReasoningDelta,
    RepairingOutput,
    RepairStarted,
    ResumePhase,
    RunCompleted,
    RunFailed,
    RunPaused,
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
    ToolEffect,
    ToolFailed,
    ToolInfo,
    ToolOutputItem,
    ToolResult,
    ToolResults,
    ToolRule,
    TransitionCtx,
    TransitionOutcome,
    TurnStarted,
    UnknownHandoffTarget,
    Usage,
    UserMessage,
    from_json,
    to_json,
)
from helikon_fc.core.records import (
    ActionKind,
    AskedRequest,
    Boundary,
    ModelAnswered,
    OfferedTool,
    RunFinished,
    RunOpened,
    ToolFinished,
    ToolsOffered,
)
from helikon_fc.core.wire import UNIONS

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
DOC = ROOT / "docs" / "wire-format.md"

USAGE = Usage(
    input_tokens=120, output_tokens=30, cached_input_tokens=64, reasoning_tokens=8, requests=2, unreported_requests=1
)
CALL = ToolCall("call_1", "get_weather", '{"city": "Oslo"}')
RESULT = ToolResult("call_1", "12°C and sunny")
SCHEMA = OutputSchema(
    "Forecast",
    {
        "type": "object",
        "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
        "required": ["city", "celsius"],
        "additionalProperties": False,
    },
)
WEATHER_TOOL = ToolDef(
    "get_weather",
    "The current weather in a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": False},
    strict=True,
)
CONVERSATION = Conversation([SystemMessage("Be brief."), UserMessage("Weather in Oslo?"), CALL, RESULT])
REQUEST = ModelRequest(
    instructions="Be brief.",
    items=CONVERSATION,
    tools=(WEATHER_TOOL,),
    settings=ModelSettings(temperature=0.2, max_output_tokens=512),
)

SAMPLES: Mapping[str, tuple[object, ...]] = {
    "Item": (
        SystemMessage("You are a budgeting assistant."),
        UserMessage("How am I doing on dining?"),
        AssistantMessage("You have spent 80% of your dining budget.", agent="budget-assistant"),
        CALL,
        ToolResult("call_2", "unknown tool: 'launch' (available tools: get_weather)", is_error=True),
        Reasoning("The user asks about one category.", signature="EqQBCkgIARABGAIiQL8x"),
        Compacted("The user asked about dining; 80% of the budget is spent.", 2),
    ),
    "ModelEvent": (
        ModelTextDelta("You have"),
        ModelReasoningDelta("Look up the"),
        ModelToolCallDelta("call_1", "get_weather", '{"city": '),
        ModelUsage(USAGE),
        ModelFinish(FinishReason.OTHER, raw="pause_turn"),
    ),
    "AgentEvent": (
        RunStarted("budget-assistant", run_id="9b2f6c1e-run"),
        TurnStarted(0),
        TokenDelta("You have"),
        ReasoningDelta("Look up the"),
        ToolCallDelta("call_1", None, '"Oslo"}'),
        MessageOutput(AssistantMessage("Done.", agent="budget-assistant")),
        ToolCallItem(CALL),
        ToolOutputItem(RESULT),
        HandoffItem("triage", "billing"),
        AgentUpdated("billing"),
        GuardrailTriggered("input_policy", {"reason": "off topic", "score": 0.93}),
        ApprovalRequested("call_3", "delete_file", '{"path": "/tmp/x"}'),
        PermissionDenied("delete_file", "plan mode allows read-only tools only", "call_3"),
        PermissionGranted("call_1", "get_weather", "allowed by allow rule: tool(get_weather)", "tool(get_weather)"),
        RepairStarted(1),
        StructuredOutputFailed(("$.celsius: missing required field",), '{"city": "Oslo"}'),
        ConversationCompacted("The user asked about dining; 80% of the budget is spent.", 6, 9120, 1480),
        CompactionSkipped("the summary call failed: model failed (unavailable): 503"),
        RunCompleted(
            USAGE,
            (
                AgentUsage(
                    "billing",
                    Usage(input_tokens=100, output_tokens=30, cached_input_tokens=64, reasoning_tokens=8, requests=1),
                ),
                AgentUsage("triage", Usage(input_tokens=20, requests=1)),
            ),
            (
                ModelShare(
                    "billing",
                    "gpt-5-mini",
                    Usage(input_tokens=100, output_tokens=30, cached_input_tokens=64, reasoning_tokens=8, requests=1),
                ),
                ModelShare("triage", None, Usage(input_tokens=20, requests=1)),
            ),
        ),
        RunFailed(MaxTurnsExceeded(16)),
        RunPaused((ApprovalRequested("tool:call_1/call_3", "delete_file", '{"path": "/tmp/x"}'),), USAGE),
    ),
    "AgentError": (
        MaxTurnsExceeded(16),
        MaxAgentDepthExceeded(9, 8),
        MaxIterationsExceeded(5),
        MaxHandoffsExceeded(10),
        HandoffCollision("transfer_to_billing", ("billing", "Billing")),
        UnknownHandoffTarget("refunds"),
        ModelFailed(ModelFailureKind.RATE_LIMITED, "slow down", retry_after=1.5),
        StructuredOutputInvalid(("$.celsius: expected number, got string",), '{"city": "Oslo", "celsius": "12"}'),
        TimedOut(30.0),
        Cancelled(),
        ParallelFailed(
            (
                BranchFailure("news", ModelFailed(ModelFailureKind.UNAVAILABLE, "503")),
                BranchFailure("pipeline", GraphFailed((BranchFailure("fetch", TimedOut(5.0)),), ("summarise",))),
            )
        ),
        GraphFailed((BranchFailure("fetch", ToolFailed("http_get", "connection refused")),), ("parse", "report")),
        GuardrailTripped("output_policy", {"matched": ["password"]}),
        HookDenied("on_run_start", "outside business hours"),
        HookFailed("pre_tool_use", "RuntimeError: audit log unreachable"),
        ToolFailed("http_get", "connection refused"),
        SessionFailed("database is locked"),
        InvalidTransition("ExecutingTools", "ModelResponse", "expected ToolResults"),
        OtherError("something else went wrong"),
    ),
    "LoopState": (
        CallingModel(1, USAGE),
        ExecutingTools(
            (CALL, ToolCall("call_2", "launch", "{}")),
            (ToolResult("call_2", "unknown tool: 'launch' (available tools: get_weather)", is_error=True),),
            1,
            USAGE,
        ),
        ApplyingHandoff("billing", Conversation([UserMessage("Refund please")]), USAGE),
        Finalizing(2, USAGE),
        RepairingOutput(2, USAGE),
        Compacting(3, USAGE, ResumePhase.FINALIZING),
        NeedsApproval(
            (CALL,),
            1,
            USAGE,
            (CALL, ToolCall("call_2", "launch", "{}")),
            (ToolResult("call_2", "unknown tool: 'launch' (available tools: get_weather)", is_error=True),),
        ),
        Done(FinalOutput('{"city": "Oslo", "celsius": 12}', {"city": "Oslo", "celsius": 12}, structured=True), USAGE),
        Failed(MaxTurnsExceeded(16), USAGE),
    ),
    "TransitionInput": (
        Start(),
        ModelResponse(
            text="Let me check.",
            reasoning="Weather needs a tool.",
            tool_calls=(CALL,),
            usage=USAGE,
            finish_reason=FinishReason.TOOL_CALLS,
            model="gpt-5-nano",
        ),
        ToolResults(
            (RESULT,),
            (ToolCall("call_3", "delete_file", '{"path": "/tmp/x"}'),),
            (PermissionGranted("call_1", "get_weather", "no policy: allowed"),),
        ),
        SummaryFailed(ModelFailed(ModelFailureKind.UNAVAILABLE, "503")),
    ),
    "NextAction": (
        CallModel(REQUEST),
        ExecuteTools((CALL,)),
        AwaitApproval((ToolCall("call_3", "delete_file", '{"path": "/tmp/x"}'),)),
        PerformHandoff("billing", Conversation([UserMessage("Refund please")])),
        Terminate(),
    ),
    "RunRecordBody": (
        RunOpened(
            agent="weather",
            pattern="llm",
            fingerprint="3f1c0e8a9b2d4c6e",
            input=(UserMessage("Oslo?"),),
        ),
        Boundary(
            state=ExecutingTools((CALL,), (), 0, USAGE),
            appends=(CALL,),
            events=(ToolCallItem(CALL),),
            action=ActionKind.EXECUTE_TOOLS,
        ),
        ModelAnswered(
            response=ModelResponse(tool_calls=(CALL,), usage=USAGE, finish_reason=FinishReason.TOOL_CALLS),
            deltas=(ToolCallDelta("call_1", "get_weather", '{"city": "Oslo"}'),),
        ),
        ToolFinished(result=RESULT),
        RunFinished(terminal=RunCompleted(USAGE)),
        ToolsOffered(
            sources=("MCP server 'mcp-server-time'",),
            tools=(
                OfferedTool(
                    name="time_convert_time",
                    source="MCP server 'mcp-server-time'",
                    description="Convert time between timezones",
                    parameters={"type": "object", "properties": {"time": {"type": "string"}}, "required": ["time"]},
                    effect=ToolEffect.READ_ONLY,
                ),
            ),
        ),
    ),
    "PermissionRule": (ToolRule("get_weather"), BashRule("git"), ReadRule("src/**"), EditRule("*.md")),
    "PolicyVerdict": (
        PolicyAllow(),
        PolicyDeny("outside business hours"),
        PolicyAsk("Delete /tmp/x?"),
        PolicyReplace('{"path": "/tmp/sandbox/x"}'),
    ),
    "PermissionDecision": (
        Allow("allowed by allow rule: bash(git)", rule="bash(git)"),
        Deny("denied by deny rule: Bash", rule="bash(curl)"),
        Ask("destructive command requires approval", "recursive forced removal of /", guard="rm-root"),
        ConsultPolicy(),
    ),
    "values": (
        USAGE,
        REQUEST,
        ModelRequest(instructions=None, items=Conversation([UserMessage("Oslo?")]), output_schema=SCHEMA),
        FinalOutput("12°C and sunny"),
        HandoffTarget("transfer_to_billing", "billing", "Questions about invoices and refunds."),
        TransitionCtx(
            agent_name="triage",
            instructions="Route the user.",
            conversation=Conversation([UserMessage("Refund please")]),
            tools=(WEATHER_TOOL,),
            handoffs=(HandoffTarget("transfer_to_billing", "billing", "Invoices and refunds."),),
            output_schema=SCHEMA,
        ),
        TransitionOutcome(
            CallingModel(1, Usage(requests=1)),
            (ToolOutputItem(RESULT), TurnStarted(1)),
            CallModel(ModelRequest(instructions=None, items=Conversation([CALL, RESULT]))),
            (RESULT,),
        ),
        ToolInfo("Read", ToolEffect.READ_ONLY),
        Guard("no-prod", BashRule("kubectl"), GuardAction.DENY, "never touch production"),
        PolicyRule(ToolRule("delete_file"), PolicyAsk("Delete this file?")),
        PermissionConfig(
            mode=PermissionMode.ACCEPT_EDITS,
            deny=(BashRule("curl"),),
            allow=(BashRule("git"), ReadRule("src/**")),
            guards=(Guard("no-prod", BashRule("kubectl"), GuardAction.DENY),),
            policy=(PolicyRule(ToolRule("delete_file"), PolicyAsk("Delete this file?")),),
        ),
        AskedRequest(instructions="Answer briefly.", tools=(WEATHER_TOOL,), kept=1),
        ModelAnswered(
            response=ModelResponse(text="12°C and sunny", usage=USAGE),
            deltas=(TokenDelta("12°C and sunny"),),
            asked=AskedRequest(instructions="Answer briefly.", tools=(WEATHER_TOOL,), kept=3),
            latency=0.4,
        ),
        RunFinished(terminal=RunFailed(ModelFailed(ModelFailureKind.RATE_LIMITED, "slow down", 2.0)), latency=1.5),
    ),
}
"""One example of every union member (and of the plain value classes), in declaration order."""

INTRO = """\
# The wire format

Every value of `helikon_fc.core` (items, model events, requests, agent events, errors, states,
transition inputs, actions and outcomes) is written to JSON with `helikon_fc.core.to_json` and
read back with `helikon_fc.core.from_json(type, text)`:

```python
from helikon_fc.core import AgentEvent, RunStarted, from_json, to_json

text = to_json(RunStarted(agent="triage"))          # '{"type":"run_started","agent":"triage"}'
event: AgentEvent = from_json(AgentEvent, text)     # RunStarted(agent='triage')
```

## Rules

- A class is a JSON object with one key per field, in declaration order. Fields with defaults are
  written too, so every document is complete.
- A member of a union (`Item`, `ModelEvent`, `AgentEvent`, `AgentError`, `LoopState`,
  `TransitionInput`, `NextAction`, `PermissionRule`, `PolicyVerdict`, `PermissionDecision`,
  and `RunRecordBody`, the durable run records of `docs/durability.md`) always carries a
  snake_case `"type"` tag first (the class name in snake_case), wherever it appears; `from_json`
  requires it. The other classes (`Usage`, `ModelRequest`, `ModelSettings`, `ToolDef`,
  `OutputSchema`, `FinalOutput`, `BranchFailure`, `HandoffTarget`, `TransitionCtx`,
  `TransitionOutcome`, `ToolInfo`, `Guard`, `PolicyRule`, `PermissionConfig`) have no tag.
- `HandoffItem` writes its fields `from_agent` / `to_agent` as `from` / `to`.
- `ModelAnswered.asked` and `ModelAnswered.latency` (the request a recorded model call answered, and how
  long it took) and `RunFinished.latency` (how long the model call a run failed on took) are left off
  when `None`: records written before they existed read back with `None`.
- `Usage.unreported_requests` counts the model calls whose provider reported no usage (their tokens
  are not in the totals); documents written before the field existed omit it and read as 0.
- Tuples are JSON arrays and come back as tuples. A `Conversation` is an array of tagged items.
- Enums (`FinishReason`, `ModelFailureKind`, `ToolEffect`, `PermissionMode`, `GuardAction`) are
  written by value: `"tool_calls"`, `"rate_limited"`, `"read_only"`.
- `JsonValue` fields (`GuardrailTriggered.info`, `FinalOutput.value`, tool and output schemas) hold
  any JSON value and pass through unchanged; they must be JSON (finite numbers, string keys).
- `from_json` is strict: an unknown or missing tag, a missing field, an unexpected field, a value
  of the wrong type (no coercion: `"1"` is not an int, `1` is not a string, `true` is not an int),
  `NaN`/`Infinity`, or text that is not JSON raise `helikon_fc.core.WireFormatError` (a
  `ValueError`). Its message lists each problem with the path to the bad value:

  ```text
  $.events[2].item.call_id: expected str, got int
  $.error.failures[0].error.type: unknown AgentError type "what" (expected one of: cancelled, ...)
  $.item.arguments: missing field
  $.extra: unexpected field
  ```

  `WireFormatError.problems` holds the same lines as a tuple. `to_json` raises it too, for a value
  JSON cannot hold (a NaN, or a non-JSON object inside a `JsonValue` field).
- `from_json(SomeClass, text)` is typed `SomeClass`; `from_json(UnionAlias, text)` is typed `Any`,
  so annotate the variable (`event: AgentEvent = from_json(AgentEvent, text)`).

The examples below are generated from the golden files that pin the format in the test suite
(`tests/core/golden/`); regenerate both with `python tests/core/test_wire_golden.py`.
"""


def golden_name(union: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in union).lstrip("_") + ".json"


def render_golden(union: str) -> str:
    """The golden file of `union`: a JSON array of its samples' wire forms."""
    documents = [json.loads(to_json(value)) for value in SAMPLES[union]]
    return json.dumps(documents, indent=2, ensure_ascii=False) + "\n"


def render_doc() -> str:
    """``docs/wire-format.md``: the rules, then one example per union member."""
    parts = [INTRO]
    for union, values in SAMPLES.items():
        title = "Other values" if union == "values" else f"`{union}`"
        parts.append(f"\n## {title}\n")
        for value in values:
            parts.append(f"\n### `{type(value).__name__}`\n\n```json\n{to_json(value, indent=2)}\n```\n")
    return "".join(parts)


def test_every_union_member_has_a_sample() -> None:
    """The golden files cover every member of every tagged union, once each."""
    for union, alias in UNIONS.items():
        members = [cls for cls in get_args(alias) if isinstance(cls, type)]
        assert [type(value) for value in SAMPLES[union]] == members, union


def test_the_golden_files_pin_the_wire_format() -> None:
    """`to_json` of each sample is exactly what its union's golden file holds."""
    for union in SAMPLES:
        path = GOLDEN / golden_name(union)
        assert path.read_text(encoding="utf-8") == render_golden(union), f"{path} is stale"


def test_the_golden_documents_read_back_as_the_samples() -> None:
    """Each golden document reads back, as its union and as its own class, into the value it was written from."""
    for union, values in SAMPLES.items():
        documents = json.loads((GOLDEN / golden_name(union)).read_text(encoding="utf-8"))
        for document, value in zip(documents, values, strict=True):
            text = json.dumps(document)
            assert from_json(type(value), text) == value
            if union != "values":
                assert from_json(UNIONS[union], text) == value


def test_the_wire_format_doc_matches_the_goldens() -> None:
    """``docs/wire-format.md`` is what the samples render to (regenerate it with this module)."""
    assert DOC.read_text(encoding="utf-8") == render_doc()


def regenerate() -> None:
    """Write the golden files and the doc from `SAMPLES`."""
    GOLDEN.mkdir(exist_ok=True)
    for union in SAMPLES:
        (GOLDEN / golden_name(union)).write_text(render_golden(union), encoding="utf-8")
    DOC.write_text(render_doc(), encoding="utf-8")


if __name__ == "__main__":
    regenerate()
    sys.stdout.write(f"wrote {len(SAMPLES)} golden files under {GOLDEN} and {DOC}\n")
