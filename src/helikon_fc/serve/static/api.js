// Talking to the server of `helikon serve`: JSON requests with the access token, and the event stream's URL.

const TOKEN_KEY = "helikon.inspector.token";

/** The access token the user gave (kept for this browser tab only), or "". */
export function accessToken() {
  return sessionStorage.getItem(TOKEN_KEY) ?? "";
}

/** Remember (or, when empty, forget) the access token. */
export function setAccessToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** A failed request: `status` is the HTTP status (0 when the server could not be reached). */
export class ApiError extends Error {
  constructor(status, message, problems = []) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.problems = problems;
  }

  /** The error and its problems as one sentence for the page. */
  describe() {
    const problems = this.problems.length ? ` (${this.problems.join("; ")})` : "";
    return `${this.message}${problems}`;
  }
}

/** Any error in words: an `ApiError` with its problems, anything else by its message. */
export function describeFailure(error) {
  return error instanceof ApiError ? error.describe() : String(error && error.message ? error.message : error);
}

function headers(extra = {}) {
  const result = { Accept: "application/json", ...extra };
  const token = accessToken();
  if (token) result.Authorization = `Bearer ${token}`;
  return result;
}

async function request(method, path, body) {
  const init = { method, headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, `the server could not be reached (${error.message})`);
  }
  const payload = await readJson(response);
  if (!response.ok) throw errorFrom(response, payload);
  return payload;
}

async function readJson(response) {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return { error: text };
  }
}

function errorFrom(response, payload) {
  const words = payload && typeof payload.error === "string" ? payload.error : response.statusText;
  const problems = payload && Array.isArray(payload.problems) ? payload.problems.map(String) : [];
  const hint = response.status === 401 ? " — enter the server's access token above" : "";
  return new ApiError(response.status, `${response.status} ${words}${hint}`, problems);
}

/** GET `path` and return its JSON. */
export function getJson(path) {
  return request("GET", path);
}

/** POST `body` as JSON to `path` and return the JSON answer. */
export function postJson(path, body = {}) {
  return request("POST", path, body);
}

/** The path of run `runId` (and of `suffix` below it). */
export function runPath(runId, suffix = "") {
  return `/runs/${encodeURIComponent(runId)}${suffix}`;
}

/** The URL of run `runId`'s event stream; EventSource cannot send headers, so the token rides in the query. */
export function eventsUrl(runId) {
  const token = accessToken();
  const query = token ? `?access_token=${encodeURIComponent(token)}` : "";
  return `${runPath(runId, "/events")}${query}`;
}
