"""Histories recorded by earlier versions still replay through the present workflow (no nondeterminism).

``histories/before_every_call_seen.json`` is a run with a hook whose model called an unknown tool and a tool
with an off-schema argument (`record_history`), recorded before such calls went through hooks and permissions:
that version answered them in the transition, with no activity. Replayed now, the ``helikon-every-call-seen``
patch is absent from the history, so the workflow answers them in place again, scheduling what it did then.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer

from helikon_fc.temporal import RunWorkflow, workflow_runner

HISTORIES = Path(__file__).with_name("histories")


def test_a_history_from_before_every_call_was_seen_replays() -> None:
    text = (HISTORIES / "before_every_call_seen.json").read_text()
    history = WorkflowHistory.from_json("before-every-call-seen", text)
    replayer = Replayer(workflows=[RunWorkflow], workflow_runner=workflow_runner())
    result = asyncio.run(replayer.replay_workflow(history, raise_on_replay_failure=False))
    assert result.replay_failure is None, result.replay_failure
