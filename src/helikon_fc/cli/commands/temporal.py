"""``helikon temporal worker|pending|decide``: run a Temporal worker for agents named as ``module:attr``, list a
run's waiting calls, answer them."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any

from .._command import Command

# The worker's options that name an object to import (module:attr), with what each is.
_WORKER_OBJECTS = (
    ("--user-codec", "the UserCodec that decodes runs' user values (default: JSON as is)"),
    ("--permissions", "the Permissions that decide every tool call of the runs"),
)


def _configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="temporal_command", metavar="COMMAND", required=True)
    worker = sub.add_parser(
        "worker",
        help="poll a task queue and run the given agents",
        description="Run a Temporal worker for the agents named as module:attr (each an Agent, or a list of them).",
    )
    worker.add_argument("--agents", nargs="+", required=True, metavar="MODULE:ATTR", help="the agents to register")
    worker.add_argument("--address", default="127.0.0.1:7233", help="the Temporal frontend (default %(default)s)")
    worker.add_argument("--namespace", default="default", help="the Temporal namespace (default %(default)s)")
    worker.add_argument("--task-queue", default="helikon", help="the task queue to poll (default %(default)s)")
    worker.add_argument("--max-concurrent-activities", type=int, default=64, help="model and tool calls at once")
    worker.add_argument(
        "--sticky-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how long a run's next workflow task waits for the worker that has it cached (default %(default)s)",
    )
    for flag, help_text in _WORKER_OBJECTS:
        worker.add_argument(flag, metavar="MODULE:ATTR", help=help_text)
    pending = sub.add_parser(
        "pending",
        help="list the calls a run waits on a human for",
        description="Print one line per waiting call of the run: its id (to decide it by), tool and arguments.",
    )
    pending.add_argument("run_id", metavar="RUN_ID")
    decide = sub.add_parser(
        "decide",
        help="approve or reject waiting calls of a run",
        description=(
            "Answer waiting calls by id: ID=approve, ID=approve:ARGUMENTS_JSON (replaced arguments, checked again), "
            "ID=reject or ID=reject:REASON."
        ),
    )
    decide.add_argument("run_id", metavar="RUN_ID")
    decide.add_argument("decisions", nargs="+", metavar="ID=DECISION")
    for parser_ in (pending, decide):
        parser_.add_argument("--address", default="127.0.0.1:7233", help="the Temporal frontend (default %(default)s)")
        parser_.add_argument("--namespace", default="default", help="the Temporal namespace (default %(default)s)")


def load(spec: str) -> list[Any]:
    """The agents `spec` (``module:attr``) names: the attribute, or each item of it if it is a list or tuple.

    Raises:
        ValueError: `spec` is not ``module:attr``, or names nothing.
    """
    value = _attribute(spec, "--agents")
    return list(value) if isinstance(value, list | tuple) else [value]


def _attribute(spec: str, flag: str) -> Any:
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"{flag}: expected MODULE:ATTR, got {spec!r}")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"{flag}: cannot load {spec!r}: {exc}") from None


def parse_decision(text: str) -> tuple[str, Any]:
    """``ID=approve``, ``ID=approve:ARGUMENTS``, ``ID=reject`` or ``ID=reject:REASON`` as ``(id, Approve | Reject)``.

    Raises:
        ValueError: `text` is none of those (the message says what is allowed).
    """
    from ...shell.control.permissions import Approve, Reject

    call_id, sep, decision = text.partition("=")
    verb, _, rest = decision.partition(":")
    if not sep or not call_id or verb not in ("approve", "reject"):
        raise ValueError(f"expected ID=approve[:ARGUMENTS_JSON] or ID=reject[:REASON], got {text!r}")
    if verb == "approve":
        return call_id, Approve(rest or None)
    return call_id, Reject(rest) if rest else Reject()


def _execute(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the chosen verb; the exit status."""
    if args.temporal_command == "worker":
        return _worker(args, parser)
    return _answer(args, parser)


def _answer(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``pending`` (print the waiting calls) or ``decide`` (send the decisions), then end the process.

    The process ends with `os._exit` once its output is flushed: temporalio's runtime can crash a
    short-lived client process in the interpreter's teardown (SIGABRT or SIGSEGV after the answer
    was printed), and there is nothing left to tear down.
    """
    import asyncio

    try:
        from temporalio.client import Client

        from ...shell.durable.storage import RunNotFound
        from ...temporal import HelikonClient
    except ImportError as exc:
        parser.error(f"helikon temporal needs the extra: pip install 'helikon_fc[temporal]' ({exc})")
    decisions: dict[str, Any] = {}
    if args.temporal_command == "decide":
        try:
            decisions = dict(parse_decision(text) for text in args.decisions)
        except ValueError as exc:
            parser.error(str(exc))

    async def main() -> None:
        client = await Client.connect(args.address, namespace=args.namespace)
        handle = HelikonClient(client, "").handle(args.run_id)
        if args.temporal_command == "decide":
            await handle.decide(decisions)
            print(f"sent {len(decisions)} decision(s) to {args.run_id}", flush=True)
            return
        for request in await handle.pending():
            print(f"{request.call_id}\t{request.tool}\t{request.args}", flush=True)

    status = 0
    try:
        asyncio.run(main())
    except RunNotFound:
        print(f"helikon temporal: no run {args.run_id!r} on Temporal at {args.address}", file=sys.stderr)
        status = 1
    except RuntimeError as exc:
        if not str(exc).startswith("Failed client connect"):
            raise
        print(f"helikon temporal: cannot reach Temporal at {args.address}: {exc}", file=sys.stderr)
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def _worker(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the worker until interrupted; the exit status."""
    import asyncio  # temporalio's side is asyncio; imported only when a worker runs

    try:
        from temporalio.client import Client

        from ...temporal import HelikonWorker, UserCodec
        from ...temporal._decisions import check_worker_permissions
    except ImportError as exc:
        parser.error(f"helikon temporal needs the extra: pip install 'helikon_fc[temporal]' ({exc})")
    try:
        agents = [agent for spec in args.agents for agent in load(spec)]
        codec = _attribute(args.user_codec, "--user-codec") if args.user_codec else None
        permissions = _attribute(args.permissions, "--permissions") if args.permissions else None
    except ValueError as exc:
        parser.error(str(exc))
    if codec is not None and not isinstance(codec, UserCodec):
        parser.error(f"--user-codec: expected a UserCodec, got {type(codec).__name__}")
    try:
        check_worker_permissions(permissions)
    except (TypeError, ValueError) as exc:
        parser.error(f"--permissions: {exc}")

    async def main() -> None:
        client = await Client.connect(args.address, namespace=args.namespace)
        worker = HelikonWorker(
            client,
            args.task_queue,
            agents=agents,
            max_concurrent_activities=args.max_concurrent_activities,
            sticky_timeout=args.sticky_timeout,
            user_codec=codec,
            permissions=permissions,
        )
        print(
            f"helikon worker: {', '.join(worker.registry.names)} on {args.task_queue!r} at {args.address}", flush=True
        )
        await worker.run()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        return 130
    return 0


TEMPORAL = Command(
    name="temporal",
    help=(
        "run agents on Temporal: `helikon temporal worker --agents module:attr`, `pending RUN_ID`, "
        "`decide RUN_ID ID=approve` (needs helikon_fc[temporal])"
    ),
    description="Run helikon_fc agents as Temporal workflows (see docs/temporal.md).",
    configure=_configure,
    execute=_execute,
)
