"""Who builds and who closes the ``AsyncOpenAI`` clients a model makes for itself.

A model builds one client per trio run and the run closes it: the rule every provider shares,
in `helikon_fc.models._run_clients`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

import attrs
from openai import AsyncOpenAI, not_given

from ..models._run_clients import RunClients


class ConnectionOptions(TypedDict, total=False):
    """How `OpenAIModel.chat` and `OpenAIModel.responses` reach the server: a ready ``client``, or the
    options to build one from (every key optional).

    Attributes:
        client: A ready ``AsyncOpenAI`` to use; the model never closes it. Exclusive with the
            connection options below.
        api_key: The API key; defaults to ``OPENAI_API_KEY``. Without one, a custom ``base_url``
            is called with a placeholder key (local servers ignore it).
        base_url: The API's base URL, e.g. ``"http://127.0.0.1:8000/v1"``; defaults to
            ``OPENAI_BASE_URL``, then to OpenAI's.
        organization: The OpenAI organization id, if any.
        project: The OpenAI project id, if any.
        timeout: The SDK's request timeout in seconds (`None`: the SDK's default).
        max_retries: The SDK's own retries; 0 by default (see `RetryingModel`).
        default_headers: Extra headers sent with every request.
    """

    client: AsyncOpenAI | None
    api_key: str | None
    base_url: str | None
    organization: str | None
    project: str | None
    timeout: float | None
    max_retries: int
    default_headers: Mapping[str, str] | None


CONNECTION_OPTIONS: tuple[str, ...] = tuple(ConnectionOptions.__annotations__)
"""The keys of `ConnectionOptions`, in declaration order."""


@attrs.frozen(kw_only=True)
class ClientOptions:
    """What a model needs to build its own ``AsyncOpenAI`` clients: the key and base URL it settled on,
    and the rest of the caller's `ConnectionOptions` (it has no ``client``)."""

    api_key: str
    base_url: str | None
    connection: ConnectionOptions = attrs.field(hash=False)

    def build(self) -> AsyncOpenAI:
        """A new client; the caller closes it."""
        options = self.connection
        timeout = options.get("timeout")
        headers = options.get("default_headers")
        return AsyncOpenAI(
            api_key=self.api_key,
            base_url=self.base_url,
            organization=options.get("organization"),
            project=options.get("project"),
            timeout=timeout if timeout is not None else not_given,
            max_retries=options.get("max_retries", 0),
            default_headers=dict(headers) if headers else None,
        )


def run_clients(options: ClientOptions) -> RunClients[AsyncOpenAI]:
    """One ``AsyncOpenAI`` per trio run, built from `options` (see `helikon_fc.models._run_clients`)."""
    return RunClients(options.build, is_closed=AsyncOpenAI.is_closed, close=AsyncOpenAI.close, name="helikon_fc.openai")
