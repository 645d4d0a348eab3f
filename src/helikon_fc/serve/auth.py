"""Bearer-token authentication as pure ASGI middleware (it never buffers a response, so streams stay live)."""

from __future__ import annotations

import hmac
import json
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Receive, Scope, Send

OPEN_PATHS = ("/health",)
"""Paths served without a token (besides the inspector page and its static files)."""


def _is_open(path: str) -> bool:
    return path in OPEN_PATHS or path == "/" or path.startswith("/static/")


class BearerAuth:
    """Answers 401 unless the request carries `token` (``Authorization: Bearer`` or ``?access_token=``).

    Compared in constant time (`hmac.compare_digest`), so the answer's timing says nothing about the token.
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        self._app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or _is_open(scope["path"]) or self._carries_token(scope):
            await self._app(scope, receive, send)
            return
        body = json.dumps({"error": "a valid bearer token is required", "problems": []}).encode()
        headers = [(b"content-type", b"application/json"), (b"www-authenticate", b'Bearer realm="helikon"')]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _carries_token(self, scope: Scope) -> bool:
        offered = b""
        for name, value in scope["headers"]:
            if name == b"authorization" and value[:7].lower() == b"bearer ":
                offered = value[7:].strip()
        if not offered:
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            offered = (query.get("access_token") or [""])[0].encode()
        return hmac.compare_digest(offered, self._token)
