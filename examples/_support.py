"""Shared by the examples: pick the scripted simulator model, or a real one when asked and configured.

Every example runs offline by default, and a failed run ends in one line on stderr and a non-zero
exit status, never a traceback. To run one against a real model::

    OPENAI_API_KEY=sk-... python examples/budget_assistant.py --model openai:gpt-5-mini
    python examples/budget_assistant.py --model openai:llama3 --base-url http://127.0.0.1:8000/v1
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import trio

from helikon_fc import Model, RunError


def pick_model(scripted: Model, argv: list[str] | None = None) -> Model:
    """The model an example runs on: `scripted`, unless the command line asks for a real one.

    ``--model PROVIDER:NAME`` chooses a real model, by the strings `helikon_fc.models.model_from_name`
    takes (``openai:<name>``, ``openai-responses:<name>``, ``anthropic:<name>``, ``gemini:<name>``); it
    needs the provider's key variable (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``GEMINI_API_KEY``...) or a
    ``--base-url`` (a local server needs no key). Without ``--model`` the
    scripted simulator answers, and a note on stderr says so (once per process, however many
    agents the example builds). A provider that does not exist, a ``--base-url`` without
    ``--model``, or a real model with no way to authenticate is an error (exit 2), never a silent
    fall-back to the simulator.

    Args:
        scripted: the simulator model scripted for this example.
        argv: the command-line arguments (default ``sys.argv[1:]`` when the example is the running
            script; an example imported by another program, such as ``helikon run``, stays scripted).
    """
    if argv is None and not _run_as_example():
        return scripted  # imported (by `helikon run`, a test): the command line is not ours to read
    real = _real_model(tuple(sys.argv[1:] if argv is None else argv))
    if real is None:
        return scripted
    from helikon_fc.models import model_from_name  # a provider is imported only when a real model is wanted

    spec, base_url = real
    try:
        return model_from_name(spec, base_url=base_url)
    except (ImportError, ValueError) as exc:  # a provider whose extra is missing, or that refused the arguments
        print(f"--model {spec}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def run_example(main: Callable[[], Awaitable[None]]) -> None:
    """Run an example's `main` under trio: a failed run prints one line on stderr and exits 1, Ctrl-C exits 130.

    Never a traceback for a run that failed: the failure is data (`RunError.error`), shown in one line.
    """
    try:
        trio.run(main)
    except RunError as exc:
        print(f"run failed: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None


@contextmanager
def needs(install: str) -> Iterator[None]:
    """Around an example's imports of optional packages: when one is missing, say what to install.

    Run as a script, the example then exits 1 with one line on stderr (never a traceback); imported by
    another program, it raises `ImportError` with the same advice.

    Args:
        install: the command that installs what is missing (``pip install 'helikon_fc[otel]'``).
    """
    try:
        yield
    except ImportError as exc:
        advice = f"{Path(sys.argv[0]).name if _run_as_example() else 'this example'} needs {exc.name or exc}: {install}"
        if _run_as_example():
            print(advice, file=sys.stderr)
            raise SystemExit(1) from None
        raise ImportError(advice) from exc


def _run_as_example() -> bool:
    """Whether the running script is one of the examples (not a program that imported one)."""
    return Path(sys.argv[0]).resolve().parent == Path(__file__).resolve().parent


@functools.cache
def _real_model(argv: tuple[str, ...]) -> tuple[str, str | None] | None:
    """The real model's ``(PROVIDER:NAME, base_url)`` the arguments ask for, or `None` for the simulator."""
    from helikon_fc.models import PROVIDERS, has_api_key

    parser = argparse.ArgumentParser(description="Run this example on the simulator, or on a real model.")
    parser.add_argument("--model", default=None, help="PROVIDER:NAME, e.g. openai:gpt-5-mini (default: the simulator)")
    parser.add_argument("--base-url", default=None, help="the provider's server, e.g. http://127.0.0.1:8000/v1")
    args = parser.parse_args(argv)
    if args.model is None:
        if args.base_url is not None:
            parser.error("--base-url says where the model is: add --model PROVIDER:<name>")
        print("[helikon] no --model given: running on the scripted simulator model.", file=sys.stderr)
        return None
    provider, _, name = str(args.model).partition(":")
    if not name:
        parser.error(f"--model must look like PROVIDER:NAME (e.g. openai:gpt-5-mini), got {args.model!r}")
    if provider not in PROVIDERS:
        parser.error(f"--model: unknown provider {provider!r}; known: {', '.join(PROVIDERS)}")
    if args.base_url is None and not has_api_key(provider):
        keys = " or ".join(PROVIDERS[provider].key_variables)
        parser.error(f"--model {args.model}: set {keys}, or point --base-url at a local server")
    return str(args.model), args.base_url
