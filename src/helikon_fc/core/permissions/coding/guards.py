"""The built-in destructive-command guards: calls that need a human's yes whatever the mode.

Four guards, each answering "ask" (`GuardHit`):

- ``rm-root``: ``rm`` with recursive and force flags whose target is ``/``, ``/*``, ``~``, ``~/``,
  ``$HOME`` or ``${HOME}`` (``~/*`` and ``$HOME/*`` too; ``//`` and ``/.`` are ``/``).
- ``system-path``: a write under ``/``-level system directories (``/etc /usr /bin /sbin /sys /boot
  /dev``, or ``/`` itself), except the harmless devices (``/dev/null``, ``/dev/zero``, ``/dev/full``,
  ``/dev/stdout``, ``/dev/stderr``, ``/dev/tty``, ``/dev/random``, ``/dev/urandom``).
- ``secret-path``: a write to a path with a ``.git`` or ``.ssh`` component, or whose last component
  is ``.env`` or ``.env.*`` (compared without case, component by component).

- ``unread-payload`` *(beyond the original)*: a ``sh -c`` payload or substitution nested deeper
  than `MAX_DEPTH`, which the parser does not read, so nothing in it could be checked.

A write is the ``path`` of a ``Write``/``Edit`` call, or in a ``Bash`` command a ``>``/``>>``/``&>``
target, a ``tee`` argument, a ``dd of=`` operand, or (beyond the original) an ``rm`` target.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import attrs

from .commands import SimpleCommand, program_name
from .paths import path_components

__all__ = ["GuardHit", "command_guard_hits", "path_guard_hits"]

_SYSTEM_DIRS = frozenset({"etc", "usr", "bin", "sbin", "sys", "boot", "dev"})
_SAFE_DEVICES = frozenset({"null", "zero", "full", "stdout", "stderr", "tty", "random", "urandom"})
_HOME = ("~", "$HOME", "${HOME}")


@attrs.frozen
class GuardHit:
    """A guard that applies to a call: its `name` and the `prompt` an approver reads."""

    name: str
    prompt: str


def path_guard_hits(path: str) -> tuple[GuardHit, ...]:
    """The guards a write to `path` trips (none for an ordinary path)."""
    hits: list[GuardHit] = []
    unified = path.replace("\\", "/")
    components = path_components(unified)
    if unified.startswith("/") and _is_system(components):
        hits.append(GuardHit("system-path", f"write to system path {path}"))
    lowered = [component.lower() for component in components]
    last = lowered[-1] if lowered else ""
    if ".git" in lowered or ".ssh" in lowered or last == ".env" or last.startswith(".env."):
        hits.append(GuardHit("secret-path", f"write to protected path {path}"))
    return tuple(hits)


def _is_system(components: tuple[str, ...]) -> bool:
    if not components:
        return True
    if components[0] not in _SYSTEM_DIRS:
        return False
    return not (components[0] == "dev" and len(components) == 2 and components[1] in _SAFE_DEVICES)


def command_guard_hits(commands: Sequence[SimpleCommand]) -> tuple[GuardHit, ...]:
    """The guards the commands of one ``Bash`` call trip, in command order, each guard once."""
    hits: list[GuardHit] = []
    for command in commands:
        for hit in _command_hits(command):
            if all(hit.name != seen.name for seen in hits):
                hits.append(hit)
    return tuple(hits)


def _command_hits(command: SimpleCommand) -> Iterator[GuardHit]:
    if command.unread:
        yield GuardHit("unread-payload", f"a command nested too deeply to inspect: {command.program}")
        return
    name = program_name(command.program)
    forced = name == "rm" and _recursive_and_forced(command.args)
    for path in _written_paths(command, name):
        if forced and _is_root_or_home(path):
            yield GuardHit("rm-root", f"recursive forced removal of {path}")
        else:
            yield from path_guard_hits(path)


def _written_paths(command: SimpleCommand, name: str) -> Iterator[str]:
    for redirect in command.redirects:
        if redirect.writes_file:
            yield redirect.target
    if name in ("tee", "rm"):
        yield from _operands(command.args)
    if name == "dd":
        for arg in command.args:
            if arg.startswith("of="):
                yield arg[3:]


def _operands(args: Sequence[str]) -> Iterator[str]:
    """The non-option arguments (everything after ``--``)."""
    options_done = False
    for arg in args:
        if arg == "--" and not options_done:
            options_done = True
        elif options_done or not arg.startswith("-") or arg == "-":
            yield arg


def _recursive_and_forced(args: Sequence[str]) -> bool:
    recursive = forced = False
    for arg in args:
        if arg == "--":
            break
        if arg == "--recursive":
            recursive = True
        elif arg == "--force":
            forced = True
        elif arg.startswith("-") and not arg.startswith("--"):
            recursive = recursive or "r" in arg or "R" in arg
            forced = forced or "f" in arg
    return recursive and forced


def _is_root_or_home(target: str) -> bool:
    trimmed = target[:-2] if target.endswith("/*") else target
    for home in _HOME:
        if trimmed == home or (trimmed.startswith(home + "/") and not path_components(trimmed[len(home) :])):
            return True
    return target == "/*" or (trimmed.startswith("/") and not path_components(trimmed))
