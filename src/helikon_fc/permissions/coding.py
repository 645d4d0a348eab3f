"""The coding agent's permission rules: an optional module beside the generic mechanism.

`BashRule` matches a ``Bash`` tool's call by the programs its ``command`` runs (`parse_command`
takes a command line apart); `ReadRule` and `EditRule` match ``Read`` and ``Edit``/``Write`` calls
by a glob over their ``path`` (`glob_matches`). Each is an `ArgumentRule`, so it goes wherever a
rule does: `PermissionConfig.deny`, ``allow``, a `Guard`'s ``when``, a `PolicyRule`. The built-in
guards (`builtin_guard_hits`: ``rm-root``, ``system-path``, ``secret-path``, ``unread-payload``)
apply while `PermissionConfig.builtin_guards` is on.

A command deny-list is not a sandbox. These rules read the text of a call; a program can still
reach what they forbid another way (a script it writes and runs, an interpreter, a symlink, a
network tool with another name). Run commands you do not trust in a container or a VM, and treat
these rules as a guard against mistakes, not against an adversary.
"""

from __future__ import annotations

from ..core.permissions.coding import (
    BASH_TOOL as BASH_TOOL,
    EDIT_TOOLS as EDIT_TOOLS,
    READ_TOOL as READ_TOOL,
    BashRule as BashRule,
    EditRule as EditRule,
    GuardHit as GuardHit,
    ReadRule as ReadRule,
    Redirect as Redirect,
    SimpleCommand as SimpleCommand,
    builtin_guard_hits as builtin_guard_hits,
    command_guard_hits as command_guard_hits,
    command_programs as command_programs,
    glob_matches as glob_matches,
    normalize_path as normalize_path,
    parse_command as parse_command,
    path_guard_hits as path_guard_hits,
    program_name as program_name,
)

__all__ = [
    "BASH_TOOL",
    "EDIT_TOOLS",
    "READ_TOOL",
    "BashRule",
    "EditRule",
    "GuardHit",
    "ReadRule",
    "Redirect",
    "SimpleCommand",
    "builtin_guard_hits",
    "command_guard_hits",
    "command_programs",
    "glob_matches",
    "normalize_path",
    "parse_command",
    "path_guard_hits",
    "program_name",
]
