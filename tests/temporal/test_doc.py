"""``docs/temporal.md`` works as written: its agents module under its worker command, its client against it."""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "temporal.md"
TEXT = DOC.read_text()
SNIPPETS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.DOTALL)
PRINTED = re.compile(r"print\(.*\)\s*# (.+)$")
ROOT = DOC.parents[1]


def test_the_doc_runs_against_a_real_worker_process(temporal_address: str, tmp_path: Path) -> None:
    agents_module, client_code, approving_client = SNIPPETS
    assert "helikon temporal worker --agents support_agents:agents" in TEXT
    (tmp_path / "support_agents.py").write_text(agents_module)
    queue = f"docs-{uuid.uuid4()}"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT / "src")]))
    command = [sys.executable, "-m", "helikon_fc", "temporal", "worker", "--agents", "support_agents:agents"]
    command += ["--address", temporal_address, "--task-queue", queue]
    worker = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        printed = _run_client(client_code, temporal_address, queue, "client")
        approved = _run_client(approving_client, temporal_address, queue, "approving client")
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    assert printed.splitlines()[-3] == "RunCompleted"
    assert approved.splitlines()[0] == "['handoff:billing/lookup-42']"


def _run_client(snippet: str, address: str, queue: str, name: str) -> str:
    """Run a client snippet against `address` and `queue`; what it printed (each commented print checked)."""
    code = snippet.replace("127.0.0.1:7233", address).replace('"support"', repr(queue))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"{DOC.name}[{name}]", "exec"), {"__name__": "snippet_client"})
    printed = out.getvalue()
    for line in code.splitlines():
        match = PRINTED.search(line)
        if match:
            assert match.group(1).strip() in printed, (match.group(1), printed)
    return printed
