"""One process of the cross-process approval test: start a run (it pauses) or resume it with decisions.

    python -m tests.control.approval_child start DB AGENT LOG
    python -m tests.control.approval_child resume DB AGENT LOG DECISIONS_JSON

Prints one JSON line: whether the run paused, what it waits on, its final output, the store's status.
Decisions are ``{"call_id": {"approve": true, "arguments": "..."} | {"reject": "reason"}}``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import trio
from tests.control.scenario import AGENTS, pending_ids, resume, start

from helikon_fc.shell.control.permissions import ApprovalAnswer, Approve, Reject
from helikon_fc.stores import SQLiteStore

RUN_ID = "approval-run"


def decisions_from(text: str) -> dict[str, ApprovalAnswer]:
    """The decisions a test passes as JSON."""
    out: dict[str, ApprovalAnswer] = {}
    for call_id, decision in json.loads(text).items():
        out[call_id] = Reject(decision["reject"]) if "reject" in decision else Approve(decision.get("arguments"))
    return out


async def main(*args: str) -> None:
    mode, db, agent, log = args[:4]
    decisions = args[4] if len(args) > 4 else "{}"
    async with SQLiteStore(db) as store:
        build = AGENTS[agent]
        if mode == "start":
            result = await start(store, build(Path(log)), RUN_ID)
        else:
            result = await resume(store, build(Path(log)), RUN_ID, decisions_from(decisions))
        status = (await store.run_summary(RUN_ID)).status
    print(
        json.dumps(
            {"paused": result.paused, "pending": pending_ids(result), "final": result.final_output, "status": status}
        )
    )


if __name__ == "__main__":
    trio.run(main, *sys.argv[1:])
