// Timelines: a device's events for one message (or all of its events), each with its time
// (the exact time on hover), and a bridge's attempts folded into one line per bridge that
// expands to every attempt.

import { el, pill, when } from "./dom.js";

const BRIDGE = ["BRIDGE_ATTEMPT", "BRIDGE_OVERFLOW"];

/**
 * The rows of a timeline, oldest first. `events` are `{time, event, reason}`; `extra(e)` adds
 * cells after the reason (a link to the message); `delay(e)` the time since acceptance.
 * Attempts of one bridge (the reason's first word, `b1`) show as one line where the last
 * attempt is: the bridge, how many attempts, and the last one's outcome.
 */
export function timelineRows(events, { extra = () => null, delay = () => null } = {}) {
  const attempts = new Map();
  for (const e of events) if (BRIDGE.includes(e.event)) attempts.set(bridgeOf(e), [...(attempts.get(bridgeOf(e)) || []), e]);
  const rows = [];
  for (const e of events) {
    if (!BRIDGE.includes(e.event)) {
      rows.push(row(e, e.reason || "", delay(e), extra(e)));
      continue;
    }
    const all = attempts.get(bridgeOf(e));
    if (all[all.length - 1] !== e) continue;
    rows.push(all.length === 1 ? row(e, e.reason || "", delay(e), extra(e)) : row(e, folded(all), delay(e), extra(e)));
  }
  return rows;
}

/** The bridge an attempt's reason names: `b1 webhook MESSAGE_DISPLAYED attempt 2: …` → `b1 webhook`. */
function bridgeOf(e) {
  return (e.reason || "").split(" ").slice(0, 2).join(" ");
}

function row(e, reason, delay, extra) {
  return el("tr", {}, el("td", {}, when(e.time)), el("td", { class: "delay" }, delay || ""), el("td", {}, pill(e.event)),
    el("td", {}, reason), extra ? el("td", {}, extra) : null);
}

/** One bridge's attempts as a line that expands to each of them. */
function folded(all) {
  const last = all[all.length - 1].reason || "";
  const outcome = last.slice(last.indexOf(": ") + 2);
  return el("details", { class: "attempts" },
    el("summary", {}, `${bridgeOf(all[0])}: ${all.length} attempts, last ${outcome}`),
    el("ol", {}, all.map((a) => el("li", {}, when(a.time), " ", a.reason || ""))));
}
