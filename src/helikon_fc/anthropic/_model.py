"""`AnthropicModel`: the `Model` protocol over the official ``anthropic`` SDK's Messages API."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncGenerator, AsyncIterator
from types import TracebackType
from typing import Any, cast

import anthropic
import httpx2
import trio
from anthropic import AsyncAnthropic
from anthropic._response import AsyncAPIResponse
from typing_extensions import Unpack

from ..core import ModelEvent, ModelRequest
from ..models._run_clients import close_shielded
from ..models.protocol import ModelStream
from ._client import CONNECTION_OPTIONS, ClientOptions, ConnectionOptions, run_clients
from ._errors import error_from_exception
from ._request import StructuredOutput, request_body
from ._sse import SseLines
from ._stream import MessagesStreamTranslator

_DRAIN_TIMEOUT = 1.0
"""How long to wait for the body to end after ``message_stop`` before closing it anyway (seconds)."""

_NO_KEY_PLACEHOLDER = "unused"
"""Sent as the API key to a custom ``base_url`` when no key is configured (local servers ignore it)."""

_FAILURES: tuple[type[BaseException], ...] = (anthropic.AnthropicError, httpx2.HTTPError, httpx2.StreamError)
_STRUCTURED_OUTPUTS: tuple[StructuredOutput, ...] = ("json_schema", "tool")
_MIN_THINKING_BUDGET = 1024
_EXTRA_BODY = ("temperature", "top_p")
"""Body fields the API reference documents but the SDK's ``create`` (2.x) no longer takes: sent as ``extra_body``."""


async def _drain(lines: AsyncIterator[str]) -> None:
    """Read the little that follows ``message_stop`` so the body ends whole."""
    with trio.move_on_after(_DRAIN_TIMEOUT):
        async for _ in lines:
            pass


class AnthropicModel:
    """A Claude model behind the `Model` protocol, over the Messages API (``POST /v1/messages``, streamed).

    ``AnthropicModel("claude-sonnet-4-5")`` reads the key from ``ANTHROPIC_API_KEY``; pass
    ``api_key=``, ``base_url=`` or a ready ``client=`` (`ConnectionOptions`). The model builds its
    own ``AsyncAnthropic`` once per trio run and closes it when the run ends; ``async with model:``
    builds it on entry and closes it on exit, ``await model.aclose()`` closes it earlier. The SDK's
    own retries are off (``max_retries=0``) unless asked for: wrap the model in
    `helikon_fc.models.RetryingModel` for retries that respect the stream rules.

    Args:
        model: The model's name, e.g. ``"claude-sonnet-4-5"``.
        max_tokens: The output limit sent when `ModelSettings.max_output_tokens` is unset (the API
            requires one).
        thinking_budget: Turn extended thinking on with this many tokens (at least 1024, below the
            output limit); thinking comes back as `Reasoning` items, signed, and is sent back
            unchanged. `None` (the default) leaves it off.
        structured_output: ``"json_schema"`` (the API's ``output_config.format``, for models that
            support structured outputs) or ``"tool"`` (a forced tool whose input is the answer, for
            those that do not); either way the agent validates the answer and repairs it once.
        **connection: A ready ``client``, or the options to build one from (`ConnectionOptions`).

    Raises:
        TypeError: both a client and connection options were given, or an unknown argument.
        ValueError: an empty model name, no API key and no custom base URL, a thinking budget below
            1024 or not below ``max_tokens``, a ``max_tokens`` below 1, or a ``structured_output``
            other than those above.

    Example:
        ```python
        model = AnthropicModel("claude-sonnet-4-5", thinking_budget=2048)
        ```
    """

    __slots__ = ("_base_url", "_client", "_depth", "_max_tokens", "_model", "_output", "_own", "_thinking")

    def __init__(
        self,
        model: str,
        *,
        max_tokens: int = 4096,
        thinking_budget: int | None = None,
        structured_output: StructuredOutput = "json_schema",
        **connection: Unpack[ConnectionOptions],
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a non-empty model name, got {model!r}")
        if type(max_tokens) is not int or max_tokens < 1:
            raise ValueError(f"max_tokens must be an int of at least 1, got {max_tokens!r}")
        if thinking_budget is not None and (type(thinking_budget) is not int or thinking_budget < _MIN_THINKING_BUDGET):
            raise ValueError(
                f"thinking_budget must be None or an int of at least {_MIN_THINKING_BUDGET}, got {thinking_budget!r}"
            )
        if thinking_budget is not None and thinking_budget >= max_tokens:
            raise ValueError(f"thinking_budget must be below max_tokens ({max_tokens}), got {thinking_budget}")
        if structured_output not in _STRUCTURED_OUTPUTS:
            raise ValueError(f"structured_output must be one of {_STRUCTURED_OUTPUTS}, got {structured_output!r}")
        self._model = model
        self._max_tokens = max_tokens
        self._thinking: dict[str, object] | None = (
            {"type": "enabled", "budget_tokens": thinking_budget} if thinking_budget is not None else None
        )
        self._output: StructuredOutput = structured_output
        self._client, options = _connect(connection)
        self._own = run_clients(options) if options is not None else None
        self._base_url = options.base_url if options is not None else None
        self._depth = 0

    @property
    def name(self) -> str:
        """The model's name, as sent in each request."""
        return self._model

    def __repr__(self) -> str:
        base_url = str(self._client.base_url) if self._client is not None else self._base_url
        return f"AnthropicModel({self._model!r}, base_url={base_url!r})"

    async def __aenter__(self) -> AnthropicModel:
        """Build the model's client now (so the first call does not pay for it); it is closed when the block ends."""
        if self._own is not None:
            self._own.get()
        self._depth += 1
        await trio.lowlevel.checkpoint()
        return self

    async def __aexit__(  # noqa: ASYNC910 - nothing to wait for unless this is the outermost block
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the model's client when the outermost ``async with`` ends."""
        self._depth -= 1
        if self._depth == 0:
            await self.aclose()

    async def aclose(self) -> None:
        """Close the client this model built in the current trio run, if any (a client you passed in is left open)."""
        if self._own is not None:
            await self._own.close()
        else:
            await trio.lowlevel.checkpoint()

    def request_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON body `stream` sends for `request` (``stream: true`` aside): what the golden files pin."""
        return request_body(
            self._model, request, max_tokens=self._max_tokens, thinking=self._thinking, output=self._output
        )

    def stream(self, request: ModelRequest) -> ModelStream:
        """Ask the model; the stream obeys the rules in the `Model` docstring.

        Raises:
            ModelError: on entering, when the call fails (HTTP status, connection); while
                iterating, when the stream fails part-way or the model refused.
        """
        return self._stream(request)

    @contextlib.asynccontextmanager
    async def _stream(self, request: ModelRequest) -> AsyncGenerator[AsyncIterator[ModelEvent], None]:
        async with contextlib.AsyncExitStack() as stack:
            client = self._client if self._own is None else self._own.get()
            assert client is not None, "a model has either a client or the options to build one"
            body = self.request_body(request)
            try:
                extra = {key: body.pop(key) for key in _EXTRA_BODY if key in body}
                opened = client.messages.with_streaming_response.create(**body, stream=True, extra_body=extra or None)
                response = cast(AsyncAPIResponse[object], await opened.__aenter__())
            except _FAILURES as exc:
                raise error_from_exception(exc) from exc
            stack.push_async_callback(close_shielded, response.close)
            lines = cast(AsyncGenerator[str, None], response.http_response.aiter_lines())
            stack.push_async_callback(close_shielded, lines.aclose)
            answer_tool = request.output_schema.name if request.output_schema and self._output == "tool" else None
            events = _events(lines, MessagesStreamTranslator(answer_tool=answer_tool))
            async with contextlib.aclosing(events):
                yield events


async def _events(  # noqa: ASYNC911 - a pass-through of the response body, which checkpoints as it reads
    lines: AsyncIterator[str], translator: MessagesStreamTranslator
) -> AsyncGenerator[ModelEvent, None]:
    """The events of a streamed body: each SSE frame through the translator, until ``message_stop``; a
    failure after the stop reason ends the turn as if the body had."""
    frames = SseLines()
    try:
        async for line in lines:
            frame = frames.feed(line)
            if frame is None:
                continue
            for event in translator.feed(*frame):
                yield event  # noqa: ASYNC911
            if translator.done:
                await _drain(lines)
                break
    except _FAILURES as exc:
        if translator.stop is None:
            raise error_from_exception(exc) from exc
    for event in translator.end():
        yield event  # noqa: ASYNC911


def _connect(connection: ConnectionOptions) -> tuple[AsyncAnthropic | None, ClientOptions | None]:
    """The caller's client, or the options to build the model's own (checked)."""
    unknown = sorted(set(connection) - set(CONNECTION_OPTIONS))
    if unknown:
        raise TypeError(
            f"AnthropicModel() got unknown argument(s) {', '.join(unknown)}; "
            f"the connection options are {', '.join(CONNECTION_OPTIONS)}"
        )
    client = connection.get("client")
    if client is not None:
        given = [
            name
            for name, value in connection.items()
            if name != "client" and value is not None and (name, value) != ("max_retries", 0)
        ]
        if given:
            raise TypeError(f"pass either a ready client or connection options, not both (got {', '.join(given)})")
        return client, None
    max_retries = connection.get("max_retries", 0)
    if type(max_retries) is not int or max_retries < 0:
        raise ValueError(f"max_retries must be an int of at least 0, got {max_retries!r}")
    base_url = connection.get("base_url") or os.environ.get("ANTHROPIC_BASE_URL") or None
    api_key = connection.get("api_key") or os.environ.get("ANTHROPIC_API_KEY") or None
    if api_key is None:
        if base_url is None:
            raise ValueError(
                "no Anthropic API key: pass api_key=, set ANTHROPIC_API_KEY, pass base_url= for a local server, "
                "or pass a ready client="
            )
        api_key = _NO_KEY_PLACEHOLDER
    headers = connection.get("default_headers") or {}
    options = ClientOptions(
        api_key=api_key,
        base_url=base_url,
        timeout=connection.get("timeout"),
        max_retries=max_retries,
        default_headers=tuple(headers.items()),
    )
    return None, options


__all__ = ["AnthropicModel"]
