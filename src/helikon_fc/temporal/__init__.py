"""helikon_fc on Temporal: runs as durable workflows, model and tool calls as activities.

Install the extra ``helikon_fc[temporal]``.

- `HelikonWorker`: polls a task queue and runs the agents registered on it.
- `HelikonClient`: starts runs (`RunHandle`: events, pending approvals and decide, cancel, result as
  `TemporalRunResult`).
- `ActivityPolicy`: the activities' timeouts, retries and heartbeats.
- `UserCodec`: how a run's user value crosses from the client to the workers (JSON).
- `RunWorkflow` and `workflow_runner`: the workflow class and its sandbox (for a `Replayer`).

See ``docs/temporal.md``.
"""

from ._payloads import ActivityPolicy as ActivityPolicy
from ._registry import AgentRegistry as AgentRegistry, UnknownAgentPath as UnknownAgentPath
from ._user import UserCodec as UserCodec
from .client import HelikonClient as HelikonClient, RunHandle as RunHandle, TemporalRunResult as TemporalRunResult
from .worker import HelikonWorker as HelikonWorker, workflow_runner as workflow_runner
from .workflow import RunWorkflow as RunWorkflow

__all__ = [
    "ActivityPolicy",
    "AgentRegistry",
    "HelikonClient",
    "HelikonWorker",
    "RunHandle",
    "RunWorkflow",
    "TemporalRunResult",
    "UnknownAgentPath",
    "UserCodec",
    "workflow_runner",
]
