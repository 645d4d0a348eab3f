"""`GeminiModel`: the `Model` protocol over the Gemini API's REST endpoints, on ``httpx2``.

Why not Google's ``google-genai`` SDK: its async client needs a running asyncio event loop
(under trio it fails with ``RuntimeError: no running event loop``), and this project runs on
trio. The two endpoints the provider needs, ``models/{model}:streamGenerateContent?alt=sse``
and ``models/{model}:generateContent``, are plain JSON over HTTPS, so they are spoken directly
over ``httpx2`` (the HTTP client the ``openai`` SDK already brings, which runs on trio).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from types import TracebackType
from typing import cast

import httpx2
import trio

from ..core import ModelEvent, ModelFailureKind, ModelRequest
from ..models._run_clients import RunClients, close_shielded
from ..models._wire_json import decode_map
from ..models.protocol import ModelError, ModelStream
from ._errors import error_from_exception, error_from_status
from ._request import request_body
from ._signatures import SHARED
from ._sse import SseData
from ._stream import GeminiStreamTranslator

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
"""The Gemini API's root, with its version."""

DEFAULT_VERSION = "v1beta"
"""The API version a ``base_url`` without a path gets (the version the API reference documents first)."""

KEY_VARIABLES = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
"""Where the API key is read from when none is passed, in this order (Google's own SDK's order)."""

_FAILURES: tuple[type[BaseException], ...] = (httpx2.HTTPError, httpx2.StreamError)
_DEFAULT_TIMEOUT = 600.0
_CONNECT_TIMEOUT = 10.0


def _bad(argument: str, got: object, allowed: str) -> str:
    """The one shape of a bad-argument message: ``GeminiModel: <argument> must be <allowed>, got <got> (<type>)``."""
    text = repr(got)
    shown = text if len(text) <= 60 else text[:57] + "..."
    return f"GeminiModel: {argument} must be {allowed}, got {shown} ({type(got).__name__})"


def _checked(model: object, stream: object, include_thoughts: object, timeout: object, headers: object) -> str:
    """The model's name (a ``models/`` prefix dropped), once every argument but the connection ones is checked."""
    name = model.removeprefix("models/") if isinstance(model, str) else ""
    if not name:
        raise (TypeError if not isinstance(model, str) else ValueError)(
            _bad("model", model, "a model's name such as 'gemini-2.5-flash'")
        )
    for argument, value in (("stream", stream), ("include_thoughts", include_thoughts)):
        if not isinstance(value, bool):
            raise TypeError(_bad(argument, value, "True or False"))
    if timeout is not None:
        if not isinstance(timeout, int | float) or isinstance(timeout, bool):
            raise TypeError(_bad("timeout", timeout, "a number of seconds or None"))
        if not timeout > 0:
            raise ValueError(_bad("timeout", timeout, "> 0 seconds (or None for 600)"))
    if headers is not None and not (
        isinstance(headers, Mapping) and all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())
    ):
        raise TypeError(_bad("headers", headers, "a mapping of strings to strings or None"))
    return name


def _build_client(headers: Mapping[str, str], timeout: float) -> httpx2.AsyncClient:
    """A new HTTP client sending `headers`; a module function, so the clients never hold their model alive."""
    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(timeout, connect=min(_CONNECT_TIMEOUT, timeout)))


def _is_closed(client: httpx2.AsyncClient) -> bool:
    """Whether `client` was closed."""
    return client.is_closed


def api_root(base_url: str | None) -> str:
    """The URL the ``models/...`` paths go under: `base_url` as given, a bare host getting ``/v1beta``."""
    if base_url is None:
        return DEFAULT_BASE_URL
    url = httpx2.URL(base_url)
    if url.scheme not in ("http", "https") or not url.host:
        raise ValueError(_bad("base_url", base_url, f"an http(s) URL such as {DEFAULT_BASE_URL!r}"))
    root = base_url.rstrip("/")
    return root if url.path.strip("/") else f"{root}/{DEFAULT_VERSION}"


class GeminiModel:
    """A Gemini model behind the `Model` protocol, over the Gemini API (``docs/providers.md``).

    The model builds its own HTTP client the first time a trio run calls it, reuses it (and its
    connection pool) for every later call in that run, and closes it when the run ends;
    ``await model.aclose()`` or leaving ``async with model:`` closes it earlier. Retrying is left
    to `helikon_fc.models.RetryingModel`.

    Args:
        model: The model's name, e.g. ``"gemini-2.5-flash"`` (a ``models/`` prefix is accepted).
        api_key: The API key; defaults to ``GOOGLE_API_KEY``, then ``GEMINI_API_KEY``. Sent as
            the ``x-goog-api-key`` header; a custom ``base_url`` may be called without one.
        base_url: The API's root with its version, e.g. ``"http://127.0.0.1:8000/v1beta"``; a URL
            with no path gets ``/v1beta``. Defaults to Google's.
        stream: Stream the answer (``streamGenerateContent``), or ask for it whole
            (``generateContent``) and yield the same events from it.
        include_thoughts: Ask for the model's thought summaries (``thinkingConfig.includeThoughts``),
            streamed as reasoning and kept as `Reasoning` items.
        timeout: Seconds to wait for each read of the response (600 by default; connecting: 10).
        headers: Extra headers sent with every request.

    Raises:
        ValueError: an empty model name, a base URL that is not http(s), a timeout of 0 or less,
            or no API key and no custom base URL.
        TypeError: an argument of the wrong kind (a bool that is not one, a key that is not a string...).

    Example:
        ```python
        model = GeminiModel("gemini-2.5-flash")
        local = GeminiModel("gemini-2.5-flash", base_url="http://127.0.0.1:8000")
        ```
    """

    __slots__ = (
        "_clients",
        "_depth",
        "_headers",
        "_include_thoughts",
        "_model",
        "_root",
        "_signatures",
        "_stream_mode",
        "_timeout",
    )

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        stream: bool = True,
        include_thoughts: bool = False,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        name = _checked(model, stream, include_thoughts, timeout, headers)
        for argument, value in (("api_key", api_key), ("base_url", base_url)):
            if value is not None and not isinstance(value, str):
                raise TypeError(_bad(argument, value, "a string or None"))
        key = api_key or next((os.environ[v] for v in KEY_VARIABLES if os.environ.get(v)), None)
        if key is None and base_url is None:
            raise ValueError(
                "GeminiModel: no Gemini API key: pass api_key=, set GOOGLE_API_KEY or GEMINI_API_KEY, "
                "or pass base_url= for a server that needs none"
            )
        self._model = name
        self._root = api_root(base_url)
        self._headers = {"content-type": "application/json", **dict(headers or {})}
        if key is not None:
            self._headers["x-goog-api-key"] = key
        self._stream_mode = stream
        self._include_thoughts = include_thoughts
        self._timeout = timeout if timeout is not None else _DEFAULT_TIMEOUT
        self._signatures = SHARED
        self._clients = RunClients(
            functools.partial(_build_client, dict(self._headers), self._timeout),
            is_closed=_is_closed,
            close=httpx2.AsyncClient.aclose,
            name="helikon_fc.gemini",
        )
        self._depth = 0

    @property
    def name(self) -> str:
        """The model's name, as sent in each request's URL."""
        return self._model

    @property
    def base_url(self) -> str:
        """The API root the requests go under (with its version)."""
        return self._root

    def __repr__(self) -> str:
        return f"GeminiModel({self._model!r}, base_url={self._root!r})"

    async def __aenter__(self) -> GeminiModel:
        """Build the model's client now (so the first call does not pay for it); it is closed when the block ends."""
        self._clients.get()
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
        """Close the client this model built in the current trio run, if any (a later call builds a new one)."""
        await self._clients.close()

    def stream(self, request: ModelRequest) -> ModelStream:
        """Ask the model; the stream obeys the rules in the `Model` docstring.

        Raises:
            ModelError: on entering, when the call fails (HTTP status, connection); while
                iterating, when the stream fails part-way or ends in a refusal (see ``_stream.py``).
        """
        return self._stream(request)

    def url(self, *, stream: bool) -> str:
        """The endpoint a request goes to."""
        method = "streamGenerateContent?alt=sse" if stream else "generateContent"
        return f"{self._root}/models/{self._model}:{method}"

    @contextlib.asynccontextmanager
    async def _stream(self, request: ModelRequest) -> AsyncGenerator[AsyncIterator[ModelEvent], None]:
        body = request_body(request, self._signatures, include_thoughts=self._include_thoughts)
        payload = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        translator = GeminiStreamTranslator(self._signatures, "call_" + hashlib.sha256(payload).hexdigest()[:12])
        url = self.url(stream=self._stream_mode)
        client = self._clients.get()
        async with contextlib.AsyncExitStack() as stack:
            try:
                response = await client.send(client.build_request("POST", url, content=payload), stream=True)
            except _FAILURES as exc:
                raise error_from_exception(exc) from exc
            stack.push_async_callback(close_shielded, response.aclose)
            if response.status_code >= 400:
                raise error_from_status(
                    response.status_code, response.headers, await _body(response), endpoint=f"POST {url}"
                )
            events: AsyncGenerator[ModelEvent, None]
            if self._stream_mode:
                lines = cast(AsyncGenerator[str, None], response.aiter_lines())
                stack.push_async_callback(close_shielded, lines.aclose)
                events = _streamed(lines, translator)
            else:
                events = _whole(response, translator)
            async with contextlib.aclosing(events):
                yield events


async def _body(response: httpx2.Response) -> bytes:
    """The body of an error response, or nothing if it cannot be read."""
    try:
        return await response.aread()
    except _FAILURES:
        return b""  # noqa: ASYNC910 - the failed read was awaited


async def _streamed(  # noqa: ASYNC911 - a pass-through of the response body, which checkpoints as it reads
    lines: AsyncIterator[str], translator: GeminiStreamTranslator
) -> AsyncGenerator[ModelEvent, None]:
    """The events of a streamed body: each SSE event's response through the translator. A failure after the
    finish reason ends the turn as if the body had."""
    decoder = SseData()
    try:
        async for line in lines:
            data = decoder.feed(line)
            chunk = decode_map(data) if data is not None else None
            if chunk is not None:
                for event in translator.feed(chunk):
                    yield event  # noqa: ASYNC911
    except _FAILURES as exc:
        if translator.stop is None:
            raise error_from_exception(exc) from exc
    for event in translator.end():
        yield event  # noqa: ASYNC911


async def _whole(response: httpx2.Response, translator: GeminiStreamTranslator) -> AsyncGenerator[ModelEvent, None]:
    """The events of one non-streamed response (the same events its stream would have given)."""
    try:
        body = await response.aread()
    except _FAILURES as exc:
        raise error_from_exception(exc) from exc
    chunk = decode_map(body.decode("utf-8", "replace"))
    if chunk is None:
        raise ModelError(ModelFailureKind.TRANSPORT, f"the response is not a JSON object: {body[:200]!r}")
    for event in [*translator.feed(chunk), *translator.end()]:
        await trio.lowlevel.checkpoint()
        yield event
    await trio.lowlevel.checkpoint()
