"""`python -m bench.anthropic_s9`: the three ways of streaming one message are timed against one server, and tabled."""

from __future__ import annotations

from bench.anthropic_s9 import WAYS, measure, render, serving


async def test_each_way_streams_the_whole_text_and_gets_timed() -> None:
    """One measured call per way (after the warm-up): each streamed the fixture's text, with TTFT before the end."""
    with serving() as base_url:
        timings = await measure(base_url, 1)
    assert list(timings) == list(WAYS)
    for figures in timings.values():
        assert len(figures["ttft"]) == len(figures["total"]) == 1
        assert 0 < figures["ttft"][0] <= figures["total"][0]


def test_render_shows_each_way_against_the_raw_sdk() -> None:
    """One row per way; the raw SDK is the reference, the others are judged against the 1 ms target."""
    timings = {
        "raw SDK": {"ttft": [10.0], "total": [20.0]},
        "AnthropicModel": {"ttft": [10.5], "total": [20.2]},
        "agent": {"ttft": [12.0], "total": [20.5]},
    }
    lines = render(timings).splitlines()
    assert lines[2] == "| raw SDK | 1 | 10.00 | 20.00 | +0.00 | +0.00 | - |"
    assert lines[3].endswith("| +0.50 | +0.20 | yes |")
    assert lines[4].endswith("| +2.00 | +0.50 | no |")
