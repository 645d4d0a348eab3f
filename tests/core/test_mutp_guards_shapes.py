"""Which command shapes and paths the built-in guards stop, and which they let by (original-notes section 6).

The guards answer "ask" (`GuardHit`): ``rm-root`` for ``rm`` with recursive and force flags on ``/`` or a home,
``system-path`` for a write under a system directory, ``secret-path`` for a write to a ``.git``/``.ssh``/``.env``
path, ``unread-payload`` for a payload nested too deep to read. These tests call the guards directly.
"""

from __future__ import annotations

import pytest

from helikon_fc.core.permissions import GuardHit, command_guard_hits, parse_command, path_guard_hits


def _hits(line: str) -> tuple[GuardHit, ...]:
    return command_guard_hits(parse_command(line))


def _names(line: str) -> tuple[str, ...]:
    return tuple(hit.name for hit in _hits(line))


# rm-root: which flag shapes count as recursive and forced.


@pytest.mark.parametrize(
    "line",
    [
        "rm -rf /",
        "rm -r -f /",
        "rm -fR /",
        "rm --recursive -f /",
        "rm -r --force /",
        "rm -rf -- /",
        "/bin/rm -rf /",
        "rm -rf //*",
        "rm -rf /./",
    ],
)
def test_recursive_forced_removal_of_the_root_is_rm_root(line: str) -> None:
    """Short flags in any cluster or order, long flags, ``--`` before the target, a path to rm: all rm-root."""
    assert _names(line) == ("rm-root",)


@pytest.mark.parametrize(
    "line",
    [
        "rm -rf ~",
        "rm -rf ~/",
        "rm -rf ~//",
        "rm -rf ~/.",
        "rm -rf $HOME",
        "rm -rf ${HOME}/",
        "rm -rf $HOME/*",
    ],
)
def test_recursive_forced_removal_of_the_home_is_rm_root(line: str) -> None:
    """``~``, ``$HOME`` and ``${HOME}``, with a trailing ``/``, ``/.`` or ``/*``, are the home itself."""
    assert _names(line) == ("rm-root",)


@pytest.mark.parametrize(
    "line",
    ["rm -rf ~/project", "rm -rf $HOME/build/*", "rm -rf ~user", "rm -rf $HOMEDIR", "rm -rf /tmp/x/*", "rm -rf /x"],
)
def test_recursive_forced_removal_below_the_home_or_root_is_not_rm_root(line: str) -> None:
    """Only the root and the home themselves: a directory inside them (or another user's home) is not."""
    assert "rm-root" not in _names(line)


@pytest.mark.parametrize("line", ["rm -rv /", "rm -fv /", "rm -- -rf /", "rm --no-preserve-root -f /"])
def test_rm_of_the_root_without_both_flags_is_a_system_write_not_rm_root(line: str) -> None:
    """Both flags are needed, given before ``--`` as options; a long option's letters are not short flags."""
    assert _hits(line) == (GuardHit("system-path", "write to system path /"),)


def test_the_rm_root_prompt_names_the_target() -> None:
    assert _hits("rm -rf ~/") == (GuardHit("rm-root", "recursive forced removal of ~/"),)


def test_a_forced_removal_of_a_protected_path_is_a_path_guard() -> None:
    """rm's targets are writes: a forced removal of an ordinary-but-protected path asks through the path guards."""
    assert _names("rm -rf .git") == ("secret-path",)
    assert _names("rm -rf /etc/.git") == ("system-path", "secret-path")


@pytest.mark.parametrize("line", ["rm -rf build", "rm -rf -", "rm -rf -- -x", "rm -rf ./"])
def test_forced_removal_of_ordinary_targets_is_not_guarded(line: str) -> None:
    assert _hits(line) == ()


def test_operands_after_double_dash_are_targets_even_when_they_look_like_options() -> None:
    """``rm -- -rf /etc/x``: after ``--`` every argument is a target, and no flag is read."""
    assert _hits("rm -- -rf /etc/x") == (GuardHit("system-path", "write to system path /etc/x"),)
    assert _names("rm -f -- --x .env") == ("secret-path",)


def test_a_second_double_dash_is_a_target() -> None:
    """Only the first ``--`` ends the options; a second one is an operand (an ordinary name)."""
    assert _names("rm -- -- .env") == ("secret-path",)


# The writes of a command.


@pytest.mark.parametrize(
    "line",
    [
        "echo x > /etc/x",
        "echo x >> /etc/x",
        "echo x 2> /etc/x",
        "echo x &> /etc/x",
        "echo x >& /etc/x",
        "echo x >| /etc/x",
        "tee /tmp/a /etc/x",
        "tee -a -- /etc/x",
        "dd if=in of=/etc/x",
    ],
)
def test_every_kind_of_write_to_a_system_path_asks(line: str) -> None:
    """Redirect targets, every tee argument and dd's ``of=`` are writes."""
    assert _hits(line) == (GuardHit("system-path", "write to system path /etc/x"),)


@pytest.mark.parametrize(
    "line",
    [
        "cat < /etc/passwd",
        "dd if=/etc/passwd of=out",
        "echo x 2>&1",
        "echo x >&2",
        "echo x >&-",
        "cp x /etc/x",
        "tee -a out",
        "cat /etc/x > out",
    ],
)
def test_reads_and_fd_duplications_are_not_writes(line: str) -> None:
    """An input redirect, dd's ``if=``, ``>&N`` and ``>&-`` and other programs' arguments are not writes."""
    assert _hits(line) == ()


def test_each_guard_is_reported_once_in_command_order() -> None:
    """The first write that trips a guard names it; later ones add only guards not yet seen."""
    assert _hits("echo a > /etc/a; echo b > /etc/b") == (GuardHit("system-path", "write to system path /etc/a"),)
    assert _names("echo > .env; echo > /etc/x; echo > .git/y") == ("secret-path", "system-path")


def test_a_payload_nested_too_deep_asks_as_unread() -> None:
    """Beyond `MAX_DEPTH` the text is not read, so nothing in it could be checked: the guard asks."""
    assert _hits("echo $(echo $(echo $(echo $(ls))))") == (
        GuardHit("unread-payload", "a command nested too deeply to inspect: ls"),
    )


def test_an_unread_payload_is_not_also_read_as_a_write() -> None:
    """An unread command asks as unread only: its text is not taken for an rm or a redirect."""
    assert _names("echo $(echo $(echo $(echo $(rm -rf / > /etc/x))))") == ("unread-payload",)


# path_guard_hits: system paths.


@pytest.mark.parametrize(
    "path",
    ["/", "/etc", "/usr/lib/x", "/bin/sh", "/sbin/init", "/sys/x", "/boot/grub", "/dev", "/dev/sda", "/dev/null/x"],
)
def test_writes_under_the_system_directories_ask(path: str) -> None:
    assert path_guard_hits(path) == (GuardHit("system-path", f"write to system path {path}"),)


@pytest.mark.parametrize("device", ["null", "zero", "full", "stdout", "stderr", "tty", "random", "urandom"])
def test_the_harmless_devices_are_not_system_paths(device: str) -> None:
    assert path_guard_hits(f"/dev/{device}") == ()


@pytest.mark.parametrize("path", ["/./etc/x", "/../etc/x", "//etc/x", "\\etc\\hosts", "/tmp/../usr/x"])
def test_system_paths_are_recognised_after_normalisation(path: str) -> None:
    """``.``, ``..``, doubled slashes and backslashes do not hide a system directory; the prompt keeps the path."""
    assert path_guard_hits(path) == (GuardHit("system-path", f"write to system path {path}"),)


@pytest.mark.parametrize("path", ["etc/hosts", "/usrx/y", "/home/etc/x", "/tmp/dev/sda", "", "/etcetera"])
def test_relative_paths_and_other_top_directories_are_not_system_paths(path: str) -> None:
    """Only an absolute path whose first component is a system directory (or ``/`` itself)."""
    assert path_guard_hits(path) == ()


# path_guard_hits: protected paths.


@pytest.mark.parametrize(
    "path",
    [
        ".git",
        "repo/.GIT/config",
        "~/.ssh/id_rsa",
        "a/.Ssh",
        ".env",
        "app/.ENV",
        ".env.local",
        "x/.env.",
        "C:\\r\\.git\\x",
    ],
)
def test_git_ssh_and_env_paths_are_protected(path: str) -> None:
    """A ``.git``/``.ssh`` component anywhere, or a last component ``.env``/``.env.*``, without case."""
    assert path_guard_hits(path) == (GuardHit("secret-path", f"write to protected path {path}"),)


@pytest.mark.parametrize("path", [".envrc", "x.env", ".env/file", "a.git/x", ".gitignore", "ssh/x", "env"])
def test_near_misses_are_not_protected(path: str) -> None:
    """Component-exact: ``.envrc``, ``x.env``, a ``.env`` directory, ``a.git``, ``.gitignore`` are ordinary."""
    assert path_guard_hits(path) == ()


def test_a_path_both_system_and_protected_trips_both_guards_system_first() -> None:
    assert path_guard_hits("/etc/.git/config") == (
        GuardHit("system-path", "write to system path /etc/.git/config"),
        GuardHit("secret-path", "write to protected path /etc/.git/config"),
    )


def test_an_option_is_not_a_target_even_when_it_holds_a_protected_path() -> None:
    """Only operands are written: ``--x=a/.git`` is an option of rm or tee, not a file they write."""
    assert _hits("rm -f --x=a/.git b") == ()
    assert _hits("tee --x=a/.git") == ()


def test_a_target_named_like_an_option_after_double_dash_is_guarded() -> None:
    """``--`` is how a file whose name starts with ``-`` is named: after it, such a name is a target."""
    assert _names("rm -- -old/.env") == ("secret-path",)
    assert _names("tee -a -- -x/.git/config") == ("secret-path",)


def test_the_first_operand_is_a_target_too() -> None:
    assert _hits("tee /etc/x") == (GuardHit("system-path", "write to system path /etc/x"),)
    assert _names("rm .env") == ("secret-path",)
