"""``docs/durability.md``: the ``helikon runs list`` sample is what the command prints for the runs it describes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "durability.md"
RUN_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC")


def _helikon(*args: str, crash_after_writes: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    env.update(NO_COLOR="1", PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    command = [sys.executable, "-m", "helikon_fc", *args]
    if crash_after_writes is not None:  # the process kills itself after that write, as kill -9 would
        command = [sys.executable, "-m", "tests.durable.crashing_cli", str(crash_after_writes), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def _normalized(table: str) -> list[str]:
    """The table with each run id numbered in order of first appearance and the times left out."""
    ids: dict[str, str] = {}

    def number(match: re.Match[str]) -> str:
        return ids.setdefault(match.group(0), f"run-{len(ids) + 1}".ljust(36))

    return [TIME.sub("TIME", RUN_ID.sub(number, line)).rstrip() for line in table.strip().splitlines()]


def test_the_runs_list_sample_is_what_the_command_prints(tmp_path: Path) -> None:
    """One finished run and one killed during its handoff: the rows (child runs included), statuses and kinds."""
    sample = re.search(r"\$ helikon runs list --store app\.db\n(.*?)\n\$ ", DOC.read_text(), flags=re.DOTALL)
    assert sample is not None
    store = str(tmp_path / "app.db")
    run = ("run", "examples/triage_handoff.py:triage", "How should I start investing?", "--store", store)
    assert _helikon(*run).returncode == 0
    assert _helikon(*run, crash_after_writes=3).returncode == -9
    listed = _helikon("runs", "list", "--store", store)
    assert listed.returncode == 0, listed.stderr
    assert _normalized(listed.stdout) == _normalized(sample.group(1))
