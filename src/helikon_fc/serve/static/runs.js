// The list of runs: newest first, filtered by status and agent (on the server) and by any text (here).

import { getJson } from "./api.js";
import { el, fill } from "./dom.js";
import { formatCost, formatDuration, formatStarted, formatStartedShort } from "./format.js";

/** Fetch the runs the filters in `form` select and show them in `body` (a <tbody>); `current` is the open run. */
export async function refreshRuns({ form, body, count }, current) {
  const query = new URLSearchParams();
  for (const name of ["status", "agent"]) {
    const value = form.elements[name].value;
    if (value) query.set(name, value);
  }
  const { runs } = await getJson(`/runs${query.size ? `?${query}` : ""}`);
  const words = form.elements.text.value.trim().toLowerCase();
  const shown = runs.filter((run) => matches(run, words));
  fill(body, shown.length ? shown.map((run) => runRow(run, current)) : emptyRow(runs.length));
  count.textContent = `${shown.length} of ${runs.length} run${runs.length === 1 ? "" : "s"}`;
}

function matches(run, words) {
  if (!words) return true;
  return [run.run_id, run.agent, run.status, run.error ?? ""].some((field) => field.toLowerCase().includes(words));
}

function runRow(run, current) {
  const link = el("a", { href: `#/runs/${encodeURIComponent(run.run_id)}`, title: run.run_id, text: run.run_id });
  if (run.run_id === current) link.setAttribute("aria-current", "page");
  return el(
    "tr",
    { class: run.run_id === current ? "current" : null, "data-run": run.run_id },
    el("td", { class: "run-id" }, link),
    el("td", {}, el("span", { class: `badge status-${run.status}`, text: run.status })),
    el("td", { text: run.agent }),
    el("td", {}, el("time", { datetime: run.started_at, title: formatStarted(run.started_at), text: formatStartedShort(run.started_at) })),
    el("td", { class: "number", text: formatDuration(run.duration_ms) }),
    el("td", { class: "number", text: String(run.requests) }),
    el("td", { class: "number", text: formatCost(run.cost) }),
  );
}

function emptyRow(total) {
  const words = total === 0 ? "No runs yet: start one above." : "No run matches the filters.";
  return el("tr", {}, el("td", { colspan: "7", class: "empty", text: words }));
}
