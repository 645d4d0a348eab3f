"""``--model PROVIDER:NAME``, ``--base-url`` and ``--api-key-env``: the real model a command runs on."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models.protocol import Model

PROVIDERS = ("openai", "openai-responses", "anthropic")
"""``openai``: Chat Completions (what most compatible servers implement); ``openai-responses``: the Responses API;
``anthropic``: Claude over the Messages API (needs the ``helikon_fc[anthropic]`` extra)."""

_KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY"}
"""The default API-key variable of each provider that does not use ``OPENAI_API_KEY``."""


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """``--model``, ``--base-url`` and ``--api-key-env``, read back by `model_from_options`."""
    parser.add_argument(
        "--model", metavar="PROVIDER:NAME", help=f"run on a real model; providers: {', '.join(PROVIDERS)}"
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="the server to send the model's calls to (OpenAI-compatible, or a Messages API root for anthropic)",
    )
    parser.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="read the API key from this variable (default OPENAI_API_KEY; ANTHROPIC_API_KEY for anthropic)",
    )


class ModelOptionError(Exception):
    """The model options do not name a model that can be built; the message says why, in one line."""


def model_from_options(
    spec: str | None, *, base_url: str | None = None, api_key_env: str | None = None
) -> Model | None:
    """The model `spec` names, or `None` when no ``--model`` was given.

    Args:
        spec: ``PROVIDER:NAME``, e.g. ``openai:gpt-5-mini``; the provider is one of `PROVIDERS`.
        base_url: an OpenAI-compatible server, e.g. ``http://127.0.0.1:8000/v1`` (a local server
            needs no key).
        api_key_env: the environment variable holding the API key (default ``OPENAI_API_KEY``, for
            ``anthropic`` ``ANTHROPIC_API_KEY``).

    Raises:
        ModelOptionError: a malformed spec, an unknown provider, ``--base-url``/``--api-key-env``
            without ``--model``, no API key for the provider's own servers, or the ``anthropic``
            SDK not installed.
    """
    if spec is None:
        if base_url is not None or api_key_env is not None:
            raise ModelOptionError(
                "--base-url and --api-key-env choose how to reach a model: add --model PROVIDER:NAME"
            )
        return None
    provider, _, name = spec.partition(":")
    if not provider or not name:
        raise ModelOptionError(f"--model must be PROVIDER:NAME (e.g. openai:gpt-5-mini), got {spec!r}")
    if provider not in PROVIDERS:
        raise ModelOptionError(f"--model: unknown provider {provider!r} in {spec!r}; known: {', '.join(PROVIDERS)}")
    api_key: str | None = None
    if api_key_env is not None:
        api_key = os.environ.get(api_key_env)
        if not api_key:
            raise ModelOptionError(f"--api-key-env: the environment variable {api_key_env} is not set")
    elif base_url is None and not os.environ.get(_KEY_VARIABLES.get(provider, "OPENAI_API_KEY")):
        raise ModelOptionError(
            f"--model {spec}: no API key; set {_KEY_VARIABLES.get(provider, 'OPENAI_API_KEY')}, name another"
            " variable with --api-key-env, or point --base-url at a local server"
        )
    if provider == "anthropic":
        return _anthropic(name, api_key, base_url)
    from ..openai import OpenAIModel  # imported only when a real model is wanted

    build = OpenAIModel.chat if provider == "openai" else OpenAIModel.responses
    return build(name, api_key=api_key, base_url=base_url)


def _anthropic(name: str, api_key: str | None, base_url: str | None) -> Model:
    """An `AnthropicModel`, or a one-line error when the SDK is not installed."""
    try:
        from ..anthropic import AnthropicModel  # imported only when a Claude model is wanted
    except ImportError as exc:
        raise ModelOptionError(
            f"--model anthropic:{name}: the anthropic SDK is not installed ({exc}); "
            "install it with pip install 'helikon_fc[anthropic]'"
        ) from None
    return AnthropicModel(name, api_key=api_key, base_url=base_url)
