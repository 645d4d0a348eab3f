"""Acceptance of issue 27 §2, tool trajectory "the calls made, per agent": the calls of an agent called as a
tool (a sub-run whose events the parent's stream does not carry) count, with that agent's name, in order."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.testing.recorded_agents import build, fee_table, scripted

from helikon_fc import AgentAsTool, LlmAgent, ModelRequest, ToolResult
from helikon_fc.evals import Case, Dataset, ExpectedCall, run_eval_sync
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, fail, reply

NESTED_CALLS = [
    ExpectedCall(name="transfer_to_billing", agent="triage"),
    ExpectedCall(name="researcher", arguments={"input": "fees of basic"}, agent="billing"),
    ExpectedCall(name="fee_table", arguments={"plan": "basic"}, agent="researcher"),
]


@pytest.mark.parametrize("with_store", [False, True], ids=["no-store", "store"])
def test_calls_of_an_agent_called_as_a_tool_are_in_the_trajectory(tmp_path: Path, with_store: bool) -> None:
    """The researcher, called by billing as a tool, looks fees up: its `fee_table` call follows billing's
    `researcher` call, under its own name; `in_order` passes on exactly the three calls."""
    dataset = Dataset(cases=[Case(name="fees", input="What are the fees of basic?", expected_calls=NESTED_CALLS)])
    store = tmp_path / "runs.db" if with_store else None
    report = run_eval_sync(lambda case: build(scripted()), dataset, virtual_time=True, store=store)
    repetition = report.cases[0].repetitions[0]
    assert [call.describe() for call in repetition.calls] == [
        "triage: transfer_to_billing({})",
        'billing: researcher({"input": "fees of basic"})',
        'researcher: fee_table({"plan": "basic"})',
    ]
    assert report.passed, repetition.results
    assert (repetition.run_id is not None) == with_store


def test_a_wrong_argument_deep_in_a_sub_run_fails_naming_its_agent() -> None:
    """Expecting another plan for the researcher's lookup fails the trajectory, and the reason names it."""
    wrong = [*NESTED_CALLS[:2], ExpectedCall(name="fee_table", arguments={"plan": "pro"}, agent="researcher")]
    dataset = Dataset(cases=[Case(name="fees", input="What are the fees of basic?", expected_calls=wrong)])
    report = run_eval_sync(lambda case: build(scripted()), dataset, virtual_time=True)
    (verdict,) = report.cases[0].repetitions[0].results
    assert not verdict.passed
    assert 'researcher: fee_table({"plan": "basic"})' in verdict.reason


def test_the_calls_of_a_sub_run_that_failed_still_count() -> None:
    """The researcher looks fees up, then its model fails: billing gets the failure as the tool's result and
    answers; the trajectory still has the researcher's lookup after billing's call."""

    def research(request: ModelRequest) -> ScriptedTurn:
        if not any(isinstance(item, ToolResult) for item in request.items):
            return call_tools(call("fee_table", plan="basic"))
        return fail("the researcher's model is down")

    def answer(request: ModelRequest) -> ScriptedTurn:
        if not any(isinstance(item, ToolResult) for item in request.items):
            return call_tools(call("researcher", input="fees"))
        return reply("I could not find the fees.")

    researcher = LlmAgent(name="researcher", model=FunctionModel(research), instructions="R.", tools=[fee_table])
    billing = LlmAgent(name="billing", model=FunctionModel(answer), instructions="B.", tools=[AgentAsTool(researcher)])
    dataset = Dataset(cases=[Case(name="fees", input="fees?", expected_calls=NESTED_CALLS[1:2] + NESTED_CALLS[2:])])
    report = run_eval_sync(billing, dataset, virtual_time=True)
    repetition = report.cases[0].repetitions[0]
    assert [call.describe() for call in repetition.calls] == [
        'billing: researcher({"input": "fees"})',
        'researcher: fee_table({"plan": "basic"})',
    ]
    assert repetition.output == "I could not find the fees."
