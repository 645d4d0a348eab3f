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
    assert rows["S2 overhead per model turn <= 3x the trio floor"][1:] == ("2.06x", True)
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
