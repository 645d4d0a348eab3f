"""``helikon demo``: the finance scenarios on the simulator, rendered live."""

from __future__ import annotations

import argparse
import sys

from .._command import Command
from ..model_option import add_model_options
from ..terminal import add_colour_options, wants_colour

SCENARIO_KEYS = ("triage", "swarm", "graph", "pipeline", "parallel", "typed", "resume", "cancel")
"""The demo's scenario keys, in running order, for the parser (``cli.demo.scenario_keys()`` builds them from the
scenarios themselves, which imports the whole library; a test keeps the two equal)."""


def _configure(parser: argparse.ArgumentParser) -> None:
    pace = parser.add_mutually_exclusive_group()
    pace.add_argument("--fast", action="store_true", help="virtual time: finish instantly (default when not a TTY)")
    pace.add_argument("--real-time", action="store_true", help="play latencies and token pacing in real time")
    add_colour_options(parser)
    add_model_options(parser)
    parser.add_argument(
        "scenarios",
        nargs="*",
        metavar="SCENARIO",
        help=f"which scenarios to run: {', '.join(SCENARIO_KEYS)} (default: all)",
    )


def _execute(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from ..demo import run_demo  # the library (and trio.testing's MockClock) loads when the demo runs
    from ..model_option import ModelOptionError, model_from_options

    keys = SCENARIO_KEYS
    unknown = [key for key in args.scenarios if key not in keys]
    if unknown:
        parser.error(f"unknown scenario {unknown[0]!r}; choose from {', '.join(keys)}")
    try:
        model = model_from_options(args.model, base_url=args.base_url, api_key_env=args.api_key_env)
    except ModelOptionError as exc:
        parser.error(str(exc))
    fast = args.fast or (not args.real_time and not sys.stdout.isatty())
    return run_demo(sys.stdout, color=wants_colour(args), fast=fast, only=args.scenarios, model=model)


DEMO = Command(
    name="demo",
    help="run the multi-agent finance demo on the simulator (no key, no network)",
    description=(
        "Run personal-finance agent systems (handoffs, a swarm, a graph, a pipeline, parallel branches, "
        "a typed answer with its repair, a cancelled run) on the simulator and render their event streams live."
    ),
    configure=_configure,
    execute=_execute,
)
