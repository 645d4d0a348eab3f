"""``helikon serve MODULE:ATTRIBUTE``: serve agents' runs over HTTP (the app of `helikon_fc.serve`)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .._command import Command
from ..model_option import add_model_options
from ..server_run import run_server
from ..terminal import EXIT_FAILED

TOKEN_ENV = "HELIKON_SERVE_TOKEN"
"""The environment variable a token is read from when ``--token`` is not given."""

_EPILOG = f"""\
MODULE:ATTRIBUTE names an agent, a factory of one, or a list or mapping of them (as for `helikon run`).
Runs are recorded in --store (default runs.db), so a run whose server died is listed as interrupted
after a restart and resumed with POST /runs/ID/resume; events keep their positions (Last-Event-ID).
Without a token (--token or ${TOKEN_ENV}) the server listens on loopback only.
SIGTERM refuses new runs, interrupts running ones (resumable) and ends every stream with `end`.

Exit status: 0 stopped, 1 the server could not start, 2 bad arguments.

  helikon serve examples/approval_server.py:agent
  helikon serve myapp.agents:agents --store app.db --host 0.0.0.0 --port 8000 --token "$TOKEN"
"""


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="MODULE:ATTRIBUTE", help="the agent (or agents) to serve")
    parser.add_argument("--store", default="runs.db", metavar="PATH|DSN", help="a SQLite file or a postgresql:// DSN")
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default %(default)s)")
    parser.add_argument("--port", type=_port, default=8000, help="the port (default %(default)s; 0: any free port)")
    parser.add_argument("--token", help=f"the bearer token every request must carry (default: ${TOKEN_ENV})")
    parser.add_argument(
        "--permissions", metavar="MODULE:ATTR", help="the Permissions that decide every tool call of the runs"
    )
    add_model_options(parser)


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port from 0 to 65535, got {text!r}")
    return int(text)


def _execute(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        from ...serve import create_app, serve
        from ...serve.server import is_loopback
    except ImportError as exc:
        print(f"helikon serve: {exc}", file=sys.stderr)
        return EXIT_FAILED
    from ..loading import TargetError, load_agents
    from ..model_option import ModelOptionError, model_from_options

    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV) or None
    if args.token == "":
        parser.error("--token must not be empty")
    if token is None and not is_loopback(args.host):
        parser.error(
            f"--host {args.host} is not loopback: give a --token (or ${TOKEN_ENV}) to serve beyond this machine"
        )
    if args.store == "":
        parser.error("--store needs a SQLite file path or a postgresql:// DSN, got ''")
    try:
        model = model_from_options(args.model, base_url=args.base_url, api_key_env=args.api_key_env)
        agents = load_agents(args.target, model)
    except (ModelOptionError, TargetError) as exc:
        parser.error(str(exc))
    try:
        permissions = _permissions(args.permissions) if args.permissions else None
    except TargetError as exc:
        parser.error(f"--permissions: {exc}")
    return _run(args, agents, permissions, token, create_app, serve)


def _permissions(spec: str) -> Any:
    """The `Permissions` ``--permissions MODULE:ATTR`` names. Raises `TargetError` for anything else."""
    from ...shell._checks import describe
    from ...shell.control.permissions import Permissions
    from ..loading import TargetError, load_value

    value = load_value(spec)
    if not isinstance(value, Permissions):
        raise TargetError(f"{spec} is {describe(value)}, not a Permissions")
    return value


def _run(
    args: argparse.Namespace, agents: Any, permissions: Any, token: str | None, create_app: Any, serve: Any
) -> int:
    import trio

    from ...stores.location import store_at

    async def main() -> None:
        async with store_at(args.store) as store:
            app = create_app(agents, store, permissions=permissions, token=token)
            async with trio.open_nursery() as nursery:
                urls = await nursery.start(serve, app, args.host, args.port)
                names = ", ".join(sorted(agents))
                print(f"helikon serve: {names} at {urls[0]} (store {args.store})", file=sys.stderr, flush=True)

    return run_server(main, "helikon serve")


SERVE = Command(
    name="serve",
    help="serve agents' runs over HTTP: start, stream, approve, cancel, resume (`helikon serve MODULE:ATTRIBUTE`)",
    description="Serve agents over HTTP with resumable event streams (see docs/serve.md).",
    epilog=_EPILOG,
    configure=_configure,
    execute=_execute,
)
