"""Ctrl-C stops any ``helikon`` command with one line and exit status 130, never a traceback."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _read_until(fd: int, marker: str, seconds: float) -> str:
    """What the terminal shows until `marker` appears (or the process closes it, or `seconds` pass)."""
    seen = ""
    deadline = time.monotonic() + seconds
    while marker not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the process closed the terminal
            break
        if not chunk:
            break
        seen += chunk.decode(errors="replace")
    return seen


def _interrupt_on_a_terminal(args: list[str], after: str, again: str | None = None) -> tuple[int, str, str]:
    """Run ``helikon ARGS`` on a pseudo-terminal, press Ctrl-C once `after` is shown (and again once `again` is
    shown then); (status, what was shown before, what was shown after).

    The second press waits for what the first one shows, not for a while: two presses close together on a
    loaded machine reach the process as one signal (the kernel and trio both merge a pending one).
    """
    main, terminal = os.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "HTTP", "HTTPS"))}
    env["PYTHONPATH"] = str(ROOT / "src")
    env["NO_COLOR"] = "1"
    process = subprocess.Popen(
        [sys.executable, "-m", "helikon_fc", *args],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env=env,
        cwd=ROOT,
    )
    os.close(terminal)
    try:
        before = _read_until(main, after, 60)
        process.send_signal(signal.SIGINT)
        rest = ""
        if again is not None:
            rest = _read_until(main, again, 60)
            assert again in rest, f"the first Ctrl-C never showed {again!r}: {rest!r}"
            process.send_signal(signal.SIGINT)
        rest += _read_until(main, "\x00never", 30)
        status = process.wait(timeout=30)
    finally:
        if process.poll() is None:  # pragma: no cover - only when the test fails
            process.kill()
        os.close(main)
    return status, before, rest


def test_ctrl_c_during_the_real_time_demo_exits_130_with_one_line() -> None:
    """Ctrl-C while ``helikon demo`` plays in real time on a terminal: one line saying so, exit 130, no traceback
    (it was a 42-line ``BaseExceptionGroup ... KeyboardInterrupt`` traceback and exit 1)."""
    status, before, after = _interrupt_on_a_terminal(["demo", "triage"], after="user: ")
    assert "user: " in before
    assert status == 130, after
    assert "Traceback" not in after and "KeyboardInterrupt" not in after
    shown = [line for line in after.splitlines() if line.strip()]
    assert shown[-1] == "helikon demo: interrupted (Ctrl-C)"


def test_a_second_ctrl_c_stops_a_run_at_once_with_one_line() -> None:
    """The first Ctrl-C cancels the run and says a second one stops at once; when the run does not end (a tool
    shields itself), the second stops the process at once: exit 130, one line, no traceback."""
    status, before, after = _interrupt_on_a_terminal(
        ["run", "tests/cli/cli_agents.py:stubborn", "hi"], after="finish_first", again="Ctrl-C again"
    )
    assert "-> finish_first" in before
    assert status == 130, after
    assert "Traceback" not in after and "KeyboardInterrupt" not in after
    shown = [line for line in after.splitlines() if line.strip()]
    assert shown[-1] == "helikon run: interrupted (Ctrl-C)"
