"""`helikon run MODULE:ATTRIBUTE` when the user's module or factory is at fault: one clear message and exit 2,
the user's own file and line when their code raised, never a traceback of ours."""

from __future__ import annotations

from pathlib import Path

import pytest

from helikon_fc.cli import main


def _run(target: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as info:
        main(["run", target, "hi"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "helikon_fc" not in err.replace("helikon run", "")  # none of our frames
    return err


def test_a_factory_of_two_parameters_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A factory needing two arguments is refused before it is called, naming its parameters and what a factory
    takes (it was a `TypeError` traceback)."""
    (tmp_path / "two_params.py").write_text("def build(model, region):\n    return None\n")
    err = _run(f"{tmp_path / 'two_params.py'}:build", capsys)
    assert "build takes 2 required parameters (model, region); a factory takes none, or one" in err
    assert "Traceback" not in err


def test_an_import_failure_shows_the_user_s_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An exception raised while importing the module names its type and message, then the user's frames
    (file, line and source), and no frame of this library or of Python's import machinery."""
    path = tmp_path / "raises_on_import.py"
    path.write_text('import json\n\n\ndef settings():\n    return json.loads("{oops")\n\n\nSETTINGS = settings()\n')
    err = _run(f"{path}:agent", capsys)
    assert "cannot import" in err and "JSONDecodeError: Expecting property name" in err
    assert f'File "{path}", line 8, in <module>' in err
    assert f'File "{path}", line 5, in settings' in err
    assert "importlib" not in err and "json/decoder.py" not in err


def test_a_syntax_error_names_the_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A module that does not parse: the error, then its file and line."""
    path = tmp_path / "does_not_parse.py"
    path.write_text("x = 1\ny = (\n")
    err = _run(f"{path}:agent", capsys)
    assert "SyntaxError: '(' was never closed" in err
    assert f'File "{path}", line 2' in err


def test_a_factory_that_raises_shows_where(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An exception raised by the factory is shown with the factory's file and line."""
    path = tmp_path / "failing_factory.py"
    path.write_text("def build():\n    raise RuntimeError('no config file')\n")
    err = _run(f"{path}:build", capsys)
    assert "failing_factory.py:build raised RuntimeError: no config file" in err
    assert f'File "{path}", line 2, in build' in err
