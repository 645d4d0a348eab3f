"""Hooks: firing order, the first Deny short-circuits, one replacement slot, injections, and each point's effects
(original-notes section 8)."""

from __future__ import annotations

import json

import pytest
import trio
import trio.testing

from helikon_fc import RunContext
from helikon_fc.core import HookDenied, HookFailed, ToolCall
from helikon_fc.shell.control.hooks import (
    Allow,
    Deny,
    Hook,
    HookDecision,
    HookOutcome,
    HookPoint,
    Hooks,
    InjectSystemMessage,
    OnHandoff,
    OnRunComplete,
    OnRunStart,
    OnSubagentStop,
    OnTurnStart,
    PostToolUse,
    PreToolUse,
    ReplaceInput,
    ReplaceOutput,
    StartEffect,
    fire,
    fire_on_handoff,
    fire_on_run_complete,
    fire_on_run_start,
    fire_on_subagent_stop,
    fire_on_turn_start,
    fire_post_tool_use,
    fire_pre_tool_use,
    point_name,
)

CTX: RunContext[None] = RunContext.ephemeral(None)
CALL = ToolCall("call_1", "transfer", '{"amount": 5000}')
NONE: Hooks[None] = Hooks()


def answering(log: list[str], name: str, decision: HookDecision | None) -> Hook[None]:
    async def hook(ctx: RunContext[None], point: HookPoint) -> HookDecision | None:
        await trio.sleep(1)
        log.append(f"{name}:{point_name(point)}")
        return decision

    return hook


async def test_agent_hooks_fire_before_run_hooks_in_order(autojump_clock: trio.testing.MockClock) -> None:
    """Rule: "agent-level hooks then run-level registry, sequentially"."""
    log: list[str] = []
    agent: Hooks[None] = Hooks([answering(log, "a1", None), answering(log, "a2", Allow())])
    run: Hooks[None] = Hooks([answering(log, "r1", None)])
    assert await fire(OnTurnStart(0), CTX, agent, run) == HookOutcome()
    assert log == ["a1:on_turn_start", "a2:on_turn_start", "r1:on_turn_start"]
    assert trio.current_time() == 3


async def test_the_first_deny_short_circuits(autojump_clock: trio.testing.MockClock) -> None:
    """Rule: "first Deny short-circuits (later hooks not called)"."""
    log: list[str] = []
    agent: Hooks[None] = Hooks([answering(log, "a1", Deny("closed")), answering(log, "a2", Deny("other"))])
    run: Hooks[None] = Hooks([answering(log, "r1", None)])
    outcome = await fire(OnRunStart("bank"), CTX, agent, run)
    assert outcome.denied == "closed" and log == ["a1:on_run_start"]


async def test_replacements_share_one_slot_and_the_last_writer_wins(autojump_clock: trio.testing.MockClock) -> None:
    """Rule: "ReplaceInput and ReplaceOutput are the same slot, last writer wins; injections accumulate in order"."""
    log: list[str] = []
    hooks: Hooks[None] = Hooks(
        [
            answering(log, "a", ReplaceInput({"amount": 1})),
            answering(log, "b", InjectSystemMessage("first")),
            answering(log, "c", ReplaceOutput({"amount": 2})),
            answering(log, "d", InjectSystemMessage("second")),
        ]
    )
    outcome = await fire(PreToolUse(CALL, {"amount": 5000}), CTX, hooks, NONE)
    assert outcome == HookOutcome(replaced=True, replacement={"amount": 2}, injections=("first", "second"))


async def test_a_raising_hook_fails_with_a_typed_error() -> None:
    """A hook that raises stops the firing and becomes `HookFailed` naming the point and the error."""
    later: list[str] = []

    async def broken(ctx: RunContext[None], point: HookPoint) -> HookDecision | None:
        raise RuntimeError("audit log unreachable")

    outcome = await fire(OnTurnStart(2), CTX, Hooks([broken, answering(later, "x", None)]), NONE)
    assert outcome.failure == HookFailed("on_turn_start", "RuntimeError: audit log unreachable")
    assert later == []


async def test_a_hook_answering_nonsense_fails() -> None:
    """An answer that is not a decision is a failure, not silently allowed."""

    async def sloppy(ctx: RunContext[None], point: HookPoint) -> HookDecision | None:
        return "deny"  # type: ignore[return-value]

    outcome = await fire(OnRunStart("a"), CTX, Hooks([sloppy]), NONE)
    assert outcome.failure == HookFailed("on_run_start", "returned str, not a hook decision")


async def test_a_deny_at_run_or_turn_start_aborts_and_injections_are_kept(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Rule: "Deny on OnRunStart/OnTurnStart ... aborts the run (HookDenied)"; "Injections honoured only from
    OnRunStart and OnTurnStart"."""
    log: list[str] = []
    assert await fire_on_run_start(CTX, Hooks([answering(log, "a", Deny("after hours"))]), NONE, "bank") == StartEffect(
        HookDenied("on_run_start", "after hours")
    )
    injected = await fire_on_turn_start(CTX, NONE, Hooks([answering(log, "r", InjectSystemMessage("Be brief."))]), 3)
    assert injected == StartEffect(None, ("Be brief.",))


async def test_pre_tool_use_blocks_or_replaces_the_arguments(autojump_clock: trio.testing.MockClock) -> None:
    """Rule: "Deny on Pre/PostToolUse becomes a tool error": "blocked by PreToolUse hook: R"; a replacement object
    becomes the call's arguments."""
    log: list[str] = []
    blocked = await fire_pre_tool_use(CTX, Hooks([answering(log, "a", Deny("limit"))]), NONE, CALL, {"amount": 5000})
    assert blocked.blocked == "blocked by PreToolUse hook: limit" and blocked.call == CALL
    replaced = await fire_pre_tool_use(
        CTX, NONE, Hooks([answering(log, "r", ReplaceInput({"amount": 500}))]), CALL, {"amount": 5000}
    )
    assert replaced.blocked is None and json.loads(replaced.call.arguments) == {"amount": 500}
    bad = await fire_pre_tool_use(CTX, NONE, Hooks([answering(log, "r", ReplaceInput([1]))]), CALL, {})
    assert bad.error == HookFailed("pre_tool_use", "replaced the arguments with list, not an object")
    untouched = await fire_pre_tool_use(CTX, NONE, NONE, CALL, {"amount": 5000})
    assert untouched.call == CALL and untouched.blocked is None and untouched.error is None


async def test_post_tool_use_blocks_or_replaces_the_output(autojump_clock: trio.testing.MockClock) -> None:
    """Rule: "PostToolUse{tool, output JSON}": Deny -> "blocked by PostToolUse hook: R"; ReplaceOutput replaces it."""
    log: list[str] = []
    blocked = await fire_post_tool_use(CTX, Hooks([answering(log, "a", Deny("pii"))]), NONE, CALL, {"ok": True})
    assert blocked.blocked == "blocked by PostToolUse hook: pii"
    replaced = await fire_post_tool_use(CTX, Hooks([answering(log, "a", ReplaceOutput("[redacted]"))]), NONE, CALL, 1)
    assert replaced.output == "[redacted]" and replaced.blocked is None
    assert (await fire_post_tool_use(CTX, NONE, NONE, CALL, {"ok": True})).output == {"ok": True}


async def test_a_deny_on_handoff_aborts_before_the_switch(autojump_clock: trio.testing.MockClock) -> None:
    """Rule: "OnHandoff fires before HandoffItem/AgentUpdated so a Deny means no switch is observed"."""
    log: list[str] = []
    error = await fire_on_handoff(CTX, Hooks([answering(log, "a", Deny("not allowed"))]), NONE, "triage", "billing")
    assert error == HookDenied("on_handoff", "not allowed")
    assert await fire_on_handoff(CTX, NONE, NONE, "triage", "billing") is None
    assert point_name(OnHandoff("a", "b")) == "on_handoff"


async def test_run_complete_and_subagent_stop_ignore_answers(autojump_clock: trio.testing.MockClock) -> None:
    """Rule: "Deny/replacement on OnRunComplete/OnSubagentStop ignored"; OnSubagentStop fires on the run-level
    registry only."""
    log: list[str] = []
    assert await fire_on_run_complete(CTX, Hooks([answering(log, "a", Deny("x"))]), NONE, "bank") is None
    assert await fire_on_subagent_stop(CTX, Hooks([answering(log, "r", ReplaceOutput(1))]), "helper") is None
    assert log == ["a:on_run_complete", "r:on_subagent_stop"]
    assert point_name(OnRunComplete("a")) == "on_run_complete" and point_name(OnSubagentStop("a")) == "on_subagent_stop"


async def test_post_tool_use_sees_the_call_and_its_output() -> None:
    """A hook receives the point's data: the call and its JSON output."""
    seen: list[HookPoint] = []

    async def record(ctx: RunContext[None], point: HookPoint) -> HookDecision | None:
        seen.append(point)
        return None

    await fire_post_tool_use(CTX, Hooks([record]), NONE, CALL, {"balance": 12})
    assert seen == [PostToolUse(CALL, {"balance": 12})]


def test_hooks_are_a_frozen_registry() -> None:
    """`Hooks` is immutable: `with_hook` returns a copy; a non-callable is refused at construction."""
    log: list[str] = []
    first = answering(log, "a", None)
    hooks: Hooks[None] = Hooks()
    more = hooks.with_hook(first)
    assert hooks.hooks == () and more.hooks == (first,)
    with pytest.raises(TypeError, match=r"Hooks: hooks\[0\] must be an async callable"):
        Hooks(["not a hook"])  # type: ignore[list-item]
