/// The dashboard's script: plain DOM code against pushmock's own API. Live updates come from
/// `events:stream` (Server-Sent Events) and are coalesced: the visible view is refreshed at
/// most every `REFRESH_MS` (reports, which read the whole log, every `REPORT_REFRESH_MS`),
/// however fast events arrive.
enum DashboardScript {
    static let js = #"""
        "use strict";
        const REFRESH_MS = 400;
        const REPORT_REFRESH_MS = 2000;
        const EVENTS = ["MESSAGE_ACCEPTED", "MESSAGE_DELIVERED", "MESSAGE_DISPLAYED", "MESSAGE_PRESENTED", "MESSAGE_STORED",
          "MESSAGE_COLLAPSED", "MESSAGE_EXPIRED", "MESSAGE_DROPPED", "MESSAGE_OPEN", "MESSAGE_IMPRESSION", "INVALID_REGISTRATION",
          "MISMATCH_SENDER_ID", "QUOTA_EXCEEDED", "AUTHENTICATION_ERROR", "PAYLOAD_TOO_LARGE", "INVALID_PARAMETERS",
          "MESSAGE_RECEIVED_INTERNAL_ERROR", "INVALID_APNS_CREDENTIAL", "INVALID_PACKAGE_NAME", "INVALID_TTL", "MISSING_REGISTRATIONS"];
        const state = { view: "messages", message: null, device: null, dirty: true, source: null, refreshed: 0 };

        const $ = (sel) => document.querySelector(sel);
        function el(tag, attrs, ...children) {
          const e = document.createElement(tag);
          for (const [k, v] of Object.entries(attrs || {})) {
            if (k === "class") e.className = v;
            else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
            else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
          }
          for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
          return e;
        }
        const project = () => encodeURIComponent($("#project").value.trim() || "demo-pushmock");
        const base = () => `/emulator/v1/projects/${project()}`;
        // With --control-token, open the dashboard as /#token=...: the token is kept for the tab.
        const hashToken = new URLSearchParams(location.hash.slice(1)).get("token");
        if (hashToken) sessionStorage.setItem("pushmock-token", hashToken);
        const token = () => sessionStorage.getItem("pushmock-token");
        async function api(path, options) {
          const headers = { "Content-Type": "application/json" };
          if (token()) headers["Authorization"] = "Bearer " + token();
          const r = await fetch(base() + path, { ...(options || {}), headers });
          const text = await r.text();
          const body = text ? JSON.parse(text) : {};
          if (!r.ok) throw new Error((body.error && body.error.message) || r.status);
          return body;
        }
        function query(form) {
          const q = new URLSearchParams();
          for (const [k, v] of new FormData(form)) if (String(v).trim()) q.set(k, String(v).trim());
          return q;
        }
        const time = (iso) => iso ? iso.replace("T", " ").replace(/\.\d+Z$/, "Z") : "";
        function pill(kind, n) {
          const short = kind.replace("MESSAGE_", "").toLowerCase();
          const tone = /DROPPED|EXPIRED|INVALID|MISMATCH|QUOTA|AUTH|TOO_LARGE|INTERNAL|MISSING/.test(kind) ? "bad"
            : /STORED|COLLAPSED/.test(kind) ? "wait" : /DELIVERED|DISPLAYED|PRESENTED|OPEN|IMPRESSION/.test(kind) ? "good" : "";
          return el("span", { class: "pill " + tone, title: kind }, n === undefined ? short : `${short} ${n}`);
        }
        /// A table row that works as a button: click, Enter or Space. `id` lets a refresh put the
        /// keyboard focus back on the same row.
        function row(id, cells, onOpen, selected) {
          const tr = el("tr", { tabindex: 0, "data-id": id, class: selected ? "selected" : "", onclick: onOpen,
            onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onOpen(); } } },
            cells.map((c) => el("td", {}, c)));
          return tr;
        }
        /// Replaces a list's rows, keeping the focused row focused.
        function replaceRows(body, rows) {
          const focused = document.activeElement && body.contains(document.activeElement) ? document.activeElement.dataset.id : null;
          body.replaceChildren(...rows);
          if (focused) { const again = body.querySelector(`tr[data-id="${CSS.escape(focused)}"]`); if (again) again.focus(); }
        }
        /// Whether `data` differs from what `box` shows; a refresh leaves an unchanged pane alone
        /// (open sections, focus and scroll stay).
        function changed(box, data) {
          const text = JSON.stringify(data);
          if (box.dataset.shown === text) return false;
          box.dataset.shown = text;
          return true;
        }
        /// Replaces a box's contents; arrays are spread, nulls skipped.
        function fill(box, ...children) {
          box.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined));
        }
        function pre(value) { return el("pre", {}, typeof value === "string" ? value : JSON.stringify(value, null, 2)); }

        // Views

        function show(view) {
          state.view = view;
          for (const b of document.querySelectorAll(".tab")) b.setAttribute("aria-current", b.dataset.view === view ? "page" : "false");
          for (const s of document.querySelectorAll(".view")) s.hidden = s.id !== "view-" + view;
          location.hash = view;
          state.dirty = true;
          refresh();
        }

        async function refresh() {
          state.dirty = false;
          state.refreshed = Date.now();
          try {
            if (state.view === "messages") await renderMessages();
            else if (state.view === "reports") await renderReports();
            else if (state.view === "devices") await renderDevices();
            else if (state.view === "topics") await renderTopics();
          } catch (e) {
            console.error(e);
          }
        }

        async function renderMessages() {
          const q = query($("#message-filters"));
          q.set("limit", "200");
          const data = await api("/messages?" + q);
          const body = $("#messages tbody");
          replaceRows(body, data.messages.map((m) => row(m.message_id, [
            time(m.received_at),
            m.api + (m.http_version === "2" ? " h2" : ""),
            m.topic ? "/topics/" + m.topic : m.condition || m.notification_key_name || m.target,
            m.summary || el("span", { class: "hint" }, "(empty)"),
            Object.entries(m.counts || {}).map(([k, n]) => pill(k, n)),
          ], () => { state.message = m.message_id; renderMessages(); }, m.message_id === state.message)));
          if (!data.messages.length) body.append(el("tr", {}, el("td", { colspan: 5, class: "hint" }, "No messages yet.")));
          if (state.message) await renderMessage(state.message);
        }

        async function renderMessage(id) {
          const box = $("#message");
          let m;
          try { m = await api("/messages/" + encodeURIComponent(id)); } catch (e) { fill(box, el("p", { class: "hint" }, String(e.message))); return; }
          if (!changed(box, m)) return;
          fill(box,
            el("h2", {}, m.summary || m.message_id),
            el("p", {}, `${m.api} · ${m.target} · ${m.message_type} · received ${time(m.received_at)} · HTTP/${m.http_version}${m.tls ? " over TLS" : ""}`),
            el("p", {}, "Message id: ", el("code", {}, m.message_id)),
            el("h3", {}, "Request as received"),
            el("p", { class: "hint" }, m.request.content_type || "no content type"),
            pre(m.request.body),
            el("h3", {}, `Devices (${m.devices_total})`),
            m.devices.length < m.devices_total ? el("p", { class: "hint" }, `The first ${m.devices.length} are shown; the events API has them all.`) : null,
            m.devices.map((d) => el("section", { class: "delivery" },
              el("p", {}, el("span", { class: "device-device" }, d.device_id), ` ${d.platform} ${d.app} — `, pill(d.fate), d.reason ? ` ${d.reason}` : "",
                " ", el("button", { onclick: () => openDevice(d.device_id) }, "Open device")),
              el("table", { class: "list timeline" }, d.timeline.map((t) => el("tr", {}, el("td", {}, time(t.time)), el("td", {}, pill(t.event)), el("td", {}, t.reason || "")))),
              el("details", {}, el("summary", {}, { ios: "APNs request", android: "Android message", web: "Web push payload" }[d.platform]), pre(d.apns || d.android || d.web)))),
          );
        }

        function openDevice(id) { state.device = id; show("devices"); }

        async function renderReports() {
          const form = $("#report-filters");
          const q = query(form);
          const data = await api("/reports?" + q);
          q.set("format", "csv");
          $("#csv").href = base() + "/reports?" + q;
          $("#csv").setAttribute("download", "pushmock-reports.csv");
          const t = data.total;
          const dropped = Object.values(t.dropped_by_reason).reduce((a, b) => a + b, 0);
          $("#metrics").replaceChildren(...[["Sends", t.sends], ["Received", t.received], ["Impressions", t.impressions], ["Opens", t.opens], ["Dropped", dropped]]
            .map(([k, n]) => el("div", { class: "card", "data-metric": k.toLowerCase() }, el("div", { class: "n" }, n), el("div", { class: "k" }, k))));
          barChart($("#chart-days"), data.days.map((d) => [d.date.slice(5), [d.sends, d.received, d.impressions, d.opens]]), ["Sends", "Received", "Impressions", "Opens"]);
          barChart($("#chart-drops"), Object.entries(t.dropped_by_reason).map(([r, n]) => [r, [n]]), ["Dropped"]);
          const head = el("tr", {}, ["Date", "Sends", "Received", "Impressions", "Opens", "Delivered", "Pending", "Dropped"].map((h) => el("th", {}, h)));
          const line = (label, d) => el("tr", {}, [label, d.sends, d.received, d.impressions, d.opens, d.outcomes.delivered,
            d.outcomes.pending, Object.entries(d.dropped_by_reason).map(([r, n]) => `${r}: ${n}`).join(", ") || "0"].map((c) => el("td", {}, c)));
          $("#report-days").replaceChildren(el("thead", {}, head), el("tbody", {}, data.days.map((d) => line(d.date, d)), line("Total", t)));
          // Who still calls the legacy API (logged only under --legacy-api shutdown), newest first.
          const legacy = (await api("/events?event=LEGACY_API_CALL&limit=1000")).events.slice(-20).reverse();
          $("#legacy-calls").hidden = legacy.length === 0;
          $("#legacy-calls tbody").replaceChildren(...legacy.map((e) => el("tr", {}, el("td", {}, time(e.event_timestamp)), el("td", {}, e.reason || ""))));
        }

        const COLORS = ["#1a66d2", "#1e7d34", "#9a6700", "#8e24aa", "#b3261e"];
        function barChart(svg, groups, series) {
          const ns = "http://www.w3.org/2000/svg";
          const W = 600, H = 180, pad = 24;
          svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
          svg.replaceChildren();
          const caption = svg.parentElement.querySelector("figcaption");
          caption.querySelector(".legend")?.remove();
          if (series.length > 1) caption.append(el("span", { class: "legend" }, series.map((s, j) => el("span", {}, el("i", { style: `background:${COLORS[j]}` }), s))));
          const max = Math.max(1, ...groups.flatMap(([, v]) => v));
          const gw = (W - pad) / Math.max(1, groups.length);
          const bw = Math.max(2, Math.min(28, (gw - 6) / series.length));
          groups.forEach(([label, values], i) => {
            values.forEach((v, j) => {
              const h = (H - 2 * pad) * v / max;
              const r = document.createElementNS(ns, "rect");
              r.setAttribute("x", pad + i * gw + j * bw); r.setAttribute("y", H - pad - h);
              r.setAttribute("width", bw - 1); r.setAttribute("height", h); r.setAttribute("fill", COLORS[j % COLORS.length]);
              const title = document.createElementNS(ns, "title"); title.textContent = `${label} ${series[j]}: ${v}`; r.append(title);
              svg.append(r);
            });
            const t = document.createElementNS(ns, "text");
            t.setAttribute("x", pad + i * gw); t.setAttribute("y", H - 6); t.setAttribute("font-size", "10"); t.textContent = label;
            svg.append(t);
          });
          if (!groups.length) {
            const t = document.createElementNS(ns, "text");
            t.setAttribute("x", W / 2 - 30); t.setAttribute("y", H / 2); t.textContent = "No data"; svg.append(t);
          }
        }

        async function renderDevices() {
          const data = await api("/devices");
          const body = $("#devices tbody");
          replaceRows(body, data.devices.map((d) => row(d.id, [d.id, d.platform, d.app,
            `${d.app_state}${d.online ? "" : ", offline"}, notifications ${d.notifications}`],
            () => { state.device = d.id; renderDevices(); }, d.id === state.device)));
          if (!data.devices.length) body.append(el("tr", {}, el("td", { colspan: 4, class: "hint" }, "No devices yet.")));
          if (state.device) await renderDevice(state.device);
        }

        async function act(method, path, body) {
          try { await api(path, { method, body: body ? JSON.stringify(body) : undefined }); } catch (e) { alert(e.message); }
          state.dirty = true;
          refresh();
        }

        async function renderDevice(id) {
          const box = $("#device");
          let d, inbox, events, bridges;
          try {
            [d, inbox, events, bridges] = await Promise.all([api("/devices/" + id), api(`/devices/${id}/notifications`),
              api(`/events?device=${id}&limit=100000`), api("/bridges")]);
          } catch (e) { fill(box, el("p", { class: "hint" }, String(e.message))); return; }
          if (!changed(box, [d, inbox, events, bridges])) return;
          // The bridges that forward this device's events (docs/bridges.md).
          const mine = bridges.bridges.filter((b) => (b.device ? b.device === id : b.topic ? d.topics.includes(b.topic) : true) &&
            (!b.simulator || d.platform === "ios"));
          const where = (b) => b.webhook ? `webhook ${b.webhook.url}` : b.simulator ? `Simulator ${b.simulator.udid} ${b.simulator.bundle_id}` : `command ${b.command.argv.join(" ")}`;
          const attempts = events.events.filter((e) => e.event === "BRIDGE_ATTEMPT" || e.event === "BRIDGE_OVERFLOW").slice(-20).reverse();
          const patch = (change) => act("PATCH", "/devices/" + id, change);
          fill(box,
            el("h2", {}, `${d.id} · ${d.platform} · ${d.app}`),
            el("p", {}, `App ${d.app_state}, ${d.online ? "online" : "offline"}, notifications ${d.notifications}` +
              (d.low_power_mode ? ", Low Power Mode" : "") + `; received ${d.received}, pending ${d.pending}`),
            el("div", { class: "controls", role: "group", "aria-label": "Device controls" },
              ["foreground", "background", "terminated"].map((s) => el("button", { onclick: () => patch({ app_state: s }), "aria-pressed": String(d.app_state === s) }, s === "terminated" ? "Force-quit" : s[0].toUpperCase() + s.slice(1))),
              el("button", { onclick: () => patch({ online: !d.online }) }, d.online ? "Go offline" : "Go online"),
              d.token ? el("button", { onclick: () => act("POST", `/devices/${id}:refreshToken`) }, "Refresh token") : null),
            el("p", {}, "Token: ", el("code", {}, d.token || "none")),
            d.apns_token ? el("p", {}, "APNs token: ", el("code", {}, d.apns_token), ` (${d.apns_environment})`) : null,
            el("p", {}, "Topics: ", d.topics.length ? d.topics.join(", ") : "none"),
            el("h3", {}, `Inbox (${inbox.notifications.length})`),
            el("table", { class: "list inbox" }, inbox.notifications.slice().reverse().map((n) => el("tr", {},
              el("td", {}, time(n.received_at)), el("td", {}, el("code", {}, n.message_id)), el("td", {}, n.shown + (n.opened ? ", opened" : "")),
              el("td", {}, n.shown !== "app" && n.shown !== "page" && !n.opened ? el("button", { onclick: () => act("POST", `/devices/${id}/notifications/${encodeURIComponent(n.message_id)}:open`) }, "Open notification") : "")))),
            el("h3", {}, `Bridges (${mine.length})`),
            mine.length ? el("table", { class: "list bridges" }, mine.map((b) => el("tr", {},
              el("td", {}, el("code", {}, b.id)), el("td", {}, where(b)),
              el("td", {}, `${b.stats.succeeded} succeeded, ${b.stats.failed} failed, ${b.stats.overflowed} overflowed`)))) :
              el("p", { class: "hint" }, "No bridge forwards this device's events."),
            attempts.length ? el("table", { class: "list attempts" }, attempts.map((e) => el("tr", {},
              el("td", {}, time(e.event_timestamp)), el("td", {}, pill(e.event)), el("td", {}, e.reason || "")))) : null,
            el("h3", {}, "Timeline"),
            el("table", { class: "list timeline" }, events.events.slice(-200).reverse().map((e) => el("tr", {},
              el("td", {}, time(e.event_timestamp)), el("td", {}, pill(e.event)), el("td", {}, e.reason || ""),
              el("td", {}, e.message_id ? el("button", { onclick: () => { state.message = e.message_id; show("messages"); } }, "Message") : "")))),
          );
        }

        async function renderTopics() {
          const data = await api("/topics");
          const body = $("#topics tbody");
          body.replaceChildren(...data.topics.map((t) => el("tr", {}, el("td", {}, t.name), el("td", {}, t.subscribers),
            el("td", {}, t.devices.map((id) => el("button", { onclick: () => openDevice(id) }, id))))));
          if (!data.topics.length) body.append(el("tr", {}, el("td", { colspan: 3, class: "hint" }, "No topics yet.")));
        }

        // Live updates: any new event marks the view dirty; the timer refreshes at most every REFRESH_MS.

        function connect() {
          if (state.source) state.source.close();
          const source = new EventSource(base() + "/events:stream" + (token() ? "?access_token=" + encodeURIComponent(token()) : ""));
          state.source = source;
          source.onopen = () => { $("#live").textContent = "live"; $("#live").className = "live on"; };
          source.onerror = () => { $("#live").textContent = "reconnecting"; $("#live").className = "live off"; };
          source.onmessage = () => { state.dirty = true; };
          source.addEventListener("gap", () => { state.dirty = true; });
        }
        setInterval(() => {
          const every = state.view === "reports" ? REPORT_REFRESH_MS : REFRESH_MS;
          if (state.dirty && Date.now() - state.refreshed >= every) refresh();
        }, REFRESH_MS);

        for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", () => show(b.dataset.view));
        const eventSelect = $("#message-filters select[name=event]");
        for (const e of EVENTS) eventSelect.append(el("option", { value: e }, e));
        for (const form of document.querySelectorAll(".filters")) {
          form.addEventListener("input", () => { state.dirty = true; });
          form.addEventListener("submit", (e) => { e.preventDefault(); refresh(); });
        }
        $("#project").addEventListener("change", () => { state.message = null; state.device = null; connect(); show(state.view); });
        connect();
        show(["messages", "reports", "devices", "topics"].includes(location.hash.slice(1)) ? location.hash.slice(1) : "messages");
        """#
}
