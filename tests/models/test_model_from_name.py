"""`model_from_name`: a model from ``PROVIDER:NAME``, with clear errors for unknown and uninstalled providers."""

from __future__ import annotations

import importlib.util
import pathlib
import re

import pytest

from helikon_fc.cli.model_option import PROVIDERS as CLI_PROVIDERS
from helikon_fc.gemini import GeminiModel
from helikon_fc.models import PROVIDERS, Model, Provider, ProviderNotInstalled, model_from_name, split_model_name
from helikon_fc.openai import OpenAIModel


@pytest.mark.parametrize(("spec", "api"), [("openai:gpt-5-mini", "chat"), ("openai-responses:gpt-5-mini", "responses")])
def test_openai_names_build_the_api_they_name(spec: str, api: str) -> None:
    """``openai:`` is Chat Completions, ``openai-responses:`` the Responses API; the key and base URL are passed on."""
    model = model_from_name(spec, api_key="sk-test", base_url="http://127.0.0.1:9/v1")
    assert isinstance(model, OpenAIModel)
    assert (model.api, model.name) == (api, "gpt-5-mini")
    assert "http://127.0.0.1:9/v1" in repr(model)


def test_gemini_name_builds_a_gemini_model() -> None:
    """``gemini:NAME`` is a `GeminiModel` of that name at that base URL."""
    model = model_from_name("gemini:gemini-2.5-flash", api_key="k", base_url="http://127.0.0.1:9/v1beta")
    assert isinstance(model, GeminiModel)
    assert (model.name, model.base_url) == ("gemini-2.5-flash", "http://127.0.0.1:9/v1beta")


def test_a_name_may_contain_colons_after_the_provider() -> None:
    """Only the first colon separates the provider (``openai:ft:gpt-4o:org::id`` is a fine-tuned model's name)."""
    model = model_from_name("openai:ft:gpt-4o-mini:acme::abc123", api_key="sk-test")
    assert model.name == "ft:gpt-4o-mini:acme::abc123"


@pytest.mark.parametrize("spec", ["gpt-5-mini", ":gpt-5-mini", "openai:", ""])
def test_a_name_without_provider_and_model_is_refused(spec: str) -> None:
    """Anything but ``PROVIDER:NAME`` is a ValueError quoting what was given."""
    with pytest.raises(ValueError, match=re.escape(f"must be PROVIDER:NAME (e.g. 'openai:gpt-5-mini'), got {spec!r}")):
        model_from_name(spec)


def test_an_unknown_provider_lists_the_known_ones() -> None:
    """An unknown provider is named, with every provider there is."""
    with pytest.raises(ValueError) as info:
        model_from_name("claude:opus")
    assert str(info.value) == (
        "unknown provider 'claude' in 'claude:opus'; known providers: anthropic, gemini, openai, openai-responses"
    )


def test_a_provider_that_refuses_its_arguments_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key and no base URL: the provider's own ValueError, naming what to set."""
    for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValueError, match="no Gemini API key"):
        model_from_name("gemini:gemini-2.5-flash")


def test_the_anthropic_provider_is_built_or_reported_missing() -> None:
    """``anthropic:NAME`` loads ``helikon_fc.anthropic`` only when asked; where that module is not part of the
    installation the error says so (no traceback from deep inside an import)."""
    if importlib.util.find_spec("helikon_fc.anthropic") is None:
        with pytest.raises(ProviderNotInstalled) as info:
            model_from_name("anthropic:claude-sonnet-4-5", api_key="k")
        assert str(info.value) == (
            "the anthropic provider (helikon_fc.anthropic) is not part of this helikon_fc installation; "
            "upgrade helikon_fc to a version that has it"
        )
    else:
        model = model_from_name("anthropic:claude-sonnet-4-5", api_key="k")
        assert isinstance(model, Model) and model.name == "claude-sonnet-4-5"


def test_a_missing_extra_says_what_to_install(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A provider module whose third-party package is not installed: the error names the package and the
    ``pip install 'helikon_fc[extra]'`` that brings it."""
    (tmp_path / "provider_needing_an_extra.py").write_text("import a_package_nobody_installed_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = Provider("provider_needing_an_extra", "Model", "fancy", ("FANCY_API_KEY",))
    monkeypatch.setitem(PROVIDERS, "fancy", entry)
    with pytest.raises(ProviderNotInstalled) as info:
        model_from_name("fancy:model-1", api_key="k")
    assert str(info.value) == (
        "the fancy provider needs the package 'a_package_nobody_installed_xyz', which is not installed: "
        "pip install 'helikon_fc[fancy]'"
    )


def test_split_model_name() -> None:
    """The provider and the name, split at the first colon."""
    assert split_model_name("gemini:gemini-2.5-flash") == ("gemini", "gemini-2.5-flash")


def test_the_cli_lists_the_same_providers() -> None:
    """``helikon run --model`` takes exactly the providers `model_from_name` knows (the CLI spells them out so
    that building its parser loads none of the library)."""
    assert tuple(sorted(PROVIDERS)) == CLI_PROVIDERS


def test_the_gemini_entry_reads_the_keys_the_model_reads() -> None:
    """The CLI's "no API key" check and `GeminiModel` look at the same variables, in the same order."""
    from helikon_fc.gemini._model import KEY_VARIABLES

    assert PROVIDERS["gemini"].key_variables == KEY_VARIABLES
