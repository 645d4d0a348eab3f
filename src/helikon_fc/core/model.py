"""What crosses the boundary to a model: the request, the provider-neutral stream events, the aggregated response.

A provider translates a `ModelRequest` into its wire format and its streamed answer into
`ModelEvent`s. The driver forwards the deltas live and folds the whole stream into one
`ModelResponse` with `assemble_response`, which is what `transition` sees.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import TypeAlias, assert_never

import attrs

from .compiled_schema import CompiledSchema, SchemaError, compile_schema
from .conversation import Conversation
from .items import Reasoning, ToolCall
from .json_value import JsonObject
from .usage import Usage


@attrs.frozen(kw_only=True)
class ModelSettings:
    """Sampling and tool-use knobs passed through to the provider; `None` leaves the provider's default.

    `tool_choice` is ``"auto"``, ``"required"``, ``"none"`` or the name of one tool the model must call.
    By default it is sent on every tool-loop turn, so a forced tool (``"required"`` or a name) is
    called again each turn until the run runs out of turns; with `tool_choice_first_turn_only` it
    is sent on the first turn (turn 0) only and later turns leave the choice to the model.
    `previous_response_id` is for server-side conversation state (the Responses API); the caller manages it.
    """

    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = None
    tool_choice: str | None = None
    parallel_tool_calls: bool | None = None
    previous_response_id: str | None = None
    tool_choice_first_turn_only: bool = False
    """Send `tool_choice` on turn 0 only: force a first tool call, then let the model answer."""
    prompt_caching: bool = False
    """Ask the provider to cache the request's stable prefix (the tools, the instructions and the
    conversation so far) where caching must be asked for: Anthropic's ``cache_control`` breakpoints.
    Providers that cache on their own (OpenAI) ignore it."""

    def for_turn(self, turn: int) -> ModelSettings:
        """The settings a tool-loop request of `turn` carries (`tool_choice` dropped after turn 0 if asked)."""
        if turn > 0 and self.tool_choice_first_turn_only and self.tool_choice is not None:
            return attrs.evolve(self, tool_choice=None)
        return self


@attrs.frozen
class ToolDef:
    """A tool as the model sees it: its name, what it does, and the JSON Schema of its arguments.

    `strict` says the schema is in the strict form OpenAI's structured outputs require
    (every object closed with ``additionalProperties: false`` and every key required).
    `compiled` is `parameters` compiled for checking, once, when the tool is defined.

    Raises:
        ValueError: `parameters` is not a valid JSON Schema, or has a ``$ref`` that does not resolve
            inside it (remote references are never fetched).
    """

    name: str
    description: str
    parameters: JsonObject
    strict: bool = False
    compiled: CompiledSchema = attrs.field(init=False, eq=False, repr=False)

    @compiled.default
    def _compile(self) -> CompiledSchema:
        return _compile_for(f"tool {self.name!r}: parameters", self.parameters)


@attrs.frozen
class OutputSchema:
    """The JSON Schema a structured-output turn must fit, with the name the provider shows the model.

    `compiled` is `schema` compiled for checking, once, when the output schema is built.

    Raises:
        ValueError: `schema` is not a valid JSON Schema, or has a ``$ref`` that does not resolve inside it.
    """

    name: str
    schema: JsonObject
    strict: bool = True
    compiled: CompiledSchema = attrs.field(init=False, eq=False, repr=False)

    @compiled.default
    def _compile(self) -> CompiledSchema:
        return _compile_for(f"output schema {self.name!r}", self.schema)


def _compile_for(what: str, schema: JsonObject) -> CompiledSchema:
    try:
        return compile_schema(schema)
    except SchemaError as exc:
        raise SchemaError(f"{what}: {exc}") from None


@attrs.frozen(kw_only=True)
class ModelRequest:
    """One call to a model: the instructions, the whole conversation, the tools offered, the settings.

    `output_schema` is set only on the structured-output (finalizing and repair) turns, and then
    `tools` is empty.
    """

    instructions: str | None
    items: Conversation
    tools: tuple[ToolDef, ...] = ()
    settings: ModelSettings = ModelSettings()
    output_schema: OutputSchema | None = None


class FinishReason(enum.Enum):
    """Why the model stopped generating."""

    STOP = "stop"
    LENGTH = "length"
    TOOL_CALLS = "tool_calls"
    CONTENT_FILTER = "content_filter"
    OTHER = "other"


@attrs.frozen
class ModelTextDelta:
    """A fragment of the answer's text."""

    text: str


@attrs.frozen
class ModelReasoningDelta:
    """A fragment of the model's exposed reasoning.

    A provider that signs its reasoning (see `Reasoning`) ends each signed block with a delta that
    carries the block's `signature`, and reports a block it returned only encrypted as one delta
    with `redacted` set (and empty text). A delta with either set closes the current block: the
    block is the text of the reasoning deltas since the last closed one, this delta's included.
    """

    text: str
    signature: str | None = None
    """Set on the delta that ends a signed block: the provider's signature over the block's text."""
    redacted: str | None = None
    """Set on a delta that is a whole block of encrypted reasoning: the provider's opaque data."""


@attrs.frozen
class ModelToolCallDelta:
    """A fragment of one tool call. `name` is set exactly once per `call_id`, on the first delta that knows it whole."""

    call_id: str
    name: str | None
    args_delta: str


@attrs.frozen
class ModelUsage:
    """What the turn has cost so far: a cumulative snapshot, the last one of a turn wins.

    `model` names the model that answered when it is not the one that was asked (a `FallbackModel`
    sets it when a fallback answered); `None` means the model asked.
    """

    usage: Usage
    model: str | None = None


@attrs.frozen
class ModelFinish:
    """The model stopped for `reason`; `raw` keeps the provider's own word for an unknown reason. Always last."""

    reason: FinishReason
    raw: str | None = None


ModelEvent: TypeAlias = ModelTextDelta | ModelReasoningDelta | ModelToolCallDelta | ModelUsage | ModelFinish
"""One event of a model's streamed answer."""


@attrs.frozen(kw_only=True)
class ModelResponse:
    """A model's whole answer to one request, assembled from its stream."""

    text: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    finish_reason: FinishReason = FinishReason.STOP
    reasoning_blocks: tuple[Reasoning, ...] = ()
    """The reasoning as the provider's blocks, when any block was signed or redacted (their texts joined
    are `reasoning`); empty otherwise, and `reasoning` is then one unsigned block."""
    model: str | None = None
    """The model that answered when it is not the one asked (from the last `ModelUsage`); `None`: the one asked."""


def assemble_response(events: Iterable[ModelEvent]) -> ModelResponse:
    """Fold one turn's stream events into a `ModelResponse`.

    Text and reasoning fragments are concatenated; tool-call fragments are grouped by `call_id`
    in the order calls first appeared, named by the first name seen and with their argument
    fragments concatenated; the last usage snapshot wins, and names the model that answered; a
    missing finish means `STOP`. Reasoning deltas that sign or redact a block split the reasoning into
    `ModelResponse.reasoning_blocks`.
    """
    text: list[str] = []
    reasoning: list[str] = []
    blocks: _ReasoningBlocks | None = None
    names: dict[str, str] = {}
    arguments: dict[str, list[str]] = {}
    usage = _NO_USAGE
    model: str | None = None
    finish = FinishReason.STOP
    for event in events:
        # The exact classes first (an event of one of them can match no other case), then the cases by class.
        kind = type(event)
        if kind is ModelToolCallDelta:
            _add_call_delta(event, arguments, names)  # type: ignore[arg-type]
            continue
        if kind is ModelTextDelta:
            text.append(event.text)  # type: ignore[union-attr]
            continue
        match event:
            case ModelTextDelta(text=fragment):
                text.append(fragment)
            case ModelReasoningDelta(text=fragment):
                reasoning.append(fragment)
                if blocks is None:
                    blocks = _ReasoningBlocks()
                blocks.add(event)
            case ModelToolCallDelta():
                _add_call_delta(event, arguments, names)
            case ModelUsage(usage=snapshot, model=answered_by):
                usage, model = snapshot, answered_by
            case ModelFinish(reason=reason):
                finish = reason
            case _:
                assert_never(event)
    calls = tuple([ToolCall(call_id, names.get(call_id, ""), "".join(parts)) for call_id, parts in arguments.items()])
    return ModelResponse(
        text="".join(text),
        reasoning="".join(reasoning),
        tool_calls=calls,
        usage=usage,
        finish_reason=finish,
        reasoning_blocks=blocks.finish() if blocks is not None else (),
        model=model,
    )


_NO_USAGE = Usage()
"""What a turn that reported no usage is assembled with (a `Usage` is immutable: one value serves every turn)."""


def _add_call_delta(event: ModelToolCallDelta, arguments: dict[str, list[str]], names: dict[str, str]) -> None:
    """Fold one tool-call fragment in: its argument text appended, the call named by the first name seen."""
    call_id, name = event.call_id, event.name
    parts = arguments.get(call_id)
    if parts is None:
        arguments[call_id] = [event.args_delta]
    else:
        parts.append(event.args_delta)
    if name and call_id not in names:
        names[call_id] = name


class _ReasoningBlocks:
    """Reasoning deltas grouped into blocks: a delta with a signature or redacted data closes one."""

    __slots__ = ("_blocks", "_marked", "_open")

    def __init__(self) -> None:
        self._blocks: list[Reasoning] = []
        self._open: list[str] = []
        self._marked = False

    def add(self, delta: ModelReasoningDelta) -> None:
        """Take one delta, closing the open block if the delta signs or redacts it."""
        self._open.append(delta.text)
        if delta.signature is not None or delta.redacted is not None:
            self._marked = True
            self._blocks.append(Reasoning("".join(self._open), delta.signature, delta.redacted))
            self._open = []

    def finish(self) -> tuple[Reasoning, ...]:
        """The blocks, the trailing unsigned text as one more; none when no block was signed or redacted."""
        if not self._marked:
            return ()
        tail = "".join(self._open)
        return (*self._blocks, Reasoning(tail)) if tail else tuple(self._blocks)
