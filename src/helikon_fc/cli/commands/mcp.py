"""``helikon mcp serve MODULE:ATTRIBUTE [--http HOST:PORT]``: offer an agent to MCP clients as one tool."""

from __future__ import annotations

import argparse
import sys
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from .._command import Command
from ..model_option import add_model_options
from ..server_run import run_server
from ..terminal import EXIT_USAGE

if TYPE_CHECKING:
    from ...agents.protocol import Agent
    from ...models.protocol import Model

_EPILOG = """\
MODULE:ATTRIBUTE names an agent, or a factory of one, as for `helikon run`. The agent is one MCP
tool named after it, taking one string `input` and answering with the run's final output.
Over stdio (the default) the MCP client starts this command; with --http it listens for
streamable HTTP at http://HOST:PORT/mcp until Ctrl-C.

Exit status: 0 the client went away, 1 the server could not start, 2 bad arguments, 130 Ctrl-C.

  helikon mcp serve examples/triage_handoff.py:triage
  helikon mcp serve myapp.agents:assistant --http 127.0.0.1:8000 --store runs.db
"""


def _configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="mcp_command", metavar="ACTION")
    serve = actions.add_parser(
        "serve",
        help="serve an agent (MODULE:ATTRIBUTE) as an MCP tool, over stdio or streamable HTTP",
        description="Offer an agent to MCP clients as one tool: each call is one run of the agent.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.set_defaults(serve_parser=serve)  # bad arguments are reported with `mcp serve`'s usage
    serve.add_argument("target", metavar="MODULE:ATTRIBUTE", help="the agent to serve")
    serve.add_argument("--http", metavar="HOST:PORT", type=_address, help="serve streamable HTTP instead of stdio")
    serve.add_argument("--name", help="the tool's name (default: the agent's)")
    serve.add_argument("--description", help="the tool's description (default: the agent's, or its instructions')")
    serve.add_argument(
        "--store", metavar="PATH|DSN", help="record each call as a run in this store (SQLite file or postgresql://)"
    )
    add_model_options(serve)


def _address(text: str) -> tuple[str, int]:
    """``--http``'s value: ``HOST:PORT`` with a port from 0 to 65535."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"must be HOST:PORT (such as 127.0.0.1:8000), got {text!r}")
    return host.strip("[]"), int(port)


def _execute(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.mcp_command is None:
        parser.print_help()
        return EXIT_USAGE
    from ..loading import TargetError, load_agent  # the library loads when the command runs, not for --help
    from ..model_option import ModelOptionError, model_from_options

    serve_parser: argparse.ArgumentParser = args.serve_parser
    if args.store == "":
        serve_parser.error("--store needs a SQLite file path or a postgresql:// DSN, got ''")
    try:
        model = model_from_options(args.model, base_url=args.base_url, api_key_env=args.api_key_env)
        agent = load_agent(args.target, model)
    except (ModelOptionError, TargetError) as exc:
        serve_parser.error(str(exc))
    return _serve(args, agent, model)


def _serve(args: argparse.Namespace, agent: Agent[Any], model: Model | None) -> int:
    import trio

    from ...mcp import serve_mcp
    from ...stores.location import store_at

    async def serve() -> None:
        async with AsyncExitStack() as stack:
            if isinstance(model, AbstractAsyncContextManager):
                await stack.enter_async_context(model)
            store = None if args.store is None else await stack.enter_async_context(store_at(args.store))
            host, port = args.http or ("127.0.0.1", 0)
            transport: Literal["stdio", "http"] = "stdio" if args.http is None else "http"
            serving = partial(
                serve_mcp, agent, name=args.name, description=args.description, store=store, transport=transport
            )
            async with trio.open_nursery() as nursery:
                serving = partial(serving, host=host, port=port)
                url = await nursery.start(serving)
                if url is not None:
                    print(f"helikon mcp: serving {agent.name!r} at {url}", file=sys.stderr, flush=True)

    return run_server(serve, "helikon mcp")


MCP = Command(
    name="mcp",
    help="serve an agent to MCP clients (`helikon mcp serve MODULE:ATTRIBUTE`)",
    description="Model Context Protocol: `serve` offers an agent to MCP clients as one tool.",
    configure=_configure,
    execute=_execute,
)
