"""What runs inside a forked child: pytest over chosen tests, with one module replaced by its mutant.

The parent imports pytest, hypothesis, trio and the other heavy dependencies once and never
imports helikon_fc; each child installs an import hook that serves the mutated module's code, so
everything that imports it (the package, the tests) sees the mutant, and nothing touches the disk.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
from collections.abc import Sequence
from types import CodeType, ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings

PYTEST_FLAGS = (
    "-o",
    "addopts=",
    "--import-mode=importlib",
    "-p",
    "no:terminal",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:randomly",
    "-W",
    "ignore::pytest.PytestWarning",
)


def register_profile(examples: int) -> None:
    """The ``mutants`` Hypothesis profile: few examples, no deadline, the same examples every run, no database,
    and no shrinking (a failing example is enough to kill a mutant; shrinking it took most of a kill's time)."""
    settings.register_profile(
        "mutants",
        max_examples=examples,
        phases=(Phase.explicit, Phase.reuse, Phase.generate),
        stateful_step_count=15,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )


class ProfilePlugin:
    """Loads the ``mutants`` profile after every conftest has loaded its own."""

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        settings.load_profile("mutants")


class _MutantLoader(importlib.abc.Loader):
    def __init__(self, code: CodeType) -> None:
        self._code = code

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        exec(self._code, module.__dict__)


class MutantFinder(importlib.abc.MetaPathFinder):
    """Serves `code` for the module `name` (a package when `path` is its ``__init__.py``); every other import goes
    the usual way."""

    def __init__(self, name: str, path: str, code: CodeType) -> None:
        self._name, self._path, self._code = name, path, code

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> Any:
        if fullname != self._name:
            return None
        package = os.path.basename(self._path) == "__init__.py"
        spec = importlib.machinery.ModuleSpec(
            fullname, _MutantLoader(self._code), origin=self._path, is_package=package
        )
        if package:  # its submodules are found next to it, as for the package on disk
            spec.submodule_search_locations = [os.path.dirname(self._path)]
        spec.has_location = True
        return spec


def run_pytest(args: Sequence[str], plugins: Sequence[object], log_path: str) -> int:
    """Run pytest in this (child) process with its output in `log_path`; returns pytest's exit code."""
    descriptor = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(descriptor, 1)
    os.dup2(descriptor, 2)
    sys.stdout = os.fdopen(1, "w", buffering=1)
    sys.stderr = os.fdopen(2, "w", buffering=1)
    return int(pytest.main([*args, *PYTEST_FLAGS], plugins=[ProfilePlugin(), *plugins]))
