"""Human approval in a run: `NeedsApproval` driven, in-process and across a pause and a resume."""

from __future__ import annotations

import json
from pathlib import Path

import trio
from tests.control.scenario import (
    AGENTS,
    DECISIONS,
    Answers,
    commands_run,
    context,
    graph,
    lead,
    ops,
    pending_ids,
    resume,
    scoped,
    start,
)
from trio.testing import MockClock

from helikon_fc import AgentInput, RunConfig, RunContext, Runner, RunResultStreaming
from helikon_fc.core import (
    ApprovalRequested,
    AssistantMessage,
    LoopState,
    NeedsApproval,
    PermissionConfig,
    PermissionDenied,
    PermissionGranted,
    RunFailed,
    TimedOut,
    ToolCall,
    ToolResult,
    from_json,
    to_json,
)
from helikon_fc.core.record_codec import decode_log, encode_log
from helikon_fc.core.records import Boundary
from helikon_fc.shell.control.permissions import (
    MAX_APPROVAL_ROUNDS,
    ApprovalAnswer,
    ApprovalRequest,
    Approve,
    Permissions,
    Reject,
)
from helikon_fc.stores import MemoryStore, SQLiteStore

IN_PROCESS_ANSWER = (
    "cmd0: ran rm -rf / | cmd1: ran ls -la | cmd2: permission denied: not the home directory"
    " | cmd3: ran echo hi > /tmp/motd"
)


async def test_an_ask_without_a_handler_pauses_the_run_with_its_requests(tmp_path: Path) -> None:
    """A guard's Ask enters NeedsApproval: one ApprovalRequested per waiting call, then RunPaused (not a failure);
    the allowed call of the round ran, the waiting ones did not, and the store says "paused"."""
    log = tmp_path / "log"
    async with MemoryStore() as store:
        result = await start(store, ops(log), "r")
        assert result.paused
        assert pending_ids(result) == ["cmd0", "cmd2", "cmd3"]
        requested = [event.call_id for event in result.events if isinstance(event, ApprovalRequested)]
        assert requested == ["cmd0", "cmd2", "cmd3"]
        assert commands_run(log) == ["ls -la"]
        assert (await store.run_summary("r")).status == "paused"


async def test_mixed_decisions_run_the_approved_answer_the_rejected_and_keep_the_rest_waiting(tmp_path: Path) -> None:
    """Approve one, reject one, leave one: the run pauses again on the one left; deciding it finishes the run,
    with replaced arguments checked again (the new path passes the guard) and run instead of the old ones."""
    log = tmp_path / "log"
    async with MemoryStore() as store:
        await start(store, ops(log), "r")
        partial = {key: DECISIONS[key] for key in ("cmd0", "cmd2")}
        again = await resume(store, ops(log), "r", partial)
        assert again.paused and pending_ids(again) == ["cmd3"]
        assert commands_run(log) == ["ls -la", "rm -rf /"]
        denied = [event for event in again.events if isinstance(event, PermissionDenied)]
        assert [(event.call_id, event.reason) for event in denied] == [("cmd2", "not the home directory")]
        done = await resume(store, ops(log), "r", {"cmd3": DECISIONS["cmd3"]})
        assert not done.paused
        assert done.final_output == IN_PROCESS_ANSWER
        assert sorted(commands_run(log)) == sorted(["ls -la", "rm -rf /", "echo hi > /tmp/motd"])
        assert (await store.run_summary("r")).status == "completed"


async def test_a_resumed_pause_does_not_deliver_its_requests_again_unless_replaying(tmp_path: Path) -> None:
    """The pause's own events were delivered before it paused: a resume starts with the decisions' effects, and
    only `replay=True` hands the earlier events out again."""
    async with MemoryStore() as store:
        await start(store, ops(None), "r")
        again = await resume(store, ops(None), "r", {"cmd0": Approve()})
        requested = [event.call_id for event in again.events if isinstance(event, ApprovalRequested)]
        assert requested == ["cmd2", "cmd3"]  # only the round of decisions' own (the calls still waiting)
        stream = Runner(store=store).resume("r", ops(None), context(), replay=True)
        replayed = await RunResultStreaming(stream).collect()
        assert [event.call_id for event in replayed.events if isinstance(event, ApprovalRequested)][:3] == [
            "cmd0",
            "cmd2",
            "cmd3",
        ]


async def test_a_session_gets_each_item_of_a_paused_and_resumed_run_once(tmp_path: Path) -> None:
    """The pause appends the run's items so far to the session; the resume appends only what came after."""
    async with MemoryStore() as store:
        session = store.session("chat")
        ctx = RunContext.ephemeral(None, session=session).with_permissions(Permissions())
        runner = Runner(store=store)
        await RunResultStreaming(runner.run(ops(None), ctx, AgentInput.from_user_text("go"), run_id="r")).collect()
        await RunResultStreaming(runner.resume("r", ops(None), ctx, approvals=DECISIONS)).collect()
        items = await session.items()
        calls = [item.call_id for item in items if isinstance(item, ToolCall)]
        results = [item.call_id for item in items if isinstance(item, ToolResult)]
        assert calls == ["cmd0", "cmd1", "cmd2", "cmd3"]
        assert sorted(results) == ["cmd0", "cmd1", "cmd2", "cmd3"]
        assert [item.text for item in items if isinstance(item, AssistantMessage)] == [IN_PROCESS_ANSWER]


async def test_replaced_arguments_that_a_guard_stops_wait_again_instead_of_running(tmp_path: Path) -> None:
    """Approve(arguments=...) is judged afresh: new arguments that hit a guard ask again; the old decision
    does not answer the new question (each decision is taken once)."""
    log = tmp_path / "log"
    async with MemoryStore() as store:
        await start(store, ops(log), "r")
        sneaky = Approve(arguments=json.dumps({"command": "rm -rf /"}))
        again = await resume(store, ops(log), "r", {"cmd0": Approve(), "cmd2": Approve(), "cmd3": sneaky})
        assert again.paused and pending_ids(again) == ["cmd3"]
        assert "echo hi > /etc/motd" not in commands_run(log)
        assert commands_run(log).count("rm -rf /") == 1  # cmd0's own, approved; cmd3's replacement did not run


async def test_replaced_arguments_that_ask_again_are_what_the_approver_is_asked_and_what_runs(tmp_path: Path) -> None:
    """Approving `rm -rf ~` with other arguments that a guard stops asks about those arguments, not the old ones;
    a plain yes then runs the replacement, and the replaced command never runs (the answer is not lost)."""
    log = tmp_path / "log"
    replacement = json.dumps({"command": "echo bye > /etc/issue"})
    async with MemoryStore() as store:
        await start(store, ops(log), "r")
        again = await resume(store, ops(log), "r", {"cmd0": Approve(), "cmd2": Approve(replacement), "cmd3": Approve()})
        assert again.paused and pending_ids(again) == ["cmd2"]
        assert [request.args for request in again.pending] == [replacement]
        done = await resume(store, ops(log), "r", {"cmd2": Approve()})
    assert not done.paused
    assert "rm -rf ~" not in commands_run(log)
    assert "echo bye > /etc/issue" in commands_run(log)


async def test_replaced_arguments_that_the_same_guard_stops_ask_that_guard_again(tmp_path: Path) -> None:
    """A yes to a guard's question is about the arguments it was asked about: a replacement that the same guard
    stops asks again (with its own arguments), and only the next yes runs it."""
    log = tmp_path / "log"
    replacement = json.dumps({"command": "echo bye > /etc/issue"})
    async with MemoryStore() as store:
        await start(store, ops(log), "r")
        decisions: dict[str, Approve | Reject] = {"cmd0": Approve(), "cmd2": Reject("no"), "cmd3": Approve(replacement)}
        again = await resume(store, ops(log), "r", decisions)
        assert again.paused and pending_ids(again) == ["cmd3"]
        assert [request.args for request in again.pending] == [replacement]
        assert "echo bye > /etc/issue" not in commands_run(log)
        done = await resume(store, ops(log), "r", {"cmd3": Approve()})
    assert not done.paused
    assert "echo hi > /etc/motd" not in commands_run(log)
    assert "echo bye > /etc/issue" in commands_run(log)


async def test_an_approval_handler_is_asked_about_the_replacement_it_gave(tmp_path: Path) -> None:
    """In process, the handler's second question is about its own replacement (its prompt and arguments)."""
    log = tmp_path / "log"
    replacement = json.dumps({"command": "echo bye > /etc/issue"})
    asked: list[tuple[str, str, str]] = []

    async def handler(request: ApprovalRequest) -> ApprovalAnswer:
        await trio.lowlevel.checkpoint()
        asked.append((request.call.call_id, request.call.arguments, request.prompt))
        first_time = [call_id for call_id, _, _ in asked].count("cmd2") == 1
        return Approve(replacement) if request.call.call_id == "cmd2" and first_time else Approve()

    result = await RunResultStreaming(
        ops(log).run(context(Permissions(approval_handler=handler)), AgentInput.from_user_text("go"))
    ).collect()
    assert not result.paused
    assert [entry for entry in asked if entry[0] == "cmd2"][1][1:] == (replacement, "write to system path /etc/issue")
    assert "rm -rf ~" not in commands_run(log)
    assert "echo bye > /etc/issue" in commands_run(log)


async def test_a_handler_that_keeps_replacing_is_refused_after_the_round_limit(tmp_path: Path) -> None:
    """A handler whose every replacement asks again (another guard) cannot keep a run asking forever: after
    `MAX_APPROVAL_ROUNDS` answers for one call the call is refused, the run ends and nothing unapproved ran."""
    log = tmp_path / "log"
    asked: list[str] = []

    async def handler(request: ApprovalRequest) -> ApprovalAnswer:
        await trio.lowlevel.checkpoint()
        if request.call.call_id != "cmd2":
            return Reject("no")
        asked.append(request.call.arguments)
        if len(asked) > 3 * MAX_APPROVAL_ROUNDS:
            raise AssertionError("asked without end")
        other_guard = f"echo {len(asked)} > /etc/issue" if len(asked) % 2 else f"rm -rf / /tmp/{len(asked)}"
        return Approve(json.dumps({"command": other_guard}))  # each replacement trips the guard not just approved

    result = await RunResultStreaming(
        ops(log).run(context(Permissions(approval_handler=handler)), AgentInput.from_user_text("go"))
    ).collect()
    assert not result.paused
    assert len(asked) == MAX_APPROVAL_ROUNDS
    assert f"cmd2: permission denied: more than {MAX_APPROVAL_ROUNDS} approval rounds" in str(result.final_output)
    assert commands_run(log) == ["ls -la"]


async def test_in_process_handler_gives_the_same_answer_as_pause_and_resume(tmp_path: Path) -> None:
    """With an approval handler the run waits for it and never pauses; its answer equals the paused-and-resumed one."""
    handler = Answers(DECISIONS)
    result = await RunResultStreaming(
        ops(tmp_path / "log").run(context(Permissions(approval_handler=handler)), AgentInput.from_user_text("go"))
    ).collect()
    assert not result.paused
    assert result.final_output == IN_PROCESS_ANSWER
    assert handler.asked == ["cmd0", "cmd2", "cmd3"]
    approved = [event.call_id for event in result.events if isinstance(event, PermissionGranted) and event.approved]
    assert approved == ["cmd0", "cmd3"]


def test_waiting_for_the_handler_is_cut_by_the_run_deadline() -> None:
    """A handler that never answers is cancelled by the runner's timeout: the run fails with TimedOut, no hang."""

    async def never(request: object) -> Approve:
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    async def main() -> RunFailed | None:
        runner = Runner(RunConfig(timeout=30))
        ctx = context(Permissions(approval_handler=never))
        async with runner.run(ops(None), ctx, AgentInput.from_user_text("go")) as events:
            last = None
            async for event in events:
                last = event
        return last if isinstance(last, RunFailed) else None

    failed = trio.run(main, clock=MockClock(autojump_threshold=0))
    assert failed is not None and failed.error == TimedOut(30)


async def test_approvals_reach_an_agent_as_tool_sub_run_and_do_not_interrupt_again(tmp_path: Path) -> None:
    """The sub-run's waiting calls surface qualified by the call that started it; the decisions go to it, the
    parent's call runs again, the sub-run resumes and finishes: one pause, one resume, no re-interrupt."""
    log = tmp_path / "log"
    async with SQLiteStore(tmp_path / "runs.db") as store:
        paused = await start(store, lead(log), "lead-run")
        assert pending_ids(paused) == ["tool:ask-ops/cmd0", "tool:ask-ops/cmd2", "tool:ask-ops/cmd3"]
        assert (await store.run_summary("lead-run")).status == "paused"
        assert (await store.run_summary("lead-run/tool:ask-ops")).status == "paused"
        assert_states_round_trip(await store.read_run_records("lead-run/tool:ask-ops"))
        done = await resume(store, lead(log), "lead-run", scoped("tool:ask-ops/", DECISIONS))
        assert not done.paused, done.pending
        assert done.final_output == f"ops says: {IN_PROCESS_ANSWER}"
        assert sorted(commands_run(log)) == sorted(["ls -la", "rm -rf /", "echo hi > /tmp/motd"])


async def test_approvals_reach_a_graph_node_and_do_not_interrupt_again(tmp_path: Path) -> None:
    """A node that pauses pauses the graph (its successor waits); resuming with the node's decisions finishes it."""
    log = tmp_path / "log"
    async with SQLiteStore(tmp_path / "runs.db") as store:
        paused = await start(store, graph(log), "g")
        assert pending_ids(paused) == ["clean/cmd0", "clean/cmd2", "clean/cmd3"]
        assert (await store.run_summary("g")).status == "paused"
        assert_states_round_trip(await store.read_run_records("g/clean"))
        done = await resume(store, graph(log), "g", scoped("clean/", DECISIONS))
        assert not done.paused, done.pending
        assert done.final_output == "report written"
        assert sorted(commands_run(log)) == sorted(["ls -la", "rm -rf /", "echo hi > /tmp/motd"])


async def test_a_resume_without_decisions_pauses_again_without_running_anything(tmp_path: Path) -> None:
    """No decision, no progress: the same requests, and no tool call made, for every agent shape."""
    for name, build in AGENTS.items():
        log = tmp_path / f"{name}.log"
        async with MemoryStore() as store:
            first = await start(store, build(log), name)
            before = commands_run(log)
            second = await resume(store, build(log), name, None)
            assert second.paused and pending_ids(second) == pending_ids(first), name
            assert commands_run(log) == before, name


def assert_states_round_trip(records: tuple[object, ...]) -> None:
    """The stored NeedsApproval state reads back from the stored log and writes the same JSON again."""
    waiting = []
    bodies = decode_log([record.body for record in records])  # type: ignore[attr-defined]
    assert decode_log(encode_log(bodies)[0]) == bodies
    for body in bodies:
        if isinstance(body, Boundary) and isinstance(body.state, NeedsApproval):
            assert from_json(LoopState, to_json(body.state)) == body.state
            waiting.append(body.state)
    assert waiting and [call.call_id for call in waiting[-1].pending] == ["cmd0", "cmd2", "cmd3"]


async def test_a_round_cut_by_a_crash_keeps_every_decision_in_the_log(tmp_path: Path) -> None:
    """The decisions of the calls that finished before a crash are recorded with their results, so the round's
    settling boundary, written by the resumed run, still holds one PermissionGranted per call."""
    from tests.durable.harness import CrashingStore

    allow_all = Permissions(config=PermissionConfig(builtin_guards=False))
    async with MemoryStore() as inner:
        with trio.CancelScope() as scope:
            crashing = CrashingStore(inner, 4, scope)
            await start(crashing, ops(tmp_path / "log"), "r", allow_all)
        records = await inner.read_run_records("r")
        assert [record.kind for record in records].count("tool_finished") >= 1
        stream = Runner(store=inner).resume("r", ops(tmp_path / "log"), context(allow_all))
        done = await RunResultStreaming(stream).collect()
        assert not done.paused
        bodies = decode_log([record.body for record in await inner.read_run_records("r")])
        settling = [
            body
            for body in bodies
            if isinstance(body, Boundary) and any(isinstance(event, PermissionGranted) for event in body.events)
        ]
        assert len(settling) == 1
        granted = sorted(event.call_id for event in settling[0].events if isinstance(event, PermissionGranted))
        assert granted == ["cmd0", "cmd1", "cmd2", "cmd3"]
