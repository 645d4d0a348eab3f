"""Approval decisions as they cross to and from a workflow, and a run's permissions on a worker.

A human's answer is the trio API's `Approve(arguments=None)` or `Reject(reason)`; on the wire (the
``helikon.decide`` signal, the tool activity's input) it is a `Decision`. The client and the worker
load this module; the workflow never does (it handles `Decision` values only).
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from ..core import PermissionConfig, from_json
from ..shell.control.permissions import ApprovalAnswer, Approvals, Approve, Permissions, Reject
from ._payloads import Decision

__all__ = ["answer_of", "check_worker_permissions", "decisions_of", "run_permissions"]


def decisions_of(answers: Mapping[str, ApprovalAnswer]) -> list[Decision]:
    """`answers` (call id to `Approve`/`Reject`) as the signal carries them, in call-id order.

    Raises:
        TypeError: a key is not a str or a value is not `Approve`/`Reject` (nothing is sent).
    """
    Approvals(answers)  # the trio API's check and message
    decisions = []
    for call_id in sorted(answers):
        answer = answers[call_id]
        if isinstance(answer, Approve):
            decisions.append(Decision(call_id, approve=True, arguments=answer.arguments))
        else:
            decisions.append(Decision(call_id, approve=False, reason=answer.reason))
    return decisions


def answer_of(decision: Decision) -> ApprovalAnswer:
    """The `Approve`/`Reject` a `Decision` carries."""
    if decision.approve:
        return Approve(decision.arguments)
    return Reject(decision.reason) if decision.reason else Reject()


def run_permissions(worker: Permissions | None, permissions_json: str | None) -> Permissions | None:
    """The permissions a run's tool calls are decided by on this worker.

    The run's own `PermissionConfig` (given to `HelikonClient.start`) replaces the worker's config;
    the worker's policy and redaction apply either way. Neither: `None` (every call runs).
    """
    if permissions_json is None:
        return worker
    config: PermissionConfig = from_json(PermissionConfig, permissions_json)
    if worker is None:
        return Permissions(config=config)
    return attrs.evolve(worker, config=config)


def check_worker_permissions(permissions: object) -> None:
    """Refuse what a worker cannot use as its runs' permissions.

    Raises:
        TypeError: `permissions` is neither `None` nor a `Permissions`.
        ValueError: it has an ``approval_handler``: on Temporal a waiting call is answered through
            `RunHandle.decide`, durably; a handler in a worker would hold a tool activity open for as
            long as its human takes, and a worker that dies would lose the question.
    """
    if permissions is None:
        return
    if not isinstance(permissions, Permissions):
        raise TypeError(
            "HelikonWorker: permissions must be a Permissions or None, "
            f"got {permissions!r} ({type(permissions).__name__})"
        )
    if permissions.approval_handler is not None:
        raise ValueError(
            "HelikonWorker: permissions must not have an approval_handler: on Temporal a waiting call is "
            "answered through RunHandle.decide (the run waits for it durably); drop the handler"
        )
