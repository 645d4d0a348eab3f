"""`RunContext.child(kind, segment)`: a sub-run's context of `kind`, recorded under the parent's child id `segment`."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from helikon_fc import RunContext
from helikon_fc.shell.context.run_context import ChildKind
from helikon_fc.shell.durable.run_log import Durability
from helikon_fc.stores import MemoryStore

KINDS: tuple[ChildKind, ...] = ("handoff", "workflow", "tool")


def _recorded() -> RunContext[str]:
    return attrs.evolve(RunContext.ephemeral("user"), durable=Durability(MemoryStore(), "run-1"), scope="s/")


@pytest.mark.parametrize("kind", KINDS)
def test_a_recorded_parent_records_the_child_under_the_segment(kind: ChildKind) -> None:
    """The child's log is the parent's run id with the segment below it, in the same store and replay marks."""
    parent = _recorded()
    child = parent.child(kind, "0.1:draft")
    assert parent.durable is not None and child.durable is not None
    assert child.durable.run_id == "run-1/0.1:draft"
    assert child.scope == "s/0.1:draft/"
    assert child.durable.store is parent.durable.store and child.durable.marks is parent.durable.marks


@pytest.mark.parametrize("kind", KINDS)
def test_an_unrecorded_parent_gives_an_unrecorded_child(kind: ChildKind) -> None:
    """A run that records nothing has sub-runs that record nothing, each still at its place (its questions'
    qualifier)."""
    child = attrs.evolve(RunContext.ephemeral("user"), scope="s/").child(kind, "seg")
    assert child.durable is None
    assert child.scope == "s/seg/"


def _shared(ctx: RunContext[Any]) -> tuple[object, ...]:
    return (ctx.state, ctx.actions, ctx.session, ctx.hooks, ctx.agent_depth)


def test_each_kind_shares_what_its_sub_run_shares() -> None:
    """A handoff target shares state, signals and session; a workflow child gets its own signals; a tool
    sub-run gets fresh state, signals and session and no run-level hooks; each is one level deeper."""
    parent = _recorded().with_hooks(_hook)
    handoff, workflow, tool = (parent.child(kind, "seg") for kind in KINDS)
    assert _shared(handoff) == (parent.state, parent.actions, parent.session, parent.hooks, 1)
    assert _shared(workflow)[::2] == (parent.state, parent.session, 1)
    assert workflow.actions is not parent.actions
    assert tool.state is not parent.state and tool.session is not parent.session and not tool.hooks
    assert tool.agent_depth == 1 and tool.user == "user"
    parent.cancel()
    assert workflow.cancelled and tool.cancelled


async def _hook(ctx: RunContext[Any], point: object) -> None:
    return None
