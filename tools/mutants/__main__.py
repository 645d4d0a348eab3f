"""Mutation testing of the pure layer: ``python -m tools.mutants [--module NAME] [--diff BASE [--lines]]``.

The pure layer is ``helikon_fc.core`` and ``helikon_fc.engine`` (`tools.mutants.layer`). Every mutant
(see `tools.mutants.operators`) of the chosen modules is run against the tests that execute its
line, found by one traced run of the suite first (`tools.mutants.coverage_map`): those of
``tests/core``, ``tests/engine`` and ``properties`` first, then, for the mutants they let through, those of
the rest of ``tests/`` (``tests/temporal`` is left out: it needs a dev server). Each mutant runs in
a forked child of a process that has pytest, hypothesis and trio imported already, under the
``mutants`` Hypothesis profile (few examples, derandomized), with ``-x``. A child that exceeds its
time limit counts as killed (the mutant loops).

The report gives the score per module and every surviving mutant as ``file:line``. A survivor is
a missing test, or an equivalent mutant listed, with its reason, in ``tools/mutants/equivalent.toml``;
the exit status is 1 when a survivor is neither.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
import tomllib
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRST = ("tests/core", "tests/engine", "properties")
EXCLUDED = ("tests/temporal",)
WORK = ROOT / ".mutants"
EQUIVALENT = Path(__file__).with_name("equivalent.toml")
PRELOAD = (
    "pytest",
    "hypothesis",
    "trio",
    "trio.testing",
    "attrs",
    "cattrs",
    "jsonschema_rs",
    "pytest_trio",
    "coverage",
)

sys.path.insert(0, str(ROOT / "src"))

import pytest  # noqa: E402
from tools.mutants.child import PYTEST_FLAGS, register_profile  # noqa: E402
from tools.mutants.layer import PURE, mutated_files  # noqa: E402
from tools.mutants.operators import mutants  # noqa: E402
from tools.mutants.server import ForkServer, Outcome  # noqa: E402


def test_paths() -> tuple[list[str], list[str]]:
    """The first-stage paths (tests/core, tests/engine, properties) and the rest of tests/ (without tests/temporal)."""
    rest = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").iterdir()
        if (path.is_dir() and not path.name.startswith(("_", "."))) or path.suffix == ".py"
        if str(path.relative_to(ROOT)) not in (*EXCLUDED, *FIRST) and path.name != "conftest.py"
    )
    return list(FIRST), rest


def chosen_files(names: list[str], base: str | None) -> list[Path]:
    """The pure-layer modules to mutate: named ones, those changed since `base`, or all of them."""
    if base is not None:
        changed = subprocess.run(
            ["git", "diff", "--name-only", base, "--", *(str(top.relative_to(ROOT)) for top in PURE)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        return sorted(ROOT / name for name in changed if name.endswith(".py") and (ROOT / name).exists())
    if names:
        return [_module_file(name) for name in names]
    return mutated_files()


def changed_lines(base: str, path: Path) -> set[int]:
    """The line numbers of `path` that `git diff BASE` shows added or changed (the new side of each hunk)."""
    diff = subprocess.run(
        ["git", "diff", "-U0", base, "--", str(path.relative_to(ROOT))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines: set[int] = set()
    for header in diff.splitlines():
        if header.startswith("@@"):
            start, _, count = header.split("+", 1)[1].split(" ", 1)[0].partition(",")
            lines.update(range(int(start), int(start) + (int(count) if count else 1)))
    return lines


def _module_file(name: str) -> Path:
    """A pure-layer module's file from ``wire``, ``permissions.coding.paths``, ``helikon_fc.core.wire``,
    ``engine.loop``, a package (``patterns``: its ``__init__.py``) or a path."""
    stem = name.removesuffix(".py").removeprefix("src/").replace("/", ".").removeprefix("helikon_fc.")
    stem = stem.removesuffix(".__init__")
    top = PURE[0].parent
    for base in (top, PURE[0]):  # ``engine.loop``, ``core.wire``; then ``wire`` in the core
        candidate = base.joinpath(*stem.split("."))
        for path in (candidate.with_suffix(".py"), candidate / "__init__.py"):
            if path.exists() and any(path.is_relative_to(pure) for pure in PURE):
                return path
    last = stem.rsplit(".", 1)[-1]
    matches = sorted(path for pure in PURE for path in pure.rglob(f"{last}.py"))
    if len(matches) != 1:
        raise SystemExit(f"--module: no pure-layer module {name!r} ({len(matches)} files named {last}.py)")
    return matches[0]


def survivors_in(log: str) -> set[str]:
    """``path:line: change`` of each mutant a log of an earlier run (its progress lines) shows surviving."""
    found = set()
    for line in log.splitlines():
        head, _, rest = line.partition("] ")
        status, _, where = rest.partition(" ")
        if head.startswith("[") and status in ("survived", "uncovered"):
            found.add(where.strip().rsplit("  (", 1)[0])
    return found


def load_equivalents() -> dict[str, str]:
    if not EQUIVALENT.exists():
        return {}
    entries = tomllib.loads(EQUIVALENT.read_text())["equivalent"]
    return {entry["key"]: entry["reason"] for entry in entries}


def report(outcomes: list[Outcome], equivalents: dict[str, str], seconds: float) -> int:
    """Print the score per module and the survivors; 1 when a survivor is not a listed equivalent."""
    by_module: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        by_module[outcome.mutant.path].append(outcome)
    print(f"\n{'module':<44} {'mutants':>7} {'killed':>7} {'score':>7} {'equiv.':>6}")
    killed_total = 0
    for path, items in sorted(by_module.items()):
        killed = sum(o.status in ("killed", "timeout") for o in items)
        equivalent = sum(o.status == "survived" and o.mutant.key in equivalents for o in items)
        killed_total += killed
        print(f"{path:<44} {len(items):>7} {killed:>7} {100 * killed / len(items):>6.1f}% {equivalent:>6}")
    total = len(outcomes)
    print(f"{'all':<44} {total:>7} {killed_total:>7} {100 * killed_total / max(total, 1):>6.1f}%  in {seconds:.0f} s")
    unexplained = 0
    for outcome in outcomes:
        if outcome.status in ("killed", "timeout"):
            continue
        mutant = outcome.mutant
        reason = equivalents.get(mutant.key)
        if reason is None:
            unexplained += 1
        tag = "equivalent: " + reason if reason else outcome.status
        print(f"{mutant.path}:{mutant.line}: {mutant.scope}: {mutant.description}  [{tag}]")
    (WORK / "last.json").write_text(
        json.dumps([{**o.mutant.__dict__, "key": o.mutant.key, "status": o.status, "stage": o.stage} for o in outcomes])
    )
    print(f"{unexplained} survivor(s) neither killed nor listed in {EQUIVALENT.relative_to(ROOT)}")
    return 1 if unexplained else 0


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.mutants", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--module", action="append", default=[], help="a module of core or engine (e.g. wire, engine.loop); repeatable"
    )
    parser.add_argument("--diff", metavar="BASE", help="only the pure-layer modules changed since BASE (git diff)")
    parser.add_argument(
        "--lines", action="store_true", help="with --diff: only the mutants on lines added or changed since BASE"
    )
    parser.add_argument("--sample", type=int, help="run only N mutants, chosen at random (--seed)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--examples", type=int, default=20, help="Hypothesis examples per property (default 20)")
    parser.add_argument("--nice", type=int, default=15, help="niceness of the run (default 15)")
    parser.add_argument("--first-only", action="store_true", help="skip the rest of tests/ for survivors")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument(
        "--survivors", metavar="LOG", help="only the mutants a log of an earlier run says survived (or were uncovered)"
    )
    parser.add_argument("--start", type=int, default=1, help="begin at the N-th mutant of the list (resume a run)")
    parser.add_argument(
        "--max-tests", type=int, help="at most N covering tests per stage, earlier killers then fastest (a lower bound)"
    )
    parser.add_argument(
        "--budget",
        type=float,
        help="per stage, only the covering tests that fit in SECONDS of traced time (a lower bound, quicker)",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="mutants run at once, in forked workers (default 1; 2 on 2 idle cores)"
    )
    parser.add_argument(
        "--reuse-trace", action="store_true", help="reuse .mutants/coverage.json from the last run (tests unchanged)"
    )
    args = parser.parse_args(list(argv) if argv is not None else None)

    os.nice(args.nice)
    os.environ.setdefault("HELIKON_FC_CRASH_TRIALS", "2")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")])
    os.chdir(ROOT)
    WORK.mkdir(exist_ok=True)
    files = chosen_files(args.module, args.diff)
    found = [m for path in files for m in mutants(str(path.relative_to(ROOT)), path.read_text())]
    if args.lines:
        if args.diff is None:
            raise SystemExit("--lines needs --diff BASE")
        touched = {str(path.relative_to(ROOT)): changed_lines(args.diff, path) for path in files}
        found = [m for m in found if m.line in touched[m.path]]
    if args.sample is not None:
        found = sorted(random.Random(args.seed).sample(found, min(args.sample, len(found))), key=found.index)
    found = found[args.start - 1 :]
    if args.survivors is not None:
        wanted = survivors_in(Path(args.survivors).read_text())
        found = [m for m in found if f"{m.path}:{m.line}: {m.description}" in wanted]
    if args.list:
        for mutant in found:
            print(f"{mutant.path}:{mutant.line}: {mutant.scope}: {mutant.description}")
        return 0
    if not found:
        print("no pure-layer module to mutate")
        return 0
    for name in PRELOAD:
        __import__(name)
    register_profile(args.examples)
    first, rest = test_paths()
    import coverage

    import_coverage = coverage.Coverage(data_file=None, include=[str(top / "*") for top in PURE])
    import_coverage.start()
    started = time.monotonic()

    console = os.fdopen(os.dup(1), "w", buffering=1)  # pytest captures sys.stdout and fd 1 during the session

    def log(outcome: Outcome, number: int) -> None:
        mutant = outcome.mutant
        print(
            f"[{number + args.start - 1}/{len(found) + args.start - 1}] {outcome.status:<9} "
            f"{mutant.path}:{mutant.line}: {mutant.description}"
            f"  ({outcome.stage}, {outcome.seconds:.1f} s)",
            file=console,
        )

    server = ForkServer(
        found,
        ROOT,
        FIRST,
        WORK,
        log,
        import_coverage,
        console,
        args.reuse_trace,
        args.max_tests,
        args.workers,
        args.budget,
    )
    paths = first + ([] if args.first_only else rest)
    pytest.main([*paths, *PYTEST_FLAGS], plugins=[server])
    return report(server.outcomes, load_equivalents(), time.monotonic() - started)


if __name__ == "__main__":
    raise SystemExit(main())
