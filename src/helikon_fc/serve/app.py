"""`create_app`: the HTTP contract of ``helikon serve`` as a Starlette app (see ``docs/serve.md``)."""

from __future__ import annotations

import datetime
import json
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import trio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from ..pricing import default_prices
from ..shell.context.run_context import Hook, RunContext
from ..shell.control.guardrails import Guardrail
from ..shell.control.permissions import Permissions
from ..shell.durable.storage import Store
from ..shell.loop.protocol import Agent
from ..shell.loop.runner import Runner
from ..stores import SQLiteStore
from . import bodies
from ._served import agents_by_name
from .ag_ui import AgUiEndpoint, ag_ui_endpoint
from .auth import BearerAuth
from .envelopes import CachedPrices
from .errors import ServeError, bad_request
from .event_log import EventLog, MemoryEventLog, RunLine, SQLiteEventLog
from .hub import ContextFactory, RunHub
from .streams import EventStream, follow

log = logging.getLogger("helikon_fc.serve")

DEFAULT_STORE = "runs.db"
"""The SQLite file a server records its runs in when no store is given."""
STATIC = Path(__file__).parent / "static"
"""The inspector page's files, served at ``/`` and ``/static``."""
STATUSES = frozenset({"running", "paused", "completed", "failed", "cancelled", "interrupted"})
"""A run summary's statuses (``GET /runs?status=`` takes one of them)."""
MAX_POSITION = 2**63 - 1
"""The largest position a Last-Event-ID may name (the event log's SQLite integers stop there)."""
DEFAULT_MAX_BODY_BYTES = 1_000_000
"""The largest request body taken by default (413 above it)."""


def create_app(
    agents: Sequence[Agent[Any]] | Mapping[str, Agent[Any]],
    store: Store | None = None,
    *,
    permissions: Permissions | None = None,
    hooks: Sequence[Hook[Any]] = (),
    input_guardrails: Sequence[Guardrail[Any]] = (),
    output_guardrails: Sequence[Guardrail[Any]] = (),
    token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    event_log: EventLog | None = None,
) -> Starlette:
    """The ASGI app serving `agents`' runs over HTTP; serve it with hypercorn's trio worker (`serve`).

    Args:
        agents: the served agents, by name (a mapping) or as a sequence (each under its own name).
        store: where runs are recorded (and resumed from); a `SQLiteStore` on ``runs.db`` when `None`
            (opened and closed by the app; a store you pass stays yours to close).
        permissions: decide every tool call of the served runs; a call they ask about pauses its run until
            ``POST /runs/{id}/approvals`` decides it.
        hooks, input_guardrails, output_guardrails: run-level hooks and guardrails of every served run.
        token: when set, every endpoint but ``/health`` and the page needs ``Authorization: Bearer <token>``
            (or ``?access_token=<token>``).
        max_body_bytes: the largest request body taken (413 above it).
        event_log: where the streamed envelopes are logged; by default a SQLite file beside a `SQLiteStore`'s
            (``runs.db`` -> ``runs.events.db``, so positions survive a restart), or memory for other stores.

    Raises:
        TypeError, ValueError: a bad argument (named in the message).
    """
    served = agents_by_name(agents, "create_app")
    _check_limits(max_body_bytes, token)
    owned_store = store is None
    run_store: Store = SQLiteStore(DEFAULT_STORE) if store is None else store
    log_of_events = event_log if event_log is not None else _default_log(run_store)
    context = _contexts(run_store, permissions, tuple(hooks), tuple(input_guardrails), tuple(output_guardrails))
    context(None)  # bad permissions, hooks or guardrails are refused here, not by the first run

    hub = RunHub(served, run_store, log_of_events, context, CachedPrices(default_prices()))
    lifespan = _lifespan(hub, log_of_events, run_store if owned_store else None)
    ag_ui = ag_ui_endpoint(
        served,
        runner=Runner(store=run_store),
        context=lambda _request: hub.own(context(None)),  # cancelled at shutdown: its stream ends properly
        sessions=run_store.session,
        max_body_bytes=max_body_bytes,
    )
    routes = [*_routes(hub, max_body_bytes), *_ag_ui_routes(ag_ui), *_page_routes()]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={404: _refused, 405: _refused})
    app.state.hub = hub
    app.state.token_required = token is not None
    if token is not None:
        app.add_middleware(_Wrap, wrapper=lambda inner: BearerAuth(inner, token))
    return app


def _check_limits(max_body_bytes: int, token: str | None) -> None:
    """Refuse a bad body limit or token when the app is built, not on its first request."""
    if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int) or max_body_bytes < 1:
        raise ValueError(f"create_app: max_body_bytes must be a positive int, got {max_body_bytes!r}")
    if token is not None and (not isinstance(token, str) or not token):
        raise ValueError("create_app: token must be a non-empty string or None")


def _contexts(
    store: Store,
    permissions: Permissions | None,
    hooks: tuple[Hook[Any], ...],
    input_guardrails: tuple[Guardrail[Any], ...],
    output_guardrails: tuple[Guardrail[Any], ...],
) -> ContextFactory:
    """The served runs' context factory, so every run gets the server's controls on a fresh context."""

    def context(session_id: str | None) -> RunContext[Any]:
        """A fresh context per run: its session (kept in the store) and the served module's controls."""
        session = store.session(session_id) if session_id else None
        ctx: RunContext[Any] = RunContext.ephemeral(None, session=session).with_permissions(permissions)
        return (
            ctx.with_hooks(*hooks).with_input_guardrails(*input_guardrails).with_output_guardrails(*output_guardrails)
        )

    return context


def _lifespan(
    hub: RunHub, events: EventLog, owned_store: Store | None
) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    """The app's lifespan: the hub's nursery while it serves, then the event log (and a store it opened) closed."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            async with trio.open_nursery() as nursery:
                hub.nursery = nursery
                yield
                await hub.shutdown()
        finally:
            with trio.CancelScope(shield=True):
                await events.aclose()
                if owned_store is not None:
                    await owned_store.aclose()

    return lifespan


class _Wrap:
    """Starlette middleware around an ASGI wrapper built by `wrapper` (pure ASGI, so responses stream)."""

    def __init__(self, app: ASGIApp, wrapper: Any) -> None:
        self._inner: ASGIApp = wrapper(app)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self._inner(scope, receive, send)


def _default_log(store: Store) -> EventLog:
    if isinstance(store, SQLiteStore) and store.path != ":memory:":
        return SQLiteEventLog(events_path(store.path))
    log.warning("the event log is kept in memory: Last-Event-ID positions do not survive a restart")
    return MemoryEventLog()


def events_path(store_path: str) -> str:
    """The event log's file beside a SQLite store's: ``runs.db`` -> ``runs.events.db``.

    A file of its own, not tables in the store's: two connections writing one SQLite file take turns on its
    write lock, and a writer that finds it taken backs off in sleeps of up to 100 ms (measured: p50 emission
    to receipt went from 1 ms to over 100 ms with 30 concurrent runs).
    """
    stem, dot, suffix = store_path.rpartition(".")
    return f"{stem}.events.{suffix}" if dot and "/" not in suffix and os.sep not in suffix else f"{store_path}.events"


def _routes(hub: RunHub, max_body_bytes: int) -> list[Route]:
    """The ``/health``, ``/agents`` and ``/runs`` endpoints, each answering a `ServeError` in the error shape."""
    served = _Endpoints(hub, max_body_bytes)
    handlers = [
        Route("/health", served.health, methods=["GET"]),
        Route("/agents", served.agents, methods=["GET"]),
        Route("/runs", served.start, methods=["POST"]),
        Route("/runs", served.listing, methods=["GET"]),
        Route("/runs/{run_id}/events", served.events, methods=["GET"]),
        Route("/runs/{run_id}/approvals", served.approvals, methods=["POST"]),
        Route("/runs/{run_id}/cancel", served.cancel, methods=["POST"]),
        Route("/runs/{run_id}/resume", served.resume, methods=["POST"]),
        Route("/runs/{run_id}", served.one, methods=["GET"]),
    ]
    return [Route(r.path, _answering_errors(r.endpoint), methods=r.methods) for r in handlers]


class _Endpoints:
    """The endpoints of ``/health``, ``/agents`` and ``/runs``, one method each, over the app's `RunHub`."""

    def __init__(self, hub: RunHub, max_body_bytes: int) -> None:
        self._hub = hub
        self._max_body_bytes = max_body_bytes

    async def health(self, request: Request) -> Response:
        """``GET /health``: up, and how many runs are active."""
        await trio.lowlevel.checkpoint()  # async, as Starlette would run a sync endpoint in a worker thread
        return JSONResponse({"status": "ok", "active_runs": len(self._hub.active)})

    async def agents(self, request: Request) -> Response:
        """``GET /agents``: the served agents' names and descriptions."""
        await trio.lowlevel.checkpoint()
        listed = [
            {"name": name, "description": getattr(a, "description", "") or ""} for name, a in self._hub.agents.items()
        ]
        return JSONResponse({"agents": listed})

    async def start(self, request: Request) -> Response:
        """``POST /runs``: start a run; stream its events when the client accepts an event stream."""
        asked = bodies.start_run(await bodies.read_json(request, self._max_body_bytes))
        run_id = await self._hub.start(asked.agent, asked.input, asked.session_id, asked.run_id, asked.config)
        if "text/event-stream" in request.headers.get("accept", ""):
            return EventStream(follow(self._hub, run_id, 0))
        return JSONResponse({"run_id": run_id}, status_code=202)

    async def listing(self, request: Request) -> Response:
        """``GET /runs``: the run summaries, filtered by ``status`` and ``agent`` when given."""
        wanted = {key: request.query_params.get(key) or None for key in ("status", "agent")}  # (empty: any)
        if wanted["status"] is not None and wanted["status"] not in STATUSES:
            listed = ", ".join(sorted(STATUSES))
            raise bad_request(
                "no such run status", [f"status: {wanted['status']!r} is no run status (one of: {listed})"]
            )
        lines = [
            line
            for line in await self._hub.lines()
            if all(value is None or getattr(line, key) == value for key, value in wanted.items())
        ]
        return JSONResponse({"runs": [summary(line) for line in lines]})

    async def one(self, request: Request) -> Response:
        """``GET /runs/{run_id}``: a run's summary, its pending calls and every logged envelope."""
        run_id = request.path_params["run_id"]
        line = await self._hub.status(run_id)
        envelopes: list[object] = []
        after = 0
        while batch := await self._hub.log.read(run_id, after, 1000):
            envelopes.extend(json.loads(logged.data) for logged in batch)
            after = batch[-1].position
        body = {"run": summary(line), "pending": json.loads(line.pending), "events": envelopes}
        return JSONResponse(body)

    async def events(self, request: Request) -> Response:
        """``GET /runs/{run_id}/events``: a run's envelopes as an event stream, from the Last-Event-ID on."""
        run_id = request.path_params["run_id"]
        await self._hub.status(run_id)  # 404 for an unknown run
        return EventStream(follow(self._hub, run_id, _last_event_id(request)))

    async def approvals(self, request: Request) -> Response:
        """``POST /runs/{run_id}/approvals``: decide a paused run's waiting calls."""
        run_id = request.path_params["run_id"]
        decided = bodies.decisions(await bodies.read_json(request, self._max_body_bytes))
        await self._hub.decide(run_id, decided)
        return JSONResponse({"run_id": run_id}, status_code=202)

    async def cancel(self, request: Request) -> Response:
        """``POST /runs/{run_id}/cancel``: cancel a run."""
        run_id = request.path_params["run_id"]
        await self._hub.cancel(run_id)
        return JSONResponse({"run_id": run_id}, status_code=202)

    async def resume(self, request: Request) -> Response:
        """``POST /runs/{run_id}/resume``: continue an interrupted run from its last boundary."""
        run_id = request.path_params["run_id"]
        await self._hub.resume(run_id)
        return JSONResponse({"run_id": run_id}, status_code=202)


def _ag_ui_routes(endpoint: AgUiEndpoint) -> list[Route]:
    """``POST /ag-ui`` (the agent named in ``forwardedProps.agent`` when several are served) and ``/ag-ui/{agent}``.

    AG-UI runs are the request's own: a client that disconnects cancels its run; they are recorded in the
    store under the request's ``runId`` (and listed by ``helikon runs``), not in the event log of ``/runs``.
    """
    return [Route("/ag-ui", endpoint, methods=["POST"]), Route("/ag-ui/{agent}", endpoint, methods=["POST"])]


def _page_routes() -> list[BaseRoute]:
    """The run inspector: its page at ``/`` and its files under ``/static`` (in the package; nothing from outside)."""

    async def page(request: Request) -> Response:
        await trio.lowlevel.checkpoint()  # async, as Starlette would run a sync endpoint in a worker thread
        return FileResponse(STATIC / "index.html", media_type="text/html")

    return [Route("/", page, methods=["GET"]), Mount("/static", app=StaticFiles(directory=STATIC), name="static")]


def _answering_errors(endpoint: Any) -> Any:
    async def answer(request: Request) -> Response:
        try:
            response: Response = await endpoint(request)
        except ServeError as exc:
            return JSONResponse(  # noqa: ASYNC910 - the endpoint raised from an await
                {"error": exc.message, "problems": exc.problems}, status_code=exc.status
            )
        return response

    return answer


async def _refused(request: Request, exc: Exception) -> Response:
    """The router's own refusals (no such path, a method it does not take) in the error shape of the rest."""
    await trio.lowlevel.checkpoint()
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    where = f"{request.method} {request.url.path}"
    error = f"no such endpoint: {where}" if status == 404 else f"{where}: method not allowed"
    return JSONResponse({"error": error, "problems": []}, status_code=status, headers=getattr(exc, "headers", None))


def _last_event_id(request: Request) -> int:
    text = request.headers.get("last-event-id") or request.query_params.get("last_event_id") or "0"
    # ("²".isdigit() holds and int() refuses it; int() also refuses over 4,300 digits)
    if not (text.isascii() and text.isdigit() and len(text) <= 19) or int(text) > MAX_POSITION:
        message = f"Last-Event-ID must be a position (an integer from 0 to {MAX_POSITION})"
        raise bad_request(message, [f"Last-Event-ID: got {text!r}"])
    return int(text)


def summary(line: RunLine) -> dict[str, object]:
    """A run's summary as ``GET /runs`` lists it."""
    started = datetime.datetime.fromtimestamp(line.started_at, datetime.UTC)
    duration = None if line.ended_at is None else int((line.ended_at - line.started_at) * 1000)
    return {
        "run_id": line.run_id,
        "agent": line.agent,
        "status": line.status,
        "started_at": started.isoformat().replace("+00:00", "Z"),
        "duration_ms": duration,
        "requests": line.requests,
        "cost": line.cost,
        "error": line.error,
    }
