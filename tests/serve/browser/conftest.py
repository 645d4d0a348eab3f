"""Fixtures of the inspector's browser tests: the real app in a server process of its own, and headless
Chromium from Debian's packages driven through its chromedriver (no download, no network)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from tests.serve.browser.server import Server

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
    server = Server(tmp_path_factory.mktemp("inspector") / "runs.db")
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: ``$HELIKON_TEST_ARTIFACTS/inspector`` when set (CI keeps it), else a pytest temp dir."""
    root = os.environ.get("HELIKON_TEST_ARTIFACTS")
    if root:
        folder = Path(root) / "inspector"
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    return tmp_path_factory.mktemp("inspector-screenshots")
