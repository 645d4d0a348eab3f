"""A run whose server was killed mid-stream, seen from the open page: the browser's EventSource keeps
trying, reconnects with Last-Event-ID once a server is back on the same store, the page reads the run as
interrupted, and Resume run continues it to its end."""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from tests.serve.browser import inspector_agents
from tests.serve.browser.page import (
    button,
    console_errors,
    css,
    open_page,
    run_status,
    screenshot,
    start_run,
    text_of,
    wait_for,
    wait_visible,
)
from tests.serve.browser.server import TOKEN, Server

pytestmark = pytest.mark.browser

WRITER_TEXT = """.block[data-lane='["triage","writer"]'] .text"""


def test_a_run_whose_server_died_is_picked_up_again_and_resumed_from_the_page(
    chromium: WebDriver, tmp_path: Path, artifacts: Path
) -> None:
    driver = chromium
    server = Server(tmp_path / "runs.db")
    try:
        open_page(driver, f"{server.start(**{inspector_agents.HELD: '3'})}/#token={TOKEN}")  # the draft halts
        start_run(driver, "triage", "Write about lighthouses.")
        wait_for(driver, "the writer's first words", lambda d: "Drafting a short" in text_of(d, WRITER_TEXT))
        server.kill()  # mid-turn: the writer's draft stops at its third word until then
        wait_for(driver, "the lost connection", lambda d: "reconnecting" in text_of(d, ".stream-state"))
        shown = text_of(driver, WRITER_TEXT)
        screenshot(driver, artifacts, "9-server-gone")
        server.start()
        wait_for(driver, "the run read as interrupted", lambda d: run_status(d) == "interrupted", seconds=20)
        assert text_of(driver, WRITER_TEXT).startswith(shown), "what was shown before the crash stays"
        console_errors(driver)  # the refused connections while no server listened are expected: dropped
        button(driver, "Resume run").click()
        button(wait_visible(driver, "the waiting call", ".approvals"), "Approve").click()
        wait_for(driver, "the run completed", lambda d: run_status(d) == "completed")
        wait_for(driver, "the final answer", lambda d: inspector_agents.FINAL in text_of(d, WRITER_TEXT))
        cut_short = css(driver, """.block[data-lane='["triage","writer"]']""")[0].text
        assert "resumed at +" in cut_short, "the turn the crash cut short says where the run went on"
        screenshot(driver, artifacts, "10-resumed")
        assert console_errors(driver) == []
    finally:
        server.stop()
