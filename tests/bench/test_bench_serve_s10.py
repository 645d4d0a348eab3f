"""``python -m bench.serve_s10``: S10 runs end to end on a few runs and tables every phase (no time is asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.serve_s10 import main


def test_s10_serves_streams_reconnects_and_compares(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Six runs through a real ``helikon serve``: every client saw every event once (exit 0), two of them
    reconnected, and the table has the three phases with the in-process ratio."""
    out = tmp_path / "s10.md"
    assert main(["--runs", "6", "--out", str(out)]) == 0
    text = out.read_text()
    assert text == capsys.readouterr().out.removesuffix("\n")
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith(("| phase", "| ---"))]
    assert [row.split(" | ")[0] for row in rows] == [
        "| served",
        "| served, a third reconnecting",
        "| in process (Runner + SQLiteStore)",
    ]
    assert [row.split(" | ")[8] for row in rows] == ["0", "2", "0"]  # reconnects
    assert [row.split(" | ")[9] for row in rows] == ["0", "0", "0"]  # lost or duplicated
    assert "Served / in process: wall" in text
