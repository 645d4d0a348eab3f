"""The Gemini provider: `GeminiModel`, the Gemini API spoken over HTTP (no Google SDK needed).

See ``docs/providers.md`` for what is sent, what comes back and how failures are reported.
"""

from ._model import GeminiModel as GeminiModel

__all__ = ["GeminiModel"]
