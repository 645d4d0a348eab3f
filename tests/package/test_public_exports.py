"""The top-level package: everything an application needs, each name once, `__all__` complete and sorted."""

from __future__ import annotations

import types
import typing

import helikon_fc
from helikon_fc import core

# The names python-surface.md shows applications importing from `helikon_fc`.
DOCUMENTED = {
    "Agent", "AgentError", "AgentEvent", "AgentInput", "Handoff", "LlmAgent", "Model", "ModelError",
    "ModelSettings", "RunConfig", "RunContext", "RunError", "RunResult", "RunResultStreaming", "Runner",
    "Tool", "ToolContext", "ToolError", "ToolOutput", "Usage", "function_tool",
    "SystemMessage", "UserMessage", "AssistantMessage", "ToolCall", "ToolResult", "Reasoning",
    "MaxTurnsExceeded", "MaxAgentDepthExceeded", "MaxIterationsExceeded", "MaxHandoffsExceeded",
    "HandoffCollision", "ModelFailed", "StructuredOutputInvalid", "TimedOut", "Cancelled",
}


def test_all_is_sorted_and_unique() -> None:
    """`__all__` is sorted and names each export once."""
    assert helikon_fc.__all__ == sorted(set(helikon_fc.__all__))


def test_all_matches_the_public_attributes() -> None:
    """Every public attribute of the package is in `__all__` (submodules aside), and every name in it exists."""
    public = {
        name for name, value in vars(helikon_fc).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType) and name != "annotations"
    }
    assert public == set(helikon_fc.__all__)


def test_documented_names_and_every_event_are_exported() -> None:
    """The documented names, every `AgentEvent` variant and every `AgentError` variant are importable from the top."""
    events = {cls.__name__ for cls in typing.get_args(core.AgentEvent)}
    errors = {cls.__name__ for cls in typing.get_args(core.AgentError)}
    missing = (DOCUMENTED | events | errors) - set(helikon_fc.__all__)
    assert not missing
    for name in events | errors:
        assert getattr(helikon_fc, name) is getattr(core, name)
