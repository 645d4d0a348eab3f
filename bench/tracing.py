"""S2 with tracing off, with OpenTelemetry absent, and with the OpenTelemetry SDK recording every span.

``python -m bench.tracing [--quick] [--rounds N] [--baseline-src DIR]`` runs each mode in its own
interpreter, the modes taking turns for N rounds (so load on the machine falls on all of them alike),
and prints one line per mode — the best and the median batch, in CPU µs per S2 run, against ``off`` —
then every batch as JSON:

- ``off``: ``RunContext(None)``, no tracer (the default);
- ``absent``: the same with ``opentelemetry`` made unimportable (what a user without the extra gets);
- ``sdk``: ``RunContext(None, tracer=OpenTelemetryTracer(provider))`` with the SDK's
  ``TracerProvider``, a ``SimpleSpanProcessor`` and an ``InMemorySpanExporter`` (17 spans per run:
  one agent run, four model calls, twelve tool calls), the exporter cleared after every run;
- ``baseline`` (with ``--baseline-src``): ``off`` on another source tree, e.g. the library before
  the tracing seam, to measure what the seam costs when no tracer is set.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

MODES = ("off", "absent", "sdk")


def measure(mode: str, quick: bool) -> dict[str, object]:
    """Time S2 in this interpreter under `mode`."""
    if mode == "absent":
        sys.modules["opentelemetry"] = None  # type: ignore[assignment]
    import trio

    from helikon_fc import RunContext, RunResultStreaming

    from . import script
    from .measure import Budget, timed_batches
    from .scenarios import check
    from .scenarios.helikon import COUNT, PROMPT_INPUT, BenchModel, agent

    a = agent(BenchModel())
    clear = None
    if mode == "sdk":
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        from helikon_fc.otel import OpenTelemetryTracer

        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        tracer = OpenTelemetryTracer(provider)
        clear = exporter.clear

        def context() -> RunContext[None]:
            return RunContext(None, tracer=tracer)
    else:

        def context() -> RunContext[None]:
            return RunContext.ephemeral(None)

    async def once() -> None:
        before = COUNT[0]
        result = await RunResultStreaming(a.run(context(), PROMPT_INPUT)).collect()
        check(result.final_output == script.FINAL_TEXT, "S2 answer")
        check(COUNT[0] - before == script.TOOL_CALLS, "S2 tool count")
        if clear is not None:
            check(len(exporter.get_finished_spans()) == 1 + script.MODEL_TURNS + script.TOOL_CALLS, "span count")
            clear()

    result = trio.run(timed_batches, once, Budget.for_mode(quick))
    loaded = sorted(name for name in sys.modules if name.startswith("opentelemetry") and sys.modules[name])
    return {**result, "opentelemetry_loaded": bool(loaded)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--mode", choices=MODES, help="measure one mode in this process (internal)")
    parser.add_argument("--rounds", type=int, default=1, help="times each mode is measured, in turn")
    parser.add_argument("--baseline-src", type=Path, help="also measure `off` on this source tree (its src/)")
    args = parser.parse_args()
    if args.mode is not None:
        print(json.dumps(measure(args.mode, args.quick)))
        return
    root = Path(__file__).resolve().parent.parent
    runs: list[tuple[str, str, Path]] = [(mode, mode, root) for mode in MODES]
    if args.baseline_src is not None:
        runs.insert(0, ("baseline", "off", args.baseline_src.resolve()))
    batches: dict[str, list[float]] = {label: [] for label, _, _ in runs}
    loaded: dict[str, bool] = {}
    for _ in range(args.rounds):
        for label, mode, tree in runs:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree / "src"), str(root)])}
            command = [sys.executable, "-m", "bench.tracing", "--mode", mode] + (["--quick"] if args.quick else [])
            done = subprocess.run(command, env=env, cwd=root, capture_output=True, text=True, check=True)
            result = json.loads(done.stdout.strip().splitlines()[-1])
            batches[label].extend(result["us"])
            loaded[label] = bool(result["opentelemetry_loaded"])
    best_off, median_off = min(batches["off"]), statistics.median(batches["off"])
    for label, us in batches.items():
        best, median = min(us), statistics.median(us)
        note = "opentelemetry loaded" if loaded[label] else "opentelemetry not loaded"
        print(
            f"{label:>8}: best {best:7.1f} µs ({best / best_off - 1:+6.1%}), "
            f"median {median:7.1f} µs ({median / median_off - 1:+6.1%}) per S2 run; {note}"
        )
    print(json.dumps(batches))


if __name__ == "__main__":
    main()
