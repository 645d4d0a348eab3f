"""The public face: which modules users import, each name's one home, and docs that import only those.

The rule:

- A *home* is one of `HOMES`. Each class and function a home lists in `__all__` is listed by no
  other home, and its `__module__` is that home, so reprs, docs and pickling show where users import
  it from, never the room (``helikon_fc.shell.*``, a private ``_module``) it is written in.
- Two *indexes* may repeat a name of a home: `helikon_fc` (the top-level convenience) and
  `helikon_fc.core` (the pure layer a sandboxed runtime imports alone).
- The pure layer's own values (`PermissionConfig`, `BashRule`, ...) keep ``helikon_fc.core.*`` as
  their `__module__`, where the wire format resolves their annotations; a home may re-export them.
- A name `helikon_fc` exports that no home lists has its home in `helikon_fc` itself (`RunContext`).
- Python in docs, examples and the README imports only public modules: a home, an index, a provider
  or integration package, or a module of the core; never ``helikon_fc.shell`` nor a ``_private`` one.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import helikon_fc

ROOT = Path(__file__).resolve().parents[2]

HOMES = (
    "helikon_fc.guardrails",
    "helikon_fc.hooks",
    "helikon_fc.models",
    "helikon_fc.permissions",
    "helikon_fc.permissions.coding",
    "helikon_fc.stores",
    "helikon_fc.testing",
    "helikon_fc.tools",
)
INDEXES = ("helikon_fc", "helikon_fc.core")
PACKAGES = (
    "helikon_fc.anthropic",
    "helikon_fc.console",
    "helikon_fc.evals",
    "helikon_fc.gemini",
    "helikon_fc.mcp",
    "helikon_fc.openai",
    "helikon_fc.otel",
    "helikon_fc.pricing",
    "helikon_fc.serve",
    "helikon_fc.serve.ag_ui",
    "helikon_fc.temporal",
)


def _module(name: str) -> ModuleType:
    return importlib.import_module(name)


def _owned(module: ModuleType) -> Iterator[tuple[str, object]]:
    """The classes and functions `module` lists in `__all__` (aliases and constants have no module)."""
    for name in module.__all__:
        value = getattr(module, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            yield name, value


def _is_core(value: object) -> bool:
    return str(getattr(value, "__module__", "")).startswith("helikon_fc.core")


@pytest.mark.parametrize("home", HOMES)
def test_a_home_lists_each_name_once_and_every_name_resolves(home: str) -> None:
    """A home's `__all__` is sorted, names each export once, and each one is importable from it."""
    module = _module(home)
    assert len(module.__all__) == len(set(module.__all__))
    for name in module.__all__:
        assert hasattr(module, name), f"{home}.{name}"


@pytest.mark.parametrize("home", HOMES)
def test_each_name_a_home_exports_has_that_home_as_its_module(home: str) -> None:
    """A class or function a home exports shows that home as its `__module__` (the core's own values aside)."""
    wrong = {
        name: value.__module__
        for name, value in _owned(_module(home))
        if not _is_core(value) and value.__module__ != home
    }
    assert not wrong


def test_every_name_has_exactly_one_home() -> None:
    """No class or function is exported by two homes (the indexes `helikon_fc` and `helikon_fc.core` aside)."""
    homes: dict[int, list[str]] = {}
    for home in HOMES:
        for name, value in _owned(_module(home)):
            homes.setdefault(id(value), []).append(f"{home}.{name}")
    assert [places for places in homes.values() if len(places) > 1] == []


def test_the_top_level_names_have_a_public_home() -> None:
    """Each class or function `helikon_fc` exports is the core's, a home's, or homed in `helikon_fc` itself."""
    exported_by_homes = {id(value) for home in HOMES for _, value in _owned(_module(home))}
    for name, value in _owned(helikon_fc):
        if _is_core(value):
            continue
        if id(value) in exported_by_homes:
            assert value.__module__ in HOMES, name
            # imported through its home, so no import order can leave it claimed by `helikon_fc`
            assert "helikon_fc" + helikon_fc._EXPORTS[name] == value.__module__, name
        else:
            assert value.__module__ == "helikon_fc", name


def test_the_renamed_decisions_cannot_be_confused() -> None:
    """A hook's answers and a permission decision have different names; the old permission names are aliases."""
    from helikon_fc import core, hooks, permissions

    assert (hooks.HookAllow.__name__, hooks.HookDeny.__name__) == ("HookAllow", "HookDeny")
    names = (permissions.PermissionAllow, permissions.PermissionDeny, permissions.PermissionAsk)
    assert [cls.__name__ for cls in names] == ["PermissionAllow", "PermissionDeny", "PermissionAsk"]
    assert (core.Allow, core.Deny, core.Ask) == names
    assert repr(hooks.HookDeny("too much")) == "HookDeny(reason='too much')"


# What docs, examples and the README import.


def _is_public_module(name: str) -> bool:
    parts = name.split(".")
    if parts[0] != "helikon_fc" or any(part.startswith("_") for part in parts):
        return False
    if name in (*HOMES, *INDEXES, *PACKAGES):
        return True
    if name == "helikon_fc.engine":  # the shared loop and its performer protocol: what a new runtime writes against
        return True
    return name.startswith("helikon_fc.core.")  # the pure layer is public, module by module


def _python_sources() -> Iterator[tuple[str, str]]:
    """(where, source) of every python block of the README and docs/*.md, and every example file."""
    fence = "```python\n"
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for index, chunk in enumerate(text.split(fence)[1:]):
            yield f"{page.name} block {index + 1}", chunk.split("```", 1)[0]
    for example in sorted((ROOT / "examples").rglob("*.py")):
        yield str(example.relative_to(ROOT)), example.read_text(encoding="utf-8")


def _imported_modules(source: str) -> Iterator[str]:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def test_docs_examples_and_readme_import_public_modules_only() -> None:
    """No python block of the docs or README, and no example, imports `helikon_fc.shell` or a private module."""
    found = [
        f"{where}: {module}"
        for where, source in _python_sources()
        for module in _imported_modules(source)
        if module.split(".")[0] == "helikon_fc" and not _is_public_module(module)
    ]
    assert found == []


def test_the_import_check_sees_a_shell_import() -> None:
    """The check above would catch a shell import, a private module and a non-public submodule."""
    assert not _is_public_module("helikon_fc.shell.control.hooks")
    assert not _is_public_module("helikon_fc.testing._stream")
    assert not _is_public_module("helikon_fc.models.by_name")
    assert _is_public_module("helikon_fc.permissions.coding")
    assert list(_imported_modules("from helikon_fc.shell.tools.tool import tool_effect\nimport helikon_fc.x")) == [
        "helikon_fc.shell.tools.tool",
        "helikon_fc.x",
    ]
