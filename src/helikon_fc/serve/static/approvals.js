// A paused run's waiting calls, each with Approve / Edit arguments / Reject. Once every call has a decision,
// they are sent together (`submit`), which resumes the run.

import { describeFailure } from "./api.js";
import { el, fill } from "./dom.js";
import { prettyValue } from "./format.js";

/**
 * Show `pending` ([{call_id, tool, args}]) in `container`; `submit(decisions)` is called with one decision per
 * call (the wire shape of POST /runs/{id}/approvals) and may reject with an error to show.
 */
export function renderApprovals(container, pending, submit) {
  if (pending.length === 0) {
    fill(container);
    container.hidden = true;
    return;
  }
  const decisions = new Map();
  const status = el("p", { class: "approval-status", role: "status" });
  const decide = (callId, decision) => {
    decisions.set(callId, decision);
    if (decisions.size === pending.length) send(decisions, status, submit, container);
    else status.textContent = `${pending.length - decisions.size} more call(s) need a decision.`;
  };
  container.hidden = false;
  fill(
    container,
    el("h2", { text: "Waiting for approval" }),
    el("p", { class: "hint", text: "The run is paused until every call below has a decision." }),
    pending.map((request) => pendingCall(request, decide)),
    status,
  );
}

async function send(decisions, status, submit, container) {
  status.textContent = "Sending the decisions…";
  for (const button of container.querySelectorAll("button")) button.disabled = true;
  try {
    await submit([...decisions.values()]);
    status.textContent = "Sent: the run resumes.";
  } catch (error) {
    status.textContent = `The decisions were not accepted: ${describeFailure(error)}`;
    decisions.clear();
    for (const button of container.querySelectorAll("button")) button.disabled = false;
  }
}

function pendingCall(request, decide) {
  const chosen = el("p", { class: "chosen", "aria-live": "polite" });
  const choose = (decision, words) => {
    chosen.textContent = `Decision: ${words}`;
    decide(request.call_id, decision);
  };
  const editor = argumentsEditor(request, (args) =>
    choose({ call_id: request.call_id, decision: "approve", arguments: args }, "approve with edited arguments"),
  );
  const rejecter = rejectForm(request, (reason) =>
    choose({ call_id: request.call_id, decision: "reject", ...(reason ? { reason } : {}) }, "reject"),
  );
  const approve = () => choose({ call_id: request.call_id, decision: "approve" }, "approve");
  return el(
    "article",
    { class: "pending-call", "data-call": request.call_id, "aria-label": `call ${request.tool} (${request.call_id})` },
    el("h3", {}, el("span", { class: "call-name", text: request.tool }), " ", el("span", { class: "call-id", text: request.call_id })),
    el("pre", { class: "args", text: prettyValue(request.args) }),
    el(
      "div",
      { class: "actions" },
      el("button", { type: "button", class: "approve", text: "Approve", onclick: approve }),
      el("button", { type: "button", class: "edit", text: "Edit arguments", onclick: () => reveal(editor) }),
      el("button", { type: "button", class: "reject", text: "Reject", onclick: () => reveal(rejecter) }),
    ),
    editor,
    rejecter,
    chosen,
  );
}

function reveal(form) {
  form.hidden = false;
  form.querySelector("textarea, input").focus();
}

function argumentsEditor(request, done) {
  const id = `edit-${request.call_id}`;
  const area = el("textarea", { id, rows: "6", spellcheck: "false" });
  area.value = prettyValue(request.args);
  const problem = el("p", { class: "problem", role: "alert" });
  const form = el(
    "form",
    { class: "edit-form", hidden: true },
    el("label", { for: id, text: "Arguments (a JSON object)" }),
    area,
    problem,
    el("button", { type: "submit", text: "Approve with these arguments" }),
  );
  area.addEventListener("input", () => {
    problem.textContent = "";
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const parsed = parseObject(area.value);
    problem.textContent = parsed.error ?? "";
    if (parsed.error === undefined) done(parsed.value);
  });
  return form;
}

/** The JSON object in `text`, or {error} saying why it is not one. */
export function parseObject(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `not JSON: ${error.message}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { error: "the arguments must be a JSON object, like {\"path\": \"x\"}" };
  }
  return { value };
}

function rejectForm(request, done) {
  const id = `reason-${request.call_id}`;
  const reason = el("input", { id, type: "text", placeholder: "why not (the model reads it)" });
  const form = el(
    "form",
    { class: "reject-form", hidden: true },
    el("label", { for: id, text: "Reason (optional)" }),
    reason,
    el("button", { type: "submit", text: "Send rejection" }),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    done(reason.value.trim());
  });
  return form;
}
