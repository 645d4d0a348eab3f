"""A worker's run-level hooks and guardrails: what `RunContext.with_hooks` and its guardrail twins are on trio.

They are user code, so they live on the worker (`HelikonWorker(hooks=..., input_guardrails=...,
output_guardrails=...)`) and run in its activities: every run on the worker gets them, in every model
loop it runs, its handoff targets and workflow children included, after each agent's own; an
agent-as-tool sub-run gets none (its path has a ``tool:`` segment), as on trio, and its caller's hooks
receive `OnSubagentStop` when it ends.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..shell.context.run_context import RunContext
from ..shell.control.guardrails import Guardrail
from ..shell.control.hooks import Hook


def isolated(path: str) -> bool:
    """Whether the agent at registry `path` runs inside an agent-as-tool sub-run (which gets no run-level controls)."""
    return any(segment.startswith("tool:") for segment in path.split("/")[1:])


@attrs.frozen
class RunLevel:
    """The run-level hooks and guardrails of every run on a worker."""

    hooks: tuple[Hook[Any], ...] = ()
    input_guardrails: tuple[Guardrail[Any], ...] = ()
    output_guardrails: tuple[Guardrail[Any], ...] = ()

    def at(self, path: str) -> RunLevel:
        """What applies to the agent at `path`: all of them, or none inside an agent-as-tool sub-run."""
        return RunLevel() if isolated(path) else self

    def on(self, ctx: RunContext[Any], path: str) -> RunContext[Any]:
        """`ctx` with what applies at `path` installed."""
        here = self.at(path)
        if not (here.hooks or here.input_guardrails or here.output_guardrails):
            return ctx
        ctx = ctx.with_hooks(*here.hooks)
        return ctx.with_input_guardrails(*here.input_guardrails).with_output_guardrails(*here.output_guardrails)
