"""`helikon run`'s options say what is wrong in command-line words."""

from __future__ import annotations

import pytest

from helikon_fc.cli import main

AGENTS = "tests/cli/cli_agents.py"


@pytest.mark.parametrize("value", ["-1", "0", "nan", "soon"])
def test_a_bad_timeout_asks_for_a_positive_number_of_seconds(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``--timeout`` that is not a positive number exits 2 asking for "a positive number of seconds", with no
    Python wording ("or None", "float")."""
    with pytest.raises(SystemExit) as info:
        main(["run", f"{AGENTS}:budget", "hi", "--timeout", value])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --timeout: must be a positive number of seconds (such as 30 or 2.5), got '{value}'" in err
    assert "None" not in err and "float" not in err


@pytest.mark.parametrize("value", ["-1", "2.5", "many"])
def test_a_bad_max_turns_asks_for_a_whole_number(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``--max-turns`` that is not a whole number of 0 or more exits 2 saying so, with no Python type names."""
    with pytest.raises(SystemExit) as info:
        main(["run", f"{AGENTS}:budget", "hi", "--max-turns", value])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --max-turns: must be a whole number of model calls (such as 8), got '{value}'" in err
