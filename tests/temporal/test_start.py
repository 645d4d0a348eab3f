"""A run that fails to start still opens its stream with `RunStarted`, as on trio."""

from __future__ import annotations

from helikon_fc import LlmAgent
from helikon_fc.core import OtherError, RunFailed, RunStarted
from helikon_fc.shell.context import RunContext
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
