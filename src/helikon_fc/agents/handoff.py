"""`Handoff`: an agent an `LlmAgent` may pass control to, through a synthetic ``transfer_to_<slug>`` tool."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Generic

import attrs
from typing_extensions import TypeVar

from ..core import HandoffTarget
from ..shell import _checks
from .protocol import Agent

Ctx = TypeVar("Ctx", default=Any)
"""The user context type; `Any` when nothing (instructions, tools) pins it."""

_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def _callable(owner: str, argument: str, value: object) -> None:
    if not callable(value):
        raise TypeError(_checks.message(owner, argument, value, "a callable returning the target agent"))


def slug(name: str) -> str:
    """`name` lowercased, each run of non-alphanumeric characters collapsed to ``_``, stripped of ``_``.

    >>> slug("Billing Agent (EU)")
    'billing_agent_eu'
    """
    return _NOT_ALNUM.sub("_", name.lower()).strip("_")


@attrs.frozen(kw_only=True)
class Handoff(Generic[Ctx]):
    """A handoff target: the model calls ``transfer_to_<slug(agent_name)>`` to give it control.

    The target agent is found through `resolve` only when the handoff happens, so agents that hand
    off to each other (a swarm's full mesh) can be built from immutable values::

        Handoff(agent_name="billing", description="Billing questions.", resolve=lambda: members["billing"])

    `Handoff.to(agent)` is the common case.

    Attributes:
        agent_name: the target agent's name (events and the tool name use it).
        description: shown to the model as the transfer tool's description.
        resolve: returns the target agent; called when the handoff happens.
    """

    agent_name: str = attrs.field(validator=_checks.field(_checks.require_name))
    description: str = attrs.field(validator=_checks.field(_checks.instance_of(str, "a string")))
    resolve: Callable[[], Agent[Ctx]] = attrs.field(eq=False, repr=False, validator=_checks.field(_callable))

    @classmethod
    def to(cls, agent: Agent[Ctx]) -> Handoff[Ctx]:
        """A handoff to `agent`, described by the agent's own description.

        Raises:
            TypeError: `agent` is not an `Agent` (for example its name, a string).
        """
        _checks.require_agent("Handoff.to", "agent", agent)
        return cls(agent_name=agent.name, description=agent.description, resolve=lambda: agent)

    @property
    def tool_name(self) -> str:
        """The synthetic tool the model calls: ``"transfer_to_" + slug(agent_name)``."""
        return "transfer_to_" + slug(self.agent_name)

    def target(self) -> HandoffTarget:
        """The core's description of this handoff."""
        description = self.description or f"Hand the conversation over to {self.agent_name}."
        return HandoffTarget(self.tool_name, self.agent_name, description)
