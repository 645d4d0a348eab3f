"""The ``helikon`` command line (also ``python -m helikon_fc``).

``helikon demo`` runs the seed's personal-finance examples — triage with handoffs, the support
swarm, the spending/income graph and a research-then-write pipeline — on the deterministic
simulator (no API key, no network) and renders each event stream live in the terminal.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .demo import run_demo, scenario_keys
from .runs import add_runs_parser, run_runs

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="helikon", description="helikon_fc: typed LLM agents on trio.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser(
        "demo",
        help="run the multi-agent finance demo on the simulator (no key, no network)",
        description="Run the seed's finance examples on the simulator and render their event streams live.",
    )
    pace = demo.add_mutually_exclusive_group()
    pace.add_argument("--fast", action="store_true", help="virtual time: finish instantly (default when not a TTY)")
    pace.add_argument("--real-time", action="store_true", help="play latencies and token pacing in real time")
    colour = demo.add_mutually_exclusive_group()
    colour.add_argument("--color", action="store_true", help="ANSI colour even when stdout is not a TTY")
    colour.add_argument("--no-color", action="store_true", help="no colour (also: the NO_COLOR variable)")
    demo.add_argument(
        "scenarios",
        nargs="*",
        choices=[*scenario_keys(), []],
        metavar="SCENARIO",
        help=f"which scenarios to run: {', '.join(scenario_keys())} (default: all)",
    )
    add_runs_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``helikon`` command; returns the exit status.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).
    """
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "runs":
        return run_runs(args, sys.stdout, sys.stderr)
    if args.command != "demo":
        parser.print_help()
        return 2
    tty = sys.stdout.isatty()
    color = args.color or (tty and not args.no_color and not os.environ.get("NO_COLOR"))
    fast = args.fast or (not args.real_time and not tty)
    try:
        return run_demo(sys.stdout, color=color, fast=fast, only=args.scenarios)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`helikon demo | head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
