"""Serving runs over HTTP: the ASGI app behind ``helikon serve``, the AG-UI adapter and the run inspector page.

`create_app(agents, store=...)` builds the app (the endpoints of ``docs/serve.md``); `serve(app, host, port)`
serves it with hypercorn's trio worker. Needs the ``serve`` extra (``pip install 'helikon_fc[serve]'``).
"""

from __future__ import annotations

try:
    import hypercorn as _hypercorn  # noqa: F401 - checked here so a missing extra is one clear ImportError
    import starlette as _starlette  # noqa: F401
except ImportError as exc:  # pragma: no cover - the extra is installed wherever the tests run
    raise ImportError(
        f"helikon_fc.serve needs the serve extra ({exc.name} is missing): pip install 'helikon_fc[serve]'"
    ) from exc

from .app import create_app as create_app
from .event_log import EventLog as EventLog, MemoryEventLog as MemoryEventLog, SQLiteEventLog as SQLiteEventLog
from .server import serve as serve

__all__ = ["EventLog", "MemoryEventLog", "SQLiteEventLog", "create_app", "serve"]
