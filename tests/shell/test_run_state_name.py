"""`RunState` is the run-scoped state's name; `SessionState`, its old one, still imports as the same class."""

from __future__ import annotations

import helikon_fc
from helikon_fc import RunContext, RunState, SessionState
from helikon_fc.shell.context import run_context as context


def test_the_old_name_is_the_same_class() -> None:
    assert SessionState is RunState
    assert context.SessionState is context.RunState is helikon_fc.RunState


def test_a_context_state_is_a_run_state_named_so() -> None:
    state = RunContext.ephemeral(None).state
    assert isinstance(state, RunState) and isinstance(state, SessionState)
    state.set("k", [1])
    assert repr(state) == "RunState({'k': [1]})"
