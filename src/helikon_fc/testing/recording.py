"""`Recording`: a recorded run (every agent of it, nested runs included), read from a store or a file.

A run recorded under ``Runner(config, store=...)`` keeps a log per agent run: the root under its id,
each sub-run (a handoff target, an agent-as-tool call, a workflow's child) under
``<parent id>/<segment>``. A `Recording` holds those logs and, for each agent run, its model calls
in order: what was asked (rebuilt from `AskedRequest`), what came back, the deltas streamed and how
long the call took. `Recording.model` turns it into a `Model` that answers every request with the
recorded answer (see `ReplayModel`).

The file form (`Recording.save`, `Recording.read`; what ``helikon record`` writes) is one JSON object::

    {"format": "helikon-recording", "version": 1, "run_id": "...",
     "runs": [{"run_id": "...", "agent": "...", "records": [<record in the wire format>, ...]}, ...],
     "events": [<event in the wire format>, ...]}

with the runs in the order they were created (the root first) and the run's events as it streamed them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import trio

from ..core import (
    AgentEvent,
    Item,
    RunCompleted,
    RunStarted,
    WireFormatError,
    from_json,
    to_json,
)
from ..core.records import RecordLogError, RunOpened, RunRecordBody, record_kind
from ..shell.durable.run_log import decode_records
from ..shell.durable.storage import RunRecord, RunStore
from ..shell.input import AgentInput, as_input
from ._from_events import EventReplayModel, run_from_events
from ._recorded import RecordedCall, RecordedRun, recorded_run
from ._replay_model import ReplayModel

FORMAT = "helikon-recording"
"""The ``"format"`` of a recording file."""

FORMAT_VERSION = 1
"""The version of the recording file format written by this helikon_fc."""


class RecordingFileError(ValueError):
    """A file (or text) is not a recording: the message says what is wrong and where."""


@attrs.frozen(kw_only=True)
class Recording:
    """A recorded run: every agent run of it, with their model calls; see the module docstring.

    Build one with `Recording.load` (from a store), `Recording.read` / `Recording.from_json` (from a
    file or its text), `Recording.from_event_stream` (from a run's events; `Recording.read` reads the
    events file of ``helikon run --json`` too), or `record` (run an agent and record it). Replay it with
    `model()` or `replay`.

    Attributes:
        run_id: the id of the run that was started (the root).
        runs: every agent run, the root first, then its sub-runs in the order they were created.
        events: the run's events as it streamed them, when known (empty otherwise).
    """

    run_id: str
    runs: tuple[RecordedRun, ...]
    events: tuple[AgentEvent, ...] = ()
    from_events: bool = False
    """Whether it was rebuilt from events alone (`Recording.from_event_stream`): its calls have no request."""

    @property
    def root(self) -> RecordedRun:
        """The run that was started."""
        return self.runs[0]

    @property
    def input(self) -> tuple[Item, ...]:
        """The input the run was started with."""
        opened = self.root.records[0]
        assert isinstance(opened, RunOpened)
        return opened.input

    @property
    def calls(self) -> tuple[RecordedCall, ...]:
        """Every recorded model call, run by run (in `runs` order), each run's in order."""
        return tuple(call for run in self.runs for call in run.calls)

    @property
    def model_name(self) -> str | None:
        """The name of the model that served the run, when its terminal event names exactly one."""
        terminal = self.root.terminal
        if not isinstance(terminal, RunCompleted):
            return None
        names = {share.model for share in terminal.usage_by_model}
        return names.pop() if len(names) == 1 else None

    def model(self, name: str | None = None, *, agent: str | None = None) -> ReplayModel:
        """A `Model` answering each request with this recording's answer to it (see `ReplayModel`).

        Args:
            name: the model's name; by default the recorded model's (`model_name`), else ``"recording"``.
                Usage by model in `RunCompleted` is counted under it.
            agent: answer only with the calls of this agent's runs (give each agent its own model where
                agents of the run send equal requests that were answered differently); `None`: any agent's.
        """
        calls = self.calls if agent is None else tuple(call for call in self.calls if call.agent == agent)
        failures = tuple(
            run.failed_call for run in self.runs if run.failed_call is not None and agent in (None, run.agent)
        )
        name = name if name is not None else self.model_name or "recording"
        if self.from_events:
            return EventReplayModel(calls, name=name)
        return ReplayModel(calls, name=name, failures=failures)

    @classmethod
    def from_event_stream(cls, events: Sequence[AgentEvent], *, input: str | AgentInput) -> Recording:
        """The recording of the run that streamed `events` (what ``helikon run --json`` prints), started on `input`.

        Events do not hold the run's input (pass what the run was started with), nor the requests, usage
        and latency of each model call, nor the sub-runs of agents called as tools: each call's answer is
        rebuilt from the deltas it streamed, each agent's usage (`RunCompleted.usage_by_agent`) is reported
        on its first call (so the replay's `RunCompleted` is the recorded one), calls take no virtual time,
        and a replay answers in order, naming the agent and turn where it diverges (without a diff). An
        agent called as a tool (its sub-run is not in the events) is answered with one reply of the tool's
        recorded output: its own tool calls are not run again, and it counts one request. For requests,
        latencies and sub-runs as they were, record with `helikon record`.

        Raises:
            TypeError: `input` is not a string or an `AgentInput`.
            RecordingFileError: `events` do not start with `RunStarted`.
        """
        items = as_input("Recording.from_event_stream", input).items
        started = events[0] if events else None
        run_id = (started.run_id if isinstance(started, RunStarted) else None) or "events"
        try:
            run = run_from_events(run_id, events, tuple(items))
        except ValueError as exc:
            raise RecordingFileError(f"not the events of a run: {exc}") from None
        return cls(run_id=run_id, runs=(run,), events=tuple(events), from_events=True)

    @classmethod
    async def load(cls, store: RunStore, run_id: str, *, events: Sequence[AgentEvent] = ()) -> Recording:
        """The recording of run `run_id` and its sub-runs, read from `store`.

        Args:
            store: any `RunStore` (``MemoryStore``, ``SQLiteStore``, ``PostgresStore``).
            run_id: the id the run was started under.
            events: the run's events, if the caller kept them (`Recording.events`).

        Raises:
            RunNotFound: nothing is recorded under `run_id`.
            RecordLogError: a log is not a valid run log.
        """
        await store.run_summary(run_id)  # RunNotFound for an unknown id
        prefix = run_id + "/"
        found = [s for s in await store.runs() if s.run_id == run_id or s.run_id.startswith(prefix)]
        found.sort(key=lambda s: (s.run_id != run_id, s.created_at, s.run_id))
        runs: list[RecordedRun] = []
        for summary in found:
            stored: tuple[RunRecord, ...] = await store.read_run_records(summary.run_id)
            if stored:
                runs.append(recorded_run(summary.run_id, decode_records(summary.run_id, stored)))
        if not runs or runs[0].run_id != run_id:
            raise RecordLogError(f"run {run_id!r} has no records: nothing of it ran, so there is nothing to replay")
        return cls(run_id=run_id, runs=tuple(runs), events=tuple(events))

    def to_json(self, *, indent: int | None = None) -> str:
        """The recording as the text of a recording file (see the module docstring)."""
        document = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "run_id": self.run_id,
            "runs": [
                {"run_id": run.run_id, "agent": run.agent, "records": [json.loads(to_json(r)) for r in run.records]}
                for run in self.runs
            ],
            "events": [json.loads(to_json(event)) for event in self.events],
        }
        return json.dumps(document, indent=indent, ensure_ascii=False)

    def save(self, path: str | Path) -> None:
        """Write the recording to `path` (a recording file, UTF-8 JSON)."""
        Path(path).write_text(self.to_json(indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, text: str) -> Recording:
        """The recording a recording file's `text` holds.

        Raises:
            RecordingFileError: `text` is not a recording (the message says where it is not).
        """
        try:
            document = json.loads(text)
        except ValueError as exc:
            if _is_event_lines(text):
                raise RecordingFileError(_EVENTS_NOT_A_RECORDING) from None
            raise RecordingFileError(f"not JSON: {exc}") from None
        if not is_recording_document(document):
            raise RecordingFileError(
                'not a recording: expected a JSON object with "format": "helikon-recording" '
                "(write one with `helikon record` or Recording.save)"
            )
        version = document.get("version")
        if not isinstance(version, int) or version > FORMAT_VERSION:
            raise RecordingFileError(
                f"recording format version {version!r}: this helikon_fc reads versions up to {FORMAT_VERSION}"
            )
        try:
            return _from_document(document)
        except (WireFormatError, RecordLogError, KeyError, TypeError) as exc:
            raise RecordingFileError(f"not a valid recording: {exc}") from None

    @classmethod
    def read(cls, path: str | Path, *, input: str | AgentInput | None = None) -> Recording:
        """The recording in the file at `path`: a recording file, or the events of ``helikon run --json``
        (see `from_event_stream`: such a file does not hold the run's input, so `input` must give it).

        Raises:
            OSError: the file cannot be read.
            RecordingFileError: it is not a recording, or it is an event file and `input` is `None`.
            TypeError: `input` is not a string or an `AgentInput`.
        """
        text = Path(path).read_text(encoding="utf-8")
        try:
            if _is_event_lines(text, first=RunStarted):
                return cls._from_event_lines(text, input)
            return cls.from_json(text)
        except RecordingFileError as exc:
            raise RecordingFileError(f"{path}: {exc}") from None

    @classmethod
    def _from_event_lines(cls, text: str, input: str | AgentInput | None) -> Recording:
        if input is None:
            raise RecordingFileError(_EVENTS_NEED_INPUT)
        agent_input = as_input("Recording.read", input)
        events: list[AgentEvent] = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    events.append(from_json(AgentEvent, line))
                except WireFormatError as exc:
                    raise RecordingFileError(f"line {number} is not an event: {exc}") from None
        return cls.from_event_stream(events, input=agent_input)

    async def store_into(self, store: RunStore) -> None:
        """Write every run of the recording into `store` under its recorded id (to show it with
        ``helikon runs show``, or resume it).

        Raises:
            RunRecordConflict: a run with one of these ids is in `store` already.
        """
        await trio.lowlevel.checkpoint()  # a checkpoint whatever the loop below does
        for run in self.runs:
            records = tuple(RunRecord(seq, record_kind(body), to_json(body)) for seq, body in enumerate(run.records))
            await store.create_run(run.run_id, run.agent, records)
            status = _status(run.terminal)
            if status != "running":
                await store.append_run_records(run.run_id, (), status)


_EVENTS_LEAVE_OUT = (
    "events leave out the run's input, each model call's request and the sub-runs of agents called as tools; "
    "for a replay that shows how requests differ, write a recording with `helikon record`, or run with "
    "`helikon run --store PATH` and read it with Recording.load"
)

_EVENTS_NEED_INPUT = (
    "a file of events (`helikon run --json`): pass the input the run was given, "
    f'Recording.read(path, input="...") ({_EVENTS_LEAVE_OUT})'
)

_EVENTS_NOT_A_RECORDING = (
    "a file of events (`helikon run --json`), not a recording file: read it with Recording.read(path, input=...) "
    f"or Recording.from_event_stream ({_EVENTS_LEAVE_OUT})"
)


def _is_event_lines(text: str, *, first: type[AgentEvent] | None = None) -> bool:
    """Whether `text` is lines of wire-format events (what ``helikon run --json`` prints), the first of them
    a `first` when given."""
    lines = [line for line in text.splitlines() if line.strip()]
    try:
        event = from_json(AgentEvent, lines[0])
    except (WireFormatError, IndexError):
        return False
    return first is None or isinstance(event, first)


def is_recording_document(document: object) -> bool:
    """Whether parsed JSON `document` is a recording file's object."""
    return isinstance(document, dict) and document.get("format") == FORMAT


def _from_document(document: dict[str, Any]) -> Recording:
    run_id = document["run_id"]
    if not isinstance(run_id, str):
        raise TypeError(f'"run_id" must be a string, got {run_id!r}')
    runs: list[RecordedRun] = []
    for index, run in enumerate(document["runs"]):
        records: list[RunRecordBody] = []
        for seq, record in enumerate(run["records"]):
            try:
                records.append(from_json(RunRecordBody, json.dumps(record)))
            except WireFormatError as exc:
                raise RecordingFileError(f"not a valid recording: runs[{index}].records[{seq}]: {exc}") from None
        runs.append(recorded_run(run["run_id"], records))
    if not runs or runs[0].run_id != run_id:
        raise RecordLogError(f'the first run must be the recorded run {run_id!r} ("run_id")')
    events: tuple[AgentEvent, ...] = tuple(
        from_json(AgentEvent, json.dumps(event)) for event in document.get("events", [])
    )
    return Recording(run_id=run_id, runs=tuple(runs), events=events)


def _status(terminal: AgentEvent | None) -> Any:
    if terminal is None:
        return "running"
    return "completed" if isinstance(terminal, RunCompleted) else "failed"
