"""The coding agent's permission rules, plugged into the generic mechanism as argument rules.

- `lexer`, `commands`: shell command lines taken apart into the programs they run;
- `paths`: path normalisation and globs;
- `guards`: the built-in destructive-command guards;
- `rules`: `BashRule`, `ReadRule`, `EditRule` (each an `ArgumentRule`) and `builtin_guard_hits`.

A command deny-list is not a sandbox: these rules read the text of a call, and a program can still
reach what they forbid by other means (a script it writes, a symlink, an interpreter). Run untrusted
commands in a container or a VM.
"""

from .commands import (
    Redirect as Redirect,
    SimpleCommand as SimpleCommand,
    command_programs as command_programs,
    parse_command as parse_command,
    program_name as program_name,
)
from .guards import GuardHit as GuardHit, command_guard_hits as command_guard_hits, path_guard_hits as path_guard_hits
from .paths import glob_matches as glob_matches, normalize_path as normalize_path
from .rules import (
    BASH_TOOL as BASH_TOOL,
    EDIT_TOOLS as EDIT_TOOLS,
    READ_TOOL as READ_TOOL,
    BashRule as BashRule,
    EditRule as EditRule,
    ReadRule as ReadRule,
    builtin_guard_hits as builtin_guard_hits,
)
