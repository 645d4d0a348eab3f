"""`LlmJudge`: a model grades each run against a rubric; its prompt and answer go into the report."""

from __future__ import annotations

import json
import math
from typing import Any

import attrs
import trio

from ..agents.llm_agent import LlmAgent
from ..models.protocol import Model
from ..shell.loop.completion import run_to_completion
from ..shell.loop.results import RunError
from ._case import Case, Verdict
from ._observed import CaseRun

JUDGE_INSTRUCTIONS = (
    "You grade an AI assistant's answer against a rubric. Read the rubric, the user's input and the answer. "
    'Reply with one JSON object and nothing else: {"score": <a number from 0 to 1>, "reason": "<one sentence>"}.'
)
"""The judge's instructions (its system prompt)."""


def _model(_: object, __: object, value: Any) -> None:
    if not callable(getattr(value, "stream", None)) or isinstance(value, type):
        raise TypeError(f"LlmJudge: model must be a Model (an object with a stream method), got {value!r}")


@attrs.frozen(kw_only=True)
class LlmJudge:
    """Ask `model` to score each run against `rubric`; pass at `threshold` or above.

    The judge runs as an `LlmAgent` named ``judge`` with `JUDGE_INSTRUCTIONS`; its message holds the rubric,
    the case's input, its expected output if any, and the run's output. It must answer
    ``{"score": 0..1, "reason": "..."}``; any other answer, or a failed judge run, fails the evaluator with
    the reason. The verdict's `detail` is the whole prompt and the judge's raw answer, shown in the report.

    Attributes:
        model: any `Model` (a real one, or a `ScriptedModel`/`FunctionModel` in tests).
        rubric: what a good answer is, in words.
        threshold: the lowest passing score.
        name: the report's column.
    """

    model: Model = attrs.field(validator=_model)
    rubric: str
    threshold: float = 0.5
    name: str = "judge"

    def prompt(self, case: Case, run: CaseRun) -> str:
        """The user message the judge reads for `run` of `case`."""
        parts = [f"Rubric:\n{self.rubric}", f"User input:\n{case.input}"]
        if case.expected_output is not None:
            parts.append(f"Expected output:\n{case.expected_output}")
        parts.append(f"Answer to grade:\n{run.output or ''}")
        return "\n\n".join(parts)

    async def evaluate(self, case: Case, run: CaseRun) -> Verdict:
        """Run the judge on the prompt and read its score; a judge that fails or answers badly fails the run."""
        await trio.lowlevel.checkpoint()
        prompt = self.prompt(case, run)
        shown = f"instructions:\n{JUDGE_INSTRUCTIONS}\n\nprompt:\n{prompt}"
        judge: LlmAgent[None] = LlmAgent(name="judge", model=self.model, instructions=JUDGE_INSTRUCTIONS)
        try:
            answer = (await run_to_completion(judge, prompt)).final_output
        except RunError as exc:
            return Verdict.of(False, f"the judge's run failed: {exc}", shown)
        detail = f"{shown}\n\nanswer:\n{answer}"
        read = _read(answer)
        if isinstance(read, str):
            return Verdict.of(False, read, detail)
        score, reason = read
        return Verdict(score=score, passed=score >= self.threshold, reason=reason, detail=detail)


def _read(answer: str) -> tuple[float, str] | str:
    """The judge's ``(score, reason)``, or what is wrong with its answer."""
    text = answer.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        value = json.loads(text)
    except ValueError:
        return f"the judge did not answer JSON: {answer[:80]!r}"
    score = value.get("score") if isinstance(value, dict) else None
    reason = value.get("reason", "") if isinstance(value, dict) else ""
    if isinstance(score, bool) or not isinstance(score, int | float) or math.isnan(score) or not 0 <= score <= 1:
        return f'the judge\'s answer has no "score" from 0 to 1: {answer[:80]!r}'
    return float(score), f"judge: {reason}" if isinstance(reason, str) else f"judge: {reason!r}"
