"""The public surface of `helikon_fc.serve.ag_ui`: its names, and the errors `ag_ui_endpoint` gives bad arguments."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import helikon_fc.serve.ag_ui as ag_ui
from helikon_fc import LlmAgent, Runner
from helikon_fc.serve.ag_ui import AgUiEndpoint, ag_ui_endpoint
from helikon_fc.testing import ScriptedModel, reply


def agent(name: str) -> LlmAgent[None]:
    return LlmAgent(name=name, model=ScriptedModel([reply("hi")]))


def test_the_public_names_are_sorted_and_live_in_the_public_module() -> None:
    """`__all__` is sorted, and every name it lists says it comes from `helikon_fc.serve.ag_ui`."""
    assert ag_ui.__all__ == sorted(ag_ui.__all__)
    assert {getattr(ag_ui, name).__module__ for name in ag_ui.__all__} == {"helikon_fc.serve.ag_ui"}


def test_agents_are_served_by_name_however_they_are_given() -> None:
    """One agent, a list and a mapping all give the endpoint its agents by name."""
    one, two = agent("one"), agent("two")
    assert ag_ui_endpoint(one).agents == {"one": one}
    assert ag_ui_endpoint([one, two]).agents == {"one": one, "two": two}
    assert ag_ui_endpoint({"first": one}).agents == {"first": one}
    assert isinstance(ag_ui_endpoint(one, runner=Runner()), AgUiEndpoint)


untyped: Any = ag_ui_endpoint
"""`ag_ui_endpoint`, called with what its annotations forbid (as an untyped caller would)."""


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: untyped([]), ValueError, "agents is empty"),
        (lambda: untyped([agent("a"), agent("a")]), ValueError, "two agents are named 'a'"),
        (lambda: untyped("a"), TypeError, "agents must be an agent, agents or a mapping of them, got 'a'"),
        (lambda: untyped({"a": 1}), TypeError, "agents['a'] must be an agent"),
        (lambda: untyped(agent("a"), runner=object()), TypeError, "runner must be a Runner or None"),
        (lambda: untyped(agent("a"), context=1), TypeError, "context must be a callable or None, got 1"),
        (lambda: untyped(agent("a"), max_body_bytes=0), ValueError, "max_body_bytes must be a positive int"),
    ],
)
def test_bad_arguments_are_named_with_what_was_given(call: object, error: type[Exception], message: str) -> None:
    """Each bad argument raises at once, naming the argument, what it got and what it takes."""
    assert callable(call)
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_importing_the_adapter_without_the_protocol_package_says_what_to_install(tmp_path: Path) -> None:
    """Where ``ag-ui-protocol`` is missing, ``import helikon_fc.serve.ag_ui`` is an ImportError naming the extra."""
    hidden = tmp_path / "ag_ui"
    hidden.mkdir()  # first on the path, it stands for a missing package
    (hidden / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'ag_ui'\", name='ag_ui')\n")
    source = Path(ag_ui.__file__ or "").parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(source)])}
    code = "import helikon_fc.serve.ag_ui"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert "ImportError: helikon_fc.serve.ag_ui needs the ag-ui-protocol package" in done.stderr
    assert "pip install 'helikon_fc[serve]'" in done.stderr
