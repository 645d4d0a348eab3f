"""``helikon run MODULE:ATTRIBUTE "prompt"``: run any agent with a live view, or as JSON-lines events."""

from __future__ import annotations

import argparse
import sys
from functools import partial
from typing import TYPE_CHECKING

from .._command import Command
from ..model_option import PROVIDERS, add_model_options
from ..terminal import EXIT_FAILED, add_colour_options, exit_status, wants_colour

if TYPE_CHECKING:
    from ...shell.config import RunConfig

_EPILOG = f"""\
MODULE:ATTRIBUTE names an agent object, or a factory of one:
  - an agent (LlmAgent, a workflow, a swarm, a graph) runs as it is; with --model, an LlmAgent
    runs on that model instead (a workflow cannot: its agents each have their own model);
  - a factory with no parameters is called, and its agent treated as above;
  - a factory with a parameter is called with the --model model (None without --model):
    the way to run a whole multi-agent system on a model chosen here.
MODULE is importable from the current directory (myapp.agents) or a file (examples/triage.py).

--model providers: {", ".join(PROVIDERS)} (e.g. openai:gpt-5-mini; any OpenAI-compatible server
with --base-url http://127.0.0.1:8000/v1, where no key is needed).

Exit status: 0 completed, 1 failed, 2 bad arguments, 130 cancelled (Ctrl-C cancels the run cleanly;
a second Ctrl-C stops at once).

  helikon run examples/triage_handoff.py:triage "How should I start investing?"
  helikon run myapp.agents:build "Summarise my spending" --model openai:gpt-5-mini --json > run.jsonl
  helikon replay run.jsonl
"""


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="MODULE:ATTRIBUTE", help="the agent to run (see below)")
    parser.add_argument("prompt", help="the user's message")
    add_model_options(parser)
    parser.add_argument(
        "--json", action="store_true", help="print every event as one JSON line (the wire format) instead of the view"
    )
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="fail the run after this many seconds")
    parser.add_argument("--max-turns", type=int, metavar="N", help="fail the run after N model calls of one agent")
    add_colour_options(parser)


def _config(args: argparse.Namespace, parser: argparse.ArgumentParser, own: RunConfig | None) -> RunConfig | None:
    """A config from ``--timeout``/``--max-turns`` over the agent's own, or `None` to run the agent as it is."""
    if args.timeout is None and args.max_turns is None:
        return None
    from ...shell.config import RunConfig

    config = own or RunConfig()
    try:
        if args.timeout is not None:
            config = config.with_timeout(args.timeout)
        if args.max_turns is not None:
            config = config.with_max_turns(args.max_turns)
    except (TypeError, ValueError) as exc:
        parser.error(f"--{str(exc).removeprefix('RunConfig: ').replace('_', '-', 1)}")
    return config


def _execute(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    import trio  # the library loads when the command runs, not to build the parser (`helikon --help`)

    from ...shell.results import RunStartError
    from ..live import json_lines, live_view, run_live
    from ..loading import TargetError, load_agent
    from ..model_option import ModelOptionError, model_from_options

    try:
        model = model_from_options(args.model, base_url=args.base_url, api_key_env=args.api_key_env)
    except ModelOptionError as exc:
        parser.error(str(exc))
    try:
        agent = load_agent(args.target, model)
    except TargetError as exc:
        parser.error(str(exc))
    config = _config(args, parser, getattr(agent, "run_config", None))
    sink = json_lines(sys.stdout) if args.json else live_view(sys.stdout, color=wants_colour(args))
    try:
        terminal = trio.run(partial(run_live, agent, args.prompt, sink, config=config, model=model))
    except RunStartError as exc:
        print(f"helikon run: the run could not start: {exc}", file=sys.stderr)
        return EXIT_FAILED
    return exit_status(terminal)


RUN = Command(
    name="run",
    help="run an agent (MODULE:ATTRIBUTE) on a prompt, with a live view or JSON-lines events",
    description="Run any agent on one prompt and show its run live: the active agent, streamed tokens, tool calls "
    "and results, handoffs, usage and elapsed time.",
    epilog=_EPILOG,
    configure=_configure,
    execute=_execute,
)
