"""Finding the agent ``helikon run MODULE:ATTRIBUTE`` names, and giving it the ``--model`` model.

The attribute is one of:

- an agent (any `Agent`: an `LlmAgent`, a workflow, a swarm, a graph). With ``--model``, an
  `LlmAgent` runs on that model instead of its own (``agent.with_model(model)``); any other agent
  is refused, because its inner agents each have their own model — expose a factory instead;
- a factory with no parameters, returning an agent: treated as the agent it returns;
- a factory with parameters: called with one argument, the ``--model`` model (or `None` when
  ``--model`` is not given, meaning "use your own default"), returning an agent. This is the way
  to run a whole multi-agent system on a model chosen on the command line.

``MODULE`` is a module name importable from the current directory (``examples.triage``) or a path
to a Python file (``examples/triage_handoff.py``, whose folder goes on ``sys.path`` so its own
imports of sibling files work).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
import sysconfig
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from ..agents.llm_agent import LlmAgent
from ..agents.protocol import Agent
from ..models.protocol import Model
from ..shell._checks import describe, is_agent


class TargetError(Exception):
    """The target could not be loaded or is not an agent; the message says why, in one line."""


def load_agent(spec: str, model: Model | None) -> Agent[Any]:
    """The agent `spec` (``MODULE:ATTRIBUTE``) names, on `model` when given; see the module docstring.

    Raises:
        TargetError: a malformed spec, a module that does not import, a missing attribute, or a
            value that is neither an agent nor a factory of one.
    """
    module_name, _, attribute = spec.rpartition(":")
    if not module_name or not attribute:
        raise TargetError(f"expected MODULE:ATTRIBUTE (e.g. myapp.agents:triage), got {spec!r}")
    value: object = _import(module_name)
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise TargetError(f"{module_name} has no attribute {attribute!r}")
        value = getattr(value, part)
    return _as_agent(spec, value, model)


def load_value(spec: str) -> object:
    """The value `spec` (``MODULE:ATTRIBUTE``, the module a name or a ``.py`` file) names, whatever it is.

    Raises:
        TargetError: a malformed spec, a module that does not import, or a missing attribute.
    """
    module_name, _, attribute = spec.rpartition(":")
    if not module_name or not attribute:
        raise TargetError(f"expected MODULE:ATTRIBUTE (e.g. myapp.agents:triage), got {spec!r}")
    value: object = _import(module_name)
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise TargetError(f"{module_name} has no attribute {attribute!r}")
        value = getattr(value, part)
    return value


def load_agents(spec: str, model: Model | None) -> dict[str, Agent[Any]]:
    """The agents `spec` (``MODULE:ATTRIBUTE``) names, by name: one agent (or factory), a list or tuple of
    them, or a mapping of names to them (each as `load_agent` takes it).

    Raises:
        TargetError: as `load_agent`; also an empty collection, or two agents of one name in a list.
    """
    value = load_value(spec)
    if isinstance(value, Mapping):
        pairs = [(str(key), _as_agent(f"{spec}[{key!r}]", item, model)) for key, item in value.items()]
    elif isinstance(value, list | tuple):
        agents = [_as_agent(f"{spec}[{index}]", item, model) for index, item in enumerate(value)]
        pairs = [(agent.name, agent) for agent in agents]
    else:
        agent = _as_agent(spec, value, model)
        pairs = [(agent.name, agent)]
    if not pairs:
        raise TargetError(f"{spec} is empty: name at least one agent")
    named = dict(pairs)
    if len(named) < len(pairs):
        raise TargetError(f"{spec} holds two agents of one name; give a mapping of names to agents instead")
    return named


def _import(name: str) -> ModuleType:
    try:
        if name.endswith(".py"):
            return _import_file(Path(name))
        if "" not in sys.path and str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        return importlib.import_module(name)
    except TargetError:
        raise
    except Exception as exc:  # a module that fails to import is the user's to fix: say where it failed
        raise TargetError(f"cannot import {name}: {user_failure(exc)}") from None


def _import_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise TargetError(f"no such file: {path}")
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def _as_agent(spec: str, value: object, model: Model | None) -> Agent[Any]:
    if is_agent(value):
        return _on_model(spec, value, model)
    if callable(value):
        takes_model = _takes_model(spec, value)
        try:
            built = value(model) if takes_model else value()
        except Exception as exc:  # the factory is the user's code: say where it failed
            raise TargetError(f"{spec} raised {user_failure(exc)}") from None
        if not is_agent(built):
            raise TargetError(f"{spec} returned {describe(built)}, not an agent")
        return built if takes_model else _on_model(spec, built, model)
    raise TargetError(f"{spec} is {describe(value)}: neither an agent nor a factory returning one")


def _on_model(spec: str, agent: Any, model: Model | None) -> Agent[Any]:
    if model is None:
        return agent  # type: ignore[no-any-return]
    if isinstance(agent, LlmAgent):
        return agent.with_model(model)
    raise TargetError(
        f"{spec} is a {type(agent).__name__}, whose agents each have their own model, so --model cannot"
        " replace it; point at a factory that takes the model instead (def build(model): ...)"
    )


def _takes_model(spec: str, factory: Callable[..., object]) -> bool:
    """Whether `factory` is called with the model (it has parameters); a `TargetError` when it needs more than one."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: call it bare
        return False
    required = [
        p.name
        for p in parameters
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    if len(required) > 1 or any(p.kind is p.KEYWORD_ONLY and p.default is p.empty for p in parameters):
        raise TargetError(
            f"{spec} takes {len(required)} required parameters ({', '.join(required)}); a factory takes none,"
            " or one: the --model model (None without --model)"
        )
    return any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in parameters)


def user_failure(exc: BaseException) -> str:
    """`exc` as ``"ValueError: boom"``, then where it was raised in the user's code: the traceback's frames
    outside this library, Python's own modules and installed packages (a `SyntaxError` names its file and line).
    """
    if isinstance(exc, SyntaxError):
        *lines, what = traceback.format_exception_only(exc)
        return what.rstrip() + "\n" + "".join(lines).rstrip()
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__) if _is_users(frame.filename)]
    where = "".join(traceback.format_list(frames)).rstrip()
    return f"{type(exc).__name__}: {exc}" + (f"\n{where}" if where else "")


_NOT_USERS = (str(Path(__file__).resolve().parents[1]), *(sysconfig.get_path(key) for key in ("stdlib", "purelib")))
"""Where frames that are not the user's code live: this library, the standard library, installed packages."""


def _is_users(filename: str) -> bool:
    return not filename.startswith((*_NOT_USERS, "<frozen ")) and "site-packages" not in Path(filename).parts
