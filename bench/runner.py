"""The bench runner: every (library, scenario) pair in a fresh interpreter, several rounds, order rotated.

Each pair runs as ``<python> -m <module> <scenario> [--quick]`` with the repository root on
``PYTHONPATH``; the child prints its result as the last stdout line (JSON). Every result is appended
to ``bench/results/results.jsonl`` as one JSON line tagged with the run id; the run is then rendered
to ``bench/results/latest.md`` and summarised on stdout.

Each library may run in its own interpreter (``--python openai-agents=/path/to/venv/bin/python``),
so a peer whose dependencies clash with helikon_fc's can live in its own virtualenv; by default every
library runs in the interpreter running the bench.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from .libraries import BY_KEY, LIBRARIES, SCENARIOS, Library
from .render import render_markdown, render_summary

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"

ONCE = {"S3", "S7", "S8"}
"""Scenarios run in the first round only: S3 repeats its fan-out up to 5 times inside its process (and a slow
peer's single fan-out can take minutes); S7 is deterministic (virtual time); S8 is one large memory snapshot."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fast smoke run: short batches, small fan-outs, 1 round")
    parser.add_argument("--rounds", type=int, default=None, help="rounds per pair (default 3, 1 with --quick)")
    parser.add_argument("--libs", default=",".join(lib.key for lib in LIBRARIES), help="comma-separated library keys")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help="comma-separated scenario ids")
    parser.add_argument(
        "--python", action="append", default=[], metavar="LIB=PATH", help="interpreter for one library (repeatable)"
    )
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds one pair may take")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where results.jsonl and latest.md go")
    return parser.parse_args(argv)


def interpreters(overrides: list[str]) -> dict[str, str]:
    """Library key -> interpreter path, from ``LIB=PATH`` overrides and ``BENCH_PYTHON_<LIB>`` variables."""
    chosen = {lib.key: sys.executable for lib in LIBRARIES}
    for lib in LIBRARIES:
        env = os.environ.get("BENCH_PYTHON_" + lib.key.upper().replace("-", "_"))
        if env:
            chosen[lib.key] = env
    for item in overrides:
        key, _, path = item.partition("=")
        if key not in chosen or not path:
            raise SystemExit(f"--python expects LIB=PATH with LIB one of {', '.join(chosen)}; got {item!r}")
        chosen[key] = path
    return chosen


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
    env.setdefault("OPENAI_API_KEY", "sk-bench-not-used")
    return env


_PROBE = """
import importlib, importlib.metadata, json, sys
importlib.import_module(sys.argv[1])
version = importlib.metadata.version(sys.argv[2]) if sys.argv[2] else sys.version.split()[0]
print(json.dumps({"version": version, "python": sys.version.split()[0]}))
"""


def probe(lib: Library, python: str) -> dict[str, str] | str:
    """The library's version in its interpreter, or why it cannot run there."""
    try:
        done = subprocess.run(
            [python, "-c", _PROBE, lib.imports, lib.distribution or ""],
            capture_output=True,
            text=True,
            timeout=120,
            env=child_env(),
            cwd=ROOT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"not installed ({exc})"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return f"not installed in {python} ({last})"
    info: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return info


def source_revision() -> str:
    """The commit the bench ran on, with ``+dirty`` when the tree had changes (or ``unknown``)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT, timeout=30, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=30,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def run_pair(lib: Library, scenario: str, python: str, quick: bool, timeout: float) -> dict[str, object]:
    """Run one pair in a fresh interpreter; its result or its error."""
    command = [python, "-m", lib.module, scenario] + (["--quick"] if quick else [])
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, env=child_env(), cwd=ROOT, check=False
        )
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timed out after {timeout:.0f} s", "elapsed_s": time.perf_counter() - started}
    elapsed = time.perf_counter() - started
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = "\n".join(done.stderr.strip().splitlines()[-6:])
        return {"ok": False, "error": f"exit {done.returncode}: {tail}", "elapsed_s": elapsed}
    try:
        result = json.loads(lines[-1])
    except ValueError:
        return {"ok": False, "error": f"no JSON result on the last line: {lines[-1][:200]!r}", "elapsed_s": elapsed}
    return {"ok": True, "result": result, "elapsed_s": elapsed}


def plan(libs: list[Library], scenarios: list[str], rounds: int) -> list[list[tuple[Library, str]]]:
    """The pairs of each round, the order rotated by a different offset every round."""
    pairs = [(lib, s) for s in scenarios for lib in libs if lib.supports(s)]
    schedule = []
    for r in range(rounds):
        todo = [p for p in pairs if r == 0 or p[1] not in ONCE]
        if todo:
            offset = (r * len(todo)) // rounds
            todo = todo[offset:] + todo[:offset]
            if r % 2 == 1:
                todo.reverse()
        schedule.append(todo)
    return schedule


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rounds = args.rounds or (1 if args.quick else 3)
    try:
        libs = [BY_KEY[k] for k in args.libs.split(",") if k]
    except KeyError as exc:
        raise SystemExit(f"unknown library {exc}; known: {', '.join(BY_KEY)}") from None
    scenarios = [s for s in args.scenarios.split(",") if s]
    unknown = [s for s in scenarios if s not in SCENARIOS]
    if unknown:
        raise SystemExit(f"unknown scenario(s) {unknown}; known: {', '.join(SCENARIOS)}")
    pythons = interpreters(args.python)
    run_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    args.results.mkdir(parents=True, exist_ok=True)
    log_path = args.results / "results.jsonl"

    versions: dict[str, object] = {}
    runnable: list[Library] = []
    for lib in libs:
        info = probe(lib, pythons[lib.key])
        versions[lib.key] = info
        if isinstance(info, dict):
            runnable.append(lib)
        else:
            print(f"[bench] {lib.label}: {info}", file=sys.stderr)
    meta = {
        "type": "meta",
        "run_id": run_id,
        "quick": args.quick,
        "rounds": rounds,
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "commit": source_revision(),
        "load_average": os.getloadavg(),
        "libraries": versions,
        "interpreters": {k: pythons[k] for k in (lib.key for lib in libs)},
        "scenarios": scenarios,
    }
    records: list[dict[str, object]] = [meta]
    with log_path.open("a") as log:
        log.write(json.dumps(meta) + "\n")
        started = time.perf_counter()
        schedule = plan(runnable, scenarios, rounds)
        total = sum(len(r) for r in schedule)
        done_count = 0
        for round_index, pairs in enumerate(schedule):
            for lib, scenario in pairs:
                done_count += 1
                print(f"[bench] {done_count}/{total} round {round_index + 1}: {lib.label} {scenario}", file=sys.stderr)
                outcome = run_pair(lib, scenario, pythons[lib.key], args.quick, args.timeout)
                record = {
                    "type": "result",
                    "run_id": run_id,
                    "round": round_index,
                    "lib": lib.key,
                    "scenario": scenario,
                    **outcome,
                }
                if not outcome["ok"]:
                    print(f"[bench]   failed: {outcome['error']}", file=sys.stderr)
                records.append(record)
                log.write(json.dumps(record) + "\n")
                log.flush()
        meta_end = {
            "type": "end",
            "run_id": run_id,
            "elapsed_s": time.perf_counter() - started,
            "load_average": os.getloadavg(),
        }
        records.append(meta_end)
        log.write(json.dumps(meta_end) + "\n")

    markdown = render_markdown(records)
    (args.results / "latest.md").write_text(markdown)
    print(render_summary(records))
    print(f"[bench] table: {args.results / 'latest.md'}; raw: {log_path} (run {run_id})")
    return 0
