// One run: its summary, its error in words, the calls it waits on, usage per agent and the timeline,
// followed live over the event stream while it runs.

import { describeFailure, getJson, postJson, runPath } from "./api.js";
import { renderApprovals } from "./approvals.js";
import { el, fill } from "./dom.js";
import { describeError, formatCost, formatDuration, formatStarted, formatUsage } from "./format.js";
import { follow } from "./live.js";
import { Timeline } from "./timeline.js";
import { renderTimeline } from "./timeline_view.js";

const RETRY_MS = 1000;

/** Show run `runId` in `root`, calling `onChange()` when its status changes; returns a function that stops it. */
export function showRun(runId, root, onChange = () => {}) {
  const view = new RunView(runId, root, onChange);
  view.load();
  return () => view.dispose();
}

class RunView {
  constructor(runId, root, onChange) {
    this.runId = runId;
    this.onChange = onChange;
    this.timeline = new Timeline();
    this.summary = null;
    this.stopStream = null;
    this.frame = null;
    this.disposed = false;
    this.parts = skeleton(runId);
    fill(root, this.parts.root);
    this.ticker = setInterval(() => this.renderCounts(), 1000);
  }

  dispose() {
    this.disposed = true;
    clearInterval(this.ticker);
    if (this.stopStream) this.stopStream();
    if (this.frame !== null) cancelAnimationFrame(this.frame);
  }

  /** Fetch the run's record; `endStatus` is what the event stream's last message said, when it just ended. */
  async load(endStatus = null) {
    let record;
    try {
      record = await getJson(runPath(this.runId));
    } catch (error) {
      if (!this.disposed) this.setState(`This run could not be loaded: ${describeFailure(error)}`);
      return;
    }
    if (this.disposed) return;
    this.summary = record.run;
    if (endStatus && this.summary.status === "running") this.summary = { ...this.summary, status: endStatus };
    for (const envelope of record.events) this.timeline.apply(envelope);
    this.renderAll(record.pending);
    this.onChange();
    if (this.summary.status === "running") this.followLive();
    else this.setState("");
  }

  followLive() {
    if (this.stopStream) this.stopStream();
    if (this.disposed) return;
    this.setState("connecting…");
    this.stopStream = follow(this.runId, {
      onEnvelope: (envelope) => {
        if (this.timeline.apply(envelope)) this.scheduleRender();
      },
      onEnd: (status) => {
        this.stopStream = null;
        // A stream that ends on a run still running (a server going away) is read again after a breath.
        if (status === "running" || status === null) setTimeout(() => this.load(), RETRY_MS);
        else this.load(status);
      },
      onState: (words) => this.setState(words),
    });
  }

  scheduleRender() {
    if (this.frame !== null) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.renderCounts();
      this.renderUsage();
      renderTimeline(this.parts.timeline, this.timeline);
    });
  }

  renderAll(pending) {
    this.renderSummary();
    this.renderError();
    renderApprovals(this.parts.approvals, pending, (decisions) => this.decide(decisions));
    this.renderUsage();
    renderTimeline(this.parts.timeline, this.timeline);
  }

  async decide(decisions) {
    await postJson(runPath(this.runId, "/approvals"), { decisions });
    this.markRunning();
    this.followLive();
  }

  /** Cancel the run (a live stream then ends by itself; a paused run is read again), or resume it. */
  async act(action) {
    try {
      await postJson(runPath(this.runId, `/${action}`));
      if (action === "resume") {
        this.markRunning();
        this.followLive();
      } else if (this.stopStream === null) {
        await this.load();
      }
    } catch (error) {
      this.setState(`${action} failed: ${describeFailure(error)}`);
    }
  }

  markRunning() {
    this.summary = { ...this.summary, status: "running", error: null };
    renderApprovals(this.parts.approvals, [], null);
    this.onChange();
    this.renderSummary();
    this.renderError();
  }

  setState(words) {
    this.parts.state.textContent = words;
  }

  /** Draw the summary (when it changed: its buttons keep their focus in between). */
  renderSummary() {
    if (this.summary) fill(this.parts.summary, summaryView(this.summary, (action) => this.act(action)));
    this.renderCounts();
  }

  /** Update the numbers a running run changes: its duration so far and the model requests seen. */
  renderCounts() {
    if (!this.summary) return;
    const counts = liveCounts(this.summary, this.timeline);
    for (const [name, words] of Object.entries(counts)) {
      const node = this.parts.summary.querySelector(`[data-fact="${name}"]`);
      if (node) node.textContent = words;
    }
  }

  renderError() {
    const words = failureWords(this.summary, this.timeline);
    this.parts.error.hidden = words === null;
    fill(this.parts.error, words === null ? null : [el("h2", { text: "The run failed" }), el("p", { text: words })]);
  }

  renderUsage() {
    fill(this.parts.usage, usageView(this.timeline));
  }
}

function skeleton(runId) {
  const parts = {
    summary: el("div", { class: "run-summary" }),
    state: el("p", { class: "stream-state", role: "status", "aria-live": "polite" }),
    error: el("section", { class: "run-error", role: "alert", hidden: true }),
    approvals: el("section", { class: "approvals", hidden: true, "aria-label": "waiting calls" }),
    usage: el("section", { class: "usage", "aria-label": "usage per agent" }),
    timeline: el("div", { class: "timeline", "aria-label": "timeline" }),
  };
  parts.root = el(
    "article",
    { class: "run", "data-run": runId },
    el("h2", {}, "Run ", el("code", { text: runId })),
    parts.summary,
    parts.state,
    parts.error,
    parts.approvals,
    parts.usage,
    el("h2", { text: "Timeline" }),
    parts.timeline,
  );
  return parts;
}

function summaryView(summary, act) {
  const facts = [
    ["Status", el("span", { class: `badge status-${summary.status}`, text: summary.status })],
    ["Agent", summary.agent],
    ["Started", formatStarted(summary.started_at)],
    ["Duration", el("span", { "data-fact": "duration" })],
    ["Requests", el("span", { "data-fact": "requests" })],
    ["Cost", formatCost(summary.cost)],
  ];
  return [
    el("dl", { class: "facts" }, facts.map(([term, value]) => el("div", {}, el("dt", { text: term }), el("dd", {}, value)))),
    actions(summary.status, act),
  ];
}

/** The duration (so far, while it runs) and the model requests (seen so far, while it runs) of a run. */
function liveCounts(summary, timeline) {
  const running = summary.status === "running";
  const duration = summary.duration_ms ?? (running ? Date.now() - Date.parse(summary.started_at) : null);
  const requests = running ? Math.max(summary.requests, requestsSeen(timeline)) : summary.requests;
  return { duration: formatDuration(duration), requests: String(requests) };
}

function requestsSeen(timeline) {
  let turns = 0;
  for (const lane of timeline.lanes.values()) turns += lane.turns;
  return turns;
}

function actions(status, act) {
  const buttons = [];
  if (status === "running" || status === "paused") {
    buttons.push(el("button", { type: "button", class: "cancel", text: "Cancel run", onclick: () => act("cancel") }));
  }
  if (status === "interrupted") {
    buttons.push(el("button", { type: "button", class: "resume", text: "Resume run", onclick: () => act("resume") }));
  }
  return buttons.length ? el("div", { class: "actions" }, buttons) : null;
}

function failureWords(summary, timeline) {
  if (!summary || summary.status !== "failed") return null;
  const outcome = timeline.outcome;
  if (outcome && outcome.status === "failed") return describeError(outcome.event.error);
  return summary.error ?? "the run failed (no error was recorded)";
}

function usageView(timeline) {
  const rows = usageRows(timeline);
  if (rows.length === 0) return null;
  return [
    el("h2", { text: "Usage per agent" }),
    el(
      "table",
      { class: "usage-table" },
      el("thead", {}, el("tr", {}, ["Agent", "Usage"].map((name) => el("th", { scope: "col", text: name })))),
      el("tbody", {}, rows.map(([agent, usage]) => el("tr", {}, el("th", { scope: "row", text: agent }), el("td", { text: usage })))),
    ),
  ];
}

function usageRows(timeline) {
  const rows =
    timeline.usageByAgent.size > 0
      ? [...timeline.usageByAgent].map(([agent, usage]) => [agent, formatUsage(usage)])
      : timeline.orderedLanes().map((lane) => [lane.agent, lane.usage ? formatUsage(lane.usage) : `${lane.turns} model turn(s)`]);
  if (timeline.totalUsage) rows.push(["all agents", formatUsage(timeline.totalUsage)]);
  return rows;
}
