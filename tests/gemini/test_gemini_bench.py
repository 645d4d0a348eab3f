"""The Gemini S9 bench in miniature: the three ways (raw HTTP, the model, the agent) each stream the whole
answer from the bench's server and are timed. Nothing about time is asserted (machines are shared and noisy)."""

from __future__ import annotations

from bench.gemini_s9 import measure, serving, summary

from bench import http_fixture


async def test_every_way_streams_the_whole_answer_and_is_timed() -> None:
    """Each way's calls streamed exactly the bench's text (`Timings.done` checks it) and were timed."""
    with serving() as base_url:
        result = await measure(base_url, http_fixture.WARMUP + 2)
    assert sorted(result) == ["agent", "model", "raw"]
    for timings in result.values():
        ttft, total = timings["ttft_ms"], timings["total_ms"]
        assert isinstance(ttft, list) and isinstance(total, list) and len(ttft) == len(total) == 2
        assert all(0 < first <= whole for first, whole in zip(ttft, total, strict=True))
    report = summary(result)
    assert isinstance(report["within_target"], bool)
