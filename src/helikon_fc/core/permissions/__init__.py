"""Permissions as data, decided by one pure function: `decide(config, call, tool)`.

- `config`: tool effects, permission modes, rules, guards, the data policy and `PermissionConfig`;
- `lexer`, `commands`: shell command lines taken apart into the programs they run;
- `paths`: path normalisation and globs;
- `guards`: the built-in destructive-command guards;
- `decide`: the decision, its values and the events that record it.

The shell half (the async policy and the approval handler) is `helikon_fc.shell.permissions`.
"""

from .commands import (
    Redirect as Redirect,
    SimpleCommand as SimpleCommand,
    command_programs as command_programs,
    parse_command as parse_command,
    program_name as program_name,
)
from .config import (
    BashRule as BashRule,
    EditRule as EditRule,
    Guard as Guard,
    GuardAction as GuardAction,
    PermissionConfig as PermissionConfig,
    PermissionMode as PermissionMode,
    PermissionRule as PermissionRule,
    PolicyAllow as PolicyAllow,
    PolicyAsk as PolicyAsk,
    PolicyDeny as PolicyDeny,
    PolicyReplace as PolicyReplace,
    PolicyRule as PolicyRule,
    PolicyVerdict as PolicyVerdict,
    ReadRule as ReadRule,
    ToolEffect as ToolEffect,
    ToolInfo as ToolInfo,
    ToolRule as ToolRule,
)
from .decide import (
    Allow as Allow,
    Ask as Ask,
    ConsultPolicy as ConsultPolicy,
    Deny as Deny,
    PermissionDecision as PermissionDecision,
    decide as decide,
    decision_events as decision_events,
    refuse_unanswered as refuse_unanswered,
    replacement_problem as replacement_problem,
    screen as screen,
)
from .guards import GuardHit as GuardHit, command_guard_hits as command_guard_hits, path_guard_hits as path_guard_hits
from .paths import glob_matches as glob_matches, normalize_path as normalize_path
