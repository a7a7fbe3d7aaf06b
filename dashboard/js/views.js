// Helpers the list and detail views share.

import { el, fill } from "./dom.js";

export const hint = (text) => el("span", { class: "hint" }, text);

/**
 * Replaces a list's rows. Each row works as a link: click, Enter or Space opens it; the arrow
 * keys move between rows. The focused row stays focused across a refresh.
 */
export function listRows(body, rows, selected, open, columns, empty) {
  const focused = document.activeElement && body.contains(document.activeElement) ? document.activeElement.dataset.id : null;
  body.replaceChildren(...rows.map((r) => el("tr", {
    tabindex: 0, "data-id": r.id, class: r.id === selected ? "selected" : "", "aria-selected": String(r.id === selected),
    onclick: () => open(r.id),
    onkeydown: (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); open(r.id); }
      else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const next = e.key === "ArrowDown" ? e.currentTarget.nextElementSibling : e.currentTarget.previousElementSibling;
        if (next) next.focus();
      }
    },
  }, r.cells.map((c) => el("td", {}, c)))));
  if (!rows.length) body.append(el("tr", {}, el("td", { colspan: columns, class: "hint" }, empty)));
  if (focused) {
    const again = body.querySelector(`tr[data-id="${CSS.escape(focused)}"]`);
    if (again) again.focus();
  }
}

/**
 * Whether `data` differs from what `box` shows; an unchanged pane is left alone (open
 * sections, loaded images, scroll). A pane that shows another item starts at its top.
 */
export function changed(box, data, id) {
  const text = JSON.stringify(data);
  if (box.dataset.shown === text) return false;
  box.dataset.shown = text;
  if (id !== undefined && box.dataset.item !== id) {
    box.dataset.item = id;
    box.scrollTop = 0;
  }
  return true;
}

/** Redraws a pane, keeping what the user is typing in it (a live refresh must not eat it). */
export function redraw(box, ...children) {
  const typed = [...box.querySelectorAll("input[name]")].filter((i) => i.value).map((i) => [i.name, i.value]);
  const focused = box.contains(document.activeElement) && document.activeElement.name ? document.activeElement.name : null;
  fill(box, ...children);
  for (const [name, value] of typed) {
    const again = box.querySelector(`input[name="${CSS.escape(name)}"]`);
    if (again && !again.value) again.value = value;
  }
  if (focused) box.querySelector(`[name="${CSS.escape(focused)}"]`)?.focus();
}

/** Shows a hint in a detail pane, which then shows nothing it must keep. */
export function empty(box, text) {
  fill(box, text ? el("p", { class: "hint" }, text) : null);
  delete box.dataset.shown;
  delete box.dataset.item;
}

export const deviceLink = (ctx, id) => el("a", { class: "device-link", href: ctx.href("devices", id) }, id);
export const messageLink = (ctx, id, text) => el("a", { class: "message-link", href: ctx.href("messages", id), title: text ? id : null }, text || id);

/** A long id in a few characters (`dQ8PWd8g…tBxkQz`); the whole one is its tooltip. */
export const short = (t) => (t.length > 18 ? t.slice(0, 8) + "…" + t.slice(-6) : t);
export const shortToken = (t) => el("code", { class: "short-token", title: t }, short(t));
