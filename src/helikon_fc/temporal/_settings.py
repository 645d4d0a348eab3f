"""A `RunConfig` as it crosses into a workflow (`RunSettings`), and back into the one a worker runs with.

Everything of the config crosses but the compaction's summary model (a `Model` is the worker's: on
Temporal the agent's own model writes the summaries); the compaction's budget crosses as its pure
`CompactionPolicy`, so a run's config brings its compaction to every runtime alike.
"""

from __future__ import annotations

from ..core import CompactionPolicy, from_json, to_json
from ..shell.context.config import RunConfig
from ..shell.durable.compaction import Compaction
from ._payloads import RunSettings

__all__ = ["config_of", "settings_of"]


def settings_of(config: RunConfig | None) -> RunSettings | None:
    """`config` as it crosses the boundary (`None` stays `None`)."""
    if config is None:
        return None
    compaction = to_json(config.compaction.policy()) if config.compaction is not None else None
    return RunSettings(
        config.max_turns, config.parallel_tool_call_limit, config.max_agent_depth, config.timeout, compaction
    )


def config_of(settings: RunSettings) -> RunConfig:
    """The `RunConfig` a worker runs with for `settings` (its compaction without a model of its own)."""
    return RunConfig(
        max_turns=settings.max_turns,
        parallel_tool_call_limit=settings.parallel_tool_call_limit,
        max_agent_depth=settings.max_agent_depth,
        timeout=settings.timeout,
        compaction=None if settings.compaction_json is None else _compaction(settings.compaction_json),
    )


def _compaction(policy_json: str) -> Compaction:
    """The `Compaction` of a crossed `CompactionPolicy` (summaries by the agent's own model)."""
    policy: CompactionPolicy = from_json(CompactionPolicy, policy_json)
    return Compaction(
        max_tokens=policy.max_tokens, summary_tokens=policy.summary_tokens, instructions=policy.instructions
    )
