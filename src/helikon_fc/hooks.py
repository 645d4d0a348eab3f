"""Hooks: functions called at fixed points of a run, whose answers may stop or change it.

A hook is ``async def hook(ctx, point) -> HookDecision | None``, registered on `Hooks` for one
`HookPoint` (`OnRunStart`, `OnTurnStart`, `PreToolUse`, `PostToolUse`, `OnHandoff`,
`OnRunComplete`, `OnSubagentStop`). It answers `HookAllow` (or `None`), `HookDeny`, `ReplaceInput`,
`ReplaceOutput` or `InjectSystemMessage`. The ``fire_*`` functions call the hooks of one point as a
run does, for testing hooks on their own.
"""

from __future__ import annotations

from ._public import claim
from .shell.context.control_values import (
    HookAllow as HookAllow,
    HookDecision as HookDecision,
    HookDeny as HookDeny,
    HookPoint as HookPoint,
    InjectSystemMessage as InjectSystemMessage,
    OnHandoff as OnHandoff,
    OnRunComplete as OnRunComplete,
    OnRunStart as OnRunStart,
    OnSubagentStop as OnSubagentStop,
    OnTurnStart as OnTurnStart,
    PostToolUse as PostToolUse,
    PreToolUse as PreToolUse,
    ReplaceInput as ReplaceInput,
    ReplaceOutput as ReplaceOutput,
)
from .shell.control.hooks import (
    Hook as Hook,
    HookFailure as HookFailure,
    HookOutcome as HookOutcome,
    Hooks as Hooks,
    PostToolEffect as PostToolEffect,
    PreToolEffect as PreToolEffect,
    StartEffect as StartEffect,
    fire_on_handoff as fire_on_handoff,
    fire_on_run_complete as fire_on_run_complete,
    fire_on_run_start as fire_on_run_start,
    fire_on_subagent_stop as fire_on_subagent_stop,
    fire_on_turn_start as fire_on_turn_start,
    fire_post_tool_use as fire_post_tool_use,
    fire_pre_tool_use as fire_pre_tool_use,
)

__all__ = [
    "Hook",
    "HookAllow",
    "HookDecision",
    "HookDeny",
    "HookFailure",
    "HookOutcome",
    "HookPoint",
    "Hooks",
    "InjectSystemMessage",
    "OnHandoff",
    "OnRunComplete",
    "OnRunStart",
    "OnSubagentStop",
    "OnTurnStart",
    "PostToolEffect",
    "PostToolUse",
    "PreToolEffect",
    "PreToolUse",
    "ReplaceInput",
    "ReplaceOutput",
    "StartEffect",
    "fire_on_handoff",
    "fire_on_run_complete",
    "fire_on_run_start",
    "fire_on_subagent_stop",
    "fire_on_turn_start",
    "fire_post_tool_use",
    "fire_pre_tool_use",
]

claim(__name__, globals(), __all__)
