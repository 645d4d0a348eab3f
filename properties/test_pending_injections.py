"""Laws of a run's pending hook injections (`PendingInjections`, shared by the trio and Temporal loops):
the next model request carries every waiting injection once, in the order given, after its own items;
a request with none waiting is left as it is."""

from __future__ import annotations

from hypothesis import given, strategies as st
from properties.strategies import model_requests, texts

from helikon_fc.core import ModelRequest, SystemMessage
from helikon_fc.engine import PendingInjections

BATCHES = st.lists(st.lists(texts(), max_size=3), max_size=3)


@given(request=model_requests(), batches=BATCHES)
def test_the_next_request_carries_each_injection_once_in_order(request: ModelRequest, batches: list[list[str]]) -> None:
    """All waiting injections, as system messages after the request's items; then none are left."""
    pending = PendingInjections()
    for batch in batches:
        pending.add(batch)
    carried = pending.onto(request)
    given_texts = [text for batch in batches for text in batch]
    own = tuple(request.items)
    assert tuple(carried.items)[: len(own)] == own
    assert tuple(carried.items)[len(own) :] == tuple(SystemMessage(text) for text in given_texts)
    assert pending.onto(request) is request


@given(request=model_requests())
def test_nothing_waiting_leaves_the_request_alone(request: ModelRequest) -> None:
    """Without injections the request is the same object (no copy per model call)."""
    assert PendingInjections().onto(request) is request
