"""The checklist: `nox` runs every check a change must pass; `nox -s bench` writes the benchmark figures."""

from __future__ import annotations

import nox

nox.options.sessions = ["lint", "typecheck", "tests", "properties"]
nox.options.reuse_existing_virtualenvs = True

PYTHON = "3.11"


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """Ruff over the whole tree: the lint rules and the formatting."""
    session.install("ruff>=0.17")
    paths = ("src", "tests", "properties", "examples", "bench", "noxfile.py")
    session.run("ruff", "check", *paths)
    session.run("ruff", "format", "--check", *paths)


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy --strict over src, tests and properties."""
    session.install("-e", ".[dev]")
    session.run("mypy", "--strict", "src", "tests", "properties")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The unit, integration and example tests."""
    session.install("-e", ".[dev]")
    session.run("pytest", "tests", *session.posargs)


@nox.session(python=PYTHON)
def properties(session: nox.Session) -> None:
    """The property suite: the specification of the core, under the profile HYPOTHESIS_PROFILE names (default ci)."""
    session.install("-e", ".[dev]")
    session.env.setdefault("HYPOTHESIS_PROFILE", "ci")
    session.run("pytest", "properties", "-p", "no:cacheprovider", *session.posargs)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """The benchmarks, helikon_fc beside the trio floor and the peers; writes bench/results/ (not a default session).

    Every (library, scenario) pair runs in a fresh interpreter; pass ``-- --quick`` for a smoke run,
    or ``-- --python openai-agents=PATH`` to run a peer in an interpreter of its own.
    """
    session.install("-e", ".[bench]")
    session.run("python", "-m", "bench", *session.posargs)
    session.run("python", "-m", "bench.stores", *[arg for arg in session.posargs if arg == "--quick"])
