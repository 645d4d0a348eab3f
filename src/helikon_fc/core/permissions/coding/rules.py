"""The coding agent's argument rules: a ``Bash`` tool's command line, the paths of ``Read``, ``Edit`` and ``Write``.

Each rule reads the call's arguments (`ArgumentRule`, the generic mechanism's plug): `BashRule` the
programs of ``command`` (see `parse_command`), `ReadRule` and `EditRule` the glob-matched ``path``.
`builtin_guard_hits` names the built-in guards one call trips (see `guards`). None of it is a
sandbox: the rules read what a call says, not what the program then does.
"""

from __future__ import annotations

import functools

import attrs

from ...json_value import JsonObject
from ..checks import non_empty, text
from .commands import SimpleCommand, parse_command, program_name
from .guards import GuardHit, command_guard_hits, path_guard_hits
from .paths import glob_matches

__all__ = ["BASH_TOOL", "EDIT_TOOLS", "READ_TOOL", "BashRule", "EditRule", "ReadRule", "builtin_guard_hits"]

BASH_TOOL = "Bash"
"""The tool whose ``command`` argument shell-command rules and guards read."""
READ_TOOL = "Read"
"""The tool read-path rules apply to (its ``path`` argument)."""
EDIT_TOOLS = ("Edit", "Write")
"""The tools edit-path rules and the write-path guards apply to (their ``path`` argument)."""


def _commands(tool: str, arguments: JsonObject) -> tuple[SimpleCommand, ...] | None:
    """The parsed ``command`` of a ``Bash`` call; `None` for another tool or no command text."""
    command = arguments.get("command")
    return _parsed(command) if tool == BASH_TOOL and isinstance(command, str) else None


@functools.lru_cache(maxsize=64)
def _parsed(command: str) -> tuple[SimpleCommand, ...]:
    """`parse_command`, remembered: every rule and the guards of one call read the same line."""
    return parse_command(command)


def _path(arguments: JsonObject) -> str | None:
    path = arguments.get("path")
    return path if isinstance(path, str) else None


@attrs.frozen
class BashRule:
    """Matches a call of the ``Bash`` tool by the programs of its ``command``.

    As a deny rule (or guard) it matches when ANY sub-command runs `program`, by its name or its
    path's last component (``/bin/rm`` is ``rm``); as an allow rule only when there is at least one
    sub-command and EVERY one runs exactly `program`. See `parse_command` for how a command line is
    taken apart.
    """

    program: str = attrs.field(validator=non_empty("BashRule"))

    def __str__(self) -> str:
        return f"bash({self.program})"

    def matches(self, tool: str, arguments: JsonObject, *, every: bool) -> bool:
        """Whether the call of `tool` with `arguments` runs `program` (`every`: the allow reading)."""
        commands = _commands(tool, arguments)
        if commands is None:
            return False
        program = self.program
        if every:
            return bool(commands) and all(command.program == program and not command.unread for command in commands)
        return any(
            command.unread or program in (command.program, program_name(command.program)) for command in commands
        )


@attrs.frozen
class ReadRule:
    """Matches a call of the ``Read`` tool whose ``path`` fits the glob `pattern` (see `glob_matches`)."""

    pattern: str = attrs.field(validator=text("ReadRule"))

    def __str__(self) -> str:
        return f"read({self.pattern})"

    def matches(self, tool: str, arguments: JsonObject, *, every: bool) -> bool:
        """Whether the call is a ``Read`` of a path fitting `pattern` (both readings alike)."""
        path = _path(arguments)
        return tool == READ_TOOL and path is not None and glob_matches(self.pattern, path)


@attrs.frozen
class EditRule:
    """Matches a call of the ``Edit`` or ``Write`` tool whose ``path`` fits the glob `pattern`."""

    pattern: str = attrs.field(validator=text("EditRule"))

    def __str__(self) -> str:
        return f"edit({self.pattern})"

    def matches(self, tool: str, arguments: JsonObject, *, every: bool) -> bool:
        """Whether the call is an ``Edit`` or ``Write`` of a path fitting `pattern` (both readings alike)."""
        path = _path(arguments)
        return tool in EDIT_TOOLS and path is not None and glob_matches(self.pattern, path)


def builtin_guard_hits(tool: str, arguments: JsonObject) -> tuple[GuardHit, ...]:
    """The built-in guards a call trips: its ``Bash`` command's, then an ``Edit``/``Write`` path's."""
    commands = _commands(tool, arguments)
    found = command_guard_hits(commands) if commands is not None else ()
    path = _path(arguments)
    if tool in EDIT_TOOLS and path is not None:
        found = (*found, *path_guard_hits(path))
    return found
