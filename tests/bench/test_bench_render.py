"""The bench report: targets computed from one run's records, and scenarios a library cannot express named."""

from __future__ import annotations

from typing import Any

from bench.render import Results, render_markdown, render_summary, targets


def timed(lib: str, scenario: str, us: list[float], round_: int = 0) -> dict[str, Any]:
    result: dict[str, Any] = {"us": us, "runs_per_batch": 10}
    if scenario == "S4":
        result["events_per_run"] = 40
    return {
        "type": "result",
        "run_id": "r",
        "round": round_,
        "lib": lib,
        "scenario": scenario,
        "ok": True,
        "result": result,
    }


def concurrent(lib: str, scenario: str, wall: float, kib: float) -> dict[str, Any]:
    result = {"n": 2000, "walls": [wall], "cpus": [wall], "rss_before": 0, "rss_peak": 2**20, "kib_per_run": kib}
    return {"type": "result", "run_id": "r", "round": 0, "lib": lib, "scenario": scenario, "ok": True, "result": result}


META = {
    "type": "meta",
    "run_id": "r",
    "quick": False,
    "rounds": 2,
    "cpus": 2,
    "libraries": {
        "helikon_fc": {"version": "0"},
        "trio-floor": {"version": "0"},
        "openai-agents": {"version": "0"},
        "langgraph": "not installed in python (ModuleNotFoundError)",
    },
    "scenarios": ["S2", "S3", "S6"],
}


def records() -> list[dict[str, Any]]:
    return [
        META,
        timed("helikon_fc", "S2", [400.0, 410.0, 390.0], 0),
        timed("helikon_fc", "S2", [420.0, 430.0, 425.0], 1),
        timed("trio-floor", "S2", [200.0, 200.0, 200.0]),
        timed("openai-agents", "S2", [8000.0, 8200.0, 7900.0]),
        concurrent("helikon_fc", "S3", 0.3, 20.0),
        concurrent("trio-floor", "S3", 0.25, 12.0),
        {
            "type": "result",
            "run_id": "r",
            "round": 0,
            "lib": "helikon_fc",
            "scenario": "S6",
            "ok": False,
            "error": "exit 1: boom",
        },
    ]


def test_targets_use_the_median_of_round_medians() -> None:
    """helikon's S2 is the median of its round medians (400 and 425 -> 412.5), against the floor's 200."""
    rows = {t: (measured, ratio, ok) for t, measured, ratio, ok in targets_of(records())}
    assert rows["S2 overhead per model turn <= 2.0x the trio floor"][1:] == ("2.06x", False)
    assert rows["S2 per model turn >= 10x lower than the fastest peer"][1:] == ("19.4x lower", True)
    assert rows["S3 wall <= 1.5x the trio floor"][1:] == ("1.20x", True)


def targets_of(recs: list[dict[str, Any]]) -> list[tuple[str, str, str, bool | None]]:
    return targets(Results(recs))


def test_a_missed_target_is_reported_as_missed() -> None:
    """A helikon S3 wall twice the floor's misses the 1.5x target."""
    recs = [*records()[:-3], concurrent("helikon_fc", "S3", 0.5, 20.0), concurrent("trio-floor", "S3", 0.25, 12.0)]
    rows = {t: ok for t, _, _, ok in targets_of(recs)}
    assert rows["S3 wall <= 1.5x the trio floor"] is False
    assert "[MISS] S3 wall" in render_summary(recs)


def test_the_table_says_why_a_number_is_missing() -> None:
    """Unsupported scenarios show their reason, failed pairs their error, uninstalled peers that they are missing."""
    table = render_markdown(records())
    assert "no pure transition function" in table
    assert "failed: exit 1: boom" in table
    assert "langgraph: not installed" in table


def with_variant(record: dict[str, Any], name: str, us: list[float]) -> dict[str, Any]:
    result = {**record["result"], "variants": {name: {**record["result"], "us": us}}}
    return {**record, "result": result}


def test_issue_14_targets_read_their_variants() -> None:
    """S1 is judged against the floor's run through a nursery, S2 through the simulator against S2 on a plain
    model, and S4 by events per second against the streaming floor's."""
    recs = [
        {**META, "scenarios": ["S1", "S2", "S4"]},
        timed("helikon_fc", "S1", [30.0]),
        with_variant(timed("trio-floor", "S1", [2.0]), "through a nursery", [12.0]),
        with_variant(timed("helikon_fc", "S2", [400.0]), "through the simulator (FunctionModel)", [460.0]),
        timed("trio-floor", "S2", [250.0]),
        timed("helikon_fc", "S4", [400.0]),  # 40 events in 400 µs: 100,000 events/s
        timed("trio-floor", "S4", [300.0]),  # 40 events in 300 µs: 133,333 events/s
    ]
    rows = {t: (ratio, ok) for t, _, ratio, ok in targets_of(recs)}
    assert rows["S1 one-turn run <= 3x the trio floor's through a nursery"] == ("2.50x", True)
    assert rows["S2 through the simulator (FunctionModel) <= 1.2x a plain Model"] == ("1.15x", True)
    assert rows["S2 overhead per model turn <= 2.0x the trio floor"] == ("1.60x", True)
    assert rows["S4 events/s through the public stream >= 0.7x the streaming trio floor's"] == ("0.75x", True)
    table = render_markdown(recs)
    assert "| trio floor, through a nursery | 12.0 |" in table
    assert "| helikon_fc, through the simulator (FunctionModel) | 460 |" in table
