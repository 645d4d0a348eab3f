"""``nox -s e2e_llama`` builds llama.cpp portably: a build for the building CPU's own features crashes elsewhere."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import noxfile


class RecordingSession:
    """Stands in for `nox.Session` (a third-party class): records what the session installs and runs."""

    posargs: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.installs: list[tuple[tuple[str, ...], Mapping[str, str | None] | None]] = []
        self.runs: list[tuple[str, ...]] = []

    def install(self, *args: str, env: Mapping[str, str | None] | None = None, **_: Any) -> None:
        self.installs.append((args, env))

    def run(self, *args: str, **_: Any) -> None:
        self.runs.append(args)


def test_llama_cpp_is_built_without_native_cpu_flags() -> None:
    """llama-cpp-python is installed with ``CMAKE_ARGS=-DGGML_NATIVE=OFF`` (a native build died with SIGSEGV on a CPU
    that reports AMX/AVX-512), and the e2e tests run after it."""
    session = RecordingSession()
    noxfile.e2e_llama.func(session)
    llama = [env for args, env in session.installs if any(arg.startswith("llama-cpp-python") for arg in args)]
    assert len(llama) == 1
    assert llama[0] is not None
    assert "-DGGML_NATIVE=OFF" in (llama[0].get("CMAKE_ARGS") or "").split()
    assert session.runs[-1][:2] == ("pytest", "e2e")
