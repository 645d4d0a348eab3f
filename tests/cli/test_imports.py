"""What a fresh interpreter loads: the library never imports pytest (trio.testing pulls it in), and the
``helikon`` command builds its parser without importing the library (`helikon --version` used to take ~1.9 s,
most of it importing trio.testing and with it pytest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_REPORT = """
import json, sys
{code}
print(json.dumps(sorted(sys.modules)))
"""


def modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter (this tree's code) has loaded after running `code`."""
    done = subprocess.run(
        [sys.executable, "-c", _REPORT.format(code=code)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return set(loaded)


def _command(*argv: str) -> str:
    """Code that runs ``helikon <argv>`` in-process, as the console script does, and keeps going after it exits."""
    return f"from helikon_fc.cli import main\ntry:\n    main({list(argv)!r})\nexcept SystemExit:\n    pass"


def test_importing_the_library_loads_neither_pytest_nor_trio_testing() -> None:
    """``import helikon_fc``, and every name it exports, leave pytest and trio.testing unloaded."""
    for code in ("import helikon_fc", "import helikon_fc\nfor name in helikon_fc.__all__: getattr(helikon_fc, name)"):
        loaded = modules_after(code)
        assert "pytest" not in loaded, code
        assert "trio.testing" not in loaded, code


def test_helikon_version_loads_neither_the_library_nor_pytest() -> None:
    """``helikon --version`` imports no trio, no pytest and none of the library below the command line."""
    loaded = modules_after(_command("--version"))
    assert "pytest" not in loaded
    assert "trio" not in loaded
    assert not {name for name in loaded if name.startswith("helikon_fc.") and not name.startswith("helikon_fc.cli")}


def test_a_command_s_help_does_not_load_the_library() -> None:
    """``helikon run --help`` and ``helikon demo --help`` build every parser without importing trio or the core."""
    for command in ("run", "demo", "runs", "replay"):
        loaded = modules_after(_command(command, "--help"))
        assert "trio" not in loaded, command
        assert "helikon_fc.core" not in loaded, command


def test_the_console_script_prints_the_version() -> None:
    """``python -m helikon_fc --version`` prints ``helikon <version>`` and exits 0."""
    done = subprocess.run(
        [sys.executable, "-m", "helikon_fc", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("helikon ") and len(done.stdout.split()) == 2
