"""The run inspector in headless Chromium against the real app in its own process: a run started from the
page streams its tokens, waits for an approval given on the page, finishes, and reads the same after a reload."""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from tests.serve.browser import inspector_agents
from tests.serve.browser.page import (
    button,
    console_errors,
    css,
    open_page,
    run_status,
    sample_until,
    screenshot,
    start_run,
    text_of,
    wait_for,
    wait_visible,
)
from tests.serve.browser.server import TOKEN

pytestmark = pytest.mark.browser

WRITER_TEXT = """.block[data-lane='["triage","writer"]'] .text"""


def test_a_run_started_on_the_page_streams_pauses_for_approval_and_reads_the_same_after_reload(
    chromium: WebDriver, server_url: str, artifacts: Path
) -> None:
    """Tokens arrive one by one, Approve resumes the run to its end, and a reload draws the same timeline;
    the console stays free of errors throughout."""
    driver = chromium
    open_page(driver, f"{server_url}/#token={TOKEN}")
    assert "token" not in driver.current_url, "the page keeps the token out of its address"
    start_run(driver, "triage", "Write a note about lighthouses.")

    drafts = _watch_the_draft_stream(driver, artifacts)
    assert len(set(drafts)) >= 4, f"the draft should grow word by word on screen, saw only {sorted(set(drafts))}"
    assert all(inspector_agents.DRAFT.startswith(draft) for draft in drafts)

    _approve_the_waiting_call(driver, artifacts)
    wait_for(driver, "the run completed", lambda d: run_status(d) == "completed")
    wait_for(driver, "the final answer", lambda d: inspector_agents.FINAL in text_of(d, WRITER_TEXT))
    screenshot(driver, artifacts, "3-completed")
    _check_the_timeline(driver)

    before = driver.find_element(By.CSS_SELECTOR, ".timeline").text
    driver.refresh()
    wait_for(driver, "the run after the reload", lambda d: run_status(d) == "completed")
    wait_for(driver, "the timeline after the reload", lambda d: inspector_agents.FINAL in text_of(d, WRITER_TEXT))
    screenshot(driver, artifacts, "4-reloaded")
    assert driver.find_element(By.CSS_SELECTOR, ".timeline").text == before

    _check_a_failed_run_and_the_filters(driver, artifacts)
    assert console_errors(driver) == []


def _watch_the_draft_stream(driver: WebDriver, artifacts: Path) -> list[str]:
    """The writer's draft as shown every 40 ms from its first word until it is whole (a screenshot mid-way)."""
    wait_for(driver, "the writer's first word", lambda d: "Drafting" in text_of(d, WRITER_TEXT))
    seen = sample_until(lambda text: text == inspector_agents.DRAFT, 0.04, lambda: text_of(driver, WRITER_TEXT))
    screenshot(driver, artifacts, "1-streaming")
    seen += sample_until(lambda text: text == inspector_agents.DRAFT, 0.04, lambda: text_of(driver, WRITER_TEXT))
    return [text for text in seen if text != inspector_agents.DRAFT]


def _approve_the_waiting_call(driver: WebDriver, artifacts: Path) -> None:
    panel = wait_visible(driver, "the waiting call", ".approvals")
    assert run_status(driver) == "paused"
    assert "publish" in panel.text and "Lighthouses" in panel.text
    screenshot(driver, artifacts, "2-waiting-for-approval")
    button(panel, "Approve").click()


def _check_the_timeline(driver: WebDriver) -> None:
    assert [lane.text for lane in css(driver, ".lane-header h3")] == ["triage", "writer"]
    assert [badge.text for badge in css(driver, ".lane-header .badge")] == ["handed off", "completed"]
    assert text_of(driver, ".handoff") == "→ handed off to writer"
    assert len(css(driver, "svg.arrows path.arrow-handoff")) == 1, "one arrow from triage's lane to the writer's"
    call = driver.find_element(By.CSS_SELECTOR, '.call[data-call="publish-1"]')
    assert '"title": "Lighthouses"' in call.text
    assert "approved by a person" in call.text and "published 'Lighthouses'" in call.text
    assert text_of(driver, ".usage-table tbody th").split("\n") == ["triage", "writer", "all agents"]
    assert text_of(driver, ".run-error") == "", "a completed run shows no error"


def _check_a_failed_run_and_the_filters(driver: WebDriver, artifacts: Path) -> None:
    start_run(driver, "broken", "anything")
    error = wait_visible(driver, "the failed run's error", ".run-error")
    assert "model failed (refused)" in error.text and "Traceback" not in driver.page_source
    screenshot(driver, artifacts, "5-failed")
    Select(driver.find_element(By.ID, "filter-status")).select_by_value("failed")
    wait_for(driver, "only the failed run listed", lambda d: _listed_agents(d) == ["broken"])
    Select(driver.find_element(By.ID, "filter-status")).select_by_value("")
    driver.find_element(By.ID, "filter-text").send_keys("triage")
    wait_for(driver, "only the triage run listed", lambda d: _listed_agents(d) == ["triage"])


def _listed_agents(driver: WebDriver) -> list[str]:
    return [row.find_elements(By.TAG_NAME, "td")[2].text for row in css(driver, "#run-rows tr[data-run]")]


def test_edited_arguments_are_asked_about_again_and_a_rejection_reaches_the_model(
    chromium: WebDriver, server_url: str, artifacts: Path
) -> None:
    """Edit arguments sends the new ones (the guard asks about them: approved, they run); Reject sends its
    reason, which the tool's result carries."""
    driver = chromium
    open_page(driver, f"{server_url}/#token={TOKEN}")
    start_run(driver, "triage", "Publish it under another title.")
    panel = wait_visible(driver, "the waiting call", ".approvals")
    button(panel, "Edit arguments").click()
    editor = driver.find_element(By.CSS_SELECTOR, ".edit-form textarea")
    editor.clear()
    editor.send_keys("[1, 2]")
    button(panel, "Approve with these arguments").click()
    assert "must be a JSON object" in text_of(driver, ".edit-form .problem"), "the page refuses a non-object"
    editor.clear()
    editor.send_keys('{"title": "Foghorns"}')
    assert text_of(driver, ".edit-form .problem") == "", "the complaint goes once the text changes"
    screenshot(driver, artifacts, "6-editing-arguments")
    button(panel, "Approve with these arguments").click()
    wait_for(driver, "the edited call asked about again", lambda d: "Foghorns" in text_of(d, ".approvals pre"))
    button(wait_visible(driver, "the second question", ".approvals"), "Approve").click()
    wait_for(driver, "the run completed", lambda d: run_status(d) == "completed")
    wait_for(driver, "the edited call's result", lambda d: "published 'Foghorns'" in text_of(d, ".call"))
    assert "RAN WITH" in text_of(driver, '.call[data-call="publish-1"]').upper()

    start_run(driver, "triage", "Publish nothing.")
    panel = wait_visible(driver, "the waiting call", ".approvals")
    button(panel, "Reject").click()
    driver.find_element(By.CSS_SELECTOR, ".reject-form input").send_keys("not today")
    button(panel, "Send rejection").click()
    wait_for(driver, "the run completed", lambda d: run_status(d) == "completed")
    wait_for(
        driver, "the denial", lambda d: "permission denied: not today" in text_of(d, '.call[data-call="publish-1"]')
    )
    screenshot(driver, artifacts, "7-rejected")
    assert console_errors(driver) == []


SIDE_BY_SIDE = """
const box = (lane) => document.querySelector(`.block[data-lane='${JSON.stringify(lane)}']`).getBoundingClientRect();
const scout = box(["research", "scout"]), critic = box(["research", "critic"]);
const apart = scout.right <= critic.left || critic.right <= scout.left;
return { sameRows: scout.top < critic.bottom && critic.top < scout.bottom, apart };
"""


def test_parallel_branches_are_drawn_side_by_side(chromium: WebDriver, server_url: str, artifacts: Path) -> None:
    """The two branches of a ParallelAgent, which stream at the same time, get lanes next to each other and
    their turns are drawn at the same height."""
    driver = chromium
    open_page(driver, f"{server_url}/#token={TOKEN}")
    run_id = start_run(driver, "research", "Lighthouses?")
    wait_for(driver, "the run completed", lambda d: run_status(d) == "completed")
    wait_for(
        driver, "the run listed as completed", lambda d: "completed" in text_of(d, f'#run-rows tr[data-run="{run_id}"]')
    )
    screenshot(driver, artifacts, "8-parallel")
    lanes = [lane.text for lane in css(driver, ".lane-header h3")]
    assert lanes[0] == "research" and sorted(lanes[1:]) == ["critic", "scout"], "branches in order of first event"
    assert driver.execute_script(SIDE_BY_SIDE) == {"sameRows": True, "apart": True}
    assert console_errors(driver) == []


SUB_RUN_BESIDE_ITS_CALL = """
const box = (lane) => document.querySelector(`.block[data-lane='${JSON.stringify(lane)}']`).getBoundingClientRect();
const call = box(["editor"]), inner = box(["editor", "summarizer"]);
return call.top <= inner.top && inner.bottom <= call.bottom && call.right <= inner.left;
"""


def test_an_agent_as_tool_sub_run_is_drawn_beside_the_call_that_started_it(
    chromium: WebDriver, server_url: str, artifacts: Path
) -> None:
    """The summarizer, called as the tool `digest`, gets a lane next to the editor's, its turn within the
    height of the editor's turn that called it, a dashed arrow from the call, and its lane names the call."""
    driver = chromium
    open_page(driver, f"{server_url}/#token={TOKEN}")
    start_run(driver, "editor", "Digest my notes.")
    wait_for(driver, "the run completed", lambda d: run_status(d) == "completed")
    wait_for(driver, "the answer", lambda d: "In short: Keepers, lamps and storms" in text_of(d, ".timeline"))
    screenshot(driver, artifacts, "11-sub-run")
    assert [lane.text for lane in css(driver, ".lane-header h3")] == ["editor", "summarizer"]
    assert "sub-run of call digest (digest-1)" in text_of(driver, ".lane-header")
    assert [badge.text for badge in css(driver, ".lane-header .badge")] == ["completed", "completed"]
    assert "↳ sub-run: editor \u203a summarizer" in text_of(driver, '.call[data-call="digest-1"]')
    assert len(css(driver, "svg.arrows path.arrow-sub-run")) == 1
    assert driver.execute_script(SUB_RUN_BESIDE_ITS_CALL) is True
    assert console_errors(driver) == []


UNNAMED_CONTROLS = """
const named = (control) => control.labels.length > 0 || control.getAttribute("aria-label");
const controls = [...document.querySelectorAll("input, select, textarea")].filter((control) => !named(control));
const buttons = [...document.querySelectorAll("button")].filter((button) => !button.textContent.trim());
return [...controls, ...buttons].map((element) => element.outerHTML);
"""


def test_a_paused_run_cancelled_from_the_page_reads_cancelled(
    chromium: WebDriver, server_url: str, artifacts: Path
) -> None:
    """Cancel run on a paused run ends it: the page shows it cancelled, with no call left to decide. (On the
    way, with every form of the page on it: each control has a label and each button words.)"""
    driver = chromium
    open_page(driver, f"{server_url}/#token={TOKEN}")
    start_run(driver, "triage", "Never mind.")
    wait_visible(driver, "the waiting call", ".approvals")
    assert driver.execute_script(UNNAMED_CONTROLS) == [], "every control has a label, every button words"
    button(driver, "Cancel run").click()
    wait_for(driver, "the run cancelled", lambda d: run_status(d) == "cancelled")
    assert not any(panel.is_displayed() for panel in css(driver, ".approvals"))
    assert css(driver, ".run-summary button") == [], "an ended run offers no action"
    assert console_errors(driver) == []


def test_without_the_token_the_page_says_so_and_works_once_it_is_given(chromium: WebDriver, server_url: str) -> None:
    """The page loads without a token (the server lets it), says the token is needed, and lists the agents
    once it is entered in the Access token field."""
    driver = chromium
    open_page(driver, f"{server_url}/")
    driver.execute_script("sessionStorage.clear()")
    open_page(driver, f"{server_url}/")
    wait_for(driver, "the need for a token", lambda d: "401" in text_of(d, "#start-state"))
    assert "enter the server's access token above" in text_of(driver, "#start-state")
    console_errors(driver)  # the refused requests (401) are the point here: dropped
    field = driver.find_element(By.ID, "token")
    field.send_keys(TOKEN)
    button(driver, "Use token").click()
    wait_for(driver, "the agents", lambda d: "triage" in text_of(d, "#start-agent"))
    assert text_of(driver, "#start-state") == ""
    assert console_errors(driver) == []
