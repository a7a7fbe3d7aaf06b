// pushmock's control API, for the project the dashboard shows.

const DEFAULT_PROJECT = "demo-pushmock";
let currentProject = DEFAULT_PROJECT;

export function project() {
  return currentProject;
}

export function setProject(id) {
  currentProject = id || DEFAULT_PROJECT;
}

export const base = () => `/emulator/v1/projects/${encodeURIComponent(currentProject)}`;

// With --control-token, open the dashboard as /#token=…: the token is kept for the tab.
export function takeTokenFromHash() {
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  if (!token) return false;
  sessionStorage.setItem("pushmock-token", token);
  return true;
}

export const token = () => sessionStorage.getItem("pushmock-token");

/** A URL under the current project for what cannot send a header (a link, an EventSource):
 * with --control-token it carries the token in the query. */
export function link(path, query) {
  const q = new URLSearchParams(query);
  if (token()) q.set("access_token", token());
  return base() + path + (String(q) ? "?" + q : "");
}

/** An error the control API answered, with its HTTP status. */
export class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** Calls an absolute control API path; answers the parsed JSON body. */
export async function call(path, options) {
  const headers = { "Content-Type": "application/json" };
  if (token()) headers["Authorization"] = "Bearer " + token();
  const r = await fetch(path, { ...(options || {}), headers });
  const text = await r.text();
  let body = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    throw new APIError(r.status, `HTTP ${r.status}: ${text.slice(0, 200)}`);
  }
  if (!r.ok) throw new APIError(r.status, (body.error && body.error.message) || `HTTP ${r.status}`);
  return body;
}

/** Calls a path under the current project. */
export const api = (path, options) => call(base() + path, options);

export const send = (method, path, body) => api(path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
