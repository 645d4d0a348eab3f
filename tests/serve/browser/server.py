"""``helikon serve`` with the inspector's test agents, as a process of its own that a test can stop, kill
and start again (on the same port and store, as a restarted server would be)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "inspector-test-token"
"""The served app's access token: the page gets it as ``#token=...`` and must send it on every request."""
AGENTS = "tests.serve.browser.inspector_agents"
URL_SAID = re.compile(r"helikon serve: .* at (http://\S+)")
"""How ``helikon serve`` says where it listens."""


class Server:
    """``helikon serve`` on `database`, started by `start`: first on any free port, then again on the one it took."""

    def __init__(self, database: Path) -> None:
        self._command = [sys.executable, "-m", "helikon_fc", "serve", f"{AGENTS}:agents"]
        self._command += ["--permissions", f"{AGENTS}:permissions", "--store", str(database), "--token", TOKEN]
        self._port = 0
        self._process: subprocess.Popen[str] | None = None
        self._said: _Said | None = None

    def start(self, **environment: str) -> str:
        """Start the process, with `environment` added to this one's; the URL it listens at, once it does."""
        process = subprocess.Popen(
            [*self._command, "--port", str(self._port)],
            cwd=ROOT,
            env={**os.environ, **environment},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._process, self._said = process, _Said(process)
        url = self._said.url()
        self._port = urlsplit(url).port or 0  # a restart listens where this one does
        return url

    def stop(self) -> None:
        """SIGTERM (the server's own shutdown), SIGKILL after 15 s."""
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self._closed()

    def kill(self) -> None:
        """SIGKILL: the process dies where it stands, as a crashed server would."""
        if self._process is not None:
            self._process.kill()
            self._process.wait()
        self._closed()

    def _closed(self) -> None:
        if self._said is not None:
            self._said.close()
        self._process, self._said = None, None


class _Said:
    """What the server writes to stderr, read by a thread all along (so a full pipe never blocks it)."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self._process = process
        self.lines: list[str] = []
        self._found = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._process.stderr is not None
        for line in self._process.stderr:
            self.lines.append(line)
            if URL_SAID.search(line):
                self._found.set()
        self._found.set()

    def close(self) -> None:
        """Once the process ended: finish reading and close the pipe."""
        self._reader.join(timeout=5)
        assert self._process.stderr is not None
        self._process.stderr.close()

    def url(self) -> str:
        """The URL the server says it listens at (within 30 s), or a failure quoting what it wrote."""
        self._found.wait(timeout=30)
        found = next((match for line in self.lines if (match := URL_SAID.search(line))), None)
        if found is None:
            self._process.kill()
            self._process.wait()
            self.close()
            pytest.fail(f"helikon serve did not start: {''.join(self.lines)}", pytrace=False)
        return found.group(1)
