"""Turn one run's records into the markdown table (`latest.md`) and the stdout summary (standard library only).

How numbers are combined: within a round, a timed scenario's value is the median of its batches; the
table shows the median of the round values, and the min and max over every batch of every round.
Ratios are taken between medians of the same run.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import median
from typing import Any

from . import script
from .libraries import BY_KEY, LIBRARIES, PEERS, S1_IN_A_NURSERY, S2_SIMULATOR, SCENARIOS, TITLES

Record = dict[str, Any]
HELIKON = "helikon_fc"
FLOOR = "trio-floor"


class Results:
    """One run's results, indexed by (library, scenario)."""

    def __init__(self, records: list[Record]) -> None:
        self.meta = next((r for r in records if r.get("type") == "meta"), {})
        self.end = next((r for r in records if r.get("type") == "end"), {})
        self.ok: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        self.errors: dict[tuple[str, str], list[str]] = defaultdict(list)
        for r in records:
            if r.get("type") != "result":
                continue
            key = (r["lib"], r["scenario"])
            if r["ok"]:
                self.ok[key].append(r["result"])
            else:
                self.errors[key].append(r["error"])
        self.libs = [lib for lib in LIBRARIES if lib.key in self.meta.get("libraries", {})]

    def rounds(self, lib: str, scenario: str) -> list[dict[str, Any]]:
        return self.ok.get((lib, scenario), [])

    def timed(self, lib: str, scenario: str, variant: str | None = None) -> tuple[float, float, float] | None:
        """(median of round medians, min batch, max batch) in µs per run (of `variant`, measured beside it)."""
        rs = self.rounds(lib, scenario)
        if variant is not None:
            rs = [r["variants"][variant] for r in rs if variant in r.get("variants", {})]
        if not rs:
            return None
        return (
            median(median(r["us"]) for r in rs),
            min(min(r["us"]) for r in rs),
            max(max(r["us"]) for r in rs),
        )

    def concurrent(self, lib: str, scenario: str) -> dict[str, float] | None:
        rs = self.rounds(lib, scenario)
        if not rs:
            return None
        walls = [w for r in rs for w in r["walls"]]
        return {
            "n": rs[0]["n"],
            "wall": median(walls),
            "wall_min": min(walls),
            "wall_max": max(walls),
            "cpu": median(c for r in rs for c in r["cpus"]),
            "peak_mib": median(r["rss_peak"] for r in rs) / 2**20,
            "kib_per_run": median(r["kib_per_run"] for r in rs),
        }

    def extra_round(self, lib: str) -> dict[str, tuple[float, float, float]] | None:
        """S5: µs of one more tool round per history size: (median, min, max) over rounds."""
        rs = self.rounds(lib, "S5")
        if not rs:
            return None
        out = {}
        for size in (str(s) for s in script.S5_SIZES):
            values = [
                (median(r["sizes"][size]["rounds_us"]) - median(r["sizes"][size]["base_us"])) / r["rounds"] for r in rs
            ]
            out[size] = (median(values), min(values), max(values))
        return out

    def variants(self, lib: str, scenario: str) -> list[str]:
        """The variants `lib` measured beside `scenario` (e.g. S2 through the simulator), sorted."""
        return sorted({v for r in self.rounds(lib, scenario) for v in r.get("variants", {})})

    def events_per_run(self, lib: str, scenario: str, variant: str | None = None) -> int:
        """S4: how many events one run's public stream yielded."""
        first = self.rounds(lib, scenario)[0]
        return int((first["variants"][variant] if variant else first)["events_per_run"])

    def latency(self, lib: str, variant: str | None = None) -> dict[str, float] | None:
        """S9: median, min and max TTFT and the median total over every call of every round, in ms."""
        rs = self.rounds(lib, "S9")
        if variant is not None:
            rs = [r["variants"][variant] for r in rs if variant in r.get("variants", {})]
        if not rs:
            return None
        ttft = [v for r in rs for v in r["ttft_ms"]]
        return {
            "ttft": median(ttft),
            "ttft_min": min(ttft),
            "ttft_max": max(ttft),
            "total": median(v for r in rs for v in r["total_ms"]),
            "calls": len(ttft),
        }

    def why_not(self, lib: str, scenario: str) -> str:
        library = BY_KEY[lib]
        if not library.supports(scenario):
            return library.unsupported[scenario]
        errors = self.errors.get((lib, scenario))
        if errors:
            return "failed: " + errors[-1].splitlines()[-1][:160]
        info = self.meta.get("libraries", {}).get(lib)
        if isinstance(info, str):
            return info
        return "not run"


def _f(x: float, digits: int = 1) -> str:
    if x >= 1000:
        return f"{x:,.0f}"
    if x >= 100:
        return f"{x:.0f}"
    return f"{x:.{digits}f}"


def _ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0:
        return "-"
    return f"{a / b:.2f}x"


def _load(res: Results) -> str:
    """The 1/5/15-minute load averages at the start and the end of the run (other work on the machine)."""
    start, end = res.meta.get("load_average"), res.end.get("load_average")
    if not start:
        return ""
    text = "; load average " + "/".join(f"{x:.1f}" for x in start) + " at the start"
    return text + (", " + "/".join(f"{x:.1f}" for x in end) + " at the end" if end else "")


def _version(res: Results, lib: str) -> str:
    info = res.meta.get("libraries", {}).get(lib)
    return info.get("version", "?") if isinstance(info, dict) else "not installed"


Target = tuple[str, str, str, bool | None]
"""(target, measured, ratio, met): one row of the targets table (met `None`: nothing to judge it by)."""


def targets(res: Results) -> list[Target]:
    """(target, measured, ratio, met) for every target of issue 14 (and the standing ones of issue 6)."""
    rows: list[Target] = []
    for row in (
        _s1_target(res),
        *_s2_targets(res),
        _s3_target(res),
        _s8_target(res),
        _s4_target(res),
        _simulator_target(res),
        _s5_target(res),
        *_s9_targets(res),
        _s7_target(res),
    ):
        if row is not None:
            rows.append(row)
    return rows


def _s1_target(res: Results) -> Target | None:
    h1, f1 = res.timed(HELIKON, "S1"), res.timed(FLOOR, "S1", S1_IN_A_NURSERY)
    if not (h1 and f1):
        return None
    r = h1[0] / f1[0]
    return (
        "S1 one-turn run <= 3x the trio floor's through a nursery",
        f"{_f(h1[0])} vs {_f(f1[0])} µs/run",
        f"{r:.2f}x",
        r <= 3,
    )


def _s2_targets(res: Results) -> list[Target]:
    rows: list[Target] = []
    h2, f2 = res.timed(HELIKON, "S2"), res.timed(FLOOR, "S2")
    turns = script.MODEL_TURNS
    if h2 and f2:
        r = h2[0] / f2[0]
        measured = f"{_f(h2[0] / turns)} vs {_f(f2[0] / turns)} µs/turn"
        rows.append(("S2 overhead per model turn <= 2.0x the trio floor", measured, f"{r:.2f}x", r <= 2.0))
    timed_peers = [(p, t) for p, t in ((p, res.timed(p, "S2")) for p in PEERS) if t]
    if h2 and timed_peers:
        fastest, t = min(timed_peers, key=lambda pt: pt[1][0])
        r = t[0] / h2[0]
        measured = f"{_f(h2[0] / turns)} vs {_f(t[0] / turns)} µs/turn ({fastest})"
        rows.append(("S2 per model turn >= 10x lower than the fastest peer", measured, f"{r:.1f}x lower", r >= 10))
    return rows


def _s3_target(res: Results) -> Target | None:
    h3, f3 = res.concurrent(HELIKON, "S3"), res.concurrent(FLOOR, "S3")
    if not (h3 and f3):
        return None
    r = h3["wall"] / f3["wall"]
    ideal = script.MODEL_TURNS * script.LATENCY
    measured = f"{h3['wall']:.3f} vs {f3['wall']:.3f} s (ideal {ideal:.1f} s)"
    return ("S3 wall <= 1.5x the trio floor", measured, f"{r:.2f}x", r <= 1.5)


def _s8_target(res: Results) -> Target | None:
    h8, f8 = res.concurrent(HELIKON, "S8"), res.concurrent(FLOOR, "S8")
    if not (h8 and f8):
        return None
    r = h8["kib_per_run"] / f8["kib_per_run"]
    measured = f"{h8['kib_per_run']:.1f} vs {f8['kib_per_run']:.1f} KiB/run"
    return ("S8 memory per concurrent run <= 1.3x the trio floor", measured, f"{r:.2f}x", r <= 1.3)


def _s4_target(res: Results) -> Target | None:
    h4, f4 = res.timed(HELIKON, "S4"), res.timed(FLOOR, "S4")
    if not (h4 and f4):
        return None
    ours = res.events_per_run(HELIKON, "S4") / h4[0] * 1e6
    floor = res.events_per_run(FLOOR, "S4") / f4[0] * 1e6
    r = ours / floor
    measured = f"{_f(ours)} vs {_f(floor)} events/s"
    return ("S4 events/s through the public stream >= 0.7x the streaming trio floor's", measured, f"{r:.2f}x", r >= 0.7)


def _simulator_target(res: Results) -> Target | None:
    plain, simulated = res.timed(HELIKON, "S2"), res.timed(HELIKON, "S2", S2_SIMULATOR)
    if not (plain and simulated):
        return None
    r = simulated[0] / plain[0]
    measured = f"{_f(simulated[0])} vs {_f(plain[0])} µs/run"
    return ("S2 through the simulator (FunctionModel) <= 1.2x a plain Model", measured, f"{r:.2f}x", r <= 1.2)


def _s5_target(res: Results) -> Target | None:
    s5 = res.extra_round(HELIKON)
    if not s5:
        return None
    r = s5["10000"][0] / s5["10"][0]
    measured = f"{_f(s5['10000'][0])} vs {_f(s5['10'][0])} µs"
    return ("S5 one more tool round at 10,000 items <= 1.5x at 10", measured, f"{r:.2f}x", r <= 1.5)


def _s9_targets(res: Results) -> list[Target]:
    rows: list[Target] = []
    h9, f9 = res.latency(HELIKON), res.latency(FLOOR)
    if h9 and f9:
        d = h9["ttft"] - f9["ttft"]
        rows.append(
            (
                "S9 OpenAIModel TTFT within 1 ms of the raw openai SDK (local HTTP server)",
                f"{h9['ttft']:.2f} vs {f9['ttft']:.2f} ms",
                f"{d:+.2f} ms",
                d <= 1.0,
            )
        )
    if h9:
        peers = [(p, t) for p, t in ((p, res.latency(p)) for p in PEERS) if t]
        if not peers:
            rows.append(("S9 TTFT the fastest of the frameworks", f"{h9['ttft']:.2f} ms; no peer measured", "-", None))
        else:
            fastest, t = min(peers, key=lambda pt: pt[1]["ttft"])
            measured = f"{h9['ttft']:.2f} vs {t['ttft']:.2f} ms ({fastest})"
            rows.append(
                (
                    "S9 TTFT the fastest of the frameworks",
                    measured,
                    f"{h9['ttft'] - t['ttft']:+.2f} ms",
                    h9["ttft"] <= t["ttft"],
                )
            )
    return rows


def _s7_target(res: Results) -> Target | None:
    s7 = res.rounds(HELIKON, "S7")
    if not s7:
        return None
    graphs = s7[0]["graphs"]
    equal = sum(1 for g in graphs if abs(g["makespan"] - g["critical_path"]) < 1e-9)
    below = sum(1 for g in graphs if g["makespan"] <= g["superstep"] + 1e-9)
    return (
        "S7 makespan == critical path on every graph, never above superstep",
        f"{equal}/{len(graphs)} equal, {below}/{len(graphs)} <= superstep",
        "-",
        equal == len(graphs) and below == len(graphs),
    )


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


def render_markdown(records: list[Record]) -> str:
    res = Results(records)
    meta = res.meta
    out: list[str] = [f"# Benchmark run {meta.get('run_id', '?')}", ""]
    out.append(
        f"{meta.get('cpus', '?')} CPUs ({meta.get('machine', '?')}, {meta.get('platform', '?')}), "
        f"Python {meta.get('python', '?')}; commit {meta.get('commit', '?')}; {meta.get('rounds', '?')} round(s)"
        + (" — **quick smoke run, not for quoting**" if meta.get("quick") else "")
        + (f"; {res.end['elapsed_s'] / 60:.1f} min" if res.end else "")
        + _load(res)
        + ". Each (library, scenario) ran in a fresh process; medians of round medians, min and max over all batches."
    )
    out.append("")
    out.extend(_table(["library", "version"], [[lib.label, _version(res, lib.key)] for lib in res.libs]))
    out += ["", "## Targets", ""]
    out.extend(
        _table(
            ["target", "measured", "ratio", "met"],
            [[t, m, r, "yes" if ok else ("no" if ok is False else "-")] for t, m, r, ok in targets(res)],
        )
    )
    for scenario in SCENARIOS:
        if scenario not in meta.get("scenarios", SCENARIOS):
            continue
        out += ["", f"## {TITLES[scenario]}", ""]
        out.extend(_section(res, scenario))
    return "\n".join(out) + "\n"


def _section(res: Results, scenario: str) -> list[str]:
    rows: list[list[str]] = []
    missing: list[str] = []
    floor_t = res.timed(FLOOR, scenario) if scenario in ("S1", "S2", "S4") else None
    helikon_t = res.timed(HELIKON, scenario) if scenario in ("S1", "S2", "S4") else None
    for lib in res.libs:
        if not res.rounds(lib.key, scenario):
            missing.append(f"- {lib.label}: {res.why_not(lib.key, scenario)}")
            continue
        if scenario in ("S1", "S2"):
            for variant in (None, *res.variants(lib.key, scenario)):
                t = res.timed(lib.key, scenario, variant)
                assert t
                row = [lib.label + (f", {variant}" if variant else ""), _f(t[0]), _f(t[1]), _f(t[2])]
                if scenario == "S2":
                    row.append(_f(t[0] / script.MODEL_TURNS))
                row.append(_ratio(t[0], floor_t[0] if floor_t else None))
                row.append(_ratio(t[0], helikon_t[0] if helikon_t else None))
                rows.append(row)
        elif scenario == "S4":
            for variant in (None, *res.variants(lib.key, scenario)):
                t = res.timed(lib.key, scenario, variant)
                assert t
                events = res.events_per_run(lib.key, scenario, variant)
                rows.append(
                    [
                        lib.label + (f", {variant}" if variant else ""),
                        str(events),
                        _f(t[0]),
                        _f(events / t[0] * 1e6),
                        _f(events / t[2] * 1e6),
                        _f(events / t[1] * 1e6),
                        _ratio(t[0], helikon_t[0] if helikon_t else None),
                    ]
                )
        elif scenario in ("S3", "S8"):
            c = res.concurrent(lib.key, scenario)
            f = res.concurrent(FLOOR, scenario)
            assert c
            ideal = script.MODEL_TURNS * script.LATENCY
            rows.append(
                [
                    lib.label,
                    str(int(c["n"])),
                    f"{c['wall']:.3f}",
                    f"{c['wall_min']:.3f}",
                    f"{c['wall_max']:.3f}",
                    f"{c['wall'] / ideal:.2f}x",
                    _ratio(c["wall"], f["wall"] if f else None),
                    f"{c['cpu']:.2f}",
                    f"{c['peak_mib']:.0f}",
                    f"{c['kib_per_run']:.1f}",
                    _ratio(c["kib_per_run"], f["kib_per_run"] if f else None),
                ]
            )
        elif scenario == "S5":
            e = res.extra_round(lib.key)
            assert e
            rows.append(
                [lib.label]
                + [f"{_f(e[s][0])} [{_f(e[s][1])}-{_f(e[s][2])}]" for s in e]
                + [_ratio(e["10000"][0], e["10"][0])]
            )
        elif scenario == "S6":
            rs = res.rounds(lib.key, scenario)
            tps = [median(r["transitions_per_s"]) for r in rs]
            all_tps = [v for r in rs for v in r["transitions_per_s"]]
            per_run = rs[0]["transitions_per_run"]
            rows.append(
                [lib.label, str(per_run), _f(median(tps)), _f(min(all_tps)), _f(max(all_tps)), _f(1e6 / median(tps))]
            )
        elif scenario == "S7":
            rows.extend(_graph_rows(res, lib.key))
        elif scenario == "S9":
            rows.extend(_latency_rows(res, lib.key))
    headers = {
        "S1": ["library", "µs/run", "min", "max", "x trio floor", "x helikon_fc"],
        "S2": ["library", "µs/run", "min", "max", "µs/model turn", "x trio floor", "x helikon_fc"],
        "S4": ["library", "events/run", "µs/run", "events/s", "min", "max", "x helikon_fc (µs/run)"],
        "S3": [
            "library",
            "runs",
            "wall s",
            "min",
            "max",
            "x ideal",
            "x trio floor",
            "CPU s",
            "peak RSS MiB",
            "KiB/run",
            "KiB/run x floor",
        ],
        "S5": ["library"] + [f"µs per extra round at {s:,} items" for s in script.S5_SIZES] + ["10,000 / 10"],
        "S6": ["library", "transitions/run", "transitions/s", "min", "max", "µs/transition"],
        "S7": [
            "library",
            "graphs",
            "nodes (min-max)",
            "makespan == critical path",
            "makespan <= superstep",
            "superstep / critical path (mean)",
            "scheduling wall s (total)",
        ],
    }
    headers["S8"] = headers["S3"]
    headers["S9"] = ["library", "calls", "TTFT ms", "min", "max", "total ms", "TTFT - raw SDK on trio (ms)"]
    lines = _table(headers[scenario], rows) if rows else ["(no results)"]
    if missing:
        lines += ["", "Not measured:", *missing]
    return lines


def _latency_rows(res: Results, lib: str) -> list[list[str]]:
    floor = res.latency(FLOOR)
    variants = sorted({v for r in res.rounds(lib, "S9") for v in r.get("variants", {})})
    rows = []
    for variant in (None, *variants):
        t = res.latency(lib, variant)
        if t is None:
            continue
        label = BY_KEY[lib].label + ("" if lib != FLOOR else " (raw openai SDK)") + (f", {variant}" if variant else "")
        delta = f"{t['ttft'] - floor['ttft']:+.2f}" if floor else "-"
        rows.append(
            [
                label,
                str(t["calls"]),
                f"{t['ttft']:.2f}",
                f"{t['ttft_min']:.2f}",
                f"{t['ttft_max']:.2f}",
                f"{t['total']:.2f}",
                delta,
            ]
        )
    return rows


def _graph_rows(res: Results, lib: str) -> list[list[str]]:
    graphs = res.rounds(lib, "S7")[0]["graphs"]
    equal = sum(1 for g in graphs if abs(g["makespan"] - g["critical_path"]) < 1e-9)
    below = sum(1 for g in graphs if g["makespan"] <= g["superstep"] + 1e-9)
    gain = sum(g["superstep"] / g["critical_path"] for g in graphs) / len(graphs)
    wall = sum(g.get("wall_s", 0.0) for g in graphs)
    nodes = [g["nodes"] for g in graphs]
    return [
        [
            BY_KEY[lib].label,
            str(len(graphs)),
            f"{min(nodes)}-{max(nodes)}",
            f"{equal}/{len(graphs)}",
            f"{below}/{len(graphs)}",
            f"{gain:.2f}x",
            f"{wall:.2f}" if wall else "-",
        ]
    ]


def render_summary(records: list[Record]) -> str:
    """A few lines for stdout: each target with its measured ratio, then the key medians."""
    res = Results(records)
    lines = ["", "helikon_fc benchmark summary" + (" (quick smoke run)" if res.meta.get("quick") else "")]
    for target, measured, ratio, ok in targets(res):
        mark = "MET " if ok else ("MISS" if ok is False else "    ")
        lines.append(f"  [{mark}] {target}: {ratio} ({measured})")
    for lib in res.libs:
        t = res.timed(lib.key, "S2")
        if t:
            lines.append(f"  S2 {lib.label:<14} {t[0]:>10.1f} µs/run  {t[0] / script.MODEL_TURNS:>9.1f} µs/model turn")
    failures = sorted({f"{lib}/{s}" for (lib, s) in res.errors})
    if failures:
        lines.append("  failed pairs: " + ", ".join(failures))
    return "\n".join(lines)
