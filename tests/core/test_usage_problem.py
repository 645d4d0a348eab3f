"""`usage_problem`: what a model may report as one call's usage (the driver fails a turn that reports anything else)."""

from __future__ import annotations

import pytest

from helikon_fc.core import Usage, usage_problem


def test_counts_of_at_least_zero_are_fine() -> None:
    assert usage_problem(Usage()) is None
    assert usage_problem(Usage(input_tokens=12, output_tokens=3, cached_input_tokens=4, reasoning_tokens=1)) is None


@pytest.mark.parametrize("field", ["input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens"])
@pytest.mark.parametrize("value", [-1, 2.0, "3", True, None])
def test_each_token_count_must_be_an_int_of_at_least_zero(field: str, value: object) -> None:
    problem = usage_problem(Usage(**{field: value}))  # type: ignore[arg-type]
    assert problem == f"usage with {field}={value!r}: token counts are ints of at least 0"


def test_anything_but_a_usage_is_named() -> None:
    assert usage_problem({"input_tokens": 1}) == "usage {'input_tokens': 1}, which is not a Usage"
