"""Law: `transition` is a pure function — equal arguments give equal outcomes, arguments are left as they were,
and no IO, clock or randomness is touched."""

from __future__ import annotations

import contextlib
import copy
import random
import socket
import time
from collections.abc import Iterator
from unittest import mock

import attrs
from hypothesis import given, strategies as st
from properties.strategies import loop_states, model_responses, transition_ctxs, transition_inputs

from helikon_fc.core import (
    Conversation,
    LoopState,
    Start,
    TransitionCtx,
    TransitionInput,
    initial_state,
    to_json,
    transition,
)

STATES = loop_states()
INPUTS = transition_inputs()
CTXS = transition_ctxs()


def _forbidden(*args: object, **kwargs: object) -> None:
    raise AssertionError("transition touched IO, the clock or randomness")


@contextlib.contextmanager
def no_io() -> Iterator[None]:
    """Make sockets, files, clocks and random numbers raise while the block runs."""
    targets = [
        (socket, "socket"),
        (socket, "create_connection"),
        (__import__("builtins"), "open"),
        (__import__("io"), "open"),
        (__import__("os"), "open"),
        (time, "time"),
        (time, "monotonic"),
        (time, "perf_counter"),
        (time, "sleep"),
        (random, "random"),
        (random, "getrandbits"),
    ]
    with contextlib.ExitStack() as stack:
        for owner, name in targets:
            stack.enter_context(mock.patch.object(owner, name, _forbidden))
        yield


@given(state=STATES, given_input=INPUTS, ctx=CTXS)
def test_equal_arguments_give_equal_outcomes(
    state: LoopState, given_input: TransitionInput, ctx: TransitionCtx
) -> None:
    """For any state, input and context, calling transition twice gives equal outcomes."""
    assert transition(state, given_input, ctx) == transition(state, given_input, ctx)


@given(state=STATES, given_input=INPUTS, ctx=CTXS)
def test_arguments_are_not_mutated(state: LoopState, given_input: TransitionInput, ctx: TransitionCtx) -> None:
    """transition leaves its state, input and context (the conversation included) exactly as they were."""
    before = (to_json(state), to_json(given_input), to_json(ctx), list(ctx.conversation), len(ctx.conversation))
    transition(state, given_input, ctx)
    after = (to_json(state), to_json(given_input), to_json(ctx), list(ctx.conversation), len(ctx.conversation))
    assert after == before


@given(state=STATES, given_input=INPUTS, ctx=CTXS)
def test_no_io_clock_or_randomness(state: LoopState, given_input: TransitionInput, ctx: TransitionCtx) -> None:
    """transition completes with sockets, files, clocks and random numbers all made to raise."""
    expected = transition(state, given_input, ctx)
    with no_io():
        outcome = transition(state, given_input, ctx)
    assert outcome == expected


def _vandalize(value: object, seen: set[int]) -> None:
    """Change every mutable container reachable from `value`: add a key to each dict, an item to each list."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, dict):
        for inner in list(value.values()):
            _vandalize(inner, seen)
        value["vandalized"] = True
    elif isinstance(value, list):
        for inner in list(value):
            _vandalize(inner, seen)
        value.append("vandalized")
    elif isinstance(value, tuple | Conversation):  # a Conversation's log is append-only: vandalize its items
        for inner in value:
            _vandalize(inner, seen)
    elif attrs.has(type(value)):
        for field in getattr(value, "__attrs_attrs__", ()):
            _vandalize(getattr(value, field.name), seen)


@given(state=STATES, given_input=INPUTS, ctx=CTXS)
def test_outcomes_share_no_mutable_state(state: LoopState, given_input: TransitionInput, ctx: TransitionCtx) -> None:
    """Mutating anything a transition returned never changes the outcome of the next call on equal arguments."""
    expected = to_json(transition(state, given_input, ctx))
    copies = copy.deepcopy((state, given_input, ctx))
    _vandalize(transition(*copies), set())
    assert to_json(transition(state, given_input, ctx)) == expected


@given(ctx=CTXS, given_input=st.just(Start()) | model_responses())
def test_requests_share_no_mutable_state(given_input: TransitionInput, ctx: TransitionCtx) -> None:
    """Mutating the request a fresh run asks for never changes the request the next equal run asks for."""
    expected = to_json(transition(initial_state(), given_input, ctx))
    copies = copy.deepcopy((initial_state(), given_input, ctx))
    _vandalize(transition(*copies), set())
    assert to_json(transition(initial_state(), given_input, ctx)) == expected
