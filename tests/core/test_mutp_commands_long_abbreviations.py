"""A wrapper's long option may be abbreviated (getopt_long takes any unambiguous prefix): it still takes its argument.

``env --uns git rm -rf x`` unsets ``git`` and runs ``rm``; ``env --split 'rm -rf /'`` runs its string. Reading the
abbreviation as an option without argument would hide the command run from deny rules, guards, and make an allow
rule for the swallowed word match.
"""

from __future__ import annotations

import json

import pytest

from helikon_fc.core import ToolCall
from helikon_fc.core.permissions import (
    BashRule,
    Deny,
    PermissionConfig,
    PermissionMode,
    ToolEffect,
    ToolInfo,
    command_guard_hits,
    command_programs,
    decide,
    parse_command,
)

BASH = ToolInfo("Bash", ToolEffect.SIDE_EFFECT)


@pytest.mark.parametrize(
    "line",
    [
        "env --uns git rm -rf x",
        "env --u git rm -rf x",
        "sudo --us git rm -rf x",
        "timeout --sig KILL 5 rm -rf x",
        "xargs --max-p 4 rm -rf x",
        "watch --int 1 rm -rf x",
    ],
)
def test_an_abbreviated_long_option_takes_its_argument(line: str) -> None:
    assert command_programs(line) == ("rm",)
    allow_git = PermissionConfig(mode=PermissionMode.DONT_ASK, allow=(BashRule("git"),))
    assert isinstance(decide(allow_git, ToolCall("c1", "Bash", json.dumps({"command": line})), BASH), Deny)


@pytest.mark.parametrize("line", ["env --split 'rm -rf /'", "env --split-s='rm -rf /'", "env --s 'rm -rf /'"])
def test_an_abbreviated_split_string_is_a_payload(line: str) -> None:
    assert command_programs(line) == ("rm",)
    assert [hit.name for hit in command_guard_hits(parse_command(line))] == ["rm-root"]


def test_an_ambiguous_or_unknown_long_option_takes_nothing() -> None:
    """``--ch`` could be sudo's ``--chdir`` or ``--chroot`` (getopt refuses it); ``--preserve-env`` takes nothing."""
    assert command_programs("sudo --preserve-env git status") == ("git",)
    assert command_programs("sudo --ch git status") == ("git",)
