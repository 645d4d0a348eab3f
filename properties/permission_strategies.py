"""Hypothesis strategies for the permission layer: configurations, tool calls and command lines.

Valid by construction and built from a small vocabulary (a few tools, programs and paths), so
fuzzed rules and fuzzed calls actually meet: a random deny rule names a program a random command
line runs often enough for "deny beats allow" to be tested, not assumed.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import attrs
from hypothesis import strategies as st

from helikon_fc.core import (
    BashRule,
    EditRule,
    Guard,
    GuardAction,
    PermissionConfig,
    PermissionMode,
    PermissionRule,
    PolicyAllow,
    PolicyAsk,
    PolicyDeny,
    PolicyReplace,
    PolicyRule,
    PolicyVerdict,
    ReadRule,
    ToolCall,
    ToolEffect,
    ToolRule,
)

TOOLS = ("Bash", "Read", "Write", "Edit", "search", "delete_file")
PROGRAMS = ("git", "ls", "rm", "curl", "python", "/bin/rm", "cat", "tee")
PATHS = ("src/app.py", "./src/lib/x.py", "/etc/passwd", "README.md", "config/.env", "~/.ssh/id_rsa", "docs\\a.md", "/")
GLOBS = ("*.py", "src/**", "src/*.py", "**/.env", "*.md", "", "/etc/*", "docs/*")
WRAPPERS = ("", "sudo ", "timeout 5 ", "env FOO=1 ", "nice -n 5 ", "nohup ", "xargs ")
SEPARATORS = (" && ", " || ", "; ", " | ", "\n", " & ")


@functools.cache
def tool_effects() -> st.SearchStrategy[ToolEffect]:
    """Any tool effect."""
    return st.sampled_from(ToolEffect)


@functools.cache
def permission_modes() -> st.SearchStrategy[PermissionMode]:
    """Any permission mode."""
    return st.sampled_from(PermissionMode)


ALL_RULES: tuple[PermissionRule, ...] = (
    *(ToolRule(tool) for tool in TOOLS),
    *(BashRule(program) for program in PROGRAMS),
    *(ReadRule(glob) for glob in GLOBS),
    *(EditRule(glob) for glob in GLOBS),
)
"""Every rule over the vocabulary: drawing from a fixed tuple is cheap and shrinks towards the first."""


@functools.cache
def permission_rules() -> st.SearchStrategy[PermissionRule]:
    """A rule over the small vocabulary."""
    return st.sampled_from(ALL_RULES)


@functools.cache
def policy_verdicts() -> st.SearchStrategy[PolicyVerdict]:
    """Any policy verdict; replacements carry a command line or a path as their arguments (a JSON object)."""
    return st.one_of(
        st.sampled_from((PolicyAllow(), PolicyDeny("no"), PolicyDeny(""), PolicyAsk("sure?"))),
        st.builds(PolicyReplace, object_arguments_texts()),
    )


@functools.cache
def guards() -> st.SearchStrategy[Guard]:
    """A user guard."""
    return st.builds(Guard, st.sampled_from(("g1", "g2", "rm-root")), permission_rules(), st.sampled_from(GuardAction))


@functools.cache
def permission_configs() -> st.SearchStrategy[PermissionConfig]:
    """Any permission configuration over the small vocabulary."""
    rules = st.lists(permission_rules(), max_size=2).map(tuple)
    return st.builds(
        PermissionConfig,
        mode=permission_modes(),
        deny=rules,
        allow=rules,
        guards=st.lists(guards(), max_size=2).map(tuple),
        builtin_guards=st.booleans(),
        policy=st.lists(st.builds(PolicyRule, permission_rules(), policy_verdicts()), max_size=2).map(tuple),
        external_policy=st.booleans(),
    )


_PROGRAMS = st.sampled_from(PROGRAMS)
_ARGS = st.sampled_from(("", " -rf /", " status", " -la", " 'a b'", " > out.txt", " x > /etc/hosts"))
_WRAPPERS = st.sampled_from(WRAPPERS)
_SEPARATORS = st.sampled_from(SEPARATORS)
_PARTS = st.lists(st.tuples(_SEPARATORS, _WRAPPERS, _PROGRAMS, _ARGS), min_size=1, max_size=3)


@st.composite
def command_lines(draw: st.DrawFn) -> str:
    """A shell command line: one to three commands, maybe wrapped, joined by operators, maybe in ``bash -c``."""
    parts = draw(_PARTS)
    line = "".join(
        (separator if index else "") + wrapper + program + args
        for index, (separator, wrapper, program, args) in enumerate(parts)
    )
    return "bash -c " + json.dumps(line) if draw(st.booleans()) else line


@functools.cache
def object_arguments_texts() -> st.SearchStrategy[str]:
    """Argument JSON objects for the vocabulary's tools: what a policy or an approver may put in a call's place."""
    return st.one_of(
        command_lines().map(lambda line: json.dumps({"command": line})),
        st.sampled_from(PATHS).map(lambda path: json.dumps({"path": path})),
        st.sampled_from(("{}", '{"command": 7}')),
    )


@functools.cache
def arguments_texts() -> st.SearchStrategy[str]:
    """Argument JSON for the vocabulary's tools (and some text that is not a JSON object)."""
    return st.one_of(object_arguments_texts(), st.sampled_from(("", "not json", "[1, 2]")))


@functools.cache
def permission_tool_calls() -> st.SearchStrategy[ToolCall]:
    """A call of one of the vocabulary's tools."""
    return st.builds(ToolCall, st.sampled_from(("c1", "c2")), st.sampled_from(TOOLS), arguments_texts())


def _spelled(value: GuardAction | PermissionMode, as_text: bool) -> Any:
    """An enum member, or its value string when `as_text`: the two spellings the permission API accepts."""
    return value.value if as_text else value


@st.composite
def spelled_configs(draw: st.DrawFn) -> tuple[PermissionConfig, PermissionConfig]:
    """A configuration, and the same configuration with some of its enum values spelled as their value strings
    (``action="deny"``, ``mode="plan"``); deny guards are drawn often."""
    config = draw(permission_configs())
    deny_guards = st.builds(Guard, st.sampled_from(("d1", "d2")), permission_rules(), st.just(GuardAction.DENY))
    config = attrs.evolve(config, guards=(*config.guards, *draw(st.lists(deny_guards, max_size=2))))
    guards = tuple(
        Guard(guard.name, guard.when, _spelled(guard.action, draw(st.booleans())), guard.prompt)
        for guard in config.guards
    )
    spelled = attrs.evolve(config, mode=_spelled(config.mode, draw(st.booleans())), guards=guards)
    return config, spelled
