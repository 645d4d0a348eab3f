"""How Gemini API failures become typed `ModelError`s.

An HTTP error carries a ``google.rpc.Status`` body: ``{"error": {"code", "message", "status",
"details"}}``. The mapping, in order (the first rule that applies wins):

- a message saying the input is over the model's token limit -> ``CONTEXT_LENGTH``;
- HTTP 401 / 403 (``UNAUTHENTICATED``, ``PERMISSION_DENIED``: a bad or unauthorised key) -> ``REFUSED``,
  as for OpenAI (the failure kinds have no separate "auth" kind; neither is worth a retry);
- HTTP 429 (``RESOURCE_EXHAUSTED``) -> ``RATE_LIMITED``, with ``retry_after`` from the body's
  ``RetryInfo.retryDelay`` (``"37s"``), else from the ``Retry-After`` header;
- HTTP 500, 502, 503, 504 (``INTERNAL``, ``UNAVAILABLE``, ``DEADLINE_EXCEEDED``) -> ``UNAVAILABLE``;
- connection failures, timeouts and broken streams -> ``TRANSPORT``;
- anything else, 400 ``INVALID_ARGUMENT`` and ``FAILED_PRECONDITION`` among them -> ``OTHER`` (an
  invalid request: retrying it unchanged cannot help).

An error object sent inside the event stream is read the same way, by its ``code`` and ``status``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

import httpx2

from ..core import ModelFailureKind
from ..models._wire_json import JsonMap, get_int, get_list, get_map, get_str
from ..models.protocol import ModelError

_UNAVAILABLE = frozenset({500, 502, 503, 504})
_UNAVAILABLE_STATUSES = frozenset({"INTERNAL", "UNAVAILABLE", "DEADLINE_EXCEEDED"})
_CONTEXT_PHRASES = ("exceeds the maximum number of tokens", "input token count", "context window", "too many tokens")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")
_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"
_BODY_SHOWN = 300
"""How many characters of an error body without a Google-style message a `ModelError` shows."""


def duration_seconds(text: str | None) -> float | None:
    """A protobuf ``Duration`` in its JSON form (``"37s"``, ``"0.5s"``) as seconds, else `None`."""
    match = _DURATION.match(text or "")
    return float(match.group(1)) if match else None


def retry_after(error: JsonMap, headers: Mapping[str, str]) -> float | None:
    """The server's hint of how long to wait: ``RetryInfo.retryDelay`` in the details, else ``Retry-After``."""
    for detail in get_list(error, "details"):
        if get_str(detail, "@type") == _RETRY_INFO:
            seconds = duration_seconds(get_str(detail, "retryDelay"))
            if seconds is not None:
                return seconds
    raw = {key.lower(): value for key, value in headers.items()}.get("retry-after")
    try:
        seconds = float(raw) if raw is not None else -1.0
    except ValueError:
        return None
    return seconds if seconds >= 0.0 else None


def _kind(code: int, status: str | None, message: str) -> ModelFailureKind:
    if any(phrase in message.lower() for phrase in _CONTEXT_PHRASES):
        return ModelFailureKind.CONTEXT_LENGTH
    if code in (401, 403) or status in ("UNAUTHENTICATED", "PERMISSION_DENIED"):
        return ModelFailureKind.REFUSED
    if code == 429 or status == "RESOURCE_EXHAUSTED":
        return ModelFailureKind.RATE_LIMITED
    if code in _UNAVAILABLE or status in _UNAVAILABLE_STATUSES:
        return ModelFailureKind.UNAVAILABLE
    return ModelFailureKind.OTHER


def _hint(code: int) -> str:
    if code == 404:
        return "; check the model's name and base_url (the API root with its version, e.g. .../v1beta)"
    return ""


def error_from_status(code: int, headers: Mapping[str, str], body: bytes, *, endpoint: str) -> ModelError:
    """A `ModelError` for an HTTP error response (see the module docstring for the rules).

    The message names the `endpoint`, the HTTP status, the API's status word and its message (or
    the start of the body when it is not a Google error).
    """
    text = body.decode("utf-8", "replace")
    try:
        decoded: object = json.loads(text)
    except ValueError:
        decoded = None
    error = get_map(decoded, "error") if isinstance(decoded, Mapping) else {}
    status = get_str(error, "status")
    message = get_str(error, "message")
    detail = message or (text if len(text) <= _BODY_SHOWN else text[:_BODY_SHOWN] + "...") or "empty body"
    label = f" {status}" if status else ""
    kind = _kind(code, status, message or "")
    hint = retry_after(error, headers) if kind is ModelFailureKind.RATE_LIMITED else None
    return ModelError(kind, f"HTTP {code}{label} from {endpoint}: {detail}{_hint(code)}", retry_after=hint)


def stream_error(error: JsonMap) -> ModelError:
    """A `ModelError` for an ``error`` object the server sent inside the event stream."""
    code = get_int(error, "code")
    status = get_str(error, "status")
    message = get_str(error, "message") or "unknown error"
    kind = _kind(code, status, message)
    hint = retry_after(error, {}) if kind is ModelFailureKind.RATE_LIMITED else None
    label = status or (str(code) if code else None)
    return ModelError(
        kind, f"stream error ({label}): {message}" if label else f"stream error: {message}", retry_after=hint
    )


def error_from_exception(exc: BaseException) -> ModelError:
    """A `ModelError` for an exception the HTTP client raised."""
    match exc:
        case httpx2.TimeoutException():
            return ModelError(ModelFailureKind.TRANSPORT, f"timed out: {exc or type(exc).__name__}")
        case httpx2.ConnectError():
            return ModelError(ModelFailureKind.TRANSPORT, f"connection failed: {exc or type(exc).__name__}")
        case httpx2.TransportError() | httpx2.StreamError():
            return ModelError(ModelFailureKind.TRANSPORT, f"the stream broke: {exc or type(exc).__name__}")
        case _:
            return ModelError(ModelFailureKind.OTHER, f"{type(exc).__name__}: {exc}")
