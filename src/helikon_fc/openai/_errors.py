"""How OpenAI failures become typed `ModelError`s.

The mapping, in order (the first rule that applies wins):

- an error whose code is ``context_length_exceeded`` (or whose message says the context is too
  long) -> ``CONTEXT_LENGTH``;
- a content-filter error (type or code ``content_filter``), HTTP 401 and HTTP 403 -> ``REFUSED``;
- HTTP 429 -> ``RATE_LIMITED``, with ``retry_after`` from ``retry-after-ms`` or ``Retry-After``
  (except ``insufficient_quota``, which waiting does not fix -> ``OTHER``);
- HTTP 500, 502, 503, 504 and 529 -> ``UNAVAILABLE``;
- connection failures, timeouts and broken streams -> ``TRANSPORT``;
- anything else -> ``OTHER``.

A content filter reported as a *stop reason* is not an error: it is ``ModelFinish(CONTENT_FILTER)``.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping

import httpx2
import openai

from ..core import ModelFailureKind
from ..models.protocol import ModelError

_UNAVAILABLE_STATUSES = frozenset({500, 502, 503, 504, 529})
_CONTEXT_PHRASES = (
    "context_length_exceeded",
    "maximum context length",
    "context window",
    "too many tokens",
    "exceed_context_size",  # llama.cpp's server: type exceed_context_size_error
    "available context size",  # llama.cpp's server: "the request exceeds the available context size"
)
_BODY_SHOWN = 300
"""How many characters of an error body without an OpenAI-style message a `ModelError` shows."""


def retry_after_seconds(headers: httpx2.Headers | Mapping[str, str], *, now: float | None = None) -> float | None:
    """The server's hint of how long to wait, in seconds: ``retry-after-ms`` first, then ``Retry-After``.

    ``Retry-After`` may be a number of seconds or an HTTP date. Missing, negative or unreadable
    values give `None`.
    """
    lowered = {key.lower(): value for key, value in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000.0
        except ValueError:
            value = -1.0
        if value >= 0.0:
            return value
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
        return max(seconds, 0.0)
    return seconds if seconds >= 0.0 else None


def kind_of_error_body(code: str | None, error_type: str | None, message: str) -> ModelFailureKind | None:
    """The failure kind an error *body* alone decides (context length, content filter), else `None`."""
    words = " ".join(part for part in (code, error_type, message.lower()) if part)
    if code == "context_length_exceeded" or any(phrase in words for phrase in _CONTEXT_PHRASES):
        return ModelFailureKind.CONTEXT_LENGTH
    if "content_filter" in (code, error_type) or code == "content_policy_violation":
        return ModelFailureKind.REFUSED
    return None


def reported_error(error: Mapping[str, object]) -> ModelError:
    """The `ModelError` for an ``error`` object a stream reported (its ``code``, ``type`` and ``message``)."""

    def text(key: str) -> str | None:
        value = error.get(key)
        return value if isinstance(value, str) else None

    return stream_error(text("code"), text("type"), text("message") or "unknown error")


def stream_error(code: str | None, error_type: str | None, message: str) -> ModelError:
    """A `ModelError` for an error the server reported inside an event stream (no HTTP status to go by)."""
    kind = kind_of_error_body(code, error_type, message)
    if kind is None:
        if code in ("rate_limit_exceeded", "rate_limit_error"):
            kind = ModelFailureKind.RATE_LIMITED
        elif code in ("server_error", "overloaded", "service_unavailable") or error_type in (
            "server_error",
            "overloaded_error",
        ):
            kind = ModelFailureKind.UNAVAILABLE
        else:
            kind = ModelFailureKind.OTHER
    label = code or error_type
    return ModelError(kind, f"stream error ({label}): {message}" if label else f"stream error: {message}")


def _body_fields(body: object) -> tuple[str | None, str | None, str | None]:
    """``(code, type, message)`` from an OpenAI error body (``{"error": {...}}`` or its inner object)."""
    if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
        body = body["error"]
    if not isinstance(body, Mapping):
        return None, None, None
    code, error_type, message = body.get("code"), body.get("type"), body.get("message")
    return (
        str(code) if code is not None else None,
        error_type if isinstance(error_type, str) else None,
        message if isinstance(message, str) else None,
    )


def _body_text(body: object) -> str | None:
    """The body as shown when it has no OpenAI-style message (``{"detail": "Not Found"}``), cut to a readable length."""
    if body is None or body == "":
        return None
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
    return text if len(text) <= _BODY_SHOWN else text[:_BODY_SHOWN] + "..."


def _hint(status: int, endpoint: str | None) -> str:
    """What a 404 probably means: the server lacks the endpoint (often the Responses API) or the base URL is off."""
    if status != 404 or endpoint is None:
        return ""
    if endpoint.rstrip("/").endswith("/responses"):
        return (
            "; the server may not implement the Responses API: use OpenAIModel.chat (Chat Completions) "
            "or check base_url"
        )
    return "; check base_url (OpenAI-compatible servers usually serve under /v1)"


def error_from_status(
    status: int, headers: httpx2.Headers | Mapping[str, str], body: object, *, endpoint: str | None = None
) -> ModelError:
    """A `ModelError` for an HTTP error response (see the module docstring for the rules).

    The message names the `endpoint` (``"POST <url>"``) when known, quotes the server's message,
    or else its body, and on a 404 says what is probably wrong.
    """
    code, error_type, body_message = _body_fields(body)
    detail = body_message or _body_text(body) or "empty body"
    where = f" from {endpoint}" if endpoint else ""
    message = f"HTTP {status}{where}: {detail}" + (f" ({code})" if code else "") + _hint(status, endpoint)
    kind = kind_of_error_body(code, error_type, body_message or "")
    retry_after: float | None = None
    if kind is None:
        if status in (401, 403):
            kind = ModelFailureKind.REFUSED
        elif status == 429 and code != "insufficient_quota":
            kind = ModelFailureKind.RATE_LIMITED
            retry_after = retry_after_seconds(headers)
        elif status in _UNAVAILABLE_STATUSES:
            kind = ModelFailureKind.UNAVAILABLE
        else:
            kind = ModelFailureKind.OTHER
    return ModelError(kind, message, retry_after=retry_after)


def _endpoint(exc: openai.APIStatusError) -> str | None:
    """``"POST <url>"`` of the request that failed, if the response still knows it."""
    try:
        request = exc.response.request
    except RuntimeError:
        return None
    return f"{request.method} {request.url}"


def error_from_exception(exc: BaseException) -> ModelError:
    """A `ModelError` for an exception the SDK or the HTTP client raised."""
    match exc:
        case openai.APIStatusError():
            return error_from_status(exc.status_code, exc.response.headers, exc.body, endpoint=_endpoint(exc))
        case openai.APITimeoutError():
            return ModelError(ModelFailureKind.TRANSPORT, f"request timed out: {exc}")
        case openai.APIConnectionError():
            cause = exc.__cause__
            return ModelError(ModelFailureKind.TRANSPORT, f"connection failed: {cause or exc}")
        case openai.APIError():
            code, error_type, message = _body_fields(exc.body)
            return stream_error(code or exc.code, error_type or exc.type, message or exc.message)
        case httpx2.TimeoutException():
            return ModelError(ModelFailureKind.TRANSPORT, f"timed out reading the stream: {exc}")
        case httpx2.TransportError() | httpx2.StreamError():
            return ModelError(ModelFailureKind.TRANSPORT, f"the stream broke: {exc or type(exc).__name__}")
        case _:
            return ModelError(ModelFailureKind.OTHER, f"{type(exc).__name__}: {exc}")
