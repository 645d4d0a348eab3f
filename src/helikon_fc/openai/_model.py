"""`OpenAIModel`: the `Model` protocol over the official ``openai`` SDK, for Chat Completions and Responses."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncGenerator, AsyncIterator
from types import TracebackType
from typing import Literal, Protocol, cast

import attrs
import httpx2
import openai
import trio
from openai import AsyncOpenAI, Omit, omit
from openai._response import AsyncAPIResponse
from openai.types.chat.completion_create_params import ResponseFormat
from typing_extensions import Unpack

from ..core import ModelEvent, ModelRequest
from ..models._run_clients import close_shielded
from ..models.protocol import ModelStream
from ._chat_request import (
    StructuredOutput,
    chat_json_object_format,
    chat_messages,
    chat_response_format,
    chat_tool_choice,
    chat_tools,
    json_object_instructions,
)
from ._chat_stream import ChatStreamTranslator
from ._client import CONNECTION_OPTIONS, ClientOptions, ConnectionOptions, run_clients
from ._errors import error_from_exception
from ._responses_request import responses_input, responses_text_format, responses_tool_choice, responses_tools
from ._responses_stream import ResponsesStreamTranslator
from ._sse import SseDecoder, SseFrame
from ._turn import TurnState

Api = Literal["chat", "responses"]
"""Which OpenAI API a model speaks: Chat Completions (``"chat"``) or Responses (``"responses"``)."""

_DRAIN_TIMEOUT = 1.0
"""How long to wait for the body to end after ``data: [DONE]`` before closing it anyway (seconds)."""

_NO_KEY_PLACEHOLDER = "unused"
"""Sent as the API key to a custom ``base_url`` when no key is configured (local servers ignore it)."""

_FAILURES: tuple[type[BaseException], ...] = (openai.OpenAIError, httpx2.HTTPError, httpx2.StreamError)


MaxTokensField = Literal["max_completion_tokens", "max_tokens"]
"""Which request field carries `ModelSettings.max_output_tokens` on Chat Completions: OpenAI's
``max_completion_tokens`` (required by its reasoning models), or the older ``max_tokens`` that
llama.cpp's server and other compatible servers honour instead."""

_MAX_TOKENS_FIELDS: tuple[MaxTokensField, ...] = ("max_completion_tokens", "max_tokens")
_STRUCTURED_OUTPUTS: tuple[StructuredOutput, ...] = ("json_schema", "json_object")


@attrs.frozen(kw_only=True)
class _ChatOptions:
    """The Chat Completions compatibility settings (see `OpenAIModel.chat`)."""

    stream: bool = True
    max_tokens_field: MaxTokensField = "max_completion_tokens"
    structured_output: StructuredOutput = "json_schema"


class _Translator(Protocol):
    """What `OpenAIModel` needs of a stream translator (`ChatStreamTranslator`, `ResponsesStreamTranslator`)."""

    @property
    def turn(self) -> TurnState: ...

    @property
    def done(self) -> bool: ...

    def feed_frame(self, frame: SseFrame) -> list[ModelEvent]: ...

    def end(self) -> list[ModelEvent]: ...


async def _drain(lines: AsyncIterator[str]) -> None:
    """Read the little that follows ``[DONE]`` so the body ends whole (no half-read generators left behind)."""
    with trio.move_on_after(_DRAIN_TIMEOUT):
        async for _ in lines:
            pass


class OpenAIModel:
    """An OpenAI model (or any OpenAI-compatible server) behind the `Model` protocol.

    Build one with `OpenAIModel.chat` (Chat Completions, ``/v1/chat/completions``) or
    `OpenAIModel.responses` (the Responses API, ``/v1/responses``). Either takes a ready
    ``AsyncOpenAI`` client, which it uses and never closes, or the usual connection options
    (``api_key``, ``base_url``, ... falling back to ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``), from
    which it builds a client of its own and closes it:

    - the first call in a trio run builds the client; every later call in that run reuses it (and
      its connection pool), and it is closed when the run ends, so nothing needs closing and
      nothing leaks;
    - ``await model.aclose()`` (or leaving ``async with model:``) closes it earlier; a later call
      builds a new one.

    The SDK's own retries are off (``max_retries=0``) unless you ask for them; wrap the model in
    `helikon_fc.models.RetryingModel` for retries that respect the stream rules.

    Example:
        ```python
        model = OpenAIModel.chat("gpt-5-mini")
        local = OpenAIModel.chat("qwen3:8b", base_url="http://127.0.0.1:11434/v1")
        ```
    """

    __slots__ = ("_api", "_chat", "_client", "_depth", "_model", "_options", "_own")

    def __init__(
        self,
        api: Api,
        model: str,
        *,
        client: AsyncOpenAI | None,
        options: ClientOptions | None,
        chat: _ChatOptions = _ChatOptions(),
    ) -> None:
        """Prefer `OpenAIModel.chat` / `OpenAIModel.responses`, which check their arguments."""
        self._api: Api = api
        self._model = model
        self._client = client
        self._options = options
        self._chat = chat
        self._own = run_clients(options) if options is not None else None
        self._depth = 0

    @classmethod
    def chat(
        cls,
        model: str,
        *,
        stream: bool = True,
        max_tokens_field: MaxTokensField = "max_completion_tokens",
        structured_output: StructuredOutput = "json_schema",
        **connection: Unpack[ConnectionOptions],
    ) -> OpenAIModel:
        """A model served through Chat Completions (the API most compatible servers implement).

        The first three keyword arguments are compatibility settings for servers that differ from
        OpenAI (``docs/providers.md`` has a table of which server needs which); the others are the
        `ConnectionOptions`.

        Args:
            model: The model's name, e.g. ``"gpt-5-mini"``.
            stream: Stream the answer (``True``), or ask for the whole completion at once and
                yield the same events from it (``False``), for servers that cannot stream tool
                calls ("Automatic streaming tool choice is not supported").
            max_tokens_field: The field that carries `ModelSettings.max_output_tokens`:
                ``"max_completion_tokens"`` (OpenAI) or ``"max_tokens"`` (llama.cpp and other
                servers that ignore the newer field).
            structured_output: ``"json_schema"`` (the server enforces the schema) or
                ``"json_object"`` (for servers without ``json_schema``: any JSON object is
                asked for and the schema is appended to the instructions; the agent still
                validates the answer and repairs it once).
            **connection: A ready ``client``, or the options to build one from (`ConnectionOptions`).

        Raises:
            TypeError: both a client and connection options were given, or an argument that is
                none of the above.
            ValueError: no API key is configured and no custom base URL either, or a
                compatibility setting has a value not listed above.
        """
        if max_tokens_field not in _MAX_TOKENS_FIELDS:
            raise ValueError(f"max_tokens_field must be one of {_MAX_TOKENS_FIELDS}, got {max_tokens_field!r}")
        if structured_output not in _STRUCTURED_OUTPUTS:
            raise ValueError(f"structured_output must be one of {_STRUCTURED_OUTPUTS}, got {structured_output!r}")
        if not isinstance(stream, bool):
            raise TypeError(f"stream must be True or False, got {stream!r}")
        options = _ChatOptions(stream=stream, max_tokens_field=max_tokens_field, structured_output=structured_output)
        return cls._build("chat", model, options, connection)

    @classmethod
    def responses(cls, model: str, **connection: Unpack[ConnectionOptions]) -> OpenAIModel:
        """A model served through the Responses API; the arguments are those of `OpenAIModel.chat`
        but its compatibility settings: the model's name and the `ConnectionOptions`."""
        return cls._build("responses", model, _ChatOptions(), connection)

    @classmethod
    def _build(cls, api: Api, model: str, chat: _ChatOptions, connection: ConnectionOptions) -> OpenAIModel:
        if not model:
            raise ValueError("the model name must not be empty")
        unknown = sorted(set(connection) - set(CONNECTION_OPTIONS))
        if unknown:
            raise TypeError(
                f"OpenAIModel.{api}() got unknown argument(s) {', '.join(unknown)}; "
                f"the connection options are {', '.join(CONNECTION_OPTIONS)}"
            )
        client = connection.get("client")
        max_retries = connection.get("max_retries", 0)
        if client is not None:
            given = [
                name
                for name, value in connection.items()
                if name != "client" and value is not None and (name, value) != ("max_retries", 0)
            ]  # a zero max_retries is the default: the client's own setting applies
            if given:
                raise TypeError(f"pass either a ready client or connection options, not both (got {', '.join(given)})")
            return cls(api, model, client=client, options=None, chat=chat)
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        base_url = connection.get("base_url") or os.environ.get("OPENAI_BASE_URL") or None
        api_key = connection.get("api_key") or os.environ.get("OPENAI_API_KEY") or None
        if api_key is None:
            if base_url is None:
                raise ValueError(
                    "no OpenAI API key: pass api_key=, set OPENAI_API_KEY, pass base_url= for a local server, "
                    "or pass a ready client="
                )
            api_key = _NO_KEY_PLACEHOLDER
        headers = connection.get("default_headers")
        if headers:  # `connection` is this call's own dict: the headers are copied, as they were given
            connection["default_headers"] = dict(headers)
        options = ClientOptions(api_key=api_key, base_url=base_url, connection=connection)
        return cls(api, model, client=None, options=options, chat=chat)

    @property
    def name(self) -> str:
        """The model's name, as sent in each request."""
        return self._model

    @property
    def api(self) -> Api:
        """Which API this model calls: ``"chat"`` or ``"responses"``."""
        return self._api

    def __repr__(self) -> str:
        base_url = self._client.base_url if self._client is not None else self._options and self._options.base_url
        return f"OpenAIModel.{self._api}({self._model!r}, base_url={str(base_url) if base_url else None!r})"

    async def __aenter__(self) -> OpenAIModel:
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
        """Close the client this model built in the current trio run, if any (a client you passed in is left open).

        Optional: the client is closed when the run ends anyway. A later call builds a new one.
        """
        if self._own is not None:
            await self._own.close()
        else:
            await trio.lowlevel.checkpoint()

    def stream(self, request: ModelRequest) -> ModelStream:
        """Ask the model; the stream obeys the rules in the `Model` docstring.

        Raises:
            ModelError: on entering, when the call fails (HTTP status, connection); while
                iterating, when the stream fails part-way.
        """
        return self._stream(request)

    @contextlib.asynccontextmanager
    async def _stream(self, request: ModelRequest) -> AsyncGenerator[AsyncIterator[ModelEvent], None]:
        async with contextlib.AsyncExitStack() as stack:
            client = self._client if self._own is None else self._own.get()
            assert client is not None, "a model has either a client or the options to build one"
            try:
                response = await self._open(client, request)
            except _FAILURES as exc:
                raise error_from_exception(exc) from exc
            stack.push_async_callback(close_shielded, response.close)
            events: AsyncGenerator[ModelEvent, None]
            if self._api == "chat" and not self._chat.stream:
                events = self._chat_whole(response)
            else:
                lines = cast(AsyncGenerator[str, None], response.http_response.aiter_lines())
                stack.push_async_callback(close_shielded, lines.aclose)
                events = self._stream_events(lines)
            async with contextlib.aclosing(events):
                yield events

    async def _open(self, client: AsyncOpenAI, request: ModelRequest) -> AsyncAPIResponse[object]:
        if self._api == "chat":
            return await self._open_chat(client, request)
        return await self._open_responses(client, request)

    async def _open_responses(self, client: AsyncOpenAI, request: ModelRequest) -> AsyncAPIResponse[object]:
        settings = request.settings
        tools = request.tools
        temperature = settings.temperature if settings.temperature is not None else omit
        top_p = settings.top_p if settings.top_p is not None else omit
        parallel = settings.parallel_tool_calls if tools and settings.parallel_tool_calls is not None else omit
        responses = client.responses.with_streaming_response.create(
            model=self._model,
            input=responses_input(request.items),
            instructions=request.instructions if request.instructions else omit,
            stream=True,
            tools=responses_tools(tools) if tools else omit,
            tool_choice=responses_tool_choice(settings.tool_choice) if tools and settings.tool_choice else omit,
            parallel_tool_calls=parallel,
            temperature=temperature,
            top_p=top_p,
            max_output_tokens=settings.max_output_tokens if settings.max_output_tokens is not None else omit,
            previous_response_id=settings.previous_response_id if settings.previous_response_id else omit,
            text={"format": responses_text_format(request.output_schema)} if request.output_schema else omit,
        )
        return cast(AsyncAPIResponse[object], await responses.__aenter__())

    async def _open_chat(self, client: AsyncOpenAI, request: ModelRequest) -> AsyncAPIResponse[object]:
        settings = request.settings
        tools = request.tools
        options = self._chat
        instructions = request.instructions
        output = request.output_schema
        response_format: ResponseFormat | Omit = omit
        if output is not None and options.structured_output == "json_object":
            instructions = json_object_instructions(instructions, output)
            response_format = chat_json_object_format()
        elif output is not None:
            response_format = chat_response_format(output)
        limit = settings.max_output_tokens if settings.max_output_tokens is not None else omit
        chat = client.chat.completions.with_streaming_response.create(
            model=self._model,
            messages=chat_messages(instructions, request.items),
            stream=options.stream,
            stream_options={"include_usage": True} if options.stream else omit,
            tools=chat_tools(tools) if tools else omit,
            tool_choice=chat_tool_choice(settings.tool_choice) if tools and settings.tool_choice else omit,
            parallel_tool_calls=settings.parallel_tool_calls
            if tools and settings.parallel_tool_calls is not None
            else omit,
            temperature=settings.temperature if settings.temperature is not None else omit,
            top_p=settings.top_p if settings.top_p is not None else omit,
            max_completion_tokens=limit if options.max_tokens_field == "max_completion_tokens" else omit,
            max_tokens=limit if options.max_tokens_field == "max_tokens" else omit,
            response_format=response_format,
        )
        return cast(AsyncAPIResponse[object], await chat.__aenter__())

    async def _chat_whole(self, response: AsyncAPIResponse[object]) -> AsyncGenerator[ModelEvent, None]:
        """The events of one non-streamed completion (the same events its stream would have given)."""
        translator = ChatStreamTranslator()
        try:
            body = await response.http_response.aread()
        except _FAILURES as exc:
            raise error_from_exception(exc) from exc
        for event in translator.feed_completion(body.decode("utf-8", "replace")):
            await trio.lowlevel.checkpoint()
            yield event
        for event in translator.end():
            await trio.lowlevel.checkpoint()
            yield event
        await trio.lowlevel.checkpoint()

    async def _stream_events(self, lines: AsyncIterator[str]) -> AsyncGenerator[ModelEvent, None]:  # noqa: ASYNC911 - a pass-through of the response body, which checkpoints as it reads
        """The events of a streamed body: each SSE frame through this API's translator. A chat stream ends
        at ``data: [DONE]`` (the little after it is drained); a failure after the stop reason ends the turn
        as if the body had."""
        translator: _Translator = ChatStreamTranslator() if self._api == "chat" else ResponsesStreamTranslator()
        decoder = SseDecoder()
        try:
            async for line in lines:
                frame = decoder.feed(line)
                if frame is None:
                    continue
                for event in translator.feed_frame(frame):
                    yield event  # noqa: ASYNC911 - a pass-through of the response body, which checkpoints as it reads
                if translator.done:
                    await _drain(lines)
                    break
        except _FAILURES as exc:
            if translator.turn.stop is None:
                raise error_from_exception(exc) from exc
        for event in translator.end():
            yield event  # noqa: ASYNC911 - a pass-through of the response body, which checkpoints as it reads


__all__ = ["Api", "ConnectionOptions", "MaxTokensField", "OpenAIModel"]
