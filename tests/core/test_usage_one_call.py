"""`one_call`: the one rule by which `transition` and the driver's meter count a model call."""

from __future__ import annotations

from helikon_fc.core import Usage
from helikon_fc.core.usage import one_call


def test_one_call_keeps_the_tokens_and_counts_exactly_one_request() -> None:
    """Every token field is kept as reported; `requests` is 1 whatever the provider said."""
    reported = Usage(
        input_tokens=7, output_tokens=3, cached_input_tokens=2, reasoning_tokens=1, requests=5, unreported_requests=0
    )
    assert one_call(reported) == Usage(
        input_tokens=7, output_tokens=3, cached_input_tokens=2, reasoning_tokens=1, requests=1
    )


def test_one_call_keeps_a_missing_usage_report_visible() -> None:
    """A call whose provider reported no usage stays counted as unreported (the field a merge once dropped)."""
    assert one_call(Usage(unreported_requests=1)) == Usage(requests=1, unreported_requests=1)
    assert not one_call(Usage(unreported_requests=1)).reported
