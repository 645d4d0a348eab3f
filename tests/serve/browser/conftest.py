"""Fixtures of the inspector's browser tests: the real app in a server process of its own, and headless
Chromium from Debian's packages driven through its chromedriver (no download, no network)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "inspector-test-token"
"""The served app's access token: the page gets it as ``#token=...`` and must send it on every request."""
URL_SAID = re.compile(r"helikon serve: .* at (http://\S+)")
"""How ``helikon serve`` says where it listens."""
INSTALL = "install Debian's packages: apt-get install chromium chromium-driver"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives headless Chromium (Debian's chromium and chromium-driver)")


def _program(env: str, *names: str) -> str:
    """The path of a browser program: `env` if set, else the first of `names` on PATH; else a failure saying
    what to install."""
    given = os.environ.get(env)
    found = given or next((path for name in names if (path := shutil.which(name))), None)
    if not found or not os.access(found, os.X_OK):
        pytest.fail(f"the browser tests need {names[0]} ({env} or PATH), not found: {INSTALL}", pytrace=False)
    return found


@pytest.fixture(scope="session")
def chromium() -> Iterator[WebDriver]:
    """Headless Chromium, collecting the page's console messages (``driver.get_log("browser")``)."""
    options = Options()
    options.binary_location = _program("HELIKON_CHROMIUM", "chromium", "chromium-browser")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,1600"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=_program("HELIKON_CHROMEDRIVER", "chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of ``helikon serve`` serving the inspector's test agents, a process of its own on a free port."""
    database = tmp_path_factory.mktemp("inspector") / "runs.db"
    agents = "tests.serve.browser.inspector_agents"
    command = [
        sys.executable,
        "-m",
        "helikon_fc",
        "serve",
        f"{agents}:agents",
        "--permissions",
        f"{agents}:permissions",
    ]
    command += ["--store", str(database), "--port", "0", "--token", TOKEN]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    said = _Said(process)
    try:
        yield said.url()
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        said.close()


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
            pytest.fail(f"helikon serve did not start: {''.join(self.lines)}", pytrace=False)
        return found.group(1)


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: ``$HELIKON_TEST_ARTIFACTS/inspector`` when set (CI keeps it), else a pytest temp dir."""
    root = os.environ.get("HELIKON_TEST_ARTIFACTS")
    if root:
        folder = Path(root) / "inspector"
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    return tmp_path_factory.mktemp("inspector-screenshots")
