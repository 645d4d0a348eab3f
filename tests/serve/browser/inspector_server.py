"""Serve the inspector's test agents on a loopback port: ``python -m tests.serve.browser.inspector_server DB [TOKEN]``.

A separate process, as ``helikon serve`` would be: it prints the URL it listens on (a free port), then
serves until SIGTERM.
"""

from __future__ import annotations

import sys

import trio
from tests.serve.browser import inspector_agents

from helikon_fc.serve import create_app, serve
from helikon_fc.stores import SQLiteStore


async def main(database: str, token: str | None) -> None:
    async with SQLiteStore(database) as store:
        app = create_app(inspector_agents.agents, store, permissions=inspector_agents.permissions, token=token)
        async with trio.open_nursery() as nursery:
            urls: list[str] = await nursery.start(serve, app, "127.0.0.1", 0)
            print(urls[0], flush=True)


if __name__ == "__main__":
    trio.run(main, sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
