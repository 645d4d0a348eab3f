"""``helikon eval DATASET --agent MODULE:ATTRIBUTE``: score an agent on a dataset; table, JSON and HTML reports."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from .._command import Command
from ..model_option import PROVIDERS, add_model_options
from ..terminal import EXIT_COMPLETED, EXIT_FAILED

if TYPE_CHECKING:
    from ...evals import Dataset, EvalReport

_EPILOG = f"""\
DATASET is a JSONL file, one case per line (see docs/evals.md):
  {{"name": "dining", "input": "How is my dining budget?", "expected_calls": [{{"name": "get_budget"}}],
   "evaluators": [{{"contains": "$88"}}]}}
or MODULE:ATTRIBUTE naming a helikon_fc.evals.Dataset (or a function returning one), for evaluators
written in Python (an LLM judge, your own functions).

--agent names the agent as `helikon run` takes it (an agent, or a factory; --model gives it a real model;
providers: {", ".join(PROVIDERS)}).

Exit status: 0 every case passed and nothing regressed against --baseline; 1 a case failed (its pass rate
is below --min-pass-rate) or a score regressed; 2 bad arguments (a dataset, agent or baseline that cannot
be read, with the reason).

  helikon eval examples/evals/finance.jsonl --agent examples/evals/finance_agents.py:build --virtual-time
  helikon eval cases.jsonl --agent myapp.agents:build --model openai:gpt-5-mini --repeat 3 \\
      --json report.json --html report.html --store evals.db
  helikon eval cases.jsonl --agent myapp.agents:build --baseline report.json
"""


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", metavar="DATASET", help="a JSONL file of cases, or MODULE:ATTRIBUTE of a Dataset")
    parser.add_argument("--agent", required=True, metavar="MODULE:ATTRIBUTE", help="the agent to evaluate")
    add_model_options(parser)
    parser.add_argument("--repeat", type=_count("--repeat"), default=1, metavar="N", help="run each case N times")
    parser.add_argument(
        "--concurrency", type=_count("--concurrency"), default=4, metavar="N", help="runs at once (default 4)"
    )
    parser.add_argument("--timeout", type=_seconds, default=60.0, metavar="SECONDS", help="per run (default 60)")
    parser.add_argument(
        "--min-pass-rate", type=_rate, default=1.0, metavar="R", help="share of a case's runs that must pass (1)"
    )
    parser.add_argument("--json", metavar="OUT", help="write the report as JSON (a later --baseline)")
    parser.add_argument("--html", metavar="OUT", help="write the report as one self-contained HTML page")
    parser.add_argument("--baseline", metavar="PREVIOUS", help="a previous --json report: flag regressions")
    parser.add_argument(
        "--store", metavar="PATH|DSN", help="record every run there (inspect one with `helikon runs show`)"
    )
    parser.add_argument(
        "--virtual-time",
        action="store_true",
        help="run under a virtual clock, for agents on the simulator or recordings (never for real models)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def _count(option: str) -> Any:
    def parse(text: str) -> int:
        if not text.strip().isdigit() or int(text) < 1:
            raise argparse.ArgumentTypeError(f"must be a whole number from 1 up, got {text!r}")
        return int(text)

    parse.__name__ = option
    return parse


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds (such as 30 or 2.5), got {text!r}")
    return seconds


def _rate(text: str) -> float:
    try:
        rate = float(text)
    except ValueError:
        rate = float("nan")
    if not 0 <= rate <= 1:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1 (such as 0.8), got {text!r}")
    return rate


def _execute(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from ...evals import DatasetError, ReportFormatError, report_from_json
    from ..loading import TargetError, load_agent
    from ..model_option import ModelOptionError, model_from_options

    for option, path in (("--json", args.json), ("--html", args.html)):
        folder = os.path.dirname(path) if path is not None else ""
        if folder and not os.path.isdir(folder):  # found now, not after the whole eval has run
            parser.error(f"{option} {path}: the folder {folder!r} does not exist")
    try:
        dataset = _dataset(args.dataset)
    except (DatasetError, TargetError) as exc:
        parser.error(f"DATASET: {exc}")
    baseline = None
    if args.baseline is not None:
        try:
            with open(args.baseline, encoding="utf-8") as file:
                baseline = report_from_json(file.read())
        except (OSError, ReportFormatError) as exc:
            parser.error(f"--baseline {args.baseline}: {exc}")
    try:
        model = model_from_options(args.model, base_url=args.base_url, api_key_env=args.api_key_env)
        agent = load_agent(args.agent, model)
    except (ModelOptionError, TargetError) as exc:
        parser.error(f"--agent {args.agent}: {exc}" if isinstance(exc, TargetError) else str(exc))
    report = _run(args, agent, dataset)
    if report is None:
        return EXIT_FAILED
    if baseline is not None:
        report = report.with_baseline(baseline)
    return _write(args, report)


def _dataset(spec: str) -> Dataset:
    """The dataset `spec` names: a JSONL file, or ``MODULE:ATTRIBUTE`` of a `Dataset` (or a function returning one)."""
    from ...evals import Dataset, DatasetError, load_dataset
    from ..loading import TargetError, _import  # the module finder `helikon run` uses for MODULE:ATTRIBUTE

    if os.path.exists(spec) or ":" not in spec or spec.endswith((".jsonl", ".json")):
        return load_dataset(spec)
    module, _, attribute = spec.rpartition(":")
    value: object = _import(module)
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise TargetError(f"{module} has no attribute {attribute!r}")
        value = getattr(value, part)
    if callable(value) and not isinstance(value, Dataset):
        try:
            value = value()
        except Exception as exc:  # the user's factory: say what went wrong, never a traceback
            raise TargetError(f"{spec} raised {type(exc).__name__}: {exc}") from None
    if not isinstance(value, Dataset):
        raise DatasetError(f"{spec} is {type(value).__name__}, not a helikon_fc.evals.Dataset")
    return value


def _run(args: argparse.Namespace, agent: Any, dataset: Dataset) -> EvalReport | None:
    """The report, or `None` (after one line on stderr) when the store cannot be opened or written."""
    from ...evals import run_eval_sync
    from ...shell.durable.storage import StoreError

    try:
        return run_eval_sync(
            agent,
            dataset,
            virtual_time=args.virtual_time,
            repeat=args.repeat,
            concurrency=args.concurrency,
            timeout=args.timeout,
            min_pass_rate=args.min_pass_rate,
            store=args.store,
            progress=None if args.quiet else sys.stderr,
        )
    except StoreError as exc:
        print(f"helikon eval: --store {args.store}: {exc}", file=sys.stderr)
        return None


def _write(args: argparse.Namespace, report: EvalReport) -> int:
    from ...evals import format_html, format_table, report_to_json

    sys.stdout.write(format_table(report))
    for path, text in ((args.json, report_to_json), (args.html, format_html)):
        if path is not None:
            try:
                with open(path, "w", encoding="utf-8") as file:
                    file.write(text(report))
            except OSError as exc:
                print(f"helikon eval: cannot write {path}: {exc}", file=sys.stderr)
                return EXIT_FAILED
    return EXIT_COMPLETED if report.passed else EXIT_FAILED


EVAL = Command(
    name="eval",
    help="score an agent on a dataset of cases (JSONL): a table, and JSON/HTML reports; flag regressions",
    description="Run an agent on every case of a dataset (concurrently, --repeat times), score each run with the "
    "dataset's evaluators, and report per case and evaluator; against a --baseline report, flag what regressed.",
    epilog=_EPILOG,
    configure=_configure,
    execute=_execute,
)
