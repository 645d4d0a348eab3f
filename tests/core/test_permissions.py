"""`decide`: the permission pipeline, rule by rule (original-notes section 6), and where it differs."""

from __future__ import annotations

import json

import pytest

from helikon_fc.core import ToolCall, from_json, to_json
from helikon_fc.core.events import ApprovalRequested, PermissionDenied, PermissionGranted
from helikon_fc.core.permissions import (
    Allow,
    Ask,
    BashRule,
    ConsultPolicy,
    Deny,
    EditRule,
    Guard,
    GuardAction,
    PermissionConfig,
    PermissionDecision,
    PermissionMode,
    PolicyAllow,
    PolicyAsk,
    PolicyDeny,
    PolicyReplace,
    PolicyRule,
    ReadRule,
    ToolEffect,
    ToolInfo,
    ToolRule,
    decide,
    decision_events,
    parse_command,
    refuse_unanswered,
    screen,
)

BASH = ToolInfo("Bash", ToolEffect.SIDE_EFFECT)
READ = ToolInfo("Read", ToolEffect.READ_ONLY)
WRITE = ToolInfo("Write", ToolEffect.WRITE)
EDIT = ToolInfo("Edit", ToolEffect.WRITE)
MODES = tuple(PermissionMode)


def bash(command: str) -> ToolCall:
    return ToolCall("call_1", "Bash", json.dumps({"command": command}))


def at_path(tool: str, path: str) -> ToolCall:
    return ToolCall("call_1", tool, json.dumps({"path": path}))


def plain(name: str = "search", arguments: str = "{}") -> ToolCall:
    return ToolCall("call_1", name, arguments)


# Modes.


def test_default_mode_with_no_policy_allows() -> None:
    """Rule: "Default (defer to policy; no policy => allow)"."""
    assert decide(PermissionConfig(), plain(), ToolInfo("search")) == Allow("no policy: allowed")


def test_accept_edits_allows_write_tools_and_defers_the_others() -> None:
    """Rule: "AcceptEdits (auto-allow Write-effect tools, others fall through to policy)"."""
    config = PermissionConfig(
        mode=PermissionMode.ACCEPT_EDITS, policy=(PolicyRule(ToolRule("search"), PolicyDeny("no")),)
    )
    assert decide(config, at_path("Write", "notes.md"), WRITE) == Allow("accept-edits mode allows write tools")
    assert decide(config, plain(), ToolInfo("search", ToolEffect.SIDE_EFFECT)) == Deny("no", rule="tool(search)")


@pytest.mark.parametrize("effect", [ToolEffect.WRITE, ToolEffect.SIDE_EFFECT])
def test_plan_denies_what_is_not_read_only(effect: ToolEffect) -> None:
    """Rule: "Plan (deny anything not ReadOnly ...)"."""
    decision = decide(PermissionConfig(mode=PermissionMode.PLAN), plain(), ToolInfo("search", effect))
    assert decision == Deny("plan mode allows read-only tools only")


def test_plan_lets_read_only_tools_fall_through_to_the_policy() -> None:
    """Rule: "Plan (... ReadOnly falls through to policy)"."""
    config = PermissionConfig(mode=PermissionMode.PLAN, policy=(PolicyRule(ToolRule("Read"), PolicyAsk("ok?")),))
    assert decide(config, at_path("Read", "a.txt"), READ) == Ask("the policy asks for approval", "ok?")


def test_plan_is_not_opened_by_allow_rules() -> None:
    """Differs from the original (allow rules allowed in any mode, Plan included): Plan never allows a
    non-read-only tool, so an allow rule for git does not let ``git push`` run while planning."""
    config = PermissionConfig(mode=PermissionMode.PLAN, allow=(BashRule("git"), ToolRule("Bash")))
    assert isinstance(decide(config, bash("git push"), BASH), Deny)
    read_config = PermissionConfig(mode=PermissionMode.PLAN, allow=(ReadRule("*.md"),))
    assert decide(read_config, at_path("Read", "README.md"), READ) == Allow(
        "allowed by allow rule: read(*.md)", rule="read(*.md)"
    )


def test_plan_refuses_before_a_guard_asks() -> None:
    """Differs from the original: in Plan a destructive non-read-only call is refused, nobody is asked first."""
    assert decide(PermissionConfig(mode=PermissionMode.PLAN), bash("rm -rf /"), BASH) == Deny(
        "plan mode allows read-only tools only"
    )


def test_bypass_allows_what_survives_deny_rules_and_guards() -> None:
    """Rule: "Bypass (allow everything that survives deny+guard)"."""
    config = PermissionConfig(mode=PermissionMode.BYPASS, deny=(BashRule("curl"),))
    assert decide(config, bash("make"), BASH) == Allow("bypass mode")
    assert isinstance(decide(config, bash("curl x"), BASH), Deny)
    assert isinstance(decide(config, bash("rm -rf ~"), BASH), Ask)


def test_dont_ask_denies_unless_an_allow_rule_matched_and_never_consults_the_policy() -> None:
    """Rule: "DontAsk (deny unless an allow rule matched; policy never called)"."""
    config = PermissionConfig(mode=PermissionMode.DONT_ASK, allow=(BashRule("ls"),), external_policy=True)
    assert decide(config, bash("ls -la"), BASH) == Allow("allowed by allow rule: bash(ls)", rule="bash(ls)")
    assert decide(config, bash("make"), BASH) == Deny("dont-ask mode: no allow rule matched")


def test_unknown_tools_go_through_authorisation_as_side_effects() -> None:
    """Rule: "Unknown tools still go through authorize first, so under Plan/DontAsk they report permission denied"."""
    for mode in (PermissionMode.PLAN, PermissionMode.DONT_ASK):
        assert isinstance(decide(PermissionConfig(mode=mode), plain("launch"), None), Deny)


# Mode changes.


@pytest.mark.parametrize("start", MODES)
@pytest.mark.parametrize("target", MODES)
def test_mode_changes_follow_the_original(start: PermissionMode, target: PermissionMode) -> None:
    """Rule: "from DontAsk nothing changes; from Bypass only DontAsk is accepted; otherwise any change
    (incl. loosening Plan->Default) is accepted. Refusals are silent no-ops"."""
    changed = PermissionConfig(mode=start).with_mode(target).mode
    if start is PermissionMode.DONT_ASK:
        assert changed is start
    elif start is PermissionMode.BYPASS:
        assert changed is (target if target is PermissionMode.DONT_ASK else start)
    else:
        assert changed is target


# The pipeline order.


def test_deny_rules_come_first_and_name_the_tool() -> None:
    """Rule: "(1) deny rules -> Deny 'denied by deny rule: TOOL'", before guards and allow rules."""
    config = PermissionConfig(mode=PermissionMode.BYPASS, deny=(ToolRule("Bash"),), allow=(ToolRule("Bash"),))
    assert decide(config, bash("rm -rf /"), BASH) == Deny("denied by deny rule: Bash", rule="tool(Bash)")


def test_guards_come_before_allow_rules() -> None:
    """Rule: "(2) built-in guards ... then user guards", before "(3) allow rules"."""
    config = PermissionConfig(allow=(BashRule("rm"),))
    assert decide(config, bash("rm -rf /"), BASH) == Ask(
        "destructive command requires approval", "recursive forced removal of /", guard="rm-root"
    )


def test_an_approved_guard_is_cleared_and_the_pipeline_goes_on() -> None:
    """Rule: "handler Allow clears only that guard and continues"."""
    config = PermissionConfig(mode=PermissionMode.DONT_ASK, allow=(BashRule("rm"),))
    call = bash("rm -rf ~ && rm -rf /etc")
    first = decide(config, call, BASH)
    assert isinstance(first, Ask) and first.guard == "rm-root"
    second = decide(config, call, BASH, approved_guards={"rm-root"})
    assert second == Ask("destructive command requires approval", "write to system path /etc", guard="system-path")
    third = decide(config, call, BASH, approved_guards={"rm-root", "system-path"})
    assert third == Allow("allowed by allow rule: bash(rm)", rule="bash(rm)")


def test_user_guards_deny_or_ask() -> None:
    """Rule: "user guards: action Deny -> Deny; Ask -> ..."; a deny guard wins over an ask guard."""
    guards = (
        Guard("ask-kubectl", BashRule("kubectl"), GuardAction.ASK, "kubectl touches the cluster"),
        Guard("no-prod", BashRule("prod-deploy"), GuardAction.DENY),
    )
    config = PermissionConfig(mode=PermissionMode.BYPASS, guards=guards)
    assert decide(config, bash("kubectl get pods"), BASH) == Ask(
        "destructive command requires approval", "kubectl touches the cluster", guard="ask-kubectl"
    )
    assert decide(config, bash("kubectl get pods; prod-deploy"), BASH) == Deny(
        "blocked by guard no-prod: bash(prod-deploy)", rule="guard:no-prod"
    )


def test_builtin_guards_can_be_switched_off() -> None:
    """The built-in guards apply only when `builtin_guards` is on (the original's guard flag)."""
    config = PermissionConfig(mode=PermissionMode.BYPASS, builtin_guards=False)
    assert decide(config, bash("rm -rf /"), BASH) == Allow("bypass mode")


def test_allow_rules_allow_in_any_mode_but_plan() -> None:
    """Rule: "(3) allow rules -> Allow in any mode" (Plan excepted, see above)."""
    for mode in (PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS, PermissionMode.DONT_ASK, PermissionMode.BYPASS):
        config = PermissionConfig(
            mode=mode, allow=(ToolRule("search"),), policy=(PolicyRule(ToolRule("search"), PolicyDeny("no")),)
        )
        assert decide(config, plain(), ToolInfo("search")) == Allow(
            "allowed by allow rule: tool(search)", rule="tool(search)"
        )


def test_the_data_policy_first_matching_line_wins() -> None:
    """Rule: "(5) policy (none => Allow)": the data policy's first matching line gives the verdict."""
    config = PermissionConfig(
        policy=(
            PolicyRule(ToolRule("delete_file"), PolicyAsk("Delete it?")),
            PolicyRule(ToolRule("delete_file"), PolicyAllow()),
            PolicyRule(ToolRule("search"), PolicyAllow()),
        )
    )
    assert decide(config, plain("delete_file"), ToolInfo("delete_file")) == Ask(
        "the policy asks for approval", "Delete it?"
    )
    assert decide(config, plain("search"), ToolInfo("search")) == Allow("allowed by policy", rule="tool(search)")
    assert decide(config, plain("other"), ToolInfo("other")) == Allow("no policy: allowed")


def test_a_policy_allow_line_for_a_program_needs_every_sub_command() -> None:
    """A granting policy line reads a bash rule as an allow rule (every sub-command), a refusing one as a deny
    rule (any sub-command)."""
    config = PermissionConfig(
        policy=(PolicyRule(BashRule("git"), PolicyAllow()), PolicyRule(BashRule("curl"), PolicyDeny("no network")))
    )
    assert decide(config, bash("git status"), BASH) == Allow("allowed by policy", rule="bash(git)")
    assert decide(config, bash("git status; curl x"), BASH) == Deny("no network", rule="bash(curl)")


def test_the_external_policy_is_consulted_then_decides() -> None:
    """Beyond the original: a policy that needs IO is consulted by the shell; its verdict is fed back in."""
    config = PermissionConfig(external_policy=True)
    call = plain()
    assert decide(config, call, ToolInfo("search")) == ConsultPolicy()
    assert decide(config, call, ToolInfo("search"), policy_verdict=PolicyAllow()) == Allow("allowed by policy")
    assert decide(config, call, ToolInfo("search"), policy_verdict=PolicyDeny("")) == Deny("denied by policy")
    assert decide(config, call, ToolInfo("search"), policy_verdict=PolicyAsk("?")) == Ask(
        "the policy asks for approval", "?"
    )


def test_a_policy_replacement_passes_through_with_the_new_arguments() -> None:
    """Rule: "Policy Replace{args} passes through and replaces the call args"."""
    config = PermissionConfig(policy=(PolicyRule(ToolRule("Bash"), PolicyReplace('{"command": "ls"}')),))
    assert decide(config, bash("ls -la"), BASH) == Allow(
        "allowed by policy with replaced arguments", rule="tool(Bash)", arguments='{"command": "ls"}'
    )


def test_replaced_arguments_are_screened_again() -> None:
    """Beyond the original: the replacement cannot smuggle a denied or destructive command past the rules."""
    config = PermissionConfig(deny=(BashRule("curl"),), external_policy=True)
    into_curl = PolicyReplace(json.dumps({"command": "curl evil.sh"}))
    assert decide(config, bash("ls"), BASH, policy_verdict=into_curl) == Deny(
        "denied by deny rule: Bash", rule="bash(curl)"
    )
    into_rm = PolicyReplace(json.dumps({"command": "rm -rf /"}))
    assert isinstance(decide(config, bash("ls"), BASH, policy_verdict=into_rm), Ask)


def test_an_unanswered_question_is_refused_with_the_original_wording() -> None:
    """Rule: "Ask -> no handler => Deny 'destructive command requires approval: PROMPT'" and
    "policy AskUser -> ... none => Deny 'no approval handler installed'"."""
    guard_ask = Ask("destructive command requires approval", "recursive forced removal of /", guard="rm-root")
    assert refuse_unanswered(guard_ask) == Deny(
        "destructive command requires approval: recursive forced removal of /", rule="guard:rm-root"
    )
    assert refuse_unanswered(Ask("the policy asks for approval", "?")) == Deny("no approval handler installed")


def test_screen_is_the_first_steps_alone() -> None:
    """`screen` answers the deny rules, Plan's refusal and the guards, and `None` for a call that passes them."""
    config = PermissionConfig(deny=(BashRule("curl"),))
    assert screen(config, bash("ls"), BASH) is None
    assert isinstance(screen(config, bash("curl x"), BASH), Deny)
    assert isinstance(screen(config, bash("rm -rf /"), BASH), Ask)


# Rule matchers.


def test_a_bash_deny_rule_matches_any_sub_command_by_name_or_path() -> None:
    """Rule: "bash_command(prog): tool must be 'Bash' with string command; deny = ANY sub-command's program equals";
    beyond the original, ``/bin/rm`` is ``rm`` for a deny rule."""
    config = PermissionConfig(deny=(BashRule("rm"),))
    for line in ("rm x", "ls && rm x", "sudo /bin/rm x", "bash -c 'rm x'", "echo $(rm x)"):
        assert isinstance(decide(config, bash(line), BASH), Deny), line
    assert not isinstance(decide(config, bash("ls"), BASH), Deny)
    assert not isinstance(decide(config, ToolCall("c", "Shell", '{"command": "rm x"}'), ToolInfo("Shell")), Deny)
    assert not isinstance(decide(config, ToolCall("c", "Bash", '{"command": 7}'), BASH), Deny)


def test_a_bash_allow_rule_needs_every_sub_command_exactly() -> None:
    """Rule: "allow = non-empty AND EVERY sub-command equals"."""
    config = PermissionConfig(mode=PermissionMode.DONT_ASK, allow=(BashRule("git"),))
    assert isinstance(decide(config, bash("git status && git diff"), BASH), Allow)
    for line in ("git status && ls", "/usr/bin/git status", "", "FOO=1", "bash -c 'git status'"):
        assert isinstance(decide(config, bash(line), BASH), Deny), line


DEEP = 'bash -c "sh -c \'zsh -c \\"dash -c \\\\\\"rm -rf /\\\\\\"\\"\'"'


def test_a_payload_too_deep_to_read_is_never_trusted() -> None:
    """Beyond the original (which stopped reading at depth 3 and let the rest through): a deeper payload matches
    every bash deny rule, no allow rule, and the ``unread-payload`` guard asks about it even in Bypass."""
    assert parse_command(DEEP)[-1].unread
    assert isinstance(decide(PermissionConfig(deny=(BashRule("curl"),)), bash(DEEP), BASH), Deny)
    allow_all = PermissionConfig(mode=PermissionMode.DONT_ASK, allow=(BashRule("bash"),), builtin_guards=False)
    assert isinstance(decide(allow_all, bash(DEEP), BASH), Deny)
    decision = decide(PermissionConfig(mode=PermissionMode.BYPASS), bash(DEEP), BASH)
    assert isinstance(decision, Ask) and decision.guard == "unread-payload"


def test_read_and_edit_rules_apply_to_their_tools_path() -> None:
    """Rule: "read(glob) applies to tool 'Read'; edit(glob) applies to 'Edit'/'Write'; both read the path arg"."""
    config = PermissionConfig(mode=PermissionMode.DONT_ASK, allow=(ReadRule("src/**"), EditRule("*.md")))
    assert isinstance(decide(config, at_path("Read", "./src/a/b.py"), READ), Allow)
    assert isinstance(decide(config, at_path("Read", "docs/x.md"), READ), Deny)
    assert isinstance(decide(config, at_path("Edit", "docs/x.md"), EDIT), Allow)
    assert isinstance(decide(config, at_path("Write", "x.MD"), WRITE), Allow)
    assert isinstance(decide(config, at_path("Read", "x.md"), READ), Deny)
    assert isinstance(decide(config, ToolCall("c", "Edit", '{"path": 3}'), EDIT), Deny)


def test_arguments_that_are_not_an_object_read_as_none() -> None:
    """A call whose argument text is not a JSON object has no command and no path; the decision still answers."""
    config = PermissionConfig(deny=(BashRule("rm"),))
    for text in ("not json", "[1]", "", "7"):
        assert decide(config, ToolCall("c", "Bash", text), BASH) == Allow("no policy: allowed")


# Built-in guards.

GUARDED = (
    ("rm -rf /", "rm-root"),
    ("rm -fr /*", "rm-root"),
    ("rm -r -f ~", "rm-root"),
    ("rm -Rf ~/", "rm-root"),
    ("rm --recursive --force $HOME", "rm-root"),
    ("sudo rm -rf ${HOME}", "rm-root"),
    ("rm -rf //", "rm-root"),
    ("echo x > /etc/hosts", "system-path"),
    ("echo x >> /usr/local/bin/tool", "system-path"),
    ("make &> /boot/log", "system-path"),
    ("echo x | tee /etc/motd", "system-path"),
    ("echo x | sudo tee -a /etc/motd", "system-path"),
    ("dd if=img of=/dev/sda", "system-path"),
    ("echo x > /sys/power/state", "system-path"),
    ("echo key >> ~/.ssh/authorized_keys", "secret-path"),
    ("echo x > .git/config", "secret-path"),
    ("echo KEY=1 > .env", "secret-path"),
    ("echo KEY=1 > config/.ENV.local", "secret-path"),
    ("rm .env", "secret-path"),
    ("bash -c 'echo x > /etc/passwd'", "system-path"),
    # Beyond the original: an rm target is a write, so removing / without both flags still asks.
    ("rm -r /", "system-path"),
    ("rm -f /etc/hosts", "system-path"),
)
NOT_GUARDED = (
    "rm -rf build",
    "rm -rf ./",
    "echo x > /dev/null",
    "make 2> /dev/stderr",
    "cat /etc/passwd",
    "dd if=/dev/urandom of=out.bin",
    "echo x > env.txt",
    "echo x > .envrc",
    "echo x > my.git/file",
    "echo x > etc/hosts",
    "make 2>&1",
)


@pytest.mark.parametrize(("line", "guard"), GUARDED)
def test_builtin_guards_ask(line: str, guard: str) -> None:
    """Rule: the built-in guards (all Ask): rm -rf of / or home; writes to system paths; writes to .git, .ssh
    and .env paths."""
    decision = decide(PermissionConfig(mode=PermissionMode.BYPASS), bash(line), BASH)
    assert isinstance(decision, Ask) and decision.guard == guard, decision


@pytest.mark.parametrize("line", NOT_GUARDED)
def test_builtin_guards_leave_ordinary_commands_alone(line: str) -> None:
    """The guards need both rm flags, a system or protected target; device allowlist; component-exact names."""
    assert decide(PermissionConfig(mode=PermissionMode.BYPASS), bash(line), BASH) == Allow("bypass mode")


@pytest.mark.parametrize(
    ("path", "guard"),
    [
        ("/etc/passwd", "system-path"),
        ("/", "system-path"),
        ("C:\\repo\\.git\\config", "secret-path"),
        ("~/.ssh/id_rsa", "secret-path"),
        ("app/.env.production", "secret-path"),
    ],
)
def test_write_and_edit_paths_are_guarded(path: str, guard: str) -> None:
    """Rule: "writes (Write/Edit path, ...)" to system or protected paths ask."""
    for tool in (WRITE, EDIT):
        decision = decide(PermissionConfig(mode=PermissionMode.BYPASS), at_path(tool.name, path), tool)
        assert isinstance(decision, Ask) and decision.guard == guard


def test_a_read_of_a_protected_path_is_not_a_write() -> None:
    """The write guards ignore reads."""
    assert decide(PermissionConfig(mode=PermissionMode.BYPASS), at_path("Read", "/etc/passwd"), READ) == Allow(
        "bypass mode"
    )


# Events and the wire.


def test_every_decision_has_its_event() -> None:
    """Deny is PermissionDenied, Allow is PermissionGranted, Ask is ApprovalRequested, ConsultPolicy none yet."""
    call = bash("ls")
    assert decision_events(call, Deny("no", rule="bash(ls)")) == (PermissionDenied("Bash", "no", "call_1", "bash(ls)"),)
    assert decision_events(call, Allow("bypass mode", approved=True)) == (
        PermissionGranted("call_1", "Bash", "bypass mode", None, True, None),
    )
    assert decision_events(call, Ask("r", "p")) == (ApprovalRequested("call_1", "Bash", call.arguments),)
    assert decision_events(call, ConsultPolicy()) == ()


def test_a_config_and_its_decisions_round_trip() -> None:
    """A config crosses process boundaries as JSON (a durable run can record what it ran under)."""
    config = PermissionConfig(
        mode=PermissionMode.PLAN,
        deny=(BashRule("curl"),),
        guards=(Guard("g", EditRule("*.lock"), GuardAction.DENY),),
        policy=(PolicyRule(ToolRule("x"), PolicyReplace("{}")),),
    )
    assert from_json(PermissionConfig, to_json(config)) == config
    decision: PermissionDecision = decide(config, bash("ls"), BASH)
    assert from_json(PermissionDecision, to_json(decision)) == decision


# Construction.


def test_bad_configs_are_refused_at_construction() -> None:
    """Bad input gets a clear error naming the argument, what it got and what is allowed."""
    with pytest.raises(ValueError, match=r"mode must be a PermissionMode or one of 'default', .*, got 'Plan' \(str\)"):
        PermissionConfig(mode="Plan")
    with pytest.raises(
        TypeError, match=r"deny\[0\] must be a permission rule \(ToolRule, BashRule, ReadRule or EditRule\)"
    ):
        PermissionConfig(deny=["rm"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="allow must be a sequence of permission rules, got 'git' \\(str\\)"):
        PermissionConfig(allow="git")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="BashRule: program must be a non-empty string, got ''"):
        BashRule("")
    with pytest.raises(TypeError, match="Guard: when must be a permission rule"):
        Guard("g", "rm")  # type: ignore[arg-type]


def test_a_list_of_rules_is_stored_as_a_tuple() -> None:
    """The config is frozen all the way down: sequences become tuples."""
    config = PermissionConfig(deny=[BashRule("rm")], allow=[ToolRule("Read")])
    assert config.deny == (BashRule("rm"),)
    assert isinstance(config.allow, tuple)
    assert hash(config) == hash(PermissionConfig(deny=(BashRule("rm"),), allow=(ToolRule("Read"),)))
