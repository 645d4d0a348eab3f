"""The Anthropic provider: `AnthropicModel`, Claude over the Messages API with the official ``anthropic`` SDK.

Install it with the extra: ``pip install 'helikon_fc[anthropic]'``. This package is the only one that
imports the SDK, so the core install does without it; see ``docs/providers.md``.
"""

from ._client import ConnectionOptions as ConnectionOptions
from ._model import AnthropicModel as AnthropicModel
from ._request import StructuredOutput as StructuredOutput

__all__ = ["AnthropicModel", "ConnectionOptions", "StructuredOutput"]
