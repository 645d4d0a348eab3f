"""An example that needs an optional package says what to install when it is missing, never a traceback."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_tracing_without_the_otel_extra_says_what_to_install(tmp_path: pathlib.Path) -> None:
    """``python examples/tracing.py`` where OpenTelemetry is not installed: one line naming the package and the
    ``pip install`` that brings it, and exit 1 (it was a `ModuleNotFoundError` traceback)."""
    hidden = tmp_path / "opentelemetry"
    hidden.mkdir()  # first on the path, it stands for a missing package: importing it fails as a missing one does
    (hidden / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'opentelemetry'\", name='opentelemetry')\n"
    )
    env = {key: value for key, value in os.environ.items() if not key.startswith(("OPENAI_", "HELIKON_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT / "src")])
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "tracing.py")], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "tracing.py needs opentelemetry: pip install 'helikon_fc[otel]'" in done.stderr
