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
    worker.add_argument(
        "--sticky-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how long a run's next workflow task waits for the worker that has it cached (default %(default)s)",
    )
    worker.add_argument(
        "--user-codec", metavar="MODULE:ATTR", help="the UserCodec that decodes runs' user values (default: JSON as is)"
    )


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


def _execute(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the worker until interrupted; the exit status."""
    import asyncio  # temporalio's side is asyncio; imported only when a worker runs

    try:
        from temporalio.client import Client

        from ...temporal import HelikonWorker, UserCodec
    except ImportError as exc:
        parser.error(f"helikon temporal needs the extra: pip install 'helikon_fc[temporal]' ({exc})")
    try:
        agents = [agent for spec in args.agents for agent in load(spec)]
        codec = _attribute(args.user_codec, "--user-codec") if args.user_codec else None
    except ValueError as exc:
        parser.error(str(exc))
    if codec is not None and not isinstance(codec, UserCodec):
        parser.error(f"--user-codec: expected a UserCodec, got {type(codec).__name__}")

    async def main() -> None:
        client = await Client.connect(args.address, namespace=args.namespace)
        worker = HelikonWorker(
            client,
            args.task_queue,
            agents=agents,
            max_concurrent_activities=args.max_concurrent_activities,
            sticky_timeout=args.sticky_timeout,
            user_codec=codec,
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
