"""``--model PROVIDER:NAME``, ``--base-url`` and ``--api-key-env``: the real model a command runs on."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models.protocol import Model

PROVIDERS = ("anthropic", "gemini", "openai", "openai-responses")
"""The providers ``--model`` takes: the names of `helikon_fc.models.PROVIDERS`, written out so that building the
parser loads none of the library. ``openai`` is Chat Completions (what most compatible servers implement),
``openai-responses`` the Responses API."""


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """``--model``, ``--base-url`` and ``--api-key-env``, read back by `model_from_options`."""
    parser.add_argument(
        "--model", metavar="PROVIDER:NAME", help=f"run on a real model; providers: {', '.join(PROVIDERS)}"
    )
    parser.add_argument(
        "--base-url", metavar="URL", help="a server speaking the provider's API (e.g. an OpenAI-compatible one)"
    )
    parser.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="read the API key from this environment variable (default: the provider's, e.g. OPENAI_API_KEY)",
    )


class ModelOptionError(Exception):
    """The model options do not name a model that can be built; the message says why, in one line."""


def model_from_options(
    spec: str | None, *, base_url: str | None = None, api_key_env: str | None = None
) -> Model | None:
    """The model `spec` names (built by `helikon_fc.models.model_from_name`), or `None` when no ``--model`` was given.

    Args:
        spec: ``PROVIDER:NAME``, e.g. ``openai:gpt-5-mini`` or ``gemini:gemini-2.5-flash``; the
            provider is one of `PROVIDERS`.
        base_url: a server speaking the provider's API, e.g. ``http://127.0.0.1:8000/v1`` (a local
            server needs no key).
        api_key_env: the environment variable holding the API key (default: the provider's own).

    Raises:
        ModelOptionError: a malformed spec, an unknown provider, ``--base-url``/``--api-key-env``
            without ``--model``, no API key for the provider's own servers, or a provider whose
            extra is not installed.
    """
    if spec is None:
        if base_url is not None or api_key_env is not None:
            raise ModelOptionError(
                "--base-url and --api-key-env choose how to reach a model: add --model PROVIDER:NAME"
            )
        return None
    from ..models.by_name import (
        PROVIDERS as KNOWN,
        ProviderNotInstalled,
        has_api_key,
        model_from_name,
        split_model_name,
    )

    try:
        provider, _ = split_model_name(spec)
    except ValueError as exc:
        raise ModelOptionError(f"--model: {exc}") from None
    api_key: str | None = None
    if api_key_env is not None:
        api_key = os.environ.get(api_key_env)
        if not api_key:
            raise ModelOptionError(f"--api-key-env: the environment variable {api_key_env} is not set")
    elif base_url is None and not has_api_key(provider):
        variables = " or ".join(KNOWN[provider].key_variables)
        raise ModelOptionError(
            f"--model {spec}: no API key; set {variables}, name another variable with --api-key-env,"
            " or point --base-url at a local server"
        )
    try:
        return model_from_name(spec, api_key=api_key, base_url=base_url)
    except (ValueError, ProviderNotInstalled) as exc:
        raise ModelOptionError(f"--model {spec}: {exc}") from None
