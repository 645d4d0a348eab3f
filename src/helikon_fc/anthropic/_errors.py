"""How Anthropic failures become typed `ModelError`s.

The mapping, in order (the first rule that applies wins), for HTTP errors and for ``error`` events
in a stream alike (an event has no status, so its ``error.type`` decides):

- a message saying the prompt is too long (``invalid_request_error``: "prompt is too long: ...
  tokens > ... maximum") -> ``CONTEXT_LENGTH``;
- HTTP 401 / ``authentication_error`` and HTTP 403 / ``permission_error`` -> ``REFUSED`` (the
  credentials were refused, as for OpenAI);
- HTTP 429 / ``rate_limit_error`` -> ``RATE_LIMITED``, with ``retry_after`` from ``Retry-After``;
- HTTP 529 / ``overloaded_error``, HTTP 500, 502, 503, 504 / ``api_error`` -> ``UNAVAILABLE``;
- connection failures, timeouts and broken streams -> ``TRANSPORT``;
- anything else (400 ``invalid_request_error``, 413 ``request_too_large``, 404 ...) -> ``OTHER``,
  the message saying which.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping

import anthropic
import httpx2

from ..core import ModelFailureKind
from ..models.protocol import ModelError

_UNAVAILABLE_STATUSES = frozenset({500, 502, 503, 504, 529})
_UNAVAILABLE_TYPES = frozenset({"overloaded_error", "api_error"})
_CONTEXT_PHRASES = ("prompt is too long", "context window", "context length", "too many tokens")
_BODY_SHOWN = 300


def retry_after_seconds(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """The server's ``Retry-After`` hint in seconds (a number or an HTTP date); `None` if missing or unreadable."""
    raw = next((value for key, value in headers.items() if key.lower() == "retry-after"), None)
    if raw is None:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        return max(when.timestamp() - (time.time() if now is None else now), 0.0)
    return seconds if seconds >= 0.0 else None


def _kind(status: int | None, error_type: str | None, message: str) -> ModelFailureKind:
    """The failure kind for an HTTP status (or `None` for a stream event) and the body's ``error.type``."""
    if any(phrase in message.lower() for phrase in _CONTEXT_PHRASES):
        return ModelFailureKind.CONTEXT_LENGTH
    if status in (401, 403) or error_type in ("authentication_error", "permission_error"):
        return ModelFailureKind.REFUSED
    if status == 429 or error_type == "rate_limit_error":
        return ModelFailureKind.RATE_LIMITED
    if status in _UNAVAILABLE_STATUSES or error_type in _UNAVAILABLE_TYPES:
        return ModelFailureKind.UNAVAILABLE
    return ModelFailureKind.OTHER


def _body_error(body: object) -> tuple[str | None, str | None]:
    """``(type, message)`` of an Anthropic error body (``{"type": "error", "error": {...}}`` or its inner object)."""
    if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
        body = body["error"]
    if not isinstance(body, Mapping):
        return None, None
    error_type, message = body.get("type"), body.get("message")
    return (error_type if isinstance(error_type, str) else None, message if isinstance(message, str) else None)


def _shown(body: object) -> str:
    if body is None or body == "":
        return "empty body"
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
    return text if len(text) <= _BODY_SHOWN else text[:_BODY_SHOWN] + "..."


def error_from_status(
    status: int, headers: Mapping[str, str], body: object, *, endpoint: str | None = None
) -> ModelError:
    """A `ModelError` for an HTTP error response: the status, the endpoint, the error type and message."""
    error_type, message = _body_error(body)
    where = f" from {endpoint}" if endpoint else ""
    label = f" {error_type}" if error_type else ""
    text = f"HTTP {status}{label}{where}: {message or _shown(body)}"
    kind = _kind(status, error_type, message or "")
    if kind is ModelFailureKind.CONTEXT_LENGTH:
        text = f"the context is too long ({text})"
    elif status == 404:
        text += "; check base_url (the SDK adds /v1/messages to it: give the server's root, without /v1)"
    retry_after = retry_after_seconds(headers) if kind is ModelFailureKind.RATE_LIMITED else None
    return ModelError(kind, text, retry_after=retry_after)


def stream_error(error: Mapping[str, object]) -> ModelError:
    """A `ModelError` for an ``error`` event in the stream (its ``error.type`` and ``error.message``)."""
    error_type, message = _body_error(error)
    text = message or "unknown error"
    kind = _kind(None, error_type, text)
    return ModelError(kind, f"stream error ({error_type}): {text}" if error_type else f"stream error: {text}")


def _endpoint(exc: anthropic.APIStatusError) -> str | None:
    """``"POST <url>"`` of the request that failed, if the response still knows it."""
    try:
        request = exc.response.request
    except RuntimeError:
        return None
    return f"{request.method} {request.url}"


def error_from_exception(exc: BaseException) -> ModelError:
    """A `ModelError` for an exception the SDK or the HTTP client raised."""
    match exc:
        case anthropic.APIStatusError():
            return error_from_status(exc.status_code, exc.response.headers, exc.body, endpoint=_endpoint(exc))
        case anthropic.APITimeoutError():
            return ModelError(ModelFailureKind.TRANSPORT, f"request timed out: {exc}")
        case anthropic.APIConnectionError():
            return ModelError(ModelFailureKind.TRANSPORT, f"connection failed: {exc.__cause__ or exc}")
        case httpx2.TimeoutException():
            return ModelError(ModelFailureKind.TRANSPORT, f"timed out reading the stream: {exc}")
        case httpx2.TransportError() | httpx2.StreamError():
            return ModelError(ModelFailureKind.TRANSPORT, f"the stream broke: {exc or type(exc).__name__}")
        case _:
            return ModelError(ModelFailureKind.OTHER, f"{type(exc).__name__}: {exc}")
