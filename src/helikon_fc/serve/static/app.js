// The run inspector's entry point: the access token, the start form, the list of runs and the open run
// (chosen by the address's fragment, #/runs/<id>, so a reload shows the same run).

import { accessToken, describeFailure, getJson, postJson, setAccessToken } from "./api.js";
import { byId, el, fill } from "./dom.js";
import { refreshRuns } from "./runs.js";
import { showRun } from "./run_view.js";

const LIST_REFRESH_MS = 2000;

const page = {
  list: { form: byId("run-filters"), body: byId("run-rows"), count: byId("run-count") },
  listState: byId("list-state"),
  run: byId("run"),
  startForm: byId("start-form"),
  startState: byId("start-state"),
  tokenForm: byId("token-form"),
};

let current = null;
let stopRun = null;

/** `text` with %-escapes decoded; as it is when they are malformed (the address is typed by people). */
function decoded(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `#token=...` hands the page a token without it reaching the server's logs; it is kept for the tab, then removed. */
function takeTokenFromFragment() {
  const match = /^#token=(.*)$/.exec(location.hash);
  if (!match) return false;
  setAccessToken(decoded(match[1]));
  history.replaceState(null, "", location.pathname + location.search);
  return true;
}

function setUpToken() {
  const input = page.tokenForm.elements.token;
  input.value = accessToken();
  page.tokenForm.addEventListener("submit", (event) => {
    event.preventDefault();
    setAccessToken(input.value.trim());
    loadAgents();
    updateList();
    route();
  });
}

async function loadAgents() {
  try {
    const { agents } = await getJson("/agents");
    page.startState.textContent = "";
    fillAgentSelect(page.startForm.elements.agent, agents, false);
    fillAgentSelect(page.list.form.elements.agent, agents, true);
  } catch (error) {
    page.startState.textContent = `The agents could not be listed: ${describeFailure(error)}`;
  }
}

function fillAgentSelect(select, agents, withAll) {
  const chosen = select.value;
  const options = agents.map((agent) => el("option", { value: agent.name, title: agent.description, text: agent.name }));
  fill(select, withAll ? el("option", { value: "", text: "any agent" }) : null, options);
  if ([...select.options].some((option) => option.value === chosen)) select.value = chosen;
}

async function startRun(event) {
  event.preventDefault();
  const fields = page.startForm.elements;
  const body = { agent: fields.agent.value, input: fields.input.value };
  if (fields.session.value.trim()) body.session_id = fields.session.value.trim();
  page.startState.textContent = "Starting…";
  try {
    const { run_id: runId } = await postJson("/runs", body);
    page.startState.textContent = "";
    location.hash = `#/runs/${encodeURIComponent(runId)}`;
    updateList();
  } catch (error) {
    page.startState.textContent = `The run did not start: ${describeFailure(error)}`;
  }
}

let listing = null;
let listAgain = false;

/** Refresh the list of runs; a refresh asked for while one is under way follows it (answers stay in order). */
async function updateList() {
  if (listing !== null) {
    listAgain = true;
    return;
  }
  listing = refreshRuns(page.list, current);
  try {
    await listing;
    page.listState.textContent = "";
  } catch (error) {
    page.listState.textContent = `The runs could not be listed: ${describeFailure(error)}`;
  } finally {
    listing = null;
  }
  if (listAgain) {
    listAgain = false;
    updateList();
  }
}

/** Show the run the fragment names (or the hint to pick one); a `#token=` fragment is taken first. */
function route() {
  if (takeTokenFromFragment()) {
    page.tokenForm.elements.token.value = accessToken();
    loadAgents();
  }
  const match = /^#\/runs\/(.+)$/.exec(location.hash);
  const runId = match ? decoded(match[1]) : null;
  if (stopRun) stopRun();
  stopRun = null;
  current = runId;
  if (runId === null) fill(page.run, el("p", { class: "empty", text: "Pick a run from the list, or start one." }));
  else stopRun = showRun(runId, page.run, updateList);
  updateList();
}

function main() {
  takeTokenFromFragment();
  setUpToken();
  page.startForm.addEventListener("submit", startRun);
  page.list.form.addEventListener("input", updateList);
  page.list.form.addEventListener("submit", (event) => event.preventDefault());
  window.addEventListener("hashchange", route);
  loadAgents();
  route();
  setInterval(() => {
    if (document.visibilityState === "visible") updateList();
  }, LIST_REFRESH_MS);
}

main();
