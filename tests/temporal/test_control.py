"""Cancelling a run, its timeout, and model failures keeping their kind (retryable ones retried by Temporal)."""

from __future__ import annotations

import asyncio
import uuid

import trio
from temporalio.client import Client

from helikon_fc import LlmAgent, function_tool
from helikon_fc.core import (
    AgentEvent,
    Cancelled,
    ModelFailed,
    ModelFailureKind,
    ModelRequest,
    RunCompleted,
    RunFailed,
    TimedOut,
    ToolCallItem,
)
from helikon_fc.shell.context.config import RunConfig
from helikon_fc.temporal import HelikonClient, HelikonWorker, RunHandle
from helikon_fc.testing import FunctionModel, ScriptedModel, ScriptedTurn, call, call_tools, fail, reply

from .harness import FAST, on_temporal


@function_tool
async def wait_long() -> str:
    """Wait a minute."""
    await trio.sleep(60)
    return "late"


def _waiter() -> LlmAgent[None]:
    return LlmAgent(name="waiter", model=ScriptedModel([call_tools(call("wait_long")), reply("x")]), tools=[wait_long])


async def _cancel_once_the_tool_runs(handle: RunHandle) -> None:
    async for event in handle.events():
        if isinstance(event, ToolCallItem):
            await handle.cancel()
            return


def test_cancelling_a_run_ends_it_with_cancelled(temporal_address: str) -> None:
    outcome = on_temporal(temporal_address, [_waiter()], "waiter", "go", during=_cancel_once_the_tool_runs)
    assert outcome.result.terminal == RunFailed(Cancelled("run cancelled"))
    assert outcome.events[-1] == outcome.result.terminal
    assert sum(isinstance(e, RunFailed) for e in outcome.events) == 1


def test_the_timeout_is_a_workflow_timer_ending_in_timed_out(temporal_address: str) -> None:
    outcome = on_temporal(temporal_address, [_waiter()], "waiter", "go", config=RunConfig(timeout=1.0))
    assert outcome.result.terminal == RunFailed(TimedOut(1.0))
    assert outcome.events[-1] == outcome.result.terminal


def test_a_non_retryable_model_failure_keeps_its_kind(temporal_address: str) -> None:
    calls: list[int] = []

    def refuse(request: ModelRequest) -> ScriptedTurn:
        calls.append(1)
        return fail(ModelFailureKind.REFUSED)

    agent = LlmAgent[None](name="refuser", model=FunctionModel(refuse))
    outcome = on_temporal(temporal_address, [agent], "refuser", "go")
    terminal = outcome.result.terminal
    assert isinstance(terminal, RunFailed) and isinstance(terminal.error, ModelFailed)
    assert terminal.error.kind is ModelFailureKind.REFUSED
    assert len(calls) == 1  # not retried


def test_a_retryable_model_failure_is_retried_by_temporal(temporal_address: str) -> None:
    calls: list[int] = []

    def flaky(request: ModelRequest) -> ScriptedTurn:
        calls.append(1)
        return fail(ModelFailureKind.RATE_LIMITED) if len(calls) == 1 else reply("second try")

    agent = LlmAgent[None](name="flaky", model=FunctionModel(flaky))
    outcome = on_temporal(temporal_address, [agent], "flaky", "go")
    assert isinstance(outcome.result.terminal, RunCompleted)
    assert outcome.result.output == "second try"
    assert len(calls) == 2


def test_a_retryable_failure_that_persists_fails_with_its_kind(temporal_address: str) -> None:
    agent = LlmAgent[None](name="down", model=FunctionModel(lambda request: fail(ModelFailureKind.UNAVAILABLE)))
    outcome = on_temporal(temporal_address, [agent], "down", "go")
    terminal = outcome.result.terminal
    assert isinstance(terminal, RunFailed) and isinstance(terminal.error, ModelFailed)
    assert terminal.error.kind is ModelFailureKind.UNAVAILABLE


def test_events_end_when_the_workflow_is_terminated_from_outside(temporal_address: str) -> None:
    async def main() -> list[AgentEvent]:
        client = await Client.connect(temporal_address)
        queue = f"q-{uuid.uuid4()}"
        async with HelikonWorker(client, queue, agents=[_waiter()], heartbeat_every=0.2):
            handle = await HelikonClient(client, queue, policy=FAST).start("waiter", "go")
            await _wait_for_tool_call(handle)
            await handle.workflow.terminate("operator")
            return [event async for event in handle.events()]

    events = asyncio.run(main())
    assert isinstance(events[-1], ToolCallItem)  # everything recorded, then the iteration ended


async def _wait_for_tool_call(handle: RunHandle) -> None:
    async for event in handle.events():
        if isinstance(event, ToolCallItem):
            return
