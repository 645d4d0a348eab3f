"""Why a compaction is skipped: the reasons a `CompactionSkipped` event (and a session's warning) carries."""

from __future__ import annotations

from helikon_fc.core import BLANK_SUMMARY, failed_summary


def test_a_failed_summary_call_is_named_with_its_error() -> None:
    """The reason quotes the summary call's error after a fixed prefix, so a user can tell it from a blank summary."""
    assert failed_summary(ValueError("boom")) == "the summary call failed: boom"
    assert failed_summary("timed out") == "the summary call failed: timed out"
    assert failed_summary("x") != BLANK_SUMMARY
