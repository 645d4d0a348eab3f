// Words and numbers for the page: durations, times, money, usage, arguments and errors.

/** "850 ms", "2.4 s", "3 min 5 s"; "—" when unknown. */
export function formatDuration(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60000);
  return `${minutes} min ${Math.round((ms % 60000) / 1000)} s`;
}

/** An offset from the run's start: "+1.25 s". */
export function formatOffset(ms) {
  return `+${(ms / 1000).toFixed(2)} s`;
}

/** A timestamp in the reader's local time, "2026-12-02 15:04:05"; the text itself when it does not parse. */
export function formatStarted(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso ?? "—");
  return `${dayOf(date)} ${timeOf(date)}`;
}

/** As `formatStarted`, without the day when it is today: "15:04:05". */
export function formatStartedShort(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso ?? "—");
  return dayOf(date) === dayOf(new Date()) ? timeOf(date) : dayOf(date);
}

const pad = (n) => String(n).padStart(2, "0");

function dayOf(date) {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function timeOf(date) {
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** "$0.0042"; "—" when the cost is unknown (no price for the model). */
export function formatCost(cost) {
  if (cost === null || cost === undefined) return "—";
  return `$${cost.toFixed(cost >= 1 ? 2 : 4)}`;
}

/** "2 requests · 120 in / 30 out tokens". */
export function formatUsage(usage) {
  if (!usage) return "";
  const requests = `${usage.requests} request${usage.requests === 1 ? "" : "s"}`;
  return `${requests} · ${usage.input_tokens} in / ${usage.output_tokens} out tokens`;
}

/** Tool-call arguments (JSON text) indented for reading; the text as it is when it is not JSON. */
export function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return String(text);
  }
}

/** Arguments as the server lists a waiting call's (a JSON value, or text that was not JSON), indented. */
export function prettyValue(value) {
  return typeof value === "string" ? prettyJson(value) : JSON.stringify(value, null, 2);
}

const ERROR_WORDS = {
  max_turns_exceeded: (e) => `max turns (${e.limit}) exceeded`,
  max_agent_depth_exceeded: (e) => `agent nesting depth (${e.depth}) exceeded max (${e.limit})`,
  max_iterations_exceeded: (e) => `max iterations (${e.limit}) exceeded without an escalation`,
  max_handoffs_exceeded: (e) => `max handoffs (${e.limit}) exceeded`,
  handoff_collision: (e) => `handoff tool name "${e.tool_name}" is claimed by more than one of: ${e.agents.join(", ")}`,
  unknown_handoff_target: (e) => `unknown handoff target: ${e.target}`,
  model_failed: (e) => `model failed (${e.kind}): ${e.message}`,
  structured_output_invalid: (e) =>
    `invalid structured output after one repair attempt: ${e.schema_errors.join("; ")}`,
  timed_out: (e) => `run timed out after ${e.seconds} s`,
  cancelled: (e) => e.reason,
  parallel_failed: (e) => `${e.failures.length} parallel branch(es) failed: ${branchWords(e.failures)}`,
  graph_failed: (e) =>
    `${e.failed.length} graph node(s) failed: ${branchWords(e.failed)}; skipped: ${e.skipped.join(", ") || "none"}`,
  guardrail_tripped: (e) => `${e.kind} guardrail tripwire`,
  hook_denied: (e) => `hook denied ${e.event}: ${e.reason}`,
  hook_failed: (e) => `hook failed at ${e.event}: ${e.message}`,
  tool_failed: (e) => `tool ${e.tool} failed: ${e.message}`,
  session_failed: (e) => `session failed: ${e.message}`,
  invalid_transition: (e) => `invalid transition from ${e.state} on ${e.input}${e.detail ? `: ${e.detail}` : ""}`,
  other_error: (e) => e.message,
};

function branchWords(failures) {
  return failures.map((f) => `${f.key}: ${describeError(f.error)}`).join(", ");
}

/** An `AgentError` (wire format) in words, as the library's own `str(error)` says it. */
export function describeError(error) {
  if (typeof error === "string") return error;
  const words = error && ERROR_WORDS[error.type];
  if (!words) return `the run failed (${error && error.type ? error.type : "unknown error"})`;
  try {
    return words(error);
  } catch {
    return `the run failed (${error.type})`;
  }
}
