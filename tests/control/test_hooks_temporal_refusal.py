"""Runs on Temporal do not honour hooks or guardrails yet: a worker refuses such agents when it is built,
naming the agent by its registry path, rather than running them as if they had none."""

from __future__ import annotations

import pytest
from tests.control.control_fakes import timed_guardrail

from helikon_fc import AgentAsTool, Handoff, LlmAgent, RunContext, SequentialAgent
from helikon_fc.shell.guardrails import GuardrailVerdict, Pass
from helikon_fc.shell.hooks import HookPoint
from helikon_fc.temporal._unsupported import refuse_controls
from helikon_fc.testing import ScriptedModel, reply


async def _hook(ctx: RunContext[None], point: HookPoint) -> None:
    return None


async def _check(ctx: RunContext[None], text: str) -> GuardrailVerdict:
    return Pass()


def _plain(name: str) -> LlmAgent[None]:
    return LlmAgent(name=name, model=ScriptedModel([reply("x")]))


def test_agents_without_controls_are_accepted() -> None:
    """A tree with no hook or guardrail anywhere passes."""
    refuse_controls([SequentialAgent("p").then(_plain("a")).then(_plain("b").with_handoffs(Handoff.to(_plain("c"))))])


def test_hooks_or_guardrails_anywhere_below_a_root_are_refused() -> None:
    """Found through a handoff, an agent-as-tool and a workflow step, each named by its path."""
    hooked = _plain("deep").with_hooks(_hook)
    with pytest.raises(ValueError, match=r"'root/handoff:deep' has hooks, which runs on Temporal do not honour"):
        refuse_controls([_plain("root").with_handoffs(Handoff.to(hooked))])
    guarded = _plain("helper").with_input_guardrails(timed_guardrail("g", 0, Pass()))
    with pytest.raises(ValueError, match=r"'root/tool:helper' has input_guardrails"):
        refuse_controls([_plain("root").with_tools(AgentAsTool(guarded))])
    checked = _plain("writer").with_output_guardrails(timed_guardrail("g", 0, Pass())).with_hooks(_hook)
    with pytest.raises(ValueError, match=r"'p/step:1' has hooks and output_guardrails"):
        refuse_controls([SequentialAgent("p").then(_plain("a")).then(checked)])


def test_the_worker_refuses_before_it_polls() -> None:
    """`HelikonWorker` calls the check first: no client is touched for a refused agent."""
    from helikon_fc.temporal.worker import HelikonWorker

    with pytest.raises(ValueError, match="has hooks"):
        HelikonWorker(None, "q", agents=[_plain("a").with_hooks(_hook)])  # type: ignore[arg-type]


def test_a_handoff_target_that_cannot_be_resolved_is_left_to_its_run() -> None:
    """The walk resolves handoff targets; one whose resolver raises is skipped (its run reports it), not a crash."""
    from helikon_fc import Handoff as HandoffType

    def broken() -> LlmAgent[None]:
        raise RuntimeError("no such agent today")

    refuse_controls([_plain("triage").with_handoffs(HandoffType(agent_name="billing", description="", resolve=broken))])
