// The dashboard: a URL per view, message and device (#/<project>/<view>[/<id>], so Back,
// Forward and links work), live updates from events:stream, and the keyboard.
//
// Live updates are coalesced: any new event marks the view dirty, and the visible view is
// refreshed at most every REFRESH_MS (reports, which read the whole log, every
// REPORT_REFRESH_MS), however fast events arrive.

import { project, setProject, takeTokenFromHash, link, call } from "./api.js";
import { $, $$, el, refreshTimes, setServerNow } from "./dom.js";
import * as messages from "./messages.js";
import * as devices from "./devices.js";
import * as topics from "./topics.js";
import * as log from "./log.js";
import * as reports from "./reports.js";
import * as projectView from "./project.js";
import * as reference from "./reference.js";

const REFRESH_MS = 400;
const REPORT_REFRESH_MS = 2000;
const VIEWS = { messages, devices, topics, log, reports, project: projectView, api: reference };
const EVENTS = ["MESSAGE_ACCEPTED", "MESSAGE_DELIVERED", "MESSAGE_DISPLAYED", "MESSAGE_PRESENTED", "MESSAGE_STORED",
  "MESSAGE_COLLAPSED", "MESSAGE_EXPIRED", "MESSAGE_DROPPED", "MESSAGE_OPEN", "MESSAGE_IMPRESSION", "INVALID_REGISTRATION",
  "MISMATCH_SENDER_ID", "QUOTA_EXCEEDED", "AUTHENTICATION_ERROR", "PAYLOAD_TOO_LARGE", "INVALID_PARAMETERS",
  "MESSAGE_RECEIVED_INTERNAL_ERROR", "INVALID_APNS_CREDENTIAL", "INVALID_PACKAGE_NAME", "INVALID_TTL", "MISSING_REGISTRATIONS",
  "LEGACY_API_CALL"];

const state = { view: "messages", id: null, routed: null, dirty: true, refreshed: 0, source: null, streamProject: null };

const href = (view, id) => `#/${encodeURIComponent(project())}/${view}${id ? "/" + encodeURIComponent(id) : ""}`;

/** What every view gets: where it is, how to link and navigate, and how to act. */
const ctx = {
  get id() { return state.id; },
  href,
  /** Navigates at once: a refresh that runs before the browser's hashchange event (a timer's, a
   *  live event's) renders the new place, never the one left (a message just deleted, say). */
  go(view, id) { location.hash = href(view, id); route(); },
  refresh() { state.dirty = true; refresh(); },
  /** Runs a change through the API; shows its error, refreshes either way; answers its result. */
  async act(change) {
    try {
      const result = await change();
      hideError(true);
      return result;
    } catch (e) {
      // An action's error stays until it is dismissed or the next action replaces it.
      showError(e.message, true);
      return null;
    } finally {
      state.dirty = true;
      refresh();
    }
  },
};

/** #/<project>/<view>/<id>; anything else is the default project's Messages. */
function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const [p, view, ...rest] = parts;
  const id = rest.join("/") || null;
  if (!p || !VIEWS[view]) {
    history.replaceState(null, "", href(VIEWS[p] ? p : "messages"));
    return route();
  }
  if (p !== project()) {
    for (const v of Object.values(VIEWS)) v.clear();
    messages.firstPage();
  }
  setProject(p);
  $("#project").value = p;
  state.view = view;
  state.id = id;
  for (const a of $$(".tab")) a.setAttribute("aria-current", a.dataset.view === view ? "page" : "false");
  for (const s of $$(".view")) s.hidden = s.id !== "view-" + view;
  document.body.classList.toggle("has-detail", !!id);
  document.title = `${id ? id + " · " : ""}${view} · ${p} · pushmock`;
  state.routed = location.hash;
  connect();
  state.dirty = true;
  refresh();
}

let running = null;
async function refresh() {
  if (running) { state.dirty = true; return running; }
  state.dirty = false;
  state.refreshed = Date.now();
  // The route as it is now: a navigation while this refresh runs starts another one.
  const view = state.view;
  const here = Object.create(ctx, { id: { value: state.id } });
  running = (async () => {
    try {
      await VIEWS[view].render(here);
      hideError();
    } catch (e) {
      // An unknown project (or a server that went away): say so, and show nothing stale.
      VIEWS[view].clear();
      showError(e.message);
    } finally {
      running = null;
      if (view !== state.view || here.id !== state.id) refresh();
    }
  })();
  return running;
}

function showError(text, sticky = false) {
  const b = $("#banner");
  if (!sticky && b.dataset.sticky === "1" && !b.hidden) return;
  b.dataset.sticky = sticky ? "1" : "";
  b.replaceChildren(el("span", {}, text),
    el("button", { type: "button", class: "dismiss", "aria-label": "Dismiss", title: "Dismiss", onclick: () => hideError(true) }));
  b.hidden = false;
}

/** Hides a view's error once the view loads; an action's error only when `sticky` is asked. */
function hideError(sticky = false) {
  const b = $("#banner");
  if (b.dataset.sticky === "1" && !sticky) return;
  b.dataset.sticky = "";
  b.hidden = true;
}

function connect() {
  if (state.source && state.streamProject === project()) return;
  if (state.source) state.source.close();
  const source = new EventSource(link("/events:stream"));
  state.source = source;
  state.streamProject = project();
  source.onopen = () => { $("#live").textContent = "live"; $("#live").className = "live on"; };
  source.onerror = () => { $("#live").textContent = "reconnecting"; $("#live").className = "live off"; };
  source.onmessage = () => { state.dirty = true; };
  source.addEventListener("gap", () => { state.dirty = true; });
}

async function syncClock() {
  try { setServerNow((await call("/emulator/v1/clock")).now); } catch { /* the times stay relative to this browser's clock */ }
}

/** j / k open the next / previous row of the list shown; / searches; Escape closes the detail. */
function keyboard(e) {
  if (e.target.closest("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  const list = $(`#view-${state.view} table.list.main tbody`);
  if ((e.key === "j" || e.key === "k") && list) {
    const rows = $$("tr[data-id]", list);
    if (!rows.length) return;
    const at = rows.findIndex((r) => r.dataset.id === state.id);
    const next = rows[Math.min(rows.length - 1, Math.max(0, at < 0 ? 0 : at + (e.key === "j" ? 1 : -1)))];
    ctx.go(state.view, next.dataset.id);
    next.focus();
    e.preventDefault();
  } else if (e.key === "/" && state.view === "messages") {
    $("#message-filters input[name=q]").focus();
    e.preventDefault();
  } else if (e.key === "Escape" && state.id) {
    ctx.go(state.view);
    e.preventDefault();
  }
}

function start() {
  if (takeTokenFromHash()) history.replaceState(null, "", "#/");
  for (const select of $$("#message-filters select[name=event], #log-filters select[name=event]")) {
    for (const e of EVENTS) select.append(el("option", { value: e }, e));
  }
  for (const form of $$(".filters")) {
    // A select may say only "change" (as a chosen option does here, in Chromium): both count.
    for (const kind of ["input", "change"]) form.addEventListener(kind, () => { messages.firstPage(); state.dirty = true; });
    form.addEventListener("submit", (e) => { e.preventDefault(); refresh(); });
  }
  $("#project-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const p = $("#project").value.trim() || "demo-pushmock";
    location.hash = `#/${encodeURIComponent(p)}/${state.view}`;
  });
  for (const v of Object.values(VIEWS)) v.bind(ctx);
  document.addEventListener("keydown", keyboard);
  // A navigation `ctx.go` has already routed is not routed again.
  window.addEventListener("hashchange", () => { if (location.hash !== state.routed) route(); });
  setInterval(() => {
    const every = state.view === "reports" ? REPORT_REFRESH_MS : REFRESH_MS;
    if (state.dirty && Date.now() - state.refreshed >= every) refresh();
  }, REFRESH_MS);
  setInterval(refreshTimes, 5000);
  setInterval(syncClock, 30000);
  syncClock().then(route);
}

start();
