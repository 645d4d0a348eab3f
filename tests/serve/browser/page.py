"""Helpers that read and drive the inspector page through Selenium, by what a person sees (labels, buttons)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select, WebDriverWait

T = TypeVar("T")

WAIT_SECONDS = 15.0


def wait_for(driver: WebDriver, what: str, check: Callable[[WebDriver], T], seconds: float = WAIT_SECONDS) -> T:
    """The first truthy value of `check(driver)`, polled every 50 ms; a failure naming `what` after `seconds`."""
    waiting = WebDriverWait(driver, seconds, poll_frequency=0.05, ignored_exceptions=[StaleElementReferenceException])
    return waiting.until(check, message=f"the page never showed {what} within {seconds:g} s")


def css(driver: WebDriver | WebElement, selector: str) -> list[WebElement]:
    """The elements matching `selector`."""
    return driver.find_elements(By.CSS_SELECTOR, selector)


def text_of(driver: WebDriver, selector: str) -> str:
    """The rendered text of every element matching `selector`, joined by newlines (read in one step, so a
    re-render of the live page cannot pull an element away mid-read)."""
    script = "return [...document.querySelectorAll(arguments[0])].map((e) => e.innerText).join('\\n')"
    text: str = driver.execute_script(script, selector)
    return text


def button(driver: WebDriver | WebElement, words: str) -> WebElement:
    """The button whose text is `words`."""
    return driver.find_element(By.XPATH, f".//button[normalize-space()='{words}']")


def open_page(driver: WebDriver, url: str) -> None:
    """Load the page afresh from `url` (from a blank page, so nothing of the last test's page is kept)."""
    driver.get("about:blank")
    driver.get(url)
    assert driver.title == "helikon run inspector", f"GET / served no inspector page: {driver.page_source[:300]}"


def start_run(driver: WebDriver, agent: str, text: str) -> str:
    """Start a run of `agent` on `text` with the page's form; the run id the page then shows."""
    wait_for(driver, f"agent {agent!r} in the start form", lambda d: agent in _options(d, "start-agent"))
    Select(driver.find_element(By.ID, "start-agent")).select_by_value(agent)
    field = driver.find_element(By.ID, "start-input")
    field.clear()
    field.send_keys(text)
    before = driver.execute_script("return location.hash")
    button(driver, "Start run").click()
    wait_for(driver, "the new run's address", lambda d: d.execute_script("return location.hash") != before)
    run_id: str = driver.execute_script("return decodeURIComponent(location.hash.slice('#/runs/'.length))")
    return run_id


def _options(driver: WebDriver, select_id: str) -> list[str]:
    return [option.get_attribute("value") or "" for option in css(driver, f"#{select_id} option")]


def run_status(driver: WebDriver) -> str:
    """The status badge of the open run ("" before it loaded)."""
    badges = css(driver, ".run-summary .badge")
    return badges[0].text if badges else ""


def screenshot(driver: WebDriver, folder: Path, name: str) -> Path:
    """Save the whole window as `folder/name.png`."""
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def console_errors(driver: WebDriver) -> list[str]:
    """The page's console messages at error level (SEVERE) since the last call (Chromium's browser log)."""
    entries: list[dict[str, Any]] = driver.get_log("browser")  # type: ignore[no-untyped-call]
    return [str(entry.get("message")) for entry in entries if entry.get("level") == "SEVERE"]


def wait_visible(driver: WebDriver, what: str, selector: str) -> WebElement:
    """The first displayed element matching `selector`, once there is one."""
    found = wait_for(driver, what, lambda d: next((e for e in css(d, selector) if e.is_displayed()), None))
    assert found is not None
    return found


def sample_until(done: Callable[[T], bool], every: float, read: Callable[[], T], limit: int = 8) -> list[T]:
    """`read()` every `every` seconds until `done(value)` or `limit` values were read; every value read."""
    values: list[T] = []
    while len(values) < limit and not (values and done(values[-1])):
        values.append(read())
        time.sleep(every)
    return values
