"""Every impossible (state, input) pair, one by one: the rule "Impossible (state, input) pairs return a `Failed`
outcome; they never raise" (seed-agent-loop, the transition function), with the usage the run had so far.

`properties/test_totality.py` states the law over random pairs; with few examples a rare pair (a `ToolResults`
fed to `Compacting`) may not be drawn, so this table names each pair the machine must refuse.
"""

from __future__ import annotations

import pytest
from properties.reference import make_ctx

from helikon_fc.core import (
    ApplyingHandoff,
    CallingModel,
    Compacting,
    ExecutingTools,
    Failed,
    Finalizing,
    InvalidTransition,
    LoopState,
    ModelResponse,
    NeedsApproval,
    RepairingOutput,
    RunFailed,
    SummaryFailed,
    Terminate,
    ToolCall,
    ToolResults,
    TransitionInput,
    Usage,
    transition,
)

USAGE = Usage(input_tokens=7, output_tokens=3, requests=1)
CALL = ToolCall("a", "get_weather", '{"city": "Oslo"}')
ANSWER = ModelResponse(text="hi")
RESULTS = ToolResults(())
SUMMARY_FAILED = SummaryFailed(InvalidTransition("x", "y"))

PAIRS: list[tuple[LoopState, TransitionInput]] = [
    (Compacting(1, USAGE), RESULTS),
    (NeedsApproval((CALL,), 1, USAGE), ANSWER),
    (NeedsApproval((CALL,), 1, USAGE), SUMMARY_FAILED),
    (CallingModel(0, USAGE), RESULTS),
    (CallingModel(0, USAGE), SUMMARY_FAILED),
    (ExecutingTools((CALL,), (), 0, USAGE), ANSWER),
    (ExecutingTools((CALL,), (), 0, USAGE), SUMMARY_FAILED),
    (ApplyingHandoff("billing", make_ctx().conversation, USAGE), ANSWER),
    (ApplyingHandoff("billing", make_ctx().conversation, USAGE), RESULTS),
    (ApplyingHandoff("billing", make_ctx().conversation, USAGE), SUMMARY_FAILED),
    (Finalizing(1, USAGE), RESULTS),
    (Finalizing(1, USAGE), SUMMARY_FAILED),
    (RepairingOutput(1, USAGE), RESULTS),
    (RepairingOutput(1, USAGE), SUMMARY_FAILED),
]


@pytest.mark.parametrize(("state", "given"), PAIRS, ids=lambda value: type(value).__name__)
def test_an_impossible_pair_fails_with_the_usage_so_far(state: LoopState, given: TransitionInput) -> None:
    outcome = transition(state, given, make_ctx())
    error = InvalidTransition(type(state).__name__, type(given).__name__)
    assert outcome.next_state == Failed(error, USAGE)
    assert outcome.events == (RunFailed(error),)
    assert outcome.next_action == Terminate()
