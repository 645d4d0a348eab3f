"""The built-in guards' targets, by example (rule: rm -rf of / or home asks, a write to a system path asks)."""

from __future__ import annotations

import json

import pytest

from helikon_fc.core import ToolCall
from helikon_fc.core.permissions import Allow, Ask, PermissionConfig, PermissionMode, ToolEffect, ToolInfo, decide

BASH = ToolInfo("Bash", ToolEffect.SIDE_EFFECT)


def _decide(line: str) -> object:
    call = ToolCall("c1", "Bash", json.dumps({"command": line}))
    return decide(PermissionConfig(mode=PermissionMode.BYPASS), call, BASH)


@pytest.mark.parametrize("line", ["rm -rf $HOME/*", "rm -rf ~/*", "rm -rf ${HOME}/*"])
def test_removing_everything_in_home_asks(line: str) -> None:
    """A home directory's ``/*`` is the home directory itself for the rm-root guard."""
    decision = _decide(line)
    assert isinstance(decision, Ask) and decision.guard == "rm-root", decision


@pytest.mark.parametrize("line", ["echo x > /tmp/out", "echo x > /home/me/notes.txt", "tee /srv/log"])
def test_a_write_outside_the_system_directories_is_not_guarded(line: str) -> None:
    """Only the system directories (etc, usr, bin, sbin, sys, boot, dev) are system paths."""
    assert _decide(line) == Allow("bypass mode")
