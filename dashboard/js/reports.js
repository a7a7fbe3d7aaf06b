// The Reports view: the Firebase console's numbers per day (sends, received, impressions,
// opens) and drops by reason, as tables and as Chart.js charts with axes, values and tooltips.
// Chart.js comes from Debian's libjs-chart.js, embedded in pushmock (no network).

import { api, link } from "./api.js";
import { $, el, when } from "./dom.js";

const charts = {};

function filters() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData($("#report-filters"))) if (String(v).trim()) q.set(k, String(v).trim());
  return q;
}

export async function render() {
  const q = filters();
  const data = await api("/reports?" + q);
  q.set("format", "csv");
  $("#csv").href = link("/reports", q);
  $("#csv").setAttribute("download", "pushmock-reports.csv");
  const t = data.total;
  const dropped = Object.values(t.dropped_by_reason).reduce((a, b) => a + b, 0);
  $("#metrics").replaceChildren(...[["Sends", t.sends], ["Received", t.received], ["Impressions", t.impressions], ["Opens", t.opens], ["Dropped", dropped]]
    .map(([k, n]) => el("div", { class: "card", "data-metric": k.toLowerCase() }, el("div", { class: "n" }, n), el("div", { class: "k" }, k))));
  const series = ["Sends", "Received", "Impressions", "Opens"];
  draw("days", data.days.map((d) => d.date), series.map((s) => data.days.map((d) => d[s.toLowerCase()])), series, "Day");
  const reasons = Object.entries(t.dropped_by_reason).sort((a, b) => b[1] - a[1]);
  draw("drops", reasons.map(([r]) => r), [reasons.map(([, n]) => n)], ["Dropped"], "Reason");
  $("#chart-drops").closest("figure").querySelector("figcaption").textContent = reasons.length ? "Dropped, by reason" : "Dropped, by reason: none";
  const head = el("tr", {}, ["Date", "Sends", "Received", "Impressions", "Opens", "Delivered", "Pending", "Dropped"].map((h) => el("th", {}, h)));
  const line = (label, d) => el("tr", {}, [label, d.sends, d.received, d.impressions, d.opens, d.outcomes.delivered,
    d.outcomes.pending, Object.entries(d.dropped_by_reason).map(([r, n]) => `${r}: ${n}`).join(", ") || "0"].map((c) => el("td", {}, c)));
  $("#report-days").replaceChildren(el("thead", {}, head), el("tbody", {}, data.days.map((d) => line(d.date, d)), line("Total", t)));
  // Who still calls the legacy API (logged only under --legacy-api shutdown), newest first.
  const legacy = (await api("/events?event=LEGACY_API_CALL&limit=1000")).events.slice(-20).reverse();
  $("#legacy-calls").hidden = legacy.length === 0;
  $("#legacy-calls tbody").replaceChildren(...legacy.map((e) => el("tr", {}, el("td", {}, when(e.event_timestamp)), el("td", {}, e.reason || ""))));
}

export function clear() {
  $("#metrics").replaceChildren();
  $("#report-days").replaceChildren();
  for (const c of Object.values(charts)) c.destroy();
  for (const k of Object.keys(charts)) delete charts[k];
}

export function bind() {}

const PALETTE = ["#1a66d2", "#1e7d34", "#b26a00", "#8e24aa", "#c62828"];

/** Draws the value of each bar above it. */
const values = {
  id: "pushmockValues",
  afterDatasetsDraw(chart) {
    const { ctx } = chart;
    ctx.save();
    ctx.fillStyle = getComputedStyle(document.body).getPropertyValue("--fg");
    ctx.font = "11px system-ui, sans-serif";
    ctx.textAlign = "center";
    chart.data.datasets.forEach((set, i) => {
      if (!chart.isDatasetVisible(i)) return;
      chart.getDatasetMeta(i).data.forEach((bar, j) => {
        if (set.data[j] > 0) ctx.fillText(String(set.data[j]), bar.x, bar.y - 3);
      });
    });
    ctx.restore();
  },
};

function draw(name, labels, data, series, axis) {
  const css = getComputedStyle(document.body);
  const fg = css.getPropertyValue("--muted").trim();
  const grid = css.getPropertyValue("--line").trim();
  const datasets = series.map((s, i) => ({ label: s, data: data[i], backgroundColor: PALETTE[i % PALETTE.length] }));
  if (charts[name]) {
    charts[name].data.labels = labels;
    charts[name].data.datasets = datasets;
    charts[name].update();
    return;
  }
  charts[name] = new window.Chart($(`#chart-${name}`), {
    type: "bar",
    data: { labels, datasets },
    plugins: [values],
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      layout: { padding: { top: 16 } },
      plugins: { legend: { display: series.length > 1, labels: { color: fg } }, tooltip: { enabled: true } },
      scales: {
        x: { title: { display: true, text: axis, color: fg }, ticks: { color: fg }, grid: { color: grid } },
        // Room above the tallest bar for its value.
        y: { beginAtZero: true, grace: "15%", title: { display: true, text: "Count", color: fg }, ticks: { precision: 0, color: fg }, grid: { color: grid } },
      },
    },
  });
}
