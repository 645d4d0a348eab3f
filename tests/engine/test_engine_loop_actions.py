"""`engine.run_loop`'s actions beyond one model call, with the in-test performer of `test_shared_loop`: tool
rounds, approvals, the compaction's summary call, the checkpoint before every step, and the input guardrails
beside the first model call only."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
from tests.engine.test_engine_controls import Scripted
from tests.engine.test_shared_loop import CTX, InputTripping, Performer, fresh

from helikon_fc.core import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessage,
    CompactionPolicy,
    Conversation,
    GuardrailTriggered,
    GuardrailTripped,
    HandoffTarget,
    HookFailed,
    Item,
    JsonObject,
    ModelRequest,
    ModelResponse,
    RunCompleted,
    RunFailed,
    RunPaused,
    Start,
    TokenDelta,
    ToolCall,
    ToolDef,
    ToolResult,
    ToolResults,
    TransitionCtx,
    Usage,
    UserMessage,
    initial_state,
)
from helikon_fc.core.errors import ModelFailed, ModelFailureKind
from helikon_fc.engine import Begin, Controls, Held, run_loop

TOOLS_CTX = TransitionCtx(
    agent_name="a", instructions=None, conversation=Conversation(), tools=(ToolDef("t", "d", {"type": "object"}),)
)
CALL = ToolCall("c1", "t", "{}")
RESULT = ToolResult("c1", "42")


class Acting(Performer):
    """The in-test performer with scripted tool rounds, approvals and summaries, and its checkpoints logged."""

    def __init__(
        self,
        answers: Sequence[ModelResponse | RunFailed],
        *,
        records: bool = False,
        rounds: Sequence[ToolResults | HookFailed] = (),
        approvals: Sequence[ToolResults | HookFailed | tuple[ApprovalRequested, ...]] = (),
        summaries: Sequence[ModelResponse | RunFailed] = (),
    ) -> None:
        super().__init__(answers, records=records)
        self.rounds, self.approvals, self.summaries = list(rounds), list(approvals), list(summaries)

    async def checkpoint(self) -> None:
        self.log.append(("checkpoint", None))

    async def run_tools(
        self, calls: tuple[ToolCall, ...], arguments: tuple[JsonObject | None, ...], problems: tuple[str | None, ...]
    ) -> ToolResults | HookFailed:
        self.log.append(("run_tools", calls))
        return self.rounds.pop(0)

    async def await_approval(
        self, pending: tuple[ToolCall, ...], problems: tuple[str | None, ...]
    ) -> ToolResults | HookFailed | tuple[ApprovalRequested, ...]:
        self.log.append(("await_approval", pending))
        return self.approvals.pop(0)

    async def summarise(self, request: ModelRequest) -> ModelResponse | RunFailed:
        self.log.append(("summarise", request))
        return self.summaries.pop(0)

    def requests(self) -> list[ModelRequest]:
        return [what for kind, what in self.log if kind == "call_model" and isinstance(what, ModelRequest)]


def tool_begin() -> Begin:
    return Begin(initial_state(), Start(), Conversation((UserMessage("use t"),)))


async def test_a_tool_round_extends_the_conversation_the_next_call_sees() -> None:
    """After a tool round the next model request holds the call and its result (the steps' appends)."""
    result = ToolResult("c1", "42")
    p = Acting([ModelResponse(tool_calls=(CALL,)), ModelResponse(text="done")], rounds=[ToolResults((result,))])
    terminal = await run_loop(p, None, TOOLS_CTX, tool_begin())
    assert type(terminal) is RunCompleted
    assert ("run_tools", (CALL,)) in p.log
    second = tuple(p.requests()[1].items)
    assert second[0] == UserMessage("use t")
    assert second[1:] == (CALL, result)


async def test_every_step_begins_with_a_checkpoint() -> None:
    """The performer's checkpoint comes first in each step: one per step, right after what fed it."""
    p = Acting([ModelResponse(tool_calls=(CALL,)), ModelResponse(text="done")], rounds=[ToolResults((RESULT,))])
    assert type(await run_loop(p, None, TOOLS_CTX, tool_begin())) is RunCompleted
    kinds = [kind for kind, _ in p.log]
    at = [i for i, kind in enumerate(kinds) if kind == "checkpoint"]
    # the start, the tool call's answer, the round's results, the final answer: each step right after its input
    assert [kinds[i - 1] if i else None for i in at] == [None, "answered", "run_tools", "answered"]


async def test_a_tool_hook_that_raised_fails_the_run() -> None:
    """A round answered by a hook's failure ends the run with it: recorded as a failed step, no further call."""
    failure = HookFailed("pre_tool_use", "boom")
    p = Acting([ModelResponse(tool_calls=(CALL,)), ModelResponse(text="never")], records=True, rounds=[failure])
    terminal = await run_loop(p, None, TOOLS_CTX, tool_begin())
    assert terminal == RunFailed(failure)
    assert [kind for kind, _ in p.log].count("call_model") == 1
    assert p.log[-1] == ("ended", terminal)
    assert p.log[-2][0] == "boundary"


async def test_a_call_waiting_for_approval_pauses_the_run_with_its_usage() -> None:
    """A round that leaves a call pending asks for approval; a request nobody can answer yet pauses the run."""
    asked = (ApprovalRequested("c1", "t", "{}"),)
    answer = ModelResponse(tool_calls=(CALL,), usage=Usage(output_tokens=5))
    p = Acting([answer], rounds=[ToolResults((), pending=(CALL,))], approvals=[asked])
    terminal = await run_loop(p, None, TOOLS_CTX, tool_begin())
    assert type(terminal) is RunPaused and terminal.pending == asked
    assert terminal.usage == Usage(output_tokens=5, requests=1)
    assert ("await_approval", (CALL,)) in p.log
    assert p.log[-1] == ("ended", terminal)


async def test_an_approval_round_goes_on_or_fails_on_a_hook() -> None:
    """Decided approvals feed the next step (the model is asked again); a hook that raised meanwhile fails it."""
    ran = ToolResults((ToolResult("c1", "ok"),))
    p = Acting(
        [ModelResponse(tool_calls=(CALL,)), ModelResponse(text="done")],
        rounds=[ToolResults((), pending=(CALL,))],
        approvals=[ran],
    )
    assert type(await run_loop(p, None, TOOLS_CTX, tool_begin())) is RunCompleted
    assert ToolResult("c1", "ok") in tuple(p.requests()[1].items)
    failure = HookFailed("post_tool_use", "boom")
    p = Acting([ModelResponse(tool_calls=(CALL,))], rounds=[ToolResults((), pending=(CALL,))], approvals=[failure])
    terminal = await run_loop(p, None, TOOLS_CTX, tool_begin())
    assert terminal == RunFailed(failure)
    assert p.log[-1] == ("ended", terminal)


LONG = Conversation((UserMessage("x" * 400), AssistantMessage("y" * 400), UserMessage("z" * 400)))
COMPACTING = TransitionCtx(
    agent_name="a",
    instructions=None,
    conversation=Conversation(),
    compaction=CompactionPolicy(max_tokens=50, summary_tokens=10),
)


async def test_a_compaction_asks_its_summary_then_the_model_and_counts_both() -> None:
    """Past the budget the summary call comes first (not the agent's model), its usage counted under the
    model that answered it; then the model is asked."""
    summary = ModelResponse(text="short", usage=Usage(output_tokens=3), model="small")
    p = Acting([ModelResponse(text="done")], summaries=[summary])
    terminal = await run_loop(p, None, COMPACTING, Begin(initial_state(), Start(), LONG))
    assert type(terminal) is RunCompleted
    kinds = [kind for kind, _ in p.log]
    assert kinds.index("summarise") < kinds.index("call_model")
    assert ("answered", summary) in p.log
    assert p.meter.counted[0] == ("a", Usage(output_tokens=3, requests=1), "small")


async def test_a_failed_summary_is_skipped_and_the_run_goes_on() -> None:
    """A summary call that failed is fed back, not the run's end: nothing counted for it, the model asked next."""
    failed = RunFailed(ModelFailed(ModelFailureKind.TRANSPORT, "gone"))
    p = Acting([ModelResponse(text="done")], summaries=[failed])
    terminal = await run_loop(p, None, COMPACTING, Begin(initial_state(), Start(), LONG))
    assert type(terminal) is RunCompleted
    assert [kind for kind, _ in p.log].count("call_model") == 1
    assert ("ended", failed) not in p.log
    assert len(p.meter.counted) == 1


class Passing(Controls):
    """Controls whose input guardrails pass (each check logged), and nothing else."""

    def __init__(self) -> None:
        super().__init__(hooked=False, input_guarded=True, output_guarded=False)
        self.checked: list[tuple[Item, ...]] = []

    async def check_input(self, items: tuple[Item, ...]) -> tuple[AgentEvent, ...] | None:
        self.checked.append(items)
        return None

    async def idle(self) -> None:
        pass


class Streaming(Acting):
    """Offers one delta to `held` on every model call, and logs whether it was held or went out."""

    async def call_model(self, request: ModelRequest, held: Held | None) -> ModelResponse | RunFailed:
        if held is not None:
            self.log.append(("held", held.offer(TokenDelta("d"))))
        return await super().call_model(request, held)


async def test_the_input_guardrails_run_beside_the_first_model_call_only() -> None:
    """A fresh run's input is checked once, beside the first call, whose deltas pass once it passed; the
    second call is asked on its own."""
    controls = Passing()
    p = Streaming(
        [ModelResponse(tool_calls=(CALL,)), ModelResponse(text="done")], rounds=[ToolResults((ToolResult("c1", "ok"),))]
    )
    assert type(await run_loop(p, controls, TOOLS_CTX, tool_begin())) is RunCompleted
    assert controls.checked == [(UserMessage("use t"),)]
    assert [what for kind, what in p.log if kind == "held"] == [False]
    assert [kind for kind, _ in p.log].count("answered") == 2


async def test_a_resumed_run_that_already_asked_the_model_is_not_checked_again() -> None:
    """`fresh=False` (a model call answered before): the input guardrails are not asked."""
    controls = Passing()
    p = Acting([ModelResponse(text="done")])
    begin = Begin(initial_state(), Start(), Conversation((UserMessage("hi"),)), fresh=False)
    assert type(await run_loop(p, controls, CTX, begin)) is RunCompleted
    assert controls.checked == []


async def test_a_model_failure_beside_passing_guardrails_ends_the_run() -> None:
    """The first call failing while the input guardrails pass is the run's end, recorded as such."""
    failed = RunFailed(ModelFailed(ModelFailureKind.TRANSPORT, "gone"))
    p = Acting([failed])
    assert await run_loop(p, Passing(), CTX, fresh()) is failed
    assert p.log[-1] == ("ended", failed)
    assert p.meter.counted == []


async def test_an_input_trip_before_the_answer_calls_nothing_and_records_nothing() -> None:
    """A trip before the model answered fails the run with nothing counted; a performer that does not record
    is asked for no boundary."""
    p = Acting([ModelResponse(text="never")])
    terminal = await run_loop(p, InputTripping(), CTX, fresh())
    assert terminal == RunFailed(GuardrailTripped("input_policy"))
    kinds = [kind for kind, _ in p.log]
    assert "call_model" not in kinds and "boundary" not in kinds
    assert ("send", GuardrailTriggered("input_policy")) in p.log
    assert p.meter.counted == []


async def test_a_performer_that_does_not_record_gets_no_boundary() -> None:
    """Without `records`, no step is written and the model is not told its own request."""
    p = Acting([ModelResponse(text="done")])
    await run_loop(p, None, CTX, fresh())
    kinds = [kind for kind, _ in p.log]
    assert "boundary" not in kinds and "asking" not in kinds
    assert kinds[-1] == "ended"


async def test_a_handoff_leaves_run_complete_to_its_target() -> None:
    """A run that handed off does not fire its own `OnRunComplete` afterwards (its target fires its own)."""
    ctx = attrs.evolve(CTX, handoffs=(HandoffTarget("transfer_to_b", "b", "b"),))
    controls = Scripted()
    p = Acting([ModelResponse(tool_calls=(ToolCall("c1", "transfer_to_b", "{}"),))])
    await run_loop(p, controls, ctx, fresh())
    assert ("hand_off", "b") in p.log
    await controls.run_completed()
    assert controls.calls[-1] == "idle" and "run_complete" not in controls.calls
