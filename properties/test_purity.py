"""Law: `transition` is a pure function — equal arguments give equal outcomes, arguments are left as they were,
and no IO, clock or randomness is touched."""

from __future__ import annotations

import contextlib
import random
import socket
import time
from collections.abc import Iterator
from unittest import mock

from hypothesis import given
from properties.strategies import loop_states, transition_ctxs, transition_inputs

from helikon_fc.core import LoopState, TransitionCtx, TransitionInput, to_json, transition

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
