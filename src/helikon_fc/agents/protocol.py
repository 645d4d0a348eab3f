"""`Agent` and `RunStream`, re-exported where users have always imported them; the shell owns them."""

from __future__ import annotations

from ..shell.loop.protocol import Agent as Agent, RunStream as RunStream

__all__ = ["Agent", "RunStream"]
