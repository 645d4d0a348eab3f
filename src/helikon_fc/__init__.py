"""helikon_fc: typed, testable LLM agents and multi-agent systems for trio.

Everything an application needs is re-exported here; the IO-free core lives in
`helikon_fc.core`, the simulator in `helikon_fc.testing`, the OpenAI provider in `helikon_fc.openai`,
the terminal view of a run (``print_events``) in `helikon_fc.console`.

The re-exports are lazy (PEP 562): a name is imported from its module the first time it is used.
So `import helikon_fc.core` loads the functional core alone, without trio or any IO library (a
sandboxed workflow runtime can import it), while `from helikon_fc import LlmAgent` works as usual.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agents.agent_as_tool import AgentAsTool as AgentAsTool
    from .agents.graph import GraphAgent as GraphAgent, GraphBuildError as GraphBuildError
    from .agents.handoff import Handoff as Handoff
    from .agents.llm_agent import LlmAgent as LlmAgent
    from .agents.loop import LoopAgent as LoopAgent
    from .agents.parallel import ParallelAgent as ParallelAgent
    from .agents.sequential import SequentialAgent as SequentialAgent
    from .agents.swarm import SwarmAgent as SwarmAgent, SwarmBuildError as SwarmBuildError
    from .core import (
        AgentError as AgentError,
        AgentEvent as AgentEvent,
        AgentUpdated as AgentUpdated,
        ApprovalRequested as ApprovalRequested,
        AssistantMessage as AssistantMessage,
        BranchFailure as BranchFailure,
        Cancelled as Cancelled,
        Compacted as Compacted,
        CompactionSkipped as CompactionSkipped,
        ConversationCompacted as ConversationCompacted,
        GraphFailed as GraphFailed,
        GuardrailTriggered as GuardrailTriggered,
        GuardrailTripped as GuardrailTripped,
        HandoffCollision as HandoffCollision,
        HandoffItem as HandoffItem,
        HookDenied as HookDenied,
        HookFailed as HookFailed,
        InvalidTransition as InvalidTransition,
        Item as Item,
        JsonObject as JsonObject,
        JsonValue as JsonValue,
        MaxAgentDepthExceeded as MaxAgentDepthExceeded,
        MaxHandoffsExceeded as MaxHandoffsExceeded,
        MaxIterationsExceeded as MaxIterationsExceeded,
        MaxTurnsExceeded as MaxTurnsExceeded,
        MessageOutput as MessageOutput,
        ModelFailed as ModelFailed,
        ModelFailureKind as ModelFailureKind,
        ModelRequest as ModelRequest,
        ModelSettings as ModelSettings,
        OtherError as OtherError,
        OutputSchema as OutputSchema,
        ParallelFailed as ParallelFailed,
        PermissionConfig as PermissionConfig,
        PermissionDenied as PermissionDenied,
        PermissionGranted as PermissionGranted,
        PermissionMode as PermissionMode,
        Reasoning as Reasoning,
        ReasoningDelta as ReasoningDelta,
        RepairStarted as RepairStarted,
        RunCompleted as RunCompleted,
        RunFailed as RunFailed,
        RunPaused as RunPaused,
        RunStarted as RunStarted,
        SessionFailed as SessionFailed,
        StructuredOutputFailed as StructuredOutputFailed,
        StructuredOutputInvalid as StructuredOutputInvalid,
        SystemMessage as SystemMessage,
        TerminalEvent as TerminalEvent,
        TimedOut as TimedOut,
        TokenDelta as TokenDelta,
        ToolCall as ToolCall,
        ToolCallDelta as ToolCallDelta,
        ToolCallItem as ToolCallItem,
        ToolDef as ToolDef,
        ToolEffect as ToolEffect,
        ToolFailed as ToolFailed,
        ToolOutputItem as ToolOutputItem,
        ToolResult as ToolResult,
        TurnStarted as TurnStarted,
        UnknownHandoffTarget as UnknownHandoffTarget,
        Usage as Usage,
        UserMessage as UserMessage,
    )
    from .guardrails import Guardrail as Guardrail, Pass as Pass, Tripwire as Tripwire
    from .hooks import Hooks as Hooks
    from .models import (
        Model as Model,
        ModelError as ModelError,
        RetryingModel as RetryingModel,
        RetryPolicy as RetryPolicy,
    )
    from .permissions import (
        ApprovalRequest as ApprovalRequest,
        Approve as Approve,
        Permissions as Permissions,
        Reject as Reject,
    )
    from .shell.context.actions import ActionsHandle as ActionsHandle
    from .shell.context.cancel import CancelToken as CancelToken
    from .shell.context.config import RunConfig as RunConfig
    from .shell.context.run_context import RunContext as RunContext
    from .shell.context.run_state import RunState as RunState, SessionState as SessionState
    from .shell.context.session import InMemorySession as InMemorySession
    from .shell.durable.compaction import Compaction as Compaction
    from .shell.durable.run_log import IncompatibleRunError as IncompatibleRunError
    from .shell.input import AgentInput as AgentInput
    from .shell.loop.completion import run_to_completion as run_to_completion
    from .shell.loop.protocol import Agent as Agent, RunStream as RunStream
    from .shell.loop.results import (
        HandoffCollisionError as HandoffCollisionError,
        RunError as RunError,
        RunResult as RunResult,
        RunResultStreaming as RunResultStreaming,
        RunStartError as RunStartError,
    )
    from .shell.loop.runner import Runner as Runner
    from .shell.telemetry.tracing import Tracer as Tracer
    from .stores import CompactingSession as CompactingSession
    from .tools import (
        FunctionTool as FunctionTool,
        Tool as Tool,
        ToolContext as ToolContext,
        ToolError as ToolError,
        ToolOutput as ToolOutput,
        function_tool as function_tool,
    )

_EXPORTS: dict[str, str] = {
    "ActionsHandle": ".shell.context.actions",
    "Agent": ".shell.loop.protocol",
    "AgentAsTool": ".agents.agent_as_tool",
    "AgentError": ".core",
    "AgentEvent": ".core",
    "AgentInput": ".shell.input",
    "AgentUpdated": ".core",
    "ApprovalRequested": ".core",
    "AssistantMessage": ".core",
    "BranchFailure": ".core",
    "CancelToken": ".shell.context.cancel",
    "Cancelled": ".core",
    "Compacted": ".core",
    "CompactingSession": ".stores",
    "Compaction": ".shell.durable.compaction",
    "CompactionSkipped": ".core",
    "ConversationCompacted": ".core",
    "FunctionTool": ".tools",
    "GraphAgent": ".agents.graph",
    "GraphBuildError": ".agents.graph",
    "GraphFailed": ".core",
    "Guardrail": ".guardrails",
    "GuardrailTriggered": ".core",
    "GuardrailTripped": ".core",
    "Handoff": ".agents.handoff",
    "HandoffCollision": ".core",
    "HandoffCollisionError": ".shell.loop.results",
    "HandoffItem": ".core",
    "HookDenied": ".core",
    "HookFailed": ".core",
    "Hooks": ".hooks",
    "InMemorySession": ".shell.context.session",
    "IncompatibleRunError": ".shell.durable.run_log",
    "InvalidTransition": ".core",
    "Item": ".core",
    "JsonObject": ".core",
    "JsonValue": ".core",
    "LlmAgent": ".agents.llm_agent",
    "LoopAgent": ".agents.loop",
    "MaxAgentDepthExceeded": ".core",
    "MaxHandoffsExceeded": ".core",
    "MaxIterationsExceeded": ".core",
    "MaxTurnsExceeded": ".core",
    "MessageOutput": ".core",
    "Model": ".models",
    "ModelError": ".models",
    "ModelFailed": ".core",
    "ModelFailureKind": ".core",
    "ModelRequest": ".core",
    "ModelSettings": ".core",
    "OtherError": ".core",
    "OutputSchema": ".core",
    "ParallelAgent": ".agents.parallel",
    "ParallelFailed": ".core",
    "Pass": ".guardrails",
    "PermissionConfig": ".core",
    "PermissionDenied": ".core",
    "PermissionGranted": ".core",
    "PermissionMode": ".core",
    "Reasoning": ".core",
    "ReasoningDelta": ".core",
    "RepairStarted": ".core",
    "RetryPolicy": ".models",
    "RetryingModel": ".models",
    "RunCompleted": ".core",
    "RunConfig": ".shell.context.config",
    "RunContext": ".shell.context.run_context",
    "RunError": ".shell.loop.results",
    "RunFailed": ".core",
    "RunPaused": ".core",
    "RunResult": ".shell.loop.results",
    "RunResultStreaming": ".shell.loop.results",
    "RunStartError": ".shell.loop.results",
    "RunState": ".shell.context.run_state",
    "RunStarted": ".core",
    "RunStream": ".shell.loop.protocol",
    "ApprovalRequest": ".permissions",
    "Approve": ".permissions",
    "Permissions": ".permissions",
    "Reject": ".permissions",
    "Runner": ".shell.loop.runner",
    "SequentialAgent": ".agents.sequential",
    "SessionFailed": ".core",
    "SessionState": ".shell.context.run_state",
    "StructuredOutputFailed": ".core",
    "StructuredOutputInvalid": ".core",
    "SwarmAgent": ".agents.swarm",
    "SwarmBuildError": ".agents.swarm",
    "SystemMessage": ".core",
    "TerminalEvent": ".core",
    "TimedOut": ".core",
    "TokenDelta": ".core",
    "Tool": ".tools",
    "ToolCall": ".core",
    "ToolCallDelta": ".core",
    "ToolCallItem": ".core",
    "ToolContext": ".tools",
    "ToolDef": ".core",
    "ToolEffect": ".core",
    "ToolError": ".tools",
    "ToolFailed": ".core",
    "ToolOutput": ".tools",
    "ToolOutputItem": ".core",
    "ToolResult": ".core",
    "Tracer": ".shell.telemetry.tracing",
    "Tripwire": ".guardrails",
    "TurnStarted": ".core",
    "UnknownHandoffTarget": ".core",
    "Usage": ".core",
    "UserMessage": ".core",
    "function_tool": ".tools",
    "run_to_completion": ".shell.loop.completion",
}
"""Each public name and the module (relative to this package) it comes from."""

__all__ = [
    "ActionsHandle",
    "Agent",
    "AgentAsTool",
    "AgentError",
    "AgentEvent",
    "AgentInput",
    "AgentUpdated",
    "ApprovalRequest",
    "ApprovalRequested",
    "Approve",
    "AssistantMessage",
    "BranchFailure",
    "CancelToken",
    "Cancelled",
    "Compacted",
    "CompactingSession",
    "Compaction",
    "CompactionSkipped",
    "ConversationCompacted",
    "FunctionTool",
    "GraphAgent",
    "GraphBuildError",
    "GraphFailed",
    "Guardrail",
    "GuardrailTriggered",
    "GuardrailTripped",
    "Handoff",
    "HandoffCollision",
    "HandoffCollisionError",
    "HandoffItem",
    "HookDenied",
    "HookFailed",
    "Hooks",
    "InMemorySession",
    "IncompatibleRunError",
    "InvalidTransition",
    "Item",
    "JsonObject",
    "JsonValue",
    "LlmAgent",
    "LoopAgent",
    "MaxAgentDepthExceeded",
    "MaxHandoffsExceeded",
    "MaxIterationsExceeded",
    "MaxTurnsExceeded",
    "MessageOutput",
    "Model",
    "ModelError",
    "ModelFailed",
    "ModelFailureKind",
    "ModelRequest",
    "ModelSettings",
    "OtherError",
    "OutputSchema",
    "ParallelAgent",
    "ParallelFailed",
    "Pass",
    "PermissionConfig",
    "PermissionDenied",
    "PermissionGranted",
    "PermissionMode",
    "Permissions",
    "Reasoning",
    "ReasoningDelta",
    "Reject",
    "RepairStarted",
    "RetryPolicy",
    "RetryingModel",
    "RunCompleted",
    "RunConfig",
    "RunContext",
    "RunError",
    "RunFailed",
    "RunPaused",
    "RunResult",
    "RunResultStreaming",
    "RunStartError",
    "RunStarted",
    "RunState",
    "RunStream",
    "Runner",
    "SequentialAgent",
    "SessionFailed",
    "SessionState",
    "StructuredOutputFailed",
    "StructuredOutputInvalid",
    "SwarmAgent",
    "SwarmBuildError",
    "SystemMessage",
    "TerminalEvent",
    "TimedOut",
    "TokenDelta",
    "Tool",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallItem",
    "ToolContext",
    "ToolDef",
    "ToolEffect",
    "ToolError",
    "ToolFailed",
    "ToolOutput",
    "ToolOutputItem",
    "ToolResult",
    "Tracer",
    "Tripwire",
    "TurnStarted",
    "UnknownHandoffTarget",
    "Usage",
    "UserMessage",
    "function_tool",
    "run_to_completion",
]


if not TYPE_CHECKING:  # mypy sees the imports above, so a misspelt name stays a type error

    def __getattr__(name: str) -> Any:
        """Import a re-exported name from its module on first use, then keep it here."""
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, __name__), name)
        if module.startswith((".shell.", ".agents.")):  # a room's name whose public home is here
            from ._public import claim

            claim(__name__, {name: value}, (name,))
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
