"""Who builds and who closes the ``AsyncAnthropic`` clients an `AnthropicModel` makes for itself.

A model builds one client per trio run and the run closes it: the rule every provider shares,
in `helikon_fc.models._run_clients`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

import attrs
from anthropic import AsyncAnthropic, not_given

from ..models._run_clients import RunClients


class ConnectionOptions(TypedDict, total=False):
    """How `AnthropicModel` reaches the server: a ready ``client``, or the options to build one from (all optional).

    Attributes:
        client: A ready ``anthropic.AsyncAnthropic`` to use; the model never closes it. Exclusive
            with the options below.
        api_key: The API key; defaults to ``ANTHROPIC_API_KEY``. Without one, a custom ``base_url``
            is called with a placeholder key (a local server ignores it).
        base_url: The API's root, e.g. ``"http://127.0.0.1:8000"`` (the SDK adds ``/v1/messages``);
            defaults to ``ANTHROPIC_BASE_URL``, then to Anthropic's.
        timeout: The SDK's request timeout in seconds (`None`: the SDK's default).
        max_retries: The SDK's own retries; 0 by default (see `RetryingModel`).
        default_headers: Extra headers sent with every request (``anthropic-beta`` for instance).
    """

    client: AsyncAnthropic | None
    api_key: str | None
    base_url: str | None
    timeout: float | None
    max_retries: int
    default_headers: Mapping[str, str] | None


CONNECTION_OPTIONS: tuple[str, ...] = tuple(ConnectionOptions.__annotations__)
"""The keys of `ConnectionOptions`, in declaration order."""


@attrs.frozen(kw_only=True)
class ClientOptions:
    """What a model needs to build its own clients: the key and base URL it settled on, and the other options."""

    api_key: str
    base_url: str | None
    timeout: float | None = None
    max_retries: int = 0
    default_headers: tuple[tuple[str, str], ...] = ()

    def build(self) -> AsyncAnthropic:
        """A new client; the caller closes it."""
        return AsyncAnthropic(
            api_key=self.api_key,
            base_url=self.base_url,
            timeout=self.timeout if self.timeout is not None else not_given,
            max_retries=self.max_retries,
            default_headers=dict(self.default_headers) or None,
        )


def run_clients(options: ClientOptions) -> RunClients[AsyncAnthropic]:
    """One ``AsyncAnthropic`` per trio run, built from `options` (see `helikon_fc.models._run_clients`)."""
    return RunClients(
        options.build, is_closed=AsyncAnthropic.is_closed, close=AsyncAnthropic.close, name="helikon_fc.anthropic"
    )
