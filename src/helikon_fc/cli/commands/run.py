"""``helikon run MODULE:ATTRIBUTE "prompt"``: run any agent with a live view, or as JSON-lines events."""

from __future__ import annotations

import argparse
import math
import sys
import uuid
from functools import partial
from typing import TYPE_CHECKING, Any

from .._command import Command
from ..model_option import PROVIDERS, add_model_options
from ..terminal import EXIT_FAILED, add_colour_options, exit_status, wants_colour

if TYPE_CHECKING:
    from ...agents.protocol import Agent
    from ...models.protocol import Model
    from ...shell.context.config import RunConfig
    from ..live import Recording

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

Exit status: 0 completed, 1 failed, 2 bad arguments, 3 paused for approval, 130 cancelled
(Ctrl-C cancels the run cleanly; a second Ctrl-C stops at once).

  helikon run examples/triage_handoff.py:triage "How should I start investing?"
  helikon run myapp.agents:build "Summarise my spending" --model openai:gpt-5-mini --json > run.jsonl
  helikon replay run.jsonl
"""


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="MODULE:ATTRIBUTE", help="the agent to run (see below)")
    parser.add_argument("prompt", nargs="?", help="the user's message (none with --resume)")
    durable = parser.add_argument_group("durable runs (see docs/durability.md)")
    durable.add_argument(
        "--store",
        metavar="PATH|DSN",
        help="record the run in this store (a SQLite file or a postgresql:// DSN); its run id goes to stderr",
    )
    durable.add_argument(
        "--resume", metavar="RUN_ID", help="continue the run recorded under RUN_ID in --store from its last step"
    )
    durable.add_argument(
        "--session", metavar="ID", help="keep the conversation in the store's session ID: each run continues it"
    )
    add_model_options(parser)
    parser.add_argument(
        "--json", action="store_true", help="print every event as one JSON line (the wire format) instead of the view"
    )
    parser.add_argument("--timeout", type=_seconds, metavar="SECONDS", help="fail the run after this many seconds")
    parser.add_argument("--max-turns", type=_turns, metavar="N", help="fail the run after N model calls of one agent")
    add_colour_options(parser)


def _seconds(text: str) -> float:
    """``--timeout``'s value: a positive number of seconds (said in command-line words, not Python's)."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not seconds > 0:  # NaN too
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds (such as 30 or 2.5), got {text!r}")
    return seconds


def _turns(text: str) -> int:
    """``--max-turns``' value: a whole number of model calls, 0 or more."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"must be a whole number of model calls (such as 8), got {text!r}")
    return int(text)


def _config(args: argparse.Namespace, parser: argparse.ArgumentParser, own: RunConfig | None) -> RunConfig | None:
    """A config from ``--timeout``/``--max-turns`` over the agent's own, or `None` to run the agent as it is."""
    if args.timeout is None and args.max_turns is None:
        return None
    from ...shell.context.config import RunConfig

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
    from ..loading import TargetError, load_agent  # the library loads when the command runs, not for --help
    from ..model_option import ModelOptionError, model_from_options

    _check_durable_options(args, parser)
    try:
        model = model_from_options(args.model, base_url=args.base_url, api_key_env=args.api_key_env)
    except ModelOptionError as exc:
        parser.error(str(exc))
    try:
        agent = load_agent(args.target, model)
    except TargetError as exc:
        parser.error(str(exc))
    config = _config(args, parser, getattr(agent, "run_config", None))
    return _run(args, agent, config, model)


def _run(args: argparse.Namespace, agent: Agent[Any], config: RunConfig | None, model: Model | None) -> int:
    """Run the loaded agent with the view or JSON lines; the exit status (1 with a one-line message on stderr
    when the run cannot start, the store cannot be read, or the resumed run is not there or not this agent's)."""
    import trio

    from ...shell.durable.run_log import IncompatibleRunError
    from ...shell.durable.storage import RunNotFound, StoreError
    from ...shell.loop.results import RunStartError
    from ..live import json_lines, live_view, run_live

    recording = _recording(args)
    if recording is not None and recording.run_id is not None:
        print(f"helikon run: recording run {recording.run_id} in {args.store}", file=sys.stderr, flush=True)
    sink = json_lines(sys.stdout) if args.json else live_view(sys.stdout, color=wants_colour(args))
    run = partial(run_live, agent, args.prompt or "", sink, config=config, model=model, recording=recording)
    try:
        terminal = trio.run(run)
    except RunStartError as exc:
        print(f"helikon run: the run could not start: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except RunNotFound:
        print(f"helikon run: no run {args.resume!r} is recorded in {args.store!r}", file=sys.stderr)
        return EXIT_FAILED
    except (StoreError, IncompatibleRunError) as exc:
        print(f"helikon run: {exc}", file=sys.stderr)
        return EXIT_FAILED
    return exit_status(terminal)


def _check_durable_options(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Refuse combinations of the prompt, ``--store``, ``--resume`` and ``--session`` that mean nothing."""
    if args.store == "":
        parser.error("--store needs a SQLite file path or a postgresql:// DSN, got ''")
    if args.store is None:
        for option in ("resume", "session"):
            if getattr(args, option) is not None:
                parser.error(f"--{option} needs --store PATH|DSN: the store the runs are recorded in")
    if args.resume is not None:
        if args.prompt is not None:
            parser.error("--resume continues a recorded run with its recorded input: give no prompt")
        if args.session is not None:
            parser.error("--resume continues a recorded run in its own session: drop --session")
    elif args.prompt is None:
        parser.error("the following arguments are required: prompt (or --resume RUN_ID --store PATH)")


def _recording(args: argparse.Namespace) -> Recording | None:
    """What ``--store``/``--session``/``--resume`` ask for (a new run gets a fresh id), or `None` without a store."""
    if args.store is None:
        return None
    from ..live import Recording

    run_id = None if args.resume is not None else str(uuid.uuid4())
    return Recording(store=args.store, run_id=run_id, session=args.session, resume=args.resume)


RUN = Command(
    name="run",
    help="run an agent (MODULE:ATTRIBUTE) on a prompt, with a live view or JSON-lines events",
    description="Run any agent on one prompt and show its run live: the active agent, streamed tokens, tool calls "
    "and results, handoffs, usage and elapsed time.",
    epilog=_EPILOG,
    configure=_configure,
    execute=_execute,
)
