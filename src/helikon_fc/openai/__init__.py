"""The OpenAI provider: `OpenAIModel.chat` (Chat Completions) and `OpenAIModel.responses` (Responses API).

Both work with OpenAI and with any OpenAI-compatible server (vLLM, Ollama, llama.cpp's server)
through ``base_url``; see ``docs/providers.md``.
"""

from ._chat_request import StructuredOutput as StructuredOutput
from ._model import (
    Api as Api,
    ConnectionOptions as ConnectionOptions,
    MaxTokensField as MaxTokensField,
    OpenAIModel as OpenAIModel,
)

__all__ = ["Api", "ConnectionOptions", "MaxTokensField", "OpenAIModel", "StructuredOutput"]
