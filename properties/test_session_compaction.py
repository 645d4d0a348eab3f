"""Laws of a compacting session's pure parts: a rebased marker hides nothing appended while its summary was
written; the report of a splice tells the view's tokens before and after; a session compacting after every
append keeps every item in its log and chains its summaries."""

from __future__ import annotations

from hypothesis import given, strategies as st
from properties.strategies import compaction_policies, conversations, items, texts

from helikon_fc.core import (
    Compacted,
    CompactionPolicy,
    Conversation,
    Item,
    SystemMessage,
    UserMessage,
    compaction_report,
    estimate_tokens,
    plan_compaction,
    rebase,
    splice,
    summary_request,
    visible,
)

LOGS = conversations(items()).flatmap(lambda c: st.lists(items(), max_size=12).map(c.extend))
LATER = st.lists(items(), max_size=6).map(tuple)


def _without_markers(log: tuple[Item, ...] | Conversation) -> list[Item]:
    return [item for item in log if not isinstance(item, Compacted)]


@given(log=LOGS, policy=compaction_policies(), summary=texts(), later=LATER)
def test_a_rebased_marker_shows_what_was_appended_meanwhile(
    log: Conversation, policy: CompactionPolicy, summary: str, later: tuple[Item, ...]
) -> None:
    """A marker planned on `log` and appended after `later` shows the planned view, then `later` (its markers aside)."""
    plan = plan_compaction(log, policy)
    marker = splice(plan, summary, policy) if plan is not None else None
    if plan is None or marker is None:
        return
    planned = list(visible(log.extend((marker,))))
    moved = rebase(marker, later)
    assert moved.summary == marker.summary
    assert list(visible(log.extend(later).extend((moved,)))) == planned + _without_markers(later)


@given(log=LOGS, policy=compaction_policies(), summary=texts())
def test_the_report_tells_the_splice(log: Conversation, policy: CompactionPolicy, summary: str) -> None:
    """The report names the summary, how many view items it replaced, and the view's tokens before and after."""
    plan = plan_compaction(log, policy)
    marker = splice(plan, summary, policy) if plan is not None else None
    if plan is None or marker is None:
        return
    report = compaction_report(log, plan, marker)
    assert (report.summary, report.replaced) == (marker.summary, len(plan.summarised))
    assert report.tokens_before == estimate_tokens(visible(log)) > policy.max_tokens
    assert report.tokens_after == estimate_tokens(visible(log.extend((marker,))))


# A session that compacts after each append: batches of user messages long enough to pass small budgets.
BATCHES = st.lists(
    st.lists(st.text(min_size=20, max_size=80).map(UserMessage), min_size=1, max_size=3).map(tuple),
    min_size=1,
    max_size=8,
)


@given(batches=BATCHES, policy=compaction_policies(60))
def test_a_compacting_session_keeps_every_item_and_chains_its_summaries(
    batches: list[tuple[Item, ...]], policy: CompactionPolicy
) -> None:
    """Appending batches and compacting after each: the log is every batch in order (markers between); every
    summary request after the first compaction holds the latest summary; the view opens with one summary at most."""
    log = Conversation(())
    summaries: list[str] = []
    for batch in batches:
        log = log.extend(batch)
        plan = plan_compaction(log, policy)
        if plan is None:
            continue
        prompt = summary_request(plan, policy).items[-1]
        assert isinstance(prompt, UserMessage)
        if summaries:
            assert summaries[-1] in prompt.text
        marker = splice(plan, f"summary {len(summaries)}", policy)
        assert marker is not None
        summaries.append(marker.summary)
        log = log.extend((marker,))
    assert _without_markers(log) == [item for batch in batches for item in batch]
    view = visible(log)
    assert sum(isinstance(item, SystemMessage) for item in view) <= 1
    if summaries:
        assert view[0] == SystemMessage(f"Summary of the conversation so far:\n{summaries[-1]}")
