"""Evaluators of the final output: `ExactOutput`, `Contains`, `MatchesRegex`, `StructuredOutput`."""

from __future__ import annotations

import json
import re

import attrs

from ._case import Case, Verdict
from ._observed import CaseRun


def _shown(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


@attrs.frozen(kw_only=True)
class ExactOutput:
    """The final output equals the expected text: `expected`, or else the case's `expected_output`.

    Attributes:
        expected: the text to expect, or `None` to use each case's `expected_output` (a case without one is
            not scored).
        strip: compare with surrounding whitespace removed.
        name: the report's column.
    """

    expected: str | None = None
    strip: bool = True
    name: str = "exact"

    def applies(self, case: Case) -> bool:
        """Whether there is an expected text for `case`."""
        return self.expected is not None or case.expected_output is not None

    def evaluate(self, case: Case, run: CaseRun) -> Verdict | None:
        """Pass when the output equals the expected text."""
        expected = self.expected if self.expected is not None else case.expected_output
        if expected is None:
            return None
        output = run.output or ""
        left, right = (output.strip(), expected.strip()) if self.strip else (output, expected)
        if left == right:
            return Verdict.of(True, "the output is the expected text")
        return Verdict.of(False, f"expected {_shown(expected)}, got {_shown(output)}")


@attrs.frozen(kw_only=True)
class Contains:
    """The final output contains `text` (case-sensitive unless `ignore_case`).

    Attributes:
        text: the text to look for.
        ignore_case: compare in lower case.
        name: the report's column.
    """

    text: str
    ignore_case: bool = False
    name: str = "contains"

    def evaluate(self, case: Case, run: CaseRun) -> Verdict:
        """Pass when the output contains the text."""
        output = run.output or ""
        haystack, needle = (output.lower(), self.text.lower()) if self.ignore_case else (output, self.text)
        if needle in haystack:
            return Verdict.of(True, f"the output contains {_shown(self.text)}")
        return Verdict.of(False, f"the output does not contain {_shown(self.text)}: {_shown(output)}")


@attrs.frozen(kw_only=True)
class MatchesRegex:
    """The final output matches `pattern` somewhere (``re.search``).

    Attributes:
        pattern: a Python regular expression, compiled when the evaluator is built.
        name: the report's column.
    """

    pattern: str
    name: str = "regex"
    _compiled: re.Pattern[str] = attrs.field(init=False, repr=False, eq=False)

    @_compiled.default
    def _compile(self) -> re.Pattern[str]:
        try:
            return re.compile(self.pattern)
        except re.error as exc:
            raise ValueError(f"MatchesRegex: pattern {self.pattern!r} is not a regular expression: {exc}") from None

    def evaluate(self, case: Case, run: CaseRun) -> Verdict:
        """Pass when the pattern is found in the output."""
        output = run.output or ""
        found = self._compiled.search(output)
        if found is not None:
            return Verdict.of(True, f"/{self.pattern}/ matched {_shown(found.group(0))}")
        return Verdict.of(False, f"/{self.pattern}/ does not match {_shown(output)}")


@attrs.frozen(kw_only=True)
class StructuredOutput:
    """The final output is JSON that decodes into `output_type` (as ``collect_typed(output_type)`` would).

    Attributes:
        output_type: any type an agent's ``output_type`` can be (an attrs class, a dataclass, a TypedDict...).
        name: the report's column.
    """

    output_type: type
    name: str = "structured"

    def evaluate(self, case: Case, run: CaseRun) -> Verdict:
        """Pass when the output parses as JSON and decodes into the type; the reason lists the problems."""
        from ..shell.tools.type_schema import DecodeError, decode

        type_name = getattr(self.output_type, "__name__", repr(self.output_type))
        try:
            value = json.loads(run.output or "")
        except ValueError as exc:
            return Verdict.of(False, f"the output is not JSON ({exc}): {_shown(run.output or '')}")
        try:
            decode(self.output_type, value)
        except DecodeError as exc:
            return Verdict.of(False, f"the output is not a valid {type_name}: {exc}")
        return Verdict.of(True, f"the output is a valid {type_name}")
