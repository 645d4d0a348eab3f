"""The top-level package: everything an application needs, each name once, `__all__` complete and sorted."""

from __future__ import annotations

import ast
import inspect
import types
import typing

import helikon_fc
from helikon_fc import core

# The names python-surface.md shows applications importing from `helikon_fc`.
DOCUMENTED = {
    "Agent",
    "AgentError",
    "AgentEvent",
    "AgentInput",
    "Handoff",
    "LlmAgent",
    "Model",
    "ModelError",
    "ModelSettings",
    "RunConfig",
    "RunContext",
    "RunError",
    "RunResult",
    "RunResultStreaming",
    "Runner",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolOutput",
    "Usage",
    "function_tool",
    "SystemMessage",
    "UserMessage",
    "AssistantMessage",
    "ToolCall",
    "ToolResult",
    "Reasoning",
    "MaxTurnsExceeded",
    "MaxAgentDepthExceeded",
    "MaxIterationsExceeded",
    "MaxHandoffsExceeded",
    "HandoffCollision",
    "ModelFailed",
    "StructuredOutputInvalid",
    "TimedOut",
    "Cancelled",
}


def test_all_is_sorted_and_unique() -> None:
    """`__all__` is sorted and names each export once."""
    assert helikon_fc.__all__ == sorted(set(helikon_fc.__all__))


def test_all_matches_the_lazy_exports() -> None:
    """`__all__` names exactly the lazily re-exported names, and every one of them resolves."""
    assert helikon_fc.__all__ == sorted(helikon_fc._EXPORTS)
    for name in helikon_fc.__all__:
        assert getattr(helikon_fc, name) is not None, name
    public = {
        name
        for name, value in vars(helikon_fc).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and name != "annotations"
        and name not in {"importlib", "TYPE_CHECKING", "Any"}
    }
    assert public == set(helikon_fc.__all__)


def test_the_type_checking_imports_match_the_lazy_table() -> None:
    """What mypy sees (the imports under TYPE_CHECKING) is what runs (the `_EXPORTS` table), name for name."""
    tree = ast.parse(inspect.getsource(helikon_fc))
    guarded = next(node for node in tree.body if isinstance(node, ast.If))
    seen = {
        alias.asname or alias.name: "." * node.level + (node.module or "")
        for node in guarded.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert seen == helikon_fc._EXPORTS


def test_an_unknown_name_is_an_attribute_error() -> None:
    """A name the package does not export fails like any missing attribute."""
    try:
        helikon_fc.NotAThing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as error:
        assert "NotAThing" in str(error)
    else:
        raise AssertionError("expected AttributeError")


def test_documented_names_and_every_event_are_exported() -> None:
    """The documented names, every `AgentEvent` variant and every `AgentError` variant are importable from the top."""
    events = {cls.__name__ for cls in typing.get_args(core.AgentEvent)}
    errors = {cls.__name__ for cls in typing.get_args(core.AgentError)}
    missing = (DOCUMENTED | events | errors) - set(helikon_fc.__all__)
    assert not missing
    for name in events | errors:
        assert getattr(helikon_fc, name) is getattr(core, name)
