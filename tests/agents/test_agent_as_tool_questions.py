"""An agent-as-tool sub-run's questions reach its caller's stream while the call runs (as on Temporal), qualified
by the call: before a waiting handler answers, before a pause, and not a second time when a paused run resumes
(nor do a workflow child's or a handoff target's, whose questions the relay qualifies the same way)."""

from __future__ import annotations

from pathlib import Path

import trio
from tests.control.scenario import DECISIONS, front, graph, lead, resume, scoped, start

from helikon_fc import AgentInput, RunContext, Runner
from helikon_fc.core import AgentEvent, ApprovalRequested, RunPaused, ToolOutputItem
from helikon_fc.shell.control.permissions import ApprovalAnswer, ApprovalRequest, Permissions
from helikon_fc.stores import MemoryStore

ASKED = ["tool:ask-ops/cmd0", "tool:ask-ops/cmd2", "tool:ask-ops/cmd3"]
"""The questions of the `ops` round (`scenario.COMMANDS`) as the caller's stream names them."""


def _asked(events: list[AgentEvent] | tuple[AgentEvent, ...]) -> list[str]:
    return [event.call_id for event in events if isinstance(event, ApprovalRequested)]


async def test_a_waiting_handler_is_answered_after_the_caller_streamed_its_question(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The handler answers only once the consumer of the caller's stream has seen the question it is asked:
    were the question delivered with the call's result, the handler would wait until the deadline."""
    seen: dict[str, trio.Event] = {key: trio.Event() for key in ASKED}

    async def handler(request: ApprovalRequest) -> ApprovalAnswer:
        await seen["tool:ask-ops/" + request.call.call_id].wait()
        return DECISIONS[request.call.call_id]

    ctx = RunContext.ephemeral(None).with_permissions(Permissions(approval_handler=handler))
    events: list[AgentEvent] = []
    with trio.fail_after(60):
        async with Runner().run(lead(None), ctx, AgentInput.from_user_text("go")) as stream:
            async for event in stream:
                events.append(event)
                if isinstance(event, ApprovalRequested) and event.call_id in seen:
                    seen[event.call_id].set()
    assert _asked(events) == ASKED
    answered = next(i for i, event in enumerate(events) if isinstance(event, ToolOutputItem))
    assert max(i for i, event in enumerate(events) if isinstance(event, ApprovalRequested)) < answered


async def test_a_paused_sub_runs_questions_come_before_the_pause_and_once(tmp_path: Path) -> None:
    """Without a handler the sub-run pauses: its questions are streamed before the caller's pause, which waits on
    the same ids; the resume with decisions does not hand them out again (they were delivered)."""
    async with MemoryStore() as store:
        paused = await start(store, lead(None), "lead-run")
        assert _asked(paused.events)[:3] == ASKED
        assert [request.call_id for request in paused.pending] == ASKED
        assert isinstance(paused.events[-1], RunPaused)
        done = await resume(store, lead(None), "lead-run", scoped("tool:ask-ops/", DECISIONS))
        assert not done.paused, done.pending
        assert _asked(done.events) == []


async def test_a_paused_graph_nodes_questions_are_not_handed_out_again_on_resume() -> None:
    """The node's replayed questions are qualified copies: they stay marked as replays, so the resume drops them."""
    async with MemoryStore() as store:
        paused = await start(store, graph(None), "g")
        assert _asked(paused.events) == ["clean/cmd0", "clean/cmd2", "clean/cmd3"]
        done = await resume(store, graph(None), "g", scoped("clean/", DECISIONS))
        assert done.final_output == "report written"
        assert _asked(done.events) == []


async def test_a_paused_handoff_targets_questions_are_not_handed_out_again_on_resume() -> None:
    """The target's replayed questions are qualified copies too: the resume drops them as replays."""
    async with MemoryStore() as store:
        paused = await start(store, front(None), "f")
        assert _asked(paused.events) == ["handoff:ops/cmd0", "handoff:ops/cmd2", "handoff:ops/cmd3"]
        done = await resume(store, front(None), "f", scoped("handoff:ops/", DECISIONS))
        assert "cmd2: permission denied" in done.final_output, done.pending
        assert _asked(done.events) == []
