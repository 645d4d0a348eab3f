"""Permissions as data, decided by one pure function: `decide(config, call, tool)`.

- `config`: tool effects, permission modes, rules, guards, the data policy and `PermissionConfig`;
- `coding`: the coding agent's argument rules (shell commands, read and edit paths) and built-in
  guards, plugged in through `ArgumentRule`;
- `decide`: the decision, its values and the events that record it.

The shell half (the async policy and the approval handler) is `helikon_fc.shell.control.permissions`; users
import both halves from `helikon_fc.permissions`.
"""

from .coding import (
    GuardHit as GuardHit,
    Redirect as Redirect,
    SimpleCommand as SimpleCommand,
    command_guard_hits as command_guard_hits,
    command_programs as command_programs,
    glob_matches as glob_matches,
    normalize_path as normalize_path,
    parse_command as parse_command,
    path_guard_hits as path_guard_hits,
    program_name as program_name,
)
from .config import (
    ArgumentRule as ArgumentRule,
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
    PermissionAllow as PermissionAllow,
    PermissionAsk as PermissionAsk,
    PermissionDecision as PermissionDecision,
    PermissionDeny as PermissionDeny,
    decide as decide,
    decision_events as decision_events,
    refuse_unanswered as refuse_unanswered,
    replacement_problem as replacement_problem,
    screen as screen,
)
