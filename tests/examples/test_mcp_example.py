"""``examples/mcp_tools.py`` runs offline: the simulator's model calls the real ``mcp-server-time``'s tools."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import trio

ROOT = pathlib.Path(__file__).resolve().parents[2]


async def test_the_mcp_example_converts_a_time_through_the_real_server() -> None:
    """It lists the server's tools, the scripted model's call reaches the server, and the answer is printed."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("OPENAI_")}
    done = await trio.run_process(
        [sys.executable, str(ROOT / "examples" / "mcp_tools.py")],
        env=env,
        capture_stdout=True,
        capture_stderr=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode().splitlines()
    assert out[0] == "tools: get_current_time, convert_time"
    assert out[1] == "  run clock"  # the console's live view (helikon_fc.console.print_events)
    assert out[2].startswith('  -> convert_time {"source_timezone":"Asia/Kolkata"')
    assert out[3].startswith('  <- {"source":{"datetime":') and "T14:30:00+05:30" in out[3]
    assert out[4] == "  clock: When it is 14:30 in Kolkata it is 18:00 in Tokyo, three and a half hours ahead."
    assert out[5].startswith("  done in ")


def test_the_mcp_example_without_the_mcp_package_says_what_to_install(tmp_path: pathlib.Path) -> None:
    """Where the ``mcp`` package is missing: one line naming it and the ``pip install``, exit 1, no traceback."""
    hidden = tmp_path / "mcp"
    hidden.mkdir()  # first on the path, it stands for a missing package
    (hidden / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'mcp'\", name='mcp')\n")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("OPENAI_", "HELIKON_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT / "src")])
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "mcp_tools.py")], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "mcp_tools.py needs mcp: pip install 'helikon_fc[mcp]' mcp-server-time" in done.stderr
    assert done.stdout == ""
