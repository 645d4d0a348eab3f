"""One module per library; each runs one scenario per process: ``python -m bench.scenarios.<lib> S2 [--quick]``.

A module defines ``SCENARIOS`` (scenario id -> function of `Options` returning a JSON-able dict) and
calls `main(SCENARIOS)` under ``if __name__ == "__main__"``. The result is printed as the last line of
stdout, as JSON; the runner reads it from there.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..measure import Budget


@dataclass(frozen=True)
class Options:
    """What every scenario function receives."""

    quick: bool
    budget: Budget


Scenario = Callable[[Options], dict[str, object]]


def main(scenarios: Mapping[str, Scenario]) -> None:
    """Run the scenario named on the command line and print its result as one JSON line."""
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=sorted(scenarios))
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    options = Options(quick=args.quick, budget=Budget.for_mode(args.quick))
    result = scenarios[args.scenario](options)
    sys.stdout.write("\n" + json.dumps(result) + "\n")
    sys.stdout.flush()


class ScriptError(AssertionError):
    """A library did not follow the shared script (wrong turn count, tool count or answer)."""


def check(condition: bool, message: str) -> None:
    """Fail loudly when a run did not follow the script: a wrong run must never be timed."""
    if not condition:
        raise ScriptError(message)
