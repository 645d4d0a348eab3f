"""What the distribution promises: the MIT licence travels with it, and the stubs folder types pytest-trio."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest_trio
import trio

from helikon_fc import RunContext

ROOT = Path(__file__).resolve().parents[2]


def _project() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        data: dict[str, object] = tomllib.load(file)["project"]
    return data


def test_the_licence_is_mit_and_goes_into_the_wheel() -> None:
    """`LICENSE` holds the MIT text with the project's copyright line, and the metadata names it as the
    licence file (hatchling copies license-files into the wheel's ``.dist-info/licenses``)."""
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 the helikon_fc authors" in text
    project = _project()
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]


def test_the_classifiers_say_what_the_package_is() -> None:
    """The classifiers name trio, typing and the supported Pythons, and no licence classifier duplicates
    the SPDX expression (PEP 639 forbids both)."""
    classifiers = _project()["classifiers"]
    assert isinstance(classifiers, list)
    assert {"Framework :: Trio", "Typing :: Typed", "Programming Language :: Python :: 3.11"} <= set(classifiers)
    assert not [c for c in classifiers if c.startswith("License ::")]


def test_mypy_reads_the_stubs_folder() -> None:
    """`mypy_path` lists `stubs`, which holds a stub package for pytest-trio (it ships no py.typed)."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        mypy = tomllib.load(file)["tool"]["mypy"]
    assert "stubs" in mypy["mypy_path"]
    assert (ROOT / "stubs" / "pytest_trio" / "__init__.pyi").is_file()


@pytest_trio.trio_fixture
def run_context() -> RunContext[None]:
    """A fixture made in the test's trio run: typed through `stubs/pytest_trio` (mypy --strict checks it)."""
    trio.lowlevel.current_task()  # only inside a trio run
    return RunContext.ephemeral(None)


async def test_a_trio_fixture_typed_by_the_stubs_runs_in_the_test_run(run_context: RunContext[None]) -> None:
    """`pytest_trio.trio_fixture`, typed by our stub, builds its value inside the trio run of the test."""
    assert run_context.agent_depth == 0
