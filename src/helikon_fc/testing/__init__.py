"""The deterministic fake-model simulator: script what a model answers, run agents offline in virtual time.

- Turn builders: `reply`, `call_tools` (with `call`), `fail`, `raw` (with `pause`) and `broken`.
- Fake models: `ScriptedModel` (a fixed script) and `FunctionModel` (a function of the request).
- Runs: `simulate` (sync, its own ``trio.run`` under ``MockClock``) and `run_simulated` (inside
  a trio test) return a `Simulation`: the events, the result or error, and the virtual time taken.

- Recordings: `Recording` (a recorded run: `Recording.load` from a store, `Recording.read` from a file),
  `record` (run an agent and record it), `replay` (run it again on its recording, offline in virtual
  time); `ReplayModel` answers with the recorded answers and raises `RecordingDiverged` where a
  request was never recorded.

See ``docs/testing.md``.
"""

from .._public import claim as _claim
from ._recorded import RecordedCall as RecordedCall, RecordedFailure as RecordedFailure, RecordedRun as RecordedRun
from ._replay import record as record, replay as replay
from ._replay_model import RecordingDiverged as RecordingDiverged, ReplayModel as ReplayModel
from ._stream import DEFAULT_KEEP_REQUESTS as DEFAULT_KEEP_REQUESTS
from .function_model import FunctionModel as FunctionModel, TurnFunction as TurnFunction
from .recording import Recording as Recording, RecordingFileError as RecordingFileError
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
from .simulation import (
    Simulation as Simulation,
    deterministic_scheduling as deterministic_scheduling,
    run_simulated as run_simulated,
    simulate as simulate,
)

__all__ = [
    "DEFAULT_KEEP_REQUESTS",
    "DEFAULT_USAGE",
    "FunctionModel",
    "Pause",
    "RecordedCall",
    "RecordedFailure",
    "RecordedRun",
    "Recording",
    "RecordingDiverged",
    "RecordingFileError",
    "ReplayModel",
    "ScriptExhausted",
    "ScriptedCall",
    "ScriptedEvents",
    "ScriptedFailure",
    "ScriptedModel",
    "ScriptedReply",
    "ScriptedToolCalls",
    "ScriptedTurn",
    "Simulation",
    "Step",
    "TurnFunction",
    "broken",
    "call",
    "call_tools",
    "deterministic_scheduling",
    "fail",
    "pause",
    "raw",
    "record",
    "replay",
    "reply",
    "run_simulated",
    "simulate",
]

_claim(__name__, globals(), __all__)
