"""The functional core of helikon_fc: immutable values and one pure `transition` function.

Nothing here does IO, reads a clock, draws a random number, or imports trio, httpx or openai.
"""

from .conversation import Conversation as Conversation
from .errors import (
    AgentError as AgentError,
    BranchFailure as BranchFailure,
    Cancelled as Cancelled,
    GraphFailed as GraphFailed,
    GuardrailTripped as GuardrailTripped,
    HandoffCollision as HandoffCollision,
    HookDenied as HookDenied,
    InvalidTransition as InvalidTransition,
    MaxAgentDepthExceeded as MaxAgentDepthExceeded,
    MaxHandoffsExceeded as MaxHandoffsExceeded,
    MaxIterationsExceeded as MaxIterationsExceeded,
    MaxTurnsExceeded as MaxTurnsExceeded,
    ModelFailed as ModelFailed,
    ModelFailureKind as ModelFailureKind,
    NotImplementedPhase as NotImplementedPhase,
    OtherError as OtherError,
    ParallelFailed as ParallelFailed,
    SessionFailed as SessionFailed,
    StructuredOutputInvalid as StructuredOutputInvalid,
    TimedOut as TimedOut,
    ToolFailed as ToolFailed,
    UnknownHandoffTarget as UnknownHandoffTarget,
)
from .events import (
    AgentEvent as AgentEvent,
    AgentUpdated as AgentUpdated,
    ApprovalRequested as ApprovalRequested,
    GuardrailTriggered as GuardrailTriggered,
    HandoffItem as HandoffItem,
    MessageOutput as MessageOutput,
    PermissionDenied as PermissionDenied,
    ReasoningDelta as ReasoningDelta,
    RepairStarted as RepairStarted,
    RunCompleted as RunCompleted,
    RunFailed as RunFailed,
    RunStarted as RunStarted,
    StructuredOutputFailed as StructuredOutputFailed,
    TerminalEvent as TerminalEvent,
    TokenDelta as TokenDelta,
    ToolCallDelta as ToolCallDelta,
    ToolCallItem as ToolCallItem,
    ToolOutputItem as ToolOutputItem,
    TurnStarted as TurnStarted,
)
from .items import (
    AssistantMessage as AssistantMessage,
    Item as Item,
    Reasoning as Reasoning,
    SystemMessage as SystemMessage,
    ToolCall as ToolCall,
    ToolResult as ToolResult,
    UserMessage as UserMessage,
)
from .json_value import JsonObject as JsonObject, JsonValue as JsonValue
from .model import (
    FinishReason as FinishReason,
    ModelEvent as ModelEvent,
    ModelFinish as ModelFinish,
    ModelReasoningDelta as ModelReasoningDelta,
    ModelRequest as ModelRequest,
    ModelResponse as ModelResponse,
    ModelSettings as ModelSettings,
    ModelTextDelta as ModelTextDelta,
    ModelToolCallDelta as ModelToolCallDelta,
    ModelUsage as ModelUsage,
    OutputSchema as OutputSchema,
    ToolDef as ToolDef,
    assemble_response as assemble_response,
)
from .schema import (
    CompiledSchema as CompiledSchema,
    SchemaError as SchemaError,
    compile_schema as compile_schema,
    parse_arguments as parse_arguments,
    strict_schema as strict_schema,
    validate as validate,
)
from .states import (
    ApplyingHandoff as ApplyingHandoff,
    CallingModel as CallingModel,
    CallModel as CallModel,
    Compacting as Compacting,
    Done as Done,
    ExecuteTools as ExecuteTools,
    ExecutingTools as ExecutingTools,
    Failed as Failed,
    Finalizing as Finalizing,
    FinalOutput as FinalOutput,
    HandoffTarget as HandoffTarget,
    LoopState as LoopState,
    NeedsApproval as NeedsApproval,
    NextAction as NextAction,
    PerformHandoff as PerformHandoff,
    RepairingOutput as RepairingOutput,
    Start as Start,
    Terminate as Terminate,
    ToolResults as ToolResults,
    TransitionCtx as TransitionCtx,
    TransitionInput as TransitionInput,
    TransitionOutcome as TransitionOutcome,
    initial_state as initial_state,
)
from .transition import transition as transition, validate_output as validate_output
from .usage import AgentUsage as AgentUsage, Usage as Usage
from .wavefront import Wavefront as Wavefront, find_cycle as find_cycle
from .wire import WireFormatError as WireFormatError, from_json as from_json, to_json as to_json
