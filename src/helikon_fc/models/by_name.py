"""`model_from_name`: a model from a ``PROVIDER:NAME`` string, the strings ``helikon run --model`` takes.

The providers sit above this package (``helikon_fc.openai``, ``helikon_fc.gemini``, ...), and some
need an optional extra, so the table below names each provider's module and class as text and
imports the module only when a model of it is asked for: importing ``helikon_fc.models`` never
loads a provider, and a provider whose extra is not installed fails only when it is named, saying
which extra to install.
"""

from __future__ import annotations

import importlib
import os

import attrs

from .protocol import Model


@attrs.frozen
class Provider:
    """One entry of `PROVIDERS`: where its model class lives and what it needs.

    Attributes:
        module: The module to import, e.g. ``"helikon_fc.gemini"``.
        factory: The attribute path of the callable building a model, e.g. ``"OpenAIModel.chat"``;
            it takes the model's name and the keyword arguments ``api_key`` and ``base_url``.
        extra: The ``helikon_fc[...]`` extra that installs what the module imports (`None`: none needed).
        key_variables: The environment variables the provider reads its API key from, in order.
    """

    module: str
    factory: str
    extra: str | None
    key_variables: tuple[str, ...]


PROVIDERS: dict[str, Provider] = {
    "anthropic": Provider("helikon_fc.anthropic", "AnthropicModel", "anthropic", ("ANTHROPIC_API_KEY",)),
    "gemini": Provider("helikon_fc.gemini", "GeminiModel", "gemini", ("GOOGLE_API_KEY", "GEMINI_API_KEY")),
    "openai": Provider("helikon_fc.openai", "OpenAIModel.chat", None, ("OPENAI_API_KEY",)),
    "openai-responses": Provider("helikon_fc.openai", "OpenAIModel.responses", None, ("OPENAI_API_KEY",)),
}
"""The providers `model_from_name` knows, by the prefix that names them: ``openai`` is Chat Completions
(what most compatible servers implement), ``openai-responses`` the Responses API."""


class ProviderNotInstalled(ImportError):
    """The named provider cannot be loaded here: its extra is not installed, or this version lacks it."""


def split_model_name(spec: str) -> tuple[str, str]:
    """``"gemini:gemini-2.5-flash"`` -> ``("gemini", "gemini-2.5-flash")``, the provider checked against `PROVIDERS`.

    Raises:
        ValueError: `spec` is not ``PROVIDER:NAME``, or names a provider that is not one of `PROVIDERS`.
    """
    provider, _, name = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    if not provider or not name:
        raise ValueError(f"a model name must be PROVIDER:NAME (e.g. 'openai:gpt-5-mini'), got {spec!r}")
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider {provider!r} in {spec!r}; known providers: {', '.join(sorted(PROVIDERS))}")
    return provider, name


def _factory(provider: str) -> object:
    entry = PROVIDERS[provider]
    try:
        found: object = importlib.import_module(entry.module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if entry.module == missing or entry.module.startswith(missing + "."):
            raise ProviderNotInstalled(
                f"the {provider} provider ({entry.module}) is not part of this helikon_fc installation; "
                "upgrade helikon_fc to a version that has it"
            ) from exc
        install = f"pip install 'helikon_fc[{entry.extra}]'" if entry.extra else "reinstall helikon_fc"
        raise ProviderNotInstalled(
            f"the {provider} provider needs the package {missing!r}, which is not installed: {install}"
        ) from exc
    for attribute in entry.factory.split("."):
        found = getattr(found, attribute)
    return found


def model_from_name(spec: str, *, api_key: str | None = None, base_url: str | None = None) -> Model:
    """The model `spec` names: ``"openai:gpt-5-mini"``, ``"openai-responses:gpt-5-mini"``,
    ``"anthropic:claude-sonnet-4-5"``, ``"gemini:gemini-2.5-flash"``.

    Args:
        spec: ``PROVIDER:NAME``; the provider is one of `PROVIDERS`, the name is passed on as it is.
        api_key: The API key (default: the provider's environment variable, `Provider.key_variables`).
        base_url: Where the provider's API is served (default: the provider's own servers).

    Raises:
        ValueError: `spec` is not ``PROVIDER:NAME`` or names an unknown provider (the message lists the
            known ones), or the provider refused the arguments (no API key and no base URL, ...).
        ProviderNotInstalled: the provider's extra is not installed (the message says what to
            ``pip install``), or this version of helikon_fc has no such provider module.
    """
    provider, name = split_model_name(spec)
    factory = _factory(provider)
    assert callable(factory), f"{PROVIDERS[provider].factory} is not callable"
    model = factory(name, api_key=api_key, base_url=base_url)
    assert isinstance(model, Model), f"{PROVIDERS[provider].factory} did not build a Model"
    return model


def has_api_key(provider: str) -> bool:
    """Whether one of the provider's key variables is set (non-empty) in the environment."""
    return any(os.environ.get(variable) for variable in PROVIDERS[provider].key_variables)
