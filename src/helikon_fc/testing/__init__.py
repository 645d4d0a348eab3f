"""The deterministic fake-model simulator: script what a model answers, run agents offline in virtual time.

- Turn builders: `reply`, `call_tools` (with `call`), `fail`, `raw` (with `pause`) and `broken`.
- Fake models: `ScriptedModel` (a fixed script) and `FunctionModel` (a function of the request).

See ``docs/testing.md``.
"""

from .function_model import FunctionModel as FunctionModel, TurnFunction as TurnFunction
from .script import (
    DEFAULT_USAGE as DEFAULT_USAGE,
    Pause as Pause,
    ScriptedCall as ScriptedCall,
    ScriptedEvents as ScriptedEvents,
    ScriptedFailure as ScriptedFailure,
    ScriptedReply as ScriptedReply,
    ScriptedToolCalls as ScriptedToolCalls,
    ScriptedTurn as ScriptedTurn,
    Step as Step,
    broken as broken,
    call as call,
    call_tools as call_tools,
    fail as fail,
    pause as pause,
    raw as raw,
    reply as reply,
)
from .scripted_model import ScriptedModel as ScriptedModel, ScriptExhausted as ScriptExhausted

__all__ = [
    "DEFAULT_USAGE",
    "FunctionModel",
    "Pause",
    "ScriptExhausted",
    "ScriptedCall",
    "ScriptedEvents",
    "ScriptedFailure",
    "ScriptedModel",
    "ScriptedReply",
    "ScriptedToolCalls",
    "ScriptedTurn",
    "Step",
    "TurnFunction",
    "broken",
    "call",
    "call_tools",
    "fail",
    "pause",
    "raw",
    "reply",
]
