"""Evals: score an agent on a dataset of cases, repeatably, and see what changed since last time.

- Datasets: `Case`, `Dataset`, `ExpectedCall`; `load_dataset` reads one case per JSONL line.
- Evaluators (each gives a `Verdict`: score 0..1, passed, reason): `ExactOutput`, `Contains`, `MatchesRegex`,
  `StructuredOutput`, `ToolTrajectory`, `HandoffPath`, `UsageBudget`, `CostBudget`, `LlmJudge`, `UserFunction`;
  any object with a `name` and an ``evaluate(case, run)`` is an `Evaluator`.
- Running: `run_eval` (async) and `run_eval_sync` (optionally in virtual time): cases concurrently, `repeat`
  times, a timeout per run, failures counted against their case, every run recorded in a store.
- Reports: `EvalReport`; `format_table`, `format_html`, `report_to_json` / `report_from_json`;
  ``report.with_baseline(previous)`` lists regressions and improvements.
- Tests: `assert_report`, `assert_dataset`.

See ``docs/evals.md``; ``helikon eval`` is the command line.
"""

from ._assertions import assert_dataset as assert_dataset, assert_report as assert_report
from ._budget_checks import CostBudget as CostBudget, UsageBudget as UsageBudget
from ._case import (
    ArgumentsCheck as ArgumentsCheck,
    CallsMatch as CallsMatch,
    Case as Case,
    Dataset as Dataset,
    Evaluator as Evaluator,
    ExpectedCall as ExpectedCall,
    Verdict as Verdict,
)
from ._codec import (
    ReportFormatError as ReportFormatError,
    report_from_json as report_from_json,
    report_to_json as report_to_json,
)
from ._function_check import ScoreFunction as ScoreFunction, UserFunction as UserFunction
from ._html import format_html as format_html
from ._judge import JUDGE_INSTRUCTIONS as JUDGE_INSTRUCTIONS, LlmJudge as LlmJudge
from ._loading import DatasetError as DatasetError, load_dataset as load_dataset
from ._observed import CaseRun as CaseRun, ObservedCall as ObservedCall
from ._output_checks import (
    Contains as Contains,
    ExactOutput as ExactOutput,
    MatchesRegex as MatchesRegex,
    StructuredOutput as StructuredOutput,
)
from ._report import (
    CaseReport as CaseReport,
    Change as Change,
    EvalReport as EvalReport,
    EvaluatorResult as EvaluatorResult,
    Repetition as Repetition,
    compare as compare,
)
from ._runner import run_eval as run_eval, run_eval_sync as run_eval_sync
from ._running import AgentSource as AgentSource, ContextFactory as ContextFactory
from ._table import format_table as format_table
from ._trajectory_checks import HandoffPath as HandoffPath, ToolTrajectory as ToolTrajectory

__all__ = [
    "AgentSource",
    "ArgumentsCheck",
    "CallsMatch",
    "Case",
    "CaseReport",
    "CaseRun",
    "Change",
    "Contains",
    "ContextFactory",
    "CostBudget",
    "Dataset",
    "DatasetError",
    "EvalReport",
    "Evaluator",
    "EvaluatorResult",
    "ExactOutput",
    "ExpectedCall",
    "HandoffPath",
    "JUDGE_INSTRUCTIONS",
    "LlmJudge",
    "MatchesRegex",
    "ObservedCall",
    "Repetition",
    "ReportFormatError",
    "ScoreFunction",
    "StructuredOutput",
    "ToolTrajectory",
    "UsageBudget",
    "UserFunction",
    "Verdict",
    "assert_dataset",
    "assert_report",
    "compare",
    "format_html",
    "format_table",
    "load_dataset",
    "report_from_json",
    "report_to_json",
    "run_eval",
    "run_eval_sync",
]
