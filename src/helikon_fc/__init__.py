"""helikon_fc: typed, testable LLM agents and multi-agent systems for trio.

Everything an application needs is re-exported here; the IO-free core lives in
`helikon_fc.core`, the simulator in `helikon_fc.testing`, the OpenAI provider in `helikon_fc.openai`.

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
        GraphFailed as GraphFailed,
        GuardrailTriggered as GuardrailTriggered,
        GuardrailTripped as GuardrailTripped,
        HandoffCollision as HandoffCollision,
        HandoffItem as HandoffItem,
        HookDenied as HookDenied,
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
        NotImplementedPhase as NotImplementedPhase,
        OtherError as OtherError,
        OutputSchema as OutputSchema,
        ParallelFailed as ParallelFailed,
        PermissionDenied as PermissionDenied,
        Reasoning as Reasoning,
        ReasoningDelta as ReasoningDelta,
        RepairStarted as RepairStarted,
        RunCompleted as RunCompleted,
        RunFailed as RunFailed,
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
        ToolFailed as ToolFailed,
        ToolOutputItem as ToolOutputItem,
        ToolResult as ToolResult,
        TurnStarted as TurnStarted,
        UnknownHandoffTarget as UnknownHandoffTarget,
        Usage as Usage,
        UserMessage as UserMessage,
    )
    from .models.protocol import Model as Model, ModelError as ModelError
    from .models.retry import RetryingModel as RetryingModel, RetryPolicy as RetryPolicy
    from .shell.config import RunConfig as RunConfig
    from .shell.context import (
        ActionsHandle as ActionsHandle,
        CancelToken as CancelToken,
        InMemorySession as InMemorySession,
        RunContext as RunContext,
        SessionState as SessionState,
    )
    from .shell.durable import IncompatibleRunError as IncompatibleRunError
    from .shell.function_tool import FunctionTool as FunctionTool, function_tool as function_tool
    from .shell.input import AgentInput as AgentInput
    from .shell.protocol import Agent as Agent, RunStream as RunStream
    from .shell.results import (
        HandoffCollisionError as HandoffCollisionError,
        RunError as RunError,
        RunResult as RunResult,
        RunResultStreaming as RunResultStreaming,
        RunStartError as RunStartError,
    )
    from .shell.runner import Runner as Runner
    from .shell.tool import Tool as Tool, ToolContext as ToolContext, ToolError as ToolError, ToolOutput as ToolOutput

_EXPORTS: dict[str, str] = {
    "ActionsHandle": ".shell.context",
    "Agent": ".shell.protocol",
    "AgentAsTool": ".agents.agent_as_tool",
    "AgentError": ".core",
    "AgentEvent": ".core",
    "AgentInput": ".shell.input",
    "AgentUpdated": ".core",
    "ApprovalRequested": ".core",
    "AssistantMessage": ".core",
    "BranchFailure": ".core",
    "CancelToken": ".shell.context",
    "Cancelled": ".core",
    "FunctionTool": ".shell.function_tool",
    "GraphAgent": ".agents.graph",
    "GraphBuildError": ".agents.graph",
    "GraphFailed": ".core",
    "GuardrailTriggered": ".core",
    "GuardrailTripped": ".core",
    "Handoff": ".agents.handoff",
    "HandoffCollision": ".core",
    "HandoffCollisionError": ".shell.results",
    "HandoffItem": ".core",
    "HookDenied": ".core",
    "InMemorySession": ".shell.context",
    "IncompatibleRunError": ".shell.durable",
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
    "Model": ".models.protocol",
    "ModelError": ".models.protocol",
    "ModelFailed": ".core",
    "ModelFailureKind": ".core",
    "ModelRequest": ".core",
    "ModelSettings": ".core",
    "NotImplementedPhase": ".core",
    "OtherError": ".core",
    "OutputSchema": ".core",
    "ParallelAgent": ".agents.parallel",
    "ParallelFailed": ".core",
    "PermissionDenied": ".core",
    "Reasoning": ".core",
    "ReasoningDelta": ".core",
    "RepairStarted": ".core",
    "RetryPolicy": ".models.retry",
    "RetryingModel": ".models.retry",
    "RunCompleted": ".core",
    "RunConfig": ".shell.config",
    "RunContext": ".shell.context",
    "RunError": ".shell.results",
    "RunFailed": ".core",
    "RunResult": ".shell.results",
    "RunResultStreaming": ".shell.results",
    "RunStartError": ".shell.results",
    "RunStarted": ".core",
    "RunStream": ".shell.protocol",
    "Runner": ".shell.runner",
    "SequentialAgent": ".agents.sequential",
    "SessionFailed": ".core",
    "SessionState": ".shell.context",
    "StructuredOutputFailed": ".core",
    "StructuredOutputInvalid": ".core",
    "SwarmAgent": ".agents.swarm",
    "SwarmBuildError": ".agents.swarm",
    "SystemMessage": ".core",
    "TerminalEvent": ".core",
    "TimedOut": ".core",
    "TokenDelta": ".core",
    "Tool": ".shell.tool",
    "ToolCall": ".core",
    "ToolCallDelta": ".core",
    "ToolCallItem": ".core",
    "ToolContext": ".shell.tool",
    "ToolDef": ".core",
    "ToolError": ".shell.tool",
    "ToolFailed": ".core",
    "ToolOutput": ".shell.tool",
    "ToolOutputItem": ".core",
    "ToolResult": ".core",
    "TurnStarted": ".core",
    "UnknownHandoffTarget": ".core",
    "Usage": ".core",
    "UserMessage": ".core",
    "function_tool": ".shell.function_tool",
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
    "ApprovalRequested",
    "AssistantMessage",
    "BranchFailure",
    "CancelToken",
    "Cancelled",
    "FunctionTool",
    "GraphAgent",
    "GraphBuildError",
    "GraphFailed",
    "GuardrailTriggered",
    "GuardrailTripped",
    "Handoff",
    "HandoffCollision",
    "HandoffCollisionError",
    "HandoffItem",
    "HookDenied",
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
    "NotImplementedPhase",
    "OtherError",
    "OutputSchema",
    "ParallelAgent",
    "ParallelFailed",
    "PermissionDenied",
    "Reasoning",
    "ReasoningDelta",
    "RepairStarted",
    "RetryPolicy",
    "RetryingModel",
    "RunCompleted",
    "RunConfig",
    "RunContext",
    "RunError",
    "RunFailed",
    "RunResult",
    "RunResultStreaming",
    "RunStartError",
    "RunStarted",
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
    "ToolError",
    "ToolFailed",
    "ToolOutput",
    "ToolOutputItem",
    "ToolResult",
    "TurnStarted",
    "UnknownHandoffTarget",
    "Usage",
    "UserMessage",
    "function_tool",
]


if not TYPE_CHECKING:  # mypy sees the imports above, so a misspelt name stays a type error

    def __getattr__(name: str) -> Any:
        """Import a re-exported name from its module on first use, then keep it here."""
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, __name__), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
