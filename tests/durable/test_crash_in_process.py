"""The crash scenario stopped dead after each record write in turn, then resumed: it ends as the uninterrupted run.

In process, "dead" is the cancellation of the whole run right after the write (see `CrashingStore`);
the subprocess tests (`test_crash_subprocess.py`) do the same with SIGKILL.
"""

from __future__ import annotations

from collections import Counter

import pytest
from tests.durable.harness import (
    Outcome,
    crash_after,
    finished_calls,
    logs,
    run_once,
    usage_of,
    without_announcements,
)

from helikon_fc.core import MessageOutput
from helikon_fc.stores import MemoryStore


async def _baseline() -> tuple[Outcome, dict[str, list[object]], int]:
    store = MemoryStore()
    outcome = await run_once(store, resume=False)
    log = await logs(store)
    counting = MemoryStore()
    _, writes = await crash_after(counting, 10**9)
    return outcome, log, writes  # type: ignore[return-value]


def _final_text(outcome: Outcome) -> str:
    texts = [event.item.text for event in outcome.events if isinstance(event, MessageOutput)]
    return texts[-1] if texts else ""


@pytest.mark.parametrize("replay", [False, True])
async def test_a_crash_after_any_write_resumes_to_the_uninterrupted_end(replay: bool, autojump_clock: object) -> None:
    """After a crash at each write in turn, the resumed run has the same result, usage, record logs and
    effects; no recorded tool call runs again; nothing delivered is lost."""
    baseline, baseline_log, writes = await _baseline()
    assert writes > 30
    for after in range(1, writes):
        store = MemoryStore()
        first, _ = await crash_after(store, after)
        recorded = finished_calls(await logs(store))
        second = await run_once(store, resume=True, replay=replay)
        assert second.terminal == baseline.terminal, after
        assert usage_of(second) == usage_of(baseline)
        assert await logs(store) == baseline_log, after
        effects = Counter((run_id, call_id) for run_id, call_id, _ in first.effects + second.effects)
        assert set(effects) == {(run_id, call_id) for run_id, call_id, _ in baseline.effects}, after
        for key in recorded & set(effects):
            assert effects[key] == 1, (after, key)
        expected = Counter(without_announcements(baseline.events))
        if replay:
            assert Counter(without_announcements(second.events)) == expected, after
            assert _final_text(second) == _final_text(baseline)
        else:  # only what was not recorded before the crash (and the crash's seam) comes again
            fresh = Counter(without_announcements(second.events))
            assert not fresh - expected, (after, fresh - expected)
