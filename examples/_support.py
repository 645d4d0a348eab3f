"""Shared by the examples: pick the scripted simulator model, or a real one when asked and configured.

Every example runs offline by default. To run one against a real model::

    OPENAI_API_KEY=sk-... python examples/budget_assistant.py --model openai:gpt-5-mini
    python examples/budget_assistant.py --model openai:llama3 --base-url http://127.0.0.1:8000/v1
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path

from helikon_fc import Model


def pick_model(scripted: Model, argv: list[str] | None = None) -> Model:
    """The model an example runs on: `scripted` unless a real one is configured.

    A real model is used when ``OPENAI_API_KEY`` is set or ``--base-url`` names a server (local
    servers need no key); ``--model openai:<name>`` chooses it (default ``openai:gpt-5-mini``).
    Otherwise the scripted simulator answers, and a note on stderr says so (once per process,
    however many agents the example builds).

    Args:
        scripted: the simulator model scripted for this example.
        argv: the command-line arguments (default ``sys.argv[1:]``).
    """
    if argv is None and not _run_as_example():
        return scripted  # imported (by `helikon run`, a test): the command line is not ours to read
    real = _real_model(tuple(sys.argv[1:] if argv is None else argv))
    if real is None:
        return scripted
    from helikon_fc.openai import OpenAIModel  # imported only when a real model is wanted

    name, base_url = real
    return OpenAIModel.chat(name, base_url=base_url)


def _run_as_example() -> bool:
    """Whether the running script is one of the examples (not a program that imported one)."""
    return Path(sys.argv[0]).resolve().parent == Path(__file__).resolve().parent


@functools.cache
def _real_model(argv: tuple[str, ...]) -> tuple[str, str | None] | None:
    """The real model's ``(name, base_url)`` the arguments ask for, or `None` for the simulator."""
    parser = argparse.ArgumentParser(description="Run this example on the simulator or a real model.")
    parser.add_argument("--model", default="openai:gpt-5-mini", help="provider:name, e.g. openai:gpt-5-mini")
    parser.add_argument("--base-url", default=None, help="an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    args = parser.parse_args(argv)
    if not os.environ.get("OPENAI_API_KEY") and args.base_url is None:
        print("[helikon] OPENAI_API_KEY is not set: running on the scripted simulator model.", file=sys.stderr)
        return None
    provider, _, name = str(args.model).partition(":")
    if provider != "openai" or not name:
        parser.error(f"--model must look like openai:<name>, got {args.model!r}")
    return name, args.base_url
