"""``helikon temporal worker``: run a Temporal worker for agents named as ``module:attr``."""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from .._command import Command


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


def load(spec: str) -> list[Any]:
    """The agents `spec` (``module:attr``) names: the attribute, or each item of it if it is a list or tuple.

    Raises:
        ValueError: `spec` is not ``module:attr``, or names nothing.
    """
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"--agents: expected MODULE:ATTR, got {spec!r}")
    try:
        value = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"--agents: cannot load {spec!r}: {exc}") from None
    return list(value) if isinstance(value, list | tuple) else [value]


def _execute(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the worker until interrupted; the exit status."""
    import asyncio  # temporalio's side is asyncio; imported only when a worker runs

    try:
        from temporalio.client import Client

        from ...temporal import HelikonWorker
    except ImportError as exc:
        parser.error(f"helikon temporal needs the extra: pip install 'helikon_fc[temporal]' ({exc})")
    try:
        agents = [agent for spec in args.agents for agent in load(spec)]
    except ValueError as exc:
        parser.error(str(exc))

    async def main() -> None:
        client = await Client.connect(args.address, namespace=args.namespace)
        worker = HelikonWorker(
            client, args.task_queue, agents=agents, max_concurrent_activities=args.max_concurrent_activities
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
    help="run agents on Temporal: `helikon temporal worker --agents module:attr` (needs helikon_fc[temporal])",
    description="Run helikon_fc agents as Temporal workflows (see docs/temporal.md).",
    configure=_configure,
    execute=_execute,
)
