"""``docs/cli.md``: its Python snippet runs, and the commands it shows print what it says they print."""

from __future__ import annotations

import contextlib
import io
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "cli.md"
TEXT = DOC.read_text()


def _helikon(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    env.update(NO_COLOR="1", PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        [sys.executable, "-m", "helikon_fc", *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
    )


def test_the_python_snippet_runs_and_prints_what_it_says() -> None:
    """The factory example builds a workflow and prints the comment's text."""
    (code,) = re.findall(r"```python\n(.*?)```", TEXT, flags=re.DOTALL)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, DOC.name, "exec"), {"__name__": "cli_doc"})
    assert out.getvalue() == "writer\n"


def test_the_run_command_prints_the_shown_output() -> None:
    """The first command of the page prints the lines of the text block after it (up to each ``...``),
    apart from the elapsed time."""
    command = re.search(r"```sh\n(helikon run [^\n]*)\n```\s*```text\n(.*?)```", TEXT, flags=re.DOTALL)
    assert command is not None
    target, prompt = re.fullmatch(r'helikon run (\S+) "(.*)"', command.group(1)).groups()  # type: ignore[union-attr]
    done = _helikon("run", target, prompt)
    assert done.returncode == 0, done.stderr
    for line in command.group(2).splitlines():
        shown = re.sub(r"done in [0-9.]+ s", "done in", line.split(" ...")[0])
        assert shown in re.sub(r"done in [0-9.]+ s", "done in", done.stdout), (shown, done.stdout)


def test_the_replay_commands_work_as_shown(tmp_path: pathlib.Path) -> None:
    """Recording the graph example with ``--json`` and replaying it renders the graph's nodes, exit 0."""
    recorded = _helikon("run", "examples/graph_report.py:graph", "How did October go?", "--json")
    assert recorded.returncode == 0, recorded.stderr
    recording = tmp_path / "october.jsonl"
    recording.write_text(recorded.stdout)
    done = _helikon("replay", str(recording))
    assert done.returncode == 0
    assert "summary: October" in done.stdout


def test_user_facing_text_never_says_seed() -> None:
    """The README and this page speak to users: no internal vocabulary such as "the seed"."""
    for page in (ROOT / "README.md", DOC):
        assert not re.search(r"\bseed\b", page.read_text(), flags=re.IGNORECASE), page.name


def test_the_resume_scenario_prints_the_shown_output() -> None:
    """`helikon demo resume` prints every line of the page's saved-and-resumed block."""
    block = re.search(r"`runner.resume`:\n\n```text\n(.*?)```", TEXT, flags=re.DOTALL)
    assert block is not None
    done = _helikon("demo", "--fast", "resume")
    assert done.returncode == 0, done.stderr
    for line in block.group(1).splitlines():
        assert line in done.stdout.splitlines(), (line, done.stdout)


def test_the_exit_statuses_listed_are_the_commands_own() -> None:
    """The page's first paragraph lists every exit status the commands use, and no other."""
    from helikon_fc.cli import terminal

    first_paragraph = TEXT.split("\n\n")[1]
    listed = {int(number) for number in re.findall(r"`(\d+)`", first_paragraph)}
    used = {value for name, value in vars(terminal).items() if name.startswith("EXIT_")}
    assert listed == used
