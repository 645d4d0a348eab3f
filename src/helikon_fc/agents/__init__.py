"""The agents: `LlmAgent` and the multi-agent patterns, all satisfying `Agent` (which the shell owns)."""

from ..shell.loop.protocol import Agent as Agent, RunStream as RunStream

__all__ = ["Agent", "RunStream"]
