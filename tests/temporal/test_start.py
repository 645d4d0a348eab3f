"""A run that fails to start still opens its stream with `RunStarted`, as on trio."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from temporalio.client import Client

from helikon_fc import LlmAgent
from helikon_fc.core import OtherError, RunFailed, RunStarted
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.temporal import HelikonClient
from helikon_fc.testing import ScriptedModel, reply

from .harness import on_temporal, trio_events


def _refuse(ctx: RunContext[None]) -> str:
    raise RuntimeError("no instructions today")


def test_a_root_whose_instructions_fail_starts_then_fails_as_on_trio(temporal_address: str) -> None:
    agent = LlmAgent[None](name="moody", model=ScriptedModel([reply("x")]), instructions=_refuse)
    outcome = on_temporal(temporal_address, [agent], "moody", "hi")
    assert outcome.events == trio_events(agent, "hi")
    assert outcome.events[0] == RunStarted("moody")
    assert outcome.events[-1] == outcome.result.terminal


def test_an_unregistered_root_starts_then_fails_naming_it(temporal_address: str) -> None:
    agent = LlmAgent[None](name="here", model=ScriptedModel([reply("x")]))
    outcome = on_temporal(temporal_address, [agent], "elsewhere", "hi")
    assert outcome.events[0] == RunStarted("elsewhere")
    terminal = outcome.events[-1]
    assert isinstance(terminal, RunFailed) and isinstance(terminal.error, OtherError)
    assert "'elsewhere'" in terminal.error.message
    assert len(outcome.events) == 2


def test_the_workflow_task_timeout_is_the_clients_and_checked(temporal_address: str) -> None:
    """`HelikonClient(task_timeout=...)` sets each run's workflow task timeout; a non-positive one is refused."""
    with pytest.raises(ValueError, match="task_timeout must be a positive number of seconds, got 0"):
        HelikonClient(None, "q", task_timeout=0)  # type: ignore[arg-type]

    async def main() -> float:
        client = await Client.connect(temporal_address)
        handle = await HelikonClient(client, f"q-{uuid.uuid4()}", task_timeout=3.5).start("nobody", "hi")
        described = await handle.workflow.describe()
        await handle.workflow.terminate("checked")
        return described.raw_description.execution_config.default_workflow_task_timeout.ToTimedelta().total_seconds()

    assert asyncio.run(main()) == 3.5
