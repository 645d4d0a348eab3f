"""`serve`: an app from `create_app` on hypercorn's trio worker, with the loopback rule and SIGTERM handling."""

from __future__ import annotations

import ipaddress
import logging
import signal
from typing import Any, cast

import trio
from hypercorn.config import Config
from hypercorn.trio import serve as hypercorn_serve
from starlette.applications import Starlette

log = logging.getLogger("helikon_fc.serve")

BACKLOG = 1024
"""Connections the kernel queues before the server accepts them (hypercorn's default, 100, drops a burst of clients)."""
GRACE_SECONDS = 5.0
"""How long requests still under way may take to finish once the runs are interrupted at shutdown."""


def is_loopback(host: str) -> bool:
    """Whether `host` only listens on this machine (``localhost``, ``127.0.0.0/8``, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


async def serve(  # noqa: ASYNC128 - hypercorn calls `task_status.started` once it listens
    app: Starlette,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve `app` on ``host:port`` until SIGTERM or SIGINT (or cancellation); started reports the bound URLs.

    Without a token (``create_app(token=None)``) only a loopback host is accepted. On SIGTERM new runs are
    refused (503), the running ones are interrupted at their next checkpoint (their records stay
    resumable: ``POST /runs/{id}/resume`` after a restart), every event stream ends with an ``end`` event,
    then the server stops.

    Raises:
        ValueError: no token and a host that is not loopback.
    """
    if not app.state.token_required:
        if not is_loopback(host):
            raise ValueError(
                f"host {host!r} is not loopback, and the app has no token: anyone who can reach it could run "
                "agents. Give a token (--token or HELIKON_SERVE_TOKEN) or serve on 127.0.0.1"
            )
        log.warning("no token: serving on loopback only (%s)", host)
    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.graceful_timeout = GRACE_SECONDS
    config.backlog = BACKLOG
    config.accesslog = None
    hub: Any = app.state.hub

    async def stopping() -> None:
        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async for _ in signals:
                break
        log.warning("stopping: new runs are refused, running ones interrupted (resumable)")
        await hub.shutdown()

    await hypercorn_serve(cast(Any, app), config, shutdown_trigger=stopping, task_status=task_status)
